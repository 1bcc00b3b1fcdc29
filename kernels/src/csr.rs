//! Kernel 1: `Csr`, the graph in compressed sparse rows.
//!
//! `targets[offsets[v]..offsets[v + 1]]` are the neighbours of `v`. Every tuple
//! `(u, v)` with `u != v` gives the arcs `u -> v` and `v -> u`; self-loops are
//! dropped, duplicates kept (as the reference does). A row lists its arcs in
//! tuple order (in a hub's region too big for the sort scratch, a fixed one).
//!
//! Built by propagation blocking: every pass streams through memory and every
//! random access lands in cache. The vertices are cut into blocks of `2^b` ids,
//! `b` at most 11 (a block's region of `targets` and its sort scratch fit a
//! 1 MiB L2) and at most `32 - bits(N - 1)` (a source's offset in its block
//! packs beside the target in 32 bits); a block's rows are contiguous, so its
//! *region* is known once its arcs are counted.
//! 1. count: the tuples are cut into `P` parts ([`Csr::parts`]), each counting
//!    its arcs per block;
//! 2. scatter: `targets`' pages are mapped first, in parallel, one call a
//!    piece instead of a trap a page (`pages.rs`); then each part owns a
//!    slice of every block's region (blocks in order, parts in order
//!    inside one) and appends each arc there as
//!    `target << b | source offset`, through a one-line buffer per block
//!    written out whole past the caches ([`LineWriter`]), in two stages
//!    ([`Bins::scatter_staged`]) when those buffers outgrow the cache;
//! 3. sort: in parallel over blocks, each region is counting-sorted by source
//!    offset through a worker's scratch (in place above [`SORT_CAP`] arcs),
//!    unpacking the targets; the counts give the block's `offsets`;
//! 4. hubs: each vertex's neighbour of highest degree class among its first
//!    arcs ([`Csr::hub`], `hubs.rs`), for bottom-up steps.
//!
//! Each pass runs on the [`Backend`] given ([`Csr::build_on`]); its items
//! borrow the tuples and `&mut` slices of the rows, so on pipes they run on
//! `par`'s scoped threads.
//!
//! Invariants: no atomics, every slot of `targets` written by exactly one part
//! through its own slice; the same graph for any thread count and backend (the
//! counting sort is stable, the in-place one deterministic on a region that
//! does not depend on `P`).
//!
//! Cost: O(M + N P / 2^b) work, the tuples read twice, `targets` written and
//! reread once. Memory ([`Csr::bytes_for`]): `4 (N + 1)` bytes of offsets
//! (8 when the arcs do not fit `u32`: `offsets.rs`), `4 * 2 * M` of
//! targets, `4 N` of hubs; while building, 85 bytes per block per part,
//! 128 MiB per part when staged, a scratch of at most 1 MiB per worker.

use crate::hubs::{HubAsk, Hubs};
use crate::{Backend, NO_PARENT, Parents};
use generator::{EdgeList, NarrowTuple, Vertex, with_tuples};
pub use offsets::Offsets;
pub(crate) use offsets::RowEnd;
use par::hint::LineWriter;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// The most parts construction cuts the tuples into; beyond this many
/// workers, more parts would cost more memory than they save.
pub(crate) const MAX_PARTS: usize = 16;
/// The most vertices a block holds, as a power of two: a block's region of
/// `targets` (32 arcs a vertex on average: 256 KiB) and its sort scratch fit
/// a 1 MiB L2 (see docs/history-kernels.md#csr).
const MAX_BLOCK_BITS: u32 = 11;
/// The most arcs a region may hold to be sorted through a scratch buffer (1
/// MiB of it per worker); bigger ones are sorted in place.
const SORT_CAP: usize = 1 << 18;
/// Arcs a part buffers per block before writing them out: one cache line.
const LINE: usize = 16;
/// Bytes per block per part while scattering: its count (`u32`), its
/// slice, its line buffer and the buffer's fill.
const BIN_BYTES: u64 = 4 + 16 + 4 * LINE as u64 + 1;
/// Blocks per group of the staged scatter, as a power of two: a group's
/// line buffers (64 KiB) stay in L2 while its arcs are placed; chosen by
/// measurement (docs/history-kernels.md#csr).
const GROUP_BITS: u32 = 10;
/// The scatter is staged above this many blocks (from `2^23 + 1`
/// vertices, 512 a block, on), where its line buffers no longer fit in
/// cache (a million blocks, 64 MiB of buffers, at SCALE 26); below,
/// staging costs more than it saves (measured:
/// docs/history-kernels.md#csr).
const STAGE_MIN_BLOCKS: usize = 1 << 14;
/// Arcs a part stages at a time (8 bytes each): about 16 a block at
/// SCALE 26, so that a group's line buffers fill several lines a visit.
const STAGE_ARCS: usize = 1 << 24;

/// An undirected graph in compressed sparse rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    offsets: Offsets,
    targets: Vec<Vertex>,
    hubs: Hubs,
}

impl Csr {
    /// Kernel 1: builds the graph of `edges`, on rayon's current pool
    /// ([`Csr::build_on`]).
    pub fn from_edge_list(edges: &EdgeList) -> Csr {
        Csr::from_list_on(Backend::Rayon, edges)
    }

    /// [`Csr::build_on`] the tuples of `edges` as they are held (packed or
    /// not).
    pub fn from_list_on(backend: Backend, edges: &EdgeList) -> Csr {
        let n = edges.num_vertices();
        with_tuples!(edges, |tuples| Csr::build_on(backend, n, tuples))
    }

    /// [`Csr::build_on`] rayon's current pool.
    pub fn build<T: NarrowTuple>(num_vertices: usize, edges: &[T]) -> Csr {
        Csr::build_on(Backend::Rayon, num_vertices, edges)
    }

    /// Builds the graph of `edges` over `num_vertices` vertices; every id
    /// must be below `num_vertices` (panics otherwise). Parallel on
    /// `backend`'s current pool, in at most [`Csr::parts`] parts; the same
    /// graph on either backend and for any thread count. Reads the tuples
    /// twice and writes and rereads `targets` once; O(M + N P / 2^b) work.
    /// Compiled for each tuple type ([`generator::Edge`],
    /// [`generator::PackedEdge`]).
    pub fn build_on<T: NarrowTuple>(backend: Backend, num_vertices: usize, edges: &[T]) -> Csr {
        Csr::build_ends_on(backend, num_vertices, edges, 2 * edges.len() as u64)
    }

    /// [`Csr::build_on`] with narrow offsets if `arcs` (at least the
    /// graph's arcs) fit them; tests pass more to build wide ones.
    fn build_ends_on<T: NarrowTuple>(
        backend: Backend,
        num_vertices: usize,
        edges: &[T],
        arcs: u64,
    ) -> Csr {
        if Offsets::narrow_fits(arcs) {
            let (offsets, targets) = build_rows::<u32, u32, T>(backend, num_vertices, edges, &[]);
            Csr::from_parts_on(backend, Offsets::Narrow(offsets), targets)
        } else {
            let (offsets, targets) = build_rows::<u32, u64, T>(backend, num_vertices, edges, &[]);
            Csr::from_parts_on(backend, Offsets::Wide(offsets), targets)
        }
    }

    /// A graph from rows another build made (`offsets` of `N + 1` entries,
    /// narrow if the arcs fit; `targets` the rows' arcs); finds their hubs
    /// on `backend`.
    pub(crate) fn from_parts_on(backend: Backend, offsets: Offsets, targets: Vec<Vertex>) -> Csr {
        let hubs = Hubs::build_on(backend, &offsets, &targets);
        Csr {
            offsets,
            targets,
            hubs,
        }
    }

    /// How many parts construction cuts `num_edges` tuples into for
    /// `workers` workers: one per worker, at most `MAX_PARTS` (16) and at most
    /// `M / 2N` (so a part's per-block state, O(N / 2^b), stays small beside
    /// its tuples), at least one, and enough that no part holds `2^31`
    /// tuples (its counts are `u32`).
    pub fn parts(num_vertices: usize, num_edges: usize, workers: usize) -> usize {
        let by_memory = num_edges / (2 * num_vertices.max(1));
        let by_width = num_edges.div_ceil(1 << 31);
        workers.min(MAX_PARTS).min(by_memory).max(by_width).max(1)
    }

    /// Peak bytes of building, and then holding, the graph of `num_edges`
    /// tuples over `num_vertices` vertices: `4 (N + 1)` of offsets (8 if
    /// the arcs do not fit `u32`), 4 per arc (two arcs per tuple; fewer
    /// with self-loops, so an upper bound),
    /// 8 per block for the blocks' arc counts, and the larger of what the
    /// two building passes add: while scattering 85 (`BIN_BYTES`) per
    /// block per part for the most parts any worker count gives
    /// ([`Csr::parts`]), and above `STAGE_MIN_BLOCKS` blocks 8 bytes per
    /// staged arc (at most `STAGE_ARCS` a part); while sorting, 32 per
    /// block of region handles and a scratch of 4 bytes per arc (at most
    /// `2^18` arcs) and 8 per vertex of a block, for each of up to
    /// `MAX_PARTS` workers; then, while finding hubs, a byte per vertex.
    pub fn bytes_for(num_vertices: u64, num_edges: u64) -> u64 {
        let as_usize = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        let (n, m) = (as_usize(num_vertices), as_usize(num_edges));
        let parts = Csr::parts(n, m, MAX_PARTS) as u64;
        let blocks = Blocks::new(n);
        let count = blocks.count as u64;
        let arcs = 2 * num_edges;
        let staged = if blocks.count > STAGE_MIN_BLOCKS {
            8 * arcs.min(STAGE_ARCS as u64) * parts
        } else {
            0
        };
        let scatter = BIN_BYTES * count * parts + staged;
        let scratch = 4 * arcs.min(SORT_CAP as u64) + (8 << blocks.bits);
        let sort = 32 * count + MAX_PARTS as u64 * scratch;
        let hubs = num_vertices;
        Csr::graph_bytes(num_vertices, num_edges) + 8 * count + scatter.max(sort).max(hubs)
    }

    /// Bytes of the built graph alone, once kernel 1's scratch is freed:
    /// `4 (N + 1)` of offsets (8 if the arcs do not fit `u32`), 4 per
    /// vertex of hubs and 4 per arc (an upper bound, as in
    /// [`Csr::bytes_for`]).
    pub fn graph_bytes(num_vertices: u64, num_edges: u64) -> u64 {
        let arcs = 2 * num_edges;
        Offsets::end_bytes(arcs) * (num_vertices + 1) + 4 * num_vertices + 4 * arcs
    }

    /// `N`.
    pub fn num_vertices(&self) -> usize {
        self.offsets.rows()
    }

    /// Directed entries: twice the tuples that are not self-loops.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// Bytes of one row end: 4 while the arcs fit `u32`, else 8.
    pub fn end_bytes(&self) -> u64 {
        self.offsets.end_size()
    }

    /// Heap bytes of the offsets, targets and hubs: what a clone copies.
    pub fn heap_bytes(&self) -> u64 {
        self.offsets.heap_bytes()
            + (self.targets.len() * size_of::<Vertex>()) as u64
            + self.hubs.heap_bytes()
    }

    /// The neighbours of `v`, one per arc (duplicates repeat). O(1).
    #[inline]
    pub fn neighbors(&self, v: Vertex) -> &[Vertex] {
        &self.targets[self.offsets.row(v as usize)]
    }

    /// `v`'s hub: its neighbour of highest degree class among the first
    /// arcs of its row, or `v` itself if it has no arcs (see `hubs.rs`).
    /// A bottom-up search step asks it first. O(1).
    #[inline]
    pub fn hub(&self, v: Vertex) -> Vertex {
        self.hubs.of(v)
    }

    /// `v`'s hub, and whether every arc of `v` leads to it (then a failed
    /// hub test settles `v` without its row), from one 4-byte read. O(1).
    #[inline]
    pub(crate) fn ask_hub(&self, v: Vertex) -> HubAsk {
        self.hubs.ask(v)
    }

    /// The number of arcs leaving `v`. O(1).
    #[inline]
    pub fn degree(&self, v: Vertex) -> u64 {
        self.offsets.degree(v as usize)
    }

    /// The degree sum of `vertices`, read in that order (at random, the
    /// misses overlapped: [`Offsets::degree_sum`]). O(`vertices`).
    #[inline]
    pub fn degree_sum(&self, vertices: &[Vertex]) -> u64 {
        self.offsets.degree_sum(vertices, |v| v as usize)
    }

    /// The search's nedge from the graph: half the degree sum of the reached
    /// vertices. For a valid BFS tree every non-self-loop tuple has both ends
    /// reached or neither, so this equals the reference rule (tuples,
    /// duplicates included, self-loops excluded, with an end in the searched
    /// component). The validator counts the same figure from the edge list
    /// independently and compares (check 6). O(N), parallel: one stream
    /// over the parents and the offsets, each degree masked by whether its
    /// vertex is reached (no branch: about half the vertices of a
    /// Kronecker graph are reached, in no order a predictor could learn).
    pub fn nedge(&self, parents: &Parents) -> u64 {
        const CHUNK: usize = 1 << 14;
        let slots = &parents.slots()[..self.num_vertices()];
        let arcs: u64 = slots
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, slots)| {
                let first = c * CHUNK;
                let reached = slots.iter().map(|p| p.load(Relaxed) != NO_PARENT);
                self.offsets.masked_degrees(first, reached)
            })
            .sum();
        arcs / 2
    }
}

/// Kernel 1's passes for either kind of row word (see the module
/// documentation): the offsets (as `O`, which must hold the arcs' count)
/// and the rows' words, `W::unpacked` of each arc, in the order of their
/// tuples. `weights` is empty, or one weight per tuple for a weighted `W`.
pub(crate) fn build_rows<W: Word, O: RowEnd, T: NarrowTuple>(
    backend: Backend,
    num_vertices: usize,
    edges: &[T],
    weights: &[f32],
) -> (Vec<O>, Vec<W>) {
    let blocks = Blocks::new(num_vertices);
    let staging = (!W::WEIGHTED && blocks.count > STAGE_MIN_BLOCKS).then_some(Staging::STANDARD);
    build_rows_as(backend, num_vertices, edges, weights, staging)
}

/// How the scatter is staged ([`Bins::scatter_staged`]).
#[derive(Clone, Copy, Debug)]
struct Staging {
    /// Blocks per group, as a power of two.
    group_bits: u32,
    /// Arcs a part stages at a time.
    arcs: usize,
}

impl Staging {
    /// [`GROUP_BITS`] and [`STAGE_ARCS`].
    const STANDARD: Staging = Staging {
        group_bits: GROUP_BITS,
        arcs: STAGE_ARCS,
    };
}

/// [`build_rows`], the scatter staged as `staging` says (direct if
/// `None`; only an unweighted build can be staged).
fn build_rows_as<W: Word, O: RowEnd, T: NarrowTuple>(
    backend: Backend,
    num_vertices: usize,
    edges: &[T],
    weights: &[f32],
    staging: Option<Staging>,
) -> (Vec<O>, Vec<W>) {
    assert!(
        staging.is_none() || !W::WEIGHTED,
        "a weighted scatter is direct"
    );
    let blocks = Blocks::new(num_vertices);

    let parts = Csr::parts(num_vertices, edges.len(), backend.threads());
    let piece_len = edges.len().div_ceil(parts).max(1);
    let pieces: Vec<&[T]> = edges.chunks(piece_len).collect();
    let piece_weights: Vec<&[f32]> = if W::WEIGHTED {
        assert_eq!(weights.len(), edges.len(), "one weight per tuple");
        weights.chunks(piece_len).collect()
    } else {
        vec![&[]; pieces.len()]
    };
    let counts: Vec<Vec<u32>> = backend.map(pieces.clone(), |p| blocks.count(p));
    let block_arcs: Vec<usize> = (0..blocks.count)
        .map(|b| counts.iter().map(|c| c[b] as usize).sum())
        .collect();
    let mut targets: Vec<W> = bytemuck::zeroed_vec(block_arcs.iter().sum());
    pages::prefault(backend, &mut targets);

    // Each part's slice of each block's region: blocks in order, parts
    // in order inside a block.
    let mut bins: Vec<Vec<&mut [W]>> = (0..pieces.len())
        .map(|_| Vec::with_capacity(blocks.count))
        .collect();
    let mut rest = targets.as_mut_slice();
    for b in 0..blocks.count {
        for (part, c) in bins.iter_mut().zip(&counts) {
            let (bin, tail) = rest.split_at_mut(c[b] as usize);
            part.push(bin);
            rest = tail;
        }
    }
    drop(counts);
    let scatters = (pieces.into_iter().zip(piece_weights)).zip(bins).collect();
    backend.for_each_init(
        scatters,
        || (),
        |(), ((piece, weights), bins)| Bins::new(bins).scatter(blocks, piece, weights, staging),
    );

    let starts = block_arcs.iter().scan(0u64, |start, &n| {
        let first = *start;
        *start += n as u64;
        Some(first)
    });
    let regions: Vec<(&mut [W], u64)> = runs(&mut targets, &block_arcs)
        .into_iter()
        .zip(starts)
        .collect();
    let largest = block_arcs.iter().copied().max().unwrap_or(0).min(SORT_CAP);
    let new_scratch = || Scratch {
        arcs: Vec::with_capacity(largest),
        next: Vec::with_capacity(1 << blocks.bits),
    };
    let mut offsets = vec![O::default(); num_vertices + 1];
    let sorts = offsets[1..]
        .chunks_mut(1 << blocks.bits)
        .zip(regions)
        .collect();
    backend.for_each_init(sorts, new_scratch, |scratch, (ends, (region, first))| {
        blocks.sort(region, ends, first, scratch);
    });
    (offsets, targets)
}

/// How the vertices are cut into blocks of `2^bits` consecutive ids, and
/// how an arc waits in its block's region: `target << bits | offset`, where
/// `offset` is the source's place inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Blocks {
    bits: u32,
    count: usize,
}

impl Blocks {
    /// Blocks of at most `2^MAX_BLOCK_BITS` vertices, fewer when the ids
    /// leave no room for the offset (down to one vertex a block for 32-bit
    /// ids).
    fn new(num_vertices: usize) -> Blocks {
        let id_bits = usize::BITS - num_vertices.saturating_sub(1).leading_zeros();
        let bits = MAX_BLOCK_BITS.min(Vertex::BITS.saturating_sub(id_bits));
        Blocks {
            bits,
            count: num_vertices.div_ceil(1 << bits),
        }
    }

    /// The block of `v`.
    #[inline]
    fn of(self, v: Vertex) -> usize {
        (v >> self.bits) as usize
    }

    /// The arc `source -> target` as it waits in the source's block.
    #[inline]
    fn pack(self, source: Vertex, target: Vertex) -> u32 {
        target << self.bits | (source & ((1 << self.bits) - 1))
    }

    /// Pass 1 for one part: its arcs per block. Self-loops are not arcs.
    fn count<T: NarrowTuple>(self, piece: &[T]) -> Vec<u32> {
        let mut counts = vec![0; self.count];
        for (u, v) in arcs_of(piece) {
            counts[self.of(u)] += 1;
            counts[self.of(v)] += 1;
        }
        counts
    }

    /// Pass 3 for one block: sorts its region by source and unpacks the
    /// targets, and writes `ends[v] = start + the end of v's row` for each
    /// of the block's vertices. A region of at most [`SORT_CAP`] arcs is
    /// counting-sorted through the scratch (independent loads and stores,
    /// all in L2; stable); a bigger one is sorted in place (American flag
    /// sort: each misplaced arc is swapped straight into its row, a chain of
    /// dependent loads, but no scratch).
    fn sort<W: Word, O: RowEnd>(
        self,
        region: &mut [W],
        ends: &mut [O],
        start: u64,
        scratch: &mut Scratch<W>,
    ) {
        let low = (1 << self.bits) - 1;
        let row_of = |arc: W| (arc.low() & low) as usize;
        let unpacked = |arc: W| arc.with_low(arc.low() >> self.bits);
        let next = &mut scratch.next;
        next.clear();
        next.resize(ends.len(), 0);
        for &arc in region.iter() {
            next[row_of(arc)] += 1;
        }
        let mut sum = 0;
        for (n, end) in next.iter_mut().zip(ends.iter_mut()) {
            let count = *n;
            *n = sum;
            sum += count;
            *end = O::of(start + sum as u64);
        }
        if region.len() <= SORT_CAP {
            let sorted = &mut scratch.arcs;
            sorted.resize(region.len(), W::default());
            for &arc in region.iter() {
                let row = &mut next[row_of(arc)];
                sorted[*row] = unpacked(arc);
                *row += 1;
            }
            region.copy_from_slice(sorted);
            return;
        }
        for v in 0..ends.len() {
            let end = usize::try_from(ends[v].into() - start).expect("a region is in memory");
            while next[v] < end {
                let mut arc = region[next[v]];
                loop {
                    let row = row_of(arc);
                    if row == v {
                        break;
                    }
                    let slot = next[row];
                    next[row] += 1;
                    arc = std::mem::replace(&mut region[slot], unpacked(arc));
                }
                region[next[v]] = unpacked(arc);
                next[v] += 1;
            }
        }
    }
}

/// A sorting worker's buffers, reused from block to block: the sorted
/// region and each row's next slot. Allocated at their largest use (at most
/// [`SORT_CAP`] arcs and a block's vertices), so they never grow.
struct Scratch<W> {
    arcs: Vec<W>,
    next: Vec<usize>,
}

/// Pass 2 for one part: its write position in every block's region. Each
/// block's arcs wait in a buffer that mirrors the cache line they go to
/// (`fill` is the position in that line) and are written when the line is
/// complete, so the scattered writes leave as whole lines, streamed past
/// the caches (no read of the line before it is overwritten).
struct Bins<'a, W> {
    slices: Vec<&'a mut [W]>,
    /// A line of words per block.
    lines: Vec<Line>,
    fill: Vec<u8>,
}

impl<'a, W: Word> Bins<'a, W> {
    /// Words in a cache line.
    const PER_LINE: usize = LINE * size_of::<u32>() / size_of::<W>();

    fn new(slices: Vec<&'a mut [W]>) -> Self {
        Bins {
            lines: vec![Line([0; LINE]); slices.len()],
            fill: slices.iter().map(|s| line_position(s)).collect(),
            slices,
        }
    }

    /// Appends each arc of `piece` to the part's slice of its source's
    /// block, in tuple order, with its tuple's weight from `weights` (empty
    /// unless `W` is weighted). Self-loops are not arcs. Staged
    /// ([`Bins::scatter_staged`]) if `staging` says so; the rows are the
    /// same either way.
    fn scatter<T: NarrowTuple>(
        mut self,
        blocks: Blocks,
        piece: &[T],
        weights: &[f32],
        staging: Option<Staging>,
    ) {
        LineWriter::scope(|writer| {
            if let Some(staging) = staging {
                self.scatter_staged(writer, blocks, piece, staging);
                return;
            }
            let arcs = piece
                .iter()
                .map(|e| e.vertices())
                .enumerate()
                .filter(|(_, (u, v))| u != v);
            for (i, (u, v)) in arcs {
                let weight = if W::WEIGHTED { weights[i] } else { 0.0 };
                self.push(writer, blocks.of(u), W::waiting(blocks.pack(u, v), weight));
                self.push(writer, blocks.of(v), W::waiting(blocks.pack(v, u), weight));
            }
        });
        self.finish();
    }

    /// [`Bins::scatter`] in two stages, `staging.arcs` arcs at a time (an
    /// unweighted build's): first each arc goes, with its block, to its
    /// group of `2^staging.group_bits` blocks in `staged`, through a line
    /// buffer per group (a thousand at SCALE 26: 64 KiB); then the staged
    /// arcs, group after group, go to their blocks, whose line buffers are
    /// now used one group's worth (64 KiB) at a time. Both stages keep the
    /// tuples' order within a block, so the rows are those of the direct
    /// scatter. Costs one more write and read of 8 bytes per arc.
    fn scatter_staged<T: NarrowTuple>(
        &mut self,
        writer: &mut LineWriter<'a>,
        blocks: Blocks,
        piece: &[T],
        staging: Staging,
    ) {
        let groups = blocks.count.div_ceil(1 << staging.group_bits);
        let group_of = |v: Vertex| blocks.of(v) >> staging.group_bits;
        let staged_arc = |source: Vertex, target: Vertex| {
            (blocks.of(source) as u64) << 32 | u64::from(blocks.pack(source, target))
        };
        let mut staged = vec![0u64; piece.len().saturating_mul(2).min(staging.arcs)];
        let mut counts = vec![0usize; groups];
        for chunk in piece.chunks((staging.arcs / 2).max(1)) {
            counts.fill(0);
            for (u, v) in arcs_of(chunk) {
                counts[group_of(u)] += 1;
                counts[group_of(v)] += 1;
            }
            let total = counts.iter().sum();
            let mut stage = Bins::<u64>::new(runs(&mut staged[..total], &counts));
            LineWriter::scope(|stage_writer| {
                for (u, v) in arcs_of(chunk) {
                    stage.push(stage_writer, group_of(u), staged_arc(u, v));
                    stage.push(stage_writer, group_of(v), staged_arc(v, u));
                }
            });
            stage.finish();
            for &arc in &staged[..total] {
                // The block in the high half, the waiting arc in the low.
                #[allow(clippy::cast_possible_truncation)]
                let (block, packed) = ((arc >> 32) as usize, arc as u32);
                self.push(writer, block, W::waiting(packed, 0.0));
            }
        }
    }

    /// Buffers `word` for block `b`; writes its line out once the line is
    /// complete.
    #[inline(always)]
    fn push(&mut self, writer: &mut LineWriter<'a>, b: usize, word: W) {
        let f = usize::from(self.fill[b]);
        let line: &mut [W] = bytemuck::cast_slice_mut(&mut self.lines[b].0);
        line[f] = word;
        if f + 1 < Self::PER_LINE {
            self.fill[b] += 1;
            return;
        }
        let from = usize::from(line_position(self.slices[b]));
        let (head, rest) = std::mem::take(&mut self.slices[b]).split_at_mut(Self::PER_LINE - from);
        if from == 0 {
            let whole = bytemuck::cast_slice_mut(head)
                .try_into()
                .expect("a whole line");
            writer.write(whole, &self.lines[b].0);
        } else {
            head.copy_from_slice(&bytemuck::cast_slice(&self.lines[b].0)[from..]);
        }
        self.slices[b] = rest;
        self.fill[b] = 0;
    }

    /// Writes out the partial lines: every slice is then full.
    fn finish(self) {
        for (slice, line) in self.slices.into_iter().zip(&self.lines) {
            let from = usize::from(line_position(slice));
            let line: &[W] = bytemuck::cast_slice(&line.0);
            slice.copy_from_slice(&line[from..from + slice.len()]);
        }
    }
}

/// The ends of the tuples of `piece` that are not self-loops, in order.
#[inline(always)]
fn arcs_of<T: NarrowTuple>(piece: &[T]) -> impl Iterator<Item = (Vertex, Vertex)> + '_ {
    piece.iter().map(|e| e.vertices()).filter(|(u, v)| u != v)
}

/// `slice` cut into consecutive runs of the given lengths (their sum at
/// most its length).
fn runs<'a, T>(mut slice: &'a mut [T], lengths: &[usize]) -> Vec<&'a mut [T]> {
    let mut runs = Vec::with_capacity(lengths.len());
    for &n in lengths {
        let (run, rest) = std::mem::take(&mut slice).split_at_mut(n);
        runs.push(run);
        slice = rest;
    }
    runs
}

/// One cache line of buffered words, aligned as the line it mirrors (so it
/// can be viewed as `u32`s or `u64`s).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u32; LINE]);

/// Where `slice` starts within its 64-byte cache line, in words.
fn line_position<W>(slice: &[W]) -> u8 {
    let position = slice.as_ptr().addr() % (LINE * size_of::<u32>()) / size_of::<W>();
    u8::try_from(position).expect("below LINE")
}

/// A row word of kernel 1: `u32` (the target) for [`Csr`], `u64` (the
/// target in the low half, the weight's bits in the high half) for a
/// weighted graph. While an arc waits in its region, the low half holds
/// `target << b | offset` instead of the target.
pub(crate) trait Word: bytemuck::Pod + Default + Send + Sync {
    /// Whether a word carries a weight.
    const WEIGHTED: bool;
    /// The waiting arc: `packed` (`target << b | offset`) and `weight`.
    fn waiting(packed: u32, weight: f32) -> Self;
    /// The low half.
    fn low(self) -> u32;
    /// The word with its low half replaced by `low`.
    fn with_low(self, low: u32) -> Self;
}

impl Word for u32 {
    const WEIGHTED: bool = false;
    #[inline(always)]
    fn waiting(packed: u32, _: f32) -> Self {
        packed
    }
    #[inline(always)]
    fn low(self) -> u32 {
        self
    }
    #[inline(always)]
    fn with_low(self, low: u32) -> Self {
        low
    }
}

impl Word for u64 {
    const WEIGHTED: bool = true;
    #[inline(always)]
    fn waiting(packed: u32, weight: f32) -> Self {
        u64::from(weight.to_bits()) << 32 | u64::from(packed)
    }
    #[inline(always)]
    fn low(self) -> u32 {
        // The low half, on purpose.
        #[allow(clippy::cast_possible_truncation)]
        let low = self as u32;
        low
    }
    #[inline(always)]
    fn with_low(self, low: u32) -> Self {
        self & !u64::from(u32::MAX) | u64::from(low)
    }
}

mod offsets;
pub(crate) mod pages;
pub use pages::prefault;
#[cfg(test)]
mod tests;
