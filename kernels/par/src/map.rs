//! `map`, `map_ranges` and `map_chunks`: fork-join on futures, results in
//! input order.

use crate::{Future, TaskError, current_size, spawn};
use std::ops::Range;
use std::sync::Arc;

/// Chunks per worker that [`map`] aims for: enough for the pool's shared
/// queue to balance uneven chunks, few enough to keep task overhead small.
const CHUNKS_PER_WORKER: usize = 4;

/// Maps `f` over `items` on the current pool ([`spawn`]'s): the items are
/// split into about four chunks per worker, one future per chunk. Results come back in input
/// order; the first failed task's error is returned. `f` is shared by all
/// tasks through one `Arc`. An empty input spawns nothing.
pub fn map<T, R, F>(items: Vec<T>, f: F) -> Result<Vec<R>, TaskError>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(T) -> R + Send + Sync + 'static,
{
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let chunk_len = items.len().div_ceil(current_size() * CHUNKS_PER_WORKER);
    let f = Arc::new(f);
    let mut items = items.into_iter();
    let mut futures = Vec::new();
    loop {
        let chunk: Vec<T> = items.by_ref().take(chunk_len).collect();
        if chunk.is_empty() {
            break;
        }
        let f = Arc::clone(&f);
        futures.push(spawn(move || {
            chunk.into_iter().map(|x| f(x)).collect::<Vec<R>>()
        }));
    }
    let mut results = Vec::with_capacity(chunk_len * futures.len());
    for future in futures {
        results.extend(future.get()?);
    }
    Ok(results)
}

/// Splits `0..len` into consecutive ranges of `chunk_len` (the last may be
/// shorter) and computes `f(range)` for each in its own future. Results in
/// range order. Panics if `chunk_len` is 0.
pub fn map_ranges<R, F>(len: usize, chunk_len: usize, f: F) -> Result<Vec<R>, TaskError>
where
    R: Send + 'static,
    F: Fn(Range<usize>) -> R + Send + Sync + 'static,
{
    assert!(chunk_len > 0, "chunks need at least one element");
    let f = Arc::new(f);
    let futures: Vec<Future<R>> = (0..len)
        .step_by(chunk_len)
        .map(|start| {
            let f = Arc::clone(&f);
            let range = start..(start + chunk_len).min(len);
            spawn(move || f(range))
        })
        .collect();
    futures.into_iter().map(Future::get).collect()
}

/// Computes `f(chunk)` for consecutive chunks of `chunk_len` elements of the
/// shared slice `data`, one future per chunk. Tasks share `data` through its
/// `Arc`; nothing is copied. Results in chunk order.
pub fn map_chunks<S, T, R, F>(data: &Arc<S>, chunk_len: usize, f: F) -> Result<Vec<R>, TaskError>
where
    S: AsRef<[T]> + Send + Sync + ?Sized + 'static,
    R: Send + 'static,
    F: Fn(&[T]) -> R + Send + Sync + 'static,
{
    let len = (**data).as_ref().len();
    let data = Arc::clone(data);
    map_ranges(len, chunk_len, move |range| f(&(*data).as_ref()[range]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pool;

    #[test]
    fn map_keeps_input_order_across_chunks() {
        let out = map((0..1000u64).collect(), |x| x * x).unwrap();
        assert_eq!(out, (0..1000u64).map(|x| x * x).collect::<Vec<_>>());
    }

    #[test]
    fn empty_inputs_spawn_nothing_and_return_nothing() {
        assert_eq!(map(Vec::<u8>::new(), |x| x), Ok(vec![]));
        assert_eq!(map_ranges(0, 10, |r| r.len()), Ok(vec![]));
        let empty: Arc<[u8]> = Arc::from(Vec::new());
        assert_eq!(map_chunks(&empty, 3, <[u8]>::len), Ok(vec![]));
    }

    #[test]
    fn ranges_and_chunks_cover_the_input_in_order() {
        assert_eq!(
            map_ranges(10, 4, |r| (r.start, r.end)),
            Ok(vec![(0, 4), (4, 8), (8, 10)])
        );
        let data: Arc<Vec<u32>> = Arc::new((1..=10).collect());
        let sums = map_chunks(&data, 3, |c: &[u32]| c.iter().sum::<u32>()).unwrap();
        assert_eq!(sums, [6, 15, 24, 10]);
    }

    #[test]
    fn a_panic_in_a_task_is_an_error_not_a_hang() {
        let result = map((0..100).collect(), |x: u32| {
            assert!(x != 57, "item 57 is cursed");
            x
        });
        match result {
            Err(TaskError::Panicked { message }) => {
                assert!(message.contains("cursed"), "{message}")
            }
            other => panic!("expected a panic error, got {other:?}"),
        }
        // The pool survives: its workers caught the panic.
        assert_eq!(map(vec![1, 2, 3], |x| x + 1), Ok(vec![2, 3, 4]));
    }

    #[test]
    fn futures_that_wait_on_futures_do_not_starve_a_one_worker_pool() {
        let pool = Pool::new(1);
        let inner_pool = Arc::clone(&pool);
        let outer = pool.spawn(move || {
            let inner: Vec<_> = (0..4).map(|i| inner_pool.spawn(move || i * 10)).collect();
            inner.into_iter().map(|f| f.get().unwrap()).sum::<i32>()
        });
        assert_eq!(outer.get(), Ok(60));
    }

    /// Guards the futures' pool: they ran on the global pool whatever
    /// `with_pool` installed, so `par` on pipes in a one-worker pool ran
    /// on the global pool's two workers (the backends bench had it twice
    /// as fast as rayon on one thread).
    #[test]
    fn futures_and_their_futures_run_on_the_installed_pool() {
        // Five workers: not the global pool's size on the machines here.
        let sizes = crate::with_pool(5, || {
            map((0..40).collect(), |_| {
                let nested = spawn(crate::current_size).get().unwrap();
                (crate::current_size(), nested, crate::current_worker())
            })
        })
        .unwrap();
        for (size, nested, worker) in sizes {
            assert_eq!((size, nested), (5, 5));
            assert!(worker.is_some_and(|w| w < 5), "{worker:?}");
        }
        let one = crate::with_pool(1, || {
            map_ranges(64, 1, |_| {
                std::thread::sleep(std::time::Duration::from_micros(200));
                std::thread::current().id()
            })
        })
        .unwrap();
        let threads: std::collections::HashSet<_> = one.into_iter().collect();
        assert_eq!(
            threads.len(),
            1,
            "a one-worker pool ran tasks on {threads:?}"
        );
    }

    #[test]
    fn a_task_dropped_unrun_is_lost_not_a_hang() {
        let (future, job) = crate::future::run_job(|| 5, None);
        drop(job);
        assert_eq!(future.get(), Err(TaskError::Lost));
    }

    #[test]
    fn workers_are_reused_not_spawned_per_task() {
        // Tasks run on the pool's two workers or on the thread waiting for
        // them (which helps), never on a thread made for the task.
        let pool = Pool::new(2);
        let me = std::thread::current().id();
        let futures: Vec<_> = (0..50)
            .map(|_| {
                pool.spawn(|| {
                    let t = std::thread::current();
                    (t.id(), t.name().map(str::to_string))
                })
            })
            .collect();
        let threads: std::collections::HashSet<_> =
            futures.into_iter().map(|f| f.get().unwrap()).collect();
        for (id, name) in &threads {
            let worker = name
                .as_deref()
                .is_some_and(|n| n.starts_with("par-worker-"));
            assert!(worker || *id == me, "task ran on {name:?}");
        }
        assert!(threads.len() <= 3, "{threads:?}");
    }
}
