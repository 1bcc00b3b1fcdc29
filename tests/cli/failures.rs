//! Every failure a clean exit: outputs that are devices, FIFOs, links,
//! directories or inputs; closed and full stdout and stderr; SIGTERM and
//! SIGHUP; running out of memory; `--threads` beyond its range; clap's
//! suggestions. Each test runs the real binary.

use crate::support::*;
use std::fs;
use std::io::Read;

/// A small text edge list (SCALE 6) in `dir`.
fn small_graph(dir: &Path) -> PathBuf {
    graph_at(dir, "g.el", 6)
}

/// A SCALE `scale` graph `name` in `dir` (its format from the name).
fn graph_at(dir: &Path, name: &str, scale: u32) -> PathBuf {
    let g = dir.join(name);
    let scale = scale.to_string();
    let o = graph500(&[
        "generate",
        "--quiet",
        "--scale",
        &scale,
        "--out",
        path_str(&g),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    g
}

#[cfg(unix)]
fn file_type(path: &Path) -> fs::FileType {
    fs::symlink_metadata(path).unwrap().file_type()
}

// ---- 3. output paths -------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_fifo_output_is_written_through_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("edges.g500");
    mkfifo(&fifo);
    // Held open for reading and writing, so the program's open does not
    // wait and its 2 KiB fit the pipe's buffer.
    let mut reader = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let o = graph500(&[
        "generate",
        "--quiet",
        "--scale",
        "4",
        "--out",
        path_str(&fifo),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(file_type(&fifo).is_fifo(), "the FIFO was replaced");
    let mut bytes = vec![0u8; 32 + 256 * 8];
    reader.read_exact(&mut bytes).unwrap();
    assert_eq!(&bytes[..8], b"G500EDGE");
    assert_eq!(names_in(dir.path()), ["edges.g500"]);
}

#[cfg(unix)]
#[test]
fn dev_null_is_written_through_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("null.g500");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for out in [Path::new("/dev/null"), &link] {
        let o = graph500(&[
            "generate",
            "--quiet",
            "--scale",
            "4",
            "--out",
            path_str(out),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device(),
            "/dev/null is no longer a device"
        );
    }
    assert!(file_type(&link).is_symlink());
    let leftovers: Vec<String> = names_in(Path::new("/dev"))
        .into_iter()
        .filter(|n| n.starts_with(".graph500"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn a_link_stays_a_link_and_its_target_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.g500");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.g500");
    std::os::unix::fs::symlink("real.g500", &link).unwrap();
    let o = graph500(&[
        "generate",
        "--quiet",
        "--scale",
        "4",
        "--out",
        path_str(&link),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(file_type(&link).is_symlink(), "the link was replaced");
    assert_eq!(fs::read(&target).unwrap().len(), 32 + 256 * 8);
    // A dangling link: its target is created.
    let dangling = dir.path().join("dangling.g500");
    std::os::unix::fs::symlink("new.g500", &dangling).unwrap();
    let o = graph500(&[
        "generate",
        "--quiet",
        "--scale",
        "4",
        "--out",
        path_str(&dangling),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(file_type(&dangling).is_symlink());
    assert_eq!(fs::read(dir.path().join("new.g500")).unwrap().len(), 2080);
    assert_eq!(
        names_in(dir.path()),
        ["dangling.g500", "link.g500", "new.g500", "real.g500"]
    );
}

#[test]
fn a_write_error_exits_2_naming_the_users_path() {
    let o = graph500(&["generate", "--quiet", "--scale", "4", "--out", "/dev/full"]);
    assert_bad_input(&o, &["/dev/full", "No space left on device"]);
    assert!(!text(&o.stderr).contains(".partial"));
    let o = graph500(&[
        "--quiet",
        "--scale",
        "6",
        "--keys",
        "2",
        "--json",
        "/dev/full",
    ]);
    assert_bad_input(&o, &["/dev/full", "No space left on device"]);
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    let o = graph500(&[
        "bfs",
        "--quiet",
        "--input",
        path_str(&g),
        "--root",
        "1",
        "--parents-out",
        "/dev/full",
    ]);
    assert_bad_input(&o, &["/dev/full", "No space left on device"]);
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let g = small_graph(dir.path());
    let before = fs::read(&g).unwrap();
    let same = dir.path().join(".").join("g.el");
    let cases: Vec<Vec<&str>> = vec![
        vec!["convert", path_str(&g), path_str(&g)],
        vec!["convert", path_str(&g), path_str(&same), "--to", "binary"],
        vec![
            "bfs",
            "--input",
            path_str(&g),
            "--root",
            "1",
            "--parents-out",
            path_str(&g),
        ],
        vec![
            "run",
            "--input",
            path_str(&g),
            "--keys",
            "2",
            "--json",
            path_str(&g),
        ],
        vec![
            "run",
            "--input",
            path_str(&g),
            "--keys",
            "2",
            "--csv",
            path_str(&same),
        ],
    ];
    for args in cases {
        let o = graph500(&args);
        assert_bad_input(&o, &["g.el", "is the input"]);
        assert!(o.stdout.is_empty(), "{args:?} did work");
        assert_eq!(fs::read(&g).unwrap(), before, "{args:?} changed its input");
    }
    #[cfg(unix)]
    {
        let link = dir.path().join("link.el");
        std::os::unix::fs::symlink("g.el", &link).unwrap();
        assert_bad_input(
            &graph500(&["convert", path_str(&g), path_str(&link)]),
            &["link.el", "is the input"],
        );
    }
    // plot: its JSON as its SVG.
    let json = dir.path().join("r.json");
    let o = graph500(&[
        "--quiet",
        "--scale",
        "5",
        "--keys",
        "2",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json_before = fs::read(&json).unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&json), "--out", path_str(&json)]),
        &["r.json", "is the input"],
    );
    assert_eq!(fs::read(&json).unwrap(), json_before);
    // Two outputs that are one file.
    let r = dir.path().join("r2.json");
    assert_bad_input(
        &graph500(&[
            "--scale",
            "5",
            "--json",
            path_str(&r),
            "--csv",
            path_str(&r),
        ]),
        &["r2.json", "same file"],
    );
}

#[test]
fn outputs_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    // Each of these would first do (or refuse) its work: SCALE 31 fits no
    // memory, the inputs do not exist.
    let missing = "/nonexistent-graph500-folder/x";
    let cases: Vec<Vec<&str>> = vec![
        vec!["generate", "--scale", "31", "--out", missing],
        vec!["run", "--scale", "31", "--json", missing],
        vec!["run", "--scale", "31", "--csv", missing],
        vec!["profile", "--scale", "30", "--json", missing],
        vec!["sweep", "--from", "31", "--to", "31", "--json", missing],
        vec![
            "bfs",
            "--input",
            "/nonexistent.g500",
            "--root",
            "0",
            "--parents-out",
            missing,
        ],
        vec!["convert", "/nonexistent.g500", missing],
        vec!["plot", "/nonexistent.json", "--out", missing],
    ];
    for args in &cases {
        assert_bad_input(
            &graph500(args),
            &[
                missing,
                "folder /nonexistent-graph500-folder does not exist",
            ],
        );
    }
    let folder = path_str(dir.path());
    for args in [
        vec!["generate", "--scale", "31", "--out", folder],
        vec!["run", "--scale", "31", "--json", folder],
        vec!["sweep", "--from", "31", "--to", "31", "--json", folder],
        vec!["plot", "/nonexistent.json", "--out", folder],
    ] {
        assert_bad_input(&graph500(&args), &[folder, "is a directory"]);
    }
    let file = small_graph(dir.path());
    let below_a_file = file.join("x.json");
    assert_bad_input(
        &graph500(&["run", "--scale", "31", "--json", path_str(&below_a_file)]),
        &["is not a folder"],
    );
}

/// Guards issue 31 §2: `--json /sys/x.json` and `--csv /proc/1/x.csv`
/// once failed only after the whole run, which was lost. The refusal must
/// be the only line: no progress of a run or a generation before it.
#[test]
fn an_output_folder_that_cannot_take_a_file_is_refused_before_any_work() {
    for (option, path) in [("--json", "/sys/x.json"), ("--csv", "/proc/1/x.csv")] {
        let o = graph500_or_hang(&["run", "--scale", "8", "--keys", "2", option, path], 60);
        assert_bad_input(&o, &[path, "cannot take a new file"]);
    }
    let o = graph500_or_hang(&["generate", "--scale", "8", "--out", "/sys/g.el"], 60);
    assert_bad_input(&o, &["/sys/g.el", "cannot take a new file"]);
}

// ---- 3b. FIFOs ----------------------------------------------------------------

/// Guards issue 31 §2: a FIFO as an input once blocked forever in `open`
/// (no program writes it), deaf to SIGTERM; so did one as a `.pe48`'s
/// weights.
#[test]
fn a_fifo_input_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f");
    mkfifo(&fifo);
    let g = small_graph(dir.path());
    let (f, g) = (path_str(&fifo), path_str(&g));
    let out = dir.path().join("out");
    let out = path_str(&out);
    for args in [
        vec!["bfs", "--input", f, "--root", "0", "--parents-out", out],
        vec!["validate", "--input", g, "--root", "0", "--parents", f],
        vec!["convert", f, out],
        vec!["run", "--input", f, "--keys", "1"],
    ] {
        let o = graph500_or_hang(&args, 30);
        assert_bad_input(&o, &[f, "FIFO", "not a regular file"]);
    }
    // A FIFO as the weights beside a `.pe48` is read with it: refused alike.
    let k = graph_at(dir.path(), "k.pe48", 4);
    let beside = dir.path().join("k.pe48.weights");
    mkfifo(&beside);
    let k = path_str(&k);
    for args in [
        vec!["bfs", "--input", k, "--root", "1", "--parents-out", out],
        vec!["convert", k, out],
    ] {
        let o = graph500_or_hang(&args, 30);
        assert_bad_input(&o, &["k.pe48.weights", "FIFO", "not a regular file"]);
    }
}

/// Starts `bfs` of `g` writing its parents into `fifo`, and returns once
/// it is past its reading and searching (which take milliseconds at
/// SCALE 16) and waits on the FIFO.
fn bfs_into(g: &Path, fifo: &Path) -> Child {
    let mut child = bin()
        .args([
            "bfs",
            "--input",
            path_str(g),
            "--root",
            "1",
            "--parents-out",
            path_str(fifo),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_handler(&mut child);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "bfs ended without a reader"
    );
    child
}

/// Guards issue 31 §2: writing into a FIFO that no program reads, or
/// whose reader never reads, once waited forever, and the first signal
/// did not end it.
#[test]
fn an_output_fifo_nobody_reads_ends_at_the_first_signal() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().unwrap();
    let g = graph_at(dir.path(), "g.g500", 16);
    let fifo = dir.path().join("parents");
    mkfifo(&fifo);
    // No reader at all: the open would wait.
    let child = bfs_into(&g, &fifo);
    kill("TERM", &child);
    let (status, err) = finish_or_hang(child, 20);
    assert_eq!(status.code(), Some(130), "{err}");
    // A reader that never reads: 512 KiB of parents, a 64 KiB pipe.
    let _reader = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let child = bfs_into(&g, &fifo);
    kill("TERM", &child);
    let (status, err) = finish_or_hang(child, 20);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
}

/// [`finish`], killing the child and failing if it still runs after
/// `seconds`.
fn finish_or_hang(mut child: Child, seconds: u64) -> (ExitStatus, String) {
    wait_or_hang(&mut child, seconds);
    finish(child)
}

// ---- 3c. inputs changed while read -------------------------------------------

/// Guards issue 31 §2: a mapped input cut short by another program while
/// graph500 read it killed the process with SIGBUS (status 135, no word).
/// `convert` reads a width-4 binary list in place while it writes text,
/// which takes seconds at SCALE 18; the file is cut once the write began.
/// (It was once cut when the temporary appeared, before the input was
/// opened, and then read as a 0-byte file: a race in the test, not in
/// the program.)
#[test]
fn a_mapped_input_cut_short_while_read_is_a_one_line_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph_at(dir.path(), "g.g500", 18);
    let out = dir.path().join("out.el");
    let mut child = bin()
        .args(["convert", "--quiet", path_str(&g), path_str(&out)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The temporary exists before the input is opened: cut the input
    // only once text was written, or the cut is seen as a short header.
    wait_for_partial(&mut child, dir.path(), 1);
    fs::OpenOptions::new()
        .write(true)
        .open(&g)
        .unwrap()
        .set_len(0)
        .unwrap();
    let (status, err) = finish_or_hang(child, 60);
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("g.g500: changed while it was read"), "{err}");
    assert!(!out.exists());
    assert_eq!(
        names_in(dir.path()),
        ["g.g500"],
        "a temporary file was left"
    );
}

// ---- 3d. huge inputs -----------------------------------------------------------

/// Guards issue 31 §2 (reject from the first bytes that cannot be right)
/// for `validate`'s arrays: a 3 GiB sparse parents or distances file
/// beside a 64-vertex graph was read whole (17 s, 3 GiB of memory) before
/// "holds 402653184 parents but the graph has 64 vertices". Its length
/// says so at once: the refusal comes within 1 GiB of address space
/// (`ulimit -v`), where reading the file first ran out of memory.
#[test]
fn an_array_file_of_the_wrong_length_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge");
    fs::File::create(&huge).unwrap().set_len(3 << 30).unwrap();
    let w = dir.path().join("w.g500");
    let (p, d) = (dir.path().join("p"), dir.path().join("d"));
    for args in [
        vec!["generate", "--quiet", "--weights", "--scale", "6"],
        vec!["--out", path_str(&w)],
        vec!["sssp", "--input", path_str(&w), "--root", "1"],
        vec!["--parents-out", path_str(&p), "--dist-out", path_str(&d)],
    ]
    .chunks(2)
    {
        let o = graph500(&args.concat());
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let validate = |arrays: &[&str]| {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg("ulimit -v 1048576; exec \"$@\"")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_graph500"))
            .args(["validate", "--input", path_str(&w), "--root", "1"])
            .args(arrays);
        output_or_hang(command, 60)
    };
    let o = validate(&["--parents", path_str(&huge)]);
    assert_bad_input(&o, &["huge", "holds 402653184 parents", "has 64 vertices"]);
    let o = validate(&[
        "--parents",
        path_str(&p),
        "--sssp",
        "--dist",
        path_str(&huge),
    ]);
    assert_bad_input(
        &o,
        &["huge", "holds 805306368 distances", "has 64 vertices"],
    );
}

// ---- 4. stdout and stderr --------------------------------------------------

#[test]
fn a_closed_stdout_ends_quietly_with_the_commands_status() {
    let dir = tempfile::tempdir().unwrap();
    let g = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/path.el");
    // Five vertices, none reached: the root is not its own parent.
    let bad = dir.path().join("bad.parents");
    fs::write(&bad, vec![0xffu8; 5 * 8]).unwrap();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["--quiet", "--scale", "6", "--keys", "4"], 0),
        (vec!["--help"], 0),
        (
            vec![
                "validate",
                "--quiet",
                "--input",
                path_str(&g),
                "--root",
                "1",
                "--parents",
                path_str(&bad),
            ],
            1,
        ),
        (vec!["profile", "--quiet", "--scale", "6", "--keys", "2"], 0),
    ];
    for (args, code) in cases {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // as `| head -0` would
        let (status, err) = finish(child);
        assert_eq!(status.code(), Some(code), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} said {err:?}");
    }
}

#[test]
fn a_full_stdout_is_a_one_line_error() {
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        vec!["--quiet", "--scale", "6", "--keys", "4"],
        vec!["--version"],
    ] {
        let o = bin()
            .args(&args)
            .stdout(full())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_bad_input(&o, &["stdout", "No space left on device"]);
    }
}

#[test]
fn a_closed_stderr_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.g500");
    let mut child = bin()
        .args(["generate", "--scale", "8", "--out", path_str(&out)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(fs::read(&out).unwrap().len(), 32 + (16 << 8) * 8);
}

// ---- 5. signals -------------------------------------------------------------

#[test]
fn sigterm_during_a_write_leaves_no_file_and_no_temporary() {
    // The last: the process stopped, two different signals made pending
    // (two of one kind would merge into one), then continued, so both reach
    // it mid-write; the second exits at once and must remove the temporary.
    let two = ["STOP", "TERM", "HUP", "CONT"];
    for signals in [&["TERM"][..], &["HUP"], &two] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g.el");
        // Text at SCALE 18: seconds of writing in a debug build.
        let mut child = bin()
            .args([
                "generate",
                "--quiet",
                "--scale",
                "18",
                "--out",
                path_str(&out),
            ])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_partial(&mut child, dir.path(), 0);
        for signal in signals {
            kill(signal, &child);
        }
        let (status, err) = finish(child);
        assert_eq!(status.code(), Some(130), "{signals:?}: {err}");
        assert!(err.contains("interrupted"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(names_in(dir.path()), Vec::<String>::new(), "{signals:?}");
    }
}

#[test]
fn sigterm_stops_bfs_and_validate_before_they_finish() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.el");
    let o = graph500(&[
        "generate",
        "--quiet",
        "--scale",
        "17",
        "--out",
        path_str(&g),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let parents = dir.path().join("p");
    fs::write(&parents, vec![0xffu8; 8 << 17]).unwrap();
    let out = dir.path().join("out");
    let commands = [
        vec![
            "bfs",
            "--input",
            path_str(&g),
            "--root",
            "1",
            "--parents-out",
            path_str(&out),
        ],
        vec![
            "validate",
            "--input",
            path_str(&g),
            "--root",
            "1",
            "--parents",
            path_str(&parents),
        ],
    ];
    for args in commands {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_handler(&mut child);
        kill("TERM", &child);
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        let (status, err) = finish(child);
        assert_eq!(status.code(), Some(130), "{args:?}: {err}");
        assert!(stdout.is_empty(), "{args:?} printed a verdict: {stdout}");
        assert!(!out.exists(), "bfs wrote its parents after the signal");
    }
    assert_eq!(names_in(dir.path()), ["g.el", "p"]);
}

#[test]
fn ctrl_c_and_sighup_stop_a_run_cleanly_without_results() {
    use std::io::{BufRead, BufReader};
    for signal in ["INT", "HUP"] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        // Thousands of validated searches: far longer than the test waits.
        let mut child = bin()
            .args(["--scale", "12", "--keys", "3000", "--json", path_str(&json)])
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
        kill(signal, &child);
        let rest: Vec<String> = lines.map(Result::unwrap).collect();
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let (status, _) = finish(child);
        assert_eq!(status.code(), Some(130), "{signal}: {rest:?}");
        assert!(rest.iter().any(|l| l.contains("interrupted")), "{rest:?}");
        assert!(
            !rest.iter().any(|l| l.contains("search 3000/3000")),
            "{signal} did not stop it"
        );
        assert!(out.is_empty(), "statistics printed after {signal}: {out}");
        assert_eq!(names_in(dir.path()), Vec::<String>::new(), "{signal}");
    }
}

// ---- 6. memory --------------------------------------------------------------

#[test]
fn running_out_of_memory_is_a_one_line_exit() {
    // 1 GiB of address space: the SCALE 24 edge list (2 GiB) cannot fit.
    for command in ["", "generate --out /dev/null"] {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 1048576; exec \"$0\" {command} --force --quiet --scale 24"
            ))
            .arg(env!("CARGO_BIN_EXE_graph500"))
            .output()
            .unwrap();
        assert_bad_input(
            &o,
            &[
                "graph500: error: out of memory: could not allocate",
                "bytes",
            ],
        );
        let err = text(&o.stderr);
        let bytes: u64 = err
            .trim()
            .strip_prefix("graph500: error: out of memory: could not allocate ")
            .and_then(|rest| rest.strip_suffix(" bytes"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no byte count in {err:?}"));
        assert!(bytes > 1 << 30, "{err}");
    }
}

// ---- 7. --threads -------------------------------------------------------------

#[test]
fn threads_above_64_per_core_are_refused_naming_the_limit() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let limit = 64 * cores;
    let over = (limit + 1).to_string();
    let o = graph500(&["--threads", &over, "--scale", "6", "--keys", "2"]);
    if limit < 4096 {
        assert_bad_input(
            &o,
            &[
                &format!("--threads {over} is above {limit}"),
                &format!(
                    "64 per core, {cores} core{}",
                    if cores == 1 { "" } else { "s" }
                ),
            ],
        );
    } else {
        // 64 cores or more: the option's own range (1..=4096) is the limit.
        assert_bad_input(&o, &["--threads", "1..=4096"]);
    }
    let o = graph500(&[
        "--threads",
        &limit.min(4096).to_string(),
        "--quiet",
        "--scale",
        "8",
        "--keys",
        "4",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("bfs  harmonic_mean_TEPS"));
}

// ---- 8. clap's suggestions --------------------------------------------------

#[test]
fn misspelt_options_and_commands_get_clap_tips_on_one_line() {
    assert_bad_input(
        &graph500(&["--scael", "3"]),
        &[
            "unexpected argument '--scael' found",
            "tip: a similar argument exists: '--scale'",
        ],
    );
    assert_bad_input(
        &graph500(&["genrate", "--scale", "3"]),
        &["'genrate'", "tip: a similar subcommand exists: 'generate'"],
    );
    let o = graph500(&["generate", "--scale", "3"]);
    assert_bad_input(&o, &["required", "--out <FILE>"]);
    assert!(!text(&o.stderr).contains("Usage"), "{}", text(&o.stderr));
}
