//! `graph500`: the command line. It parses options into a
//! [`harness::Plan`] (or a subcommand's arguments), calls the libraries and
//! prints; it holds no algorithm.
//!
//! Exit status: 0 success, 1 a search failed validation, 2 bad input (a
//! one-line message on stderr names what and where), 130 interrupted.

#![allow(clippy::print_stdout, clippy::print_stderr)] // the one place that prints
#![allow(clippy::exit)] // the second Ctrl-C exits at once (interrupt.rs)

mod cli;

use anyhow::Context;
use clap::Parser;
use cli::args::{Cli, Command};
use cli::progress::Progress;
use std::process::ExitCode;

/// Counts allocations inside `graph500 profile`; elsewhere a relaxed load
/// per allocation on top of the system allocator.
#[global_allocator]
static ALLOCATOR: kernels::CountingAllocator = kernels::CountingAllocator;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprintln!("graph500: {}", cli::args::one_line(&e));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            print!("{e}");
            return ExitCode::SUCCESS;
        }
    };
    if let Err(e) = cli::interrupt::install() {
        eprintln!("graph500: error: cannot handle Ctrl-C: {e}");
        return ExitCode::from(2);
    }
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) if is_interruption(&e) => {
            eprintln!("graph500: {}", cli::interrupt::Interrupted);
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("graph500: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// True for a stop asked for by Ctrl-C, however it was reported.
fn is_interruption(e: &anyhow::Error) -> bool {
    e.is::<cli::interrupt::Interrupted>()
        || matches!(e.downcast_ref(), Some(harness::Error::Stopped))
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
    let commands = cli::commands::Commands {
        force: cli.force,
        progress: &progress,
    };
    match &cli.command {
        None => commands.run(&cli.run),
        Some(Command::Run(args)) => commands.run(args),
        Some(Command::Generate(args)) => commands.generate(args),
        Some(Command::Bfs(args)) => commands.bfs(args),
        Some(Command::Validate(args)) => commands.validate(args),
        Some(Command::Convert(args)) => commands.convert(args),
        Some(Command::Plot(args)) => cli::plot::plot(args, &progress),
        Some(Command::Profile(args)) => cli::profile::profile(args, cli.force, &progress),
        Some(Command::Sweep(args)) => cli::sweep::sweep(args, cli.threads, &progress),
    }
}
