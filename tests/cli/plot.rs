//! `graph500 plot`: SVG from a run's JSON.

use crate::support::*;

#[test]
fn plot_draws_teps_and_traced_frontiers_as_svg() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (traced, plain, svg) = (d.join("t.json"), d.join("p.json"), d.join("out.svg"));
    assert!(
        graph500(&[
            "--scale",
            "10",
            "--keys",
            "6",
            "-q",
            "--trace",
            "--json",
            path_str(&traced)
        ])
        .status
        .success()
    );
    let o = graph500(&["plot", path_str(&traced), "--out", path_str(&svg)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_well_formed_xml(&text);
    assert!(text.contains("harmonic mean") && text.contains("frontier size per level"));
    // A dot per search (plus the legend's), and markers for the levels.
    assert!(text.matches("<circle").count() > 6);
    assert!(text.contains("<polygon"), "no bottom-up triangles");

    assert!(
        graph500(&[
            "--scale",
            "10",
            "--keys",
            "6",
            "-q",
            "--json",
            path_str(&plain)
        ])
        .status
        .success()
    );
    assert!(
        graph500(&["plot", path_str(&plain), "--out", path_str(&svg), "-q"])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_well_formed_xml(&text);
    assert!(text.contains("harmonic mean") && !text.contains("frontier size per level"));

    let sweep = d.join("sweep.json");
    std::fs::write(&sweep, r#"{"program": "graph500 sweep", "rows": []}"#).unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&sweep), "--out", path_str(&svg)]),
        &["sweep.json", "not the JSON of a graph500 run"],
    );
    let notjson = d.join("x.json");
    std::fs::write(&notjson, "SCALE: 20").unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&notjson), "--out", path_str(&svg)]),
        &["x.json", "not JSON"],
    );
    assert_bad_input(
        &graph500(&[
            "plot",
            path_str(&d.join("none.json")),
            "--out",
            path_str(&svg),
        ]),
        &["none.json"],
    );
}
