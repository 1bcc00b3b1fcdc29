//! The engine under the line-based formats (text and Matrix Market): the
//! file is mapped, cut into newline-aligned chunks of about 1 MiB, and the
//! chunks are parsed in parallel by a per-format line parser; the tuples are
//! concatenated in file order. The text is never held in memory twice.
//!
//! A line parser sees one line's content (without its `\n` and trailing
//! `\r`s) through a [`Cursor`] and says [`Line::Skip`] or gives a tuple,
//! with or without a weight; an error names the line by number and shows
//! it. Either every tuple of a file has a weight or none has: the first
//! line that breaks this rule is an error.

use super::Error;
use crate::{Edge, Vertex};
use rayon::prelude::*;
use std::path::Path;

/// Bytes per parse chunk (rounded up to the next line end).
const CHUNK_BYTES: usize = 1 << 20;

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

/// One chunk's tuples, weights (of its weighted lines) and largest id, and
/// the byte offsets of its first tuple line without and with a weight.
struct Chunk {
    edges: Vec<Edge>,
    weights: Vec<f32>,
    max_id: Option<Vertex>,
    first_plain: Option<usize>,
    first_weighted: Option<usize>,
}

/// A parse failure: the byte offset of the bad line and why it is bad.
struct BadLine {
    offset: usize,
    why: String,
}

/// Parses every line of `text[from..]` (which must start a line) with
/// `parse_line`, in parallel. `path` and the whole `text` serve the error
/// message, which counts lines from the start of the file.
pub(crate) fn parse_lines(
    path: &Path,
    text: &[u8],
    from: usize,
    parse_line: impl Fn(&mut Cursor<'_>) -> Result<Line, String> + Sync,
) -> Result<Parsed, Error> {
    let chunks = line_aligned_chunks(&text[from..], CHUNK_BYTES);
    let parsed: Vec<Result<Chunk, BadLine>> = chunks
        .par_iter()
        .map(|&(start, end)| {
            parse_chunk(&text[from + start..from + end], from + start, &parse_line)
        })
        .collect();
    let mut parts = Vec::with_capacity(parsed.len());
    for part in parsed {
        parts.push(part.map_err(|bad| describe(path, text, &bad))?);
    }
    let weighted =
        weights_everywhere_or_nowhere(&parts).map_err(|bad| describe(path, text, &bad))?;
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
        (Some(p), Some(w)) if p < w => Err(BadLine {
            offset: w,
            why: "a weight, but the edge lines before have none (all or none must have one)".into(),
        }),
        (Some(p), Some(_)) => Err(BadLine {
            offset: p,
            why: "no weight, but the edge lines before have one (all or none must have one)".into(),
        }),
        (_, weighted) => Ok(weighted.is_some()),
    }
}

/// Splits `text` into `(start, end)` ranges of about `target` bytes that
/// each end just after a newline (or at the end of the text).
fn line_aligned_chunks(text: &[u8], target: usize) -> Vec<(usize, usize)> {
    let mut chunks = Vec::with_capacity(text.len() / target + 1);
    let mut start = 0;
    while start < text.len() {
        let nominal = (start + target).min(text.len());
        let end = match text[nominal..].iter().position(|&b| b == b'\n') {
            Some(i) => nominal + i + 1,
            None => text.len(),
        };
        chunks.push((start, end));
        start = end;
    }
    chunks
}

/// Parses whole lines; `base` is the chunk's offset in the file.
fn parse_chunk(
    chunk: &[u8],
    base: usize,
    parse_line: &impl Fn(&mut Cursor<'_>) -> Result<Line, String>,
) -> Result<Chunk, BadLine> {
    let mut out = Chunk {
        edges: Vec::with_capacity(chunk.len() / 12),
        weights: Vec::new(),
        max_id: None,
        first_plain: None,
        first_weighted: None,
    };
    let mut line_start = 0;
    for line in chunk.split_inclusive(|&b| b == b'\n') {
        let offset = base + line_start;
        line_start += line.len();
        let mut cursor = Cursor::new(line_content(line));
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
            Err(why) => return Err(BadLine { offset, why }),
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
            Ok(w) if !w.is_finite() => Err(format!("weight {w} is not finite")),
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

/// The error for a bad line: its number (from 1) and its text.
fn describe(path: &Path, text: &[u8], bad: &BadLine) -> Error {
    let line_number = 1 + text[..bad.offset].iter().filter(|&&b| b == b'\n').count();
    let rest = &text[bad.offset..];
    let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
    let mut shown: String = String::from_utf8_lossy(line)
        .trim_end()
        .chars()
        .take(80)
        .collect();
    if line.len() > 80 {
        shown.push('…');
    }
    Error::format(path, format!("line {line_number}: {}: {shown:?}", bad.why))
}

/// Formats `edges` as lines `u v` (each id plus `base`), or `u v w` with
/// `weights` (the shortest decimal that reads back to the same `f32`), in
/// parallel batches, and hands each batch to `sink` in order.
pub(crate) fn write_lines(
    edges: &[Edge],
    weights: Option<&[f32]>,
    base: u32,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    const LINES_PER_CHUNK: usize = 1 << 15;
    // Four chunks per thread that can run at once: more threads than cores
    // (`--threads` above the core count) would only hold more text in
    // memory, not format it faster.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let batch = LINES_PER_CHUNK * 4 * rayon::current_num_threads().min(cores);
    for (b, lines) in edges.chunks(batch).enumerate() {
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

    #[test]
    fn chunks_end_at_line_ends_and_cover_everything() {
        let text = b"10 11\n12 13\n14 15\n16 17";
        for target in 1..text.len() + 2 {
            let chunks = line_aligned_chunks(text, target);
            assert_eq!(chunks.first().unwrap().0, 0);
            assert_eq!(chunks.last().unwrap().1, text.len());
            for pair in chunks.windows(2) {
                assert_eq!(pair[0].1, pair[1].0);
                assert_eq!(text[pair[0].1 - 1], b'\n');
            }
        }
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
