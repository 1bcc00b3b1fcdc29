//! `graph500 profile`: what copying versus sharing costs, measured on the
//! real code paths of the pipes backend (the seed's experiment).
//!
//! Rows: the sequential kernel (the baseline of the speedups), the rayon
//! kernel for reference, and the three [`Sharing`] strategies of
//! [`PipesBfs`]. Each engine runs one unmeasured warm-up search, then one
//! search per key; each search is timed, its allocations counted (on every
//! thread) and its parent tree validated outside both. Figures are means per
//! search.
//!
//! The order matters: allocations are counted on every thread, and the pipes
//! pool's idle workers may still allocate (crossbeam registering a waiting
//! worker) after their row ends. The pool starts on first use, so the rows
//! that use no pool of ours run before it exists.

use crate::budget;
use crate::cli::ProfileArgs;
use crate::progress::Progress;
use crate::report::{self, format_g};
use crate::run::{on_pool_worker, timed};
use anyhow::bail;
use generator::EdgeList;
use kernels::{Backend, Bfs, Csr, Kernel, PipesBfs, SearchKey, Sharing, count_allocations};
use std::process::ExitCode;
use std::sync::Arc;
use validate::Validator;

/// One row of the profile.
#[derive(Debug, serde::Serialize)]
pub(crate) struct ProfileRow {
    /// Which engine.
    pub(crate) strategy: String,
    /// Mean seconds per search.
    pub(crate) mean_time: f64,
    /// Mean time of the sequential kernel over this row's.
    pub(crate) speedup: f64,
    /// Mean bytes allocated per search.
    pub(crate) bytes_allocated: f64,
    /// Mean allocations per search.
    pub(crate) allocations: f64,
    /// Mean bytes copied by value per search (graph clones, returned
    /// discoveries); 0 for engines that share and write in place.
    pub(crate) bytes_copied: f64,
}

/// An engine under measurement.
enum Subject {
    Kernel(Kernel, Box<dyn Bfs>),
    Pipes(PipesBfs),
}

impl Subject {
    fn name(&self) -> String {
        match self {
            Subject::Kernel(k, _) => k.to_string(),
            Subject::Pipes(p) => p.sharing().name().to_string(),
        }
    }

    fn engine(&mut self) -> &mut dyn Bfs {
        match self {
            Subject::Kernel(_, e) => e.as_mut(),
            Subject::Pipes(p) => p,
        }
    }

    fn bytes_copied(&self) -> u64 {
        match self {
            Subject::Kernel(..) => 0,
            Subject::Pipes(p) => p.bytes_copied(),
        }
    }
}

/// Runs the profile and prints its table.
pub(crate) fn profile(
    args: &ProfileArgs,
    force: bool,
    progress: &Progress,
) -> anyhow::Result<ExitCode> {
    if !kernels::is_counting_installed() {
        bail!("the counting allocator is not this program's global allocator");
    }
    crate::output::check(crate::output::NO_INPUTS, &args.json)?;
    let k = &args.kronecker;
    let threads = kernels::par::global_size() as u64;
    let bytes_at = |scale: u32| {
        let n = 1u64 << scale;
        budget::profile_bytes(k.edgefactor * n, n, threads)
    };
    budget::check(
        bytes_at(k.scale),
        &format!(
            "profiling SCALE {} (the copy row clones the graph per task)",
            k.scale
        ),
        crate::commands::scale_hint(k.edgefactor, bytes_at),
        force,
    )?;
    let (generator, key_rule) = crate::run::generated(k)?;
    let edges = generator.generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = key_rule.choose(&graph, args.keys as usize)?;
    // Before the pipes rows: see the module documentation.
    let rayon = Kernel::Par(Backend::Rayon);
    let mut subjects = vec![
        Subject::Kernel(Kernel::Seq, Kernel::Seq.engine(Arc::clone(&graph))),
        Subject::Kernel(rayon, rayon.engine(Arc::clone(&graph))),
    ];
    subjects.extend(Sharing::ALL.map(|s| Subject::Pipes(PipesBfs::new(Arc::clone(&graph), s))));

    let rows = match on_pool_worker(|| measure(&mut subjects, &graph, &edges, &keys, progress)) {
        Ok(rows) => rows,
        Err(invalid) => {
            crate::console::out_line(&invalid)?;
            return Ok(ExitCode::from(1));
        }
    };
    crate::console::out(&table(&rows, k.scale, keys.len()))?;
    if let Some(path) = &args.json {
        let report = ProfileReport {
            program: "graph500 profile",
            scale: k.scale,
            edgefactor: k.edgefactor,
            generator: generator.name(),
            seed: key_rule.seed(),
            keys: keys.len(),
            threads: kernels::par::global_size(),
            rows: &rows,
        };
        report::write_json(path, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Measures every subject over `keys`: one warm-up search, then per key a
/// timed and allocation-counted search, validated outside both. Fails with a
/// message on the first invalid tree.
fn measure(
    subjects: &mut [Subject],
    graph: &Csr,
    edges: &EdgeList,
    keys: &[SearchKey],
    progress: &Progress,
) -> Result<Vec<ProfileRow>, String> {
    let mut validator = Validator::new(edges.num_vertices());
    let mut parents = vec![0i64; edges.num_vertices()];
    let mut rows: Vec<ProfileRow> = Vec::new();
    for subject in subjects {
        crate::interrupt::check().map_err(|e| e.to_string())?;
        progress.say(&format!(
            "profiling {} over {} searches",
            subject.name(),
            keys.len()
        ));
        subject.engine().reset();
        subject.engine().search(keys[0]);
        let mut sums = [0f64; 4];
        for &key in keys {
            subject.engine().reset();
            let ((_, seconds), allocated) =
                count_allocations(|| timed(|| subject.engine().search(key)));
            let engine = subject.engine();
            engine.parents().write_i64(&mut parents);
            let nedge = graph.nedge(engine.parents());
            if let Err(e) = validator.validate(edges, key.vertex().into(), &parents, Some(nedge)) {
                return Err(format!(
                    "{} produced an invalid tree from root {}: {e}",
                    subject.name(),
                    key.vertex()
                ));
            }
            let figures = [
                seconds,
                allocated.bytes as f64,
                allocated.allocations as f64,
                subject.bytes_copied() as f64,
            ];
            for (sum, x) in sums.iter_mut().zip(figures) {
                *sum += x;
            }
        }
        let [time, bytes, allocations, copied] = sums.map(|s| s / keys.len() as f64);
        let baseline = rows.first().map_or(time, |seq| seq.mean_time);
        rows.push(ProfileRow {
            strategy: subject.name(),
            mean_time: time,
            speedup: baseline / time,
            bytes_allocated: bytes,
            allocations,
            bytes_copied: copied,
        });
    }
    Ok(rows)
}

#[derive(serde::Serialize)]
struct ProfileReport<'a> {
    program: &'static str,
    scale: u32,
    edgefactor: u64,
    generator: &'static str,
    seed: Option<u64>,
    keys: usize,
    threads: usize,
    rows: &'a [ProfileRow],
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
