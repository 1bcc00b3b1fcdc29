//! Proof that a parent array and a distance array are a shortest-path tree
//! of a weighted edge list (Graph500 kernel 3), and the nedge of that search.
//!
//! Like the BFS validator, this works from the inputs alone: the tuples,
//! one `f32` weight per tuple (finite, `>= 0`), the parents (Graph500
//! `int64`, `-1` unreached, `parent[root] = root`) and the distances (`f32`,
//! exactly `-1` unreached). The reference code's rules (its `validate.c`)
//! plus the tree check it lacks, numbered as the BFS checks they stand
//! beside ([`Invalid::check`]), in the order they run and are reported:
//!
//! 1. lengths (parents and distances `N`, one weight per tuple) and the
//!    root; then, for the lowest vertex that breaks any: its parent is `-1`
//!    or a vertex id, its distance is finite and `>= 0` or exactly `-1`,
//!    and the parent is `-1` exactly when the distance is; then the root is
//!    its own parent at distance 0 (`-0.0` passes, as in the reference);
//! 2. the parent pointers form one tree rooted at the root, found as the
//!    BFS validator finds it (`tree.rs`): no cycle, no second self-parent,
//!    no reached vertex below an unreached one. The reference's rules pass
//!    a cycle of zero-weight tuples (`dist[v] == dist[parent] + 0` all the
//!    way round), also one cut off from the root, and in `f32` even a cycle
//!    of tiny positive weights that round away; this check does not;
//! 3. every reached vertex but the root is confirmed: some input tuple
//!    joins it to its parent (either orientation) with weight `w` such that
//!    `dist[v] == dist[parent] + w`, exactly, in `f32`;
//! 4. every input tuple has both ends below `N`; every one `(u, v)` that
//!    is not a self-loop has a finite weight `w >= 0`, both ends reached or
//!    neither, and neither `dist[u] + w < dist[v]` nor `dist[v] + w <
//!    dist[u]` (the triangle rule, an `f32` addition then a comparison, as
//!    the reference computes it). Self-loops are otherwise left out, as in
//!    the reference: no rule reads them;
//! 5. (needs no pass, as for BFS) with 3 every distance is the length of a
//!    real path, computed along it in `f32`; with 4 no tuple offers a
//!    shorter one, and no vertex of the root's component is left unreached;
//! 6. the nedge counted here (tuples with an end reached, self-loops
//!    excluded, duplicates included) equals the one the run used for TEPS.
//!
//! Within check 1 the parts fail in the order listed; within check 3 the
//! lowest vertex is named, within check 4 the lowest tuple (and for it
//! the first failing part, in the order listed). Checks 3 and 4 come from
//! one pass (`sssp/tuples.rs`) that always runs to its end, so which
//! failure is named never depends on the thread count.
//!
//! Cost: a pass over the vertices (check 1), the tree walk (check 2, O(N)),
//! one pass over the tuples reading both ends' distances and the weight
//! (checks 3, 4, nedge), one more over the vertices (confirmations, the
//! largest distance); all parallel on the current rayon pool. Working
//! memory: 5 bytes per vertex, allocated once per [`SsspValidator`].

mod tuples;

use crate::{Invalid, tree};
use generator::Edge;
use par::first_index;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32};

/// Vertices per parallel work item of the passes over the vertices.
const VERTEX_GRAIN: usize = 1 << 14;

/// What a valid shortest-path tree looks like from the validator's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsspSummary {
    /// Input tuples, duplicates included, self-loops excluded, with an end in
    /// the searched component (the reference code's rule, as for BFS).
    pub nedge: u64,
    /// Reached vertices, the root included.
    pub reached: u64,
    /// The largest distance of a reached vertex (0 when only the root is).
    pub max_dist: f32,
    /// The deepest tree level, in tree edges from the root (root 0).
    pub depth: u32,
}

/// Reusable working memory for validating many SSSP searches of graphs of
/// one size.
#[derive(Debug)]
pub struct SsspValidator {
    /// Tree levels, as `tree.rs` assigns them.
    levels: Vec<AtomicU32>,
    /// Whether a tuple confirms the vertex's parent and distance.
    confirmed: Vec<AtomicBool>,
}

impl SsspValidator {
    /// The working memory a validator for `num_vertices` vertices takes: 5
    /// bytes per vertex (a tree level and a confirmation flag), plus, while
    /// a tree is walked, a stack of 4 bytes per level of the longest chain
    /// a worker walks (small for any search tree of a Kronecker graph). The
    /// arrays it reads are the caller's.
    pub fn bytes_for(num_vertices: u64) -> u64 {
        (size_of::<AtomicU32>() + size_of::<AtomicBool>()) as u64 * num_vertices
    }

    /// Working memory for graphs of `num_vertices` vertices, the `N` that
    /// [`SsspValidator::validate`] checks the arrays against.
    ///
    /// # Panics
    /// If `num_vertices` exceeds [`generator::MAX_VERTICES`] (tuples could
    /// not name such vertices).
    pub fn new(num_vertices: usize) -> Self {
        assert!(
            num_vertices as u64 <= generator::MAX_VERTICES,
            "{num_vertices} vertices: tuples name at most {}",
            generator::MAX_VERTICES
        );
        SsspValidator {
            levels: (0..num_vertices).map(|_| AtomicU32::new(0)).collect(),
            confirmed: (0..num_vertices).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// `N`.
    pub fn num_vertices(&self) -> usize {
        self.levels.len()
    }

    /// Runs checks 1 to 6 (see the [module documentation](self)) on the
    /// search from `root` of the graph whose tuples are `edges`,
    /// `weights[i]` the weight of `edges[i]`, that produced `parents` and
    /// `dist`. `claimed_nedge` is the nedge the run reports (check 6 is
    /// skipped when there is none). Never panics: any array may be of any
    /// length and hold any value. Parallel on the current rayon pool; the
    /// verdict does not depend on the number of threads.
    pub fn validate(
        &mut self,
        edges: &[Edge],
        weights: &[f32],
        root: u64,
        parents: &[i64],
        dist: &[f32],
        claimed_nedge: Option<u64>,
    ) -> Result<SsspSummary, Invalid> {
        let n = self.num_vertices();
        check_lengths(n, edges.len(), weights.len(), parents, dist)?;
        let root_index = check_root(n, root)?;
        check_entries(n, parents, dist)?;
        if let Some(error) = root_entry_error(root, parents[root_index], dist[root_index]) {
            return Err(error);
        }
        tree::check_ranges(n, root, parents, &self.levels)?;
        tree::walk_levels(parents, &self.levels)?;
        let (reached, depth) = tree::count_levels(&mut self.levels);
        let tuples = tuples::Tuples {
            edges,
            weights,
            parents,
            dist,
        };
        let nedge = tuples.check(root_index, &self.confirmed)?;
        crate::check_nedge(nedge, claimed_nedge)?;
        Ok(SsspSummary {
            nedge,
            reached,
            max_dist: max_dist(dist),
            depth,
        })
    }
}

/// Check 1, lengths: `N` parents, `N` distances, one weight per tuple.
fn check_lengths(
    n: usize,
    num_tuples: usize,
    num_weights: usize,
    parents: &[i64],
    dist: &[f32],
) -> Result<(), Invalid> {
    if parents.len() != n {
        return Err(Invalid::WrongLength {
            found: parents.len(),
            expected: n,
        });
    }
    if dist.len() != n {
        return Err(Invalid::DistWrongLength {
            found: dist.len(),
            expected: n,
        });
    }
    if num_weights != num_tuples {
        return Err(Invalid::WeightCount {
            found: num_weights,
            expected: num_tuples,
        });
    }
    Ok(())
}

/// Check 1, the root a vertex: its index.
fn check_root(n: usize, root: u64) -> Result<usize, Invalid> {
    usize::try_from(root)
        .ok()
        .filter(|&r| r < n)
        .ok_or(Invalid::RootOutOfRange {
            root,
            num_vertices: n,
        })
}

/// Check 1, entries: the lowest vertex whose parent or distance is out of
/// range, or whose parent and distance disagree on whether it was reached.
/// One parallel pass over both arrays.
fn check_entries(n: usize, parents: &[i64], dist: &[f32]) -> Result<(), Invalid> {
    let bad = |v: usize| entry_error(n, v as u64, parents[v], dist[v]);
    match first_index(n, |v| bad(v).is_some()).and_then(bad) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Check 1 on one vertex: what is wrong with the entries of `vertex` (a
/// parent, `-1` for none, and a distance) in a search of `num_vertices`
/// vertices, if anything, in the order the validator looks: the parent's
/// range, the distance's, then whether both agree on reaching it.
///
/// This, [`root_entry_error`], [`tuple_error`] and [`confirms`] are the
/// rules one vertex or tuple at a time, public for validators that see the
/// arrays in pieces (the distributed one): one code, so one verdict.
pub fn entry_error(num_vertices: usize, vertex: u64, parent: i64, dist: f32) -> Option<Invalid> {
    let parent_in_range = parent == -1 || usize::try_from(parent).is_ok_and(|p| p < num_vertices);
    if !parent_in_range {
        return Some(Invalid::ParentOutOfRange { vertex, parent });
    }
    let unreached = dist == -1.0;
    if !unreached && !finite_non_negative(dist) {
        let dist = dist.into();
        return Some(Invalid::DistOutOfRange { vertex, dist });
    }
    (unreached != (parent == -1)).then(|| Invalid::ReachMismatch {
        vertex,
        parent,
        dist: dist.into(),
    })
}

/// Check 1 on the root's own entries: it is its own parent, at distance
/// 0 (`-0.0` passes, as in the reference), tested in that order.
pub fn root_entry_error(root: u64, parent: i64, dist: f32) -> Option<Invalid> {
    if u64::try_from(parent) != Ok(root) {
        return Some(Invalid::RootNotOwnParent { root, parent });
    }
    (dist != 0.0).then(|| Invalid::RootDist {
        root,
        dist: dist.into(),
    })
}

/// Check 4 on the tuple `(u, v)` at position `edge`, not a self-loop and
/// both ends vertices, of weight `weight`, its ends at distances `dist_u`
/// and `dist_v` (`-1` unreached; both passed check 1): its failure, if
/// any, in the order the validator looks: the weight's range, reach, the
/// triangle rule (an `f32` sum, then a comparison). Inlined: the
/// distributed proof calls it on every tuple and reads only `is_some`.
#[inline]
pub fn tuple_error(
    edge: u64,
    (u, v): (u64, u64),
    weight: f32,
    dist_u: f32,
    dist_v: f32,
) -> Option<Invalid> {
    if !finite_non_negative(weight) {
        let weight = weight.into();
        return Some(Invalid::WeightOutOfRange { edge, weight });
    }
    let half_reached = |reached, unreached| Invalid::HalfReachedEdge {
        edge,
        reached,
        unreached,
    };
    match (dist_u >= 0.0, dist_v >= 0.0) {
        (true, true) => {}
        (false, false) => return None,
        (true, false) => return Some(half_reached(u, v)),
        (false, true) => return Some(half_reached(v, u)),
    }
    (dist_u + weight < dist_v || dist_v + weight < dist_u).then(|| Invalid::TriangleRule {
        edge,
        u,
        v,
        weight: weight.into(),
        dist_u: dist_u.into(),
        dist_v: dist_v.into(),
    })
}

/// Check 3's test on a tuple, not a self-loop, of weight `weight`, that
/// joins a vertex at distance `dist` to its parent, at `parent_dist`
/// (both passed check 1): the weight is in range, both are reached, and
/// `dist == parent_dist + weight`, exactly, in `f32`.
#[inline]
pub fn confirms(weight: f32, parent_dist: f32, dist: f32) -> bool {
    finite_non_negative(weight) && parent_dist >= 0.0 && dist >= 0.0 && dist == parent_dist + weight
}

/// The largest distance (`-1` marks the unreached, and the root has 0).
/// `dist` must have passed check 1, so holds no NaN.
fn max_dist(dist: &[f32]) -> f32 {
    dist.par_iter()
        .with_min_len(VERTEX_GRAIN)
        .copied()
        .reduce(|| 0.0, f32::max)
}

/// The id of a parent that passed check 1 and is not `-1`.
fn vertex(parent: i64) -> usize {
    usize::try_from(parent).expect("a checked parent")
}

/// True for a finite value `>= 0` (`-0.0` included, as IEEE compares it),
/// false for NaN, infinities and negative values.
#[inline]
fn finite_non_negative(x: f32) -> bool {
    (0.0..=f32::MAX).contains(&x)
}
