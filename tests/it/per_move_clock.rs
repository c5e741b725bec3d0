//! Per-move clocks (issue 83): GTP's `time_settings 0 T 1`, as a tournament script and
//! `match --move-time T` send it (to the millisecond) and as GNU Quarry does (whole seconds).
//! A move spends its time but for a small part and the controller's delay, told
//! (`--move-overhead`) or by default; a level keeps its cap under such a clock.

use crate::common::obf::read_obf;
use crate::common::run;
use crate::common::server::Server;
use othello_engine::board::{Move, Position};
use othello_engine::game::clock::{GtpClock, GtpTimeSettings};
use othello_engine::game::gtp_clocks::GtpClocks;
use othello_engine::search::{Levels, Limits, Searcher, limits_for};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The limits of a move under a per-move limit of `seconds` as a script tells it, with the
/// `overhead` the user told, if any.
fn per_move_limits(position: &Position, seconds: f64, overhead: Option<f64>) -> Limits {
    let mut clocks = GtpClocks::default();
    clocks.set(GtpTimeSettings {
        main: 0.0,
        byo_yomi: seconds,
        stones: 1,
        whole_seconds: false,
    });
    clocks.set_overhead(overhead.map(Duration::from_secs_f64));
    let mover = position.side_to_move();
    clocks.told(mover, GtpClock { seconds, stones: 1 });
    limits_for(
        position,
        clocks.budget(mover),
        Arc::new(AtomicBool::new(false)),
    )
}

/// A long search (a 24-empty FFO position, solved at level 20: seconds of work) under a
/// per-move limit with no delay told or measured runs to within a small part of the limit.
#[test]
fn a_per_move_clock_with_no_delay_spends_most_of_a_long_search() {
    let ffo = &read_obf("fforum-40-59.obf")[5];
    let levels = Levels::preset(20).expect("level 20");
    for seconds in [0.1, 0.3] {
        let mut searcher = Searcher::new(16, Some(1));
        let started = Instant::now();
        let limits = per_move_limits(&ffo.position, seconds, None);
        let report = searcher.think(&ffo.position, &levels, &limits, &mut |_| {});
        let spent = started.elapsed().as_secs_f64();
        assert!(
            spent >= 0.8 * seconds,
            "{seconds} s a move: the search took {spent:.3} s"
        );
        assert!(ffo.position.play(report.best_move).is_ok());
    }
}

/// A told delay is kept back: a 0.5-second move with 0.15 s told ends its search by 0.35 s.
#[test]
fn a_per_move_clock_keeps_the_delay_it_is_told() {
    let ffo = &read_obf("fforum-40-59.obf")[5];
    let started = Instant::now();
    let limits = per_move_limits(&ffo.position, 0.5, Some(0.15));
    let hard = limits.hard_deadline.expect("a deadline");
    assert!(hard.saturating_duration_since(started) <= Duration::from_millis(350));
    assert!(hard.saturating_duration_since(started) >= Duration::from_millis(300));
}

/// A level keeps its depth under a per-move clock that allows it: level 3 at 0.05 s a move
/// searches 3 plies, as it did untimed, where the reserve of game clocks once left it 4 ms
/// and depth 1; and level 1 and level 3 choose differently somewhere.
#[test]
fn a_level_cap_holds_under_a_per_move_clock() {
    let positions = read_obf("midgame10.obf");
    let mut differ = 0;
    for obf in &positions {
        let mut chosen = Vec::new();
        for level in [1, 3] {
            let levels = Levels::preset(level).expect("a preset");
            let mut searcher = Searcher::new(16, Some(1));
            let limits = per_move_limits(&obf.position, 0.05, None);
            let report = searcher.think(&obf.position, &levels, &limits, &mut |_| {});
            let mut untimed = Searcher::new(16, Some(1));
            let free = untimed.think(&obf.position, &levels, &Limits::none(), &mut |_| {});
            assert_eq!(report.depth, level, "level {level} under 0.05 s a move");
            assert_eq!(
                (report.best_move, report.value),
                (free.best_move, free.value)
            );
            chosen.push(report.best_move);
        }
        differ += usize::from(chosen[0] != chosen[1]);
    }
    assert!(differ > 0, "levels 1 and 3 chose alike in every position");
}

/// The overhead over GTP (`othello-engine-move-overhead`), NBoard (`set move-overhead`) and
/// the command line (`--move-overhead`); a bad value is refused and changes nothing.
#[test]
fn the_move_overhead_is_told_over_each_protocol_and_the_command_line() {
    let mut s = Server::start(&["gtp", "--level", "2", "--move-overhead", "0.02"]);
    assert_eq!(s.gtp("othello-engine-move-overhead 0.15"), ["="]);
    for bad in ["-1", "11", "x", ""] {
        let reply = s.gtp(&format!("othello-engine-move-overhead {bad}"));
        assert!(reply[0].starts_with("? "), "{bad}: {reply:?}");
    }
    assert_eq!(s.gtp("time_settings 0 0.200 1"), ["="]);
    assert_eq!(s.gtp("time_left black 0.200 1"), ["="]);
    let reply = s.gtp("genmove black");
    let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
    assert!(Position::start().play(mv).is_ok());
    s.finish();

    let mut s = Server::start(&["nboard"]);
    s.send("nboard 2");
    s.send("set move-overhead 0.1");
    s.send("set move-overhead -5");
    s.send("ping 1");
    let lines = s.until(|l| l == "pong 1");
    assert!(lines.iter().all(|l| !l.starts_with('?')), "{lines:?}");
    s.finish();

    for bad in ["-0.5", "11", "soon"] {
        let out = run(&["gtp", "--move-overhead", bad]);
        assert_eq!(out.status.code(), Some(2), "--move-overhead {bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("move overhead"), "{stderr}");
    }
}

/// A level the clock cannot let finish says so in its log: level 20 at 0.05 s a move, 20
/// plies into a game.
#[test]
fn a_level_the_clock_cuts_says_so_in_its_log() {
    let log = crate::common::temp_dir("per-move-cut").join("engine.log");
    let log_arg = log.to_str().expect("a UTF-8 path");
    let flags = ["gtp", "--level", "20", "--no-book", "--threads", "1"];
    let mut s = Server::start(&[&flags[..], &["--log-file", log_arg]].concat());
    let mut position = Position::start();
    for ply in 0..20 {
        let squares = position.legal_squares();
        let Some(&square) = squares.get(ply * 7 % squares.len().max(1)) else {
            break;
        };
        let mv = Move::Play(square);
        let colour = crate::common::colour(position.side_to_move());
        assert_eq!(s.gtp(&format!("play {colour} {mv}")), ["="]);
        position = position.play(mv).expect("legal");
    }
    assert!(!position.legal_squares().is_empty(), "{position:?}");
    assert_eq!(s.gtp("time_settings 0 0.050 1"), ["="]);
    let colour = crate::common::colour(position.side_to_move());
    let reply = s.gtp(&format!("genmove {colour}"));
    let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
    assert!(position.play(mv).is_ok());
    assert_eq!(s.gtp("quit"), ["="]);
    s.finish();
    let text = std::fs::read_to_string(&log).expect("the log was written");
    assert!(
        text.contains("the clock cut the search at depth"),
        "the log says the clock cut level 20:\n{text}"
    );
}
