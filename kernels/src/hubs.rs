//! `Hubs`: for every vertex, one neighbour worth asking first.
//!
//! A bottom-up step asks each unreached vertex whether one of its
//! neighbours is in the frontier. In the big middle levels of a
//! small-world graph the answer is almost always yes, and the neighbour
//! that says so is almost always a high-degree one: such vertices are
//! reached in the first two or three levels. So kernel 1 records, per
//! vertex, its neighbour of highest degree (its *hub*), and a bottom-up
//! step tests the hub's frontier bit before it opens the row. A hit costs
//! a sequential 4-byte read and a bit of the frontier (in cache), where
//! opening the row costs its two offsets and at least one cache line of
//! `targets` from memory: the hubs array is the dense summary of the
//! first line the step would read.
//!
//! Which neighbour: the highest *degree class* (a quarter of an octave,
//! [`degree_class`]: degrees 0 to 7 each a class, then 8-9, 10-11, 12-13,
//! 14-15, 16-19, ...) among the first
//! [`HUB_SAMPLE`] arcs of the row, the first such arc on a tie. The
//! classes of all vertices fit in one byte each (1 MiB at SCALE 20, in
//! cache), so the build reads each row's first arcs once and looks each
//! target up in cache; exact degrees would be two random reads of the
//! offsets per arc. A sample is enough: the vertices bottom-up
//! steps scan are mostly of low degree, and their samples are their whole
//! rows (docs/history-kernels.md#hubs). A vertex without arcs is its own
//! hub: it is never in the frontier when it is scanned, so the test fails
//! and costs nothing else.
//!
//! A vertex whose every arc leads to its hub (degree 1, or a hub repeated
//! by duplicate tuples: a quarter of the vertices with arcs at SCALE 22)
//! is *alone with its hub*: when the hub test fails, its row holds nothing
//! else to test, so a bottom-up step skips the row ([`Hubs::ask`]). The
//! mark is the top bit of the vertex's hub entry, free while ids are
//! below `2^31` (one process's limit); above, no vertex is marked.
//!
//! Invariant: `hub(v)` is a neighbour of `v`, or `v` itself when `v` has
//! no arcs; a marked vertex has arcs, and all of them lead to its hub.
//! Deterministic: it depends only on the rows, which are the same for any
//! thread count. Memory: 4 bytes a vertex, plus 1 a vertex while building.

use crate::Backend;
use crate::csr::Offsets;
use generator::Vertex;

/// How many arcs at the front of a row compete to be its hub.
pub const HUB_SAMPLE: usize = 16;

/// Vertices per work item of the build.
const PIECE: usize = 1 << 14;

/// The mark of a vertex alone with its hub, in its hub entry.
const ALONE: Vertex = 1 << 31;

/// Each vertex's hub, built by kernel 1 beside the rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hubs {
    /// The hub, with `mark` set when every arc leads to it.
    hubs: Vec<Vertex>,
    /// [`ALONE`], or 0 in a graph whose ids need every bit.
    mark: Vertex,
}

/// What a bottom-up step learns from one read of a vertex's hub entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HubAsk {
    /// The vertex's hub ([`Csr::hub`](crate::Csr::hub)).
    pub(crate) hub: Vertex,
    /// Every arc of the vertex leads to `hub`: if the hub is not in the
    /// frontier, no neighbour is.
    pub(crate) alone: bool,
}

impl Hubs {
    /// The hubs of the rows `targets[offsets[v]..offsets[v + 1]]`, on
    /// `backend`. Two passes over the vertices: their classes from the
    /// offsets, then each row's first [`HUB_SAMPLE`] arcs. O(N + N ×
    /// HUB_SAMPLE), reading at most one or two lines of each row.
    pub(crate) fn build_on(backend: Backend, offsets: &Offsets, targets: &[Vertex]) -> Hubs {
        let n = offsets.rows();
        let degree = |v: usize| offsets.degree(v);
        let mut classes = vec![0u8; n];
        fill_each(backend, &mut classes, |v| degree_class(degree(v)));
        // Ids below 2^31 leave the top bit free for the mark.
        let mark = if n <= ALONE as usize { ALONE } else { 0 };
        let mut hubs = vec![0; n];
        fill_each(backend, &mut hubs, |v| {
            let row = &targets[offsets.row(v)];
            let own = Vertex::try_from(v).expect("ids fit Vertex");
            match hub_of(row, |t| classes[t as usize]) {
                Some(hub) if alone_with(row, hub) => hub | mark,
                Some(hub) => hub,
                None => own,
            }
        });
        Hubs { hubs, mark }
    }

    /// `v`'s hub: a neighbour of `v`, or `v` if it has none.
    #[inline]
    pub(crate) fn of(&self, v: Vertex) -> Vertex {
        self.ask(v).hub
    }

    /// `v`'s hub, and whether `v` is alone with it, from one read.
    #[inline]
    pub(crate) fn ask(&self, v: Vertex) -> HubAsk {
        let entry = self.hubs[v as usize];
        HubAsk {
            hub: entry & !self.mark,
            alone: entry & self.mark != 0,
        }
    }

    /// Heap bytes: 4 a vertex.
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.hubs.len() * size_of::<Vertex>()) as u64
    }
}

/// `out[v] = value(v)` for every `v`, in parallel on `backend`, pieces of
/// [`PIECE`] elements a work item.
fn fill_each<T: Send>(backend: Backend, out: &mut [T], value: impl Fn(usize) -> T + Sync + Send) {
    let pieces = out.chunks_mut(PIECE).enumerate().collect();
    backend.for_each_init(
        pieces,
        || (),
        |(), (i, piece): (usize, &mut [T])| {
            for (j, x) in piece.iter_mut().enumerate() {
                *x = value(i * PIECE + j);
            }
        },
    );
}

/// The hub of `row` (targets of any id type): the first of highest
/// `class` ([`degree_class`] of the target's degree) among its first
/// [`HUB_SAMPLE`] arcs; `None` if the row is empty. Shared with the ranks'
/// search (`graph500-dist`), whose classes come from every rank.
pub fn hub_of<T: Copy>(row: &[T], class: impl Fn(T) -> u8) -> Option<T> {
    let (first, rest) = row[..row.len().min(HUB_SAMPLE)].split_first()?;
    let mut best = (*first, class(*first));
    for &t in rest {
        let c = class(t);
        if c > best.1 {
            best = (t, c);
        }
    }
    Some(best.0)
}

/// Whether every arc of `row` leads to `hub` (its hub, [`hub_of`]), for
/// the mark that lets a bottom-up step skip the row: only rows within the
/// sample are checked (the arcs the hub's choice read anyway), so a longer
/// row is never marked. Shared with the ranks' hubs (`graph500-dist`).
pub fn alone_with<T: Copy + PartialEq>(row: &[T], hub: T) -> bool {
    !row.is_empty() && row.len() <= HUB_SAMPLE && row.iter().all(|&t| t == hub)
}

/// A degree's class, four to an octave: degrees 0-3 are their own class;
/// above, the octave and the two bits below the leading one. Monotone in
/// the degree; at most 251.
pub fn degree_class(degree: u64) -> u8 {
    if degree < 4 {
        return u8::try_from(degree).expect("below 4");
    }
    let octave = 63 - degree.leading_zeros();
    let quarter = u32::try_from((degree >> (octave - 2)) & 3).expect("two bits");
    // octave <= 63, so the class is at most 4 * 62 + 3 = 251.
    u8::try_from(4 * (octave - 1) + quarter).expect("at most 251")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_classes_are_monotone_quarter_octaves() {
        let classes: Vec<u8> = (0..20).map(degree_class).collect();
        assert_eq!(
            classes,
            [
                0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 12, 12
            ]
        );
        let mut last = 0;
        for d in (0..40)
            .map(|s| 1u64 << s)
            .flat_map(|p| [p, p + p / 3, p + p / 2])
        {
            assert!(degree_class(d) >= last, "class of {d} went down");
            last = degree_class(d);
        }
        assert_eq!(degree_class(u64::MAX), 251);
    }

    #[test]
    fn a_hub_is_the_first_neighbour_of_highest_class_in_the_sample() {
        // Vertex 0's row: 1 (degree 1), 2 and 3 (degree 3), 4 (degree 9).
        let mut rows: Vec<Vec<Vertex>> =
            vec![vec![1, 2, 3, 4], vec![0], vec![0, 5, 6], vec![0, 5, 6]];
        rows.push((0..9).map(|_| 0).collect());
        rows.extend([vec![2, 3], vec![2, 3], vec![]]);
        let (offsets, targets) = flatten(&rows);
        let hubs = Hubs::build_on(Backend::Rayon, &offsets, &targets);
        assert_eq!(hubs.of(0), 4, "degree 9 beats degree 3");
        assert_eq!(hubs.of(1), 0);
        assert_eq!(hubs.of(5), 2, "a tie goes to the first");
        assert_eq!(hubs.of(7), 7, "no arcs: its own hub");
    }

    /// Guards the row skip of bottom-up steps: only a vertex whose every
    /// arc leads to its hub is marked alone, and the mark never shows in
    /// the hub itself.
    #[test]
    fn a_vertex_is_alone_only_when_every_arc_leads_to_its_hub() {
        // 0: [1, 2]; 1: [0]; 2: [0, 0, 0] (duplicates); 3: [] ; 4: [0, 1].
        let rows: Vec<Vec<Vertex>> = vec![vec![1, 2], vec![0], vec![0, 0, 0], vec![], vec![0, 1]];
        let (offsets, targets) = flatten(&rows);
        let hubs = Hubs::build_on(Backend::Rayon, &offsets, &targets);
        let alone: Vec<bool> = (0..5).map(|v| hubs.ask(v).alone).collect();
        assert_eq!(alone, [false, true, true, false, false]);
        for v in 0..5 {
            assert_eq!(hubs.ask(v).hub, hubs.of(v));
            assert!(hubs.of(v) < 5, "vertex {v}: the mark leaked into the hub");
        }
        assert_eq!(hubs.of(2), 0);
    }

    #[test]
    fn only_the_sample_competes_and_backends_agree() {
        let mut row: Vec<Vertex> = (1..=HUB_SAMPLE as Vertex).collect();
        row.push(HUB_SAMPLE as Vertex + 1);
        let mut rows = vec![row];
        // Every vertex but the last links back to 0 once; the last, out
        // of the sample, has the most arcs.
        for v in 1..=HUB_SAMPLE as Vertex + 1 {
            let extra = if v == HUB_SAMPLE as Vertex + 1 {
                40
            } else {
                usize::from(v == 3)
            };
            rows.push(std::iter::repeat_n(0, 1 + extra).collect());
        }
        let (offsets, targets) = flatten(&rows);
        let on_rayon = Hubs::build_on(Backend::Rayon, &offsets, &targets);
        assert_eq!(on_rayon.of(0), 3);
        assert_eq!(on_rayon, Hubs::build_on(Backend::Pipes, &offsets, &targets));
    }

    fn flatten(rows: &[Vec<Vertex>]) -> (Offsets, Vec<Vertex>) {
        let mut offsets = vec![0];
        for row in rows {
            offsets.push(offsets.last().unwrap() + row.len() as u64);
        }
        (Offsets::Wide(offsets), rows.concat())
    }
}
