//! The command line's pieces: clap's view of the options ([`args`]), one
//! function per subcommand ([`commands`], [`plot`], [`profile`],
//! [`sweep`]), progress on stderr ([`progress`]) and Ctrl-C
//! ([`interrupt`]).

pub(crate) mod args;
pub(crate) mod commands;
pub(crate) mod interrupt;
pub(crate) mod plot;
pub(crate) mod profile;
pub(crate) mod progress;
pub(crate) mod sweep;
