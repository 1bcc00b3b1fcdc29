//! `in_pool`: run a closure on a rayon pool of a chosen size, for code that
//! must give the same answer for any thread count (and the tests that say so).

/// Runs `f` on a new rayon pool of `threads` workers and returns its value.
/// Cost: starting and joining the threads, tens of microseconds; meant for
/// comparing thread counts, not for a hot path. Fails only if the OS
/// refuses to start the threads.
pub fn in_pool<T: Send>(
    threads: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, rayon::ThreadPoolBuildError> {
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?
        .install(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closure_runs_on_a_pool_of_the_asked_size() {
        for threads in [1, 3] {
            assert_eq!(
                in_pool(threads, rayon::current_num_threads).unwrap(),
                threads
            );
        }
    }
}
