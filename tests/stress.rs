//! Stress: many short benchmark runs at small scales with random thread
//! counts, kernels, backends, switching parameters, edge factors and seeds,
//! every search of every run validated. Ignored by default; run with
//!
//! ```sh
//! cargo test --release --test stress -- --ignored
//! ```
//!
//! `STRESS_RUNS` (default 200) sets the number of runs and `STRESS_SEED`
//! the sequence (default: the clock, printed, so a failure can be replayed).

#![allow(clippy::print_stdout)] // the seed, so a failing sequence can be replayed

use std::process::Command;

/// xorshift64*: a small, seedable sequence for choosing the runs.
struct Choices(u64);

impl Choices {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }
}

#[test]
#[ignore = "stress test: cargo test --release --test stress -- --ignored"]
fn many_short_runs_on_random_settings_all_validate() {
    let runs: u64 = std::env::var("STRESS_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let seed: u64 = std::env::var("STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap();
            now.as_secs() ^ u64::from(now.subsec_nanos())
        });
    println!("STRESS_SEED={seed}");
    let mut choose = Choices(seed | 1);
    for run in 0..runs {
        let mut args: Vec<String> = ["--quiet", "--scale"].map(String::from).to_vec();
        args.push(choose.pick(6, 14).to_string());
        args.extend(["--edgefactor".into(), choose.pick(4, 32).to_string()]);
        args.extend(["--keys".into(), choose.pick(1, 8).to_string()]);
        args.extend(["--seed".into(), choose.next().to_string()]);
        args.extend(["--threads".into(), choose.pick(1, 8).to_string()]);
        match choose.pick(0, 2) {
            0 => args.extend(["--kernel".into(), "seq".into()]),
            1 => args.extend(["--kernel".into(), "par".into()]),
            _ => {
                args.extend(["--kernel".into(), "dobfs".into()]);
                args.extend(["--alpha".into(), choose.pick(1, 100).to_string()]);
                args.extend(["--beta".into(), choose.pick(1, 100).to_string()]);
            }
        }
        let backend = if choose.pick(0, 1) == 0 {
            "rayon"
        } else {
            "pipes"
        };
        args.extend(["--backend".into(), backend.into()]);
        if choose.pick(0, 3) == 0 {
            args.push("--sssp".into());
        }
        let output = Command::new(env!("CARGO_BIN_EXE_graph500"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "run {run} failed: graph500 {}\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("bfs  harmonic_mean_TEPS:"),
            "run {run}: no statistics"
        );
    }
}
