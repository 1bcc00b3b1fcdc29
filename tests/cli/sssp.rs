//! `graph500 --sssp`: kernel 3 after kernel 2 over the same keys, the
//! reference's combined block, its JSON and CSV rows, and its refusals.

use crate::support::*;
use std::path::Path;
use std::process::Output;

/// The labels of the combined block, in the reference's order (`main.c`
/// built with SSSP): each group for `bfs  ` then `sssp `.
fn combined_labels() -> Vec<String> {
    let seven = |prefix: &str, what: &str| -> Vec<String> {
        [
            "min",
            "firstquartile",
            "median",
            "thirdquartile",
            "max",
            "mean",
            "stddev",
        ]
        .iter()
        .map(|s| format!("{prefix}{s}_{what}"))
        .collect()
    };
    let teps = |prefix: &str| -> Vec<String> {
        let mut v: Vec<String> = ["min", "firstquartile", "median", "thirdquartile", "max"]
            .iter()
            .map(|s| format!("{prefix}{s}_TEPS"))
            .collect();
        v.push(format!("{prefix}harmonic_mean_TEPS"));
        v.push(format!("{prefix}harmonic_stddev_TEPS"));
        v
    };
    let head = ["SCALE", "edgefactor", "NBFS", "graph_generation"];
    let mut labels: Vec<String> = head.iter().map(|s| s.to_string()).collect();
    labels.extend(["num_mpi_processes".into(), "construction_time".into()]);
    for group in [
        seven("bfs  ", "time"),
        seven("sssp ", "time"),
        seven("", "nedge"),
        teps("bfs  "),
        teps("sssp "),
        seven("bfs  ", "validate"),
        seven("sssp ", "validate"),
    ] {
        labels.extend(group);
    }
    labels
}

/// `graph500 validate --sssp` of `graph` from `root` with the two arrays.
fn validate_sssp(graph: &Path, root: &str, parents: &Path, dist: &Path) -> Output {
    graph500(&[
        "validate",
        "--input",
        path_str(graph),
        "--root",
        root,
        "--parents",
        path_str(parents),
        "--sssp",
        "--dist",
        path_str(dist),
        "-q",
    ])
}

/// `graph500 sssp` of `graph` from `root` into `parents` and `dist`, with
/// `more` arguments.
fn sssp(graph: &Path, root: &str, parents: &Path, dist: &Path, more: &[&str]) -> Output {
    let mut args = vec![
        "sssp",
        "--input",
        path_str(graph),
        "--root",
        root,
        "--parents-out",
        path_str(parents),
        "--dist-out",
        path_str(dist),
    ];
    args.extend_from_slice(more);
    graph500(&args)
}

/// Runs `graph500 sssp` of `graph` from `root`, asserts that it reached
/// `reached` vertices, and that `graph500 validate --sssp` accepts the
/// arrays it wrote with the same count.
fn assert_sssp_validates(graph: &Path, root: &str, reached: u64, dir: &Path) {
    let (parents, dist) = (dir.join("p.bin"), dir.join("d.bin"));
    let o = sssp(graph, root, &parents, &dist, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = format!("root {root}: {reached} reached");
    assert!(stderr(&o).contains(&said), "{}", stderr(&o));
    let o = validate_sssp(graph, root, &parents, &dist);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let valid = format!("valid: root {root}, {reached} vertices reached");
    assert!(stdout(&o).starts_with(&valid), "{}", stdout(&o));
}

#[test]
fn sssp_runs_after_the_bfs_and_prints_the_combined_block() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let o = graph500(&[
        "--scale",
        "10",
        "--keys",
        "4",
        "--sssp",
        "-q",
        "--json",
        path_str(&json),
        "--csv",
        path_str(&csv),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let labels: Vec<&str> = out.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(labels[..55], combined_labels()[..]);
    for l in out.lines().take(55) {
        assert!(l.len() > 32 && !l[32..].starts_with(' '), "{l:?}");
    }
    assert!(out.contains("sssp harmonic_mean_TEPS:     !  "), "{out}");
    let report = read_run(&json);
    let sssp = report.sssp_searches.as_ref().expect("SSSP rows");
    // Without --delta, one process takes the width from the generated
    // graph's size: 2^10 vertices, 2^14 tuples, mean weight 1/2.
    let by_size = kernels::SsspParams::for_graph(2 << 14, 0.5).delta();
    assert!(
        by_size > kernels::DEFAULT_DELTA,
        "SCALE 10 gets wider buckets"
    );
    assert_eq!(report.options.sssp_delta, Some(by_size));
    assert_eq!(sssp.len(), report.searches.len());
    for (b, s) in report.searches.iter().zip(sssp) {
        // Same root, same component: the same nedge and reach.
        assert_eq!((b.root, b.nedge, b.reached), (s.root, s.nedge, s.reached));
        assert!(s.validate_time.is_some() && s.time > 0.0);
    }
    let stats = report.statistics.sssp.expect("SSSP statistics");
    assert!(stats.teps.harmonic_mean > 0.0);
    let text = std::fs::read_to_string(&csv).unwrap();
    let kernels: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(
        kernels,
        ["bfs", "bfs", "bfs", "bfs", "sssp", "sssp", "sssp", "sssp"]
    );
}

#[test]
fn a_weighted_text_list_runs_and_an_unweighted_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let weighted = dir.path().join("w.el");
    std::fs::write(&weighted, "0 1 0.5\n1 2 0.25\n2 3 0\n3 0 0.75\n4 5 1\n").unwrap();
    let o = graph500(&[
        "--input",
        path_str(&weighted),
        "--keys",
        "2",
        "--sssp",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("sssp mean_validate:"));
    let plain = dir.path().join("p.el");
    std::fs::write(&plain, "0 1\n1 2\n").unwrap();
    let o = graph500(&["--input", path_str(&plain), "--keys", "1", "--sssp", "-q"]);
    assert_bad_input(&o, &["p.el", "--sssp", "weight"]);
}

/// Guards the bound of one process's delta-stepping (a parent id in 31
/// bits beside the vertex's mark): a file naming vertex 2^31 (so 2^31 + 1
/// vertices) is refused in one line, before any graph is built, by a run
/// and by `graph500 sssp`, even when told to skip the memory estimate.
#[test]
fn a_file_of_more_than_2_to_the_31_vertices_is_refused_by_one_process_kernel_3() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.el");
    std::fs::write(&wide, "0 2147483648 0.5\n").unwrap();
    let run = graph500(&[
        "--input",
        path_str(&wide),
        "--keys",
        "1",
        "--sssp",
        "-q",
        "--force",
    ]);
    assert_bad_input(&run, &["wide.el", "2147483649 vertices", "2^31"]);
    let (parents, dist) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
    let sssp = graph500(&[
        "sssp",
        "--input",
        path_str(&wide),
        "--root",
        "0",
        "--force",
        "--parents-out",
        path_str(&parents),
        "--dist-out",
        path_str(&dist),
    ]);
    assert_bad_input(&sssp, &["wide.el", "2147483649 vertices", "2^31"]);
    assert!(!parents.exists() && !dist.exists(), "an output was written");
}

#[test]
fn a_bad_delta_is_one_line() {
    assert_bad_input(
        &graph500(&["--scale", "6", "--sssp", "--delta", "0"]),
        &["--delta", "0"],
    );
    assert_bad_input(
        &graph500(&["--scale", "6", "--sssp", "--delta", "-1"]),
        &["--delta"],
    );
    assert_bad_input(&graph500(&["--scale", "6", "--delta", "0.1"]), &["--sssp"]);
}

/// `graph500 validate --sssp` judges another program's shortest-path tree
/// from files: a triangle 0-1 (0.5), 1-2 (0.25), 0-2 (1) from root 0 is
/// valid as 0 <- 1 <- 2 at 0, 0.5, 0.75, and refused with the long edge
/// taken (0.75 is shorter than the claimed 1: the triangle rule).
#[test]
fn validate_sssp_judges_another_programs_tree() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("t.el");
    std::fs::write(&graph, "0 1 0.5\n1 2 0.25\n0 2 1\n").unwrap();
    let (parents, dist) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
    let write = |p: &[i64], d: &[f32]| {
        write_parents(&parents, p);
        let bytes: Vec<u8> = d.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(&dist, bytes).unwrap();
    };
    let validate = || validate_sssp(&graph, "0", &parents, &dist);
    write(&[0, 0, 1], &[0.0, 0.5, 0.75]);
    let o = validate();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("valid: root 0, 3 vertices reached, largest distance 0.75"),
        "{}",
        stdout(&o)
    );
    write(&[0, 0, 0], &[0.0, 0.5, 1.0]);
    let o = validate();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).starts_with("invalid: check 4"), "{}", stdout(&o));
    // A distance file of the wrong length is bad input, in one line.
    std::fs::write(&dist, [0u8; 8]).unwrap();
    assert_bad_input(&validate(), &["d.bin", "2 distances", "3 vertices"]);
}

/// `graph500 sssp` writes a parent and a distance array that `graph500
/// validate --sssp` accepts; an unweighted file and a root outside the
/// graph are one-line refusals that write nothing.
#[test]
fn sssp_subcommand_writes_what_validate_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.el");
    // 300 vertices: a ring and chords, weights in [0, 1) from a hash,
    // every 17th exactly 0.
    let mut text = String::new();
    for i in 0..600u64 {
        let (u, v) = if i < 300 {
            (i, (i + 1) % 300)
        } else {
            (i - 300, (i * 7 + 1) % 300)
        };
        let w = if i % 17 == 0 {
            0.0
        } else {
            ((i * 2_654_435_761) % 1000) as f64 / 1000.0
        };
        text += &format!("{u} {v} {w}\n");
    }
    std::fs::write(&graph, text).unwrap();
    assert_sssp_validates(&graph, "5", 300, dir.path());

    let plain = dir.path().join("plain.el");
    std::fs::write(&plain, "0 1\n1 2\n").unwrap();
    let (p2, d2) = (dir.path().join("p2.bin"), dir.path().join("d2.bin"));
    for (input, root, words) in [
        (&plain, "0", &["plain.el", "weight"][..]),
        (&graph, "300", &["--root", "300"][..]),
    ] {
        let o = sssp(input, root, &p2, &d2, &["-q"]);
        assert_bad_input(&o, words);
        assert!(!p2.exists() && !d2.exists());
    }
}

/// Guards weights far from Graph500's: a weight of 2^64 or more (whose
/// sums could overflow f32) is refused in one line naming its line, and
/// weights up to 10^18 on a path search, write and validate (their buckets
/// lie far past 2^24, where the bins once overflowed and panicked).
#[test]
fn weights_up_to_2_to_the_64_search_and_larger_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (parents, dist) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
    let huge = dir.path().join("huge.el");
    std::fs::write(&huge, "0 1 0.5\n1 2 1e20\n").unwrap();
    let o = sssp(&huge, "0", &parents, &dist, &[]);
    assert_bad_input(&o, &["huge.el", "line 2", "2^64"]);
    assert!(!parents.exists() && !dist.exists());
    let path = dir.path().join("path.el");
    let text: String = (0..50)
        .map(|i| {
            format!(
                "{i} {} {}\n",
                i + 1,
                if i % 2 == 1 { "1e18" } else { "0.001" }
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    assert_sssp_validates(&path, "0", 51, dir.path());
}

/// Kernel 3 on both backends, on 1 and 2 threads: every search validated,
/// the same reach and nedge in a run, and from the `sssp` subcommand the
/// same distances bit for bit (parents may differ between equal paths).
#[test]
fn sssp_on_either_backend_and_thread_count_gives_the_same_distances() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("g.bin");
    let o = graph500(&[
        "generate",
        "--scale",
        "10",
        "--seed",
        "3",
        "--weights",
        "--out",
        path_str(&bin),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = |r: &RunReport| -> Vec<(u64, u64, u64)> {
        let sssp = r.sssp_searches.as_ref().expect("SSSP rows");
        sssp.iter().map(|s| (s.root, s.nedge, s.reached)).collect()
    };
    /// (root, nedge, reached) per search, and the distance file's bytes.
    type Outcome = (Vec<(u64, u64, u64)>, Vec<u8>);
    let mut first: Option<Outcome> = None;
    for backend in ["rayon", "pipes"] {
        for threads in ["1", "2"] {
            let what = format!("{backend} on {threads} threads");
            let json = dir.path().join("r.json");
            let o = graph500(&[
                "--input",
                path_str(&bin),
                "--keys",
                "4",
                "--sssp",
                "--backend",
                backend,
                "--threads",
                threads,
                "-q",
                "--json",
                path_str(&json),
            ]);
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            let report = read_run(&json);
            assert_eq!(report.options.backend.as_deref(), Some(backend));
            let root = report.searches[0].root.to_string();
            let (parents, dist) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
            let more = ["--backend", backend, "--threads", threads, "-q"];
            let o = sssp(&bin, &root, &parents, &dist, &more);
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            let o = validate_sssp(&bin, &root, &parents, &dist);
            assert!(o.status.success(), "{what}: {}{}", stdout(&o), stderr(&o));
            let got = (rows(&report), std::fs::read(&dist).unwrap());
            match &first {
                None => first = Some(got),
                Some(want) => assert!(got == *want, "{what} differs from rayon on 1 thread"),
            }
        }
    }
}

/// `generate --weights` writes weights with the tuples (binary version 2;
/// a .pe48 and its FILE.weights), which `--sssp` and `sssp` then use, and
/// `convert` carries them along.
#[test]
fn generated_weights_reach_the_file_and_kernel_3() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("g.bin");
    let o = graph500(&[
        "generate",
        "--scale",
        "8",
        "--weights",
        "--out",
        path_str(&bin),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = graph500(&["--input", path_str(&bin), "--keys", "2", "--sssp", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("sssp mean_validate:"));
    let pe48 = dir.path().join("g.pe48");
    let o = graph500(&["convert", path_str(&bin), path_str(&pe48), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let beside = dir.path().join("g.pe48.weights");
    // 4 bytes per tuple, then the 24-byte trailer that ties them to g.pe48.
    assert_eq!(std::fs::metadata(&beside).unwrap().len(), 4 * 16 * 256 + 24);
    let (p, d) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
    let o = sssp(&pe48, "1", &p, &d, &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = validate_sssp(&pe48, "1", &p, &d);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // Without --weights the file has none, and kernel 3 refuses it.
    let plain = dir.path().join("plain.bin");
    let o = graph500(&["generate", "--scale", "8", "--out", path_str(&plain), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = graph500(&["--input", path_str(&plain), "--keys", "1", "--sssp", "-q"]);
    assert_bad_input(&o, &["plain.bin", "weight"]);
}

/// `plot` of a run of both kernels draws a TEPS panel for each.
#[test]
fn plot_draws_both_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let (json, svg) = (dir.path().join("r.json"), dir.path().join("r.svg"));
    let o = graph500(&[
        "--scale",
        "9",
        "--keys",
        "3",
        "--sssp",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = graph500(&["plot", path_str(&json), "--out", path_str(&svg), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_well_formed_xml(&text);
    assert!(text.contains("kernel dobfs"), "no BFS panel");
    assert!(
        text.contains("kernel sssp (delta-stepping)"),
        "no SSSP panel"
    );
}

/// `--trace` records each SSSP search's buckets (and the BFS searches'
/// levels, as before); without it neither kernel's rows carry any.
#[test]
fn trace_records_the_buckets_of_each_sssp_search() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = graph500(&[
        "--scale",
        "10",
        "--keys",
        "2",
        "--sssp",
        "--trace",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = read_run(&json);
    assert!(
        report
            .searches
            .iter()
            .all(|s| s.trace.is_some() && s.buckets.is_none())
    );
    for s in report.sssp_searches.as_ref().unwrap() {
        let buckets = s.buckets.as_ref().expect("buckets recorded");
        assert!(s.trace.is_none());
        let settled: u64 = buckets.iter().map(|b| b.settled).sum();
        assert!(
            settled >= s.reached,
            "{settled} settled, {} reached",
            s.reached
        );
        assert!(buckets.windows(2).all(|w| w[0].bucket <= w[1].bucket));
        assert!(buckets.iter().all(|b| b.phases >= 2 && b.seconds >= 0.0));
    }
    let plain = json_run(dir.path(), "plain.json", &["--sssp"]);
    assert!(
        plain
            .sssp_searches
            .unwrap()
            .iter()
            .all(|s| s.buckets.is_none())
    );
}

/// A real Matrix Market file with a negative value has no weights, and
/// `sssp` and `validate --sssp` say why, in the words `run --sssp` uses.
#[test]
fn sssp_and_validate_explain_why_a_matrix_market_file_has_no_weights() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.mtx");
    std::fs::write(
        &graph,
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n2 3 -1\n",
    )
    .unwrap();
    let (p, d) = (dir.path().join("p.bin"), dir.path().join("d.bin"));
    let run = graph500(&["--input", path_str(&graph), "--keys", "1", "--sssp", "-q"]);
    let explained = "the values of a real Matrix Market file when none is negative or not finite";
    assert_bad_input(&run, &["g.mtx", explained]);
    let o = sssp(&graph, "0", &p, &d, &["-q"]);
    assert_bad_input(&o, &["g.mtx", explained]);
    write_parents(&p, &[0, 0, 1]);
    std::fs::write(&d, [0f32, 0.5, 1.5].map(f32::to_le_bytes).concat()).unwrap();
    let o = validate_sssp(&graph, "0", &p, &d);
    assert_bad_input(&o, &["g.mtx", explained]);
}

/// Kernel 3 counts no tree levels: a run's SSSP rows leave the CSV's
/// `depth` field empty and its progress lines leave the depth out, while
/// the BFS rows of the same run carry the real depth of their trees.
#[test]
fn sssp_rows_and_progress_lines_claim_no_depth() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let o = graph500(&[
        "--scale",
        "8",
        "--keys",
        "3",
        "--sssp",
        "--csv",
        path_str(&csv),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (depth, kernel) = (column("depth"), column("kernel"));
    let mut kinds = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        match cells[kernel] {
            "bfs" => assert!(cells[depth].parse::<u32>().unwrap() > 0, "{line}"),
            "sssp" => assert_eq!(cells[depth], "", "{line}"),
            other => panic!("kernel {other:?}: {line}"),
        }
        kinds.push(cells[kernel]);
    }
    assert_eq!(kinds, ["bfs", "bfs", "bfs", "sssp", "sssp", "sssp"]);
    let err = stderr(&o);
    let (bfs, sssp) = err
        .split_once("with kernel sssp/")
        .unwrap_or_else(|| panic!("no SSSP searches announced: {err}"));
    let searches = |part: &str| -> Vec<String> {
        (part.lines())
            .filter(|l| l.starts_with("graph500: search "))
            .map(str::to_string)
            .collect()
    };
    let (bfs, sssp) = (searches(bfs), searches(sssp));
    assert_eq!((bfs.len(), sssp.len()), (3, 3), "{err}");
    for line in &bfs {
        let (_, after) = line.split_once(", depth ").expect("a BFS depth");
        let n: u32 = after.split(',').next().unwrap().parse().unwrap();
        assert!(n > 0, "{line}");
    }
    for line in &sssp {
        assert!(!line.contains("depth"), "{line}");
        assert!(line.contains(" reached, nedge "), "{line}");
    }
}
