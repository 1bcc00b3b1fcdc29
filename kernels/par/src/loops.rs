//! `Loop`: a parallel loop over the chunks of `0..len`, made once and run
//! many times, allocating nothing per run.
//!
//! [`map_ranges`](crate::map_ranges) spawns a future per chunk: a boxed job
//! and a pipe each (three allocations), plus the vector of futures: fine
//! for a few dozen tasks a search, but a search that promises to allocate
//! nothing (dobfs, delta-stepping) cannot use it.
//! A `Loop` is the reused task object instead:
//!
//! - its state (the body of the current run, a chunk counter, the combined
//!   result) lives in one `Arc`, allocated by [`Loop::new`];
//! - [`Loop::run`] publishes the body, wakes up to `threads - 1` workers of
//!   the pool by sending each a clone of that `Arc` on the pool's
//!   preallocated wake-up channel, and works on the loop itself: the
//!   caller is the first participant, so `T` workers' worth of threads
//!   run it (`T - 1` woken workers and the caller), as rayon's `T` do;
//! - participants claim chunks in turn, a shrinking share of what is
//!   left at a time (guided scheduling: one atomic add a claim, the last
//!   claims single chunks), so uneven chunks balance themselves; each
//!   makes its scratch ([`LoopBody::local`]) once per run, folds its chunks' values with
//!   [`LoopBody::reduce`], and adds its partial value to the loop's under
//!   a lock, once;
//! - the caller, out of chunks, waits (yielding) for the participants still
//!   inside, then takes the body back out (dropping what it holds, such as
//!   its `Arc`s of the kernel's shared state) and the combined value.
//!
//! The body is `'static`: what it shares with the workers it holds through
//! `Arc`s, as every `par` task does. Per run: one lock to publish, `T - 1`
//! channel sends, an atomic add per claim (`O(T log chunks)` claims), one
//! lock per participant, one to take the body back; no allocation once the pool's channels have
//! registered their waiters (the first runs).
//!
//! The partial values are combined in the order participants finish, so
//! [`LoopBody::reduce`] must be associative and commutative for the result
//! not to depend on timing (sums, maxima).

use crate::{Pool, TaskError};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// The body of a [`Loop`]: what each chunk of `0..len` does.
pub trait LoopBody: Send + Sync + 'static {
    /// A participant's scratch, made once per participant and run (a
    /// kernel's buffer of discoveries); it may borrow the body.
    type Local<'a>
    where
        Self: 'a;
    /// A chunk's value, combined by [`LoopBody::reduce`].
    type Out: Send + 'static;
    /// A fresh scratch, for a participant's first chunk.
    fn local(&self) -> Self::Local<'_>;
    /// Runs the chunk `range` (a sub-range of `0..len`) with `local`.
    fn chunk<'a>(&'a self, local: &mut Self::Local<'a>, range: Range<usize>) -> Self::Out;
    /// Combines two values; must be associative and commutative.
    fn reduce(&self, a: Self::Out, b: Self::Out) -> Self::Out;
}

/// What a worker does with a wake-up: joins the loop, if it still runs.
pub(crate) trait Participant: Send + Sync {
    /// Claims and runs chunks until none is left.
    fn participate(&self);
}

/// One run's body and shape.
struct Run<B> {
    body: B,
    len: usize,
    chunk_len: usize,
    /// How many threads are asked to take part (the caller and the woken
    /// workers): sizes the claims.
    participants: usize,
}

/// A loop's state, shared with the workers it wakes.
struct State<B: LoopBody> {
    /// The current run; participants hold the read lock while inside.
    run: RwLock<Option<Run<B>>>,
    /// The next chunk to claim.
    next: AtomicUsize,
    /// Participants inside the current run.
    inside: AtomicUsize,
    /// The combined value of the chunks run so far.
    out: Mutex<Option<B::Out>>,
    /// The message of the first panic in a chunk.
    failure: Mutex<Option<String>>,
}

/// A reusable parallel loop on a [`Pool`]; see the module documentation.
pub struct Loop<B: LoopBody> {
    state: Arc<State<B>>,
}

impl<B: LoopBody> std::fmt::Debug for Loop<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loop").finish_non_exhaustive()
    }
}

impl<B: LoopBody> Default for Loop<B> {
    fn default() -> Self {
        Loop::new()
    }
}

impl<B: LoopBody> Loop<B> {
    /// A loop with no run yet. One allocation (its shared state).
    pub fn new() -> Self {
        Loop {
            state: Arc::new(State {
                run: RwLock::new(None),
                next: AtomicUsize::new(0),
                inside: AtomicUsize::new(0),
                out: Mutex::new(None),
                failure: Mutex::new(None),
            }),
        }
    }

    /// Runs `body` over `0..len` in chunks of `chunk_len` (the last may be
    /// shorter) on `pool`'s workers and the calling thread; returns the
    /// chunks' values combined by [`LoopBody::reduce`] (`None` if `len` is
    /// 0), or the first panic of a chunk. Returns only once no participant
    /// is inside and `body` is dropped, so whatever the chunks wrote is
    /// visible to the caller and the `Arc`s the body held are released.
    /// Allocates nothing. Panics if `chunk_len` is 0.
    pub fn run(
        &mut self,
        pool: &Pool,
        body: B,
        len: usize,
        chunk_len: usize,
    ) -> Result<Option<B::Out>, TaskError> {
        assert!(chunk_len > 0, "chunks need at least one element");
        let state = &self.state;
        let chunks = len.div_ceil(chunk_len);
        let helpers = pool
            .threads()
            .saturating_sub(1)
            .min(chunks.saturating_sub(1));
        {
            // Waits for stragglers of the last run (woken too late to find
            // a chunk) to leave.
            let mut run = state.run.write().unwrap_or_else(PoisonError::into_inner);
            state.next.store(0, Ordering::Relaxed);
            *lock(&state.out) = None;
            *lock(&state.failure) = None;
            *run = Some(Run {
                body,
                len,
                chunk_len,
                participants: helpers + 1,
            });
        }
        for _ in 0..helpers {
            pool.wake(Arc::clone(state) as Arc<dyn Participant>);
        }
        state.participate();
        while state.inside.load(Ordering::Acquire) != 0 {
            std::thread::yield_now();
        }
        let run = state
            .run
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(run);
        match lock(&state.failure).take() {
            Some(message) => Err(TaskError::Panicked { message }),
            None => Ok(lock(&state.out).take()),
        }
    }
}

impl<B: LoopBody> State<B> {
    /// The next chunks for one participant, `None` when none is left.
    /// Guided claims: a share of what is left, `left / (2 participants)`
    /// chunks but at least one, so a loop of `c` chunks costs
    /// `O(participants log c)` claims (each an atomic add on the line all
    /// participants share) and its last claims are single chunks, which
    /// keeps the participants' finishing times within a chunk of each
    /// other (measured against one chunk a claim:
    /// docs/history-kernels.md#par-loops).
    fn claim(&self, chunks: usize, participants: usize) -> Option<Range<usize>> {
        let left = chunks.saturating_sub(self.next.load(Ordering::Relaxed));
        let take = (left / (2 * participants)).max(1);
        let first = self.next.fetch_add(take, Ordering::Relaxed);
        (first < chunks).then(|| first..(first + take).min(chunks))
    }
}

impl<B: LoopBody> Participant for State<B> {
    fn participate(&self) {
        let run = self.run.read().unwrap_or_else(PoisonError::into_inner);
        let Some(Run {
            body,
            len,
            chunk_len,
            participants,
        }) = run.as_ref()
        else {
            return; // woken after the run ended
        };
        self.inside.fetch_add(1, Ordering::AcqRel);
        let mine = catch_unwind(AssertUnwindSafe(|| {
            let mut local = None;
            let mut mine: Option<B::Out> = None;
            let chunks = len.div_ceil(*chunk_len);
            while let Some(claim) = self.claim(chunks, *participants) {
                for chunk in claim {
                    let start = chunk * chunk_len;
                    let local = local.get_or_insert_with(|| body.local());
                    let out = body.chunk(local, start..(start + chunk_len).min(*len));
                    mine = Some(match mine {
                        Some(so_far) => body.reduce(so_far, out),
                        None => out,
                    });
                }
            }
            mine
        }));
        match mine {
            Ok(Some(mine)) => {
                let mut out = lock(&self.out);
                *out = Some(match out.take() {
                    Some(so_far) => body.reduce(so_far, mine),
                    None => mine,
                });
            }
            Ok(None) => {}
            Err(payload) => {
                lock(&self.failure).get_or_insert_with(|| crate::future::panic_message(&*payload));
            }
        }
        self.inside.fetch_sub(1, Ordering::AcqRel);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Sums `values[range]` and counts the chunk's participant's scratch.
    struct Sum {
        values: Arc<Vec<u64>>,
        locals: Arc<AtomicU64>,
    }

    impl LoopBody for Sum {
        type Local<'a> = ();
        type Out = u64;
        fn local(&self) {
            self.locals.fetch_add(1, Ordering::Relaxed);
        }
        fn chunk(&self, (): &mut (), range: Range<usize>) -> u64 {
            self.values[range].iter().sum()
        }
        fn reduce(&self, a: u64, b: u64) -> u64 {
            a + b
        }
    }

    #[test]
    fn runs_cover_every_chunk_once_for_any_shape() {
        let values: Arc<Vec<u64>> = Arc::new((1..=1000).collect());
        let locals = Arc::new(AtomicU64::new(0));
        for threads in [1, 2, 3] {
            let pool = Pool::new(threads);
            let mut sum = Loop::new();
            for (len, chunk_len) in [(1000, 7), (1000, 1000), (1000, 5000), (999, 1), (0, 3)] {
                let body = Sum {
                    values: Arc::clone(&values),
                    locals: Arc::clone(&locals),
                };
                let want = values[..len].iter().sum::<u64>();
                let got = sum.run(&pool, body, len, chunk_len).unwrap();
                assert_eq!(
                    got,
                    (len > 0).then_some(want),
                    "{threads} {len} {chunk_len}"
                );
            }
        }
        // Every body was dropped by its run: only ours holds the values.
        assert_eq!(Arc::strong_count(&values), 1);
        assert!(locals.load(Ordering::Relaxed) > 0);
    }

    /// Guards the guided claims: they cover every chunk once, in ranges,
    /// with a few dozen atomic adds where one a chunk took 4096.
    #[test]
    fn claims_cover_every_chunk_once_in_few_adds() {
        for (chunks, participants) in [(4096, 2), (4096, 1), (7, 3), (1, 2), (100_000, 8)] {
            let sum: Loop<Sum> = Loop::new();
            let mut seen = vec![false; chunks];
            let mut claims = 0;
            while let Some(claim) = sum.state.claim(chunks, participants) {
                claims += 1;
                for c in claim {
                    assert!(!seen[c], "chunk {c} claimed twice");
                    seen[c] = true;
                }
            }
            assert!(seen.iter().all(|&s| s), "{chunks} {participants}");
            let bound = 4 * participants * (chunks.ilog2() as usize + 2);
            assert!(claims <= bound, "{claims} claims for {chunks} chunks");
        }
    }

    struct Cursed;

    impl LoopBody for Cursed {
        type Local<'a> = ();
        type Out = ();
        fn local(&self) {}
        fn chunk(&self, (): &mut (), range: Range<usize>) {
            assert!(!range.contains(&57), "chunk 57 is cursed");
        }
        fn reduce(&self, (): (), (): ()) {}
    }

    #[test]
    fn a_panic_in_a_chunk_is_an_error_and_the_loop_runs_again() {
        let pool = Pool::new(2);
        let mut cursed = Loop::new();
        match cursed.run(&pool, Cursed, 100, 1) {
            Err(TaskError::Panicked { message }) => assert!(message.contains("cursed")),
            other => panic!("expected a panic error, got {other:?}"),
        }
        assert_eq!(cursed.run(&pool, Cursed, 50, 1), Ok(Some(())));
    }
}
