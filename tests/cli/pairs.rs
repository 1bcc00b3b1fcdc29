//! A `.pe48` and its `FILE.weights` are one thing (issue 31 §1): no output
//! may be any file a command reads, sidecars included; a pair is written
//! as a unit, a signal never splits it, a pair whose halves do not belong
//! together is refused, and a stale sidecar goes with the file it served.

use crate::support::*;
use std::fs;

/// A weighted SCALE `scale` pair `name` + `name.weights` in `dir`, from
/// `seed`; its two files' bytes.
fn pair(dir: &Path, name: &str, scale: u32, seed: u64) -> (PathBuf, Vec<u8>, Vec<u8>) {
    let path = dir.join(name);
    let o = graph500(&[
        "generate",
        "--quiet",
        "--weights",
        "--scale",
        &scale.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        path_str(&path),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let weights = fs::read(weights_of(&path)).unwrap();
    (path.clone(), fs::read(&path).unwrap(), weights)
}

fn weights_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".weights");
    PathBuf::from(name)
}

#[test]
fn no_output_may_be_an_inputs_weights_file_by_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _, weights) = pair(dir.path(), "w.pe48", 4, 1);
    let beside = weights_of(&w);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("w.pe48.weights", &link).unwrap();
    let (w, beside, link) = (path_str(&w), path_str(&beside), path_str(&link));
    let p = dir.path().join("p");
    let p = path_str(&p);
    let sssp = |dist| {
        vec![
            "sssp",
            "--input",
            w,
            "--root",
            "1",
            "--parents-out",
            p,
            "--dist-out",
            dist,
        ]
    };
    let bfs = |parents| vec!["bfs", "--input", w, "--root", "1", "--parents-out", parents];
    let commands = [
        sssp(beside),
        sssp(link),
        bfs(beside),
        bfs(link),
        vec!["run", "--input", w, "--keys", "2", "--json", beside],
        vec!["run", "--input", w, "--keys", "2", "--csv", link],
        vec!["convert", w, beside],
        vec!["convert", w, link],
    ];
    for args in commands {
        let o = graph500(&args);
        assert_bad_input(&o, &["is the input", "w.pe48.weights"]);
        assert_eq!(
            fs::read(beside).unwrap(),
            weights,
            "{args:?} wrote the weights"
        );
    }
    assert!(!dir.path().join("p").exists());
}

#[test]
fn a_sidecar_linked_to_an_input_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("w.g500");
    let o = graph500(&[
        "generate",
        "--quiet",
        "--weights",
        "--scale",
        "4",
        "--out",
        path_str(&input),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = fs::read(&input).unwrap();
    std::os::unix::fs::symlink("w.g500", dir.path().join("x.pe48.weights")).unwrap();
    let out = dir.path().join("x.pe48");
    let o = graph500(&["convert", path_str(&input), path_str(&out)]);
    assert_bad_input(&o, &["x.pe48.weights", "is the input", "w.g500"]);
    assert_eq!(fs::read(&input).unwrap(), before);
    assert!(!out.exists(), "x.pe48 was written before the refusal");
}

#[test]
fn sidecar_outputs_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let (w, ..) = pair(dir.path(), "w.pe48", 4, 1);
    fs::create_dir(dir.path().join("y.pe48.weights")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/folder/q", dir.path().join("z.pe48.weights")).unwrap();
    for (out, words) in [
        ("y.pe48", &["y.pe48.weights", "is a directory"][..]),
        (
            "z.pe48",
            &["z.pe48.weights", "/nonexistent/folder", "does not exist"],
        ),
    ] {
        let target = dir.path().join(out);
        let o = graph500(&["convert", path_str(&w), path_str(&target)]);
        assert_bad_input(&o, words);
        assert!(!target.exists(), "{out} was written before the refusal");
        let o = graph500(&["generate", "--scale", "4", "--out", path_str(&target)]);
        assert_bad_input(&o, words);
        assert!(!target.exists(), "{out} was generated before the refusal");
    }
}

#[test]
fn writing_a_pe48_without_weights_removes_the_stale_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let (z, ..) = pair(dir.path(), "z.pe48", 4, 1);
    let o = graph500(&["generate", "--scale", "5", "--out", path_str(&z)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("removed"), "{}", stderr(&o));
    assert!(
        !weights_of(&z).exists(),
        "the old weights stayed beside new edges"
    );
    let o = graph500(&[
        "sssp",
        "--input",
        path_str(&z),
        "--root",
        "1",
        "--parents-out",
        path_str(&dir.path().join("p")),
        "--dist-out",
        path_str(&dir.path().join("d")),
    ]);
    assert_bad_input(&o, &["z.pe48", "this file has none"]);
    // A link as the stale sidecar: the link goes, its target stays.
    let (_, _, kept) = pair(dir.path(), "k.pe48", 4, 2);
    fs::rename(
        weights_of(&dir.path().join("k.pe48")),
        dir.path().join("kept"),
    )
    .unwrap();
    std::os::unix::fs::symlink("kept", weights_of(&z)).unwrap();
    let o = graph500(&[
        "convert",
        path_str(&dir.path().join("k.pe48")),
        path_str(&z),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        fs::symlink_metadata(weights_of(&z)).is_err(),
        "the link stayed"
    );
    assert_eq!(fs::read(dir.path().join("kept")).unwrap(), kept);
    // A FIFO there cannot go as stale, and every read would take it for
    // the weights (it once stayed beside the new edges, exit 0, and made
    // them unreadable): refused, nothing written.
    let f = dir.path().join("f.pe48");
    crate::support::mkfifo(&weights_of(&f));
    let u = dir.path().join("u.el");
    let o = graph500(&["generate", "--quiet", "--scale", "4", "--out", path_str(&u)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [
        vec!["generate", "--scale", "4", "--out", path_str(&f)],
        vec!["convert", path_str(&u), path_str(&f)],
    ] {
        let o = graph500_or_hang(&args, 30);
        assert_bad_input(&o, &["f.pe48.weights", "without weights"]);
        assert!(!f.exists(), "{args:?} wrote f.pe48");
    }
}

#[test]
fn weights_of_another_graph_beside_a_pe48_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (a, ..) = pair(dir.path(), "a.pe48", 6, 1);
    let (_, _, b_weights) = pair(dir.path(), "b.pe48", 6, 2);
    // Same scale: the same lengths, so only the trailer tells them apart.
    assert_eq!(
        fs::metadata(weights_of(&a)).unwrap().len(),
        b_weights.len() as u64
    );
    fs::write(weights_of(&a), &b_weights).unwrap();
    let p = dir.path().join("p");
    let d = dir.path().join("d");
    let o = graph500(&[
        "sssp",
        "--input",
        path_str(&a),
        "--root",
        "1",
        "--parents-out",
        path_str(&p),
        "--dist-out",
        path_str(&d),
    ]);
    assert_bad_input(&o, &["a.pe48.weights", "another edge list"]);
    assert!(!p.exists() && !d.exists());
}

/// Guards the pair as a unit against signals: SIGTERM (and SIGTERM then
/// SIGHUP, the second of which exits at once) at many moments of
/// `generate --weights` over an existing pair leaves the old pair or the
/// new one, never one half of each, and no temporary file.
#[test]
fn a_signal_never_leaves_half_a_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (new_path, new_edges, new_weights) = pair(dir.path(), "new.pe48", 14, 2);
    let (sig, old_edges, old_weights) = pair(dir.path(), "sig.pe48", 14, 1);
    assert_ne!(old_edges, new_edges);
    let (mut old_kept, mut new_written) = (0, 0);
    for trial in 0..24u64 {
        let mut child = bin()
            .args([
                "generate",
                "--quiet",
                "--weights",
                "--scale",
                "14",
                "--seed",
                "2",
                "--out",
                path_str(&sig),
            ])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_handler(&mut child);
        // Spread over the run: generating, then writing both files.
        std::thread::sleep(std::time::Duration::from_micros(2_000 * (trial / 2)));
        kill("TERM", &child);
        if trial % 2 == 1 {
            kill("HUP", &child);
        }
        let (status, err) = finish(child);
        assert!(!err.contains("panicked"), "{err}");
        let now = (fs::read(&sig).unwrap(), fs::read(weights_of(&sig)).unwrap());
        if now == (old_edges.clone(), old_weights.clone()) {
            assert_eq!(status.code(), Some(130), "the old pair kept, yet: {err}");
            old_kept += 1;
        } else {
            assert!(
                now == (new_edges.clone(), new_weights.clone()),
                "trial {trial}: a pair of two halves ({status})"
            );
            new_written += 1;
            if status.code() == Some(130) {
                // The second signal came after the renames: said so.
                assert!(err.contains("files were written"), "{err}");
            }
            // Put the old pair back for the next trial.
            fs::write(&sig, &old_edges).unwrap();
            fs::write(weights_of(&sig), &old_weights).unwrap();
        }
        let names = names_in(dir.path());
        assert!(
            names.iter().all(|n| !n.ends_with(".partial")),
            "trial {trial}: {names:?}"
        );
    }
    assert!(
        old_kept > 0,
        "no signal came in time: the test proves nothing"
    );
    let _ = (new_path, new_written);
}

/// Guards the pair against two writers at once (issue 31 §1: 4 of 30
/// tries once left one program's `.pe48` beside the other's `.weights`,
/// of the same length, which every later read accepted). Two `generate
/// --weights` of different seeds into the same pair, again and again: each
/// time the pair is one program's or the other's, whole, and reads.
#[test]
fn two_writers_at_once_leave_one_pair_or_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let (_, a_edges, a_weights) = pair(dir.path(), "a.pe48", 12, 2);
    let (_, b_edges, b_weights) = pair(dir.path(), "b.pe48", 12, 3);
    let both = dir.path().join("both.pe48");
    let writer = |seed: &str| {
        bin()
            .args(["generate", "--quiet", "--weights", "--scale", "12"])
            .args(["--seed", seed, "--out", path_str(&both)])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for trial in 0..30 {
        let (first, second) = (writer("2"), writer("3"));
        for child in [first, second] {
            let (status, err) = finish(child);
            assert!(status.success(), "trial {trial}: {err}");
        }
        let now = (
            fs::read(&both).unwrap(),
            fs::read(weights_of(&both)).unwrap(),
        );
        assert!(
            now == (a_edges.clone(), a_weights.clone())
                || now == (b_edges.clone(), b_weights.clone()),
            "trial {trial}: the pair is halves of two"
        );
    }
    let o = graph500(&[
        "convert",
        path_str(&both),
        path_str(&dir.path().join("c.el")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
