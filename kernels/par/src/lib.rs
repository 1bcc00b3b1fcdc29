//! `par`: the parallel machinery under every graph500 crate. Its own crate
//! under `kernels/` (as rayon-core sits under rayon); `kernels` re-exports it
//! as `kernels::par`.
//!
//! The runtime of futures and one-shot pipes, the design of the first Rust
//! Graph500 BFS (`--backend pipes`):
//!
//! - [`pipe`]: one value, sent once ([`Sender`]), received once
//!   ([`Receiver`]); a sender dropped unsent reads as [`Closed`], never as a
//!   hang.
//! - [`Pool`]: persistent worker threads that run boxed jobs from one
//!   shared queue; [`spawn`] runs a closure on it and hands back a
//!   [`Future`], whose [`Future::get`] returns the value through its pipe
//!   (a panic comes back as [`TaskError::Panicked`]). A worker waiting on a
//!   future runs queued jobs meanwhile, so futures that wait on futures
//!   cannot starve the pool; any other thread just waits, so `T` workers
//!   are `T` threads at work.
//! - [`map`](fn@map), [`map_ranges`], [`map_chunks`]: a future per chunk, the
//!   results in input order.
//! - [`Loop`]: the reused task object for loops that must not allocate
//!   (the searches of `dobfs` and delta-stepping on pipes): each run wakes
//!   workers through a preallocated channel, and the participants claim
//!   chunks of `0..len` and fold a [`LoopBody`]'s values.
//! - [`scoped_for_each`], [`scoped_map`]: loops over items that borrow
//!   from the caller (kernel 1's passes), on threads started for the call.
//! - [`with_pool`], [`with_current`], [`current_worker`]: which pool a
//!   thread's futures, maps and loops run on, and a worker's index in it.
//! - [`Backend`]: what runs a kernel's parallel loops, rayon or this
//!   crate's pool, for every crate that has such loops (kernels, dist).
//!
//! Invariant: tasks are `'static`, so what they share is moved in; the BFS
//! on `par` shares its graph through an `Arc` rather than copying it (see
//! `graph500 profile`). Cost: a future is three allocations (a boxed job and
//! a pipe); a [`Loop`] run allocates nothing.
//!
//! And the helpers for loops over big arrays (the generator's, kernel 1's
//! and the validator's): [`first_index`], a parallel scan whose answer does
//! not depend on the thread count; [`hint::prefetch`] and
//! [`hint::LineWriter`], cache hints; [`huge::filled`] and
//! [`huge::advise_inside`], big arrays on huge pages or mapped ahead of
//! their writes; [`in_pool`], a rayon pool of a given size (for tests that
//! compare thread counts).

mod backend;
mod future;
pub mod hint;
pub mod huge;
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
