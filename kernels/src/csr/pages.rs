//! Kernel 1's fresh `targets` mapped before the scatter writes it (and,
//! through [`prefault`], the 2-D grid's sorted arcs in `dist`).
//!
//! A big fresh array comes from the kernel unmapped: the first write to each
//! 4 KiB page traps, and the kernel finds a page, zeroes it (leaving its
//! lines dirty in cache, which the scatter's streaming stores then evict)
//! and maps it. At SCALE 20 that is 32,768 traps for `targets`, about as
//! long as the rest of the scatter. `madvise(MADV_POPULATE_WRITE)` (Linux
//! 5.14 on) maps a whole range in one call, without a trap a page, and the
//! pieces are mapped in parallel (measured: docs/history-kernels.md#csr).
//!
//! Invariants: the contents do not change (the pages that were mapped keep
//! their bytes, the others read as zeros before and after); a kernel
//! without the call, or any other failure, leaves the pages to be faulted
//! in by the writes, as before: the call is a hint, its result ignored.

use crate::Backend;

/// Arrays below this many bytes are left to fault in as they are written
/// (a few pages: not worth a call per worker).
pub(super) const MIN_BYTES: usize = 1 << 21;
/// Pieces per worker: the work of mapping is the same per page, but a
/// busy worker should not hold the others up.
const PIECES_PER_WORKER: usize = 4;
/// The page size the calls round to: 4 KiB (a bigger page is a multiple).
const PAGE: usize = 4096;

/// Maps the pages of `slice` for writing, in parallel pieces on `backend`,
/// if it is at least `MIN_BYTES` (2 MiB) long. Changes no byte of it.
pub fn prefault<T: Send>(backend: Backend, slice: &mut [T]) {
    if size_of_val(slice) < MIN_BYTES {
        return;
    }
    let pieces = backend.threads().max(1) * PIECES_PER_WORKER;
    let piece_len = slice.len().div_ceil(pieces).max(1);
    backend.for_each_init(
        slice.chunks_mut(piece_len).collect(),
        || (),
        |(), piece| {
            // A hint: a piece left unmapped is faulted in by the writes.
            populate(piece);
        },
    );
}

/// Maps the whole pages inside `slice` for writing (one `madvise` call);
/// its partial first and last pages are left to the writes. Returns whether
/// the kernel did it (false on other systems, or a kernel before 5.14).
pub(super) fn populate<T>(slice: &mut [T]) -> bool {
    par::huge::advise_inside(slice, PAGE, par::huge::Advice::PopulateWrite)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefaulting_keeps_every_word_of_a_written_array() {
        let words: Vec<u32> = (0..(3 << 20))
            .map(|i: u32| i.wrapping_mul(2_654_435_761))
            .collect();
        let mut copy = words.clone();
        prefault(Backend::Rayon, &mut copy);
        prefault(Backend::Pipes, &mut copy[5..]);
        assert!(copy == words, "a word changed");
    }

    #[test]
    fn a_prefaulted_fresh_array_reads_as_zeros() {
        let mut fresh: Vec<u64> = bytemuck::zeroed_vec(1 << 20);
        prefault(Backend::Rayon, &mut fresh);
        assert!(fresh.iter().all(|&w| w == 0));
    }

    /// The running kernel's (major, minor) release, as
    /// `/proc/sys/kernel/osrelease` gives it ("6.1.0-13-amd64").
    #[cfg(target_os = "linux")]
    fn kernel_release() -> (u32, u32) {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        let mut parts = release
            .trim()
            .split(['.', '-'])
            .map(|p| p.parse().unwrap_or(0));
        (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
    }

    /// From Linux 5.14 the call maps the range; before, it reports that it
    /// did not (and `prefault` leaves the pages to the writes, as above).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernel_maps_whole_pages_and_skips_a_range_without_one() {
        let mut fresh: Vec<u32> = bytemuck::zeroed_vec(1 << 20);
        let release = kernel_release();
        assert_eq!(
            populate(&mut fresh),
            release >= (5, 14),
            "Linux {release:?}"
        );
        assert!(!populate(&mut fresh[..100]), "no whole page inside");
        assert!(fresh.iter().all(|&w| w == 0));
    }
}
