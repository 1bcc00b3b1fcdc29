//! `Invalid`: why a parent array is not a BFS tree, or a parent and a
//! distance array not an SSSP tree; `ExactF32`: a distance or weight as an
//! error names it. Why a parent-array or distance-array file could not be
//! read is `generator`'s [`FileError`], the graph files' own, re-exported:
//! one type and one wording for every file graph500 reads.

pub use generator::FileError;
use std::fmt;

/// An `f32` exactly as a check saw it: compared by its bits, so that
/// [`Invalid`] stays `Eq` (a NaN equals itself, `-0.0` differs from `0.0`),
/// and printed as Rust prints an `f32`: the shortest text that reads back
/// as the same value, so a message shows the very value that failed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExactF32(u32);

impl ExactF32 {
    /// The value with these bits.
    pub const fn from_bits(bits: u32) -> Self {
        ExactF32(bits)
    }

    /// The value's bits.
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// The value.
    pub const fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
}

impl From<f32> for ExactF32 {
    fn from(x: f32) -> Self {
        ExactF32(x.to_bits())
    }
}

impl fmt::Display for ExactF32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

impl fmt::Debug for ExactF32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

/// A failed check, naming its number (see the crate documentation: the
/// BFS checks, and how the SSSP checks map onto the same numbers) and one
/// vertex or edge that breaks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// The parent array's length is not the vertex count.
    #[error(
        "check 1 (parent range): the parent array has {found} entries but the graph has {expected} vertices"
    )]
    WrongLength {
        /// Entries in the parent array.
        found: usize,
        /// Vertices in the graph.
        expected: usize,
    },
    /// The root is not a vertex.
    #[error("check 1 (parent range): root {root} is not a vertex (0..{num_vertices})")]
    RootOutOfRange {
        /// The root.
        root: u64,
        /// The vertex count.
        num_vertices: usize,
    },
    /// A parent that is neither -1 nor a vertex id.
    #[error(
        "check 1 (parent range): vertex {vertex} has parent {parent}, which is neither -1 nor a vertex id"
    )]
    ParentOutOfRange {
        /// The vertex.
        vertex: u64,
        /// Its parent entry.
        parent: i64,
    },
    /// The root's parent is not the root.
    #[error("check 1 (root): the root {root} has parent {parent}, not itself")]
    RootNotOwnParent {
        /// The root.
        root: u64,
        /// Its parent entry.
        parent: i64,
    },
    /// A vertex other than the root is its own parent.
    #[error("check 2 (tree): vertex {vertex} is its own parent but is not the root")]
    SecondRoot {
        /// The vertex.
        vertex: u64,
    },
    /// A parent chain reaches a vertex marked unreached.
    #[error("check 2 (tree): vertex {vertex} has parent {parent}, which is marked unreached (-1)")]
    ParentUnreached {
        /// The vertex.
        vertex: u64,
        /// Its unreached parent.
        parent: u64,
    },
    /// Parent pointers that loop.
    #[error("check 2 (tree): vertex {vertex} lies on a cycle of parent pointers")]
    Cycle {
        /// A vertex on the cycle.
        vertex: u64,
    },
    /// A tree edge that is not in the input.
    #[error(
        "check 3 (tree edges): vertex {vertex} has parent {parent}, but ({vertex}, {parent}) is not an input edge"
    )]
    NotAnEdge {
        /// The vertex.
        vertex: u64,
        /// Its parent.
        parent: u64,
    },
    /// An input edge from a reached vertex to an unreached one.
    #[error(
        "check 4 (reach): input edge {edge} joins reached vertex {reached} to unreached vertex {unreached}, so the root's component is not fully reached"
    )]
    HalfReachedEdge {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// The reached end.
        reached: u64,
        /// The unreached end.
        unreached: u64,
    },
    /// An input edge whose ends' levels differ by more than one.
    #[error(
        "check 4 (levels): input edge {edge} ({u}, {v}) joins level {level_u} to level {level_v}; BFS levels of neighbours differ by at most one"
    )]
    LevelGap {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// One end.
        u: u64,
        /// The other end.
        v: u64,
        /// Tree level of `u`.
        level_u: u32,
        /// Tree level of `v`.
        level_v: u32,
    },
    /// SSSP: the distance array's length is not the vertex count.
    #[error(
        "check 1 (distance range): the distance array has {found} entries but the graph has {expected} vertices"
    )]
    DistWrongLength {
        /// Entries in the distance array.
        found: usize,
        /// Vertices in the graph.
        expected: usize,
    },
    /// SSSP: the weights are not one per input tuple.
    #[error("check 1 (weights): there are {found} weights for {expected} input tuples")]
    WeightCount {
        /// Weights given.
        found: usize,
        /// Input tuples.
        expected: usize,
    },
    /// SSSP: a distance that is neither finite and `>= 0` nor exactly -1.
    #[error(
        "check 1 (distance range): vertex {vertex} has distance {dist}, which is neither a finite value >= 0 nor -1"
    )]
    DistOutOfRange {
        /// The vertex.
        vertex: u64,
        /// Its distance entry.
        dist: ExactF32,
    },
    /// SSSP: a vertex whose parent and distance disagree on whether it was
    /// reached.
    #[error(
        "check 1 (reach): vertex {vertex} has parent {parent} but distance {dist}; the parent is -1 exactly when the distance is -1"
    )]
    ReachMismatch {
        /// The vertex.
        vertex: u64,
        /// Its parent entry.
        parent: i64,
        /// Its distance entry.
        dist: ExactF32,
    },
    /// SSSP: the root's distance is not 0.
    #[error("check 1 (root): the root {root} has distance {dist}, not 0")]
    RootDist {
        /// The root.
        root: u64,
        /// Its distance entry.
        dist: ExactF32,
    },
    /// SSSP: no input tuple joins a reached vertex to its parent with a
    /// weight that makes its distance exactly.
    #[error(
        "check 3 (tree edges): vertex {vertex} has parent {parent} and distance {dist}, but no input edge joins them with a weight w such that {dist} == {parent_dist} + w in f32"
    )]
    Unconfirmed {
        /// The vertex.
        vertex: u64,
        /// Its parent.
        parent: u64,
        /// Its distance.
        dist: ExactF32,
        /// Its parent's distance.
        parent_dist: ExactF32,
    },
    /// SSSP: an input tuple with an end that is not a vertex.
    #[error(
        "check 4 (tuple range): input edge {edge} ({u}, {v}) has an end outside the vertices 0..{num_vertices}"
    )]
    TupleOutOfRange {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// One end.
        u: u64,
        /// The other end.
        v: u64,
        /// The vertex count.
        num_vertices: usize,
    },
    /// SSSP: an input tuple whose weight is not finite and `>= 0`.
    #[error(
        "check 4 (tuple range): input edge {edge} has weight {weight}, which is not a finite value >= 0"
    )]
    WeightOutOfRange {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// Its weight.
        weight: ExactF32,
    },
    /// SSSP: an input tuple along which one end's distance would improve
    /// the other's.
    #[error(
        "check 4 (triangle rule): input edge {edge} ({u}, {v}) of weight {weight} joins distance {dist_u} to distance {dist_v}; the distances of its ends may differ by at most its weight (in f32)"
    )]
    TriangleRule {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// One end.
        u: u64,
        /// The other end.
        v: u64,
        /// The tuple's weight.
        weight: ExactF32,
        /// Distance of `u`.
        dist_u: ExactF32,
        /// Distance of `v`.
        dist_v: ExactF32,
    },
    /// The run's nedge differs from the validator's count.
    #[error(
        "check 6 (nedge): the validator counts {counted} edges in the searched component but the run reported {claimed}"
    )]
    NedgeMismatch {
        /// The validator's count.
        counted: u64,
        /// What the run reported.
        claimed: u64,
    },
}

impl Invalid {
    /// The number of the failed check (1 to 6; no failure names check 5,
    /// which follows from 3 and 4). The SSSP failures take the number of
    /// the BFS check they stand beside: ranges and the root 1, the tree 2,
    /// tree edges 3, tuples 4, nedge 6 (see the crate documentation).
    pub fn check(&self) -> u8 {
        self.precedence().0
    }

    /// Where this kind of failure stands among all kinds: its check number
    /// ([`Invalid::check`]), then its step within the check. The steps of
    /// check 1 are the order in which the single-process validators
    /// ([`crate::Validator`], [`crate::SsspValidator`]) look (the lengths,
    /// the root, the entries, the root's own entry); those of check 2, a
    /// second root, then an unreached parent, then a cycle (the order in
    /// which a search for levels round by round meets them; the
    /// single-process walk names whichever its lowest vertex meets).
    /// Kinds that one scan finds share a step (both kinds of BFS check 4,
    /// for one): among them the lowest vertex or tuple position comes
    /// first. A validator that finds failures in pieces (across ranks,
    /// say) picks the one that sorts first by precedence, then by that
    /// vertex or position.
    ///
    /// The one table of the kinds' order: [`Invalid::check`] reads it.
    pub fn precedence(&self) -> (u8, u8) {
        match self {
            Invalid::WrongLength { .. } => (1, 0),
            Invalid::DistWrongLength { .. } => (1, 1),
            Invalid::WeightCount { .. } => (1, 2),
            Invalid::RootOutOfRange { .. } => (1, 3),
            Invalid::ParentOutOfRange { .. }
            | Invalid::DistOutOfRange { .. }
            | Invalid::ReachMismatch { .. } => (1, 4),
            Invalid::RootNotOwnParent { .. } => (1, 5),
            Invalid::RootDist { .. } => (1, 6),
            Invalid::SecondRoot { .. } => (2, 0),
            Invalid::ParentUnreached { .. } => (2, 1),
            Invalid::Cycle { .. } => (2, 2),
            Invalid::NotAnEdge { .. } | Invalid::Unconfirmed { .. } => (3, 0),
            Invalid::HalfReachedEdge { .. }
            | Invalid::LevelGap { .. }
            | Invalid::TupleOutOfRange { .. }
            | Invalid::WeightOutOfRange { .. }
            | Invalid::TriangleRule { .. } => (4, 0),
            Invalid::NedgeMismatch { .. } => (6, 0),
        }
    }
}
