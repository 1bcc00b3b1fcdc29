//! The `graph500` command end to end: the benchmark at a small scale, each
//! subcommand, and bad input (exit 2 and exactly one line on stderr).

#![allow(clippy::cast_possible_truncation)] // ids of small test graphs

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn graph500(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(args)
        .output()
        .expect("the graph500 binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file)
        .display()
        .to_string()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts exit status 2 and a single stderr line containing each of `words`.
fn assert_bad_input(o: &Output, words: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
    for w in words {
        assert!(err.contains(w), "{err:?} does not mention {w:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// The labels of the statistics block, in order.
const LABELS: [&str; 34] = [
    "SCALE",
    "edgefactor",
    "NBFS",
    "graph_generation",
    "num_mpi_processes",
    "construction_time",
    "bfs  min_time",
    "bfs  firstquartile_time",
    "bfs  median_time",
    "bfs  thirdquartile_time",
    "bfs  max_time",
    "bfs  mean_time",
    "bfs  stddev_time",
    "min_nedge",
    "firstquartile_nedge",
    "median_nedge",
    "thirdquartile_nedge",
    "max_nedge",
    "mean_nedge",
    "stddev_nedge",
    "bfs  min_TEPS",
    "bfs  firstquartile_TEPS",
    "bfs  median_TEPS",
    "bfs  thirdquartile_TEPS",
    "bfs  max_TEPS",
    "bfs  harmonic_mean_TEPS",
    "bfs  harmonic_stddev_TEPS",
    "bfs  min_validate",
    "bfs  firstquartile_validate",
    "bfs  median_validate",
    "bfs  thirdquartile_validate",
    "bfs  max_validate",
    "bfs  mean_validate",
    "bfs  stddev_validate",
];

/// The generator the block's first line names.
fn generator_of(text: &str) -> &str {
    let first = text.lines().next().expect("a block");
    let name = first.strip_prefix("generator:").expect("generator: first");
    name.trim()
}

/// The statistics block as (label, value) pairs, checking label order
/// (after the `generator:` line).
fn block(text: &str) -> Vec<(String, f64)> {
    assert!(
        ["xoshiro", "graph500", "file"].contains(&generator_of(text)),
        "{text}"
    );
    let pairs: Vec<(String, f64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let (label, value) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("no colon in {l:?}"));
            (
                label.to_string(),
                value
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("value of {l:?}")),
            )
        })
        .collect();
    let labels: Vec<&str> = pairs.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, LABELS);
    pairs
}

fn value(block: &[(String, f64)], label: &str) -> f64 {
    block.iter().find(|(l, _)| l == label).unwrap().1
}

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
    assert_eq!(generator_of(&stdout(&o)), "xoshiro");
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
fn the_pipes_backend_runs_validated_and_json_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let j = json_run(
        dir.path(),
        "p.json",
        &["--kernel", "par", "--backend", "pipes", "--threads", "2"],
    );
    assert_eq!(j["options"]["kernel"], "par");
    assert_eq!(j["options"]["backend"], "pipes");
    let rayon = json_run(
        dir.path(),
        "r.json",
        &["--kernel", "par", "--backend", "rayon"],
    );
    assert_eq!(rayon["options"]["backend"], "rayon");
    let column = |j: &serde_json::Value| -> Vec<serde_json::Value> {
        j["searches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["nedge"].clone())
            .collect()
    };
    assert_eq!(column(&j), column(&rayon));
    let seq = json_run(dir.path(), "s.json", &["--kernel", "seq"]);
    assert!(seq["options"]["backend"].is_null());
    assert_bad_input(
        &graph500(&["--kernel", "seq", "--backend", "pipes"]),
        &["--backend"],
    );
}

#[test]
fn profile_rows_show_copying_costs_more_than_sharing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("profile.json");
    let o = graph500(&[
        "profile",
        "--scale",
        "10",
        "--keys",
        "2",
        "--threads",
        "2",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    for row in ["seq", "copy", "arc", "arc+inplace", "par/rayon"] {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(row)),
            "no {row} row in\n{table}"
        );
    }
    let j: serde_json::Value = read_json(&json);
    let rows = j["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["strategy"] == name).unwrap();
    let figure = |name: &str, field: &str| row(name)[field].as_f64().unwrap();
    // Bytes are not timings: what each strategy allocates and copies is
    // fixed by its code, so the order is deterministic.
    assert!(figure("copy", "bytes_allocated") > figure("arc", "bytes_allocated"));
    assert!(figure("arc", "bytes_allocated") > figure("arc+inplace", "bytes_allocated"));
    assert!(figure("copy", "bytes_copied") > figure("arc", "bytes_copied"));
    assert_eq!(figure("arc+inplace", "bytes_copied"), 0.0);
    assert_eq!(figure("seq", "allocations"), 0.0);
    assert_eq!(figure("par/rayon", "allocations"), 0.0);
    assert_eq!(figure("seq", "speedup"), 1.0);
}

#[test]
fn sweep_runs_every_scale_on_one_and_all_threads() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let o = graph500(&[
        "sweep",
        "--from",
        "6",
        "--to",
        "7",
        "--keys",
        "2",
        "--threads",
        "2",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("| 6 |") || l.starts_with("| 7 |"))
            .count(),
        4,
        "{table}"
    );
    let j: serde_json::Value = read_json(&json);
    let rows = j["rows"].as_array().unwrap();
    let configs: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| (r["scale"].as_u64().unwrap(), r["threads"].as_u64().unwrap()))
        .collect();
    assert_eq!(configs, [(6, 1), (6, 2), (7, 1), (7, 2)]);
    for r in rows {
        assert!(r["harmonic_mean_teps"].as_f64().unwrap() > 0.0);
        assert!(r["mean_validate"].as_f64().unwrap() > 0.0);
    }
    assert_bad_input(
        &graph500(&["sweep", "--from", "9", "--to", "8"]),
        &["--from 9", "--to 8"],
    );
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
    let j: serde_json::Value = read_json(&json);
    let rows = j["searches"].as_array().unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("search,root,time,reset_time,nedge,teps,validate_time,depth,reached")
    );
    let csv_rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(csv_rows.len(), rows.len());
    for (i, (cells, row)) in csv_rows.iter().zip(rows).enumerate() {
        assert_eq!(cells[0], (i + 1).to_string());
        assert_eq!(cells[1], row["root"].to_string());
        assert_eq!(cells[4], row["nedge"].to_string());
        assert_eq!(
            cells[2].parse::<f64>().unwrap(),
            row["time"].as_f64().unwrap()
        );
        // Every discovered vertex is in some level of the trace.
        let trace = row["trace"].as_array().unwrap();
        let found: u64 = trace
            .iter()
            .map(|s| s["discovered"].as_u64().unwrap())
            .sum();
        assert_eq!(found + 1, row["reached"].as_u64().unwrap());
        assert!(trace.iter().any(|s| s["direction"] == "bottom-up"));
    }
    // Without --trace the rows carry no trace; --trace needs --json.
    let plain = json_run(dir.path(), "plain.json", &[]);
    assert!(plain["searches"][0].get("trace").is_none());
    assert_bad_input(&graph500(&["--scale", "8", "--trace"]), &["--json"]);
}

#[test]
fn progress_bars_only_on_a_terminal() {
    // Piped stderr: plain lines, no terminal control codes.
    let o = graph500(&["--scale", "8", "--keys", "2"]);
    let err = stderr(&o);
    assert!(err.contains("search 2/2"), "{err}");
    assert!(!err.contains('\x1b'), "escape codes on a pipe: {err:?}");
    // A terminal (script(1) provides one): bars for each phase.
    let on_terminal = |extra: &str| {
        let command = format!(
            "{} --scale 8 --keys 2 {extra}",
            env!("CARGO_BIN_EXE_graph500")
        );
        Command::new("script")
            .args(["-q", "-e", "-c", &command, "/dev/null"])
            .output()
    };
    let Ok(o) = on_terminal("") else {
        return; // no script(1) here: nothing more to test
    };
    assert!(o.status.success());
    let seen = stdout(&o);
    for bar in ["generating [", "kernel 1 [", "searches [", "validations ["] {
        assert!(seen.contains(bar), "no {bar:?} bar on a terminal: {seen:?}");
    }
    assert!(seen.contains("bfs  harmonic_mean_TEPS:"));
    let quiet = stdout(&on_terminal("--quiet").unwrap());
    assert!(!quiet.contains("searches ["), "--quiet drew bars");
}

/// Parses `svg` as XML from start to end; panics if it is not well formed.
fn assert_well_formed_xml(svg: &str) {
    let mut reader = quick_xml::Reader::from_str(svg);
    reader.config_mut().check_end_names = true;
    let mut depth = 0i32;
    loop {
        match reader.read_event().expect("well-formed XML") {
            quick_xml::events::Event::Start(_) => depth += 1,
            quick_xml::events::Event::End(_) => depth -= 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "unbalanced elements");
}

#[test]
fn plot_draws_teps_and_traced_frontiers_as_svg() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (traced, plain, svg) = (d.join("t.json"), d.join("p.json"), d.join("out.svg"));
    assert!(
        graph500(&[
            "--scale",
            "10",
            "--keys",
            "6",
            "-q",
            "--trace",
            "--json",
            path_str(&traced)
        ])
        .status
        .success()
    );
    let o = graph500(&["plot", path_str(&traced), "--out", path_str(&svg)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_well_formed_xml(&text);
    assert!(text.contains("harmonic mean") && text.contains("frontier size per level"));
    // A dot per search (plus the legend's), and markers for the levels.
    assert!(text.matches("<circle").count() > 6);
    assert!(text.contains("<polygon"), "no bottom-up triangles");

    assert!(
        graph500(&[
            "--scale",
            "10",
            "--keys",
            "6",
            "-q",
            "--json",
            path_str(&plain)
        ])
        .status
        .success()
    );
    assert!(
        graph500(&["plot", path_str(&plain), "--out", path_str(&svg), "-q"])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_well_formed_xml(&text);
    assert!(text.contains("harmonic mean") && !text.contains("frontier size per level"));

    let sweep = d.join("sweep.json");
    std::fs::write(&sweep, r#"{"program": "graph500 sweep", "rows": []}"#).unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&sweep), "--out", path_str(&svg)]),
        &["sweep.json", "not the JSON of a graph500 run"],
    );
    let notjson = d.join("x.json");
    std::fs::write(&notjson, "SCALE: 20").unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&notjson), "--out", path_str(&svg)]),
        &["x.json", "not JSON"],
    );
    assert_bad_input(
        &graph500(&[
            "plot",
            path_str(&d.join("none.json")),
            "--out",
            path_str(&svg),
        ]),
        &["none.json"],
    );
}

#[test]
fn no_validate_prints_minus_one_for_validation() {
    let o = graph500(&["--scale", "8", "--keys", "4", "--no-validate", "-q"]);
    assert!(o.status.success());
    let b = block(&stdout(&o));
    for (label, v) in &b {
        if label.ends_with("_validate") {
            assert_eq!(*v, -1.0, "{label}");
        }
    }
}

/// A JSON file that graph500 wrote.
fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn json_run(dir: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let json = dir.join(name);
    let mut args = vec![
        "--scale",
        "11",
        "--keys",
        "6",
        "-q",
        "--json",
        path_str(&json),
    ];
    args.extend_from_slice(extra);
    let o = graph500(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    read_json(&json)
}

#[test]
fn json_has_a_row_per_search_the_options_and_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let j = json_run(dir.path(), "r.json", &["--kernel", "seq"]);
    let rows = j["searches"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for row in rows {
        for field in [
            "root",
            "time",
            "nedge",
            "teps",
            "validate_time",
            "depth",
            "reached",
        ] {
            assert!(row[field].is_number(), "{field} in {row}");
        }
    }
    assert_eq!(j["options"]["kernel"], "seq");
    assert_eq!(j["options"]["scale"], 11);
    assert_eq!(j["graph"]["num_edges"], 16 * 2048);
    assert!(j["graph"]["checksum"].as_str().unwrap().starts_with("0x"));
    assert!(j["statistics"]["teps"]["harmonic_mean"].as_f64().unwrap() > 0.0);
    if cfg!(target_os = "linux") {
        let peak = j["peak_memory_bytes"].as_u64().unwrap();
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
    assert_eq!(default["options"]["kernel"], "dobfs", "the default kernel");
    let other_seed = json_run(dir.path(), "other.json", &["--seed", "99"]);
    assert_ne!(
        default["graph"]["checksum"],
        other_seed["graph"]["checksum"]
    );
    let column = |j: &serde_json::Value, f: &str| -> Vec<serde_json::Value> {
        j["searches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[f].clone())
            .collect()
    };
    let kernels: [&[&str]; 4] = [
        &["--kernel", "seq"],
        &["--kernel", "par"],
        &["--kernel", "par", "--backend", "pipes"],
        &["--kernel", "dobfs"],
    ];
    for kernel in kernels {
        for threads in ["1", "2"] {
            let mut args = kernel.to_vec();
            args.extend(["--threads", threads]);
            let run = json_run(dir.path(), "run.json", &args);
            assert_eq!(run["options"]["threads"].to_string(), threads);
            assert_eq!(
                run["graph"]["checksum"], default["graph"]["checksum"],
                "{args:?}"
            );
            for field in ["root", "nedge", "reached", "depth"] {
                assert_eq!(
                    column(&run, field),
                    column(&default, field),
                    "{field} with {args:?}"
                );
            }
        }
    }
}

/// A BFS written the way another program might: neighbours visited in
/// descending order and each vertex's parent the *largest* neighbour on the
/// level above, unlike our kernels' first-come claims.
fn other_programs_parents(n: usize, edges: &[(u32, u32)], root: usize) -> Vec<i64> {
    let mut adjacency = vec![Vec::new(); n];
    for &(u, v) in edges.iter().filter(|(u, v)| u != v) {
        adjacency[u as usize].push(v as usize);
        adjacency[v as usize].push(u as usize);
    }
    let mut level = vec![usize::MAX; n];
    level[root] = 0;
    let mut queue = VecDeque::from([root]);
    while let Some(u) = queue.pop_front() {
        adjacency[u].sort_unstable_by(|a, b| b.cmp(a));
        for &v in &adjacency[u] {
            if level[v] == usize::MAX {
                level[v] = level[u] + 1;
                queue.push_back(v);
            }
        }
    }
    (0..n)
        .map(|v| match level[v] {
            usize::MAX => -1,
            0 => v as i64,
            l => *adjacency[v]
                .iter()
                .filter(|&&w| level[w] == l - 1)
                .max()
                .unwrap() as i64,
        })
        .collect()
}

fn write_parents(path: &Path, parents: &[i64]) {
    let bytes: Vec<u8> = parents.iter().flat_map(|p| p.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

fn read_parents(path: &Path) -> Vec<i64> {
    std::fs::read(path)
        .unwrap()
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Generates a text graph and returns (path, N, edges, a root with edges).
fn text_graph(dir: &Path) -> (PathBuf, usize, Vec<(u32, u32)>, usize) {
    let el = dir.join("g.el");
    let o = graph500(&[
        "generate",
        "--scale",
        "9",
        "--seed",
        "4",
        "--out",
        path_str(&el),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let edges: Vec<(u32, u32)> = std::fs::read_to_string(&el)
        .unwrap()
        .lines()
        .map(|l| {
            let (u, v) = l.split_once(' ').unwrap();
            (u.parse().unwrap(), v.parse().unwrap())
        })
        .collect();
    assert_eq!(edges.len(), 16 * 512);
    let n = edges
        .iter()
        .map(|&(u, v)| u.max(v) as usize + 1)
        .max()
        .unwrap();
    let root = edges.iter().find(|(u, v)| u != v).unwrap().0 as usize;
    (el, n, edges, root)
}

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

/// The tuples of an edge-list file, read by graph500 itself via `convert`
/// to text.
fn tuples_of(path: &Path, dir: &Path) -> Vec<(u32, u32)> {
    let text = dir.join("tuples.el");
    let o = graph500(&["convert", path_str(path), path_str(&text), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&text)
        .unwrap()
        .lines()
        .map(|l| {
            let (u, v) = l.split_once(' ').unwrap();
            (u.parse().unwrap(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn every_format_round_trips_through_convert_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = d.join("g.g500");
    assert!(
        graph500(&[
            "generate",
            "-s",
            "9",
            "--seed",
            "3",
            "--out",
            path_str(&original)
        ])
        .status
        .success()
    );
    let expected = tuples_of(&original, d);
    assert_eq!(expected.len(), 16 * 512);
    let nedges = |graph: &Path| -> Vec<serde_json::Value> {
        let json = d.join("run.json");
        let o = graph500(&[
            "run",
            "-q",
            "-i",
            path_str(graph),
            "--keys",
            "4",
            "--json",
            path_str(&json),
        ]);
        assert!(o.status.success(), "{}: {}", graph.display(), stderr(&o));
        let j: serde_json::Value = read_json(&json);
        j["searches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["nedge"].clone())
            .collect()
    };
    let reference = nedges(&original);
    for name in ["g.el", "g.snap", "g.mtx", "g.pe48", "g2.g500"] {
        let there = d.join(name);
        let o = graph500(&["convert", path_str(&original), path_str(&there)]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(tuples_of(&there, d), expected, "{name}");
        let back = d.join("back.g500");
        assert!(
            graph500(&["convert", path_str(&there), path_str(&back), "-q"])
                .status
                .success()
        );
        assert_eq!(tuples_of(&back, d), expected, "{name} and back");
        assert_eq!(nedges(&there), reference, "a run on {name}");
    }
}

#[test]
fn format_flags_override_extensions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let odd = d.join("graph.data");
    let o = graph500(&[
        "generate",
        "-s",
        "6",
        "--out",
        path_str(&odd),
        "--format",
        "mtx",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&odd)
            .unwrap()
            .starts_with("%%MatrixMarket")
    );
    // By its extension it would be read as binary, and fail.
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&odd)]),
        &["graph.data", "not a graph500 binary"],
    );
    let o = graph500(&[
        "run",
        "-q",
        "-i",
        path_str(&odd),
        "--format",
        "mtx",
        "--keys",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let packed = d.join("packed.bin");
    let o = graph500(&[
        "convert",
        path_str(&odd),
        path_str(&packed),
        "--from",
        "mtx",
        "--to",
        "packed48",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&packed).unwrap().len(), 12 * 16 * 64);
    let root_of = |f: &str| {
        graph500(&[
            "bfs",
            "-i",
            path_str(&packed),
            "--format",
            f,
            "-r",
            "0",
            "--parents-out",
            path_str(&d.join("p")),
        ])
    };
    assert!(root_of("packed48").status.success());
    assert_bad_input(&root_of("text"), &["packed.bin", "line 1"]);
}

#[test]
fn convert_reports_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad = d.join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
    )
    .unwrap();
    let out = d.join("out.el");
    assert_bad_input(
        &graph500(&["convert", path_str(&bad), path_str(&out)]),
        &["bad.mtx", "announces 2 entries but the file has 1"],
    );
    assert!(!out.exists(), "a failed convert wrote its output");
    assert_bad_input(
        &graph500(&["convert", path_str(&bad), path_str(&out), "--to", "yaml"]),
        &["--to", "yaml"],
    );
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
fn bad_arguments_are_one_line_errors() {
    assert_bad_input(&graph500(&["--scale", "40"]), &["--scale", "40"]);
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
    let roots: Vec<u64> = j["searches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["root"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = keys.iter().map(|k| k.vertex().into()).collect();
    assert_eq!(roots, expected);
    assert_eq!(
        j["graph"]["checksum"],
        format!("{:#018x}", edges.checksum())
    );
    assert_eq!(j["graph"]["generator"], "graph500");
    assert_eq!(j["statistics"]["generator"], "graph500");
    assert!(j["options"]["seed"].is_null());
    let default = json_run(dir.path(), "x.json", &[]);
    assert_eq!(default["graph"]["generator"], "xoshiro");
    assert_ne!(default["graph"]["checksum"], j["graph"]["checksum"]);
}

#[test]
fn bad_input_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("missing.el");
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&missing)]),
        &["missing.el"],
    );
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(d)]),
        &["not a regular file"],
    );

    let bad_line = d.join("bad.el");
    std::fs::write(&bad_line, "0 1\n1 2\n2 x\n").unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&bad_line)]),
        &["bad.el", "line 3", "2 x"],
    );

    let empty = d.join("empty.el");
    std::fs::write(&empty, "").unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&empty)]),
        &["empty"],
    );

    let bin = d.join("g.g500");
    assert!(
        graph500(&["generate", "-s", "6", "--out", path_str(&bin)])
            .status
            .success()
    );
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() - 3]).unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&bin)]),
        &["g.g500", "header says"],
    );
    std::fs::write(&bin, &bytes[..20]).unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&bin)]),
        &["shorter than the 32-byte header"],
    );
    let mut wrong_magic = bytes.clone();
    wrong_magic[..4].copy_from_slice(b"NOPE");
    std::fs::write(&bin, &wrong_magic).unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&bin)]),
        &["not a graph500 binary edge list"],
    );
    let mut bad_id = bytes.clone();
    bad_id[32..36].copy_from_slice(&1000u32.to_le_bytes());
    std::fs::write(&bin, &bad_id).unwrap();
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&bin)]),
        &["edge 0", "1000", "outside 0..64"],
    );

    assert_bad_input(
        &graph500(&["run", "-q", "-i", &data("path.el"), "--keys", "6"]),
        &["6 search keys", "only 5"],
    );
    assert_bad_input(
        &graph500(&["run", "-q", "-i", &data("one_vertex.el")]),
        &["only 0 of the 1 vertices"],
    );
}

#[test]
fn an_unreadable_file_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.el");
    std::fs::write(&path, "0 1\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    if std::fs::read(&path).is_ok() {
        // Running as root (or on a system without such permissions): the
        // file is readable after all, so there is nothing to test here.
        return;
    }
    assert_bad_input(
        &graph500(&["run", "-q", "-i", path_str(&path)]),
        &["secret.el", "ermission denied"],
    );
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
fn ctrl_c_stops_a_run_cleanly_without_results() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    // Thousands of validated searches: far longer than the test waits.
    let mut child = Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(["--scale", "14", "--keys", "3000", "--json", path_str(&json)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let started = lines
        .by_ref()
        .map(Result::unwrap)
        .any(|l| l.contains("search 1/3000"));
    assert!(started, "the run never reached its searches");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("interrupted")), "{rest:?}");
    assert!(
        !rest.iter().any(|l| l.contains("search 3000/3000")),
        "it was not stopped"
    );
    assert!(
        out.is_empty(),
        "statistics printed after an interrupt: {out}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn json_into_a_missing_folder_fails_before_the_run() {
    let o = graph500(&["--scale", "8", "--json", "/nonexistent-folder/r.json"]);
    assert_bad_input(&o, &["nonexistent-folder", "does not exist"]);
    assert!(stdout(&o).is_empty());
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
