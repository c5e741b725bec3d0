//! NBoard under threads and pondering: batches of lines sent while searches run (moves,
//! `go` under tiny and large clocks, `hint`, `analyze`, `learn`, `set game`, `set depth`,
//! `set ponder`, `ping`), each batch closed by a `ping` whose `pong` must silence everything
//! sent before it; `attribution` places every line the server writes. Each run ends with a
//! `quit` or the end of input, most often in the middle of a long search.

use super::attribution::{Batch, Kind};
use super::{QUIT_WITHIN, RunShape, TINY_CLOCK, Tally, pause};
use crate::common::rng::Rng;
use crate::common::server::{PATIENCE, Server};
use crate::fuzz::model::Record;
use othello_engine::board::{Move, Position};
use std::time::{Duration, Instant};

/// The session as the model knows it.
struct Session {
    record: Record,
    /// Main time of each side's GGF clock (no increment, no grace).
    clocks: [Option<f64>; 2],
    depth: u32,
    next_ping: i64,
    ponder_switches: usize,
}

impl Session {
    /// Searches at this depth end by themselves in milliseconds.
    fn shallow(&self) -> bool {
        self.depth <= 3
    }

    fn tiny_clock(&self) -> Option<f64> {
        let mover = self.record.current().side_to_move();
        self.clocks[mover.index()].filter(|&c| c <= TINY_CLOCK)
    }
}

fn my_name(depth: u32) -> String {
    format!(
        "set myname othello-engine-{}-d{depth}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Runs NBoard servers for `lines` lines in all; panics on the first disagreement.
pub fn fuzz_nboard_concurrently(seed: u64, lines: usize) -> Tally {
    super::runs(seed, lines, run)
}

/// The server's next line, or a failure showing the batch after [`PATIENCE`].
fn next(s: &mut Server, batch: &Batch, context: &str) -> (String, Instant) {
    s.next_within(PATIENCE)
        .unwrap_or_else(|| batch.failure(&format!("no output within {PATIENCE:?}"), context))
}

/// A random game from the start, with a clock (tiny, large, mixed, or none, always none
/// unless `clocked`): its GGF and the record and clocks it leaves.
fn random_game(rng: &mut Rng, clocked: bool) -> (String, Record, [Option<f64>; 2]) {
    let mut record = Record::new(Position::start());
    let clocks: [Option<f64>; 2] = match rng.below(5) {
        _ if !clocked => [None, None],
        0 => [None, None],
        1 => [Some(600.0), Some(600.0)],
        2 => [Some(super::tiny_seconds(rng)), Some(600.0)],
        3 => [Some(600.0), Some(super::tiny_seconds(rng))],
        _ => {
            let t = super::tiny_seconds(rng);
            [Some(t), Some(t)]
        }
    };
    let mut text = String::from("(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]");
    for (tag, clock) in ["TB", "TW"].iter().zip(clocks) {
        if let Some(seconds) = clock {
            text += &format!("{tag}[{seconds}/0/0]");
        }
    }
    text += "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]";
    let plies = rng.below(62);
    text += &crate::fuzz::nboard::random_ggf_moves(rng, &mut record, plies, &[""]);
    text += ";)";
    (text, record, clocks)
}

/// One server process, `lines` lines, then an ending.
fn run(rng: &mut Rng, tally: &mut Tally, lines: usize) {
    let shape = RunShape::random(rng);
    shape.count(tally);
    let args = shape.args("nboard");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let context = format!("server {args:?}");
    let mut s = Server::start(&args);
    s.send("nboard 2");
    let name = s.next();
    let depth = name
        .rsplit("-d")
        .next()
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("{name:?} names no depth\n{context}"));
    assert_eq!(name, my_name(depth), "{context}");
    let mut session = Session {
        record: Record::new(Position::start()),
        clocks: [None, None],
        depth,
        next_ping: 1,
        ponder_switches: 0,
    };
    tally.lines += 1;
    tally.replies += 1;
    let mut sent = 0;
    let mut history = Vec::new();
    while sent < lines {
        if let Some(stale) = s.quiet_for(Duration::ZERO) {
            panic!("{stale:?} came after the last pong, before anything was sent\n{context}");
        }
        let mut batch = Batch::new(history);
        for _ in 0..1 + rng.below(8) {
            let line = next_line(rng, &mut session, &mut batch);
            batch.log.push(format!("> {line}"));
            s.send(&line);
            sent += 1;
            pause(rng);
        }
        // Sometimes the last request is let finish before the batch's ping cancels it.
        // (Not `learn`: its searches are at the book's depth whatever the level.)
        let finite = |kind: &Kind| match kind {
            Kind::Learn => false,
            Kind::Go { bound, .. } => session.shallow() || bound.is_some(),
            _ => session.shallow(),
        };
        if batch.last_request().is_some_and(finite) && rng.one_in(2) {
            while !batch.last_request_done() {
                let (line, at) = next(&mut s, &batch, &context);
                if let Err(e) = batch.attribute(&line, at, tally) {
                    batch.failure(&e, &context);
                }
            }
        }
        let n = session.next_ping;
        session.next_ping += 1;
        batch.push_ping(n);
        batch.log.push(format!("> ping {n}"));
        s.send(&format!("ping {n}"));
        sent += 1;
        let pong = format!("pong {n}");
        loop {
            let (line, at) = next(&mut s, &batch, &context);
            if let Err(e) = batch.attribute(&line, at, tally) {
                batch.failure(&e, &context);
            }
            if line == pong {
                break;
            }
        }
        history = batch.log;
    }
    tally.lines += sent;
    tally.ponder_switches += session.ponder_switches;
    end_run(rng, s, &mut session, history, tally, &context);
}

/// The next line of a batch, with its entry; the model follows it.
fn next_line(rng: &mut Rng, session: &mut Session, batch: &mut Batch) -> String {
    let position = session.record.current();
    let mut choice = rng.below(20);
    let is_request = matches!(choice, 5..=10 | 16 | 19);
    if batch.must_ping && is_request {
        choice = 11;
    }
    match choice {
        0..=3 if position.is_game_over() => set_game(rng, session),
        0..=3 => {
            let squares = position.legal_squares();
            let (mv, name) = match squares.is_empty() {
                true => (Move::Pass, "PA".to_string()),
                false => {
                    let sq = squares[rng.below(squares.len())];
                    (Move::Play(sq), sq.to_string().to_uppercase())
                }
            };
            session.record.push(mv, false);
            match rng.below(4) {
                0 => format!("move {name}"),
                1 => format!("move {name}/0.50/0.01"),
                2 => format!("move {name} -1.00 0.0"),
                _ => name,
            }
        }
        4 => {
            // Mostly illegal, and then ignored; the model plays it when it is legal.
            let corner = "a1".parse::<Move>().expect("a square");
            if position.is_legal(corner) && !position.is_game_over() {
                session.record.push(corner, false);
            }
            "move A1".into()
        }
        5..=7 => {
            let bound = session.tiny_clock();
            // A pass is answered at once, before the next line is read: it always comes.
            let forced = position.legal_moves() == 0;
            let long = !forced && !session.shallow() && bound.is_none();
            batch.push_request(Kind::Go { position, bound }, "go").owes = forced;
            batch.must_ping |= long;
            "go".into()
        }
        8 => {
            let n = [1, 2, 4, 64][rng.below(4)];
            let text = format!("hint {n}");
            // Nothing in a finished game; a pass answered at once, before the next line.
            let kind = match position.is_game_over() {
                true => Kind::Quiet,
                false => Kind::Hint { position },
            };
            // (`must_pass` holds in a finished game too.)
            batch.push_request(kind, &text).owes = position.must_pass() && !position.is_game_over();
            text
        }
        9 | 10 => {
            let next = session.record.moves() as i64;
            batch.push_request(Kind::Analyze { next }, "analyze");
            "analyze".into()
        }
        11 | 12 => {
            let n = session.next_ping;
            session.next_ping += 1;
            batch.push_ping(n);
            format!("ping {n}")
        }
        13 => set_game(rng, session),
        14 => {
            let depth = [1, 2, 3, 1, 2, 3, 8, 12, 20][rng.below(9)];
            if depth != session.depth {
                session.depth = depth;
                batch.push_name(my_name(depth));
            }
            format!("set depth {depth}")
        }
        15 => {
            let on = rng.one_in(2);
            session.ponder_switches += 1;
            format!("set ponder {}", if on { "on" } else { "off" })
        }
        16 => {
            // `clear` waits for a running go, as a request does, and prints nothing.
            batch.push_request(Kind::Quiet, "clear");
            "clear".into()
        }
        17 => {
            batch.push_name(my_name(session.depth));
            "nboard 2".into()
        }
        18 => format!("set contempt {}", [-100, 0, 100][rng.below(3)]),
        _ => {
            batch.push_request(Kind::Learn, "learn");
            "learn".into()
        }
    }
}

/// A `set game` line: a fresh random game most times, else one every reader refuses.
fn set_game(rng: &mut Rng, session: &mut Session) -> String {
    if rng.one_in(8) {
        // An out-of-turn move: refused whole, the position stays.
        return "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]B[D6];)".into();
    }
    let (text, record, clocks) = random_game(rng, true);
    session.record = record;
    session.clocks = clocks;
    format!("set game {text}")
}

/// Ends a run: `quit` (or the end of input) in the middle of a long search, or at rest
/// (perhaps while pondering). The process must be gone within [`QUIT_WITHIN`], and whatever
/// it printed on the way out must belong to a request still open.
fn end_run(
    rng: &mut Rng,
    mut s: Server,
    session: &mut Session,
    history: Vec<String>,
    tally: &mut Tally,
    context: &str,
) {
    let mut batch = Batch::new(history);
    if !rng.one_in(4) {
        // No clock and depth 20: only the quit ends this search in time.
        let (text, record, _) = random_game(rng, false);
        session.record = record;
        let game = format!("set game {text}");
        let position = session.record.current();
        for line in ["set depth 20".to_string(), game] {
            s.send(&line);
            batch.log.push(format!("> {line}"));
        }
        if session.depth != 20 {
            batch.push_name(my_name(20));
        }
        let kind = match rng.below(3) {
            0 => Kind::Hint { position },
            1 => Kind::Analyze {
                next: session.record.moves() as i64,
            },
            _ => Kind::Go {
                position,
                bound: None,
            },
        };
        let text = match kind {
            Kind::Hint { .. } => "hint 64",
            Kind::Analyze { .. } => "analyze",
            _ => "go",
        };
        let kind = match kind {
            Kind::Hint { .. } if position.is_game_over() => Kind::Quiet,
            kind => kind,
        };
        batch.push_request(kind, text);
        s.send(text);
        batch.log.push(format!("> {text}"));
        std::thread::sleep(Duration::from_millis(rng.below(300) as u64));
        tally.quits_mid_search += 1;
    }
    if rng.one_in(4) {
        s.close_input();
    } else {
        s.send("quit");
    }
    tally.lines += 1;
    let (rest, stderr) = s
        .exits_within(QUIT_WITHIN)
        .unwrap_or_else(|e| batch.failure(&e, context));
    let now = Instant::now();
    for line in rest {
        if let Err(e) = batch.attribute(&line, now, tally) {
            batch.failure(&format!("after quit: {e}"), context);
        }
    }
    assert!(!stderr.contains("panicked"), "{stderr}\n{context}");
}
