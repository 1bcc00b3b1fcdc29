//! [`Batch`]: checks 3, 4 and 6 for up to sixteen BFS searches of one
//! graph in one pass over its block-ordered tuples.
//!
//! A single validation's edge pass (`edges.rs`, `wide.rs`) spends its time
//! reading two cells per tuple and judging them: about as long as the
//! search itself, per search. A run validates many searches of the same
//! tuples, so the batch judges each tuple for sixteen searches at once:
//! each vertex's sixteen cells, one per held search (a *lane*), lie side by
//! side in one 64-byte `Line`, and a tuple's two lines give its verdict
//! in all sixteen lanes with one pair of loads and lane-wise arithmetic.
//!
//! Per search ([`Batch::hold`]): checks 1 and 2 as a single validation
//! runs them (`tree.rs`: ranges, then tree levels), or, when the kernel
//! claims its levels, one pass that checks each vertex's claim on its own
//! instead of walking (`certificate.rs`; any failed claim falls back to the
//! walks; the parent's claim is the pass's tree-edge test, below); as each
//! chunk's levels are known, its vertices' levels and whole parents go, as 4-byte cells
//! (`Layout`: the parent in the low 24 bits, or in as many as the ids need
//! up to `2^26` vertices, the level above), into row `lane` of their
//! `Tile`s of sixteen vertices (whole 64-byte rows). A tree deeper than a
//! cell's level holds (253 levels, 61 at `2^26` vertices) is validated
//! alone at once instead.
//!
//! A *dense* batch ([`Batch::dense`], for runs short of memory) keeps
//! cells for the vertices that have a tuple only, by their dense indices
//! (`dense.rs`: about half the vertices at SCALE 26); a cell still names
//! the parent by its id. A reached vertex other than the root with no
//! tuple cannot show its tree edge (check 3 fails): such a search is
//! validated alone at once, on the parents as given, so its error is the
//! one a single validation names.
//!
//! Per batch ([`Batch::settle`]): every tile is transposed in place, so
//! that its row `i` holds vertex `i`'s sixteen cells (lanes not held are
//! unreached); one parallel pass over the block-ordered tuples
//! (`lanes.rs`, in AVX-512 where the processor has it) gives per lane nedge and whether check 4 failed, and marks in a per-worker mask
//! array which lanes' tree edge each vertex showed (a tuple one level
//! apart whose lower end names the upper as its parent); a sweep over the
//! vertices then finds the lanes in which a reached vertex other than the
//! root showed none (check 3). A lane that failed is judged again alone
//! by [`Validator`] on its cells, which hold its whole parent array, so
//! the error named is exactly the one a single validation names.
//!
//! Invariants: a lane's cells are those a single validation of its search
//! computes; every tuple but the self-loops (which no check reads) is
//! judged in every lane; a worker's mask array is written by that worker
//! only (plain loads and stores, no locked read-modify-write).
//!
//! Cost: per held search, checks 1 and 2 (the walks, or the certificate's
//! one pass over the vertices), whose fill writes the tiles itself (no
//! cell array, no copy); per batch, one pass over the block-ordered tuples
//! for all sixteen searches, a transposition of the tiles and one sweep
//! over the vertices. Memory: 64 bytes a vertex for the tiles, 4 for the
//! walks' levels, 2 a vertex per worker for the masks
//! ([`Batch::bytes_for`]); a dense batch 66 and 2 a worker less for each
//! vertex without a tuple, 2 1/8 more a vertex for the numbering
//! ([`Batch::dense_bytes_for`]), and its pass looks up both ends' dense
//! indices. The timings behind these choices are in
//! `docs/history-validate.md`.

use crate::certificate::certify_and_fill_with;
use crate::dense::Numbering;
pub use crate::lanes::LANES;
use crate::lanes::{Form, Layout, Line, TILE, Tile, judge_item};
use crate::order::{BLOCK, TupleBlocks};
use crate::tree::{UNREACHED, VERTEX_GRAIN};
use crate::{Invalid, ParentArray, TreeSummary, Validator, check_nedge, padded, tree};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU32, Ordering::Relaxed};

/// The most vertices a batch judges: `2^26`, whose ids leave a lane's
/// cell 6 bits of level (61 levels, deeper than any Kronecker tree).
const MAX_VERTICES: usize = 1 << 26;
/// Tiles per parallel work item of the copies and the sweep.
const TILE_GRAIN: usize = 1 << 8;
/// How many tiles ahead the fill asks for the line it will write.
const FILL_AHEAD: usize = 16;

/// What [`Batch::hold`] did with a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Checks 1 and 2 passed; the rest waits for [`Batch::settle`].
    Held,
    /// The tree was too deep for a lane (over 253 levels; fewer above
    /// `2^24` vertices, 61 at `2^26`): the search was validated alone, at
    /// once.
    Done(TreeSummary),
}

/// A held search: what [`Batch::settle`] needs besides its lane.
#[derive(Clone, Copy, Debug)]
struct Held {
    root: u64,
    claimed_nedge: Option<u64>,
    reached: u64,
    depth: u32,
    /// Its claimed levels passed the certificate's own checks: its
    /// reached count and depth are the claims', proven only if the pass
    /// confirms every tree edge.
    claimed: bool,
}

/// Working memory that validates up to [`LANES`] searches of one
/// block-ordered graph with one edge pass. The verdicts are those of
/// [`Validator::validate_any`], search by search.
#[derive(Debug)]
pub struct Batch {
    num_vertices: usize,
    layout: Layout,
    levels: Vec<AtomicU32>,
    /// A dense batch's numbering of the vertices with a tuple.
    numbering: Option<Numbering>,
    /// By vertex, padded to whole blocks; or by dense index, a whole block
    /// past the last.
    tiles: Vec<Tile>,
    /// Per worker, per vertex (or dense index): the lanes whose tree edge
    /// of the vertex a tuple showed.
    seen: Vec<AtomicU16>,
    held: Vec<Held>,
    /// Judges a too-deep tree, and names a failed lane's error.
    single: Option<Validator>,
    /// How many settled searches' checks 1 and 2 their claimed levels
    /// proved, with the pass.
    certified: u64,
}

impl Batch {
    /// True when searches of a graph of `num_vertices` vertices can be
    /// batched: up to `2^26`, where a lane's 4-byte cell still holds the
    /// whole parent and 61 levels.
    pub fn suits(num_vertices: usize) -> bool {
        num_vertices <= MAX_VERTICES
    }

    /// The working memory of a batch for `num_vertices` vertices and
    /// `workers` threads: 68 bytes a vertex and 2 per worker ([`Batch`]'s
    /// overview), vertices padded to a whole block of 64 Ki.
    pub fn bytes_for(num_vertices: u64, workers: usize) -> u64 {
        let padded = num_vertices.next_multiple_of(BLOCK as u64);
        Batch::cell_bytes(padded, workers) + size_of::<AtomicU32>() as u64 * padded
    }

    /// The most working memory of a dense batch ([`Batch::dense`]) for
    /// `num_vertices` vertices of which at most `named` have a tuple, and
    /// `workers` threads: 66 bytes and 2 per worker for each named vertex
    /// (with each chunk's rounding to a whole tile, and one block more),
    /// and 6 1/8 a vertex for the numbering and the walks' levels.
    pub fn dense_bytes_for(num_vertices: u64, named: u64, workers: usize) -> u64 {
        let chunks = num_vertices.div_ceil(VERTEX_GRAIN as u64) + 1;
        let cells = named.min(num_vertices) + (TILE as u64 - 1) * chunks + BLOCK as u64;
        Batch::cell_bytes(cells, workers)
            + size_of::<AtomicU32>() as u64 * num_vertices
            + Numbering::bytes_for(num_vertices)
    }

    /// Tiles and masks for `cells` cells.
    fn cell_bytes(cells: u64, workers: usize) -> u64 {
        (size_of::<Line>() + size_of::<AtomicU16>() * workers) as u64 * cells
    }

    /// A batch for graphs of `num_vertices` vertices (at most `2^26`:
    /// [`Batch::suits`]), for the current rayon pool's workers (a pool
    /// with more workers makes [`Batch::settle`] allocate for them).
    pub fn new(num_vertices: usize) -> Self {
        assert!(Batch::suits(num_vertices), "too many vertices for a batch");
        Batch::with_cells(num_vertices, None, padded(num_vertices))
    }

    /// A dense batch for searches of the graph of `tuples` (at most `2^26`
    /// vertices: [`Batch::suits`]): cells for the vertices that have a
    /// tuple only, the same verdicts. Numbers those vertices: one pass
    /// over the tuples.
    pub fn dense(tuples: &TupleBlocks) -> Self {
        let num_vertices = tuples.num_vertices();
        assert!(Batch::suits(num_vertices), "too many vertices for a batch");
        let numbering = Numbering::of(tuples);
        let cells = numbering.len() + BLOCK;
        Batch::with_cells(num_vertices, Some(numbering), cells)
    }

    /// A batch with `cells` cells a lane.
    fn with_cells(num_vertices: usize, numbering: Option<Numbering>, cells: usize) -> Self {
        let layout = Layout::for_vertices(num_vertices);
        Batch {
            num_vertices,
            layout,
            // The levels stay a zeroed allocation, not resident until a
            // walk needs them; the tiles and seen marks are filled in
            // parallel: 64 bytes a vertex and 2 a worker's vertex, about
            // 4.3 GiB at 2^26 vertices, took seconds on one thread.
            levels: zeroed_levels(num_vertices),
            numbering,
            tiles: par::huge::filled(cells / TILE, |_| Tile::unreached(layout)),
            seen: par::huge::filled(rayon::current_num_threads() * cells, |_| AtomicU16::new(0)),
            held: Vec::with_capacity(LANES),
            single: None,
            certified: 0,
        }
    }

    /// Searches held, waiting for [`Batch::settle`].
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// How many settled searches so far had checks 1 and 2 proven by the
    /// levels their kernel claimed, with no walk: the certificate's checks
    /// in [`Batch::hold`], then every tree edge confirmed by the pass.
    pub fn certified(&self) -> u64 {
        self.certified
    }

    /// True when no search is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Checks 1 and 2 on `parents`, the result of a search of `tuples`
    /// from `root` that claims `claimed_nedge` (none: check 6 skipped), and
    /// holds its cells in the next lane. `levels`, if the kernel recorded
    /// them, are a certificate for checks 1 and 2 (`certificate.rs`): if
    /// every claim holds on its own, no chain is walked and
    /// [`Batch::settle`]'s pass checks the parents' claims (a lane that
    /// fails there is judged alone); if any fails, the checks run as
    /// without it. Errors are those of checks 1 and 2. Panics if
    /// [`LANES`] searches are held or the graph has another vertex count.
    pub fn hold<P: ParentArray + ?Sized>(
        &mut self,
        tuples: &TupleBlocks,
        root: u64,
        parents: &P,
        levels: Option<&[AtomicU8]>,
        claimed_nedge: Option<u64>,
    ) -> Result<Hold, Invalid> {
        let n = self.num_vertices;
        assert_eq!(tuples.num_vertices(), n, "a batch judges one graph");
        assert!(self.held.len() < LANES, "the batch is full");
        let (lane, layout) = (self.held.len(), self.layout);
        // A reached vertex but the root with no tuple (a dense batch only)
        // makes the search go alone.
        let stray = AtomicBool::new(false);
        let (reached, depth, claimed) = match &self.numbering {
            None => {
                // Each chunk's vertices are written straight into row `lane`
                // of their tiles: level and whole parent, or unreached (also
                // the padding past `n`).
                let fill = |first: usize, levels: &[u32], tiles: &mut [Tile]| {
                    write_rows(tiles, lane, |t| {
                        let at = t * TILE;
                        // A reached vertex's parent is a checked id; others'
                        // cells do not use theirs.
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                        let parent = |i: usize| parents.parent(first + at + i) as u32;
                        match levels.get(at..at + TILE) {
                            // Sixteen vertices of the graph (all tiles but
                            // the last): no test per vertex.
                            Some(level) => cells(
                                level.try_into().expect("a tile's levels"),
                                std::array::from_fn(parent),
                                layout,
                            ),
                            // The last tile: padding past `n` is unreached
                            // (and reads the last vertex's parent).
                            None => cells(
                                &std::array::from_fn(|i| {
                                    levels.get(at + i).copied().unwrap_or(UNREACHED)
                                }),
                                std::array::from_fn(|i| parent(i.min(n - 1 - first - at))),
                                layout,
                            ),
                        }
                    });
                    tree::count(levels.iter().copied())
                };
                let walk = || {};
                let out = &mut self.tiles[..];
                checks_1_and_2(parents, root, levels, &self.levels, out, TILE, fill, walk)?
            }
            Some(numbering) => {
                let fill = |first: usize, levels: &[u32], out: &mut [&mut [Tile]]| {
                    let [tiles] = out else {
                        unreachable!("one chunk's tiles")
                    };
                    let (counts, strays) =
                        fill_dense(first, levels, tiles, lane, layout, parents, numbering, root);
                    if strays {
                        stray.store(true, Relaxed);
                    }
                    counts
                };
                // Each chunk of vertices writes the tiles of its dense
                // indices.
                let mut chunks = Vec::with_capacity(n.div_ceil(VERTEX_GRAIN));
                let mut rest = &mut self.tiles[..];
                for g in 0..n.div_ceil(VERTEX_GRAIN) {
                    let len = (numbering.group_start(g + 1) - numbering.group_start(g)) / TILE;
                    let (own, after) = std::mem::take(&mut rest).split_at_mut(len);
                    chunks.push(own);
                    rest = after;
                }
                // A certificate that failed may have filled chunks with
                // strays that the walks fill again: only their fill counts.
                let walk = || stray.store(false, Relaxed);
                let out = &mut chunks[..];
                checks_1_and_2(
                    parents,
                    root,
                    levels,
                    &self.levels,
                    out,
                    VERTEX_GRAIN,
                    fill,
                    walk,
                )?
            }
        };
        if depth > layout.max_level() || stray.load(Relaxed) {
            let single = self.single.get_or_insert_with(Validator::default);
            return single
                .validate_any(tuples, root, parents, claimed_nedge)
                .map(Hold::Done);
        }
        self.held.push(Held {
            root,
            claimed_nedge,
            reached,
            depth,
            claimed,
        });
        Ok(Hold::Held)
    }

    /// Checks 3, 4 and 6 for every held search, in the order held, with
    /// one pass over `tuples`; then holds none. A search's verdict is the
    /// one [`Validator::validate_any`] gives it.
    pub fn settle(&mut self, tuples: &TupleBlocks) -> Vec<Result<TreeSummary, Invalid>> {
        let mut held = std::mem::take(&mut self.held);
        if held.is_empty() {
            return Vec::new();
        }
        let cells = self.tiles.len() * TILE;
        let workers = rayon::current_num_threads();
        if self.seen.len() < workers * cells {
            self.seen = (0..workers * cells).map(|_| AtomicU16::new(0)).collect();
        }
        let seen = &self.seen[..workers * cells];
        let (layout, tiles) = (self.layout, &mut self.tiles);
        tiles.par_chunks_mut(TILE_GRAIN).for_each(|tiles| {
            for tile in tiles {
                transpose(tile, held.len(), layout.unreached());
            }
        });
        seen.par_chunks(1 << 16)
            .for_each(|s| s.iter().for_each(|m| m.store(0, Relaxed)));

        let (tiles, form, numbering) = (&self.tiles[..], Form::best(), self.numbering.as_ref());
        let (nedge, bad) = tuples
            .items()
            .par_iter()
            .map(|item| {
                let worker = rayon::current_thread_index().unwrap_or(0);
                let seen = &seen[worker * cells..(worker + 1) * cells];
                let words = &tuples.words()[item.start..item.end];
                judge_item(form, item, words, tiles, seen, layout, numbering)
            })
            .reduce(
                || ([0u64; LANES], 0u16),
                |(a, bad_a), (b, bad_b)| (std::array::from_fn(|k| a[k] + b[k]), bad_a | bad_b),
            );
        let unconfirmed = unconfirmed_lanes(tiles, seen, workers, layout);

        let mut verdicts = Vec::with_capacity(held.len());
        for (lane, h) in held.iter().enumerate() {
            let failed = (bad | unconfirmed) & (1 << lane) != 0;
            let verdict = if failed {
                self.judge_alone(tuples, lane, h)
            } else {
                self.certified += u64::from(h.claimed);
                check_nedge(nedge[lane], h.claimed_nedge).map(|()| TreeSummary {
                    nedge: nedge[lane],
                    reached: h.reached,
                    depth: h.depth,
                })
            };
            verdicts.push(verdict);
        }
        held.clear();
        self.held = held;
        verdicts
    }

    /// The verdict of a single validation on `lane`'s search, whose parents
    /// its cells hold.
    fn judge_alone(
        &mut self,
        tuples: &TupleBlocks,
        lane: usize,
        h: &Held,
    ) -> Result<TreeSummary, Invalid> {
        let parents = LaneParents {
            tiles: &self.tiles,
            numbering: self.numbering.as_ref(),
            layout: self.layout,
            lane,
            num_vertices: self.num_vertices,
            root: h.root,
        };
        let single = self.single.get_or_insert_with(Validator::default);
        let verdict = single.validate_any(tuples, h.root, &parents, h.claimed_nedge);
        // A valid tree fails the pass only on claimed levels that are not
        // its depths (the certificate leaves the parents' claims to it).
        debug_assert!(
            verdict.is_err() || h.claimed,
            "the batch failed a lane that is valid"
        );
        verdict
    }
}

/// `len` levels of 0 in a zeroed allocation (`alloc_zeroed`): no page is
/// resident until a walk writes it, and a certified search never does.
/// Collected from an iterator of zeros, the levels were made resident or
/// not at the compiler's whim: moved into another function, they were,
/// 0.25 bytes a tuple more at the SCALE 26 peak (measured,
/// `docs/history-validate.md`).
fn zeroed_levels(len: usize) -> Vec<AtomicU32> {
    const { assert!(align_of::<AtomicU32>() == align_of::<u32>()) };
    // `vec![0; len]` of an integer allocates zeroed.
    let mut zeros = std::mem::ManuallyDrop::new(vec![0u32; len]);
    let (ptr, len, capacity) = (zeros.as_mut_ptr(), zeros.len(), zeros.capacity());
    // SAFETY: `AtomicU32` has the size, bit validity and (asserted above)
    // alignment of `u32`, so the allocation, its length and capacity are
    // those of a `Vec<AtomicU32>` of the same values; `zeros` is not
    // dropped, so the allocation has one owner.
    #[allow(unsafe_code)]
    unsafe {
        Vec::from_raw_parts(ptr.cast::<AtomicU32>(), len, capacity)
    }
}

/// Checks 1 and 2 on `parents` from `root`, each chunk's levels handed to
/// `fill` with its part of `out` (`per` vertices an element): by the
/// certificate `claims` if every claim holds on its own (only an array of
/// the batch's length can be certified; any other goes to the walks, whose
/// first check names the wrong length), else by the walks, after `walk`.
/// Its reached count, depth, and whether the claims were used.
#[allow(clippy::too_many_arguments)]
fn checks_1_and_2<P, T, F>(
    parents: &P,
    root: u64,
    claims: Option<&[AtomicU8]>,
    walk_levels: &[AtomicU32],
    out: &mut [T],
    per: usize,
    fill: F,
    walk: impl FnOnce(),
) -> Result<(u64, u32, bool), Invalid>
where
    P: ParentArray + ?Sized,
    T: Send,
    F: Fn(usize, &[u32], &mut [T]) -> (u64, u32) + Sync + Copy,
{
    let n = walk_levels.len();
    let certified = claims
        .filter(|_| parents.entries() == n)
        .and_then(|claims| certify_and_fill_with(parents, root, claims, out, per, fill));
    if let Some((reached, depth)) = certified {
        return Ok((reached, depth, true));
    }
    walk();
    tree::check_ranges(n, root, parents, walk_levels)?;
    let (reached, depth) = tree::walk_and_fill_with(parents, walk_levels, out, per, fill)?;
    Ok((reached, depth, false))
}

/// Writes row `lane` of `tiles`, the tiles of the dense indices of the
/// vertices from `first` (a dense batch): the cells of the vertices with a
/// tuple, in order, then unreached to the chunk's last tile. Returns the
/// chunk's reached count and depth, and whether a reached vertex other
/// than `root` has no tuple.
#[allow(clippy::too_many_arguments)]
fn fill_dense<P: ParentArray + ?Sized>(
    first: usize,
    levels: &[u32],
    tiles: &mut [Tile],
    lane: usize,
    layout: Layout,
    parents: &P,
    numbering: &Numbering,
    root: u64,
) -> ((u64, u32), bool) {
    let (shift, max_level, unreached) = (layout.shift, layout.max_level(), layout.unreached());
    let mut cells = [unreached; VERTEX_GRAIN + TILE];
    let (mut d, mut strays) = (0, false);
    // No branch per vertex: vertices with and without tuples, reached and
    // unreached, interleave at random.
    for (i, &level) in levels.iter().enumerate() {
        let v = first + i;
        // A reached vertex's parent is a checked id; others' cells do not
        // use theirs.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let parent = parents.parent(v) as u32;
        let has = numbering.has(v);
        strays |= (level != UNREACHED) & (v as u64 != root) & !has;
        let keep = 0u32.wrapping_sub(u32::from(level <= max_level));
        cells[d] = (level << shift | parent) & keep | unreached & !keep;
        d += usize::from(has);
    }
    cells[d..].fill(unreached);
    write_rows(tiles, lane, |t| {
        Line(cells[t * TILE..][..TILE].try_into().expect("a tile"))
    });
    (tree::count(levels.iter().copied()), strays)
}

/// Writes row `lane` of each of `tiles`, tile `t`'s being `row(t)`. A row
/// is one line of memory a KiB from the next: each is asked for
/// [`FILL_AHEAD`] tiles ahead, so that the stores do not wait on it.
#[inline(always)]
fn write_rows(tiles: &mut [Tile], lane: usize, row: impl Fn(usize) -> Line) {
    for tile in tiles.iter().take(FILL_AHEAD) {
        prefetch(&tile.0[lane]);
    }
    for t in 0..tiles.len() {
        if let Some(ahead) = tiles.get(t + FILL_AHEAD) {
            prefetch(&ahead.0[lane]);
        }
        tiles[t].0[lane] = row(t);
    }
}

/// One lane's cells of sixteen vertices from their levels and parents:
/// level and parent, or the unreached cell for an unreached vertex or a
/// tree too deep (which goes alone). A select, no branch: reached and
/// unreached vertices interleave at random.
#[inline(always)]
fn cells(level: &[u32; TILE], parent: [u32; TILE], layout: Layout) -> Line {
    let (shift, max_level, unreached) = (layout.shift, layout.max_level(), layout.unreached());
    Line(std::array::from_fn(|i| {
        let keep = 0u32.wrapping_sub(u32::from(level[i] <= max_level));
        (level[i] << shift | parent[i]) & keep | unreached & !keep
    }))
}

/// Turns a tile of rows by lane into rows by vertex; lanes from `held` on
/// get the `unreached` cell.
fn transpose(tile: &mut Tile, held: usize, unreached: u32) {
    let rows = tile.0;
    for (i, line) in tile.0.iter_mut().enumerate() {
        *line = Line(std::array::from_fn(|k| {
            if k < held { rows[k].0[i] } else { unreached }
        }));
    }
}

/// One lane's parent array in the original ids, read from its cells
/// (transposed tiles); in a dense batch a vertex with no tuple is
/// unreached, or the root.
struct LaneParents<'a> {
    tiles: &'a [Tile],
    numbering: Option<&'a Numbering>,
    layout: Layout,
    lane: usize,
    num_vertices: usize,
    root: u64,
}

impl LaneParents<'_> {
    /// Vertex `v`'s cells, if it has any.
    fn line(&self, v: usize) -> Option<&Line> {
        let at = match self.numbering {
            None => v,
            Some(numbering) => match numbering.entry(v) {
                (true, d) => d as usize,
                (false, _) => return None,
            },
        };
        Some(&self.tiles[at / TILE].0[at % TILE])
    }
}

impl ParentArray for LaneParents<'_> {
    fn entries(&self) -> usize {
        self.num_vertices
    }

    fn parent(&self, v: usize) -> i64 {
        let Some(line) = self.line(v) else {
            return if v as u64 == self.root { v as i64 } else { -1 };
        };
        let cell = line.0[self.lane];
        if cell >> self.layout.shift == self.layout.unreached_level() {
            -1
        } else {
            i64::from(cell & self.layout.print())
        }
    }

    fn prefetch(&self, v: usize) {
        if let Some(line) = self.line(v) {
            prefetch(line);
        }
    }
}

/// The lanes in which some reached vertex other than the root had no tree
/// edge marked by any worker (check 3).
fn unconfirmed_lanes(tiles: &[Tile], seen: &[AtomicU16], workers: usize, layout: Layout) -> u16 {
    let padded = tiles.len() * TILE;
    tiles
        .par_chunks(TILE_GRAIN)
        .enumerate()
        .map(|(chunk, tiles)| {
            let first = chunk * TILE_GRAIN * TILE;
            let mut missing = 0u16;
            for (t, tile) in tiles.iter().enumerate() {
                for (i, line) in tile.0.iter().enumerate() {
                    let v = first + t * TILE + i;
                    let shown =
                        (0..workers).fold(0u16, |m, w| m | seen[w * padded + v].load(Relaxed));
                    let mut needs = 0u16;
                    for (k, &cell) in line.0.iter().enumerate() {
                        let level = cell >> layout.shift;
                        needs |= u16::from((level != layout.unreached_level()) & (level != 0)) << k;
                    }
                    missing |= needs & !shown;
                }
            }
            missing
        })
        .reduce(|| 0, |a, b| a | b)
}
