//! `Pool`: persistent worker threads that run jobs from one shared queue.
//!
//! Jobs are boxed closures on a crossbeam MPMC channel; each worker loops on
//! it until the pool is dropped, so threads are created once, not per task.
//! Every [`Future`] holds a handle on the queue, so a worker
//! that waits on one runs queued jobs meanwhile instead of blocking (a
//! thread outside the pool just waits: the pool's `T` workers do the work).
//!
//! A second, bounded channel carries wake-ups for [`Loop`](crate::Loop)s:
//! a handle on a loop that a worker should join. Its slots are allocated
//! with the pool, so waking a worker allocates nothing (the job queue, a
//! linked list of blocks, allocates a block every 31 jobs). A worker that
//! has run something polls both channels for a while before it sleeps
//! (`IDLE_ROUNDS`): the loops of a search come back to back, and a worker
//! still awake joins the next one without a futex wake.

use crate::Future;
use crate::future::run_job;
use crate::loops::Participant;
use crossbeam_channel::{Receiver, Sender, TryRecvError};
use std::cell::{Cell, RefCell};
use std::sync::{Arc, OnceLock, Weak};
use std::thread::JoinHandle;

/// A unit of work.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// A loop a worker is asked to join.
pub(crate) type Wake = Arc<dyn Participant>;

/// Wake-ups the pool holds per worker before [`Pool::wake`] drops them. A
/// loop sends at most one per worker, so only stale wake-ups (for loops
/// that ended before a worker took them) can fill it.
const WAKES_PER_WORKER: usize = 4;

/// Rounds an idle worker polls the channels, yielding between polls,
/// before it sleeps on them: a few tens of microseconds, as long as
/// rayon's workers stay awake (32 rounds of `yield_now`).
const IDLE_ROUNDS: u32 = 64;

thread_local! {
    /// The index of this thread in its pool, on a worker.
    static WORKER: Cell<Option<usize>> = const { Cell::new(None) };
    /// The pool [`with_pool`] installed on this thread.
    static INSTALLED: RefCell<Option<Arc<Pool>>> = const { RefCell::new(None) };
    /// On a worker, its own pool (weak: the pool's owner decides when it
    /// stops), so that the futures a task spawns run beside it.
    static OWN: RefCell<Weak<Pool>> = const { RefCell::new(Weak::new()) };
}

/// A fixed set of worker threads.
pub struct Pool {
    queue: Option<Sender<Job>>,
    jobs: Receiver<Job>,
    wakes: Option<Sender<Wake>>,
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
    /// A pool of `threads` workers (at least one), started now. A task on
    /// it that spawns futures ([`spawn`](crate::spawn), [`map`](crate::map()))
    /// spawns them on this pool.
    pub fn new(threads: usize) -> Arc<Pool> {
        Arc::new_cyclic(|own| Pool::start(threads, own))
    }

    fn start(threads: usize, own: &Weak<Pool>) -> Pool {
        let threads = threads.max(1);
        let (queue, jobs) = crossbeam_channel::unbounded::<Job>();
        let (wakes, woken) = crossbeam_channel::bounded::<Wake>(WAKES_PER_WORKER * threads);
        let workers = (0..threads)
            .map(|i| {
                let (jobs, woken, own) = (jobs.clone(), woken.clone(), own.clone());
                std::thread::Builder::new()
                    .name(format!("par-worker-{i}"))
                    .spawn(move || {
                        WORKER.set(Some(i));
                        OWN.set(own);
                        work(&jobs, &woken);
                    })
                    .expect("the OS starts a worker thread")
            })
            .collect();
        Pool {
            queue: Some(queue),
            jobs,
            wakes: Some(wakes),
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

    /// Asks one idle worker to join `participant`'s loop. Allocates
    /// nothing. If every slot holds a wake-up not yet taken the request is
    /// dropped: the loop's caller works through every chunk itself if need
    /// be, so a lost wake-up costs parallelism, never progress.
    pub(crate) fn wake(&self, participant: Wake) {
        let wakes = self.wakes.as_ref().expect("a live pool has wake-ups");
        let _ = wakes.try_send(participant);
    }
}

/// A worker's loop: jobs and wake-ups as they come, polled for
/// `IDLE_ROUNDS` after each before sleeping on both channels. Ends when
/// the pool drops its senders, after the jobs queued by then.
fn work(jobs: &Receiver<Job>, woken: &Receiver<Wake>) {
    loop {
        let mut idle = 0;
        while idle < IDLE_ROUNDS {
            if let Ok(participant) = woken.try_recv() {
                participant.participate();
                idle = 0;
                continue;
            }
            match jobs.try_recv() {
                Ok(job) => {
                    job();
                    idle = 0;
                    continue;
                }
                // The pool dropped its senders and no job is left.
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {}
            }
            idle += 1;
            std::thread::yield_now();
        }
        crossbeam_channel::select! {
            recv(jobs) -> job => match job {
                Ok(job) => job(),
                Err(_) => return,
            },
            recv(woken) -> participant => match participant {
                Ok(participant) => participant.participate(),
                // Shutting down: finish the queued jobs.
                Err(_) => {
                    while let Ok(job) = jobs.recv() {
                        job();
                    }
                    return;
                }
            },
        }
    }
}

impl Drop for Pool {
    /// Lets the workers finish the queued jobs, then joins them.
    fn drop(&mut self) {
        self.queue.take();
        self.wakes.take();
        let me = std::thread::current().id();
        for worker in self.workers.drain(..) {
            // If the owner lets go while a task still holds the pool
            // (through `with_current`), the last handle drops on that
            // task's worker, which cannot join itself: it ends after the
            // task, as the others do.
            if worker.thread().id() != me {
                let _ = worker.join();
            }
        }
    }
}

/// The index of the calling thread among its pool's workers (`0..threads`),
/// or `None` on a thread that is no pool's worker. O(1), a thread-local
/// read.
pub fn current_worker() -> Option<usize> {
    WORKER.get()
}

/// Runs `f` with a new pool of `threads` workers as this thread's current
/// pool ([`with_current`]), then shuts the pool down. Cost: starting and
/// joining the workers, tens of microseconds; for comparing thread counts
/// (tests), as [`in_pool`](crate::in_pool) is for rayon.
pub fn with_pool<T>(threads: usize, f: impl FnOnce() -> T) -> T {
    /// Restores the previous pool, also when `f` unwinds.
    struct Restore(Option<Arc<Pool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            INSTALLED.with(|p| *p.borrow_mut() = self.0.take());
        }
    }
    let pool = Pool::new(threads);
    let _restore = Restore(INSTALLED.with(|p| p.borrow_mut().replace(pool)));
    f()
}

/// Calls `f` with this thread's current pool: the one [`with_pool`]
/// installed, else, on a pool's worker, that pool, else the [`global`]
/// pool (started on first use). Futures, maps and loops all run on it.
/// Allocates nothing; O(1).
pub fn with_current<R>(f: impl FnOnce(&Pool) -> R) -> R {
    let current = INSTALLED
        .with(|p| p.borrow().clone())
        .or_else(|| OWN.with(|own| own.borrow().upgrade()));
    match current {
        Some(pool) => f(&pool),
        None => f(global()),
    }
}

static GLOBAL: OnceLock<Arc<Pool>> = OnceLock::new();
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

/// The number of workers of this thread's current pool ([`with_current`]),
/// without starting the global pool.
pub fn current_size() -> usize {
    let current = INSTALLED
        .with(|p| p.borrow().as_ref().map(|p| p.threads()))
        .or_else(|| OWN.with(|own| own.borrow().upgrade().map(|p| p.threads())));
    current.unwrap_or_else(global_size)
}
