//! `route`: sorts items by destination rank for an all-to-all, in
//! parallel and in a fixed order. The input is cut into one piece per
//! worker; each piece counts what it sends to each rank, then writes its
//! items into its own slice of each destination's run (pieces in order),
//! so the outgoing buffer is the same for any thread count.

use crate::comm::resize_for_overwrite;
use bytemuck::Zeroable;
use par::Backend;

/// Items for every rank, grouped by destination: `items[..counts[0]]` go
/// to rank 0, the next `counts[1]` to rank 1, and so on.
#[derive(Debug, Default)]
pub struct Outbox<T> {
    /// The items, destinations in rank order.
    pub items: Vec<T>,
    /// Items per destination rank.
    pub counts: Vec<usize>,
}

/// What one input sends: at most two items, each to a rank. (A fixed
/// small array, so that routing is a plain loop the compiler inlines, not
/// a call per item.)
#[derive(Clone, Copy, Debug)]
pub struct Sends<T> {
    items: [(usize, T); 2],
    len: usize,
}

impl<T: Copy + Default> Sends<T> {
    /// Nothing.
    #[inline]
    pub fn none() -> Self {
        Sends {
            items: [(0, T::default()); 2],
            len: 0,
        }
    }

    /// `item` to `rank`.
    #[inline]
    pub fn one(rank: usize, item: T) -> Self {
        Sends {
            items: [(rank, item), (0, T::default())],
            len: 1,
        }
    }

    /// `a` to `rank_a` and `b` to `rank_b`.
    #[inline]
    pub fn two(rank_a: usize, a: T, rank_b: usize, b: T) -> Self {
        Sends {
            items: [(rank_a, a), (rank_b, b)],
            len: 2,
        }
    }

    #[inline]
    fn items(&self) -> &[(usize, T)] {
        &self.items[..self.len]
    }
}

/// The items `emit` makes from each of `inputs`, grouped by destination.
/// Two passes over `inputs` (count, then fill; `emit` is called in both),
/// parallel on the current pool; `O(inputs + ranks * workers)`.
pub fn route<I: Sync, T: Zeroable + Copy + Default + Send + Sync>(
    inputs: &[I],
    ranks: usize,
    emit: impl Fn(&I) -> Sends<T> + Sync,
) -> Outbox<T> {
    let mut out = Outbox {
        items: Vec::new(),
        counts: Vec::new(),
    };
    route_into(inputs, ranks, &mut out, emit);
    out
}

/// [`route`] into `out`, reusing its memory (for rounds: a fresh buffer
/// per round costs a page fault per 4 KiB,
/// docs/history-kernels.md#dist-route).
pub fn route_into<I: Sync, T: Zeroable + Copy + Default + Send + Sync>(
    inputs: &[I],
    ranks: usize,
    out: &mut Outbox<T>,
    emit: impl Fn(&I) -> Sends<T> + Sync,
) {
    route_indexed_into(inputs, ranks, out, |_, input| emit(input));
}

/// [`route_into`] with each input's index in `inputs` passed to `emit`
/// beside it, for what lies in a slice parallel to the inputs (kernel 1's
/// weights).
pub fn route_indexed_into<I: Sync, T: Zeroable + Copy + Default + Send + Sync>(
    inputs: &[I],
    ranks: usize,
    out: &mut Outbox<T>,
    emit: impl Fn(usize, &I) -> Sends<T> + Sync,
) {
    route_indexed_on(Backend::Rayon, inputs, ranks, out, emit);
}

/// [`route_indexed_into`] with its two passes on `backend`.
pub fn route_indexed_on<I: Sync, T: Zeroable + Copy + Default + Send + Sync>(
    backend: Backend,
    inputs: &[I],
    ranks: usize,
    out: &mut Outbox<T>,
    emit: impl Fn(usize, &I) -> Sends<T> + Sync,
) {
    let pieces = backend.threads().clamp(1, 64);
    let piece_len = inputs.len().div_ceil(pieces).max(1);
    let per_piece: Vec<Vec<usize>> = backend.map_ranges(inputs.len(), piece_len, |r| {
        let mut counts = vec![0; ranks];
        for (i, input) in inputs[r.clone()].iter().enumerate() {
            for &(rank, _) in emit(r.start + i, input).items() {
                counts[rank] += 1;
            }
        }
        counts
    });
    out.counts.clear();
    out.counts
        .extend((0..ranks).map(|r| per_piece.iter().map(|c| c[r]).sum::<usize>()));
    let items = &mut out.items;
    // Every element is overwritten.
    resize_for_overwrite(items, out.counts.iter().sum());
    // Each piece's slice of each destination's run.
    let mut slices: Vec<Vec<&mut [T]>> = per_piece
        .iter()
        .map(|_| Vec::with_capacity(ranks))
        .collect();
    let mut rest = items.as_mut_slice();
    for r in 0..ranks {
        for (piece, c) in slices.iter_mut().zip(&per_piece) {
            let (mine, tail) = rest.split_at_mut(c[r]);
            piece.push(mine);
            rest = tail;
        }
    }
    let pieces: Vec<_> = inputs.chunks(piece_len).enumerate().zip(slices).collect();
    backend.map(pieces, |((k, piece), mut out)| {
        let mut fill = vec![0usize; ranks];
        for (i, input) in piece.iter().enumerate() {
            for &(rank, item) in emit(k * piece_len + i, input).items() {
                out[rank][fill[rank]] = item;
                fill[rank] += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_grouped_by_rank_in_input_order_for_any_thread_count() {
        let inputs: Vec<u32> = (0..1000).collect();
        let emit = |x: &u32| {
            if x.is_multiple_of(5) {
                Sends::two((*x % 3) as usize, *x, 2, x + 10_000)
            } else {
                Sends::one((*x % 3) as usize, *x)
            }
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let a = one.install(|| route(&inputs, 3, emit));
        let b = four.install(|| route(&inputs, 3, emit));
        assert_eq!(a.items, b.items);
        assert_eq!(a.counts, b.counts);
        assert_eq!(a.counts, vec![334, 333, 333 + 200]);
        let mut expected: Vec<u32> = inputs.iter().copied().filter(|x| x % 3 == 0).collect();
        assert_eq!(&a.items[..334], &expected[..]);
        expected = Vec::new();
        for x in &inputs {
            if x % 3 == 2 {
                expected.push(*x);
            }
            if x.is_multiple_of(5) {
                expected.push(x + 10_000);
            }
        }
        assert_eq!(&a.items[667..], &expected[..]);
    }

    /// Guards the index `route_indexed_into` passes: each input's own
    /// position, whatever piece it falls in.
    #[test]
    fn indexed_routing_passes_each_input_its_position() {
        let inputs: Vec<u32> = (0..1000).map(|x| x * 7).collect();
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut out = Outbox::default();
        three.install(|| {
            route_indexed_into(&inputs, 2, &mut out, |i, &x| {
                Sends::one(i % 2, (i as u32, x))
            });
        });
        assert_eq!(out.counts, vec![500, 500]);
        assert!(out.items.iter().all(|&(i, x)| inputs[i as usize] == x));
    }
}
