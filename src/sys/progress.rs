//! The progress of a long job on stderr: a bar with an ETA on a terminal, else a plain line
//! every twentieth of the work, so that logs and CI keep a readable record.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// Without a terminal, a line every this fraction of the work.
const LINES: usize = 20;

/// Progress of `total` units of work, `done` of them before this run.
pub struct Progress {
    bar: Option<ProgressBar>,
    job: &'static str,
    what: &'static str,
    total: usize,
    started_at: usize,
    next_log: usize,
    start: Instant,
}

impl Progress {
    /// Progress of `job` (the command's name) through `total` `what`s (a plural noun), `done`
    /// of them finished before this run.
    pub fn new(job: &'static str, what: &'static str, total: usize, done: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            let template = format!("{{bar:30}} {{pos}}/{{len}} {what}, {{msg}} ETA {{eta}}");
            bar.set_style(
                ProgressStyle::with_template(&template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_position(done as u64);
            bar
        });
        Progress {
            bar,
            job,
            what,
            total,
            started_at: done,
            next_log: done,
            start: Instant::now(),
        }
    }

    /// `done` units finished so far; `note` says more (may be empty).
    pub fn show(&mut self, done: usize, note: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(if note.is_empty() {
                String::new()
            } else {
                format!("{note},")
            });
            bar.set_position(done as u64);
            return;
        }
        let step = (self.total / LINES).max(1);
        if done >= self.next_log + step || done >= self.total {
            self.next_log = done;
            let secs = self.start.elapsed().as_secs_f64();
            let rate = (done.saturating_sub(self.started_at)) as f64 / secs.max(1e-9);
            eprintln!("{}", self.line(done, note, rate));
        }
    }

    /// The plain line for `done` units at `rate` units a second.
    fn line(&self, done: usize, note: &str, rate: f64) -> String {
        let eta = self.total.saturating_sub(done) as f64 / rate.max(1e-9);
        let note = if note.is_empty() {
            String::new()
        } else {
            format!(", {note}")
        };
        format!(
            "{}: {done}/{} {}{note}, {rate:.2}/s, ETA {eta:.0} s",
            self.job, self.total, self.what
        )
    }

    /// Runs `write` (which prints a line of the job's results) with the bar out of the way.
    pub fn suspend(&self, write: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    /// Clears the bar (the job's summary line follows).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_says_the_job_the_count_the_rate_and_the_eta() {
        let progress = Progress {
            bar: None,
            job: "datagen",
            what: "games",
            total: 100,
            started_at: 0,
            next_log: 0,
            start: Instant::now(),
        };
        assert_eq!(
            progress.line(40, "1234 positions", 2.0),
            "datagen: 40/100 games, 1234 positions, 2.00/s, ETA 30 s"
        );
        assert_eq!(
            progress.line(100, "", 4.0),
            "datagen: 100/100 games, 4.00/s, ETA 0 s"
        );
    }
}
