//! `graph500 bfs` and `graph500 validate`: one search, and other programs' parent arrays.

use crate::support::*;

#[test]
fn generate_bfs_validate_round_trip_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let (el, _, _, root) = text_graph(dir.path());
    let bin = dir.path().join("g.g500");
    assert!(
        graph500(&[
            "generate",
            "--scale",
            "9",
            "--seed",
            "4",
            "--out",
            path_str(&bin)
        ])
        .status
        .success()
    );
    let root = root.to_string();
    for (graph, kernel) in [(&el, "seq"), (&bin, "par")] {
        let p = dir.path().join(format!("{kernel}.parents"));
        let o = graph500(&[
            "bfs",
            "-i",
            path_str(graph),
            "--root",
            &root,
            "--parents-out",
            path_str(&p),
            "--kernel",
            kernel,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = graph500(&[
            "validate",
            "-i",
            path_str(graph),
            "--root",
            &root,
            "--parents",
            path_str(&p),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).starts_with("valid:"), "{}", stdout(&o));
    }
    // Both formats hold the same graph: same reach from the same root.
    let tail = |o: Output| {
        stdout(&o)
            .split(", ")
            .skip(1)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let p = dir.path().join("seq.parents");
    let from_text = tail(graph500(&[
        "validate",
        "-i",
        path_str(&el),
        "-r",
        &root,
        "--parents",
        path_str(&p),
    ]));
    let from_binary = tail(graph500(&[
        "validate",
        "-i",
        path_str(&bin),
        "-r",
        &root,
        "--parents",
        path_str(&p),
    ]));
    assert_eq!(from_text, from_binary);
}

#[test]
fn validate_accepts_another_programs_tree_and_rejects_broken_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (el, n, edges, root) = text_graph(dir.path());
    let parents = other_programs_parents(n, &edges, root);
    let ours = dir.path().join("ours.parents");
    let r = root.to_string();
    assert!(
        graph500(&[
            "bfs",
            "-i",
            path_str(&el),
            "-r",
            &r,
            "--parents-out",
            path_str(&ours)
        ])
        .status
        .success()
    );
    assert_ne!(
        read_parents(&ours),
        parents,
        "the other tree should differ from ours somewhere"
    );

    let theirs = dir.path().join("theirs.parents");
    let validate = |p: &[i64]| {
        write_parents(&theirs, p);
        graph500(&[
            "validate",
            "-i",
            path_str(&el),
            "-r",
            &r,
            "--parents",
            path_str(&theirs),
        ])
    };
    let o = validate(&parents);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let reached = (0..n).find(|&v| v != root && parents[v] >= 0).unwrap();
    let mut cut = parents.clone();
    cut[reached] = -1;
    let o = validate(&cut);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("invalid: check 4"), "{}", stdout(&o));

    // A two-vertex parent cycle: v below p, then p made v's child.
    let v = (0..n)
        .find(|&v| parents[v] >= 0 && v != root && parents[v] as usize != root)
        .expect("the tree has a vertex at level 2 or deeper");
    let mut looped = parents.clone();
    looped[parents[v] as usize] = v as i64;
    let o = validate(&looped);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("invalid: check 2"), "{}", stdout(&o));
}

#[test]
fn bfs_and_validate_reject_bad_roots_and_parent_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p");
    let path = data("path.el");
    assert_bad_input(
        &graph500(&["bfs", "-i", &path, "-r", "5", "--parents-out", path_str(&p)]),
        &["root 5", "0..5"],
    );
    assert!(!p.exists(), "a failed bfs must not write its output");
    assert!(
        graph500(&["bfs", "-i", &path, "-r", "4", "--parents-out", path_str(&p)])
            .status
            .success()
    );
    assert_eq!(read_parents(&p), [1, 2, 3, 4, 4]);
    let validate = |root: &str| {
        graph500(&[
            "validate",
            "-i",
            &path,
            "-r",
            root,
            "--parents",
            path_str(&p),
        ])
    };
    assert_bad_input(&validate("7"), &["--root 7"]);
    write_parents(&p, &[0, 0, 1, 2]);
    assert_bad_input(&validate("0"), &["4 parents", "5 vertices"]);
    std::fs::write(&p, [0u8; 13]).unwrap();
    assert_bad_input(&validate("0"), &["13 bytes"]);
}
