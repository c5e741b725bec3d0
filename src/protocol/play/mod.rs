//! The play controller: every search a session asks for, from the request to its answer
//! (the role of Edax's `play.c`, which serves all of Edax's protocols).
//!
//! A session parses a command, calls [`Controller`] with a typed request, and formats what
//! comes back; it never builds a search itself. Each request is the same ceremony, kept
//! here once: make way for it (a running `hint`, `analyze` or `learn` is cancelled, a
//! running `go` is waited for, a ponder is stopped; between GTP commands only a ponder
//! runs), a fresh stop flag, limits from the mover's clock (taken after any wait for an
//! earlier `go`, which must not eat this move's time), the job on the [`Worker`]'s search
//! thread, and after the engine's move the plan of its ponder.
//!
//! **Two ways to answer.** GTP answers a command with one reply, so [`Controller::genmove`]
//! waits for its search and returns the move; it never returns an illegal one (a search that
//! panicked or went wrong gives the first legal move). NBoard's requests run while later
//! commands are read, and their lines come as the search goes: the session hands a
//! [`Listener`] that turns each [`Progress`] into its lines, called on the search thread.
//!
//! **Cancelling.** NBoard's `ping` and a new request cancel a running `hint`, `analyze` or
//! `learn`: it is stopped and prints nothing more. A running `go` owes exactly one `===`, so a
//! new request waits for it; only `ping` cancels it, and then its `===` is not printed. The
//! check is made once for the lines that belong together, so a cancel never splits them.
//!
//! **Pondering.** After the engine's move the ponder is planned from the report of the search
//! that chose it and the engine's clock. NBoard's `go` plans it with its search, from the
//! same budget (NBoard's clock changes only when the move comes back). GTP plans it after
//! charging the move to the engine's clock ([`Controller::ponder_after`]): the ponder's
//! searches then see the time the next `genmove` will have, which is why a GTP move reads
//! its clock twice.

use super::worker::Worker;
use ponder::ponder_plan;

mod ponder;
use crate::board::{Move, Position};
use crate::search::{Levels, Limits, SearchReport, Searcher, TimeBudget, Value, limits_for};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A search for the mover's move: the position, the levels, and the mover's clock (its budget,
/// if a clock runs).
#[derive(Clone, Copy, Debug)]
pub struct Think {
    /// The position to move in.
    pub position: Position,
    /// The search settings.
    pub levels: Levels,
    /// The mover's time, if a clock runs.
    pub budget: Option<TimeBudget>,
}

/// The move [`Controller::genmove`] chose, with the report of its search (none for a forced
/// pass or a search that failed).
#[derive(Clone, Debug)]
pub struct Choice {
    /// A legal move of the position.
    pub mv: Move,
    /// The search that chose it.
    pub report: Option<SearchReport>,
}

/// How a request that answers as it goes has begun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Begun {
    /// Its search runs; its lines come through the listener.
    Searching,
    /// The side to move must pass (or the game is over): the answer is a pass, given now.
    Pass,
    /// There is nothing to answer (a finished game, or a request refused and logged).
    Nothing,
}

/// What a running request has to tell, as it comes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// `go`, `hint`: a finished depth, or the book's move.
    Depth(&'a SearchReport),
    /// `go` is over: its report, and the time since the request.
    Moved(&'a SearchReport, Duration),
    /// `hint`, `analyze` are over: the nodes searched and the time taken.
    Searched(u64, Duration),
    /// `analyze`: the value of the game's position after `moves made` moves.
    Valued(usize, &'a Position, Value),
    /// `learn` is over.
    Learned,
}

/// How a session hears a request's [`Progress`] (on the search thread).
pub type Listener = Box<dyn FnMut(Progress<'_>) + Send>;

/// The play controller: the worker, and the state of the request it runs.
pub struct Controller {
    worker: Worker,
    /// Raised by a cancel, so the running request prints nothing more.
    cancelled: Arc<AtomicBool>,
    /// Whether the running (or last) request is a `hint`, `analyze` or `learn`, which may run
    /// long and owes nothing once a new request comes.
    cancellable: bool,
}

/// A listener with the cancel flag of its request.
struct Voice {
    cancelled: Arc<AtomicBool>,
    listener: Listener,
}

impl Voice {
    /// Whether the request may still print.
    fn live(&self) -> bool {
        !self.cancelled.load(Ordering::SeqCst)
    }

    /// Tells `progress` unless the request was cancelled.
    fn say(&mut self, progress: Progress<'_>) {
        if self.live() {
            (self.listener)(progress);
        }
    }
}

impl Controller {
    /// The controller of `worker`'s searches.
    pub fn new(worker: Worker) -> Controller {
        Controller {
            worker,
            cancelled: Arc::new(AtomicBool::new(false)),
            cancellable: false,
        }
    }

    /// The next input line, or `None` at end of input (see [`Worker::next_line`]).
    pub fn next_line(&mut self) -> Option<String> {
        self.worker.next_line()
    }

    /// Tells the worker the session's position changed (see [`Worker::position_changed`]).
    pub fn position_changed(&mut self, position: &Position) {
        self.worker.position_changed(position);
    }

    /// Turns pondering after the engine's moves on or off.
    pub fn set_ponder(&mut self, on: bool) {
        self.worker.set_ponder(on);
    }

    /// The searcher, once no search is using it.
    pub fn searcher(&mut self) -> Option<&mut Searcher> {
        self.worker.searcher()
    }

    /// Makes way for a new request: a running `hint`, `analyze` or `learn` is cancelled (it
    /// may run long, and a new request makes its lines stale), a running move search is
    /// waited for, since it owes its answer.
    fn make_way(&mut self) {
        if self.cancellable && self.worker.is_searching() {
            self.cancel();
        }
        self.worker.wait();
        self.cancellable = false;
    }

    /// Stops the running request so that it prints nothing more.
    fn cancel(&mut self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.worker.stop();
        self.cancelled = Arc::new(AtomicBool::new(false));
    }

    /// Cancels the running search, if any (NBoard's `ping`). A ponder prints nothing, so it
    /// runs on: NBoard pings after every move, and stopping there would end each ponder.
    pub fn cancel_search(&mut self) {
        if self.worker.is_searching() {
            self.cancel();
        }
    }

    /// Stops the running request (if any) and waits until it has printed all it will print;
    /// it is not cancelled, so it still answers with its best so far.
    pub fn stop(&mut self) {
        self.worker.stop();
    }

    /// Empties the searcher's table, once the running request is done.
    pub fn clear(&mut self) {
        self.make_way();
        if let Some(searcher) = self.worker.searcher() {
            searcher.clear();
        }
    }

    /// Starts `job` with `limits`; the job reads the limits, and the worker holds their flag.
    fn launch<J>(&mut self, limits: Limits, job: J)
    where
        J: FnOnce(&mut Searcher, &Limits) -> Option<SearchReport> + Send + 'static,
    {
        let stop = limits.stop.clone();
        self.worker
            .start(stop, Box::new(move |searcher| job(searcher, &limits)));
    }

    /// Makes way for a request without a deadline that the next request may cancel (an
    /// analysis, learning): its voice and its limits (a stop flag of its own).
    fn begin_unbounded(&mut self, listener: Listener) -> (Voice, Limits) {
        self.make_way();
        self.cancellable = true;
        let limits = Limits {
            stop: fresh_stop(),
            ..Limits::none()
        };
        (self.voice(listener), limits)
    }

    /// A listener bound to the cancel flag of the request about to start.
    fn voice(&self, listener: Listener) -> Voice {
        Voice {
            cancelled: self.cancelled.clone(),
            listener,
        }
    }

    /// GTP's `genmove`: the move for `think`, after waiting for its search. A line for which
    /// `interrupts` holds stops the search (the best move so far stands) and is left queued.
    pub fn genmove(&mut self, think: Think, interrupts: &dyn Fn(&str) -> bool) -> Choice {
        let started = Instant::now();
        let (position, levels, budget) = (think.position, think.levels, think.budget);
        if position.must_pass() {
            return Choice {
                mv: Move::Pass,
                report: None,
            };
        }
        // Nothing but a ponder runs between GTP commands, and starting the job stops it.
        let limits = limits_for(&position, budget, fresh_stop());
        self.launch(limits, move |searcher, limits| {
            Some(searcher.think(&position, &levels, limits, &mut |_| {}))
        });
        match self.worker.wait_interruptible(interrupts) {
            Some(mut report) if position.is_legal(report.best_move) => {
                // The move's time is the wall time of the command, whatever it held (a
                // solve attempt stopped at the deadline, the wait for helper threads).
                report.elapsed = started.elapsed();
                if report.book.is_some() {
                    log::info!(
                        "genmove: {} from the book ({:+.2})",
                        report.best_move,
                        report.value.discs()
                    );
                }
                log::debug!(
                    "genmove: {} at depth {} ({:+.2}), {} nodes in {:.3} s",
                    report.best_move,
                    report.depth,
                    report.value.discs(),
                    report.nodes,
                    report.elapsed.as_secs_f64()
                );
                Choice {
                    mv: report.best_move,
                    report: Some(report),
                }
            }
            _ => {
                // Never answer an illegal move: fall back to the first legal one.
                log::error!("the search gave no legal move; playing the first legal one");
                let mv = position
                    .legal_squares()
                    .first()
                    .map_or(Move::Pass, |&sq| Move::Play(sq));
                Choice { mv, report: None }
            }
        }
    }

    /// After the engine played the move `report` chose in `think`'s position, ponders (when
    /// pondering is on) once no input waits; `think`'s budget is the engine's clock after
    /// the move.
    pub fn ponder_after(&mut self, report: &SearchReport, think: Think) {
        self.worker.ponder_after(report, ponder_plan(think));
    }

    /// NBoard's `go`: searches `think`'s position, telling each depth, then the move; then
    /// ponders (when pondering is on) as if the move were played.
    pub fn go(&mut self, think: Think, listener: Listener) -> Begun {
        self.make_way();
        let (position, levels, budget) = (think.position, think.levels, think.budget);
        if position.legal_moves() == 0 {
            // A forced pass (or a finished game, where no answer is legal).
            return Begun::Pass;
        }
        let started = Instant::now();
        let mut voice = self.voice(listener);
        let limits = limits_for(&position, budget, fresh_stop());
        self.launch(limits, move |searcher, limits| {
            let report = searcher.think(&position, &levels, limits, &mut |r| {
                voice.say(Progress::Depth(r));
            });
            voice.say(Progress::Moved(&report, started.elapsed()));
            Some(report)
        });
        self.worker.ponder_after_search(ponder_plan(think));
        Begun::Searching
    }

    /// NBoard's `hint <count>`: the best `count` moves of `position`, each depth told as it
    /// comes (in the book, every book move, best first), then the nodes.
    pub fn hint(
        &mut self,
        position: Position,
        levels: Levels,
        count: i64,
        listener: Listener,
    ) -> Begun {
        self.make_way();
        if count < 1 {
            log::warn!("hint {count} ignored");
            return Begun::Nothing;
        }
        if position.is_game_over() {
            return Begun::Nothing;
        }
        if position.legal_moves() == 0 {
            return Begun::Pass;
        }
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let mut voice = self.voice(listener);
        self.cancellable = true;
        let limits = limits_for(&position, None, fresh_stop());
        self.launch(limits, move |searcher, limits| {
            let started = Instant::now();
            let mut print = |r: &SearchReport| voice.say(Progress::Depth(r));
            // In the book every move is listed, best first (not one drawn at random).
            let (report, nodes) = if count > 1 || searcher.book_reports(&position).is_some() {
                searcher.top_moves(&position, &levels, limits, count, &mut print)
            } else {
                let r = searcher.think(&position, &levels, limits, &mut print);
                let nodes = r.nodes;
                (Some(r), nodes)
            };
            voice.say(Progress::Searched(nodes, started.elapsed()));
            report
        });
        Begun::Searching
    }

    /// NBoard's Analyze Game: a value for every position of the game, from the last back to
    /// the first (each search then finds the later positions' work in the table), then the
    /// nodes; a book position's value is its best book move's, the same in every run. Cut
    /// short, it tells nothing more.
    pub fn analyze(&mut self, positions: Vec<Position>, levels: Levels, listener: Listener) {
        let (mut voice, limits) = self.begin_unbounded(listener);
        self.launch(limits, move |searcher, limits| {
            let started = Instant::now();
            let mut nodes = 0;
            for (moves_made, position) in positions.iter().enumerate().rev() {
                let report = searcher.value_position(position, &levels, limits);
                nodes += report.nodes;
                if !report.complete || !voice.live() {
                    return None;
                }
                // The check above covers this line; a finished analysis tells its end.
                (voice.listener)(Progress::Valued(moves_made, position, report.value));
            }
            (voice.listener)(Progress::Searched(nodes, started.elapsed()));
            None
        });
    }

    /// NBoard's `learn`: the game goes into the book (see [`Searcher::learn`]), saved to
    /// `book_path` if there is one. Cut short, it keeps what it learned.
    pub fn learn(
        &mut self,
        positions: Vec<Position>,
        book_path: Option<String>,
        listener: Listener,
    ) {
        let (mut voice, limits) = self.begin_unbounded(listener);
        self.launch(limits, move |searcher, limits| {
            let added = searcher.learn(&positions, &limits.stop);
            log::info!("learn: {added} positions added to the book");
            if added > 0
                && let (Some(path), Some(book)) = (&book_path, searcher.book())
                && let Err(e) = book.save(std::path::Path::new(path))
            {
                log::error!("learn: {e}");
            }
            voice.say(Progress::Learned);
            None
        });
    }
}

/// A stop flag not raised yet.
fn fresh_stop() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn think(position: Position) -> Think {
        let levels = Levels::preset(2).unwrap_or_default();
        Think {
            position,
            levels,
            budget: None,
        }
    }

    /// Black (X on a1 and c1) must pass: only White can move (d1).
    fn black_must_pass() -> Position {
        let obf = format!("XOX{} X", "-".repeat(61));
        obf.parse().unwrap_or_else(|_| Position::start())
    }

    /// A listener that writes down each progress, and what it heard so far.
    fn recorder() -> (Listener, impl Fn() -> Vec<String>) {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let keep = heard.clone();
        let listener: Listener = Box::new(move |progress| {
            let note = match progress {
                Progress::Moved(report, _) => format!("moved {}", report.best_move),
                other => format!("{other:?}")
                    .chars()
                    .take_while(|c| c.is_alphabetic())
                    .collect(),
            };
            keep.lock().map(|mut h| h.push(note)).unwrap_or_default();
        });
        (listener, move || {
            heard.lock().map(|h| h.clone()).unwrap_or_default()
        })
    }

    #[test]
    fn requests_answer_as_promised() {
        let (sender, events) = std::sync::mpsc::channel();
        let mut play = Controller::new(Worker::new(Searcher::new(1, None), 1, sender, events));
        let start = Position::start();
        let choice = play.genmove(think(start), &|_| false);
        assert!(start.is_legal(choice.mv) && choice.mv != Move::Pass);
        assert_eq!(choice.report.map(|r| r.best_move), Some(choice.mv));
        let choice = play.genmove(think(black_must_pass()), &|_| false);
        assert_eq!((choice.mv, choice.report.is_none()), (Move::Pass, true));

        // NBoard's: the depths, then the end; a pass at once; a refusal.
        let (listener, heard) = recorder();
        assert_eq!(play.go(think(start), listener), Begun::Searching);
        play.searcher(); // waits for the request to finish
        let notes = heard();
        assert_eq!(
            notes.first().map(String::as_str),
            Some("Depth"),
            "{notes:?}"
        );
        assert!(notes.last().is_some_and(|n| n.starts_with("moved ")));
        let (listener, heard) = recorder();
        assert_eq!(
            play.hint(start, think(start).levels, 2, listener),
            Begun::Searching
        );
        play.searcher();
        assert_eq!(heard().last().map(String::as_str), Some("Searched"));
        let (listener, heard) = recorder();
        assert_eq!(play.go(think(black_must_pass()), listener), Begun::Pass);
        let (listener, _) = recorder();
        assert_eq!(
            play.hint(start, think(start).levels, 0, listener),
            Begun::Nothing
        );
        assert!(heard().is_empty());
    }
}
