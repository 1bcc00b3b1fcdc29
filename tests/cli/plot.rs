//! `graph500 plot`: SVG from a run's or a sweep's JSON.

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
    let empty = r#"{"program": "graph500 sweep", "machine": "m",
                    "kernel": "dobfs", "keys": 2, "rows": []}"#;
    std::fs::write(&sweep, empty).unwrap();
    assert_bad_input(
        &graph500(&["plot", path_str(&sweep), "--out", path_str(&svg)]),
        &["sweep.json", "a sweep without rows"],
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

/// The JSON of `graph500 --scale 8 --keys K -q` plus `extra`, at `dir/name`.
fn small_run(dir: &Path, name: &str, keys: u32, extra: &[&str]) -> PathBuf {
    let json = dir.join(name);
    let keys = keys.to_string();
    let mut args = vec![
        "--scale",
        "8",
        "--keys",
        &keys,
        "-q",
        "--json",
        path_str(&json),
    ];
    args.extend_from_slice(extra);
    let o = graph500(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    json
}

/// `plot JSON --out SVG -q`, killed (and the test failed) if it hangs.
fn plot(json: &Path, svg: &Path) -> Output {
    graph500_or_hang(&["plot", path_str(json), "--out", path_str(svg), "-q"], 60)
}

#[test]
fn plot_draws_or_refuses_any_teps_and_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = read_run(&small_run(d, "r.json", 4, &[]));
    let hostile = d.join("hostile.json");
    let svg = d.join("out.svg");
    let with_teps = |teps: f64| {
        let mut r = run.clone();
        r.searches[1].teps = teps;
        std::fs::write(&hostile, Document::Run(Box::new(r)).to_json()).unwrap();
    };
    // Figures a plot can show, however extreme: drawn.
    for teps in [1.7e308, f64::MAX, 0.0, 5e-324, 1e-300, 1.0] {
        with_teps(teps);
        let o = plot(&hostile, &svg);
        assert!(o.status.success(), "TEPS {teps}: {}", stderr(&o));
        assert_well_formed_xml(&std::fs::read_to_string(&svg).unwrap());
    }
    // Every figure zero, the harmonic mean too.
    let mut zero = run.clone();
    zero.searches.iter_mut().for_each(|s| s.teps = 0.0);
    zero.statistics.bfs.teps.harmonic_mean = 0.0;
    std::fs::write(&hostile, Document::Run(Box::new(zero)).to_json()).unwrap();
    let o = plot(&hostile, &svg);
    assert!(o.status.success(), "{}", stderr(&o));
    // A harmonic mean beyond any search, at the top of the range.
    let mut huge_mean = run.clone();
    huge_mean.statistics.bfs.teps.harmonic_mean = f64::MAX;
    std::fs::write(&hostile, Document::Run(Box::new(huge_mean)).to_json()).unwrap();
    let o = plot(&hostile, &svg);
    assert!(o.status.success(), "{}", stderr(&o));

    // Figures no plot of TEPS can show: one line naming the file and value.
    for (teps, shown) in [(-1.0, "-1"), (-f64::MAX, "-1.7976931348623157e308")] {
        with_teps(teps);
        assert_bad_input(&plot(&hostile, &svg), &["hostile.json", "search 2", shown]);
    }
    // NaN and infinity are written as null, which is no TEPS.
    for teps in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        with_teps(teps);
        assert!(
            std::fs::read_to_string(&hostile)
                .unwrap()
                .contains("\"teps\": null")
        );
        assert_bad_input(&plot(&hostile, &svg), &["hostile.json", "null"]);
    }
    // A number beyond f64, typed in by hand.
    with_teps(12345.0);
    let text = std::fs::read_to_string(&hostile).unwrap();
    std::fs::write(
        &hostile,
        text.replace("\"teps\": 12345.0", "\"teps\": 1e999"),
    )
    .unwrap();
    assert_bad_input(&plot(&hostile, &svg), &["hostile.json", "1e999"]);
}

/// Each `<text>` of an SVG: its `text-anchor` and its trimmed content.
fn texts(svg: &str) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_str(svg);
    let (mut out, mut anchor) = (Vec::new(), None);
    loop {
        match reader.read_event().expect("well-formed XML") {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == "text" => {
                let a = e.try_get_attribute("text-anchor").unwrap();
                anchor = Some(a.map_or(String::new(), |a| a.value.into_owned()));
            }
            quick_xml::events::Event::Text(t) => {
                if let Some(a) = anchor.take() {
                    out.push((a, t.trim().to_string()));
                }
            }
            quick_xml::events::Event::End(_) => anchor = None,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    out
}

/// The numbers along the x axis of an SVG with one panel: the centred
/// texts that are numbers (y-axis labels are right-aligned).
fn x_labels(svg: &str) -> Vec<String> {
    texts(svg)
        .into_iter()
        .filter(|(anchor, text)| anchor == "middle" && text.parse::<f64>().is_ok())
        .map(|(_, text)| text)
        .collect()
}

#[test]
fn plot_labels_each_search_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let svg = d.join("out.svg");
    for n in [1u32, 2, 3, 4, 7] {
        let json = small_run(d, &format!("r{n}.json"), n, &[]);
        let o = plot(&json, &svg);
        assert!(o.status.success(), "{}", stderr(&o));
        let expected: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        assert_eq!(x_labels(&std::fs::read_to_string(&svg).unwrap()), expected);
    }
    // Many searches: fewer labels, still search numbers, none repeated.
    let json = small_run(d, "r64.json", 64, &[]);
    assert!(plot(&json, &svg).status.success());
    let labels: Vec<u32> = x_labels(&std::fs::read_to_string(&svg).unwrap())
        .iter()
        .map(|l| l.parse().expect("a whole number"))
        .collect();
    assert!(labels.len() >= 4 && labels.len() <= 13, "{labels:?}");
    assert!(labels.windows(2).all(|w| w[0] < w[1]), "{labels:?}");
    assert!(labels.iter().all(|&l| (1..=64).contains(&l)), "{labels:?}");

    // The levels of the frontier panel, below its caption: 0, 1, 2, ...
    let json = small_run(d, "traced.json", 3, &["--trace"]);
    assert!(plot(&json, &svg).status.success());
    let all = texts(&std::fs::read_to_string(&svg).unwrap());
    let caption = all
        .iter()
        .position(|(_, t)| t.starts_with("frontier size per level"))
        .expect("a frontier panel");
    let levels: Vec<String> = all[caption..]
        .iter()
        .filter(|(anchor, text)| anchor == "middle" && text.parse::<f64>().is_ok())
        .map(|(_, text)| text.clone())
        .collect();
    let expected: Vec<String> = (0..levels.len()).map(|i| i.to_string()).collect();
    assert!(levels.len() >= 2 && levels == expected, "{levels:?}");
}

#[test]
fn plot_draws_no_frontier_panel_without_levels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let svg = d.join("out.svg");
    // The sequential kernel records no levels: traced, each trace empty.
    let json = small_run(d, "seq.json", 3, &["--kernel", "seq", "--trace"]);
    let run = read_run(&json);
    assert!(run.options.trace);
    assert!(run.searches.iter().all(|s| s.trace.as_deref() == Some(&[])));
    let o = plot(&json, &svg);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_well_formed_xml(&text);
    assert!(text.contains("harmonic mean"));
    assert!(!text.contains("frontier size per level"), "an empty panel");

    // A traced run whose first search lost its levels: the panel shows the
    // others only.
    let json = small_run(d, "traced.json", 3, &["--trace"]);
    let mut run = read_run(&json);
    let roots: Vec<u64> = run.searches.iter().map(|s| s.root).collect();
    run.searches[0].trace = Some(Vec::new());
    std::fs::write(&json, Document::Run(Box::new(run)).to_json()).unwrap();
    assert!(plot(&json, &svg).status.success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("frontier size per level"));
    let legend: Vec<String> = texts(&text)
        .into_iter()
        .filter(|(_, t)| t.starts_with("root "))
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        legend,
        [format!("root {}", roots[1]), format!("root {}", roots[2])]
    );
}

#[test]
fn plot_draws_a_sweep_and_refuses_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (json, svg) = (d.join("s.json"), d.join("s.svg"));
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
    let o = plot(&json, &svg);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_well_formed_xml(&text);
    let all = texts(&text);
    let has = |s: &str| all.iter().filter(|(_, t)| t == s).count();
    assert!(
        all.iter()
            .any(|(_, t)| t.starts_with("harmonic-mean TEPS per SCALE"))
    );
    assert!(
        all.iter()
            .any(|(_, t)| t.starts_with("construction time (kernel 1) per SCALE"))
    );
    // Both series, in the legend of each panel.
    assert_eq!((has("1 thread"), has("2 threads")), (2, 2), "{all:?}");
    // SCALE 6 and 7 along each panel's x axis, once each.
    assert_eq!(x_labels(&text), ["6", "7", "6", "7"]);
    // Two dots per series per panel.
    assert!(text.matches("<circle").count() >= 8);

    // Hostile sweeps: extreme figures plot, impossible ones are named.
    let Document::Sweep(sweep) = read_json(&json) else {
        panic!("not a sweep's JSON");
    };
    let hostile = d.join("hostile.json");
    let write = |edit: &dyn Fn(&mut harness::report::SweepReport)| {
        let mut s = sweep.clone();
        edit(&mut s);
        std::fs::write(&hostile, Document::Sweep(s).to_json()).unwrap();
    };
    write(&|s| s.rows[0].harmonic_mean_teps = 1.7e308);
    assert!(plot(&hostile, &svg).status.success());
    write(&|s| {
        s.rows[0].construction_time = f64::MIN_POSITIVE;
        s.rows[3].construction_time = f64::MAX;
    });
    assert!(plot(&hostile, &svg).status.success());
    write(&|s| s.rows.truncate(1));
    assert!(plot(&hostile, &svg).status.success());
    assert_eq!(
        x_labels(&std::fs::read_to_string(&svg).unwrap()),
        ["6", "6"]
    );
    write(&|s| s.rows[1].harmonic_mean_teps = -1.0);
    assert_bad_input(
        &plot(&hostile, &svg),
        &["hostile.json", "SCALE 6 on 2 threads", "TEPS -1"],
    );
    write(&|s| s.rows[2].construction_time = 0.0);
    assert_bad_input(
        &plot(&hostile, &svg),
        &[
            "hostile.json",
            "SCALE 7 on 1 thread",
            "construction time 0 s",
        ],
    );
    write(&|s| s.rows[2].construction_time = f64::NAN);
    assert_bad_input(&plot(&hostile, &svg), &["hostile.json", "null"]);

    // A profile's rows are engines, not a series: refused by name.
    let profile = d.join("p.json");
    let o = graph500(&[
        "profile",
        "--scale",
        "6",
        "--keys",
        "2",
        "-q",
        "--json",
        path_str(&profile),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_bad_input(
        &plot(&profile, &svg),
        &["p.json", "graph500 profile", "does not draw"],
    );
}
