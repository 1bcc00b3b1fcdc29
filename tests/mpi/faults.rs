//! Faults under mpirun: a rank killed mid-run ends the whole job (never a
//! hang), and a run too large for the machine is refused by rank 0 before
//! anything is allocated.

use super::{assert_refused_once, finish, mpirun, start_searching, support};
use std::path::Path;

/// The processes below `pid` (its children, theirs, ...) named `name`.
fn descendants_named(pid: u32, name: &str) -> Vec<u32> {
    // (pid, parent, name) of every process: /proc/PID/stat is
    // "PID (NAME) STATE PPID ...", NAME in parentheses, maybe with spaces.
    let table: Vec<(u32, u32, String)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let stat = std::fs::read_to_string(entry.ok()?.path().join("stat")).ok()?;
            let (head, tail) = stat.rsplit_once(')')?;
            let (id, comm) = head.split_once(" (")?;
            let parent = tail.split_whitespace().nth(1)?;
            Some((id.parse().ok()?, parent.parse().ok()?, comm.to_string()))
        })
        .collect();
    let mut below = vec![pid];
    let mut i = 0;
    while i < below.len() {
        let parent = below[i];
        below.extend(table.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    table
        .iter()
        .filter(|p| p.2 == name && below[1..].contains(&p.0))
        .map(|p| p.0)
        .collect()
}

/// SIGKILL to one rank (not to mpirun) while the ranks search: mpirun
/// ends the job, exit status non-zero, with its one line naming the rank
/// and the signal, no statistics block, no JSON or temporary file left
/// and no rank left running. Open MPI sees the rank die and stops the
/// others (about 2 s here); the hang guard is long, and any end passes.
#[test]
fn a_rank_killed_mid_run_ends_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json").display().to_string();
    let stdout = tempfile::tempfile().unwrap();
    let args = [
        "--scale",
        "14",
        "--keys",
        "4000",
        "--threads",
        "1",
        "--json",
        &json,
    ];
    let (mut child, lines) = start_searching(mpirun(3, &args), &stdout);
    let ranks = descendants_named(child.id(), "graph500");
    assert_eq!(ranks.len(), 3, "three ranks under mpirun: {ranks:?}");
    let victim = ranks.iter().max().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &victim])
        .status()
        .unwrap();
    assert!(killed.success());
    // Read the rest of stderr in a thread: the wait below guards the hang.
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    let status = support::wait_or_hang(&mut child, 60);
    let rest = rest.join().unwrap();
    assert!(!status.success(), "{rest:?}");
    let noticed = rest
        .iter()
        .filter(|l| l.starts_with("mpirun noticed that process rank") && l.contains("signal 9"))
        .count();
    assert_eq!(noticed, 1, "mpirun names the killed rank once: {rest:?}");
    let stdout = {
        use std::io::{Read, Seek};
        let (mut text, mut file) = (String::new(), stdout);
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    assert!(!stdout.contains("SCALE:"), "{stdout}");
    assert!(
        !rest.iter().any(|l| l.contains("failed validation")),
        "{rest:?}"
    );
    let running = |pid: &u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.contains("(graph500)") && !stat.contains(") Z ")
    };
    let left_running: Vec<_> = ranks.iter().filter(|p| running(p)).collect();
    assert!(
        left_running.is_empty(),
        "ranks still running: {left_running:?}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

/// A generated run no machine here holds: every rank estimates its share
/// times the ranks on its machine, rank 0 says so once, exit 2, before
/// any generation (SCALE 33 would take hours and terabytes).
#[test]
fn a_run_larger_than_the_machine_is_refused_once_before_allocating() {
    let out = finish(mpirun(3, &["--scale", "33", "--quiet"]), 120);
    assert_refused_once(&out, "(3 on this machine");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is available"), "{stderr}");
}

/// A search of a file whose header claims 2^35 tuples (a sparse file of
/// 256 GiB): refused by the memory check before any rank reads a tuple.
#[test]
fn a_search_of_a_file_larger_than_the_machine_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("huge.bin");
    support::write_sparse_binary(&graph, 1 << 30, 1 << 35);
    let parents = dir.path().join("p").display().to_string();
    let bfs = [
        "bfs",
        "--input",
        graph.to_str().unwrap(),
        "--root",
        "0",
        "--parents-out",
        &parents,
    ];
    let out = finish(mpirun(2, &bfs), 120);
    assert_refused_once(&out, "(2 on this machine");
    assert!(!Path::new(&parents).exists());
}
