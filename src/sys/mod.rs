//! Process support for the faces (`protocol`, `arena`, `cli`): what a long-running command-line
//! program needs from its operating system, with no knowledge of Othello. It imports nothing
//! from the rest of the crate, so that every face may use it.
//!
//! - [`signals`]: SIGINT and SIGTERM caught for a clean stop (a second one ends the process),
//!   the exit status after one, and SIGPIPE for commands that print reports.
//! - [`progress`]: the progress of a long job on stderr: a bar on a terminal, else plain lines.
//! - [`files`]: files replaced atomically, and checked writable beforehand.
//! - [`cpu`]: the CPU the build assumes, checked at start.
//! - [`memory`]: the most memory a process has held (an engine's, after a game).
//! - [`cpu_time`]: the processor time this process has used (what a long job cost).

pub mod cpu;
pub mod cpu_time;
pub mod files;
pub mod memory;
#[cfg(feature = "native")]
pub mod progress;
#[cfg(feature = "native")]
pub mod signals;
