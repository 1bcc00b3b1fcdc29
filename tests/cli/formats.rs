//! `graph500 generate` and `graph500 convert`: every file format, and bad files.

use crate::support::*;

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
    let nedges = |graph: &Path| -> Vec<u64> {
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
        let j = read_run(&json);
        j.searches.iter().map(|r| r.nedge).collect::<Vec<u64>>()
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

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_a_one_line_error() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.el");
    std::fs::write(&path, "0 1\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_graph500"));
    // SAFETY: geteuid only reads this process's effective user id.
    #[allow(unsafe_code)]
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        // Root reads any file: run a copy of the binary, in a folder anyone
        // may enter, as the unprivileged user `nobody` (65534) instead.
        let open =
            |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
        open(dir.path(), 0o755).unwrap();
        let copy = dir.path().join("graph500");
        std::fs::copy(env!("CARGO_BIN_EXE_graph500"), &copy).unwrap();
        open(&copy, 0o755).unwrap();
        command = Command::new(&copy);
        command.uid(65534).gid(65534);
    }
    command.args(["run", "-q", "-i", path_str(&path)]);
    // Another test thread forking while the copy's file was still open for
    // writing leaves that descriptor in its child for a moment, and exec
    // refuses a file open for writing ("Text file busy"): try again.
    let o = (0..100)
        .find_map(|_| match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                None
            }
            other => Some(other.unwrap()),
        })
        .expect("the copy becomes executable");
    assert_bad_input(&o, &["secret.el", "ermission denied"]);
}
