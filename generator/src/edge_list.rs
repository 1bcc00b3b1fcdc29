//! `EdgeList`: the benchmark's input, an ordered list of undirected
//! edge tuples over vertices `0..num_vertices`.
//!
//! Invariant: every id in an `EdgeList` is below its `num_vertices`, and
//! `num_vertices <= MAX_VERTICES`. Constructors that take outside data check
//! it; the generator's output holds it by construction.
//!
//! Weights (kernel 3, SSSP) are optional, one `f32` per tuple beside the
//! tuples (`weights[i]` belongs to tuple `i`), present only when asked for
//! ([`EdgeList::with_weights`]): each one [`is_weight`].
//!
//! A generated run's list may be packed, seven bytes a tuple
//! ([`PackedEdge`], [`EdgeGenerator::generate_packed_reporting`](crate::EdgeGenerator::generate_packed_reporting)):
//! whatever reads either kind reads [`EdgeList::tuples`], generic code
//! through [`with_tuples!`](crate::with_tuples) (one body, monomorphised for
//! each kind); [`EdgeList::unpack`] turns it into [`Edge`]s in place for
//! readers of [`EdgeList::edges`].

use crate::{Edge, Error, MAX_VERTICES, NarrowTuple, PackedEdge, Tuple};
use memmap2::Mmap;
use rayon::prelude::*;
use std::borrow::Cow;

/// Where an edge list's tuples live.
enum Storage {
    Owned(Vec<Edge>),
    /// `len` [`PackedEdge`]s in the first `7 len` bytes of `words` (held
    /// as `u32`s so that unpacking can turn the allocation into [`Edge`]s).
    Packed {
        words: Vec<u32>,
        len: usize,
    },
    /// A read-only map of a binary file; `start` is the byte offset of the
    /// first tuple (a multiple of 8, so the view is aligned), `weights`
    /// that of the first of `len` weights if the file has them (a
    /// multiple of 4).
    Mapped {
        map: Mmap,
        start: usize,
        len: usize,
        weights: Option<usize>,
    },
}

/// The tuples of an [`EdgeList`] as they are held.
#[derive(Clone, Copy, Debug)]
pub enum ListTuples<'a> {
    /// Eight bytes a tuple: an unpacked list.
    Plain(&'a [Edge]),
    /// Seven bytes a tuple: a packed list.
    Packed(&'a [PackedEdge]),
}

/// `body` with `tuples` bound to the tuples of the [`EdgeList`] `list`, a
/// slice of [`Edge`]s or of [`PackedEdge`]s (both [`NarrowTuple`]s): one
/// body, compiled for each kind.
#[macro_export]
macro_rules! with_tuples {
    ($list:expr, |$tuples:ident| $body:expr) => {
        match $list.tuples() {
            $crate::ListTuples::Plain($tuples) => $body,
            $crate::ListTuples::Packed($tuples) => $body,
        }
    };
}

/// An ordered list of edge tuples, owned (as [`Edge`]s or packed) or
/// memory-mapped from a file, with optional weights.
pub struct EdgeList {
    num_vertices: usize,
    storage: Storage,
    /// Owned weights; when `None`, a mapped file's weights, if any.
    weights: Option<Vec<f32>>,
}

impl std::fmt::Debug for EdgeList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeList")
            .field("num_vertices", &self.num_vertices)
            .field("num_edges", &self.len())
            .field("weighted", &self.weights().is_some())
            .field("packed", &self.is_packed())
            .finish()
    }
}

impl EdgeList {
    /// An edge list over `num_vertices` vertices, after checking that every
    /// id is in range (one parallel pass).
    pub fn new(num_vertices: u64, edges: Vec<Edge>) -> Result<Self, Error> {
        let list = EdgeList {
            num_vertices: checked_vertex_count(num_vertices)?,
            storage: Storage::Owned(edges),
            weights: None,
        };
        list.check_ids()?;
        Ok(list)
    }

    /// An edge list whose ids the caller guarantees to be in range.
    pub(crate) fn from_trusted(num_vertices: usize, edges: Vec<Edge>) -> Self {
        debug_assert!(num_vertices as u64 <= MAX_VERTICES);
        EdgeList {
            num_vertices,
            storage: Storage::Owned(edges),
            weights: None,
        }
    }

    /// A packed list: `len` [`PackedEdge`]s in the first `7 len` bytes of
    /// `words`, every id below `num_vertices` (the caller guarantees it).
    pub(crate) fn from_packed(num_vertices: usize, words: Vec<u32>, len: usize) -> Self {
        debug_assert!(PackedEdge::names(num_vertices as u64));
        debug_assert!(words.len() * 4 >= 7 * len);
        EdgeList {
            num_vertices,
            storage: Storage::Packed { words, len },
            weights: None,
        }
    }

    /// A packed copy of this list, weights included, if its ids fit a
    /// [`PackedEdge`] (`N <= 2^28`); `None` otherwise. For tests and
    /// comparisons: a run generates its packed list directly.
    pub fn to_packed(&self) -> Option<EdgeList> {
        if !PackedEdge::names(self.num_vertices as u64) {
            return None;
        }
        let mut words = packed_words(self.len());
        let records = packed_records(&mut words, self.len());
        with_tuples!(self, |tuples| records
            .par_iter_mut()
            .zip(tuples.par_iter())
            .for_each(|(p, &e)| {
                let (u, v) = e.ends();
                *p = PackedEdge::from_ends(u, v);
            }));
        let mut list = EdgeList::from_packed(self.num_vertices, words, self.len());
        list.weights = self.weights().map(<[f32]>::to_vec);
        Some(list)
    }

    /// This list with its tuples as [`Edge`]s: a packed list is unpacked
    /// in place (its allocation grows from 7 to 8 bytes a tuple, one
    /// sequential pass from the back), any other comes back as it is.
    /// Weights stay.
    pub fn unpack(self) -> EdgeList {
        let Storage::Packed { mut words, len } = self.storage else {
            return self;
        };
        words.truncate((7 * len).div_ceil(4));
        words.reserve_exact(2 * len - words.len());
        words.resize(2 * len, 0);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        // Record i moves from byte 7i to byte 8i: going from the back, each
        // write lands on bytes of records already moved (or of none).
        for i in (0..len).rev() {
            let record: PackedEdge = bytemuck::pod_read_unaligned(&bytes[7 * i..7 * i + 7]);
            let (u, v) = record.vertices();
            bytes[8 * i..8 * i + 4].copy_from_slice(&u.to_ne_bytes());
            bytes[8 * i + 4..8 * i + 8].copy_from_slice(&v.to_ne_bytes());
        }
        words.shrink_to(2 * len);
        let edges: Vec<Edge> = bytemuck::allocation::cast_vec(words);
        EdgeList {
            num_vertices: self.num_vertices,
            storage: Storage::Owned(edges),
            weights: self.weights,
        }
    }

    /// An edge list viewing `len` tuples of `map` from byte `start`, and
    /// `len` weights from byte `weights` if given, after checking every id
    /// and weight. The caller guarantees that both views lie in the map
    /// and are aligned (8 bytes for the tuples, 4 for the weights).
    pub(crate) fn from_map(
        num_vertices: u64,
        map: Mmap,
        start: usize,
        len: usize,
        weights: Option<usize>,
    ) -> Result<Self, Error> {
        let list = EdgeList {
            num_vertices: checked_vertex_count(num_vertices)?,
            storage: Storage::Mapped {
                map,
                start,
                len,
                weights,
            },
            weights: None,
        };
        list.check_ids()?;
        if let Some(w) = list.weights() {
            check_weights(w, 0)?;
        }
        Ok(list)
    }

    /// This list with `weights`, one per tuple (`weights[i]` belongs to
    /// tuple `i`), replacing any it had. Fails if there are not exactly
    /// [`len`](EdgeList::len) of them, or with the first weight (by tuple
    /// number) that is NaN, infinite or negative (`-0.0` counts as zero).
    /// One parallel pass.
    pub fn with_weights(mut self, weights: Vec<f32>) -> Result<EdgeList, Error> {
        if weights.len() != self.len() {
            return Err(Error::WeightCount {
                weights: weights.len() as u64,
                tuples: self.len() as u64,
            });
        }
        check_weights(&weights, 0)?;
        if let Storage::Mapped {
            weights: mapped, ..
        } = &mut self.storage
        {
            *mapped = None;
        }
        self.weights = Some(weights);
        Ok(self)
    }

    /// The weights, one per tuple in tuple order, if the list has them.
    pub fn weights(&self) -> Option<&[f32]> {
        if let Some(owned) = &self.weights {
            return Some(owned);
        }
        match &self.storage {
            Storage::Mapped {
                map,
                len,
                weights: Some(at),
                ..
            } => Some(bytemuck::cast_slice(
                &map[*at..*at + len * size_of::<f32>()],
            )),
            _ => None,
        }
    }

    /// Bytes of an owned list of `num_edges` tuples (a mapped list costs
    /// the same in mapped file pages once read): 8 per tuple. Weights
    /// come on top ([`EdgeList::weight_bytes`]).
    pub fn bytes_for(num_edges: u64) -> u64 {
        num_edges * size_of::<Edge>() as u64
    }

    /// Bytes of a packed list of `num_edges` tuples ([`PackedEdge`]): 7
    /// per tuple.
    pub fn packed_bytes_for(num_edges: u64) -> u64 {
        num_edges * size_of::<PackedEdge>() as u64
    }

    /// Bytes of the weights of `num_edges` tuples: 4 per tuple.
    pub fn weight_bytes(num_edges: u64) -> u64 {
        num_edges * size_of::<f32>() as u64
    }

    /// A 64-bit checksum of weights and their order (not cryptographic):
    /// each weight's bit pattern mixed with its position, summed, and
    /// mixed with the count, like [`EdgeList::checksum`]. One parallel pass.
    pub fn weights_checksum(weights: &[f32]) -> u64 {
        let terms = weights
            .par_iter()
            .enumerate()
            .map(|(i, w)| mix64(i as u64 ^ mix64(w.to_bits().into())))
            .reduce(|| 0, u64::wrapping_add);
        mix64(terms ^ weights.len() as u64)
    }

    /// The number of vertices, `N`.
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// The number of edge tuples, `M` (self-loops and duplicates included).
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Owned(v) => v.len(),
            Storage::Packed { len, .. } | Storage::Mapped { len, .. } => *len,
        }
    }

    /// True when the list holds no tuples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tuples, in order, as [`Edge`]s. Panics on a packed list
    /// ([`EdgeList::is_packed`]): read it through [`EdgeList::tuples`], or
    /// [`EdgeList::unpack`] it first.
    pub fn edges(&self) -> &[Edge] {
        match self.tuples() {
            ListTuples::Plain(edges) => edges,
            ListTuples::Packed(_) => panic!("a packed list's tuples are read through tuples()"),
        }
    }

    /// The tuples, in order, as they are held.
    pub fn tuples(&self) -> ListTuples<'_> {
        match &self.storage {
            Storage::Owned(v) => ListTuples::Plain(v),
            Storage::Packed { words, len } => {
                let bytes: &[u8] = bytemuck::cast_slice(words);
                ListTuples::Packed(bytemuck::cast_slice(&bytes[..7 * len]))
            }
            Storage::Mapped {
                map, start, len, ..
            } => ListTuples::Plain(bytemuck::cast_slice(
                &map[*start..*start + len * size_of::<Edge>()],
            )),
        }
    }

    /// The tuples in order as [`Edge`]s, `chunk` at a time (the last chunk
    /// may be shorter): views of an unpacked list, unpacked copies of a
    /// packed one's (8 `chunk` bytes each, made in parallel), so a writer
    /// reads either kind with memory for one chunk. `chunk` must not be 0.
    pub fn edge_chunks(&self, chunk: usize) -> impl Iterator<Item = Cow<'_, [Edge]>> + '_ {
        assert!(chunk > 0, "chunks of at least one tuple");
        let len = self.len();
        (0..len.div_ceil(chunk)).map(move |c| {
            let range = c * chunk..((c + 1) * chunk).min(len);
            match self.tuples() {
                ListTuples::Plain(edges) => Cow::Borrowed(&edges[range]),
                ListTuples::Packed(records) => Cow::Owned(
                    records[range]
                        .par_iter()
                        .map(|p| {
                            let (u, v) = p.vertices();
                            Edge::new(u, v)
                        })
                        .collect(),
                ),
            }
        })
    }

    /// True when the tuples are held packed, seven bytes each.
    pub fn is_packed(&self) -> bool {
        matches!(self.storage, Storage::Packed { .. })
    }

    /// The owned tuples, for a caller that re-encodes them in place (any
    /// weights are dropped); a list that views a mapped file comes back
    /// unchanged, and so does a packed list.
    pub fn into_tuples(self) -> Result<Vec<Edge>, EdgeList> {
        match self.storage {
            Storage::Owned(v) => Ok(v),
            Storage::Packed { .. } | Storage::Mapped { .. } => Err(self),
        }
    }

    /// A packed list's allocation and its number of tuples: the
    /// [`PackedEdge`]s are the first `7 len` bytes of the words (any
    /// weights are dropped). Any other list comes back unchanged.
    pub fn into_packed_words(self) -> Result<(Vec<u32>, usize), EdgeList> {
        match self.storage {
            Storage::Packed { words, len } => Ok((words, len)),
            _ => Err(self),
        }
    }

    /// True when the tuples are a view of a memory-mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped { .. })
    }

    /// The number of self-loop tuples. One parallel pass.
    pub fn self_loops(&self) -> usize {
        with_tuples!(self, |tuples| tuples
            .par_iter()
            .filter(|e| e.is_self_loop())
            .count())
    }

    /// A 64-bit checksum of the tuples and their order (not cryptographic).
    ///
    /// Each tuple is mixed with its position and the mixes are summed, so the
    /// value is the same however the work is split among threads, and it
    /// changes when a tuple, its orientation or its position changes. The
    /// vertex count is mixed in too. One parallel pass.
    pub fn checksum(&self) -> u64 {
        EdgeList::finish_checksum(
            with_tuples!(self, |tuples| EdgeList::checksum_terms(tuples, 0)),
            self.num_vertices as u64,
        )
    }

    /// The part of [`EdgeList::checksum`] that `edges`, the tuples numbered
    /// `first..` of a list, contribute: parts of a list cut anywhere add
    /// up (wrapping) to the whole's. One parallel pass.
    /// Either tuple type gives the same terms for the same ids.
    pub fn checksum_terms<T: Tuple>(edges: &[T], first: u64) -> u64 {
        edges
            .par_iter()
            .enumerate()
            .map(|(i, &e)| {
                let position = first + i as u64;
                mix64(position ^ mix64(e.checksum_key()))
            })
            .reduce(|| 0, u64::wrapping_add)
    }

    /// The checksum of a list of `num_vertices` vertices whose
    /// [`EdgeList::checksum_terms`] sum (wrapping) to `terms`.
    pub fn finish_checksum(terms: u64, num_vertices: u64) -> u64 {
        mix64(terms ^ num_vertices)
    }

    /// Fails with the first tuple (by position) that names a vertex out of range.
    fn check_ids(&self) -> Result<(), Error> {
        let n = self.num_vertices as u64;
        let bad = with_tuples!(self, |tuples| par::first_index(tuples.len(), |i| {
            let (u, v) = tuples[i].ends();
            u >= n || v >= n
        })
        .map(|i| (i, tuples[i].ends())));
        match bad {
            None => Ok(()),
            Some((i, (u, v))) => Err(Error::VertexOutOfRange {
                edge: i as u64,
                u,
                v,
                num_vertices: n,
            }),
        }
    }
}

/// Zeroed room for `len` [`PackedEdge`]s: `7 len` bytes, rounded up to
/// whole `u32`s.
pub(crate) fn packed_words(len: usize) -> Vec<u32> {
    bytemuck::zeroed_vec((7 * len).div_ceil(4))
}

/// The `len` [`PackedEdge`]s at the start of `words`.
pub(crate) fn packed_records(words: &mut [u32], len: usize) -> &mut [PackedEdge] {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words);
    bytemuck::cast_slice_mut(&mut bytes[..7 * len])
}

/// Weights are below this, 2^64: a shortest path has fewer than 2^32
/// arcs, each f32 addition on it adds at most three times its weight
/// (rounding), so every distance stays below 2^98, finite in f32 (whose
/// largest value is near 2^128). Graph500's weights are below 1.
pub const WEIGHT_LIMIT: f32 = 18_446_744_073_709_551_616.0;

/// Whether `w` may be an edge's weight: finite, not negative (`-0.0` is
/// zero) and below [`WEIGHT_LIMIT`].
pub fn is_weight(w: f32) -> bool {
    // NaN is in no range, infinity past its end; -0.0 compares as 0.
    (0.0..WEIGHT_LIMIT).contains(&w)
}

/// Fails with the first weight that is not [`is_weight`], naming it by its
/// tuple number: `first` is that of `weights[0]`. One parallel pass.
pub(crate) fn check_weights(weights: &[f32], first: u64) -> Result<(), Error> {
    let bad = par::first_index(weights.len(), |i| !is_weight(weights[i]));
    match bad {
        None => Ok(()),
        Some(i) => Err(Error::BadWeight {
            edge: first + i as u64,
            weight: weights[i],
        }),
    }
}

/// `num_vertices` as a `usize`, if this build supports that many.
pub(crate) fn checked_vertex_count(num_vertices: u64) -> Result<usize, Error> {
    if num_vertices > MAX_VERTICES {
        return Err(Error::TooManyVertices {
            num_vertices,
            max: MAX_VERTICES,
        });
    }
    usize::try_from(num_vertices).map_err(|_| Error::TooManyVertices {
        num_vertices,
        max: usize::MAX as u64,
    })
}

/// The SplitMix64 finaliser: a fast bijective 64-bit mix.
pub(crate) const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(edges: &[(u32, u32)]) -> EdgeList {
        let n = edges.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
        EdgeList::new(
            n.into(),
            edges.iter().map(|&(u, v)| Edge::new(u, v)).collect(),
        )
        .unwrap()
    }

    #[test]
    fn out_of_range_id_is_rejected_naming_the_edge() {
        let err = EdgeList::new(3, vec![Edge::new(0, 1), Edge::new(2, 3)]).unwrap_err();
        assert!(
            matches!(err, Error::VertexOutOfRange { edge: 1, v: 3, .. }),
            "{err}"
        );
    }

    #[test]
    fn checksum_sees_order_orientation_and_content() {
        let base = list(&[(0, 1), (1, 2), (2, 3)]).checksum();
        assert_eq!(base, list(&[(0, 1), (1, 2), (2, 3)]).checksum());
        assert_ne!(base, list(&[(1, 2), (0, 1), (2, 3)]).checksum());
        assert_ne!(base, list(&[(1, 0), (1, 2), (2, 3)]).checksum());
        assert_ne!(base, list(&[(0, 1), (1, 2), (2, 2)]).checksum());
    }

    #[test]
    fn weights_come_only_when_given_and_pair_with_the_tuples() {
        let plain = list(&[(0, 1), (1, 2), (2, 2)]);
        assert_eq!(plain.weights(), None);
        let checksum = plain.checksum();
        let weighted = plain.with_weights(vec![0.5, 0.0, 0.25]).unwrap();
        assert_eq!(weighted.weights(), Some(&[0.5, 0.0, 0.25][..]));
        assert_eq!(weighted.checksum(), checksum, "the checksum is tuples only");
        let again = weighted.with_weights(vec![1.0, 2.0, -0.0]).unwrap();
        assert_eq!(again.weights(), Some(&[1.0, 2.0, 0.0][..]));
        // The largest weight below 2^64 is one.
        let top = f32::from_bits(WEIGHT_LIMIT.to_bits() - 1);
        assert!(again.with_weights(vec![top, 1e19, 0.0]).is_ok());
        assert_eq!(EdgeList::weight_bytes(3), 12);
    }

    #[test]
    fn bad_weights_are_rejected_naming_the_first_by_tuple() {
        let three = || list(&[(0, 1), (1, 2), (2, 2)]);
        let err = three().with_weights(vec![0.5; 2]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::WeightCount {
                    weights: 2,
                    tuples: 3
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "2 weights for 3 edge tuples: each tuple needs one"
        );
        for (bad, at) in [
            (f32::NAN, 1),
            (f32::INFINITY, 2),
            (-1e-30, 0),
            (f32::NEG_INFINITY, 1),
            (WEIGHT_LIMIT, 1),
            (1e20, 2),
        ] {
            let mut w = vec![0.5; 3];
            w[at] = bad;
            w[2] = if at < 2 { -3.0 } else { w[2] };
            let err = three().with_weights(w).unwrap_err();
            assert!(
                matches!(err, Error::BadWeight { edge, .. } if edge == at as u64),
                "{err}"
            );
            assert!(
                err.to_string()
                    .starts_with(&format!("edge {at} has weight")),
                "{err}"
            );
        }
    }

    #[test]
    fn weights_checksum_sees_values_and_order() {
        let base = EdgeList::weights_checksum(&[0.5, 0.25, 0.0]);
        assert_eq!(base, EdgeList::weights_checksum(&[0.5, 0.25, 0.0]));
        assert_ne!(base, EdgeList::weights_checksum(&[0.25, 0.5, 0.0]));
        assert_ne!(base, EdgeList::weights_checksum(&[0.5, 0.25, -0.0]));
        assert_ne!(base, EdgeList::weights_checksum(&[0.5, 0.25]));
    }

    #[test]
    fn a_packed_copy_unpacks_to_the_same_tuples_and_weights() {
        let top = (1 << 28) - 1;
        let edges = vec![Edge::new(0, top), Edge::new(top, top), Edge::new(5, 3)];
        let plain = EdgeList::new(1 << 28, edges.clone())
            .unwrap()
            .with_weights(vec![0.5, 0.25, 0.0])
            .unwrap();
        let packed = plain.to_packed().unwrap();
        assert!(packed.is_packed());
        assert_eq!(packed.checksum(), plain.checksum());
        assert_eq!(packed.self_loops(), 1);
        assert_eq!(packed.weights(), plain.weights());
        let back = packed.unpack();
        assert!(!back.is_packed());
        assert_eq!(back.edges(), &edges[..]);
        assert_eq!(back.weights(), Some(&[0.5, 0.25, 0.0][..]));
        // Any length: the packed bytes end anywhere in their last word.
        for len in 0..9 {
            let list = EdgeList::new(1 << 28, edges.iter().copied().cycle().take(len).collect());
            let list = list.unwrap();
            let again = list.to_packed().unwrap().unpack();
            assert_eq!(again.edges(), list.edges(), "{len} tuples");
        }
    }

    #[test]
    fn edge_chunks_read_a_packed_list_as_its_edges() {
        let edges: Vec<Edge> = (0..1000).map(|i| Edge::new(i % 7, i % 13)).collect();
        let plain = EdgeList::new(13, edges.clone()).unwrap();
        let packed = plain.to_packed().unwrap();
        for chunk in [1, 3, 64, 999, 1000, 4096] {
            for list in [&plain, &packed] {
                let chunks: Vec<_> = list.edge_chunks(chunk).collect();
                assert_eq!(chunks.len(), 1000usize.div_ceil(chunk));
                assert_eq!(chunks.concat(), edges, "{chunk}");
            }
        }
        let empty = EdgeList::new(1, Vec::new()).unwrap().to_packed().unwrap();
        assert_eq!(empty.edge_chunks(8).count(), 0);
    }

    #[test]
    fn self_loops_are_counted() {
        assert_eq!(list(&[(0, 0), (0, 1), (2, 2), (2, 2)]).self_loops(), 3);
    }
}
