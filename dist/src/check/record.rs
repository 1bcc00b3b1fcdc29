//! Failures as the ranks agree on them: a failure is a record of
//! [`RECORD`] words, `[order, subject, variant, fields..]`, so that an
//! all-reduce can pick the first one (`comm::all_reduce_first`), and the
//! order of failures ([`first`]).
//!
//! Invariants: `decode(encode(s, e)) == e` for every variant; the order
//! word sorts by [`Invalid::precedence`] (check, then step), so all
//! ranks pick the lowest check, then the lowest vertex or tuple
//! position, then the lowest rank.

use super::Found;
use validate::{ExactF32, Invalid};

/// Words of a failure record: order, subject, variant, five fields.
pub(crate) const RECORD: usize = 8;
/// Bytes a rank counts per other rank for an agreement no rank fails
/// ([`super::Tree::agree`]: one all-reduce of a word).
#[cfg(test)]
pub(crate) const AGREED: u64 = 8;

/// Check 6 on a proven search: `Err` if the run `claimed` another
/// nedge than the `counted` one (the same on every rank).
pub(crate) fn same_nedge(counted: u64, claimed: Option<u64>) -> Result<(), Invalid> {
    match claimed.filter(|&c| c != counted) {
        Some(claimed) => Err(Invalid::NedgeMismatch { counted, claimed }),
        None => Ok(()),
    }
}

/// The failure that sorts first: the lower order, then the lower subject.
pub(crate) fn first(a: Found, b: Found) -> Found {
    let key = |f: &(u64, Invalid)| (order(&f.1), f.0);
    match (a, b) {
        (Some(a), Some(b)) => Some(if key(&b) < key(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// A failure as a record: `[order, subject, variant, fields..]`, the
/// order from [`order`].
#[rustfmt::skip]
pub(super) fn encode(subject: u64, e: &Invalid) -> [u64; RECORD] {
    let wide = |x: usize| x as u64;
    let bits = |x: ExactF32| u64::from(x.to_bits());
    let (variant, [a, b, c, d, f]) = match *e {
        Invalid::WrongLength { found, expected } => (0, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::RootOutOfRange { root, num_vertices } => (1, [root, wide(num_vertices), 0, 0, 0]),
        Invalid::ParentOutOfRange { vertex, parent } => (2, [vertex, parent as u64, 0, 0, 0]),
        Invalid::RootNotOwnParent { root, parent } => (3, [root, parent as u64, 0, 0, 0]),
        Invalid::SecondRoot { vertex } => (4, [vertex, 0, 0, 0, 0]),
        Invalid::ParentUnreached { vertex, parent } => (5, [vertex, parent, 0, 0, 0]),
        Invalid::Cycle { vertex } => (6, [vertex, 0, 0, 0, 0]),
        Invalid::NotAnEdge { vertex, parent } => (7, [vertex, parent, 0, 0, 0]),
        Invalid::HalfReachedEdge { edge, reached, unreached } => (8, [edge, reached, unreached, 0, 0]),
        Invalid::LevelGap { edge, u, v, level_u, level_v } => (9, [edge, u, v, pair(level_u, level_v), 0]),
        Invalid::NedgeMismatch { counted, claimed } => (10, [counted, claimed, 0, 0, 0]),
        Invalid::DistWrongLength { found, expected } => (11, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::WeightCount { found, expected } => (12, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::DistOutOfRange { vertex, dist } => (13, [vertex, bits(dist), 0, 0, 0]),
        Invalid::ReachMismatch { vertex, parent, dist } => (14, [vertex, parent as u64, bits(dist), 0, 0]),
        Invalid::RootDist { root, dist } => (15, [root, bits(dist), 0, 0, 0]),
        Invalid::Unconfirmed { vertex, parent, dist, parent_dist } => {
            (16, [vertex, parent, pair(dist.to_bits(), parent_dist.to_bits()), 0, 0])
        }
        Invalid::TupleOutOfRange { edge, u, v, num_vertices } => (17, [edge, u, v, wide(num_vertices), 0]),
        Invalid::WeightOutOfRange { edge, weight } => (18, [edge, bits(weight), 0, 0, 0]),
        Invalid::TriangleRule { edge, u, v, weight, dist_u, dist_v } => {
            (19, [edge, u, v, bits(weight), pair(dist_u.to_bits(), dist_v.to_bits())])
        }
    };
    [order(e), subject, variant, a, b, c, d, f]
}

/// The failure a record from [`encode`] holds.
#[rustfmt::skip]
pub(super) fn decode(r: &[u64]) -> Invalid {
    let [_, _, variant, a, b, c, d, f] = r.try_into().expect("a whole record");
    let narrow = |x: u64| usize::try_from(x).expect("a length");
    let exact = |x: u64| ExactF32::from_bits(u32::try_from(x).expect("f32 bits"));
    let (high, low) = halves(d);
    let (high_c, low_c) = halves(c);
    let (high_f, low_f) = halves(f);
    match variant {
        0 => Invalid::WrongLength { found: narrow(a), expected: narrow(b) },
        1 => Invalid::RootOutOfRange { root: a, num_vertices: narrow(b) },
        2 => Invalid::ParentOutOfRange { vertex: a, parent: b as i64 },
        3 => Invalid::RootNotOwnParent { root: a, parent: b as i64 },
        4 => Invalid::SecondRoot { vertex: a },
        5 => Invalid::ParentUnreached { vertex: a, parent: b },
        6 => Invalid::Cycle { vertex: a },
        7 => Invalid::NotAnEdge { vertex: a, parent: b },
        8 => Invalid::HalfReachedEdge { edge: a, reached: b, unreached: c },
        9 => Invalid::LevelGap { edge: a, u: b, v: c, level_u: high, level_v: low },
        10 => Invalid::NedgeMismatch { counted: a, claimed: b },
        11 => Invalid::DistWrongLength { found: narrow(a), expected: narrow(b) },
        12 => Invalid::WeightCount { found: narrow(a), expected: narrow(b) },
        13 => Invalid::DistOutOfRange { vertex: a, dist: exact(b) },
        14 => Invalid::ReachMismatch { vertex: a, parent: b as i64, dist: exact(c) },
        15 => Invalid::RootDist { root: a, dist: exact(b) },
        16 => Invalid::Unconfirmed {
            vertex: a, parent: b, dist: ExactF32::from_bits(high_c), parent_dist: ExactF32::from_bits(low_c),
        },
        17 => Invalid::TupleOutOfRange { edge: a, u: b, v: c, num_vertices: narrow(d) },
        18 => Invalid::WeightOutOfRange { edge: a, weight: exact(b) },
        19 => Invalid::TriangleRule {
            edge: a, u: b, v: c, weight: exact(d),
            dist_u: ExactF32::from_bits(high_f), dist_v: ExactF32::from_bits(low_f),
        },
        _ => unreachable!("records come from encode"),
    }
}

/// Where a failure's kind sorts among the ranks' failures, as one record
/// word: [`Invalid::precedence`], its check number, then its step within
/// the check (below 16).
pub(super) fn order(e: &Invalid) -> u64 {
    let (check, step) = e.precedence();
    debug_assert!(step < 16);
    16 * u64::from(check) + u64::from(step)
}

/// Two 32-bit fields in one record word, `high` first.
fn pair(high: u32, low: u32) -> u64 {
    (u64::from(high) << 32) | u64::from(low)
}

/// The two fields of a [`pair`] word.
fn halves(x: u64) -> (u32, u32) {
    let half = |y: u64| u32::try_from(y & 0xffff_ffff).expect("32 bits");
    (half(x >> 32), half(x))
}
