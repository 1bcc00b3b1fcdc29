//! `graph500 bfs` and `graph500 sssp` under mpirun: the ranks search a
//! binary file and rank 0 writes the whole arrays, in the single-process
//! form, so `graph500 validate` checks the distributed tree; refusals and
//! output checks are printed once.

use super::{assert_refused_once, finish, mpirun};
use std::path::Path;
use std::process::Command;

/// `graph500 ARGS` in one process, successfully: its stderr.
fn one_process(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    stderr
}

/// A weighted SCALE 8 binary edge list in `dir`.
fn weighted_graph(dir: &Path) -> String {
    let graph = dir.join("g.bin").display().to_string();
    one_process(&[
        "generate",
        "--scale",
        "8",
        "--seed",
        "3",
        "--weights",
        "--out",
        &graph,
        "--quiet",
    ]);
    graph
}

/// The arguments of one search over `graph` from `root`: `graph500 bfs
/// ... --parents-out PARENTS`, or with `dist`, `graph500 sssp ...
/// --dist-out DIST`.
fn search<'a>(
    graph: &'a str,
    root: &'a str,
    parents: &'a str,
    dist: Option<&'a str>,
) -> Vec<&'a str> {
    let kind = if dist.is_some() { "sssp" } else { "bfs" };
    let mut args = vec![
        kind,
        "--input",
        graph,
        "--root",
        root,
        "--parents-out",
        parents,
    ];
    if let Some(dist) = dist {
        args.extend(["--dist-out", dist]);
    }
    args
}

/// The reached count of `graph500 validate` accepting `parents` (and
/// `dist`, an SSSP's) as a search of `graph` from `root`.
fn validated(graph: &str, root: &str, parents: &str, dist: Option<&str>) -> u64 {
    let mut args = vec![
        "validate",
        "--input",
        graph,
        "--root",
        root,
        "--parents",
        parents,
    ];
    if let Some(dist) = dist {
        args.extend(["--sssp", "--dist", dist]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    // "valid: root R, X vertices reached, ..."
    let reached = stdout.split(", ").nth(1).and_then(|w| w.split(' ').next());
    reached.and_then(|r| r.parse().ok()).expect(&stdout)
}

/// A root the single process reaches much of the graph from (the first of
/// 0, 1, 2, ... whose BFS reaches over 100 vertices).
fn good_root(graph: &str, dir: &Path) -> String {
    let parents = dir.join("probe.p").display().to_string();
    (0..64)
        .map(|r| r.to_string())
        .find(|root| {
            let mut args = search(graph, root, &parents, None);
            args.push("--quiet");
            one_process(&args);
            validated(graph, root, &parents, None) > 100
        })
        .expect("a root with a large component")
}

/// `mpirun -np ranks graph500 ARGS`, successfully; rank 0 alone printed
/// the summary line (`root R: ...`), which names the ranks (one rank is
/// one process: MPI starts for two or more).
fn over_ranks(ranks: usize, args: &[&str], root: &str) {
    let out = finish(mpirun(ranks, args), 120);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "P {ranks}: {stderr}");
    let summaries: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with(&format!("graph500: root {root}: ")))
        .collect();
    assert_eq!(
        summaries.len(),
        1,
        "P {ranks}: one summary, rank 0's:\n{stderr}"
    );
    let over = format!("over {ranks} ranks");
    assert_eq!(summaries[0].contains(&over), ranks > 1, "{stderr}");
}

#[test]
fn bfs_over_every_rank_count_writes_a_tree_validate_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let graph = weighted_graph(dir.path());
    let root = good_root(&graph, dir.path());
    let single = dir.path().join("single.p").display().to_string();
    one_process(&search(&graph, &root, &single, None));
    let reached = validated(&graph, &root, &single, None);
    for ranks in 1..=4 {
        let parents = dir.path().join(format!("p{ranks}.p")).display().to_string();
        let args = search(&graph, &root, &parents, None);
        over_ranks(ranks, &args, &root);
        assert_eq!(
            validated(&graph, &root, &parents, None),
            reached,
            "P {ranks}"
        );
    }
}

/// The distances of a file written by `graph500 sssp`.
fn distances(path: &str) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    let words = bytes.chunks_exact(4);
    words
        .map(|w| f32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// Over any rank count kernel 3 relaxes arcs in another order, but the
/// distances are the single process's exactly, not just within f32
/// tolerance: a vertex ends with the least, over the paths to it, of the
/// f32 sum of their weights added from the root outwards, and a least
/// value does not depend on the order it was found in.
#[test]
fn sssp_over_every_rank_count_writes_the_single_process_distances() {
    let dir = tempfile::tempdir().unwrap();
    let graph = weighted_graph(dir.path());
    let root = good_root(&graph, dir.path());
    let file = |name: &str| dir.path().join(name).display().to_string();
    let (parents, dist) = (file("single.p"), file("single.d"));
    one_process(&search(&graph, &root, &parents, Some(&dist)));
    let reached = validated(&graph, &root, &parents, Some(&dist));
    let single = distances(&dist);
    for ranks in 1..=4 {
        let (parents, dist) = (file(&format!("p{ranks}.p")), file(&format!("p{ranks}.d")));
        over_ranks(ranks, &search(&graph, &root, &parents, Some(&dist)), &root);
        assert_eq!(
            validated(&graph, &root, &parents, Some(&dist)),
            reached,
            "P {ranks}"
        );
        assert_eq!(distances(&dist), single, "P {ranks}");
    }
}

/// A text edge list: each rank would need its own byte range, which only
/// the binary format has; refused once, with the benchmark's words.
#[test]
fn a_text_input_under_mpirun_is_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    let graph = weighted_graph(dir.path());
    let text = dir.path().join("g.el").display().to_string();
    one_process(&["convert", &graph, &text, "--quiet"]);
    let parents = dir.path().join("p").display().to_string();
    let dist = dir.path().join("d").display().to_string();
    let bfs = search(&text, "0", &parents, None);
    let sssp = search(&text, "0", &parents, Some(&dist));
    for args in [&bfs, &sssp] {
        let out = finish(mpirun(3, args), 120);
        assert_refused_once(&out, "only a binary edge list has");
    }
    assert!(!Path::new(&parents).exists() && !Path::new(&dist).exists());
}

/// Rank 0's output checks (a folder that does not exist; an output that
/// is the input) are agreed on: one line, exit 2 from every rank, the
/// input untouched.
#[test]
fn an_output_refused_under_mpirun_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let graph = weighted_graph(dir.path());
    let before = std::fs::read(&graph).unwrap();
    let missing = dir.path().join("no/such/folder/p").display().to_string();
    let fine = dir.path().join("p").display().to_string();
    let bfs = search(&graph, "0", &missing, None);
    let out = finish(mpirun(3, &bfs), 120);
    assert_refused_once(&out, "no/such/folder");
    let sssp = search(&graph, "0", &fine, Some(&graph));
    let out = finish(mpirun(2, &sssp), 120);
    assert_refused_once(&out, "g.bin");
    assert_eq!(std::fs::read(&graph).unwrap(), before);
    assert!(!Path::new(&fine).exists());
}

/// A root beyond the graph, a BFS kernel the ranks do not run (the
/// benchmark's words), and a file without weights for an SSSP: the
/// single process's words, once.
#[test]
fn a_bad_root_kernel_or_unweighted_file_under_mpirun_is_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    let graph = weighted_graph(dir.path());
    let parents = dir.path().join("p").display().to_string();
    let bfs = search(&graph, "256", &parents, None);
    let out = finish(mpirun(2, &bfs), 120);
    assert_refused_once(&out, "--root for");
    let mut par = search(&graph, "0", &parents, None);
    par.extend(["--kernel", "par"]);
    let out = finish(mpirun(2, &par), 120);
    assert_refused_once(&out, "only --kernel dobfs runs, not par");
    let plain = dir.path().join("plain.bin").display().to_string();
    one_process(&["generate", "--scale", "6", "--out", &plain, "--quiet"]);
    let dist = dir.path().join("d").display().to_string();
    let sssp = search(&plain, "0", &parents, Some(&dist));
    let out = finish(mpirun(2, &sssp), 120);
    assert_refused_once(&out, "needs a weight per tuple");
}
