//! The floors under each timed phase: the least memory traffic any code
//! doing that phase's job must make, performed as plainly as possible, so
//! that a phase's time over its floor's says how far from the machine's
//! limit it is. Used by `benches/floors.rs` (every phase beside its floor)
//! and `benches/pipeline.rs` (criterion rows).
//!
//! - Kernel 1 ([`construct`]): read every tuple once and write both of its
//!   arcs once, in order, into a fresh array: no counting, no scattering.
//! - BFS ([`BfsFloor`]): the search's own levels are known beforehand (an
//!   oracle), and each level takes the cheaper direction by bytes: top-down
//!   reads each frontier vertex's row and tests one visited bit per arc;
//!   bottom-up reads the frontier bitmap, each unreached vertex's row end
//!   (4 or 8 bytes, as the graph keeps them), one bit for a vertex found
//!   (its parent's: the oracle knows it) and the whole row of one not
//!   found (it must prove no neighbour is in the frontier); both write
//!   each found vertex's parent. No queue, no atomics, no search.
//! - Validation ([`read_parents`], [`stream_tuples`]): as a run validates
//!   (sixteen searches judged in one pass over block-ordered tuples, whose
//!   two cells a tuple are then cache hits): one read of the search's
//!   parent array with each parent's level, plus a sixteenth of one stream
//!   over the tuples.
//! - Kernel 3 ([`SsspFloor`]): every reached vertex reads all its arcs
//!   (target and weight) once and one distance per arc, and writes its own
//!   distance and parent: one relaxation per arc, none repeated.
//!
//! Everything outside the returned closures' work (levels, lists, bitmaps)
//! is prepared untimed.

// Each bench uses some of these.
#![allow(dead_code)]

use generator::Edge;
use kernels::{Csr, Vertex, WeightedCsr};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Items per parallel task.
const GRAIN: usize = 1 << 12;

/// Kernel 1's floor: both arcs of every tuple written once, in order.
pub(crate) fn construct(edges: &[Edge]) -> Vec<u32> {
    let mut targets = vec![0u32; 2 * edges.len()];
    targets
        .par_chunks_mut(2 << 14)
        .zip(edges.par_chunks(1 << 14))
        .for_each(|(out, chunk)| {
            for (pair, e) in out.chunks_exact_mut(2).zip(chunk) {
                pair[0] = e.v;
                pair[1] = e.u;
            }
        });
    targets
}

/// Validation's per-search floor, first part: the search's parent array
/// read once, with each reached vertex's parent's level (what proving the
/// tree's levels reads at least). Returns a sum of what it read.
pub(crate) fn read_parents(parents: &[i64], levels: &[u8]) -> u64 {
    parents
        .par_chunks(1 << 14)
        .map(|c| {
            c.iter()
                .filter_map(|&p| usize::try_from(p).ok())
                .map(|p| u64::from(levels[p]))
                .sum::<u64>()
        })
        .sum()
}

/// Validation's per-batch floor: the tuples streamed once (a search's
/// share is this over the batch's lanes). Returns a sum of the ids.
pub(crate) fn stream_tuples(edges: &[Edge]) -> u64 {
    edges
        .par_chunks(1 << 14)
        .map(|c| c.iter().map(|e| u64::from(e.u ^ e.v)).sum::<u64>())
        .sum()
}

/// A bitmap over the vertices, one bit each.
fn bitmap(n: usize, members: impl Iterator<Item = u32>) -> Vec<u64> {
    let mut words = vec![0u64; n.div_ceil(64)];
    for v in members {
        words[v as usize / 64] |= 1 << (v % 64);
    }
    words
}

fn has(words: &[u64], v: Vertex) -> u64 {
    (words[v as usize / 64] >> (v % 64)) & 1
}

/// One level of the oracle search.
struct Level {
    /// Whether it goes bottom-up (fewer bytes that way).
    bottom_up: bool,
    /// Top-down: the frontier. Bottom-up: the unreached vertices it does
    /// not find (whole rows).
    scan: Vec<Vertex>,
    /// The vertices it finds, with their parents.
    found: Vec<(Vertex, Vertex)>,
    /// Top-down: the vertices reached before it. Bottom-up: its frontier.
    bits: Vec<u64>,
}

/// The BFS floor of one search: its levels, directions and lists.
pub(crate) struct BfsFloor {
    levels: Vec<Level>,
    /// The oracle's tree: each vertex's parent (`-1` unreached) and level.
    pub(crate) tree: Vec<i64>,
    pub(crate) depth: Vec<u8>,
    parents: Vec<AtomicU32>,
    /// The bytes the floor moves (rows, offsets, bitmaps, parents).
    pub(crate) bytes: u64,
}

impl BfsFloor {
    /// The floor of the search of `graph` from `root` (levels by a plain
    /// sequential BFS, untimed).
    pub(crate) fn new(graph: &Csr, root: Vertex) -> BfsFloor {
        let n = graph.num_vertices();
        let ids = 0..Vertex::try_from(n).expect("32-bit ids");
        let mut level = vec![u32::MAX; n];
        let mut parent = vec![u32::MAX; n];
        level[root as usize] = 0;
        parent[root as usize] = root;
        let mut frontier = vec![root];
        let mut levels = Vec::new();
        let mut bytes = 0u64;
        let row = |v: Vertex| 4 * graph.degree(v) + graph.end_bytes();
        for k in 0u32.. {
            if frontier.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for &u in &frontier {
                for &t in graph.neighbors(u) {
                    if level[t as usize] == u32::MAX {
                        (level[t as usize], parent[t as usize]) = (k + 1, u);
                        next.push(t);
                    }
                }
            }
            let found: Vec<_> = next.iter().map(|&v| (v, parent[v as usize])).collect();
            let top_down: u64 = frontier.iter().map(|&u| row(u)).sum();
            let missed: Vec<Vertex> = ids
                .clone()
                .filter(|&v| level[v as usize] == u32::MAX && graph.degree(v) > 0)
                .collect();
            let bottom_up = n as u64 / 8
                + missed.iter().map(|&v| row(v)).sum::<u64>()
                + 12 * found.len() as u64;
            let bits_before = |v: Vertex| level[v as usize] <= k;
            let l = if bottom_up < top_down {
                bytes += bottom_up;
                Level {
                    bottom_up: true,
                    scan: missed,
                    found,
                    bits: bitmap(n, frontier.iter().copied()),
                }
            } else {
                bytes += top_down;
                Level {
                    bottom_up: false,
                    scan: frontier,
                    found,
                    bits: bitmap(n, ids.clone().filter(|&v| bits_before(v))),
                }
            };
            bytes += 4 * l.found.len() as u64;
            levels.push(l);
            frontier = next;
        }
        BfsFloor {
            tree: parent
                .iter()
                .map(|&p| if p == u32::MAX { -1 } else { i64::from(p) })
                .collect(),
            depth: level.iter().map(|&l| l.min(255) as u8).collect(),
            levels,
            parents: (0..n).map(|_| AtomicU32::new(u32::MAX)).collect(),
            bytes,
        }
    }

    /// The floor's work, once; returns a sum of what it read.
    pub(crate) fn run(&self, graph: &Csr) -> u64 {
        let mut sum = 0;
        for l in &self.levels {
            sum += if l.bottom_up {
                let frontier: u64 = l
                    .bits
                    .par_chunks(GRAIN)
                    .map(|c| c.iter().sum::<u64>())
                    .sum();
                frontier.wrapping_add(
                    l.found
                        .par_chunks(GRAIN)
                        .map(|c| {
                            c.iter()
                                .map(|&(v, p)| self.adopt(&l.bits, v, p))
                                .sum::<u64>()
                        })
                        .sum::<u64>(),
                )
            } else {
                l.found
                    .par_chunks(GRAIN)
                    .map(|c| c.iter().map(|&(v, p)| self.set(v, p)).sum::<u64>())
                    .sum()
            };
            sum += l
                .scan
                .par_chunks(GRAIN / 16)
                .map(|c| {
                    c.iter()
                        .map(|&u| {
                            graph
                                .neighbors(u)
                                .iter()
                                .map(|&t| has(&l.bits, t))
                                .sum::<u64>()
                        })
                        .sum::<u64>()
                })
                .sum::<u64>();
        }
        sum
    }

    fn adopt(&self, bits: &[u64], v: Vertex, p: Vertex) -> u64 {
        has(bits, p) + self.set(v, p)
    }

    fn set(&self, v: Vertex, p: Vertex) -> u64 {
        self.parents[v as usize].store(p, Relaxed);
        1
    }
}

/// The SSSP floor of one search: the vertices it reaches.
pub(crate) struct SsspFloor {
    reached: Vec<Vertex>,
    dist: Vec<f32>,
    /// Each reached vertex's distance bits and parent, written by the run.
    out: Vec<AtomicU64>,
    /// The bytes the floor moves (arcs, one distance per arc, a distance
    /// and parent per reached vertex).
    pub(crate) bytes: u64,
}

impl SsspFloor {
    /// The floor of the search of `graph` from `root`: its component,
    /// found untimed.
    pub(crate) fn new(graph: &WeightedCsr, root: Vertex) -> SsspFloor {
        let n = graph.num_vertices();
        let mut seen = vec![false; n];
        seen[root as usize] = true;
        let mut reached = vec![root];
        let mut i = 0;
        while i < reached.len() {
            for a in graph.arcs(reached[i]) {
                if !std::mem::replace(&mut seen[a.target as usize], true) {
                    reached.push(a.target);
                }
            }
            i += 1;
        }
        reached.sort_unstable();
        let arcs: u64 = reached.iter().map(|&v| graph.degree(v)).sum();
        SsspFloor {
            bytes: 12 * arcs + 16 * reached.len() as u64,
            reached,
            dist: (0..n).map(|v| v as f32).collect(),
            out: (0..n).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The floor's work, once: each reached vertex's least offer, written
    /// with its parent. Returns their sum.
    pub(crate) fn run(&self, graph: &WeightedCsr) -> f32 {
        self.reached
            .par_chunks(GRAIN / 16)
            .map(|c| {
                let mut sum = 0.0f32;
                for &v in c {
                    let (d, p) = graph
                        .arcs(v)
                        .iter()
                        .map(|a| (self.dist[a.target as usize] + a.weight, a.target))
                        .fold((f32::INFINITY, v), |b, x| if x.0 < b.0 { x } else { b });
                    sum += d;
                    let cell = u64::from(d.to_bits()) << 32 | u64::from(p);
                    self.out[v as usize].store(cell, Relaxed);
                }
                sum
            })
            .sum()
    }
}
