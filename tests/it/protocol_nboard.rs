//! NBoard transcripts: start-up, ping/pong ordering around running searches, `go` and `hint`
//! answers checked against the rules, passes, `set game` jumps, CRLF, junk and end of input.
//! Tests of the search run without the opening book, which answers early positions at once
//! (its lines are tested in tests/it/book.rs).

use crate::common::server::Server;
use othello_engine::board::{Move, Position};
use std::time::Duration;

const START_BOARD: &str =
    "BO[8 ---------------------------O*------*O--------------------------- *]";

fn ggf(moves: &[&str]) -> String {
    let mut text = format!(
        "(;GM[Othello]PC[NBoard]DT[2026-11-21 02:19:07 GMT]PB[]PW[]RE[?]TI[5:00]TY[8]{START_BOARD}"
    );
    let mut black = true;
    for m in moves {
        text.push_str(&format!("{}[{m}]", if black { "B" } else { "W" }));
        black = !black;
    }
    text + ";)"
}

fn after(moves: &[&str]) -> Position {
    moves.iter().fold(Position::start(), |p, m| {
        let mv: Move = m.split('/').next().unwrap_or("").parse().expect("a move");
        p.play(mv).expect("legal")
    })
}

/// Checks a `=== MOVE[/EVAL[/TIME]]` line: plain decimals, a legal move.
fn check_answer(line: &str, position: &Position) -> Move {
    let text = line.strip_prefix("=== ").expect("an === line");
    let fields: Vec<&str> = text.split('/').collect();
    assert!(fields.len() <= 3, "{line}");
    for number in &fields[1..] {
        assert!(!number.contains(['e', 'E']), "no exponent: {line}");
        number.parse::<f64>().expect("a decimal");
    }
    let mv: Move = fields[0].parse().expect("a move");
    assert!(position.is_legal(mv), "{line} in\n{position}");
    mv
}

/// Checks a `search <pv> <eval> 0 <depth>` line; returns its first move.
fn check_search(line: &str, position: &Position) -> Move {
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(fields.len(), 5, "{line}");
    assert_eq!(fields[0], "search");
    let mv: Move = fields[1].get(..2).unwrap_or("").parse().expect("a move");
    assert!(position.is_legal(mv), "{line}");
    assert!(!fields[2].contains(['e', 'E']));
    fields[2].parse::<f64>().expect("an eval");
    assert_eq!(fields[3], "0");
    let depth = fields[4].trim_end_matches("%W").trim_end_matches('%');
    depth.parse::<u32>().expect("a depth");
    mv
}

#[test]
fn start_up_and_sync() {
    let mut s = Server::start(&[]);
    s.send("nboard 2");
    assert_eq!(
        s.next(),
        format!(
            "set myname othello-engine-{}-d12",
            env!("CARGO_PKG_VERSION")
        )
    );
    s.send("this line means nothing and is ignored");
    s.send("set depth banana");
    s.send("");
    s.send_raw(b"ping 1\r\n");
    assert_eq!(s.next(), "pong 1");
    s.send("ping 5");
    assert_eq!(s.next(), "pong 5");
    s.send("learn");
    assert_eq!(s.next(), "learned");
    let (rest, stderr) = s.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn go_and_hint_give_legal_answers() {
    go_and_hint(Server::start(&["nboard", "--no-book"]));
}

/// The same session with every line ended by `\r\n`, as NBoard on Windows sends them: the same
/// answers, `\n`-ended.
#[test]
fn go_and_hint_give_legal_answers_with_crlf() {
    go_and_hint(Server::start(&["nboard", "--no-book"]).crlf());
}

fn go_and_hint(mut s: Server) {
    let moves = ["F5//2.449", "D6/0.00", "C3//1.2"];
    let position = after(&moves);
    s.send("nboard 2");
    s.send(&format!("set game {}", ggf(&moves)));
    s.send("set depth 4");
    s.send("ping 1");
    s.send("hint 4");
    let lines = s.until(|l| l.starts_with("pong"));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        lines,
        [
            format!("set myname othello-engine-{version}-d12"),
            format!("set myname othello-engine-{version}-d4"),
            "pong 1".to_string()
        ]
    );
    let lines = s.until(|l| l.starts_with("nodestats"));
    assert!(lines.len() >= 2);
    for line in &lines[..lines.len() - 1] {
        check_search(line, &position);
    }
    s.send("ping 2");
    s.send("go");
    assert_eq!(s.next(), "pong 2");
    let lines = s.until(|l| l.starts_with("==="));
    let answer = check_answer(lines.last().expect("a line"), &position);
    assert!(lines.iter().any(|l| l.starts_with("nodestats")));
    // NBoard echoes the engine's move back; the next go is for the other side.
    let next = position.play(answer).expect("legal");
    s.send(&format!("move {answer}/0.00/0.1"));
    s.send("ping 3");
    s.send("go");
    assert_eq!(s.next(), "pong 3");
    let lines = s.until(|l| l.starts_with("==="));
    check_answer(lines.last().expect("a line"), &next);
    s.finish();
}

#[test]
fn set_game_jumps_back() {
    let mut s = Server::start(&["nboard", "--level", "2"]);
    s.send("nboard 2");
    s.send(&format!("set game {}", ggf(&["F5", "D6", "C3", "D3"])));
    s.send(&format!("set game {}", ggf(&["F5"])));
    s.send("ping 1");
    s.send("go");
    s.until(|l| l == "pong 1");
    let lines = s.until(|l| l.starts_with("==="));
    check_answer(lines.last().expect("a line"), &after(&["F5"]));
    // An illegal game is refused as a whole: the position stays where it was.
    s.send(&format!("set game {}", ggf(&["F5", "A1"])));
    s.send("move z9");
    s.send("move");
    s.send("ping 2");
    s.send("go");
    s.until(|l| l == "pong 2");
    let lines = s.until(|l| l.starts_with("==="));
    check_answer(lines.last().expect("a line"), &after(&["F5"]));
    s.finish();
}

#[test]
fn forced_pass_answers_pa() {
    let mut s = Server::start(&["nboard"]);
    // Black to move with no move (the lone white disc is in the corner); White could move.
    let board = format!("BO[8 O*------{} *]", "-".repeat(56));
    s.send(&format!("set game (;GM[Othello]TI[1:00]{board};)"));
    s.send("ping 1");
    s.send("go");
    assert_eq!(s.next(), "pong 1");
    assert_eq!(s.next(), "=== PA");
    s.send("hint 1");
    assert_eq!(s.next(), "search PA 0.00 0 0");
    // The pass applied, White moves: c1 is White's only move.
    s.send("move PA");
    s.send("ping 2");
    s.send("go");
    assert_eq!(s.next(), "pong 2");
    let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
    assert!(line.starts_with("=== C1"), "{line}");
    s.finish();
}

/// A whole game of the engine against itself, as reversi-arena drives it: `go`, then the
/// answer relayed as `move`; passes included.
#[test]
fn whole_game_through_go_and_move() {
    let mut s = Server::start(&["nboard", "--level", "1"]);
    s.send("nboard 2");
    s.send(&format!("set game {}", ggf(&[])));
    let mut position = Position::start();
    let mut ping = 1;
    while !position.is_game_over() {
        s.send(&format!("ping {ping}"));
        s.send("go");
        s.until(|l| l == format!("pong {ping}"));
        let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
        let mv = check_answer(&line, &position);
        assert_eq!(mv == Move::Pass, position.must_pass(), "{line}");
        position = position.play(mv).expect("legal");
        s.send(&format!("move {}", line.trim_start_matches("=== ")));
        ping += 1;
    }
    s.finish();
}

/// `ping` during a search that would run for ages: the search stops, `pong` follows its last
/// line, and nothing of the old request comes after.
#[test]
fn ping_stops_long_go_and_hint() {
    let mut s = Server::start(&["nboard", "--no-book"]);
    s.send("nboard 2");
    s.send("set depth 60");
    s.send(&format!("set game (;GM[Othello]{START_BOARD};)"));
    s.send("ping 1");
    s.until(|l| l == "pong 1");
    for (request, ping) in [("go", 2), ("hint 4", 3)] {
        s.send(request);
        let first = s.next();
        assert!(
            first.starts_with("search "),
            "the search is running: {first}"
        );
        s.send(&format!("ping {ping}"));
        let lines = s.until(|l| l.starts_with("pong"));
        assert_eq!(
            lines.last().map(String::as_str),
            Some(format!("pong {ping}").as_str())
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("===")),
            "go cut short: {lines:?}"
        );
        assert_eq!(s.quiet_for(Duration::from_millis(300)), None);
        s.send(&format!("ping {}", ping + 10));
        assert_eq!(s.next(), format!("pong {}", ping + 10));
    }
    // End of input during a long search ends the process promptly.
    s.send("hint 1");
    assert!(s.next().starts_with("search "));
    s.finish();
}

/// A whole game against itself at depth 60 with a 3 s clock (`TI[0:03]`), the engine's own
/// reported times echoed back as NBoard does: the clock alone must keep it inside its time.
#[test]
fn whole_game_inside_a_short_clock() {
    let mut s = Server::start(&["nboard"]);
    s.send("nboard 2");
    s.send("set depth 60");
    s.send(&format!("set game (;GM[Othello]TI[0:03]{START_BOARD};)"));
    let mut left = [3.0f64, 3.0];
    let mut position = Position::start();
    let mut ping = 1;
    while !position.is_game_over() {
        let index = position.side_to_move().index();
        s.send(&format!("ping {ping}"));
        s.send("go");
        s.until(|l| l == format!("pong {ping}"));
        let started = std::time::Instant::now();
        let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
        let wall = started.elapsed().as_secs_f64();
        left[index] -= wall;
        assert!(left[index] > 0.0, "lost on time at\n{position}");
        let mv = check_answer(&line, &position);
        let reported: f64 = line
            .rsplit('/')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0.0);
        assert!(
            reported <= wall + 0.05,
            "reported time {reported} vs wall {wall}"
        );
        position = position.play(mv).expect("legal");
        s.send(&format!("move {}", line.trim_start_matches("=== ")));
        ping += 1;
    }
    s.finish();
}

/// A request arriving without a `ping` while an endless `hint` runs: the hint gives way and
/// the `go` is answered.
#[test]
fn go_after_endless_hint_without_ping() {
    let mut s = Server::start(&["nboard", "--no-book"]);
    s.send("set depth 60");
    s.send("hint 1");
    // `set myname` (the new depth), then the hint's first search line.
    assert!(s.next().starts_with("set myname "));
    assert!(s.next().starts_with("search "));
    s.send("set depth 2");
    s.send("go");
    let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
    check_answer(&line, &Position::start());
    s.finish();
}
