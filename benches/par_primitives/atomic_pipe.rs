//! One-shot pipes on atomics: one allocation per pipe, no channel machinery.
//! Not part of `par`: measured inside `--backend pipes` it was no faster
//! than `par::pipe` (crossbeam) with the futures' `select` (docs/design.md, "The one-shot pipes"), so
//! it lives here, for the `par_primitives` bench, which includes it with
//! `#[path]` and compares the two, and for `kernels/par/tests/atomic_pipe.rs`, which
//! includes it the same way to run its unit tests and loom models.
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
//! the registration and unparks it (no lost wake-up).
//!
//! Same contract as `par::pipe`: `send` and `recv` consume their ends, a
//! sender dropped unsent closes the pipe, receiving then fails with
//! [`Closed`].

#![allow(unsafe_code)] // the slot below; each block states its argument

use par::Closed;
use std::mem::MaybeUninit;
use std::sync::PoisonError;
use std::sync::atomic::Ordering::SeqCst;
use sync::{Arc, AtomicBool, AtomicU8, Mutex, Thread, UnsafeCell, spin_loop, thread};

/// The primitives of the pipe: std's, or under `RUSTFLAGS="--cfg loom"` the
/// model checker's, so that the same code is what loom verifies.
#[cfg(not(loom))]
mod sync {
    pub(super) use std::hint::spin_loop;
    pub(super) use std::sync::atomic::{AtomicBool, AtomicU8};
    pub(super) use std::sync::{Arc, Mutex};
    pub(super) use std::thread::{self, Thread};

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
pub(crate) struct Sender<T> {
    slot: Arc<Slot<T>>,
}

/// The receiving end; [`recv`](Receiver::recv) consumes it.
pub(crate) struct Receiver<T> {
    slot: Arc<Slot<T>>,
}

/// A new one-shot pipe: one allocation.
pub(crate) fn pipe<T>() -> (Sender<T>, Receiver<T>) {
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
    pub(crate) fn send(self, value: T) {
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
    pub(crate) fn recv(self) -> Result<T, Closed> {
        for round in 0..SPINS + YIELDS {
            if let Some(result) = self.try_take() {
                return result;
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
                return result;
            }
            thread::park();
        }
    }

    fn try_take(&self) -> Option<Result<T, Closed>> {
        match self.slot.state.load(SeqCst) {
            FULL => {
                // SAFETY: FULL was stored after the value was written; this
                // receiver is the only reader and `recv` consumes it, so the
                // value is read once; TAKEN keeps the slot from dropping it.
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
