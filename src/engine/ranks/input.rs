//! What a rank reads before kernel 1: the refusals every rank makes of a
//! file or plan alike, the graph's size, and the rank's share of the
//! tuples.

use crate::Error;
use crate::observe::{Event, Observer};
use crate::plan::{self, GraphSource, KeyRule, Plan};
use dist::{Comm, Partition};
use generator::format::{EdgeFormat, binary};
use generator::{EDGES_PER_BLOCK, Tuple};
use kernels::Kernel;

/// Refuses a file the ranks cannot share out: its own problem (missing,
/// out of reach) first, as it names what is wrong better than its format
/// does (its metadata, not an open, which would wait on a FIFO); then any
/// format but binary, the only one with a byte range per rank.
pub(crate) fn shared_file(path: &std::path::Path, format: EdgeFormat) -> Result<(), Error> {
    std::fs::metadata(path)
        .map_err(|e| generator::Error::from(generator::FileError::io(path, e)))?;
    if format != EdgeFormat::Binary {
        return Err(Error::Refused(format!(
            "{}: under mpirun each rank reads its own byte range, which only a binary edge list has; convert it first: graph500 convert {} FILE.bin",
            path.display(),
            path.display()
        )));
    }
    Ok(())
}

/// Refuses a BFS kernel other than dobfs, the only one the ranks run.
pub(crate) fn dobfs_only(kernel: &Kernel) -> Result<(), Error> {
    match kernel {
        Kernel::Dobfs(_) => Ok(()),
        other => Err(Error::Refused(format!(
            "under mpirun only --kernel dobfs runs, not {other}"
        ))),
    }
}

/// Refuses `n` vertices over `ranks` if a rank would own 2^32 or more (a
/// rank counts its own vertices in 32 bits), naming the fewest ranks that
/// would do.
pub(crate) fn rows_fit(n: u64, ranks: usize) -> Result<(), Error> {
    let rows = Partition::new(n, ranks).count(0) as u64;
    if rows > u64::from(u32::MAX) {
        let fewest = (ranks..)
            .find(|&p| Partition::new(n, p).count(0) as u64 <= u64::from(u32::MAX))
            .expect("enough ranks exist");
        return Err(Error::Refused(format!(
            "{n} vertices over {ranks} ranks: a rank would own {rows}, but a rank counts its own vertices in 32 bits; run at least {fewest} ranks"
        )));
    }
    Ok(())
}

/// `M` and `N` of the graph, before it is made or read; refuses a file
/// without weights when a pass needs them.
pub(super) fn sizes(plan: &Plan) -> Result<(u64, u64), Error> {
    Ok(match &plan.source {
        GraphSource::Generated(spec) => (spec.num_edges(), spec.num_vertices()),
        GraphSource::File { path, .. } => {
            let header = binary::read_header(path)?;
            if let Some(pass) = plan.weighted_pass()
                && !header.weighted
            {
                return Err(pass.no_weights(path));
            }
            (header.num_edges, header.num_vertices)
        }
    })
}

/// This rank's share of the tuples: generated (its blocks) or read (its
/// byte range), their weights when a pass needs them, the global number of
/// its first tuple, and the key rule.
pub(crate) struct Share<T> {
    pub(crate) tuples: Vec<T>,
    pub(crate) weights: Option<Vec<f32>>,
    pub(crate) first_tuple: u64,
    pub(super) key_rule: KeyRule,
}

/// This rank's share of the tuples (and weights) of `plan`'s graph:
/// generated blocks or a binary file's byte range. Not collective.
pub(super) fn load_share<T: Tuple>(
    plan: &Plan,
    observer: &dyn Observer,
    comm: &dyn Comm,
) -> Result<Share<T>, Error> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let weighted = plan.needs_weights();
    match &plan.source {
        GraphSource::Generated(spec) => {
            let (generator, key_rule) = spec.build_for_ranks()?;
            let blocks = generator.block_share(rank, ranks);
            observer.event(Event::Loading {
                what: &format!(
                    "{}, over {ranks} ranks",
                    spec.generating(&*generator, weighted)
                ),
                blocks: plan::block_passes(weighted) * blocks.len() as u64,
            });
            let first_tuple = (blocks.start * EDGES_PER_BLOCK) as u64;
            let done = || observer.block_generated();
            let tuples = generator::generate_blocks(&*generator, blocks.clone(), &done);
            let weights = weighted.then(|| generator::generate_weights(&*generator, blocks, &done));
            Ok(Share {
                tuples,
                weights,
                first_tuple,
                key_rule,
            })
        }
        GraphSource::File { path, seed, .. } => {
            observer.event(Event::Loading {
                what: &format!("reading {} (binary), a share per rank", path.display()),
                blocks: 0,
            });
            let (_, tuples, first_tuple) = binary::read_share(path, rank, ranks)?;
            let weights = match plan.weighted_pass() {
                Some(pass) => {
                    let weights = binary::read_weights_share(path, rank, ranks)?;
                    Some(weights.ok_or_else(|| pass.no_weights(path))?)
                }
                None => None,
            };
            Ok(Share {
                tuples,
                weights,
                first_tuple,
                key_rule: KeyRule::Seeded(*seed),
            })
        }
    }
}
