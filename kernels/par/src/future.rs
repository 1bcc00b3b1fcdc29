//! `Future`: the result of a task on a [`Pool`](crate::Pool), delivered
//! through a one-shot pipe.

use crate::pipe::{self, Receiver};
use crate::pool::Job;
use crate::with_current;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why a task gave no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    /// The task panicked; the panic's message.
    #[error("a task panicked: {message}")]
    Panicked {
        /// The panic payload, if it was a string.
        message: String,
    },
    /// The task was dropped without running (its pool went away).
    #[error("a task ended without a result: its pool shut down")]
    Lost,
}

/// A value being computed by a task.
#[derive(Debug)]
#[must_use = "a future does nothing unless its value is taken with get()"]
pub struct Future<T> {
    result: Receiver<Result<T, TaskError>>,
    /// The queue of the pool that runs the task, for helping while waiting.
    jobs: Option<crossbeam_channel::Receiver<Job>>,
}

/// Runs `f` on the calling thread's current pool ([`with_current`]: the
/// one [`with_pool`](crate::with_pool) installed, the pool of the worker
/// calling, else the global pool); see [`Pool::spawn`](crate::Pool::spawn).
pub fn spawn<T, F>(f: F) -> Future<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    with_current(|pool| pool.spawn(f))
}

/// The job that runs `f` and sends its outcome, and the future that gets it
/// (helping with `jobs` while it waits, if given).
pub(crate) fn run_job<T, F>(
    f: F,
    jobs: Option<crossbeam_channel::Receiver<Job>>,
) -> (Future<T>, Job)
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (sender, receiver) = pipe::pipe();
    let job: Job = Box::new(move || {
        let outcome = catch_unwind(AssertUnwindSafe(f)).map_err(|payload| TaskError::Panicked {
            message: panic_message(payload.as_ref()),
        });
        sender.send(outcome);
    });
    (
        Future {
            result: receiver,
            jobs,
        },
        job,
    )
}

impl<T> Future<T> {
    /// Waits for the task's value. On a pool worker, runs jobs queued on
    /// the task's pool meanwhile: a task may wait on tasks it spawned
    /// without deadlocking the pool. Any other thread (the caller of a
    /// search) just waits, so a pool of `T` workers runs its tasks on `T`
    /// threads, as `--threads T` promises
    /// (docs/history-kernels.md#par-future).
    pub fn get(self) -> Result<T, TaskError> {
        let Some(jobs) = self.jobs.filter(|_| crate::current_worker().is_some()) else {
            return self.result.recv().unwrap_or(Err(TaskError::Lost));
        };
        loop {
            crossbeam_channel::select! {
                recv(self.result.as_channel()) -> outcome => {
                    return outcome.unwrap_or(Err(TaskError::Lost));
                }
                recv(jobs) -> job => match job {
                    Ok(job) => job(),
                    // The pool is shutting down: nothing left to help with.
                    Err(_) => return self.result.recv().unwrap_or(Err(TaskError::Lost)),
                },
            }
        }
    }
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_string()
    }
}
