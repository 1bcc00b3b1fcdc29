use super::*;
use crate::engine::{Measured, Outcome, drive};
use crate::observe::{Event, Silent};
use crate::plan::GeneratorKind;
use crate::report::SearchRecord;
use crate::{Failure, InvalidSearch, Pass, run};
use kernels::{Kernel, Parents, SearchStats};
use validate::Batch;

/// `plan` run in one process whose BFS engine `make` makes.
fn run_with(
    plan: &Plan,
    observer: &dyn Observer,
    make: impl FnOnce(Arc<Csr>) -> Box<dyn Bfs>,
) -> Result<Outcome, Error> {
    drive(&mut OneProcess::with_bfs(make), plan, observer)
}

/// A kernel that searches correctly, then detaches one reached vertex.
struct Detaching(Box<dyn Bfs>);

impl Bfs for Detaching {
    fn reset(&mut self) {
        self.0.reset();
    }
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let stats = self.0.search(root);
        let parents = self.0.parents();
        let n = u32::try_from(parents.len()).unwrap();
        let victim = (0..n)
            .find(|&v| v != root.vertex() && parents.is_reached(v))
            .unwrap();
        parents.set(victim, kernels::NO_PARENT);
        stats
    }
    fn parents(&self) -> &Parents {
        self.0.parents()
    }
}

/// A kernel that searches correctly but reports one level too many.
struct Boasting(Box<dyn Bfs>);

impl Bfs for Boasting {
    fn reset(&mut self) {
        self.0.reset();
    }
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let stats = self.0.search(root);
        SearchStats {
            depth: stats.depth + 1,
            ..stats
        }
    }
    fn parents(&self) -> &Parents {
        self.0.parents()
    }
}

/// `plan` run with a kernel that leaves one reached vertex detached.
fn run_detaching(plan: &Plan) -> Outcome {
    run_with(plan, &Silent, |g| {
        Box::new(Detaching(Kernel::Par.engine(g)))
    })
    .unwrap()
}

fn plan(validate: bool) -> Plan {
    Plan {
        keys: 4,
        passes: vec![Pass::Bfs(Kernel::Par)],
        validate,
        ..Plan::new(GraphSource::Generated(GeneratorSpec {
            kind: GeneratorKind::Xoshiro,
            scale: 8,
            edgefactor: 16,
            seed: Some(1),
        }))
    }
}

#[test]
fn a_corrupted_tree_stops_the_run_at_its_search_naming_the_check() {
    let outcome = run_with(&plan(true), &Silent, |g| {
        Box::new(Detaching(Kernel::Par.engine(g)))
    });
    match outcome.unwrap() {
        Outcome::Invalid(InvalidSearch {
            search,
            failure: Failure::Invalid(error),
            ..
        }) => {
            assert_eq!(search, 0);
            assert_eq!(error.check(), 4, "{error}");
        }
        other => panic!("a detached vertex passed validation: {other:?}"),
    }
}

#[test]
fn a_kernel_that_misreports_its_depth_is_caught() {
    let outcome = run_with(&plan(true), &Silent, |g| {
        Box::new(Boasting(Kernel::Seq.engine(g)))
    });
    match outcome.unwrap() {
        Outcome::Invalid(InvalidSearch {
            failure: Failure::Misreported { what, .. },
            ..
        }) => assert_eq!(what, "depth"),
        other => panic!("a wrong depth passed: {other:?}"),
    }
}

#[test]
fn without_validation_every_search_is_reported() {
    let Outcome::Valid(m) = run(&plan(false), &Silent).unwrap() else {
        panic!("nothing to fail without validation");
    };
    assert_eq!(m.searches("bfs").unwrap().len(), 4);
    assert_eq!(m.validation_lanes(), 0);
    assert!(
        m.searches("bfs")
            .unwrap()
            .iter()
            .all(|r| r.validate_time.is_none() && r.nedge > 0)
    );
}

/// Asks to stop once `after` searches are done.
struct StopAfter(usize, std::sync::atomic::AtomicUsize);

impl Observer for StopAfter {
    fn event(&self, event: Event<'_>) {
        if let Event::Searched { .. } = event {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    fn stop_requested(&self) -> bool {
        self.1.load(std::sync::atomic::Ordering::SeqCst) >= self.0
    }
}

/// Guards the block order: a run that validates enough searches sorts
/// its tuples first, yet reports the input order's checksum and the
/// same searches as a run that keeps the input order; and a corrupted
/// tree is still caught in the blocked order.
#[test]
fn block_order_changes_no_result_and_keeps_the_input_checksum() {
    let many = |validate| Plan {
        keys: BLOCK_ORDER_MIN_KEYS,
        ..plan(validate)
    };
    let Outcome::Valid(blocked) = run(&many(true), &Silent).unwrap() else {
        panic!("a correct kernel validates");
    };
    let Outcome::Valid(input) = run(&many(false), &Silent).unwrap() else {
        panic!("nothing to fail without validation");
    };
    assert!(matches!(blocked.tuple_order, TupleOrder::Blocked { .. }));
    assert_eq!(input.tuple_order, TupleOrder::Input);
    assert_eq!(blocked.checksum, input.checksum);
    let summary = |m: &Measured| -> Vec<(u64, u64, u32)> {
        m.searches("bfs")
            .unwrap()
            .iter()
            .map(|s| (s.root, s.nedge, s.depth))
            .collect()
    };
    assert_eq!(summary(&blocked), summary(&input));
    assert_eq!(
        run(&plan(true), &Silent)
            .map(|o| matches!(o, Outcome::Valid(m)
                if m.tuple_order == TupleOrder::Input && m.validation_lanes() == 1))
            .ok(),
        Some(true),
        "few keys: input order"
    );

    assert!(
        matches!(run_detaching(&many(true)), Outcome::Invalid(_)),
        "caught in block order"
    );
}

/// Guards the BFS validation of a run of both kernels: the SSSP
/// validator keeps the list, the BFS validator reads a block-ordered
/// copy, with the results of a run that validates nothing, and a bad
/// tree is still caught there.
#[test]
fn a_run_of_both_kernels_validates_its_bfs_on_a_block_ordered_copy() {
    let both = |validate| Plan {
        keys: BLOCK_ORDER_MIN_KEYS,
        ..plan(validate).then(Pass::Sssp(kernels::SsspParams::DEFAULT))
    };
    let Outcome::Valid(checked) = run(&both(true), &Silent).unwrap() else {
        panic!("correct kernels validate");
    };
    let Outcome::Valid(unchecked) = run(&both(false), &Silent).unwrap() else {
        panic!("nothing to fail without validation");
    };
    assert!(matches!(
        checked.tuple_order,
        TupleOrder::Blocked { copied: true, .. }
    ));
    assert_eq!(unchecked.tuple_order, TupleOrder::Input);
    let summary = |records: &[SearchRecord]| -> Vec<(u64, u64, u32)> {
        records.iter().map(|s| (s.root, s.nedge, s.depth)).collect()
    };
    assert_eq!(
        summary(checked.searches("bfs").unwrap()),
        summary(unchecked.searches("bfs").unwrap())
    );
    let sssp = |m: &Measured| summary(m.searches("sssp").expect("SSSP searches"));
    assert_eq!(sssp(&checked), sssp(&unchecked));
    let validated = |r: &[SearchRecord]| r.iter().all(|s| s.validate_time.is_some());
    assert!(validated(checked.searches("bfs").unwrap()));
    assert!(validated(checked.searches("sssp").unwrap()));

    assert!(
        matches!(run_detaching(&both(true)), Outcome::Invalid(_)),
        "caught in block order"
    );
}

/// How [`Breaking`] breaks a search's tree.
#[derive(Clone, Copy)]
enum Break {
    /// A reached leaf marked unreached: check 4, which a batch finds
    /// in its shared pass.
    Detach,
    /// A reached vertex made its own parent: check 2, found at once.
    SecondRoot,
}

/// A kernel that searches correctly, then breaks the trees of the
/// searches listed (numbered from the first after the warm-up).
struct Breaking {
    inner: Box<dyn Bfs>,
    calls: usize,
    breaks: Vec<(usize, Break)>,
}

impl Bfs for Breaking {
    fn reset(&mut self) {
        self.inner.reset();
    }
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let stats = self.inner.search(root);
        let search = self.calls.checked_sub(1);
        self.calls += 1;
        let Some(&(_, how)) = self.breaks.iter().find(|b| Some(b.0) == search) else {
            return stats;
        };
        let parents = self.inner.parents();
        let n = u32::try_from(parents.len()).unwrap();
        let mut has_child = vec![false; n as usize];
        for v in 0..n {
            if let Some(p) = parents.get(v).filter(|&p| p != v) {
                has_child[p as usize] = true;
            }
        }
        let victim = (0..n)
            .find(|&v| v != root.vertex() && parents.is_reached(v) && !has_child[v as usize])
            .unwrap();
        match how {
            Break::Detach => parents.set(victim, kernels::NO_PARENT),
            Break::SecondRoot => parents.set(victim, victim),
        }
        stats
    }
    fn parents(&self) -> &Parents {
        self.inner.parents()
    }
}

/// The search and check that stop a batched run (20 keys: a full
/// batch and a partial one) whose kernel breaks `breaks`.
fn first_failure(breaks: &[(usize, Break)]) -> Option<(usize, u8)> {
    let plan = Plan {
        keys: 20,
        ..plan(true)
    };
    let outcome = run_with(&plan, &Silent, |g| {
        Box::new(Breaking {
            inner: Kernel::Par.engine(g),
            calls: 0,
            breaks: breaks.to_vec(),
        })
    });
    match outcome.unwrap() {
        Outcome::Valid(_) => None,
        Outcome::Invalid(InvalidSearch {
            search,
            failure: Failure::Invalid(error),
            ..
        }) => Some((search, error.check())),
        Outcome::Invalid(other) => panic!("not a validation failure: {other:?}"),
    }
}

/// Guards the batched validation's order: the first invalid search in
/// key order is reported, whether it fails when held or in the shared
/// pass, and whatever a later search in its batch does.
#[test]
fn a_batched_run_reports_its_first_invalid_search() {
    assert!(Batch::suits(1 << 8), "SCALE 8 runs batch");
    assert_eq!(first_failure(&[]), None);
    assert_eq!(first_failure(&[(3, Break::Detach)]), Some((3, 4)));
    assert_eq!(first_failure(&[(5, Break::SecondRoot)]), Some((5, 2)));
    let both = [(3, Break::Detach), (5, Break::SecondRoot)];
    assert_eq!(
        first_failure(&both),
        Some((3, 4)),
        "held 3 before 5's own failure"
    );
    let later = [(5, Break::Detach), (3, Break::SecondRoot)];
    assert_eq!(first_failure(&later), Some((3, 2)));
    assert_eq!(
        first_failure(&[(18, Break::Detach)]),
        Some((18, 4)),
        "partial batch"
    );
}

/// Records what it is told of each search.
#[derive(Default)]
struct Watching(std::sync::Mutex<Vec<(usize, Option<f64>)>>);

impl Observer for Watching {
    fn event(&self, event: Event<'_>) {
        if let Event::Searched { index, record, .. } = event {
            self.0.lock().unwrap().push((index, record.validate_time));
        }
    }
}

/// dobfs claims its levels and the batch takes them as certificates:
/// every search's checks 1 and 2 are proven without a walk. The kernel
/// and the validator must agree on the unreached claim for that.
#[test]
fn dobfs_searches_are_certified_by_the_levels_they_claim() {
    assert_eq!(kernels::NO_LEVEL, validate::NO_LEVEL);
    let plan = Plan {
        keys: 20,
        passes: vec![Pass::Bfs(Kernel::Dobfs(kernels::DoParams::DEFAULT))],
        ..plan(true)
    };
    let Outcome::Valid(m) = run(&plan, &Silent).unwrap() else {
        panic!("a correct kernel validates");
    };
    assert_eq!(m.validation_lanes(), validate::batch::LANES);
    assert_eq!(m.validation_certified(), 20);
}

/// Batched searches reach the observer validated, in key order, each
/// with its own validation time.
#[test]
fn batched_searches_are_announced_in_order_once_validated() {
    let plan = Plan {
        keys: 20,
        ..plan(true)
    };
    let watching = Watching::default();
    let Outcome::Valid(m) = run(&plan, &watching).unwrap() else {
        panic!("a correct kernel validates");
    };
    assert!(matches!(m.tuple_order, TupleOrder::Blocked { .. }));
    assert_eq!(m.validation_lanes(), validate::batch::LANES);
    assert_eq!(m.validation_certified(), 0, "par claims no levels");
    let seen = watching.0.into_inner().unwrap();
    assert_eq!(
        seen.iter().map(|s| s.0).collect::<Vec<_>>(),
        (0..20).collect::<Vec<_>>()
    );
    assert!(seen.iter().all(|s| s.1.is_some_and(|t| t > 0.0)));
    let times: Vec<Option<f64>> = m
        .searches("bfs")
        .unwrap()
        .iter()
        .map(|r| r.validate_time)
        .collect();
    assert_eq!(times, seen.iter().map(|s| s.1).collect::<Vec<_>>());
}

#[test]
fn a_stop_request_ends_the_run_between_searches() {
    let observer = StopAfter(2, 0.into());
    assert!(matches!(run(&plan(true), &observer), Err(Error::Stopped)));
    assert_eq!(observer.1.into_inner(), 2);
}

#[test]
fn the_lean_estimate_counts_7_bytes_a_tuple_only_where_the_list_stays_packed_and_a_dense_batch() {
    let (m, n) = (16 << 26, 1 << 26);
    let at = |keys, sssp: bool, memory| {
        let mut p = Plan {
            keys,
            memory,
            passes: plan(true).passes,
            ..Plan::new(GraphSource::Generated(GeneratorSpec {
                kind: GeneratorKind::Xoshiro,
                scale: 26,
                edgefactor: 16,
                seed: Some(1),
            }))
        };
        if sssp {
            p = p.then(Pass::Sssp(kernels::SsspParams::DEFAULT));
        }
        memory_estimate(&p, m, n)
    };
    let lean = crate::Memory::Lean;
    let fast = crate::Memory::Fast;
    // Block order from the packed list: kernel 1's and the block order's
    // phases are the peak at SCALE 26, one byte a tuple lower.
    assert_eq!(at(64, false, fast) - at(64, false, lean), m);
    // Input order: unpacked to 8, and no batch.
    assert_eq!(at(4, false, fast), at(4, false, lean));
    // A list kept beside its weights: unpacked to 8, and the dense batch
    // (cells for about half the vertices at SCALE 26) instead of the one
    // by id.
    let by_id = crate::budget::batch_bytes(n, crate::budget::Cells::ById);
    let named = crate::budget::named_bound(26, 16);
    let dense = crate::budget::batch_bytes(n, crate::budget::Cells::Dense { named });
    assert!(dense < by_id * 6 / 10, "{dense} against {by_id}");
    assert_eq!(at(64, true, fast) - at(64, true, lean), by_id - dense);
    // A file's list is never packed.
    let file = Plan {
        memory: lean,
        ..Plan::new(GraphSource::File {
            path: "g.bin".into(),
            format: generator::format::EdgeFormat::Binary,
            seed: 1,
        })
    };
    assert!(!file.packs_list());
    assert_eq!(file.with_auto_memory().memory, fast);
}
