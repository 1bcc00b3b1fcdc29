//! The statistics of a benchmark run, by the formulas of the Graph500
//! reference code (`get_statistics` in its `main.c`), so that the official
//! block prints the same digits the reference would for the same times.
//!
//! For a series `x` of `n` values: the mean sums `x` in the given order (as
//! the reference does, so that rounding matches); the standard deviation
//! divides by `n - 1`. Order statistics of `x` sorted ascending (integer
//! division): `Q1 = (x[(n-1)/4] + x[n/4]) / 2`,
//! `median = (x[(n-1)/2] + x[n/2]) / 2`, and `Q3` is `Q1` mirrored,
//! `(x[n-1-(n-1)/4] + x[n-1-n/4]) / 2`. (For `n` a multiple of 4, such as
//! the official 64, that equals `(x[3(n-1)/4] + x[3n/4]) / 2`; for other
//! `n` the reference's mirrored form is what it prints.)
//!
//! TEPS figures are computed on `s = time / nedge` (seconds per edge): the
//! harmonic mean is `1 / mean(s)`, the harmonic standard deviation
//! `stddev(s) / (mean(s)^2 * sqrt(n - 1))`, and the TEPS quartiles are
//! reciprocals of the quartiles of `s` (so min TEPS is `1 / max(s)`). With
//! one value the standard deviations are `0 / 0`, computed at run time as C
//! computes it, so the NaN carries the machine's sign (negative on x86, which
//! glibc prints as `-nan`).

/// Order statistics, mean and sample standard deviation of a series.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Smallest value.
    pub min: f64,
    /// First quartile.
    pub first_quartile: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub third_quartile: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divides by `n - 1`); NaN (JSON `null`)
    /// for one value.
    #[serde(with = "crate::report::nan_as_null")]
    pub stddev: f64,
}

impl Summary {
    /// The summary of `values`; `None` if there are none. O(n log n).
    pub fn of(values: &[f64]) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        // At run time, like C: 0 / 0 for one value gives the FPU's NaN.
        let variance = std::hint::black_box(squares) / std::hint::black_box(n as f64 - 1.0);
        let mut x = values.to_vec();
        x.sort_by(f64::total_cmp);
        let pair = |i: usize, j: usize| (x[i] + x[j]) * 0.5;
        Some(Summary {
            min: x[0],
            first_quartile: pair((n - 1) / 4, n / 4),
            median: pair((n - 1) / 2, n / 2),
            third_quartile: pair(n - 1 - (n - 1) / 4, n - 1 - n / 4),
            max: x[n - 1],
            mean,
            stddev: variance.sqrt(),
        })
    }
}

/// TEPS statistics of a series of searches.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TepsSummary {
    /// Lowest TEPS.
    pub min: f64,
    /// First quartile of TEPS.
    pub first_quartile: f64,
    /// Median TEPS.
    pub median: f64,
    /// Third quartile of TEPS.
    pub third_quartile: f64,
    /// Highest TEPS.
    pub max: f64,
    /// Harmonic mean of TEPS: `1 / mean(time / nedge)`.
    pub harmonic_mean: f64,
    /// Harmonic standard deviation, as the reference code defines it; NaN
    /// (JSON `null`) for one search.
    #[serde(with = "crate::report::nan_as_null")]
    pub harmonic_stddev: f64,
}

impl TepsSummary {
    /// TEPS statistics of searches taking `times[i]` seconds to traverse
    /// `nedges[i]` edges; `None` if there are none. Panics if the lengths
    /// differ.
    pub fn of(times: &[f64], nedges: &[f64]) -> Option<TepsSummary> {
        assert_eq!(times.len(), nedges.len(), "one nedge per time");
        let seconds_per_edge: Vec<f64> = times.iter().zip(nedges).map(|(t, e)| t / e).collect();
        let s = Summary::of(&seconds_per_edge)?;
        let n = times.len() as f64;
        Some(TepsSummary {
            min: 1.0 / s.max,
            first_quartile: 1.0 / s.third_quartile,
            median: 1.0 / s.median,
            third_quartile: 1.0 / s.first_quartile,
            max: 1.0 / s.min,
            harmonic_mean: 1.0 / s.mean,
            harmonic_stddev: s.stddev / (s.mean * s.mean * std::hint::black_box(n - 1.0).sqrt()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn summary_of_an_odd_series_by_hand() {
        // Sorted: 1 2 3 4 5. Q1 = x[1], median = x[2], Q3 = x[3];
        // mean 3; variance (4 + 1 + 0 + 1 + 4) / 4 = 2.5.
        let s = Summary::of(&[4.0, 1.0, 3.0, 5.0, 2.0]).unwrap();
        assert_eq!((s.min, s.first_quartile, s.median), (1.0, 2.0, 3.0));
        assert_eq!((s.third_quartile, s.max, s.mean), (4.0, 5.0, 3.0));
        assert!(close(s.stddev, 2.5f64.sqrt()));
    }

    #[test]
    fn summary_of_an_even_series_averages_the_middle_pairs() {
        // n = 6, sorted 10..60: Q1 = (x[1] + x[1]) / 2 = 20,
        // median = (x[2] + x[3]) / 2 = 35, Q3 = (x[5-1] + x[5-1]) / 2 = 50
        // (the reference mirrors Q1's indices).
        let s = Summary::of(&[60.0, 50.0, 40.0, 30.0, 20.0, 10.0]).unwrap();
        assert_eq!(
            (s.first_quartile, s.median, s.third_quartile),
            (20.0, 35.0, 50.0)
        );
        assert_eq!(Summary::of(&[]), None);
    }

    #[test]
    fn teps_by_hand() {
        // Times 1, 2, 4 s over 10 edges each: s = 0.1, 0.2, 0.4 s/edge.
        // mean(s) = 0.7 / 3; harmonic mean TEPS = 3 / 0.7 = 4.285714...
        // stddev(s) = sqrt((0.0177... + 0.0011... + 0.0277...) / 2)
        //           = sqrt(0.07 / 3) = 0.152752...
        // harmonic stddev = 0.152752 / ((0.7/3)^2 * sqrt(2)) = 1.983900...
        let t = TepsSummary::of(&[1.0, 2.0, 4.0], &[10.0, 10.0, 10.0]).unwrap();
        assert!(close(t.harmonic_mean, 3.0 / 0.7));
        let stddev_s = (0.07f64 / 3.0).sqrt();
        assert!(close(
            t.harmonic_stddev,
            stddev_s / ((0.7 / 3.0) * (0.7 / 3.0) * 2f64.sqrt())
        ));
        assert!((t.harmonic_stddev - 1.983_90).abs() < 1e-5);
        // n = 3: Q1(s) = (x[0] + x[0]) / 2 = 0.1, median(s) = 0.2,
        // Q3(s) = (x[2-0] + x[2-0]) / 2 = 0.4 (mirrored indices); TEPS
        // quartiles are reciprocals, with the order reversed.
        assert!(close(t.max, 10.0) && close(t.min, 2.5));
        assert!(close(t.median, 5.0));
        assert!(close(t.first_quartile, 2.5));
        assert!(close(t.third_quartile, 10.0));
    }

    #[test]
    fn quartiles_mirror_for_every_length_and_match_the_spec_form_at_multiples_of_4() {
        for n in 1..=70usize {
            let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let s = Summary::of(&x).unwrap();
            // Mirrored: the distance of Q3 from the max is Q1's from the min.
            assert_eq!(
                s.max - s.third_quartile,
                s.first_quartile - s.min,
                "n = {n}"
            );
            if n % 4 == 0 {
                let spec = (x[3 * (n - 1) / 4] + x[3 * n / 4]) / 2.0;
                assert_eq!(s.third_quartile, spec, "n = {n}");
            }
        }
    }

    #[test]
    fn the_mean_sums_in_input_order_as_c_does() {
        // Summed in this order the rounding differs from the sorted order.
        let x = [1e16, 1.0, -1e16, 1.0];
        let in_order = ((1e16 + 1.0) + -1e16 + 1.0) / 4.0;
        assert_eq!(Summary::of(&x).unwrap().mean, in_order);
    }

    #[test]
    fn a_single_search_has_nan_spread() {
        let t = TepsSummary::of(&[2.0], &[8.0]).unwrap();
        assert_eq!(t.harmonic_mean, 4.0);
        assert!(t.harmonic_stddev.is_nan());
    }
}
