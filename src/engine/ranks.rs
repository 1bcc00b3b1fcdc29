//! The engine of P ranks (MPI, or ranks as threads): rank `r` owns the
//! vertices of [`Partition`] `r`, and holds their rows (`--partition 1d`)
//! or one cell of the `R x C` grid ([`GridGraph`], `--partition 2d`). The
//! layout changes kernel 1 and the BFS only: ownership, keys, parents and
//! validation are 1-D in both, and kernel 3 searches the 1-D weighted
//! rows, which a 2-D run builds beside its cell (see `dist`'s `grid.rs`
//! for why).
//!
//! Every step is collective: rank `r` generates its share of the edge
//! blocks, or reads its byte range of a binary file (the ranks' shares,
//! in rank order, are the single-process list, so the checksum is the
//! same); kernel 1 sends each arc to its source's owner; the search keys
//! come from every rank's eligible vertices gathered into one [`Eligible`](kernels::Eligible)
//! set, so they are the single-process keys. Weights come with the tuples
//! when a pass needs them. Phase times end with a barrier, so each is the
//! slowest rank's. Only rank 0's observer hears events; stop requests are
//! agreed on (any rank's request stops every rank at the same point), and
//! so are failures: every rank returns the same error.
//!
//! Cost, besides the passes': kernel 1 sends each of the rank's tuples
//! twice (both directions; a 2-D kernel 1 then sends each vertex's row
//! lengths to its owner, `8 (C - 1) N / P` bytes a rank); the keys cost
//! one all-gather of N/8 bytes.

mod collective;
mod input;

pub(crate) use collective::{Metered, agreed};
pub(crate) use input::{Share, dobfs_only, rows_fit, shared_file};

use super::{Engine, Loaded, RankFigures, TupleOrder, later};
use crate::observe::Observer;
use crate::plan::{GraphSource, Partitioning, Plan};
use crate::searches::{PassOutput, Searching};
use crate::{Error, Pass, budget, system};
use collective::{Agreed, eligible, sum};
use dist::{
    BfsIndex, Comm, Grid, GridBfs, GridGraph, Id, LocalGraph, Partition, Reduce,
    WeightedLocalGraph, all_gather,
};
use generator::EdgeList;
use input::{load_share, sizes};
use kernels::SearchKey;
use std::marker::PhantomData;
use std::sync::Arc;

/// Runs `plan` as one of the ranks of `comm`. Collective: every rank calls
/// it with the same plan. A generated graph, or a binary edge-list file
/// (each rank reads its own byte range), searched by `dobfs`; global ids
/// of 32 bits, or 64 beyond 2^32 vertices (or with `wide_ids`).
pub fn run_distributed(
    plan: &Plan,
    observer: &dyn Observer,
    comm: &dyn Comm,
) -> Result<super::Outcome, Error> {
    if let GraphSource::File { path, format, .. } = &plan.source {
        shared_file(path, *format)?;
    }
    for pass in &plan.passes {
        if let Pass::Bfs(kernel) = pass {
            dobfs_only(kernel)?;
        }
    }
    let observer = Agreed {
        comm,
        own: observer,
        speaks: comm.rank() == 0,
    };
    let (m, n) = agreed(comm, sizes(plan))?;
    rows_fit(n, comm.size())?;
    if plan.wide_ids || n > u64::from(u32::MAX) {
        super::drive(
            &mut Ranks::<u64>::new(comm, m, n, plan.partition),
            plan,
            &observer,
        )
    } else {
        super::drive(
            &mut Ranks::<u32>::new(comm, m, n, plan.partition),
            plan,
            &observer,
        )
    }
}

/// The estimated peak bytes of one rank of `ranks` in a run of `plan` on
/// `m` tuples and `n` vertices, with ids `I`: its share of the tuples,
/// the keys' global eligibility bitmap and the program, plus what each
/// pass holds ([`Pass::rank_bytes`]); with `--partition 2d`, the grid
/// cell and its search's arrays on top (the 1-D rows' share counted as
/// well: an over-estimate of at most the rows).
pub fn rank_memory_estimate<I: Id>(plan: &Plan, m: u64, n: u64, ranks: u64) -> u64 {
    let tuples = m.div_ceil(ranks) * size_of::<I::Tuple>() as u64;
    let passes = plan.passes.iter();
    let grid = match plan.partition {
        Partitioning::OneD => 0,
        Partitioning::TwoD => {
            let p = usize::try_from(ranks).unwrap_or(usize::MAX);
            GridGraph::<I>::bytes_for(n, p, 2 * m.div_ceil(ranks))
                + GridBfs::<I>::bytes_for(&Grid::new(n, p))
        }
    };
    tuples
        + n / 4
        + budget::FIXED
        + grid
        + passes
            .map(|p| p.rank_bytes::<I>(m, n, ranks, plan.validate))
            .sum::<u64>()
}

/// One rank's run, with global ids `I`.
pub(crate) struct Ranks<'c, I: Id> {
    comm: &'c dyn Comm,
    part: Partition,
    m: u64,
    share: Option<Share<I::Tuple>>,
    /// The memory estimate of one rank, made once in `admit`.
    estimate: u64,
    sent_before: u64,
    kernel1_bytes: u64,
    kernel1_hub_pairs: Option<u64>,
    partition: Partitioning,
    ids: PhantomData<I>,
}

/// Kernel 1's structures on a rank; each is `None` once no later pass
/// searches it.
pub(crate) struct RankGraph<I: Id> {
    /// The unweighted rows.
    pub(crate) graph: Option<Arc<LocalGraph<I>>>,
    /// The weighted rows, when a pass needs weights.
    pub(crate) weighted: Option<Arc<WeightedLocalGraph<I>>>,
    /// The grid cell (`--partition 2d`), which the BFS searches instead of
    /// the unweighted rows.
    pub(crate) grid: Option<Arc<GridGraph<I>>>,
    /// The unweighted rows' hubs and delegates, when a BFS pass searches
    /// them: kernel 1's, as one process's hubs are its `Csr`'s.
    pub(crate) bfs_index: Option<Arc<BfsIndex<I>>>,
}

/// What a pass on a rank reads.
pub(crate) struct RankView<'a, I: Id> {
    /// The ranks.
    pub(crate) comm: &'a dyn Comm,
    /// Who owns which vertex.
    pub(crate) part: Partition,
    /// Kernel 1's structures.
    pub(crate) graph: &'a RankGraph<I>,
    /// This rank's share of the tuples.
    pub(crate) share: &'a Share<I::Tuple>,
    /// Searches to come (and the warm-up), for buffers sized up front.
    pub(crate) keys: usize,
}

impl<'c, I: Id> Ranks<'c, I> {
    fn new(comm: &'c dyn Comm, m: u64, n: u64, partition: Partitioning) -> Self {
        Ranks {
            partition,
            comm,
            part: Partition::new(n, comm.size()),
            m,
            share: None,
            estimate: 0,
            sent_before: 0,
            kernel1_bytes: 0,
            kernel1_hub_pairs: None,
            ids: PhantomData,
        }
    }

    fn share(&self) -> &Share<I::Tuple> {
        self.share.as_ref().expect("loaded")
    }
}

impl<I: Id> Engine for Ranks<'_, I> {
    type Graph = RankGraph<I>;

    fn admit(&mut self, plan: &Plan) -> Result<(), Error> {
        let (comm, ranks) = (self.comm, self.comm.size());
        let (m, n) = (self.m, self.part.num_vertices());
        let estimate = rank_memory_estimate::<I>(plan, m, n, ranks as u64);
        self.estimate = estimate;
        let sharing = comm.ranks_on_this_machine() as u64;
        let what = format!(
            "a run on {n} vertices and {m} tuples over {ranks} ranks ({sharing} on this machine, about {:.1} GiB each)",
            estimate as f64 / f64::from(1u32 << 30)
        );
        agreed(
            comm,
            budget::check(sharing * estimate, &what, None, plan.force),
        )
    }

    fn load(&mut self, plan: &Plan, observer: &dyn Observer) -> Result<(), Error> {
        let loaded = load_share(plan, observer, self.comm);
        self.comm.barrier();
        self.share = Some(agreed(self.comm, loaded)?);
        Ok(())
    }

    fn loaded(&mut self, _: &Plan) -> Result<Loaded, Error> {
        let share = self.share();
        let n = self.part.num_vertices();
        let terms = EdgeList::checksum_terms(&share.tuples, share.first_tuple);
        let sum = dist::all_reduce(self.comm, [terms], Reduce::Sum)[0];
        Ok(Loaded {
            num_vertices: n,
            num_edges: self.m,
            checksum: EdgeList::finish_checksum(sum, n),
            memory_estimate: self.estimate,
        })
    }

    /// The unweighted rows or, when a pass needs weights, the weighted rows
    /// split light-first where a pass asks ([`Pass::light_split`]) and the
    /// unweighted rows copied out of them; with `--partition 2d` the grid
    /// cell instead of the unweighted rows (the weighted rows still built
    /// when a pass needs them); the rows' [`BfsIndex`] when a BFS pass
    /// searches them. Ends with a barrier.
    fn build(&mut self, plan: &Plan) -> RankGraph<I> {
        let (comm, part, backend) = (self.comm, self.part, plan.backend);
        self.sent_before = comm.bytes_sent();
        let share = self.share();
        let two_d = plan.partition == Partitioning::TwoD;
        let weighted = match (&share.weights, plan.light_split()) {
            (Some(weights), Some(delta)) => Some(WeightedLocalGraph::<I>::build_weighted_on(
                backend,
                comm,
                part,
                &share.tuples,
                weights,
                delta,
            )),
            _ => None,
        };
        let graph = match &weighted {
            _ if two_d => None,
            Some(weighted) => Some(weighted.unweighted_on(backend)),
            None => Some(LocalGraph::<I>::build_on(
                backend,
                comm,
                part,
                &share.tuples,
            )),
        };
        let grid = two_d.then(|| {
            let grid = Grid::new(part.num_vertices(), comm.size());
            Arc::new(GridGraph::<I>::build(comm, grid, &share.tuples))
        });
        let searched = plan.bfs_kernel().is_some();
        let bfs_index = (graph.as_ref())
            .filter(|_| searched)
            .map(|rows| Arc::new(BfsIndex::build_on(backend, comm, rows)));
        comm.barrier();
        RankGraph {
            graph: graph.map(Arc::new),
            weighted: weighted.map(Arc::new),
            grid,
            bfs_index,
        }
    }

    fn keys(&mut self, plan: &Plan, graph: &RankGraph<I>) -> Result<Vec<SearchKey>, Error> {
        let comm = self.comm;
        self.kernel1_bytes = sum(comm, comm.bytes_sent() - self.sent_before);
        self.kernel1_hub_pairs = (graph.grid.as_ref()).map(|cell| sum(comm, cell.listed_out()));
        let eligible = match (&graph.grid, &graph.graph) {
            (Some(cell), _) => eligible(comm, self.part, |v| cell.degree(v) > 0),
            (None, Some(rows)) => eligible(comm, self.part, |v| rows.degree(v) > 0),
            (None, None) => unreachable!("kernel 1 built a graph to search"),
        };
        let keys = (self.share().key_rule).choose_among(&eligible, plan.keys);
        agreed(comm, keys)
    }

    fn ready(&mut self, _: &Plan, _: usize) -> TupleOrder {
        TupleOrder::Input
    }

    fn pass<'a>(
        &'a mut self,
        plan: &'a Plan,
        index: usize,
        graph: &'a RankGraph<I>,
        keys: usize,
    ) -> Box<dyn Searching + 'a> {
        let view = RankView {
            comm: self.comm,
            part: self.part,
            graph,
            share: self.share.as_ref().expect("loaded"),
            keys,
        };
        plan.passes[index].on_ranks(plan, view)
    }

    /// Sums the validation bytes over the ranks (each rank counted its
    /// own), takes the least time inside collectives of each search and
    /// validation over the ranks (the slowest rank's compute is the
    /// rest), and drops the rows no later pass searches.
    fn passed(
        &mut self,
        plan: &Plan,
        index: usize,
        graph: &mut RankGraph<I>,
        out: &mut PassOutput,
    ) {
        if let Some(bytes) = &mut out.validate_bytes {
            self.comm.all_reduce(bytes, Reduce::Sum);
        }
        let waits = [&mut out.search_comm_nanos, &mut out.validate_comm_nanos];
        for nanos in waits.into_iter().flatten() {
            self.comm.all_reduce(nanos, Reduce::Min);
        }
        let later = later(plan, index);
        if !later.iter().any(|p| !p.weighted()) {
            graph.graph = None;
            graph.grid = None;
        }
        if !later.iter().any(|p| p.weighted()) {
            graph.weighted = None;
        }
    }

    fn finish(&mut self) -> Option<RankFigures> {
        let ranks = self.comm.size();
        let peak = system::peak_resident_bytes().unwrap_or(0);
        let mut peaks = vec![0u64; ranks];
        all_gather(self.comm, &[peak], &vec![1; ranks], &mut peaks);
        let grid = Grid::new(self.part.num_vertices(), ranks);
        Some(RankFigures {
            ranks,
            partition: self.partition,
            grid: match self.partition {
                Partitioning::OneD => (1, ranks),
                Partitioning::TwoD => (grid.rows(), grid.cols()),
            },
            id_bytes: size_of::<I>(),
            peak_memory_bytes_per_rank: peaks,
            kernel1_bytes: self.kernel1_bytes,
            kernel1_hub_pairs: self.kernel1_hub_pairs,
        })
    }
}
