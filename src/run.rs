//! The benchmark run: graph, kernel 1, search keys, then per key a timed
//! search, its nedge and its timed validation.
//!
//! Timed regions: `construction_time` is kernel 1 alone; a search's time is
//! [`Bfs::search`] alone (the untimed [`Bfs::reset`] before it clears the
//! parent array, as the reference code's `clean_pred` does); a validation's
//! time is [`Validator::validate`] alone. Converting parents to the `i64`
//! form and computing nedge from the graph are outside every timed region.

use crate::budget;
use crate::cli::{GeneratorArg, KroneckerArgs};
use crate::interrupt::{self, Interrupted};
use crate::progress::Progress;
use anyhow::Context;
use generator::format::EdgeFormat;
use generator::{
    EdgeGenerator, EdgeList, Kronecker, ReferenceKronecker, RootCandidates, SeedStreams,
};
use kernels::{Bfs, Csr, Kernel, SearchKey, choose_reference_search_keys, choose_search_keys};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use validate::{Invalid, Validator};

/// Where the graph comes from.
pub(crate) enum GraphSource {
    /// Generated.
    Generated(Box<dyn EdgeGenerator + Send>),
    /// Read from an edge-list file in a format.
    File(PathBuf, EdgeFormat),
}

/// How a run picks its search keys.
pub(crate) enum KeyRule {
    /// Drawn from a seed's search-key stream ([`choose_search_keys`]).
    Seeded(u64),
    /// The reference code's rule over its candidates
    /// ([`choose_reference_search_keys`]).
    Reference(RootCandidates),
}

impl KeyRule {
    /// `count` keys of `graph`.
    pub(crate) fn choose(
        &self,
        graph: &Csr,
        count: usize,
    ) -> Result<Vec<SearchKey>, kernels::Error> {
        match self {
            KeyRule::Seeded(seed) => {
                choose_search_keys(graph, count, &mut SeedStreams::new(*seed).search_keys())
            }
            KeyRule::Reference(candidates) => {
                choose_reference_search_keys(graph, count, candidates.clone())
            }
        }
    }

    /// The seed of [`KeyRule::Seeded`].
    pub(crate) fn seed(&self) -> Option<u64> {
        match self {
            KeyRule::Seeded(seed) => Some(*seed),
            KeyRule::Reference(_) => None,
        }
    }
}

/// The generator that `k` names and the key rule that goes with it: the
/// seed's for xoshiro, the reference's for graph500 (which refuses --seed:
/// its seeds are fixed).
pub(crate) fn generated(
    k: &KroneckerArgs,
) -> anyhow::Result<(Box<dyn EdgeGenerator + Send>, KeyRule)> {
    Ok(match k.generator {
        GeneratorArg::Xoshiro => (
            Box::new(Kronecker::new(k.scale, k.edgefactor, k.seed())?),
            KeyRule::Seeded(k.seed()),
        ),
        GeneratorArg::Graph500 => {
            if let Some(seed) = k.seed {
                anyhow::bail!(
                    "--seed {seed}: --generator graph500 always uses the reference's user seeds 2 and 3"
                );
            }
            let g = ReferenceKronecker::new(k.scale, k.edgefactor)?;
            let candidates = g.root_candidates();
            (Box::new(g), KeyRule::Reference(candidates))
        }
    })
}

impl GraphSource {
    fn load(&self, progress: &Progress) -> anyhow::Result<EdgeList> {
        match self {
            GraphSource::Generated(g) => {
                let bar = progress.bar(g.num_blocks() as u64, "generating");
                let edges = g.generate_reporting(&|| bar.inc(1));
                bar.finish(format!("{} edge tuples", edges.len()));
                Ok(edges)
            }
            GraphSource::File(path, format) => Ok(format.read(path)?),
        }
    }

    fn describe(&self) -> String {
        match self {
            GraphSource::Generated(g) => format!(
                "generating a Kronecker graph: SCALE {}, edgefactor {}, {}",
                g.scale(),
                g.edgefactor(),
                g.label()
            ),
            GraphSource::File(path, format) => {
                format!("reading {} ({})", path.display(), format.name())
            }
        }
    }
}

/// What to run.
pub(crate) struct RunPlan {
    /// The graph.
    pub(crate) source: GraphSource,
    /// How to choose the search keys.
    pub(crate) key_rule: KeyRule,
    /// How many searches.
    pub(crate) keys: usize,
    /// Which BFS kernel.
    pub(crate) kernel: Kernel,
    /// Whether to validate each search.
    pub(crate) validate: bool,
    /// Run even if the memory estimate exceeds the available memory.
    pub(crate) force: bool,
    /// Record each search's levels.
    pub(crate) trace: bool,
}

/// One search's figures.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct SearchRecord {
    /// The root.
    pub(crate) root: u32,
    /// Seconds in kernel 2.
    pub(crate) time: f64,
    /// Seconds of the untimed reset before the search (clearing the parent
    /// array and the engine's queues): reported so that comparisons with
    /// codes that time their initialisation can add it.
    pub(crate) reset_time: f64,
    /// Edges of the searched component (the reference rule).
    pub(crate) nedge: u64,
    /// `nedge / time`.
    pub(crate) teps: f64,
    /// Seconds validating, if validated.
    pub(crate) validate_time: Option<f64>,
    /// Deepest BFS level.
    pub(crate) depth: u32,
    /// Vertices reached, the root included.
    pub(crate) reached: u64,
    /// The search's levels, with `--trace` (kernels that record them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<Vec<TraceStep>>,
}

/// One level of a traced search.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct TraceStep {
    /// `top-down` or `bottom-up`.
    pub(crate) direction: &'static str,
    /// Vertices in the frontier the level started from.
    pub(crate) frontier: u64,
    /// Vertices it discovered.
    pub(crate) discovered: u64,
    /// Adjacency entries it read.
    pub(crate) edges_examined: Option<u64>,
    /// Seconds it took.
    pub(crate) seconds: f64,
}

impl From<&kernels::Step> for TraceStep {
    fn from(s: &kernels::Step) -> Self {
        TraceStep {
            direction: s.direction.name(),
            frontier: s.frontier,
            discovered: s.discovered,
            edges_examined: s.edges_examined,
            seconds: s.seconds,
        }
    }
}

/// The measurements of a whole valid run.
pub(crate) struct Measured {
    /// Vertices.
    pub(crate) num_vertices: usize,
    /// Edge tuples.
    pub(crate) num_edges: usize,
    /// [`EdgeList::checksum`].
    pub(crate) checksum: u64,
    /// Seconds to generate or read the edge list.
    pub(crate) graph_generation: f64,
    /// Seconds in kernel 1.
    pub(crate) construction_time: f64,
    /// One record per search, in key order.
    pub(crate) searches: Vec<SearchRecord>,
}

/// How a run ended.
pub(crate) enum Outcome {
    /// Every search validated (or validation was off).
    Valid(Measured),
    /// A search failed validation; the run stopped there.
    Invalid(InvalidSearch),
}

/// The search that failed validation.
pub(crate) struct InvalidSearch {
    /// Which search (from 0).
    pub(crate) search: usize,
    /// Its root.
    pub(crate) root: u32,
    /// The failed check.
    pub(crate) error: Invalid,
}

/// The searches of a run, or the first that failed validation.
type SearchResults = Result<Vec<SearchRecord>, InvalidSearch>;

/// Runs the benchmark. Errors are bad input (unreadable file, too few keys).
pub(crate) fn run(plan: &RunPlan, progress: &Progress) -> anyhow::Result<Outcome> {
    run_with(plan, progress, |graph| plan.kernel.engine(graph))
}

/// [`run`] with the search engine made by `engine` (tests inject faults here).
fn run_with(
    plan: &RunPlan,
    progress: &Progress,
    engine: impl FnOnce(Arc<Csr>) -> Box<dyn Bfs>,
) -> anyhow::Result<Outcome> {
    progress.say(&plan.source.describe());
    let (edges, graph_generation) = timed(|| plan.source.load(progress));
    let edges = edges?;
    interrupt::check()?;
    if let GraphSource::File(path, _) = &plan.source {
        let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
        let need = budget::run_bytes(m, n, plan.validate);
        budget::check(
            need,
            &format!("a run on {}", path.display()),
            None,
            plan.force,
        )?;
    }
    progress.say(&format!(
        "graph: {} vertices, {} edge tuples ({:.3} s); building the CSR",
        edges.num_vertices(),
        edges.len(),
        graph_generation
    ));
    // Timed: the bar is drawn before and after, never during.
    let bar = progress.bar(1, "kernel 1");
    let (graph, construction_time) = timed(|| Csr::from_edge_list(&edges));
    bar.inc(1);
    bar.finish(format!("{construction_time:.3} s"));
    interrupt::check()?;
    let graph = Arc::new(graph);
    let keys = plan
        .key_rule
        .choose(&graph, plan.keys)
        .context("choosing search keys")?;
    progress.say(&format!(
        "construction_time {construction_time:.3} s; {} searches with kernel {} on {} threads",
        keys.len(),
        plan.kernel,
        rayon::current_num_threads()
    ));

    let mut engine = engine(Arc::clone(&graph));
    engine.set_tracing(plan.trace);
    let searches = on_pool_worker(|| {
        search_all(
            engine.as_mut(),
            &graph,
            &edges,
            &keys,
            plan.validate,
            plan.trace,
            progress,
        )
    });
    Ok(match searches? {
        Ok(searches) => Outcome::Valid(Measured {
            num_vertices: edges.num_vertices(),
            num_edges: edges.len(),
            checksum: edges.checksum(),
            graph_generation,
            construction_time,
            searches,
        }),
        Err(invalid) => Outcome::Invalid(invalid),
    })
}

/// Runs `f` on a worker of rayon's global pool. Parallel loops started from
/// a worker push their jobs onto its own deque, while loops started from
/// another thread inject them into the pool's shared queue, which allocates
/// a block every 63 jobs: searches run this way allocate nothing at all.
pub(crate) fn on_pool_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}

/// One timed search per key, each followed by its nedge and, if asked, its
/// timed validation. Stops at the first invalid search, or at Ctrl-C
/// (checked between searches).
fn search_all(
    engine: &mut dyn Bfs,
    graph: &Csr,
    edges: &EdgeList,
    keys: &[SearchKey],
    validate: bool,
    trace: bool,
    progress: &Progress,
) -> Result<SearchResults, Interrupted> {
    let mut validator = validate.then(|| Validator::new(edges.num_vertices()));
    let mut parents = vec![0i64; if validate { edges.num_vertices() } else { 0 }];
    let mut searches = Vec::with_capacity(keys.len());
    let search_bar = progress.bar(keys.len() as u64, "searches");
    let validate_bar = progress.bar(if validate { keys.len() as u64 } else { 0 }, "validations");
    for (i, &key) in keys.iter().enumerate() {
        interrupt::check()?;
        let ((), reset_time) = timed(|| engine.reset());
        let (stats, time) = timed(|| engine.search(key));
        let nedge = graph.nedge(engine.parents());
        search_bar.inc(1);
        search_bar.message(format!("{:.3e} TEPS", nedge as f64 / time));
        let validate_time = match validator.as_mut() {
            None => None,
            Some(validator) => {
                engine.parents().write_i64(&mut parents);
                let root = key.vertex().into();
                let (verdict, seconds) =
                    timed(|| validator.validate(edges, root, &parents, Some(nedge)));
                if let Err(error) = verdict {
                    return Ok(Err(InvalidSearch {
                        search: i,
                        root: key.vertex(),
                        error,
                    }));
                }
                validate_bar.inc(1);
                Some(seconds)
            }
        };
        let record = SearchRecord {
            root: key.vertex(),
            time,
            reset_time,
            nedge,
            teps: nedge as f64 / time,
            validate_time,
            depth: stats.depth,
            reached: stats.reached,
            trace: trace.then(|| engine.steps().iter().map(TraceStep::from).collect()),
        };
        progress.detail(&search_line(i, keys.len(), &record));
        searches.push(record);
    }
    search_bar.finish(String::new());
    validate_bar.finish(if validate {
        "all valid".into()
    } else {
        "off".into()
    });
    Ok(Ok(searches))
}

fn search_line(i: usize, total: usize, r: &SearchRecord) -> String {
    let validated = match r.validate_time {
        Some(t) => format!(", validated in {t:.4} s"),
        None => String::new(),
    };
    format!(
        "search {}/{total}: root {}, {} reached, depth {}, nedge {}, {:.4} s, {:.3e} TEPS{validated}",
        i + 1,
        r.root,
        r.reached,
        r.depth,
        r.nedge,
        r.time,
        r.teps
    )
}

/// The value of `f` and the seconds it took.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels::{Parents, SearchKey, SearchStats};

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

    fn plan(validate: bool) -> RunPlan {
        RunPlan {
            source: GraphSource::Generated(Box::new(Kronecker::new(8, 16, 1).unwrap())),
            key_rule: KeyRule::Seeded(1),
            keys: 4,
            kernel: Kernel::Par(kernels::Backend::Rayon),
            validate,
            force: false,
            trace: false,
        }
    }

    #[test]
    fn a_corrupted_tree_stops_the_run_at_its_search_naming_the_check() {
        let outcome = run_with(&plan(true), &Progress::new(true), |g| {
            Box::new(Detaching(Kernel::Par(kernels::Backend::Rayon).engine(g)))
        });
        match outcome.unwrap() {
            Outcome::Invalid(InvalidSearch { search, error, .. }) => {
                assert_eq!(search, 0);
                assert_eq!(error.check(), 4, "{error}");
            }
            Outcome::Valid(_) => panic!("a detached vertex passed validation"),
        }
    }

    #[test]
    fn without_validation_every_search_is_reported() {
        let Outcome::Valid(m) = run(&plan(false), &Progress::new(true)).unwrap() else {
            panic!("nothing to fail without validation");
        };
        assert_eq!(m.searches.len(), 4);
        assert!(
            m.searches
                .iter()
                .all(|r| r.validate_time.is_none() && r.nedge > 0)
        );
    }
}
