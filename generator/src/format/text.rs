//! The text edge-list format: one edge per line, two decimal vertex ids
//! separated by spaces or tabs.
//!
//! Blank lines and lines starting with `#` or `%` are skipped; `\r\n` line
//! ends are accepted. The vertex count is the largest id plus one. Anything
//! else on a line is an error that names the line number and shows the line.
//!
//! Reading maps the file and parses newline-aligned chunks in parallel, so
//! the text is never held in memory twice; each chunk's tuples are then
//! concatenated in file order.

use super::{in_file, map, open_regular, write_atomic};
use crate::{Edge, EdgeList, Error, MAX_VERTICES, Vertex};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Bytes per parse chunk (rounded up to the next line end).
const CHUNK_BYTES: usize = 1 << 20;

/// The tuples of one chunk and its largest id (`None` if it has no tuple).
struct ParsedChunk {
    edges: Vec<Edge>,
    max_id: Option<Vertex>,
}

/// A parse failure: the byte offset of the bad line and why it is bad.
struct BadLine {
    offset: usize,
    why: &'static str,
}

/// Reads a text edge list.
pub fn read(path: &Path) -> Result<EdgeList, Error> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(Error::format(
            path,
            "empty file: a text edge list needs at least one `u v` line",
        ));
    }
    let map = map(&file, path)?;
    let text: &[u8] = &map;
    let chunks = line_aligned_chunks(text, CHUNK_BYTES);
    let parsed: Vec<Result<ParsedChunk, BadLine>> = chunks
        .par_iter()
        .map(|&(start, end)| parse_chunk(&text[start..end], start))
        .collect();
    let mut edges = Vec::new();
    let mut max_id: Option<Vertex> = None;
    let mut parts = Vec::with_capacity(parsed.len());
    for part in parsed {
        match part {
            Ok(chunk) => {
                max_id = max_id.max(chunk.max_id);
                parts.push(chunk.edges);
            }
            Err(bad) => return Err(describe(path, text, &bad)),
        }
    }
    let Some(max_id) = max_id else {
        return Err(Error::format(
            path,
            "no edges: every line is blank or a comment",
        ));
    };
    edges.reserve_exact(parts.iter().map(Vec::len).sum());
    for part in parts {
        edges.extend_from_slice(&part);
    }
    EdgeList::new(u64::from(max_id) + 1, edges).map_err(in_file(path))
}

/// Writes `edges` as text, one `u v` line per tuple, atomically. Lines are
/// formatted in parallel, a batch of chunks at a time.
pub fn write(path: &Path, edges: &EdgeList) -> Result<(), Error> {
    const LINES_PER_CHUNK: usize = 1 << 15;
    let batch = LINES_PER_CHUNK * 4 * rayon::current_num_threads();
    write_atomic(path, |out| {
        for lines in edges.edges().chunks(batch) {
            let texts: Vec<Vec<u8>> = lines
                .par_chunks(LINES_PER_CHUNK)
                .map(format_lines)
                .collect();
            for text in texts {
                out.write_all(&text)?;
            }
        }
        Ok(())
    })
}

/// `u v\n` for each edge.
fn format_lines(edges: &[Edge]) -> Vec<u8> {
    let mut text = Vec::with_capacity(edges.len() * 16);
    for e in edges {
        push_decimal(&mut text, e.u);
        text.push(b' ');
        push_decimal(&mut text, e.v);
        text.push(b'\n');
    }
    text
}

fn push_decimal(out: &mut Vec<u8>, mut x: u32) {
    let mut digits = [0u8; 10];
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
fn parse_chunk(chunk: &[u8], base: usize) -> Result<ParsedChunk, BadLine> {
    let mut edges = Vec::with_capacity(chunk.len() / 12);
    let mut max_id = None;
    let mut line_start = 0;
    for line in chunk.split_inclusive(|&b| b == b'\n') {
        let offset = base + line_start;
        let bad = |why| BadLine { offset, why };
        line_start += line.len();
        let mut cursor = Cursor {
            line: line_content(line),
            at: 0,
        };
        cursor.skip_blanks();
        if matches!(cursor.peek(), None | Some(b'#' | b'%')) {
            continue;
        }
        let u = cursor.vertex().map_err(bad)?;
        if !cursor.skip_blanks() {
            return Err(bad("expected two vertex ids separated by a space or tab"));
        }
        let v = cursor.vertex().map_err(bad)?;
        cursor.skip_blanks();
        if cursor.peek().is_some() {
            return Err(bad("expected exactly two vertex ids"));
        }
        edges.push(Edge::new(u, v));
        max_id = max_id.max(Some(u.max(v)));
    }
    Ok(ParsedChunk { edges, max_id })
}

/// A line without its `\n` and any `\r` just before it.
fn line_content(line: &[u8]) -> &[u8] {
    let mut content = line.strip_suffix(b"\n").unwrap_or(line);
    while let Some(rest) = content.strip_suffix(b"\r") {
        content = rest;
    }
    content
}

/// A position within one line.
struct Cursor<'a> {
    line: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.line.get(self.at).copied()
    }

    /// Skips spaces and tabs; true if there were any.
    fn skip_blanks(&mut self) -> bool {
        let from = self.at;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        self.at > from
    }

    /// A decimal vertex id below [`MAX_VERTICES`].
    fn vertex(&mut self) -> Result<Vertex, &'static str> {
        let from = self.at;
        let mut value: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            value = value * 10 + u64::from(d - b'0');
            if value >= MAX_VERTICES {
                return Err("vertex id too large (ids must be below 4294967295)");
            }
            self.at += 1;
        }
        if self.at == from {
            return Err("expected a vertex id (a non-negative decimal integer)");
        }
        Ok(Vertex::try_from(value).expect("checked against MAX_VERTICES"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<(u32, u32)>, (usize, &'static str)> {
        parse_chunk(text.as_bytes(), 0)
            .map(|c| c.edges.iter().map(|e| (e.u, e.v)).collect())
            .map_err(|b| (b.offset, b.why))
    }

    #[test]
    fn parses_pairs_comments_blanks_tabs_and_crlf() {
        let text = "# comment\n0 1\n\n% also\n  2\t3  \r\n4 5";
        assert_eq!(parse(text), Ok(vec![(0, 1), (2, 3), (4, 5)]));
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_not_a_line_end() {
        // Found by the property test of the readers: "4 0\r0" was read as
        // the tuple (4, 0).
        assert!(parse("4 0\r0\n").is_err());
        assert!(parse("1\r2\n").is_err());
        assert_eq!(parse("4 0\r\r\n"), Ok(vec![(4, 0)]));
    }

    #[test]
    fn rejects_malformed_lines_at_their_offset() {
        assert_eq!(parse("0 1\n1 x\n").unwrap_err().0, 4);
        assert!(parse("1\n").unwrap_err().1.contains("two vertex ids"));
        assert!(parse("1 2 3\n").unwrap_err().1.contains("exactly two"));
        assert!(parse("-1 2\n").is_err());
        assert!(parse("4294967295 0\n").unwrap_err().1.contains("too large"));
        assert_eq!(parse("4294967294 0\n"), Ok(vec![(4_294_967_294, 0)]));
    }

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
        for x in [0, 7, 10, 99, 12345, u32::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, x);
            assert_eq!(String::from_utf8(out).unwrap(), x.to_string());
        }
    }
}
