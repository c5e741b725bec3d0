//! SIGINT and SIGTERM during a match: the handler only records the signal, and the runner and
//! the engine clients poll for it, so that a match stops cleanly (games under way abandoned,
//! finished ones kept, engines stopped) instead of dying with its files half written.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The signal caught, 0 for none.
static CAUGHT: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: a second one ends the process at once.
static ARMED: AtomicBool = AtomicBool::new(false);

/// Catches SIGINT and SIGTERM from now on: the first is recorded for [`caught`]; a second
/// exits at once with status 128 + the signal, for a stop that hangs.
pub fn install() -> std::io::Result<()> {
    for signal in [SIGINT, SIGTERM] {
        // The shutdown must be registered first: handlers run in registration order.
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, &ARMED)?;
        signal_hook::flag::register(signal, &ARMED)?;
        signal_hook::flag::register_usize(signal, &CAUGHT, signal as usize)?;
    }
    Ok(())
}

/// The signal that asked the match to stop, if one came.
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
