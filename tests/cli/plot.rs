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
    // Two markers per series per panel (a circle, a square).
    assert!(text.matches("<circle").count() + text.matches("<polygon").count() >= 8);

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

/// What a plot's SVG is drawn with, as the tests below read it: pixel
/// geometry and colours.
#[derive(Debug, Clone)]
enum Shape {
    /// A `<circle>`: its centre, radius and colour (fill, or stroke when
    /// hollow); `None` for white.
    Circle((i32, i32), i32, Option<String>),
    /// A `<polygon>`, or a closed `<polyline>` (an outline), and its colour.
    Polygon(Vec<(i32, i32)>, Option<String>),
    /// An open `<polyline>` (a data line, an axis tick).
    Path,
    /// A `<line>` of the mesh: from, to.
    Mesh((i32, i32), (i32, i32)),
    /// A `<rect>`: x, y, width, height, and whether it has a border.
    Rect(i32, i32, i32, i32, bool),
    /// A `<text>`: where it is anchored, and what it says.
    Text((i32, i32), String),
}

/// The shapes of `svg`, in order.
fn shapes(svg: &str) -> Vec<Shape> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(svg);
    let (mut out, mut text_at) = (Vec::new(), None);
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let element = match &event {
            Event::Start(e) | Event::Empty(e) => e.clone(),
            Event::Text(t) => {
                if let Some(at) = text_at.take() {
                    out.push(Shape::Text(at, t.trim().to_string()));
                }
                continue;
            }
            Event::End(_) => {
                text_at = None;
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let attr =
            |name: &str| (element.try_get_attribute(name).unwrap()).map(|a| a.value.into_owned());
        let int = |name: &str| -> i32 {
            let value = attr(name).unwrap_or_else(|| panic!("no {name}"));
            value.parse::<f64>().unwrap().round() as i32
        };
        let colour = |name: &str| attr(name).filter(|c| c != "none" && c != "#FFFFFF");
        let points = || -> Vec<(i32, i32)> {
            attr("points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        };
        match element.name().as_ref() {
            "circle" => {
                let c = colour("fill").or_else(|| colour("stroke"));
                out.push(Shape::Circle((int("cx"), int("cy")), int("r"), c));
            }
            "polygon" => out.push(Shape::Polygon(points(), colour("fill"))),
            "polyline" => {
                let mut p = points();
                if p.len() > 2 && p.first() == p.last() {
                    p.pop();
                    out.push(Shape::Polygon(p, colour("stroke")));
                } else {
                    out.push(Shape::Path);
                }
            }
            "line" => out.push(Shape::Mesh((int("x1"), int("y1")), (int("x2"), int("y2")))),
            "rect" => {
                let border = colour("stroke").is_some();
                let (x, y) = (int("x"), int("y"));
                out.push(Shape::Rect(x, y, int("width"), int("height"), border));
            }
            "text" => text_at = Some((int("x"), int("y"))),
            _ => {}
        }
    }
    out
}

/// A box in pixels: x0, y0, x1, y1 (inclusive).
type PixelBox = (i32, i32, i32, i32);

fn inside((x, y): (i32, i32), (x0, y0, x1, y1): PixelBox) -> bool {
    (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
}

fn overlap(a: PixelBox, b: PixelBox) -> bool {
    a.0 <= b.2 && b.0 <= a.2 && a.1 <= b.3 && b.1 <= a.3
}

/// The plotting areas of an SVG's panels: each spanned by its mesh, the
/// vertical lines giving its height and the horizontal ones its width.
fn plotting_areas(shapes: &[Shape]) -> Vec<PixelBox> {
    let mesh: Vec<((i32, i32), (i32, i32))> = (shapes.iter())
        .filter_map(|s| match s {
            Shape::Mesh(a, b) => Some((*a, *b)),
            _ => None,
        })
        .collect();
    let mut heights: Vec<(i32, i32)> = (mesh.iter())
        .filter(|(a, b)| a.0 == b.0)
        .map(|(a, b)| (a.1.min(b.1), a.1.max(b.1)))
        .collect();
    heights.sort_unstable();
    heights.dedup();
    heights
        .into_iter()
        .map(|(top, bottom)| {
            let across = (mesh.iter()).filter(|(a, b)| a.1 == b.1 && (top..=bottom).contains(&a.1));
            let left = across.clone().map(|(a, b)| a.0.min(b.0)).min().unwrap();
            let right = across.map(|(a, b)| a.0.max(b.0)).max().unwrap();
            (left, top, right, bottom)
        })
        .collect()
}

/// A marker's centre, colour and shape: a circle's radius, or a
/// polygon's vertices relative to its first (the same for a filled marker
/// and an outlined one).
fn marker(shape: &Shape) -> Option<((i32, i32), String, String)> {
    match shape {
        Shape::Circle(c, r, Some(colour)) => Some((*c, colour.clone(), format!("circle {r}"))),
        Shape::Polygon(p, Some(colour)) if p.len() >= 3 => {
            let n = p.len() as i32;
            let centre = (
                p.iter().map(|v| v.0).sum::<i32>() / n,
                p.iter().map(|v| v.1).sum::<i32>() / n,
            );
            let shape: Vec<(i32, i32)> = p.iter().map(|v| (v.0 - p[0].0, v.1 - p[0].1)).collect();
            Some((centre, colour.clone(), format!("{shape:?}")))
        }
        _ => None,
    }
}

/// A legend's entry: its label, and the colour and shape of the marker
/// beside it (if any).
type Entry = (String, Option<(String, String)>);

/// The legends of a plot: per bordered box, the entries it holds.
fn legends(shapes: &[Shape]) -> Vec<(PixelBox, Vec<Entry>)> {
    let boxes: Vec<PixelBox> = (shapes.iter())
        .filter_map(|s| match *s {
            Shape::Rect(x, y, w, h, true) => Some((x, y, x + w, y + h)),
            _ => None,
        })
        .collect();
    boxes
        .into_iter()
        .map(|b| {
            let markers: Vec<((i32, i32), String, String)> = (shapes.iter())
                .filter_map(marker)
                .filter(|m| inside(m.0, b))
                .collect();
            let entries = (shapes.iter())
                .filter_map(|s| match s {
                    Shape::Text(at, label) if inside(*at, b) => Some((*at, label.clone())),
                    _ => None,
                })
                .map(|(at, label)| {
                    let beside = (markers.iter())
                        .filter(|m| m.0.0 < at.0 && (m.0.1 - at.1).abs() < 16)
                        .min_by_key(|m| (m.0.1 - at.1).abs());
                    (label, beside.map(|m| (m.1.clone(), m.2.clone())))
                })
                .collect();
            (b, entries)
        })
        .collect()
}

/// The legend of every panel lies outside every plotting area (no data
/// point is ever hidden under it), and the series of the frontier panel
/// (one per search) and of a sweep's panels (one per thread count) each
/// have a colour and a marker shape of their own, which every one of their
/// points wears.
#[test]
fn legends_hide_no_data_and_series_differ_in_colour_and_marker() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let svg = d.join("out.svg");
    let json = small_run(d, "traced.json", 12, &["--trace", "--sssp"]);
    let mut run = read_run(&json);
    // Points everywhere along the TEPS axis, the corners too.
    let top = run.searches.iter().map(|s| s.teps).fold(0.0, f64::max);
    for (i, s) in run.searches.iter_mut().enumerate() {
        s.teps = top * (i % 4) as f64 / 3.0;
    }
    std::fs::write(&json, Document::Run(Box::new(run.clone())).to_json()).unwrap();
    let sweep = d.join("sweep.json");
    let o = graph500(&[
        "sweep",
        "--from",
        "5",
        "--to",
        "7",
        "--keys",
        "2",
        "--threads",
        "2",
        "-q",
        "--json",
        path_str(&sweep),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (what, input, panels, series) in [("run", &json, 3, 4), ("sweep", &sweep, 2, 2)] {
        let o = graph500(&[
            "plot",
            path_str(input),
            "--out",
            path_str(&svg),
            "-q",
            "--searches",
            "4",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let shapes = shapes(&std::fs::read_to_string(&svg).unwrap());
        let areas = plotting_areas(&shapes);
        assert_eq!(areas.len(), panels, "{what}: {areas:?}");
        let legends = legends(&shapes);
        assert_eq!(legends.len(), panels, "{what}: a legend per panel");
        for (legend, entries) in &legends {
            for area in &areas {
                assert!(
                    !overlap(*legend, *area),
                    "{what}: legend {legend:?} over {area:?}"
                );
            }
            assert!(!entries.is_empty(), "{what}: an empty legend");
        }
        // Every marker not in a legend is a data point of some panel.
        let data: Vec<_> = (shapes.iter())
            .filter_map(marker)
            .filter(|m| !legends.iter().any(|(b, _)| inside(m.0, *b)))
            .collect();
        assert!(data.len() >= 2 * series, "{what}: {data:?}");
        for m in &data {
            assert!(
                areas.iter().any(|a| inside(m.0, *a)),
                "{what}: {m:?} outside the panels"
            );
        }
        // The legends of the series (every entry with a marker but the
        // TEPS panels' one): colours and shapes distinct within a legend,
        // worn by each of that series' points.
        for (legend, entries) in &legends {
            // The panel beside the legend: the plotting area level with it.
            let area = (areas.iter())
                .find(|a| a.1 <= legend.3 && legend.1 <= a.3)
                .unwrap_or_else(|| panic!("{what}: no panel beside {legend:?}"));
            let looks: Vec<&(String, String)> = (entries.iter())
                .filter(|(label, _)| label != "TEPS of a search")
                .filter_map(|(_, look)| look.as_ref())
                .collect();
            if looks.is_empty() {
                continue;
            }
            assert_eq!(looks.len(), series, "{what}: {entries:?}");
            for (i, a) in looks.iter().enumerate() {
                for b in &looks[i + 1..] {
                    assert_ne!(a.0, b.0, "{what}: two series of one colour: {entries:?}");
                    assert_ne!(a.1, b.1, "{what}: two series of one marker: {entries:?}");
                }
                let worn: Vec<_> = (data.iter())
                    .filter(|m| m.1 == a.0 && inside(m.0, *area))
                    .collect();
                assert!(!worn.is_empty(), "{what}: no point of {a:?}");
                assert!(worn.iter().all(|m| m.2 == a.1), "{what}: {a:?} vs {worn:?}");
            }
        }
    }
}
