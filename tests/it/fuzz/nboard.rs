//! The NBoard model (protocol.md's NBoard section), the lines a GUI sends, and the loop that
//! checks an NBoard server against the model.

use super::model::{Record, decoded, integer};
use super::{Tally, junk_or};
use crate::common::rng::Rng;
use crate::common::server::Server;
use othello_engine::board::{Color, Move, Position};
use std::collections::VecDeque;

/// An NBoard line as protocol.md's grammar reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum NbLine {
    Ignored,
    NBoard,
    SetGame(String),
    Move(Move),
    SetDepth(i64),
    Contempt,
    Hint(i64),
    Go,
    Ping(i64),
    Learn,
    Analyze,
    Clear,
    Quit,
}

/// Strips `[ \t]+` (at least one).
fn blanks1(s: &str) -> Option<&str> {
    let rest = s.trim_start_matches([' ', '\t']);
    (rest.len() < s.len()).then_some(rest)
}

/// `keyword [ \t]+ integer [ \t]*` as the whole text.
fn keyword_integer(text: &str, keyword: &str) -> Option<i64> {
    let rest = blanks1(text.strip_prefix(keyword)?)?;
    let end = rest.find([' ', '\t']).unwrap_or(rest.len());
    let (number, tail) = rest.split_at(end);
    if !tail.trim_start_matches([' ', '\t']).is_empty() {
        return None;
    }
    integer(number)
}

/// `MOVE ( SEP FIELD ( SEP FIELD )? )? [ \t]*` as the whole text: the move.
fn move_item(text: &str) -> Option<Move> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(text.len());
    if end == 0 {
        return None;
    }
    let mv: Move = text[..end].parse().ok()?;
    let mut rest = &text[end..];
    for _ in 0..2 {
        let after_blanks = rest.trim_start_matches([' ', '\t']);
        let after_sep = if let Some(r) = after_blanks.strip_prefix('/') {
            r.trim_start_matches([' ', '\t'])
        } else if after_blanks.len() < rest.len() {
            after_blanks
        } else {
            break;
        };
        let field_end = after_sep
            .find(|c: char| c == '/' || c.is_whitespace())
            .unwrap_or(after_sep.len());
        rest = &after_sep[field_end..];
    }
    rest.trim_start_matches([' ', '\t'])
        .is_empty()
        .then_some(mv)
}

/// Reads one NBoard line.
pub fn nboard_line(raw: &[u8]) -> NbLine {
    let text = decoded(raw);
    let text = text.trim();
    if text.is_empty() {
        return NbLine::Ignored;
    }
    if text.starts_with("nboard") {
        return keyword_integer(text, "nboard").map_or(NbLine::Ignored, |_| NbLine::NBoard);
    }
    if let Some(rest) = text.strip_prefix("set").and_then(blanks1) {
        if let Some(game) = rest.strip_prefix("game").and_then(blanks1) {
            return NbLine::SetGame(game.to_string());
        }
        if let Some(d) = keyword_integer(rest, "depth") {
            return NbLine::SetDepth(d);
        }
        if keyword_integer(rest, "contempt").is_some() {
            return NbLine::Contempt;
        }
        return NbLine::Ignored;
    }
    if let Some(rest) = text.strip_prefix("move").and_then(blanks1) {
        return move_item(rest).map_or(NbLine::Ignored, NbLine::Move);
    }
    if text.starts_with("hint") {
        return keyword_integer(text, "hint").map_or(NbLine::Ignored, NbLine::Hint);
    }
    if text.starts_with("ping") {
        return keyword_integer(text, "ping").map_or(NbLine::Ignored, NbLine::Ping);
    }
    for (word, line) in [
        ("go", NbLine::Go),
        ("learn", NbLine::Learn),
        ("analyze", NbLine::Analyze),
        ("clear", NbLine::Clear),
        ("quit", NbLine::Quit),
    ] {
        if let Some(rest) = text
            .strip_prefix(word)
            .map(|r| r.trim_start_matches([' ', '\t']))
        {
            return if rest.is_empty() {
                line
            } else {
                NbLine::Ignored
            };
        }
    }
    move_item(text).map_or(NbLine::Ignored, NbLine::Move)
}

/// Up to `plies` random legal moves played on `record` (fewer when the game ends), as GGF move
/// tags (`B[F5]`, passes `PA`), each followed by one of `notes` (an eval, a time, or nothing).
pub(super) fn random_ggf_moves(
    rng: &mut Rng,
    record: &mut Record,
    plies: usize,
    notes: &[&str],
) -> String {
    let mut text = String::new();
    for _ in 0..plies {
        let position = record.current();
        if position.is_game_over() {
            break;
        }
        let squares = position.legal_squares();
        let mv = if squares.is_empty() {
            Move::Pass
        } else {
            Move::Play(squares[rng.below(squares.len())])
        };
        let tag = if position.side_to_move() == Color::Black {
            "B"
        } else {
            "W"
        };
        let name = match mv {
            Move::Pass => "PA".to_string(),
            Move::Play(sq) => sq.to_string().to_uppercase(),
        };
        let note = notes[rng.below(notes.len())];
        text += &format!("{tag}[{name}{note}]");
        record.push(mv, false);
    }
    text
}

/// A GGF game built from a random legal game, with the position it leaves.
fn ggf_game(rng: &mut Rng) -> (String, Position, usize) {
    let mut record = Record::new(Position::start());
    let plies = rng.below(64);
    let mut text =
        String::from("(;GM[Othello]PC[NBoard]DT[2026-11-23 10:00:00 GMT]PB[a]PW[b]RE[?]");
    text += [
        "TI[5:00]",
        "TI[1:00]",
        "TI[15:00]",
        "TI[0:03]",
        "",
        "TB[2:00]TW[1:00/0:01]",
        // Read without the clock or date: a GGF reader takes what it can.
        "TI[abc]",
        "DT[yesterday]TI[0:00,1//0:05,N1]",
    ][rng.below(8)];
    text += "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]";
    text += &random_ggf_moves(
        rng,
        &mut record,
        plies,
        &["", "//1.5", "/0.00", "/-2.50/0.1", "//0.003"],
    );
    text += ";)";
    (text, record.current(), record.moves())
}

/// NBoard lines a GUI sends, for the model's state.
fn nboard_request(rng: &mut Rng, position: Option<&Position>) -> String {
    let legal: Vec<String> = position
        .map(|p| {
            p.legal_squares()
                .iter()
                .map(|s| s.to_string().to_uppercase())
                .collect()
        })
        .unwrap_or_default();
    match rng.below(16) {
        0..=4 if !legal.is_empty() => {
            let m = &legal[rng.below(legal.len())];
            [
                format!("move {m}//1.2"),
                format!("move {m}/0.00/0.1"),
                m.clone(),
                format!("move {m} -1.00 0.0"),
            ][rng.below(4)]
            .clone()
        }
        0..=4 => "move PA".into(),
        5 => format!("set depth {}", 1 + rng.below(3)),
        6 => format!("set contempt {}", [-100, 0, 100][rng.below(3)]),
        7 => format!("ping {}", rng.below(1000)),
        8 => "go".into(),
        9 => format!("hint {}", [1, 2, 4, 64][rng.below(4)]),
        10 => "learn".into(),
        11 if rng.one_in(3) => "analyze".into(),
        11 => "clear".into(),
        12 => "nboard 2".into(),
        13 => "move z9".into(),
        14 => format!("set game {}", INVALID_GAMES[rng.below(INVALID_GAMES.len())]),
        _ => "status junk that NBoard would never send".into(),
    }
}

/// Games every reader must refuse whole: a move out of turn (with a clock too large), passes
/// after the end, an illegal move, a bad board, another game. (A clock or date it cannot read
/// is left out, the game kept: see [`ggf_game`].)
const INVALID_GAMES: [&str; 5] = [
    "(;GM[Othello]TI[99999999999999999999:00]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]B[D6];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[E6]W[F4]B[E3]W[F6]B[G5]W[D6]B[E7]W[F5]B[C5]W[PA];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[A1];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O------------------------- *];)",
    "(;GM[Chess]BO[8 ---------------------------O*------*O--------------------------- *];)",
];

/// The NBoard session as the fuzzer tracks it.
struct NbModel {
    /// The position, when the model knows it (after a set game it generated or could read).
    position: Option<Position>,
    /// Moves in the game record, when known.
    moves: Option<usize>,
    depth: u32,
    games: Vec<(String, Position, usize)>,
}

fn my_name(depth: u32) -> String {
    format!(
        "set myname othello-engine-{}-d{depth}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Checks a line a search prints against the position of its request.
fn check_search_output(line: &str, position: Option<&Position>, moves: Option<usize>) {
    let fields: Vec<&str> = line.split(' ').collect();
    match fields[0] {
        // A book move's line has the same shape, its third field the book's game count.
        "search" | "book" => {
            assert_eq!(fields.len(), 5, "{line}");
            fields[3].parse::<u64>().expect("a count");
            let mv: Move = fields[1].get(..2).unwrap_or("").parse().expect("a move");
            if let Some(p) = position {
                assert!(p.is_legal(mv), "{line} in\n{p}");
            }
            assert!(!fields[2].contains(['e', 'E']), "{line}");
            fields[2].parse::<f64>().expect("an eval");
        }
        "nodestats" => {
            assert_eq!(fields.len(), 3, "{line}");
            fields[1].parse::<u64>().expect("nodes");
            assert!(!fields[2].contains(['e', 'E']), "{line}");
            assert!(fields[2].parse::<f64>().expect("seconds") > 0.0, "{line}");
        }
        "===" => {
            let mv: Move = line[4..]
                .split('/')
                .next()
                .unwrap_or("")
                .parse()
                .expect("a move");
            if let Some(p) = position {
                assert!(
                    p.is_legal(mv) || (p.is_game_over() && mv == Move::Pass),
                    "{line} in\n{p}"
                );
            }
        }
        "analysis" => {
            assert_eq!(fields.len(), 3, "{line}");
            let n: usize = fields[1].parse().expect("moves made");
            if let Some(m) = moves {
                assert!(n <= m, "{line}: the game has {m} moves");
            }
            assert!(!fields[2].contains(['e', 'E']), "{line}");
            fields[2].parse::<f64>().expect("an eval");
        }
        _ => panic!("unexpected line from a search: {line:?}"),
    }
}

/// Fuzzes an NBoard server for `lines` lines; panics on the first disagreement.
pub fn fuzz_nboard(seed: u64, lines: usize) -> Tally {
    let mut rng = Rng(seed);
    // Without the book: `learn` would search each time, and the book's lines have tests of
    // their own (tests/it/book.rs).
    let mut s = Server::start(&["nboard", "--level", "1", "--no-book"]);
    let mut tally = Tally::default();
    let mut model = NbModel {
        position: Some(Position::start()),
        moves: Some(0),
        depth: 1,
        games: Vec::new(),
    };
    let mut ping = 1_000_000i64;
    s.send("nboard 2");
    s.send("ping 999999");
    assert_eq!(
        s.until(|l| l == "pong 999999"),
        [my_name(1), "pong 999999".into()]
    );
    while tally.lines < lines {
        // An unknown position (after a set game the model cannot read) is made known again.
        if model.position.is_none() || rng.one_in(40) {
            let (text, position, moves) = ggf_game(&mut rng);
            s.send(&format!("set game {text}"));
            tally.lines += 1;
            model.games.push((text, position, moves));
            model.position = Some(position);
            model.moves = Some(moves);
        }
        let valid = nboard_request(&mut rng, model.position.as_ref());
        let raw = junk_or(&mut rng, &mut tally, valid, ["set game (;", "", "move "]);
        let parsed = nboard_line(&raw);
        let raw = match parsed {
            NbLine::Quit => b"this line is ignored".to_vec(),
            NbLine::SetDepth(d) if d > 3 => b"this line is ignored".to_vec(),
            _ => raw,
        };
        let parsed = nboard_line(&raw);
        s.send_raw(&raw);
        s.send_raw(b"\n");
        tally.lines += 1;
        let position = model.position;
        let mut expected: VecDeque<String> = VecDeque::new();
        // The line that ends this request's output, when it must come.
        let mut end: Option<String> = None;
        let mut changed = false;
        match &parsed {
            NbLine::Ignored | NbLine::Contempt | NbLine::Clear | NbLine::Quit => {}
            NbLine::NBoard => expected.push_back(my_name(model.depth)),
            NbLine::SetDepth(d) => {
                if (1..=60).contains(d) && *d as u32 != model.depth {
                    model.depth = *d as u32;
                    expected.push_back(my_name(model.depth));
                }
            }
            NbLine::SetGame(text) => {
                if INVALID_GAMES.contains(&text.as_str()) {
                    // Refused whole: the position stays.
                } else if let Some((_, p, m)) = model.games.iter().find(|(t, _, _)| t == text) {
                    model.position = Some(*p);
                    model.moves = Some(*m);
                } else {
                    // A game the model did not write: its position is unknown from here.
                    model.position = None;
                    model.moves = None;
                }
                changed = true;
            }
            NbLine::Move(mv) => {
                if let Some(p) = model.position
                    && let Ok(next) = p.play(*mv)
                {
                    model.position = Some(next);
                    model.moves = model.moves.map(|m| m + 1);
                }
                changed = true;
            }
            NbLine::Ping(n) => end = Some(format!("pong {n}")),
            NbLine::Learn => end = Some("learned".into()),
            NbLine::Go => end = Some("===".into()),
            NbLine::Hint(n) => {
                end = match position {
                    _ if *n < 1 => None,
                    Some(p) if p.is_game_over() => None,
                    Some(p) if p.must_pass() => Some("search PA 0.00 0 0".into()),
                    Some(_) => Some("nodestats".into()),
                    // Unknown: the ping below synchronises instead.
                    None => None,
                }
            }
            NbLine::Analyze => end = Some("nodestats".into()),
        }
        let context = || {
            String::from_utf8_lossy(&raw)
                .chars()
                .take(200)
                .collect::<String>()
        };
        let mut read = |s: &mut Server, expected: &mut VecDeque<String>, until: &str| loop {
            let line = s.next();
            tally.replies += 1;
            let done = line == until
                || (until == "===" || until == "nodestats") && line.starts_with(until);
            if expected.front() == Some(&line) {
                expected.pop_front();
            } else if line.starts_with("pong ")
                || line == "learned"
                || line.starts_with("set myname")
                || line.starts_with("search PA")
            {
                assert!(
                    done,
                    "unexpected {line:?} after {:?} (expected {expected:?})",
                    context()
                );
            } else {
                check_search_output(&line, position.as_ref(), model.moves);
            }
            if done {
                break;
            }
        };
        if let Some(end) = &end {
            read(&mut s, &mut expected, end);
        }
        // Then a ping of our own: everything before it is answered, and nothing after.
        ping += 1;
        s.send(&format!("ping {ping}"));
        tally.lines += 1;
        read(&mut s, &mut expected, &format!("pong {ping}"));
        assert!(
            expected.is_empty(),
            "missing {expected:?} after {:?}",
            context()
        );
        if changed && model.position.is_some() {
            check_moves(&mut s, &model, &mut ping, &raw);
            tally.lines += 2;
            tally.position_checks += 1;
        }
    }
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
    tally
}

/// The moves `hint 64` names must be exactly the model position's legal moves.
fn check_moves(s: &mut Server, model: &NbModel, ping: &mut i64, after: &[u8]) {
    let Some(position) = model.position else {
        return;
    };
    s.send("hint 64");
    let mut lines = if position.is_game_over() {
        Vec::new()
    } else if position.must_pass() {
        s.until(|l| l.starts_with("search PA"))
    } else {
        s.until(|l| l.starts_with("nodestats"))
    };
    *ping += 1;
    s.send(&format!("ping {ping}"));
    lines.extend(s.until(|l| l == format!("pong {ping}")));
    let named = crate::common::moves_named(&lines);
    let mut legal: Vec<String> = position
        .legal_squares()
        .iter()
        .map(|s| s.to_string())
        .collect();
    if legal.is_empty() && !position.is_game_over() {
        legal.push("pa".into());
    }
    legal.sort();
    assert_eq!(
        named,
        legal,
        "position after {:?}:\n{position}\n{lines:?}",
        String::from_utf8_lossy(after)
            .chars()
            .take(200)
            .collect::<String>()
    );
}
