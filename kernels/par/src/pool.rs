//! `Pool`: persistent worker threads that run jobs from one shared queue.
//!
//! Jobs are boxed closures on a crossbeam MPMC channel; each worker loops on
//! `recv` until the pool is dropped, so threads are created once, not per
//! task. Every [`Future`](crate::Future) holds a handle on the queue, so
//! whoever waits on one runs queued jobs meanwhile instead of blocking.

use crate::Future;
use crate::future::run_job;
use crossbeam_channel::{Receiver, Sender};
use std::sync::OnceLock;
use std::thread::JoinHandle;

/// A unit of work.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed set of worker threads.
pub struct Pool {
    queue: Option<Sender<Job>>,
    jobs: Receiver<Job>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.workers.len())
            .finish()
    }
}

impl Pool {
    /// A pool of `threads` workers (at least one), started now.
    pub fn new(threads: usize) -> Pool {
        let (queue, jobs) = crossbeam_channel::unbounded::<Job>();
        let workers = (0..threads.max(1))
            .map(|i| {
                let jobs = jobs.clone();
                std::thread::Builder::new()
                    .name(format!("par-worker-{i}"))
                    .spawn(move || {
                        while let Ok(job) = jobs.recv() {
                            job();
                        }
                    })
                    .expect("the OS starts a worker thread")
            })
            .collect();
        Pool {
            queue: Some(queue),
            jobs,
            workers,
        }
    }

    /// The number of workers.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Runs `f` on a worker; its value (or its panic) comes back through the
    /// returned future. Cost: one boxed job and one pipe.
    pub fn spawn<T, F>(&self, f: F) -> Future<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (future, job) = run_job(f, Some(self.jobs.clone()));
        self.queue
            .as_ref()
            .expect("a live pool has a queue")
            .send(job)
            .expect("workers hold the queue's receivers while the pool lives");
        future
    }
}

impl Drop for Pool {
    /// Lets the workers finish the queued jobs, then joins them.
    fn drop(&mut self) {
        self.queue.take();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

static GLOBAL: OnceLock<Pool> = OnceLock::new();
static GLOBAL_THREADS: OnceLock<usize> = OnceLock::new();

/// Sets the size of the global pool, which starts on first use. Fails,
/// returning the size in force, if the size was set before or the pool has
/// already started.
pub fn init_global(threads: usize) -> Result<(), usize> {
    if let Some(pool) = GLOBAL.get() {
        return Err(pool.threads());
    }
    GLOBAL_THREADS
        .set(threads.max(1))
        .map_err(|_| *GLOBAL_THREADS.get().expect("set"))
}

/// The global pool: [`global_size`] workers, started on first use.
pub fn global() -> &'static Pool {
    GLOBAL.get_or_init(|| Pool::new(global_size()))
}

/// The number of workers the global pool has, or will have when it starts
/// ([`init_global`]'s size, or one per available core). Does not start it.
pub fn global_size() -> usize {
    match GLOBAL.get() {
        Some(pool) => pool.threads(),
        None => GLOBAL_THREADS
            .get()
            .copied()
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
    }
}
