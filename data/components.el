# triangle 0-1-2, pair 3-4, path 5-6-7
0 1
1 2
2 0
3 4
5 6
6 7
