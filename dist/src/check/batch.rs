//! `Batch`: checks 3 and 4 and nedge for up to [`LANES`] searches of one
//! [`Incidence`] whose trees were proven, in one pass over its arcs.
//!
//! A proof's pass over the arcs (`levels.rs`, step 3) spends its time on
//! one random load of a neighbour's level per judged arc, several times a
//! search's own time. A run validates many searches of the same tuples,
//! so the batch judges each arc for [`LANES`] searches at once: each
//! cell's levels, one byte per held search (a *lane*), lie side by side
//! in one 16-byte line, and an arc's two lines give its verdict in every
//! lane with one pair of loads and lane-wise byte arithmetic (vector
//! instructions).
//!
//! Per search ([`Batch::hold`]), after the validator proved its tree
//! (levels, `Levels::tree`): its cells' levels, its parent cells and its
//! parents are kept, each swapped with a spare buffer (no copy), so that
//! a lane that fails can be judged again by the tuple rounds, which name
//! the failure as one process does.
//!
//! Per batch ([`Batch::judge`]): the held levels go into lane `k` of the
//! lines, a piece of lines at a time (each lane's levels stream in order
//! into lines that stay in the core's cache: one pass over the lines for
//! the batch, where a copy at each hold rewrote every line once a search).
//! Then one pass over the judged arcs, grouped
//! by the block of their other end's cell (`BLOCK` cells, whose lines stay
//! in the core's cache while own vertices' lines stream in order), gives
//! per lane whether an arc fails check 4; one pass over the own vertices'
//! runs of arcs, comparing each arc with the vertex's sixteen parent
//! cells, gives per lane the reached vertices but the root with no arc
//! to their parent (check 3), and nedge (the judged arcs of reached own
//! vertices), as `Levels::judge` does for one search.
//!
//! Invariants: lane `k < len()` holds the levels of the `k`th search held
//! since the last [`Batch::take`]; lanes above hold stale levels, never
//! read into a verdict. Each tuple that is not a self-loop is judged by
//! one arc in every lane.
//!
//! Cost: per held search, three swaps; per batch, the lines' fill (one
//! byte a cell and lane read, 16 bytes a cell written), one pass over the
//! judged arcs (8 bytes an arc, a 16-byte line per end), one over every
//! arc (4 bytes) and the lanes' parent cells. Memory: `LANES` bytes a cell
//! for the lines and as many for the lanes' levels, `LANES` parent arrays
//! and parent cells (12 bytes an own vertex each) and 8 bytes a judged arc
//! ([`Batch::bytes_for`]). No message.

use super::incidence::Incidence;
use super::levels::{NO_PARENT, UNREACHED, gap};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Per lane: reached own vertices with no arc to their parent, judged
/// arcs of reached own vertices.
type Tally = ([u64; LANES], [u64; LANES]);

/// Searches a batch holds.
pub(crate) const LANES: usize = 16;

/// A held search: what its verdict needs besides its lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    pub(crate) root: u64,
    pub(crate) claimed_nedge: Option<u64>,
    pub(crate) reached: u64,
    pub(crate) depth: u64,
}

/// Cells per block of the blocked arcs: their lines take 512 KiB, half a
/// core's L2 cache on the AMD EPYC of `docs/history-validate.md`.
const BLOCK: usize = 1 << 15;
/// Lines per parallel piece of their fill: 64 KiB.
const PIECE: usize = 1 << 12;

/// One cell's levels, one byte a lane, aligned for one vector load.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Line([u8; LANES]);

/// The lines of levels, the judged arcs by block and the held searches,
/// kept from batch to batch.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// Each cell's level in each lane.
    lines: Vec<Line>,
    /// Every judged arc as `(own vertex, cell)`, grouped by the cell's
    /// block (`cell / BLOCK`), each group by own vertex, then cell.
    arcs: Vec<(u32, u32)>,
    /// `arcs[blocks[b]..blocks[b + 1]]` are block `b`'s.
    blocks: Vec<usize>,
    /// The held searches, in the order held.
    held: Vec<Held>,
    /// Each lane's parents (this rank's, global ids), then spare buffers.
    parents: Vec<Vec<u64>>,
    /// Each lane's parent cells (`Levels::parent_cells`), then spares.
    ups: Vec<Vec<u32>>,
    /// Each lane's cells' levels (`Levels::cells`), then spares.
    levels: Vec<Vec<AtomicU8>>,
}

impl Batch {
    /// About the most bytes a batch takes on a rank with `rows` own
    /// vertices, `cells` cells and `tuples` tuples: `2 LANES` a cell (the
    /// lines and the lanes' levels), `12 LANES` an own vertex, 8 a tuple
    /// (at most one judged arc each).
    pub(crate) fn bytes_for(rows: u64, cells: u64, tuples: u64) -> u64 {
        LANES as u64 * (2 * cells + 12 * rows) + 8 * tuples
    }

    /// A batch over `inc` (no search held): its judged arcs grouped by
    /// block, by a counting sort, and its lines and lanes made (written
    /// once, so that no search's validation faults them in).
    pub(crate) fn new(inc: &Incidence) -> Batch {
        let mut blocks = vec![0usize; inc.cells().div_ceil(BLOCK) + 1];
        for i in 0..inc.rows() {
            for &c in inc.arcs(i).0 {
                blocks[c as usize / BLOCK + 1] += 1;
            }
        }
        for b in 1..blocks.len() {
            blocks[b] += blocks[b - 1];
        }
        let mut next = blocks.clone();
        let mut arcs = vec![(0, 0); blocks[blocks.len() - 1]];
        for i in 0..inc.rows() {
            for &c in inc.arcs(i).0 {
                let at = &mut next[c as usize / BLOCK];
                arcs[*at] = (super::local32(i), c);
                *at += 1;
            }
        }
        Batch {
            arcs,
            blocks,
            // Made here, untimed: at the first settle a fresh 16 bytes a
            // cell would fault in page by page inside the timed fill.
            lines: par::huge::filled(inc.cells(), |_| Line([UNREACHED; LANES])),
            levels: (0..LANES).map(|_| unreached(inc.cells())).collect(),
            parents: vec![vec![0; inc.rows()]; LANES],
            ups: vec![vec![0; inc.rows()]; LANES],
            ..Batch::default()
        }
    }

    /// How many searches are held.
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }

    /// Holds a search (at most [`LANES`] between two [`Batch::take`]):
    /// its cells' `levels`, its parent cells `ups` and its `parents` are
    /// kept, each swapped with a spare buffer (no copy; the spare levels
    /// have the same length, their contents are unspecified).
    pub(crate) fn hold(
        &mut self,
        levels: &mut Vec<AtomicU8>,
        ups: &mut Vec<u32>,
        held: Held,
        parents: &mut Vec<u64>,
    ) {
        let lane = self.held.len();
        assert!(lane < LANES, "a batch holds at most LANES searches");
        if self.parents.len() == lane {
            self.parents.push(Vec::new());
            self.ups.push(Vec::new());
        }
        let spare = &mut self.levels[lane];
        if spare.len() != levels.len() {
            *spare = unreached(levels.len());
        }
        std::mem::swap(spare, levels);
        std::mem::swap(&mut self.ups[lane], ups);
        let kept = &mut self.parents[lane];
        kept.resize(parents.len(), 0);
        std::mem::swap(kept, parents);
        self.held.push(held);
    }

    /// The held lanes' levels into the lines, a piece of [`PIECE`] lines
    /// at a time (they stay in the core's cache while each lane's levels
    /// stream in order).
    fn fill_lines(&mut self) {
        let levels = &self.levels[..self.held.len()];
        let cells = levels.first().map_or(0, Vec::len);
        if self.lines.len() != cells {
            self.lines = par::huge::filled(cells, |_| Line([UNREACHED; LANES]));
        }
        let pieces = self.lines.par_chunks_mut(PIECE).enumerate();
        pieces.for_each(|(p, lines)| {
            let first = p * PIECE;
            for (k, lane) in levels.iter().enumerate() {
                for (line, l) in lines.iter_mut().zip(&lane[first..]) {
                    line.0[k] = l.load(Relaxed);
                }
            }
        });
    }

    /// Checks 3 and 4 and nedge in every held lane: one pass over the
    /// judged arcs of `inc` (the incidence every held search was proven on
    /// and this batch was made from), block by block, for check 4, and one
    /// over each own vertex's run of arcs for check 3. Per lane, whether
    /// an arc fails check 4 or a reached own vertex but the root has no
    /// arc to its parent's cell on this rank, and the judged arcs of its
    /// reached own vertices.
    pub(crate) fn judge(&mut self, inc: &Incidence) -> ([bool; LANES], [u64; LANES]) {
        self.fill_lines();
        let (lines, arcs) = (&self.lines, &self.arcs);
        let windows = self.blocks.par_windows(2);
        let apart = windows.fold(
            || [0u8; LANES],
            |mut apart, w| {
                for &(i, c) in &arcs[w[0]..w[1]] {
                    let (own, other) = (&lines[i as usize].0, &lines[c as usize].0);
                    for k in 0..LANES {
                        apart[k] |= u8::from(gap(own[k], other[k]));
                    }
                }
                apart
            },
        );
        let apart = apart.reduce(|| [0; LANES], |a, b| std::array::from_fn(|k| a[k] | b[k]));
        let ups = &self.ups[..self.held.len()];
        let pieces = inc.rows().div_ceil(PIECE);
        let add = |a: [u64; LANES], b: [u64; LANES]| std::array::from_fn(|k| a[k] + b[k]);
        let (orphans, nedge) = (0..pieces)
            .into_par_iter()
            .map(|p| orphans(inc, lines, ups, p * PIECE..inc.rows().min((p + 1) * PIECE)))
            .reduce(
                || ([0; LANES], [0; LANES]),
                |a, b| (add(a.0, b.0), add(a.1, b.1)),
            );
        let failed = std::array::from_fn(|k| apart[k] != 0 || orphans[k] != 0);
        (failed, nedge)
    }

    /// The held searches, in the order held, and their parents; holds
    /// none after.
    pub(crate) fn take(&mut self) -> Vec<(Held, Vec<u64>)> {
        let held = std::mem::take(&mut self.held);
        let parents = self.parents[..held.len()].iter_mut().map(std::mem::take);
        held.into_iter().zip(parents).collect()
    }

    /// Gives back a parents buffer [`Batch::take`] handed out, as a spare.
    pub(crate) fn give_back(&mut self, lane: usize, parents: Vec<u64>) {
        self.parents[lane] = parents;
    }
}

/// `cells` levels, all unreached.
fn unreached(cells: usize) -> Vec<AtomicU8> {
    (0..cells).map(|_| AtomicU8::new(UNREACHED)).collect()
}

/// Per lane, the reached own vertices in `range` but the root with no arc
/// to their parent's cell in `ups` (check 3), and the judged arcs of the
/// reached ones (nedge), as [`orphans_by`] counts them; in AVX2 where the
/// processor runs it.
fn orphans(inc: &Incidence, lines: &[Line], ups: &[Vec<u32>], range: Range<usize>) -> Tally {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor runs AVX2, detected just above.
        #[allow(unsafe_code)]
        return unsafe { orphans_avx2(inc, lines, ups, range) };
    }
    orphans_by(inc, lines, ups, range, |run, up| {
        // 32-bit flags, as wide as the cells: a lane-wise compare and an
        // or an arc, no narrowing.
        let mut found = [0u32; LANES];
        for &c in run {
            for k in 0..LANES {
                found[k] |= u32::from(c == up[k]);
            }
        }
        found
    })
}

/// [`orphans_by`] with each arc's cell, broadcast, against the sixteen
/// parent cells in two AVX2 compares and two ors, the flags kept in two
/// registers: written out, because LLVM's own vectorisation of the
/// portable loop kept them on the stack and took twice the time
/// (docs/history-validate.md).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn orphans_avx2(inc: &Incidence, lines: &[Line], ups: &[Vec<u32>], range: Range<usize>) -> Tally {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi32, _mm256_or_si256, _mm256_set1_epi32};
    orphans_by(inc, lines, ups, range, |run, up| {
        let halves: [[u32; 8]; 2] = bytemuck::cast(*up);
        let [low, high]: [__m256i; 2] = halves.map(bytemuck::cast);
        let (mut found_low, mut found_high) = (_mm256_set1_epi32(0), _mm256_set1_epi32(0));
        for &c in run {
            // The same bits as the cell's: a cell is compared, not summed.
            #[allow(clippy::cast_possible_wrap)]
            let c = _mm256_set1_epi32(c as i32);
            found_low = _mm256_or_si256(found_low, _mm256_cmpeq_epi32(c, low));
            found_high = _mm256_or_si256(found_high, _mm256_cmpeq_epi32(c, high));
        }
        bytemuck::cast([found_low, found_high])
    })
}

/// Per lane, orphans (check 3) and nedge: each own vertex's whole run of
/// arcs against its parent cell in every lane (`NO_PARENT` in lanes not
/// held, which no arc holds); `hits(run, up)` is non-zero in lane `k`
/// when some cell of `run` is `up[k]`.
#[inline(always)]
fn orphans_by(
    inc: &Incidence,
    lines: &[Line],
    ups: &[Vec<u32>],
    range: Range<usize>,
    hits: impl Fn(&[u32], &[u32; LANES]) -> [u32; LANES],
) -> Tally {
    let (mut orphans, mut nedge) = ([0u64; LANES], [0u64; LANES]);
    for i in range {
        let up: [u32; LANES] = std::array::from_fn(|k| ups.get(k).map_or(NO_PARENT, |u| u[i]));
        let found = hits(inc.run(i), &up);
        let (own, ends) = (&lines[i].0, inc.arcs(i).0.len() as u64);
        for k in 0..LANES {
            orphans[k] += u64::from(found[k] == 0 && up[k] != NO_PARENT);
            nedge[k] += if own[k] == UNREACHED { 0 } else { ends };
        }
    }
    (orphans, nedge)
}
