//! The harness's error type: why a run could not be made (bad input, too
//! little memory, a stop request). A search that fails validation is not an
//! error but an outcome ([`crate::Outcome::Invalid`]).

/// Why a run, or a step of one, could not be done. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The graph could not be generated or read.
    #[error(transparent)]
    Graph(#[from] generator::Error),
    /// The kernels refused the input (a root, too few search keys).
    #[error("{context}: {cause}")]
    Kernel {
        /// What was being done.
        context: String,
        /// What the kernels said.
        cause: kernels::Error,
    },
    /// The job would need more memory than is available.
    #[error(
        "{what} needs about {} but {} is available{} (--force runs it anyway)",
        gib(*need),
        gib(*available),
        hint.as_ref().map_or(String::new(), |h| format!("; {h}"))
    )]
    Memory {
        /// The job, in words.
        what: String,
        /// Its estimated peak, in bytes.
        need: u64,
        /// What the operating system says is available, in bytes.
        available: u64,
        /// How to make it fit, if anything would.
        hint: Option<String>,
    },
    /// A parameter combination the harness refuses, in words.
    #[error("{0}")]
    Refused(String),
    /// The observer asked the run to stop (Ctrl-C, SIGTERM, SIGHUP).
    #[error("stopped before finishing; no results written")]
    Stopped,
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}
