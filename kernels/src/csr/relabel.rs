//! The BFS graph renumbered by degree (issue 33's first lever): a copy of a
//! built [`Csr`] whose row `new(v)` holds original vertex `v`'s arcs, each
//! target renumbered, in the order of [`Labels::by_degree`] (degree classes,
//! four to an octave, highest first; kernel 3's order, shared).
//!
//! Idea: numbered first, the hubs share cache lines in the frontier and
//! visited bitmaps, and a bottom-up step, which walks the vertices in order,
//! meets the vertices with many arcs (found early) together. The search
//! writes its parents in the original labels as it finds them
//! ([`DoBfs::relabelled`](crate::DoBfs::relabelled)), so no pass translates
//! them back.
//!
//! Invariants: the copy's row `new(v)` is `v`'s row, in the same order, each
//! target `t` written `new(t)`; its hubs are found afresh on the copy. One
//! parallel pass over the rows, deterministic for any thread count and
//! backend (each piece of rows is written by one worker).

use super::{Csr, runs};
use crate::{Backend, Labels};
use generator::Vertex;

/// Rows a work item of the copy renumbers.
const PIECE: usize = 1 << 12;

impl Csr {
    /// The graph renumbered by [`Labels::by_degree`], and the labels, on
    /// `backend`. Allocates a second graph (`Csr::graph_bytes`) while `self`
    /// lives, and [`Labels::bytes_for`].
    pub fn relabelled_on(&self, backend: Backend) -> (Csr, Labels) {
        let labels = Labels::by_degree(&self.offsets);
        let n = self.num_vertices();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut end = 0;
        for i in 0..n {
            end += self.degree(labels.original(Vertex::try_from(i).expect("ids fit Vertex")));
            offsets.push(end);
        }
        let mut targets: Vec<Vertex> = bytemuck::zeroed_vec(self.targets.len());
        super::pages::prefault(backend, &mut targets);
        #[allow(clippy::cast_possible_truncation)] // offsets index the arcs
        let lengths: Vec<usize> = (0..n.div_ceil(PIECE))
            .map(|p| (offsets[((p + 1) * PIECE).min(n)] - offsets[p * PIECE]) as usize)
            .collect();
        let pieces = runs(&mut targets, &lengths)
            .into_iter()
            .enumerate()
            .collect();
        backend.for_each_init(
            pieces,
            || (),
            |(), (p, mut out): (usize, &mut [Vertex])| {
                for i in p * PIECE..((p + 1) * PIECE).min(n) {
                    let v = labels.original(Vertex::try_from(i).expect("ids fit Vertex"));
                    let row = self.neighbors(v);
                    let (to, rest) = std::mem::take(&mut out).split_at_mut(row.len());
                    for (to, &t) in to.iter_mut().zip(row) {
                        *to = labels.new_label(t);
                    }
                    out = rest;
                }
            },
        );
        (Csr::from_parts_on(backend, offsets, targets), labels)
    }
}
