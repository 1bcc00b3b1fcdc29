//! The subcommands that run one job each: `run` (the benchmark),
//! `generate`, `convert`, `bfs` and `validate`.

use crate::cli::args::{
    self, BfsArgs, ConvertArgs, GenerateArgs, RunArgs, SearchArgs, ValidateArgs,
};
use crate::cli::progress::Progress;
use anyhow::{Context, bail};
use generator::format;
use harness::block::INVALID_RUN;
use harness::report::{self, Document};
use harness::{InvalidSearch, Outcome, budget, timed};
use kernels::{Csr, SearchKey};
use std::process::ExitCode;
use std::sync::Arc;
use validate::Validator;

/// What every subcommand shares.
pub(crate) struct Commands<'a> {
    /// `--force`: run even if the memory estimate exceeds what is available.
    pub(crate) force: bool,
    /// Where progress goes; also the runs' observer.
    pub(crate) progress: &'a Progress,
}

impl Commands<'_> {
    /// `graph500 run`: the benchmark, the statistics block, optionally JSON
    /// and CSV.
    pub(crate) fn run(&self, args: &RunArgs) -> anyhow::Result<ExitCode> {
        for path in args.json.iter().chain(&args.csv) {
            ensure_folder_exists(path)?;
        }
        let plan = args.plan(self.force)?;
        let measured = match harness::run(&plan, self.progress)? {
            Outcome::Valid(measured) => measured,
            Outcome::Invalid(InvalidSearch {
                search,
                root,
                failure,
            }) => {
                eprintln!(
                    "graph500: search {} from root {root} failed validation: {failure}",
                    search + 1
                );
                print!("{INVALID_RUN}");
                return Ok(ExitCode::from(1));
            }
        };
        crate::cli::interrupt::check()?;
        let threads = rayon::current_num_threads();
        let statistics = plan.statistics(&measured);
        print!("{}", statistics.block(&plan.block_lines()));
        if let Some(path) = &args.json {
            let document = Document::Run(Box::new(plan.report(&measured, threads)));
            write_text(path, &document.to_json())?;
            self.progress.say(&format!("wrote {}", path.display()));
        }
        if let Some(path) = &args.csv {
            write_text(path, &report::csv(&measured.searches))?;
            self.progress.say(&format!("wrote {}", path.display()));
        }
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 convert`: reads an edge list in one format, writes it in
    /// another. The tuples and their order are kept; formats without a
    /// vertex count (text, packed48) imply one (the largest id plus one).
    pub(crate) fn convert(&self, args: &ConvertArgs) -> anyhow::Result<ExitCode> {
        let (from, to) = (
            args::format_of(&args.input, args.from),
            args::format_of(&args.output, args.to),
        );
        let (edges, read_seconds) = timed(|| from.read(&args.input));
        let edges = edges?;
        crate::cli::interrupt::check()?;
        let (written, write_seconds) = timed(|| to.write(&args.output, &edges));
        written?;
        self.progress.say(&format!(
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
    pub(crate) fn generate(&self, args: &GenerateArgs) -> anyhow::Result<ExitCode> {
        let spec = args.kronecker.spec();
        let edges_at = |scale: u32| budget::generate_bytes(spec.edgefactor << scale);
        budget::check(
            edges_at(spec.scale),
            &format!(
                "generating SCALE {} with edgefactor {}",
                spec.scale, spec.edgefactor
            ),
            budget::scale_hint(spec.edgefactor, edges_at),
            self.force,
        )?;
        let (generator, _) = spec.build()?;
        let (edges, seconds) = timed(|| generator.generate());
        crate::cli::interrupt::check()?;
        self.progress.say(&format!(
            "generated {} edge tuples over {} vertices in {seconds:.3} s ({:.3e} edges/s); checksum {:#018x}",
            edges.len(),
            edges.num_vertices(),
            edges.len() as f64 / seconds,
            edges.checksum()
        ));
        let out_format = args::format_of(&args.out, args.format);
        let (written, seconds) = timed(|| out_format.write(&args.out, &edges));
        written?;
        self.progress
            .say(&format!("wrote {} in {seconds:.3} s", args.out.display()));
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 bfs`: one search, parents written as little-endian i64.
    pub(crate) fn bfs(&self, args: &BfsArgs) -> anyhow::Result<ExitCode> {
        let SearchArgs {
            input,
            root,
            format,
        } = &args.search;
        let kernel = args::kernel_of(args.kernel, args.backend, &args.tuning)?;
        let edges = args::format_of(input, *format).read(input)?;
        let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
        budget::check(
            budget::bfs_bytes(m, n, kernel) + budget::reading(&edges, input),
            &format!("a search of {}", input.display()),
            None,
            self.force,
        )?;
        let graph = Arc::new(Csr::from_edge_list(&edges));
        let key = SearchKey::new(*root, &graph)
            .with_context(|| format!("--root for {}", input.display()))?;
        let mut engine = kernel.engine(Arc::clone(&graph));
        engine.reset();
        let (stats, seconds) = timed(|| engine.search(key));
        let nedge = graph.nedge(engine.parents());
        format::parents::write(&args.parents_out, &engine.parents().to_i64())?;
        self.progress.say(&format!(
            "root {root}: {} reached, depth {}, nedge {nedge}, {seconds:.4} s with kernel {kernel}; wrote {}",
            stats.reached,
            stats.depth,
            args.parents_out.display()
        ));
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 validate`: exit 0 valid, 1 invalid, 2 bad input.
    pub(crate) fn validate(&self, args: &ValidateArgs) -> anyhow::Result<ExitCode> {
        let SearchArgs {
            input,
            root,
            format,
        } = &args.search;
        let root = *root;
        let edges = args::format_of(input, *format).read(input)?;
        let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
        budget::check(
            budget::validate_bytes(m, n) + budget::reading(&edges, input),
            &format!("validating a search of {}", input.display()),
            None,
            self.force,
        )?;
        let parents = format::parents::read(&args.parents)?;
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
        let (verdict, seconds) = timed(|| Validator::new(n).validate(&edges, root, &parents, None));
        match verdict {
            Ok(tree) => {
                println!(
                    "valid: root {root}, {} vertices reached, depth {}, nedge {}",
                    tree.reached, tree.depth, tree.nedge
                );
                self.progress.say(&format!("validated in {seconds:.4} s"));
                Ok(ExitCode::SUCCESS)
            }
            Err(invalid) => {
                println!("invalid: {invalid}");
                Ok(ExitCode::from(1))
            }
        }
    }
}

/// Fails early, before a long run, if `path` could not be written later.
pub(crate) fn ensure_folder_exists(path: &std::path::Path) -> anyhow::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    match folder {
        Some(f) if !f.is_dir() => {
            anyhow::bail!("{}: folder {} does not exist", path.display(), f.display())
        }
        _ => Ok(()),
    }
}

/// Writes `text` to `path`, atomically.
pub(crate) fn write_text(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    format::write_atomic(path, |out| std::io::Write::write_all(out, text.as_bytes()))?;
    Ok(())
}
