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
//! A scan is the 1-D step's (`bfs/bottom_up.rs`) on the cell's rows: it
//! skips the rows without arcs in the cell ([`GridGraph::live`]), tests
//! each open row's hub in the cell before it reads the row (a hit costs a
//! sequential read and a bit of the column frontier), and prefetches a
//! word ahead the rows whose hub missed.
//!
//! Invariants: `done` holds the segment being scanned, its holes (indices
//! past the owner's count) set by the owner, so no cell scans them; a
//! found vertex's bit is set before the bitmap moves on; a rank ORs each
//! segment's final `done` into `proposed`, so a later top-down level does
//! not propose a vertex this rank has seen reached. Proposals are queued
//! sub-step after sub-step, within one in the order the scan meets them
//! (a word's hub finds before the previous word's row finds; on several
//! threads as their shares are gathered); a vertex is proposed at most
//! once in its row, so the order changes no parent.

use super::super::{Grid, GridGraph, Group};
use super::fold::Fold;
use crate::Id;
use crate::bfs::bottom_up::in_frontier;
use crate::comm::{Comm, all_gather};
use crate::shares::{claim, each_mut, one_per_thread};
use par::Backend;
use par::hint::prefetch;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The bitmaps of a bottom-up level, kept across levels and searches.
#[derive(Default)]
pub(super) struct BottomUp {
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
    /// Expands `front` (this rank's part of the frontier, a bit per owned
    /// vertex) in the column, runs the row step and queues its proposals on
    /// `fold`. `reached`: a bit per owned vertex, set for those with a
    /// parent.
    pub(super) fn propose<I: Id>(
        &mut self,
        at: &Place<I>,
        front: &[u64],
        reached: &[u64],
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) {
        let grid: Grid = *at.graph.grid();
        let part = *grid.partition();
        self.words.clear();
        (self.words).extend(at.column.members().iter().map(|&m| part.words(m)));
        // Every word is overwritten by the all-gather.
        self.in_frontier.resize(self.words.iter().sum(), 0);
        all_gather(at.column, front, &self.words, &mut self.in_frontier);
        // This rank's segment: reached, and its holes.
        let piece = grid.piece();
        let piece_words = piece.div_ceil(64);
        self.done.clear();
        self.done.extend_from_slice(reached);
        self.done.resize(piece_words, 0);
        for l in part.count(at.rank)..piece_words * 64 {
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

    /// One sub-step: each vertex of `segment` not in `done` with arcs in
    /// the cell proposes its first neighbour in the cell that is in the
    /// frontier, its row's hub tested first ([`RowScan`]).
    fn scan<I: Id>(
        &mut self,
        at: &Place<I>,
        segment: usize,
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) {
        let graph = at.graph;
        let base = segment * graph.grid().piece();
        one_per_thread(&mut self.shares, at.backend.threads(), Vec::new);
        let rows = RowScan {
            graph,
            in_frontier: &self.in_frontier,
            first: graph.first_column(),
            base,
            live: graph.live(segment),
        };
        let shares = &self.shares[..];
        let grain = kernels::bottom_up_grain(self.done.len(), at.backend.threads());
        // Each task owns its words of `done` and sets its finds' bits.
        (at.backend).for_each_chunk_mut_init(
            &mut self.done,
            grain,
            || claim(shares),
            |found, start, words| rows.words(found, start, words),
        );
        for found in each_mut(&mut self.shares) {
            fold.push_all(segment, found);
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

/// What a sub-step's workers read: the cell, the column block's frontier
/// and the segment's rows with arcs here.
struct RowScan<'a, I: Id> {
    graph: &'a GridGraph<I>,
    in_frontier: &'a [u64],
    /// The column block's first id.
    first: u64,
    /// The segment's first row-block index.
    base: usize,
    /// The segment's [`GridGraph::live`] words.
    live: &'a [u64],
}

impl<I: Id> RowScan<'_, I> {
    /// The segment's words from `start` on (`done` words, which get their
    /// finds' bits), the finds `(segment index, parent column index)`
    /// pushed on `found`. Per word, as the 1-D step (`bfs/bottom_up.rs`):
    /// the hub tests of its open rows, then the rows whose hub is not in
    /// the frontier; the next word's hub tests run before this word's
    /// rows, so that its rows are prefetched a word ahead.
    fn words(&self, found: &mut Vec<(usize, u64)>, start: usize, words: &mut [u64]) {
        let open = |i: usize, done: u64| !done & self.live[start + i];
        let Some(&head) = words.first() else { return };
        let mut ahead = self.ask_hubs(start, open(0, head), found);
        for i in 0..words.len() {
            let w = start + i;
            let (mut hits, mut todo) = ahead;
            if let Some(&next) = words.get(i + 1) {
                ahead = self.ask_hubs(w + 1, open(i + 1, next), found);
                self.prefetch_rows(w + 1, ahead.1);
            }
            while todo != 0 {
                let bit = todo.trailing_zeros();
                todo &= todo - 1;
                let l = w * 64 + bit as usize;
                let row = self.graph.sources(self.base + l);
                if let Some(v) = row.iter().find(|v| self.has(v.to_u64())) {
                    hits |= 1 << bit;
                    found.push((l, v.to_u64() - self.first));
                }
            }
            words[i] |= hits;
        }
    }

    /// The hub tests of word `w`'s `open` rows: those whose hub is in the
    /// frontier propose it. Returns them, and the rest whose rows are
    /// still to scan (not those alone with their hub).
    fn ask_hubs(&self, w: usize, open: u64, found: &mut Vec<(usize, u64)>) -> (u64, u64) {
        // Every test first, without a branch on its outcome (as the 1-D
        // step), then the finds, their hubs reread from L1.
        let (mut hits, mut alone, mut bits) = (0, 0, open);
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            let (hub, only) = self.graph.row_hub(self.base + w * 64 + bit as usize);
            hits |= u64::from(self.has(hub)) << bit;
            alone |= u64::from(only) << bit;
        }
        let mut bits = hits;
        while bits != 0 {
            let l = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            found.push((l, self.graph.row_hub(self.base + l).0 - self.first));
        }
        (hits, open & !hits & !alone)
    }

    /// Whether the column block's vertex `v` (a global id) is in the
    /// frontier.
    #[inline]
    fn has(&self, v: u64) -> bool {
        in_frontier(self.in_frontier, v - self.first)
    }

    /// Starts loading the first arc of each row of segment word `w` whose
    /// bit is set in `rows` (the 1-D step's `prefetch_rows`).
    #[inline]
    fn prefetch_rows(&self, w: usize, mut rows: u64) {
        while rows != 0 {
            let l = w * 64 + rows.trailing_zeros() as usize;
            rows &= rows - 1;
            if let Some(first) = self.graph.sources(self.base + l).first() {
                prefetch(first);
            }
        }
    }
}
