//! SIGINT and SIGTERM during a long command-line job (`datagen`, `mpc calibrate`): the first
//! raises a stop flag the job polls between units of work, so that finished work is kept and
//! the job can resume; a second ends the process at once, for a stop that hangs. Also SIGPIPE
//! for the commands that print tables ([`end_quietly_on_closed_output`]).

use super::args::{CliError, error};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Caught SIGINT and SIGTERM: the number of the first, 0 for none.
static CAUGHT: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: a second one ends the process at once.
static ARMED: AtomicBool = AtomicBool::new(false);

/// From now on SIGINT and SIGTERM raise the returned flag (and are recorded); a second one
/// exits at once with status 128 + the signal.
pub fn catch_signals() -> Result<Arc<AtomicBool>, CliError> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    let register = |signal: i32| -> std::io::Result<()> {
        // The shutdown first: handlers run in registration order.
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, &ARMED)?;
        signal_hook::flag::register(signal, &ARMED)?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
        signal_hook::flag::register_usize(signal, &CAUGHT, signal as usize)?;
        Ok(())
    };
    register(SIGINT)
        .and_then(|()| register(SIGTERM))
        .map_err(|e| error(format!("cannot catch signals: {e}")))?;
    Ok(stop)
}

/// When a signal stopped the job: says so on stderr with `what` (where the finished work is
/// and how to resume) and exits with status 128 + the signal. Otherwise returns.
pub fn exit_if_caught(job: &str, what: &str) {
    let signal = CAUGHT.load(Ordering::SeqCst) as i32;
    if signal == 0 {
        return;
    }
    let name = match signal {
        signal_hook::consts::SIGINT => "SIGINT".to_string(),
        signal_hook::consts::SIGTERM => "SIGTERM".to_string(),
        other => format!("signal {other}"),
    };
    eprintln!("{job}: stopped by {name}; {what}");
    std::process::exit(128 + signal)
}

/// From now on a write to a closed standard output ends the process quietly, as other Unix
/// tools do (`othello-engine solve ... | head`), instead of the panic of Rust's `println!`.
///
/// Only for commands whose output is a report: the runtime ignores SIGPIPE so that a process
/// writing to a pipe sees an error instead, and `match` and the protocol servers rely on that
/// (an engine that dies must not end the tournament).
pub fn end_quietly_on_closed_output() {
    // SAFETY: restoring the default action of one signal; no handler of ours is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
