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
use crate::{Bfs, Csr, Frontier, LocalBuffer, Parents, SearchKey, SearchStats};
use rayon::prelude::*;
use std::sync::Arc;

/// Frontier vertices per parallel work item. Small, because degrees are
/// heavily skewed; rayon's stealing balances the rest.
const FRONTIER_GRAIN: usize = 64;

/// A level-synchronous parallel BFS.
pub struct ParBfs {
    graph: Arc<Csr>,
    parents: Parents,
    frontier: Frontier,
}

impl ParBfs {
    /// An engine for `graph`; allocates the parent array and the frontier.
    pub fn new(graph: Arc<Csr>) -> Self {
        let n = graph.num_vertices();
        ParBfs {
            graph,
            parents: Parents::new(n),
            frontier: Frontier::new(n),
        }
    }

    /// Claims the unreached neighbours of the current window into the next.
    fn step(&self) {
        let (graph, parents, frontier) = (&*self.graph, &self.parents, &self.frontier);
        frontier.current().par_chunks(FRONTIER_GRAIN).for_each_init(
            || LocalBuffer::new(frontier),
            |next, chunk| claim_neighbors(graph, parents, chunk, |v| next.push(v)),
        );
    }
}

impl Bfs for ParBfs {
    fn reset(&mut self) {
        self.parents.reset();
        self.frontier.reset();
    }

    fn search(&mut self, root: SearchKey) -> SearchStats {
        let root = root.vertex();
        self.parents.set(root, root);
        self.frontier.append(&[root]);
        self.frontier.advance();
        let mut depth = 0;
        loop {
            self.step();
            self.frontier.advance();
            if self.frontier.is_empty() {
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
}
