//! Kernel 2 in the harness: each engine's BFS as a [`Searcher`] and the
//! BFS validator as its [`Checker`].
//!
//! - One process: [`BfsSearcher`] drives any [`Bfs`] engine over the
//!   shared [`Csr`]; [`BfsChecker`] reads the engine's parent array where
//!   it lies (no `i64` copy) and, over block-ordered tuples of at most
//!   `2^26` vertices, holds up to [`validate::batch::LANES`] searches and
//!   judges their tuples in one pass ([`Batch`]).
//! - Ranks: `RankBfs` drives a [`DistBfs`] (1-D) and `RankGridBfs` a
//!   [`GridBfs`] (2-D), each recording the bytes each search sent and this
//!   rank's time inside collectives (`Waits`, which the harness takes from
//!   the search's time to give its compute);
//!   `RankBfsChecker` copies this rank's parents and the levels the engine
//!   claims for them out of either engine (untimed) and runs the
//!   distributed validator, which proves the claims instead of finding the
//!   levels (`certified`): both leave parents in the 1-D layout.

use super::Waits;
use crate::Memory;
use crate::report::{SearchRecord, TraceStep};
use crate::searches::{Checker, Searcher};
use dist::{Comm, DistBfs, DistValidator, GridBfs, Id, Partition};
use generator::Tuple;
use kernels::{Bfs, Csr, Parents, SearchKey, SearchStats};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use validate::{Batch, Hold, Invalid, TreeSummary, TupleBlocks, Tuples, Validator};

/// A BFS engine and the graph it searches.
pub struct BfsSearcher {
    engine: Box<dyn Bfs>,
    graph: Arc<Csr>,
}

impl BfsSearcher {
    /// `engine`, which searches `graph`.
    pub fn new(engine: Box<dyn Bfs>, graph: Arc<Csr>) -> Self {
        BfsSearcher { engine, graph }
    }
}

impl Searcher for BfsSearcher {
    type Output = Parents;

    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, key: SearchKey) -> SearchStats {
        self.engine.search(key)
    }

    fn output(&self) -> &Parents {
        self.engine.parents()
    }

    fn nedge(&self) -> u64 {
        self.graph.nedge(self.engine.parents())
    }

    /// The levels, for kernels that record them (an empty list otherwise).
    fn trace(&self, record: &mut SearchRecord) {
        record.trace = Some(self.engine.steps().iter().map(TraceStep::from).collect());
    }
}

/// The validator of BFS parent arrays over an edge list; it reads the
/// kernel's parent array where it lies (no `i64` copy). Over block-ordered
/// tuples of at most `2^26` vertices it holds up to [`validate::batch::LANES`]
/// searches and judges their tuples in one pass ([`Batch`]).
pub struct BfsChecker<'a> {
    judge: Judge<'a>,
}

/// How a [`BfsChecker`] judges, and the tuples it reads.
enum Judge<'a> {
    /// Each search alone.
    Alone(Validator, Tuples<'a>),
    /// Searches held in a batch, judged together.
    Batched(Batch, &'a TupleBlocks),
}

impl<'a> BfsChecker<'a> {
    /// A checker for searches of the graph of `tuples` (an edge list or
    /// its [`TupleBlocks`]); allocates the validator
    /// ([`Validator::bytes_for`], or [`Batch::bytes_for`] when batched).
    pub fn new(tuples: impl Into<Tuples<'a>>) -> Self {
        BfsChecker::with_memory(tuples, Memory::Fast)
    }

    /// A checker as [`BfsChecker::new`]; under [`Memory::Lean`] its batch
    /// keeps cells for the vertices with a tuple only ([`Batch::dense`]:
    /// the same verdicts, about 1.25-1.29 times the validation time at SCALE
    /// 20, 1.7 bytes a tuple less at SCALE 24).
    pub fn with_memory(tuples: impl Into<Tuples<'a>>, memory: Memory) -> Self {
        let tuples = tuples.into();
        let n = tuples.num_vertices();
        let judge = match tuples {
            Tuples::Blocks(blocks) if Batch::suits(n) => {
                let batch = match memory {
                    Memory::Fast => Batch::new(n),
                    Memory::Lean => Batch::dense(blocks),
                };
                Judge::Batched(batch, blocks)
            }
            _ => Judge::Alone(Validator::new(n), tuples),
        };
        BfsChecker { judge }
    }
}

impl Checker<Parents> for BfsChecker<'_> {
    /// Holds and settles at once: with no other search held, the verdict a
    /// single validation gives.
    fn check(
        &mut self,
        parents: &Parents,
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        match self.hold(parents, root, nedge)? {
            Some(tree) => Ok(tree),
            None => self.settle().pop().expect("the search just held"),
        }
    }

    fn lanes(&self) -> usize {
        match self.judge {
            Judge::Alone(..) => 1,
            Judge::Batched(..) => validate::batch::LANES,
        }
    }

    fn hold(
        &mut self,
        parents: &Parents,
        root: SearchKey,
        nedge: u64,
    ) -> Result<Option<TreeSummary>, Invalid> {
        match &mut self.judge {
            Judge::Batched(batch, blocks) => {
                let claims = parents.levels();
                match batch.hold(blocks, root.id(), parents.slots(), claims, Some(nedge))? {
                    Hold::Held => Ok(None),
                    Hold::Done(tree) => Ok(Some(tree)),
                }
            }
            Judge::Alone(validator, tuples) => validator
                .validate_any(*tuples, root.id(), parents.slots(), Some(nedge))
                .map(Some),
        }
    }

    fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        match &mut self.judge {
            Judge::Batched(batch, blocks) => batch.settle(blocks),
            Judge::Alone(..) => Vec::new(),
        }
    }

    fn certified(&self) -> u64 {
        match &self.judge {
            Judge::Batched(batch, _) => batch.certified(),
            Judge::Alone(..) => 0,
        }
    }
}

/// The distributed BFS as the loop drives it; records the bytes each
/// search sent (the warm-up's first) and this rank's time inside
/// collectives.
pub(crate) struct RankBfs<'c, I: Id> {
    engine: DistBfs<'c, I>,
    bytes: Vec<u64>,
    waits: Waits<'c>,
}

impl<'c, I: Id> RankBfs<'c, I> {
    /// `engine`, over `comm`, for `keys` searches (and the warm-up): no
    /// push reallocates inside a timed search.
    pub(crate) fn new(engine: DistBfs<'c, I>, comm: &'c dyn Comm, keys: usize) -> Self {
        RankBfs {
            engine,
            bytes: Vec::with_capacity(keys + 1),
            waits: Waits::new(comm, keys),
        }
    }
}

impl<'c, I: Id> Searcher for RankBfs<'c, I> {
    type Output = DistBfs<'c, I>;

    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, key: SearchKey) -> SearchStats {
        let engine = &mut self.engine;
        let stats = self.waits.count(|| engine.search(key.id()));
        self.bytes
            .push(self.engine.steps().iter().map(|s| s.bytes).sum());
        stats
    }

    fn output(&self) -> &DistBfs<'c, I> {
        &self.engine
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    fn trace(&self, record: &mut SearchRecord) {
        let steps = self.engine.steps().iter().map(|s| {
            let top_down = s.direction == kernels::Direction::TopDown;
            TraceStep {
                direction: s.direction.name().to_string(),
                frontier: s.frontier,
                discovered: s.discovered,
                edges_examined: top_down.then_some(s.scanned),
                seconds: s.seconds,
                bytes: Some(s.bytes),
                proposals: None,
                hubs: top_down.then_some(s.hubs),
                delegated: top_down.then_some(s.delegated),
            }
        });
        record.trace = Some(steps.collect());
    }

    fn bytes_sent(&self) -> &[u64] {
        &self.bytes
    }

    fn comm_nanos(&self) -> &[u64] {
        self.waits.nanos()
    }
}

/// The 2-D BFS as the loop drives it; records the bytes each search sent
/// (the warm-up's first), summed over the ranks, and this rank's time
/// inside collectives.
pub(crate) struct RankGridBfs<'c, I: Id> {
    engine: GridBfs<'c, I>,
    bytes: Vec<u64>,
    waits: Waits<'c>,
}

impl<'c, I: Id> RankGridBfs<'c, I> {
    /// `engine`, over `comm`, for `keys` searches (and the warm-up).
    pub(crate) fn new(engine: GridBfs<'c, I>, comm: &'c dyn Comm, keys: usize) -> Self {
        RankGridBfs {
            engine,
            bytes: Vec::with_capacity(keys + 1),
            waits: Waits::new(comm, keys),
        }
    }
}

impl<'c, I: Id> Searcher for RankGridBfs<'c, I> {
    type Output = GridBfs<'c, I>;

    /// Nothing: each search clears its own arrays.
    fn reset(&mut self) {}

    fn search(&mut self, key: SearchKey) -> SearchStats {
        let engine = &mut self.engine;
        let stats = self.waits.count(|| engine.search(key.id()));
        self.bytes.push(self.engine.search_bytes());
        stats
    }

    fn output(&self) -> &GridBfs<'c, I> {
        &self.engine
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    /// The levels; frontier, discovered, bytes, proposals and hubs
    /// global, seconds this rank's.
    fn trace(&self, record: &mut SearchRecord) {
        let mut frontier = 1;
        // Each hub of a frontier is met by the R cells of its grid column.
        let cells = self.engine.grid().rows() as u64;
        let steps = self.engine.levels().iter().map(|level| {
            let direction = match level.bottom_up {
                true => kernels::Direction::BottomUp,
                false => kernels::Direction::TopDown,
            };
            let step = TraceStep {
                direction: direction.name().to_string(),
                frontier,
                discovered: level.discovered,
                edges_examined: None,
                seconds: level.seconds,
                bytes: Some(level.all_bytes),
                proposals: Some(level.all_proposals),
                hubs: (!level.bottom_up).then_some(level.all_hubs / cells),
                delegated: None,
            };
            frontier = level.discovered;
            step
        });
        record.trace = Some(steps.collect());
    }

    fn bytes_sent(&self) -> &[u64] {
        &self.bytes
    }

    fn comm_nanos(&self) -> &[u64] {
        self.waits.nanos()
    }
}

/// A rank's parents and claimed levels as a search leaves them: atomics
/// (`DistBfs`) or plain (`GridBfs`), in the 1-D layout either way.
pub(crate) trait RankParents {
    /// Copies them into `parents` and `claims` (one slot per vertex this
    /// rank owns).
    fn copy_to(&self, parents: &mut [u64], claims: &mut [u8]);
}

impl<I: Id> RankParents for DistBfs<'_, I> {
    fn copy_to(&self, parents: &mut [u64], claims: &mut [u8]) {
        for (mine, p) in parents.iter_mut().zip(self.parents()) {
            *mine = p.load(Ordering::Relaxed);
        }
        for (mine, l) in claims.iter_mut().zip(self.claims()) {
            *mine = l.load(Ordering::Relaxed);
        }
    }
}

impl<I: Id> RankParents for GridBfs<'_, I> {
    fn copy_to(&self, parents: &mut [u64], claims: &mut [u8]) {
        parents.copy_from_slice(self.parents());
        claims.copy_from_slice(self.claims());
    }
}

/// The distributed BFS validator as the loop drives it.
pub(crate) struct RankBfsChecker<'c, T: Tuple> {
    validator: DistValidator<'c, T>,
    parents: Vec<u64>,
    /// The levels the engine claims for `parents`.
    claims: Vec<u8>,
}

impl<'c, T: Tuple> RankBfsChecker<'c, T> {
    /// A checker of this rank's rows of `part`, over its share of the
    /// tuples, the first of which is tuple number `first_tuple`.
    /// Collective: the validator regroups the tuples by vertex
    /// ([`DistValidator::new`]).
    pub(crate) fn new(comm: &'c dyn Comm, part: Partition, tuples: &'c [T], first: u64) -> Self {
        RankBfsChecker {
            validator: DistValidator::new(comm, part, tuples, first),
            parents: vec![0; part.count(comm.rank())],
            claims: vec![0; part.count(comm.rank())],
        }
    }
}

impl<T: Tuple, P: RankParents + ?Sized> Checker<P> for RankBfsChecker<'_, T> {
    fn prepare(&mut self, search: &P) {
        search.copy_to(&mut self.parents, &mut self.claims);
    }

    fn check(&mut self, _: &P, root: SearchKey, nedge: u64) -> Result<TreeSummary, Invalid> {
        let claims = Some(&self.claims[..]);
        (self.validator).check_claimed(root.id(), &self.parents, claims, Some(nedge))
    }

    fn lanes(&self) -> usize {
        self.validator.lanes()
    }

    fn hold(&mut self, _: &P, root: SearchKey, nedge: u64) -> Result<Option<TreeSummary>, Invalid> {
        let claims = Some(&self.claims[..]);
        (self.validator).hold_claimed(root.id(), &mut self.parents, claims, Some(nedge))
    }

    fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        self.validator.settle()
    }

    fn certified(&self) -> u64 {
        self.validator.certified()
    }
}
