//! The first message of a phase of [`DistSssp`](super::DistSssp): every
//! rank sends every rank the count of offers it sends there and, the same
//! to all, the facts that steer what comes next, so that a phase is one
//! exchange (these heads, then the offers) and needs no all-reduce:
//! - the lowest bucket from the current on with a vertex of its own
//!   waiting as the phase began (the current one if it scanned a vertex;
//!   in a heavy phase the current one or none): when their least is past
//!   the current bucket, no rank scanned a vertex, the phase sends no
//!   offer, and it ends its bucket's light phases or, the first of a
//!   bucket, names the next bucket (none: the search is over);
//! - how many of its offers fall in the current bucket: none on any rank
//!   after a light phase, and no vertex can wait in the bucket any more (a
//!   vertex waits in it only if an offer of this phase lowered it there),
//!   so its light phases are over without a phase more;
//! - its settled vertices so far in the bucket and the figures of the
//!   choice of push or pull as if the bucket ended now: the last light
//!   phase's heads are the bucket's, which spares publishing its counts.
//!
//! Invariant: every rank gets the same [`Heads`] sums, so all make the
//! same calls in the same order. Cost: `8 WORDS` bytes from every rank to
//! every other a phase, in one all-to-all; nothing allocated once warm.

use super::FIGURES;
use crate::comm::{Comm, exchange_known_into};

/// `u64` words a rank sends each rank in a phase's heads.
const WORDS: usize = 4 + FIGURES;
/// The word of "no vertex waiting".
pub(super) const NONE: u64 = u64::MAX;

/// What a rank says of its part of a phase (the same to every rank).
#[derive(Clone, Copy, Default)]
pub(super) struct Facts {
    /// The lowest bucket from the current on with a vertex waiting, or
    /// [`NONE`] (the header says what a heavy phase puts).
    pub lowest: u64,
    /// Offers sent whose distance lies in the current bucket.
    pub in_bucket: u64,
    /// Vertices settled in the current bucket so far.
    pub settled: u64,
    /// The push or pull figures were the bucket to end now.
    pub figures: [u64; FIGURES],
}

/// The heads' buffers, and what the last exchange of them told.
#[derive(Default)]
pub(super) struct Heads {
    send: Vec<u64>,
    received: Vec<u64>,
    words: Vec<usize>,
    /// Offers each rank sends here (by source), and each rank's settled
    /// vertices so far in the bucket.
    pub recv_counts: Vec<usize>,
    pub settled: Vec<usize>,
    /// [`Facts`] summed over the ranks (`lowest` the least).
    pub all: Facts,
}

impl Heads {
    /// Sends every rank its count in `send_counts` and `mine`; fills this
    /// rank's view. Collective: one all-to-all of `8 WORDS` bytes a pair.
    pub(super) fn exchange(&mut self, comm: &dyn Comm, send_counts: &[usize], mine: Facts) {
        let ranks = comm.size();
        self.send.clear();
        for &count in send_counts {
            self.send
                .extend([count as u64, mine.lowest, mine.in_bucket]);
            self.send.push(mine.settled);
            self.send.extend(mine.figures);
        }
        debug_assert_eq!(self.send.len(), WORDS * ranks, "a head a rank");
        self.words.clear();
        self.words.resize(ranks, WORDS);
        exchange_known_into(
            comm,
            &self.send,
            &self.words,
            &self.words,
            &mut self.received,
        );
        let word = |w: u64| usize::try_from(w).expect("a count fits memory");
        self.recv_counts.clear();
        self.settled.clear();
        let mut all = Facts {
            lowest: NONE,
            ..Facts::default()
        };
        for head in self.received.chunks_exact(WORDS) {
            self.recv_counts.push(word(head[0]));
            all.lowest = all.lowest.min(head[1]);
            all.in_bucket += head[2];
            self.settled.push(word(head[3]));
            all.settled += head[3];
            (all.figures.iter_mut().zip(&head[4..])).for_each(|(s, f)| *s += f);
        }
        self.all = all;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadRanks;

    /// Guards the heads: every rank learns what each rank sends it, every
    /// rank's settled count, the least lowest bucket and the sums, the
    /// same on every rank.
    #[test]
    fn heads_give_every_rank_the_counts_sent_it_and_the_same_sums() {
        let got = ThreadRanks::run(3, |c| {
            let r = c.rank() as u64;
            let counts: Vec<usize> = (0..3).map(|d| 10 * c.rank() + d).collect();
            let mine = Facts {
                lowest: if r == 1 { NONE } else { 5 + r },
                in_bucket: r,
                settled: 2 * r,
                figures: [r, 1, 100 * r],
            };
            let mut heads = Heads::default();
            heads.exchange(c, &counts, mine);
            heads.exchange(c, &counts, mine); // buffers reused
            (heads.recv_counts, heads.settled, heads.all)
        });
        for (d, (recv_counts, settled, all)) in got.into_iter().enumerate() {
            assert_eq!(recv_counts, vec![d, 10 + d, 20 + d]);
            assert_eq!(settled, vec![0, 2, 4]);
            assert_eq!((all.lowest, all.in_bucket, all.settled), (5, 3, 6));
            assert_eq!(all.figures, [3, 3, 300]);
        }
    }
}
