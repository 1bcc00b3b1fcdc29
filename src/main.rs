//! `graph500`: the command-line front end. It parses options, calls the
//! library crates (`generator`, `kernels`, `validate`) and prints; it holds
//! no algorithm.
//!
//! Exit status: 0 success, 1 a search failed validation, 2 bad input (a
//! one-line message on stderr names what and where).

#![allow(clippy::print_stdout, clippy::print_stderr)] // the one place that prints

mod cli;
mod commands;
mod progress;
mod report;
mod run;

use anyhow::Context;
use clap::Parser;
use cli::{Cli, Command, RunArgs};
use progress::Progress;
use report::{JsonGraph, JsonOptions, JsonReport, RunStatistics};
use run::{GraphSource, Outcome, RunPlan};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprintln!("graph500: {}", cli::one_line(&e));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            print!("{e}");
            return ExitCode::SUCCESS;
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("graph500: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.into())
            .build_global()
            .context("starting the thread pool")?;
    }
    let progress = Progress::new(cli.quiet);
    match &cli.command {
        None => benchmark(&cli.run, &progress),
        Some(Command::Run(args)) => benchmark(args, &progress),
        Some(Command::Generate(args)) => commands::generate(args, &progress),
        Some(Command::Bfs(args)) => commands::bfs(args, &progress),
        Some(Command::Validate(args)) => commands::validate(args, &progress),
    }
}

/// `graph500 run`: the benchmark, the statistics block, optionally JSON.
fn benchmark(args: &RunArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    if let Some(json) = &args.json {
        ensure_folder_exists(json)?;
    }
    let k = &args.kronecker;
    let source = match &args.input {
        Some(path) => GraphSource::File(path.clone()),
        None => GraphSource::Kronecker(generator::Kronecker::new(k.scale, k.edgefactor, k.seed)?),
    };
    let plan = RunPlan {
        source,
        seed: k.seed,
        keys: usize::try_from(args.keys).expect("at most 100000"),
        kernel: args.kernel.into(),
        validate: !args.no_validate,
    };
    let measured = match run::run(&plan, progress)? {
        Outcome::Valid(measured) => measured,
        Outcome::Invalid {
            search,
            root,
            error,
        } => {
            eprintln!(
                "graph500: search {} from root {root} failed validation: {error}",
                search + 1
            );
            println!("No results printed for invalid run.");
            return Ok(ExitCode::from(1));
        }
    };
    let scale = match &plan.source {
        GraphSource::Kronecker(g) => g.scale(),
        GraphSource::File(_) => report::scale_of(measured.num_vertices),
    };
    let statistics = RunStatistics::new(&measured, scale);
    print!("{}", statistics.block());
    if let Some(path) = &args.json {
        let report = JsonReport {
            program: "graph500",
            version: env!("CARGO_PKG_VERSION"),
            options: JsonOptions {
                scale: args.input.is_none().then_some(k.scale),
                edgefactor: args.input.is_none().then_some(k.edgefactor),
                seed: k.seed,
                input: args.input.as_ref().map(|p| p.display().to_string()),
                keys: plan.keys,
                kernel: plan.kernel.name(),
                threads: rayon::current_num_threads(),
                validate: plan.validate,
            },
            graph: JsonGraph {
                source: if args.input.is_some() {
                    "file"
                } else {
                    "kronecker"
                },
                generator: args.input.is_none().then_some("xoshiro256++ R-MAT"),
                num_vertices: measured.num_vertices,
                num_edges: measured.num_edges,
                checksum: format!("{:#018x}", measured.checksum),
            },
            statistics: &statistics,
            searches: &measured.searches,
        };
        generator::format::write_atomic(path, |out| {
            serde_json::to_writer_pretty(&mut *out, &report)?;
            std::io::Write::write_all(out, b"\n")
        })?;
        progress.say(&format!("wrote {}", path.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// Fails early, before a long run, if `path` could not be written later.
fn ensure_folder_exists(path: &std::path::Path) -> anyhow::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    match folder {
        Some(f) if !f.is_dir() => {
            anyhow::bail!("{}: folder {} does not exist", path.display(), f.display())
        }
        _ => Ok(()),
    }
}
