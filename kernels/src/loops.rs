//! `Loops`: the one helper every kernel writes its in-search loops
//! against, so a kernel's body is one piece of code on either [`Backend`].
//!
//! A loop is a [`LoopBody`] over the chunks of `0..len`. On rayon it runs as
//! `(0..chunks).into_par_iter().map_init(..).reduce_with(..)`: one scratch
//! per rayon split, work stealing. On pipes it runs through a [`par::Loop`]
//! made once with the engine, on the current `par` pool: `T - 1` workers
//! woken through a preallocated channel, plus the caller, claim chunks in
//! turn. The body shares the kernel's state through `Arc`s and writes its
//! results in place.
//!
//! Invariants: a run returns only once every chunk has run and the body is
//! dropped, so the `Arc`s it held are released and what it wrote is
//! visible. Cost per run: nothing allocated on either backend (on a rayon
//! worker: see `harness::on_pool_worker`); one allocation per engine on
//! pipes (its `par::Loop`). [`Backend`] itself lives in `par`; this helper
//! stays here because only the kernels' engines use it.

use crate::Backend;
use par::LoopBody;
use rayon::prelude::*;

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
