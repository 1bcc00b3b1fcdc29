//! `route`: sorts items by destination rank for an all-to-all, in
//! parallel and in a fixed order. The input is cut into one piece per
//! worker; each piece counts what it sends to each rank, then writes its
//! items into its own slice of each destination's run (pieces in order),
//! so the outgoing buffer is the same for any thread count.

use rayon::prelude::*;

/// Items for every rank, grouped by destination: `items[..counts[0]]` go
/// to rank 0, the next `counts[1]` to rank 1, and so on.
#[derive(Debug)]
pub struct Outbox<T> {
    /// The items, destinations in rank order.
    pub items: Vec<T>,
    /// Items per destination rank.
    pub counts: Vec<usize>,
}

/// The items `emit` makes from each of `inputs`, grouped by destination.
/// `emit(input, push)` calls `push(rank, item)` for each item (any number
/// per input). Two passes over `inputs` (count, then fill), parallel on the
/// current pool; `O(inputs + ranks * workers)`.
pub fn route<I: Sync, T: Copy + Default + Send + Sync>(
    inputs: &[I],
    ranks: usize,
    emit: impl Fn(&I, &mut dyn FnMut(usize, T)) + Sync,
) -> Outbox<T> {
    let pieces = rayon::current_num_threads().clamp(1, 64);
    let piece_len = inputs.len().div_ceil(pieces).max(1);
    let per_piece: Vec<Vec<usize>> = inputs
        .par_chunks(piece_len)
        .map(|piece| {
            let mut counts = vec![0; ranks];
            for input in piece {
                emit(input, &mut |rank, _| counts[rank] += 1);
            }
            counts
        })
        .collect();
    let counts: Vec<usize> = (0..ranks)
        .map(|r| per_piece.iter().map(|c| c[r]).sum())
        .collect();
    let mut items = vec![T::default(); counts.iter().sum()];
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
    inputs
        .par_chunks(piece_len)
        .zip(slices)
        .for_each(|(piece, mut out)| {
            let mut fill = vec![0usize; ranks];
            for input in piece {
                emit(input, &mut |rank, item| {
                    out[rank][fill[rank]] = item;
                    fill[rank] += 1;
                });
            }
        });
    Outbox { items, counts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_grouped_by_rank_in_input_order_for_any_thread_count() {
        let inputs: Vec<u32> = (0..1000).collect();
        let emit = |x: &u32, push: &mut dyn FnMut(usize, u32)| {
            push((*x % 3) as usize, *x);
            if x.is_multiple_of(5) {
                push(2, x + 10_000);
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
}
