//! The line-based readers (text and Matrix Market) allocate per chunk of
//! the file, never per line: a regression guard, since formatting one
//! error-message string per Matrix Market entry once made that reader 2.7x
//! slower than the text reader on a 1.3e8-tuple file. Runs under the
//! counting global allocator (this binary's only test, so no other test
//! thread allocates meanwhile).

use generator::format::EdgeFormat;
use harness::alloc_count::{CountingAllocator, count_allocations, is_counting_installed};
use std::fmt::Write as _;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn line_readers_do_not_allocate_per_line() {
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
