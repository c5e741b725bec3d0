//! The NBoard session: the game, the clocks, the levels and the running request, and what
//! each command does.

use super::command::{NBoardCommand, parse_command};
use super::reply::{ENGINE_NAME, analysis_line, nodestats_line, search_line};
use crate::board::Position;
use crate::game::GameRecord;
use crate::game::clock::{GgfClock, nboard_budget};
use crate::game::ggf::{GgfGame, parse_ggf};
use crate::protocol::Output;
use crate::protocol::worker::{Worker, ponder_plan};
use crate::search::{Levels, Limits, SearchReport, limits_for};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// An NBoard session: the game, the clocks, the levels and the running request.
pub struct NBoardSession {
    game: GameRecord,
    clocks: [Option<GgfClock>; 2],
    /// The command line's settings: `set depth` changes only the depths of these.
    base: Levels,
    levels: Levels,
    contempt: i64,
    output: Output,
    /// Raised by `ping` so the running request prints nothing more (its `===` included).
    cancelled: Arc<AtomicBool>,
    /// Whether the running (or last) search answers a `hint` or `analyze`, which may run long
    /// and owe nothing once a new request comes.
    cancellable: bool,
    /// Where `learn` saves the book (none: learned lines last the session).
    book_path: Option<String>,
}

impl NBoardSession {
    /// A session at the start position with the command line's levels.
    pub fn new(levels: Levels, output: Output) -> NBoardSession {
        NBoardSession {
            game: GameRecord::new(Position::start()),
            clocks: [None, None],
            base: levels,
            levels,
            contempt: 0,
            output,
            cancelled: Arc::new(AtomicBool::new(false)),
            cancellable: false,
            book_path: None,
        }
    }

    /// Makes `learn` save the book to `path` after adding a game.
    pub fn set_book_path(&mut self, path: Option<String>) {
        self.book_path = path;
    }

    /// `set myname` with our name, version and depth, as NBoard shows it.
    fn announce_name(&self) {
        self.output.line(&format!(
            "set myname {ENGINE_NAME}-{}-d{}",
            env!("CARGO_PKG_VERSION"),
            self.levels.midgame.depth
        ));
    }

    /// Makes way for a new request: a running `hint` or `analyze` is cancelled (it may run
    /// long, and a new request makes its lines stale), a running `go` is waited for, since it
    /// owes exactly one `===`.
    fn make_way(&mut self, worker: &mut Worker) {
        if self.cancellable && worker.is_searching() {
            self.cancel(worker);
        }
        worker.wait();
        self.cancellable = false;
    }

    /// The position later commands relate to.
    pub fn position(&self) -> Position {
        self.game.current()
    }

    /// Serves lines until `quit` or end of input.
    pub fn run(&mut self, worker: &mut Worker) {
        while let Some(line) = worker.next_line() {
            match parse_command(&line) {
                Some(NBoardCommand::Quit) => break,
                Some(command) => self.execute(command, worker),
                None => log::info!("ignored line: {line}"),
            }
        }
        // Stopped, not cancelled: a request cut short by the end of input still answers
        // with its best so far, which scripts piping a fixed input rely on.
        worker.stop();
    }

    /// Stops the running request so that it prints nothing more.
    fn cancel(&mut self, worker: &mut Worker) {
        self.cancelled.store(true, Ordering::SeqCst);
        worker.stop();
        self.cancelled = Arc::new(AtomicBool::new(false));
    }

    /// Carries out one command.
    pub fn execute(&mut self, command: NBoardCommand, worker: &mut Worker) {
        match command {
            NBoardCommand::NBoard(version) => {
                if version != 2 {
                    log::warn!("NBoard protocol version {version}; speaking version 2");
                }
                self.announce_name();
            }
            NBoardCommand::SetGame(text) => match parse_ggf(&text) {
                Ok(GgfGame { record, clocks }) => {
                    self.game = record;
                    self.clocks = clocks;
                    worker.position_changed(&self.position());
                }
                Err(e) => log::warn!("set game refused, position unchanged: {}", e.0),
            },
            NBoardCommand::Move(item) => {
                if self.game.play(item.mv, item.eval, item.seconds).is_err() {
                    log::warn!("illegal move {} ignored", item.mv);
                }
                worker.position_changed(&self.position());
            }
            NBoardCommand::SetDepth(depth) => {
                match u32::try_from(depth)
                    .ok()
                    .and_then(|d| self.base.with_depth(d))
                {
                    Some(levels) => {
                        let changed = levels.midgame.depth != self.levels.midgame.depth;
                        self.levels = levels;
                        if changed {
                            self.announce_name();
                        }
                    }
                    None => log::warn!("set depth {depth} ignored: expected 1 to 60"),
                }
            }
            NBoardCommand::SetContempt(contempt) => {
                // Kept for the record; the search scores draws as 0 for now.
                self.contempt = contempt;
            }
            NBoardCommand::SetPonder(on) => worker.set_ponder(on),
            NBoardCommand::Ping(n) => {
                // A ponder prints nothing, so `pong` needs no stop of it: NBoard pings after
                // every move, and stopping there would end each ponder at once.
                if worker.is_searching() {
                    self.cancel(worker);
                }
                self.output.line(&format!("pong {n}"));
            }
            NBoardCommand::Go => self.go(worker),
            NBoardCommand::Hint(n) => self.hint(n, worker),
            NBoardCommand::Learn => self.learn(worker),
            NBoardCommand::Analyze => self.analyze(worker),
            NBoardCommand::Clear => {
                self.make_way(worker);
                if let Some(searcher) = worker.searcher() {
                    searcher.clear();
                }
            }
            NBoardCommand::Quit => {}
        }
    }

    fn go(&mut self, worker: &mut Worker) {
        self.make_way(worker);
        let position = self.position();
        let output = self.output.clone();
        if position.legal_moves() == 0 {
            // A forced pass (or a finished game, where no answer is legal): answer at once.
            output.line("=== PA");
            return;
        }
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let limits = limits_for(
            &position,
            nboard_budget(&self.clocks, &self.game),
            stop.clone(),
        );
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        let budget = nboard_budget(&self.clocks, &self.game);
        worker.start(
            stop,
            Box::new(move |searcher| {
                let report = searcher.think(&position, &levels, &limits, &mut |r| {
                    if !cancelled.load(Ordering::SeqCst) {
                        output.line(&search_line(r));
                    }
                });
                if !cancelled.load(Ordering::SeqCst) {
                    let seconds = started.elapsed().as_secs_f64();
                    output.line(&nodestats_line(report.nodes, started.elapsed()));
                    output.line(&format!(
                        "=== {}/{:.2}/{seconds:.3}",
                        report.best_move.to_string().to_uppercase(),
                        report.value.discs()
                    ));
                }
                Some(report)
            }),
        );
        worker.ponder_after_search(ponder_plan(position, levels, budget));
    }

    fn hint(&mut self, count: i64, worker: &mut Worker) {
        self.make_way(worker);
        let position = self.position();
        let output = self.output.clone();
        if count < 1 {
            log::warn!("hint {count} ignored");
            return;
        }
        if position.is_game_over() {
            return;
        }
        if position.legal_moves() == 0 {
            output.line("search PA 0.00 0 0");
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let limits = limits_for(&position, None, stop.clone());
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        self.cancellable = true;
        worker.start(
            stop,
            Box::new(move |searcher| {
                let started = Instant::now();
                let mut print = |r: &SearchReport| {
                    if !cancelled.load(Ordering::SeqCst) {
                        output.line(&search_line(r));
                    }
                };
                // In the book every move is listed, best first (not one drawn at random).
                let (report, nodes) = if count > 1 || searcher.book_reports(&position).is_some() {
                    searcher.top_moves(&position, &levels, &limits, count, &mut print)
                } else {
                    let r = searcher.think(&position, &levels, &limits, &mut print);
                    let nodes = r.nodes;
                    (Some(r), nodes)
                };
                if !cancelled.load(Ordering::SeqCst) {
                    output.line(&nodestats_line(nodes, started.elapsed()));
                }
                report
            }),
        );
    }

    /// `learn`: the game goes into the book (its first positions out of the book valued by
    /// searches; see [`crate::search::Searcher::learn`]), saved to the book's file if it has
    /// one, then `learned`. A new request or `ping` cuts it short, keeping what was learned.
    fn learn(&mut self, worker: &mut Worker) {
        self.make_way(worker);
        let positions = self.game.positions().to_vec();
        let output = self.output.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let cancelled = self.cancelled.clone();
        let path = self.book_path.clone();
        self.cancellable = true;
        let flag = stop.clone();
        worker.start(
            stop,
            Box::new(move |searcher| {
                let added = searcher.learn(&positions, &flag);
                log::info!("learn: {added} positions added to the book");
                if added > 0
                    && let (Some(path), Some(book)) = (&path, searcher.book())
                    && let Err(e) = book.save(std::path::Path::new(path))
                {
                    log::error!("learn: {e}");
                }
                if !cancelled.load(Ordering::SeqCst) {
                    output.line("learned");
                }
                None
            }),
        );
    }

    /// NBoard's Analyze Game: a value for every position of the game, from the last back to
    /// the first (each search then finds the later positions' work in the table), as
    /// `analysis <moves made> <eval>` lines. A new request or `ping` cancels it.
    fn analyze(&mut self, worker: &mut Worker) {
        self.make_way(worker);
        let positions = self.game.positions().to_vec();
        let output = self.output.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            stop: stop.clone(),
            ..Limits::none()
        };
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        self.cancellable = true;
        worker.start(
            stop,
            Box::new(move |searcher| {
                let started = Instant::now();
                let mut nodes = 0;
                for (moves_made, position) in positions.iter().enumerate().rev() {
                    let report = searcher.think(position, &levels, &limits, &mut |_| {});
                    nodes += report.nodes;
                    if !report.complete || cancelled.load(Ordering::SeqCst) {
                        return None;
                    }
                    output.line(&analysis_line(moves_made, position, report.value));
                }
                output.line(&nodestats_line(nodes, started.elapsed()));
                None
            }),
        );
    }
}
