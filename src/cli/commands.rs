//! The subcommands that run one job each: `run` (the benchmark),
//! `generate`, `convert`, `bfs`, `sssp` and `validate`; `run`, `bfs` and
//! `sssp` run over the ranks under mpirun.

use crate::cli::args::{
    self, BfsArgs, ConvertArgs, GenerateArgs, RunArgs, SearchArgs, SsspArgs, ValidateArgs,
};
use crate::cli::progress::Progress;
use crate::cli::{console, interrupt, output};
use anyhow::bail;
use generator::format::{EdgeFormat, packed48};
use generator::{EdgeList, PackedEdge};
use harness::Pass;
use harness::block::INVALID_RUN;
use harness::ranked::{FileSearch, Searched};
use harness::report::{self, Document};
use harness::{InvalidSearch, Memory, Outcome, budget, timed};
use kernels::{Backend, Csr, DeltaStepping, Kernel, SsspParams, WeightedCsr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use validate::{SsspSummary, SsspValidator, Validator};

/// What every subcommand shares.
pub(crate) struct Commands<'a> {
    /// `--force`: run even if the memory estimate exceeds what is available.
    pub(crate) force: bool,
    /// Where progress goes; also the runs' observer.
    pub(crate) progress: &'a Progress,
    /// The ranks of an MPI job, when `run`, `bfs` or `sssp` is one of
    /// several.
    pub(crate) ranks: Option<&'a dyn dist::Comm>,
}

impl Commands<'_> {
    /// Tells which stale sidecar a write removed.
    fn say_removed(&self, removed: Option<PathBuf>) {
        if let Some(beside) = removed {
            self.progress.say(&format!(
                "removed {}: the weights of the file replaced (this one has none)",
                beside.display()
            ));
        }
    }

    /// `graph500 run`: the benchmark, the statistics block, optionally JSON
    /// and CSV.
    pub(crate) fn run(&self, args: &RunArgs) -> anyhow::Result<ExitCode> {
        let outputs = args.json.iter().chain(&args.csv);
        let inputs = args
            .input
            .as_ref()
            .map(|input| output::edge_list_files(input, args::format_of(input, args.format)))
            .unwrap_or_default();
        crate::cli::mapped::watch(&inputs);
        let plan = match self.ranks {
            None => {
                output::check(&inputs, outputs)?;
                args.plan(self.force)?
            }
            Some(comm) => {
                // Rank 0 writes; every rank learns whether it may.
                let mine = match comm.rank() {
                    0 => output::check(&inputs, outputs).and_then(|()| args.plan(self.force)),
                    _ => args.plan(self.force),
                };
                let agreed = dist::agree(comm, mine.map_err(|e| format!("{e:#}")));
                agreed.map_err(anyhow::Error::msg)?
            }
        };
        let outcome = match self.ranks {
            None => harness::run(&plan, self.progress)?,
            Some(comm) => harness::run_distributed(&plan, self.progress, comm)?,
        };
        let speaks = self.ranks.is_none_or(|comm| comm.rank() == 0);
        if !speaks {
            return Ok(ExitCode::from(match outcome {
                Outcome::Valid(_) => 0,
                Outcome::Invalid(_) => 1,
            }));
        }
        let measured = match outcome {
            Outcome::Valid(measured) => measured,
            Outcome::Invalid(InvalidSearch {
                kernel,
                search,
                root,
                failure,
            }) => {
                console::err_line(&format!(
                    "graph500: {kernel} search {} from root {root} failed validation: {failure}",
                    search + 1
                ));
                console::out(INVALID_RUN)?;
                return Ok(ExitCode::from(1));
            }
        };
        interrupt::check()?;
        let threads = rayon::current_num_threads();
        let statistics = plan.statistics(&measured);
        console::out(&statistics.block(&plan.block_lines()))?;
        // The JSON and the CSV of one run: both, or neither.
        let mut unit = output::Unit::default();
        if let Some(path) = &args.json {
            let document = Document::Run(Box::new(plan.report(&measured, threads)));
            unit.add(path, |out| out.write_all(document.to_json().as_bytes()))?;
        }
        if let Some(path) = &args.csv {
            unit.add(path, |out| out.write_all(report::csv(&measured).as_bytes()))?;
        }
        unit.commit()?;
        for path in args.json.iter().chain(&args.csv) {
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
        let inputs = output::edge_list_files(&args.input, from);
        output::check(&inputs, output::edge_list_files(&args.output, to))?;
        crate::cli::mapped::watch(&inputs);
        let (edges, read_seconds) = timed(|| from.read(&args.input));
        let edges = edges?;
        interrupt::check()?;
        let (written, write_seconds) = timed(|| write_edge_list(&args.output, to, &edges));
        let removed = written?;
        self.progress.say(&format!(
            "{} ({}, {read_seconds:.3} s) -> {} ({}, {write_seconds:.3} s): {} edge tuples, {} vertices",
            args.input.display(),
            from.name(),
            args.output.display(),
            to.name(),
            edges.len(),
            edges.num_vertices()
        ));
        self.say_removed(removed);
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 generate`: writes a Kronecker edge list.
    pub(crate) fn generate(&self, args: &GenerateArgs) -> anyhow::Result<ExitCode> {
        let out_format = args::format_of(&args.out, args.format);
        // The sidecar too: written with --weights, else removed if stale.
        output::check(
            output::NO_INPUTS,
            output::edge_list_files(&args.out, out_format),
        )?;
        if !args.weights {
            no_sidecar_left(&args.out, out_format)?;
        }
        let spec = args.kronecker.spec();
        spec.fits_one_process()?;
        // A packed list (lean) holds ids below 2^28; a larger graph's is not.
        let packable = PackedEdge::names(spec.num_vertices());
        let bytes_at = |scale: u32, memory: Memory| {
            let m = spec.edgefactor << scale;
            let weights = if args.weights {
                EdgeList::weight_bytes(m)
            } else {
                0
            };
            budget::generate_bytes(m, memory == Memory::Lean && packable) + weights
        };
        let memory = args.budget.memory.or_auto(|| {
            Memory::auto(
                bytes_at(spec.scale, Memory::Fast),
                bytes_at(spec.scale, Memory::Lean),
            )
        });
        let edges_at = |scale: u32| bytes_at(scale, memory);
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
        // The writers read a packed list as it is: the file's bytes are the
        // same either way.
        let (edges, seconds) = timed(|| {
            let edges = match memory {
                Memory::Fast => generator.generate(),
                Memory::Lean => generator.generate_packed_reporting(&|| {}),
            };
            if !args.weights {
                return Ok(edges);
            }
            let weights =
                generator::generate_weights(&*generator, 0..generator.num_blocks(), &|| {});
            edges.with_weights(weights)
        });
        let edges = edges?;
        interrupt::check()?;
        self.progress.say(&format!(
            "generated {} edge tuples over {} vertices in {seconds:.3} s ({:.3e} edges/s); checksum {:#018x}",
            edges.len(),
            edges.num_vertices(),
            edges.len() as f64 / seconds,
            edges.checksum()
        ));
        let (written, seconds) = timed(|| write_edge_list(&args.out, out_format, &edges));
        let removed = written?;
        self.progress
            .say(&format!("wrote {} in {seconds:.3} s", args.out.display()));
        self.say_removed(removed);
        Ok(ExitCode::SUCCESS)
    }

    /// The graph of `search`, read; then fails unless `need(M, N)` bytes,
    /// plus what reading it mapped, fit in memory (`what` names the job).
    fn read_within_budget(
        &self,
        search: &SearchArgs,
        what: &str,
        need: impl Fn(u64, u64) -> u64,
    ) -> anyhow::Result<EdgeList> {
        let input = &search.input;
        let format = args::format_of(input, search.format);
        let what = format!("{what} {}", input.display());
        budget::check_before_reading(input, format, &what, self.force, &need)?;
        let edges = format.read(input)?;
        interrupt::check()?;
        let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
        budget::check(
            need(m, n) + budget::reading(&edges, input),
            &what,
            None,
            self.force,
        )?;
        Ok(edges)
    }

    /// Runs `work` in one process, or on rank 0 of the ranks, every rank
    /// getting its outcome (rank 0 checks and writes the files).
    fn by_rank_0(&self, work: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<()> {
        let Some(comm) = self.ranks else {
            return work();
        };
        let mine = match comm.rank() {
            0 => work().map_err(|e| format!("{e:#}")),
            _ => Ok(()),
        };
        dist::agree(comm, mine).map_err(anyhow::Error::msg)
    }

    /// Writes a search's parents (and distances, given `dist_out`) as one
    /// unit, each whole or none; over ranks, rank 0's whole arrays.
    fn write_found(
        &self,
        found: &Searched,
        parents_out: &Path,
        dist_out: Option<&Path>,
    ) -> anyhow::Result<()> {
        self.by_rank_0(|| {
            let mut unit = output::Unit::default();
            unit.add(parents_out, |out| {
                validate::parents::write(out, &found.parents)
            })?;
            if let Some(dist_out) = dist_out {
                unit.add(dist_out, |out| validate::distances::write(out, &found.dist))?;
            }
            unit.commit()
        })
    }

    /// `graph500 bfs`: one search, parents written as little-endian i64;
    /// under mpirun over the ranks ([`FileSearch::on_ranks`]).
    pub(crate) fn bfs(&self, args: &BfsArgs) -> anyhow::Result<ExitCode> {
        let SearchArgs {
            input,
            root,
            format,
        } = &args.search;
        let format = args::format_of(input, *format);
        let inputs = output::edge_list_files(input, format);
        self.by_rank_0(|| output::check(&inputs, [&args.parents_out]))?;
        let kernel = args::kernel_of(args.kernel, &args.tuning);
        let backend = args.backend.into();
        let (found, label) = match self.ranks {
            Some(comm) => {
                let search = FileSearch {
                    input,
                    format,
                    root: *root,
                    pass: Pass::Bfs(kernel),
                    backend,
                    force: self.force,
                };
                let label = format!("{} over {} ranks", kernel.label(backend), comm.size());
                (search.on_ranks(comm, self.progress)?, label)
            }
            None => {
                crate::cli::mapped::watch(&inputs);
                (self.bfs_here(args, kernel, backend)?, kernel.label(backend))
            }
        };
        self.write_found(&found, &args.parents_out, None)?;
        self.progress.say(&format!(
            "root {root}: {} reached, depth {}, nedge {}, {:.4} s with kernel {label}; wrote {}",
            found.reached,
            found.depth,
            found.nedge,
            found.seconds,
            args.parents_out.display()
        ));
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 bfs` in this process.
    fn bfs_here(
        &self,
        args: &BfsArgs,
        kernel: Kernel,
        backend: Backend,
    ) -> anyhow::Result<Searched> {
        let edges = self.read_within_budget(&args.search, "a search of", |m, n| {
            budget::bfs_bytes(m, n, kernel)
        })?;
        let graph = Arc::new(Csr::build_on(backend, edges.num_vertices(), edges.edges()));
        interrupt::check()?;
        let n = graph.num_vertices() as u64;
        let key = harness::ranked::root_of(args.search.root, n, &args.search.input)?;
        let mut engine = kernel.engine_on(backend, Arc::clone(&graph));
        engine.reset();
        let (stats, seconds) = timed(|| engine.search(key));
        interrupt::check()?;
        Ok(Searched {
            parents: engine.parents().to_i64(),
            dist: Vec::new(),
            reached: stats.reached,
            depth: stats.depth,
            max_dist: 0.0,
            nedge: graph.nedge(engine.parents()),
            seconds,
        })
    }

    /// `graph500 sssp`: one shortest-path search of a weighted file; writes
    /// the parent and distance arrays, each whole or not at all; under
    /// mpirun over the ranks ([`FileSearch::on_ranks`]).
    pub(crate) fn sssp(&self, args: &SsspArgs) -> anyhow::Result<ExitCode> {
        let SearchArgs {
            input,
            root,
            format,
        } = &args.search;
        let format = args::format_of(input, *format);
        let inputs = output::edge_list_files(input, format);
        self.by_rank_0(|| output::check(&inputs, [&args.parents_out, &args.dist_out]))?;
        let params = args
            .delta
            .map_or(Ok(SsspParams::DEFAULT), SsspParams::new)?;
        let backend = args.backend.into();
        let found = match self.ranks {
            Some(comm) => {
                let search = FileSearch {
                    input,
                    format,
                    root: *root,
                    pass: Pass::Sssp(params),
                    backend,
                    force: self.force,
                };
                search.on_ranks(comm, self.progress)?
            }
            None => {
                crate::cli::mapped::watch(&inputs);
                self.sssp_here(args, params, backend)?
            }
        };
        self.write_found(&found, &args.parents_out, Some(&args.dist_out))?;
        let over = self
            .ranks
            .map_or(String::new(), |comm| format!(" over {} ranks", comm.size()));
        self.progress.say(&format!(
            "root {root}: {} reached, largest distance {}, nedge {}, {:.4} s (delta {}){over}; wrote {} and {}",
            found.reached,
            found.max_dist,
            found.nedge,
            found.seconds,
            params.delta(),
            args.parents_out.display(),
            args.dist_out.display()
        ));
        Ok(ExitCode::SUCCESS)
    }

    /// `graph500 sssp` in this process.
    fn sssp_here(
        &self,
        args: &SsspArgs,
        params: SsspParams,
        backend: Backend,
    ) -> anyhow::Result<Searched> {
        let (input, root) = (&args.search.input, args.search.root);
        let edges = self.read_within_budget(
            &args.search,
            "a shortest-path search of",
            harness::pass::sssp::search_bytes,
        )?;
        let Some(weights) = edges.weights() else {
            return Err(harness::pass::no_weights(input, "a shortest-path search").into());
        };
        let n = edges.num_vertices();
        harness::pass::sssp::fits_one_process(n as u64, input)?;
        let Some(key) = u32::try_from(root).ok().filter(|&r| (r as usize) < n) else {
            bail!(
                "--root {root} is not a vertex of {} (0..{n})",
                input.display()
            );
        };
        let mut graph = WeightedCsr::build_on(backend, n, edges.edges(), weights);
        graph.split_light_on(backend, params.delta());
        let mut engine = DeltaStepping::on(backend, Arc::new(graph), params);
        interrupt::check()?;
        engine.reset();
        let (stats, seconds) = timed(|| engine.search(key));
        interrupt::check()?;
        let (mut parents, mut dist) = (vec![0i64; n], vec![0f32; n]);
        engine.write_results(&mut parents, &mut dist);
        Ok(Searched {
            parents,
            dist,
            reached: stats.reached,
            depth: 0,
            max_dist: stats.max_dist,
            nedge: engine.nedge(),
            seconds,
        })
    }

    /// `graph500 validate`: exit 0 valid, 1 invalid, 2 bad input.
    pub(crate) fn validate(&self, args: &ValidateArgs) -> anyhow::Result<ExitCode> {
        let SearchArgs {
            input,
            root,
            format,
        } = &args.search;
        let root = *root;
        crate::cli::mapped::watch(&output::edge_list_files(
            input,
            args::format_of(input, *format),
        ));
        let edges = self.read_within_budget(
            &args.search,
            "validating a search of",
            budget::validate_bytes,
        )?;
        let n = edges.num_vertices();
        let holds_n = |path: &Path, what: &str, size: usize, values: Option<usize>| {
            one_per_vertex(path, what, size, values, n, input)
        };
        holds_n(&args.parents, "parents", size_of::<i64>(), None)?;
        let parents = validate::parents::read(&args.parents)?;
        holds_n(
            &args.parents,
            "parents",
            size_of::<i64>(),
            Some(parents.len()),
        )?;
        if root >= n as u64 {
            bail!(
                "--root {root} is not a vertex of {} (0..{n})",
                input.display()
            );
        }
        interrupt::check()?;
        let (verdict, seconds) = match &args.dist {
            Some(dist_path) => {
                let Some(weights) = edges.weights() else {
                    return Err(harness::pass::no_weights(input, "--sssp").into());
                };
                holds_n(dist_path, "distances", size_of::<f32>(), None)?;
                let dist = validate::distances::read(dist_path)?;
                holds_n(dist_path, "distances", size_of::<f32>(), Some(dist.len()))?;
                let mut validator = SsspValidator::new(n);
                let validated =
                    || validator.validate(edges.edges(), weights, root, &parents, &dist, None);
                let (verdict, seconds) = timed(validated);
                let line = |s: SsspSummary| {
                    format!(
                        "valid: root {root}, {} vertices reached, largest distance {}, tree depth {}, nedge {}",
                        s.reached, s.max_dist, s.depth, s.nedge
                    )
                };
                (verdict.map(line), seconds)
            }
            None => {
                let validated = || Validator::new(n).validate(&edges, root, &parents, None);
                let (verdict, seconds) = timed(validated);
                let line = |t: validate::TreeSummary| {
                    format!(
                        "valid: root {root}, {} vertices reached, depth {}, nedge {}",
                        t.reached, t.depth, t.nedge
                    )
                };
                (verdict.map(line), seconds)
            }
        };
        interrupt::check()?;
        match verdict {
            Ok(line) => {
                console::out_line(&line)?;
                self.progress.say(&format!("validated in {seconds:.4} s"));
                Ok(ExitCode::SUCCESS)
            }
            Err(invalid) => {
                console::out_line(&format!("invalid: {invalid}"))?;
                Ok(ExitCode::from(1))
            }
        }
    }
}

/// Writes `edges` to `path` in `format`, and their weights to the file
/// beside it where the format keeps them apart (`FILE.weights` of a
/// `.pe48`): the two as one unit ([`output::Unit`]), both whole or neither.
/// A list without weights written where a sidecar is (a regular file, or a
/// link, which is removed and not its target) removes it with the unit: it
/// held the replaced file's weights. Returns the sidecar removed, if any.
fn write_edge_list(
    path: &Path,
    format: EdgeFormat,
    edges: &EdgeList,
) -> anyhow::Result<Option<PathBuf>> {
    if edges.weights().is_none() {
        no_sidecar_left(path, format)?;
    }
    let mut unit = output::Unit::default();
    unit.add(path, |out| format.write(out, edges))?;
    let mut removed = None;
    if let Some(beside) = format.weights_file(path) {
        if edges.weights().is_some() {
            unit.add(&beside, |out| packed48::write_weights(out, edges))?;
        } else if std::fs::symlink_metadata(&beside).is_ok() {
            unit.remove(&beside);
            removed = Some(beside);
        }
    }
    unit.commit()?;
    Ok(removed)
}

/// Fails if writing the edge list `path` in `format` without weights would
/// leave beside it a sidecar it cannot remove: a FIFO or device there
/// (a file or a link is removed as stale), which every later read would
/// take for its weights and refuse.
fn no_sidecar_left(path: &Path, format: EdgeFormat) -> anyhow::Result<()> {
    let Some(beside) = format.weights_file(path) else {
        return Ok(());
    };
    match std::fs::symlink_metadata(&beside) {
        Ok(meta) if !meta.is_file() && !meta.is_symlink() => bail!(
            "{}: not a file that writing {} without weights can remove as stale, and every read of it would take it for its weights: remove it or choose another output",
            beside.display(),
            path.display()
        ),
        _ => Ok(()),
    }
}

/// Fails unless the array file `path` of `size`-byte `what` holds one per
/// vertex of the graph `input` (`n`): by the `values` read, or, before it
/// is read (`None`), by its length, so that a file of the wrong size is
/// refused at once, not after reading it whole (a 3 GB parents file took
/// 17 s). A length that is no whole number of values is left to the reader.
fn one_per_vertex(
    path: &Path,
    what: &str,
    size: usize,
    values: Option<usize>,
    n: usize,
    input: &Path,
) -> anyhow::Result<()> {
    let size = size as u64;
    let held = match values {
        Some(values) => Some(values as u64),
        None => std::fs::metadata(path)
            .ok()
            .filter(|meta| meta.is_file() && meta.len() % size == 0)
            .map(|meta| meta.len() / size),
    };
    match held {
        Some(held) if held != n as u64 => bail!(
            "{}: holds {held} {what} but the graph {} has {n} vertices",
            path.display(),
            input.display()
        ),
        _ => Ok(()),
    }
}

/// Writes `text` to `path`, whole or not at all ([`output::write`]).
pub(crate) fn write_text(path: &Path, text: &str) -> anyhow::Result<()> {
    output::write(path, |out| out.write_all(text.as_bytes()))
}
