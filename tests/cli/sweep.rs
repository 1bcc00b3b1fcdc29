//! `graph500 sweep`: the scaling report.

use crate::support::*;

#[test]
fn sweep_runs_every_scale_on_one_and_all_threads() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let o = graph500(&[
        "sweep",
        "--from",
        "6",
        "--to",
        "7",
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
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("| 6 |") || l.starts_with("| 7 |"))
            .count(),
        4,
        "{table}"
    );
    let Document::Sweep(j) = read_json(&json) else {
        panic!("not a sweep's JSON");
    };
    let configs: Vec<(u32, usize)> = j.rows.iter().map(|r| (r.scale, r.threads)).collect();
    assert_eq!(configs, [(6, 1), (6, 2), (7, 1), (7, 2)]);
    for r in &j.rows {
        assert!(r.harmonic_mean_teps > 0.0);
        assert!(r.mean_validate.unwrap() > 0.0);
    }
    assert_bad_input(
        &graph500(&["sweep", "--from", "9", "--to", "8"]),
        &["--from 9", "--to 8"],
    );
}
