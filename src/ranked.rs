//! One search of a file over the ranks of a [`Comm`]: what `graph500 bfs`
//! and `graph500 sssp` run under mpirun.
//!
//! Collective: every rank calls [`FileSearch::on_ranks`] with the same
//! search. In order, each step agreed on (every rank gets the same
//! error, the lowest failing rank's): the refusals of the benchmark's
//! engine over ranks (a file other than a binary edge list, a BFS kernel
//! other than dobfs, more vertices a rank than it counts), the header (and
//! the weights an SSSP needs), the root, the memory budget of the ranks on
//! this machine (before any tuple is read), then each rank reads its byte
//! range of the file, builds its 1-D rows (kernel 1, [`LocalGraph`] or
//! [`WeightedLocalGraph`]), and all search from the root ([`DistBfs`],
//! [`DistSssp`]). Rank 0 then gathers every rank's parents (and
//! distances), in rank order, which is vertex order: the same arrays, in
//! the same form, as one process's search (`-1` for an unreached vertex's
//! parent and distance).
//!
//! A stop request (the observer's) is agreed on between steps, so every
//! rank stops at the same point with [`Error::Stopped`].
//!
//! Cost besides the search's: rank 0 receives `8 N` bytes of parents
//! (`12 N` with distances) and holds them whole.

use crate::engine::ranks::{agreed, dobfs_only, rows_fit, shared_file};
use crate::{Error, Observer, Pass, budget, timed};
use dist::{
    Comm, DistBfs, DistSssp, Id, LocalGraph, NO_PARENT, Partition, Reduce, WeightedLocalGraph,
    exchange_known,
};
use generator::format::{EdgeFormat, binary};
use kernels::{Backend, Kernel, SearchKey};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

/// What one search found, in the form the commands write: in one
/// process, or over ranks (the arrays whole on rank 0 and empty on the
/// others; the figures the same on every rank).
#[derive(Debug)]
pub struct Searched {
    /// Each vertex's parent (`-1` unreached; the root's is the root).
    pub parents: Vec<i64>,
    /// Each vertex's distance (`-1` unreached), for an SSSP; else empty.
    pub dist: Vec<f32>,
    /// Vertices reached, the root included.
    pub reached: u64,
    /// The BFS tree's depth; 0 for an SSSP, which counts no levels.
    pub depth: u32,
    /// The largest distance of a reached vertex; 0 for a BFS.
    pub max_dist: f32,
    /// Input tuples with a reached end (self-loops excluded).
    pub nedge: u64,
    /// The search's seconds (over ranks, the slowest rank's).
    pub seconds: f64,
}

/// `root` as a vertex of `input`, a graph of `num_vertices`: the error
/// names the file.
pub fn root_of(root: u64, num_vertices: u64, input: &Path) -> Result<SearchKey, Error> {
    SearchKey::below(root, num_vertices).map_err(|cause| Error::Kernel {
        context: format!("--root for {}", input.display()),
        cause,
    })
}

/// One search of a file over ranks, as a command asked for it.
#[derive(Clone, Copy, Debug)]
pub struct FileSearch<'a> {
    /// The binary edge list.
    pub input: &'a Path,
    /// Its format as the command line names it (only binary is shared out).
    pub format: EdgeFormat,
    /// The root vertex.
    pub root: u64,
    /// A BFS (dobfs only) or an SSSP.
    pub pass: Pass,
    /// What runs each rank's loops.
    pub backend: Backend,
    /// Skips the memory check.
    pub force: bool,
}

impl FileSearch<'_> {
    /// Runs the search over the ranks of `comm` (see the module comment
    /// for the steps); `observer` may stop it between steps. Collective.
    pub fn on_ranks(&self, comm: &dyn Comm, observer: &dyn Observer) -> Result<Searched, Error> {
        let header = agreed(comm, self.refusals(comm))?;
        let (m, n) = (header.num_edges, header.num_vertices);
        let job = Job {
            comm,
            input: self.input,
            key: root_of(self.root, n, self.input)?,
            pass: self.pass,
            backend: self.backend,
            part: Partition::new(n, comm.size()),
            observer,
        };
        if n > u64::from(u32::MAX) {
            job.admit::<u64>(m, self.force)?;
            job.run::<u64>()
        } else {
            job.admit::<u32>(m, self.force)?;
            job.run::<u32>()
        }
    }

    /// What the ranks refuse before reading: the benchmark's refusals,
    /// then the header's problems, and a file without weights for an SSSP.
    fn refusals(&self, comm: &dyn Comm) -> Result<binary::Header, Error> {
        shared_file(self.input, self.format)?;
        if let Pass::Bfs(kernel) = &self.pass {
            dobfs_only(kernel)?;
        }
        let header = binary::read_header(self.input)?;
        if self.pass.weighted() && !header.weighted {
            return Err(no_weights(self.input));
        }
        rows_fit(header.num_vertices, comm.size())?;
        Ok(header)
    }
}

/// The refusal of a file without weights, as one process words it.
fn no_weights(input: &Path) -> Error {
    crate::pass::no_weights(input, "a shortest-path search")
}

/// One search's fixed parts.
struct Job<'a> {
    comm: &'a dyn Comm,
    input: &'a Path,
    key: SearchKey,
    pass: Pass,
    backend: Backend,
    part: Partition,
    observer: &'a dyn Observer,
}

impl Job<'_> {
    /// Fails on every rank unless the ranks on this machine fit in its
    /// memory, rank 0's whole arrays included: each its share of the
    /// tuples, its pass ([`Pass::rank_bytes`]) and its own result arrays.
    fn admit<I: Id>(&self, m: u64, force: bool) -> Result<(), Error> {
        let (comm, ranks) = (self.comm, self.comm.size() as u64);
        let n = self.part.num_vertices();
        let arrays_per_vertex = if self.pass.weighted() { 12 } else { 8 };
        let estimate = m.div_ceil(ranks) * size_of::<I::Tuple>() as u64
            + self.pass.rank_bytes::<I>(m, n, ranks, false)
            + arrays_per_vertex * n.div_ceil(ranks)
            + budget::FIXED;
        let sharing = comm.ranks_on_this_machine() as u64;
        let what = format!(
            "a search of {} over {ranks} ranks ({sharing} on this machine, about {:.1} GiB each)",
            self.input.display(),
            estimate as f64 / f64::from(1u32 << 30)
        );
        let need = sharing * estimate + arrays_per_vertex * n;
        agreed(comm, budget::check(need, &what, None, force))
    }

    /// Every rank's stop request, agreed on: [`Error::Stopped`] on every
    /// rank if any was asked to stop.
    fn go_on(&self) -> Result<(), Error> {
        let mine = u64::from(self.observer.stop_requested());
        match dist::all_reduce(self.comm, [mine], Reduce::Max)[0] {
            0 => Ok(()),
            _ => Err(Error::Stopped),
        }
    }

    /// Reads this rank's share, builds its rows, searches and gathers.
    fn run<I: Id>(&self) -> Result<Searched, Error> {
        let (comm, backend, part) = (self.comm, self.backend, self.part);
        let (rank, ranks) = (comm.rank(), comm.size());
        let read = binary::read_share::<I::Tuple>(self.input, rank, ranks);
        let (_, tuples, _) = agreed(comm, read.map_err(Error::from))?;
        self.go_on()?;
        let root = self.key.id();
        let found = match self.pass {
            Pass::Bfs(kernel) => {
                let Kernel::Dobfs(params) = kernel else {
                    unreachable!("refused by dobfs_only")
                };
                let graph = LocalGraph::<I>::build_on(backend, comm, part, &tuples);
                drop(tuples);
                self.go_on()?;
                let mut engine = DistBfs::on(backend, comm, Arc::new(graph), params);
                engine.reset();
                let (stats, seconds) = timed(|| engine.search(root));
                let nedge = engine.nedge();
                let parents: Vec<u64> = engine.parents().iter().map(|p| p.load(Relaxed)).collect();
                Searched {
                    parents: gather(comm, part, &parents)
                        .iter()
                        .map(|&p| signed(p))
                        .collect(),
                    dist: Vec::new(),
                    reached: stats.reached,
                    depth: stats.depth,
                    max_dist: 0.0,
                    nedge,
                    seconds: slowest(comm, seconds),
                }
            }
            Pass::Sssp(params) => {
                let weights = binary::read_weights_share(self.input, rank, ranks)
                    .map_err(Error::from)
                    .and_then(|w| w.ok_or_else(|| no_weights(self.input)));
                let weights = agreed(comm, weights)?;
                let graph = WeightedLocalGraph::<I>::build_weighted_on(
                    backend,
                    comm,
                    part,
                    &tuples,
                    &weights,
                    params.delta(),
                );
                drop((tuples, weights));
                self.go_on()?;
                let mut engine = DistSssp::on(backend, comm, Arc::new(graph), params);
                engine.reset();
                let (stats, seconds) = timed(|| engine.search(root));
                let nedge = engine.nedge();
                let rows = part.count(rank);
                let (mut parents, mut dist) = (vec![0u64; rows], vec![0f32; rows]);
                engine.write_results(&mut parents, &mut dist);
                let bits: Vec<u32> = dist.iter().map(|d| d.to_bits()).collect();
                Searched {
                    parents: gather(comm, part, &parents)
                        .iter()
                        .map(|&p| signed(p))
                        .collect(),
                    dist: gather(comm, part, &bits)
                        .into_iter()
                        .map(f32::from_bits)
                        .collect(),
                    reached: stats.reached,
                    depth: 0,
                    max_dist: stats.max_dist,
                    nedge,
                    seconds: slowest(comm, seconds),
                }
            }
        };
        Ok(found)
    }
}

/// A gathered parent in the Graph500 form: `-1` for [`NO_PARENT`].
fn signed(parent: u64) -> i64 {
    if parent == NO_PARENT {
        -1
    } else {
        i64::try_from(parent).expect("a vertex id below 2^63")
    }
}

/// Every rank's `mine` (its vertices', by local index), on rank 0 in rank
/// order, which is global vertex order; empty elsewhere. One exchange in
/// which only rank 0 receives.
fn gather<T: Id>(comm: &dyn Comm, part: Partition, mine: &[T]) -> Vec<T> {
    let ranks = comm.size();
    let mut send_counts = vec![0; ranks];
    send_counts[0] = mine.len();
    let recv_counts: Vec<usize> = (0..ranks)
        .map(|r| if comm.rank() == 0 { part.count(r) } else { 0 })
        .collect();
    exchange_known(comm, mine, &send_counts, &recv_counts)
}

/// `seconds` on the slowest rank, to the nanosecond.
fn slowest(comm: &dyn Comm, seconds: f64) -> f64 {
    let nanos = std::time::Duration::from_secs_f64(seconds).as_nanos();
    let nanos = u64::try_from(nanos).unwrap_or(u64::MAX);
    let max = dist::all_reduce(comm, [nanos], Reduce::Max)[0];
    std::time::Duration::from_nanos(max).as_secs_f64()
}

#[cfg(test)]
mod tests;
