//! The binary under `mpirun` (feature `mpi`; `.ci/run` installs Open MPI
//! and runs these): for one seed every rank count gives the single-process
//! checksum, roots and nedge, with `--sssp` too, the block says
//! `num_mpi_processes: P`, bad input is one message and exit 2 from every
//! rank, and a SIGTERM to mpirun stops every rank without leaving a file
//! behind.

#![cfg(feature = "mpi")]

#[path = "cli/support.rs"]
mod support;

#[path = "mpi/commands.rs"]
mod commands;
#[path = "mpi/faults.rs"]
mod faults;

use harness::report::{Document, RunReport};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `mpirun -np ranks graph500 args`, allowed to run as root and to put
/// more ranks than cores on this machine.
fn mpirun(ranks: usize, args: &[&str]) -> Command {
    let mut command = Command::new("mpirun");
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .args(["-np", &ranks.to_string(), "--oversubscribe"])
        .arg(env!("CARGO_BIN_EXE_graph500"))
        .args(args);
    command
}

/// Runs `command` (mpirun) to its end, failing on a hang.
fn finish(command: Command, seconds: u64) -> Output {
    support::output_or_hang(command, seconds)
}

/// `graph500 ARGS --json JSON` in one process, successfully: its report.
fn single_run(args: &[&str], json: &Path) -> RunReport {
    let out = Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(args)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report(json)
}

/// `mpirun -np ranks graph500 ARGS`, successfully: its stdout, which must
/// hold one block (rank 0's) saying `num_mpi_processes: ranks`.
fn one_block_over(ranks: usize, args: &[&str]) -> String {
    let out = finish(mpirun(ranks, args), 300);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "P {ranks}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let blocks = stdout.matches("SCALE:").count();
    assert_eq!(blocks, 1, "one block from rank 0 only:\n{stdout}");
    assert!(
        stdout.contains(&format!("num_mpi_processes:              {ranks}\n")),
        "{stdout}"
    );
    stdout
}

/// Runs `graph500 ARGS --json single` and `mpirun -np ranks graph500 ARGS
/// --json split`, both successfully, and requires the same checksum, roots
/// and nedge; returns the distributed report.
fn same_answers(ranks: usize, args: &[&str]) -> RunReport {
    let dir = tempfile::tempdir().unwrap();
    let (single, split) = (
        dir.path().join("single.json"),
        dir.path().join("split.json"),
    );
    let a = single_run(args, &single);
    let path = split.display().to_string();
    let mut distributed = args.to_vec();
    distributed.extend(["--json", &path]);
    let out = finish(mpirun(ranks, &distributed), 300);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b = report(&split);
    assert_eq!(a.graph.checksum, b.graph.checksum);
    assert_eq!(searches(&a), searches(&b));
    b
}

fn report(path: &Path) -> RunReport {
    match Document::from_json(&std::fs::read_to_string(path).unwrap()).unwrap() {
        Document::Run(r) => *r,
        other => panic!("not a run report: {other:?}"),
    }
}

/// (root, nedge) per search.
fn searches(r: &RunReport) -> Vec<(u64, u64)> {
    r.searches.iter().map(|s| (s.root, s.nedge)).collect()
}

/// Under mpirun, P = 1-4 and both partitions: the single process's
/// checksum, roots and nedge, every search validated, and the JSON naming
/// the partition and the grid's shape.
#[test]
fn every_rank_count_gives_the_single_process_answers() {
    let dir = tempfile::tempdir().unwrap();
    let json = |name: &str| dir.path().join(name).display().to_string();
    let common = ["--scale", "10", "--keys", "4", "--seed", "5", "--quiet"];
    let one = single_run(&common, Path::new(&json("single.json")));
    for (ranks, threads, wide, partition) in [
        (1, 2, false, "1d"),
        (2, 1, false, "1d"),
        (2, 2, true, "1d"),
        (3, 1, false, "1d"),
        (4, 1, false, "1d"),
        (1, 1, false, "2d"),
        (2, 2, false, "2d"),
        (3, 1, true, "2d"),
        (4, 1, false, "2d"),
    ] {
        let name = json(&format!("p{ranks}t{threads}{partition}.json"));
        let threads = threads.to_string();
        let mut args = vec![
            "--threads",
            &threads,
            "--json",
            &name,
            "--partition",
            partition,
        ];
        if wide {
            args.push("--wide-ids");
        }
        args.extend(common);
        one_block_over(ranks, &args);
        let r = report(Path::new(&name));
        let what = format!("P {ranks} {partition}");
        assert_eq!(r.graph.checksum, one.graph.checksum, "{what}: checksum");
        assert_eq!(searches(&r), searches(&one), "{what}: roots and nedge");
        assert!(r.searches.iter().all(|s| s.validate_time.is_some()));
        // One rank is one process's run (the 1 x 1 grid), without `mpi`.
        if ranks > 1 {
            let mpi = r.mpi.as_ref().expect("the JSON has the MPI figures");
            assert_eq!(mpi.partition, partition);
            let grid = if partition == "2d" {
                dist::Grid::shape(ranks)
            } else {
                (1, ranks)
            };
            assert_eq!(mpi.grid, Some([grid.0, grid.1]), "{what}");
            assert_eq!(mpi.peak_memory_bytes_per_rank.len(), ranks);
            assert_eq!(mpi.id_bytes, if wide { 8 } else { 4 });
            assert!(mpi.kernel1_bytes > 0);
        }
    }
}

/// (root, nedge) per SSSP search, each validated.
fn sssp_searches(r: &RunReport) -> Vec<(u64, u64)> {
    let records = r.sssp_searches.as_ref().expect("SSSP searches");
    assert!(records.iter().all(|s| s.validate_time.is_some()));
    records.iter().map(|s| (s.root, s.nedge)).collect()
}

/// `--sssp` under mpirun, on 1 to 4 ranks and both partitions: the BFS
/// and then the SSSP searches of the single process (keys and nedge),
/// every one validated (so the distances are the single process's too: a
/// validated distance array is the one f32 fixpoint), and the combined
/// block printed once, by rank 0.
#[test]
fn sssp_over_every_rank_count_gives_the_single_process_answers() {
    let dir = tempfile::tempdir().unwrap();
    let json = |name: &str| dir.path().join(name).display().to_string();
    let common = [
        "--scale", "9", "--keys", "3", "--seed", "5", "--sssp", "--quiet",
    ];
    let one = single_run(&common, Path::new(&json("single.json")));
    assert_eq!(sssp_searches(&one).len(), 3);
    let runs = [1, 2, 3, 4].map(|p| (p, "1d")).into_iter();
    for (ranks, partition) in runs.chain([1, 2, 3, 4].map(|p| (p, "2d"))) {
        let name = json(&format!("p{ranks}{partition}.json"));
        let mut args = vec!["--threads", "1", "--json", &name];
        args.extend(["--partition", partition]);
        args.extend(common);
        let stdout = one_block_over(ranks, &args);
        for line in [
            "sssp min_time:",
            "sssp harmonic_mean_TEPS:     !  ",
            "sssp stddev_validate:",
        ] {
            assert_eq!(stdout.matches(line).count(), 1, "{line}:\n{stdout}");
        }
        let r = report(Path::new(&name));
        let what = format!("P {ranks} {partition}");
        assert_eq!(r.graph.checksum, one.graph.checksum, "{what}: checksum");
        assert_eq!(searches(&r), searches(&one), "{what}: BFS");
        assert_eq!(sssp_searches(&r), sssp_searches(&one), "{what}: SSSP");
        if ranks > 1 {
            let mpi = r.mpi.as_ref().expect("the JSON has the MPI figures");
            assert_eq!(mpi.partition, partition);
            assert_eq!(mpi.sssp_search_bytes.as_ref().map(Vec::len), Some(3));
        }
    }
}

/// `--backend pipes` under mpirun: every rank's kernel 1, BFS and kernel 3
/// loops on `par`'s threads, with the single process's graph, keys and
/// nedge (BFS and SSSP), every search validated.
#[test]
fn the_pipes_backend_over_ranks_gives_the_single_process_answers() {
    let dir = tempfile::tempdir().unwrap();
    let json = |name: &str| dir.path().join(name).display().to_string();
    let common = [
        "--scale", "10", "--keys", "4", "--seed", "7", "--sssp", "--quiet",
    ];
    let one = single_run(&common, Path::new(&json("single.json")));
    for (ranks, threads) in [(2, "2"), (3, "1")] {
        let name = json(&format!("p{ranks}.json"));
        let mut args = vec!["--backend", "pipes", "--threads", threads, "--json", &name];
        args.extend(common);
        one_block_over(ranks, &args);
        let r = report(Path::new(&name));
        assert_eq!(r.options.backend.as_deref(), Some("pipes"), "P {ranks}");
        assert_eq!(r.graph.checksum, one.graph.checksum, "P {ranks}: checksum");
        assert_eq!(searches(&r), searches(&one), "P {ranks}: BFS");
        assert!(r.searches.iter().all(|s| s.validate_time.is_some()));
        assert_eq!(sssp_searches(&r), sssp_searches(&one), "P {ranks}: SSSP");
    }
}

/// Guards the ranks' own switching default: alpha 30 under mpirun
/// (`dist::DEFAULT_PARAMS`), 15 in one process, and a given `--alpha`
/// wins in both; the answers stay the single process's.
#[test]
fn ranks_switch_sooner_by_default_and_a_given_alpha_wins() {
    let dir = tempfile::tempdir().unwrap();
    let json = |name: &str| dir.path().join(name).display().to_string();
    let common = ["--scale", "10", "--keys", "4", "--seed", "3", "--quiet"];
    let one = single_run(&common, Path::new(&json("single.json")));
    assert_eq!(one.options.alpha, Some(kernels::DoParams::DEFAULT.alpha));
    for (given, expected) in [(None, dist::DEFAULT_PARAMS.alpha), (Some("7"), 7)] {
        let name = json("ranks.json");
        let mut args = vec!["--json", &name];
        if let Some(alpha) = given {
            args.extend(["--alpha", alpha]);
        }
        args.extend(common);
        one_block_over(2, &args);
        let r = report(Path::new(&name));
        assert_eq!(r.options.alpha, Some(expected), "--alpha {given:?}");
        assert_eq!(searches(&r), searches(&one), "--alpha {given:?}");
    }
    assert_ne!(dist::DEFAULT_PARAMS.alpha, kernels::DoParams::DEFAULT.alpha);
}

#[test]
fn the_reference_generator_gives_its_graph_and_keys_over_ranks() {
    let args = [
        "--generator",
        "graph500",
        "--scale",
        "10",
        "--keys",
        "4",
        "--quiet",
    ];
    same_answers(3, &args);
}

/// Bad input found by every rank (too many keys), by one rank only (rank
/// 0's output folder) and too little memory: one line, exit 2, no hang.
#[test]
fn bad_input_is_one_message_and_exit_2_from_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir
        .path()
        .join("no/such/folder/r.json")
        .display()
        .to_string();
    let cases: [&[&str]; 4] = [
        &["--scale", "6", "--keys", "100000"],
        &["--scale", "8", "--keys", "4", "--json", &missing],
        &["--scale", "31", "--edgefactor", "64"],
        // 2^40 vertices: a rank of 3 would own more than 2^32.
        &["--scale", "40"],
    ];
    for args in cases {
        let mut args = args.to_vec();
        args.push("--quiet");
        let out = finish(mpirun(3, &args), 120);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ours: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("graph500: error"))
            .collect();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            ours.len(),
            1,
            "{args:?}: one message, printed once:\n{stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// An option the command line refuses before MPI starts (`--scale 43`,
/// beyond the largest scale): every rank refuses the same argv, and the
/// error is printed once, as rank 0's.
#[test]
fn an_option_refused_before_mpi_starts_is_printed_once() {
    let out = finish(mpirun(3, &["--scale", "43", "--quiet"]), 120);
    assert_refused_once(&out, "43");
}

/// A `--input` that does not exist is refused by rank 0 as missing ("No
/// such file"), once, not as a file to convert first.
#[test]
fn a_missing_input_under_mpirun_says_no_such_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nonexistent.el").display().to_string();
    let out = finish(
        mpirun(2, &["--input", &missing, "--keys", "4", "--quiet"]),
        120,
    );
    assert_refused_once(&out, "No such file");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("convert"), "{stderr}");
}

/// `out` is an exit 2 with one line of ours on stderr, holding `words`,
/// and nothing on stdout.
fn assert_refused_once(out: &std::process::Output, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("graph500: "))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(ours.len(), 1, "one message, printed once:\n{stderr}");
    assert!(ours[0].contains(words), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// A refusal made before MPI starts that is not clap's: `--threads` above
/// 64 per core, with every rank held to one core (`taskset -c 0`, which
/// the ranks inherit), so that each refuses 65 threads whatever the
/// machine. Every rank exits 2, and the error is printed once, by rank 0.
#[test]
fn a_refusal_before_mpi_starts_is_printed_once() {
    let mut command = Command::new("taskset");
    let under = mpirun(3, &["--threads", "65", "--scale", "5", "--keys", "2"]);
    command
        .args(["-c", "0"])
        .arg(under.get_program())
        .args(under.get_args())
        .envs(under.get_envs().filter_map(|(k, v)| Some((k, v?))));
    let out = finish(command, 120);
    assert_refused_once(&out, "--threads 65 is above 64");
}

/// SIGTERM, or SIGINT (Ctrl-C), to mpirun while the ranks search: every
/// rank stops, mpirun exits non-zero (its own status, not graph500's 130:
/// docs/clusters.md), rank 0 says it was interrupted and nothing says a
/// validation failed, and neither the JSON nor a temporary file is left.
#[test]
fn sigterm_to_mpirun_stops_every_rank_and_writes_nothing() {
    stop_mpirun_with("-TERM");
}

#[test]
fn ctrl_c_to_mpirun_stops_every_rank_and_writes_nothing() {
    stop_mpirun_with("-INT");
}

/// `command` (an mpirun) started with stdout to `stdout` and stderr piped,
/// returned once rank 0 says its searches started, with the rest of its
/// stderr.
fn start_searching(
    mut command: Command,
    stdout: &std::fs::File,
) -> (
    std::process::Child,
    std::io::Lines<BufReader<std::process::ChildStderr>>,
) {
    let mut child = command
        .stdout(stdout.try_clone().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let searching = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|line| line.contains("searches with kernel"));
    assert!(searching, "the run never reached its searches");
    (child, lines)
}

fn stop_mpirun_with(signal: &str) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json").display().to_string();
    let stdout = tempfile::tempfile().unwrap();
    // Thousands of searches: far longer than the signal takes to arrive
    // (64 took under a second once validation stopped sending every tuple).
    let command = mpirun(2, &["--scale", "17", "--keys", "4000", "--json", &json]);
    let (mut child, lines) = start_searching(command, &stdout);
    let _ = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = support::wait_or_hang(&mut child, 60);
    assert!(!status.success(), "{rest:?}");
    let said = |what: &str| rest.iter().filter(|l| l.starts_with(what)).count();
    assert_eq!(said("graph500: interrupted; stopping"), 1, "{rest:?}");
    let stdout = {
        use std::io::{Read, Seek};
        let (mut text, mut file) = (String::new(), stdout);
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    assert!(!stdout.contains("No results printed"), "{stdout}");
    assert!(
        !rest.iter().any(|l| l.contains("failed validation")),
        "{rest:?}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

/// `run --input FILE` under mpirun: each rank reads its byte range of a
/// binary edge list; the answers are the single process's.
#[test]
fn an_input_file_under_mpirun_gives_the_single_process_answers() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.bin").display().to_string();
    let made = Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(["generate", "--scale", "11", "--out", &graph, "--quiet"])
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let split = same_answers(2, &["run", "--input", &graph, "--keys", "6", "--quiet"]);
    assert_eq!(split.mpi.map(|m| m.ranks), Some(2));
    // No weights in it: --sssp is one line from rank 0, exit 2 everywhere.
    let out = finish(
        mpirun(2, &["run", "--input", &graph, "--sssp", "--quiet"]),
        120,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("graph500: error"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(ours.len(), 1, "{stderr}");
    assert!(
        ours[0].contains("--sssp") && ours[0].contains("g.bin"),
        "{stderr}"
    );
}
