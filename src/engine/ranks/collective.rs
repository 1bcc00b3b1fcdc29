//! The collective pieces of the ranks engine: agreeing on outcomes, sums
//! over the ranks, the key set gathered from every rank, the metered
//! checker and the observer whose stop requests all ranks agree on.

use crate::Error;
use crate::observe::{Event, Observer};
use crate::searches::Checker;
use dist::{Comm, Partition, Reduce, agree, all_gather};
use kernels::{Eligible, SearchKey};
use validate::{Invalid, TreeSummary};

/// `Ok` on every rank only if it is on every rank; otherwise every rank
/// fails with the lowest failing rank's message.
pub(crate) fn agreed<T>(comm: &dyn Comm, mine: Result<T, Error>) -> Result<T, Error> {
    agree(comm, mine.map_err(|e| e.to_string())).map_err(Error::Refused)
}

/// `x` summed over the ranks.
pub(super) fn sum(comm: &dyn Comm, x: u64) -> u64 {
    dist::all_reduce(comm, [x], Reduce::Sum)[0]
}

/// The vertices with an edge (not a self-loop), every rank's words
/// gathered: the same set as the whole graph's [`Eligible::of`], from
/// whether each vertex this rank owns (by local index) has an edge.
pub(super) fn eligible(
    comm: &dyn Comm,
    part: Partition,
    has_edge: impl Fn(usize) -> bool,
) -> Eligible {
    let rows = part.count(comm.rank());
    let mine: Vec<u64> = (0..rows.div_ceil(64))
        .map(|w| {
            (w * 64..(w * 64 + 64).min(rows)).fold(0u64, |bits, row| {
                bits | u64::from(has_edge(row)) << (row % 64)
            })
        })
        .collect();
    let counts: Vec<usize> = (0..part.ranks()).map(|r| part.words(r)).collect();
    let mut words = vec![0u64; counts.iter().sum()];
    all_gather(comm, &mine, &counts, &mut words);
    Eligible::from_words(part.num_vertices(), words)
}

/// A checker across the ranks, with the bytes this rank sent in each check
/// and its nanoseconds inside collectives (for a held search, its own
/// hold's and an equal share of its settle's).
pub(crate) struct Metered<'c, C> {
    checker: C,
    comm: &'c dyn Comm,
    bytes: Vec<u64>,
    nanos: Vec<u64>,
    /// Which of `bytes` are held searches' that wait for a settle.
    held: Vec<usize>,
}

impl<'c, C> Metered<'c, C> {
    /// `checker`, metered, for `keys` checks.
    pub(crate) fn new(checker: C, comm: &'c dyn Comm, keys: usize) -> Self {
        Metered {
            checker,
            comm,
            bytes: Vec::with_capacity(keys),
            nanos: Vec::with_capacity(keys),
            held: Vec::new(),
        }
    }

    /// This rank's bytes sent and nanoseconds inside collectives so far.
    fn meter(&self) -> [u64; 2] {
        [self.comm.bytes_sent(), self.comm.nanos_in_calls()]
    }

    /// Records a check's figures since `before` (from [`Metered::meter`]).
    fn record(&mut self, before: [u64; 2]) {
        let [bytes, nanos] = self.meter();
        self.bytes.push(bytes - before[0]);
        self.nanos.push(nanos - before[1]);
    }
}

/// Shares `total` among the entries `held` of `out` equally, the remainder
/// to the first of them, one each.
fn share_out(out: &mut [u64], held: &[usize], total: u64) {
    let n = held.len().max(1) as u64;
    for (k, &i) in held.iter().enumerate() {
        out[i] += total / n + u64::from((k as u64) < total % n);
    }
}

impl<O: ?Sized, C: Checker<O>> Checker<O> for Metered<'_, C> {
    fn prepare(&mut self, output: &O) {
        self.checker.prepare(output);
    }

    fn check(&mut self, output: &O, root: SearchKey, nedge: u64) -> Result<TreeSummary, Invalid> {
        let before = self.meter();
        let verdict = self.checker.check(output, root, nedge);
        self.record(before);
        verdict
    }

    fn lanes(&self) -> usize {
        self.checker.lanes()
    }

    fn hold(
        &mut self,
        output: &O,
        root: SearchKey,
        nedge: u64,
    ) -> Result<Option<TreeSummary>, Invalid> {
        let before = self.meter();
        let verdict = self.checker.hold(output, root, nedge);
        if matches!(verdict, Ok(None)) {
            self.held.push(self.bytes.len());
        }
        self.record(before);
        verdict
    }

    fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        let before = self.meter();
        let verdicts = self.checker.settle();
        let [bytes, nanos] = self.meter();
        share_out(&mut self.bytes, &self.held, bytes - before[0]);
        share_out(&mut self.nanos, &self.held, nanos - before[1]);
        self.held.clear();
        verdicts
    }

    fn certified(&self) -> u64 {
        self.checker.certified()
    }

    fn bytes_sent(&self) -> &[u64] {
        &self.bytes
    }

    fn comm_nanos(&self) -> &[u64] {
        &self.nanos
    }
}

/// Each rank's observer, heard only on rank 0, with stop requests agreed
/// on: asking any rank to stop stops all of them at the same check (one
/// small all-reduce per check).
pub(super) struct Agreed<'a> {
    pub(super) comm: &'a dyn Comm,
    pub(super) own: &'a dyn Observer,
    pub(super) speaks: bool,
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
