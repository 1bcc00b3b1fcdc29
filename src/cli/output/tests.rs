//! Tests of the output module: atomic replacement, units, devices, links.

use super::*;

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    std::fs::write(&path, "old contents").unwrap();
    let failed = write(&path, |out| {
        out.write_all(&[b'x'; 5_000_000])?;
        Err(std::io::Error::other("interrupted half way"))
    });
    let message = failed.unwrap_err().to_string();
    assert_eq!(
        message,
        format!("{}: interrupted half way", path.display()),
        "names the user's path, not the temporary"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents");
    assert_eq!(names_in(dir.path()), ["out.json"]);
}

#[test]
fn a_completed_write_replaces_the_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    std::fs::write(&path, "old").unwrap();
    write(&path, |out| out.write_all(b"new contents")).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents");
    assert_eq!(names_in(dir.path()), ["out.json"]);
}

#[cfg(unix)]
#[test]
fn destinations_follow_links_to_their_final_target() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let link = dir.path().join("link");
    symlink("file", &link).unwrap();
    let chain = dir.path().join("chain");
    symlink(&link, &chain).unwrap();
    let dangling = dir.path().join("dangling");
    symlink("new", &dangling).unwrap();
    let to_null = dir.path().join("null");
    symlink("/dev/null", &to_null).unwrap();
    let to_dir = dir.path().join("dir");
    symlink(".", &to_dir).unwrap();
    let loop_ = dir.path().join("loop");
    symlink("loop", &loop_).unwrap();

    let replace = |p: &Path| Destination::Replace(p.to_path_buf());
    assert_eq!(destination(&file).unwrap(), replace(&file));
    assert_eq!(destination(&link).unwrap(), replace(&file));
    assert_eq!(destination(&chain).unwrap(), replace(&file));
    assert_eq!(
        destination(&dangling).unwrap(),
        replace(&dir.path().join("new"))
    );
    assert_eq!(
        destination(&to_null).unwrap(),
        Destination::Through(to_null.clone())
    );
    assert_eq!(
        destination(Path::new("/dev/null")).unwrap(),
        Destination::Through("/dev/null".into())
    );
    let err = destination(&to_dir).unwrap_err().to_string();
    assert!(err.contains("link to the directory"), "{err}");
    let err = destination(dir.path()).unwrap_err().to_string();
    assert!(err.contains("is a directory"), "{err}");
    let err = destination(&loop_).unwrap_err().to_string();
    assert!(err.contains("too many levels"), "{err}");
}

#[test]
fn check_refuses_inputs_directories_missing_folders_and_twins() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, "x").unwrap();
    let out = dir.path().join("out");
    check([&input], [&out]).unwrap();
    let err = check([&input], [&input]).unwrap_err().to_string();
    assert!(err.contains("is the input"), "{err}");
    let spelled = dir.path().join(".").join("in");
    let err = check([&input], [&spelled]).unwrap_err().to_string();
    assert!(err.contains("is the input"), "{err}");
    let err = check(NO_INPUTS, [&out, &out]).unwrap_err().to_string();
    assert!(err.contains("same file"), "{err}");
    let err = check(NO_INPUTS, [dir.path()]).unwrap_err().to_string();
    assert!(err.contains("is a directory"), "{err}");
    let err = check(NO_INPUTS, [dir.path().join("missing/x")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    let err = check(NO_INPUTS, [input.join("x")]).unwrap_err().to_string();
    assert!(err.contains("is not a folder"), "{err}");
}
