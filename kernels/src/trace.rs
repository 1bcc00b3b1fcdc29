//! `StepLog`: what each level of a search did, for `--trace` and plots.
//!
//! A log holds at most [`MAX_STEPS`] steps in a vector allocated once, so
//! recording never allocates inside a search; deeper searches keep their
//! first steps. Cost per step: one clock read.

use std::time::Instant;

/// The most steps a search records.
pub const MAX_STEPS: usize = 256;

/// Which way a step went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Frontier vertices scanned their neighbours.
    TopDown,
    /// Unreached vertices looked for a frontier neighbour.
    BottomUp,
}

impl Direction {
    /// `top-down` or `bottom-up`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::TopDown => "top-down",
            Direction::BottomUp => "bottom-up",
        }
    }
}

/// One step (level) of a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The direction taken.
    pub direction: Direction,
    /// Vertices in the frontier the step started from.
    pub frontier: u64,
    /// Vertices the step discovered.
    pub discovered: u64,
    /// Adjacency entries the step read, where counted (bottom-up steps of
    /// `dobfs` count them only while tracing: counting in that inner loop
    /// has a measured cost, docs/history-kernels.md#bfs_do).
    pub edges_examined: Option<u64>,
    /// Seconds the step took.
    pub seconds: f64,
}

/// The steps of the last search.
#[derive(Debug)]
pub struct StepLog {
    steps: Vec<Step>,
}

impl Default for StepLog {
    fn default() -> Self {
        StepLog {
            steps: Vec::with_capacity(MAX_STEPS),
        }
    }
}

impl StepLog {
    /// Forgets the steps (before a search).
    pub fn clear(&mut self) {
        self.steps.clear();
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Records a step that started at `start`; never grows the vector.
    pub fn record(
        &mut self,
        direction: Direction,
        frontier: u64,
        discovered: u64,
        edges_examined: Option<u64>,
        start: Instant,
    ) {
        if self.steps.len() < self.steps.capacity() {
            self.steps.push(Step {
                direction,
                frontier,
                discovered,
                edges_examined,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
}
