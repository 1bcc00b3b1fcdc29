//! The run over P ranks: the same [`search_all`](crate::search_all) loop as one process,
//! driven by a distributed [`Searcher`] ([`dist::DistBfs`]) and its
//! independent [`Checker`] ([`dist::DistValidator`]).
//!
//! Every rank runs this function with the same plan, and every step is
//! collective: rank `r` generates its share of the edge blocks (the ranks'
//! shares, in rank order, are the single-process list, so the checksum is
//! the same), kernel 1 sends each arc to its source's owner, the search
//! keys come from every rank's eligible vertices gathered into one
//! [`Eligible`] set (so they are the single-process keys), then the loop.
//! With `--sssp`, as in one process: each rank's weights come with its
//! tuples (generated for its blocks, or read from its range of a binary
//! file of version 2), kernel 1 builds the weighted rows and copies the
//! BFS rows out of them, and after the BFS loop the same keys go through
//! the loop again with [`dist::DistSssp`], checked by
//! [`dist::DistSsspValidator`].
//! Phase times end with a barrier, so each is the slowest rank's. Only
//! rank 0's observer hears events; stop requests are agreed on (any
//! rank's request stops every rank at the same point). Failures on any
//! rank are agreed on too: every rank returns the same error.

use crate::kernel3::{self, SsspEngine, SsspSearcher};
use crate::observe::{self, Event, Observer};
use crate::plan::{self, GraphSource, KeyRule, Plan};
use crate::report::{MpiReport, TraceStep};
use crate::run::{Checker, Measured, Outcome, Searcher, Searches, TupleOrder, searches_of, timed};
use crate::{Error, budget, system};
use dist::{
    Comm, DistBfs, DistSssp, DistSsspValidator, DistValidator, Id, LocalGraph, Partition, Reduce,
    WeightedLocalGraph, agree, all_gather,
};
use generator::format::{EdgeFormat, binary};
use generator::{EDGES_PER_BLOCK, EdgeList, Tuple};
use kernels::{BucketStep, Eligible, Kernel, SearchKey, SearchStats, SsspStats};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use validate::{Invalid, TreeSummary};

/// Runs `plan` as one of the ranks of `comm`. Collective: every rank calls
/// it with the same plan. A generated graph, or a binary edge-list file
/// (each rank reads its own byte range), searched by `dobfs`.
pub fn run_distributed(
    plan: &Plan,
    observer: &dyn Observer,
    comm: &dyn Comm,
) -> Result<Outcome, Error> {
    if let GraphSource::File { path, format, .. } = &plan.source
        && *format != EdgeFormat::Binary
    {
        return Err(Error::Refused(format!(
            "{}: under mpirun each rank reads its own byte range, which only a binary edge list has; convert it first: graph500 convert {} FILE.bin",
            path.display(),
            path.display()
        )));
    }
    if !matches!(plan.kernel, Kernel::Dobfs(_)) {
        return Err(Error::Refused(format!(
            "under mpirun only --kernel dobfs runs, not {}",
            plan.kernel
        )));
    }
    let observer = Agreed {
        comm,
        own: observer,
        speaks: comm.rank() == 0,
    };
    let (m, n) = agreed(comm, sizes(plan))?;
    let rows = Partition::new(n, comm.size()).count(0) as u64;
    if rows > u64::from(u32::MAX) {
        let fewest = (comm.size()..)
            .find(|&p| Partition::new(n, p).count(0) as u64 <= u64::from(u32::MAX))
            .expect("enough ranks exist");
        return Err(Error::Refused(format!(
            "{n} vertices over {} ranks: a rank would own {rows}, but a rank counts its own vertices in 32 bits; run at least {fewest} ranks",
            comm.size()
        )));
    }
    if plan.wide_ids || n > u64::from(u32::MAX) {
        run_ids::<u64>(plan, &observer, comm, m, n)
    } else {
        run_ids::<u32>(plan, &observer, comm, m, n)
    }
}

/// `M` and `N` of the graph, before it is made or read; refuses a file
/// without weights under `--sssp`.
fn sizes(plan: &Plan) -> Result<(u64, u64), Error> {
    Ok(match &plan.source {
        GraphSource::Generated(spec) => (spec.num_edges(), spec.num_vertices()),
        GraphSource::File { path, .. } => {
            let header = binary::read_header(path)?;
            if plan.sssp.is_some() && !header.weighted {
                return Err(plan::no_weights(path));
            }
            (header.num_edges, header.num_vertices)
        }
    })
}

/// This rank's share of the tuples: generated (its blocks) or read (its
/// byte range), their weights with `--sssp`, the global number of its
/// first tuple, and the key rule.
struct Share<T> {
    tuples: Vec<T>,
    weights: Option<Vec<f32>>,
    first_tuple: u64,
    key_rule: KeyRule,
}

fn load_share<T: Tuple>(
    plan: &Plan,
    observer: &dyn Observer,
    comm: &dyn Comm,
) -> Result<Share<T>, Error> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let weighted = plan.sssp.is_some();
    match &plan.source {
        GraphSource::Generated(spec) => {
            let (generator, key_rule) = spec.build_for_ranks()?;
            let blocks = generator.block_share(rank, ranks);
            observer.event(Event::Loading {
                what: &format!(
                    "{}, over {ranks} ranks",
                    spec.generating(&*generator, weighted)
                ),
                blocks: plan::passes(weighted) * blocks.len() as u64,
            });
            let first_tuple = (blocks.start * EDGES_PER_BLOCK) as u64;
            let done = || observer.block_generated();
            let tuples = generator::generate_blocks(&*generator, blocks.clone(), &done);
            let weights = weighted.then(|| generator::generate_weights(&*generator, blocks, &done));
            Ok(Share {
                tuples,
                weights,
                first_tuple,
                key_rule,
            })
        }
        GraphSource::File { path, seed, .. } => {
            observer.event(Event::Loading {
                what: &format!("reading {} (binary), a share per rank", path.display()),
                blocks: 0,
            });
            let (_, tuples, first_tuple) = binary::read_share(path, rank, ranks)?;
            let weights = if weighted {
                let weights = binary::read_weights_share(path, rank, ranks)?;
                Some(weights.ok_or_else(|| plan::no_weights(path))?)
            } else {
                None
            };
            Ok(Share {
                tuples,
                weights,
                first_tuple,
                key_rule: KeyRule::Seeded(*seed),
            })
        }
    }
}

fn run_ids<I: Id>(
    plan: &Plan,
    observer: &Agreed<'_>,
    comm: &dyn Comm,
    m: u64,
    n: u64,
) -> Result<Outcome, Error> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let memory_estimate = plan.rank_memory_estimate::<I>(m, n, ranks as u64);
    let sharing = comm.ranks_on_this_machine() as u64;
    let what = format!(
        "a run on {n} vertices and {m} tuples over {ranks} ranks ({sharing} on this machine, about {:.1} GiB each)",
        memory_estimate as f64 / f64::from(1u32 << 30)
    );
    agreed(
        comm,
        budget::check(sharing * memory_estimate, &what, None, plan.force),
    )?;

    // This rank's share: generated or read.
    let (loaded, graph_generation) = timed(|| {
        let loaded = load_share::<I::Tuple>(plan, observer, comm);
        comm.barrier();
        loaded
    });
    let Share {
        tuples,
        weights,
        first_tuple,
        key_rule,
    } = agreed(comm, loaded)?;
    let terms = EdgeList::checksum_terms(&tuples, first_tuple);
    let checksum = EdgeList::finish_checksum(dist::all_reduce(comm, [terms], Reduce::Sum)[0], n);
    observer.event(Event::Loaded {
        vertices: usize::try_from(n).unwrap_or(usize::MAX),
        edges: usize::try_from(m).unwrap_or(usize::MAX),
        seconds: graph_generation,
    });
    observe::check(observer)?;

    // Kernel 1: with --sssp, the weighted rows split light-first at delta
    // and the BFS rows copied out of them, all timed (as in one process).
    observer.event(Event::Building);
    let part = Partition::new(n, ranks);
    let sent_before = comm.bytes_sent();
    let ((graph, weighted), construction_time) = timed(|| {
        let built = match (&weights, plan.sssp) {
            (Some(weights), Some(params)) => {
                let weighted = WeightedLocalGraph::<I>::build_weighted_on(
                    plan.backend,
                    comm,
                    part,
                    &tuples,
                    weights,
                    params.delta(),
                );
                (weighted.unweighted_on(plan.backend), Some(weighted))
            }
            _ => (
                LocalGraph::<I>::build_on(plan.backend, comm, part, &tuples),
                None,
            ),
        };
        comm.barrier();
        built
    });
    let kernel1_bytes = sum(comm, comm.bytes_sent() - sent_before);
    let keys = agreed(
        comm,
        key_rule.choose_among(&eligible(comm, &graph), plan.keys),
    )?;
    observer.event(Event::Built {
        seconds: construction_time,
    });
    observe::check(observer)?;

    let Kernel::Dobfs(params) = plan.kernel else {
        unreachable!("checked by run_distributed")
    };
    let mut searcher = Ranked {
        engine: DistBfs::on(plan.backend, comm, Arc::new(graph), params),
        // The warm-up search's bytes too: no push reallocates inside a
        // timed search.
        bytes: Vec::with_capacity(keys.len() + 1),
    };
    let kernel = format!("{} over {ranks} ranks", plan.kernel.label(plan.backend));
    let checker = || BfsRankChecker {
        validator: DistValidator::new(comm, part, &tuples, first_tuple),
        parents: vec![0; part.count(rank)],
    };
    let (searches, validate_bytes) =
        metered(comm, &mut searcher, checker, &keys, plan, &kernel, observer)?;
    let mut searches = match searches {
        Ok(searches) => searches,
        Err(invalid) => return Ok(Outcome::Invalid(invalid)),
    };
    // The warm-up search's bytes come first; the BFS rows go with the engine.
    let search_bytes = searcher.bytes.split_off(1);
    drop(searcher);

    let sssp = match (weighted, plan.sssp, &weights) {
        (Some(weighted), Some(params), Some(weights)) => {
            let mut searcher = SsspSearcher::with_engine(RankedSssp {
                engine: DistSssp::on(plan.backend, comm, Arc::new(weighted), params),
                bytes: Vec::with_capacity(keys.len() + 1),
            });
            searcher.set_tracing(plan.trace);
            let kernel = format!(
                "{} over {ranks} ranks",
                kernel3::label(params, plan.backend)
            );
            let rows = part.count(rank);
            let checker = || SsspRankChecker {
                validator: DistSsspValidator::new(comm, part, &tuples, weights, first_tuple),
                parents: vec![0; rows],
                dist: vec![0.0; rows],
            };
            let (searches, validate_bytes) =
                metered(comm, &mut searcher, checker, &keys, plan, &kernel, observer)?;
            match searches {
                Ok(searches) => Some((
                    searches,
                    searcher.into_engine().bytes.split_off(1),
                    validate_bytes,
                )),
                Err(invalid) => return Ok(Outcome::Invalid(invalid)),
            }
        }
        _ => None,
    };
    let peak = system::peak_resident_bytes().unwrap_or(0);
    let mut peaks = vec![0u64; ranks];
    all_gather(comm, &[peak], &vec![1; ranks], &mut peaks);
    observer.event(Event::Finished);
    if !plan.trace {
        for record in &mut searches {
            record.trace = None;
        }
    }
    let (sssp_searches, sssp_search_bytes, sssp_validate_bytes) = match sssp {
        Some((searches, search, validate)) => (Some(searches), Some(search), Some(validate)),
        None => (None, None, None),
    };
    Ok(Outcome::Valid(Measured {
        num_vertices: usize::try_from(n).unwrap_or(usize::MAX),
        num_edges: usize::try_from(m).unwrap_or(usize::MAX),
        checksum,
        tuple_order: TupleOrder::Input,
        validation_lanes: usize::from(plan.validate),
        validation_certified: 0,
        graph_generation,
        construction_time,
        memory_estimate,
        searches,
        sssp_searches,
        mpi: Some(MpiReport {
            ranks,
            id_bytes: size_of::<I>(),
            peak_memory_bytes_per_rank: peaks,
            kernel1_bytes,
            search_bytes,
            validate_bytes,
            sssp_search_bytes,
            sssp_validate_bytes,
        }),
    }))
}

/// [`searches_of`] with the bytes each validation sent, summed over the
/// ranks, in key order (empty without validation).
fn metered<S, C>(
    comm: &dyn Comm,
    searcher: &mut S,
    checker: impl FnOnce() -> C + Send,
    keys: &[SearchKey],
    plan: &Plan,
    kernel: &str,
    observer: &dyn Observer,
) -> Result<(Searches, Vec<u64>), Error>
where
    S: Searcher + Send,
    C: Checker<S::Output>,
{
    let checker = || Metered {
        checker: checker(),
        comm,
        bytes: Vec::with_capacity(keys.len()),
    };
    let (searches, checker) = searches_of(searcher, checker, keys, plan, kernel, observer)?;
    // Each rank counted its own bytes; the report sums them.
    let mut bytes = checker.map(|c| c.bytes).unwrap_or_default();
    comm.all_reduce(&mut bytes, Reduce::Sum);
    Ok((searches, bytes))
}

/// `Ok` on every rank only if it is on every rank; otherwise every rank
/// fails with the lowest failing rank's message.
fn agreed<T>(comm: &dyn Comm, mine: Result<T, Error>) -> Result<T, Error> {
    agree(comm, mine.map_err(|e| e.to_string())).map_err(Error::Refused)
}

/// `x` summed over the ranks.
fn sum(comm: &dyn Comm, x: u64) -> u64 {
    dist::all_reduce(comm, [x], Reduce::Sum)[0]
}

/// The vertices with an edge (not a self-loop), every rank's words
/// gathered: the same set as the whole graph's [`Eligible::of`].
fn eligible<I: Id>(comm: &dyn Comm, graph: &LocalGraph<I>) -> Eligible {
    let part = graph.partition();
    let rows = graph.num_rows();
    let mine: Vec<u64> = (0..rows.div_ceil(64))
        .map(|w| {
            (w * 64..(w * 64 + 64).min(rows)).fold(0u64, |bits, row| {
                bits | u64::from(graph.degree(row) > 0) << (row % 64)
            })
        })
        .collect();
    let counts: Vec<usize> = (0..part.ranks()).map(|r| part.words(r)).collect();
    let mut words = vec![0u64; counts.iter().sum()];
    all_gather(comm, &mine, &counts, &mut words);
    Eligible::from_words(part.num_vertices(), words)
}

/// The distributed engine as the run loop drives it; records the bytes
/// each search sent (the warm-up's first).
struct Ranked<'c, I: Id> {
    engine: DistBfs<'c, I>,
    bytes: Vec<u64>,
}

impl<I: Id> Searcher for Ranked<'_, I> {
    type Output = [AtomicU64];

    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, key: SearchKey) -> SearchStats {
        let stats = self.engine.search(key.id());
        self.bytes
            .push(self.engine.steps().iter().map(|s| s.bytes).sum());
        stats
    }

    fn output(&self) -> &[AtomicU64] {
        self.engine.parents()
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    fn trace(&self) -> Vec<TraceStep> {
        self.engine
            .steps()
            .iter()
            .map(|s| TraceStep {
                direction: s.direction.name().to_string(),
                frontier: s.frontier,
                discovered: s.discovered,
                edges_examined: (s.direction == kernels::Direction::TopDown).then_some(s.scanned),
                seconds: s.seconds,
                bytes: Some(s.bytes),
            })
            .collect()
    }
}

/// The distributed BFS validator as the run loop drives it.
struct BfsRankChecker<'c, T: Tuple> {
    validator: DistValidator<'c, T>,
    parents: Vec<u64>,
}

impl<T: Tuple> Checker<[AtomicU64]> for BfsRankChecker<'_, T> {
    fn prepare(&mut self, parents: &[AtomicU64]) {
        for (mine, p) in self.parents.iter_mut().zip(parents) {
            *mine = p.load(Ordering::Relaxed);
        }
    }

    fn check(
        &mut self,
        _: &[AtomicU64],
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        self.validator.check(root.id(), &self.parents, Some(nedge))
    }
}

/// The distributed delta-stepping engine as [`SsspSearcher`] drives it;
/// records the bytes each search sent (the warm-up's first).
struct RankedSssp<'c, I: Id> {
    engine: DistSssp<'c, I>,
    bytes: Vec<u64>,
}

impl<I: Id> SsspEngine for RankedSssp<'_, I> {
    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, root: SearchKey) -> SsspStats {
        let stats = self.engine.search(root.id());
        self.bytes.push(self.engine.bytes());
        stats
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    fn steps(&self) -> &[BucketStep] {
        self.engine.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.engine.set_tracing(on);
    }
}

/// The distributed SSSP validator as the run loop drives it.
struct SsspRankChecker<'c, I: Id> {
    validator: DistSsspValidator<'c, I::Tuple>,
    parents: Vec<u64>,
    dist: Vec<f32>,
}

impl<I: Id> Checker<RankedSssp<'_, I>> for SsspRankChecker<'_, I> {
    fn prepare(&mut self, ranked: &RankedSssp<'_, I>) {
        ranked
            .engine
            .write_results(&mut self.parents, &mut self.dist);
    }

    fn check(
        &mut self,
        _: &RankedSssp<'_, I>,
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        (self.validator)
            .check(root.id(), &self.parents, &self.dist, Some(nedge))
            .map(kernel3::summary)
    }
}

/// A checker across the ranks, with the bytes this rank sent in each check.
struct Metered<'c, C> {
    checker: C,
    comm: &'c dyn Comm,
    bytes: Vec<u64>,
}

impl<O: ?Sized, C: Checker<O>> Checker<O> for Metered<'_, C> {
    fn prepare(&mut self, output: &O) {
        self.checker.prepare(output);
    }

    fn check(&mut self, output: &O, root: SearchKey, nedge: u64) -> Result<TreeSummary, Invalid> {
        let before = self.comm.bytes_sent();
        let verdict = self.checker.check(output, root, nedge);
        self.bytes.push(self.comm.bytes_sent() - before);
        verdict
    }
}

/// Each rank's observer, heard only on rank 0, with stop requests agreed
/// on: asking any rank to stop stops all of them at the same check (one
/// small all-reduce per check).
struct Agreed<'a> {
    comm: &'a dyn Comm,
    own: &'a dyn Observer,
    speaks: bool,
}

impl Observer for Agreed<'_> {
    fn event(&self, event: Event<'_>) {
        if self.speaks {
            self.own.event(event);
        }
    }

    fn block_generated(&self) {
        if self.speaks {
            self.own.block_generated();
        }
    }

    fn stop_requested(&self) -> bool {
        let mine = u64::from(self.own.stop_requested());
        dist::all_reduce(self.comm, [mine], Reduce::Max)[0] == 1
    }
}
