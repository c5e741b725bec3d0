//! Pondering: the engine thinks on the opponent's time, never at the cost of a prompt reply,
//! and a ponder on the reply that comes leaves the search on the engine's turn little to do.

use crate::common;
use crate::common::colour;
use crate::common::server::{Server, go_answer};
use othello_engine::board::{Color, Move, Position};
use othello_engine::search::{Levels, Limits, Searcher, TimeBudget, move_time};
use std::time::{Duration, Instant};

/// What a command may take while the engine ponders: it takes well under a millisecond
/// without, so this bound only fails when a reply waits on the ponder's search.
const PROMPT: Duration = Duration::from_millis(250);

/// A GTP reply and the time it took.
fn timed_gtp(s: &mut Server, command: &str) -> (Vec<String>, Duration) {
    let started = Instant::now();
    let reply = s.gtp(command);
    (reply, started.elapsed())
}

fn first_legal(position: &Position) -> Move {
    position
        .legal_squares()
        .first()
        .map_or(Move::Pass, |&sq| Move::Play(sq))
}

/// The node counts of the ponders a log file reports.
fn ponders_logged(log: &std::path::Path) -> Vec<u64> {
    let text = std::fs::read_to_string(log).expect("the log");
    text.lines()
        .filter_map(|l| l.split("pondered ").nth(1))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .collect()
}

/// GTP: the engine plays Black under a clock, then ponders while "White" thinks; `name`,
/// `play`, `genmove` and `quit` are answered as promptly with pondering as without, and the
/// log shows the ponders ran.
#[test]
fn a_pondering_gtp_engine_answers_at_once() {
    let dir = common::temp_dir("ponder-gtp");
    for ponder in ["off", "on"] {
        let log = dir.join(format!("gtp-{ponder}.log"));
        let log_arg = log.to_string_lossy().into_owned();
        let ponder_flag = format!("--ponder={ponder}");
        let mut s = Server::start(&[
            "gtp",
            "--threads",
            "1",
            &ponder_flag,
            "--no-book",
            "--log-file",
            &log_arg,
        ]);
        assert_eq!(s.gtp("time_settings 20 0 0"), ["="]);
        let mut position = Position::start();
        for _ in 0..4 {
            let (reply, took) = timed_gtp(&mut s, "genmove black");
            assert!(took < Duration::from_secs(5), "genmove took {took:?}");
            let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
            position = position.play(mv).expect("legal");
            // The opponent thinks; the engine ponders meanwhile.
            std::thread::sleep(Duration::from_millis(300));
            let (reply, took) = timed_gtp(&mut s, "name");
            assert_eq!(reply, ["= othello-engine"]);
            assert!(took < PROMPT, "ponder {ponder}: name took {took:?}");
            let reply_move = first_legal(&position);
            let (reply, took) = timed_gtp(
                &mut s,
                &format!("play {} {reply_move}", colour(position.side_to_move())),
            );
            assert_eq!(reply, ["="]);
            assert!(took < PROMPT, "ponder {ponder}: play took {took:?}");
            position = position.play(reply_move).expect("legal");
            if position.must_pass() {
                break;
            }
        }
        let started = Instant::now();
        assert_eq!(s.gtp("quit"), ["="]);
        assert!(started.elapsed() < PROMPT, "ponder {ponder}: quit was slow");
        s.finish();
        assert!(
            started.elapsed() < 4 * PROMPT,
            "ponder {ponder}: exit was slow"
        );
        let pondered = ponders_logged(&log);
        if ponder == "on" {
            assert!(pondered.len() >= 3, "ponders logged: {pondered:?}");
            assert!(pondered.iter().all(|&n| n > 1000), "{pondered:?}");
        } else {
            assert!(pondered.is_empty(), "{pondered:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// GTP under a clock with two threads and pondering, a whole game: the opponent answers
/// with the move a search prefers (the reply the ponder expects, often) or the last legal
/// one (rarely expected), so the log shows ponder hits and misses; after either, `genmove`
/// answers within the hard time the time manager plans for the clock it was told (with a
/// prompt reply's allowance for the pipes).
#[test]
fn ponder_hits_and_misses_both_answer_within_the_plan() {
    let dir = common::temp_dir("ponder-plan");
    let log = dir.join("gtp.log");
    let log_arg = log.to_string_lossy().into_owned();
    let mut s = Server::start(&[
        "gtp",
        "--threads",
        "2",
        "--ponder",
        "--no-book",
        "--log-file",
        &log_arg,
    ]);
    let clock = 6.0;
    assert_eq!(s.gtp(&format!("time_settings {clock} 0 0")), ["="]);
    let mut remaining: f64 = clock;
    let mut opponent = Searcher::new(16, None);
    let levels = Levels::preset(6).expect("a preset");
    let mut position = Position::start();
    let mut replies = 0;
    while !position.is_game_over() {
        if position.must_pass() {
            position = position.pass();
            continue;
        }
        if position.side_to_move() == Color::Black {
            assert_eq!(s.gtp(&format!("time_left black {remaining:.3} 0")), ["="]);
            let (reply, took) = timed_gtp(&mut s, "genmove black");
            let budget = TimeBudget {
                remaining: Duration::from_secs_f64(remaining),
                increment: Duration::ZERO,
                moves_to_go: None,
                lag: Duration::ZERO,
                stall: Duration::ZERO,
                main: Duration::ZERO,
                coarse: false,
                overhead: None,
            };
            let (_, hard) = move_time(position.empty_count(), budget);
            assert!(
                took <= hard + PROMPT,
                "{} empties, {remaining:.3} s left: planned {hard:?}, took {took:?}",
                position.empty_count()
            );
            remaining = (remaining - took.as_secs_f64()).max(0.0);
            let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
            position = position.play(mv).expect("legal");
        } else {
            // The opponent thinks; the engine ponders meanwhile.
            std::thread::sleep(Duration::from_millis(150));
            let reply = if replies % 2 == 0 {
                opponent
                    .think(&position, &levels, &Limits::none(), &mut |_| {})
                    .best_move
            } else {
                position
                    .legal_squares()
                    .last()
                    .map_or(Move::Pass, |&sq| Move::Play(sq))
            };
            replies += 1;
            assert_eq!(s.gtp(&format!("play white {reply}")), ["="]);
            position = position.play(reply).expect("legal");
        }
    }
    assert_eq!(s.gtp("quit"), ["="]);
    s.finish();
    let text = std::fs::read_to_string(&log).expect("the log");
    let (hits, misses) = (
        text.matches("ponder hit").count(),
        text.matches("ponder miss").count(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(hits >= 2 && misses >= 2, "{hits} hits, {misses} misses");
}

/// NBoard with `set ponder on`: after `===` the engine ponders through the echo of its move,
/// `ping` and the opponent's `move`; `pong` comes at once, and the next `go` is answered.
#[test]
fn a_pondering_nboard_engine_answers_pings_at_once() {
    let dir = common::temp_dir("ponder-nboard");
    let log = dir.join("nboard.log");
    let log_arg = log.to_string_lossy().into_owned();
    let mut s = Server::start(&[
        "nboard",
        "--threads",
        "1",
        "--no-book",
        "--log-file",
        &log_arg,
    ]);
    s.send("nboard 2");
    s.send("set ponder on");
    s.send("set game (;GM[Othello]TI[0:20]BO[8 ---------------------------O*------*O--------------------------- *];)");
    let mut position = Position::start();
    for ping in 1..=3 {
        s.send("go");
        let mv = go_answer(&mut s, &position);
        position = position.play(mv).expect("legal");
        s.send(&format!("move {mv}"));
        std::thread::sleep(Duration::from_millis(300));
        let started = Instant::now();
        s.send(&format!("ping {ping}"));
        assert_eq!(s.next(), format!("pong {ping}"));
        assert!(
            started.elapsed() < PROMPT,
            "pong took {:?}",
            started.elapsed()
        );
        let reply = first_legal(&position);
        s.send(&format!("move {reply}"));
        position = position.play(reply).expect("legal");
    }
    s.send("set ponder off");
    s.send("go");
    go_answer(&mut s, &position);
    s.finish();
    let pondered = ponders_logged(&log);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(pondered.len() >= 3, "ponders logged: {pondered:?}");
    assert!(pondered.iter().all(|&n| n > 1000), "{pondered:?}");
}

/// The search on the engine's turn after a ponder on the reply that came answers with the
/// cold search's move from a small fraction of its nodes: the ponder's depths are in the
/// table. Node counts, not times, so the test does not depend on the machine's load.
#[test]
fn a_ponder_hit_answers_with_far_fewer_nodes_than_a_cold_search() {
    let levels = Levels::preset(10).expect("a preset");
    let root = common::obf::read_obf("midgame10.obf")[5].position;
    let mut searcher = Searcher::new(16, None);
    let expected = searcher
        .think(&root, &levels, &Limits::none(), &mut |_| {})
        .best_move;
    let child = root.play(expected).expect("legal");
    let cold = Searcher::new(16, None).think(&child, &levels, &Limits::none(), &mut |_| {});
    let mut warm = Searcher::new(16, None);
    let pondered = warm.ponder(&root, Some(expected), &levels, None, &Limits::none());
    let hit = warm.think(&child, &levels, &Limits::none(), &mut |_| {});
    assert_eq!(hit.best_move, cold.best_move);
    assert_eq!(hit.value, cold.value);
    assert!(pondered > cold.nodes, "{pondered} vs {}", cold.nodes);
    assert!(
        hit.nodes * 20 < cold.nodes,
        "hit {} nodes, cold {}",
        hit.nodes,
        cold.nodes
    );
}
