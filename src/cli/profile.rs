//! `graph500 profile`: what copying versus sharing costs, measured on the
//! real code paths of the pipes backend (the seed's experiment).
//!
//! Rows: the sequential kernel (the baseline of the speedups), the rayon
//! kernel for reference, the three [`Sharing`] strategies of
//! [`PipesBfs`], and the default kernel, `dobfs`, on both backends (on
//! pipes its steps run on `par`'s reusable loops, which allocate nothing).
//! Each row is the harness's run loop ([`search_all`]) over the
//! same keys, every tree validated; a [`Profiled`] searcher counts, per
//! search, the allocations on every thread and the bytes moved by value.
//! Figures are means per search (the loop's untimed warm-up search is left
//! out).
//!
//! The order matters: allocations are counted on every thread, and the pipes
//! pool's idle workers may still allocate (crossbeam registering a waiting
//! worker) after their row ends. The pool starts on first use, so the rows
//! that use no pool of ours run before it exists, and `dobfs/pipes`, which
//! promises no allocation, runs last, after the others have warmed the
//! pool's channels.

use crate::cli::args::ProfileArgs;
use crate::cli::commands::write_text;
use crate::cli::progress::Progress;
use anyhow::bail;
use harness::alloc_count::{AllocationCount, count_allocations};
use harness::block::format_g;
use harness::report::{Document, ProfileReport, ProfileRow};
use harness::{BfsChecker, Checker, Memory, Searcher, budget, on_pool_worker, search_all};
use kernels::{
    Backend, Bfs, Csr, DoParams, Kernel, Parents, PipesBfs, SearchKey, SearchStats, Sharing,
};
use std::process::ExitCode;
use std::sync::Arc;

/// An engine under measurement, and what each of its searches cost.
struct Profiled {
    name: String,
    engine: Engine,
    graph: Arc<Csr>,
    /// Per search: allocations, and bytes moved by value.
    costs: Vec<(AllocationCount, u64)>,
}

enum Engine {
    Kernel(Box<dyn Bfs>),
    Pipes(PipesBfs),
}

impl Profiled {
    fn new(name: String, engine: Engine, graph: &Arc<Csr>, searches: usize) -> Self {
        Profiled {
            name,
            engine,
            graph: Arc::clone(graph),
            // Pushing never allocates inside a search.
            costs: Vec::with_capacity(searches + 1),
        }
    }

    fn bfs(&mut self) -> &mut dyn Bfs {
        match &mut self.engine {
            Engine::Kernel(e) => e.as_mut(),
            Engine::Pipes(p) => p,
        }
    }

    fn bfs_ref(&self) -> &dyn Bfs {
        match &self.engine {
            Engine::Kernel(e) => e.as_ref(),
            Engine::Pipes(p) => p,
        }
    }

    fn bytes_copied(&self) -> u64 {
        match &self.engine {
            Engine::Kernel(_) => 0,
            Engine::Pipes(p) => p.bytes_copied(),
        }
    }
}

impl Searcher for Profiled {
    type Output = Parents;

    fn reset(&mut self) {
        self.bfs().reset();
    }

    fn search(&mut self, key: SearchKey) -> SearchStats {
        let (stats, allocated) = count_allocations(|| self.bfs().search(key));
        let copied = self.bytes_copied();
        self.costs.push((allocated, copied));
        stats
    }

    fn output(&self) -> &Parents {
        self.bfs_ref().parents()
    }

    fn nedge(&self) -> u64 {
        self.graph.nedge(self.bfs_ref().parents())
    }
}

/// Runs the profile and prints its table.
pub(crate) fn profile(
    args: &ProfileArgs,
    force: bool,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    if !harness::alloc_count::is_counting_installed() {
        bail!("the counting allocator is not this program's global allocator");
    }
    crate::cli::output::check(crate::cli::output::NO_INPUTS, &args.json)?;
    let spec = args.kronecker.spec();
    let threads = kernels::par::global_size() as u64;
    let bytes_at =
        |scale: u32| budget::profile_bytes(spec.edgefactor << scale, 1 << scale, threads);
    spec.fits_one_process()?;
    budget::check(
        bytes_at(spec.scale),
        &format!(
            "profiling SCALE {} (the copy row clones the graph per task)",
            spec.scale
        ),
        budget::scale_hint(spec.edgefactor, bytes_at),
        force,
    )?;
    let (generator, key_rule) = spec.build()?;
    // Lean packs the list through kernel 1 only: its checker reads it
    // unpacked, so the profile's peak is the same (auto is fast).
    let edges = match args.budget.memory.or_auto(|| Memory::Fast) {
        Memory::Lean => generator.generate_packed_reporting(&|| {}),
        Memory::Fast => generator.generate(),
    };
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let edges = edges.unpack();
    let keys = key_rule.choose(&graph, args.keys as usize)?;
    // Before the pipes rows, and dobfs/pipes last: see the module
    // documentation.
    let dobfs = Kernel::Dobfs(DoParams::DEFAULT);
    let kernel = |k: Kernel, backend: Backend| {
        let engine = Engine::Kernel(k.engine_on(backend, Arc::clone(&graph)));
        Profiled::new(k.label(backend), engine, &graph, keys.len())
    };
    let mut subjects: Vec<Profiled> = vec![
        kernel(Kernel::Seq, Backend::Rayon),
        kernel(Kernel::Par, Backend::Rayon),
        kernel(dobfs, Backend::Rayon),
    ];
    subjects.extend(Sharing::ALL.map(|s| {
        let engine = Engine::Pipes(PipesBfs::new(Arc::clone(&graph), s));
        Profiled::new(s.name().to_string(), engine, &graph, keys.len())
    }));
    subjects.push(kernel(dobfs, Backend::Pipes));

    let mut checker = BfsChecker::new(&edges);
    let mut rows: Vec<ProfileRow> = Vec::new();
    for subject in &mut subjects {
        progress.say(&format!(
            "profiling {} over {} searches",
            subject.name,
            keys.len()
        ));
        let checker = &mut checker as &mut dyn Checker<Parents>;
        let searches =
            on_pool_worker(|| search_all("bfs", subject, Some(checker), &keys, false, progress))?;
        let records = match searches {
            Ok(records) => records,
            Err(invalid) => {
                crate::cli::console::out_line(&format!(
                    "{} produced an invalid tree from root {}: {}",
                    subject.name, invalid.root, invalid.failure
                ))?;
                return Ok(ExitCode::from(1));
            }
        };
        let searched = &subject.costs[1..]; // after the warm-up
        let mean = |f: &dyn Fn(&(AllocationCount, u64)) -> f64| {
            searched.iter().map(f).sum::<f64>() / searched.len() as f64
        };
        let time = records.iter().map(|r| r.time).sum::<f64>() / records.len() as f64;
        let baseline = rows.first().map_or(time, |seq| seq.mean_time);
        rows.push(ProfileRow {
            strategy: subject.name.clone(),
            mean_time: time,
            speedup: baseline / time,
            bytes_allocated: mean(&|c| c.0.bytes as f64),
            allocations: mean(&|c| c.0.allocations as f64),
            bytes_copied: mean(&|c| c.1 as f64),
        });
    }
    crate::cli::console::out(&table(&rows, spec.scale, keys.len()))?;
    if let Some(path) = &args.json {
        let report = ProfileReport {
            scale: spec.scale,
            edgefactor: spec.edgefactor,
            generator: spec.kind.name().to_string(),
            seed: spec.seed(),
            keys: keys.len(),
            threads: kernels::par::global_size(),
            rows,
        };
        write_text(path, &Document::Profile(report).to_json())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(rows: &[ProfileRow], scale: u32, searches: usize) -> String {
    let mut out = format!(
        "SCALE {scale}, {searches} searches, {} threads; means per search\n{:<14}{:>14}{:>10}{:>18}{:>14}{:>16}\n",
        kernels::par::global_size(),
        "strategy",
        "BFS time (s)",
        "speedup",
        "bytes allocated",
        "allocations",
        "bytes copied"
    );
    for r in rows {
        out += &format!(
            "{:<14}{:>14}{:>10.2}{:>18}{:>14}{:>16}\n",
            r.strategy,
            format_g(r.mean_time, 4),
            r.speedup,
            format_g(r.bytes_allocated, 4),
            format_g(r.allocations, 4),
            format_g(r.bytes_copied, 4),
        );
    }
    out
}
