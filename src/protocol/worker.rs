//! The search thread and the event queue the sessions read from.
//!
//! The [`Searcher`] moves into a search thread for each job and comes back with the
//! [`Event::SearchFinished`] event, so no lock is held while thinking and a stop flag is the
//! only thing shared with a running search.

use crate::search::{SearchReport, Searcher};
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};

/// What the session loop waits for.
pub enum Event {
    /// One input line, without its line end.
    Line(String),
    /// stdin is closed.
    EndOfInput,
    /// A search thread finished and hands the searcher back with its result.
    SearchFinished(Box<Searcher>, Option<SearchReport>),
}

/// A search job: runs on the search thread with the searcher, prints what it prints.
pub type SearchJob = Box<dyn FnOnce(&mut Searcher) -> Option<SearchReport> + Send>;

/// The input queue and the searcher, idle or lent to a running search.
pub struct Worker {
    searcher: Option<Box<Searcher>>,
    hash_mib: usize,
    sender: Sender<Event>,
    events: Receiver<Event>,
    pending: VecDeque<String>,
    input_ended: bool,
    running_stop: Option<Arc<AtomicBool>>,
    last_report: Option<SearchReport>,
}

impl Worker {
    /// An idle worker reading `events`; `sender` is how search threads report back.
    pub fn new(
        searcher: Searcher,
        hash_mib: usize,
        sender: Sender<Event>,
        events: Receiver<Event>,
    ) -> Worker {
        Worker {
            searcher: Some(Box::new(searcher)),
            hash_mib,
            sender,
            events,
            pending: VecDeque::new(),
            input_ended: false,
            running_stop: None,
            last_report: None,
        }
    }

    /// The first non-blank line, left in the queue for the session to process.
    pub fn peek_first_command(&mut self) -> Option<String> {
        loop {
            let line = self.next_line()?;
            if !line.trim().is_empty() {
                self.pending.push_front(line.clone());
                return Some(line);
            }
        }
    }

    /// The next input line, or `None` at end of input. A search may still be running.
    pub fn next_line(&mut self) -> Option<String> {
        if let Some(line) = self.pending.pop_front() {
            return Some(line);
        }
        while !self.input_ended {
            match self.events.recv() {
                Ok(Event::Line(line)) => return Some(line),
                Ok(Event::EndOfInput) | Err(_) => self.input_ended = true,
                Ok(Event::SearchFinished(searcher, report)) => self.finished(searcher, report),
            }
        }
        None
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.running_stop.is_some()
    }

    /// Starts `job` on a search thread, after any running search has finished; `stop` is the
    /// flag the job's limits watch.
    pub fn start(&mut self, stop: Arc<AtomicBool>, job: SearchJob) {
        self.wait();
        let Some(mut searcher) = self.searcher.take() else {
            log::error!("no searcher to start a search with");
            return;
        };
        let sender = self.sender.clone();
        let hash_mib = self.hash_mib;
        self.running_stop = Some(stop);
        std::thread::spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| job(&mut searcher)));
            let (searcher, report) = match outcome {
                Ok(report) => (searcher, report),
                Err(_) => {
                    // The searcher may be inconsistent after a panic; a fresh one keeps the
                    // session alive, and the session always gets its answer.
                    log::error!("the search panicked");
                    (Box::new(Searcher::new(hash_mib, None)), None)
                }
            };
            let _ = sender.send(Event::SearchFinished(searcher, report));
        });
    }

    /// Waits for the running search (if any) to finish and returns its final report. Lines
    /// arriving meanwhile are queued; at end of input the search is stopped, since nobody is
    /// left to read its answer.
    pub fn wait(&mut self) -> Option<SearchReport> {
        self.wait_interruptible(&|_| false)
    }

    /// Like [`Worker::wait`], but a line for which `interrupts` is true stops the search (it
    /// is still queued, to be processed in turn).
    pub fn wait_interruptible(
        &mut self,
        interrupts: &dyn Fn(&str) -> bool,
    ) -> Option<SearchReport> {
        if self.pending.iter().any(|line| interrupts(line)) {
            self.raise_stop();
        }
        while self.running_stop.is_some() {
            match self.events.recv() {
                Ok(Event::Line(line)) => {
                    if interrupts(&line) {
                        self.raise_stop();
                    }
                    self.pending.push_back(line);
                }
                Ok(Event::EndOfInput) | Err(_) => {
                    self.input_ended = true;
                    self.raise_stop();
                }
                Ok(Event::SearchFinished(searcher, report)) => self.finished(searcher, report),
            }
        }
        self.last_report.take()
    }

    /// Stops the running search (if any) and waits until it has printed all it will print.
    pub fn stop(&mut self) -> Option<SearchReport> {
        self.raise_stop();
        self.wait()
    }

    /// The searcher, once no search is using it.
    pub fn searcher(&mut self) -> Option<&mut Searcher> {
        self.wait();
        self.searcher.as_deref_mut()
    }

    fn raise_stop(&self) {
        if let Some(stop) = &self.running_stop {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn finished(&mut self, searcher: Box<Searcher>, report: Option<SearchReport>) {
        self.searcher = Some(searcher);
        self.last_report = report;
        self.running_stop = None;
    }
}
