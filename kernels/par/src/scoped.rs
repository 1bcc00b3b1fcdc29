//! `scoped_for_each` and `scoped_map`: parallel loops over items that
//! borrow from the caller, on threads started for the call.
//!
//! The pool's tasks are `'static` (they share through `Arc`s), and running
//! borrowed work on its persistent workers would take `unsafe` code to
//! erase the borrow's lifetime. Kernel 1 cannot share its inputs through
//! `Arc`s without copying them: it reads the caller's tuples (possibly a
//! mapped file) and writes the rows through `&mut` slices, the only way it
//! can stream whole cache lines past the caches (`csr.rs`). So its passes
//! run on `std::thread::scope` instead: `threads - 1` threads started for
//! the call, and the calling thread, claim the items in turn (one atomic
//! add an item). Cost per call: starting and joining those threads, some
//! tens of microseconds each; kernel 1 makes a handful of calls, each over
//! milliseconds of work. Not for loops inside a search: those use
//! [`Loop`](crate::Loop).
//!
//! A panic in `body` reaches the caller once every thread has stopped (as
//! `std::thread::scope` does).

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

/// Runs `body(&mut local, item)` for every item on `threads` threads (the
/// caller and `threads - 1` started for the call; no more than the items),
/// each making its `local` once with `init`. Items are claimed in order,
/// one at a time. Allocates a slot per item and the threads.
pub fn scoped_for_each<T, L>(
    threads: usize,
    items: Vec<T>,
    init: impl Fn() -> L + Sync,
    body: impl Fn(&mut L, T) + Sync,
) where
    T: Send,
{
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|x| Mutex::new(Some(x))).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut local = None;
        while let Some(slot) = slots.get(next.fetch_add(1, Relaxed)) {
            let item = slot
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .expect("each item is claimed once");
            body(local.get_or_insert_with(&init), item);
        }
    };
    let helpers = threads.min(slots.len()).saturating_sub(1);
    std::thread::scope(|scope| {
        for i in 0..helpers {
            std::thread::Builder::new()
                .name(format!("par-scoped-{i}"))
                .spawn_scoped(scope, work)
                .expect("the OS starts a thread");
        }
        work();
    });
}

/// `f(item)` for every item, on `threads` threads as [`scoped_for_each`];
/// the values in item order.
pub fn scoped_map<T, R>(threads: usize, items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R>
where
    T: Send,
    R: Send,
{
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let indexed: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    scoped_for_each(
        threads,
        indexed,
        || (),
        |(), (i, item)| {
            *results[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(f(item));
        },
    );
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .expect("every item ran")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_may_borrow_and_results_keep_their_order() {
        let data: Vec<u64> = (0..1000).collect();
        let mut out = vec![0u64; 1000];
        for threads in [1, 2, 5] {
            let pieces: Vec<(&[u64], &mut [u64])> =
                data.chunks(37).zip(out.chunks_mut(37)).collect();
            scoped_for_each(
                threads,
                pieces,
                || 0u64,
                |calls, (from, to)| {
                    *calls += 1;
                    for (t, f) in to.iter_mut().zip(from) {
                        *t = f * 2;
                    }
                },
            );
            assert!(out.iter().zip(&data).all(|(o, d)| *o == 2 * d));
            let sums = scoped_map(threads, data.chunks(100).collect(), |c| {
                c.iter().sum::<u64>()
            });
            let want: Vec<u64> = data.chunks(100).map(|c| c.iter().sum()).collect();
            assert_eq!(sums, want);
        }
        assert!(scoped_map(3, Vec::<u8>::new(), |x| x).is_empty());
    }
}
