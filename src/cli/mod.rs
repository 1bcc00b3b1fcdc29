//! The command line's pieces: clap's view of the options ([`args`]), one
//! function per subcommand ([`commands`], [`plot`], [`profile`],
//! [`sweep`]), progress on stderr ([`progress`]), stdout and stderr that
//! never panic ([`console`]), output files written whole or through
//! ([`output`]), signals ([`interrupt`]), out-of-memory exits
//! ([`alloc`]) and runs under `mpirun` ([`ranks`]).

pub(crate) mod alloc;
pub(crate) mod args;
pub(crate) mod commands;
pub(crate) mod console;
pub(crate) mod interrupt;
pub(crate) mod mapped;
pub(crate) mod output;
pub(crate) mod plot;
pub(crate) mod profile;
pub(crate) mod progress;
pub(crate) mod ranks;
pub(crate) mod sweep;
