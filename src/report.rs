//! The report schema: what `graph500 run --json`, `sweep --json` and
//! `profile --json` write, and what `sweep` and `plot` read back, typed, with
//! serde. One [`Document`] enum tells the three apart by their `program`
//! field.
//!
//! A run's JSON records every option that changes a result or a time
//! ([`RunOptions`]), the graph's identity (size and checksum), the
//! statistics of the official block, one [`SearchRecord`] per search and the
//! memory figures. Non-finite numbers (the NaN spread of a single search)
//! are written as `null` and read back as NaN.

use crate::block::{self, KernelStatistics, Statistics};
use crate::plan::{GeneratorSpec, GraphSource};
use crate::stats::Summary;
use crate::{Measured, Pass, Plan, system};
use serde::{Deserialize, Serialize};

/// Any JSON this program writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "program")]
pub enum Document {
    /// `graph500 run --json`.
    #[serde(rename = "graph500")]
    Run(Box<RunReport>),
    /// `graph500 sweep --json`.
    #[serde(rename = "graph500 sweep")]
    Sweep(SweepReport),
    /// `graph500 profile --json`.
    #[serde(rename = "graph500 profile")]
    Profile(ProfileReport),
}

impl Document {
    /// Reads a document from JSON text.
    pub fn from_json(text: &str) -> Result<Document, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The document as pretty JSON, with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("reports serialize");
        text.push('\n');
        text
    }
}

/// The JSON of a valid run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The version of the program that ran it.
    pub version: String,
    /// The machine: CPU model, cores, memory.
    pub machine: String,
    /// The options the run used.
    pub options: RunOptions,
    /// What the graph was.
    pub graph: GraphReport,
    /// The figures of the official block.
    pub statistics: Statistics,
    /// One row per search, in key order.
    pub searches: Vec<SearchRecord>,
    /// One row per SSSP search, in key order, in a run of both kernels
    /// (absent otherwise). Their `depth` is 0: kernel 3 counts no tree
    /// levels (the CSV leaves that field empty, progress lines leave it
    /// out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_searches: Option<Vec<SearchRecord>>,
    /// The estimated peak memory, in bytes (what `--force` overrides).
    pub memory_estimate_bytes: u64,
    /// The process's peak resident memory in bytes, from the OS, at the end
    /// of the run (`null` where the OS does not tell); rank 0's in a
    /// distributed run.
    pub peak_memory_bytes: Option<u64>,
    /// What only a distributed run has (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiReport>,
}

/// The figures of a run over MPI ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MpiReport {
    /// Ranks (`num_mpi_processes`).
    pub ranks: usize,
    /// How the graph was laid over the ranks: `1d` (rank `r` holds the
    /// rows of its vertices) or `2d` (an `R x C` grid of adjacency cells);
    /// `1d` in reports written before the option.
    #[serde(default = "one_d")]
    pub partition: String,
    /// The grid's shape `[R, C]`: `[1, P]` for `1d` (absent in reports
    /// written before the option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<[usize; 2]>,
    /// Bytes of a global vertex id in the ranks' graphs and messages (4,
    /// or 8 beyond 2^32 vertices or when forced).
    pub id_bytes: usize,
    /// Each rank's peak resident memory, bytes, in rank order (0 where the
    /// OS does not tell).
    pub peak_memory_bytes_per_rank: Vec<u64>,
    /// Bytes the ranks sent one another in kernel 1, summed.
    pub kernel1_bytes: u64,
    /// Of them, the pairs `(neighbour, hub)` each cell sent the owners of
    /// its hubs' neighbours for their lists, summed (`--partition 2d`
    /// only; absent in reports written before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel1_hub_pairs: Option<u64>,
    /// Bytes the ranks sent one another per search, summed over ranks and
    /// levels, in key order (per level and direction: each search's
    /// `trace`, with `--trace`).
    pub search_bytes: Vec<u64>,
    /// Bytes the ranks sent one another per validation, in key order.
    pub validate_bytes: Vec<u64>,
    /// Per search, in key order: the least time a rank spent inside
    /// collectives, seconds (waiting for the others included). A search's
    /// time less this is its slowest rank's compute, which
    /// `benches/mpi_model.py` projects (BFS only; absent in reports
    /// written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_comm_seconds: Option<Vec<f64>>,
    /// The same per validation, in key order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validate_comm_seconds: Option<Vec<f64>>,
    /// Bytes the ranks sent one another per SSSP search, summed over ranks
    /// and phases, in key order, in a run of both kernels (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_search_bytes: Option<Vec<u64>>,
    /// Bytes the ranks sent one another per SSSP validation, in key order,
    /// in a run of both kernels (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_validate_bytes: Option<Vec<u64>>,
    /// Per SSSP search, in key order, the least time a rank spent inside
    /// collectives, as `search_comm_seconds` for the BFS, in a run with
    /// kernel 3 (absent otherwise, and in reports written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_search_comm_seconds: Option<Vec<f64>>,
    /// The same per SSSP validation, in key order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_validate_comm_seconds: Option<Vec<f64>>,
}

/// Every option of a run that changes a result or a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    /// `xoshiro`, `graph500` or `file`.
    pub generator: String,
    /// `--scale` (generated graphs only).
    pub scale: Option<u32>,
    /// `--edgefactor` (generated graphs only).
    pub edgefactor: Option<u64>,
    /// The seed of the graph and keys (`null` for the reference generator,
    /// whose seeds are fixed).
    pub seed: Option<u64>,
    /// `--input` (file graphs only).
    pub input: Option<String>,
    /// The format of `--input`.
    pub format: Option<String>,
    /// `--keys`.
    pub keys: usize,
    /// `--kernel`.
    pub kernel: String,
    /// `--backend`: what ran kernel 1's, the BFS's and kernel 3's parallel
    /// loops (absent from reports written before every kernel had one).
    pub backend: Option<String>,
    /// `--alpha` of `dobfs`.
    pub alpha: Option<u64>,
    /// `--beta` of `dobfs`.
    pub beta: Option<u64>,
    /// `--dobfs-scan-all` of `dobfs`.
    pub scan_all: Option<bool>,
    /// False with `--dobfs-no-hubs` of `dobfs` (absent from reports written
    /// before bottom-up steps asked hubs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hubs: Option<bool>,
    /// Worker threads.
    pub threads: usize,
    /// False with `--no-validate`.
    pub validate: bool,
    /// `--trace`: levels recorded, at some cost in speed.
    pub trace: bool,
    /// `--delta` of a run with `--sssp` (absent in a BFS-only run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sssp_delta: Option<f32>,
    /// `--memory` as resolved: `fast` or `lean` ([`crate::Memory`]; absent
    /// from reports written before the option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

/// The graph of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphReport {
    /// `N`.
    pub num_vertices: usize,
    /// `M`.
    pub num_edges: usize,
    /// [`generator::EdgeList::checksum`], as `0x` and 16 hex digits.
    pub checksum: String,
    /// The order validation read the tuples in: `input`, `blocked` when the
    /// run re-encoded them in block order first, `blocked copy` when it
    /// copied them from a read-only mapped file to do so.
    #[serde(default)]
    pub tuple_order: String,
    /// Seconds of that copy and re-encoding (0 for `input`); outside every
    /// timed figure.
    #[serde(default)]
    pub tuple_order_seconds: f64,
    /// BFS searches validated together per pass over the tuples: 16 when
    /// the run batched them (each search's `validate_time` is then its own
    /// part plus an equal share of the pass that judged it), 1 when each
    /// was validated alone, 0 without validation.
    #[serde(default)]
    pub validation_lanes: usize,
    /// BFS searches whose checks 1 and 2 (ranges, and a tree whose levels
    /// are depths) were proven from the levels the kernel claimed, one
    /// pass with no walk of the parent chains; the others were walked. A
    /// claim that fails is not an error: that search is walked.
    #[serde(default)]
    pub validation_certified: u64,
}

/// One search's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    /// The root.
    pub root: u64,
    /// Seconds in the kernel.
    pub time: f64,
    /// Seconds of the untimed reset before the search (clearing the parent
    /// array and the engine's queues): reported so that comparisons with
    /// codes that time their initialisation can add it.
    pub reset_time: f64,
    /// Edges of the searched component (the reference rule).
    pub nedge: u64,
    /// `nedge / time`.
    pub teps: f64,
    /// Seconds validating, if validated.
    pub validate_time: Option<f64>,
    /// Deepest BFS level; 0 for an SSSP search, whose kernel counts no
    /// levels.
    pub depth: u32,
    /// Vertices reached, the root included.
    pub reached: u64,
    /// The search's levels, with `--trace` (kernels that record them; an
    /// empty list for kernels that do not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<TraceStep>>,
    /// An SSSP search's buckets, with `--trace` (absent for BFS searches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buckets: Option<Vec<BucketTrace>>,
}

/// One bucket of a traced SSSP search (delta-stepping).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BucketTrace {
    /// The bucket: its distances lie in `[bucket delta, (bucket + 1) delta)`.
    pub bucket: u32,
    /// Its light phases plus its heavy phase.
    pub phases: u32,
    /// Vertices it settled.
    pub settled: u64,
    /// Seconds it took.
    pub seconds: f64,
}

impl From<&kernels::BucketStep> for BucketTrace {
    fn from(s: &kernels::BucketStep) -> Self {
        BucketTrace {
            bucket: s.bucket,
            phases: s.phases,
            settled: s.settled,
            seconds: s.seconds,
        }
    }
}

/// One level of a traced search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    /// `top-down` or `bottom-up`.
    pub direction: String,
    /// Vertices in the frontier the level started from.
    pub frontier: u64,
    /// Vertices it discovered.
    pub discovered: u64,
    /// Adjacency entries it read, where counted.
    pub edges_examined: Option<u64>,
    /// Seconds it took.
    pub seconds: f64,
    /// Bytes all ranks sent one another in it (distributed runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The pairs `(vertex, parent)` the 2-D fold sent to other ranks, all
    /// ranks together (`--partition 2d` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposals: Option<u64>,
    /// Hubs in a top-down level's frontier whose arcs their neighbours'
    /// owners took from their lists instead of pairs, all ranks together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hubs: Option<u64>,
    /// Their arcs, of `edges_examined`: no pair crossed the network for
    /// them (`--partition 1d` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated: Option<u64>,
}

impl TraceStep {
    /// True for a bottom-up step.
    pub fn is_bottom_up(&self) -> bool {
        self.direction == kernels::Direction::BottomUp.name()
    }
}

impl From<&kernels::Step> for TraceStep {
    fn from(s: &kernels::Step) -> Self {
        TraceStep {
            direction: s.direction.name().to_string(),
            frontier: s.frontier,
            discovered: s.discovered,
            edges_examined: s.edges_examined,
            seconds: s.seconds,
            bytes: None,
            proposals: None,
            hubs: None,
            delegated: None,
        }
    }
}

/// The JSON of `graph500 sweep`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepReport {
    /// The machine: CPU model, cores, memory.
    pub machine: String,
    /// The kernel of every run.
    pub kernel: String,
    /// Searches per run.
    pub keys: u32,
    /// One row per (scale, threads), scales ascending, 1 thread first.
    pub rows: Vec<SweepRow>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// SCALE.
    pub scale: u32,
    /// Worker threads.
    pub threads: usize,
    /// Harmonic-mean TEPS.
    pub harmonic_mean_teps: f64,
    /// Mean search time, seconds.
    pub mean_time: f64,
    /// Kernel 1, seconds.
    pub construction_time: f64,
    /// Mean validation time, seconds.
    pub mean_validate: Option<f64>,
    /// Peak resident memory, bytes.
    pub peak_memory_bytes: Option<u64>,
    /// Peak memory over the edge tuples of the graph.
    pub peak_bytes_per_edge: Option<f64>,
}

impl SweepRow {
    /// The row of a run's report.
    pub fn of(run: &RunReport) -> SweepRow {
        let s = &run.statistics;
        let peak = run.peak_memory_bytes;
        SweepRow {
            scale: s.scale,
            threads: run.options.threads,
            harmonic_mean_teps: s.bfs.teps.harmonic_mean,
            mean_time: s.bfs.time.mean,
            construction_time: s.construction_time,
            mean_validate: s.bfs.validate.map(|v| v.mean),
            peak_memory_bytes: peak,
            peak_bytes_per_edge: peak.map(|p| p as f64 / run.graph.num_edges as f64),
        }
    }
}

/// The JSON of `graph500 profile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileReport {
    /// SCALE.
    pub scale: u32,
    /// Edge tuples per vertex.
    pub edgefactor: u64,
    /// The generator.
    pub generator: String,
    /// Its seed (`null` for graph500).
    pub seed: Option<u64>,
    /// Searches per row.
    pub keys: usize,
    /// Worker threads.
    pub threads: usize,
    /// One row per engine.
    pub rows: Vec<ProfileRow>,
}

/// One engine of the profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileRow {
    /// Which engine.
    pub strategy: String,
    /// Mean seconds per search.
    pub mean_time: f64,
    /// Mean time of the sequential kernel over this row's.
    pub speedup: f64,
    /// Mean bytes allocated per search.
    pub bytes_allocated: f64,
    /// Mean allocations per search.
    pub allocations: f64,
    /// Mean bytes copied by value per search (graph clones, returned
    /// discoveries); 0 for engines that share and write in place.
    pub bytes_copied: f64,
}

impl Plan {
    /// The statistics of the official block for `measured`, a run of this
    /// plan with at least one search.
    pub fn statistics(&self, measured: &Measured) -> Statistics {
        let at_least_one = "a run has at least one search";
        let of = |records: &[SearchRecord]| {
            let times: Vec<f64> = records.iter().map(|r| r.time).collect();
            let nedges: Vec<f64> = records.iter().map(|r| r.nedge as f64).collect();
            let validate: Option<Vec<f64>> = records.iter().map(|r| r.validate_time).collect();
            let k = KernelStatistics::of(&times, &nedges, validate.as_deref()).expect(at_least_one);
            (k, nedges)
        };
        let kernels: Vec<(&str, (KernelStatistics, Vec<f64>))> = (measured.passes.iter())
            .map(|p| (p.kernel, of(&p.searches)))
            .collect();
        // As the reference: the nedge lines are the last kernel's searches'
        // (in a run of both, SSSP's; the same roots give the same counts).
        let nedges = &kernels.last().expect(at_least_one).1.1;
        let figures: Vec<(&str, KernelStatistics)> =
            kernels.iter().map(|(name, (k, _))| (*name, *k)).collect();
        let (bfs, sssp) = block::official_kernels(&figures).expect("a run has a BFS pass");
        let (scale, edgefactor) = match &self.source {
            GraphSource::Generated(g) => (g.scale, g.edgefactor),
            GraphSource::File { .. } => {
                let (m, n) = (measured.num_edges as u64, measured.num_vertices as u64);
                (scale_of(measured.num_vertices), (m + n / 2) / n.max(1))
            }
        };
        Statistics {
            scale,
            edgefactor,
            nbfs: measured.passes[0].searches.len(),
            graph_generation: measured.graph_generation,
            num_mpi_processes: measured
                .ranks
                .as_ref()
                .map_or(1, |m| u32::try_from(m.ranks).unwrap_or(u32::MAX)),
            construction_time: measured.construction_time,
            nedge: Summary::of(nedges).expect(at_least_one),
            bfs,
            sssp,
        }
    }

    /// The options of this plan as a report records them; `threads` is the
    /// worker count the run had.
    pub fn options(&self, threads: usize) -> RunOptions {
        let (generated, file) = match &self.source {
            GraphSource::Generated(g) => (Some(g), None),
            GraphSource::File { path, format, seed } => (None, Some((path, format, *seed))),
        };
        let kernel = self.bfs_kernel().expect("a run has a BFS pass");
        let dobfs = match kernel {
            kernels::Kernel::Dobfs(p) => Some(p),
            _ => None,
        };
        let delta = self.passes.iter().find_map(|p| match p {
            Pass::Sssp(params) => Some(params.delta()),
            Pass::Bfs(_) => None,
        });
        RunOptions {
            generator: self.source.generator_name().to_string(),
            scale: generated.map(|g| g.scale),
            edgefactor: generated.map(|g| g.edgefactor),
            seed: generated.map_or(file.map(|f| f.2), GeneratorSpec::seed),
            input: file.map(|f| f.0.display().to_string()),
            format: file.map(|f| f.1.name().to_string()),
            keys: self.keys,
            kernel: kernel.name().to_string(),
            backend: Some(self.backend.name().to_string()),
            alpha: dobfs.map(|p| p.alpha),
            beta: dobfs.map(|p| p.beta),
            scan_all: dobfs.map(|p| p.scan_every_vertex),
            hubs: dobfs.map(|p| p.ask_hubs),
            threads,
            validate: self.validate,
            trace: self.trace,
            sssp_delta: delta,
            memory: Some(self.memory.name().to_string()),
        }
    }

    /// The JSON report of `measured`, a valid run of this plan on `threads`
    /// workers; the peak memory is this process's so far.
    pub fn report(&self, measured: &Measured, threads: usize) -> RunReport {
        RunReport {
            version: env!("CARGO_PKG_VERSION").to_string(),
            machine: system::describe_machine(),
            options: self.options(threads),
            graph: GraphReport {
                num_vertices: measured.num_vertices,
                num_edges: measured.num_edges,
                checksum: format!("{:#018x}", measured.checksum),
                tuple_order: measured.tuple_order.name().to_string(),
                tuple_order_seconds: measured.tuple_order.seconds(),
                validation_lanes: measured.validation_lanes(),
                validation_certified: measured.validation_certified(),
            },
            statistics: self.statistics(measured),
            searches: measured.passes[0].searches.clone(),
            sssp_searches: measured.searches(SSSP_KERNEL).map(<[_]>::to_vec),
            memory_estimate_bytes: measured.memory_estimate,
            peak_memory_bytes: system::peak_resident_bytes(),
            mpi: measured.mpi_report(),
        }
    }

    /// Lines of ours after the official block: where the graph came from
    /// (and its seed), for runs the reference could not have made. A run on
    /// the reference generator adds nothing, so its stdout differs from the
    /// reference's only in measured times and TEPS.
    pub fn block_lines(&self) -> Vec<(&'static str, String)> {
        match &self.source {
            GraphSource::Generated(g) => match g.seed() {
                Some(seed) => vec![
                    ("generator", g.kind.name().to_string()),
                    ("seed", seed.to_string()),
                ],
                None => Vec::new(),
            },
            GraphSource::File { .. } => vec![("generator", "file".to_string())],
        }
    }
}

impl Measured {
    /// What a distributed run adds to its report: the ranks' figures and
    /// each pass's bytes (`None` in one process).
    pub fn mpi_report(&self) -> Option<MpiReport> {
        let ranks = self.ranks.as_ref()?;
        let bytes = |kernel: &str| {
            let pass = self.passes.iter().find(|p| p.kernel == kernel)?;
            Some((pass.search_bytes.clone()?, pass.validate_bytes.clone()?))
        };
        let (search_bytes, validate_bytes) = bytes("bfs").unwrap_or_default();
        let bfs = self.passes.iter().find(|p| p.kernel == "bfs");
        let seconds = |nanos: &Option<Vec<u64>>| {
            (nanos.as_ref()).map(|n| n.iter().map(|&t| t as f64 * 1e-9).collect())
        };
        let sssp = bytes(SSSP_KERNEL);
        let sssp_pass = self.passes.iter().find(|p| p.kernel == SSSP_KERNEL);
        Some(MpiReport {
            ranks: ranks.ranks,
            partition: ranks.partition.name().to_string(),
            grid: Some([ranks.grid.0, ranks.grid.1]),
            id_bytes: ranks.id_bytes,
            peak_memory_bytes_per_rank: ranks.peak_memory_bytes_per_rank.clone(),
            kernel1_bytes: ranks.kernel1_bytes,
            kernel1_hub_pairs: ranks.kernel1_hub_pairs,
            search_bytes,
            validate_bytes,
            search_comm_seconds: bfs.and_then(|p| seconds(&p.search_comm_nanos)),
            validate_comm_seconds: bfs.and_then(|p| seconds(&p.validate_comm_nanos)),
            sssp_search_bytes: sssp.as_ref().map(|b| b.0.clone()),
            sssp_validate_bytes: sssp.map(|b| b.1),
            sssp_search_comm_seconds: sssp_pass.and_then(|p| seconds(&p.search_comm_nanos)),
            sssp_validate_comm_seconds: sssp_pass.and_then(|p| seconds(&p.validate_comm_nanos)),
        })
    }
}

/// The partition of reports written before `--partition`.
fn one_d() -> String {
    crate::Partitioning::OneD.name().to_string()
}

/// Serde for an `f64` that may be NaN or infinite: written as `null`, read
/// back from `null` as NaN.
pub(crate) mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// The name reports give kernel 3's searches (the CSV's `kernel` column);
/// their progress label starts with it.
pub const SSSP_KERNEL: &str = "sssp";

/// The columns of `--csv`, in order.
pub const CSV_HEADER: &str =
    "search,root,time,reset_time,nedge,teps,validate_time,depth,reached,kernel";

/// One CSV row per search, with [`CSV_HEADER`] first: each pass's
/// searches in the plan's order, the BFS's, then the SSSP's of a run of
/// both kernels (`kernel` says which; `search` counts from 1 within each).
/// Times are seconds; an empty `validate_time` means not validated, an
/// empty `depth` a kernel that counts no levels (kernel 3).
pub fn csv(measured: &Measured) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for pass in &measured.passes {
        let kernel = pass.kernel;
        let levels = kernel != SSSP_KERNEL;
        for (i, r) in pass.searches.iter().enumerate() {
            let validate = r.validate_time.map_or(String::new(), |t| t.to_string());
            let depth = if levels {
                r.depth.to_string()
            } else {
                String::new()
            };
            out += &format!(
                "{},{},{},{},{},{},{},{},{},{kernel}\n",
                i + 1,
                r.root,
                r.time,
                r.reset_time,
                r.nedge,
                r.teps,
                validate,
                depth,
                r.reached
            );
        }
    }
    out
}

/// `SCALE` of a graph read from a file: `ceil(log2 N)`.
pub fn scale_of(num_vertices: usize) -> u32 {
    match num_vertices {
        0 | 1 => 0,
        n => usize::BITS - (n - 1).leading_zeros(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_of_rounds_up() {
        assert_eq!(scale_of(1), 0);
        assert_eq!(scale_of(2), 1);
        assert_eq!(scale_of(3), 2);
        assert_eq!(scale_of(1 << 20), 20);
        assert_eq!(scale_of((1 << 20) + 1), 21);
    }
}
