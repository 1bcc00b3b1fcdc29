//! `graph500`: the command line. It parses options into a
//! [`harness::Plan`] (or a subcommand's arguments), calls the libraries and
//! prints; it holds no algorithm.
//!
//! Exit status: 0 success, 1 a search failed validation, 2 bad input or a
//! failed write (a one-line message on stderr names what and where; also
//! an input cut short while it was read, [`cli::mapped`]), 130
//! stopped by SIGINT, SIGTERM or SIGHUP (under mpirun, the launcher reports
//! its own status: docs/clusters.md). Nothing panics on the way out:
//! stdout and stderr are written by [`cli::console`], files by
//! [`cli::output`], and running out of memory is a one-line exit too
//! ([`cli::alloc`]).

#![allow(clippy::exit)] // a second signal, and running out of memory, exit at once

mod cli;

use anyhow::Context;
use clap::Parser;
use cli::args::{Cli, Command};
use cli::progress::Progress;
use cli::{console, interrupt};
use std::process::ExitCode;

/// Counts allocations inside `graph500 profile` (elsewhere a relaxed load
/// per allocation on top of the system allocator); out of memory is a
/// one-line exit.
#[global_allocator]
static ALLOCATOR: cli::alloc::ExitOnOom = cli::alloc::ExitOnOom;

fn main() -> ExitCode {
    let cli = match Cli::try_parse().and_then(Cli::checked) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // Under mpirun every rank refuses the same argv: once, as rank 0.
            cli::ranks::refuse_once(&format!("graph500: {}", console::clap_one_line(&e)));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            return match console::out(&e.to_string()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&e),
            };
        }
    };
    if let Err(e) = interrupt::install() {
        console::err_line(&format!(
            "graph500: error: cannot handle SIGINT, SIGTERM and SIGHUP: {e}"
        ));
        return ExitCode::from(2);
    }
    if let Err(e) = cli::mapped::install() {
        console::err_line(&format!("graph500: error: cannot handle SIGBUS: {e}"));
        return ExitCode::from(2);
    }
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) if is_interruption(&e) => {
            if cli::ranks::speaks() {
                console::err_line(&format!("graph500: {}", interrupt::Interrupted));
            }
            ExitCode::from(interrupt::EXIT_STATUS)
        }
        Err(e) => fail(&e),
    }
}

/// True for a stop asked for by a signal, however it was reported: by the
/// binary's own checks, or by the harness's run loop through its observer.
fn is_interruption(e: &anyhow::Error) -> bool {
    e.is::<interrupt::Interrupted>() || matches!(e.downcast_ref(), Some(harness::Error::Stopped))
}

/// Reports `e` on one line of stderr (rank 0 only, in a distributed run);
/// exit status 2.
fn fail(e: &anyhow::Error) -> ExitCode {
    if cli::ranks::speaks() {
        console::err_line(&format!("graph500: error: {e:#}"));
    }
    ExitCode::from(2)
}

/// Threads per core that `--threads` accepts. Beyond the cores, each
/// worker only adds waiting: every idle rayon worker that wakes scans every
/// other worker's queue (and crossbeam's epoch list, one entry per thread),
/// so a parallel step costs about the square of the thread count; up to
/// this many a run costs what it costs on one thread a core
/// (docs/history-harness.md).
const THREADS_PER_CORE: usize = 64;

/// Fails, naming the limit, if `threads` is above [`THREADS_PER_CORE`]
/// times the cores this process may use.
fn check_threads(threads: usize) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let limit = THREADS_PER_CORE * cores;
    if threads > limit {
        anyhow::bail!(
            "--threads {threads} is above {limit}, the most this machine runs usefully ({THREADS_PER_CORE} per core, {}); more threads only wait on each other",
            cli::progress::count(cores, "core")
        );
    }
    Ok(())
}

/// Starts rayon's pool and the pipes pool with `threads` workers, if
/// [`check_threads`] allows them.
fn start_pools(threads: u16) -> anyhow::Result<()> {
    check_threads(threads.into())?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.into())
        .build_global()
        .context("starting the thread pool")?;
    kernels::par::init_global(threads.into())
        .map_err(|size| anyhow::anyhow!("the pipes pool already runs {size} threads"))
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    // Under mpirun the pools' refusal, made before MPI starts, is agreed on
    // once it has: every rank refuses, rank 0 alone prints it.
    let pools = cli.threads().map_or(Ok(()), start_pools);
    // The benchmark, and one search of a file, run over the ranks.
    let over_ranks = matches!(
        cli.command,
        None | Some(Command::Run(_) | Command::Bfs(_) | Command::Sssp(_))
    );
    let ranks = match over_ranks.then(cli::ranks::start).transpose() {
        Ok(ranks) => ranks.flatten(),
        Err(e) => {
            // MPI refused to start (or is not built in) on every rank alike.
            cli::ranks::refuse_once(&format!("graph500: error: {e:#}"));
            return Ok(ExitCode::from(2));
        }
    };
    let ranks = ranks.as_ref().map(|r| r as &dyn dist::Comm);
    if let Some(comm) = ranks {
        cli::ranks::set_rank(comm.rank());
    }
    let pools = match ranks {
        Some(comm) => {
            dist::agree(comm, pools.map_err(|e| format!("{e:#}"))).map_err(anyhow::Error::msg)
        }
        None => pools,
    };
    let quiet = cli.quiet || ranks.is_some_and(|r| r.rank() != 0);
    let progress = Progress::new(quiet);
    let commands = cli::commands::Commands {
        force: cli.force(),
        progress: &progress,
        ranks,
    };
    let result = pools.and_then(|()| match &cli.command {
        None => commands.run(&cli.run),
        Some(Command::Run(args)) => commands.run(args),
        Some(Command::Generate(args)) => commands.generate(args),
        Some(Command::Bfs(args)) => commands.bfs(args),
        Some(Command::Sssp(args)) => commands.sssp(args),
        Some(Command::Validate(args)) => commands.validate(args),
        Some(Command::Convert(args)) => commands.convert(args),
        Some(Command::Plot(args)) => cli::plot::plot(args, &progress),
        Some(Command::Profile(args)) => cli::profile::profile(args, cli.force(), &progress),
        Some(Command::Sweep(args)) => cli::sweep::sweep(args, cli.threads(), &progress),
    });
    match ranks {
        // Rank 0 reports an error before any rank exits: mpirun, seeing one
        // rank end with status 2, stops the others, rank 0 too, perhaps
        // before it has spoken. Every rank gets here (a distributed run's
        // errors are agreed on); an interrupted run may have lost ranks, so
        // it does not wait.
        Some(comm) if !matches!(&result, Err(e) if is_interruption(e)) => {
            interrupt::ending();
            let code = result.unwrap_or_else(|e| fail(&e));
            comm.barrier();
            Ok(code)
        }
        _ => result,
    }
}
