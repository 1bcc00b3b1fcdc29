//! Every kernel on every fixture graph of `data/`, against the hand-derived
//! answers of `data/answers.txt`, every search run and validated by the
//! harness's run loop: the BFS kernels, and kernel 3 with unit weights
//! (its distances are then the BFS levels) and with others.

use generator::format::read_edge_list;
use harness::pass::sssp::{SsspChecker, SsspSearcher};
use harness::{BfsChecker, BfsSearcher, Silent, search_all};
use kernels::{Backend, Csr, DeltaStepping, Kernel, SearchKey, SsspParams, WeightedCsr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Answer {
    file: String,
    root: u64,
    reached: u64,
    depth: u32,
    nedge: u64,
}

fn data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file)
}

fn answers() -> Vec<Answer> {
    let text = std::fs::read_to_string(data("answers.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 5, "answers.txt line {l:?}");
            Answer {
                file: f[0].to_string(),
                root: f[1].parse().unwrap(),
                reached: f[2].parse().unwrap(),
                depth: f[3].parse().unwrap(),
                nedge: f[4].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn every_kernel_matches_the_known_answers_and_validates() {
    let answers = answers();
    assert!(answers.len() >= 14, "answers.txt lost lines");
    for a in &answers {
        let edges = read_edge_list(&data(&a.file)).unwrap();
        let graph = Arc::new(Csr::from_edge_list(&edges));
        let root = SearchKey::new(a.root, &graph).unwrap();
        for (kernel, backend) in Kernel::ENGINES {
            let what = format!("{} from {} with {}", a.file, a.root, kernel.label(backend));
            let engine = kernel.engine_on(backend, Arc::clone(&graph));
            let mut searcher = BfsSearcher::new(engine, Arc::clone(&graph));
            let mut checker = BfsChecker::new(&edges);
            // The loop validates each tree, checks the kernel's nedge against
            // the validator's count and its reach and depth against the
            // validator's.
            let records = search_all(
                "bfs",
                &mut searcher,
                Some(&mut checker),
                &[root],
                false,
                &Silent,
            )
            .unwrap()
            .unwrap_or_else(|e| panic!("{what}: {}", e.failure));
            let r = &records[0];
            assert_eq!(
                (r.reached, r.depth, r.nedge),
                (a.reached, a.depth, a.nedge),
                "{what}"
            );
        }
    }
}

#[test]
fn every_fixture_file_has_answers() {
    let answered: Vec<String> = answers().into_iter().map(|a| a.file).collect();
    let mut files = Vec::new();
    for folder in ["", "formats"] {
        for entry in std::fs::read_dir(data(folder)).unwrap() {
            let path = entry.unwrap().path();
            // Every graph extension but .txt, which answers.txt uses.
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default();
            let graph = ["el", "snap", "mtx", "pe48", "g500"].contains(&ext);
            if path.is_file() && graph {
                let name = path.strip_prefix(data("")).unwrap().display().to_string();
                files.push(name);
            }
        }
    }
    assert!(files.len() >= 15, "fixtures went missing: {files:?}");
    for name in files {
        assert!(
            answered.contains(&name),
            "{name} has no line in answers.txt"
        );
    }
}

#[test]
fn every_format_of_the_path_fixture_holds_the_same_tuples() {
    let read = |file: &str| {
        let list = read_edge_list(&data(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut tuples: Vec<(u32, u32)> = list
            .edges()
            .iter()
            .map(|e| (e.u.min(e.v), e.u.max(e.v)))
            .collect();
        tuples.sort_unstable();
        (list.num_vertices(), tuples)
    };
    let expected = read("path.el");
    for file in [
        "formats/path.mtx",
        "formats/path-symmetric.mtx",
        "formats/path-real.mtx",
        "formats/path-integer.mtx",
        "formats/path.snap",
        "formats/path.pe48",
        "formats/path.g500",
        "formats/path-wide.g500",
    ] {
        assert_eq!(read(file), expected, "{file}");
    }
}

/// Guards kernel 3 on every fixture and root of `answers.txt`, on both
/// backends and 1 and 2 threads (rows split at delta on 2): with every
/// weight 1 the distances are the BFS levels, so a search reaches the
/// known vertices, its farthest distance is the known depth and its nedge
/// the known count; with weights from a hash, every third 0, it reaches
/// and counts the same, and the run loop's SSSP validator proves each
/// result (every distance shortest, the parents a tree).
#[test]
fn kernel_3_matches_the_known_answers_and_validates_on_every_fixture() {
    for a in &answers() {
        let edges = read_edge_list(&data(&a.file)).unwrap();
        let (n, m) = (edges.num_vertices(), edges.len() as u64);
        let unit = vec![1.0f32; edges.len()];
        let hashed: Vec<f32> = (0..m)
            .map(|i| ((i * 2_654_435_761) % 1000) as f32 / 1000.0 * (i % 3).min(1) as f32)
            .collect();
        for (weights, unit_weights) in [(&unit, true), (&hashed, false)] {
            for (threads, backend) in [1, 2]
                .into_iter()
                .flat_map(|t| Backend::ALL.map(|b| (t, b)))
            {
                let what = format!(
                    "{} from {}, unit weights {unit_weights}, {threads} threads on {}",
                    a.file,
                    a.root,
                    backend.name()
                );
                let params = SsspParams::DEFAULT;
                kernels::par::in_pool(threads, || {
                    kernels::par::with_pool(threads, || {
                        let mut graph = WeightedCsr::build_on(backend, n, edges.edges(), weights);
                        if threads == 2 {
                            graph.split_light_on(backend, params.delta());
                        }
                        let graph = Arc::new(graph);
                        let key = SearchKey::new(a.root, &graph.unweighted()).unwrap();
                        let mut searcher = SsspSearcher::new(Arc::clone(&graph), params, backend);
                        let mut checker = SsspChecker::new(n, edges.edges(), weights);
                        let records = search_all(
                            "sssp",
                            &mut searcher,
                            Some(&mut checker),
                            &[key],
                            false,
                            &Silent,
                        )
                        .unwrap()
                        .unwrap_or_else(|e| panic!("{what}: {}", e.failure));
                        let r = &records[0];
                        assert_eq!((r.reached, r.nedge), (a.reached, a.nedge), "{what}");
                        if unit_weights {
                            let mut engine = DeltaStepping::on(backend, graph, params);
                            engine.reset();
                            let stats = engine.search(key.vertex());
                            assert_eq!(stats.max_dist, a.depth as f32, "{what}");
                        }
                    })
                })
                .unwrap();
            }
        }
    }
}
