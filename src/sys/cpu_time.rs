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

    /// The processor time of the calling thread alone, from the system's thread clock.
    fn this_threads_seconds() -> f64 {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes one `timespec`, which `t` is.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        assert_eq!(rc, 0, "the thread clock is not readable");
        t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
    }

    // The test harness runs other tests in this process at the same time, so what the process
    // clock may read over a stretch has no upper bound here; what must hold whatever they do
    // is that it counts at least the work of this thread (the whole process's time includes
    // it), and never runs backwards.
    #[test]
    fn counts_at_least_the_work_of_this_thread() {
        let clock = CoreClock::start();
        let thread_before = this_threads_seconds();
        let mut x = 1u64;
        for _ in 0..30_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = this_threads_seconds() - thread_before;
        let counted = clock.seconds();
        assert!(worked > 0.0, "the loop took no processor time");
        // getrusage rounds to microseconds.
        assert!(
            counted >= worked - 1e-5,
            "this thread worked {worked} s and the process clock counted {counted} s"
        );
        let later = clock.seconds();
        assert!(
            later >= counted,
            "the clock ran backwards: {counted} s, then {later} s"
        );
    }

    /// Set in the child process [`a_sleep_costs_next_to_nothing`] starts.
    const ALONE: &str = "OTHELLO_ENGINE_CPU_TIME_TEST_ALONE";

    // A sleep's cost can only be read where nothing else runs: in this test binary started
    // again with this one test, on one test thread.
    #[test]
    fn a_sleep_costs_next_to_nothing() {
        if std::env::var_os(ALONE).is_some() {
            let clock = CoreClock::start();
            std::thread::sleep(std::time::Duration::from_millis(300));
            let slept = clock.seconds();
            assert!(
                slept < 0.1,
                "a 0.3 s sleep cost {slept} s of processor time"
            );
            return;
        }
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "sys::cpu_time::tests::a_sleep_costs_next_to_nothing",
                "--test-threads=1",
            ])
            .env(ALONE, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "the test alone failed:\n{stdout}");
        assert!(
            stdout.contains("1 passed"),
            "the test did not run alone:\n{stdout}"
        );
    }

    #[test]
    fn without_a_processor_clock_the_wall_clock_counts() {
        let clock = CoreClock {
            cpu: None,
            wall: std::time::Instant::now(),
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        // A sleep lasts at least what it was asked for.
        assert!(clock.seconds() >= 0.02);
    }
}
