//! The search thread and the event queue the sessions read from.
//!
//! The [`Searcher`] moves into a search thread for each job and comes back with the
//! [`Event::SearchFinished`] event, so no lock is held while thinking and a stop flag is the
//! only thing shared with a running search.
//!
//! The worker runs jobs; what a job is (a request's search, its limits, its lines) is the
//! play controller's business ([`super::play`]).
//!
//! **Pondering.** The play controller hands the worker the plan of a ponder for after the
//! engine's move ([`Worker::ponder_after`], [`Worker::ponder_after_search`]); it starts once
//! the searcher is free and no input waits, so it never comes between a command and its
//! reply. Anything that needs the searcher
//! (a search, a wait for one, `quit`) stops it first, and so does a new position that is
//! neither the ponder's root nor one move from it ([`Worker::position_changed`]); a ponder
//! prints nothing, and it stops within a poll of the search (well under a millisecond of
//! nodes), so no reply waits on it.

use crate::board::{Move, Position};
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

/// What a ponder needs from the engine's move: its [`PonderJob`], made from the report of
/// the search that chose the move and the ponder's stop flag; `None` when there is nothing to
/// ponder (the game is over).
pub type PonderPlan = Box<dyn FnOnce(&SearchReport, Arc<AtomicBool>) -> Option<PonderJob> + Send>;

/// A ponder: its root (the position after the engine's move), the position after the reply
/// it expects (searched first), and its job.
pub struct PonderJob {
    /// The position after the engine's move, the opponent to move.
    pub root: Position,
    /// The position after the expected reply, if the ponder expects one.
    pub expected: Option<Position>,
    /// The search.
    pub job: SearchJob,
}

/// The running ponder: its root and the position it expects.
struct PonderState {
    root: Position,
    expected: Option<Position>,
}

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
    /// The ponder to start when the session goes idle, with its stop flag.
    next_ponder: Option<(PonderJob, Arc<AtomicBool>)>,
    /// The running ponder, when the running job is one.
    pondering: Option<PonderState>,
    /// The threads of the searcher, given again to a fresh one after a panic.
    threads: usize,
    /// Whether the engine ponders after its moves (`--ponder`), and the plan of the ponder
    /// after the running search, if it is the engine's move.
    ponder: bool,
    after_search: Option<PonderPlan>,
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
            threads: searcher.threads(),
            next_ponder: None,
            pondering: None,
            ponder: false,
            after_search: None,
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
            self.start_pending_ponder();
            match self.events.recv() {
                Ok(Event::Line(line)) => return Some(line),
                Ok(Event::EndOfInput) | Err(_) => self.input_ended = true,
                Ok(Event::SearchFinished(searcher, report)) => self.finished(searcher, report),
            }
        }
        None
    }

    /// Whether a search is running (a ponder does not count).
    pub fn is_searching(&self) -> bool {
        self.running_stop.is_some() && self.pondering.is_none()
    }

    /// Whether the running job is a ponder.
    pub fn is_pondering(&self) -> bool {
        self.pondering.is_some()
    }

    /// Turns pondering on or off (off stops a running ponder).
    pub fn set_ponder(&mut self, on: bool) {
        self.ponder = on;
        if !on {
            self.next_ponder = None;
            self.after_search = None;
            self.stop_pondering();
        }
    }

    /// Whether the engine ponders.
    pub fn ponders(&self) -> bool {
        self.ponder
    }

    /// When pondering is on, ponders as `plan` says once the running search (the engine's
    /// move) has finished with a report, the searcher is free and no input waits.
    pub fn ponder_after_search(&mut self, plan: PonderPlan) {
        if self.ponder && self.is_searching() {
            self.after_search = Some(plan);
        }
    }

    /// When pondering is on, ponders as `plan` says after the finished search of `report`
    /// (the engine's move), once no input waits.
    pub fn ponder_after(&mut self, report: &SearchReport, plan: PonderPlan) {
        if !self.ponder {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        self.next_ponder = plan(report, stop.clone()).map(|ponder| (ponder, stop));
    }

    /// Tells the worker the session's position is now `position`: a ponder (running or
    /// waiting) whose root is neither this position nor one move before it is stopped or
    /// dropped, since its work no longer leads anywhere.
    pub fn position_changed(&mut self, position: &Position) {
        let related = |root: &Position| {
            root == position
                || root.must_pass() && root.pass() == *position
                || root
                    .legal_squares()
                    .into_iter()
                    .any(|sq| root.play(Move::Play(sq)).is_ok_and(|c| c == *position))
        };
        if self
            .next_ponder
            .as_ref()
            .is_some_and(|(ponder, _)| !related(&ponder.root))
        {
            self.next_ponder = None;
        }
        if let Some(ponder) = &self.pondering {
            if !related(&ponder.root) {
                self.raise_stop();
            } else if ponder.root != *position {
                // The opponent's reply came while pondering: said in the log, so that how
                // often the ponder guessed right can be counted.
                let hit = ponder.expected.as_ref() == Some(position);
                log::debug!("ponder {}", if hit { "hit" } else { "miss" });
            }
        }
    }

    /// Starts the waiting ponder if the searcher is free.
    fn start_pending_ponder(&mut self) {
        if self.running_stop.is_some() || self.searcher.is_none() {
            return;
        }
        if let Some((ponder, stop)) = self.next_ponder.take() {
            self.start_job(stop, ponder.job);
            self.pondering = Some(PonderState {
                root: ponder.root,
                expected: ponder.expected,
            });
        }
    }

    /// Stops a running ponder, without waiting for it.
    fn stop_pondering(&self) {
        if self.pondering.is_some() {
            self.raise_stop();
        }
    }

    /// Starts `job` on a search thread, after any running search has finished (a ponder is
    /// stopped); `stop` is the flag the job's limits watch.
    pub fn start(&mut self, stop: Arc<AtomicBool>, job: SearchJob) {
        self.next_ponder = None;
        self.after_search = None;
        let pondering = self.is_pondering();
        let waited = std::time::Instant::now();
        self.wait();
        if pondering {
            // The stop of a ponder counts against the move that ends it.
            log::debug!("ponder stopped in {:.3} s", waited.elapsed().as_secs_f64());
        }
        self.start_job(stop, job);
    }

    fn start_job(&mut self, stop: Arc<AtomicBool>, job: SearchJob) {
        let Some(mut searcher) = self.searcher.take() else {
            log::error!("no searcher to start a search with");
            return;
        };
        let sender = self.sender.clone();
        let (hash_mib, threads) = (self.hash_mib, self.threads);
        self.running_stop = Some(stop);
        std::thread::spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| job(&mut searcher)));
            let (searcher, report) = match outcome {
                Ok(report) => (searcher, report),
                Err(_) => {
                    // The searcher may be inconsistent after a panic; a fresh one keeps the
                    // session alive, and the session always gets its answer.
                    log::error!("the search panicked");
                    let mut fresh = Searcher::new(hash_mib, None);
                    fresh.set_threads(threads);
                    (Box::new(fresh), None)
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
        self.stop_pondering();
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
        self.next_ponder = None;
        self.after_search = None;
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
        self.threads = searcher.threads();
        self.searcher = Some(searcher);
        self.running_stop = None;
        if self.pondering.take().is_some() {
            return;
        }
        if let (Some(plan), Some(report)) = (self.after_search.take(), &report) {
            self.ponder_after(report, plan);
        }
        self.last_report = report;
    }
}
