//! `Backend`: what runs a kernel's parallel loops, rayon or this crate's
//! pool, chosen per engine so that a kernel's loop bodies are one piece of
//! code on either.
//!
//! - Passes over items that may borrow (kernel 1's parts and blocks, the
//!   ranks' loops): [`Backend::for_each_init`], [`Backend::map`],
//!   [`Backend::map_ranges`], [`Backend::for_each_chunk_init`]. On rayon,
//!   its parallel iterators; on pipes, [`scoped_for_each`] and
//!   [`scoped_map`], threads started for the call.
//! - Loops inside a search run on a [`LoopBody`]: on rayon through its
//!   parallel iterators, on pipes through a [`Loop`] made once with the
//!   engine (the `kernels` crate's `Loops` picks between them).
//! - Per-thread slots ([`Backend::slots`], [`Backend::slot`]) for kernels
//!   that keep per-worker state (delta-stepping's bins).
//!
//! Invariant: a `Backend` is a plain `Copy` tag; it owns no pool. Every
//! method runs on the calling thread's current pool of its kind (rayon's
//! current pool, or [`with_current`]'s). Cost: on rayon, what the parallel
//! iterator costs; on pipes, starting and joining `T - 1` threads per
//! call, and a slot per item.
//!
//! [`scoped_for_each`]: crate::scoped_for_each
//! [`scoped_map`]: crate::scoped_map
//! [`LoopBody`]: crate::LoopBody
//! [`Loop`]: crate::Loop
//! [`with_current`]: crate::with_current

use rayon::prelude::*;
use std::ops::Range;

/// What runs the workers of a parallel kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// rayon's work-stealing pool.
    #[default]
    Rayon,
    /// This crate: the persistent pool of futures and pipes; searches run
    /// on its reusable [`Loop`](crate::Loop)s, kernel 1 on its scoped
    /// threads.
    Pipes,
}

impl Backend {
    /// Both backends.
    pub const ALL: [Backend; 2] = [Backend::Rayon, Backend::Pipes];

    /// The backend's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Rayon => "rayon",
            Backend::Pipes => "pipes",
        }
    }

    /// The worker threads of this backend's current pool: rayon's current
    /// pool, or `par`'s ([`current_size`](crate::current_size); not started
    /// by asking).
    pub fn threads(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_num_threads(),
            Backend::Pipes => crate::current_size(),
        }
    }

    /// How many distinct [`Backend::slot`]s the threads running this
    /// backend's loops can have: rayon's workers; or `par`'s workers plus
    /// one for a caller that is none of them.
    pub fn slots(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_num_threads(),
            Backend::Pipes => crate::current_size() + 1,
        }
    }

    /// The calling thread's slot, below [`Backend::slots`]: distinct for
    /// the threads that run one loop together. O(1).
    pub fn slot(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_thread_index().unwrap_or(0),
            Backend::Pipes => crate::current_worker().map_or(0, |i| i + 1),
        }
    }

    /// Runs `body(&mut local, item)` for every item, each thread making
    /// its `local` once with `init` (rayon: once per split). For kernel 1:
    /// items may borrow. Allocates on pipes (a slot per item, the threads).
    pub fn for_each_init<T, L>(
        self,
        items: Vec<T>,
        init: impl Fn() -> L + Sync + Send,
        body: impl Fn(&mut L, T) + Sync + Send,
    ) where
        T: Send,
    {
        match self {
            Backend::Rayon => items.into_par_iter().for_each_init(init, body),
            Backend::Pipes => crate::scoped_for_each(self.threads(), items, init, body),
        }
    }

    /// `f(item)` for every item, in parallel; the values in item order.
    /// For kernel 1 and the ranks' kernels: items may borrow. Allocates
    /// the values (and on pipes a slot per item and the threads).
    pub fn map<T, R>(self, items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R>
    where
        T: Send,
        R: Send,
    {
        match self {
            Backend::Rayon => items.into_par_iter().map(f).collect(),
            Backend::Pipes => crate::scoped_map(self.threads(), items, f),
        }
    }
}

impl Backend {
    /// `f(range)` for the consecutive ranges of `grain` indices (the last
    /// may be shorter) that cover `0..len`, in parallel; the values in
    /// range order. `f` may borrow: [`Backend::map`] over the ranges (on
    /// pipes, threads started for the call). Panics if `grain` is 0.
    pub fn map_ranges<R: Send>(
        self,
        len: usize,
        grain: usize,
        f: impl Fn(Range<usize>) -> R + Sync + Send,
    ) -> Vec<R> {
        assert!(grain > 0, "ranges need at least one index");
        let ranges = (0..len)
            .step_by(grain)
            .map(|start| start..(start + grain).min(len))
            .collect();
        self.map(ranges, f)
    }

    /// `body(&mut local, chunk)` for the consecutive chunks of `grain`
    /// items of `items`, each thread making its `local` with `init` (rayon:
    /// once per split). On rayon `par_chunks`, which allocates nothing; on
    /// pipes [`Backend::for_each_init`] over the chunks (allocates their
    /// list and starts the threads). Panics if `grain` is 0.
    pub fn for_each_chunk_init<T: Sync, L>(
        self,
        items: &[T],
        grain: usize,
        init: impl Fn() -> L + Sync + Send,
        body: impl Fn(&mut L, &[T]) + Sync + Send,
    ) {
        match self {
            Backend::Rayon => items.par_chunks(grain).for_each_init(init, body),
            Backend::Pipes => self.for_each_init(items.chunks(grain).collect(), init, body),
        }
    }

    /// `body(&mut local, start, chunk)` for the consecutive chunks of
    /// `grain` items of `items`, written in place (`start`: the index of
    /// the chunk's first item), each thread making its `local` with `init`
    /// (rayon: once per split). On rayon `par_chunks_mut`, which allocates
    /// nothing; on pipes [`Backend::for_each_init`] over the chunks
    /// (allocates their list and starts the threads). Panics if `grain` is
    /// 0.
    pub fn for_each_chunk_mut_init<T: Send, L>(
        self,
        items: &mut [T],
        grain: usize,
        init: impl Fn() -> L + Sync + Send,
        body: impl Fn(&mut L, usize, &mut [T]) + Sync + Send,
    ) {
        let body = |local: &mut L, (i, chunk): (usize, &mut [T])| body(local, i * grain, chunk);
        match self {
            Backend::Rayon => items
                .par_chunks_mut(grain)
                .enumerate()
                .for_each_init(init, body),
            Backend::Pipes => {
                self.for_each_init(items.chunks_mut(grain).enumerate().collect(), init, body);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards `for_each_chunk_mut_init` on both backends: every item is
    /// written once, by the chunk that holds it, at its index (`start` is
    /// the chunk's first item), the last chunk shorter.
    #[test]
    fn mutable_chunks_are_written_in_place_with_their_start() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for backend in Backend::ALL {
            let mut items = vec![u64::MAX; 1000];
            let run = || {
                crate::with_pool(2, || {
                    backend.for_each_chunk_mut_init(
                        &mut items,
                        64,
                        || 0usize,
                        |n, start, chunk| {
                            assert!(chunk.len() == 64 || start + chunk.len() == 1000);
                            *n += 1;
                            for (i, x) in chunk.iter_mut().enumerate() {
                                assert_eq!(*x, u64::MAX, "written once");
                                *x = (start + i) as u64;
                            }
                        },
                    );
                });
            };
            pool.install(run);
            assert!(
                items.iter().enumerate().all(|(i, &x)| x == i as u64),
                "{}",
                backend.name()
            );
        }
    }
}
