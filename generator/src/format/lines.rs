//! The engine under the line-based formats (text and Matrix Market): the
//! file is mapped, cut into newline-aligned chunks of about 1 MiB, and the
//! chunks are parsed in parallel by a per-format line parser; the tuples are
//! concatenated in file order. The text is never held in memory twice.
//!
//! A line parser sees one line's content (without its `\n` and trailing
//! `\r`s) through a [`Cursor`] and says [`Line::Skip`] or gives a tuple; an
//! error names the line by number and shows it.

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
}

/// The tuples of a parsed text and its largest id (`None` if no tuple).
pub(crate) struct Parsed {
    pub(crate) edges: Vec<Edge>,
    pub(crate) max_id: Option<Vertex>,
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
    let parsed: Vec<Result<Parsed, BadLine>> = chunks
        .par_iter()
        .map(|&(start, end)| {
            parse_chunk(&text[from + start..from + end], from + start, &parse_line)
        })
        .collect();
    let mut parts = Vec::with_capacity(parsed.len());
    let mut max_id = None;
    for part in parsed {
        match part {
            Ok(chunk) => {
                max_id = max_id.max(chunk.max_id);
                parts.push(chunk.edges);
            }
            Err(bad) => return Err(describe(path, text, &bad)),
        }
    }
    let mut edges = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        edges.extend_from_slice(&part);
    }
    Ok(Parsed { edges, max_id })
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
) -> Result<Parsed, BadLine> {
    let mut edges = Vec::with_capacity(chunk.len() / 12);
    let mut max_id = None;
    let mut line_start = 0;
    for line in chunk.split_inclusive(|&b| b == b'\n') {
        let offset = base + line_start;
        line_start += line.len();
        let mut cursor = Cursor::new(line_content(line));
        match parse_line(&mut cursor) {
            Ok(Line::Skip) => {}
            Ok(Line::Edge(e)) => {
                max_id = max_id.max(Some(e.u.max(e.v)));
                edges.push(e);
            }
            Err(why) => return Err(BadLine { offset, why }),
        }
    }
    Ok(Parsed { edges, max_id })
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

/// Formats `edges` as lines `u v` (each id plus `base`), in parallel
/// batches, and hands each batch to `sink` in order.
pub(crate) fn write_lines(
    edges: &[Edge],
    base: u32,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    const LINES_PER_CHUNK: usize = 1 << 15;
    // Four chunks per thread that can run at once: more threads than cores
    // (`--threads` above the core count) would only hold more text in
    // memory, not format it faster.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let batch = LINES_PER_CHUNK * 4 * rayon::current_num_threads().min(cores);
    for lines in edges.chunks(batch) {
        let texts: Vec<Vec<u8>> = lines
            .par_chunks(LINES_PER_CHUNK)
            .map(|chunk| {
                let mut text = Vec::with_capacity(chunk.len() * 16);
                for e in chunk {
                    push_decimal(&mut text, u64::from(e.u) + u64::from(base));
                    text.push(b' ');
                    push_decimal(&mut text, u64::from(e.v) + u64::from(base));
                    text.push(b'\n');
                }
                text
            })
            .collect();
        for text in texts {
            sink(&text)?;
        }
    }
    Ok(())
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
    fn line_content_drops_line_ends_only() {
        assert_eq!(line_content(b"1 2\r\n"), b"1 2");
        assert_eq!(line_content(b"1 2\r\r\n"), b"1 2");
        assert_eq!(line_content(b"1\r2\n"), b"1\r2");
        assert_eq!(line_content(b"1 2"), b"1 2");
    }
}
