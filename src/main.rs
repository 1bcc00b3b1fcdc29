//! `graph500`: the command-line front end. It parses options, calls the
//! library crates (`generator`, `kernels`, `validate`) and prints; it holds
//! no algorithm.
//!
//! Exit status: 0 success, 1 a search failed validation, 2 bad input (a
//! one-line message on stderr names what and where).

#![allow(clippy::print_stdout, clippy::print_stderr)] // the one place that prints
#![allow(clippy::exit)] // the second Ctrl-C exits at once (interrupt.rs)

mod budget;
mod cli;
mod commands;
mod interrupt;
mod plot;
mod profile;
mod progress;
mod report;
mod run;
mod sweep;
mod system;

use anyhow::Context;
use clap::Parser;
use cli::{Cli, Command};
use progress::Progress;
use std::process::ExitCode;

/// Counts allocations inside `graph500 profile`; elsewhere a relaxed load
/// per allocation on top of the system allocator.
#[global_allocator]
static ALLOCATOR: kernels::CountingAllocator = kernels::CountingAllocator;

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
    if let Err(e) = interrupt::install() {
        eprintln!("graph500: error: cannot handle Ctrl-C: {e}");
        return ExitCode::from(2);
    }
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) if e.is::<interrupt::Interrupted>() => {
            eprintln!("graph500: {e}");
            ExitCode::from(130)
        }
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
        kernels::par::init_global(threads.into())
            .map_err(|size| anyhow::anyhow!("the pipes pool already runs {size} threads"))?;
    }
    let progress = Progress::new(cli.quiet);
    match &cli.command {
        None => commands::run(&cli.run, cli.force, &progress),
        Some(Command::Run(args)) => commands::run(args, cli.force, &progress),
        Some(Command::Generate(args)) => commands::generate(args, cli.force, &progress),
        Some(Command::Bfs(args)) => commands::bfs(args, cli.force, &progress),
        Some(Command::Validate(args)) => commands::validate(args, cli.force, &progress),
        Some(Command::Convert(args)) => commands::convert(args, &progress),
        Some(Command::Plot(args)) => plot::plot(args, &progress),
        Some(Command::Profile(args)) => profile::profile(args, cli.force, &progress),
        Some(Command::Sweep(args)) => sweep::sweep(args, cli.threads, &progress),
    }
}
