//! How much memory a process has held: its resident set's high-water mark, which the kernel
//! keeps for every process (`VmHWM` in `/proc/<pid>/status`). A match reads it from each engine
//! at the end of a game, so that a soak shows whether an engine's memory stays flat from the
//! first game to the last. Elsewhere than on Linux there is no such file, and nothing is read.

/// The most resident memory process `pid` has held, in KiB; `None` where it cannot be read
/// (the process is gone, or the system has no `/proc`).
pub fn peak_resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    high_water_mark(&status)
}

/// The `VmHWM:   1234 kB` line of a `/proc/<pid>/status` text, in KiB.
fn high_water_mark(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut words = line["VmHWM:".len()..].split_whitespace();
    let kib = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(kib)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark_of_a_status_text() {
        let status = "Name:\tothello-engine\nVmPeak:\t  90000 kB\nVmHWM:\t   81234 kB\nVmRSS:\t   80000 kB\n";
        assert_eq!(high_water_mark(status), Some(81_234));
        assert_eq!(high_water_mark("VmRSS:\t 10 kB\n"), None);
        assert_eq!(high_water_mark("VmHWM:\t ten kB\n"), None);
        assert_eq!(high_water_mark("VmHWM:\t 10 MB\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_held_some_memory() {
        let kib = peak_resident_kib(std::process::id());
        assert!(kib.is_some_and(|k| k > 100), "{kib:?}");
        assert_eq!(peak_resident_kib(u32::MAX), None);
    }
}
