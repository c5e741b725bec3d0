//! SIGINT and SIGTERM during a long job (a match, `datagen`, `book build`, `mpc calibrate`,
//! `openings build`): the handler only records the signal and raises a stop flag, which the job
//! polls between units of work, so that finished work is kept and the job can resume; a second
//! signal ends the process at once, for a stop that hangs. Also SIGPIPE for the commands that
//! print reports ([`end_quietly_on_closed_output`]).

use signal_hook::consts::{SIGINT, SIGTERM};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The signal caught first, 0 for none.
static CAUGHT: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: a second one ends the process at once.
static ARMED: AtomicBool = AtomicBool::new(false);

/// Catches SIGINT and SIGTERM from now on: the first is recorded for [`caught`] and raises the
/// returned flag; a second exits at once with status 128 + the signal, for a stop that hangs.
pub fn catch() -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // The shutdown must be registered first: handlers run in registration order.
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, &ARMED)?;
        signal_hook::flag::register(signal, &ARMED)?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
        signal_hook::flag::register_usize(signal, &CAUGHT, signal as usize)?;
    }
    Ok(stop)
}

/// The signal that asked the job to stop, if one came.
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        signal => i32::try_from(signal).ok(),
    }
}

/// The usual name of a signal number, for messages.
pub fn name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

/// Ends the process after `signal`, with the shell's status for it (128 + the signal), once
/// standard output is flushed.
pub fn exit_after(signal: i32) -> ! {
    let _ = std::io::stdout().flush();
    std::process::exit(128 + signal)
}

/// When a signal stopped the job: says so on stderr (`JOB: stopped by SIGINT; WHAT`, where
/// `what` says where the finished work is and how to resume) and exits with status 128 + the
/// signal. Otherwise returns.
pub fn exit_if_caught(job: &str, what: &str) {
    if let Some(signal) = caught() {
        eprintln!("{job}: stopped by {}; {what}", name(signal));
        exit_after(signal);
    }
}

/// From now on a write to a closed standard output ends the process quietly, as other Unix
/// tools do (`othello-engine solve ... | head`), instead of the panic of Rust's `println!`.
///
/// Only for commands whose output is a report: the runtime ignores SIGPIPE so that a process
/// writing to a pipe sees an error instead, and `match` and the protocol servers rely on that
/// (an engine that dies must not end the tournament).
pub fn end_quietly_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: `signal` is unsafe because a handler it installs may run anywhere; here it
    // installs none (`SIG_DFL` restores the default action of one signal), and no handler
    // of ours or of signal-hook is registered for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Windows has no SIGPIPE: a write to a closed pipe is an error there, as with it ignored.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_have_their_usual_names() {
        assert_eq!(name(SIGINT), "SIGINT");
        assert_eq!(name(SIGTERM), "SIGTERM");
        assert_eq!(name(1), "signal 1");
    }
}
