//! The text edge-list format (SNAP style): one edge per line, two decimal
//! vertex ids separated by whitespace, and optionally a third column, the
//! edge's weight (a decimal number such as `0.25` or `1e-3`, finite and not
//! negative). Either every edge line has a weight or none does.
//!
//! Blank lines and lines whose first word starts with `#` or `%` are
//! skipped; `\r\n` line ends are accepted. The vertex count is the largest
//! id plus one. Anything else on a line is an error that names the line
//! number and shows the line. Parsed in parallel (`lines.rs`).
//!
//! Every line, comments included, is held to the rules of all line-based
//! formats (`lines.rs`): no control byte but whitespace (so no NUL: the
//! first one fails the read, named by line and column) and at most 1 MiB
//! before its `\n`. Comments may hold any other byte, UTF-8 or not.

use super::lines::{Cursor, Line, parse_lines, write_lines};
use super::{in_file, map, open_regular};
use crate::{Edge, EdgeList, Error, MAX_VERTICES, Vertex};
use std::io::Write;
use std::path::Path;

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
    let parsed = parse_lines(path, &map, 0, parse_line)?;
    let Some(max_id) = parsed.max_id else {
        return Err(Error::format(
            path,
            "no edges: every line is blank or a comment",
        ));
    };
    let list = EdgeList::new(u64::from(max_id) + 1, parsed.edges).map_err(in_file(path))?;
    match parsed.weights {
        Some(weights) => list.with_weights(weights).map_err(in_file(path)),
        None => Ok(list),
    }
}

/// Encodes `edges` onto `out` as text, one `u v` line per tuple, or
/// `u v w` if the list has weights.
pub fn write(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    write_lines(edges, 0, |text| out.write_all(text))
}

/// One line: nothing, a comment, or two vertex ids and maybe a weight.
fn parse_line(cursor: &mut Cursor<'_>) -> Result<Line, String> {
    cursor.skip_blanks();
    if cursor.at_end() || matches!(cursor.peek(), Some(b'#' | b'%')) {
        return Ok(Line::Skip);
    }
    let u = vertex(cursor)?;
    if !cursor.skip_blanks() {
        return Err("expected two vertex ids separated by whitespace".into());
    }
    let v = vertex(cursor)?;
    let edge = Edge::new(u, v);
    let blank = cursor.skip_blanks();
    if cursor.at_end() {
        return Ok(Line::Edge(edge));
    }
    if !blank {
        return Err(
            "expected two vertex ids and an optional weight, separated by whitespace".into(),
        );
    }
    let weight = cursor.weight()?;
    cursor.skip_blanks();
    if !cursor.at_end() {
        return Err("expected two vertex ids and at most a weight".into());
    }
    Ok(Line::Weighted(edge, weight))
}

fn vertex(cursor: &mut Cursor<'_>) -> Result<Vertex, String> {
    let id = cursor.number(MAX_VERTICES - 1, "a vertex id")?;
    Ok(Vertex::try_from(id).expect("below MAX_VERTICES"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<(u32, u32)>, String> {
        Ok(parse_weighted(text)?
            .into_iter()
            .map(|(u, v, _)| (u, v))
            .collect())
    }

    fn parse_weighted(text: &str) -> Result<Vec<(u32, u32, Option<f32>)>, String> {
        let mut out = Vec::new();
        for line in text.split_inclusive('\n') {
            let mut cursor = Cursor::new(super::super::lines::line_content(line.as_bytes()));
            match parse_line(&mut cursor)? {
                Line::Skip => {}
                Line::Edge(e) => out.push((e.u, e.v, None)),
                Line::Weighted(e, w) => out.push((e.u, e.v, Some(w))),
            }
        }
        Ok(out)
    }

    #[test]
    fn parses_pairs_comments_blanks_tabs_and_crlf() {
        let text = "# comment\n0 1\n\n% also\n  2\t3  \r\n4 5";
        assert_eq!(parse(text), Ok(vec![(0, 1), (2, 3), (4, 5)]));
    }

    #[test]
    fn rejects_malformed_lines() {
        assert!(parse("1\n").unwrap_err().contains("two vertex ids"));
        assert!(parse("1 2 3 4\n").unwrap_err().contains("at most a weight"));
        assert!(parse("1 2 x\n").unwrap_err().contains("expected a weight"));
        assert!(parse("1 2 -1\n").unwrap_err().contains("negative"));
        assert!(parse("1 x\n").is_err());
        assert!(parse("-1 2\n").is_err());
        assert!(parse("4294967295 0\n").unwrap_err().contains("too large"));
        assert_eq!(parse("4294967294 0\n"), Ok(vec![(4_294_967_294, 0)]));
    }

    #[test]
    fn a_third_column_is_the_weight() {
        let text = "0 1 0.5\n# c\n2\t3\t1e-3 \r\n4 5 7";
        assert_eq!(
            parse_weighted(text),
            Ok(vec![
                (0, 1, Some(0.5)),
                (2, 3, Some(1e-3)),
                (4, 5, Some(7.0))
            ])
        );
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_not_a_line_end() {
        // Found by the property test of the readers: "4 0\r0" was read as
        // the tuple (4, 0).
        assert!(parse("4 0\r0\n").is_err());
        assert!(parse("1\r2\n").is_err());
        assert_eq!(parse("4 0\r\r\n"), Ok(vec![(4, 0)]));
    }
}
