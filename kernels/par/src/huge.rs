//! Big arrays' pages: backed by 2 MiB pages where the system grants them,
//! or mapped ahead of their writes.
//!
//! Idea: a search or a validation touches its per-vertex arrays (parents,
//! frontier, bitmaps, the validator's tiles and marks) at random, so with
//! 4 KiB pages nearly every access past the TLB's reach walks the page
//! tables. With transparent huge pages in `madvise` mode (the common
//! default) a range is only backed by 2 MiB pages if it is advised
//! `MADV_HUGEPAGE` *before* its first write. [`filled`] reserves the
//! vector's capacity (a fresh, unmapped allocation for big arrays),
//! advises the 2 MiB-aligned part of it, and only then fills it in
//! parallel, so the fill's faults map huge pages. [`advise_inside`] is the
//! one `madvise` call, also used by kernel 1 to map its fresh arcs ahead
//! of its scatter (`MADV_POPULATE_WRITE`).
//!
//! Invariants: the result of [`filled`] is exactly what
//! `(0..len).into_par_iter().map(fill).collect()` gives (same length, same
//! values, an ordinary `Vec` freed by the global allocator); every advice
//! is a hint whose failure (another system, THP off, no huge page free, an
//! older kernel) changes nothing but speed. Only whole blocks inside the
//! memory given are advised, so no memory outside it is touched.

use rayon::prelude::*;

/// Arrays below this many bytes hold no whole 2 MiB block worth advising.
pub const MIN_BYTES: usize = 4 << 20;
/// The huge page size advised for (x86-64 and most arm64 kernels).
const HUGE: usize = 2 << 20;

/// `len` elements, element `i` being `fill(i)`, filled in parallel on
/// rayon's current pool (a short array on this thread), the 2 MiB blocks
/// of a big array advised for huge pages before the fill writes them.
pub fn filled<T: Send>(len: usize, fill: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if len.saturating_mul(size_of::<T>()) < MIN_BYTES {
        // Short: no block to advise, and not worth the pool.
        return (0..len).map(fill).collect();
    }
    let mut out: Vec<T> = Vec::with_capacity(len);
    advise(out.spare_capacity_mut());
    // Capacity suffices: rayon's indexed extend writes in place.
    out.par_extend((0..len).into_par_iter().map(fill));
    out
}

/// Advises the whole 2 MiB blocks inside `memory` for huge pages, if it
/// is at least [`MIN_BYTES`] long. Returns whether the kernel took the
/// advice (false on other systems, with THP compiled out, or for a short
/// range). Changes no byte: pages already mapped keep their contents.
pub fn advise<T>(memory: &mut [T]) -> bool {
    size_of_val(memory) >= MIN_BYTES && advise_inside(memory, HUGE, Advice::HugePages)
}

/// What [`advise_inside`] asks of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// `MADV_HUGEPAGE`: back the range with 2 MiB pages when it is first
    /// written.
    HugePages,
    /// `MADV_POPULATE_WRITE` (Linux 5.14 on): map the range's pages for
    /// writing now, in one call, instead of one trap a page.
    PopulateWrite,
}

/// Gives `advice` for the whole `unit`-aligned blocks (`unit` a power of
/// two, a multiple of the page size) inside `memory`, one `madvise` call;
/// the partial blocks at either end are left alone. Returns whether the
/// kernel took it (false on other systems, on an older kernel, or when no
/// whole block lies inside). Changes no byte `memory` holds.
pub fn advise_inside<T>(memory: &mut [T], unit: usize, advice: Advice) -> bool {
    debug_assert!(unit.is_power_of_two() && unit.is_multiple_of(4096));
    let start = memory.as_mut_ptr().addr().next_multiple_of(unit);
    let end = (memory.as_mut_ptr().addr() + size_of_val(memory)) & !(unit - 1);
    if end <= start {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        let advice = match advice {
            Advice::HugePages => libc::MADV_HUGEPAGE,
            Advice::PopulateWrite => libc::MADV_POPULATE_WRITE,
        };
        #[allow(unsafe_code)]
        // SAFETY: `[start, end)` lies inside `memory`, which this function
        // borrows mutably, so no other code reads or writes it meanwhile;
        // `start` is page-aligned as `madvise` requires (`unit` is a
        // multiple of the page). Neither advice changes a byte:
        // MADV_HUGEPAGE only marks the range as eligible for huge pages,
        // and MADV_POPULATE_WRITE maps the pages writable as a write would
        // (an unmapped page becomes a zeroed one, which it already read
        // as; a mapped page is left as it is).
        let done = unsafe {
            libc::madvise(
                memory.as_mut_ptr().with_addr(start).cast(),
                end - start,
                advice,
            )
        };
        done == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = advice;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_gives_what_collect_gives() {
        let value = |i: usize| u32::try_from(i).expect("short").wrapping_mul(2_654_435_761);
        for len in [0, 1, 1000, (MIN_BYTES / 4) + 12_345] {
            let huge = filled(len, value);
            let plain: Vec<u32> = (0..len).into_par_iter().map(value).collect();
            assert_eq!(huge.len(), len);
            assert!(huge == plain, "a value differs at length {len}");
        }
    }

    #[test]
    fn filled_zeros_are_zeros_and_aligned_for_the_type() {
        let zeros = filled(3 << 20, |_| 0u64);
        assert_eq!(zeros.len(), 3 << 20);
        assert!(zeros.as_ptr().addr().is_multiple_of(align_of::<u64>()));
        assert!(zeros.iter().all(|&w| w == 0));
    }

    #[test]
    fn short_arrays_are_not_advised() {
        let mut few = vec![7u8; MIN_BYTES - 1];
        assert!(!advise(&mut few));
        assert!(few.iter().all(|&b| b == 7));
    }

    /// The advice is granted where THP is compiled in, and keeps the bytes.
    #[cfg(target_os = "linux")]
    #[test]
    fn advising_keeps_every_byte() {
        let mut words: Vec<u32> = (0..(3u32 << 20)).collect();
        let thp = std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists();
        assert_eq!(advise(&mut words), thp);
        assert!(words.iter().zip(0u32..).all(|(&w, i)| w == i));
    }
}
