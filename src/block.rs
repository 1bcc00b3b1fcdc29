//! The official statistics block, byte for byte as the Graph500 reference
//! code (`main.c` of graph500/graph500, branch `newreference`) prints it,
//! and the C number formatting it needs.
//!
//! Each line is a label padded with spaces to column 32, then the value:
//! integers as `%d`, figures as `%g`, the nedge lines as `%.11g`. The
//! harmonic-mean line carries the reference's `!` in column 30. Without
//! validation the reference records `-1` per search, so the `*_validate`
//! lines are the statistics of those `-1`s (the standard deviation then
//! prints `0`). Lines of ours (`generator:` and so on) come after the block,
//! never inside it, so that tools that read Graph500 output see the
//! reference's lines in the reference's order.

use crate::stats::{Summary, TepsSummary};

/// The figures of one kernel's searches (kernel 2, `bfs  `, or kernel 3,
/// `sssp `: the same three groups under each prefix).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KernelStatistics {
    /// Seconds per search.
    pub time: Summary,
    /// Traversed edges per second.
    pub teps: TepsSummary,
    /// Seconds per validation; `None` (JSON `null`) when not validated.
    pub validate: Option<Summary>,
}

impl KernelStatistics {
    /// The statistics of searches taking `times[i]` seconds over `nedges[i]`
    /// edges, validated in `validate_times[i]` seconds if validated. `None`
    /// without searches.
    pub fn of(times: &[f64], nedges: &[f64], validate_times: Option<&[f64]>) -> Option<Self> {
        Some(KernelStatistics {
            time: Summary::of(times)?,
            teps: TepsSummary::of(times, nedges)?,
            validate: validate_times.and_then(Summary::of),
        })
    }
}

/// Everything the official block reports.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Statistics {
    /// `SCALE`: the generator's, or `ceil(log2 N)` for a graph from a file.
    pub scale: u32,
    /// `edgefactor`: the generator's, or `M / N` rounded for a file.
    pub edgefactor: u64,
    /// `NBFS`: searches per kernel.
    pub nbfs: usize,
    /// Seconds to generate (or read) the edge list.
    pub graph_generation: f64,
    /// `num_mpi_processes`: 1 for a single process, P over MPI ranks.
    pub num_mpi_processes: u32,
    /// Seconds in kernel 1.
    pub construction_time: f64,
    /// Edges traversed per search (the reference's nedge).
    pub nedge: Summary,
    /// Kernel 2.
    pub bfs: KernelStatistics,
    /// Kernel 3, in a run of both kernels (`None`, JSON `null` or absent,
    /// in a BFS-only run).
    #[serde(default)]
    pub sssp: Option<KernelStatistics>,
}

/// The kernels the official block reports, by [`Pass`](crate::Pass) name,
/// with the prefix of their lines, in the block's order: kernel 2, then
/// kernel 3 if it ran.
pub const KERNEL_PREFIXES: [(&str, &str); 2] = [("bfs", "bfs  "), ("sssp", "sssp ")];

/// Kernel 2's and kernel 3's figures among a run's `kernels` (by pass
/// name, in any order); `None` for a run without kernel 2, which the
/// block cannot report.
pub fn official_kernels(
    kernels: &[(&str, KernelStatistics)],
) -> Option<(KernelStatistics, Option<KernelStatistics>)> {
    let find = |name: &str| kernels.iter().find(|(k, _)| *k == name).map(|(_, s)| *s);
    let [(bfs, _), (sssp, _)] = KERNEL_PREFIXES;
    Some((find(bfs)?, find(sssp)))
}

/// The seven statistics of a [`Summary`], in the block's order.
const SUMMARY_NAMES: [&str; 7] = [
    "min",
    "firstquartile",
    "median",
    "thirdquartile",
    "max",
    "mean",
    "stddev",
];

fn summary_values(s: &Summary) -> [f64; 7] {
    [
        s.min,
        s.first_quartile,
        s.median,
        s.third_quartile,
        s.max,
        s.mean,
        s.stddev,
    ]
}

/// Column where every value starts (0-based), as in the reference.
const VALUE_COLUMN: usize = 32;

fn line(out: &mut String, label: &str, value: &str) {
    let label = format!("{label}:");
    out.push_str(&format!("{label:<VALUE_COLUMN$}{value}\n"));
}

/// `prefix` + the seven `{statistic}_{what}` lines of `summary`.
fn summary_lines(out: &mut String, prefix: &str, what: &str, summary: &Summary, precision: usize) {
    for (name, x) in SUMMARY_NAMES.iter().zip(summary_values(summary)) {
        line(
            out,
            &format!("{prefix}{name}_{what}"),
            &format_g(x, precision),
        );
    }
}

/// The TEPS lines of one kernel, with the `!` of the harmonic mean.
fn teps_lines(out: &mut String, prefix: &str, t: &TepsSummary) {
    let g = |x: f64| format_g(x, 6);
    for (name, x) in [
        ("min", t.min),
        ("firstquartile", t.first_quartile),
        ("median", t.median),
        ("thirdquartile", t.third_quartile),
        ("max", t.max),
    ] {
        line(out, &format!("{prefix}{name}_TEPS"), &g(x));
    }
    let label = format!("{prefix}harmonic_mean_TEPS:");
    out.push_str(&format!("{label:<29}!  {}\n", g(t.harmonic_mean)));
    line(
        out,
        &format!("{prefix}harmonic_stddev_TEPS"),
        &g(t.harmonic_stddev),
    );
}

impl Statistics {
    /// The official block, followed by `ours`: extra `label: value` lines
    /// of this program (none for a run the reference could have made).
    pub fn block(&self, ours: &[(&str, String)]) -> String {
        let mut out = String::new();
        line(&mut out, "SCALE", &self.scale.to_string());
        line(&mut out, "edgefactor", &self.edgefactor.to_string());
        line(&mut out, "NBFS", &self.nbfs.to_string());
        line(
            &mut out,
            "graph_generation",
            &format_g(self.graph_generation, 6),
        );
        line(
            &mut out,
            "num_mpi_processes",
            &self.num_mpi_processes.to_string(),
        );
        line(
            &mut out,
            "construction_time",
            &format_g(self.construction_time, 6),
        );
        // Each group for kernel 2, then for kernel 3 if it ran, as the
        // reference's `main.c` prints them.
        let [(_, bfs), (_, sssp)] = KERNEL_PREFIXES;
        let kernels: Vec<(&str, &KernelStatistics)> =
            [(bfs, Some(&self.bfs)), (sssp, self.sssp.as_ref())]
                .into_iter()
                .filter_map(|(prefix, k)| Some((prefix, k?)))
                .collect();
        for (prefix, k) in &kernels {
            summary_lines(&mut out, prefix, "time", &k.time, 6);
        }
        summary_lines(&mut out, "", "nedge", &self.nedge, 11);
        for (prefix, k) in &kernels {
            teps_lines(&mut out, prefix, &k.teps);
        }
        let not_validated = Summary::of(&vec![-1.0; self.nbfs]).expect("a run has searches");
        for (prefix, k) in &kernels {
            let validate = k.validate.unwrap_or(not_validated);
            summary_lines(&mut out, prefix, "validate", &validate, 6);
        }
        for (label, value) in ours {
            line(&mut out, label, value);
        }
        out
    }
}

/// What the reference prints instead of a block when a search failed
/// validation.
pub const INVALID_RUN: &str = "No results printed for invalid run.\n";

/// `x` as C's `printf("%.{precision}g", x)` prints it with glibc:
/// `precision` significant digits, fixed notation when the decimal exponent
/// is in `-4..precision`, scientific otherwise, trailing zeros removed;
/// `inf`, `nan` and their signs as glibc spells them.
pub fn format_g(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    if x == 0.0 {
        return format!("{sign}0");
    }
    // Rounding to p digits first decides the exponent (9.9999995 -> 1e+01).
    let scientific = format!("{:.*e}", p - 1, x);
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i64 = exponent.parse().expect("an integer exponent");
    let p = i64::try_from(p).expect("a small precision");
    if (-4..p).contains(&exponent) {
        let decimals = usize::try_from(p - 1 - exponent).expect("non-negative");
        trim_fraction(&format!("{x:.decimals$}")).to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_fraction(mantissa), exponent.abs())
    }
}

/// Drops trailing zeros after a decimal point, and the point if bare.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g_matches_c_printf() {
        // Expected strings are what C's printf("%g") / ("%.11g") prints.
        let cases: [(f64, usize, &str); 16] = [
            (0.0, 6, "0"),
            (2.0, 6, "2"),
            (0.5, 6, "0.5"),
            (100.0, 6, "100"),
            (123_456.0, 6, "123456"),
            (1_234_567.0, 6, "1.23457e+06"),
            (999_999.5, 6, "1e+06"),
            (0.000_123_4, 6, "0.0001234"),
            (0.000_012_34, 6, "1.234e-05"),
            (1.5e8, 6, "1.5e+08"),
            (1.234_567_89, 6, "1.23457"),
            (-2.5e-7, 6, "-2.5e-07"),
            (1e100, 6, "1e+100"),
            (16_777_216.0, 11, "16777216"),
            (16_000_000_000.0, 11, "16000000000"),
            (1_234_567.125, 11, "1234567.125"),
        ];
        for (x, p, want) in cases {
            assert_eq!(format_g(x, p), want, "%.{p}g of {x}");
        }
        assert_eq!(format_g(f64::NAN, 6), "nan");
        assert_eq!(format_g(-f64::NAN, 6), "-nan");
        assert_eq!(format_g(f64::NEG_INFINITY, 6), "-inf");
    }

    fn statistics(validated: bool) -> Statistics {
        let times = [0.5, 0.25, 1.0, 0.125];
        let nedges = [1000.0, 1000.0, 2000.0, 1000.0];
        let validate = [2.0, 2.0, 2.0, 2.0];
        Statistics {
            scale: 10,
            edgefactor: 16,
            nbfs: 4,
            graph_generation: 0.001_234_5,
            num_mpi_processes: 1,
            construction_time: 12.5,
            nedge: Summary::of(&nedges).unwrap(),
            bfs: KernelStatistics::of(&times, &nedges, validated.then_some(&validate[..])).unwrap(),
            sssp: None,
        }
    }

    #[test]
    fn the_block_has_the_reference_labels_padding_and_bang() {
        let block = statistics(true).block(&[]);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 34);
        assert_eq!(lines[0], "SCALE:                          10");
        assert_eq!(lines[1], "edgefactor:                     16");
        assert_eq!(lines[3], "graph_generation:               0.0012345");
        assert_eq!(lines[6], "bfs  min_time:                  0.125");
        assert_eq!(lines[13], "min_nedge:                      1000");
        assert_eq!(lines[17], "max_nedge:                      2000");
        assert_eq!(lines[25], "bfs  harmonic_mean_TEPS:     !  2909.09");
        assert_eq!(lines[26].find(|c: char| c.is_ascii_digit()), Some(32));
        assert_eq!(lines[33], "bfs  stddev_validate:           0");
        for l in &lines {
            assert_eq!(l.as_bytes()[32 - 1], b' ', "{l}");
            assert_ne!(l.as_bytes()[32], b' ', "{l}");
        }
    }

    #[test]
    fn without_validation_the_validate_lines_are_the_statistics_of_minus_ones() {
        let block = statistics(false).block(&[]);
        let validate: Vec<&str> = block.lines().skip(27).collect();
        assert_eq!(validate[0], "bfs  min_validate:              -1");
        assert_eq!(validate[5], "bfs  mean_validate:             -1");
        assert_eq!(validate[6], "bfs  stddev_validate:           0");
    }

    #[test]
    fn lines_of_ours_come_after_the_block() {
        let block = statistics(true).block(&[("generator", "xoshiro".into())]);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 35);
        assert_eq!(lines[34], "generator:                      xoshiro");
    }

    /// Guards the combined block of a run of both kernels: the reference's
    /// labels in the reference's order (`main.c` with SSSP: times, nedge,
    /// TEPS and validation each for `bfs  ` then `sssp `), every value at
    /// column 32, the `!` of both harmonic means in column 30.
    #[test]
    fn a_run_of_both_kernels_prints_the_reference_combined_block() {
        let mut both = statistics(true);
        let times = [2.0, 1.0, 4.0, 0.5];
        let nedges = [1000.0, 1000.0, 2000.0, 1000.0];
        both.sssp = KernelStatistics::of(&times, &nedges, Some(&[3.0; 4]));
        let block = both.block(&[]);
        let labels: Vec<&str> = block.lines().map(|l| l[..32].trim_end()).collect();
        let group = |prefix: &str, what: &str| -> Vec<String> {
            SUMMARY_NAMES
                .iter()
                .map(|n| format!("{prefix}{n}_{what}:"))
                .collect()
        };
        let teps = |prefix: &str| -> Vec<String> {
            let names = ["min", "firstquartile", "median", "thirdquartile", "max"];
            let mut v: Vec<String> = names.iter().map(|n| format!("{prefix}{n}_TEPS:")).collect();
            v.push(format!("{prefix}harmonic_mean_TEPS:     !"));
            v.push(format!("{prefix}harmonic_stddev_TEPS:"));
            v
        };
        let mut want: Vec<String> = ["SCALE:", "edgefactor:", "NBFS:", "graph_generation:"]
            .into_iter()
            .chain(["num_mpi_processes:", "construction_time:"])
            .map(String::from)
            .collect();
        for part in [
            group("bfs  ", "time"),
            group("sssp ", "time"),
            group("", "nedge"),
            teps("bfs  "),
            teps("sssp "),
            group("bfs  ", "validate"),
            group("sssp ", "validate"),
        ] {
            want.extend(part);
        }
        assert_eq!(labels, want);
        assert!(
            block.contains("sssp harmonic_mean_TEPS:     !  727.273\n"),
            "{block}"
        );
        assert!(
            block.contains("sssp mean_validate:             3\n"),
            "{block}"
        );
        for l in block.lines() {
            assert_ne!(l.as_bytes()[32], b' ', "{l}");
        }
    }
}
