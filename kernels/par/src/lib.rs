//! `par`: the parallel machinery under every graph500 crate. Its own crate
//! under `kernels/` (as rayon-core sits under rayon); `kernels` re-exports it
//! as `kernels::par`.
//!
//! The runtime of futures and one-shot pipes, the design of the first Rust
//! Graph500 BFS (`--backend pipes`):
//!
//! - [`pipe`]: a one-shot pipe over crossbeam-channel. The [`Sender`] sends
//!   exactly one value (`send` consumes it), the [`Receiver`] receives it
//!   once (`recv` consumes it); a sender dropped without sending closes the
//!   pipe, which the receiver sees as [`Closed`], never as a hang. An atomic
//!   pipe (one allocation instead of two) was measured inside the BFS and
//!   gained nothing there; the `par_primitives` bench keeps it to compare.
//! - [`Pool`]: persistent worker threads (reused across calls) that run
//!   boxed jobs from one shared queue.
//! - [`Future`]: [`spawn`] runs a closure on the pool and hands back a
//!   future; [`Future::get`] returns the closure's value through its pipe. A
//!   panic in the closure reaches `get` as [`TaskError::Panicked`], not as a
//!   deadlock or an abort. A worker that waits on a future runs the pool's
//!   queued jobs meanwhile, so futures that wait on futures cannot starve
//!   the pool; a thread outside the pool just waits, so `T` workers are `T`
//!   threads at work.
//! - [`map`], [`map_ranges`], [`map_chunks`]: split work into chunks, spawn
//!   a future per chunk, return the results in input order.
//! - [`Loop`]: the reused task object for loops that must not allocate (the
//!   searches of `dobfs` and delta-stepping on `--backend pipes`): made
//!   once, then each run wakes the pool's workers through a preallocated
//!   channel, participants claim chunks of `0..len` in turn and fold a
//!   [`LoopBody`]'s values. No boxed job, no pipe, nothing allocated.
//! - [`scoped_for_each`], [`scoped_map`]: loops over items that borrow from
//!   the caller (kernel 1's passes), on threads started for the call.
//! - [`with_pool`], [`with_current`]: which pool a thread's futures, maps
//!   and loops run on (one that [`with_pool`] installed, else the pool of
//!   the worker asking, else the global one);
//!   [`current_worker`]: a worker's index in its pool.
//!
//! Tasks are `'static`: what they share must be moved in, which is why the
//! BFS that runs on `par` shares its graph through an `Arc` rather than
//! copying it (see `graph500 profile`).
//!
//! And the two helpers that the parallel loops over big arrays share (the
//! generator's, kernel 1's and the validator's):
//!
//! - [`first_index`]: the lowest index matching a predicate, scanned in
//!   parallel on rayon; the answer does not depend on the thread count.
//! - [`hint::prefetch`]: a cache prefetch hint for random-access loops;
//!   [`hint::LineWriter`]: whole cache lines written past the caches.
//! - [`in_pool`]: run a closure on a rayon pool of a given size (for the
//!   tests that compare thread counts).
//!
//! [`Backend`] names what runs a kernel's parallel loops, rayon or this
//! crate's pool, for every crate that has such loops (kernels, dist).

mod backend;
mod future;
pub mod hint;
mod loops;
mod map;
pub mod pipe;
mod pool;
mod scan;
mod scoped;
mod threads;

pub use backend::Backend;
pub use future::{Future, TaskError, spawn};
pub use loops::{Loop, LoopBody};
pub use map::{map, map_chunks, map_ranges};
pub use pipe::{Closed, Receiver, Sender};
pub use pool::{
    Pool, current_size, current_worker, global, global_size, init_global, with_current, with_pool,
};
pub use scan::first_index;
pub use scoped::{scoped_for_each, scoped_map};
pub use threads::in_pool;
