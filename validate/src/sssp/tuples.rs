//! Checks 3 and 4 of the SSSP validator, and nedge: one parallel pass over
//! the input tuples.
//!
//! For each tuple `(u, v)` of weight `w` the pass reads `dist[u]` and
//! `dist[v]` (prefetched [`AHEAD`] tuples early: they are read at random)
//! and computes, in `f32`, `via_u = dist[u] + w` and `via_v = dist[v] + w`.
//! A tuple that is not a self-loop and has a reached end counts toward
//! nedge. One rarely taken branch catches everything else: a bad weight,
//! a half-reached tuple, and `via_u <= dist[v]` or `via_v <= dist[u]`,
//! which is either a broken triangle rule (`<`) or a possible tree edge
//! (`==`; one test for both, cheaper than two). Only there is the parent
//! array read: a tuple confirms `v` when, besides, `parent[v] == u`,
//! settled through `confirm.rs`'s queue, which prefetches the parent entry
//! a few candidates early (`docs/history-validate.md` has what both
//! choices saved). A tree edge is such a tuple by definition, so none is
//! missed; all the others the branch sees are ties of equal-length paths,
//! rare with random weights.
//!
//! Unreached vertices have distance `-1`, below every reached one, so the
//! sign tells reached; between two unreached ends the sums compare as for
//! any tuple and `via_u <= dist[v]` only for a zero weight, which the
//! branch then finds harmless.
//!
//! Every work item runs to its end, so the confirmations, and check 3's
//! verdict, never depend on where check 4 failed; check 3 is reported
//! first when both fail, and within a check the lowest vertex or tuple.

use super::{confirms, finite_non_negative, tuple_error, vertex};
use crate::Invalid;
use crate::confirm::Pending;
use generator::Edge;
use par::first_index;
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Tuples per parallel work item.
const EDGE_GRAIN: usize = 1 << 14;
/// How many tuples ahead the distances are prefetched.
const AHEAD: usize = 16;

/// The arrays the pass reads; `parents` and `dist` have passed checks 1
/// and 2, and there is one weight per tuple.
pub(super) struct Tuples<'a> {
    pub(super) edges: &'a [Edge],
    pub(super) weights: &'a [f32],
    pub(super) parents: &'a [i64],
    pub(super) dist: &'a [f32],
}

impl Tuples<'_> {
    /// Checks 3 and 4; returns nedge. `confirmed` holds one flag per
    /// vertex. Cost: one parallel pass over the tuples and weights, two
    /// random 4-byte reads per tuple and one random parent read per
    /// possible tree edge; then one parallel pass over the vertices.
    pub(super) fn check(&self, root: usize, confirmed: &[AtomicBool]) -> Result<u64, Invalid> {
        confirmed
            .par_iter()
            .with_min_len(EDGE_GRAIN)
            .for_each(|c| c.store(false, Relaxed));
        let (nedge, tuple_error) = self
            .edges
            .par_chunks(EDGE_GRAIN)
            .zip(self.weights.par_chunks(EDGE_GRAIN))
            .enumerate()
            .map(|(k, (edges, weights))| {
                let mut judge = Judge::new(self.parents, self.dist, confirmed);
                judge.run(k * EDGE_GRAIN, edges, weights);
                (judge.nedge, judge.error)
            })
            .reduce(|| (0, None), |a, b| (a.0 + b.0, a.1.or(b.1)));

        let (parents, dist) = (self.parents, self.dist);
        let waiting = |v: usize| parents[v] != -1 && v != root && !confirmed[v].load(Relaxed);
        if let Some(v) = first_index(parents.len(), waiting) {
            let parent = vertex(parents[v]);
            return Err(Invalid::Unconfirmed {
                vertex: v as u64,
                parent: parent as u64,
                dist: dist[v].into(),
                parent_dist: dist[parent].into(),
            });
        }
        match tuple_error {
            Some(error) => Err(error),
            None => Ok(nedge),
        }
    }
}

/// The verdict on a run of tuples: nedge so far and the first check-4
/// error; confirmations go to the shared flags through a prefetching
/// queue.
struct Judge<'a> {
    parents: &'a [i64],
    dist: &'a [f32],
    confirmed: &'a [AtomicBool],
    nedge: u64,
    error: Option<Invalid>,
    /// Possible tree edges whose parent entries are on their way to cache.
    pending: Pending,
}

impl<'a> Judge<'a> {
    fn new(parents: &'a [i64], dist: &'a [f32], confirmed: &'a [AtomicBool]) -> Self {
        Judge {
            parents,
            dist,
            confirmed,
            nedge: 0,
            error: None,
            pending: Pending::default(),
        }
    }

    /// Judges `edges`, the first at position `first`, with their weights.
    fn run(&mut self, first: usize, edges: &[Edge], weights: &[f32]) {
        let dist = self.dist;
        for (i, (&e, &w)) in edges.iter().zip(weights).enumerate() {
            if let Some(ahead) = edges.get(i + AHEAD) {
                prefetch_entry(dist, ahead.u);
                prefetch_entry(dist, ahead.v);
            }
            match (dist.get(e.u as usize), dist.get(e.v as usize)) {
                (Some(&du), Some(&dv)) => self.tuple(first + i, e, w, du, dv),
                _ => self.out_of_range(first + i, e),
            }
        }
        self.pending.drain(self.parents, self.confirmed, true);
    }

    /// Judges tuple `e` at `position`, of weight `w`, whose ends have
    /// distances `du` and `dv`: the common case in straight-line code, the
    /// rest in [`Judge::rare`].
    #[inline(always)]
    fn tuple(&mut self, position: usize, e: Edge, w: f32, du: f32, dv: f32) {
        let (reached_u, reached_v) = (du >= 0.0, dv >= 0.0);
        let proper = e.u != e.v;
        self.nedge += u64::from((reached_u | reached_v) & proper);
        let (via_u, via_v) = (du + w, dv + w);
        // Non-short-circuit `|`: each test is rarely true, their
        // disjunction is one predictable branch.
        let rare =
            !finite_non_negative(w) | (reached_u != reached_v) | (via_u <= dv) | (via_v <= du);
        if rare & proper {
            self.rare(position, e, w, du, dv);
        }
    }

    /// A tuple, not a self-loop, that fails check 4 or may be a tree edge:
    /// the rules of [`tuple_error`] and [`confirms`].
    #[inline(never)]
    fn rare(&mut self, position: usize, e: Edge, w: f32, du: f32, dv: f32) {
        let ends = (u64::from(e.u), u64::from(e.v));
        if let Some(error) = tuple_error(position as u64, ends, w, du, dv) {
            self.fail(|| error);
        }
        if confirms(w, du, dv) {
            self.confirm(e.v, e.u);
        }
        if confirms(w, dv, du) {
            self.confirm(e.u, e.v);
        }
    }

    /// Marks `child` confirmed if `parent` is its parent (its distance was
    /// found to be `parent`'s plus the tuple's weight): queued, so that the
    /// parent entry, read at random, is prefetched first.
    #[inline]
    fn confirm(&mut self, child: u32, parent: u32) {
        (self.pending).push(child, parent, self.parents, self.confirmed, true);
    }

    /// Tuple `e` at `position` names a vertex beyond the arrays.
    #[cold]
    fn out_of_range(&mut self, position: usize, e: Edge) {
        let num_vertices = self.dist.len();
        self.fail(|| Invalid::TupleOutOfRange {
            edge: position as u64,
            u: e.u.into(),
            v: e.v.into(),
            num_vertices,
        });
    }

    /// Keeps `error` if it is the run's first.
    fn fail(&mut self, error: impl FnOnce() -> Invalid) {
        self.error.get_or_insert_with(error);
    }
}

/// Prefetches `dist[v]` if `v` is a vertex.
#[inline(always)]
fn prefetch_entry(dist: &[f32], v: u32) {
    if let Some(d) = dist.get(v as usize) {
        prefetch(d);
    }
}
