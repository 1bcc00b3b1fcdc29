//! `Bins`: the waiting lists of a bucket queue, and `bucket_of`, the
//! bucket of a distance, exact for every distance kernel 3 can reach.
//!
//! Delta-stepping keeps, per worker, a list of the vertices waiting in
//! each bin (a bucket, or a fraction of one). On Graph500's graphs the
//! distances stay below a few units and the bins are a few thousand (tens
//! of thousands at the narrowest delta), so a vector indexed by bin number
//! is the fastest: a push is an index and a `Vec::push`. But an input file
//! may hold weights of any size, and a vector of `max_dist / width` bins
//! would then take more memory than the machine has. `Bins` keeps a dense
//! *window* of up to [`Bins::WINDOW`] bins from a base, and the bins past
//! it (none in a Graph500 run, at any delta) in a sorted map, so memory
//! follows the vertices waiting, not the span of their distances, and the
//! lowest non-empty bin is found in `O(WINDOW + log bins)` however far it
//! lies.
//!
//! Invariants:
//! - a bin is the same list wherever it is kept: the window's slot
//!   `bin - base` or the map's entry `bin`; never both (a bin below the
//!   base lives in the map);
//! - the base only moves up, and only when the window is empty (then the
//!   map's bins that fall in the new window move into it);
//! - `near_len` counts the items in the window.

use std::collections::BTreeMap;

/// The waiting lists of a bucket queue, by bin number.
#[derive(Debug)]
pub struct Bins<T> {
    /// The bin of `near[0]`.
    base: u64,
    /// Bins `base..base + near.len()`; grown up to [`Bins::WINDOW`].
    near: Vec<Vec<T>>,
    /// Items in `near`.
    near_len: usize,
    /// Non-empty bins outside the window.
    far: BTreeMap<u64, Vec<T>>,
}

impl<T> Default for Bins<T> {
    fn default() -> Self {
        Bins {
            base: 0,
            near: Vec::new(),
            near_len: 0,
            far: BTreeMap::new(),
        }
    }
}

impl<T: Copy> Bins<T> {
    /// Bins kept in the window: 2^17. The window's vector grows only up
    /// to the highest bin used in it (24 bytes a bin, so at most 3 MiB),
    /// as a vector of every bin would. Graph500's distances stay below 3:
    /// 1536 bins at the default delta and 49,152 at the narrowest (bins
    /// are never narrower than 2^-14), all in the window: a smaller one
    /// sends their bins to the map, measurably slower
    /// (docs/history-kernels.md#bins).
    pub const WINDOW: u64 = 1 << 17;

    /// Puts `item` in bin `bin`. O(1) in the window (amortized), O(log
    /// bins) outside it. The common case (a window bin already allocated)
    /// is small enough to inline into the relaxation loops; the rest
    /// (`Bins::push_slow`) is a call.
    #[inline]
    pub fn push(&mut self, bin: u64, item: T) {
        let near = (bin.checked_sub(self.base))
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.near.get_mut(i));
        match near {
            // `near` never grows past the window, so its slots are window
            // bins.
            Some(items) => {
                items.push(item);
                self.near_len += 1;
            }
            None => self.push_slow(bin, item),
        }
    }

    /// [`Bins::push`] to a bin whose window slot is not allocated yet, or
    /// outside the window.
    #[cold]
    #[inline(never)]
    fn push_slow(&mut self, bin: u64, item: T) {
        match self.slot(bin) {
            Some(i) => {
                if self.near.len() <= i {
                    self.near.resize_with(i + 1, Vec::new);
                }
                self.near[i].push(item);
                self.near_len += 1;
            }
            None => self.far.entry(bin).or_default().push(item),
        }
    }

    /// Items in bin `bin`.
    pub fn len(&self, bin: u64) -> usize {
        match self.slot(bin) {
            Some(i) => self.near.get(i).map_or(0, Vec::len),
            None => self.far.get(&bin).map_or(0, Vec::len),
        }
    }

    /// The items of bin `bin`, in the order pushed.
    pub fn items(&self, bin: u64) -> &[T] {
        match self.slot(bin) {
            Some(i) => self.near.get(i).map_or(&[], Vec::as_slice),
            None => self.far.get(&bin).map_or(&[], Vec::as_slice),
        }
    }

    /// Whether no bin holds an item.
    pub fn is_empty(&self) -> bool {
        self.near_len == 0 && self.far.is_empty()
    }

    /// Keeps only the items of bin `bin` that `keep` accepts, in order.
    pub fn retain(&mut self, bin: u64, keep: impl FnMut(&T) -> bool) {
        match self.slot(bin) {
            Some(i) => {
                if let Some(items) = self.near.get_mut(i) {
                    let before = items.len();
                    items.retain(keep);
                    self.near_len -= before - items.len();
                }
            }
            None => {
                if let Some(items) = self.far.get_mut(&bin) {
                    items.retain(keep);
                    if items.is_empty() {
                        self.far.remove(&bin);
                    }
                }
            }
        }
    }

    /// Moves bin `bin`'s items to the end of `out`, in the order pushed,
    /// and empties it (a window bin keeps its capacity).
    pub fn drain_into(&mut self, bin: u64, out: &mut Vec<T>) {
        match self.slot(bin) {
            Some(i) => {
                if let Some(items) = self.near.get_mut(i) {
                    self.near_len -= items.len();
                    out.append(items);
                }
            }
            None => {
                if let Some(mut items) = self.far.remove(&bin) {
                    out.append(&mut items);
                }
            }
        }
    }

    /// The lowest non-empty bin from `from` on. Every bin below `from`
    /// must be empty: when the window is, its base moves up to `from`
    /// first, taking in the map's bins that then fall inside it.
    /// `O(WINDOW)` plus, when it moves, `O(log bins)` per bin taken in.
    pub fn lowest_from(&mut self, from: u64) -> Option<u64> {
        if self.near_len == 0 && from > self.base {
            self.slide_to(from);
        }
        let start = usize::try_from(from.saturating_sub(self.base)).unwrap_or(usize::MAX);
        let near = (self.near.iter().enumerate().skip(start))
            .take_while(|_| self.near_len > 0)
            .find(|(_, items)| !items.is_empty())
            .map(|(i, _)| self.base + i as u64);
        let far = self.far.range(from..).next().map(|(&bin, _)| bin);
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Empties every bin (the window keeps its capacity) and moves the
    /// base back to 0.
    pub fn clear(&mut self) {
        self.near.iter_mut().for_each(Vec::clear);
        self.near_len = 0;
        self.far.clear();
        self.base = 0;
    }

    /// The window slot of `bin`, if it lies in the window.
    #[inline]
    fn slot(&self, bin: u64) -> Option<usize> {
        let i = bin.checked_sub(self.base)?;
        if i < Self::WINDOW {
            usize::try_from(i).ok()
        } else {
            None
        }
    }

    /// Moves the (empty) window's base to `base` and takes in the map's
    /// bins that fall inside it.
    fn slide_to(&mut self, base: u64) {
        debug_assert_eq!(self.near_len, 0, "the window slides only when empty");
        self.base = base;
        let past = self.far.split_off(&base.saturating_add(Self::WINDOW));
        let inside = std::mem::replace(&mut self.far, past);
        for (bin, mut items) in inside {
            match self.slot(bin) {
                Some(i) => {
                    if self.near.len() <= i {
                        self.near.resize_with(i + 1, Vec::new);
                    }
                    self.near_len += items.len();
                    self.near[i].append(&mut items);
                }
                // Below the new base: left where it was.
                None => {
                    self.far.insert(bin, items);
                }
            }
        }
    }
}

/// The buckets [`bucket_of`] counts as `floor(d / delta)`, 2^24: below
/// it a bucket's bound `b delta` is exact in f32.
pub const EXACT_BUCKETS: u64 = 1 << f32::MANTISSA_DIGITS;

/// The bucket of distance `d` (finite, not negative) for buckets of width
/// `delta` (a power of two): `floor(d / delta)` below [`EXACT_BUCKETS`],
/// exact there, and past it one bucket per f32 value of `d`, in order
/// (there every `d / delta` is an integer, and a bucket of width `delta`
/// holds at most one value). Every finite `d` gets a bucket below 2^30.
#[inline]
pub fn bucket_of(d: f32, delta: f32) -> u64 {
    #[allow(clippy::cast_precision_loss)] // 2^24, exact
    const EXACT: f32 = EXACT_BUCKETS as f32;
    let x = d / delta; // exact while finite: delta is a power of two
    if x < EXACT {
        // An integer part below 2^24, exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let b = x as u64;
        b
    } else {
        // Past 2^24 widths a float's bits count its values in order (read
        // off `d`, which unlike `x` cannot overflow).
        EXACT_BUCKETS + u64::from(d.to_bits() - (EXACT * delta).to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(bins: &mut Bins<u32>, bin: u64) -> Vec<u32> {
        let mut out = Vec::new();
        bins.drain_into(bin, &mut out);
        out
    }

    #[test]
    fn items_come_back_from_their_bins_in_push_order_near_and_far() {
        let mut bins = Bins::default();
        let far = Bins::<u32>::WINDOW * 1000;
        for (bin, item) in [(3, 1), (far, 2), (3, 3), (0, 4), (far, 5), (u64::MAX, 6)] {
            bins.push(bin, item);
        }
        assert_eq!((bins.len(3), bins.len(far), bins.len(7)), (2, 2, 0));
        assert_eq!((bins.items(3), bins.items(far)), (&[1, 3][..], &[2, 5][..]));
        assert!(bins.items(7).is_empty());
        assert_eq!(bins.lowest_from(0), Some(0));
        assert_eq!(drained(&mut bins, 0), [4]);
        bins.retain(far, |&item| item != 2);
        bins.retain(u64::MAX, |_| false);
        assert_eq!((bins.len(far), bins.len(u64::MAX)), (1, 0));
        bins.push(u64::MAX, 6);
        assert_eq!(bins.lowest_from(0), Some(3));
        assert_eq!(drained(&mut bins, 3), [1, 3]);
        assert_eq!(bins.lowest_from(4), Some(far));
        assert_eq!(drained(&mut bins, far), [5]);
        assert_eq!(bins.lowest_from(far), Some(u64::MAX));
        assert_eq!(drained(&mut bins, u64::MAX), [6]);
        assert!(bins.is_empty());
        assert_eq!(bins.lowest_from(0), None);
    }

    #[test]
    fn a_far_bin_joins_the_window_when_it_slides_and_a_low_one_stays_found() {
        let mut bins = Bins::default();
        let w = Bins::<u32>::WINDOW;
        bins.push(5 * w + 2, 1);
        // The window is empty: it slides to 5w, taking the bin in.
        assert_eq!(bins.lowest_from(5 * w), Some(5 * w + 2));
        assert_eq!(bins.near_len, 1);
        // A bin below the new base still waits, and is found from it.
        bins.push(3, 2);
        assert_eq!(bins.lowest_from(0), Some(3));
        assert_eq!(drained(&mut bins, 3), [2]);
        assert_eq!(drained(&mut bins, 5 * w + 2), [1]);
        assert!(bins.is_empty());
        bins.push(1, 9);
        bins.clear();
        assert!(bins.is_empty());
        assert_eq!(bins.lowest_from(0), None);
    }

    #[test]
    fn memory_follows_the_items_not_the_span_of_their_bins() {
        let mut bins = Bins::default();
        for i in 0..100u32 {
            bins.push(u64::from(i) << 40, i);
        }
        assert!(bins.near.len() <= 1, "one window slot for bin 0");
        let mut from = 0;
        let mut seen = Vec::new();
        while let Some(b) = bins.lowest_from(from) {
            bins.drain_into(b, &mut seen);
            from = b + 1;
        }
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        assert!(bins.near.len() <= 1);
    }

    #[test]
    fn buckets_are_floor_of_d_over_delta_then_one_per_value_in_order() {
        let delta = 1.0 / 64.0;
        assert_eq!(bucket_of(0.0, delta), 0);
        assert_eq!(bucket_of(delta * 0.99, delta), 0);
        assert_eq!(bucket_of(delta, delta), 1);
        assert_eq!(bucket_of(2.5, delta), 160);
        let edge = (1u32 << 24) as f32 * delta;
        assert_eq!(bucket_of(edge, delta), 1 << 24);
        let below = f32::from_bits(edge.to_bits() - 1);
        assert_eq!(bucket_of(below, delta), (1 << 24) - 1);
        // Past 2^24 buckets, one per value, consecutive and in order.
        let mut d = edge;
        for _ in 0..100 {
            let next = f32::from_bits(d.to_bits() + 1);
            assert_eq!(bucket_of(next, delta), bucket_of(d, delta) + 1);
            d = next;
        }
        // The largest finite distance still has a bucket below 2^32.
        let top = bucket_of(f32::MAX, 1.0 / 16384.0);
        assert_eq!(
            bucket_of(f32::MAX, delta) + 1,
            bucket_of(f32::INFINITY, delta)
        );
        assert!(top < u64::from(u32::MAX), "{top}");
        assert!(top > bucket_of(1e20, 1.0 / 16384.0));
    }
}
