# a star: centre 0, leaves 1..6
0 1
0 2
0 3
0 4
0 5
0 6
