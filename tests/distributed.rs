//! The distributed run loop over ranks as threads (no MPI needed): for one
//! seed, every rank count and both partitions give the single-process
//! checksum, roots and nedge of every search, BFS and (with `--sssp`)
//! SSSP, and every tree is validated across the ranks.

use dist::ThreadRanks;
use harness::{
    GeneratorKind, GeneratorSpec, GraphSource, Measured, Outcome, Partitioning, Pass, Plan, Silent,
};

fn plan(kind: GeneratorKind, scale: u32) -> Plan {
    Plan {
        keys: 8,
        ..Plan::new(GraphSource::Generated(GeneratorSpec {
            kind,
            scale,
            edgefactor: 16,
            seed: (kind == GeneratorKind::Xoshiro).then_some(7),
        }))
    }
}

fn valid(outcome: Result<Outcome, harness::Error>) -> Measured {
    match outcome {
        Ok(Outcome::Valid(m)) => m,
        Ok(Outcome::Invalid(e)) => panic!("search {} failed validation: {}", e.search, e.failure),
        Err(e) => panic!("the run failed: {e}"),
    }
}

/// (root, nedge, reached, depth) per search.
fn searches(m: &Measured) -> Vec<(u64, u64, u64, u32)> {
    m.searches("bfs")
        .unwrap()
        .iter()
        .map(|s| (s.root, s.nedge, s.reached, s.depth))
        .collect()
}

/// (root, nedge, reached, depth) per SSSP search in a run of both
/// kernels, every one validated if the plan validates.
fn sssp_searches(plan: &Plan, m: &Measured) -> Option<Vec<(u64, u64, u64, u32)>> {
    let records = m.searches("sssp")?;
    assert!(
        (records.iter()).all(|s| s.validate_time.is_some() == plan.validate),
        "every SSSP search validated, or none"
    );
    Some(
        (records.iter())
            .map(|s| (s.root, s.nedge, s.reached, s.depth))
            .collect(),
    )
}

/// The SSSP pass of `plan`, if it has one.
fn sssp_pass(plan: &Plan) -> Option<Pass> {
    plan.passes
        .iter()
        .copied()
        .find(|p| matches!(p, Pass::Sssp(_)))
}

/// The labels of a block's lines, in order.
fn labels(block: &str) -> Vec<&str> {
    block.lines().map(|l| &l[..l.len().min(32)]).collect()
}

/// Over each of `ranks`, on every rank: the single-process checksum and
/// searches (with `--sssp`, the SSSP searches too, validated across the
/// ranks if the plan validates), the bytes of each search and validation,
/// and the block's lines, with `num_mpi_processes: P`.
fn same_as_one_process(plan: &Plan, ranks: &[usize]) {
    same_as_one_process_on(plan, ranks, 2);
}

/// [`same_as_one_process`] with `threads` threads a rank, and the report
/// naming the plan's partition and its grid.
fn same_as_one_process_on(plan: &Plan, ranks: &[usize], threads: usize) {
    let one = valid(harness::run(plan, &Silent));
    let sssp = sssp_searches(plan, &one);
    assert_eq!(
        sssp.as_ref().map(Vec::len),
        sssp_pass(plan).map(|_| plan.keys)
    );
    let block = plan.statistics(&one).block(&[]);
    let validations = if plan.validate { plan.keys } else { 0 };
    for &p in ranks {
        let all = ThreadRanks::run(p, |comm| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| valid(harness::run_distributed(plan, &Silent, comm)))
        });
        for (rank, m) in all.iter().enumerate() {
            assert_eq!(m.checksum, one.checksum, "P {p} rank {rank}: checksum");
            assert_eq!(searches(m), searches(&one), "P {p} rank {rank}: searches");
            assert_eq!(sssp_searches(plan, m), sssp, "P {p} rank {rank}: SSSP");
            let mpi = m.mpi_report().expect("a distributed run says so");
            assert_eq!(mpi.ranks, p);
            assert_eq!(mpi.partition, plan.partition.name());
            let grid = match plan.partition {
                Partitioning::OneD => (1, p),
                Partitioning::TwoD => dist::Grid::shape(p),
            };
            assert_eq!(mpi.grid, Some([grid.0, grid.1]), "P {p}");
            assert_eq!(mpi.search_bytes.len(), plan.keys);
            assert_eq!(mpi.validate_bytes.len(), validations);
            // The least time a rank spent inside collectives, per search:
            // never more than this rank's whole search; one per validation.
            let waits = [
                ("bfs", &mpi.search_comm_seconds, &mpi.validate_comm_seconds),
                (
                    "sssp",
                    &mpi.sssp_search_comm_seconds,
                    &mpi.sssp_validate_comm_seconds,
                ),
            ];
            for (kernel, searched, checked) in waits {
                let Some(pass) = m.passes.iter().find(|p| p.kernel == kernel) else {
                    continue;
                };
                let waits = searched.as_ref().expect("a kernel's waits");
                assert_eq!(waits.len(), plan.keys, "P {p} {kernel}: a wait per search");
                for (wait, search) in waits.iter().zip(&pass.searches) {
                    assert!(
                        *wait > 0.0 && *wait <= search.time,
                        "P {p} {kernel}: {wait} s"
                    );
                }
                let checks = checked.as_ref().map(Vec::len);
                assert_eq!(
                    checks,
                    Some(validations),
                    "P {p} {kernel}: a wait per validation"
                );
            }
            let certified = m.validation_certified();
            assert_eq!(
                certified, validations as u64,
                "P {p}: trees proven by their claims"
            );
            let sssp_bytes = [&mpi.sssp_search_bytes, &mpi.sssp_validate_bytes];
            let counts = sssp_bytes.map(|b| b.as_ref().map(Vec::len));
            let expected = [plan.keys, validations].map(|c| sssp_pass(plan).map(|_| c));
            assert_eq!(counts, expected, "P {p}: SSSP bytes per search, validation");
            if p > 1 {
                let sssp = sssp_bytes.into_iter().flatten().flatten();
                let sent = mpi.search_bytes.iter().chain(sssp);
                assert!(mpi.kernel1_bytes > 0 && sent.copied().all(|b| b > 0));
            }
            let stats = plan.statistics(m);
            assert_eq!(stats.num_mpi_processes as usize, p);
            assert_eq!(labels(&stats.block(&[])), labels(&block), "P {p}");
        }
    }
}

#[test]
fn every_rank_count_gives_the_single_process_checksum_roots_and_nedge() {
    same_as_one_process(&plan(GeneratorKind::Xoshiro, 11), &[1, 2, 3, 4]);
}

fn two_d(plan: Plan) -> Plan {
    Plan {
        partition: Partitioning::TwoD,
        ..plan
    }
}

/// `--partition 2d` at every grid shape the issue names (1 x 1, 1 x 2,
/// 1 x 3, 2 x 2, 2 x 3, 3 x 3) with 1 and 2 threads a rank: the single
/// process's checksum, keys, nedge, reached and depth, every tree
/// validated by the 1-D validator.
#[test]
fn the_2d_partition_gives_the_single_process_answers_at_every_grid_shape() {
    let plan = two_d(plan(GeneratorKind::Xoshiro, 10));
    for threads in [1, 2] {
        same_as_one_process_on(&plan, &[1, 2, 3, 4, 6, 9], threads);
    }
}

/// `--partition 2d --generator graph500`: the reference's graph, keys and
/// nedge statistics over a 2 x 2 and a 2 x 3 grid; 64-bit ids too.
#[test]
fn the_2d_partition_with_the_reference_generator_gives_its_nedge() {
    let plan = two_d(plan(GeneratorKind::Graph500, 9));
    same_as_one_process_on(&plan, &[4, 6], 1);
    let wide = Plan {
        wide_ids: true,
        ..plan
    };
    same_as_one_process_on(&wide, &[4], 2);
}

/// `--partition 2d --sssp`: the BFS over the grid, kernel 3 over the 1-D
/// weighted rows of the same run, both validated and equal to one
/// process's.
#[test]
fn sssp_with_the_2d_partition_gives_the_single_process_searches() {
    let plan = two_d(with_sssp(plan(GeneratorKind::Xoshiro, 9)));
    same_as_one_process_on(&plan, &[1, 4, 6], 1);
    same_as_one_process_on(&plan, &[3], 2);
}

#[test]
fn the_reference_generator_splits_over_ranks_to_the_same_graph_and_keys() {
    same_as_one_process(&plan(GeneratorKind::Graph500, 10), &[3]);
}

#[test]
fn wide_ids_give_the_same_answers() {
    let wide = Plan {
        wide_ids: true,
        ..plan(GeneratorKind::Xoshiro, 10)
    };
    same_as_one_process(&wide, &[2]);
    let all = ThreadRanks::run(2, |comm| {
        valid(harness::run_distributed(&wide, &Silent, comm))
    });
    assert_eq!(all[0].mpi_report().unwrap().id_bytes, 8);
}

/// Guards the limits beyond SCALE 31: ranks accept such graphs (64-bit
/// tuples and ids), refuse when a rank would own 2^32 vertices, naming the
/// fewest ranks that would do, and otherwise refuse only for memory;
/// one process refuses them by name.
#[test]
fn beyond_scale_31_the_ranks_refuse_only_what_they_cannot_hold() {
    let refusal = |scale: u32, ranks: usize| {
        let plan = plan(GeneratorKind::Xoshiro, scale);
        let errors = ThreadRanks::run(ranks, |comm| {
            match harness::run_distributed(&plan, &Silent, comm) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("SCALE {scale} fits this machine"),
            }
        });
        assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
        errors[0].clone()
    };
    let rows = refusal(33, 2);
    assert!(rows.contains("run at least 3 ranks"), "{rows}");
    let memory = refusal(34, 8);
    assert!(
        memory.contains("17179869184 vertices") && memory.contains("GiB"),
        "{memory}"
    );
    match harness::run(&plan(GeneratorKind::Xoshiro, 32), &Silent) {
        Err(e) => assert!(e.to_string().contains("MPI ranks"), "{e}"),
        Ok(_) => panic!("one process at SCALE 32"),
    }
}

fn with_sssp(plan: Plan) -> Plan {
    Plan { keys: 4, ..plan }.then(Pass::Sssp(kernels::SsspParams::DEFAULT))
}

#[test]
fn sssp_over_every_rank_count_gives_the_single_process_searches() {
    same_as_one_process(&with_sssp(plan(GeneratorKind::Xoshiro, 10)), &[1, 2, 3, 4]);
}

#[test]
fn sssp_over_ranks_with_the_reference_generator_and_its_weights() {
    same_as_one_process(&with_sssp(plan(GeneratorKind::Graph500, 9)), &[3]);
}

/// Another delta (rows split elsewhere), 64-bit ids, no validation, and
/// traced buckets that settle every reached vertex.
#[test]
fn sssp_over_ranks_with_wide_ids_another_delta_and_buckets() {
    let wide = Plan {
        wide_ids: true,
        validate: false,
        trace: true,
        ..with_sssp(plan(GeneratorKind::Xoshiro, 8))
    };
    let wide = Plan {
        passes: vec![
            wide.passes[0],
            Pass::Sssp(kernels::SsspParams::new(0.1).unwrap()),
        ],
        ..wide
    };
    same_as_one_process(&wide, &[2]);
    let all = ThreadRanks::run(2, |comm| {
        valid(harness::run_distributed(&wide, &Silent, comm))
    });
    for s in all[0].searches("sssp").unwrap() {
        let buckets = s.buckets.as_ref().expect("traced buckets");
        assert!(!buckets.is_empty());
        // Each reached vertex settles in its bucket (a rounding in f32 may
        // settle one twice, as `DistSssp` allows).
        assert!(buckets.iter().map(|b| b.settled).sum::<u64>() >= s.reached);
    }
}

#[test]
fn bad_input_on_the_ranks_is_one_agreed_error() {
    let too_many_keys = Plan {
        keys: 100_000,
        ..plan(GeneratorKind::Xoshiro, 6)
    };
    let errors = ThreadRanks::run(3, |comm| {
        match harness::run_distributed(&too_many_keys, &Silent, comm) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("100000 keys of 64 vertices"),
        }
    });
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    assert!(errors[0].contains("search keys"), "{}", errors[0]);
}

/// A plan of `keys` searches (their seed `seed`) on the graph in `path`.
fn from_file(
    path: &std::path::Path,
    format: generator::format::EdgeFormat,
    keys: usize,
    seed: u64,
) -> Plan {
    Plan {
        keys,
        ..Plan::new(GraphSource::File {
            path: path.to_path_buf(),
            format,
            seed,
        })
    }
}

/// Writes `list` to `path` as a binary edge list (with its weights, if
/// it has them).
fn write_binary(path: &std::path::Path, list: &generator::EdgeList) {
    let mut bytes = Vec::new();
    generator::format::EdgeFormat::Binary
        .write(&mut bytes, list)
        .unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `--input` over ranks: each rank reads its own byte range of a binary
/// file (and of its weights under `--sssp`), and the run equals one
/// process's run on the same file; a format without byte ranges, and a
/// file without weights under `--sssp`, are one agreed refusal.
#[test]
fn a_binary_file_is_read_in_shares_with_the_single_process_answers() {
    use generator::EdgeGenerator;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.bin");
    write_binary(
        &path,
        &generator::Kronecker::new(10, 16, 3).unwrap().generate(),
    );
    let binary = from_file(&path, generator::format::EdgeFormat::Binary, 8, 11);
    same_as_one_process(&binary, &[3]);
    // 64-bit tuples read from the same bytes.
    let wide = Plan {
        wide_ids: true,
        ..binary
    };
    same_as_one_process(&wide, &[2]);

    // Version 2, with weights: kernel 3 reads each rank's weights beside
    // its tuples.
    let generator = generator::Kronecker::new(9, 16, 5).unwrap();
    let weights = generator::generate_weights(&generator, 0..generator.num_blocks(), &|| {});
    let weighted = dir.path().join("w.bin");
    write_binary(
        &weighted,
        &generator.generate().with_weights(weights).unwrap(),
    );
    let binary_sssp = with_sssp(from_file(
        &weighted,
        generator::format::EdgeFormat::Binary,
        8,
        11,
    ));
    same_as_one_process(&binary_sssp, &[2, 3]);
    // Version 1 under --sssp: refused in one agreed line.
    let unweighted = with_sssp(from_file(
        &path,
        generator::format::EdgeFormat::Binary,
        8,
        11,
    ));
    let errors = ThreadRanks::run(3, |comm| {
        match harness::run_distributed(&unweighted, &Silent, comm) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("--sssp on a file without weights"),
        }
    });
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    assert!(
        errors[0].contains("--sssp") && errors[0].contains("g.bin") && !errors[0].contains('\n'),
        "{}",
        errors[0]
    );

    let text = dir.path().join("g.el");
    std::fs::write(&text, "0 1\n1 2\n").unwrap();
    let plan = from_file(&text, generator::format::EdgeFormat::Text, 8, 11);
    let errors = ThreadRanks::run(2, |comm| {
        match harness::run_distributed(&plan, &Silent, comm) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a text file under mpirun"),
        }
    });
    assert_eq!(errors[0], errors[1]);
    assert!(errors[0].contains("binary"), "{}", errors[0]);
}

/// A missing `--input` over ranks is refused for being missing, whatever
/// its format: not as a text file to convert first.
#[test]
fn a_missing_input_on_the_ranks_says_no_such_file_not_convert_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nonexistent.el");
    let plan = from_file(&path, generator::format::EdgeFormat::Text, 8, 11);
    let errors = ThreadRanks::run(2, |comm| {
        match harness::run_distributed(&plan, &Silent, comm) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a missing file under mpirun"),
        }
    });
    assert_eq!(errors[0], errors[1]);
    let err = &errors[0];
    assert!(err.contains("nonexistent.el"), "{err}");
    assert!(err.contains("No such file"), "{err}");
    assert!(!err.contains("convert"), "{err}");
}

/// Kernel 1 over ranks builds the rows' BFS index (each row's hub and the
/// delegates) inside its time, as one process's hubs are its `Csr`'s, and
/// the search pass shares it: the bytes kernel 1 sent are exactly those of
/// the rows' build and the index's collectives (built again here over each
/// rank's share of the file), and the index's are one byte a vertex to
/// each other rank and 512 counts an all-reduce.
#[test]
fn kernel_1_over_ranks_builds_the_bfs_index() {
    use dist::Comm;
    use generator::EdgeGenerator;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.bin");
    let edges = generator::Kronecker::new(10, 16, 9).unwrap().generate();
    write_binary(&path, &edges);
    let plan = from_file(&path, generator::format::EdgeFormat::Binary, 4, 2);
    let n = edges.num_vertices() as u64;
    for ranks in [2, 3] {
        let p = ranks as u64;
        ThreadRanks::run(ranks, |comm| {
            let m = valid(harness::run_distributed(&plan, &Silent, comm));
            let kernel1 = m.mpi_report().expect("over ranks").kernel1_bytes;
            let read = generator::format::binary::read_share::<generator::Edge>;
            let (_, tuples, _) = read(&path, comm.rank(), comm.size()).unwrap();
            let part = dist::Partition::new(n, comm.size());
            let backend = plan.backend;
            let start = comm.bytes_sent();
            let rows = dist::LocalGraph::<u32>::build_on(backend, comm, part, &tuples);
            comm.barrier();
            let built = comm.bytes_sent();
            dist::BfsIndex::build_on(backend, comm, &rows);
            let index = comm.bytes_sent() - built;
            let sums = [built - start, index];
            let [rows, index] = dist::all_reduce(comm, sums, dist::Reduce::Sum);
            assert_eq!(index, n * (p - 1) + 8 * 512 * p * (p - 1), "P {p}");
            assert_eq!(
                kernel1,
                rows + index,
                "P {p}: kernel 1 is the rows and the index"
            );
        });
    }
}
