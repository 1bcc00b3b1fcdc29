//! The state of an own vertex of [`DistSssp`](super::DistSssp) in one
//! word, as one process packs its own (`kernels::DeltaStepping`), so that
//! a scan, an apply or a pull touches one cache line for it where five
//! arrays took up to four:
//!
//! ```text
//!  63       62..32         31        30..0
//!  lowered  distance bits  settled   waiting (bucket, or NOT_WAITING)
//! ```
//!
//! - *distance*: the bits of the tentative `f32` distance, never negative,
//!   so its sign bit is free and carries *lowered*: set by the apply that
//!   lowers the distance, in the same atomic step, and cleared by the one
//!   offer of that distance that gives the vertex its parent (one writer);
//! - *settled*: the vertex is listed as settled by the current bucket
//!   (set by the light scan that first takes it, cleared by the bucket's
//!   heavy phase);
//! - *waiting*: the bucket whose bin holds the vertex, or [`NOT_WAITING`];
//!   every bucket is below 2^30 (`kernels::bucket_of`), below it.
//!
//! The parent (a global id, up to 64 bits) stays in an array of its own:
//! it is written once per lowering and read only for the results.
//! Exact: the fields are the arrays' values bit for bit, and every write
//! either has one writer in its phase (the scanning or pulling worker of
//! the vertex) or is a compare-and-swap that keeps the other fields (on a
//! rank whose loops run on one thread, a plain store: `phase.rs`).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The distance bits of a vertex not reached.
pub(super) const UNREACHED: u32 = f32::INFINITY.to_bits();
/// The waiting field of a vertex in no bin (never a bucket).
pub(super) const NOT_WAITING: u32 = (1 << 31) - 1;
/// The state of a vertex not reached: in no bin, flags clear.
pub(super) const UNREACHED_STATE: u64 = (UNREACHED as u64) << 32 | NOT_WAITING as u64;

const LOWERED: u64 = 1 << 63;
const SETTLED: u64 = 1 << 31;
const WAITING: u64 = SETTLED - 1;
const LOW: u64 = u32::MAX as u64;

/// A state of distance bits `d` waiting in bucket `b`, flags clear.
#[inline]
pub(super) fn pack(d: u32, b: u32) -> u64 {
    u64::from(d) << 32 | u64::from(b)
}

/// The distance bits of a state.
#[inline]
pub(super) fn dist_bits(s: u64) -> u32 {
    #[allow(clippy::cast_possible_truncation)] // the high half, on purpose
    let d = ((s & !LOWERED) >> 32) as u32;
    d
}

/// The bucket a state waits in, or [`NOT_WAITING`].
#[inline]
pub(super) fn waiting(s: u64) -> u32 {
    #[allow(clippy::cast_possible_truncation)] // 31 bits
    let b = (s & WAITING) as u32;
    b
}

#[inline]
pub(super) fn settled(s: u64) -> bool {
    s & SETTLED != 0
}

/// `s` waiting in bucket `b`.
#[inline]
pub(super) fn with_waiting(s: u64, b: u32) -> u64 {
    s & !WAITING | u64::from(b)
}

/// `s` with its settled flag `on`.
#[inline]
pub(super) fn with_settled(s: u64, on: bool) -> u64 {
    if on { s | SETTLED } else { s & !SETTLED }
}

/// `s` with distance bits `d`, not lowered.
#[inline]
pub(super) fn with_dist(s: u64, d: u32) -> u64 {
    s & LOW | u64::from(d) << 32
}

/// Lowers `state`'s distance to bits `d` if below it, marking it lowered
/// in the same step; whether it did. Any thread.
#[inline]
pub(super) fn lower(state: &AtomicU64, d: u32) -> bool {
    let mut cur = state.load(Relaxed);
    while d < dist_bits(cur) {
        let new = with_dist(cur, d) | LOWERED;
        match state.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(now) => cur = now,
        }
    }
    false
}

/// If `state` is lowered to exactly bits `d`, clears the mark and makes it
/// wait in bucket `b`, in one step; returns the bucket it waited in
/// before, for the one caller that cleared the mark. Any thread.
#[inline]
pub(super) fn claim_lowered(state: &AtomicU64, d: u32, b: u32) -> Option<u32> {
    let mut cur = state.load(Relaxed);
    while cur & LOWERED != 0 && dist_bits(cur) == d {
        let new = with_waiting(cur & !LOWERED, b);
        match state.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return Some(waiting(cur)),
            Err(now) => cur = now,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_fields_read_back_and_keep_each_other() {
        let s = pack(1.5f32.to_bits(), 7);
        assert_eq!(
            (dist_bits(s), waiting(s), settled(s)),
            (1.5f32.to_bits(), 7, false)
        );
        let s = with_settled(with_waiting(s, NOT_WAITING), true);
        assert_eq!(
            (dist_bits(s), waiting(s), settled(s)),
            (1.5f32.to_bits(), NOT_WAITING, true)
        );
        let s = with_dist(s, UNREACHED);
        assert_eq!(
            (dist_bits(s), waiting(s), settled(s)),
            (UNREACHED, NOT_WAITING, true)
        );
        assert_eq!(dist_bits(UNREACHED_STATE), UNREACHED);
        assert_eq!(waiting(UNREACHED_STATE), NOT_WAITING);
    }

    #[test]
    fn lowering_marks_once_and_claiming_takes_the_mark_once() {
        let state = AtomicU64::new(with_settled(pack(2.0f32.to_bits(), 3), true));
        assert!(!lower(&state, 2.5f32.to_bits()), "not below");
        assert!(lower(&state, 1.0f32.to_bits()));
        assert!(lower(&state, 0.5f32.to_bits()));
        let s = state.load(Relaxed);
        assert_eq!(
            (dist_bits(s), waiting(s), settled(s)),
            (0.5f32.to_bits(), 3, true)
        );
        assert_eq!(
            claim_lowered(&state, 1.0f32.to_bits(), 1),
            None,
            "not the least"
        );
        assert_eq!(claim_lowered(&state, 0.5f32.to_bits(), 0), Some(3));
        assert_eq!(claim_lowered(&state, 0.5f32.to_bits(), 0), None, "claimed");
        let s = state.load(Relaxed);
        assert_eq!(
            (dist_bits(s), waiting(s), settled(s)),
            (0.5f32.to_bits(), 0, true)
        );
    }
}
