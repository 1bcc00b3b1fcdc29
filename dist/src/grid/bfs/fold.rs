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
//! A top-down level also announces the hubs of its column frontier
//! ([`Fold::announce`]): a hub's column is not scanned (`grid/hubs.rs`);
//! each member of the row learns the hub (its index in the column block,
//! [`Fold::parent_bytes`] bytes) and takes its own neighbours of it from
//! its lists. Each run to a member opens with a 4-byte count of its
//! announcements, then the announcements, then the pairs: `4 (C - 1)`
//! bytes a rank a fold more, and `parent_bytes` a hub to each other member.
//!
//! A rank's proposals for its own vertices never travel: they stay
//! unpacked in a run of their own, delivered in the rank's place among
//! the senders (in a bottom-up level, where the owner scans its own piece
//! first, they are most of the level's finds).
//!
//! Invariant: between [`Fold::clear`] and [`Fold::deliver`] the outgoing
//! runs hold whole pairs and whole announcements, one run of each per
//! member of the row; the run to this rank itself holds announcements
//! only, its pairs are in `local`.

use super::super::{Grid, Group};
use crate::comm::{Comm, exchange_counted_into};

/// A level's outgoing and incoming proposals, kept across levels and
/// searches.
pub(in crate::grid) struct Fold {
    index_bytes: usize,
    parent_bytes: usize,
    /// This rank's place in its grid row (its grid column).
    me: usize,
    /// The proposals for this rank's own vertices: `(index, parent)`.
    local: Vec<(usize, u64)>,
    /// Per member of the grid row: its packed pairs.
    outgoing: Vec<Vec<u8>>,
    /// Per member of the grid row: the hubs announced to it, packed.
    hubs: Vec<Vec<u8>>,
    send: Vec<u8>,
    received: Vec<u8>,
    counts: Vec<usize>,
    came: Vec<usize>,
}

/// The bytes that hold every value below `bound` (at least one).
fn bytes_below(bound: u64) -> usize {
    let bits = 64 - bound.saturating_sub(1).leading_zeros() as usize;
    bits.div_ceil(8).max(1)
}

/// Appends the low `bytes` bytes of `x`: a whole word written, then cut
/// back (one fixed-size store instead of a copy of variable length).
#[inline]
fn put(buf: &mut Vec<u8>, x: u64, bytes: usize) {
    let len = buf.len();
    buf.extend_from_slice(&x.to_le_bytes());
    buf.truncate(len + bytes);
}

/// The little-endian value of `buf` (at most 8 bytes).
#[inline]
fn get(buf: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..buf.len()].copy_from_slice(buf);
    u64::from_le_bytes(word)
}

/// The `bytes`-byte value at `at` of `run`: one unaligned word load and a
/// mask where a whole word fits before the run's end, else [`get`].
#[inline]
fn get_at(run: &[u8], at: usize, bytes: usize) -> u64 {
    match run.get(at..at + 8) {
        Some(word) => {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            word & (u64::MAX >> (64 - 8 * bytes))
        }
        None => get(&run[at..at + bytes]),
    }
}

impl Fold {
    /// The fold of `rank` of `grid`.
    pub(in crate::grid) fn new(grid: &Grid, rank: usize) -> Self {
        let piece = grid.piece() as u64;
        Fold {
            index_bytes: bytes_below(piece),
            parent_bytes: bytes_below(grid.rows() as u64 * piece),
            me: grid.coords(rank).1,
            local: Vec::new(),
            outgoing: vec![Vec::new(); grid.cols()],
            hubs: vec![Vec::new(); grid.cols()],
            send: Vec::new(),
            received: Vec::new(),
            counts: vec![0; grid.cols()],
            came: Vec::new(),
        }
    }

    /// Bytes of a proposal's `u` (its index in its owner's piece).
    pub(in crate::grid) fn index_bytes(&self) -> usize {
        self.index_bytes
    }

    /// Bytes of a proposal's parent (its index in the column block).
    pub(in crate::grid) fn parent_bytes(&self) -> usize {
        self.parent_bytes
    }

    /// Empties the outgoing runs for a new level.
    pub(in crate::grid) fn clear(&mut self) {
        self.outgoing.iter_mut().for_each(Vec::clear);
        self.hubs.iter_mut().for_each(Vec::clear);
        self.local.clear();
    }

    /// Announces to row member `to` the hub at `column` of this rank's
    /// column block.
    #[inline]
    pub(in crate::grid) fn announce(&mut self, to: usize, column: u64) {
        put(&mut self.hubs[to], column, self.parent_bytes);
    }

    /// Proposes `parent` (column-local) for the vertex at `index` of the
    /// piece of row member `to`.
    #[inline]
    pub(in crate::grid) fn push(&mut self, to: usize, index: usize, parent: u64) {
        if to == self.me {
            self.local.push((index, parent));
            return;
        }
        let run = &mut self.outgoing[to];
        put(run, index as u64, self.index_bytes);
        put(run, parent, self.parent_bytes);
    }

    /// [`Fold::push`] of each of `found`'s `(index, parent)`, which it
    /// empties; to this rank itself, the pairs move as they are (the
    /// vectors swap when nothing was queued here before).
    pub(in crate::grid) fn push_all(&mut self, to: usize, found: &mut Vec<(usize, u64)>) {
        if to != self.me {
            found
                .drain(..)
                .for_each(|(index, parent)| self.push(to, index, parent));
        } else if self.local.is_empty() {
            std::mem::swap(&mut self.local, found);
        } else {
            self.local.append(found);
        }
    }

    /// The proposals queued for other members of the row.
    pub(in crate::grid) fn proposals_out(&self) -> u64 {
        let pair = self.index_bytes + self.parent_bytes;
        let all: usize = self.outgoing.iter().map(Vec::len).sum();
        (all / pair) as u64
    }

    /// Sends every member its announcements and proposals (one
    /// all-to-all in the row, and its counts), then, senders in row order,
    /// calls `keep(index, parent)` (`index` in this rank's piece, `parent`
    /// a global id) for each of this rank's vertices in `lists(hub)` of
    /// each hub announced here, and for each proposal that came here, in
    /// the order the sender pushed them.
    pub(in crate::grid) fn deliver<'l>(
        &mut self,
        row: &Group,
        grid: &Grid,
        lists: impl Fn(u64) -> &'l [u32],
        mut keep: impl FnMut(usize, u64),
    ) {
        self.send.clear();
        let runs = self.hubs.iter().zip(&self.outgoing);
        for (count, (hubs, run)) in self.counts.iter_mut().zip(runs) {
            let announced = u32::try_from(hubs.len() / self.parent_bytes).expect("hubs fit");
            self.send.extend_from_slice(&announced.to_le_bytes());
            self.send.extend_from_slice(hubs);
            self.send.extend_from_slice(run);
            *count = HEADER + hubs.len() + run.len();
        }
        let (send, counts) = (&self.send, &self.counts);
        exchange_counted_into(row, send, counts, &mut self.received, &mut self.came);
        let pair = self.index_bytes + self.parent_bytes;
        let mut at = 0;
        // Row member `j` sits in grid column `j`.
        for (j, &bytes) in self.came.iter().enumerate() {
            let first = grid.column_range(j).start;
            let run = &self.received[at..at + bytes];
            let (announced, rest) = run.split_at(HEADER);
            let announced = usize::try_from(get(announced)).expect("hubs fit");
            let (hubs, pairs) = rest.split_at(announced * self.parent_bytes);
            for hub in hubs.chunks_exact(self.parent_bytes) {
                let hub = first + get(hub);
                for &index in lists(hub) {
                    keep(index as usize, hub);
                }
            }
            for at in (0..pairs.len()).step_by(pair) {
                let index = get_at(pairs, at, self.index_bytes);
                let index = usize::try_from(index).expect("an index fits memory");
                keep(
                    index,
                    first + get_at(pairs, at + self.index_bytes, self.parent_bytes),
                );
            }
            if j == self.me {
                debug_assert!(pairs.is_empty(), "own proposals stay local");
                for &(index, parent) in &self.local {
                    keep(index, first + parent);
                }
            }
            at += bytes;
        }
        debug_assert_eq!(at, self.received.len(), "whole runs");
        debug_assert_eq!(row.size(), self.outgoing.len());
        debug_assert_eq!(row.rank(), self.me);
    }
}

/// Bytes of a run's count of announcements.
const HEADER: usize = 4;

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
        let fold = Fold::new(&Grid::new(1 << 16, 16), 0);
        assert_eq!((fold.index_bytes(), fold.parent_bytes()), (2, 2));
        let fold = Fold::new(&Grid::new(1 << 20, 16), 0);
        assert_eq!((fold.index_bytes(), fold.parent_bytes()), (2, 3));
        let mut buf = Vec::new();
        for x in [0u64, 1, 255, 256, 65535, 65536, (1 << 24) - 1] {
            buf.clear();
            put(&mut buf, x, bytes_below(x + 1));
            assert_eq!(buf.len(), bytes_below(x + 1));
            assert_eq!(get(&buf), x);
        }
        // Packed runs read back field by field, whole words and the tail.
        let fields: Vec<(u64, usize)> = (0..40u64)
            .map(|i| (i * 977 % 65_536, 1 + i as usize % 3))
            .collect();
        buf.clear();
        fields
            .iter()
            .for_each(|&(x, bytes)| put(&mut buf, x, bytes.max(bytes_below(x + 1))));
        let mut at = 0;
        for &(x, bytes) in &fields {
            let bytes = bytes.max(bytes_below(x + 1));
            assert_eq!(get_at(&buf, at, bytes), x, "at {at}");
            at += bytes;
        }
        assert_eq!(at, buf.len());
    }
}
