//! The fold of a grid level: the proposals `(u, parent)` a rank found go
//! to the owners of `u`, all in its grid row, packed narrow.
//!
//! A proposal travels as two little-endian fields: `u`'s index in its
//! owner's piece (below `piece`, so [`Fold::index_bytes`] bytes) and the
//! parent's index in the proposing cell's column block (below `R *
//! piece`, [`Fold::parent_bytes`] bytes). The receiver knows the
//! sender's grid column, so both ids come back whole. On a 4 x 4 grid at
//! SCALE 16 that is 2 + 2 bytes a pair instead of two 4-byte ids; the
//! widths depend only on `N` and the grid, so the bytes of a fold are
//! `(index_bytes + parent_bytes) q` plus the counts (`q` the proposals to
//! other ranks), which the model states.
//!
//! Invariant: between [`Fold::clear`] and [`Fold::deliver`] the outgoing
//! runs hold whole pairs, one run per member of the row.

use super::super::{Grid, Group};
use crate::comm::{Comm, exchange_into};

/// A level's outgoing and incoming proposals, kept across levels and
/// searches.
pub(super) struct Fold {
    index_bytes: usize,
    parent_bytes: usize,
    /// Per member of the grid row: its packed pairs.
    outgoing: Vec<Vec<u8>>,
    send: Vec<u8>,
    received: Vec<u8>,
    counts: Vec<usize>,
}

/// The bytes that hold every value below `bound` (at least one).
fn bytes_below(bound: u64) -> usize {
    let bits = 64 - bound.saturating_sub(1).leading_zeros() as usize;
    bits.div_ceil(8).max(1)
}

fn put(buf: &mut Vec<u8>, x: u64, bytes: usize) {
    buf.extend_from_slice(&x.to_le_bytes()[..bytes]);
}

fn get(buf: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..buf.len()].copy_from_slice(buf);
    u64::from_le_bytes(word)
}

impl Fold {
    /// The fold of a rank of `grid`.
    pub(super) fn new(grid: &Grid) -> Self {
        let piece = grid.piece() as u64;
        Fold {
            index_bytes: bytes_below(piece),
            parent_bytes: bytes_below(grid.rows() as u64 * piece),
            outgoing: vec![Vec::new(); grid.cols()],
            send: Vec::new(),
            received: Vec::new(),
            counts: vec![0; grid.cols()],
        }
    }

    /// Bytes of a proposal's `u` (its index in its owner's piece).
    pub(super) fn index_bytes(&self) -> usize {
        self.index_bytes
    }

    /// Bytes of a proposal's parent (its index in the column block).
    pub(super) fn parent_bytes(&self) -> usize {
        self.parent_bytes
    }

    /// Empties the outgoing runs for a new level.
    pub(super) fn clear(&mut self) {
        self.outgoing.iter_mut().for_each(Vec::clear);
    }

    /// Proposes `parent` (column-local) for the vertex at `index` of the
    /// piece of row member `to`.
    #[inline]
    pub(super) fn push(&mut self, to: usize, index: usize, parent: u64) {
        let run = &mut self.outgoing[to];
        put(run, index as u64, self.index_bytes);
        put(run, parent, self.parent_bytes);
    }

    /// The proposals queued for members other than `me`.
    pub(super) fn proposals_out(&self, me: usize) -> u64 {
        let pair = self.index_bytes + self.parent_bytes;
        let all: usize = self.outgoing.iter().map(Vec::len).sum();
        ((all - self.outgoing[me].len()) / pair) as u64
    }

    /// Sends every member its proposals (one all-to-all in the row, and
    /// its counts) and calls `keep(index, parent)` for each proposal that
    /// came here (`index` in this rank's piece, `parent` a global id),
    /// senders in row order, each sender's in the order it pushed them.
    pub(super) fn deliver(&mut self, row: &Group, grid: &Grid, mut keep: impl FnMut(usize, u64)) {
        self.send.clear();
        for (count, run) in self.counts.iter_mut().zip(&self.outgoing) {
            *count = run.len();
            self.send.extend_from_slice(run);
        }
        let came = exchange_into(row, &self.send, &self.counts, &mut self.received);
        let pair = self.index_bytes + self.parent_bytes;
        let mut at = 0;
        // Row member `j` sits in grid column `j`.
        for (j, &bytes) in came.iter().enumerate() {
            let first = grid.column_range(j).start;
            for p in self.received[at..at + bytes].chunks_exact(pair) {
                let (index, parent) = p.split_at(self.index_bytes);
                let index = usize::try_from(get(index)).expect("an index fits memory");
                keep(index, first + get(parent));
            }
            at += bytes;
        }
        debug_assert_eq!(at, self.received.len(), "whole pairs");
        debug_assert_eq!(row.size(), self.outgoing.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the packed widths: a field holds every value below its
    /// bound in as few bytes as possible (4 x 4 at SCALE 16: 2 + 2; at
    /// SCALE 20: 2 + 3), and values come back as they went.
    #[test]
    fn fold_packs_each_field_in_the_fewest_bytes() {
        assert_eq!(
            [1, 2, 256, 257, 65536, 65537].map(bytes_below),
            [1, 1, 1, 2, 2, 3]
        );
        let fold = Fold::new(&Grid::new(1 << 16, 16));
        assert_eq!((fold.index_bytes(), fold.parent_bytes()), (2, 2));
        let fold = Fold::new(&Grid::new(1 << 20, 16));
        assert_eq!((fold.index_bytes(), fold.parent_bytes()), (2, 3));
        let mut buf = Vec::new();
        for x in [0u64, 1, 255, 256, 65535, 65536, (1 << 24) - 1] {
            buf.clear();
            put(&mut buf, x, bytes_below(x + 1));
            assert_eq!(get(&buf), x);
        }
    }
}
