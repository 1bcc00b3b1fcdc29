//! Cache hints for the loops over big arrays: a prefetch for random reads
//! (the validator's cells, the searches' rows) and streaming line writes
//! (kernel 1's scatter).

/// Asks the CPU to start loading the cache line of `x`. A hint: it changes
/// nothing the program can observe but timing. Used where a loop knows the
/// addresses it will touch a few iterations ahead (the validator's cells);
/// each use was measured to pay.
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

/// The cache lines of a row a search starts loading ahead of reading it
/// ([`prefetch_start`]): an SSSP scan reads a row's few lines at once, and
/// with one line prefetched its searches took 1.02-1.05 times as long
/// (paired, SCALE 18 and 20, one process and ranks; five lines measured no
/// better than three). A hub's longer row is left to the hardware
/// prefetcher, which follows a stream once it has begun.
pub const ROW_LINES: usize = 3;

/// Asks the CPU to start loading the first `lines` 64-byte lines' worth
/// of `items` (fewer if it is shorter): one [`prefetch`] a line.
#[inline(always)]
pub fn prefetch_start<T>(items: &[T], lines: usize) {
    let per_line = (64 / size_of::<T>().max(1)).max(1);
    for x in items.iter().take(lines * per_line).step_by(per_line) {
        prefetch(x);
    }
}

/// Writes whole cache lines around the caches (x86_64 non-temporal
/// stores): no read of the old line first and no eviction of useful data,
/// for loops that fill many far-apart lines once (kernel 1's scatter into
/// thousands of regions). A writer exists only inside [`LineWriter::scope`],
/// which fences the stores when it ends (also when it unwinds), and the
/// lines written stay borrowed for `'a`, which outlasts the scope: nothing
/// can read them, on this thread or another, before the fence.
#[derive(Debug)]
pub struct LineWriter<'a>(std::marker::PhantomData<&'a mut [u32]>);

impl<'a> LineWriter<'a> {
    /// Runs `f` with a writer, then fences its stores.
    pub fn scope<R>(f: impl FnOnce(&mut LineWriter<'a>) -> R) -> R {
        /// Fences when dropped, so an unwinding `f` is fenced too.
        struct Fence;
        impl Drop for Fence {
            fn drop(&mut self) {
                #[cfg(target_arch = "x86_64")]
                #[allow(unsafe_code)]
                // SAFETY: a store fence has no operands and no preconditions.
                unsafe {
                    std::arch::x86_64::_mm_sfence();
                }
            }
        }
        let _fence = Fence;
        f(&mut LineWriter(std::marker::PhantomData))
    }

    /// Copies `line` into `dest`: streamed when `dest` starts a 64-byte
    /// line, an ordinary copy otherwise.
    #[inline]
    pub fn write(&mut self, dest: &'a mut [u32; 16], line: &[u32; 16]) {
        #[cfg(target_arch = "x86_64")]
        if dest.as_ptr().addr().is_multiple_of(64) {
            use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
            let to = dest.as_mut_ptr().cast::<__m128i>();
            let from = line.as_ptr().cast::<__m128i>();
            for i in 0..4 {
                #[allow(unsafe_code)]
                // SAFETY: both pointers come from references to 64 bytes,
                // so each 16-byte piece `i < 4` is in bounds; `to` is
                // 64-byte aligned (checked above), so each piece is 16-byte
                // aligned as the streaming store requires; `from` is read
                // unaligned. SSE2 is part of every x86_64 CPU. `dest` stays
                // borrowed until `scope` has fenced the stores.
                unsafe {
                    _mm_stream_si128(to.add(i), _mm_loadu_si128(from.add(i)));
                }
            }
            return;
        }
        dest.copy_from_slice(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_writer_writes_aligned_and_unaligned_lines_alike() {
        let line: [u32; 16] = std::array::from_fn(|i| u32::try_from(i).unwrap() + 1);
        let mut memory = vec![0u32; 64];
        let aligned = memory.as_ptr().addr().next_multiple_of(64) - memory.as_ptr().addr();
        let start = aligned / size_of::<u32>();
        {
            let (_, rest) = memory.split_at_mut(start);
            let (first, rest) = rest.split_at_mut(16);
            let (_, third) = rest.split_at_mut(3);
            LineWriter::scope(|writer| {
                writer.write(first.try_into().unwrap(), &line);
                writer.write((&mut third[..16]).try_into().unwrap(), &line);
            });
        }
        assert_eq!(memory[start..start + 16], line, "streamed");
        assert_eq!(memory[start + 19..start + 35], line, "copied");
        assert!(memory[start + 16..start + 19].iter().all(|&x| x == 0));
    }
}
