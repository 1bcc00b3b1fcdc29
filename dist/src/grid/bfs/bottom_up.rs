//! A bottom-up grid level's proposals: the row step of Buluç and Madduri
//! (SC 2011), pipelined around the grid row.
//!
//! The frontier of the column block comes as a bitmap all-gathered in
//! the grid column (the owners' pieces are whole words, so they
//! concatenate). Then the row block's vertices are searched in C
//! sub-steps: the row block is C segments, segment `j` the piece of row
//! member `j`; in sub-step `s` member `j` scans segment `(j - s) mod C`
//! and passes its bitmap of "reached or found" (`done`) on to member `j +
//! 1` ([`Comm::shift`]). Sub-step 0 is each owner's own segment, with its
//! own reached bits, so the owner finds first whatever its cell can find
//! and no bits travel for it; each later cell scans only what no cell
//! before it found. So each vertex is proposed once in its row (against
//! up to C times when every cell scanned the whole row block), and the
//! bits cost what an all-gather of the reached pieces cost: `8 (C - 1)
//! ceil(piece / 64)` bytes a rank.
//!
//! Invariants: `done` holds the segment being scanned, its holes (indices
//! past the owner's count) set by the owner, so no cell scans them; a
//! found vertex's bit is set before the bitmap moves on; a rank ORs each
//! segment's final `done` into `proposed`, so a later top-down level does
//! not propose a vertex this rank has seen reached. Proposals are queued
//! sub-step after sub-step, within one in word order on one thread (on
//! several, as the threads' shares are gathered); a vertex is proposed at
//! most once in its row, so the order changes no parent.

use super::super::{Grid, GridGraph, Group};
use super::fold::Fold;
use crate::comm::{Comm, all_gather};
use crate::shares::{claim, each_mut, one_per_thread};
use crate::{Id, NO_PARENT};
use par::Backend;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Segment bitmap words (64 vertices each) per work item of a scan.
const BOTTOM_UP_GRAIN: usize = 16;

/// The bitmaps of a bottom-up level, kept across levels and searches.
#[derive(Default)]
pub(super) struct BottomUp {
    /// This rank's piece of the frontier.
    mine: Vec<u64>,
    /// Words of each column member's piece.
    words: Vec<usize>,
    /// The column block's frontier.
    in_frontier: Vec<u64>,
    /// The segment being scanned: reached before the level or found in it.
    done: Vec<u64>,
    /// The next segment's `done`, as the previous member passes it.
    passed: Vec<u64>,
    /// Per thread, the `(segment index, parent column index)` pairs its
    /// tasks found in a sub-step (`crate::shares`).
    shares: Vec<Mutex<Vec<(usize, u64)>>>,
}

/// Where a bottom-up level runs: this rank, its cell and its groups.
pub(super) struct Place<'a, I: Id> {
    pub(super) backend: Backend,
    pub(super) graph: &'a GridGraph<I>,
    pub(super) rank: usize,
    pub(super) column: &'a Group<'a>,
    pub(super) row: &'a Group<'a>,
}

impl BottomUp {
    /// Expands `frontier` (this rank's part) in the column, runs the row
    /// step and queues its proposals on `fold`. `parents`: this rank's.
    pub(super) fn propose<I: Id>(
        &mut self,
        at: &Place<I>,
        frontier: &[I],
        parents: &[u64],
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) {
        let grid: Grid = *at.graph.grid();
        let part = *grid.partition();
        self.mine.clear();
        self.mine.resize(part.words(at.rank), 0);
        for &v in frontier {
            let l = part.local(v.to_u64());
            self.mine[l / 64] |= 1 << (l % 64);
        }
        self.words.clear();
        (self.words).extend(at.column.members().iter().map(|&m| part.words(m)));
        // Every word is overwritten by the all-gather.
        self.in_frontier.resize(self.words.iter().sum(), 0);
        all_gather(at.column, &self.mine, &self.words, &mut self.in_frontier);
        // This rank's segment: reached, and its holes.
        let piece = grid.piece();
        let piece_words = piece.div_ceil(64);
        self.done.clear();
        self.done.resize(piece_words, 0);
        for (l, &p) in parents.iter().enumerate() {
            if p != NO_PARENT {
                self.done[l / 64] |= 1 << (l % 64);
            }
        }
        for l in parents.len()..piece_words * 64 {
            self.done[l / 64] |= 1 << (l % 64);
        }
        self.passed.resize(piece_words, 0);
        let (c, j) = (at.row.size(), at.row.rank());
        for s in 0..c {
            let segment = (j + c - s) % c;
            self.scan(at, segment, proposed, fold);
            if s + 1 < c {
                at.row.shift(
                    bytemuck::cast_slice(&self.done),
                    bytemuck::cast_slice_mut(&mut self.passed),
                );
                std::mem::swap(&mut self.done, &mut self.passed);
            }
        }
    }

    /// One sub-step: each vertex of `segment` not in `done` proposes its
    /// first neighbour in the cell that is in the frontier.
    fn scan<I: Id>(
        &mut self,
        at: &Place<I>,
        segment: usize,
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) {
        let graph = at.graph;
        let base = segment * graph.grid().piece();
        let first = graph.first_column();
        one_per_thread(&mut self.shares, at.backend.threads(), Vec::new);
        let (in_frontier, shares) = (&self.in_frontier, &self.shares[..]);
        // Each task owns its words of `done` and sets its finds' bits.
        let scan = |found: &mut Vec<(usize, u64)>, start: usize, words: &mut [u64]| {
            for (w, word) in (start..).zip(words) {
                let mut open = !*word;
                while open != 0 {
                    let l = w * 64 + open.trailing_zeros() as usize;
                    open &= open - 1;
                    let parent = graph.sources(base + l).iter().find_map(|v| {
                        let c = v.to_u64() - first;
                        let c_at = usize::try_from(c).expect("fits memory");
                        (in_frontier[c_at / 64] & (1 << (c_at % 64)) != 0).then_some(c)
                    });
                    if let Some(c) = parent {
                        *word |= 1 << (l % 64);
                        found.push((l, c));
                    }
                }
            }
        };
        (at.backend).for_each_chunk_mut_init(
            &mut self.done,
            BOTTOM_UP_GRAIN,
            || claim(shares),
            |found, start, words| scan(found, start, words),
        );
        for found in each_mut(&mut self.shares) {
            for (l, parent) in found.drain(..) {
                fold.push(segment, l, parent);
            }
        }
        if base.is_multiple_of(64) {
            for (w, &bits) in self.done.iter().enumerate() {
                proposed[base / 64 + w].fetch_or(bits, Relaxed);
            }
        } else {
            // Pieces narrower than a word (fewer than 64 vertices in all).
            for l in 0..graph.grid().piece() {
                if self.done[l / 64] & (1 << (l % 64)) != 0 {
                    let k = base + l;
                    proposed[k / 64].fetch_or(1 << (k % 64), Relaxed);
                }
            }
        }
    }
}
