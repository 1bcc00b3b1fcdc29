//! The distance-array file: the reader against the format's description
//! on random bytes, bit for bit, and the writer round-trips through the
//! reader.

use proptest::prelude::*;
use std::path::PathBuf;
use validate::{FileError, distances};

/// Writes `bytes` to a fresh file and returns its path (the folder lives as
/// long as the returned guard).
fn file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn reader_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        let (_dir, path) = file(&bytes);
        let expected: Option<Vec<u32>> = (bytes.len() % 4 == 0).then(|| {
            bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
        });
        prop_assert_eq!(distances::read(&path).ok().map(|d| bits(&d)), expected);
    }

    #[test]
    fn writer_round_trips(raw in prop::collection::vec(any::<u32>(), 0..200)) {
        let values: Vec<f32> = raw.iter().copied().map(f32::from_bits).collect();
        let mut bytes = Vec::new();
        distances::write(&mut bytes, &values).unwrap();
        prop_assert_eq!(bytes.len(), values.len() * 4);
        let (_dir, path) = file(&bytes);
        prop_assert_eq!(bits(&distances::read(&path).unwrap()), raw);
    }
}

#[test]
fn the_format_is_little_endian_f32_in_vertex_order() {
    let mut bytes = Vec::new();
    distances::write(&mut bytes, &[0.0, -1.0, 2.5]).unwrap();
    assert_eq!(bytes, [0, 0, 0, 0, 0, 0, 0x80, 0xbf, 0, 0, 0x20, 0x40]);
    // Arrays longer than one write go through whole.
    let long: Vec<f32> = (0..300_000).map(|i| i as f32).collect();
    let mut bytes = Vec::new();
    distances::write(&mut bytes, &long).unwrap();
    let (_dir, path) = file(&bytes);
    assert_eq!(distances::read(&path).unwrap(), long);
}

#[test]
fn errors_name_the_file_and_the_cause() {
    let (dir, path) = file(&[0u8; 13]);
    let err = distances::read(&path).unwrap_err();
    assert!(matches!(err, FileError::Format { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&path.display().to_string()), "{text}");
    assert!(
        text.contains("13 bytes is not a whole number of 4-byte distances"),
        "{text}"
    );

    let missing = dir.path().join("missing");
    let err = distances::read(&missing).unwrap_err();
    assert!(matches!(err, FileError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("missing"), "{err}");

    let err = distances::read(dir.path()).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
}
