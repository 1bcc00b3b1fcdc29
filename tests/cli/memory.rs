//! `--memory fast|lean|auto`: the lean layout (a generated list packed in
//! 7 bytes a tuple through kernel 1 and the block order, and a dense
//! validation batch) makes the same graph, searches, verdicts and files as
//! the fast one.

use crate::support::*;
use harness::report::SearchRecord;

/// What a run reports that does not depend on time: the graph, its
/// checksum, the order validation read the tuples in, and each search's
/// root, nedge, reached vertices and depth, BFS and SSSP.
fn untimed(j: &RunReport) -> impl PartialEq + std::fmt::Debug {
    let searches = |s: &[SearchRecord]| -> Vec<(u64, u64, u64, u32)> {
        s.iter()
            .map(|r| (r.root, r.nedge, r.reached, r.depth))
            .collect()
    };
    (
        j.graph.num_vertices,
        j.graph.num_edges,
        j.graph.checksum.clone(),
        j.graph.tuple_order.clone(),
        j.graph.validation_lanes,
        j.statistics.nedge,
        searches(&j.searches),
        j.sssp_searches.as_deref().map(searches),
    )
}

#[test]
fn lean_runs_validate_every_search_and_match_fast() {
    let dir = tempfile::tempdir().unwrap();
    // 4 keys read the list in input order (unpacked after kernel 1), 16 put
    // it in block order from the packed list; --sssp keeps it beside its
    // weights.
    for extra in [
        &["--scale", "10", "--keys", "4"][..],
        &["--scale", "10", "--keys", "16"],
        &["--scale", "10", "--keys", "16", "--generator", "graph500"],
        &["--scale", "9", "--keys", "16", "--sssp"],
    ] {
        let run = |memory: &str| {
            let json = dir.path().join(format!("{memory}.json"));
            let mut args = extra.to_vec();
            args.extend(["--memory", memory, "-q", "--json", path_str(&json)]);
            let o = graph500(&args);
            assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
            read_run(&json)
        };
        let (fast, lean) = (run("fast"), run("lean"));
        assert_eq!(fast.options.memory.as_deref(), Some("fast"));
        assert_eq!(lean.options.memory.as_deref(), Some("lean"));
        assert!(lean.options.validate);
        assert!(lean.searches.iter().all(|s| s.validate_time.is_some()));
        assert_eq!(untimed(&lean), untimed(&fast), "{extra:?}");
        // Lean never estimates more than fast; where the tuples go in block
        // order it estimates less (the list packed until then, and a dense
        // batch). The unit test of `memory_estimate` has the arithmetic.
        let blocked = extra.contains(&"16");
        let (f, l) = (fast.memory_estimate_bytes, lean.memory_estimate_bytes);
        assert!(l <= f, "{extra:?}: lean {l} against fast {f}");
        assert!(!blocked || l < f, "{extra:?}: lean {l} against fast {f}");
    }
    // auto, with room to spare, is fast.
    let auto = json_run(dir.path(), "a.json", &["--memory", "auto"]);
    assert_eq!(auto.options.memory.as_deref(), Some("fast"));
    assert_bad_input(&graph500(&["--memory", "small"]), &["--memory"]);
}

#[test]
fn generate_writes_the_same_bytes_in_either_layout() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["g.bin", "g.txt", "g.mtx", "g.pe48"] {
        for weights in [false, true] {
            let write = |memory: &str| {
                let out = dir.path().join(format!("{memory}-{file}"));
                let mut args = vec!["generate", "-s", "9", "-q", "--memory", memory];
                args.extend(["--out", path_str(&out)]);
                if weights {
                    args.push("--weights");
                }
                let o = graph500(&args);
                assert!(o.status.success(), "{}", stderr(&o));
                let mut bytes = std::fs::read(&out).unwrap();
                if weights && file.ends_with("pe48") {
                    let beside = dir.path().join(format!("{memory}-{file}.weights"));
                    bytes.extend(std::fs::read(beside).unwrap());
                }
                bytes
            };
            let fast = write("fast");
            assert!(!fast.is_empty());
            assert!(write("lean") == fast, "{file}, weights {weights}");
        }
    }
}
