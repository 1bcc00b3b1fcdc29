//! The engine under the line-based formats (text and Matrix Market): the
//! file is mapped, cut into ranges of 1 MiB, and the ranges are parsed in
//! parallel, each taking the lines that start in it, by a per-format line
//! parser; the tuples are concatenated in file order. The text is never
//! held in memory twice, and no line allocates.
//!
//! A line parser sees one line's content (without its `\n` and trailing
//! `\r`s) through a [`Cursor`] and says [`Line::Skip`] or gives a tuple,
//! with or without a weight; an error names the line by number and shows
//! it. Either every tuple of a file has a weight or none has: the first
//! line that breaks this rule is an error.
//!
//! Before a parser sees a line, comments included, its bytes are checked
//! (`scan.rs`): no control byte but whitespace, at most 1 MiB. So a
//! file that is not text fails at its first bad byte, however large.
//!
//! # Ranges and the first error
//!
//! Range `k` covers bytes `[lo, hi)` and owns the lines that start there:
//! it skips to the first line start at or after `lo` (looking at most one
//! line ahead, from `lo - 1`, under the rules of `scan.rs`), then parses lines
//! while they start before `hi`, the last one running past `hi`. Every
//! error carries its byte offset (a bad byte's own, or a bad line's start),
//! and the read reports the smallest: the one a reader going line by line
//! would report. (A bad byte a range passes while skipping lies in a line
//! an earlier range owns, which reports that byte or an earlier fault.) A
//! range that begins after a fault already found is not read: a bad file
//! costs about one range per worker past its first fault.

use super::Error;
use crate::{Edge, EdgeList, Vertex};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

mod scan;
use scan::line_end_within;
pub(crate) use scan::{MAX_LINE_BYTES, line_end};

/// Bytes per parse range.
const RANGE_BYTES: usize = 1 << 20;

/// What a line holds.
#[derive(Debug)]
pub(crate) enum Line {
    /// A blank line, a comment or anything else without a tuple.
    Skip,
    /// One edge tuple.
    Edge(Edge),
    /// One edge tuple and its weight.
    Weighted(Edge, f32),
}

/// The tuples of a parsed text, their weights if the lines had them, and
/// the largest id (`None` if no tuple).
pub(crate) struct Parsed {
    pub(crate) edges: Vec<Edge>,
    pub(crate) weights: Option<Vec<f32>>,
    pub(crate) max_id: Option<Vertex>,
}

/// One range's tuples, weights (of its weighted lines) and largest id, and
/// the byte offsets of its first tuple line without and with a weight.
#[derive(Default)]
struct Chunk {
    edges: Vec<Edge>,
    weights: Vec<f32>,
    max_id: Option<Vertex>,
    first_plain: Option<usize>,
    first_weighted: Option<usize>,
}

/// A fault of the text: where it is and why it is wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadLine {
    /// Byte offset in the file: of the bad byte if `byte`, else of the
    /// start of the bad line.
    pub(crate) at: usize,
    pub(crate) byte: bool,
    pub(crate) why: String,
}

impl BadLine {
    /// The line starting at byte `start` is wrong.
    pub(crate) fn line(start: usize, why: impl Into<String>) -> Self {
        BadLine {
            at: start,
            byte: false,
            why: why.into(),
        }
    }

    /// Control byte `b`, at byte `at`, is in no text file.
    fn control_byte(at: usize, b: u8) -> Self {
        let nul = if b == 0 { " (NUL)" } else { "" };
        BadLine {
            at,
            byte: true,
            why: format!("control byte 0x{b:02X}{nul}, which no text file holds"),
        }
    }
}

/// The sizes the reader works with: ranges and the longest line (small
/// ones in tests).
#[derive(Clone, Copy)]
struct Limits {
    range: usize,
    line: usize,
}

const LIMITS: Limits = Limits {
    range: RANGE_BYTES,
    line: MAX_LINE_BYTES,
};

/// Parses every line of `text[from..]` (which must start a line) with
/// `parse_line`, in parallel. `path` and the whole `text` serve the error
/// message, which counts lines from the start of the file.
pub(crate) fn parse_lines(
    path: &Path,
    text: &[u8],
    from: usize,
    parse_line: impl Fn(&mut Cursor<'_>) -> Result<Line, String> + Sync,
) -> Result<Parsed, Error> {
    parse_lines_within(text, from, &parse_line, LIMITS).map_err(|bad| describe(path, text, &bad))
}

fn parse_lines_within(
    text: &[u8],
    from: usize,
    parse_line: &(impl Fn(&mut Cursor<'_>) -> Result<Line, String> + Sync),
    limits: Limits,
) -> Result<Parsed, BadLine> {
    let ranges = (text.len() - from).div_ceil(limits.range);
    // The smallest offset of a fault found so far.
    let first_fault = AtomicUsize::new(usize::MAX);
    let parsed: Vec<Result<Chunk, BadLine>> = (0..ranges)
        .into_par_iter()
        .map(|k| {
            let lo = from + k * limits.range;
            let hi = (lo + limits.range).min(text.len());
            // Every fault this range could find is at `lo - 1` or later.
            if lo.saturating_sub(1) > first_fault.load(Relaxed) {
                return Ok(Chunk::default());
            }
            let part = parse_range(text, from, lo..hi, parse_line, limits.line);
            if let Err(bad) = &part {
                first_fault.fetch_min(bad.at, Relaxed);
            }
            part
        })
        .collect();
    let mut parts = Vec::with_capacity(parsed.len());
    let mut first: Option<BadLine> = None;
    for part in parsed {
        match part {
            Ok(part) => parts.push(part),
            Err(bad) if first.as_ref().is_none_or(|f| bad.at < f.at) => first = Some(bad),
            Err(_) => {}
        }
    }
    if let Some(bad) = first {
        return Err(bad);
    }
    let weighted = weights_everywhere_or_nowhere(&parts)?;
    let mut edges = Vec::with_capacity(parts.iter().map(|p| p.edges.len()).sum());
    let mut weights = Vec::with_capacity(if weighted { edges.capacity() } else { 0 });
    let mut max_id = None;
    for part in parts {
        max_id = max_id.max(part.max_id);
        edges.extend_from_slice(&part.edges);
        weights.extend_from_slice(&part.weights);
    }
    let weights = weighted.then_some(weights);
    Ok(Parsed {
        edges,
        weights,
        max_id,
    })
}

/// Whether the tuple lines of `parts` (in file order) have weights: the
/// first tuple line decides, and the first line that differs is an error.
fn weights_everywhere_or_nowhere(parts: &[Chunk]) -> Result<bool, BadLine> {
    let first_of = |pick: fn(&Chunk) -> Option<usize>| parts.iter().find_map(pick);
    let (plain, weighted) = (first_of(|c| c.first_plain), first_of(|c| c.first_weighted));
    match (plain, weighted) {
        (Some(p), Some(w)) if p < w => Err(BadLine::line(
            w,
            "a weight, but the edge lines before have none (all or none must have one)",
        )),
        (Some(p), Some(_)) => Err(BadLine::line(
            p,
            "no weight, but the edge lines before have one (all or none must have one)",
        )),
        (_, weighted) => Ok(weighted.is_some()),
    }
}

/// Parses the lines of `text` that start in `range`: the first one at
/// `from` if the range starts there, else just after the first `\n` at or
/// after `range.start - 1`.
fn parse_range(
    text: &[u8],
    from: usize,
    range: std::ops::Range<usize>,
    parse_line: &impl Fn(&mut Cursor<'_>) -> Result<Line, String>,
    max_line: usize,
) -> Result<Chunk, BadLine> {
    let mut start = if range.start == from {
        from
    } else {
        line_end_within(text, range.start - 1, max_line)? + 1
    };
    let mut out = Chunk {
        edges: Vec::with_capacity(range.end.saturating_sub(start) / 12),
        ..Chunk::default()
    };
    while start < range.end {
        let end = line_end_within(text, start, max_line)?;
        let offset = start;
        start = end + 1;
        let mut cursor = Cursor::new(line_content(&text[offset..end]));
        let edge = match parse_line(&mut cursor) {
            Ok(Line::Skip) => continue,
            Ok(Line::Edge(e)) => {
                out.first_plain.get_or_insert(offset);
                e
            }
            Ok(Line::Weighted(e, w)) => {
                out.first_weighted.get_or_insert(offset);
                out.weights.push(w);
                e
            }
            Err(why) => return Err(BadLine::line(offset, why)),
        };
        out.max_id = out.max_id.max(Some(edge.u.max(edge.v)));
        out.edges.push(edge);
    }
    Ok(out)
}

/// A line without its `\n` and any `\r` just before it.
pub(crate) fn line_content(line: &[u8]) -> &[u8] {
    let mut content = line.strip_suffix(b"\n").unwrap_or(line);
    while let Some(rest) = content.strip_suffix(b"\r") {
        content = rest;
    }
    content
}

/// A position within one line's content.
pub(crate) struct Cursor<'a> {
    line: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Cursor { line, at: 0 }
    }

    /// The next byte, if any.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.line.get(self.at).copied()
    }

    /// True at the end of the line.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.line.len()
    }

    /// Skips whitespace (spaces, tabs, vertical tabs, form feeds); true if
    /// there was any.
    pub(crate) fn skip_blanks(&mut self) -> bool {
        let from = self.at;
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\x0b' | b'\x0c')) {
            self.at += 1;
        }
        self.at > from
    }

    /// A decimal integer of at most `max`.
    pub(crate) fn number(&mut self, max: u64, what: &str) -> Result<u64, String> {
        let from = self.at;
        let mut value: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            value = value * 10 + u64::from(d - b'0');
            if value > max {
                return Err(format!("{what} is too large (at most {max})"));
            }
            self.at += 1;
        }
        if self.at == from {
            return Err(format!("expected {what} (a non-negative decimal integer)"));
        }
        Ok(value)
    }

    /// The next word as an `f32`, any value (`nan`, `inf` and negative
    /// ones included): a Matrix Market `real` entry.
    pub(crate) fn real(&mut self) -> Result<f32, String> {
        let from = self.at;
        self.skip_word();
        let word = &self.line[from..self.at];
        let parsed = std::str::from_utf8(word)
            .ok()
            .and_then(|w| w.parse::<f32>().ok());
        parsed.ok_or_else(|| "expected a number (such as 0.25)".into())
    }

    /// An edge weight: one whitespace-free word that Rust's `f32` parsing
    /// reads (`0.25`, `1e-3`, `.5`), finite, not negative and below 2^64
    /// ([`crate::is_weight`]).
    /// Errors name a weight as the file writes it, not as its `f32`
    /// rounding.
    pub(crate) fn weight(&mut self) -> Result<f32, String> {
        let from = self.at;
        let parsed = self.real();
        let written = || String::from_utf8_lossy(&self.line[from..self.at]);
        match parsed {
            Err(_) => Err("expected a weight (a decimal number such as 0.25)".into()),
            // A finite decimal beyond f32 (1e39) reads as infinity: it is
            // too large, not infinite.
            Ok(w) if w.is_infinite() && w > 0.0 && !names_infinity(&written()) => {
                Err(format!("weight {} is not below 2^64", written()))
            }
            Ok(w) if !w.is_finite() => Err(format!("weight {} is not finite", written())),
            Ok(w) if w < 0.0 => Err(format!("weight {} is negative", written())),
            Ok(w) if !crate::is_weight(w) => Err(format!("weight {} is not below 2^64", written())),
            Ok(w) => Ok(w),
        }
    }

    /// Skips one whitespace-free word; false if there is none.
    pub(crate) fn skip_word(&mut self) -> bool {
        let from = self.at;
        while self
            .peek()
            .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c'))
        {
            self.at += 1;
        }
        self.at > from
    }
}

/// Whether `word` spells infinity itself (`inf`, `+Infinity`), as
/// opposed to a finite decimal too large for an `f32`.
fn names_infinity(word: &str) -> bool {
    let unsigned = word.trim_start_matches(['+', '-']);
    unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity")
}

/// The error for a fault: its line number (from 1), its column (for a
/// bad byte), why, and the line's first 80 characters. Reads the file up
/// to the fault, and at most a line's length beyond it.
pub(crate) fn describe(path: &Path, text: &[u8], bad: &BadLine) -> Error {
    let line_number = 1 + text[..bad.at].iter().filter(|&&b| b == b'\n').count();
    let window = bad.at.saturating_sub(MAX_LINE_BYTES + 1);
    let line_start = text[window..bad.at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(window, |i| window + i + 1);
    // 80 characters are at most 320 bytes of UTF-8.
    let rest = &text[line_start..text.len().min(line_start + 321)];
    let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
    let mut shown: String = String::from_utf8_lossy(line)
        .trim_end()
        .chars()
        .take(80)
        .collect();
    if line.len() > 80 {
        shown.push('…');
    }
    let place = if bad.byte {
        format!("line {line_number}, column {}", bad.at - line_start + 1)
    } else {
        format!("line {line_number}")
    };
    Error::format(path, format!("{place}: {}: {shown:?}", bad.why))
}

/// Formats the tuples of `list` (packed or not) as lines `u v` (each id
/// plus `base`), or `u v w` if it has weights (the shortest decimal that
/// reads back to the same `f32`), in parallel batches, and hands each batch
/// to `sink` in order.
pub(crate) fn write_lines(
    list: &EdgeList,
    base: u32,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    const LINES_PER_CHUNK: usize = 1 << 15;
    // Four chunks per thread that can run at once: more threads than cores
    // (`--threads` above the core count) would only hold more text in
    // memory, not format it faster.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let batch = LINES_PER_CHUNK * 4 * rayon::current_num_threads().min(cores);
    let weights = list.weights();
    for (b, lines) in list.edge_chunks(batch).enumerate() {
        let texts: Vec<Vec<u8>> = lines
            .par_chunks(LINES_PER_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let first = b * batch + c * LINES_PER_CHUNK;
                let weights = weights.map(|w| &w[first..first + chunk.len()]);
                format_lines(chunk, weights, base)
            })
            .collect();
        for text in texts {
            sink(&text)?;
        }
    }
    Ok(())
}

/// The text of `edges` (and their `weights`), one line each.
fn format_lines(edges: &[Edge], weights: Option<&[f32]>, base: u32) -> Vec<u8> {
    let mut text = Vec::with_capacity(edges.len() * if weights.is_some() { 28 } else { 16 });
    for (i, e) in edges.iter().enumerate() {
        push_decimal(&mut text, u64::from(e.u) + u64::from(base));
        text.push(b' ');
        push_decimal(&mut text, u64::from(e.v) + u64::from(base));
        if let Some(w) = weights {
            text.push(b' ');
            push_weight(&mut text, w[i]);
        }
        text.push(b'\n');
    }
    text
}

/// The shortest decimal that Rust's `f32` parsing reads back as `w`
/// (`Display`, never an exponent).
fn push_weight(out: &mut Vec<u8>, w: f32) {
    use std::io::Write;
    write!(out, "{w}").expect("a Vec takes every byte");
}

fn push_decimal(out: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        #[allow(clippy::cast_possible_truncation)] // a digit
        let digit = (x % 10) as u8;
        digits[i] = b'0' + digit;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line parser for these tests: `u v`, blank lines, `#` comments.
    fn pair(cursor: &mut Cursor<'_>) -> Result<Line, String> {
        cursor.skip_blanks();
        if cursor.at_end() || cursor.peek() == Some(b'#') {
            return Ok(Line::Skip);
        }
        let u = cursor.number(1000, "u")?;
        cursor.skip_blanks();
        let v = cursor.number(1000, "v")?;
        cursor.skip_blanks();
        if !cursor.at_end() {
            return Err("expected `u v`".into());
        }
        #[allow(clippy::cast_possible_truncation)] // at most 1000
        Ok(Line::Edge(Edge::new(u as Vertex, v as Vertex)))
    }

    /// `text` parsed with ranges of `range` bytes and lines of at most
    /// `line` bytes: the tuples, or the fault.
    fn parse(text: &[u8], range: usize, line: usize) -> Result<Vec<Edge>, BadLine> {
        parse_lines_within(text, 0, &pair, Limits { range, line }).map(|p| p.edges)
    }

    #[test]
    fn every_line_is_parsed_once_in_order_whatever_the_range_size() {
        let text = b"10 11\n# 1 2\n\n12 13\r\n  14\t15 \r\r\n16 17";
        let expected = [(10, 11), (12, 13), (14, 15), (16, 17)].map(|(u, v)| Edge::new(u, v));
        for range in 1..=text.len() + 1 {
            assert_eq!(parse(text, range, 64).unwrap(), expected, "range {range}");
        }
    }

    #[test]
    fn the_first_fault_is_reported_whatever_the_range_size() {
        let long = |filler: u8| [&b"1 2\n"[..], &[filler; 40], b"\n\x00\n"].concat();
        let cases: [(&[u8], BadLine); 6] = [
            (
                b"0 1\n2 x\n3 \x00\n",
                BadLine::line(4, "expected v (a non-negative decimal integer)"),
            ),
            (b"0 1\n# c\x01mment\n2 x\n", BadLine::control_byte(7, 0x01)),
            (b"0 1\n2 3\x7f\n2 x\n", BadLine::control_byte(7, 0x7f)),
            (b"0 1\n2 3\n\x00", BadLine::control_byte(8, 0x00)),
            (
                &long(b'7'),
                BadLine::line(4, "longer than 32 bytes, the longest line read"),
            ),
            (&long(0x1b), BadLine::control_byte(4, 0x1b)),
        ];
        for (text, expected) in cases {
            for range in 1..=text.len() + 1 {
                let found = parse(text, range, 32).unwrap_err();
                assert_eq!(found, expected, "{text:?}, range {range}");
            }
        }
    }

    #[test]
    fn a_fault_is_named_by_line_and_column_and_shown() {
        let text = b"0 1\n# caf\xc3\xa9 \x1b[0m\n";
        let err = describe(Path::new("g.el"), text, &BadLine::control_byte(14, 0x1b)).to_string();
        assert_eq!(
            err,
            "g.el: line 2, column 11: control byte 0x1B, which no text file holds: \"# café \\u{1b}[0m\""
        );
        let err = describe(Path::new("g.el"), text, &BadLine::line(4, "no")).to_string();
        assert_eq!(err, "g.el: line 2: no: \"# café \\u{1b}[0m\"");
    }

    #[test]
    fn decimal_formatting_matches_display() {
        for x in [0, 7, 10, 99, 12345, u64::from(u32::MAX) + 1] {
            let mut out = Vec::new();
            push_decimal(&mut out, x);
            assert_eq!(String::from_utf8(out).unwrap(), x.to_string());
        }
    }

    #[test]
    fn weights_print_as_the_shortest_decimal_that_reads_back() {
        for w in [0.0f32, 0.5, 0.1, 1.0, 1e-10, 0.999_999_94, 2.5e-7, 123.25] {
            let mut out = Vec::new();
            push_weight(&mut out, w);
            let text = String::from_utf8(out).unwrap();
            assert!(!text.contains('e'), "{text}");
            assert_eq!(
                text.parse::<f32>().unwrap().to_bits(),
                w.to_bits(),
                "{text}"
            );
        }
    }

    #[test]
    fn weights_parse_as_finite_non_negative_floats() {
        let weight = |s: &str| Cursor::new(s.as_bytes()).weight();
        assert_eq!(weight("0.25"), Ok(0.25));
        assert_eq!(weight("1e-3"), Ok(1e-3));
        assert_eq!(weight(".5"), Ok(0.5));
        assert_eq!(weight("7"), Ok(7.0));
        assert!(
            weight("-0.5")
                .unwrap_err()
                .contains("weight -0.5 is negative")
        );
        assert_eq!(weight("-0"), Ok(0.0));
        assert!(weight("inf").unwrap_err().contains("not finite"));
        assert!(weight("NaN").unwrap_err().contains("not finite"));
        assert!(weight("0.5x").unwrap_err().contains("expected a weight"));
        assert!(weight("").unwrap_err().contains("expected a weight"));
    }

    #[test]
    fn a_weight_error_names_the_weight_as_written() {
        let weight = |s: &str| Cursor::new(s.as_bytes()).weight();
        let err = weight("18446744073709551615").unwrap_err();
        assert!(
            err.contains("weight 18446744073709551615 is not below 2^64"),
            "{err}"
        );
        let err = weight("1e39").unwrap_err();
        assert!(err.contains("weight 1e39 is not below 2^64"), "{err}");
        assert!(
            weight("inf")
                .unwrap_err()
                .contains("weight inf is not finite")
        );
        let err = weight("nan").unwrap_err();
        assert!(err.contains("weight nan is not finite"), "{err}");
        let err = weight("-0.10000000000000001").unwrap_err();
        assert!(
            err.contains("weight -0.10000000000000001 is negative"),
            "{err}"
        );
    }

    #[test]
    fn line_content_drops_line_ends_only() {
        assert_eq!(line_content(b"1 2\r\n"), b"1 2");
        assert_eq!(line_content(b"1 2\r\r\n"), b"1 2");
        assert_eq!(line_content(b"1\r2\n"), b"1\r2");
        assert_eq!(line_content(b"1 2"), b"1 2");
    }
}
