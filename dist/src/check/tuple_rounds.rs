//! A round of requests about tuples' ends ([`TupleRounds`]): each
//! tuple's holder sends `(local(u), v)` to `u`'s owner and `(local(v), u)`
//! to `v`'s, the owners answer, and the holder judges each tuple from its
//! two answers; also [`rounds`], the rounds every rank runs over its
//! tuples, and `ask`, a request and its answer for each of a list.
//!
//! Invariants: `route` keeps each destination's items in input order and
//! replies come back in request order, so a holder finds a tuple's two
//! answers with one cursor per rank: positions never travel. Every rank
//! runs the same number of rounds (an all-reduce of the counts).

use super::incidence::to_both_ends;
use super::tree::GRAIN;
use super::{Found, first};
use crate::Partition;
use crate::comm::{
    Comm, Reduce, all_reduce, exchange, exchange_into, exchange_known, exchange_known_into,
};
use crate::route::{Outbox, Sends, route_into};
use bytemuck::Pod;
use generator::Tuple;
use rayon::prelude::*;
use std::ops::Range;
use validate::Invalid;

/// The ranges of this rank's `len` tuples, `round` at a time, in as many
/// rounds as the rank with the most tuples needs (the later ones empty
/// here), so every rank runs the same rounds. Collective: one all-reduce.
pub(crate) fn rounds(
    comm: &dyn Comm,
    len: usize,
    round: usize,
) -> impl Iterator<Item = Range<usize>> + use<> {
    let [count] = all_reduce(comm, [len.div_ceil(round) as u64], Reduce::Max);
    (0..usize::try_from(count).expect("rounds")).map(move |i| {
        let start = (i * round).min(len);
        start..(start + round).min(len)
    })
}

/// The buffers of a round of requests about tuples' ends, kept from round
/// to round and search to search, and the round's steps: requests to the
/// ends' owners ([`TupleRounds::send`]), their answers, `A`
/// ([`TupleRounds::answer`]), and the judgement of each tuple from its
/// ends' answers ([`TupleRounds::judge`]).
#[derive(Debug, Default)]
pub(crate) struct TupleRounds<T, A> {
    /// Requests, by owner of the end: tuples `(local index of the end,
    /// global id of the other end)`, so they are as wide as the input's.
    out: Outbox<T>,
    /// Requests that came here.
    asked: Vec<T>,
    /// Their answers.
    answers: Vec<A>,
    /// The answers to this rank's requests, in request order.
    replies: Vec<A>,
}

impl<T: Tuple, A: Pod + Send + Sync> TupleRounds<T, A> {
    /// Sends, for each of `items` whose `ends` are `(u, v)`, `(local(u), v)`
    /// to `owner(u)` and `(local(v), u)` to `owner(v)`; items whose `ends`
    /// are `None` send nothing. Returns how many requests came from each
    /// rank. Collective: one exchange (and one of counts).
    pub(crate) fn send<I: Sync>(
        &mut self,
        comm: &dyn Comm,
        part: Partition,
        items: &[I],
        ends: impl Fn(&I) -> Option<(u64, u64)> + Sync,
    ) -> Vec<usize> {
        route_into(items, comm.size(), &mut self.out, |item| {
            let Some((u, v)) = ends(item) else {
                return Sends::none();
            };
            to_both_ends(part, u, v)
        });
        exchange_into(comm, &self.out.items, &self.out.counts, &mut self.asked)
    }

    /// Answers the requests that came (`asked_counts` from each rank):
    /// `answer(i, x, other)` for the `i`th, about own vertex `x` (a local
    /// index) from a tuple whose other end is `other`; then sends the
    /// answers back, where they wait in request order for
    /// [`TupleRounds::judge`]. Collective: one exchange.
    pub(crate) fn answer(
        &mut self,
        comm: &dyn Comm,
        asked_counts: &[usize],
        answer: impl Fn(usize, usize, u64) -> A + Sync,
    ) {
        self.answers.clear();
        let asked = self.asked.par_iter().enumerate();
        self.answers.par_extend(asked.map(|(i, q)| {
            let (x, other) = q.ends();
            answer(i, usize::try_from(x).expect("a local index"), other)
        }));
        let (answers, counts) = (&self.answers, &self.out.counts);
        exchange_known_into(comm, answers, asked_counts, counts, &mut self.replies);
    }

    /// Judges the round's `items` (those [`TupleRounds::send`] got), the
    /// first at global position `position`: `judge(edge, item, ends)`
    /// with the answers about the item's two ends, or `None` if it sent
    /// no request; `Ok(true)` counts toward nedge. This rank's share of
    /// nedge and its first failure.
    pub(crate) fn judge<I: Sync>(
        &self,
        part: Partition,
        items: &[I],
        position: u64,
        ends: impl Fn(&I) -> Option<(u64, u64)> + Sync,
        judge: impl Fn(u64, &I, Option<[A; 2]>) -> Result<bool, Invalid> + Sync,
    ) -> (u64, Found) {
        let (replies, counts) = (&self.replies, &self.out.counts);
        let owners = |item: &I| ends(item).map(|(u, v)| [part.owner(u), part.owner(v)]);
        let per_piece = items.par_chunks(GRAIN).map(|piece| {
            let mut sent = vec![0; counts.len()];
            for r in piece.iter().filter_map(owners).flatten() {
                sent[r] += 1;
            }
            sent
        });
        // Each piece's cursor into each rank's run of replies.
        let mut next: Vec<usize> = counts
            .iter()
            .scan(0, |s, &c| Some(std::mem::replace(s, *s + c)))
            .collect();
        let mut cursors: Vec<Vec<usize>> = per_piece.collect();
        for sent in &mut cursors {
            for (n, c) in next.iter_mut().zip(sent) {
                (*n, *c) = (*n + *c, *n);
            }
        }
        let pieces = items.par_chunks(GRAIN).zip(cursors).enumerate();
        pieces
            .map(|(k, (piece, mut cursor))| {
                let mut verdict = (0, None);
                for (j, item) in piece.iter().enumerate() {
                    let answers = owners(item).map(|ranks| {
                        ranks.map(|r| {
                            cursor[r] += 1;
                            replies[cursor[r] - 1]
                        })
                    });
                    let edge = position + (k * GRAIN + j) as u64;
                    match judge(edge, item, answers) {
                        Ok(counted) => verdict.0 += u64::from(counted),
                        Err(e) => verdict.1 = first(verdict.1, Some((edge, e))),
                    }
                }
                verdict
            })
            .reduce(|| (0, None), |a, b| (a.0 + b.0, first(a.1, b.1)))
    }
}

/// grouping), where `answer` answers it; returns the answers in request
/// order. Collective: two exchanges.
pub(super) fn ask<Q, A>(
    comm: &dyn Comm,
    requests: &[Q],
    counts: &[usize],
    answer: impl Fn(Q) -> A + Sync,
) -> Vec<A>
where
    Q: bytemuck::Pod + Send + Sync,
    A: bytemuck::Pod + Send,
{
    let (asked, asked_counts) = exchange(comm, requests, counts);
    let answers: Vec<A> = asked.par_iter().map(|&q| answer(q)).collect();
    exchange_known(comm, &answers, &asked_counts, counts)
}
