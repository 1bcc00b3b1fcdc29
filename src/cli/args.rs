//! The command line: `graph500 [run] ...` and its subcommands, as clap
//! parses them, and their translation into the harness's types ([`Plan`]):
//! nothing below this module sees a clap type.

use clap::{Args, Parser, Subcommand, ValueEnum};
use harness::{GeneratorKind, GeneratorSpec, GraphSource, Memory, Pass, Plan};
use kernels::SsspParams;
use std::path::PathBuf;

/// The Graph500 breadth-first-search benchmark.
///
/// Without a subcommand, `graph500 [OPTIONS]` is `graph500 run [OPTIONS]`:
/// generate a Kronecker graph, build it, run validated searches and print the
/// official statistics block on stdout (progress goes to stderr).
///
/// Exit status: 0 success; 1 a search failed validation; 2 bad input, a
/// failed write or not enough memory (one line on stderr says what); 130
/// interrupted by SIGINT, SIGTERM or SIGHUP (under mpirun, mpirun's own
/// status instead: Open MPI's is 1, and stderr says interrupted).
#[derive(Debug, Parser)]
#[command(name = "graph500", version, args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    /// What to do; `run` when omitted.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// Options of `run`, given without the subcommand.
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// No progress lines on stderr.
    #[arg(long, short, global = true)]
    pub(crate) quiet: bool,
}

impl Cli {
    /// The command line after the checks clap cannot make (an option that
    /// needs another, named first; `--wide-ids` or `--partition 2d` outside
    /// mpirun), refused as clap refuses a command line.
    pub(crate) fn checked(self) -> Result<Cli, clap::Error> {
        if let Some(run) = self.run_args() {
            let refused = |m: String| clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, m);
            run.check().map_err(refused)?;
        }
        Ok(self)
    }

    /// The options of the benchmark, if that is the command.
    fn run_args(&self) -> Option<&RunArgs> {
        match &self.command {
            None => Some(&self.run),
            Some(Command::Run(args)) => Some(args),
            Some(_) => None,
        }
    }

    /// `--threads` of the command (`None`: all cores, or a command that
    /// starts no threads).
    pub(crate) fn threads(&self) -> Option<u16> {
        let budgeted = |b: &Budget| b.pool.threads;
        match &self.command {
            None => budgeted(&self.run.budget),
            Some(Command::Run(a)) => budgeted(&a.budget),
            Some(Command::Generate(a)) => budgeted(&a.budget),
            Some(Command::Bfs(a)) => budgeted(&a.budget),
            Some(Command::Sssp(a)) => budgeted(&a.budget),
            Some(Command::Validate(a)) => budgeted(&a.budget),
            Some(Command::Profile(a)) => budgeted(&a.budget),
            Some(Command::Convert(a)) => a.pool.threads,
            Some(Command::Sweep(a)) => a.pool.threads,
            Some(Command::Plot(_)) => None,
        }
    }

    /// `--force` of the command (false for a command that estimates no
    /// memory).
    pub(crate) fn force(&self) -> bool {
        match &self.command {
            None => self.run.budget.force,
            Some(Command::Run(a)) => a.budget.force,
            Some(Command::Generate(a)) => a.budget.force,
            Some(Command::Bfs(a)) => a.budget.force,
            Some(Command::Sssp(a)) => a.budget.force,
            Some(Command::Validate(a)) => a.budget.force,
            Some(Command::Profile(a)) => a.budget.force,
            Some(Command::Convert(_) | Command::Sweep(_) | Command::Plot(_)) => false,
        }
    }
}

/// `--threads`, for the commands that run parallel loops (all but `plot`).
#[derive(Debug, Args, Clone)]
pub(crate) struct Pool {
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub(crate) threads: Option<u16>,
}

/// `--threads` and `--force`, for the commands that check their memory
/// need before they start (all but `convert`, `sweep` and `plot`).
#[derive(Debug, Args, Clone)]
pub(crate) struct Budget {
    /// Worker threads.
    #[command(flatten)]
    pub(crate) pool: Pool,
    /// Run even when the memory estimate exceeds the available memory.
    #[arg(long)]
    pub(crate) force: bool,
    /// How a generated edge list and the validator's batch are held: fast
    /// (8 bytes a tuple, cells for every vertex), lean (7 bytes a tuple
    /// through kernel 1 and the block order, about 1.1x and 1.2x their
    /// time, and cells for the vertices with a tuple only, validation about
    /// 1.25x), or auto (lean only when fast's memory estimate exceeds the
    /// available memory and lean's does not). A list read from a file is
    /// held as read.
    #[arg(long, value_enum, value_name = "M", default_value_t = MemoryArg::Auto)]
    pub(crate) memory: MemoryArg,
}

/// `--memory`, as the command line names the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MemoryArg {
    /// Eight bytes a tuple: the faster kernel 1 and block order.
    Fast,
    /// Seven bytes a tuple until the block order (up to SCALE 28), and a
    /// dense validation batch.
    Lean,
    /// Lean only when fast would not fit and lean would.
    Auto,
}

impl MemoryArg {
    /// The layout chosen: `fast` or `lean` as named, `auto` as `auto`
    /// decides.
    pub(crate) fn or_auto(self, auto: impl FnOnce() -> Memory) -> Memory {
        match self {
            MemoryArg::Fast => Memory::Fast,
            MemoryArg::Lean => Memory::Lean,
            MemoryArg::Auto => auto(),
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The whole benchmark: graph, kernel 1, searches, validation, statistics.
    Run(RunArgs),
    /// Generate a Kronecker edge list and write it to a file.
    Generate(GenerateArgs),
    /// One search from one root; write the parent array (little-endian i64).
    Bfs(BfsArgs),
    /// One shortest-path search (kernel 3) from one root of a weighted
    /// graph; write the parent array (i64) and the distance array (f32).
    Sssp(SsspArgs),
    /// Validate a parent array made by any program (exit 0 valid, 1 invalid,
    /// 2 bad input).
    Validate(ValidateArgs),
    /// Convert an edge list between formats (binary, text, mtx, packed48).
    Convert(ConvertArgs),
    /// Plot a run's JSON as SVG (TEPS per search with the harmonic mean,
    /// and, if the run was traced, frontier size per level), or a sweep's
    /// (harmonic-mean TEPS and construction time against SCALE).
    Plot(PlotArgs),
    /// What copying versus sharing the graph costs: time, allocations and
    /// bytes copied per search for each strategy of the pipes backend, and
    /// for dobfs on both backends.
    Profile(ProfileArgs),
    /// The scaling report: the benchmark at SCALE --from..=--to on 1 thread
    /// and on all threads, one process per run; a Markdown table of TEPS,
    /// construction and validation time and peak memory.
    Sweep(SweepArgs),
}

/// Which Kronecker graph.
#[derive(Debug, Args, Clone)]
pub(crate) struct KroneckerArgs {
    /// log2 of the number of vertices: up to 31 in one process, 42 over MPI
    /// ranks (in a build with MPI).
    #[arg(long, short, value_name = "S", allow_negative_numbers = true, default_value_t = 16,
          value_parser = run_scale)]
    pub(crate) scale: u32,
    /// Edge tuples per vertex.
    #[arg(long, short, value_name = "E", allow_negative_numbers = true, default_value_t = generator::DEFAULT_EDGEFACTOR,
          value_parser = clap::value_parser!(u64).range(1..=generator::MAX_EDGEFACTOR))]
    pub(crate) edgefactor: u64,
    /// Random seed of the graph and of the search keys [default: 20100615].
    /// Not with --generator graph500, whose seeds are the reference's.
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// The Kronecker generator: xoshiro (fast, seeded by --seed) or graph500
    /// (the official reference generator bit for bit, with its user seeds 2
    /// and 3 and its choice of search keys).
    #[arg(long, value_enum, value_name = "G", default_value_t = GeneratorArg::Xoshiro)]
    pub(crate) generator: GeneratorArg,
}

impl KroneckerArgs {
    /// The graph these options name.
    pub(crate) fn spec(&self) -> GeneratorSpec {
        GeneratorSpec {
            kind: match self.generator {
                GeneratorArg::Xoshiro => GeneratorKind::Xoshiro,
                GeneratorArg::Graph500 => GeneratorKind::Graph500,
            },
            scale: self.scale,
            edgefactor: self.edgefactor,
            seed: self.seed,
        }
    }
}

/// The largest `--scale` of the benchmark in this build: ranks reach
/// [`generator::MAX_WIDE_SCALE`], one process [`generator::MAX_SCALE`].
const RUN_MAX_SCALE: u32 = if cfg!(feature = "mpi") {
    generator::MAX_WIDE_SCALE
} else {
    generator::MAX_SCALE
};

/// `--scale` of the benchmark: 1 up to [`RUN_MAX_SCALE`].
fn run_scale(text: &str) -> Result<u32, String> {
    scale_in(text, RUN_MAX_SCALE, !cfg!(feature = "mpi"))
}

/// `--scale` of `generate` and `profile`, which always run one process.
fn one_process_scale(text: &str) -> Result<u32, String> {
    scale_in(text, generator::MAX_SCALE, false)
}

/// `text` as a SCALE in `1..=max`. Between one process's largest and the
/// ranks' largest, the refusal says why; with `ranks_elsewhere`, also that
/// a build with MPI runs such graphs.
fn scale_in(text: &str, max: u32, ranks_elsewhere: bool) -> Result<u32, String> {
    let scale: i64 = text
        .parse()
        .map_err(|e: std::num::ParseIntError| e.to_string())?;
    match u32::try_from(scale) {
        Ok(s) if (1..=max).contains(&s) => return Ok(s),
        _ => {}
    }
    let (one, wide) = (generator::MAX_SCALE, generator::MAX_WIDE_SCALE);
    if max == one && scale > i64::from(one) && scale <= i64::from(wide) {
        let ranks = if ranks_elsewhere {
            "; larger graphs run over MPI ranks, in a graph500 built with --features mpi"
        } else {
            ""
        };
        return Err(format!(
            "{scale} is not in 1..={max}: one process names vertices in 32 bits{ranks}"
        ));
    }
    Err(format!("{scale} is not in 1..={max}"))
}

/// The values of `--generator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GeneratorArg {
    /// xoshiro256++ streams per block of edges, any seed.
    Xoshiro,
    /// The Graph500 reference code's generator (MRG, user seeds 2 and 3).
    #[value(alias = "reference")]
    Graph500,
}

/// Options of `run`.
#[derive(Debug, Args, Clone)]
pub(crate) struct RunArgs {
    /// The generated graph (ignored with --input, except --seed).
    #[command(flatten)]
    pub(crate) kronecker: KroneckerArgs,
    /// Read the graph from an edge-list file instead of generating it
    /// (its format from its extension, or --format).
    #[arg(long, short, value_name = "FILE", conflicts_with_all = ["scale", "edgefactor", "generator"])]
    pub(crate) input: Option<PathBuf>,
    /// The format of --input (default: from its extension: .el, .txt, .snap
    /// text; .mtx Matrix Market; .pe48 packed; else binary).
    #[arg(long, value_enum, value_name = "F", requires = "input")]
    pub(crate) format: Option<FormatArg>,
    /// Number of searches, from distinct roots with an edge that is not a
    /// self-loop; with --generator graph500, the reference's rule: once N
    /// candidates have been drawn, each further one is taken unchecked, so
    /// roots may repeat (as in the reference's runs).
    #[arg(long, short, value_name = "K", allow_negative_numbers = true, default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub(crate) keys: u32,
    /// The BFS kernel.
    #[arg(long, value_enum, default_value_t = KernelArg::Dobfs)]
    pub(crate) kernel: KernelArg,
    /// What runs the parallel loops of kernel 1, the BFS kernel and
    /// --sssp's kernel 3.
    #[arg(long, value_enum, default_value_t = BackendArg::Rayon)]
    pub(crate) backend: BackendArg,
    /// Switching parameters of --kernel dobfs.
    #[command(flatten)]
    pub(crate) tuning: DoArgs,
    /// Skip validation (the *_validate lines print -1).
    #[arg(long)]
    pub(crate) no_validate: bool,
    /// Also write the figures, one row per search, the options and the edge
    /// list's checksum as JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// Also write one CSV row per search (root, times, nedge, TEPS, depth,
    /// reached; depth empty for --sssp's searches).
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: Option<PathBuf>,
    /// Record every level of every search (direction, frontier, vertices
    /// found, entries read, time) in the JSON (--json); costs some speed.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Under mpirun: 64-bit global vertex ids even where 32 bits would do
    /// (the path graphs beyond 2^32 vertices take), to test that path on
    /// small graphs; refused in one process. Hidden in a build without
    /// MPI, which refuses it.
    #[arg(long)]
    #[cfg_attr(not(feature = "mpi"), arg(hide = true))]
    pub(crate) wide_ids: bool,
    /// Under mpirun: how the graph is laid over the ranks. 1d: rank r holds
    /// the rows of its vertices, as the reference does. 2d: the ranks form
    /// an R x C grid (as square as P's divisors allow), each holding the
    /// arcs between one row block and one column block, so a search
    /// exchanges only row and column pieces of the frontier; --sssp still
    /// searches 1-D rows built in the same run. Default 1d: measured on 2
    /// shared cores at SCALE 16 and 18, 2d reached 0.2-0.56x the
    /// harmonic-mean TEPS of 1d at 2 and 4 ranks (docs/clusters.md): a
    /// grid saves bitmap traffic only at many ranks. One process started
    /// without mpirun accepts only 1d (under mpirun -np 1, 2d is the one
    /// process's run: a 1 x 1 grid). Hidden in a build without MPI, which
    /// refuses 2d.
    #[arg(long, value_enum, value_name = "P", default_value_t = PartitionArg::OneD)]
    #[cfg_attr(not(feature = "mpi"), arg(hide = true))]
    pub(crate) partition: PartitionArg,
    /// Also run kernel 3, single-source shortest paths (Graph500 3.0), over
    /// the same keys after the BFS, and print the combined block.
    #[arg(long)]
    pub(crate) sssp: bool,
    /// The bucket width of --sssp's delta-stepping, rounded down to a power
    /// of two [default: in one process, from a generated graph's size,
    /// 0.03125 at SCALE 17 to 20 and 0.015625 above at edgefactor 16;
    /// 0.015625 for a file and over ranks].
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub(crate) delta: Option<f32>,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

impl RunArgs {
    /// The refusals clap cannot make, each naming the option refused
    /// first: a bad `--delta` before the `--sssp` it needs, `--trace`
    /// without `--json`, and `--wide-ids` and `--partition 2d` in one
    /// process.
    fn check(&self) -> Result<(), String> {
        if let Some(delta) = self.delta {
            SsspParams::new(delta).map_err(|e| e.to_string())?;
            if !self.sssp {
                return Err(format!(
                    "--delta {delta} is the bucket width of --sssp's searches: it needs --sssp"
                ));
            }
        }
        if self.trace && self.json.is_none() {
            return Err(
                "--trace records every level of every search in the JSON: it needs --json FILE"
                    .into(),
            );
        }
        if self.wide_ids && !cfg!(feature = "mpi") {
            return Err("--wide-ids sets the global vertex ids of ranks under mpirun, and this graph500 was built without MPI (cargo build --release --features mpi)".into());
        }
        if self.wide_ids && super::ranks::one_process() {
            return Err("--wide-ids sets the global vertex ids of ranks under mpirun (mpirun -np P graph500 ...); one process names vertices in 32 bits".into());
        }
        if self.partition == PartitionArg::TwoD && !cfg!(feature = "mpi") {
            return Err("--partition 2d lays the graph over ranks under mpirun, and this graph500 was built without MPI (cargo build --release --features mpi)".into());
        }
        // Under `mpirun -np 1` the run is one process's, which is the 1 x 1
        // grid: accepted there, so scripts can sweep P from 1.
        if self.partition == PartitionArg::TwoD && super::ranks::launched_ranks().is_none() {
            return Err("--partition 2d lays the graph over the ranks of mpirun (mpirun -np P graph500 ...); one process holds the whole graph, so it accepts only --partition 1d".into());
        }
        Ok(())
    }

    /// The plan these options describe.
    pub(crate) fn plan(&self, force: bool) -> anyhow::Result<Plan> {
        let source = match &self.input {
            Some(path) => GraphSource::File {
                path: path.clone(),
                format: format_of(path, self.format),
                seed: self.kronecker.seed.unwrap_or(generator::DEFAULT_SEED),
            },
            None => GraphSource::Generated(self.kronecker.spec()),
        };
        let bfs = Pass::Bfs(kernel_of(self.kernel, &self.tuning));
        // Without --delta, a generated graph's bucket width in one process
        // follows its size (its weights are uniform in [0, 1), mean 1/2); a
        // file's weights are not read yet, so it takes the default, and so
        // do ranks, where the wider buckets measured slower
        // (docs/history-kernels.md, delta by graph size).
        let one_process = super::ranks::one_process();
        let by_size = match &source {
            GraphSource::Generated(spec) if one_process => {
                SsspParams::for_graph(spec.num_edges().saturating_mul(2), 0.5)
            }
            _ => SsspParams::DEFAULT,
        };
        let sssp = (self.sssp)
            .then(|| self.delta.map_or(Ok(by_size), SsspParams::new))
            .transpose()?;
        let plan = Plan {
            keys: usize::try_from(self.keys)?,
            passes: std::iter::once(bfs).chain(sssp.map(Pass::Sssp)).collect(),
            backend: self.backend.into(),
            validate: !self.no_validate,
            trace: self.trace,
            force,
            wide_ids: self.wide_ids,
            partition: self.partition.into(),
            ..Plan::new(source)
        };
        if self.budget.memory == MemoryArg::Auto && one_process {
            return Ok(plan.with_auto_memory());
        }
        // Ranks never pack their lists: auto is fast there.
        let memory = self.budget.memory.or_auto(|| Memory::Fast);
        Ok(Plan { memory, ..plan })
    }
}

/// Options of `generate`. It picks no search keys, and runs one process.
#[derive(Debug, Args)]
#[command(
    mut_arg("seed", |a| a.help("Random seed of the graph [default: 20100615]. Not with --generator graph500, whose seeds are the reference's")),
    mut_arg("generator", |a| a.help("The Kronecker generator: xoshiro (fast, seeded by --seed) or graph500 (the official reference generator bit for bit, with its user seeds 2 and 3)")),
    mut_arg("scale", |a| a.help("log2 of the number of vertices, up to 31").value_parser(one_process_scale)),
)]
pub(crate) struct GenerateArgs {
    /// The graph.
    #[command(flatten)]
    pub(crate) kronecker: KroneckerArgs,
    /// Where to write it (its format from its extension, or --format).
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: PathBuf,
    /// The format of --out (default: from its extension).
    #[arg(long, value_enum, value_name = "F")]
    pub(crate) format: Option<FormatArg>,
    /// Also generate one weight per tuple (kernel 3's) and write them with
    /// the tuples: binary version 2, a third text column, Matrix Market
    /// `real`, or FILE.weights beside a .pe48.
    #[arg(long)]
    pub(crate) weights: bool,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

/// Options of `plot`.
#[derive(Debug, Args)]
pub(crate) struct PlotArgs {
    /// The JSON of a run (`graph500 run --json`; with `--trace` for the
    /// frontier panel) or of a sweep (`graph500 sweep --json`).
    #[arg(value_name = "RESULTS.json")]
    pub(crate) results: PathBuf,
    /// Where to write the SVG.
    #[arg(long, short, value_name = "FILE.svg")]
    pub(crate) out: PathBuf,
    /// Searches shown in the frontier panel of a run.
    #[arg(long, value_name = "K", default_value_t = 4, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(1..=12))]
    pub(crate) searches: u32,
}

/// Options of `convert`.
#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The edge list to read.
    #[arg(value_name = "IN")]
    pub(crate) input: PathBuf,
    /// The edge list to write.
    #[arg(value_name = "OUT")]
    pub(crate) output: PathBuf,
    /// The format of IN (default: from its extension).
    #[arg(long, value_enum, value_name = "F")]
    pub(crate) from: Option<FormatArg>,
    /// The format of OUT (default: from its extension).
    #[arg(long, value_enum, value_name = "F")]
    pub(crate) to: Option<FormatArg>,
    /// Threads (parsing text in parallel).
    #[command(flatten)]
    pub(crate) pool: Pool,
}

/// Edge-list file formats, as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    /// graph500's binary format (a header, then u32 or u64 pairs).
    Binary,
    /// Text, SNAP style: `u v` per line, # or % comments.
    #[value(alias = "snap")]
    Text,
    /// Matrix Market coordinate files (1-based).
    #[value(alias = "matrix-market")]
    Mtx,
    /// The Graph500 reference code's packed 48-bit records.
    Packed48,
}

impl From<FormatArg> for generator::format::EdgeFormat {
    fn from(f: FormatArg) -> Self {
        use generator::format::EdgeFormat;
        match f {
            FormatArg::Binary => EdgeFormat::Binary,
            FormatArg::Text => EdgeFormat::Text,
            FormatArg::Mtx => EdgeFormat::MatrixMarket,
            FormatArg::Packed48 => EdgeFormat::Packed48,
        }
    }
}

/// The format of `path`: `explicit`, else what its extension implies.
pub(crate) fn format_of(
    path: &std::path::Path,
    explicit: Option<FormatArg>,
) -> generator::format::EdgeFormat {
    explicit.map_or_else(|| generator::format::EdgeFormat::for_path(path), Into::into)
}

/// Options of `sweep`.
#[derive(Debug, Args)]
pub(crate) struct SweepArgs {
    /// The smallest SCALE.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=i64::from(generator::MAX_SCALE)))]
    pub(crate) from: u32,
    /// The largest SCALE.
    #[arg(long, allow_negative_numbers = true, default_value_t = 22, value_parser = clap::value_parser!(u32).range(1..=i64::from(generator::MAX_SCALE)))]
    pub(crate) to: u32,
    /// Searches per run.
    #[arg(long, short, value_name = "K", allow_negative_numbers = true, default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub(crate) keys: u32,
    /// The BFS kernel of every run.
    #[arg(long, value_enum, default_value_t = KernelArg::Dobfs)]
    pub(crate) kernel: KernelArg,
    /// Also write the rows as JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// The threads of the runs on all threads (default: all cores).
    #[command(flatten)]
    pub(crate) pool: Pool,
}

/// Options of `profile`, which runs one process.
#[derive(Debug, Args)]
#[command(mut_arg("scale", |a| a.help("log2 of the number of vertices, up to 31").value_parser(one_process_scale)))]
pub(crate) struct ProfileArgs {
    /// The generated graph.
    #[command(flatten)]
    pub(crate) kronecker: KroneckerArgs,
    /// Searches per strategy.
    #[arg(long, short, value_name = "K", allow_negative_numbers = true, default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) keys: u32,
    /// Also write the rows as JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

/// A graph file and a root in it.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The graph's edge-list file (its format from its extension, or
    /// --format).
    #[arg(long, short, value_name = "FILE")]
    pub(crate) input: PathBuf,
    /// The format of --input (default: from its extension).
    #[arg(long, value_enum, value_name = "F")]
    pub(crate) format: Option<FormatArg>,
    /// The root vertex of the search.
    #[arg(long, short, value_name = "R", allow_negative_numbers = true)]
    pub(crate) root: u64,
}

/// Options of `bfs`.
#[derive(Debug, Args)]
pub(crate) struct BfsArgs {
    /// Which graph and root.
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// Where to write the parent array.
    #[arg(long, value_name = "P")]
    pub(crate) parents_out: PathBuf,
    /// The BFS kernel.
    #[arg(long, value_enum, default_value_t = KernelArg::Dobfs)]
    pub(crate) kernel: KernelArg,
    /// What runs the parallel loops of kernel 1 and the BFS kernel.
    #[arg(long, value_enum, default_value_t = BackendArg::Rayon)]
    pub(crate) backend: BackendArg,
    /// Switching parameters of --kernel dobfs.
    #[command(flatten)]
    pub(crate) tuning: DoArgs,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

/// Options of `sssp`.
#[derive(Debug, Args)]
pub(crate) struct SsspArgs {
    /// Which graph (it must carry weights) and root.
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// Where to write the parent array.
    #[arg(long, value_name = "P")]
    pub(crate) parents_out: PathBuf,
    /// Where to write the distance array (little-endian f32, -1 unreached).
    #[arg(long, value_name = "D")]
    pub(crate) dist_out: PathBuf,
    /// Delta-stepping's bucket width, rounded down to a power of two
    /// [default: 0.015625].
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub(crate) delta: Option<f32>,
    /// What runs the parallel loops of kernel 1 and kernel 3.
    #[arg(long, value_enum, default_value_t = BackendArg::Rayon)]
    pub(crate) backend: BackendArg,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

/// Options of `validate`.
#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Which graph and root.
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// The parent array: one little-endian i64 per vertex, -1 for unreached.
    #[arg(long, value_name = "P")]
    pub(crate) parents: PathBuf,
    /// Validate a shortest-path search (kernel 3) instead of a BFS: needs
    /// --dist, and an --input with weights.
    #[arg(long, requires = "dist")]
    pub(crate) sssp: bool,
    /// With --sssp: the distance array, one little-endian f32 per vertex, -1
    /// for unreached.
    #[arg(long, value_name = "D", requires = "sssp")]
    pub(crate) dist: Option<PathBuf>,
    /// Threads, and the memory check.
    #[command(flatten)]
    pub(crate) budget: Budget,
}

/// The BFS kernels, as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum KernelArg {
    /// Sequential FIFO-queue BFS, the baseline.
    Seq,
    /// Level-synchronous parallel BFS (CAS-claimed parents), top-down only.
    Par,
    /// Direction-optimizing parallel BFS: top-down and bottom-up steps.
    Dobfs,
}

/// The switching parameters of `--kernel dobfs`.
#[derive(Debug, Args, Clone)]
pub(crate) struct DoArgs {
    /// dobfs: go bottom-up once the frontier's edges exceed the unexplored
    /// edges / ALPHA (larger: sooner) [default: 15; 30 under mpirun]
    #[arg(long, value_name = "ALPHA", allow_negative_numbers = true,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) alpha: Option<u64>,
    /// dobfs: go back top-down once the shrinking frontier holds fewer than
    /// N / BETA vertices (larger: later).
    #[arg(long, value_name = "BETA", allow_negative_numbers = true, default_value_t = kernels::DoParams::DEFAULT.beta,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) beta: u64,
    /// dobfs ablation: bottom-up steps read every vertex's parent instead of
    /// skipping reached and edgeless vertices 64 at a time (slower; exists to
    /// measure that optimisation).
    #[arg(long)]
    pub(crate) dobfs_scan_all: bool,
    /// dobfs ablation: bottom-up steps scan each vertex's row without first
    /// testing its hub, the highest-degree neighbour kernel 1 recorded
    /// (slower; exists to measure that optimisation).
    #[arg(long)]
    pub(crate) dobfs_no_hubs: bool,
}

impl KernelArg {
    /// The name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            KernelArg::Seq => "seq",
            KernelArg::Par => "par",
            KernelArg::Dobfs => "dobfs",
        }
    }
}

/// `--partition`, as the command line names the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum PartitionArg {
    /// Rank r holds the rows of its vertices.
    #[value(name = "1d")]
    OneD,
    /// The ranks as an R x C grid of adjacency cells.
    #[value(name = "2d")]
    TwoD,
}

impl From<PartitionArg> for harness::Partitioning {
    fn from(p: PartitionArg) -> Self {
        match p {
            PartitionArg::OneD => harness::Partitioning::OneD,
            PartitionArg::TwoD => harness::Partitioning::TwoD,
        }
    }
}

/// The backends of every parallel kernel, as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BackendArg {
    /// rayon's work-stealing pool.
    Rayon,
    /// graph500's own runtime (`par`): a persistent pool, its futures and
    /// one-shot pipes, and its reusable loops.
    Pipes,
}

impl From<BackendArg> for kernels::Backend {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Rayon => kernels::Backend::Rayon,
            BackendArg::Pipes => kernels::Backend::Pipes,
        }
    }
}

/// The kernel that `--kernel` and the dobfs parameters name together; an
/// alpha not given is one process's default, or the ranks' under a
/// launcher ([`dist::DEFAULT_PARAMS`]).
pub(crate) fn kernel_of(kernel: KernelArg, tuning: &DoArgs) -> kernels::Kernel {
    use kernels::{DoParams, Kernel};
    let defaults = if super::ranks::one_process() {
        DoParams::DEFAULT
    } else {
        dist::DEFAULT_PARAMS
    };
    match kernel {
        KernelArg::Seq => Kernel::Seq,
        KernelArg::Par => Kernel::Par,
        KernelArg::Dobfs => Kernel::Dobfs(DoParams {
            alpha: tuning.alpha.unwrap_or(defaults.alpha),
            beta: tuning.beta,
            scan_every_vertex: tuning.dobfs_scan_all,
            ask_hubs: !tuning.dobfs_no_hubs,
        }),
    }
}
