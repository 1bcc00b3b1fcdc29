//! The `graph500` command end to end, one module per subcommand, sharing
//! [`support`]: the benchmark at small scales, each subcommand, and bad
//! input (exit 2 and exactly one line on stderr).

#![allow(clippy::cast_possible_truncation)] // ids of small test graphs

mod args;
mod failures;
mod formats;
mod memory;
mod pairs;
mod plot;
mod profile;
mod run;
mod search;
mod sssp;
mod support;
mod sweep;
