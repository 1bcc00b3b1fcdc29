//! Decides whether the AVX-512 tests of the validator run: sets the cfg
//! `avx512_tests` when the build host has AVX-512F (the tests then run,
//! and still assert at run time that the processor has it, so a test
//! binary moved to another machine fails rather than passing having
//! checked nothing), or when `GRAPH500_REQUIRE_AVX512=1` (they then run
//! and fail on a processor without it). Without the cfg they are ignored,
//! with their reason, so a run says what it skipped.
//!
//! The host is the machine the tests run on unless the build
//! cross-compiles; for another target the host's processor says nothing,
//! and only the variable sets the cfg.

#![allow(
    clippy::print_stdout,
    reason = "a build script speaks to Cargo on stdout"
)]

fn main() {
    println!("cargo::rustc-check-cfg=cfg(avx512_tests)");
    println!("cargo::rerun-if-env-changed=GRAPH500_REQUIRE_AVX512");
    println!("cargo::rerun-if-changed=build.rs");
    let required = std::env::var_os("GRAPH500_REQUIRE_AVX512").is_some_and(|v| v == "1");
    if required || host_runs_avx512_target() {
        println!("cargo::rustc-cfg=avx512_tests");
    }
}

/// True when the target is this x86-64 host and its processor has
/// AVX-512F.
fn host_runs_avx512_target() -> bool {
    let native = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    native && host_has_avx512f()
}

#[cfg(target_arch = "x86_64")]
fn host_has_avx512f() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_avx512f() -> bool {
    false
}
