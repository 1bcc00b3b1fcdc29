//! Argument parsing: bad options are one-line errors; help and version.

use crate::support::*;

#[test]
fn bad_arguments_are_one_line_errors() {
    assert_bad_input(&graph500(&["--scale", "40"]), &["--scale", "40"]);
    assert_bad_input(&graph500(&["--scale", "43"]), &["--scale", "43"]);
    assert_bad_input(&graph500(&["--scale", "0"]), &["--scale"]);
    assert_bad_input(&graph500(&["--keys", "0"]), &["--keys"]);
    assert_bad_input(&graph500(&["--threads", "0"]), &["--threads"]);
    assert_bad_input(&graph500(&["--kernel", "fast"]), &["--kernel", "fast"]);
    assert_bad_input(&graph500(&["bfs", "--root", "1"]), &["--input"]);
    assert_bad_input(
        &graph500(&["--input", "x.el", "--scale", "5"]),
        &["--scale"],
    );
    assert_bad_input(&graph500(&["--edgefactor", "0"]), &["--edgefactor"]);
    assert_bad_input(
        &graph500(&["--edgefactor", "70000"]),
        &["--edgefactor", "70000"],
    );
    assert_bad_input(&graph500(&["--seed", "-1"]), &["--seed"]);
    assert_bad_input(&graph500(&["--seed", "abc"]), &["--seed", "abc"]);
    assert_bad_input(&graph500(&["--alpha", "0"]), &["--alpha"]);
    assert_bad_input(&graph500(&["--beta", "0"]), &["--beta"]);
    assert_bad_input(
        &graph500(&["bfs", "-i", "x.el", "--parents-out", "p", "--root", "-3"]),
        &["--root"],
    );
    assert_bad_input(&graph500(&["sweep", "--from", "0"]), &["--from"]);
    assert_bad_input(
        &graph500(&["--generator", "graph500", "--seed", "5"]),
        &["--seed", "graph500"],
    );
    assert_bad_input(
        &graph500(&["--generator", "graph500", "--input", "x.el"]),
        &["--generator", "--input"],
    );
    assert_bad_input(&graph500(&["--generator", "gsl"]), &["--generator", "gsl"]);
}

#[test]
fn help_and_version_exit_zero() {
    let o = graph500(&["--help"]);
    assert!(o.status.success());
    for word in [
        "generate",
        "bfs",
        "validate",
        "--scale",
        "--keys",
        "--kernel",
        "--threads",
    ] {
        assert!(stdout(&o).contains(word), "--help lacks {word}");
    }
    assert!(graph500(&["--version"]).status.success());
}
