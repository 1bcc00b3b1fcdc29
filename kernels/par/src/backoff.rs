//! `Backoff`: how a thread waits for another that is running (a loop's
//! caller for its participants to leave, a region's helper for the next
//! run): spins, a few pauses at first and twice as many each time, then
//! yields its core on every further wait.
//!
//! Invariant: the spinning is bounded ([`Backoff::SPIN_STEPS`] steps, 127
//! pauses in all, about a microsecond), so a waiter whose partner was
//! descheduled gives the core back instead of burning its time slice: on
//! a machine with more threads than cores the partner runs and the wait
//! ends. A `Backoff` waits only; what it waits for is the caller's loop.

/// A spin-then-yield waiter; one per wait, made fresh with
/// [`Backoff::default`].
#[derive(Debug, Default)]
pub struct Backoff {
    step: u32,
}

impl Backoff {
    /// Steps that spin (`2^step` pauses each) before every wait yields.
    pub const SPIN_STEPS: u32 = 7;

    /// Waits a little: `2^step` spin-loop pauses for the first
    /// [`Backoff::SPIN_STEPS`] calls, then a `yield_now` per call.
    #[inline]
    pub fn snooze(&mut self) {
        if self.step < Self::SPIN_STEPS {
            for _ in 0..1u32 << self.step {
                std::hint::spin_loop();
            }
            self.step += 1;
        } else {
            std::thread::yield_now();
        }
    }

    /// Whether the waits have reached the yielding stage.
    pub fn is_yielding(&self) -> bool {
        self.step >= Self::SPIN_STEPS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backoff_spins_a_bounded_number_of_times_then_yields() {
        let mut b = Backoff::default();
        for _ in 0..Backoff::SPIN_STEPS {
            assert!(!b.is_yielding());
            b.snooze();
        }
        assert!(b.is_yielding());
        b.snooze();
        assert!(b.is_yielding());
    }
}
