//! `SeqBfs`: the sequential baseline, a textbook FIFO-queue BFS.
//!
//! The queue is one preallocated vector of N slots: each vertex enters once,
//! so it never grows past N and never reallocates. Levels are tracked by
//! remembering where the current level ends in the queue. The graph is held
//! through the shared `Arc`, like every kernel.

use crate::{Bfs, Csr, Parents, SearchKey, SearchStats, Vertex};
use std::sync::Arc;

/// A single-threaded queue BFS.
pub struct SeqBfs {
    graph: Arc<Csr>,
    parents: Parents,
    queue: Vec<Vertex>,
}

impl SeqBfs {
    /// An engine for `graph`; allocates the parent array and the queue.
    pub fn new(graph: Arc<Csr>) -> Self {
        let n = graph.num_vertices();
        SeqBfs {
            graph,
            parents: Parents::new(n),
            queue: Vec::with_capacity(n),
        }
    }
}

impl Bfs for SeqBfs {
    fn reset(&mut self) {
        self.parents.reset();
        self.queue.clear();
    }

    fn search(&mut self, root: SearchKey) -> SearchStats {
        let (graph, parents, queue) = (&*self.graph, &self.parents, &mut self.queue);
        let root = root.vertex();
        parents.set(root, root);
        queue.push(root);
        let (mut head, mut level_end, mut depth) = (0, 1, 0);
        while head < queue.len() {
            if head == level_end {
                depth += 1;
                level_end = queue.len();
            }
            let u = queue[head];
            head += 1;
            for &v in graph.neighbors(u) {
                if !parents.is_reached(v) {
                    parents.set(v, u);
                    queue.push(v);
                }
            }
        }
        SearchStats {
            reached: queue.len() as u64,
            depth,
        }
    }

    fn parents(&self) -> &Parents {
        &self.parents
    }
}
