//! `Plan`: what a run does, decided once (by the command line or a test)
//! before anything runs: where the graph comes from, how the search keys
//! are chosen, which kernel searches, and what is validated and recorded.

use crate::observe::{Event, Observer};
use crate::{Error, Pass};
use generator::format::EdgeFormat;
use generator::{
    EdgeGenerator, EdgeList, Kronecker, ReferenceKronecker, RootCandidates, SeedStreams,
};
use kernels::{
    Backend, Csr, Eligible, Kernel, SearchKey, choose_keys_among, choose_reference_keys_among,
};
use std::path::PathBuf;

/// The Kronecker generators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorKind {
    /// xoshiro256++ streams per block of edges, any seed.
    Xoshiro,
    /// The Graph500 reference code's generator, bit for bit (its user seeds
    /// 2 and 3, and its search keys).
    Graph500,
}

impl GeneratorKind {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            GeneratorKind::Xoshiro => "xoshiro",
            GeneratorKind::Graph500 => "graph500",
        }
    }
}

/// A generated graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratorSpec {
    /// Which generator.
    pub kind: GeneratorKind,
    /// log2 of the vertex count.
    pub scale: u32,
    /// Edge tuples per vertex.
    pub edgefactor: u64,
    /// The seed of the graph and keys (xoshiro only; `None` is the default
    /// seed there, and the only choice for graph500).
    pub seed: Option<u64>,
}

impl GeneratorSpec {
    /// The seed in force (`None` for graph500, whose seeds are fixed).
    pub fn seed(&self) -> Option<u64> {
        match self.kind {
            GeneratorKind::Xoshiro => Some(self.seed.unwrap_or(generator::DEFAULT_SEED)),
            GeneratorKind::Graph500 => None,
        }
    }

    /// `N`.
    pub fn num_vertices(&self) -> u64 {
        1u64 << self.scale
    }

    /// `M`.
    pub fn num_edges(&self) -> u64 {
        self.edgefactor << self.scale
    }

    /// Fails above SCALE [`MAX_SCALE`](generator::MAX_SCALE), which one
    /// process cannot name (its ids are 32-bit); MPI ranks can.
    pub fn fits_one_process(&self) -> Result<(), Error> {
        if self.scale <= generator::MAX_SCALE {
            return Ok(());
        }
        Err(Error::Refused(format!(
            "--scale {}: one process names vertices in 32 bits, up to SCALE {}; larger graphs run over MPI ranks (mpirun -np P graph500 ..., built with --features mpi), up to SCALE {}",
            self.scale,
            generator::MAX_SCALE,
            generator::MAX_WIDE_SCALE
        )))
    }

    /// What generating with `generator` (this spec's) does, as progress
    /// says it; `weights` if it generates the weights too.
    pub(crate) fn generating(&self, generator: &dyn EdgeGenerator, weights: bool) -> String {
        format!(
            "generating a Kronecker graph{}: SCALE {}, edgefactor {}, {}",
            if weights { " and its weights" } else { "" },
            self.scale,
            self.edgefactor,
            generator.label()
        )
    }

    /// The generator and the key rule that goes with it, for one process
    /// (see [`GeneratorSpec::fits_one_process`]).
    pub fn build(&self) -> Result<(Box<dyn EdgeGenerator + Send>, KeyRule), Error> {
        self.fits_one_process()?;
        self.build_for_ranks()
    }

    /// The generator and the key rule that goes with it: the seed's for
    /// xoshiro, the reference's for graph500 (which refuses a seed). Any
    /// scale up to [`MAX_WIDE_SCALE`](generator::MAX_WIDE_SCALE): a
    /// distributed run fills 64-bit tuples.
    pub fn build_for_ranks(&self) -> Result<(Box<dyn EdgeGenerator + Send>, KeyRule), Error> {
        Ok(match self.kind {
            GeneratorKind::Xoshiro => {
                let seed = self.seed.unwrap_or(generator::DEFAULT_SEED);
                (
                    Box::new(Kronecker::new(self.scale, self.edgefactor, seed)?),
                    KeyRule::Seeded(seed),
                )
            }
            GeneratorKind::Graph500 => {
                if let Some(seed) = self.seed {
                    return Err(Error::Refused(format!(
                        "--seed {seed}: --generator graph500 always uses the reference's user seeds 2 and 3"
                    )));
                }
                let g = ReferenceKronecker::new(self.scale, self.edgefactor)?;
                let candidates = g.root_candidates();
                (Box::new(g), KeyRule::Reference(candidates))
            }
        })
    }
}

/// Where the graph comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSource {
    /// Generated.
    Generated(GeneratorSpec),
    /// Read from an edge-list file; keys drawn from `seed`.
    File {
        /// The file.
        path: PathBuf,
        /// Its format.
        format: EdgeFormat,
        /// The seed of the search keys.
        seed: u64,
    },
}

impl GraphSource {
    /// `generator` in reports: `xoshiro`, `graph500` or `file`.
    pub fn generator_name(&self) -> &'static str {
        match self {
            GraphSource::Generated(g) => g.kind.name(),
            GraphSource::File { .. } => "file",
        }
    }

    /// The edge list and the rule for its keys; reports the progress of a
    /// generator to `observer`. For a `weighted` pass, the list carries one
    /// weight per tuple: generated, or read from the file (which must have
    /// them). A generated list is `packed` ([`generator::PackedEdge`]s)
    /// if asked and its ids fit; a file's never is.
    pub(crate) fn load(
        &self,
        observer: &dyn Observer,
        weighted: Option<&Pass>,
        packed: bool,
    ) -> Result<(EdgeList, KeyRule), Error> {
        let weights = weighted.is_some();
        match self {
            GraphSource::Generated(spec) => {
                let (g, keys) = spec.build()?;
                observer.event(Event::Loading {
                    what: &spec.generating(&*g, weights),
                    blocks: block_passes(weights) * g.num_blocks() as u64,
                });
                let done = || observer.block_generated();
                let edges = if packed {
                    g.generate_packed_reporting(&done)
                } else {
                    g.generate_reporting(&done)
                };
                if !weights {
                    return Ok((edges, keys));
                }
                let w = generator::generate_weights(&*g, 0..g.num_blocks(), &done);
                Ok((edges.with_weights(w)?, keys))
            }
            GraphSource::File { path, format, seed } => {
                let what = format!("reading {} ({})", path.display(), format.name());
                observer.event(Event::Loading {
                    what: &what,
                    blocks: 0,
                });
                let edges = format.read(path)?;
                if let Some(pass) = weighted
                    && edges.weights().is_none()
                {
                    return Err(pass.no_weights(path));
                }
                Ok((edges, KeyRule::Seeded(*seed)))
            }
        }
    }
}

/// Passes over the blocks that generating makes: the tuples, and the
/// weights if wanted.
pub(crate) fn block_passes(weights: bool) -> u64 {
    if weights { 2 } else { 1 }
}

/// How a run picks its search keys.
#[derive(Clone, Debug)]
pub enum KeyRule {
    /// Drawn from a seed's search-key stream ([`kernels::choose_search_keys`]).
    Seeded(u64),
    /// The reference code's rule over its candidates
    /// ([`kernels::choose_reference_search_keys`]).
    Reference(RootCandidates),
}

impl KeyRule {
    /// `count` keys of `graph`.
    pub fn choose(&self, graph: &Csr, count: usize) -> Result<Vec<SearchKey>, Error> {
        self.choose_among(&Eligible::of(graph), count)
    }

    /// `count` keys among `eligible` (what a distributed run knows of its
    /// graph): the same keys as [`KeyRule::choose`] of the whole graph.
    pub fn choose_among(&self, eligible: &Eligible, count: usize) -> Result<Vec<SearchKey>, Error> {
        let keys = match self {
            KeyRule::Seeded(seed) => {
                choose_keys_among(eligible, count, &mut SeedStreams::new(*seed).search_keys())
            }
            KeyRule::Reference(candidates) => {
                choose_reference_keys_among(eligible, count, candidates.clone())
            }
        };
        keys.map_err(|cause| Error::Kernel {
            context: "choosing search keys".into(),
            cause,
        })
    }
}

/// What a run does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The graph.
    pub source: GraphSource,
    /// How many searches (NBFS), per pass.
    pub keys: usize,
    /// The kernels timed, in order, each over every key: the BFS first.
    pub passes: Vec<Pass>,
    /// What runs the parallel loops of kernel 1 and of every pass.
    pub backend: Backend,
    /// Validate each search.
    pub validate: bool,
    /// Record each search's levels.
    pub trace: bool,
    /// Run even if the memory estimate exceeds the available memory.
    pub force: bool,
    /// In a distributed run, use 64-bit global vertex ids even where 32
    /// bits would do (tests the path graphs beyond 2^32 vertices take).
    pub wide_ids: bool,
    /// In a distributed run, how the graph is laid over the ranks.
    pub partition: Partitioning,
    /// How one process holds a generated edge list (`--memory`, resolved).
    pub memory: Memory,
}

/// How one process holds a generated edge list until the block order
/// (`--memory fast|lean`; `auto` is resolved before the plan is made:
/// [`Plan::with_auto_memory`]). Either way the run generates the same
/// tuples and builds the same graph, so every statistic but the times is
/// the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Memory {
    /// Eight bytes a tuple ([`generator::Edge`]) and a validator's batch
    /// with cells for every vertex: the faster kernel 1, block order and
    /// validation.
    #[default]
    Fast,
    /// A generated list of at most `2^28` vertices is held packed, seven
    /// bytes a tuple ([`generator::PackedEdge`]), through kernel 1 and the
    /// block order, which re-encodes it in its own allocation: one byte a
    /// tuple off the peak of those phases, for kernel 1 about 1.09 times
    /// and the block order about 1.2 times as slow (SCALE 24 and 26). Where the
    /// list is read as [`generator::Edge`]s after kernel 1 (no block order,
    /// or a pass that reads it in input order beside its weights) it is
    /// unpacked in place first. A list read from a file stays as read.
    /// The BFS validator's batch keeps cells for the vertices with a tuple
    /// only ([`Plan::batch_cells`]), on any source: 1.7 bytes a tuple off
    /// the batched searches at SCALE 24, validation about 1.25 times as
    /// long at SCALE 20.
    Lean,
}

impl Memory {
    /// `--memory auto` for a job whose estimate is `fast` bytes in the
    /// fast layout and `lean` in the lean one: [`Memory::Lean`] when
    /// `fast` exceeds the available memory and `lean` does not,
    /// [`Memory::Fast`] otherwise (also when the available memory is
    /// unknown). Costs a read of `/proc/meminfo`.
    pub fn auto(fast: u64, lean: u64) -> Memory {
        match crate::system::available_memory_bytes() {
            Some(available) if fast > available && lean <= available => Memory::Lean,
            _ => Memory::Fast,
        }
    }

    /// `fast` or `lean`, as the option and the JSON name it.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Fast => "fast",
            Memory::Lean => "lean",
        }
    }
}

/// How a distributed run lays the graph over its ranks (`--partition`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partitioning {
    /// Rank `r` owns the vertices of 1-D piece `r` and their rows
    /// (`dist::LocalGraph`, `dist::DistBfs`).
    #[default]
    OneD,
    /// The ranks as an `R x C` grid, each holding one cell of the
    /// adjacency matrix (`dist::GridGraph`, `dist::GridBfs`); vertex
    /// ownership, parents and validation stay 1-D, and kernel 3 searches
    /// the 1-D weighted rows built in the same run.
    TwoD,
}

impl Partitioning {
    /// `1d` or `2d`, as the option and the JSON name it.
    pub fn name(self) -> &'static str {
        match self {
            Partitioning::OneD => "1d",
            Partitioning::TwoD => "2d",
        }
    }
}

impl Plan {
    /// A plan with the defaults of `graph500 run`: 64 validated searches
    /// with `dobfs` on rayon, untraced.
    pub fn new(source: GraphSource) -> Self {
        Plan {
            source,
            keys: 64,
            passes: vec![Pass::Bfs(Kernel::Dobfs(kernels::DoParams::DEFAULT))],
            backend: Backend::Rayon,
            validate: true,
            trace: false,
            force: false,
            wide_ids: false,
            partition: Partitioning::OneD,
            memory: Memory::Fast,
        }
    }

    /// Whether one process holds this plan's list packed until the block
    /// order: [`Memory::Lean`] on a generated graph whose ids fit a
    /// [`generator::PackedEdge`] (at most `2^28` vertices).
    pub fn packs_list(&self) -> bool {
        self.memory == Memory::Lean
            && matches!(&self.source, GraphSource::Generated(g)
                if generator::PackedEdge::names(g.num_vertices()))
    }

    /// Which vertices a batch of this plan's BFS searches over `n`
    /// vertices keeps cells for: every one, or under [`Memory::Lean`] the
    /// vertices with a tuple ([`validate::Batch::dense`]), at most
    /// [`crate::budget::named_bound`] of a generated graph and `n` of a
    /// file's.
    pub fn batch_cells(&self, n: u64) -> crate::budget::Cells {
        use crate::budget::{Cells, named_bound};
        match (self.memory, &self.source) {
            (Memory::Fast, _) => Cells::ById,
            (Memory::Lean, GraphSource::Generated(g)) => Cells::Dense {
                named: named_bound(g.scale, g.edgefactor).min(n),
            },
            (Memory::Lean, _) => Cells::Dense { named: n },
        }
    }

    /// The plan with `--memory auto` resolved for one process:
    /// [`Memory::Lean`] when the estimate of the fast layout
    /// ([`crate::memory_estimate`]) exceeds the available memory and the
    /// lean one's does not, [`Memory::Fast`] otherwise (also when the
    /// available memory is unknown, or the graph is read from a file,
    /// whose list is never packed; [`Memory::auto`]).
    pub fn with_auto_memory(self) -> Plan {
        let GraphSource::Generated(spec) = &self.source else {
            return Plan {
                memory: Memory::Fast,
                ..self
            };
        };
        let (m, n) = (spec.num_edges(), spec.num_vertices());
        let estimate = |memory| {
            crate::memory_estimate(
                &Plan {
                    memory,
                    ..self.clone()
                },
                m,
                n,
            )
        };
        let memory = Memory::auto(estimate(Memory::Fast), estimate(Memory::Lean));
        Plan { memory, ..self }
    }

    /// The BFS kernel of the plan's first BFS pass, if it has one.
    pub fn bfs_kernel(&self) -> Option<Kernel> {
        self.passes.iter().find_map(|p| match p {
            Pass::Bfs(kernel) => Some(*kernel),
            _ => None,
        })
    }

    /// The plan with `pass` run after its passes.
    pub fn then(mut self, pass: Pass) -> Self {
        self.passes.push(pass);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards `--memory auto`: lean only when fast would not fit in the
    /// available memory and lean would (this machine's `MemAvailable`, far
    /// from the figures used).
    #[test]
    fn auto_memory_is_lean_only_when_fast_does_not_fit_and_lean_does() {
        let available = crate::system::available_memory_bytes().expect("/proc/meminfo");
        assert_eq!(Memory::auto(available / 4, available / 8), Memory::Fast);
        assert_eq!(Memory::auto(u64::MAX, 1 << 20), Memory::Lean);
        assert_eq!(Memory::auto(u64::MAX, u64::MAX), Memory::Fast);
    }
}
