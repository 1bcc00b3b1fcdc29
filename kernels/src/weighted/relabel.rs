//! Degree-ordered relabelling of the weighted graph, for kernel 3: the rows
//! renumbered so that the vertices of highest degree come first
//! ([`Labels::by_degree`]), each row's targets renumbered with them.
//!
//! Delta-stepping's random reads (a vertex's 8-byte state, its row bounds,
//! its light count) mostly land on the hubs and their neighbours; numbered
//! first, the hubs share cache lines and pages, and a pull, which walks the
//! vertices in order, meets the rows worth reading together. The BFS graph
//! is not renumbered (a BFS would pay for translating its parents back more
//! than it gains; docs/history-kernels.md#relabel).
//!
//! The order is by degree class ([`degree_class`], four to an octave,
//! highest first), ties by original id: one counting sort over at most 252
//! classes, O(N), cheaper than a sort by exact degree and as good for the
//! cache (a class's vertices have nearly the same degree).
//!
//! Invariants: `original` and `new` are inverse permutations of `0..N`;
//! the renumbered graph's row `new(v)` holds `v`'s arcs, in the same order,
//! each target `t` written `new(t)` with its weight, then split as
//! [`WeightedCsr::split_light`] splits. Deterministic: the labels depend
//! only on the degrees.

use super::WeightedCsr;
use crate::{Backend, degree_class};
use generator::Vertex;

/// A renumbering of the vertices: `new(v)` is original vertex `v`'s row,
/// `original(i)` the original vertex of row `i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    new: Vec<Vertex>,
    original: Vec<Vertex>,
}

impl Labels {
    /// Vertices ordered by decreasing degree class ([`degree_class`]), ties
    /// by id, from a graph's row offsets (`N + 1` of them). One counting
    /// sort: two passes over the offsets and one over the classes.
    pub fn by_degree(offsets: &[u64]) -> Labels {
        let n = offsets.len() - 1;
        let classes: Vec<u8> = (offsets.windows(2))
            .map(|row| degree_class(row[1] - row[0]))
            .collect();
        let mut starts = [0u32; 257];
        for &c in &classes {
            starts[255 - usize::from(c) + 1] += 1;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let (mut new, mut original) = (vec![0; n], vec![0; n]);
        for (v, &c) in classes.iter().enumerate() {
            let slot = &mut starts[255 - usize::from(c)];
            new[v] = *slot;
            original[*slot as usize] = Vertex::try_from(v).expect("ids fit Vertex");
            *slot += 1;
        }
        Labels { new, original }
    }

    /// Original vertex `v`'s label (its row in the renumbered graph).
    #[inline]
    pub fn new_label(&self, v: Vertex) -> Vertex {
        self.new[v as usize]
    }

    /// The original vertex of row `i`.
    #[inline]
    pub fn original(&self, i: Vertex) -> Vertex {
        self.original[i as usize]
    }

    /// Starts loading the original vertex of row `i`.
    #[inline]
    pub fn prefetch_original(&self, i: Vertex) {
        par::hint::prefetch(&self.original[i as usize]);
    }

    /// Bytes of the labels of `num_vertices` vertices: two `u32` a vertex.
    pub fn bytes_for(num_vertices: u64) -> u64 {
        8 * num_vertices
    }
}

impl WeightedCsr {
    /// The graph renumbered by degree ([`Labels::by_degree`]) and split
    /// light-first at `below` ([`WeightedCsr::split_light`]), in one
    /// parallel pass on `backend` that copies each row to its new place,
    /// renumbering its targets, and splits it there. `self` must be in its
    /// original labels (panics otherwise). Allocates a second graph's arcs
    /// (`8 * 2 M` bytes, while `self` lives) and
    /// [`Labels::bytes_for`]. Searches of the result take and give
    /// original labels ([`DeltaStepping`](crate::DeltaStepping)).
    pub fn relabelled_on(&self, backend: Backend, below: f32) -> WeightedCsr {
        assert!(self.labels.is_none(), "relabels original labels only");
        let labels = Labels::by_degree(&self.offsets);
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        let mut end = 0;
        for &v in &labels.original {
            end += self.degree(v);
            offsets.push(end);
        }
        // Fresh zeroed pages fault on first write; mapping them ahead in
        // parallel pieces is what kernel 1 does for `targets` (a hint).
        let mut arcs = vec![0; self.arcs.len()];
        crate::csr::pages::prefault(backend, &mut arcs);
        let mut graph = WeightedCsr::of_rows(offsets, arcs);
        let old = &self.offsets;
        graph.split_rows_on(backend, below, |i, row| {
            let v = labels.original[i] as usize;
            #[allow(clippy::cast_possible_truncation)] // offsets index the arcs
            let from = &self.arcs[old[v] as usize..old[v + 1] as usize];
            for (to, &word) in row.iter_mut().zip(from) {
                #[allow(clippy::cast_possible_truncation)] // the low half: the target
                let target = labels.new[word as u32 as usize];
                *to = (word & !u64::from(u32::MAX)) | u64::from(target);
            }
        });
        graph.labels = Some(labels);
        graph
    }

    /// Bytes relabelling adds to a run of kernel 3 on `num_vertices`
    /// vertices and `num_edges` tuples, beside
    /// [`WeightedCsr::bytes_for`]: the renumbered arcs while the original
    /// ones live, the [`Labels`], and the 8 bytes a vertex in which a
    /// search writes its result back in the original labels.
    pub fn relabel_bytes_for(num_vertices: u64, num_edges: u64) -> u64 {
        8 * 2 * num_edges + Labels::bytes_for(num_vertices) + 8 * num_vertices
    }

    /// The renumbering of a graph made by [`WeightedCsr::relabelled_on`]:
    /// row `i` is original vertex `labels.original(i)`; `None` when the
    /// rows are the original vertices.
    pub fn labels(&self) -> Option<&Labels> {
        self.labels.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WeightedArc;
    use generator::{EdgeGenerator, Kronecker};

    /// Guards the renumbering: the labels are inverse permutations in
    /// decreasing degree class, ties by id; row `new(v)` holds `v`'s arcs
    /// with their targets renumbered, light ones first in their order and
    /// heavy ones sorted by weight, as [`WeightedCsr::split_light`] leaves
    /// `v`'s row; the light counts and lightest heavy weights follow the
    /// rows; and the result is the same on both backends and any thread
    /// count.
    #[test]
    fn relabelled_rows_are_the_split_rows_renumbered_by_degree() {
        let list = Kronecker::new(11, 16, 4).unwrap().generate();
        let w = crate::sssp_delta::tests::weights(list.len());
        let g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
        let mut split = g.clone();
        split.split_light(0.25);
        let r = par::in_pool(1, || g.relabelled_on(Backend::Rayon, 0.25)).unwrap();
        for threads in [2, 3] {
            let again = par::in_pool(threads, || g.relabelled_on(Backend::Rayon, 0.25)).unwrap();
            assert_eq!(again, r, "rayon, {threads} threads");
            let pipes = par::with_pool(threads, || g.relabelled_on(Backend::Pipes, 0.25));
            assert_eq!(pipes, r, "pipes, {threads} threads");
        }
        let labels = r.labels().expect("relabelled");
        assert!(g.labels().is_none() && split.labels().is_none());
        assert_eq!(r.light_below(), Some(0.25));
        let n = g.num_vertices() as u32;
        for i in 0..n {
            assert_eq!(labels.new_label(labels.original(i)), i, "row {i}");
            if i > 0 {
                let (a, b) = (labels.original(i - 1), labels.original(i));
                let (ca, cb) = (degree_class(g.degree(a)), degree_class(g.degree(b)));
                assert!(ca > cb || (ca == cb && a < b), "rows {} and {i}", i - 1);
            }
        }
        for v in 0..n {
            let renumbered: Vec<WeightedArc> = (split.arcs(v).iter())
                .map(|a| WeightedArc {
                    target: labels.new_label(a.target),
                    weight: a.weight,
                })
                .collect();
            let i = labels.new_label(v);
            let (light, heavy) = r.light_and_heavy(i);
            let (want_light, want_heavy) = renumbered.split_at(split.light_count(v));
            assert_eq!(light, want_light, "vertex {v}");
            let key = |a: &WeightedArc| (a.weight.to_bits(), a.target);
            let (mut got, mut want) = (heavy.to_vec(), want_heavy.to_vec());
            assert!(got.is_sorted_by_key(|a| a.weight.to_bits()), "vertex {v}");
            got.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(got, want, "vertex {v}");
            assert_eq!(
                r.lightest_heavy(i).to_bits(),
                split.lightest_heavy(v).to_bits()
            );
        }
    }
}
