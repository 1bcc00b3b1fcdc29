//! `ParBfs`: a level-synchronous parallel BFS (top-down).
//!
//! Each level, the current [`Frontier`] window is split among rayon workers.
//! A worker scans the neighbours of its frontier vertices and claims each
//! unreached neighbour with one compare-and-swap on [`Parents`], writing the
//! parent in place; the winner, and only it, adds the vertex to its
//! [`LocalBuffer`], which appends to the next level in batches. When all
//! workers finish, the window slides to the new level.
//!
//! Invariants: a vertex is claimed once, so it enters the frontier once; the
//! parent of a level-`d` vertex is a level-`d - 1` vertex, because claims of
//! level `d` happen only while level `d - 1` is the window. The graph is
//! shared by every worker through one `Arc<Csr>` and never copied; nothing is
//! allocated during a search (local buffers live on worker stacks).

use crate::frontier::claim_neighbors;
use crate::{
    Bfs, Csr, Direction, Frontier, LocalBuffer, Parents, SearchKey, SearchStats, Step, StepLog,
};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Frontier vertices per parallel work item. Small, because degrees are
/// heavily skewed; rayon's stealing balances the rest.
const FRONTIER_GRAIN: usize = 64;

/// A level-synchronous parallel BFS.
pub struct ParBfs {
    graph: Arc<Csr>,
    parents: Parents,
    frontier: Frontier,
    log: StepLog,
    /// Count the entries each level reads ([`Bfs::set_tracing`]).
    tracing: bool,
}

impl ParBfs {
    /// An engine for `graph`; allocates the parent array and the frontier.
    pub fn new(graph: Arc<Csr>) -> Self {
        let n = graph.num_vertices();
        ParBfs {
            graph,
            parents: Parents::new(n),
            frontier: Frontier::new(n),
            log: StepLog::default(),
            tracing: false,
        }
    }

    /// Claims the unreached neighbours of the current window into the next;
    /// returns, when `COUNT`, the adjacency entries read.
    fn step<const COUNT: bool>(&self) -> u64 {
        let (graph, parents, frontier) = (&*self.graph, &self.parents, &self.frontier);
        frontier
            .current()
            .par_chunks(FRONTIER_GRAIN)
            .map_init(
                || LocalBuffer::new(frontier),
                |next, chunk| {
                    claim_neighbors::<COUNT>(graph, parents, chunk, |_| false, |v| next.push(v))
                },
            )
            .sum()
    }
}

impl Bfs for ParBfs {
    fn reset(&mut self) {
        self.parents.reset();
        self.frontier.reset();
        self.log.clear();
    }

    fn search(&mut self, root: SearchKey) -> SearchStats {
        let root = root.vertex();
        self.parents.set(root, root);
        self.frontier.append(&[root]);
        self.frontier.advance();
        let mut depth = 0;
        loop {
            let (start, frontier) = (Instant::now(), self.frontier.current().len() as u64);
            let examined = if self.tracing {
                self.step::<true>()
            } else {
                self.step::<false>()
            };
            self.frontier.advance();
            let discovered = self.frontier.current().len() as u64;
            let examined = self.tracing.then_some(examined);
            self.log
                .record(Direction::TopDown, frontier, discovered, examined, start);
            if discovered == 0 {
                break;
            }
            depth += 1;
        }
        SearchStats {
            reached: self.frontier.appended() as u64,
            depth,
        }
    }

    fn parents(&self) -> &Parents {
        &self.parents
    }

    fn steps(&self) -> &[Step] {
        self.log.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }
}
