//! `graph500 run` (and no subcommand): the official block, JSON, CSV, traces, progress, determinism, refusals and interruption.

use crate::support::*;

#[test]
fn run_prints_the_official_block() {
    let o = graph500(&["--scale", "10", "--keys", "8", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).is_empty(),
        "--quiet still printed {}",
        stderr(&o)
    );
    let b = block(&stdout(&o));
    assert_eq!(generator_of(&stdout(&o)).as_deref(), Some("xoshiro"));
    assert_eq!(our_line(&stdout(&o), "seed").as_deref(), Some("20100615"));
    assert_eq!(value(&b, "SCALE"), 10.0);
    assert_eq!(value(&b, "edgefactor"), 16.0);
    assert_eq!(value(&b, "NBFS"), 8.0);
    assert_eq!(value(&b, "num_mpi_processes"), 1.0);
    assert!(value(&b, "bfs  harmonic_mean_TEPS") > 0.0);
    assert!(value(&b, "bfs  min_TEPS") <= value(&b, "bfs  max_TEPS"));
    assert!(value(&b, "min_nedge") > 0.0 && value(&b, "max_nedge") <= 16.0 * 1024.0);
    assert!(value(&b, "bfs  min_validate") > 0.0);
}

#[test]
fn run_subcommand_and_progress_on_stderr() {
    let o = graph500(&["run", "--scale", "8", "--keys", "2", "--kernel", "seq"]);
    assert!(o.status.success());
    block(&stdout(&o));
    assert!(stderr(&o).contains("search 2/2"), "{}", stderr(&o));
}

#[test]
fn every_kernel_runs_validated_on_both_backends_and_json_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let column = |j: &RunReport| -> Vec<(u64, u64, u64, u32)> {
        j.searches
            .iter()
            .map(|r| (r.root, r.nedge, r.reached, r.depth))
            .collect()
    };
    let baseline = json_run(dir.path(), "r.json", &["--kernel", "seq"]);
    assert_eq!(baseline.options.backend.as_deref(), Some("rayon"));
    // seq on pipes: its kernel 1 runs on pipes.
    for kernel in ["seq", "par", "dobfs"] {
        for backend in ["rayon", "pipes"] {
            let args = ["--kernel", kernel, "--backend", backend, "--threads", "2"];
            let j = json_run(dir.path(), "p.json", &args);
            assert_eq!(j.options.kernel, kernel);
            assert_eq!(j.options.backend.as_deref(), Some(backend));
            assert_eq!(column(&j), column(&baseline), "{args:?}");
        }
    }
    assert_bad_input(&graph500(&["--backend", "threads"]), &["--backend"]);
}

#[test]
fn csv_rows_match_the_json_and_traces_account_for_each_search() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let o = graph500(&[
        "--scale",
        "10",
        "--keys",
        "5",
        "-q",
        "--json",
        path_str(&json),
        "--csv",
        path_str(&csv),
        "--trace",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = read_run(&json).searches;
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("search,root,time,reset_time,nedge,teps,validate_time,depth,reached,kernel")
    );
    let csv_rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(csv_rows.len(), rows.len());
    for (i, (cells, row)) in csv_rows.iter().zip(&rows).enumerate() {
        assert_eq!(cells[0], (i + 1).to_string());
        assert_eq!(cells[1], row.root.to_string());
        assert_eq!(cells[4], row.nedge.to_string());
        assert_eq!(cells[9], "bfs");
        assert_eq!(cells[2].parse::<f64>().unwrap(), row.time);
        // Every discovered vertex is in some level of the trace.
        let trace = row.trace.as_ref().unwrap();
        let found: u64 = trace.iter().map(|s| s.discovered).sum();
        assert_eq!(found + 1, row.reached);
        assert!(trace.iter().any(|s| s.is_bottom_up()));
    }
    // Without --trace the rows carry no trace; --trace needs --json.
    let plain = json_run(dir.path(), "plain.json", &[]);
    assert!(plain.searches[0].trace.is_none());
    assert!(!plain.options.trace && read_run(&json).options.trace);
    assert_bad_input(&graph500(&["--scale", "8", "--trace"]), &["--json"]);
}

#[test]
fn progress_bars_only_on_a_terminal() {
    // Piped stderr: plain lines, no terminal control codes.
    let o = graph500(&["--scale", "8", "--keys", "2"]);
    let err = stderr(&o);
    assert!(err.contains("search 2/2"), "{err}");
    assert!(!err.contains('\x1b'), "escape codes on a pipe: {err:?}");
    // A terminal (script(1), from util-linux, which .ci/run installs,
    // provides one): bars for each phase.
    let on_terminal = |extra: &str| {
        let command = format!(
            "{} --scale 8 --keys 2 {extra}",
            env!("CARGO_BIN_EXE_graph500")
        );
        Command::new("script")
            .args(["-q", "-e", "-c", &command, "/dev/null"])
            .output()
            .expect("script(1) runs (Debian: package bsdutils)")
    };
    let o = on_terminal("");
    assert!(o.status.success());
    let seen = stdout(&o);
    for bar in ["generating [", "kernel 1 [", "searches [", "validations ["] {
        assert!(seen.contains(bar), "no {bar:?} bar on a terminal: {seen:?}");
    }
    assert!(seen.contains("bfs  harmonic_mean_TEPS:"));
    let quiet = stdout(&on_terminal("--quiet"));
    assert!(!quiet.contains("searches ["), "--quiet drew bars");
}

/// The progress line that announces the searches counts threads in
/// English: "on 1 thread", "on 2 threads".
#[test]
fn progress_says_1_thread_in_the_singular() {
    for (threads, said) in [("1", "on 1 thread\n"), ("2", "on 2 threads\n")] {
        let o = graph500(&["--scale", "6", "--keys", "2", "--threads", threads]);
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        let line = (err.lines())
            .find(|l| l.contains("searches with kernel"))
            .unwrap_or_else(|| panic!("no searches announced: {err}"));
        assert!(format!("{line}\n").ends_with(said), "{line:?}");
    }
}

#[test]
fn no_validate_prints_minus_one_for_validation() {
    let o = graph500(&["--scale", "8", "--keys", "4", "--no-validate", "-q"]);
    assert!(o.status.success());
    let b = block(&stdout(&o));
    // The reference records -1 per unvalidated search: the statistics of
    // those are -1, with a spread of 0.
    for (label, v) in &b {
        if label.ends_with("_validate") {
            let want = if label.ends_with("stddev_validate") {
                0.0
            } else {
                -1.0
            };
            assert_eq!(*v, want, "{label}");
        }
    }
}

#[test]
fn json_has_a_row_per_search_the_options_and_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let j = json_run(dir.path(), "r.json", &["--kernel", "seq"]);
    assert_eq!(j.searches.len(), 6);
    for row in &j.searches {
        assert!(row.time > 0.0 && row.teps > 0.0 && row.nedge > 0, "{row:?}");
        assert!(row.validate_time.is_some_and(|t| t > 0.0), "{row:?}");
        assert!(row.depth > 0 && row.reached > 1, "{row:?}");
    }
    assert_eq!(j.options.kernel, "seq");
    assert_eq!(j.options.scale, Some(11));
    assert_eq!(j.graph.num_edges, 16 * 2048);
    assert!(j.graph.checksum.starts_with("0x"));
    assert!(j.statistics.bfs.teps.harmonic_mean > 0.0);
    if cfg!(target_os = "linux") {
        let peak = j.peak_memory_bytes.unwrap();
        assert!(
            peak > 1 << 20,
            "a run's peak memory of {peak} bytes is implausible"
        );
    }
}

#[test]
fn one_seed_gives_the_same_graph_keys_and_nedges_for_every_kernel_and_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let default = json_run(dir.path(), "default.json", &[]);
    assert_eq!(default.options.kernel, "dobfs", "the default kernel");
    let other_seed = json_run(dir.path(), "other.json", &["--seed", "99"]);
    assert_ne!(default.graph.checksum, other_seed.graph.checksum);
    let column = |j: &RunReport| -> Vec<(u64, u64, u64, u32)> {
        j.searches
            .iter()
            .map(|r| (r.root, r.nedge, r.reached, r.depth))
            .collect()
    };
    let kernels: [&[&str]; 5] = [
        &["--kernel", "seq"],
        &["--kernel", "par"],
        &["--kernel", "par", "--backend", "pipes"],
        &["--kernel", "dobfs"],
        &["--kernel", "dobfs", "--backend", "pipes"],
    ];
    for kernel in kernels {
        for threads in ["1", "2"] {
            let mut args = kernel.to_vec();
            args.extend(["--threads", threads]);
            let run = json_run(dir.path(), "run.json", &args);
            assert_eq!(run.options.threads.to_string(), threads);
            assert_eq!(run.graph.checksum, default.graph.checksum, "{args:?}");
            assert_eq!(column(&run), column(&default), "{args:?}");
        }
    }
}

#[test]
fn run_reads_fixture_files() {
    let o = graph500(&["run", "--input", &data("star.el"), "--keys", "3", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let b = block(&stdout(&o));
    assert_eq!(value(&b, "SCALE"), 3.0);
    assert_eq!(value(&b, "NBFS"), 3.0);
    assert_eq!(value(&b, "max_nedge"), 6.0);
}

#[test]
fn generator_graph500_gives_the_reference_graph_and_keys() {
    use generator::{EdgeGenerator, ReferenceKronecker};
    let dir = tempfile::tempdir().unwrap();
    // `generate` writes exactly the library's reference edges, in order.
    let el = dir.path().join("reference.el");
    let o = graph500(&[
        "generate",
        "--generator",
        "graph500",
        "--scale",
        "9",
        "-q",
        "--out",
        path_str(&el),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let theirs: Vec<(u32, u32)> = ReferenceKronecker::new(9, 16)
        .unwrap()
        .generate()
        .edges()
        .iter()
        .map(|e| (e.u, e.v))
        .collect();
    assert_eq!(tuples_of(&el, dir.path()), theirs);

    // `run` searches the reference graph from the reference's keys.
    let j = json_run(dir.path(), "g.json", &["--generator", "graph500"]);
    let reference = ReferenceKronecker::new(11, 16).unwrap();
    let edges = reference.generate();
    let graph = kernels::Csr::from_edge_list(&edges);
    let keys =
        kernels::choose_reference_search_keys(&graph, 6, reference.root_candidates()).unwrap();
    let roots: Vec<u64> = j.searches.iter().map(|r| r.root).collect();
    let expected: Vec<u64> = keys.iter().map(|k| k.id()).collect();
    assert_eq!(roots, expected);
    assert_eq!(j.graph.checksum, format!("{:#018x}", edges.checksum()));
    assert_eq!(j.options.generator, "graph500");
    assert!(j.options.seed.is_none());
    let default = json_run(dir.path(), "x.json", &[]);
    assert_eq!(default.options.generator, "xoshiro");
    assert_ne!(default.graph.checksum, j.graph.checksum);
}

/// A binary file whose header claims 2^35 tuples (a sparse file of 256
/// GiB) is refused by the memory check from its header, before a tuple is
/// read: `bfs`, `sssp`, `validate` and `run --input` (reading it first
/// took minutes).
#[test]
fn a_file_larger_than_memory_is_refused_from_its_header_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("huge.bin");
    write_sparse_binary(&graph, 1 << 30, 1 << 35);
    let graph = path_str(&graph);
    let out = |name: &str| dir.path().join(name).display().to_string();
    let (parents, dist, given) = (out("p"), out("d"), out("given"));
    write_parents(Path::new(&given), &[0, 0]);
    for args in [
        vec![
            "bfs",
            "--input",
            graph,
            "--root",
            "0",
            "--parents-out",
            &parents,
        ],
        vec![
            "sssp",
            "--input",
            graph,
            "--root",
            "0",
            "--parents-out",
            &parents,
            "--dist-out",
            &dist,
        ],
        vec![
            "validate",
            "--input",
            graph,
            "--root",
            "0",
            "--parents",
            &given,
        ],
        vec!["run", "--input", graph, "--keys", "1"],
    ] {
        let o = graph500_or_hang(&args, 60);
        assert_bad_input(&o, &["huge.bin", "GiB is available"]);
    }
    assert!(!Path::new(&parents).exists());
}

#[test]
fn requests_beyond_the_available_memory_are_refused_with_both_figures() {
    // SCALE 31 needs hundreds of GiB: no test machine has that much.
    assert_bad_input(
        &graph500(&["--scale", "31"]),
        &[
            "SCALE 31",
            "GiB is available",
            "largest SCALE that fits",
            "--force",
        ],
    );
    assert_bad_input(
        &graph500(&["generate", "--scale", "31", "--out", "/tmp/never.g500"]),
        &["generating SCALE 31", "GiB"],
    );
    assert!(!std::path::Path::new("/tmp/never.g500").exists());
    assert_bad_input(
        &graph500(&["profile", "--scale", "30"]),
        &["profiling SCALE 30", "copy row"],
    );
}

#[test]
fn json_into_a_missing_folder_fails_before_the_run() {
    let o = graph500(&["--scale", "8", "--json", "/nonexistent-folder/r.json"]);
    assert_bad_input(&o, &["nonexistent-folder", "does not exist"]);
    assert!(stdout(&o).is_empty());
}

#[test]
fn with_the_reference_generator_stdout_differs_from_the_reference_only_in_measurements() {
    for scale in ["10", "12"] {
        let theirs =
            std::fs::read_to_string(data(&format!("reference-blocks/scale{scale}.txt"))).unwrap();
        let o = graph500(&[
            "--generator",
            "graph500",
            "--scale",
            scale,
            "--keys",
            "64",
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let ours = stdout(&o);
        assert_eq!(ours.lines().count(), theirs.lines().count(), "{ours}");
        for (mine, reference) in ours.lines().zip(theirs.lines()) {
            // Labels, padding and the `!` byte for byte.
            assert_eq!(mine[..32], reference[..32], "SCALE {scale}");
            let label = reference[..32].trim_end();
            let measured = [
                "time",
                "TEPS",
                "validate",
                "graph_generation",
                "construction_time",
            ]
            .iter()
            .any(|m| label.trim_end_matches([':', ' ', '!']).ends_with(m));
            if measured {
                let value: f64 = mine[32..].parse().unwrap_or_else(|_| panic!("{mine}"));
                assert!(value.is_finite() && value >= 0.0, "{mine}");
            } else {
                assert_eq!(mine, reference, "SCALE {scale}");
            }
        }
        block(&ours);
    }
}

#[test]
fn a_single_search_prints_c_nan_spreads_and_its_json_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("one.json");
    let o = graph500(&[
        "--scale",
        "6",
        "--keys",
        "1",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // 0 / 0 as C computes it: glibc prints x86's default NaN as -nan.
    let nan = if cfg!(target_arch = "x86_64") {
        "-nan"
    } else {
        "nan"
    };
    for label in [
        "bfs  stddev_time:",
        "stddev_nedge:",
        "bfs  harmonic_stddev_TEPS:",
    ] {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap();
        assert_eq!(line[32..].trim(), nan, "{line}");
    }
    // NaN is written as null and read back as NaN.
    let run = read_run(&json);
    assert!(run.statistics.bfs.time.stddev.is_nan());
    assert!(run.statistics.bfs.teps.harmonic_stddev.is_nan());
    assert!(run.statistics.bfs.time.mean > 0.0);
}

/// Guards the block order of file inputs: a binary file (a read-only map)
/// is copied into block order when the run validates enough searches, a
/// text file (parsed into memory) is re-encoded in place, and both give the
/// same checksum, roots and nedge as a run that keeps the input order.
#[test]
fn file_inputs_are_validated_in_block_order_and_report_how() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("g.g500");
    let text = dir.path().join("g.el");
    for out in [&binary, &text] {
        let o = graph500(&["generate", "--scale", "10", "-q", "--out", path_str(out)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let keys = harness::BLOCK_ORDER_MIN_KEYS.to_string();
    let run = |input: &Path, keys: &str, name: &str| {
        let json = dir.path().join(name);
        let args = ["run", "--input", path_str(input), "--keys", keys, "-q"];
        let o = graph500(&[&args[..], &["--json", path_str(&json)]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        read_run(&json)
    };
    let copied = run(&binary, &keys, "copied.json");
    let in_place = run(&text, &keys, "in_place.json");
    let few = run(&binary, "4", "few.json");
    assert_eq!(copied.graph.tuple_order, "blocked copy");
    assert!(copied.graph.tuple_order_seconds > 0.0);
    assert_eq!(in_place.graph.tuple_order, "blocked");
    assert_eq!(few.graph.tuple_order, "input");
    assert_eq!(copied.graph.checksum, few.graph.checksum);
    assert_eq!(copied.graph.checksum, in_place.graph.checksum);
    let searches = |r: &RunReport| -> Vec<(u64, u64)> {
        r.searches.iter().map(|s| (s.root, s.nedge)).collect()
    };
    assert_eq!(searches(&copied), searches(&in_place));
    assert_eq!(searches(&copied)[..4], searches(&few)[..]);
}
