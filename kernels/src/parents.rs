//! `Parents`: the BFS output array, shared by all workers and written in
//! place.
//!
//! One `AtomicU32` per vertex, [`NO_PARENT`] until the vertex is reached. A
//! worker claims a vertex with one compare-and-swap from `NO_PARENT` to its
//! parent; the CAS succeeds for exactly one worker, so every vertex is
//! discovered once. Relaxed ordering suffices: the value is the only data
//! published, and rayon's joins order the levels.

use generator::Vertex;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::Relaxed};

/// Slots per work item of [`Parents::reset`].
const RESET_PIECE: usize = 1 << 16;

/// The parent of a vertex no search has reached (never a vertex id).
pub const NO_PARENT: Vertex = Vertex::MAX;

/// The recorded level of a vertex no search has reached, or of one deeper
/// than 254 ([`Parents::record_level`]).
pub const NO_LEVEL: u8 = u8::MAX;

/// One parent slot per vertex, and, for a kernel that records them, one
/// level per vertex: the depth at which the search found it, which a
/// validator may take as a certificate and check instead of walking the
/// parent chains ([`Parents::levels`]).
#[derive(Debug)]
pub struct Parents {
    slots: Vec<AtomicU32>,
    levels: Option<Vec<AtomicU8>>,
}

impl Parents {
    /// `n` slots, all unreached. Allocates `4 n` bytes.
    pub fn new(n: usize) -> Self {
        Parents {
            slots: par::huge::filled(n, |_| AtomicU32::new(NO_PARENT)),
            levels: None,
        }
    }

    /// `n` slots, all unreached, and a level per vertex, all
    /// [`NO_LEVEL`]. Allocates `5 n` bytes.
    pub fn with_levels(n: usize) -> Self {
        Parents {
            levels: Some(par::huge::filled(n, |_| AtomicU8::new(NO_LEVEL))),
            ..Parents::new(n)
        }
    }

    /// The recorded levels of the last search ([`NO_LEVEL`] for unreached
    /// vertices), if this array records them. A claim, not a proof: the
    /// validator checks every one (the root's is 0, every other reached
    /// vertex's is its parent's plus one) and walks the chains instead if
    /// any is wrong.
    pub fn levels(&self) -> Option<&[AtomicU8]> {
        self.levels.as_deref()
    }

    /// Records that the search found `v` at depth `level` (if this array
    /// records levels; [`NO_LEVEL`] past 254, which makes the validator
    /// walk). The kernel calls it once per vertex, with the parent.
    #[inline]
    pub fn record_level(&self, v: Vertex, level: u32) {
        if let Some(levels) = &self.levels {
            let level = u8::try_from(level).unwrap_or(NO_LEVEL);
            levels[v as usize].store(level, Relaxed);
        }
    }

    /// The number of slots (vertices).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True for a graph without vertices.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Marks every vertex unreached. O(N), parallel.
    pub fn reset(&mut self) {
        // Plain stores through `&mut` (no search runs): each piece is one
        // memset, where a store per atomic is one instruction per slot.
        self.slots.par_chunks_mut(RESET_PIECE).for_each(|piece| {
            piece
                .iter_mut()
                .for_each(|slot| *slot.get_mut() = NO_PARENT)
        });
        if let Some(levels) = &mut self.levels {
            levels.par_chunks_mut(RESET_PIECE).for_each(|piece| {
                piece
                    .iter_mut()
                    .for_each(|level| *level.get_mut() = NO_LEVEL)
            });
        }
    }

    /// The slots as they lie: entry `v` is the parent of `v`, or
    /// [`NO_PARENT`]. For readers of the whole array (a validator).
    pub fn slots(&self) -> &[AtomicU32] {
        &self.slots
    }

    /// The parent of `v`, if reached.
    #[inline]
    pub fn get(&self, v: Vertex) -> Option<Vertex> {
        let p = self.slots[v as usize].load(Relaxed);
        (p != NO_PARENT).then_some(p)
    }

    /// True once `v` has a parent.
    #[inline]
    pub fn is_reached(&self, v: Vertex) -> bool {
        self.slots[v as usize].load(Relaxed) != NO_PARENT
    }

    /// Sets `v`'s parent unconditionally (the root, or a single-threaded
    /// search that has checked [`is_reached`](Parents::is_reached)).
    #[inline]
    pub fn set(&self, v: Vertex, parent: Vertex) {
        self.slots[v as usize].store(parent, Relaxed);
    }

    /// Makes `parent` the parent of `v` if `v` has none yet; true if this
    /// call did it. A plain load first skips the CAS for vertices already
    /// reached, the common case in later levels.
    #[inline]
    pub fn claim(&self, v: Vertex, parent: Vertex) -> bool {
        let slot = &self.slots[v as usize];
        slot.load(Relaxed) == NO_PARENT
            && slot
                .compare_exchange(NO_PARENT, parent, Relaxed, Relaxed)
                .is_ok()
    }

    /// Writes the Graph500 form into `out` (length N): the parent id, or
    /// `-1` for unreached. O(N), parallel.
    pub fn write_i64(&self, out: &mut [i64]) {
        assert_eq!(out.len(), self.slots.len(), "one i64 per vertex");
        out.par_iter_mut()
            .zip(self.slots.par_iter())
            .with_min_len(1 << 14)
            .for_each(|(o, slot)| {
                let p = slot.load(Relaxed);
                *o = if p == NO_PARENT { -1 } else { p.into() };
            });
    }

    /// The Graph500 form as a new vector; see [`write_i64`](Parents::write_i64).
    pub fn to_i64(&self) -> Vec<i64> {
        let mut out = vec![0; self.len()];
        self.write_i64(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_succeeds_once_and_reset_clears() {
        let mut p = Parents::new(3);
        assert!(p.claim(1, 0));
        assert!(!p.claim(1, 2));
        assert_eq!(p.get(1), Some(0));
        assert_eq!(p.to_i64(), [-1, 0, -1]);
        p.reset();
        assert_eq!(p.get(1), None);
        assert!(!p.is_reached(1));
    }

    #[test]
    fn levels_are_recorded_only_when_asked_and_reset_with_the_parents() {
        let plain = Parents::new(2);
        plain.record_level(1, 3);
        assert!(plain.levels().is_none());
        let mut p = Parents::with_levels(3);
        p.record_level(1, 3);
        p.record_level(2, 255);
        let levels = |p: &Parents| -> Vec<u8> {
            p.levels()
                .unwrap()
                .iter()
                .map(|l| l.load(Relaxed))
                .collect()
        };
        assert_eq!(levels(&p), [NO_LEVEL, 3, NO_LEVEL], "past 254: none");
        p.reset();
        assert_eq!(levels(&p), [NO_LEVEL; 3]);
    }

    #[test]
    fn concurrent_claims_pick_exactly_one_winner() {
        let p = Parents::new(1000);
        let wins: usize = (0..8u32)
            .into_par_iter()
            .map(|worker| (0..1000).filter(|&v| p.claim(v, worker)).count())
            .sum();
        assert_eq!(wins, 1000);
        assert!((0..1000).all(|v| p.get(v).is_some_and(|w| w < 8)));
    }
}
