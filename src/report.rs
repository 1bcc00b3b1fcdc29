//! Reports: the official statistics block on stdout, and JSON.

use crate::run::{Measured, SearchRecord};
use validate::stats::{Summary, TepsSummary};

/// The numbers the statistics block reports, computed once.
#[derive(Debug, serde::Serialize)]
pub(crate) struct RunStatistics {
    /// Where the graph came from: `xoshiro` or `graph500` (the generators),
    /// or `file`.
    pub(crate) generator: &'static str,
    /// `SCALE`: the generator's, or `ceil(log2 N)` for a file.
    pub(crate) scale: u32,
    /// `edgefactor`: `M / N`.
    pub(crate) edgefactor: f64,
    /// Searches.
    pub(crate) nbfs: usize,
    /// Seconds to generate (or read) the graph.
    pub(crate) graph_generation: f64,
    /// Seconds in kernel 1.
    pub(crate) construction_time: f64,
    /// Search times.
    pub(crate) time: Summary,
    /// nedge per search.
    pub(crate) nedge: Summary,
    /// TEPS.
    pub(crate) teps: TepsSummary,
    /// Validation times; `None` without validation.
    pub(crate) validate: Option<Summary>,
}

impl RunStatistics {
    /// The statistics of a run with at least one search.
    pub(crate) fn new(m: &Measured, scale: u32, generator: &'static str) -> Self {
        let column = |f: fn(&SearchRecord) -> f64| m.searches.iter().map(f).collect::<Vec<f64>>();
        let times = column(|r| r.time);
        let nedges = column(|r| r.nedge as f64);
        let validate_times: Option<Vec<f64>> = m.searches.iter().map(|r| r.validate_time).collect();
        let at_least_one = "a run has at least one search";
        RunStatistics {
            generator,
            scale,
            edgefactor: m.num_edges as f64 / m.num_vertices as f64,
            nbfs: m.searches.len(),
            graph_generation: m.graph_generation,
            construction_time: m.construction_time,
            time: Summary::of(&times).expect(at_least_one),
            nedge: Summary::of(&nedges).expect(at_least_one),
            teps: TepsSummary::of(&times, &nedges).expect(at_least_one),
            validate: validate_times.as_deref().and_then(Summary::of),
        }
    }

    /// The Graph500 statistics block: one `label: value` per line, labels as
    /// the reference code prints them (value column 33), values in C's `%g`
    /// (`%.11g` for nedge). Without validation the `*_validate` values are -1.
    /// A first line, `generator:`, names where the graph came from (not a
    /// reference label: parsers that look labels up skip it).
    pub(crate) fn block(&self) -> String {
        let g = |x: f64| format_g(x, 6);
        let mut lines = vec![
            ("generator".to_string(), self.generator.to_string()),
            ("SCALE".to_string(), self.scale.to_string()),
            ("edgefactor".to_string(), g(self.edgefactor)),
            ("NBFS".to_string(), self.nbfs.to_string()),
            ("graph_generation".to_string(), g(self.graph_generation)),
            ("num_mpi_processes".to_string(), "1".to_string()),
            ("construction_time".to_string(), g(self.construction_time)),
        ];
        lines.extend(summary_lines("bfs  ", "time", Some(&self.time), g));
        lines.extend(summary_lines("", "nedge", Some(&self.nedge), |x| {
            format_g(x, 11)
        }));
        let t = &self.teps;
        lines.extend(
            [
                ("min", t.min),
                ("firstquartile", t.first_quartile),
                ("median", t.median),
                ("thirdquartile", t.third_quartile),
                ("max", t.max),
                ("harmonic_mean", t.harmonic_mean),
                ("harmonic_stddev", t.harmonic_stddev),
            ]
            .map(|(name, x)| (format!("bfs  {name}_TEPS"), g(x))),
        );
        lines.extend(summary_lines(
            "bfs  ",
            "validate",
            self.validate.as_ref(),
            g,
        ));
        lines
            .iter()
            .map(|(label, value)| format!("{:<32}{value}\n", format!("{label}:")))
            .collect()
    }
}

/// The seven lines of a [`Summary`], `{prefix}{statistic}_{what}`; every
/// value -1 when there is no summary.
fn summary_lines(
    prefix: &str,
    what: &str,
    summary: Option<&Summary>,
    format: impl Fn(f64) -> String,
) -> Vec<(String, String)> {
    let values = summary.map_or([-1.0; 7], |s| {
        [
            s.min,
            s.first_quartile,
            s.median,
            s.third_quartile,
            s.max,
            s.mean,
            s.stddev,
        ]
    });
    [
        "min",
        "firstquartile",
        "median",
        "thirdquartile",
        "max",
        "mean",
        "stddev",
    ]
    .iter()
    .zip(values)
    .map(|(name, x)| (format!("{prefix}{name}_{what}"), format(x)))
    .collect()
}

/// The JSON report of a valid run.
#[derive(serde::Serialize)]
pub(crate) struct JsonReport<'a> {
    /// `graph500`.
    pub(crate) program: &'static str,
    /// This build's version.
    pub(crate) version: &'static str,
    /// The options the run used.
    pub(crate) options: JsonOptions,
    /// What the graph was.
    pub(crate) graph: JsonGraph,
    /// The statistics block's figures.
    pub(crate) statistics: &'a RunStatistics,
    /// One row per search, in key order.
    pub(crate) searches: &'a [SearchRecord],
    /// The process's peak resident memory in bytes, from the OS, at the end
    /// of the run (`null` where the OS does not tell).
    pub(crate) peak_memory_bytes: Option<u64>,
}

/// The options of a run, as used.
#[derive(serde::Serialize)]
pub(crate) struct JsonOptions {
    /// `--scale` (generated graphs only).
    pub(crate) scale: Option<u32>,
    /// `--edgefactor` (generated graphs only).
    pub(crate) edgefactor: Option<u64>,
    /// The seed of the graph and keys (`null` for the reference generator,
    /// whose seeds are fixed).
    pub(crate) seed: Option<u64>,
    /// `--input` (file graphs only).
    pub(crate) input: Option<String>,
    /// `--keys`.
    pub(crate) keys: usize,
    /// `--kernel`.
    pub(crate) kernel: &'static str,
    /// `--backend` of a parallel kernel.
    pub(crate) backend: Option<&'static str>,
    /// Worker threads.
    pub(crate) threads: usize,
    /// False with `--no-validate`.
    pub(crate) validate: bool,
}

/// The graph of a run.
#[derive(serde::Serialize)]
pub(crate) struct JsonGraph {
    /// `kronecker` or `file`.
    pub(crate) source: &'static str,
    /// The generator, for generated graphs.
    pub(crate) generator: Option<&'static str>,
    /// `N`.
    pub(crate) num_vertices: usize,
    /// `M`.
    pub(crate) num_edges: usize,
    /// [`generator::EdgeList::checksum`], as `0x` and 16 hex digits.
    pub(crate) checksum: String,
}

/// Writes `value` as pretty JSON to `path`, atomically (a temporary file
/// renamed into place).
pub(crate) fn write_json(
    path: &std::path::Path,
    value: &impl serde::Serialize,
) -> anyhow::Result<()> {
    crate::output::write(path, |out| {
        serde_json::to_writer_pretty(&mut *out, value)?;
        std::io::Write::write_all(out, b"\n")
    })?;
    Ok(())
}

/// The columns of `--csv`, in order.
pub(crate) const CSV_HEADER: &str =
    "search,root,time,reset_time,nedge,teps,validate_time,depth,reached";

/// Writes one CSV row per search, atomically. Times are seconds; an empty
/// `validate_time` means not validated.
pub(crate) fn write_csv(path: &std::path::Path, searches: &[SearchRecord]) -> anyhow::Result<()> {
    crate::output::write(path, |out| {
        writeln!(out, "{CSV_HEADER}")?;
        for (i, r) in searches.iter().enumerate() {
            let validate = r.validate_time.map_or(String::new(), |t| t.to_string());
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{}",
                i + 1,
                r.root,
                r.time,
                r.reset_time,
                r.nedge,
                r.teps,
                validate,
                r.depth,
                r.reached
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

/// `SCALE` of a graph read from a file: `ceil(log2 N)`.
pub(crate) fn scale_of(num_vertices: usize) -> u32 {
    match num_vertices {
        0 | 1 => 0,
        n => usize::BITS - (n - 1).leading_zeros(),
    }
}

/// `x` as C's `printf("%.{precision}g", x)` prints it: `precision`
/// significant digits, fixed notation when the decimal exponent is in
/// `-4..precision`, scientific otherwise, trailing zeros removed.
pub(crate) fn format_g(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
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
    }

    #[test]
    fn scale_of_rounds_up() {
        assert_eq!(scale_of(1), 0);
        assert_eq!(scale_of(2), 1);
        assert_eq!(scale_of(3), 2);
        assert_eq!(scale_of(1 << 20), 20);
        assert_eq!(scale_of((1 << 20) + 1), 21);
    }
}
