//! Tests of one search of a file over ranks (ranks as threads).

use super::*;
use crate::{GeneratorKind, GeneratorSpec, Silent};
use dist::ThreadRanks;
use generator::EdgeList;
use kernels::{DoParams, SsspParams};
use validate::{SsspValidator, Validator};

/// A weighted SCALE 9 graph, written as a binary file in `dir`.
fn weighted_file(dir: &Path) -> (std::path::PathBuf, EdgeList) {
    let spec = GeneratorSpec {
        kind: GeneratorKind::Xoshiro,
        scale: 9,
        edgefactor: 16,
        seed: Some(11),
    };
    let (generator, _) = spec.build().unwrap();
    let weights = generator::generate_weights(&*generator, 0..generator.num_blocks(), &|| {});
    let edges = generator.generate().with_weights(weights).unwrap();
    let path = dir.join("g.bin");
    let mut file = std::fs::File::create(&path).unwrap();
    EdgeFormat::Binary.write(&mut file, &edges).unwrap();
    (path, edges)
}

/// `pass` from `root` over `ranks` ranks as threads: rank 0's answer,
/// after checking that the others hold no arrays and the same figures.
fn over(ranks: usize, input: &Path, root: u64, pass: Pass) -> Searched {
    let search = FileSearch {
        input,
        format: EdgeFormat::Binary,
        root,
        pass,
        backend: Backend::Rayon,
        force: false,
    };
    let mut found = ThreadRanks::run(ranks, |comm| search.on_ranks(comm, &Silent).unwrap());
    for other in &found[1..] {
        assert!(other.parents.is_empty() && other.dist.is_empty());
        assert_eq!(
            (other.reached, other.nedge),
            (found[0].reached, found[0].nedge)
        );
    }
    found.swap_remove(0)
}

/// The first vertex with an edge that is not a self-loop.
fn root_with_an_edge(edges: &EdgeList) -> u64 {
    let tuples = edges.edges();
    let ends = tuples.iter().filter(|e| e.u != e.v);
    ends.map(|e| e.u.min(e.v))
        .min()
        .map(u64::from)
        .expect("an edge")
}

#[test]
fn a_bfs_over_any_rank_count_is_a_valid_tree_of_the_whole_graph() {
    let dir = tempfile::tempdir().unwrap();
    let (input, edges) = weighted_file(dir.path());
    let n = edges.num_vertices();
    let root = root_with_an_edge(&edges);
    let mut reached = None;
    for ranks in 1..=4 {
        let found = over(
            ranks,
            &input,
            root,
            Pass::Bfs(Kernel::Dobfs(DoParams::default())),
        );
        assert_eq!(found.parents.len(), n);
        let tree = Validator::new(n)
            .validate(&edges, root, &found.parents, Some(found.nedge))
            .unwrap();
        assert_eq!(tree.reached, found.reached);
        assert!(found.reached > 1);
        assert_eq!(*reached.get_or_insert(found.reached), found.reached);
    }
}

#[test]
fn an_sssp_over_any_rank_count_gives_the_same_distances() {
    let dir = tempfile::tempdir().unwrap();
    let (input, edges) = weighted_file(dir.path());
    let (n, weights) = (edges.num_vertices(), edges.weights().unwrap());
    let root = root_with_an_edge(&edges);
    let mut first: Option<Vec<f32>> = None;
    for ranks in 1..=4 {
        let found = over(ranks, &input, root, Pass::Sssp(SsspParams::DEFAULT));
        let tree = SsspValidator::new(n)
            .validate(
                edges.edges(),
                weights,
                root,
                &found.parents,
                &found.dist,
                None,
            )
            .unwrap();
        assert_eq!(tree.reached, found.reached);
        assert!(found.reached > 1);
        assert_eq!(first.get_or_insert_with(|| found.dist.clone()), &found.dist);
    }
}

#[test]
fn a_text_file_is_refused_by_every_rank_alike() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.el");
    std::fs::write(&input, "0 1\n").unwrap();
    let search = FileSearch {
        input: &input,
        format: EdgeFormat::Text,
        root: 0,
        pass: Pass::Sssp(SsspParams::DEFAULT),
        backend: Backend::Rayon,
        force: false,
    };
    let errors = ThreadRanks::run(3, |comm| {
        search.on_ranks(comm, &Silent).unwrap_err().to_string()
    });
    assert!(
        errors[0].contains("only a binary edge list has"),
        "{errors:?}"
    );
    assert!(errors.iter().all(|e| *e == errors[0]));
}
