//! `Levels`: one search's proof over an [`Incidence`]: the tree levels of
//! the rank's cells (own vertices, then ghosts), learned in one round per
//! level, then checks 3 and 4 on every arc with no message at all.
//!
//! 1. Each own reached vertex but the root finds its parent's cell: its
//!    own index, or a ghost's. A parent that is neither (another rank's
//!    vertex no tuple here reaches) cannot be a tree edge: the proof fails.
//! 2. Round `k` announces the vertices of level `k` (the root in round 0):
//!    every rank all-gathers every rank's newly levelled vertices, as a
//!    list of local indices or, when shorter, as a bitmap over the rank's
//!    vertices (`2 ceil(n_r / 64)` words of 4 bytes against one a vertex).
//!    Ranks set the levels of their ghosts among them, then give level
//!    `k + 1` to their waiting vertices whose parent's cell has a level
//!    (a waiting vertex's parent got none before round `k`, so it holds
//!    `k`). The rounds end when one announces nobody; a vertex still
//!    waiting then (below an unreached one, or on a loop of parents)
//!    fails the proof.
//! 3. One pass over the arcs each vertex judges: a vertex at level `l`
//!    and a neighbour at level `l'` are fine when `l' - l + 1` (wrapping,
//!    in a byte) is at most 2: the levels differ by at most one, or both
//!    are unreached (an unreached level is 128, far from every level).
//!    Each reached vertex but the root must have an arc to its parent's
//!    cell (a binary search in each of its two sorted parts). Each tuple
//!    that is not a self-loop is judged by one arc, so nedge is the
//!    judged arcs of reached vertices.
//!
//! A level is a byte: levels 0 to 124, 128 unreached, 255 waiting; a
//! deeper tree is not proven here (it goes to the tuple rounds). A byte a
//! cell keeps a rank's cells in its core's cache at SCALE 20 on 2 ranks.
//!
//! Steps 1 and 2 have a shortcut when the kernel claims each vertex's
//! level (`levels/claims.rs`): one exchange and one pass prove the claims,
//! and any failed claim falls back to the rounds.
//!
//! A proof that passes shows checks 2-5 hold (levels are a parent's plus
//! one, so parents form a tree; every tree edge is a tuple; every tuple's
//! ends are both reached or neither, at most one level apart). One that
//! fails names nothing: the validator then runs the tuple rounds, which
//! name the failure as one process does. Every rank returns the same
//! outcome: the failures are summed over the ranks before anyone returns.
//!
//! Cost per rank: `O(n_r L + arcs)` work (`L` the depth), parallel on the
//! current rayon pool. All ranks together send `4 (P - 1) sum_k sum_r
//! min(2 ceil(n_r / 64), c_{k,r})` bytes (`c_{k,r}` rank `r`'s vertices at
//! level `k`) and `24 P (P - 1)` a round (`depth + 2` rounds), then
//! `16 P (P - 1)` for the verdict.

mod claims;

pub(crate) use claims::{Certified, Shares};

use super::incidence::Incidence;
use crate::Partition;
use crate::comm::{Comm, Reduce, all_gather, all_gather_equal, all_reduce};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The level of an unreached cell: `l' - l + 1` wraps far above 2 from
/// any level to it or from it.
pub(crate) const UNREACHED: u8 = 128;
/// Reached, level not known yet.
const PENDING: u8 = u8::MAX;
/// A round announcing this level fails the proof: deeper levels would
/// come near the unreached mark.
const DEEPEST: u8 = 125;
/// The parent cell of the root and of unreached vertices.
pub(crate) const NO_PARENT: u32 = u32::MAX - 1;
/// The parent cell of a vertex whose parent has no cell here.
const MISSING: u32 = u32::MAX;
/// Words of a round's record per rank: announced, waiting, failed.
const RECORD: usize = 3;

/// What a proof found: nedge (the judged arcs of reached vertices, summed
/// over the ranks), the reached vertices and the deepest level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Proven {
    pub(crate) nedge: u64,
    pub(crate) reached: u64,
    pub(crate) depth: u64,
}

/// A search's levels over an [`Incidence`] and the buffers of its rounds,
/// kept from search to search.
#[derive(Debug, Default)]
pub(crate) struct Levels {
    /// The level of each cell, or a code above.
    levels: Vec<AtomicU8>,
    /// The cell of each own vertex's parent, or a code above.
    parent: Vec<u32>,
    /// Own vertices waiting for a level, ascending.
    pending: Vec<u32>,
    /// Own vertices given the level of this round.
    frontier: Vec<u32>,
    /// This rank's announcement: `frontier` or its bitmap.
    piece: Vec<u32>,
    /// Every rank's announcement.
    gathered: Vec<u32>,
}

impl Levels {
    /// About the most bytes a `Levels` takes on a rank with `rows` own
    /// vertices and `tuples` tuples, of `n` in all: one per cell (at most
    /// `rows + min(n, 2 tuples)`), 16 per own vertex, and one round's
    /// announcements, at most a bitmap over all `n` (and 4 bytes per 64).
    pub(crate) fn bytes_for(rows: u64, tuples: u64, n: u64) -> u64 {
        (rows + n.min(2 * tuples)) + 16 * rows + n / 8 + 8 * n.div_ceil(64)
    }

    /// COLLECTIVE. Step 3 after a proven tree (`tree`: its reached
    /// vertices and depth, from [`Levels::tree`] or [`Levels::certify`]):
    /// `Some` with the figures if checks 3 and 4 hold on every rank, the
    /// same on every rank, or `None` on every rank.
    pub(crate) fn prove(
        &mut self,
        comm: &dyn Comm,
        inc: &Incidence,
        (reached, depth): (u64, u64),
    ) -> Option<Proven> {
        let [bad, nedge] = all_reduce(comm, self.judge(inc), Reduce::Sum);
        (bad == 0).then_some(Proven {
            nedge,
            reached,
            depth,
        })
    }

    /// COLLECTIVE. Steps 1 and 2: proves that `parents` form a tree from
    /// `root` whose every edge's parent has a cell here: the reached
    /// vertices and the depth, or `None` on every rank. Then
    /// [`Levels::parent_cells`] holds each own vertex's parent's cell.
    pub(crate) fn tree(
        &mut self,
        comm: &dyn Comm,
        part: Partition,
        inc: &Incidence,
        root: u64,
        parents: &[u64],
    ) -> Option<(u64, u64)> {
        let missing = self.start(comm.rank(), part, inc, root, parents);
        self.rounds(comm, inc, missing)
    }

    /// Each own vertex's parent's cell, [`NO_PARENT`] for the root and
    /// the unreached (after a [`Levels::tree`] that proved the tree).
    pub(crate) fn parent_cells(&self) -> &[u32] {
        &self.parent
    }

    /// Step 1: every cell's starting level, own parents' cells, the
    /// waiting vertices and the first frontier (the root, if own).
    /// Whether a parent has no cell here.
    fn start(
        &mut self,
        me: usize,
        part: Partition,
        inc: &Incidence,
        root: u64,
        parents: &[u64],
    ) -> bool {
        let (rows, ghosts) = (inc.rows(), inc.ghosts());
        if self.levels.len() != inc.cells() {
            self.levels = (0..inc.cells()).map(|_| AtomicU8::new(0)).collect();
        }
        let own_root = (part.owner(root) == me).then(|| part.local(root));
        let (own, theirs) = self.levels.split_at(rows);
        self.parent.resize(rows, 0);
        let cells = (self.parent.par_iter_mut().zip(own)).zip(parents);
        let missing = cells
            .enumerate()
            .with_min_len(1 << 12)
            .any(|(i, ((up, l), &p))| {
                let (cell, level) = match p {
                    u64::MAX => (NO_PARENT, UNREACHED),
                    _ if Some(i) == own_root => (NO_PARENT, 0),
                    _ => (ghosts.cell(part, me, rows, p).unwrap_or(MISSING), PENDING),
                };
                *up = cell;
                l.store(level, Relaxed);
                cell == MISSING
            });
        theirs.par_iter().for_each(|l| l.store(UNREACHED, Relaxed));
        let waiting = (0..rows)
            .into_par_iter()
            .filter(|&i| own[i].load(Relaxed) == PENDING);
        self.pending.clear();
        self.pending.par_extend(waiting.map(local32));
        self.frontier.clear();
        self.frontier.extend(own_root.map(local32));
        missing
    }

    /// Step 2: one round per level. The reached vertices and the depth, or
    /// `None` if some rank's vertex waits for ever, or `missing` anywhere.
    fn rounds(&mut self, comm: &dyn Comm, inc: &Incidence, missing: bool) -> Option<(u64, u64)> {
        let (me, size) = (comm.rank(), comm.size());
        let ghosts = inc.ghosts();
        let words = |r: usize| ghosts.words_of(r).len();
        // A rank's announcement: a bitmap when shorter than the list.
        let dense = |r: usize, count: u64| 2 * (words(r) as u64) < count;
        let length = |r: usize, count: u64| {
            if dense(r, count) {
                2 * words(r)
            } else {
                usize::try_from(count).expect("a rank's vertices")
            }
        };
        let mut gathered_records = Vec::with_capacity(size * RECORD);
        let (mut level, mut reached) = (0u8, 0u64);
        let mut failed = missing;
        loop {
            let count = self.frontier.len() as u64;
            self.piece.clear();
            if dense(me, count) {
                self.piece.resize(2 * words(me), 0);
                for &i in &self.frontier {
                    self.piece[i as usize / 32] |= 1 << (i % 32);
                }
            } else {
                self.piece.extend_from_slice(&self.frontier);
            }
            let mine = [count, self.pending.len() as u64, u64::from(failed)];
            all_gather_equal(comm, &mine, &mut gathered_records);
            let records: Vec<&[u64]> = gathered_records.chunks_exact(RECORD).collect();
            if records.iter().any(|r| r[2] != 0) {
                return None;
            }
            let announced: u64 = records.iter().map(|r| r[0]).sum();
            if announced == 0 {
                let waiting: u64 = records.iter().map(|r| r[1]).sum();
                return (waiting == 0).then(|| (reached, u64::from(level.max(1) - 1)));
            }
            reached += announced;
            let lengths: Vec<usize> = (records.iter().enumerate())
                .map(|(r, rec)| length(r, rec[0]))
                .collect();
            self.gathered.resize(lengths.iter().sum(), 0);
            all_gather(comm, &self.piece, &lengths, &mut self.gathered);
            let mut at = 0;
            for (r, rec) in records.iter().enumerate() {
                let piece = &self.gathered[at..at + lengths[r]];
                at += lengths[r];
                if r != me {
                    self.learn(inc, r, piece, dense(r, rec[0]), level);
                }
            }
            if level == DEEPEST {
                failed = true; // Deeper than a byte holds: not proven.
                continue;
            }
            self.descend(level);
            level += 1;
        }
    }

    /// Sets the level of this rank's ghosts among rank `r`'s announced
    /// vertices (`piece`, a bitmap over `r`'s vertices if `dense`, else
    /// their local indices) to `level`.
    fn learn(&self, inc: &Incidence, r: usize, piece: &[u32], dense: bool, level: u8) {
        let (ghosts, levels, rows) = (inc.ghosts(), &self.levels, inc.rows());
        let first = ghosts.words_of(r).start;
        if dense {
            piece.par_chunks_exact(2).enumerate().for_each(|(j, pair)| {
                let (present, before) = ghosts.word(first + j);
                let mut bits = (u64::from(pair[0]) | u64::from(pair[1]) << 32) & present;
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    let below = (present & ((1 << b) - 1)).count_ones();
                    levels[rows + (before + below) as usize].store(level, Relaxed);
                    bits &= bits - 1;
                }
            });
        } else {
            piece.par_iter().for_each(|&i| {
                if let Some(c) = ghosts.cell_of_slot(rows, 64 * first + i as usize) {
                    levels[c as usize].store(level, Relaxed);
                }
            });
        }
    }

    /// Gives level `level + 1` to the waiting own vertices whose parent's
    /// cell has a level (`level`, as they wait): the next frontier.
    fn descend(&mut self, level: u8) {
        let (levels, parent) = (&self.levels, &self.parent);
        let below = |&i: &u32| levels[parent[i as usize] as usize].load(Relaxed) < UNREACHED;
        self.frontier.clear();
        self.frontier
            .par_extend(self.pending.par_iter().copied().filter(below));
        (self.frontier.par_iter()).for_each(|&i| levels[i as usize].store(level + 1, Relaxed));
        self.pending
            .retain(|&i| levels[i as usize].load(Relaxed) == PENDING);
    }

    /// Swaps every cell's level (after a [`Levels::tree`] that proved the
    /// tree: a level or [`UNREACHED`]) and the parent cells of
    /// [`Levels::parent_cells`] with `levels` and `parents` (any buffers:
    /// the next search sets every entry, and takes fresh levels if their
    /// length is not the cells').
    pub(crate) fn swap_proof(&mut self, levels: &mut Vec<AtomicU8>, parents: &mut Vec<u32>) {
        std::mem::swap(&mut self.levels, levels);
        std::mem::swap(&mut self.parent, parents);
    }

    /// Step 3: `[own vertices failing check 3 or with an arc failing
    /// check 4, judged arcs of reached own vertices]`.
    fn judge(&self, inc: &Incidence) -> [u64; 2] {
        let (levels, parent) = (&self.levels, &self.parent);
        let vertex = |[bad, nedge]: [u64; 2], i: usize| {
            let own = levels[i].load(Relaxed);
            let (judged, _) = inc.arcs(i);
            let mut apart = false;
            for &c in judged {
                apart |= gap(own, levels[c as usize].load(Relaxed));
            }
            let found = has_parent_arc(inc, i, parent[i]);
            let ends = if own == UNREACHED { 0 } else { judged.len() };
            [bad + u64::from(apart || !found), nedge + ends as u64]
        };
        (0..inc.rows())
            .into_par_iter()
            .with_min_len(1 << 12)
            .fold(|| [0, 0], vertex)
            .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
    }
}

/// Check 4 on an arc between cells at levels `own` and `other`: whether
/// it fails (`other - own + 1`, wrapping in a byte, above 2: levels more
/// than one apart, or one end reached and the other not).
#[inline]
pub(crate) fn gap(own: u8, other: u8) -> bool {
    other.wrapping_sub(own).wrapping_add(1) > 2
}

/// Check 3 on own vertex `i` whose parent's cell is `up`: whether an arc
/// of `i` reaches it (or `i` needs none: the root, the unreached).
#[inline]
fn has_parent_arc(inc: &Incidence, i: usize, up: u32) -> bool {
    let (judged, others) = inc.arcs(i);
    up == NO_PARENT || holds(judged, up) || holds(others, up)
}

/// Whether `cells`, ascending, holds `x`: a binary search in a long run,
/// a scan of sixteen at a time in a short one (which the compiler turns
/// into vector compares).
#[inline]
fn holds(cells: &[u32], x: u32) -> bool {
    if cells.len() > 256 {
        return cells.binary_search(&x).is_ok();
    }
    (cells.chunks(16)).any(|run| run.iter().fold(false, |seen, &c| seen | (c == x)))
}

/// A local index as messages carry it.
fn local32(i: usize) -> u32 {
    super::local32(i)
}
