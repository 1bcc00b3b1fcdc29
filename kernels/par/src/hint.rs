//! Cache hints for the random-access loops over big arrays (kernel 1's
//! counters, the validator's cells).

/// Asks the CPU to start loading the cache line of `x`. A hint: it changes
/// nothing the program can observe but timing. Used where a loop knows the
/// addresses it will touch a few iterations ahead (kernel 1's atomic
/// counters, the validator's cells); each use was measured to pay.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: a prefetch never faults and writes nothing; the address comes
    // from a reference, so it is valid; SSE, which the instruction needs, is
    // part of every x86_64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(x).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
