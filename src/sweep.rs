//! `graph500 sweep`: the scaling report. Runs the benchmark at each scale
//! of a range on 1 thread and on all threads, each run in its own process
//! (a fresh thread pool, and a peak memory that is that run's alone), and
//! collects TEPS, construction time, validation time and peak memory into a
//! Markdown table (stdout) and, with `--json`, a JSON file.

use crate::cli::SweepArgs;
use crate::progress::Progress;
use crate::report;
use anyhow::{Context, bail};
use std::process::{Command, ExitCode};

/// One configuration's figures.
#[derive(Debug, serde::Serialize)]
pub(crate) struct SweepRow {
    scale: u32,
    threads: usize,
    harmonic_mean_teps: f64,
    mean_time: f64,
    construction_time: f64,
    mean_validate: Option<f64>,
    peak_memory_bytes: Option<u64>,
    /// Peak memory over the edge tuples of the graph.
    peak_bytes_per_edge: Option<f64>,
}

#[derive(serde::Serialize)]
struct SweepReport<'a> {
    program: &'static str,
    machine: String,
    kernel: &'static str,
    keys: u32,
    rows: &'a [SweepRow],
}

/// Runs the sweep.
pub(crate) fn sweep(
    args: &SweepArgs,
    threads: Option<u16>,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    crate::output::check(crate::output::NO_INPUTS, &args.json)?;
    if args.from > args.to {
        bail!("--from {} is above --to {}", args.from, args.to);
    }
    let all = threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let mut thread_counts = vec![1, all];
    thread_counts.dedup();
    let program = std::env::current_exe().context("finding this program to run it")?;
    let folder = tempfile::tempdir().context("making a temporary folder")?;
    let mut rows = Vec::new();
    for scale in args.from..=args.to {
        for &t in &thread_counts {
            crate::interrupt::check()?;
            progress.say(&format!("SCALE {scale} on {t} thread(s)"));
            let json = folder.path().join(format!("s{scale}-t{t}.json"));
            let output = Command::new(&program)
                .args([
                    "run",
                    "--quiet",
                    "--scale",
                    &scale.to_string(),
                    "--keys",
                    &args.keys.to_string(),
                ])
                .args([
                    "--kernel",
                    args.kernel.name(),
                    "--threads",
                    &t.to_string(),
                    "--json",
                ])
                .arg(&json)
                .output()
                .context("starting a run")?;
            if !output.status.success() {
                let err = String::from_utf8_lossy(&output.stderr);
                bail!(
                    "the run at SCALE {scale} on {t} thread(s) failed: {}",
                    err.trim()
                );
            }
            let text = std::fs::read_to_string(&json).context("reading a run's JSON")?;
            rows.push(row_of(scale, t, &serde_json::from_str(&text)?)?);
        }
    }
    crate::console::out(&table(&rows))?;
    if let Some(path) = &args.json {
        report::write_json(
            path,
            &SweepReport {
                program: "graph500 sweep",
                machine: crate::system::describe_machine(),
                kernel: args.kernel.name(),
                keys: args.keys,
                rows: &rows,
            },
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn row_of(scale: u32, threads: usize, run: &serde_json::Value) -> anyhow::Result<SweepRow> {
    let number = |pointer: &str| {
        run.pointer(pointer)
            .and_then(serde_json::Value::as_f64)
            .with_context(|| format!("a run's JSON lacks {pointer}"))
    };
    let edges = number("/graph/num_edges")?;
    let peak = run["peak_memory_bytes"].as_u64();
    Ok(SweepRow {
        scale,
        threads,
        harmonic_mean_teps: number("/statistics/teps/harmonic_mean")?,
        mean_time: number("/statistics/time/mean")?,
        construction_time: number("/statistics/construction_time")?,
        mean_validate: run
            .pointer("/statistics/validate/mean")
            .and_then(serde_json::Value::as_f64),
        peak_memory_bytes: peak,
        peak_bytes_per_edge: peak.map(|p| p as f64 / edges),
    })
}

fn table(rows: &[SweepRow]) -> String {
    let mut out = String::from(
        "| SCALE | threads | harmonic-mean TEPS | mean BFS (s) | construction (s) | mean validation (s) | peak memory (MiB) | bytes per edge |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let g = |x: f64| report::format_g(x, 4);
    for r in rows {
        let validate = r.mean_validate.map_or("-".to_string(), g);
        let peak = r.peak_memory_bytes.map_or("-".to_string(), |b| {
            format!("{:.0}", b as f64 / 1_048_576.0)
        });
        let per_edge = r
            .peak_bytes_per_edge
            .map_or("-".to_string(), |b| format!("{b:.1}"));
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scale,
            r.threads,
            g(r.harmonic_mean_teps),
            g(r.mean_time),
            g(r.construction_time),
            validate,
            peak,
            per_edge
        );
    }
    out
}
