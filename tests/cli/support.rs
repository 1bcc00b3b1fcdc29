//! What the command-line tests share: running the binary, reading its
//! output (the official block, the JSON reports), fixture paths and the
//! assertion that bad input is one line and exit 2.

#![allow(dead_code)] // each test module uses its own subset

pub(crate) use harness::report::{Document, RunReport};
use std::collections::VecDeque;
use std::fs;
use std::io::Read;
pub(crate) use std::path::{Path, PathBuf};
#[allow(unused_imports)] // each test file that includes this module uses its own subset
pub(crate) use std::process::{Child, ExitStatus, Stdio};
pub(crate) use std::process::{Command, Output};

pub(crate) fn graph500(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graph500"))
        .args(args)
        .output()
        .expect("the graph500 binary runs")
}

/// [`graph500`], guarded against a hang: the child is killed, and the test
/// fails, if it still runs after `seconds`. Not a timing assertion: any
/// finishing run passes, however slow.
pub(crate) fn graph500_or_hang(args: &[&str], seconds: u64) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_graph500"));
    command.args(args);
    output_or_hang(command, seconds)
}

/// Runs `command` to its end with its output captured, guarded against a
/// hang: it is killed, and the test fails, if it still runs after
/// `seconds`.
pub(crate) fn output_or_hang(mut command: Command, seconds: u64) -> Output {
    let (out, err) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
    let mut child = command
        .stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap())
        .spawn()
        .expect("the command runs");
    let status = wait_or_hang(&mut child, seconds);
    let read = |mut f: std::fs::File| {
        use std::io::{Read, Seek};
        let mut bytes = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut bytes).unwrap();
        bytes
    };
    Output {
        status,
        stdout: read(out),
        stderr: read(err),
    }
}

/// Waits for `child` to end; kills it, and fails the test, if it still
/// runs after `seconds` (a hang, not a timing assertion).
pub(crate) fn wait_or_hang(child: &mut Child, seconds: u64) -> ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still ran after {seconds} s: a hang");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub(crate) fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file)
        .display()
        .to_string()
}

pub(crate) fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts exit status 2 and a single stderr line containing each of `words`.
pub(crate) fn assert_bad_input(o: &Output, words: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("graph500: "), "{err:?}");
    for w in words {
        assert!(err.contains(w), "{err:?} does not mention {w:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// The labels of the statistics block, in order.
pub(crate) const LABELS: [&str; 34] = [
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

/// The official block (the first 34 lines of `text`) as (label, value)
/// pairs, checking the reference's labels, order and layout: every value
/// starts in column 33, the harmonic mean's `!` sits in column 30.
pub(crate) fn block(text: &str) -> Vec<(String, f64)> {
    let lines: Vec<&str> = text.lines().take(LABELS.len()).collect();
    assert_eq!(lines.len(), LABELS.len(), "a short block: {text}");
    let pairs: Vec<(String, f64)> = lines
        .iter()
        .map(|l| {
            let (label, rest) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("no colon in {l:?}"));
            assert!(
                l.len() > 32 && !l[32..].starts_with(' '),
                "value column of {l:?}"
            );
            if label == "bfs  harmonic_mean_TEPS" {
                assert_eq!(&l[24..32], "     !  ", "{l:?}");
            } else {
                assert!(l[label.len() + 1..32].bytes().all(|b| b == b' '), "{l:?}");
            }
            let value = rest.trim().trim_start_matches('!').trim();
            let value = value.parse().unwrap_or_else(|_| panic!("value of {l:?}"));
            (label.to_string(), value)
        })
        .collect();
    let labels: Vec<&str> = pairs.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, LABELS);
    pairs
}

/// The value of `label` in a [`block`].
pub(crate) fn value(block: &[(String, f64)], label: &str) -> f64 {
    block.iter().find(|(l, _)| l == label).unwrap().1
}

/// The value of one of our own lines after the block, if printed.
pub(crate) fn our_line(text: &str, label: &str) -> Option<String> {
    text.lines().skip(LABELS.len()).find_map(|l| {
        let (l, value) = l.split_once(':')?;
        (l == label).then(|| value.trim().to_string())
    })
}

/// The generator our line after the block names (`xoshiro` or `file`;
/// nothing after a run of the reference generator).
pub(crate) fn generator_of(text: &str) -> Option<String> {
    our_line(text, "generator")
}

/// Parses `svg` as XML from start to end; panics if it is not well formed.
pub(crate) fn assert_well_formed_xml(svg: &str) {
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

/// A JSON file that graph500 wrote.
/// Any JSON the program writes, read typed.
pub(crate) fn read_json(path: &Path) -> Document {
    Document::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The JSON of a run.
pub(crate) fn read_run(path: &Path) -> RunReport {
    match read_json(path) {
        Document::Run(run) => *run,
        other => panic!("not a run's JSON: {other:?}"),
    }
}

/// The JSON of `graph500 --scale 11 --keys 6` plus `extra`.
pub(crate) fn json_run(dir: &Path, name: &str, extra: &[&str]) -> RunReport {
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
    read_run(&json)
}

/// A BFS written the way another program might: neighbours visited in
/// descending order and each vertex's parent the *largest* neighbour on the
/// level above, unlike our kernels' first-come claims.
pub(crate) fn other_programs_parents(n: usize, edges: &[(u32, u32)], root: usize) -> Vec<i64> {
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

pub(crate) fn write_parents(path: &Path, parents: &[i64]) {
    let bytes: Vec<u8> = parents.iter().flat_map(|p| p.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

pub(crate) fn read_parents(path: &Path) -> Vec<i64> {
    std::fs::read(path)
        .unwrap()
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Generates a text graph and returns (path, N, edges, a root with edges).
pub(crate) fn text_graph(dir: &Path) -> (PathBuf, usize, Vec<(u32, u32)>, usize) {
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

/// The tuples of an edge-list file, read by graph500 itself via `convert`
/// to text.
pub(crate) fn tuples_of(path: &Path, dir: &Path) -> Vec<(u32, u32)> {
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

// ---- processes, signals and FIFOs -----------------------------------------

pub(crate) fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_graph500"))
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The names in `dir`, sorted.
pub(crate) fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

pub(crate) fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

pub(crate) fn kill(signal: &str, child: &Child) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} failed");
}

/// Waits until `pid` has installed its handler of SIGTERM (bit 15 of
/// `SigCgt` in /proc), so that a signal sent now is the program's to handle.
pub(crate) fn wait_for_handler(child: &mut Child) {
    let status_file = format!("/proc/{}/status", child.id());
    for _ in 0..20_000 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("exited ({status}) before handling signals");
        }
        let status = fs::read_to_string(&status_file).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (15 - 1)) != 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the program never installed its SIGTERM handler");
}

/// Waits until a `.partial` temporary file of at least `bytes` bytes
/// appears in `dir`. The temporary is created when the outputs are checked,
/// before any input is read: a test that needs the reading under way asks
/// for a byte, which is written only after the input was opened.
pub(crate) fn wait_for_partial(child: &mut Child, dir: &Path, bytes: u64) {
    for _ in 0..60_000 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("exited ({status}) before its write started");
        }
        let written = fs::read_dir(dir).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name().to_string_lossy().ends_with(".partial")
                && e.metadata().is_ok_and(|m| m.len() >= bytes)
        });
        if written {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!(
        "no temporary file of {bytes} bytes ever appeared in {}",
        dir.display()
    );
}

pub(crate) fn finish(mut child: Child) -> (ExitStatus, String) {
    let mut err = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        stderr.read_to_string(&mut err).unwrap();
    }
    (child.wait().unwrap(), err)
}

/// A binary edge list header of `n` vertices and `m` unweighted u32
/// tuples, the tuples a hole of the right length.
pub(crate) fn write_sparse_binary(path: &Path, n: u64, m: u64) {
    let mut header = Vec::new();
    header.extend_from_slice(b"G500EDGE");
    header.extend_from_slice(&1u32.to_le_bytes());
    header.extend_from_slice(&4u32.to_le_bytes());
    header.extend_from_slice(&n.to_le_bytes());
    header.extend_from_slice(&m.to_le_bytes());
    std::fs::write(path, &header).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(header.len() as u64 + 8 * m).unwrap();
}
