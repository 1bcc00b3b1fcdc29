//! `Crew`: a parallel region over many runs of one [`Loop`](crate::Loop), after GAPBS's
//! `#pragma omp parallel` around its whole bucket loop: the helper threads
//! are started once for the region, not woken once per run, and wait
//! between runs (spinning, then yielding: [`Backoff`]) for the next one.
//!
//! The region's caller leads: it does the serial work between runs (a
//! search's gathers and choices, all on one thread, so every decision is
//! made once) and publishes each run ([`Loop::run_in_region`](crate::Loop::run_in_region)); a helper
//! that sees a new run joins it, claims chunks from its atomic counter
//! with the caller, and goes back to waiting. The caller then waits for
//! the helpers still inside the run, as [`Loop::run`](crate::Loop::run) does: the barrier
//! between runs.
//!
//! Invariants:
//! - nobody waits for a helper that has not joined: the caller waits only
//!   for the participants inside the current run, which are running its
//!   chunks, and a helper started late (its core busy, its thread
//!   descheduled, the pool running another region) just joins a later run
//!   or none. So a region cannot deadlock, also with several regions on
//!   one pool (concurrent tests), and every chunk runs once, on the caller
//!   if no helper came;
//! - [`Crew::region`] returns only once the region is closed and, on rayon,
//!   every helper it spawned has returned; on pipes a woken helper leaves at
//!   the next look at the closed region (it holds the loop's state, an
//!   `Arc`, never the caller's borrows);
//! - a region allocates nothing on pipes (wake-ups through the pool's
//!   preallocated channel) and, on rayon, what `rayon::scope` allocates
//!   for its `T - 1` spawns, once per region.
//!
//! Cost: helpers busy-wait (a microsecond of spinning, then `yield_now`)
//! through the caller's serial work, as OpenMP threads do at a barrier.

use crate::loops::State;
use crate::{Backend, Backoff, LoopBody};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The helpers' handle on a [`Loop`](crate::Loop) ([`Loop::crew`](crate::Loop::crew)), for
/// [`Crew::region`].
pub struct Crew<B: LoopBody> {
    state: Arc<State<B>>,
}

impl<B: LoopBody> std::fmt::Debug for Crew<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crew").finish_non_exhaustive()
    }
}

/// Closes the region when dropped, also when the caller's work unwinds,
/// so that no helper waits on forever.
struct Close<'a>(&'a AtomicBool);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl<B: LoopBody> Crew<B> {
    pub(crate) fn new(state: Arc<State<B>>) -> Self {
        Crew { state }
    }

    /// Runs `lead` on the calling thread (on rayon, on a worker of the
    /// current pool) with the loop's runs shared by up to `threads - 1`
    /// helpers of `backend`'s current pool, started now and kept until
    /// `lead` returns (`threads` is the backend's). Inside `lead`, the
    /// loop's runs ([`Loop::run`](crate::Loop::run), [`Loop::run_in_region`](crate::Loop::run_in_region)) wake nobody.
    /// Not to be nested on one loop.
    pub fn region<R: Send>(&self, backend: Backend, lead: impl FnOnce() -> R + Send) -> R {
        let state = &*self.state;
        let threads = backend.threads().max(1);
        match backend {
            Backend::Rayon => rayon::scope(|s| {
                let close = self.open(threads);
                for _ in 1..threads {
                    s.spawn(|_| state.stay());
                }
                let out = lead();
                drop(close);
                out
            }),
            Backend::Pipes => crate::with_current(|pool| {
                let _close = self.open(threads);
                for _ in 1..threads {
                    pool.wake(Arc::clone(&self.state) as crate::pool::Wake);
                }
                lead()
            }),
        }
    }

    /// Opens the region for `threads` threads, caller included.
    fn open(&self, threads: usize) -> Close<'_> {
        self.state.region.crew.store(threads, Ordering::Relaxed);
        self.state.region.open.store(true, Ordering::Release);
        Close(&self.state.region.open)
    }
}

impl<B: LoopBody> State<B> {
    /// A region's helper: joins the current run and each run published
    /// after it, until the region closes.
    pub(crate) fn stay(&self) {
        let mut seen = self.region.epoch.load(Ordering::Acquire);
        loop {
            self.join_run();
            let mut backoff = Backoff::default();
            loop {
                if !self.region.open.load(Ordering::Acquire) {
                    return;
                }
                let now = self.region.epoch.load(Ordering::Acquire);
                if now != seen {
                    seen = now;
                    break;
                }
                backoff.snooze();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Loop;
    use std::ops::Range;
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    /// Counts each index it runs, sleeping now and then (a participant
    /// descheduled inside a run) for a pseudo-random few microseconds.
    struct Count {
        seen: Arc<Vec<AtomicU32>>,
        round: u32,
    }

    impl LoopBody for Count {
        type Local<'a> = ();
        type Out = u64;
        fn local(&self) {}
        fn chunk(&self, (): &mut (), range: Range<usize>) -> u64 {
            let h = (range.start as u64 + u64::from(self.round) * 7919)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                >> 58;
            if h < 3 {
                std::thread::sleep(Duration::from_micros(h * 20 + 1));
            }
            for i in range.clone() {
                self.seen[i].fetch_add(1, Ordering::Relaxed);
            }
            range.len() as u64
        }
        fn reduce(&self, a: u64, b: u64) -> u64 {
            a + b
        }
    }

    /// Runs `rounds` runs of various shapes inside one region of
    /// `backend`; checks every index ran once a run.
    fn rounds_in_a_region(backend: Backend, rounds: u32) {
        let seen: Arc<Vec<AtomicU32>> = Arc::new((0..500).map(|_| AtomicU32::new(0)).collect());
        let mut lp = Loop::new();
        let crew = lp.crew();
        let mut want = vec![0u32; 500];
        crew.region(backend, || {
            assert!(lp.in_region());
            for round in 0..rounds {
                let (len, chunk_len) =
                    [(500, 7), (3, 1), (0, 4), (499, 256), (1, 1)][round as usize % 5];
                let body = Count {
                    seen: Arc::clone(&seen),
                    round,
                };
                let got = lp.run_in_region(body, len, chunk_len).unwrap();
                assert_eq!(got, (len > 0).then_some(len as u64), "round {round}");
                want[..len].iter_mut().for_each(|w| *w += 1);
                // Sometimes the caller is the late one.
                if round % 17 == 0 {
                    std::thread::sleep(Duration::from_micros(30));
                }
            }
        });
        assert!(!lp.in_region());
        let got: Vec<u32> = seen.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        assert_eq!(got, want, "{}", backend.name());
    }

    /// Guards the region's barrier: many runs with participants that
    /// sleep at random, on 1 to 3 threads of both backends, end (no
    /// deadlock) with every chunk run exactly once a run, and the bodies
    /// released.
    #[test]
    fn many_runs_with_threads_that_sleep_at_random_lose_no_chunk_and_end() {
        for threads in [1, 2, 3] {
            crate::in_pool(threads, || {
                crate::with_pool(threads, || {
                    for backend in Backend::ALL {
                        rounds_in_a_region(backend, 300);
                    }
                })
            })
            .unwrap();
        }
    }

    /// Guards against a barrier that waits for every thread of the pool:
    /// two regions at once on one 2-thread pool (each one's helpers busy
    /// in the other) both finish.
    #[test]
    fn two_regions_at_once_on_one_pool_both_finish() {
        crate::in_pool(2, || {
            rayon::join(
                || rounds_in_a_region(Backend::Rayon, 200),
                || rounds_in_a_region(Backend::Rayon, 200),
            )
        })
        .unwrap();
        // Two callers on the global pool of pipes.
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| rounds_in_a_region(Backend::Pipes, 200));
            }
        });
    }

    /// Guards the region's close on unwinding: a panic in the caller's work
    /// comes back as a panic, and no helper is left waiting (the region
    /// ends, the loop runs again).
    #[test]
    fn a_panic_in_the_region_closes_it() {
        crate::in_pool(2, || {
            for backend in Backend::ALL {
                let mut lp: Loop<Count> = Loop::new();
                let crew = lp.crew();
                let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crew.region(backend, || panic!("the lead fails"))
                }));
                assert!(out.is_err());
                assert!(!lp.in_region());
                let seen = Arc::new(vec![AtomicU32::new(0)]);
                let body = Count { seen, round: 0 };
                let again = crew.region(backend, || lp.run_in_region(body, 1, 1));
                assert_eq!(again, Ok(Some(1)));
            }
        })
        .unwrap();
    }
}
