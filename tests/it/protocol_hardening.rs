//! Inputs that once crashed or confused the servers (each reproduced on 8f6a698), and
//! NBoard's Analyze Game: Unicode colours, clocks too large for a duration, moves tagged with
//! the wrong colour, passes after the end, ids beyond 64 bits, `quit` during a long search,
//! `set depth` and the command line's levels, and the name and speed NBoard shows.

use crate::common;
use crate::common::server::{Server, go_answer};
use othello_engine::board::{Move, Position};
use std::time::{Duration, Instant};

const START_BOARD: &str =
    "BO[8 ---------------------------O*------*O--------------------------- *]";

/// The shortest game: Black wipes White out in nine moves.
const WIPEOUT: [&str; 9] = ["E6", "F4", "E3", "F6", "G5", "D6", "E7", "F5", "C5"];

fn ggf_of(moves: &[&str], extra: &str) -> String {
    let mut text = format!(
        "(;GM[Othello]PC[NBoard]DT[2026-11-23 10:00:00 GMT]PB[]PW[]RE[?]TI[5:00]TY[8]{START_BOARD}"
    );
    for (i, m) in moves.iter().enumerate() {
        text.push_str(&format!("{}[{m}]", if i % 2 == 0 { "B" } else { "W" }));
    }
    text + extra + ";)"
}

fn after(moves: &[&str]) -> Position {
    moves.iter().fold(Position::start(), |p, m| {
        p.play(m.parse::<Move>().expect("a move")).expect("legal")
    })
}

/// The move of a GTP `= MOVE` reply, checked legal in `position`.
fn gtp_move(reply: &[String], position: &Position) -> Move {
    let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
    assert!(position.is_legal(mv), "{reply:?}");
    mv
}

#[test]
fn gtp_colours_with_unicode_letters_are_refused_not_a_panic() {
    let mut s = Server::start(&["gtp", "--level", "1"]);
    // "blac" + KELVIN SIGN, which lower-cases to 'k' by Unicode rules but is three bytes.
    for command in [
        "genmove blac\u{212a}",
        "reg_genmove blac\u{212a}",
        "play blac\u{212a} f5",
        "time_left blac\u{212a} 10 0",
        "genmove \u{212a}",
        "play whit\u{e9} f5",
    ] {
        let reply = s.gtp(command);
        assert!(
            reply[0].starts_with("? syntax error"),
            "{command}: {reply:?}"
        );
    }
    s.send_raw(b"genmove blac\xe2\x84\xaa\n");
    assert!(s.until(str::is_empty)[0].starts_with('?'));
    gtp_move(&s.gtp("genmove black"), &Position::start());
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn gtp_clocks_too_large_for_a_duration_still_give_a_move() {
    let mut s = Server::start(&["gtp", "--level", "2"]);
    assert_eq!(s.gtp("time_settings 99999999999999999999 0 0"), ["="]);
    let first = gtp_move(&s.gtp("genmove black"), &Position::start());
    let position = Position::start().play(first).expect("legal");
    assert_eq!(s.gtp("time_left white 10000000000000000000 1"), ["="]);
    gtp_move(&s.gtp("genmove white"), &position);
    assert_eq!(s.gtp("clear_board"), ["="]);
    assert_eq!(s.gtp("time_settings 0 99999999999999999999 5"), ["="]);
    gtp_move(&s.gtp("genmove black"), &Position::start());
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn nboard_clocks_too_large_for_a_duration_still_give_a_move() {
    let mut s = Server::start(&["nboard", "--level", "2"]);
    for (i, clock) in [
        "99999999999999999999:00",
        "1e300",
        "5:00/1e300",
        "5:00/0/1e300",
    ]
    .iter()
    .enumerate()
    {
        let game = format!("(;GM[Othello]TI[{clock}]{START_BOARD}B[F5//1e300];)");
        s.send(&format!("set game {game}"));
        s.send(&format!("ping {i}"));
        s.send("go");
        s.until(|l| l == format!("pong {i}"));
        go_answer(&mut s, &after(&["F5"]));
    }
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn legal_names(position: &Position) -> Vec<String> {
    let mut names: Vec<String> = position
        .legal_squares()
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn ggf_moves_tagged_with_the_wrong_colour_are_refused() {
    let mut s = Server::start(&["nboard", "--level", "1"]);
    s.send(&format!("set game {}", ggf_of(&["F5"], "")));
    // Both moves tagged Black: D6 was White's. The game is refused, F5 stays (once it was
    // read as F5 D6, Black to move).
    s.send(&format!("set game (;GM[Othello]{START_BOARD}W[F5];)"));
    s.send(&format!("set game (;GM[Othello]{START_BOARD}B[F5]B[D6];)"));
    s.send("ping 1");
    s.until(|l| l == "pong 1");
    // Wait for the hint to finish before the ping that ends it.
    s.send("hint 64");
    let lines = s.until(|l| l.starts_with("nodestats"));
    let named = common::moves_named(&lines);
    assert_eq!(named, legal_names(&after(&["F5"])));
    s.finish();
}

#[test]
fn nothing_is_played_after_the_end_in_gtp() {
    let mut s = Server::start(&["gtp", "--level", "1"]);
    let mut black = true;
    for m in WIPEOUT {
        let colour = if black { "black" } else { "white" };
        assert_eq!(s.gtp(&format!("play {colour} {m}")), ["="], "{m}");
        black = !black;
    }
    let board = s.gtp("showboard");
    assert_eq!(s.gtp("final_score"), ["= B+64"]);
    for command in [
        "play black pass",
        "play white pass",
        "play white PASS",
        "play black a1",
    ] {
        let reply = s.gtp(command);
        assert!(reply[0].starts_with('?'), "{command}: {reply:?}");
    }
    assert_eq!(s.gtp("genmove white"), ["= pass"]);
    assert_eq!(s.gtp("showboard"), board, "the record did not grow");
    assert_eq!(s.gtp("final_score"), ["= B+64"]);
    // The last real move can still be taken back.
    assert_eq!(s.gtp("undo"), ["="]);
    gtp_move(&s.gtp("genmove black"), &after(&WIPEOUT[..8]));
    s.finish();
}

#[test]
fn nothing_is_played_after_the_end_in_nboard() {
    let mut s = Server::start(&["nboard", "--level", "1"]);
    s.send(&format!("set game {}", ggf_of(&WIPEOUT, "")));
    s.send("move PA");
    s.send("move PA");
    s.send("ping 1");
    s.send("go");
    assert_eq!(s.until(|l| l == "pong 1"), ["pong 1"]);
    // Over is over: the answer is a pass and the position did not change sides.
    assert_eq!(s.next(), "=== PA");
    // A GGF game with passes after the end is refused whole; the position stays.
    s.send(&format!("set game {}", ggf_of(&["F5"], "")));
    s.send(&format!("set game {}", ggf_of(&WIPEOUT, "W[PA]B[PA]")));
    s.send("ping 2");
    s.send("go");
    s.until(|l| l == "pong 2");
    go_answer(&mut s, &after(&["F5"]));
    s.finish();
}

#[test]
fn gtp_ids_beyond_64_bits_are_refused() {
    let mut s = Server::start(&["gtp"]);
    assert_eq!(
        s.gtp("18446744073709551615 name"),
        ["=18446744073709551615 othello-engine"]
    );
    let reply = s.gtp("18446744073709551616 play black f5");
    assert!(reply[0].starts_with("? syntax error: id"), "{reply:?}");
    // Refused, not run: Black is still to move at the start.
    gtp_move(&s.gtp("genmove black"), &Position::start());
    s.finish();
}

#[test]
fn gtp_quit_stops_a_long_genmove() {
    let mut s = Server::start(&["gtp", "--opening-depth", "40", "--midgame-depth", "40"]);
    s.send("genmove black");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    s.send("quit");
    let reply = s.until(str::is_empty);
    gtp_move(&reply, &Position::start());
    assert_eq!(s.until(str::is_empty), ["=", ""]);
    // A depth-40 search from the start would run for hours; quit ended it at once.
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "{:?}",
        asked.elapsed()
    );
    s.finish();
}

#[test]
fn set_depth_means_that_depth_in_every_phase() {
    // Without the book, which answers from the start without a search.
    let mut s = Server::start(&["nboard", "--no-book"]);
    s.send("nboard 2");
    assert_eq!(
        s.next(),
        format!(
            "set myname othello-engine-{}-d12",
            env!("CARGO_PKG_VERSION")
        )
    );
    s.send(&format!("set game {}", ggf_of(&[], "")));
    s.send("set depth 8");
    s.send("ping 1");
    s.send("hint 1");
    let lines = s.until(|l| l.starts_with("nodestats"));
    assert_eq!(
        lines[0],
        format!("set myname othello-engine-{}-d8", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(lines[1], "pong 1");
    let depths: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("search "))
        .filter_map(|l| l.split(' ').nth(4))
        .collect();
    // The opening phase is searched to 8 plies too (it stopped at 6 before).
    assert_eq!(depths.last(), Some(&"8"), "{lines:?}");
    // The speed NBoard shows needs a time with digits: never 0.000.
    let stats = lines.last().expect("nodestats");
    let seconds: f64 = stats
        .split(' ')
        .nth(2)
        .and_then(|t| t.parse().ok())
        .expect("seconds");
    assert!(seconds > 0.0, "{stats}");
    s.finish();
}

#[test]
fn set_depth_keeps_the_command_lines_evaluators() {
    // From the start every Black move leaves four discs against one: +3 by `discs`, -3 by
    // `discs-inverse`. `set depth` once reset the evaluators to the preset's.
    for (eval, value) in [("discs-inverse", "-3.00"), ("discs", "3.00")] {
        let mut s = Server::start(&["nboard", "--no-book", "--opening-eval", eval]);
        s.send("set depth 1");
        s.send("ping 1");
        s.send("hint 1");
        let lines = s.until(|l| l.starts_with("nodestats"));
        let search = lines
            .iter()
            .find(|l| l.starts_with("search "))
            .expect("a search line");
        assert_eq!(search.split(' ').nth(2), Some(value), "{eval}: {lines:?}");
        s.finish();
    }
}

/// NBoard's Analyze Game, in the shape NBoard 2.0 sends it (`set game`, `ping`, `analyze`):
/// one `analysis` line for every position from the end back to the start, for Black.
#[test]
fn analyze_gives_every_position_of_the_game() {
    let mut s = Server::start(&["nboard"]);
    s.send("nboard 2");
    s.send(&format!("set game {}", ggf_of(&WIPEOUT, "")));
    s.send("set depth 2");
    s.send("ping 3");
    s.send("analyze");
    let lines = s.until(|l| l.starts_with("nodestats"));
    let pong = lines.iter().position(|l| l == "pong 3").expect("pong 3");
    let analysis: Vec<(usize, f64)> = lines[pong + 1..]
        .iter()
        .filter(|l| l.starts_with("analysis "))
        .map(|l| {
            let fields: Vec<&str> = l.split(' ').collect();
            assert_eq!(fields.len(), 3, "{l}");
            assert!(!fields[2].contains(['e', 'E']), "no exponent: {l}");
            (
                fields[1].parse().expect("moves made"),
                fields[2].parse().expect("an eval"),
            )
        })
        .collect();
    let numbers: Vec<usize> = analysis.iter().map(|a| a.0).collect();
    assert_eq!(numbers, (0..=9).rev().collect::<Vec<_>>());
    // The end is Black's 64-0; the move before, Black wins it in one.
    assert_eq!(analysis[0].1, 64.0);
    assert_eq!(analysis[1].1, 64.0);
    s.finish();
}

/// The `analysis` lines of one Analyze Game of `moves` at depth 2, by moves made.
fn analysis_of(moves: &[&str]) -> Vec<String> {
    let mut s = Server::start(&["nboard", "--threads", "1"]);
    s.send("nboard 2");
    s.send(&format!("set game {}", ggf_of(moves, "")));
    s.send("set depth 2");
    s.send("ping 1");
    s.send("analyze");
    let lines = s.until(|l| l.starts_with("nodestats"));
    s.finish();
    lines
        .into_iter()
        .filter(|l| l.starts_with("analysis "))
        .collect()
}

/// In the book each position's value is its best book move's, so that two Analyze Games of
/// one game agree (they once differed by up to 2.2 discs: the value was a drawn book move's).
#[test]
fn analyze_in_the_book_gives_the_books_best_values_every_time() {
    let game = ["F5", "D6", "C3", "D3", "C4", "F4", "F6", "F3", "E6", "E7"];
    let first = analysis_of(&game);
    assert_eq!(first.len(), game.len() + 1, "{first:?}");
    for _ in 0..3 {
        assert_eq!(analysis_of(&game), first);
    }
    // The start: the book's best first move is worth what the book's best reply after f5 is
    // worth to White, negated (the book backs its values up by negamax).
    let value = |moves_made: usize| -> f64 {
        let line = &first[first.len() - 1 - moves_made];
        line.split(' ')
            .nth(2)
            .and_then(|v| v.parse().ok())
            .expect("a value")
    };
    assert_eq!(value(0), value(1), "{first:?}");
}

#[test]
fn ping_interrupts_analyze() {
    let mut s = Server::start(&["nboard"]);
    let game = ["F5", "D6", "C3", "D3", "C4", "F4", "F6", "F3", "E6", "E7"];
    s.send(&format!("set game {}", ggf_of(&game, "")));
    s.send("set depth 30");
    s.send("ping 1");
    s.send("analyze");
    s.until(|l| l == "pong 1");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    s.send("ping 2");
    let lines = s.until(|l| l.starts_with("pong"));
    assert_eq!(lines.last().map(String::as_str), Some("pong 2"));
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(s.quiet_for(Duration::from_millis(300)), None);
    // And a new request after it is answered for the game's position.
    s.send("set depth 2");
    s.send("ping 3");
    s.send("go");
    s.until(|l| l == "pong 3");
    go_answer(&mut s, &after(&game));
    s.finish();
}
