//! Kernel 3's parameters and results: [`SsspParams`], the bucket width of
//! a delta-stepping search (a power of two, at least
//! [`SsspParams::MIN_DELTA`]), and what a search reports, [`SsspStats`]
//! and, when traced, a [`BucketStep`] per bucket.
//!
//! Invariant: an `SsspParams` holds a finite power of two no narrower than
//! `MIN_DELTA`, which is what makes the engine's bucket bounds exact in f32
//! ([`DeltaStepping`](super::DeltaStepping)). All are small `Copy` values.

/// The bucket width of a graph whose size says nothing (a file's), and
/// the narrowest [`SsspParams::for_graph`] gives: 2^-6, chosen by
/// measurement (see docs/history-kernels.md#sssp_delta). The reference
/// uses 0.1.
pub const DEFAULT_DELTA: f32 = 1.0 / 64.0;

/// The parameters of kernel 3: the bucket width, a power of two. Positive
/// and finite, so it compares as an equivalence (`Eq`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsspParams {
    delta: f32,
}

impl Eq for SsspParams {}

impl SsspParams {
    /// [`DEFAULT_DELTA`].
    pub const DEFAULT: SsspParams = SsspParams {
        delta: DEFAULT_DELTA,
    };

    /// The narrowest bucket width: 2^-14. Narrower buckets only add steps:
    /// distances of a Kronecker graph with weights below 1 stay under 3,
    /// 50,000 buckets of this width.
    pub const MIN_DELTA: f32 = 1.0 / 16384.0;

    /// Buckets of width `delta` rounded down to a power of two (so 0.1
    /// gives 0.0625). Fails unless `delta` is finite and at least
    /// [`SsspParams::MIN_DELTA`].
    ///
    /// Why a power of two: `d / delta` is then exact in f32, so bucket
    /// `b` is exactly `[b delta, (b + 1) delta)` and a heavy arc (weight at
    /// least `delta`) from bucket `b` gives a distance of at least
    /// `(b + 1) delta` even after rounding. That lets a heavy phase skip
    /// every arc into a vertex its bucket or an earlier one settled,
    /// without reading the target's distance (see
    /// [`DeltaStepping`](super::DeltaStepping)).
    pub fn new(delta: f32) -> Result<Self, crate::Error> {
        if delta >= Self::MIN_DELTA && delta.is_finite() {
            // A positive normal f32 with its mantissa cleared is the
            // largest power of two at most it.
            let delta = f32::from_bits(delta.to_bits() & 0xff80_0000);
            Ok(SsspParams { delta })
        } else {
            Err(crate::Error::Parameter(format!(
                "--delta {delta}: the bucket width must be finite and at least 2^-14 ({})",
                Self::MIN_DELTA
            )))
        }
    }

    /// The bucket width for a graph of `arcs` arcs (twice its tuples)
    /// whose weights average `mean_weight`: the power of two nearest to
    /// `4 mean_weight / arcs^(1/4)`, and at least [`DEFAULT_DELTA`]
    /// (`mean_weight` 1/2, weights uniform in [0, 1)).
    ///
    /// Why it grows on smaller graphs: a bucket costs a few phases whatever
    /// it holds (a fork-join and a gather each), a wider bucket fewer
    /// buckets but more light arcs and more vertices processed before
    /// their distance settles, and the second cost grows with the graph
    /// while the first does not. The constant and the exponent fit the
    /// quiet measurements (docs/history-kernels.md#sssp_delta, delta by
    /// graph size): 2^-5 against 2^-6 took 0.85 of the time at SCALE 18
    /// and 0.93 at SCALE 20, and 1.08 at SCALE 22, and 2^-4 lost to 2^-5 at
    /// SCALE 18; with 32 arcs a vertex the rule gives 2^-5 at SCALE 17 to
    /// 20, 2^-6 from SCALE 21, and wider below SCALE 17 (not measured: its
    /// searches take milliseconds). Narrower than [`DEFAULT_DELTA`] was never
    /// measured better, so the rule stops there. The width scales with the
    /// weights, as a graph's distances do.
    pub fn for_graph(arcs: u64, mean_weight: f64) -> Self {
        if !mean_weight.is_finite() || mean_weight <= 0.0 {
            return Self::DEFAULT;
        }
        #[allow(clippy::cast_precision_loss)] // a size, a few bits lost
        let arcs = (arcs.max(1)) as f64;
        let exponent = (4.0 * mean_weight / arcs.powf(0.25)).log2().round();
        #[allow(clippy::cast_possible_truncation)] // a small exponent
        let delta = 2f64.powi(exponent.clamp(-126.0, 126.0) as i32) as f32;
        Self::new(delta.max(DEFAULT_DELTA)).unwrap_or(Self::DEFAULT)
    }

    /// The bucket width, a power of two.
    pub fn delta(self) -> f32 {
        self.delta
    }
}

/// One bucket of a traced search: which, its phases (light ones and the
/// heavy one), the vertices it settled, and its seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketStep {
    /// The bucket's index: its distances lie in `[b delta, (b + 1) delta)`.
    pub bucket: u32,
    /// Light phases plus the heavy phase.
    pub phases: u32,
    /// Vertices settled (listed for the heavy phase).
    pub settled: u64,
    /// Seconds from its first light phase to the end of its heavy phase.
    pub seconds: f64,
}

/// What one shortest-path search found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SsspStats {
    /// Vertices reached, the root included.
    pub reached: u64,
    /// The largest distance of a reached vertex.
    pub max_dist: f32,
    /// Buckets settled.
    pub buckets: u32,
    /// Light and heavy phases run.
    pub phases: u32,
}
