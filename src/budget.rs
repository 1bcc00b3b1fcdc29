//! Memory budgets: a command's peak memory estimated as the sum of what each
//! library says its part needs ([`EdgeList::bytes_for`],
//! [`Csr::bytes_for`], [`Kernel::engine_bytes`], [`Validator::bytes_for`], [`Batch::bytes_for`]),
//! checked against what the OS says is available before the big
//! allocations happen.

use crate::Error;
use dist::{DistBfs, DistValidator, Id, LocalGraph};
use generator::EdgeList;
use kernels::{Csr, Kernel};
use validate::{Batch, TupleBlocks, Validator};

/// What the program itself takes besides the data: code, libraries, thread
/// stacks and allocator arenas (measured: about 6 MiB at SCALE 1;
/// `tests/memory.rs` checks the sums against measured peaks).
pub const FIXED: u64 = 16 << 20;

/// The `i64` parent array a validator or a parent file reads.
pub(crate) fn i64_parents(n: u64) -> u64 {
    8 * n
}

/// Peak bytes of a BFS run on `m` tuples and `n` vertices: the edge list,
/// the program and the BFS pass ([`bfs_pass_bytes`]).
pub fn run_bytes(m: u64, n: u64, kernel: Kernel, validate: bool) -> u64 {
    EdgeList::bytes_for(m) + bfs_pass_bytes(m, n, kernel, validate) + FIXED
}

/// What a BFS pass holds in one process: the graph, the engine and, if
/// validating, the validator (it reads the engine's parents where they
/// lie).
pub fn bfs_pass_bytes(m: u64, n: u64, kernel: Kernel, validate: bool) -> u64 {
    let checking = if validate { Validator::bytes_for(n) } else { 0 };
    Csr::bytes_for(n, m) + kernel.engine_bytes(n) + checking
}

/// Peak bytes of the searches of a BFS run over `m` tuples and `n`
/// vertices that validates in block order and batches its searches
/// ([`Batch`], at most `2^26` vertices; 0 where it does not batch). The
/// batch is made after kernel 1 and the block order, so it counts against
/// what is held then: the re-encoded tuples (4 bytes each, where
/// [`run_bytes`] counts the list's 8), the built graph without kernel 1's
/// scratch, the engine and the batch (which replaces the validator), for
/// the current pool's workers.
pub fn batched_search_bytes(m: u64, n: u64, kernel: Kernel, cells: Cells) -> u64 {
    match batch_bytes(n, cells) {
        0 => 0,
        batch => {
            TupleBlocks::bytes_for(m)
                + Csr::graph_bytes(n, m)
                + kernel.engine_bytes(n)
                + batch
                + FIXED
        }
    }
}

/// The [`Batch`] of a run over `n` vertices that batches its BFS searches
/// (at most `2^26` vertices; 0 above), with `cells`, for the current
/// pool's workers.
pub fn batch_bytes(n: u64, cells: Cells) -> u64 {
    if !usize::try_from(n).is_ok_and(Batch::suits) {
        return 0;
    }
    let workers = rayon::current_num_threads();
    match cells {
        Cells::ById => Batch::bytes_for(n, workers),
        Cells::Dense { named } => Batch::dense_bytes_for(n, named, workers),
    }
}

/// Which vertices a BFS run's [`Batch`] keeps cells for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    /// Every vertex ([`Batch::new`]).
    ById,
    /// The vertices with a tuple, at most `named` of them ([`Batch::dense`]).
    Dense {
        /// At most this many vertices have a tuple.
        named: u64,
    },
}

/// At most how many vertices a generated Graph500 Kronecker list of
/// `scale` and `edgefactor` names, for the estimate of a dense batch: the
/// expectation ([`generator::expected_named_vertices`]) with a margin of
/// `N/128 + 4 sqrt(N)` (the count's standard deviation is below
/// `sqrt(N)/2`), at most `N`.
pub fn named_bound(scale: u32, edgefactor: u64) -> u64 {
    let n = (scale as f64).exp2();
    let bound = generator::expected_named_vertices(scale, edgefactor) + n / 128.0 + 4.0 * n.sqrt();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let bound = bound.ceil() as u64;
    bound.min(1u64 << scale)
}

/// What a BFS pass holds on one rank of `ranks` in a distributed run on
/// `m` tuples and `n` vertices: its rows and kernel 1's rounds, the engine
/// (its parents, its part of the bitmaps, the global frontier bitmap and
/// the delegates),
/// and the validator: its tuples regrouped by vertex, its per-vertex and
/// per-cell arrays and its rounds.
pub fn rank_bfs_bytes<I: Id>(m: u64, n: u64, ranks: u64, validate: bool) -> u64 {
    let (m_r, n_r) = (m.div_ceil(ranks), n.div_ceil(ranks));
    let rows = LocalGraph::<I>::bytes_for(n_r, 2 * m_r);
    let engine = DistBfs::<I>::bytes_for(n_r, n, 2 * m_r);
    let checking = if validate {
        DistValidator::<I::Tuple>::bytes_for(n_r, m_r, n)
    } else {
        0
    };
    rows + engine + checking
}

/// Peak bytes of `graph500 generate`: the edge list, `packed` (7 bytes a
/// tuple, [`crate::Memory::Lean`]) or not (8); the writers unpack a packed
/// list a chunk at a time, within [`FIXED`].
pub fn generate_bytes(m: u64, packed: bool) -> u64 {
    let list = if packed {
        EdgeList::packed_bytes_for(m)
    } else {
        EdgeList::bytes_for(m)
    };
    list + FIXED
}

/// Peak bytes of `graph500 bfs`: edge list, graph, engine, and the `i64`
/// parents it writes.
pub fn bfs_bytes(m: u64, n: u64, kernel: Kernel) -> u64 {
    run_bytes(m, n, kernel, false) + i64_parents(n)
}

/// Peak bytes of `graph500 validate`: edge list, parents and validator.
pub fn validate_bytes(m: u64, n: u64) -> u64 {
    EdgeList::bytes_for(m) + i64_parents(n) + Validator::bytes_for(n) + FIXED
}

/// Peak bytes of `graph500 profile`: a validated run of the largest engine,
/// plus the `copy` strategy's clones of the graph, one per task of a level
/// (eight per worker).
pub fn profile_bytes(m: u64, n: u64, threads: u64) -> u64 {
    let widest = Kernel::ALL
        .into_iter()
        .map(|k| run_bytes(m, n, k, true))
        .max()
        .unwrap_or_default();
    widest + 8 * threads * Csr::bytes_for(n, m)
}

/// Bytes the read of `edges` from `path` had mapped besides the tuples
/// ([`generator::format::bytes_mapped_while_reading`]); to be added to the
/// estimate of any command that reads its graph from a file.
pub fn reading(edges: &EdgeList, path: &std::path::Path) -> u64 {
    let file_len = std::fs::metadata(path).map_or(0, |m| m.len());
    generator::format::bytes_mapped_while_reading(edges, file_len)
}

/// Checks `need(M, N)` bytes before `path` is read, where its format
/// states `M` and `N` up front (the binary format's header); other formats
/// are counted by reading them and checked after (with [`reading`]). So a
/// file far larger than memory is refused in a moment, not after minutes
/// of reading. A header that cannot be read is left to the read to report.
pub fn check_before_reading(
    path: &std::path::Path,
    format: generator::format::EdgeFormat,
    what: &str,
    force: bool,
    need: impl Fn(u64, u64) -> u64,
) -> Result<(), Error> {
    if format != generator::format::EdgeFormat::Binary {
        return Ok(());
    }
    match generator::format::binary::read_header(path) {
        Ok(header) => check(
            need(header.num_edges, header.num_vertices),
            what,
            None,
            force,
        ),
        Err(_) => Ok(()),
    }
}

/// The largest scale at which `bytes_at(scale)` fits in `available`.
pub fn largest_scale(available: u64, bytes_at: impl Fn(u32) -> u64) -> Option<u32> {
    (1..=generator::MAX_SCALE)
        .take_while(|&s| bytes_at(s) <= available)
        .last()
}

/// Fails unless `need` bytes fit in the available memory (`force` skips
/// the check; so does an OS that does not tell). `what` names the job and
/// `hint` may add how to make it fit.
pub fn check(need: u64, what: &str, hint: Option<String>, force: bool) -> Result<(), Error> {
    let Some(available) = crate::system::available_memory_bytes() else {
        return Ok(());
    };
    if force || need <= available {
        return Ok(());
    }
    Err(Error::Memory {
        what: what.to_string(),
        need,
        available,
        hint,
    })
}

/// "the largest SCALE that fits at edgefactor E is S", if the OS tells what
/// is available.
pub fn scale_hint(edgefactor: u64, bytes_at: impl Fn(u32) -> u64) -> Option<String> {
    let available = crate::system::available_memory_bytes()?;
    Some(match largest_scale(available, bytes_at) {
        Some(s) => format!("the largest SCALE that fits at edgefactor {edgefactor} is {s}"),
        None => format!("no SCALE fits at edgefactor {edgefactor}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_scale_is_the_last_that_fits() {
        let dobfs = Kernel::Dobfs(kernels::DoParams::DEFAULT);
        let at = |s: u32| run_bytes(16 << s, 1 << s, dobfs, true);
        assert_eq!(largest_scale(at(20), at), Some(20));
        assert_eq!(largest_scale(at(20) - 1, at), Some(19));
        assert_eq!(largest_scale(0, at), None);
    }

    #[test]
    fn validating_and_writing_parents_cost_their_arrays() {
        let seq = Kernel::Seq;
        let n = 1 << 20;
        assert_eq!(
            run_bytes(0, n, seq, true) - run_bytes(0, n, seq, false),
            Validator::bytes_for(n),
            "the validator reads the engine's parents: no i64 copy"
        );
        assert_eq!(bfs_bytes(0, n, seq) - run_bytes(0, n, seq, false), 8 * n);
    }
}
