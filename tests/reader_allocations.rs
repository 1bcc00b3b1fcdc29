//! The line-based readers (text and Matrix Market) allocate per chunk of
//! the file, never per line, and a huge bad file costs them little before
//! they fail. Regression guards: formatting one error-message string per
//! Matrix Market entry once made that reader 2.7x slower than the text
//! reader on a 1.3e8-tuple file; a 3 GB file of zero bytes once cost 6.3
//! GB of memory and 19 s before its `.mtx` read failed (issue 31). Runs
//! under the counting global allocator, which sees every thread of the
//! process: the tests of this binary take turns (`one_at_a_time`).

use generator::format::EdgeFormat;
use harness::alloc_count::{CountingAllocator, count_allocations, is_counting_installed};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Held by each test for its whole run, so no other test allocates or
/// touches memory while one counts.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn line_readers_do_not_allocate_per_line() {
    let _turn = one_at_a_time();
    assert!(is_counting_installed());
    let lines = 200_000u32;
    let mut text = String::from("# a comment\n");
    let mut mtx =
        format!("%%MatrixMarket matrix coordinate integer symmetric\n1000 1000 {lines}\n");
    for i in 0..lines {
        let (u, v) = (i % 1000, (i * 7) % 1000);
        writeln!(text, "{u}\t{v}").unwrap();
        writeln!(mtx, "{} {} {i}", u + 1, v + 1).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, contents, format) in [
        ("g.el", text, EdgeFormat::Text),
        ("g.mtx", mtx, EdgeFormat::MatrixMarket),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, contents).unwrap();
        let (edges, allocated) = count_allocations(|| format.read(&path).unwrap());
        assert_eq!(edges.len(), lines as usize);
        assert!(
            allocated.allocations < 1_000,
            "{name}: {} allocations for {lines} lines",
            allocated.allocations
        );
    }
}

/// What follows the first bytes of a hostile file.
enum Rest {
    /// 256 MiB of zero bytes (a sparse file: no disk, reads as zeros).
    Zeros,
    /// 64 MiB of this byte, no line end among them.
    Repeated(u8),
    /// This line again and again, 64 MiB of them.
    Lines(&'static str),
}

/// Writes `head` and then `rest` to `path`.
fn hostile_file(path: &Path, head: &[u8], rest: &Rest) {
    let file = std::fs::File::create(path).unwrap();
    let mut out = std::io::BufWriter::new(&file);
    out.write_all(head).unwrap();
    let piece: Vec<u8> = match rest {
        Rest::Zeros => Vec::new(),
        Rest::Repeated(b) => vec![*b; 1 << 20],
        Rest::Lines(line) => line.as_bytes().repeat((1 << 20) / line.len()),
    };
    if !piece.is_empty() {
        for _ in 0..64 {
            out.write_all(&piece).unwrap();
        }
    }
    out.flush().unwrap();
    drop(out);
    if matches!(rest, Rest::Zeros) {
        file.set_len(head.len() as u64 + (256 << 20)).unwrap();
    }
}

/// The process's resident memory now and at its peak since the peak was
/// last reset, in bytes; `None` where `/proc/self/status` has no such
/// lines (not Linux).
fn resident() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        let value = line[key.len()..].trim().trim_end_matches("kB").trim();
        Some(value.parse::<u64>().ok()? << 10)
    };
    Some((kib("VmRSS:")?, kib("VmHWM:")?))
}

/// Resets the peak of [`resident`] to the memory resident now; false if
/// the kernel does not allow it (then the peak cannot be measured).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Reading a file of hundreds of MiB whose first lines already show it is
/// not text, or not this format, fails there, having allocated little and
/// touched few of its pages (they count as resident memory while the file
/// is mapped): what is rejected is a byte or a line, not the file.
#[test]
fn a_huge_bad_file_fails_at_its_first_bad_line_cheaply() {
    const BUDGET: u64 = 16 << 20;
    let _turn = one_at_a_time();
    assert!(is_counting_installed());
    let banner = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    let cases: [(&str, &str, Rest, &[&str]); 6] = [
        ("zeros.mtx", "", Rest::Zeros, &["line 1", "%%MatrixMarket"]),
        (
            "zeros.el",
            "0 1\n",
            Rest::Zeros,
            &["line 2, column 1", "0x00"],
        ),
        (
            "zeros-in-entries.mtx",
            banner,
            Rest::Zeros,
            &["line 4, column 1", "0x00"],
        ),
        (
            "zeros-in-comment.el",
            "0 1\n# then ",
            Rest::Zeros,
            &["line 2, column 8", "0x00"],
        ),
        (
            "long-line.el",
            "0 1\n",
            Rest::Repeated(b'x'),
            &["line 2", "longer than"],
        ),
        (
            "bad-first-line.el",
            "0 x\n",
            Rest::Lines("1 2\n"),
            &["line 1", "\"0 x\""],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    // Two workers, whatever the machine: each may read ahead one range
    // of the file (1 MiB) before it sees that an earlier one failed.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut problems = Vec::new();
    for (name, head, rest, expected) in cases {
        let path = dir.path().join(name);
        hostile_file(&path, head.as_bytes(), &rest);
        let peak_measured = reset_peak();
        let before = resident();
        let (result, allocated) =
            count_allocations(|| pool.install(|| EdgeFormat::for_path(&path).read(&path)));
        let after = resident();
        std::fs::remove_file(&path).unwrap();
        let err = match result {
            Ok(_) => {
                problems.push(format!("{name}: read without an error"));
                continue;
            }
            Err(e) => e.to_string(),
        };
        for part in expected.iter().chain([&name]) {
            if !err.contains(part) {
                problems.push(format!("{name}: {part:?} not in {err}"));
            }
        }
        if allocated.bytes >= BUDGET {
            let mib = allocated.bytes >> 20;
            problems.push(format!("{name}: {mib} MiB allocated before failing"));
        }
        if let (true, Some((rss, _)), Some((_, peak))) = (peak_measured, before, after) {
            let grown = peak.saturating_sub(rss) >> 20;
            if grown >= BUDGET >> 20 {
                problems.push(format!("{name}: resident memory grew by {grown} MiB"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
