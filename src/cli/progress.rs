//! Progress of a long command-line job on stderr: a bar with an ETA on a terminal, else a
//! line every twentieth of the work (logs and CI keep a readable record).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

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
    /// Progress of `job` (the command's name) through `total` `what`s.
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
        let step = (self.total / 20).max(1);
        if done >= self.next_log + step || done >= self.total {
            self.next_log = done;
            let secs = self.start.elapsed().as_secs_f64();
            let rate = (done.saturating_sub(self.started_at)) as f64 / secs.max(1e-9);
            let eta = self.total.saturating_sub(done) as f64 / rate.max(1e-9);
            let note = if note.is_empty() {
                String::new()
            } else {
                format!(", {note}")
            };
            eprintln!(
                "{}: {done}/{} {}{note}, {rate:.2}/s, ETA {eta:.0} s",
                self.job, self.total, self.what
            );
        }
    }

    /// Clears the bar (the job's summary line follows).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
