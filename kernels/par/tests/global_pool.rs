//! The global `par` pool starts on first use, not before: asking its size
//! must not start it (graph500 profile relies on this to measure the rows
//! without a pool first). Its own test binary, so no other test has
//! touched the global pool.

#[cfg(target_os = "linux")]
fn threads_of_this_process() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[cfg(target_os = "linux")]
#[test]
fn asking_the_size_does_not_start_the_global_pool() {
    let before = threads_of_this_process();
    assert_eq!(par::init_global(3), Ok(()));
    assert_eq!(par::global_size(), 3);
    assert_eq!(
        threads_of_this_process(),
        before,
        "global_size started threads"
    );
    assert_eq!(par::global().threads(), 3);
    assert_eq!(threads_of_this_process(), before + 3);
    assert_eq!(par::init_global(5), Err(3), "too late to resize");
}
