//! Per-thread shares of a parallel loop's buffers, kept from loop to loop:
//! a loop's tasks each take a share for their work ([`claim`]) and push
//! into its vectors, and the caller gathers the shares once the loop is
//! done. A rank's steps and phases so allocate nothing once the vectors
//! have grown to what they hold (rayon's `for_each_init` would make a new
//! local per split, and a `map` a new vector per task).
//!
//! Invariant: a loop has a share per thread of its backend
//! ([`par::Backend::threads`]), so a task always finds one free.

use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// A share for the calling thread for the rest of one loop's work on it:
/// the first share no other thread holds. There is a share per thread of
/// the backend and a thread holds at most one at a time (rayon makes a
/// split's local, and drops it, before the thread takes other work; a
/// thread of `par`'s makes one for the whole loop), so one is free; the
/// loop retries only while a thread that just finished lets go of its.
pub(crate) fn claim<T>(shares: &[Mutex<T>]) -> MutexGuard<'_, T> {
    loop {
        for share in shares {
            match share.try_lock() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        std::thread::yield_now();
    }
}

/// `share` locked, also if a panicking thread held it.
pub(crate) fn lock<T>(share: &Mutex<T>) -> MutexGuard<'_, T> {
    share.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes `shares` one per thread of a loop on `threads` threads, each
/// new one `make()`; keeps them (and their vectors' memory) if there are
/// that many already.
pub(crate) fn one_per_thread<T>(
    shares: &mut Vec<Mutex<T>>,
    threads: usize,
    mut make: impl FnMut() -> T,
) {
    if shares.len() != threads {
        *shares = (0..threads).map(|_| Mutex::new(make())).collect();
    }
}

/// Each of `shares`, reached through `&mut` (no locking): for the caller
/// gathering what a loop left in them.
pub(crate) fn each_mut<T>(shares: &mut [Mutex<T>]) -> impl Iterator<Item = &mut T> {
    shares
        .iter_mut()
        .map(|share| share.get_mut().unwrap_or_else(PoisonError::into_inner))
}
