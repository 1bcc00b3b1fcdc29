//! The subcommands: `run` (the benchmark), `generate`, `bfs` and `validate`.

use crate::budget;
use crate::cli::{self, BfsArgs, ConvertArgs, GenerateArgs, RunArgs, SearchArgs, ValidateArgs};
use crate::progress::Progress;
use crate::report::{self, JsonGraph, JsonOptions, JsonReport, RunStatistics};
use crate::run::{self, GraphSource, InvalidSearch, KeyRule, Outcome, RunPlan, timed};
use anyhow::{Context, bail};
use kernels::{Csr, SearchKey};
use std::process::ExitCode;
use std::sync::Arc;
use validate::Validator;

/// `graph500 run`: the benchmark, the statistics block, optionally JSON.
pub(crate) fn run(args: &RunArgs, force: bool, progress: &Progress) -> anyhow::Result<ExitCode> {
    crate::output::check(&args.input, args.json.iter().chain(&args.csv))?;
    let k = &args.kronecker;
    let (source, key_rule) = match &args.input {
        Some(path) => (
            GraphSource::File(path.clone(), cli::format_of(path, args.format)),
            KeyRule::Seeded(k.seed()),
        ),
        None => {
            let bytes_at = |scale: u32| {
                let n = 1u64 << scale;
                budget::run_bytes(k.edgefactor * n, n, !args.no_validate)
            };
            budget::check(
                bytes_at(k.scale),
                &format!(
                    "a run at SCALE {} with edgefactor {}",
                    k.scale, k.edgefactor
                ),
                scale_hint(k.edgefactor, bytes_at),
                force,
            )?;
            let (generator, key_rule) = run::generated(k)?;
            (GraphSource::Generated(generator), key_rule)
        }
    };
    let plan = RunPlan {
        source,
        key_rule,
        keys: usize::try_from(args.keys).expect("at most 100000"),
        kernel: cli::kernel_of(args.kernel, args.backend, &args.tuning)?,
        validate: !args.no_validate,
        force,
        trace: args.trace,
    };
    let measured = match run::run(&plan, progress)? {
        Outcome::Valid(measured) => measured,
        Outcome::Invalid(InvalidSearch {
            search,
            root,
            error,
        }) => {
            crate::console::err_line(&format!(
                "graph500: search {} from root {root} failed validation: {error}",
                search + 1
            ));
            crate::console::out_line("No results printed for invalid run.")?;
            return Ok(ExitCode::from(1));
        }
    };
    let (scale, generator) = match &plan.source {
        GraphSource::Generated(g) => (g.scale(), g.name()),
        GraphSource::File(..) => (report::scale_of(measured.num_vertices), "file"),
    };
    crate::interrupt::check()?;
    let statistics = RunStatistics::new(&measured, scale, generator);
    crate::console::out(&statistics.block())?;
    if let Some(path) = &args.json {
        let report = JsonReport {
            program: "graph500",
            version: env!("CARGO_PKG_VERSION"),
            options: JsonOptions {
                scale: args.input.is_none().then_some(k.scale),
                edgefactor: args.input.is_none().then_some(k.edgefactor),
                seed: plan.key_rule.seed(),
                input: args.input.as_ref().map(|p| p.display().to_string()),
                keys: plan.keys,
                kernel: plan.kernel.name(),
                backend: plan.kernel.backend().map(kernels::Backend::name),
                threads: rayon::current_num_threads(),
                validate: plan.validate,
            },
            graph: JsonGraph {
                source: if args.input.is_some() {
                    "file"
                } else {
                    "kronecker"
                },
                generator: args.input.is_none().then_some(generator),
                num_vertices: measured.num_vertices,
                num_edges: measured.num_edges,
                checksum: format!("{:#018x}", measured.checksum),
            },
            statistics: &statistics,
            searches: &measured.searches,
            peak_memory_bytes: crate::system::peak_resident_bytes(),
        };
        report::write_json(path, &report)?;
        progress.say(&format!("wrote {}", path.display()));
    }
    if let Some(path) = &args.csv {
        report::write_csv(path, &measured.searches)?;
        progress.say(&format!("wrote {}", path.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// "the largest SCALE that fits at edgefactor E is S", if any does.
pub(crate) fn scale_hint(edgefactor: u64, bytes_at: impl Fn(u32) -> u64) -> Option<String> {
    let available = crate::system::available_memory_bytes()?;
    Some(match budget::largest_scale(available, bytes_at) {
        Some(s) => format!("the largest SCALE that fits at edgefactor {edgefactor} is {s}"),
        None => format!("no SCALE fits at edgefactor {edgefactor}"),
    })
}

/// `graph500 convert`: reads an edge list in one format, writes it in
/// another. The tuples and their order are kept; formats without a vertex
/// count (text, packed48) imply one (the largest id plus one).
pub(crate) fn convert(args: &ConvertArgs, progress: &Progress) -> anyhow::Result<ExitCode> {
    crate::output::check([&args.input], [&args.output])?;
    let (from, to) = (
        cli::format_of(&args.input, args.from),
        cli::format_of(&args.output, args.to),
    );
    let (edges, read_seconds) = timed(|| from.read(&args.input));
    let edges = edges?;
    crate::interrupt::check()?;
    let (written, write_seconds) =
        timed(|| crate::output::write(&args.output, |out| to.write(out, &edges)));
    written?;
    progress.say(&format!(
        "{} ({}, {read_seconds:.3} s) -> {} ({}, {write_seconds:.3} s): {} edge tuples, {} vertices",
        args.input.display(),
        from.name(),
        args.output.display(),
        to.name(),
        edges.len(),
        edges.num_vertices()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `graph500 generate`: writes a Kronecker edge list.
pub(crate) fn generate(
    args: &GenerateArgs,
    force: bool,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    crate::output::check(crate::output::NO_INPUTS, [&args.out])?;
    let k = &args.kronecker;
    let edges_at = |scale: u32| budget::generate_bytes(k.edgefactor << scale);
    budget::check(
        edges_at(k.scale),
        &format!(
            "generating SCALE {} with edgefactor {}",
            k.scale, k.edgefactor
        ),
        scale_hint(k.edgefactor, edges_at),
        force,
    )?;
    let (generator, _) = run::generated(k)?;
    let (edges, seconds) = timed(|| generator.generate());
    crate::interrupt::check()?;
    progress.say(&format!(
        "generated {} edge tuples over {} vertices in {seconds:.3} s ({:.3e} edges/s); checksum {:#018x}",
        edges.len(),
        edges.num_vertices(),
        edges.len() as f64 / seconds,
        edges.checksum()
    ));
    let out_format = cli::format_of(&args.out, args.format);
    let (written, seconds) =
        timed(|| crate::output::write(&args.out, |out| out_format.write(out, &edges)));
    written?;
    progress.say(&format!("wrote {} in {seconds:.3} s", args.out.display()));
    Ok(ExitCode::SUCCESS)
}

/// `graph500 bfs`: one search, parents written as little-endian i64.
pub(crate) fn bfs(args: &BfsArgs, force: bool, progress: &Progress) -> anyhow::Result<ExitCode> {
    let SearchArgs {
        input,
        root,
        format,
    } = &args.search;
    crate::output::check([input], [&args.parents_out])?;
    let edges = cli::format_of(input, *format).read(input)?;
    crate::interrupt::check()?;
    let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
    budget::check(
        budget::bfs_bytes(m, n),
        &format!("a search of {}", input.display()),
        None,
        force,
    )?;
    let graph = Arc::new(Csr::from_edge_list(&edges));
    crate::interrupt::check()?;
    let key =
        SearchKey::new(*root, &graph).with_context(|| format!("--root for {}", input.display()))?;
    let kernel = cli::kernel_of(args.kernel, args.backend, &args.tuning)?;
    let mut engine = kernel.engine(Arc::clone(&graph));
    engine.reset();
    let (stats, seconds) = timed(|| engine.search(key));
    let nedge = graph.nedge(engine.parents());
    crate::interrupt::check()?;
    let parents = engine.parents().to_i64();
    crate::output::write(&args.parents_out, |out| {
        validate::parents::write(out, &parents)
    })?;
    progress.say(&format!(
        "root {root}: {} reached, depth {}, nedge {nedge}, {seconds:.4} s with kernel {kernel}; wrote {}",
        stats.reached,
        stats.depth,
        args.parents_out.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `graph500 validate`: exit 0 valid, 1 invalid, 2 bad input.
pub(crate) fn validate(
    args: &ValidateArgs,
    force: bool,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    let SearchArgs {
        input,
        root,
        format,
    } = &args.search;
    let root = *root;
    let edges = cli::format_of(input, *format).read(input)?;
    let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
    budget::check(
        budget::validate_bytes(m, n),
        &format!("validating a search of {}", input.display()),
        None,
        force,
    )?;
    crate::interrupt::check()?;
    let parents = validate::parents::read(&args.parents)?;
    let n = edges.num_vertices();
    if parents.len() != n {
        bail!(
            "{}: holds {} parents but the graph {} has {n} vertices",
            args.parents.display(),
            parents.len(),
            input.display()
        );
    }
    if root >= n as u64 {
        bail!(
            "--root {root} is not a vertex of {} (0..{n})",
            input.display()
        );
    }
    crate::interrupt::check()?;
    let (verdict, seconds) = timed(|| Validator::new(n).validate(&edges, root, &parents, None));
    crate::interrupt::check()?;
    match verdict {
        Ok(tree) => {
            crate::console::out_line(&format!(
                "valid: root {root}, {} vertices reached, depth {}, nedge {}",
                tree.reached, tree.depth, tree.nedge
            ))?;
            progress.say(&format!("validated in {seconds:.4} s"));
            Ok(ExitCode::SUCCESS)
        }
        Err(invalid) => {
            crate::console::out_line(&format!("invalid: {invalid}"))?;
            Ok(ExitCode::from(1))
        }
    }
}
