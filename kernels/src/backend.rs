//! `Backend`: what runs a kernel's parallel loops, and the one loop helper
//! every kernel writes its loops against, so a kernel's body is one piece
//! of code on either backend.
//!
//! - Loops inside a search ([`Loops::run`]): a [`LoopBody`] over the chunks
//!   of `0..len`. On rayon, `(0..chunks).into_par_iter().map_init(..)
//!   .reduce_with(..)`: one scratch per rayon split, work stealing. On
//!   pipes, a [`par::Loop`] made once with the engine and run on the
//!   current `par` pool: `T - 1` workers woken through a preallocated
//!   channel plus the caller claim chunks in turn. Neither allocates (on a
//!   rayon worker: see `harness::on_pool_worker`). The body shares the
//!   kernel's state through `Arc`s and writes results in place.
//! - Kernel 1's passes ([`Backend::for_each_init`], [`Backend::map`]) over
//!   items that borrow the tuples and `&mut` slices of the rows: rayon's
//!   `into_par_iter`, or [`par::scoped_for_each`] (threads started per
//!   pass).
//! - Per-thread slots ([`Backend::slots`], [`Backend::slot`]) for kernels
//!   that keep per-worker state (delta-stepping's bins).

use par::LoopBody;
use rayon::prelude::*;
use std::ops::Range;

/// What runs the workers of a parallel kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// rayon's work-stealing pool.
    #[default]
    Rayon,
    /// [`par`]: the persistent pool of futures and pipes; searches run on
    /// its reusable [`par::Loop`]s, kernel 1 on its scoped threads.
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
    /// pool, or `par`'s ([`par::current_size`]; not started by asking).
    pub fn threads(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_num_threads(),
            Backend::Pipes => par::current_size(),
        }
    }

    /// How many distinct [`Backend::slot`]s the threads running this
    /// backend's loops can have: rayon's workers; or `par`'s workers plus
    /// one for a caller that is none of them.
    pub fn slots(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_num_threads(),
            Backend::Pipes => par::current_size() + 1,
        }
    }

    /// The calling thread's slot, below [`Backend::slots`]: distinct for
    /// the threads that run one loop together. O(1).
    pub fn slot(self) -> usize {
        match self {
            Backend::Rayon => rayon::current_thread_index().unwrap_or(0),
            Backend::Pipes => par::current_worker().map_or(0, |i| i + 1),
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
            Backend::Pipes => par::scoped_for_each(self.threads(), items, init, body),
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
            Backend::Pipes => par::scoped_map(self.threads(), items, f),
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
}

/// An engine's loops on its backend: the backend, and on pipes the
/// reusable [`par::Loop`] its runs go through (one allocation, made with
/// the engine). One per body type.
pub(crate) struct Loops<B: LoopBody> {
    backend: Backend,
    pipes: Option<par::Loop<B>>,
}

impl<B: LoopBody> std::fmt::Debug for Loops<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loops")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl<B: LoopBody> Loops<B> {
    /// Loops on `backend`.
    pub(crate) fn new(backend: Backend) -> Self {
        Loops {
            backend,
            pipes: (backend == Backend::Pipes).then(par::Loop::new),
        }
    }

    /// The backend.
    pub(crate) fn backend(&self) -> Backend {
        self.backend
    }

    /// Runs `body` over `0..len` in chunks of `chunk_len`; the chunks'
    /// values combined by [`LoopBody::reduce`] (which must be associative
    /// and commutative), `None` if `len` is 0. Returns once every chunk has
    /// run and `body` is dropped. Allocates nothing. Panics if a chunk
    /// panicked (a bug in the body).
    pub(crate) fn run(&mut self, body: B, len: usize, chunk_len: usize) -> Option<B::Out> {
        match &mut self.pipes {
            None => {
                let body = &body;
                let range = |c: usize| c * chunk_len..((c + 1) * chunk_len).min(len);
                (0..len.div_ceil(chunk_len))
                    .into_par_iter()
                    .map_init(|| body.local(), |local, c| body.chunk(local, range(c)))
                    .reduce_with(|a, b| body.reduce(a, b))
            }
            Some(pipes) => par::with_current(|pool| pipes.run(pool, body, len, chunk_len))
                .unwrap_or_else(|e| panic!("a loop of the pipes backend failed: {e}")),
        }
    }
}
