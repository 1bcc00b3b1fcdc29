//! The parent-array file: the reader against the format's description on
//! random bytes, and the writer round-trips through the reader.

use proptest::prelude::*;
use std::path::PathBuf;
use validate::{FileError, parents};

/// Writes `bytes` to a fresh file and returns its path (the folder lives as
/// long as the returned guard).
fn file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn reader_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        let (_dir, path) = file(&bytes);
        let expected: Option<Vec<i64>> = (bytes.len() % 8 == 0).then(|| {
            bytes.chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
        });
        prop_assert_eq!(parents::read(&path).ok(), expected);
    }

    #[test]
    fn writer_round_trips(values in prop::collection::vec(any::<i64>(), 0..200)) {
        let mut bytes = Vec::new();
        parents::write(&mut bytes, &values).unwrap();
        prop_assert_eq!(bytes.len(), values.len() * 8);
        let (_dir, path) = file(&bytes);
        prop_assert_eq!(parents::read(&path).unwrap(), values);
    }
}

#[test]
fn errors_name_the_file_and_the_cause() {
    let (dir, path) = file(&[0u8; 13]);
    let err = parents::read(&path).unwrap_err();
    assert!(matches!(err, FileError::Format { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&path.display().to_string()), "{text}");
    assert!(text.contains("13 bytes"), "{text}");

    let missing = dir.path().join("missing");
    let err = parents::read(&missing).unwrap_err();
    assert!(matches!(err, FileError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("missing"), "{err}");

    let err = parents::read(dir.path()).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
}
