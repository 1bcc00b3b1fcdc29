//! One-shot pipes on atomics: one allocation per pipe, no channel machinery.
//!
//! A shared `Slot` holds the value and a state word:
//!
//! ```text
//! EMPTY --send--> FULL --recv--> TAKEN
//!   \--sender dropped unsent--> CLOSED
//! ```
//!
//! The sender writes the value, then publishes `FULL`; the receiver reads the
//! value only after it has seen `FULL`, so the two never touch the value at
//! the same time. A receiver first spins briefly, then registers its thread
//! and parks; the sender unparks a registered receiver after publishing. Both
//! sides use sequentially consistent operations on `state` and `waiting`, so
//! either the receiver sees the new state before parking or the sender sees
//! the registration and unparks it (no lost wake-up). A timed wait that gives
//! up leaves its registration behind: the sender's unpark then finds a thread
//! that is no longer waiting (a spurious wake-up, which every `park` loop
//! allows) or one that waits again and has registered anew.
//!
//! Same contract as [`crate::pipe`]: `send` and `recv` consume their ends, a
//! sender dropped unsent closes the pipe, receiving then fails with
//! [`Closed`].

#![allow(unsafe_code)] // the slot below; each block states its argument

use crate::Closed;
use std::mem::MaybeUninit;
use std::sync::PoisonError;
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};
use sync::{Arc, AtomicBool, AtomicU8, Mutex, Thread, UnsafeCell, park_timeout, spin_loop, thread};

/// The primitives of the pipe: std's, or under `RUSTFLAGS="--cfg loom"` the
/// model checker's, so that the same code is what loom verifies.
#[cfg(not(loom))]
mod sync {
    pub(super) use std::hint::spin_loop;
    pub(super) use std::sync::atomic::{AtomicBool, AtomicU8};
    pub(super) use std::sync::{Arc, Mutex};
    pub(super) use std::thread::{self, Thread, park_timeout};

    /// `std::cell::UnsafeCell` with loom's closure-based API.
    pub(super) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(super) const fn new(value: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        pub(super) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        pub(super) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

#[cfg(loom)]
mod sync {
    pub(super) use loom::cell::UnsafeCell;
    pub(super) use loom::hint::spin_loop;
    pub(super) use loom::sync::atomic::{AtomicBool, AtomicU8};
    pub(super) use loom::sync::{Arc, Mutex};
    pub(super) use loom::thread::{self, Thread};

    /// loom has no timed park. A timed park may return early anyway, so a
    /// yield is a valid one (the models use a zero timeout, which never
    /// parks, so that time cannot change what loom explores).
    pub(super) fn park_timeout(_: std::time::Duration) {
        thread::yield_now();
    }
}

const EMPTY: u8 = 0;
const FULL: u8 = 1;
const CLOSED: u8 = 2;
const TAKEN: u8 = 3;

/// Spins, then yields, before parking: a reply from another core usually
/// arrives sooner than a park and unpark round trip, and yielding lets the
/// sender run when both share a core.
#[cfg(not(loom))]
const SPINS: u32 = 64;
#[cfg(not(loom))]
const YIELDS: u32 = 16;
// Under loom every spin is a branch to explore: one of each keeps both code
// paths in the model without blowing it up.
#[cfg(loom)]
const SPINS: u32 = 1;
#[cfg(loom)]
const YIELDS: u32 = 1;

/// What both ends share.
struct Slot<T> {
    state: AtomicU8,
    waiting: AtomicBool,
    waiter: Mutex<Option<Thread>>,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: `value` is written by the sender before `state` becomes FULL and
// read by the receiver only after it observes FULL (see the module
// documentation), so no two threads access it at once; everything else in
// the slot is already `Sync`. `T: Send` because the value changes threads.
unsafe impl<T: Send> Sync for Slot<T> {}

impl<T> Slot<T> {
    fn wake(&self) {
        if self.waiting.load(SeqCst) {
            let waiter = self
                .waiter
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(thread) = waiter {
                thread.unpark();
            }
        }
    }
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if self.state.load(SeqCst) == FULL {
            // SAFETY: FULL means written and never taken; we are the last
            // owner (`&mut self`), so dropping it here happens exactly once.
            self.value
                .with_mut(|value| unsafe { (*value).assume_init_drop() });
        }
    }
}

/// The sending end; [`send`](Sender::send) consumes it.
pub struct Sender<T> {
    slot: Arc<Slot<T>>,
}

/// The receiving end; [`recv`](Receiver::recv) consumes it.
pub struct Receiver<T> {
    slot: Arc<Slot<T>>,
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

/// A new one-shot pipe: one allocation.
pub fn pipe<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Slot {
        state: AtomicU8::new(EMPTY),
        waiting: AtomicBool::new(false),
        waiter: Mutex::new(None),
        value: UnsafeCell::new(MaybeUninit::uninit()),
    });
    (
        Sender {
            slot: Arc::clone(&slot),
        },
        Receiver { slot },
    )
}

impl<T> Sender<T> {
    /// Sends the value; never blocks. Dropped unseen if the receiver is gone.
    pub fn send(self, value: T) {
        // SAFETY: only a sender writes, and `send` consumes the only sender,
        // so this is the one write; the state is still EMPTY, so the
        // receiver is not reading.
        self.slot
            .value
            .with_mut(|slot| unsafe { (*slot).write(value) });
        self.slot.state.store(FULL, SeqCst);
        self.slot.wake();
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // Only an unsent pipe closes; after `send` the state is FULL or TAKEN.
        if self
            .slot
            .state
            .compare_exchange(EMPTY, CLOSED, SeqCst, SeqCst)
            .is_ok()
        {
            self.slot.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// Waits for the value; [`Closed`] if the sender was dropped unsent.
    pub fn recv(self) -> Result<T, Closed> {
        self.wait(None)
            .expect("a wait without a deadline ends with the value or Closed")
    }

    /// Waits at most `timeout` (spinning and yielding first, as
    /// [`recv`](Receiver::recv) does, even past a short timeout):
    /// `Ok(Ok(value))`, `Ok(Err(receiver))` on timeout (the receiver is given
    /// back to try again), or [`Closed`].
    pub fn recv_timeout(self, timeout: Duration) -> Result<Result<T, Self>, Closed> {
        match self.wait(Some(timeout)) {
            Some(result) => result.map(Ok),
            None => Ok(Err(self)),
        }
    }

    /// Takes the value if it is there, without waiting: `Ok(Ok(value))`,
    /// `Ok(Err(receiver))` if it is not there yet, or [`Closed`].
    pub fn try_recv(self) -> Result<Result<T, Self>, Closed> {
        match self.try_take() {
            Some(result) => result.map(Ok),
            None => Ok(Err(self)),
        }
    }

    /// Spins, yields, then registers and parks until the value or the close
    /// arrives, or until `timeout` has passed (`None`). A registration left
    /// behind by a timeout only costs the sender a spurious unpark later.
    fn wait(&self, timeout: Option<Duration>) -> Option<Result<T, Closed>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        for round in 0..SPINS + YIELDS {
            if let Some(result) = self.try_take() {
                return Some(result);
            }
            if round < SPINS {
                spin_loop();
            } else {
                thread::yield_now();
            }
        }
        *self
            .slot
            .waiter
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(thread::current());
        self.slot.waiting.store(true, SeqCst);
        loop {
            if let Some(result) = self.try_take() {
                return Some(result);
            }
            match deadline {
                None => thread::park(),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    park_timeout(left);
                }
            }
        }
    }

    fn try_take(&self) -> Option<Result<T, Closed>> {
        match self.slot.state.load(SeqCst) {
            FULL => {
                // SAFETY: FULL was stored after the value was written; this
                // receiver is the only reader, and a taken value ends its
                // use (the public methods consume it and give it back only
                // when nothing was taken), so the value is read once; TAKEN
                // keeps the slot from dropping it.
                let value = self
                    .slot
                    .value
                    .with(|slot| unsafe { (*slot).assume_init_read() });
                self.slot.state.store(TAKEN, SeqCst);
                Some(Ok(value))
            }
            CLOSED => Some(Err(Closed)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_value_crosses_threads_before_and_after_parking() {
        for delay_ms in [0, 20] {
            let (s, r) = pipe();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(delay_ms));
                s.send(vec![delay_ms; 3]);
            });
            assert_eq!(r.recv(), Ok(vec![delay_ms; 3]));
        }
    }

    #[test]
    fn a_sender_dropped_unsent_closes_the_pipe_and_wakes_the_receiver() {
        let (s, r) = pipe::<u8>();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            drop(s);
        });
        assert_eq!(r.recv(), Err(Closed));
    }

    /// Counts drops, to prove each sent value is dropped exactly once.
    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }

    #[test]
    fn values_are_dropped_once_whoever_holds_them_last() {
        let drops = AtomicUsize::new(0);
        let (s, r) = pipe();
        s.send(Counted(&drops));
        drop(r); // sent, never received: the slot drops it
        assert_eq!(drops.load(SeqCst), 1);
        let (s, r) = pipe();
        s.send(Counted(&drops));
        drop(r.recv().unwrap()); // received: the receiver's copy drops it
        assert_eq!(drops.load(SeqCst), 2);
        let (s, r) = pipe::<Counted<'_>>();
        drop(s);
        drop(r);
        assert_eq!(drops.load(SeqCst), 2);
    }

    #[test]
    fn try_recv_and_recv_timeout_give_the_receiver_back() {
        let (s, r) = pipe::<u8>();
        let r = r.try_recv().unwrap().unwrap_err();
        let r = r
            .recv_timeout(std::time::Duration::from_millis(1))
            .unwrap()
            .unwrap_err();
        s.send(7);
        assert_eq!(r.try_recv().unwrap().ok(), Some(7));
        let (s, r) = pipe::<u8>();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            s.send(8);
        });
        assert_eq!(
            r.recv_timeout(std::time::Duration::from_secs(5))
                .unwrap()
                .ok(),
            Some(8)
        );
        let (s, r) = pipe::<u8>();
        drop(s);
        assert_eq!(r.try_recv().err(), Some(Closed));
    }

    #[test]
    fn a_receiver_that_timed_out_still_gets_a_later_value() {
        // The timeout leaves the receiver registered as waiting; the value
        // sent afterwards must still arrive, whether or not it waits again.
        for wait_again in [false, true] {
            let (s, r) = pipe();
            let r = r
                .recv_timeout(std::time::Duration::from_millis(2))
                .unwrap()
                .unwrap_err();
            let sender = std::thread::spawn(move || s.send(String::from("late")));
            if !wait_again {
                sender.join().unwrap();
            }
            assert_eq!(r.recv(), Ok(String::from("late")));
        }
    }

    #[test]
    fn many_pipes_under_contention_lose_nothing() {
        let total: u64 = (0..2000u64)
            .map(|i| {
                let (s, r) = pipe();
                std::thread::spawn(move || s.send(i));
                r.recv().unwrap()
            })
            .sum();
        assert_eq!(total, 1999 * 2000 / 2);
    }
}

/// Model checks under `RUSTFLAGS="--cfg loom" cargo test -p graph500-par
/// --lib loom`: loom runs each body under every interleaving (and every
/// allowed reordering of the atomics) of its threads, to the end of every
/// thread, and reports any deadlock (a lost wake-up would be one).
///
/// The receiving thread never joins the sender: a receiver that registered
/// as waiting but then found the value may still get the sender's unpark
/// later, a spurious wake-up token that std's `park` semantics allow (every
/// `park` here is in a loop), but loom would deliver it to the `join` and
/// fail its own assertion.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::atomic::AtomicUsize;

    #[test]
    fn a_sent_value_is_received() {
        loom::model(|| {
            let (s, r) = pipe();
            thread::spawn(move || s.send(7u32));
            assert_eq!(r.recv(), Ok(7));
        });
    }

    #[test]
    fn a_sender_dropped_unsent_closes_the_pipe() {
        loom::model(|| {
            let (s, r) = pipe::<u32>();
            thread::spawn(move || drop(s));
            assert_eq!(r.recv(), Err(Closed));
        });
    }

    /// A wait that times out (zero: it registers, then gives up without
    /// parking, the same in every execution) leaves its registration
    /// behind; the next wait registers again and must still be woken.
    #[test]
    fn a_value_sent_around_a_timed_out_wait_is_received() {
        loom::model(|| {
            let (s, r) = pipe();
            thread::spawn(move || s.send(7u32));
            match r.recv_timeout(std::time::Duration::ZERO) {
                Ok(Ok(value)) => assert_eq!(value, 7),
                Ok(Err(r)) => assert_eq!(r.recv(), Ok(7)),
                Err(Closed) => panic!("the sender sends"),
            }
        });
    }

    #[test]
    fn try_recv_then_recv_gets_the_value_once() {
        loom::model(|| {
            let (s, r) = pipe();
            thread::spawn(move || s.send(7u32));
            match r.try_recv() {
                Ok(Ok(value)) => assert_eq!(value, 7),
                Ok(Err(r)) => assert_eq!(r.recv(), Ok(7)),
                Err(Closed) => panic!("the sender sends"),
            }
        });
    }

    #[test]
    fn a_sender_that_panics_closes_the_pipe() {
        loom::model(|| {
            let (s, r) = pipe::<u32>();
            thread::spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let _held = s;
                    panic!("the task failed before sending");
                }));
                assert!(outcome.is_err());
            });
            assert_eq!(r.recv(), Err(Closed));
        });
    }

    /// Counts drops, to prove a value is dropped exactly once.
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }

    #[test]
    fn a_value_sent_to_a_dropped_receiver_is_dropped_once() {
        loom::model(|| {
            let drops = Arc::new(AtomicUsize::new(0));
            let (s, r) = pipe();
            let value = Counted(Arc::clone(&drops));
            let sender = thread::spawn(move || s.send(value));
            drop(r);
            sender.join().unwrap();
            assert_eq!(drops.load(SeqCst), 1);
        });
    }
}
