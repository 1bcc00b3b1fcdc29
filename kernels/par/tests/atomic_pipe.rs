//! The unit tests and loom models of the atomic one-shot pipe, which lives
//! with the `par_primitives` bench (`benches/par_primitives/atomic_pipe.rs`,
//! outside every library; the bench compares it with `par::pipe`).
//! `cargo test` runs the tests, and
//! `RUSTFLAGS="--cfg loom" cargo test --release -p graph500-par --test atomic_pipe loom`
//! the models.

#[path = "../../../benches/par_primitives/atomic_pipe.rs"]
mod atomic_pipe;

use atomic_pipe::pipe;
use par::Closed;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

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

/// Model checks, under
/// `RUSTFLAGS="--cfg loom" cargo test --release -p graph500-par --test atomic_pipe loom`
/// (the pipe then compiles against loom's primitives): loom runs each body under every interleaving (and every allowed
/// reordering of the atomics) of its threads, to the end of every thread,
/// and reports any deadlock (a lost wake-up would be one).
///
/// The receiving thread never joins the sender: a receiver that registered
/// as waiting but then found the value may still get the sender's unpark
/// later, a spurious wake-up token that std's `park` semantics allow (every
/// `park` here is in a loop), but loom would deliver it to the `join` and
/// fail its own assertion.
#[cfg(loom)]
mod loom_models {
    use super::*;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicUsize;
    use loom::thread;

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
