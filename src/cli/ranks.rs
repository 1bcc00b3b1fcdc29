//! Runs under `mpirun`. A process knows it was started by a launcher from
//! the environment the launcher sets (Open MPI's `OMPI_COMM_WORLD_SIZE`,
//! MPICH's and Slurm's `PMI_SIZE`); only then, and only for the benchmark
//! itself (`graph500` or `graph500 run`) and one search of a file
//! (`graph500 bfs`, `graph500 sssp`), is MPI started, so a binary built
//! with the `mpi` feature and started on its own runs as one process, and
//! every other subcommand never touches MPI.

use std::sync::atomic::{AtomicBool, Ordering};

/// False on the ranks other than 0 of a distributed run: they print
/// nothing, not even the errors all ranks agreed on (rank 0 prints those).
static SPEAKS: AtomicBool = AtomicBool::new(true);

/// Whether this process prints its errors.
pub(crate) fn speaks() -> bool {
    SPEAKS.load(Ordering::Relaxed)
}

/// Records this process's rank in a distributed run.
pub(crate) fn set_rank(rank: usize) {
    SPEAKS.store(rank == 0, Ordering::Relaxed);
}

/// The rank count a launcher announced, if any.
pub(crate) fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
}

/// True unless a launcher announced more than one rank: the run is one
/// process (alone, or the only rank of `mpirun -np 1`).
pub(crate) fn one_process() -> bool {
    launched_ranks().unwrap_or(1) <= 1
}

/// This process's rank as the launcher announced it, if any.
fn launched_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
}

/// Prints `message`, a refusal every rank makes alike before a run starts
/// (of the command line, which every rank parses the same), once: in a
/// job of several ranks, rank 0 prints it and every rank waits for that
/// before it exits, since mpirun stops the job when one rank exits with an
/// error, perhaps before rank 0 has spoken. Without MPI (a build without
/// it, or MPI failing to start), the launcher's rank 0 prints it.
pub(crate) fn refuse_once(message: &str) {
    use dist::Comm;
    if one_process() {
        super::console::err_line(message);
        return;
    }
    match start() {
        Ok(Some(comm)) => {
            super::interrupt::ending();
            if comm.rank() == 0 {
                super::console::err_line(message);
            }
            comm.barrier();
        }
        _ => {
            if launched_rank().unwrap_or(0) == 0 {
                super::console::err_line(message);
            }
        }
    }
}

/// The ranks of this job, when it has more than one: MPI started. A
/// binary built without the `mpi` feature refuses to run as one of
/// several copies (each would run the whole benchmark alone).
#[cfg(feature = "mpi")]
pub(crate) fn start() -> anyhow::Result<Option<dist::Mpi>> {
    if one_process() {
        return Ok(None);
    }
    dist::Mpi::init()
        .map(Some)
        .map_err(|e| anyhow::anyhow!("starting MPI: {e}"))
}

/// See the `mpi` build's `start`.
#[cfg(not(feature = "mpi"))]
pub(crate) fn start() -> anyhow::Result<Option<dist::Solo>> {
    match launched_ranks() {
        Some(ranks) if ranks > 1 => anyhow::bail!(
            "started as one of {ranks} MPI ranks, but this graph500 was built without MPI; build it with `cargo build --release --features mpi`"
        ),
        _ => Ok(None),
    }
}
