//! Every reader, fed random and corrupted bytes, gives a clean error or the
//! right graph (weights included), and never panics. "Right" is decided by
//! reference decoders written here from the format descriptions,
//! independently of the readers.

#![allow(clippy::cast_possible_truncation)] // small test files, 64-bit hosts

use generator::format::{EdgeFormat, binary, packed48, read_edge_list};
use generator::{Edge, EdgeList, MAX_VERTICES};
use proptest::prelude::*;
use std::path::PathBuf;

/// Writes `bytes` to a fresh file named `name` and returns its path (the
/// folder lives as long as the returned guard).
fn file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// What a file holds, as the decoders below see it: `N`, the tuples, and
/// the weights' bit patterns if it has weights.
type Graph = (u64, Vec<(u64, u64)>, Option<Vec<u32>>);

/// A weight as the formats allow it: finite, not below zero and below
/// 2^64.
fn allowed(w: f32) -> bool {
    w.is_finite() && w >= 0.0 && w < 2f32.powi(64)
}

/// `M` little-endian `f32`s from `bytes`, as bit patterns, if all allowed.
fn weights_of(bytes: &[u8]) -> Option<Vec<u32>> {
    let weights: Vec<f32> = bytes
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    weights
        .iter()
        .all(|&w| allowed(w))
        .then(|| weights.iter().map(|w| w.to_bits()).collect())
}

/// The binary format, decoded by the book: `Some(graph)` or `None`.
fn reference_binary(bytes: &[u8]) -> Option<Graph> {
    let word = |at: usize, width: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(&bytes[at..at + width]);
        u64::from_le_bytes(b)
    };
    if bytes.len() < 32 || &bytes[..8] != b"G500EDGE" || !matches!(word(8, 4), 1 | 2) {
        return None;
    }
    let weighted = word(8, 4) == 2;
    let width = word(12, 4);
    if width != 4 && width != 8 {
        return None;
    }
    let (n, m) = (word(16, 8), word(24, 8));
    let per_tuple = 2 * width + if weighted { 4 } else { 0 };
    let expected = m.checked_mul(per_tuple)?.checked_add(32)?;
    if expected != bytes.len() as u64 || n > MAX_VERTICES {
        return None;
    }
    let width = width as usize;
    let tuples: Vec<(u64, u64)> = (0..m as usize)
        .map(|i| {
            (
                word(32 + 2 * i * width, width),
                word(32 + (2 * i + 1) * width, width),
            )
        })
        .collect();
    if !tuples.iter().all(|&(u, v)| u < n && v < n) {
        return None;
    }
    let weights_at = 32 + m as usize * 2 * width;
    let weights = if weighted {
        Some(weights_of(&bytes[weights_at..])?)
    } else {
        None
    };
    Some((n, tuples, weights))
}

/// An ASCII control byte other than tab, line feed, vertical tab, form
/// feed and carriage return: never in a text file.
fn control_but_whitespace(b: u8) -> bool {
    (b < 0x20 && !(0x09..=0x0d).contains(&b)) || b == 0x7f
}

/// The text format, decoded by the book: lines end at `\n` (trailing `\r`
/// dropped); blank lines and lines whose first field starts with `#` or `%`
/// are skipped; every other line is two decimal ids below 2^32 - 1 and
/// maybe a weight (what `f32`'s `FromStr` reads, allowed), separated by
/// spaces or tabs, all lines with a weight or none. `N` is the largest id
/// plus one. No line, comments included, holds a control byte but
/// whitespace (nor one over 1 MiB long, which these small files never
/// are).
fn reference_text(bytes: &[u8]) -> Option<Graph> {
    if bytes.iter().any(|&b| control_but_whitespace(b)) {
        return None;
    }
    let mut tuples = Vec::new();
    let mut weights = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = {
            let mut l = line;
            while let Some(rest) = l.strip_suffix(b"\r") {
                l = rest;
            }
            l
        };
        let fields: Vec<&[u8]> = line
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|f| !f.is_empty())
            .collect();
        match fields.first() {
            None => continue,
            Some(f) if f[0] == b'#' || f[0] == b'%' => continue,
            _ => {}
        }
        if fields.len() == 3 {
            let w: f32 = std::str::from_utf8(fields[2]).ok()?.parse().ok()?;
            weights.push(Some(w).filter(|&w| allowed(w))?.to_bits());
        } else if fields.len() != 2 {
            return None;
        }
        let id = |f: &[u8]| -> Option<u64> {
            if f.is_empty() || f.len() > 12 || !f.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(f)
                .ok()?
                .parse()
                .ok()
                .filter(|&x| x < MAX_VERTICES)
        };
        tuples.push((id(fields[0])?, id(fields[1])?));
    }
    let n = tuples.iter().map(|&(u, v)| u.max(v) + 1).max()?;
    match weights.len() {
        0 => Some((n, tuples, None)),
        k if k == tuples.len() => Some((n, tuples, Some(weights))),
        _ => None,
    }
}

/// The packed 48-bit format, decoded by the book.
fn reference_packed48(bytes: &[u8]) -> Option<Graph> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(12) {
        return None;
    }
    let word = |r: &[u8], i: usize| u32::from_le_bytes(r[4 * i..4 * i + 4].try_into().unwrap());
    let mut tuples = Vec::new();
    for r in bytes.chunks(12) {
        let high = word(r, 2);
        let u = i64::from(word(r, 0)) | (i64::from(high as u16 as i16) << 32);
        let v = i64::from(word(r, 1)) | (i64::from((high >> 16) as u16 as i16) << 32);
        let ok = |x: i64| x >= 0 && (x as u64) < MAX_VERTICES;
        if !ok(u) || !ok(v) {
            return None;
        }
        tuples.push((u as u64, v as u64));
    }
    let n = tuples.iter().map(|&(u, v)| u.max(v) + 1).max()?;
    Some((n, tuples, None))
}

/// Matrix Market coordinate files, decoded by the book: the banner, then
/// blank and `%` lines, the size line `rows columns entries`, then entries
/// `i j` (pattern) or `i j value`, 1-based and within the dimensions, blank
/// and `%` lines skipped, as many as announced. `real` values are the
/// weights (what `f32`'s `FromStr` reads, allowed); `integer` values are
/// any word. No line holds a control byte but whitespace.
fn reference_mtx(bytes: &[u8]) -> Option<Graph> {
    if bytes.iter().any(|&b| control_but_whitespace(b)) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok();
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .map(|l| {
            let mut l = l;
            while let Some(rest) = l.strip_suffix(b"\r") {
                l = rest;
            }
            l
        })
        .collect();
    let words = |l: &[u8]| -> Vec<Vec<u8>> {
        l.split(|b| matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c'))
            .filter(|w| !w.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    };
    let _ = text;
    let banner: Vec<String> = words(lines.first()?)
        .iter()
        .map(|w| String::from_utf8_lossy(w).to_ascii_lowercase())
        .collect();
    let (has_value, real) = match banner.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [
            "%%matrixmarket",
            "matrix",
            "coordinate",
            field,
            "general" | "symmetric",
        ] => match field {
            "pattern" => (false, false),
            "integer" => (true, false),
            "real" => (true, true),
            _ => return None,
        },
        _ => return None,
    };
    let number = |w: &[u8]| -> Option<u64> {
        if w.is_empty() || !w.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(w).ok()?.parse().ok()
    };
    let skip = |l: &[u8]| words(l).first().is_none_or(|w| w[0] == b'%');
    let mut rest = lines[1..].iter().copied().skip_while(|l| skip(l));
    let size = words(rest.next()?);
    if size.len() != 3 {
        return None;
    }
    let (rows, columns, entries) = (number(&size[0])?, number(&size[1])?, number(&size[2])?);
    if rows.max(columns) > MAX_VERTICES {
        return None;
    }
    let mut tuples = Vec::new();
    let mut weights = Vec::new();
    for line in rest.filter(|l| !skip(l)) {
        let w = words(line);
        if w.len() != if has_value { 3 } else { 2 } {
            return None;
        }
        let (i, j) = (number(&w[0])?, number(&w[1])?);
        if i == 0 || j == 0 || i > rows || j > columns {
            return None;
        }
        if real {
            let value: f32 = std::str::from_utf8(&w[2]).ok()?.parse().ok()?;
            weights.push(value);
        }
        tuples.push((i - 1, j - 1));
    }
    // Values are weights only when every one is allowed; otherwise the
    // list has none (a real matrix with a negative entry still reads).
    let weights = (real && weights.iter().all(|&v| allowed(v)))
        .then(|| weights.iter().map(|v| v.to_bits()).collect());
    (tuples.len() as u64 == entries).then_some((rows.max(columns), tuples, weights))
}

/// Text shaped like a Matrix Market file: a banner (valid or not), a size
/// line and random entry-like lines.
fn mtx_like() -> impl Strategy<Value = Vec<u8>> {
    let banner = prop::sample::select(vec![
        "%%MatrixMarket matrix coordinate pattern general\n",
        "%%MatrixMarket matrix coordinate real symmetric\n",
        "%%matrixmarket MATRIX coordinate integer general\n",
        "%%MatrixMarket matrix coordinate complex general\n",
        "%%MatrixMarket matrix array real general\n",
        "% no banner\n",
    ]);
    let size =
        (0u64..12, 0u64..12, 0u64..8).prop_map(|(r, c, e)| format!("% comment\n{r} {c} {e}\n"));
    let body = prop::collection::vec(
        prop::sample::select(b"0123456789  \t\n\n\r%.e-1".to_vec()),
        0..80,
    );
    (banner, size, body).prop_map(|(b, s, body)| [b.as_bytes(), s.as_bytes(), &body].concat())
}

/// What a reader returned, in the reference's terms; an error must be one
/// line.
fn decoded(result: Result<generator::EdgeList, generator::Error>) -> Option<Graph> {
    let list = match result {
        Ok(list) => list,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            return None;
        }
    };
    let tuples = list
        .edges()
        .iter()
        .map(|e| (u64::from(e.u), u64::from(e.v)))
        .collect();
    let weights = list
        .weights()
        .map(|w| w.iter().map(|x| x.to_bits()).collect());
    Some((list.num_vertices() as u64, tuples, weights))
}

/// A valid width-4 binary file of `tuples` over `n` vertices, version 2
/// with `weights` if given (bit patterns, one per tuple).
fn valid_binary(n: u64, tuples: &[(u32, u32)], weights: Option<&[u32]>) -> Vec<u8> {
    let header = binary::Header {
        id_width: 4,
        num_vertices: n,
        num_edges: tuples.len() as u64,
        weighted: weights.is_some(),
    };
    let mut bytes = header.encode().to_vec();
    for &(u, v) in tuples {
        bytes.extend_from_slice(&u.to_le_bytes());
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    for w in weights.unwrap_or_default() {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes
}

/// Bytes likely to look a bit like text edge lists, some with weights.
fn texty() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(b"0123456789  \t\n\n\r#%-x4294967295.e".to_vec()),
        0..200,
    )
}

/// Weights as bit patterns: mostly ordinary, sometimes zero, large, tiny,
/// negative, infinite or NaN.
fn weight_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => (0.0f32..1.0).prop_map(f32::to_bits),
        1 => prop::sample::select(vec![0.0f32, -0.0, 1.0, 1e30, 1e-40, -0.5, f32::INFINITY, f32::NAN])
            .prop_map(f32::to_bits),
        1 => any::<u32>(),
    ]
}

/// Lines `u v` or `u v w` over small ids, weights only on the lines
/// `weighted` says, as text.
fn edge_lines(lines: &[(u32, u32, bool, f32)]) -> Vec<u8> {
    let mut text = String::new();
    for &(u, v, weighted, w) in lines {
        if weighted {
            text.push_str(&format!("{u} {v} {w}\n"));
        } else {
            text.push_str(&format!("{u}\t{v}\n"));
        }
    }
    text.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn binary_reader_on_random_bytes_matches_the_reference(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let (_dir, path) = file("g.g500", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_binary(&bytes));
    }

    #[test]
    fn binary_reader_on_corrupted_files_matches_the_reference(
        n in 1u64..50,
        raw in prop::collection::vec((0u32..60, 0u32..60, weight_bits()), 0..20),
        weighted in any::<bool>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let tuples: Vec<(u32, u32)> = raw.iter().map(|&(u, v, _)| (u, v)).collect();
        let weights: Vec<u32> = raw.iter().map(|&(_, _, w)| w).collect();
        let mut bytes = valid_binary(n, &tuples, weighted.then_some(&weights[..]));
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let (_dir, path) = file("g.g500", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_binary(&bytes));
    }

    #[test]
    fn text_reader_on_random_text_matches_the_reference(bytes in texty()) {
        let (_dir, path) = file("g.el", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_text(&bytes));
    }

    #[test]
    fn text_reader_on_lines_with_and_without_weights_matches_the_reference(
        lines in prop::collection::vec((0u32..30, 0u32..30, prop::bool::weighted(0.9), weight_bits().prop_map(f32::from_bits)), 1..12),
        all_weighted in any::<bool>(),
    ) {
        // Mostly files with every weight or none; sometimes a mix.
        let lines: Vec<_> = lines.iter().map(|&(u, v, keep, x)| (u, v, keep == all_weighted, x)).collect();
        let bytes = edge_lines(&lines);
        let (_dir, path) = file("g.el", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_text(&bytes));
    }

    #[test]
    fn text_reader_on_random_bytes_matches_the_reference(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let (_dir, path) = file("g.txt", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_text(&bytes));
    }

    #[test]
    fn text_and_mtx_readers_on_comments_of_any_bytes_match_the_reference(
        comments in prop::collection::vec(prop::collection::vec(any::<u8>().prop_filter("no line end", |&b| b != b'\n'), 0..20), 1..4),
    ) {
        // Comments may hold anything but control bytes; a file with one
        // is refused, one without reads.
        let mut text = b"0 1\n".to_vec();
        let mut mtx = b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n".to_vec();
        for comment in &comments {
            for file in [&mut text, &mut mtx] {
                file.extend_from_slice(b"%");
                file.extend_from_slice(comment);
                file.push(b'\n');
            }
        }
        let (_dir, path) = file("g.el", &text);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_text(&text));
        let (_dir, path) = file("g.mtx", &mtx);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_mtx(&mtx));
    }

    #[test]
    fn packed48_reader_on_random_bytes_matches_the_reference(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        let (_dir, path) = file("g.pe48", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_packed48(&bytes));
    }

    #[test]
    fn packed48_reader_on_small_records_matches_the_reference(raw in prop::collection::vec((0u32..40, 0u32..40, prop::sample::select(vec![0u32, 1, 0xffff, 0x1_0000, 0xffff_ffff])), 1..12)) {
        let bytes: Vec<u8> = raw.iter().flat_map(|&(u, v, h)| [u.to_le_bytes(), v.to_le_bytes(), h.to_le_bytes()]).flatten().collect();
        let (_dir, path) = file("g.pe48", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_packed48(&bytes));
    }

    #[test]
    fn mtx_reader_on_mtx_like_text_matches_the_reference(bytes in mtx_like()) {
        let (_dir, path) = file("g.mtx", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_mtx(&bytes));
    }

    #[test]
    fn mtx_reader_on_random_bytes_matches_the_reference(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let (_dir, path) = file("g.mtx", &bytes);
        prop_assert_eq!(decoded(read_edge_list(&path)), reference_mtx(&bytes));
    }

    #[test]
    fn every_writer_round_trips_through_its_reader(
        raw in prop::collection::vec((0u32..50, 0u32..50, weight_bits()), 1..40),
        extra in 0u64..5,
        weighted in any::<bool>(),
    ) {
        // Binary and Matrix Market keep N; text and packed48 imply the
        // largest id plus one. Weights come back bit for bit.
        let max = raw.iter().map(|&(u, v, _)| u.max(v)).max().unwrap();
        let n = u64::from(max) + 1 + extra;
        let mut edges = EdgeList::new(n, raw.iter().map(|&(u, v, _)| Edge::new(u, v)).collect()).unwrap();
        if weighted {
            let weights = raw.iter().map(|&(_, _, w)| f32::from_bits(w)).map(|w| if allowed(w.abs()) { w.abs() } else { 0.5 });
            edges = edges.with_weights(weights.collect()).unwrap();
        }
        let bits = |l: &EdgeList| l.weights().map(|w| w.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        for format in EdgeFormat::ALL {
            let mut bytes = Vec::new();
            format.write(&mut bytes, &edges).unwrap();
            let name = format!("g.{}", match format {
                EdgeFormat::Binary => "g500",
                EdgeFormat::Text => "el",
                EdgeFormat::MatrixMarket => "mtx",
                EdgeFormat::Packed48 => "pe48",
            });
            let (_dir, path) = file(&name, &bytes);
            if let Some(beside) = format.weights_file(&path).filter(|_| weighted) {
                let mut weight_bytes = Vec::new();
                packed48::write_weights(&mut weight_bytes, &edges).unwrap();
                std::fs::write(beside, weight_bytes).unwrap();
            }
            let back = read_edge_list(&path).unwrap();
            prop_assert_eq!(back.edges(), edges.edges(), "{}", format.name());
            prop_assert_eq!(bits(&back), bits(&edges), "{}", format.name());
            let implied = matches!(format, EdgeFormat::Text | EdgeFormat::Packed48);
            let expected_n = if implied { u64::from(max) + 1 } else { n };
            prop_assert_eq!(back.num_vertices() as u64, expected_n, "{}", format.name());
        }
    }
}

#[test]
fn text_reader_agrees_with_the_reference_across_parse_chunks() {
    // Over 3 MiB: several of the reader's 1 MiB chunks, boundaries inside
    // lines, comments and CRLF endings sprinkled in.
    let mut text = String::new();
    for i in 0..300_000u32 {
        match i % 1000 {
            7 => text.push_str("# a comment 1 2 3\n"),
            8 => text.push('\n'),
            _ => text.push_str(&format!(
                "{} {}{}",
                i % 4096,
                (i * 7) % 4096,
                if i % 3 == 0 { "\r\n" } else { "\n" }
            )),
        }
    }
    let (_dir, path) = file("big.el", text.as_bytes());
    assert_eq!(
        decoded(read_edge_list(&path)),
        reference_text(text.as_bytes())
    );
}

#[test]
fn edges_of_a_valid_binary_file_come_back_exactly() {
    let tuples: Vec<(u32, u32)> = (0..1000).map(|i| (i % 37, (i * 13) % 101)).collect();
    let (_dir, path) = file("g.g500", &valid_binary(101, &tuples, None));
    let list = read_edge_list(&path).unwrap();
    assert!(list.is_mapped(), "width-4 files are used in place");
    let expected: Vec<Edge> = tuples.iter().map(|&(u, v)| Edge::new(u, v)).collect();
    assert_eq!(list.edges(), &expected[..]);
}

#[test]
fn writers_stop_at_the_first_error_of_their_sink() {
    /// Accepts `left` bytes, then fails every write (counted).
    struct Full {
        left: usize,
        writes: usize,
    }
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.left == 0 {
                self.writes += 1;
                return Err(std::io::Error::other("sink full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let edges = EdgeList::new(
        1000,
        (0..400_000u32)
            .map(|i| Edge::new(i % 1000, (i * 7) % 1000))
            .collect(),
    )
    .unwrap()
    .with_weights(vec![0.25; 400_000])
    .unwrap();
    for format in EdgeFormat::ALL {
        let mut sink = Full {
            left: 4096,
            writes: 0,
        };
        let err = format.write(&mut sink, &edges).unwrap_err();
        assert_eq!(err.to_string(), "sink full", "{}", format.name());
        assert_eq!(sink.writes, 1, "{}: writes after the error", format.name());
    }
}

#[test]
fn a_width_8_id_inside_a_large_n_is_refused_for_the_vertex_count_not_as_outside() {
    // N = 2^33 and the tuple (0, 2^33 - 1): the id is inside 0..N; what
    // this build cannot hold is N itself, and the error must say so.
    let n: u64 = 1 << 33;
    let header = binary::Header {
        id_width: 8,
        num_vertices: n,
        num_edges: 1,
        weighted: false,
    };
    let mut bytes = header.encode().to_vec();
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes.extend_from_slice(&(n - 1).to_le_bytes());
    let (_dir, path) = file("g.g500", &bytes);
    let err = read_edge_list(&path).unwrap_err().to_string();
    let expected = format!("{n} vertices is more than the {MAX_VERTICES} this build supports");
    assert!(err.contains(&expected), "{err}");
    assert!(!err.contains("names a vertex outside"), "{err}");
}
