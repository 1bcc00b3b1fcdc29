//! On random small graphs (several components, self-loops, duplicates,
//! weights with exact zeros, ties and rounding) and random roots: the
//! validator accepts Dijkstra's search with its nedge, and after random
//! edits it accepts exactly the searches that pass the reference's rules
//! and form one tree. Any arrays at all give a verdict, never a panic.

use crate::support::{Graph, Search, is_tree};
use proptest::prelude::*;

/// Weights the cases draw from: zeros for zero-weight ties and cycles,
/// 0.1 for rounding.
const WEIGHTS: [f32; 6] = [0.0, 0.0, 0.25, 0.5, 1.0, 0.1];

/// One edit of a search, at a vertex, with a second vertex `other`
/// (modulo N) and a weight index where the edit needs them.
#[derive(Clone, Debug)]
enum Edit {
    /// Parent `other - 1`: -1, a vertex, or N (out of range).
    Parent(u32),
    /// The distance of `other` (a tie).
    CopyDist(u32),
    /// Hung from `other` at its distance plus a weight: plausible, and a
    /// loop when `other` lies below.
    Rehang(u32, usize),
    /// Marked unreached.
    Unreach,
    /// One ulp farther.
    Farther,
    /// NaN.
    NotANumber,
}

#[derive(Clone, Debug)]
struct Case {
    n: u32,
    tuples: Vec<(u32, u32, usize)>,
    root: u32,
    edits: Vec<(u32, Edit)>,
}

fn edits(n: u32) -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..n + 2).prop_map(Edit::Parent),
        (0..n).prop_map(Edit::CopyDist),
        (0..n, 0..WEIGHTS.len()).prop_map(|(o, w)| Edit::Rehang(o, w)),
        Just(Edit::Unreach),
        Just(Edit::Farther),
        Just(Edit::NotANumber),
    ]
}

fn cases() -> impl Strategy<Value = Case> {
    (2u32..24).prop_flat_map(|n| {
        let tuple = (0..n, 0..n, 0..WEIGHTS.len());
        (
            Just(n),
            prop::collection::vec(tuple, 0..60),
            0..n,
            prop::collection::vec((0..n, edits(n)), 0..3),
        )
            .prop_map(|(n, tuples, root, edits)| Case {
                n,
                tuples,
                root,
                edits,
            })
    })
}

impl Case {
    fn graph(&self) -> Graph {
        let triples: Vec<_> = (self.tuples.iter())
            .map(|&(u, v, w)| (u, v, WEIGHTS[w]))
            .collect();
        Graph::from_triples(self.n as usize, &triples)
    }

    fn edited(&self, s: &Search) -> Search {
        let mut t = s.clone();
        for (v, edit) in &self.edits {
            let v = *v as usize;
            match *edit {
                Edit::Parent(p) => t.parents[v] = i64::from(p) - 1,
                Edit::CopyDist(o) => t.dist[v] = t.dist[o as usize],
                Edit::Rehang(o, w) => {
                    t.parents[v] = o.into();
                    t.dist[v] = t.dist[o as usize] + WEIGHTS[w];
                }
                Edit::Unreach => (t.parents[v], t.dist[v]) = (-1, -1.0),
                Edit::Farther => t.dist[v] = f32::from_bits(t.dist[v].to_bits() + 1),
                Edit::NotANumber => t.dist[v] = f32::NAN,
            }
        }
        t
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_are_the_reference_rules_plus_the_tree_check(case in cases()) {
        let g = case.graph();
        let s = g.dijkstra(case.root);
        let nedge = g.nedge(&s);
        prop_assert_eq!(g.validate(&s, Some(nedge)).map(|t| t.nedge), Ok(nedge));
        let t = case.edited(&s);
        let want = g.reference_rules_pass(&t) && is_tree(t.root, &t.parents);
        let got = g.validate(&t, None);
        prop_assert_eq!(got.is_ok(), want, "{:?}", got);
        if let Ok(summary) = got {
            prop_assert_eq!(summary.nedge, g.nedge(&t));
        }
    }

    #[test]
    fn any_arrays_get_a_verdict(
        case in cases(),
        parents in prop::collection::vec(prop_oneof![-3i64..30, any::<i64>()], 0..30),
        bits in prop::collection::vec(prop_oneof![
            Just((-1.0f32).to_bits()), 0u32..0x4100_0000, any::<u32>()
        ], 0..30),
        root in 0u64..30,
    ) {
        let g = case.graph();
        let dist = bits.into_iter().map(f32::from_bits).collect();
        let s = Search { root, parents, dist };
        let verdict = g.validate(&s, None);
        prop_assert!(verdict.is_err() || g.reference_rules_pass(&s), "{:?}", verdict);
    }
}
