//! The processor time this process has used: user and system time of all its threads. A long
//! job's cost is this, not the wall clock, which also counts the hours it was stopped
//! (SIGSTOP while something else was timed) or shared its core.

/// Seconds of processor time this process has used so far; `None` where the system does not
/// say (not a Unix), and callers fall back to the wall clock.
pub fn process_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` fills the whole `rusage` it is pointed at when it returns 0,
        // and the zeroed value is a valid `rusage` (plain integers) either way.
        let (rc, usage) = unsafe {
            let rc = libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
            (rc, usage.assume_init())
        };
        if rc != 0 {
            return None;
        }
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Time spent since a start, in processor seconds where the system counts them, else in
/// seconds of the wall clock.
#[derive(Clone, Copy, Debug)]
pub struct CoreClock {
    cpu: Option<f64>,
    wall: std::time::Instant,
}

impl CoreClock {
    /// A clock started now.
    pub fn start() -> CoreClock {
        CoreClock {
            cpu: process_seconds(),
            wall: std::time::Instant::now(),
        }
    }

    /// The seconds since [`CoreClock::start`].
    pub fn seconds(&self) -> f64 {
        match (self.cpu, process_seconds()) {
            (Some(then), Some(now)) => (now - then).max(0.0),
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn counts_work_and_not_sleep() {
        let clock = CoreClock::start();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let slept = clock.seconds();
        // A sleep costs the processor next to nothing...
        assert!(slept < 0.15, "a 0.3 s sleep cost {slept} s");
        // ... and work costs what it takes.
        let wall = std::time::Instant::now();
        let mut x = 1u64;
        while wall.elapsed().as_secs_f64() < 0.3 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = clock.seconds() - slept;
        assert!(worked > 0.1, "0.3 s of work counted {worked} s");
    }
}
