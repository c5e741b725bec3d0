//! GTP under threads and pondering: batches of commands sent without waiting (GTP answers in
//! order, so a batch's replies are read and checked one by one against the model), thread and
//! ponder switches between the searches, moves under tiny and large clocks, and each run ended
//! by `quit` or the end of input, often in the middle of a search.

use super::{
    CLOCK_MARGIN, PROMPT, QUIT_WITHIN, RunShape, TINY_CLOCK, Tally, pause, shown, tiny_seconds,
};
use crate::common;
use crate::common::rng::Rng;
use crate::common::server::Server;
use crate::fuzz::gtp::{GtpEffect, GtpModel};
use othello_engine::board::{Color, Position};
use othello_engine::search::Levels;
use std::time::{Duration, Instant};

/// What the model knows of the clocks: enough for an upper bound on the time a `genmove`
/// may think (protocol.md, GTP "Time").
#[derive(Clone, Copy, Default)]
struct ClockBound {
    /// `time_settings` main, byo-yomi and stones.
    settings: Option<(f64, f64, u32)>,
    /// The last `time_left` of each side since the last `time_settings` or `clear_board`.
    left: [Option<f64>; 2],
}

impl ClockBound {
    /// The most the side's clock can hold (`None`: no limit). Charging a move only lowers a
    /// clock or starts a byo-yomi period, so the largest of the settings and the last
    /// `time_left` bounds it.
    fn bound(&self, side: Color) -> Option<f64> {
        let left = self.left[side.index()];
        match self.settings {
            None => left,
            Some((_, byo, 0)) if byo > 0.0 => None,
            Some((main, byo, _)) => Some(main.max(byo).max(left.unwrap_or(0.0))),
        }
    }
}

/// A line of a batch: the command (without its id), its id, and what the model made of it.
struct Planned {
    id: Option<u64>,
    command: String,
    /// The most a `genmove` may think, when its clock is tiny.
    clock: Option<f64>,
    sent: Instant,
}

/// The session as the generator sees it: the model, the clocks, and whether searches at the
/// current levels end by themselves quickly.
struct Session {
    model: GtpModel,
    clocks: ClockBound,
}

impl Session {
    /// Searches at the current levels take milliseconds whatever the clock.
    fn shallow(&self) -> bool {
        let l = &self.model.levels;
        l.opening.depth <= 3 && l.midgame.depth <= 3 && l.endgame_empties <= 12
    }
}

/// Runs GTP servers for `lines` lines in all; panics on the first disagreement.
pub fn fuzz_gtp_concurrently(seed: u64, lines: usize) -> Tally {
    super::runs(seed, lines, run)
}

/// One server process, `lines` lines, then an ending.
fn run(rng: &mut Rng, tally: &mut Tally, lines: usize) {
    let shape = RunShape::random(rng);
    shape.count(tally);
    let args = shape.args("gtp");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut s = Server::start(&args);
    let levels = if shape.shallow_level {
        Levels::preset(1).expect("level 1")
    } else {
        Levels::default()
    };
    let mut session = Session {
        model: GtpModel::new(levels),
        clocks: ClockBound::default(),
    };
    let context = format!("server {args:?}");
    let mut sent = 0;
    while sent < lines {
        let batch = batch(rng, &session);
        let planned = send(rng, &mut s, batch);
        sent += planned.len();
        tally.lines += planned.len();
        read_replies(&mut s, &mut session, &planned, tally, &context);
    }
    end_run(rng, s, &mut session, tally, &context);
}

/// Sends a batch, pausing at random between lines; returns each line as planned.
fn send(
    rng: &mut Rng,
    s: &mut Server,
    batch: Vec<(Option<u64>, String, Option<f64>)>,
) -> Vec<Planned> {
    let mut planned = Vec::new();
    for (id, command, clock) in batch {
        let line = match id {
            Some(id) => format!("{id} {command}"),
            None => command.clone(),
        };
        s.send(&line);
        planned.push(Planned {
            id,
            command,
            clock,
            sent: Instant::now(),
        });
        pause(rng);
    }
    planned
}

/// A batch of one to eight commands. Lines that depend on the position come before the
/// batch's `genmove` (whose move the model learns only from the reply); a `genmove` that
/// would think long (a deep level without a tiny clock) gets a tiny `time_left` first.
fn batch(rng: &mut Rng, session: &Session) -> Vec<(Option<u64>, String, Option<f64>)> {
    let mut predicted = session.model.record.clone();
    let mut clocks = session.clocks;
    let mut levels_shallow = session.shallow();
    let mut out = Vec::new();
    let mut position_known = true;
    for _ in 0..1 + rng.below(8) {
        let position = predicted.current();
        let side = position.side_to_move();
        let mut clock = None;
        let command = match rng.below(20) {
            0..=4 if position_known && position.is_game_over() => "clear_board".to_string(),
            0..=4 if position_known => {
                let squares = position.legal_squares();
                if squares.is_empty() {
                    format!("play {} pass", common::colour(side))
                } else {
                    let sq = squares[rng.below(squares.len())];
                    format!("play {} {sq}", common::colour(side))
                }
            }
            5..=7 if position_known && !position.is_game_over() => {
                let tiny = |b: Option<f64>| b.filter(|&b| b <= TINY_CLOCK);
                if !levels_shallow && tiny(clocks.bound(side)).is_none() {
                    let seconds = tiny_seconds(rng);
                    clocks.left[side.index()] = Some(seconds);
                    if clocks.bound(side).is_none_or(|b| b > TINY_CLOCK) {
                        // Unlimited byo-yomi or a large main time: reset to a tiny one.
                        clocks = ClockBound {
                            settings: Some((seconds, 0.0, 0)),
                            left: [None, None],
                        };
                        out.push((None, format!("time_settings {seconds} 0 0"), None));
                    } else {
                        let stones = 0;
                        out.push((
                            None,
                            format!("time_left {} {seconds} {stones}", common::colour(side)),
                            None,
                        ));
                    }
                }
                clock = tiny(clocks.bound(side));
                position_known = false;
                format!("genmove {}", common::colour(side))
            }
            8 if position_known => {
                predicted.undo();
                "undo".into()
            }
            9 | 10 => "showboard".into(),
            11 => ["name", "version", "protocol_version"][rng.below(3)].into(),
            12 => {
                let (text, settings) = match rng.below(4) {
                    0 => {
                        let t = tiny_seconds(rng);
                        (format!("{t} 0 0"), (t, 0.0, 0))
                    }
                    1 => ("600 0 0".into(), (600.0, 0.0, 0)),
                    2 => ("0 0.3 2".into(), (0.0, 0.3, 2)),
                    _ => ("0 1 0".into(), (0.0, 1.0, 0)),
                };
                clocks = ClockBound {
                    settings: Some(settings),
                    left: [None, None],
                };
                format!("time_settings {text}")
            }
            13 => {
                let c = if rng.one_in(2) {
                    Color::Black
                } else {
                    Color::White
                };
                let seconds = if rng.one_in(2) {
                    tiny_seconds(rng)
                } else {
                    900.0
                };
                clocks.left[c.index()] = Some(seconds);
                format!("time_left {} {seconds} 0", common::colour(c))
            }
            14 | 15 => {
                let n = ["1", "2", "3", "4", "0", "257", "x"][rng.below(7)];
                format!("othello-engine-threads {n}")
            }
            16 | 17 => {
                let v = ["on", "off", "on", "off", "maybe"][rng.below(5)];
                format!("othello-engine-ponder {v}")
            }
            18 => {
                let v = ["1", "2", "3", "default"][rng.below(4)];
                levels_shallow = v != "default";
                format!("othello-engine-set level {v}")
            }
            19 if position_known && rng.one_in(3) => {
                predicted = crate::fuzz::model::Record::new(Position::start());
                clocks.left = [None, None];
                "clear_board".into()
            }
            _ => "showboard".into(),
        };
        let id = rng.one_in(3).then(|| rng.below(100_000) as u64);
        out.push((id, command, clock));
    }
    out
}

/// Reads and checks the reply of every planned line, in order.
fn read_replies(
    s: &mut Server,
    session: &mut Session,
    planned: &[Planned],
    tally: &mut Tally,
    context: &str,
) {
    let mut previous_reply: Option<Instant> = None;
    for p in planned {
        let (reply, arrived) = read_reply(s);
        tally.replies += reply.len() + 1;
        // The server may only start on this line once it answered the one before.
        let began = previous_reply.map_or(p.sent, |t| t.max(p.sent));
        previous_reply = Some(arrived);
        let took = arrived.saturating_duration_since(began);
        let failure = |why: String| -> ! {
            panic!(
                "{why}\nline: {:?} (id {:?})\nreply: {reply:?}\n{context}",
                shown(&p.command),
                p.id
            )
        };
        let expect = expected(session, &p.command);
        check_head(&reply, p.id, expect.ok).unwrap_or_else(|e| failure(e));
        let body = reply[0]
            .split_once(' ')
            .map_or(String::new(), |(_, b)| b.to_string());
        let name = p.command.split(' ').next().unwrap_or("");
        if name == "genmove" {
            if let Some(clock) = p.clock {
                let bound = Duration::from_secs_f64(clock) + CLOCK_MARGIN;
                if took > bound {
                    failure(format!("genmove under a {clock} s clock took {took:?}"));
                }
                tally.timed_moves += 1;
            }
        } else {
            if took > PROMPT {
                failure(format!("a reply needing no search took {took:?}"));
            }
            tally.prompt_checks += 1;
        }
        if !expect.ok {
            if reply.len() != 1 {
                failure("a refusal has one line".into());
            }
            continue;
        }
        match name {
            "showboard" => {
                let board = session.model.record.current().to_string();
                let expected: Vec<&str> = board.lines().filter(|l| !l.trim().is_empty()).collect();
                if reply[1..] != expected[..] {
                    failure(format!("showboard differs from the model:\n{board}"));
                }
            }
            "name" | "version" | "protocol_version" | "genmove" => {
                if reply.len() != 1 || body.is_empty() {
                    failure("a one-line answer was expected".into());
                }
            }
            _ => {
                if reply.len() != 1 || !body.is_empty() {
                    failure("an empty answer was expected".into());
                }
            }
        }
        match &expect.effect {
            Effect::Model(effect) => {
                if let Err(e) = session.model.apply(effect, &reply[0]) {
                    failure(e);
                }
                apply_clocks(session, &p.command);
            }
            Effect::Ponder => tally.ponder_switches += 1,
            Effect::Threads(n) => {
                tally.threads.insert(*n);
            }
        }
    }
}

/// One reply's lines (without the blank line that ends it) and when its last line came.
fn read_reply(s: &mut Server) -> (Vec<String>, Instant) {
    let mut lines = Vec::new();
    loop {
        let (line, at) = s.next_timed();
        if line.is_empty() {
            return (lines, at);
        }
        lines.push(line);
    }
}

/// `=`/`?` with exactly the line's id, then a blank or nothing.
fn check_head(reply: &[String], id: Option<u64>, ok: bool) -> Result<(), String> {
    let mark = if ok { '=' } else { '?' };
    let prefix = format!("{mark}{}", id.map(|i| i.to_string()).unwrap_or_default());
    let head = reply.first().map(String::as_str).unwrap_or("");
    match head.strip_prefix(&prefix) {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => Ok(()),
        _ => Err(format!("expected a reply starting {prefix:?}")),
    }
}

/// What an accepted line does beyond the line fuzzer's model.
enum Effect {
    Model(GtpEffect),
    Ponder,
    Threads(usize),
}

struct Expect {
    ok: bool,
    effect: Effect,
}

/// The verdict on a command: the run-time switches here, the rest from the line fuzzer's model.
fn expected(session: &Session, command: &str) -> Expect {
    let words: Vec<&str> = command.split(' ').collect();
    match words[..] {
        ["othello-engine-threads", n] => match n.parse::<usize>() {
            Ok(n) if (1..=256).contains(&n) => Expect {
                ok: true,
                effect: Effect::Threads(n),
            },
            _ => Expect {
                ok: false,
                effect: Effect::Model(GtpEffect::None),
            },
        },
        ["othello-engine-ponder", v] => Expect {
            ok: v == "on" || v == "off",
            effect: Effect::Ponder,
        },
        _ => {
            let verdict = session
                .model
                .classify(command.as_bytes())
                .expect("the generator sends no empty lines");
            Expect {
                ok: verdict.ok,
                effect: Effect::Model(verdict.effect),
            }
        }
    }
}

/// The clock bound after an accepted command.
fn apply_clocks(session: &mut Session, command: &str) {
    let words: Vec<&str> = command.split(' ').collect();
    match words[..] {
        ["time_settings", main, byo, stones] => {
            let number = |t: &str| t.parse::<f64>().unwrap_or(f64::INFINITY);
            session.clocks = ClockBound {
                settings: Some((number(main), number(byo), stones.parse().unwrap_or(0))),
                left: [None, None],
            };
        }
        ["time_left", c, seconds, _] => {
            let c = if c == "black" {
                Color::Black
            } else {
                Color::White
            };
            session.clocks.left[c.index()] = seconds.parse().ok();
        }
        ["clear_board"] => session.clocks.left = [None, None],
        _ => {}
    }
}

/// Ends a run: a `quit` (or the end of input) while a long `genmove` searches, a `quit` while
/// the engine may ponder, or a `quit` at rest. The `genmove` cut short still answers a legal
/// move, the `quit` is answered, the process is gone within [`QUIT_WITHIN`], and nothing at
/// all follows the last reply.
fn end_run(rng: &mut Rng, mut s: Server, session: &mut Session, tally: &mut Tally, context: &str) {
    let position = session.model.record.current();
    let side = position.side_to_move();
    let by_end_of_input = rng.one_in(4);
    let mid_search = !position.is_game_over() && !rng.one_in(4);
    if mid_search {
        // A clock of ten minutes at the default level: the search would run for many
        // seconds, so only the quit can end it in time.
        for setup in [
            "othello-engine-set level default".to_string(),
            "time_settings 600 0 0".into(),
        ] {
            assert_eq!(s.gtp(&setup), ["="], "{setup}\n{context}");
        }
        s.send(&format!("genmove {}", common::colour(side)));
        std::thread::sleep(Duration::from_millis(rng.below(300) as u64));
        tally.quits_mid_search += 1;
    }
    let quit_sent = Instant::now();
    if by_end_of_input {
        s.close_input();
    } else {
        s.send("quit");
    }
    if mid_search {
        let (reply, arrived) = read_reply(&mut s);
        let took = arrived.saturating_duration_since(quit_sent);
        assert!(
            took <= PROMPT,
            "a genmove cut short by quit answered after {took:?}\n{context}"
        );
        let effect = GtpEffect::GenMove(side);
        if let Err(e) = session.model.apply(&effect, &reply[0]) {
            panic!("{e}\nthe genmove cut short by quit\n{context}");
        }
        tally.replies += reply.len() + 1;
    }
    if !by_end_of_input {
        let (reply, _) = read_reply(&mut s);
        assert_eq!(reply, ["="], "the reply to quit\n{context}");
        tally.replies += 2;
    }
    tally.lines += 1;
    let (rest, stderr) = s
        .exits_within(QUIT_WITHIN)
        .unwrap_or_else(|e| panic!("{e}\n{context}"));
    assert!(rest.is_empty(), "output after quit: {rest:?}\n{context}");
    assert!(!stderr.contains("panicked"), "{stderr}\n{context}");
}
