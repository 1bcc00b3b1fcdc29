//! `graph500 plot`: a run's JSON as an SVG (plotters, no system libraries).
//!
//! Top panel: TEPS of each search, in search order, with the harmonic mean
//! drawn across. Bottom panel, when the run was traced (`--trace`): the
//! frontier size of each level for the first few searches, on a log scale,
//! each step marked by its direction (circle top-down, triangle bottom-up).

use crate::cli::args::PlotArgs;
use crate::cli::progress::Progress;
use anyhow::{Context, bail};
use harness::block::format_g;
use harness::report::{Document, RunReport};
use plotters::prelude::*;
use std::process::ExitCode;

/// One search as the plot needs it.
struct Search {
    teps: f64,
    /// (frontier size, bottom-up?) per level, if traced.
    levels: Option<Vec<(u64, bool)>>,
    root: u64,
}

/// Reads the JSON, draws, writes the SVG (atomically).
pub(crate) fn plot(args: &PlotArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    crate::cli::output::check([&args.results], [&args.out])?;
    let text = std::fs::read_to_string(&args.results)
        .with_context(|| args.results.display().to_string())?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not JSON", args.results.display()))?;
    let document = serde_json::from_value::<Document>(json).with_context(|| {
        format!(
            "{}: not the JSON of a graph500 run, sweep or profile",
            args.results.display()
        )
    })?;
    let Document::Run(json) = document else {
        bail!("{}: not the JSON of a graph500 run", args.results.display());
    };
    let (searches, harmonic_mean) = searches_of(&json)
        .with_context(|| format!("{}: a run without searches", args.results.display()))?;
    let traced: Vec<&Search> = searches
        .iter()
        .filter(|s| s.levels.is_some())
        .take(args.searches as usize)
        .collect();
    let height = if traced.is_empty() { 420 } else { 860 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let panels = if traced.is_empty() {
            vec![root.clone()]
        } else {
            root.split_evenly((2, 1))
        };
        teps_panel(&panels[0], &searches, harmonic_mean, &json).map_err(draw_error)?;
        if let Some(panel) = panels.get(1) {
            frontier_panel(panel, &traced).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    crate::cli::commands::write_text(&args.out, &svg)?;
    progress.say(&format!("wrote {}", args.out.display()));
    Ok(ExitCode::SUCCESS)
}

fn draw_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the plot: {e:?}")
}

/// The searches of a run's JSON and its harmonic-mean TEPS.
fn searches_of(json: &RunReport) -> Option<(Vec<Search>, f64)> {
    let searches: Vec<Search> = json
        .searches
        .iter()
        .map(|s| Search {
            teps: s.teps,
            levels: s.trace.as_ref().map(|trace| {
                trace
                    .iter()
                    .map(|l| (l.frontier, l.is_bottom_up()))
                    .collect()
            }),
            root: s.root.into(),
        })
        .collect();
    if searches.is_empty() {
        return None;
    }
    Some((searches, json.statistics.bfs.teps.harmonic_mean))
}

fn teps_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    searches: &[Search],
    harmonic_mean: f64,
    json: &RunReport,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let n = searches.len();
    let top = searches
        .iter()
        .map(|s| s.teps)
        .fold(harmonic_mean, f64::max)
        * 1.1;
    let title = format!(
        "TEPS per search: SCALE {}, kernel {}, {} threads",
        json.statistics.scale, json.options.kernel, json.options.threads,
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0f64..top)?;
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
    chart.draw_series(LineSeries::new(points.clone(), BLUE.mix(0.4)))?;
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?
        .label("TEPS of a search")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, BLUE.filled()));
    chart
        .draw_series(LineSeries::new(
            [(0.5, harmonic_mean), (n as f64 + 0.5, harmonic_mean)],
            RED.stroke_width(2),
        ))?
        .label(format!("harmonic mean {}", format_g(harmonic_mean, 4)))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
}

fn frontier_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
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
    let mut chart = ChartBuilder::on(area)
        .caption(
            "frontier size per level (circle: top-down, triangle: bottom-up)",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(
            -0.5f64..deepest as f64 - 0.5,
            (1f64..largest as f64 * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("level")
        .y_desc("frontier vertices")
        .y_label_formatter(&|y| format_g(*y, 3))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    for (i, search) in traced.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let points: Vec<(f64, f64, bool)> = levels(search)
            .into_iter()
            .enumerate()
            .filter(|&(_, (f, _))| f > 0)
            .map(|(level, (f, bottom_up))| (level as f64, f as f64, bottom_up))
            .collect();
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&(x, y, _)| (x, y)),
                color.stroke_width(2),
            ))?
            .label(format!("root {}", search.root))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(
            points
                .iter()
                .filter(|p| !p.2)
                .map(|&(x, y, _)| Circle::new((x, y), 5, color.filled())),
        )?;
        chart.draw_series(
            points
                .iter()
                .filter(|p| p.2)
                .map(|&(x, y, _)| TriangleMarker::new((x, y), 7, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
}
