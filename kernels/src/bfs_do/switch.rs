//! The search of [`DoBfs`]: which direction each level
//! takes (Beamer's heuristic, [`DoParams`](super::DoParams)).
//!
//! Idea: go bottom-up when the frontier's edges `m_f` exceed the edges
//! not yet checked by top-down steps over `alpha`; stay bottom-up while
//! the frontier grows or holds more than `N / beta` vertices; then turn
//! the bitmap back into the queue and go top-down.
//!
//! Invariants: between steps no step holds the shared state (so the
//! bitmaps can be swapped); the queue's window is the frontier at the
//! start of every top-down step, `front` at the start of every
//! bottom-up step; `reached` and `depth` count what the steps found.

use super::DoBfs;
use crate::{Bfs, Direction, Parents, SearchKey, SearchStats, Step};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

impl DoBfs {
    /// Makes `next` the frontier bitmap. No step holds the shared state
    /// between steps ([`Loops::run`](crate::loops::Loops::run) drops its
    /// body before returning).
    fn swap_bitmaps(&mut self) {
        let shared = Arc::get_mut(&mut self.shared).expect("no step runs between steps");
        std::mem::swap(&mut shared.front, &mut shared.next);
    }
}

impl Bfs for DoBfs {
    fn reset(&mut self) {
        let shared = Arc::get_mut(&mut self.shared).expect("no step runs between searches");
        shared.parents.reset();
        shared.queue.reset();
        shared.visited.copy_from(&self.unreachable);
        self.log.clear();
    }

    /// Allocates nothing, on either backend.
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let n = self.shared.graph.num_vertices() as u64;
        let (alpha, beta) = (self.params.alpha.max(1), self.params.beta.max(1));
        let root = root.vertex();
        self.shared.parents.set(root, root);
        self.shared.parents.record_level(root, 0);
        self.shared.visited.set_atomic(root as usize);
        self.shared.queue.append(&[root]);
        self.shared.queue.advance();
        let mut edges_to_check = self.shared.graph.num_arcs() as u64;
        let mut scout = self.shared.graph.degree(root);
        let (mut reached, mut depth) = (1u64, 0u32);
        while !self.shared.queue.is_empty() {
            if scout > edges_to_check / alpha {
                self.queue_to_bitmap();
                let mut awake = self.shared.queue.current().len() as u64;
                loop {
                    let previous = awake;
                    self.shared.discovering.store(depth + 1, Relaxed);
                    let start = Instant::now();
                    let examined;
                    (awake, examined) = if self.tracing {
                        self.bottom_up_step::<true>()
                    } else {
                        self.bottom_up_step::<false>()
                    };
                    self.swap_bitmaps();
                    let examined = self.tracing.then_some(examined);
                    self.log
                        .record(Direction::BottomUp, previous, awake, examined, start);
                    if awake == 0 {
                        break;
                    }
                    reached += awake;
                    depth += 1;
                    if awake < previous && awake <= n / beta {
                        break;
                    }
                }
                self.bitmap_to_queue();
                scout = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout);
                self.shared.discovering.store(depth + 1, Relaxed);
                let start = Instant::now();
                let frontier = self.shared.queue.current().len() as u64;
                let examined;
                (scout, examined) = if self.tracing {
                    self.top_down_step::<true>()
                } else {
                    self.top_down_step::<false>()
                };
                self.shared.queue.advance();
                let discovered = self.shared.queue.current().len() as u64;
                self.log.record(
                    Direction::TopDown,
                    frontier,
                    discovered,
                    self.tracing.then_some(examined),
                    start,
                );
                if !self.shared.queue.is_empty() {
                    reached += self.shared.queue.current().len() as u64;
                    depth += 1;
                }
            }
        }
        SearchStats { reached, depth }
    }

    fn parents(&self) -> &Parents {
        &self.shared.parents
    }

    fn steps(&self) -> &[Step] {
        self.log.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }
}
