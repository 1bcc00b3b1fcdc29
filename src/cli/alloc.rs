//! The global allocator: [`harness::alloc_count::CountingAllocator`] (which counts
//! allocations inside `graph500 profile`), plus a clean exit when memory
//! runs out. Rust's default reaction to a failed allocation is an abort
//! (SIGABRT, "memory allocation of N bytes failed", core dump); here a null
//! from the system allocator prints one preformatted line,
//! `graph500: error: out of memory: could not allocate N bytes`, and exits
//! with status 2. The line is built on the stack and written with one
//! unbuffered write to stderr: nothing on that path allocates.

#![allow(unsafe_code)] // implementing GlobalAlloc is unsafe by definition

use std::alloc::{GlobalAlloc, Layout};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// [`harness::alloc_count::CountingAllocator`] that exits cleanly when it returns null.
pub(crate) struct ExitOnOom;

// SAFETY: every method forwards its arguments unchanged to
// `CountingAllocator`, which upholds the `GlobalAlloc` contract; a null
// result is never returned to the caller but ends the process, which is
// allowed (`GlobalAlloc` methods may abort; they must not unwind, and
// `out_of_memory` does not).
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on as is.
        let p = unsafe { harness::alloc_count::CountingAllocator.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on as is.
        let p = unsafe { harness::alloc_count::CountingAllocator.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on as is.
        let p = unsafe { harness::alloc_count::CountingAllocator.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on as is.
        unsafe { harness::alloc_count::CountingAllocator.dealloc(ptr, layout) }
    }
}

/// Set by the first thread that runs out of memory.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Prints the out-of-memory line and exits with status 2, without
/// allocating. Another thread that runs out meanwhile waits for the exit.
#[cold]
fn out_of_memory(bytes: usize) -> ! {
    if EXITING.swap(true, SeqCst) {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
    let mut line = [0u8; 128];
    let len = oom_line(bytes, &mut line);
    let _ = std::io::stderr().write_all(&line[..len]);
    std::process::exit(2)
}

/// Writes the out-of-memory line for `bytes` into `buf`; returns its length.
fn oom_line(bytes: usize, buf: &mut [u8; 128]) -> usize {
    const HEAD: &[u8] = b"graph500: error: out of memory: could not allocate ";
    const TAIL: &[u8] = b" bytes\n";
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut x = bytes;
    loop {
        i -= 1;
        #[allow(clippy::cast_possible_truncation)] // a digit
        let digit = (x % 10) as u8;
        digits[i] = b'0' + digit;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    let mut len = 0;
    for part in [HEAD, &digits[i..], TAIL] {
        buf[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_bytes() {
        let mut buf = [0u8; 128];
        for (bytes, text) in [
            (0, "0"),
            (7, "7"),
            (4_294_967_296, "4294967296"),
            (usize::MAX, &usize::MAX.to_string()),
        ] {
            let len = oom_line(bytes, &mut buf);
            assert_eq!(
                std::str::from_utf8(&buf[..len]).unwrap(),
                format!("graph500: error: out of memory: could not allocate {text} bytes\n")
            );
        }
    }
}
