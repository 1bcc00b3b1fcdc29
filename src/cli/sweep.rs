//! `graph500 sweep`: the scaling report. Runs the benchmark at each scale
//! of a range on 1 thread and on all threads, each run in its own process
//! (a fresh thread pool, and a peak memory that is that run's alone), and
//! collects TEPS, construction time, validation time and peak memory into a
//! Markdown table (stdout) and, with `--json`, a JSON file.

use crate::cli::args::SweepArgs;
use crate::cli::commands::write_text;
use crate::cli::progress::Progress;
use anyhow::{Context, bail};
use harness::block::format_g;
use harness::report::{Document, SweepReport, SweepRow};
use std::process::{Command, ExitCode};

/// Runs the sweep.
pub(crate) fn sweep(
    args: &SweepArgs,
    threads: Option<u16>,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    crate::cli::output::check(crate::cli::output::NO_INPUTS, &args.json)?;
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
            crate::cli::interrupt::check()?;
            progress.say(&format!(
                "SCALE {scale} on {}",
                crate::cli::progress::count(t, "thread")
            ));
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
                    "the run at SCALE {scale} on {} failed: {}",
                    crate::cli::progress::count(t, "thread"),
                    err.trim()
                );
            }
            let text = std::fs::read_to_string(&json).context("reading a run's JSON")?;
            match Document::from_json(&text).context("reading a run's JSON")? {
                Document::Run(run) => rows.push(SweepRow::of(&run)),
                _ => bail!("the run at SCALE {scale} wrote another kind of JSON"),
            }
        }
    }
    crate::cli::console::out(&table(&rows))?;
    if let Some(path) = &args.json {
        let report = SweepReport {
            machine: harness::system::describe_machine(),
            kernel: args.kernel.name().to_string(),
            keys: args.keys,
            rows,
        };
        write_text(path, &Document::Sweep(report).to_json())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(rows: &[SweepRow]) -> String {
    let mut out = String::from(
        "| SCALE | threads | harmonic-mean TEPS | mean BFS (s) | construction (s) | mean validation (s) | peak memory (MiB) | bytes per edge |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let g = |x: f64| format_g(x, 4);
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
