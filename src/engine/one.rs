//! The engine of one process: the whole edge list in memory, kernel 1 into
//! one [`Csr`] (and a [`WeightedCsr`] when a pass needs weights), the
//! passes on this process's threads.
//!
//! Validation's preparation: a run that validates at least
//! [`BLOCK_ORDER_MIN_KEYS`] searches puts the tuples in block order
//! ([`TupleBlocks`]) once after kernel 1, untimed, for the validators that
//! read any order; the checksum is taken before. The list itself is kept
//! when a later pass's validator reads it in input order beside its
//! weights (the blocks are then a copy), and a read-only mapped file is
//! copied first; either copy is made only when it fits in the available
//! memory, otherwise the validators read the list as it is. Each
//! structure is dropped after the last pass that reads it.

use super::{Engine, Loaded, RankFigures, TupleOrder, later};
use crate::observe::Observer;
use crate::plan::{GeneratorSpec, GraphSource, KeyRule, Plan};
use crate::searches::{PassOutput, Searching, on_pool_worker};
use crate::{Error, budget, system};
use generator::{EdgeList, with_tuples};
use kernels::{Bfs, Csr, SearchKey, WeightedCsr};
use std::sync::Arc;
use std::time::Instant;
use validate::{TupleBlocks, Tuples};

/// The fewest validated searches for which a run puts the tuples in block
/// order first: re-encoding costs about five validations in list order
/// and each validation in block order saves most of one
/// (docs/history-harness.md); 16 leaves a margin for smaller graphs and
/// fewer threads.
pub const BLOCK_ORDER_MIN_KEYS: usize = 16;

/// Whether a run of `plan` over `keys` searches puts its tuples in block
/// order: the one rule for the estimate and the run.
fn blocks_tuples(plan: &Plan, keys: usize) -> bool {
    plan.validate && keys >= BLOCK_ORDER_MIN_KEYS
}

/// Whether one of `passes` reads the edge list in input order with its
/// weights.
fn reads_list(passes: &[crate::Pass]) -> bool {
    passes.iter().any(|p| p.weighted())
}

/// A BFS engine maker: the plan's kernel by default; tests inject faults.
type BfsMaker<'f> = Box<dyn FnOnce(Arc<Csr>) -> Box<dyn Bfs> + 'f>;

/// One process's run.
#[derive(Default)]
pub struct OneProcess<'f> {
    bfs_engine: Option<BfsMaker<'f>>,
    input: Option<Input>,
    key_rule: Option<KeyRule>,
}

impl<'f> OneProcess<'f> {
    /// An engine whose BFS passes search with the plan's kernel.
    pub fn new() -> Self {
        OneProcess::default()
    }

    /// An engine whose BFS pass searches with the engine `make` makes of
    /// the graph (tests inject faulty kernels here).
    pub fn with_bfs(make: impl FnOnce(Arc<Csr>) -> Box<dyn Bfs> + 'f) -> Self {
        OneProcess {
            bfs_engine: Some(Box::new(make)),
            ..OneProcess::new()
        }
    }

    fn list(&self) -> &EdgeList {
        match self.input.as_ref().expect("loaded") {
            Input::List(list) | Input::Both(list, _) => list,
            Input::Blocks(_) => unreachable!("the list is re-encoded only after loading"),
        }
    }
}

/// Kernel 1's structures in one process; each is `None` once no later
/// pass searches it.
pub struct OneGraph {
    /// The unweighted graph.
    pub(crate) graph: Option<Arc<Csr>>,
    /// The weighted graph, when a pass needs weights.
    pub(crate) weighted: Option<Arc<WeightedCsr>>,
}

/// What a pass of one process reads.
pub(crate) struct OneView<'a> {
    /// Kernel 1's structures.
    pub(crate) graph: &'a OneGraph,
    /// The tuples in the order the order-free validators read them.
    pub(crate) tuples: Tuples<'a>,
    /// The list in input order, with its weights, while a pass reads it.
    pub(crate) list: Option<&'a EdgeList>,
    /// The BFS engine maker injected by a test, if any.
    pub(crate) bfs_engine: Option<BfsMaker<'a>>,
}

/// The estimated peak memory of a run of `plan` in one process on `m`
/// tuples and `n` vertices: the edge list and the program, plus what each
/// pass holds ([`crate::Pass::one_process_bytes`]). A run that puts its
/// tuples in block order while a later pass reads the list copies them
/// (8 bytes a tuple while copied, 4 after) and holds every structure while
/// its batches run; one that does not keeps the larger of the loading and
/// the batched searches' peaks ([`crate::Pass::batched_peak`]).
///
/// Under [`Memory::Lean`](crate::Memory::Lean) ([`Plan::packs_list`]) the
/// list counts 7 bytes a tuple where it stays packed until the block order
/// re-encodes it in place; a run that keeps the list, or puts nothing in
/// block order, unpacks it to 8 after kernel 1.
pub fn memory_estimate(plan: &Plan, m: u64, n: u64) -> u64 {
    let blocked = blocks_tuples(plan, plan.keys);
    let copy = blocked && reads_list(&plan.passes);
    let list = if plan.packs_list() && blocked && !copy {
        EdgeList::packed_bytes_for(m)
    } else {
        EdgeList::bytes_for(m)
    };
    let passes = plan.passes.iter();
    let held = list
        + budget::FIXED
        + passes
            .map(|p| p.one_process_bytes(m, n, plan.validate))
            .sum::<u64>()
        + if copy { EdgeList::bytes_for(m) } else { 0 };
    let passes = plan.passes.iter();
    let cells = plan.batch_cells(n);
    match (blocked, copy) {
        (false, _) => held,
        (true, true) => held + passes.map(|p| p.batch_bytes(n, cells)).sum::<u64>(),
        (true, false) => held.max(
            passes
                .map(|p| p.batched_peak(m, n, cells))
                .max()
                .unwrap_or(0),
        ),
    }
}

impl Engine for OneProcess<'_> {
    type Graph = OneGraph;

    fn admit(&mut self, plan: &Plan) -> Result<(), Error> {
        let g = match &plan.source {
            GraphSource::Generated(g) => g,
            GraphSource::File { path, format, .. } => {
                let what = format!("a run on {}", path.display());
                return budget::check_before_reading(path, *format, &what, plan.force, |m, n| {
                    memory_estimate(plan, m, n)
                });
            }
        };
        g.fits_one_process()?;
        let bytes_at = |scale: u32| {
            let g = GeneratorSpec { scale, ..*g };
            memory_estimate(plan, g.num_edges(), g.num_vertices())
        };
        let what = format!(
            "a run at SCALE {} with edgefactor {}",
            g.scale, g.edgefactor
        );
        let hint = budget::scale_hint(g.edgefactor, bytes_at);
        budget::check(bytes_at(g.scale), &what, hint, plan.force)
    }

    fn load(&mut self, plan: &Plan, observer: &dyn Observer) -> Result<(), Error> {
        let (edges, key_rule) =
            plan.source
                .load(observer, plan.weighted_pass(), plan.packs_list())?;
        self.input = Some(Input::List(edges));
        self.key_rule = Some(key_rule);
        Ok(())
    }

    fn loaded(&mut self, plan: &Plan) -> Result<Loaded, Error> {
        let edges = self.list();
        let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
        let mut memory_estimate = memory_estimate(plan, m, n);
        if let GraphSource::File { path, .. } = &plan.source {
            if plan.needs_weights() {
                crate::pass::sssp::fits_one_process(n, path)?;
            }
            memory_estimate += budget::reading(edges, path);
            let what = format!("a run on {}", path.display());
            budget::check(memory_estimate, &what, None, plan.force)?;
        }
        Ok(Loaded {
            num_vertices: n,
            num_edges: m,
            checksum: edges.checksum(),
            memory_estimate,
        })
    }

    /// The unweighted graph or, when a pass needs weights, the weighted
    /// graph, the unweighted one copied out of it, and the weighted rows
    /// split light-first (and renumbered by degree) where a pass asks
    /// ([`crate::Pass::light_split`]).
    fn build(&mut self, plan: &Plan) -> OneGraph {
        let backend = plan.backend;
        let edges = self.list();
        let n = edges.num_vertices();
        match edges.weights() {
            Some(weights) if plan.needs_weights() => {
                let weighted = with_tuples!(edges, |tuples| WeightedCsr::build_on(
                    backend, n, tuples, weights
                ));
                let graph = weighted.unweighted_on(backend);
                // Split rows are also renumbered by degree, for kernel 3
                // only (the BFS graph keeps the original labels).
                let weighted = match plan.light_split() {
                    Some(delta) => weighted.relabelled_on(backend, delta),
                    None => weighted,
                };
                OneGraph {
                    graph: Some(Arc::new(graph)),
                    weighted: Some(Arc::new(weighted)),
                }
            }
            _ => OneGraph {
                graph: Some(Arc::new(Csr::from_list_on(backend, edges))),
                weighted: None,
            },
        }
    }

    fn keys(&mut self, plan: &Plan, graph: &OneGraph) -> Result<Vec<SearchKey>, Error> {
        let rule = self.key_rule.as_ref().expect("loaded");
        rule.choose(graph.graph.as_ref().expect("built"), plan.keys)
    }

    /// A packed list ([`Plan::packs_list`]) that is not put in block order
    /// is unpacked here, in place: kernel 1 was its last reader that takes
    /// either kind.
    fn ready(&mut self, plan: &Plan, keys: usize) -> TupleOrder {
        let Some(Input::List(edges)) = self.input.take() else {
            unreachable!("loaded, not yet re-encoded")
        };
        if !blocks_tuples(plan, keys) {
            self.input = Some(Input::List(edges.unpack()));
            return TupleOrder::Input;
        }
        let (input, order) = block_order(edges, reads_list(&plan.passes));
        self.input = Some(input);
        order
    }

    fn pass<'a>(
        &'a mut self,
        plan: &'a Plan,
        index: usize,
        graph: &'a OneGraph,
        _keys: usize,
    ) -> Box<dyn Searching + 'a> {
        let input = self.input.as_ref().expect("loaded");
        let view = OneView {
            graph,
            tuples: input.tuples(),
            list: input.list(),
            bfs_engine: self.bfs_engine.take().map(|f| f as BfsMaker<'a>),
        };
        plan.passes[index].on_one_process(plan, view)
    }

    fn passed(&mut self, plan: &Plan, index: usize, graph: &mut OneGraph, _: &mut PassOutput) {
        let later = later(plan, index);
        if !later.iter().any(|p| !p.weighted()) {
            graph.graph = None;
            if let Some(input) = self.input.take() {
                self.input = Some(input.list_only());
            }
        }
        if !reads_list(later) {
            graph.weighted = None;
        }
    }

    fn finish(&mut self) -> Option<RankFigures> {
        None
    }
}

/// Re-encodes the tuples in block order for the validators that read any
/// order: in place (packed or not) when the run owns them and need not
/// `keep` the list, as a copy when they are a read-only mapped file or kept
/// (a kept packed list is unpacked in place first) and the copy (8 bytes a
/// tuple until re-encoded) fits in the available memory; otherwise the
/// list stays as it is.
fn block_order(edges: EdgeList, keep: bool) -> (Input, TupleOrder) {
    let n = edges.num_vertices();
    let start = Instant::now();
    let copy_of = |list: &EdgeList| {
        let copy = EdgeList::bytes_for(list.len() as u64);
        let fits = system::available_memory_bytes().is_some_and(|a| a >= copy);
        fits.then(|| list.edges().to_vec())
    };
    let blocked = |tuples| on_pool_worker(|| TupleBlocks::from_tuples(n, tuples));
    let order = |copied| TupleOrder::Blocked {
        seconds: start.elapsed().as_secs_f64(),
        copied,
    };
    if keep {
        // The list stays for a reader of `Edge`s.
        let edges = edges.unpack();
        return match copy_of(&edges) {
            Some(tuples) => {
                let blocks = blocked(tuples);
                (Input::Both(edges, blocks), order(true))
            }
            None => (Input::List(edges), TupleOrder::Input),
        };
    }
    match on_pool_worker(|| TupleBlocks::from_list(edges)) {
        Ok(blocks) => (Input::Blocks(blocks), order(false)),
        Err(mapped) => match copy_of(&mapped) {
            Some(tuples) => (Input::Blocks(blocked(tuples)), order(true)),
            None => (Input::List(mapped), TupleOrder::Input),
        },
    }
}

/// The tuples a run validates against: as loaded, in block order, or both
/// (the list for a pass that reads it with its weights, block order for
/// the others).
enum Input {
    List(EdgeList),
    Blocks(TupleBlocks),
    Both(EdgeList, TupleBlocks),
}

impl Input {
    /// The tuples the order-free validators read: in block order if there
    /// is one.
    fn tuples(&self) -> Tuples<'_> {
        match self {
            Input::List(list) => list.into(),
            Input::Blocks(blocks) | Input::Both(_, blocks) => blocks.into(),
        }
    }

    /// The list in input order, if kept.
    fn list(&self) -> Option<&EdgeList> {
        match self {
            Input::List(list) | Input::Both(list, _) => Some(list),
            Input::Blocks(_) => None,
        }
    }

    /// The input without its block-ordered copy, whose memory is freed.
    fn list_only(self) -> Input {
        match self {
            Input::Both(list, _) => Input::List(list),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests;
