//! `graph500 plot`: a run's or a sweep's JSON as an SVG (plotters, no
//! system libraries).
//!
//! A run. Top panel: TEPS of each search, in search order, with the
//! harmonic mean drawn across. Bottom panel, when the run was traced
//! (`--trace`) by a kernel that records levels: the frontier size of each
//! level for the first few searches with levels, on a log scale, each step
//! marked by its direction (hollow marker top-down, filled bottom-up).
//!
//! A sweep (`graph500 sweep --json`). Top panel: harmonic-mean TEPS
//! against SCALE; bottom panel: construction time against SCALE, on a log
//! scale. One line per thread count of the sweep (1 and all).
//!
//! Every panel has its legend in a column to its right, outside the
//! plotting area, so that it hides no point; the series of a panel differ
//! in colour and in marker shape ([`Look::series`]) and are moved a little
//! apart along x ([`dodge`]), so that a line drawn over another still
//! shows its points.
//!
//! A profile's JSON is refused: its rows are engines, not a series.

use crate::cli::args::PlotArgs;
use crate::cli::progress::Progress;
use anyhow::{Context, anyhow, bail};
use harness::block::format_g;
use harness::report::{Document, RunReport, SweepReport, SweepRow};
use plotters::coord::CoordTranslate;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::process::ExitCode;

/// Pixels of the legend column right of every panel.
const LEGEND_WIDTH: u32 = 240;

/// The width of a plot: 960 pixels of panels and the legend column.
const WIDTH: u32 = 960 + LEGEND_WIDTH;

/// The colours series take, in order: matplotlib's ten distinct hues,
/// then black and navy (at most 12 series: `--searches` 1..=12).
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
];

/// The marker shapes series take, in order, one per colour of
/// [`PALETTE`].
const MARKERS: [Marker; 12] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Star,
    Marker::Plus,
    Marker::Cross,
    Marker::Pentagon,
    Marker::TriangleLeft,
    Marker::Hexagon,
    Marker::TriangleRight,
];

/// The shape drawn at each point of a series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Star,
    Plus,
    Cross,
    Pentagon,
    TriangleLeft,
    Hexagon,
    TriangleRight,
}

impl Marker {
    /// The outline of a marker of radius `r` around (0, 0), in pixels
    /// (y down); `None` for a circle.
    #[allow(clippy::cast_possible_truncation)] // a few pixels
    fn vertices(self, r: u32) -> Option<Vec<(i32, i32)>> {
        let r = f64::from(r);
        // k points at `radius(i)` from the centre, the first at `start`
        // degrees (0: right, 90: down).
        let ring = |k: usize, start: f64, radius: &dyn Fn(usize) -> f64| -> Vec<(i32, i32)> {
            (0..k)
                .map(|i| {
                    let a = (start + 360.0 * i as f64 / k as f64).to_radians();
                    let d = radius(i);
                    ((d * a.cos()).round() as i32, (d * a.sin()).round() as i32)
                })
                .collect()
        };
        let regular = |k: usize, start: f64| ring(k, start, &|_| r);
        // A plus of arms `w` wide either side, turned by `turn` degrees.
        let plus = |turn: f64| {
            let w = 0.35 * r;
            let arm = [(w, r), (w, w), (r, w)];
            let points: Vec<(f64, f64)> = (0..4)
                .flat_map(|q| {
                    arm.map(|(x, y)| {
                        let a = (turn + 90.0 * f64::from(q)).to_radians();
                        (x * a.cos() - y * a.sin(), x * a.sin() + y * a.cos())
                    })
                })
                .collect();
            let round = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
            points.into_iter().map(round).collect::<Vec<_>>()
        };
        Some(match self {
            Marker::Circle => return None,
            Marker::Square => ring(4, 45.0, &|_| r * 1.2),
            Marker::Diamond => ring(4, 0.0, &|_| r * 1.2),
            Marker::TriangleUp => regular(3, -90.0),
            Marker::TriangleDown => regular(3, 90.0),
            Marker::TriangleLeft => regular(3, 180.0),
            Marker::TriangleRight => regular(3, 0.0),
            Marker::Pentagon => regular(5, -90.0),
            Marker::Hexagon => regular(6, 0.0),
            Marker::Star => ring(10, -90.0, &|i| if i % 2 == 0 { r * 1.2 } else { r * 0.5 }),
            Marker::Plus => plus(0.0),
            Marker::Cross => plus(45.0),
        })
    }
}

/// Draws on `area` a marker of radius `r` at `at` in `color`: filled, or
/// `hollow` (white inside, outlined). One element at a time, so that a
/// circle is a circle and any other shape a polygon.
fn mark<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    (marker, r): (Marker, u32),
    color: RGBColor,
    hollow: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    CT::From: Clone,
{
    let (fill, edge) = if hollow {
        (WHITE.filled(), Some(color.stroke_width(2)))
    } else {
        (color.filled(), None)
    };
    match marker.vertices(r) {
        None => {
            area.draw(&(EmptyElement::at(at.clone()) + Circle::new((0, 0), r, fill)))?;
            if let Some(edge) = edge {
                area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), r, edge)))?;
            }
        }
        Some(outline) => {
            let mut closed = outline.clone();
            closed.extend(outline.first().copied());
            area.draw(&(EmptyElement::at(at.clone()) + Polygon::new(outline, fill)))?;
            if let Some(edge) = edge {
                area.draw(&(EmptyElement::at(at) + PathElement::new(closed, edge)))?;
            }
        }
    }
    Ok(())
}

/// How a series is drawn, and shown in its legend: its colour, a marker
/// at each point (shape and radius), and a line through the points
/// (width and opacity).
#[derive(Clone, Copy, Debug)]
struct Look {
    color: RGBColor,
    marker: Option<(Marker, u32)>,
    line: Option<(u32, f64)>,
}

impl Look {
    /// The `i`-th series of a panel: a colour and a marker shape of its
    /// own (up to 12 series), on a line.
    fn series(i: usize) -> Look {
        Look {
            color: PALETTE[i % PALETTE.len()],
            marker: Some((MARKERS[i % MARKERS.len()], 5)),
            line: Some((2, 1.0)),
        }
    }

    /// The TEPS of each search: small dots on a faint line.
    const TEPS: Look = Look {
        color: PALETTE[0],
        marker: Some((Marker::Circle, 3)),
        line: Some((1, 0.4)),
    };

    /// A level drawn across a panel (the harmonic mean): a line, no marker.
    const LEVEL: Look = Look {
        color: PALETTE[3],
        marker: None,
        line: Some((2, 1.0)),
    };

    /// Draws `points` in this look on `chart`: the line, then each
    /// point's marker, hollow where `hollow` says.
    fn draw<DB: DrawingBackend>(
        self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Axis, Axis>>,
        points: &[(f64, f64)],
        hollow: impl Fn(usize) -> bool,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        if let Some((width, opacity)) = self.line {
            let style = self.color.mix(opacity).stroke_width(width);
            chart.draw_series(LineSeries::new(points.iter().copied(), style))?;
        }
        if let Some(marker) = self.marker {
            for (i, &at) in points.iter().enumerate() {
                mark(chart.plotting_area(), at, marker, self.color, hollow(i))?;
            }
        }
        Ok(())
    }
}

/// How far series `i` of `n` is moved along a whole-numbered x axis
/// (levels, SCALEs), so that series with equal values do not hide one
/// another: at most 0.08 apart, all within 0.4, centred on the value.
fn dodge(i: usize, n: usize) -> f64 {
    let step = match n {
        0 | 1 => return 0.0,
        n => (0.4 / (n - 1) as f64).min(0.08),
    };
    step * (i as f64 - (n - 1) as f64 / 2.0)
}

/// Splits a panel's `area` into the part its chart is drawn on and the
/// legend column to its right.
fn beside_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let width = area.dim_in_pixel().0;
    area.split_horizontally(width.saturating_sub(LEGEND_WIDTH))
}

/// Draws the legend of `entries` (label, look) in `column`, a panel's
/// legend column, its top level with the top of `chart`'s plotting area:
/// a bordered box, each entry a sample of its line and marker and its
/// label.
fn legend<DB: DrawingBackend, X, Y>(
    column: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    entries: &[(String, Look)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    X: Ranged,
    Y: Ranged,
{
    const ROW: i32 = 24;
    let top = chart.plotting_area().get_pixel_range().1.start - column.get_base_pixel().1;
    let rows = i32::try_from(entries.len()).expect("a few entries");
    let (left, right) = (8, i32::try_from(LEGEND_WIDTH).expect("a few pixels") - 8);
    let bottom = top + ROW * rows + 8;
    column.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        BLACK.mix(0.3).stroke_width(1),
    ))?;
    let font =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, look)) in (0..).zip(entries) {
        let y = top + 4 + ROW * i + ROW / 2;
        if let Some((width, opacity)) = look.line {
            let style = look.color.mix(opacity).stroke_width(width);
            column.draw(&PathElement::new(
                vec![(left + 8, y), (left + 36, y)],
                style,
            ))?;
        }
        if let Some(marker) = look.marker {
            mark(column, (left + 22, y), marker, look.color, false)?;
        }
        column.draw(&Text::new(label.clone(), (left + 44, y), font.clone()))?;
    }
    Ok(())
}

/// One search as the plot needs it.
struct Search {
    teps: f64,
    /// (frontier size, bottom-up?) per level, if traced with levels.
    levels: Option<Vec<(u64, bool)>>,
    root: u64,
}

/// Reads the JSON, draws, writes the SVG (atomically).
pub(crate) fn plot(args: &PlotArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    crate::cli::output::check([&args.results], [&args.out])?;
    let file = args.results.display().to_string();
    let text = std::fs::read_to_string(&args.results).with_context(|| file.clone())?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow!("{file}: not JSON: {}", located(&e, &text)))?;
    let document = serde_json::from_value::<Document>(json)
        .with_context(|| format!("{file}: not the JSON of a graph500 run, sweep or profile"))?;
    let svg = match document {
        Document::Run(run) => run_svg(&file, &run, args.searches as usize)?,
        Document::Sweep(sweep) => sweep_svg(&file, &sweep)?,
        Document::Profile(_) => bail!(
            "{file}: the JSON of graph500 profile, which plot does not draw (runs and sweeps only)"
        ),
    };
    crate::cli::commands::write_text(&args.out, &svg)?;
    progress.say(&format!("wrote {}", args.out.display()));
    Ok(ExitCode::SUCCESS)
}

/// A run as SVG: the TEPS panel, the SSSP TEPS panel of a run of both
/// kernels, and the frontier panel of up to `shown` searches if any has
/// levels.
fn run_svg(file: &str, run: &RunReport, shown: usize) -> anyhow::Result<String> {
    let (searches, harmonic_mean) =
        searches_of(run).with_context(|| format!("{file}: a run without searches"))?;
    check_plottable(file, "", &searches, harmonic_mean)?;
    let sssp = sssp_searches_of(run);
    if let Some((rows, mean)) = &sssp {
        check_plottable(file, "SSSP ", rows, *mean)?;
    }
    let traced: Vec<&Search> = searches
        .iter()
        .filter(|s| s.levels.is_some())
        .take(shown)
        .collect();
    let rows = 1 + usize::from(sssp.is_some()) + usize::from(!traced.is_empty());
    let height = u32::try_from(430 * rows).expect("a few panels");
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let panels = root.split_evenly((rows, 1));
        let mut panels = panels.iter();
        let mut next = || panels.next().expect("one panel per row");
        let kernel = format!("kernel {}", run.options.kernel);
        teps_panel(next(), &searches, harmonic_mean, &kernel, run).map_err(draw_error)?;
        if let Some((rows, mean)) = &sssp {
            let kernel = "kernel sssp (delta-stepping)";
            teps_panel(next(), rows, *mean, kernel, run).map_err(draw_error)?;
        }
        if !traced.is_empty() {
            frontier_panel(next(), &traced).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// Fails, naming the search, unless every TEPS and the harmonic mean are
/// finite and non-negative (what the panels can draw).
fn check_plottable(file: &str, what: &str, searches: &[Search], mean: f64) -> anyhow::Result<()> {
    if let Some((i, s)) = searches
        .iter()
        .enumerate()
        .find(|(_, s)| !plottable(s.teps))
    {
        bail!(
            "{file}: {what}search {} has TEPS {}; plot draws finite, non-negative TEPS",
            i + 1,
            figure(s.teps)
        );
    }
    if !plottable(mean) {
        bail!(
            "{file}: the harmonic mean of {what}TEPS is {}; plot draws finite, non-negative TEPS",
            figure(mean)
        );
    }
    Ok(())
}

/// The SSSP searches of a run of both kernels and their harmonic-mean TEPS.
fn sssp_searches_of(json: &RunReport) -> Option<(Vec<Search>, f64)> {
    let rows = json.sssp_searches.as_ref().filter(|r| !r.is_empty())?;
    let searches = rows
        .iter()
        .map(|s| Search {
            teps: s.teps,
            levels: None,
            root: s.root,
        })
        .collect();
    Some((searches, json.statistics.sssp?.teps.harmonic_mean))
}

/// A sweep as SVG: harmonic-mean TEPS against SCALE (linear, from 0) above
/// construction time against SCALE (log: it doubles with each SCALE), one
/// line per thread count.
fn sweep_svg(file: &str, sweep: &SweepReport) -> anyhow::Result<String> {
    if sweep.rows.is_empty() {
        bail!("{file}: a sweep without rows");
    }
    for r in &sweep.rows {
        let at = format!("SCALE {} on {}", r.scale, threads(r.threads));
        if !plottable(r.harmonic_mean_teps) {
            bail!(
                "{file}: {at} has harmonic-mean TEPS {}; plot draws finite, non-negative TEPS",
                figure(r.harmonic_mean_teps)
            );
        }
        if !(r.construction_time.is_finite() && r.construction_time >= f64::MIN_POSITIVE) {
            bail!(
                "{file}: {at} has construction time {} s; a log axis needs finite, positive times",
                figure(r.construction_time)
            );
        }
    }
    let mut thread_counts: Vec<usize> = sweep.rows.iter().map(|r| r.threads).collect();
    thread_counts.sort_unstable();
    thread_counts.dedup();
    let series = |y: fn(&SweepRow) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
        thread_counts
            .iter()
            .map(|&t| {
                let mut rows: Vec<&SweepRow> =
                    sweep.rows.iter().filter(|r| r.threads == t).collect();
                rows.sort_by_key(|r| r.scale);
                let points = rows.iter().map(|r| (f64::from(r.scale), y(r))).collect();
                (threads(t), points)
            })
            .collect()
    };
    let scales = || sweep.rows.iter().map(|r| f64::from(r.scale));
    let (first, last) = (
        scales().fold(f64::INFINITY, f64::min),
        scales().fold(f64::NEG_INFINITY, f64::max),
    );
    let scale_axis = || Axis::linear(first - 0.5, last + 0.5, 12, true);
    let highest = sweep
        .rows
        .iter()
        .map(|r| r.harmonic_mean_teps)
        .fold(0.0, f64::max);
    let times = || sweep.rows.iter().map(|r| r.construction_time);
    let (fastest, slowest) = (
        times().fold(f64::INFINITY, f64::min),
        times().fold(0.0, f64::max),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 860)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let panels = root.split_evenly((2, 1));
        series_panel(
            &panels[0],
            (
                &format!(
                    "harmonic-mean TEPS per SCALE: kernel {}, {} searches per run",
                    sweep.kernel, sweep.keys
                ),
                "harmonic-mean TEPS",
            ),
            (
                scale_axis(),
                Axis::linear(0.0, headroom(highest), 10, false),
            ),
            &series(|r| r.harmonic_mean_teps),
        )
        .map_err(draw_error)?;
        series_panel(
            &panels[1],
            (
                "construction time (kernel 1) per SCALE",
                "construction time (s)",
            ),
            (
                scale_axis(),
                Axis::log(fastest / 2.0, (slowest * 2.0).min(f64::MAX), 10),
            ),
            &series(|r| r.construction_time),
        )
        .map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// "1 thread", "8 threads".
fn threads(n: usize) -> String {
    crate::cli::progress::count(n, "thread")
}

/// The top of a linear axis from 0 showing `highest`: 10% above it, within
/// f64, and 1 if everything is 0.
fn headroom(highest: f64) -> f64 {
    match (highest * 1.1).min(f64::MAX) {
        0.0 => 1.0,
        top => top,
    }
}

/// One panel of a sweep: a line with markers for each (label, points)
/// against SCALE, each series in its own [`Look::series`].
fn series_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (title, y_desc): (&str, &str),
    (x, y): (Axis, Axis),
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (area, column) = beside_legend(area);
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc("SCALE")
        .y_desc(y_desc)
        .y_label_formatter(&|y| format_g(*y, 3))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let mut entries = Vec::new();
    for (i, (label, points)) in series.iter().enumerate() {
        let look = Look::series(i);
        let dodge = dodge(i, series.len());
        let points: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x + dodge, y)).collect();
        look.draw(&mut chart, &points, |_| false)?;
        entries.push((label.clone(), look));
    }
    legend(&column, &chart, &entries)
}

fn draw_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the plot: {e:?}")
}

/// A figure a linear axis from 0 can show.
fn plottable(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// `x` in full (the shortest text that reads back as `x`), in scientific
/// notation when very large or small.
fn figure(x: f64) -> String {
    if x != 0.0 && !(1e-5..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A JSON syntax error with the text it stopped at, so that the message
/// names the offending value (`1e999`, beyond f64) and not just its place.
fn located(e: &serde_json::Error, text: &str) -> String {
    let Some(line) = e.line().checked_sub(1).and_then(|l| text.lines().nth(l)) else {
        return e.to_string();
    };
    let chars: Vec<char> = line.chars().collect();
    let end = e.column().min(chars.len());
    let near: String = chars[end.saturating_sub(40)..(end + 10).min(chars.len())]
        .iter()
        .map(|&c| if c.is_control() { '?' } else { c })
        .collect();
    format!("{e}, near `{}`", near.trim())
}

/// An axis of figures whose key points (the labelled values) are chosen
/// here, by [`linear_ticks`] or [`log_ticks`]: plotters' own choice loops
/// forever on ranges it cannot divide (an infinite end, or a range near
/// `f64::MAX`, the headroom above which overflows), so no axis uses it.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl Axis {
    /// `lo..hi` on a linear scale, with at most `max + 1` key points, whole
    /// numbers on an `integer` axis.
    fn linear(lo: f64, hi: f64, max: usize, integer: bool) -> Axis {
        let ticks = linear_ticks(lo, hi, max, integer);
        Axis {
            lo,
            hi,
            log: false,
            ticks,
        }
    }

    /// `lo..hi` on a log scale (`0 < lo <= hi`), with at most `max + 1` key
    /// points.
    fn log(lo: f64, hi: f64, max: usize) -> Axis {
        let ticks = log_ticks(lo, hi, max);
        Axis {
            lo,
            hi,
            log: true,
            ticks,
        }
    }

    /// Where `v` lies along the axis, before scaling to pixels.
    fn position(&self, v: f64) -> f64 {
        if self.log { v.ln() } else { v }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    #[allow(clippy::cast_possible_truncation)] // clamped to a few times the pixel range
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.position(self.lo), self.position(self.hi));
        // Halved, so that a span up to f64::MAX does not overflow.
        let t = (self.position(*v) / 2.0 - a / 2.0) / (b / 2.0 - a / 2.0);
        let t = if t.is_nan() { 0.5 } else { t.clamp(-4.0, 4.0) };
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // The labelled lines only; no lighter lines between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// At most `max + 1` round values (multiples of 1, 2 or 5 times a power of
/// ten; of at least 1 on an `integer` axis) from `lo` to `hi`, in a bounded
/// number of steps whatever the floats.
#[allow(clippy::cast_possible_truncation)] // a decade's exponent; a count at most max + 1
fn linear_ticks(lo: f64, hi: f64, max: usize, integer: bool) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || lo > hi || max == 0 {
        return Vec::new();
    }
    let span = hi - lo;
    let least = span / max as f64;
    if !span.is_finite() || least < f64::MIN_POSITIVE {
        // A range too wide to divide, too narrow to need dividing, or empty.
        return if lo < hi { vec![lo, hi] } else { vec![lo] };
    }
    let decade = 10f64.powi(least.log10().floor() as i32);
    let Some(mut step) = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&s| s >= least && s.is_finite())
    else {
        return vec![lo, hi];
    };
    if integer {
        step = step.max(1.0);
    }
    let first = (lo / step).ceil();
    let count = ((hi / step).floor() - first + 1.0).clamp(0.0, max as f64 + 1.0) as usize;
    // `+ 0.0` turns -0 into 0 (a label "-0" otherwise). Rounding can put a
    // multiple just outside the range (`lo / step` underflowing to 0) or
    // make two equal (`first + k` beyond 2^53): dropped.
    let mut ticks: Vec<f64> = (0..count)
        .map(|k| (first + k as f64) * step + 0.0)
        .filter(|t| (lo..=hi).contains(t))
        .collect();
    ticks.dedup();
    if ticks.is_empty() && !integer {
        return if lo < hi { vec![lo, hi] } else { vec![lo] };
    }
    ticks
}

/// The searches of a run's JSON and its harmonic-mean TEPS.
fn searches_of(json: &RunReport) -> Option<(Vec<Search>, f64)> {
    let searches: Vec<Search> = json
        .searches
        .iter()
        .map(|s| Search {
            teps: s.teps,
            // Kernels that record no levels (seq) leave an empty trace:
            // nothing to draw, so untraced.
            levels: s.trace.as_ref().filter(|t| !t.is_empty()).map(|trace| {
                trace
                    .iter()
                    .map(|l| (l.frontier, l.is_bottom_up()))
                    .collect()
            }),
            root: s.root,
        })
        .collect();
    if searches.is_empty() {
        return None;
    }
    Some((searches, json.statistics.bfs.teps.harmonic_mean))
}

fn teps_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    searches: &[Search],
    harmonic_mean: f64,
    kernel: &str,
    json: &RunReport,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let n = searches.len();
    let highest = searches
        .iter()
        .map(|s| s.teps)
        .fold(harmonic_mean, f64::max);
    let top = headroom(highest);
    let title = format!(
        "TEPS per search: SCALE {}, {kernel}, {} threads",
        json.statistics.scale, json.options.threads,
    );
    let (area, column) = beside_legend(area);
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(
            // Search i at x = i, labelled with whole numbers only.
            Axis::linear(0.5, n as f64 + 0.5, 12, true),
            Axis::linear(0.0, top, 10, false),
        )?;
    chart
        .configure_mesh()
        .x_desc("search")
        .y_desc("TEPS")
        .y_label_formatter(&|y| format_g(*y, 3))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let points: Vec<(f64, f64)> = searches
        .iter()
        .enumerate()
        .map(|(i, s)| (i as f64 + 1.0, s.teps))
        .collect();
    Look::TEPS.draw(&mut chart, &points, |_| false)?;
    let across = [(0.5, harmonic_mean), (n as f64 + 0.5, harmonic_mean)];
    Look::LEVEL.draw(&mut chart, &across, |_| false)?;
    let entries = [
        ("TEPS of a search".to_string(), Look::TEPS),
        (
            format!("harmonic mean {}", format_g(harmonic_mean, 4)),
            Look::LEVEL,
        ),
    ];
    legend(&column, &chart, &entries)
}

fn frontier_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    traced: &[&Search],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let levels = |s: &Search| s.levels.as_deref().unwrap_or_default().to_vec();
    let deepest = traced.iter().map(|s| levels(s).len()).max().unwrap_or(1);
    let largest = traced
        .iter()
        .flat_map(|s| levels(s))
        .map(|(f, _)| f)
        .max()
        .unwrap_or(1);
    let (area, column) = beside_legend(area);
    let mut chart = ChartBuilder::on(&area)
        .caption(
            "frontier size per level (hollow marker: top-down, filled: bottom-up)",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(
            Axis::linear(-0.5, deepest as f64 - 0.5, 12, true),
            Axis::log(1.0, largest as f64 * 2.0, 10),
        )?;
    chart
        .configure_mesh()
        .x_desc("level")
        .y_desc("frontier vertices")
        .y_label_formatter(&|y| format_g(*y, 3))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let mut entries = Vec::new();
    for (i, search) in traced.iter().enumerate() {
        let dodge = dodge(i, traced.len());
        let (points, bottom_up): (Vec<(f64, f64)>, Vec<bool>) = levels(search)
            .into_iter()
            .enumerate()
            .filter(|&(_, (f, _))| f > 0)
            .map(|(level, (f, bottom_up))| ((level as f64 + dodge, f as f64), bottom_up))
            .unzip();
        let look = Look::series(i);
        look.draw(&mut chart, &points, |p| !bottom_up[p])?;
        entries.push((format!("root {}", search.root), look));
    }
    legend(&column, &chart, &entries)
}

/// At most `max + 1` round values from `lo` to `hi` (`0 < lo <= hi`) for a
/// log axis: 1, 2 and 5 times each power of ten if that is few enough,
/// else every power of ten or every few; linear steps within a decade.
#[allow(clippy::cast_possible_truncation)] // exponents of finite floats
fn log_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if !(lo > 0.0 && lo <= hi && hi.is_finite()) || max == 0 {
        return Vec::new();
    }
    // From 10^-324 to 10^309: a bounded loop.
    let exponents = lo.log10().floor() as i32..=hi.log10().ceil() as i32;
    let within = |v: &f64| (lo..=hi).contains(v);
    let fine: Vec<f64> = exponents
        .clone()
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(within)
        .collect();
    if fine.len() < 2 {
        return linear_ticks(lo, hi, max.min(4), false);
    }
    if fine.len() <= max + 1 {
        return fine;
    }
    let decades: Vec<f64> = exponents.map(|e| 10f64.powi(e)).filter(within).collect();
    let stride = decades.len().div_ceil(max + 1).max(1);
    decades.into_iter().step_by(stride).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::num::f64::{NORMAL, POSITIVE, SUBNORMAL, ZERO};
    use proptest::prelude::*;

    proptest! {
        /// Whatever the range, a few increasing key points inside it.
        #[test]
        fn log_ticks_are_few_increasing_and_inside(
            a in POSITIVE | NORMAL | SUBNORMAL,
            b in POSITIVE | NORMAL | SUBNORMAL,
            max in 1usize..20,
        ) {
            let (lo, hi) = (a.min(b), a.max(b));
            let ticks = log_ticks(lo, hi, max);
            prop_assert!(!ticks.is_empty(), "{lo}..{hi}");
            prop_assert!(ticks.len() <= max + 1, "{ticks:?}");
            prop_assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
            prop_assert!(ticks.iter().all(|t| (lo..=hi).contains(t)), "{lo}..{hi}: {ticks:?}");
        }

        /// Whatever the range, a few increasing key points inside it.
        #[test]
        fn linear_ticks_are_few_increasing_and_inside(
            a in POSITIVE | NORMAL | SUBNORMAL | ZERO,
            b in POSITIVE | NORMAL | SUBNORMAL | ZERO,
            max in 1usize..20,
            integer: bool,
        ) {
            let (lo, hi) = (a.min(b), a.max(b));
            let ticks = linear_ticks(lo, hi, max, integer);
            prop_assert!(!ticks.is_empty() || integer, "{lo}..{hi}");
            prop_assert!(ticks.len() <= max + 1, "{ticks:?}");
            prop_assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
            prop_assert!(ticks.iter().all(|t| (lo..=hi).contains(t)), "{lo}..{hi}: {ticks:?}");
        }
    }

    #[test]
    fn linear_ticks_are_round() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 10, false),
            (0..=10).map(f64::from).collect::<Vec<_>>()
        );
        assert_eq!(linear_ticks(0.5, 4.5, 12, true), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(linear_ticks(-0.5, 2.5, 12, true), [0.0, 1.0, 2.0]);
        assert_eq!(linear_ticks(0.0, f64::MAX, 10, false).len(), 9);
        assert_eq!(linear_ticks(0.0, 0.0, 10, false), [0.0]);
        // Found by the property above: lo / step underflows to 0.
        let (lo, hi) = (1.3405102620592433e-308, 1.2464142374432677e157);
        assert_eq!(linear_ticks(lo, hi, 1, false), [lo, hi]);
        // Multiples beyond 2^53 steps from 0 round to equal values.
        let ticks = linear_ticks(1e20, 1e20 + 1e5, 10, false);
        assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
        assert!(ticks.iter().all(|t| (1e20..=1e20 + 1e5).contains(t)));
        assert_eq!(
            log_ticks(1.0, 2000.0, 10),
            [
                1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0
            ]
        );
        assert_eq!(
            log_ticks(1.0, 1e6, 10),
            [1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0, 1e6]
        );
        assert_eq!(log_ticks(f64::MIN_POSITIVE, f64::MAX, 10).len(), 11);
    }
}
