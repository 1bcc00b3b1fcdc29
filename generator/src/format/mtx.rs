//! Matrix Market coordinate files (`.mtx`) as edge lists.
//!
//! ```text
//! %%MatrixMarket matrix coordinate pattern symmetric
//! % comments
//! 4 4 3
//! 2 1
//! 3 1
//! 4 3
//! ```
//!
//! The banner must say `matrix coordinate`, with field `pattern`, `integer`
//! (entry values are read past and ignored) or `real` (entry values are the
//! edge weights, as `f32`, when every one is finite, not negative and
//! below 2^64 ([`crate::is_weight`]); a
//! real matrix with another value, negative say, reads without weights, so
//! a BFS still runs on it) and symmetry
//! `general` or `symmetric` (either way each entry is one undirected edge
//! tuple; a symmetric file lists each edge once). A list with weights is
//! written as `real general`, one without as `pattern general`. The size line gives rows,
//! columns and entries; the vertex count is the larger dimension; ids are
//! 1-based in the file and 0-based in graph500. The number of entries must
//! match the size line. Entries are parsed in parallel (`lines.rs`).
//!
//! The file must start with `%%MatrixMarket` (in any case, after blanks at
//! most): that is checked on the first bytes before anything else is read,
//! so a file that is no Matrix Market file fails at once however large.
//! Every line, banner and comments included, is held to the rules of all
//! line-based formats (`lines.rs`): no control byte but whitespace (the
//! first one fails the read, named by line and column), at most 1 MiB.

use super::lines::{
    BadLine, Cursor, Line, MAX_LINE_BYTES, describe, line_content, line_end, parse_lines,
    write_lines,
};
use super::{in_file, map, open_regular};
use crate::{Edge, EdgeList, Error, MAX_VERTICES, Vertex};
use std::io::Write;
use std::path::Path;

/// What the banner and size line say.
#[derive(Debug)]
struct Header {
    /// What follows an entry's two indices.
    value: Value,
    rows: u64,
    columns: u64,
    entries: u64,
}

/// What an entry carries after its indices, by the banner's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// `pattern`: nothing.
    None,
    /// `integer`: a value, read past.
    Ignored,
    /// `real`: the edge's weight.
    Weight,
}

/// Reads a Matrix Market coordinate file, with weights if its field is
/// `real`.
pub fn read(path: &Path) -> Result<EdgeList, Error> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(Error::format(
            path,
            "empty file: a Matrix Market file starts with a %%MatrixMarket line",
        ));
    }
    let map = map(&file, path)?;
    let text: &[u8] = &map;
    let (header, body) = header(text).map_err(|bad| describe(path, text, &bad))?;
    let parsed = parse_lines(path, text, body, |cursor| entry(cursor, &header))?;
    if parsed.edges.len() as u64 != header.entries {
        return Err(Error::format(
            path,
            format!(
                "the size line announces {} entries but the file has {}",
                header.entries,
                parsed.edges.len()
            ),
        ));
    }
    let list =
        EdgeList::new(header.rows.max(header.columns), parsed.edges).map_err(in_file(path))?;
    // A real file's values, all of them valid weights (also none at all).
    let weights = (header.value == Value::Weight).then(|| parsed.weights.unwrap_or_default());
    match weights {
        Some(weights) if weights.iter().all(|&w| crate::is_weight(w)) => {
            list.with_weights(weights).map_err(in_file(path))
        }
        _ => Ok(list),
    }
}

/// Encodes `edges` onto `out` as a `pattern general` coordinate file, or
/// `real general` with the weights as values if the list has them.
pub fn write(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    let n = edges.num_vertices();
    let field = if edges.weights().is_some() {
        "real"
    } else {
        "pattern"
    };
    writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
    writeln!(
        out,
        "% written by graph500: one entry per edge tuple, 1-based vertex ids"
    )?;
    writeln!(out, "{n} {n} {}", edges.len())?;
    write_lines(edges, 1, |text| out.write_all(text))
}

/// The banner's first word, in any case.
const BANNER: &[u8] = b"%%MatrixMarket";

/// Parses the banner, comments and size line; returns them and the byte
/// offset where the entries start. Looks at the banner's first bytes
/// before anything else.
fn header(text: &[u8]) -> Result<(Header, usize), BadLine> {
    let blanks = text
        .iter()
        .take(MAX_LINE_BYTES)
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r'))
        .count();
    if !text[blanks..]
        .get(..BANNER.len())
        .is_some_and(|word| word.eq_ignore_ascii_case(BANNER))
    {
        return Err(BadLine::line(
            0,
            "not a Matrix Market file: the first line must start with %%MatrixMarket",
        ));
    }
    let banner_end = line_end(text, 0)?;
    let banner = String::from_utf8_lossy(line_content(&text[..banner_end])).to_ascii_lowercase();
    let value = banner_value(&banner).map_err(|why| BadLine::line(0, why))?;
    let mut start = banner_end + 1;
    while start < text.len() {
        let end = line_end(text, start)?;
        let mut cursor = Cursor::new(line_content(&text[start..end]));
        cursor.skip_blanks();
        if cursor.at_end() || cursor.peek() == Some(b'%') {
            start = end + 1;
            continue;
        }
        let mut size = || -> Result<(u64, u64, u64), String> {
            let rows = cursor.number(u64::MAX / 16, "a row count")?;
            cursor.skip_blanks();
            let columns = cursor.number(u64::MAX / 16, "a column count")?;
            cursor.skip_blanks();
            let entries = cursor.number(u64::MAX / 16, "an entry count")?;
            cursor.skip_blanks();
            if !cursor.at_end() {
                return Err("expected the size line `rows columns entries`".into());
            }
            Ok((rows, columns, entries))
        };
        let (rows, columns, entries) = size().map_err(|why| BadLine::line(start, why))?;
        if rows.max(columns) > MAX_VERTICES {
            return Err(BadLine::line(
                start,
                format!(
                    "{} vertices is more than the {MAX_VERTICES} this build supports",
                    rows.max(columns)
                ),
            ));
        }
        let header = Header {
            value,
            rows,
            columns,
            entries,
        };
        return Ok((header, (end + 1).min(text.len())));
    }
    Err(BadLine::line(0, "no size line after the banner"))
}

/// What the entries carry, from the banner (lowercase):
/// `%%matrixmarket matrix coordinate <field> <symmetry>`.
fn banner_value(banner: &str) -> Result<Value, String> {
    let words: Vec<&str> = banner.split_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") {
        return Err(
            "not a Matrix Market file: the first line must start with %%MatrixMarket".into(),
        );
    }
    match words[1..] {
        ["matrix", "coordinate", field, symmetry] => {
            let value = match field {
                "pattern" => Value::None,
                "integer" => Value::Ignored,
                "real" => Value::Weight,
                other => {
                    return Err(format!(
                        "field {other:?} is not supported (pattern, integer or real)"
                    ));
                }
            };
            if !matches!(symmetry, "general" | "symmetric") {
                return Err(format!(
                    "symmetry {symmetry:?} is not supported (general or symmetric)"
                ));
            }
            Ok(value)
        }
        ["matrix", "array", ..] => {
            Err("an array (dense) file holds no graph: use coordinate".into())
        }
        _ => Err("expected `%%MatrixMarket matrix coordinate <field> <symmetry>`".into()),
    }
}

/// One entry line: `i j` or `i j value`, 1-based, within the dimensions;
/// a `real` value is the edge's weight.
fn entry(cursor: &mut Cursor<'_>, header: &Header) -> Result<Line, String> {
    cursor.skip_blanks();
    if cursor.at_end() || cursor.peek() == Some(b'%') {
        return Ok(Line::Skip);
    }
    let u = index(cursor, header.rows, Axis::Row)?;
    if !cursor.skip_blanks() {
        return Err("expected whitespace after the row index".into());
    }
    let v = index(cursor, header.columns, Axis::Column)?;
    let edge = Edge::new(u, v);
    let blank = cursor.skip_blanks();
    let has_value = header.value != Value::None;
    if has_value && (!blank || cursor.at_end()) {
        return Err("expected a value after the two indices".into());
    }
    let line = match header.value {
        Value::None => Line::Edge(edge),
        Value::Ignored => {
            cursor.skip_word();
            Line::Edge(edge)
        }
        Value::Weight => Line::Weighted(edge, cursor.real()?),
    };
    cursor.skip_blanks();
    if !cursor.at_end() {
        return Err(if has_value {
            "expected `row column value`"
        } else {
            "expected `row column`"
        }
        .into());
    }
    Ok(line)
}

/// Which index of an entry.
#[derive(Clone, Copy)]
enum Axis {
    Row,
    Column,
}

impl Axis {
    /// As an error message names it. Static: an entry parses without
    /// allocating (docs/history-kernels.md#mtx).
    fn index_name(self) -> &'static str {
        match self {
            Axis::Row => "a row index",
            Axis::Column => "a column index",
        }
    }
}

/// A 1-based index in `1..=limit`, as a 0-based vertex.
fn index(cursor: &mut Cursor<'_>, limit: u64, axis: Axis) -> Result<Vertex, String> {
    let what = axis.index_name();
    let i = cursor.number(limit, what)?;
    if i == 0 {
        return Err(format!("{what} is 0: Matrix Market indices start at 1"));
    }
    Ok(Vertex::try_from(i - 1).expect("limit <= MAX_VERTICES"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_variants() {
        let ok = |banner: &str| header(format!("{banner}\n% c\n\n3 4 2\n1 1\n").as_bytes());
        let (h, body) = ok("%%MatrixMarket matrix coordinate pattern symmetric").unwrap();
        assert_eq!(
            (h.value, h.rows, h.columns, h.entries),
            (Value::None, 3, 4, 2)
        );
        assert_eq!(
            body,
            "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n\n3 4 2\n".len()
        );
        assert_eq!(
            ok("%%MatrixMarket matrix coordinate real general")
                .unwrap()
                .0
                .value,
            Value::Weight
        );
        assert_eq!(
            ok("%%matrixmarket MATRIX Coordinate INTEGER General")
                .unwrap()
                .0
                .value,
            Value::Ignored
        );
        assert!(
            ok("%%MatrixMarket matrix coordinate complex general")
                .unwrap_err()
                .why
                .contains("complex")
        );
        assert!(
            ok("%%MatrixMarket matrix coordinate real hermitian")
                .unwrap_err()
                .why
                .contains("hermitian")
        );
        assert!(
            ok("%%MatrixMarket matrix array real general")
                .unwrap_err()
                .why
                .contains("array")
        );
        assert!(
            ok("% not a banner")
                .unwrap_err()
                .why
                .contains("not a Matrix Market")
        );
    }

    #[test]
    fn the_banner_is_checked_on_the_first_bytes() {
        let not_mtx = |text: &[u8]| {
            let bad = header(text).unwrap_err();
            (bad.at, bad.why.contains("must start with %%MatrixMarket"))
        };
        assert_eq!(not_mtx(&[0u8; 4096]), (0, true));
        assert_eq!(not_mtx(b"%%MatrixMarke"), (0, true));
        assert_eq!(
            not_mtx(b"% %%MatrixMarket matrix coordinate pattern general\n1 1 0\n"),
            (0, true)
        );
        let text = b" \t%%MATRIXMARKET matrix coordinate pattern general\r\n1 1 0\n";
        assert_eq!(
            header(text).unwrap().1,
            text.len(),
            "blanks before the banner"
        );
        // After the banner's first word, bytes are checked as on any line.
        let bad = header(b"%%MatrixMarket\x00 matrix").unwrap_err();
        assert_eq!((bad.at, bad.byte), (14, true));
        let bad = header(b"%%MatrixMarket matrix coordinate real general\n% \x7f\n").unwrap_err();
        assert_eq!((bad.at, bad.byte), (48, true));
    }

    #[test]
    fn entries_are_one_based_and_bounded() {
        let h = Header {
            value: Value::Ignored,
            rows: 3,
            columns: 3,
            entries: 1,
        };
        let parse = |line: &str| entry(&mut Cursor::new(line.as_bytes()), &h);
        assert!(matches!(parse("3 1 2.5"), Ok(Line::Edge(e)) if e == Edge::new(2, 0)));
        assert!(matches!(parse("3 1 -7"), Ok(Line::Edge(_))));
        assert!(parse("0 1 1").unwrap_err().contains("start at 1"));
        assert!(parse("4 1 1").unwrap_err().contains("too large"));
        assert!(parse("1 2").unwrap_err().contains("value"));
        assert!(parse("1 2 3 4").is_err());
        // Found by the property test: fields need whitespace between them.
        assert!(parse("1 1\r0").is_err());
        assert!(parse("1\t2\t0.5").is_ok());
        assert!(matches!(parse("% comment"), Ok(Line::Skip)));
    }

    #[test]
    fn real_values_are_weights() {
        let h = Header {
            value: Value::Weight,
            rows: 3,
            columns: 3,
            entries: 1,
        };
        let parse = |line: &str| entry(&mut Cursor::new(line.as_bytes()), &h);
        assert!(
            matches!(parse("3 1 2.5"), Ok(Line::Weighted(e, w)) if e == Edge::new(2, 0) && w == 2.5)
        );
        assert!(matches!(parse("1 1 1e-3 "), Ok(Line::Weighted(_, w)) if w == 1e-3));
        // Any number parses; whether the values are weights is decided
        // for the whole file.
        assert!(matches!(parse("1 2 -0.5"), Ok(Line::Weighted(_, w)) if w == -0.5));
        assert!(matches!(parse("1 2 nan"), Ok(Line::Weighted(_, w)) if w.is_nan()));
        assert!(parse("1 2 1,5").unwrap_err().contains("expected a number"));
        assert!(parse("1 2").unwrap_err().contains("value"));
        assert!(parse("1 2 ").unwrap_err().contains("value"));
        assert!(parse("1 2 0.5 1").unwrap_err().contains("row column value"));
    }
}
