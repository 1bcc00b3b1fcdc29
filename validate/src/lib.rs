//! Proof that a parent array is a breadth-first search tree of an edge list,
//! or, with a distance array, a shortest-path tree of a weighted one
//! ([`SsspValidator`]), and the nedge of that search.
//!
//! The validator works from the input edge list and the parent array alone
//! (the Graph500 `int64` form, `-1` for unreached, or a kernel's 32-bit
//! array read where it lies: [`ParentArray`]). It shares no code with
//! the kernels it judges, so it can check any program's output.
//!
//! The checks of the Graph500 specification, in the order they run:
//!
//! 1. every parent is `-1` or a vertex id, and the root is its own parent;
//! 2. the parent pointers form one tree rooted at the root: following parents
//!    from any reached vertex ends at the root, with no cycle anywhere (also
//!    not among vertices the root cannot reach) and no second self-parent.
//!    This assigns every reached vertex its tree *level* (root 0);
//! 3. each tree edge `(v, parent[v])` is an input edge (either orientation);
//! 4. for every input edge that is not a self-loop, both ends are reached or
//!    neither, and their levels differ by at most one;
//! 5. every vertex of the root's component is reached and each reached
//!    vertex's level is its parent's plus one. This needs no pass of its own:
//!    levels come from the tree, so the second half holds by construction,
//!    and an unreached vertex of the component would have an input edge to a
//!    reached one, which check 4 rejects. Together, 3 and 4 make the tree
//!    levels the true BFS distances: a tree path is a real path, and along a
//!    shortest path levels grow by at most one per edge;
//! 6. the nedge counted here equals the one the run used for TEPS.
//!
//! Cost: a few parallel passes over the vertices and one over the edge
//! tuples, which reads two small cells per tuple (level and parent print,
//! 4 bytes per vertex, 2 above `2^22` vertices, while the tree is at most
//! 253 levels deep; see `cells.rs`). Working memory: `9 N` bytes (`7 N`
//! above `2^22` vertices), allocated once per [`Validator`] (`8 N` more
//! only if a tree over 254 levels deep comes).
//! Failures are deterministic: the same input names the same check and the
//! same vertex or edge whatever the thread count.
//!
//! The tuples come as an [`EdgeList`] in its own order (the cells are read
//! at random, prefetched 16 tuples ahead) or as [`TupleBlocks`], the same
//! tuples re-encoded once, in place, in block order, for callers that
//! validate many searches of one graph: there the cells of a run of tuples
//! stay in cache, and on processors with AVX-512 sixteen tuples are judged
//! per step (`wide.rs`). Errors then name positions in the block order.
//!
//! A run validating many searches of one block-ordered graph of at most
//! `2^26` vertices holds up to sixteen of them in a [`Batch`]: checks 1 and
//! 2 run per search, then one pass over the tuples judges every held search
//! at once, each vertex's sixteen cells side by side in one cache line
//! (`batch.rs`). Its verdicts are [`Validator`]'s, search by search.
//! A kernel that knows the level of each vertex may claim them (one byte a
//! vertex, [`NO_LEVEL`] for unreached): the batch then proves checks 1 and
//! 2 from the claims in one pass instead of walking the parent chains, and
//! walks if any claim fails (`certificate.rs`). The claims are a
//! certificate, never trusted: the same verdict comes with or without them.
//!
//! [`parents`] reads and writes the parent-array file that the validator
//! judges (errors: [`FileError`]); [`distances`], the distance-array file
//! of an SSSP search.
//!
//! ## SSSP (Graph500 kernel 3)
//!
//! [`SsspValidator`] judges a shortest-path search: its parent array and
//! its `f32` distance array, against the tuples and their `f32` weights.
//! It runs the reference code's rules and the tree check they lack under
//! the same numbers, each where it stands beside the BFS check ("check
//! N" in every message, [`Invalid::check`]):
//!
//! | check | BFS | SSSP |
//! | --- | --- | --- |
//! | 1 | parent range, root its own parent | also: distance range, parent `-1` exactly when distance `-1`, root at distance 0, one weight per tuple |
//! | 2 | one tree rooted at the root | the same |
//! | 3 | tree edges are input edges | each reached vertex but the root confirmed by a tuple `(v, parent)` with `dist[v] == dist[parent] + w` in `f32` |
//! | 4 | reach, levels one apart | reach, the triangle rule in `f32`; tuples within range, weights finite and `>= 0` |
//! | 5 | follows from 3 and 4 | the same |
//! | 6 | nedge | the same rule |
//!
//! The SSSP failures that BFS has no word for are their own variants
//! ([`Invalid::DistWrongLength`], [`Invalid::WeightCount`],
//! [`Invalid::DistOutOfRange`], [`Invalid::ReachMismatch`],
//! [`Invalid::RootDist`], [`Invalid::Unconfirmed`],
//! [`Invalid::TupleOutOfRange`], [`Invalid::WeightOutOfRange`],
//! [`Invalid::TriangleRule`]); the others are the BFS variants. The rules
//! in detail, their order and cost: [`sssp`].

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

mod array_file;
pub mod batch;
mod cells;
mod certificate;
mod confirm;
mod dense;
pub mod distances;
mod edges;
mod error;
mod lanes;
mod order;
pub mod parents;
pub mod sssp;
mod tree;
#[cfg(target_arch = "x86_64")]
mod wide;

pub use batch::{Batch, Hold};
pub use certificate::NO_LEVEL;
pub use error::{ExactF32, FileError, Invalid};
pub use order::TupleBlocks;
pub use sssp::{SsspSummary, SsspValidator};

use cells::{Cell, Exact64, Packed16, Packed32};
use edges::EdgeCell;
use generator::EdgeList;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

/// A parent array as the validator reads it: entry `v` is the parent of
/// vertex `v`, `-1` if `v` is unreached. Two forms: the Graph500 `int64`
/// one (`[i64]`, any value, every entry checked), and the 32-bit one a
/// kernel writes in place (`[AtomicU32]`, `u32::MAX` for unreached), read
/// where it lies: a run then makes no `int64` copy of each search's
/// result (8 bytes a vertex, and a pass over them per search), and the
/// validator's reads of parents cover half the bytes.
pub trait ParentArray: Sync {
    /// The number of entries.
    fn entries(&self) -> usize;
    /// Entry `v` in the `int64` form. `v` must be below
    /// [`ParentArray::entries`].
    fn parent(&self, v: usize) -> i64;
    /// Hints that entry `v` is read soon (no effect on the result).
    fn prefetch(&self, v: usize);
}

impl ParentArray for [i64] {
    fn entries(&self) -> usize {
        self.len()
    }

    #[inline]
    fn parent(&self, v: usize) -> i64 {
        self[v]
    }

    #[inline]
    fn prefetch(&self, v: usize) {
        par::hint::prefetch(&self[v]);
    }
}

/// `u32::MAX` is `-1`; every other value is the parent itself.
impl ParentArray for [AtomicU32] {
    fn entries(&self) -> usize {
        self.len()
    }

    #[inline]
    fn parent(&self, v: usize) -> i64 {
        match self[v].load(Relaxed) {
            u32::MAX => -1,
            p => i64::from(p),
        }
    }

    #[inline]
    fn prefetch(&self, v: usize) {
        par::hint::prefetch(&self[v]);
    }
}

/// The input tuples a validation reads: an edge list as it is, or its
/// tuples in block order ([`TupleBlocks`], faster for many searches).
#[derive(Clone, Copy, Debug)]
pub enum Tuples<'a> {
    /// The tuples in the list's own order.
    List(&'a EdgeList),
    /// The same tuples, re-encoded in block order.
    Blocks(&'a TupleBlocks),
}

impl Tuples<'_> {
    /// `N`.
    pub fn num_vertices(&self) -> usize {
        match self {
            Tuples::List(list) => list.num_vertices(),
            Tuples::Blocks(blocks) => blocks.num_vertices(),
        }
    }
}

impl<'a> From<&'a EdgeList> for Tuples<'a> {
    fn from(list: &'a EdgeList) -> Self {
        Tuples::List(list)
    }
}

impl<'a> From<&'a TupleBlocks> for Tuples<'a> {
    fn from(blocks: &'a TupleBlocks) -> Self {
        Tuples::Blocks(blocks)
    }
}

/// What a valid search tree looks like from the validator's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeSummary {
    /// Input tuples, duplicates included, self-loops excluded, with an end in
    /// the searched component (the reference code's rule).
    pub nedge: u64,
    /// Reached vertices, the root included.
    pub reached: u64,
    /// The deepest tree level (the root is level 0).
    pub depth: u32,
}

/// Reusable working memory for validating many searches of one graph.
#[derive(Debug, Default)]
pub struct Validator {
    levels: Vec<AtomicU32>,
    packed: Vec<Packed32>,
    narrow: Vec<Packed16>,
    exact: Vec<Exact64>,
    tree_edge_seen: Vec<AtomicBool>,
}

impl Validator {
    /// The most working memory a validator for `num_vertices` vertices
    /// takes: 9 bytes per vertex (7 above `2^22` vertices, whose cells
    /// take 2 bytes), plus 8 more once a tree deeper than 253 levels comes
    /// (see `cells.rs`), the cell arrays padded to a whole block of 64 Ki
    /// vertices. The parent array it reads is the caller's.
    pub fn bytes_for(num_vertices: u64) -> u64 {
        let cell = if usize::try_from(num_vertices).is_ok_and(narrow_cells) {
            size_of::<Packed16>()
        } else {
            size_of::<Packed32>()
        };
        let always = size_of::<AtomicU32>() + cell + size_of::<AtomicBool>();
        let deep = size_of::<Exact64>();
        let padding = (cell + deep) * order::BLOCK;
        (always + deep) as u64 * num_vertices + padding as u64
    }

    /// Working memory for graphs of `num_vertices` vertices (it grows if a
    /// larger graph comes).
    pub fn new(num_vertices: usize) -> Self {
        let mut v = Validator::default();
        v.ensure_capacity(num_vertices);
        v
    }

    /// Runs checks 1 to 6 on `parents`, the result of a search of `graph`
    /// from `root`. `claimed_nedge` is the nedge the run reports for it
    /// (check 6 is skipped when there is none, as for another program's
    /// output). Parallel on the current rayon pool.
    pub fn validate<'a>(
        &mut self,
        tuples: impl Into<Tuples<'a>>,
        root: u64,
        parents: &[i64],
        claimed_nedge: Option<u64>,
    ) -> Result<TreeSummary, Invalid> {
        self.validate_any(tuples, root, parents, claimed_nedge)
    }

    /// [`Validator::validate`] on a parent array of either form
    /// ([`ParentArray`]).
    pub fn validate_any<'a, P: ParentArray + ?Sized>(
        &mut self,
        tuples: impl Into<Tuples<'a>>,
        root: u64,
        parents: &P,
        claimed_nedge: Option<u64>,
    ) -> Result<TreeSummary, Invalid> {
        let tuples = tuples.into();
        let n = tuples.num_vertices();
        self.ensure_capacity(n);
        let (reached, depth, nedge) = if narrow_cells(n) {
            self.check_in(|v| &mut v.narrow, tuples, root, parents)?
        } else {
            self.check_in(|v| &mut v.packed, tuples, root, parents)?
        };
        check_nedge(nedge, claimed_nedge)?;
        Ok(TreeSummary {
            nedge,
            reached,
            depth,
        })
    }

    /// [`Validator::check_with`] the cells that `cells` picks out of the
    /// validator ([`Validator::ensure_capacity`] sized them).
    fn check_in<C: EdgeCell, P: ParentArray + ?Sized>(
        &mut self,
        cells: impl Fn(&mut Self) -> &mut Vec<C>,
        tuples: Tuples<'_>,
        root: u64,
        parents: &P,
    ) -> Result<(u64, u32, u64), Invalid> {
        let mut taken = std::mem::take(cells(self));
        let checked = self.check_with(&mut taken, tuples, root, parents);
        *cells(self) = taken;
        checked
    }

    /// Checks 1 to 5 with `cells` (at least `padded(N)` of them), falling
    /// back to [`Exact64`] cells for a tree deeper than `C::MAX_LEVEL`:
    /// reached vertices, depth and nedge.
    fn check_with<C: EdgeCell, P: ParentArray + ?Sized>(
        &mut self,
        cells: &mut [C],
        tuples: Tuples<'_>,
        root: u64,
        parents: &P,
    ) -> Result<(u64, u32, u64), Invalid> {
        let n = tuples.num_vertices();
        let levels = &self.levels[..n];
        let seen = &self.tree_edge_seen[..n];
        tree::check_ranges(n, root, parents, levels)?;
        let (reached, depth) = tree::walk_and_fill(parents, levels, &mut cells[..n])?;
        let nedge = if depth <= C::MAX_LEVEL {
            edges::check_edges(tuples, parents, cells, seen)?
        } else {
            if self.exact.len() < n {
                self.exact = vec![Exact64::unreached(); padded(n)];
            }
            tree::fill_cells(levels, parents, &mut self.exact[..n]);
            edges::check_edges(tuples, parents, &self.exact, seen)?
        };
        Ok((reached, depth, nedge))
    }

    /// Sizes the arrays for `n` vertices, the cells of the kind
    /// [`narrow_cells`] picks: when the validator is made, so that no
    /// validation's time includes them (unless a larger graph comes).
    fn ensure_capacity(&mut self, n: usize) {
        if self.levels.len() < n {
            self.levels = (0..n).map(|_| AtomicU32::new(0)).collect();
            self.tree_edge_seen = (0..n).map(|_| AtomicBool::new(false)).collect();
        }
        fn grow<C: Cell>(cells: &mut Vec<C>, n: usize) {
            if cells.len() < padded(n) {
                *cells = vec![C::unreached(); padded(n)];
            }
        }
        if narrow_cells(n) {
            grow(&mut self.narrow, n);
        } else {
            grow(&mut self.packed, n);
        }
    }
}

/// True when a graph of `n` vertices is checked with two-byte cells
/// ([`Packed16`]) rather than four-byte ones: above `2^22` vertices, where
/// the block pairs are sparse enough that the edge pass reads about a new
/// cache line of cells per tuple (see `cells.rs`). The two-byte cells'
/// matches must be confirmed in the parent array, which four-byte cells
/// spare below `2^24` vertices; the lines saved outweigh it from `2^23` on
/// (mean validation with `graph500 --scale S --keys 32`, two alternating
/// runs each, AMD EPYC: SCALE 24 0.40-0.42 s against 0.52-0.56, SCALE 23
/// 0.23 against 0.26-0.29, SCALE 22 0.103-0.115 against 0.108-0.109).
fn narrow_cells(n: usize) -> bool {
    n > 1 << 22
}

/// Check 6: the nedge counted equals the one claimed, if one is.
fn check_nedge(counted: u64, claimed: Option<u64>) -> Result<(), Invalid> {
    match claimed {
        Some(claimed) if claimed != counted => Err(Invalid::NedgeMismatch { counted, claimed }),
        _ => Ok(()),
    }
}

/// `n` rounded up to whole blocks of [`TupleBlocks`]: the cell arrays'
/// length, so that a block's cells are one fixed-size slice.
fn padded(n: usize) -> usize {
    n.next_multiple_of(order::BLOCK)
}

/// The first step of a test that needs AVX-512F, which runs only where
/// `build.rs` set the cfg `avx512_tests` (the build host has it, or
/// `GRAPH500_REQUIRE_AVX512=1`) and is ignored elsewhere: fails, naming
/// why, if this processor lacks it, rather than pass having checked
/// nothing.
#[cfg(all(test, target_arch = "x86_64"))]
#[track_caller]
fn assert_avx512(present: bool) {
    assert!(
        present,
        "this test needs AVX-512F, which this processor lacks; it runs because \
         GRAPH500_REQUIRE_AVX512=1 or because the build host had it"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use generator::Edge;
    use std::collections::VecDeque;

    /// Random tuples over `n` vertices and a BFS tree of them from 0.
    fn graph_and_tree(n: u32) -> (EdgeList, Vec<i64>) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32 % n
        };
        // A sparse random graph: some vertices unreached, some deep ones.
        let tuples: Vec<Edge> = (0..n).map(|_| Edge::new(next(), next())).collect();
        let mut adjacent = vec![Vec::new(); n as usize];
        for e in &tuples {
            adjacent[e.u as usize].push(e.v);
            adjacent[e.v as usize].push(e.u);
        }
        let mut parents = vec![-1i64; n as usize];
        parents[0] = 0;
        let mut queue = VecDeque::from([0u32]);
        while let Some(u) = queue.pop_front() {
            for &v in &adjacent[u as usize] {
                if parents[v as usize] == -1 {
                    parents[v as usize] = u.into();
                    queue.push_back(v);
                }
            }
        }
        (EdgeList::new(n.into(), tuples).unwrap(), parents)
    }

    /// Guards the two-byte cells of large graphs: on a graph of several
    /// blocks, in list and in block order, they give the verdict the
    /// four-byte cells give, for a valid tree and for broken ones of every
    /// kind (a parent that is no neighbour, a level gap, a reached vertex
    /// marked unreached, a cycle).
    #[test]
    fn narrow_cells_judge_as_packed_cells_do() {
        let n = 3 * order::BLOCK as u32 + 777;
        let (list, tree) = graph_and_tree(n);
        let blocks = TupleBlocks::from_tuples(list.num_vertices(), list.edges().to_vec());
        let reached: Vec<usize> = (1..n as usize).filter(|&v| tree[v] >= 0).collect();
        assert!(reached.len() > 1000 && reached.len() < n as usize - 1000);
        let (a, b) = (reached[100], reached[200]);
        let mut broken = Vec::new();
        for change in [(a, i64::try_from(b).unwrap()), (a, 0), (a, -1)] {
            let mut p = tree.clone();
            p[change.0] = change.1;
            broken.push(p);
        }
        let mut cycle = tree.clone();
        cycle[a] = i64::try_from(b).unwrap();
        cycle[b] = i64::try_from(a).unwrap();
        broken.push(cycle);
        let mut validator = Validator::new(n as usize);
        let mut narrow = vec![Packed16::unreached(); padded(n as usize)];
        let mut packed = vec![Packed32::unreached(); padded(n as usize)];
        let mut failures = 0;
        for parents in std::iter::once(&tree).chain(&broken) {
            for tuples in [Tuples::List(&list), Tuples::Blocks(&blocks)] {
                let with_narrow = validator.check_with(&mut narrow, tuples, 0, parents.as_slice());
                let with_packed = validator.check_with(&mut packed, tuples, 0, parents.as_slice());
                assert_eq!(with_narrow, with_packed);
                // The kernels' 32-bit form, read in place, judges alike.
                let slots: Vec<AtomicU32> = parents
                    .iter()
                    .map(|&p| AtomicU32::new(u32::try_from(p).unwrap_or(u32::MAX)))
                    .collect();
                let in_place = validator.check_with(&mut narrow, tuples, 0, slots.as_slice());
                assert_eq!(in_place, with_narrow);
                failures += usize::from(with_narrow.is_err());
            }
        }
        assert_eq!(failures, 2 * broken.len(), "each broken tree fails");
    }
}
