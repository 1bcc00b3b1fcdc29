//! `graph500 profile`: the cost of copying versus sharing.

use crate::support::*;

#[test]
fn profile_rows_show_copying_costs_more_than_sharing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("profile.json");
    let o = graph500(&[
        "profile",
        "--scale",
        "10",
        "--keys",
        "2",
        "--threads",
        "2",
        "-q",
        "--json",
        path_str(&json),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let rows = [
        "seq",
        "copy",
        "arc",
        "arc+inplace",
        "par/rayon",
        "dobfs/rayon",
        "dobfs/pipes",
    ];
    for row in rows {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(row)),
            "no {row} row in\n{table}"
        );
    }
    let Document::Profile(j) = read_json(&json) else {
        panic!("not a profile's JSON");
    };
    let row = |name: &str| j.rows.iter().find(|r| r.strategy == name).unwrap();
    let figure = |name: &str, field: &str| {
        let r = row(name);
        match field {
            "bytes_allocated" => r.bytes_allocated,
            "bytes_copied" => r.bytes_copied,
            "allocations" => r.allocations,
            "speedup" => r.speedup,
            _ => unreachable!("{field}"),
        }
    };
    // Bytes are not timings: what each strategy allocates and copies is
    // fixed by its code, so the order is deterministic.
    assert!(figure("copy", "bytes_allocated") > figure("arc", "bytes_allocated"));
    assert!(figure("arc", "bytes_allocated") > figure("arc+inplace", "bytes_allocated"));
    assert!(figure("copy", "bytes_copied") > figure("arc", "bytes_copied"));
    assert_eq!(figure("arc+inplace", "bytes_copied"), 0.0);
    assert_eq!(figure("seq", "allocations"), 0.0);
    assert_eq!(figure("par/rayon", "allocations"), 0.0);
    // dobfs allocates nothing on either backend: on pipes its steps run on
    // par's reusable loops, not a boxed job and a pipe per task.
    assert_eq!(figure("dobfs/rayon", "allocations"), 0.0);
    assert_eq!(figure("dobfs/pipes", "allocations"), 0.0);
    assert_eq!(figure("seq", "speedup"), 1.0);
}
