//! `PipesBfs`: the level-synchronous BFS on [`par`] futures and
//! pipes, in the three sharing strategies of the first Rust Graph500 BFS.
//!
//! Each level, the frontier window is split into chunks (about eight per
//! pool worker, so the pool's shared queue balances skewed degrees) and one
//! future per chunk expands it. The strategies differ only in what the tasks
//! get and how their discoveries come back:
//!
//! | [`Sharing`] | the graph in a task | discoveries |
//! | --- | --- | --- |
//! | `Copy` | its own clone, made by the spawner and moved in | a fresh `Vec` of `(vertex, parent)`, merged by the spawner |
//! | `Arc` | the one graph, through an `Arc` | a fresh `Vec`, merged by the spawner |
//! | `ArcInPlace` | the one graph, through an `Arc` | claimed by CAS in the shared [`Parents`] and appended to the shared [`Frontier`] by the task itself |
//!
//! `ArcInPlace` is `--backend pipes`. The other two exist to be measured
//! against it (`graph500 profile`); all three produce valid BFS trees. The
//! merge of `Copy` and `Arc` claims each discovered vertex once, in chunk
//! order, so every vertex still gets a parent on the level above.
//! [`PipesBfs::bytes_copied`] counts the bytes each strategy moves by value:
//! graph clones handed to tasks and discoveries returned through pipes.

use crate::frontier::claim_neighbors;
use crate::par::{self, TaskError};
use crate::{Bfs, Csr, Frontier, LocalBuffer, Parents, SearchKey, SearchStats, Vertex};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

/// Chunks per pool worker and level.
const CHUNKS_PER_WORKER: usize = 8;
/// The smallest chunk worth a task.
const MIN_CHUNK: usize = 64;

/// How tasks get the graph and return what they find.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// Every task receives its own clone of the graph.
    Copy,
    /// Tasks share the graph through an `Arc` and return discoveries in a `Vec`.
    Arc,
    /// Tasks share the graph through an `Arc` and write in place.
    ArcInPlace,
}

impl Sharing {
    /// Every strategy, costliest first.
    pub const ALL: [Sharing; 3] = [Sharing::Copy, Sharing::Arc, Sharing::ArcInPlace];

    /// The strategy's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Sharing::Copy => "copy",
            Sharing::Arc => "arc",
            Sharing::ArcInPlace => "arc+inplace",
        }
    }
}

/// What the tasks share (through one `Arc`).
struct Shared {
    graph: Arc<Csr>,
    parents: Parents,
    frontier: Frontier,
}

/// A level-synchronous BFS whose levels run as `par` futures.
pub struct PipesBfs {
    shared: Arc<Shared>,
    sharing: Sharing,
    bytes_copied: u64,
}

impl PipesBfs {
    /// An engine for `graph` with the given strategy; allocates the parent
    /// array and the frontier once.
    pub fn new(graph: Arc<Csr>, sharing: Sharing) -> Self {
        let n = graph.num_vertices();
        PipesBfs {
            shared: Arc::new(Shared {
                graph,
                parents: Parents::new(n),
                frontier: Frontier::new(n),
            }),
            sharing,
            bytes_copied: 0,
        }
    }

    /// The strategy.
    pub fn sharing(&self) -> Sharing {
        self.sharing
    }

    /// Bytes moved by value since the last reset: graph clones handed to
    /// tasks plus `(vertex, parent)` discoveries returned through pipes.
    pub fn bytes_copied(&self) -> u64 {
        self.bytes_copied
    }

    /// Expands the current window with futures, one per chunk.
    fn step(&mut self) -> Result<(), TaskError> {
        let len = self.shared.frontier.current().len();
        let chunk_len = len
            .div_ceil(par::current_size() * CHUNKS_PER_WORKER)
            .max(MIN_CHUNK);
        let shared = Arc::clone(&self.shared);
        let found = match self.sharing {
            Sharing::ArcInPlace => {
                par::map_ranges(len, chunk_len, move |range| {
                    let window = &shared.frontier.current()[range];
                    let mut next = LocalBuffer::new(&shared.frontier);
                    claim_neighbors::<false>(
                        &shared.graph,
                        &shared.parents,
                        window,
                        |_| false,
                        |v| next.push(v),
                    );
                    // The examined count is for traces; pipes records none.
                })?;
                return Ok(());
            }
            Sharing::Arc => par::map_ranges(len, chunk_len, move |range| {
                shared.discover(&shared.graph, range)
            })?,
            Sharing::Copy => {
                let tasks: Vec<(Csr, Range<usize>)> = (0..len)
                    .step_by(chunk_len)
                    .map(|start| {
                        (
                            (*self.shared.graph).clone(),
                            start..(start + chunk_len).min(len),
                        )
                    })
                    .collect();
                self.bytes_copied += tasks.len() as u64 * self.shared.graph.heap_bytes();
                par::map(tasks, move |(graph, range)| shared.discover(&graph, range))?
            }
        };
        self.merge(&found);
        Ok(())
    }

    /// Claims the discovered vertices in chunk order (on the calling thread).
    fn merge(&mut self, found: &[Vec<(Vertex, Vertex)>]) {
        let shared = &*self.shared;
        let mut next = LocalBuffer::new(&shared.frontier);
        for &(v, parent) in found.iter().flatten() {
            if shared.parents.claim(v, parent) {
                next.push(v);
            }
        }
        let pairs: usize = found.iter().map(Vec::len).sum();
        self.bytes_copied += (pairs * size_of::<(Vertex, Vertex)>()) as u64;
    }
}

impl Shared {
    /// The unreached neighbours of `range` of the window, with the vertex
    /// that found each; may repeat a vertex that several parents see.
    fn discover(&self, graph: &Csr, range: Range<usize>) -> Vec<(Vertex, Vertex)> {
        let mut found = Vec::new();
        for u in self.frontier.current()[range]
            .iter()
            .map(|slot| slot.load(Relaxed))
        {
            for &v in graph.neighbors(u) {
                if !self.parents.is_reached(v) {
                    found.push((v, u));
                }
            }
        }
        found
    }
}

impl Bfs for PipesBfs {
    fn reset(&mut self) {
        let shared = Arc::get_mut(&mut self.shared).expect("no task runs between searches");
        shared.parents.reset();
        shared.frontier.reset();
        self.bytes_copied = 0;
    }

    /// Allocates per level (one boxed job and one pipe per task; with `Copy`
    /// and `Arc` also the tasks' result vectors and, for `Copy`, the graph
    /// clones). Panics if a task panics, which only a bug in this file can
    /// cause.
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let root = root.vertex();
        self.shared.parents.set(root, root);
        self.shared.frontier.append(&[root]);
        self.shared.frontier.advance();
        let mut depth = 0;
        loop {
            if let Err(e) = self.step() {
                panic!("a BFS task failed: {e}");
            }
            self.shared.frontier.advance();
            if self.shared.frontier.is_empty() {
                break;
            }
            depth += 1;
        }
        SearchStats {
            reached: self.shared.frontier.appended() as u64,
            depth,
        }
    }

    fn parents(&self) -> &Parents {
        &self.shared.parents
    }
}
