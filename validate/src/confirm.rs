//! Confirming possible tree edges against the parent array: [`settle`]
//! marks a child's tree edge present when the parent array names the
//! parent, and [`Pending`] queues the candidates of a scalar pass so that
//! each parent entry is read some candidates after it was prefetched.
//!
//! The edge passes find candidates from what they hold of a vertex (a
//! print of its parent in a cell, a distance), which may match wrongly;
//! only the parent array says. Invariant: a child is marked only when its
//! parent entry names the candidate's parent (or, with `confirm` false,
//! when the caller's cell holds the whole parent), and settling only sets
//! marks, so the order in which candidates are settled (at once, queued,
//! in a batch) changes nothing; every candidate queued is settled by
//! [`Pending::drain`] at the latest.
//!
//! Cost: one parent-array read per candidate, most of them from cache
//! thanks to the queue's prefetch; the queue itself is a ring of
//! [`PENDING`] pairs on the stack.

use crate::ParentArray;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Possible tree edges waiting for their confirmation: each entry's parent
/// slot was prefetched when it was queued and is read `PENDING` candidates
/// later, by when it has usually arrived in cache. The BFS edge pass's
/// (`edges.rs`) and the SSSP pass's (`sssp/tuples.rs`), which always
/// confirms.
#[derive(Default)]
pub(crate) struct Pending {
    entries: [(u32, u32); PENDING],
    len: usize,
    next: usize,
}

/// Entries of [`Pending`] (a power of two).
const PENDING: usize = 8;

impl Pending {
    /// Queues `child`'s possible tree edge to `parent`; with `confirm`
    /// false, marks it at once (the cell already named the parent).
    #[inline]
    pub(crate) fn push<P: ParentArray + ?Sized>(
        &mut self,
        child: u32,
        parent: u32,
        parents: &P,
        seen: &[AtomicBool],
        confirm: bool,
    ) {
        if !confirm {
            seen[child as usize].store(true, Relaxed);
            return;
        }
        parents.prefetch(child as usize);
        if self.len == PENDING {
            let (c, p) = self.entries[self.next];
            settle(c, p, parents, seen);
        } else {
            self.len += 1;
        }
        self.entries[self.next] = (child, parent);
        self.next = (self.next + 1) & (PENDING - 1);
    }

    /// Settles every queued entry.
    pub(crate) fn drain<P: ParentArray + ?Sized>(
        &mut self,
        parents: &P,
        seen: &[AtomicBool],
        confirm: bool,
    ) {
        if confirm {
            for &(c, p) in &self.entries[..self.len] {
                settle(c, p, parents, seen);
            }
        }
        self.len = 0;
    }
}

/// Marks `child`'s tree edge present if `parent` really is its parent.
#[inline]
pub(crate) fn settle<P: ParentArray + ?Sized>(
    child: u32,
    parent: u32,
    parents: &P,
    seen: &[AtomicBool],
) {
    if parents.parent(child as usize) == i64::from(parent) {
        seen[child as usize].store(true, Relaxed);
    }
}
