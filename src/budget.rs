//! Memory budgets: an estimate of a command's peak memory, checked against
//! what the OS says is available before the big allocations happen.
//!
//! The estimates come from measured peaks (`graph500 sweep`, README): a run
//! holds the edge list (8 bytes per tuple), the graph (8 per tuple plus 8 per
//! vertex) and per-vertex arrays of the kernel, the run and the validator
//! (25 bytes per vertex, 10 without validation), plus a few MiB of program.
//! The formulas sit 1% (SCALE 22) to 20% (SCALE 16) above the measured
//! peaks, on the safe side.

use anyhow::bail;

/// What the program itself takes besides the data.
const FIXED: u64 = 8 << 20;

/// Peak bytes of `graph500 run` on `m` tuples and `n` vertices.
pub(crate) fn run_bytes(m: u64, n: u64, validate: bool) -> u64 {
    let per_vertex = if validate { 33 } else { 18 };
    16 * m + per_vertex * n + FIXED
}

/// Peak bytes of `graph500 generate`: the edge list.
pub(crate) fn generate_bytes(m: u64) -> u64 {
    8 * m + FIXED
}

/// Peak bytes of `graph500 bfs`: the run without the validator.
pub(crate) fn bfs_bytes(m: u64, n: u64) -> u64 {
    run_bytes(m, n, false)
}

/// Peak bytes of `graph500 validate`: edge list, parents and validator.
pub(crate) fn validate_bytes(m: u64, n: u64) -> u64 {
    8 * m + 16 * n + FIXED
}

/// Peak bytes of `graph500 profile`: a run, plus the `copy` strategy's
/// clones of the graph, one per task of a level (eight per worker).
pub(crate) fn profile_bytes(m: u64, n: u64, threads: u64) -> u64 {
    run_bytes(m, n, true) + 8 * threads * (8 * m + 8 * n)
}

/// The largest scale at which `bytes_at(scale)` fits in `available`.
pub(crate) fn largest_scale(available: u64, bytes_at: impl Fn(u32) -> u64) -> Option<u32> {
    (1..=generator::MAX_SCALE)
        .take_while(|&s| bytes_at(s) <= available)
        .last()
}

/// Fails unless `need` bytes fit in the available memory (`force` skips
/// the check; so does an OS that does not tell). `what` names the job and
/// `hint` may add how to make it fit.
pub(crate) fn check(
    need: u64,
    what: &str,
    hint: Option<String>,
    force: bool,
) -> anyhow::Result<()> {
    let Some(available) = crate::system::available_memory_bytes() else {
        return Ok(());
    };
    if force || need <= available {
        return Ok(());
    }
    let hint = hint.map_or(String::new(), |h| format!("; {h}"));
    bail!(
        "{what} needs about {} but {} is available{hint} (--force runs it anyway)",
        gib(need),
        gib(available)
    )
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_estimates_bound_the_measured_peaks() {
        // Peaks measured by `graph500 sweep` (README): (scale, bytes).
        for (scale, measured) in [(16, 22_749_184u64), (20, 305_127_424), (22, 1_209_815_040)] {
            let n = 1u64 << scale;
            let estimate = run_bytes(16 * n, n, true);
            assert!(
                estimate >= measured,
                "SCALE {scale}: {estimate} < {measured}"
            );
            assert!(
                estimate < measured + measured / 4,
                "SCALE {scale}: {estimate} far above {measured}"
            );
        }
    }

    #[test]
    fn largest_scale_is_the_last_that_fits() {
        let at = |s: u32| run_bytes(16 << s, 1 << s, true);
        assert_eq!(largest_scale(at(20), at), Some(20));
        assert_eq!(largest_scale(at(20) - 1, at), Some(19));
        assert_eq!(largest_scale(0, at), None);
    }
}
