//! A protocol fuzzer with a model of `protocol.md` as its oracle.
//!
//! Lines are generated from what real clients send (valid commands built from the model's
//! position), mutated (characters replaced, dropped, doubled; Unicode letters, invalid UTF-8,
//! NUL, control characters; huge numbers; 1 MB lines) and sent to the server binary. The model
//! is written independently of the server's parsers, from the grammar protocol.md gives; only
//! the rules core (`board`), which perft and a mailbox reference check elsewhere, is shared.
//!
//! What is checked: no crash and no hang (every wait has a deadline); for GTP every reply's
//! mark (`=`/`?`) and id, and the position after every line (`showboard` against the model
//! after every change and every few lines); for NBoard every line the server writes (`pong`
//! numbers, `set myname`, `learned`, and `search`/`===`/`analysis` lines legal in the model's
//! position) and the position after every change (the set of moves a `hint 64` names).

#![allow(dead_code)]

use crate::common;
use crate::common::rng::Rng;
use crate::common::server::Server;
use othello_engine::board::{Color, Move, Position};
use othello_engine::search::Levels;
use std::collections::VecDeque;

/// Lines per protocol: `OTHELLO_FUZZ_LINES`, or `default`.
pub fn line_budget(default: usize) -> usize {
    std::env::var("OTHELLO_FUZZ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What a run saw, for the closing report.
#[derive(Debug, Default)]
pub struct Tally {
    /// Lines sent, the harness's own checks included.
    pub lines: usize,
    /// Lines the server wrote.
    pub replies: usize,
    /// Position checks made (`showboard` or `hint 64`).
    pub position_checks: usize,
    /// Lines sent that were mutated or junk.
    pub junk: usize,
}

/// Characters that stress parsers: ASCII punctuation and letters of the grammar, controls,
/// NUL, DEL, and multi-byte letters (the Kelvin sign lower-cases to an ASCII letter).
const ALPHABET: &[char] = &[
    'a',
    'b',
    'k',
    'p',
    's',
    'z',
    'A',
    'H',
    'K',
    'P',
    '0',
    '1',
    '8',
    '9',
    '-',
    '+',
    '/',
    '.',
    ' ',
    '\t',
    '\r',
    '#',
    '[',
    ']',
    '(',
    ';',
    ')',
    '*',
    'O',
    '\u{0}',
    '\u{7}',
    '\u{7f}',
    'é',
    '∞',
    '=',
    '?',
    '\u{212a}',
    '\u{1F600}',
    'ß',
    'İ',
];

/// `line` with one to three random edits, as bytes (some edits insert invalid UTF-8).
pub fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(chars.len() + 1);
        let c = ALPHABET[rng.below(ALPHABET.len())];
        match rng.below(7) {
            0 if at < chars.len() => chars[at] = c,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 => chars.truncate(at),
            3 => {
                let copy = chars.clone();
                chars.extend(copy);
            }
            4 => {
                let digits = "9".repeat(1 + rng.below(40));
                chars.splice(at..at, digits.chars());
            }
            _ => chars.insert(at, c),
        }
    }
    let mut bytes = chars.into_iter().collect::<String>().into_bytes();
    if rng.one_in(20) {
        let at = rng.below(bytes.len() + 1);
        bytes.insert(at, [0xff, 0xc3, 0x80, 0xe2][rng.below(4)]);
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

/// The line to send: `valid` half the time, else a mutation of it, of nothing, or (rarely) a
/// megabyte line starting with one of `heads`; counts the junk.
fn junk_or(rng: &mut Rng, tally: &mut Tally, valid: String, heads: [&str; 3]) -> Vec<u8> {
    if rng.below(10) < 5 {
        return valid.into_bytes();
    }
    tally.junk += 1;
    match rng.below(5) {
        0..=3 => mutate(rng, &valid),
        _ if rng.one_in(200) => {
            let head = heads[rng.below(3)];
            huge_line(rng, head)
        }
        _ => mutate(rng, ""),
    }
}

/// A line of about a megabyte.
pub fn huge_line(rng: &mut Rng, head: &str) -> Vec<u8> {
    let mut bytes = head.as_bytes().to_vec();
    let filler = [b"a".as_slice(), b"9", b" ", b"\xff"][rng.below(4)];
    while bytes.len() < 1 << 20 {
        bytes.extend_from_slice(filler);
    }
    bytes
}

/// The text of a line as the server reads it: invalid UTF-8 replaced, the line end dropped.
fn decoded(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    text.trim_end_matches('\n')
        .trim_end_matches('\r')
        .to_string()
}

/// `[+-]?[0-9]+` as an i64.
fn integer(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// `[+-]?[0-9]*(\.[0-9]*)?` as a number (no exponent, no `inf`).
fn decimal(token: &str) -> Option<f64> {
    let body = token.strip_prefix(['+', '-']).unwrap_or(token);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    token.parse().ok()
}

fn colour(token: &str) -> Option<Color> {
    match token.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// A game as a server keeps it: positions, and which moves were inferred passes.
#[derive(Clone, Debug)]
pub struct Record {
    positions: Vec<Position>,
    inferred: Vec<bool>,
}

impl Record {
    fn new(start: Position) -> Record {
        Record {
            positions: vec![start],
            inferred: Vec::new(),
        }
    }

    /// The position now.
    pub fn current(&self) -> Position {
        self.positions[self.positions.len() - 1]
    }

    fn push(&mut self, mv: Move, inferred: bool) -> bool {
        match self.current().play(mv) {
            Ok(next) => {
                self.positions.push(next);
                self.inferred.push(inferred);
                true
            }
            Err(_) => false,
        }
    }

    fn undo(&mut self) -> bool {
        if self.inferred.is_empty() {
            return false;
        }
        self.positions.pop();
        self.inferred.pop();
        while self.inferred.last() == Some(&true) {
            self.positions.pop();
            self.inferred.pop();
        }
        true
    }

    /// Moves played, passes included.
    pub fn moves(&self) -> usize {
        self.inferred.len()
    }
}

// ---------------------------------------------------------------------------------------------
// GTP

/// What a GTP line does to the session.
#[derive(Clone, Debug, PartialEq)]
pub enum GtpEffect {
    None,
    Play(Color, Move),
    GenMove(Color),
    Undo,
    Clear,
    Quit,
    Levels(Levels),
}

/// The model's verdict on one GTP line: no reply, or a reply with this id and mark.
#[derive(Clone, Debug, PartialEq)]
pub struct GtpExpect {
    pub id: Option<u64>,
    pub ok: bool,
    pub effect: GtpEffect,
}

/// The GTP session as protocol.md describes it.
pub struct GtpModel {
    pub record: Record,
    pub levels: Levels,
}

impl GtpModel {
    pub fn new(levels: Levels) -> GtpModel {
        GtpModel {
            record: Record::new(Position::start()),
            levels,
        }
    }

    /// The reply a line must get (`None`: an empty line after preprocessing, no reply).
    pub fn classify(&self, raw: &[u8]) -> Option<GtpExpect> {
        // Preprocessing: drop the comment, remove controls but HT, HT to space.
        let text = decoded(raw);
        let text: String = text
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_control() || *c == '\t')
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let refuse = |id| {
            Some(GtpExpect {
                id,
                ok: false,
                effect: GtpEffect::None,
            })
        };
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return refuse(text.parse().ok());
        }
        let mut tokens: VecDeque<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
        let mut id = None;
        if tokens.len() > 1 && tokens[0].bytes().all(|b| b.is_ascii_digit()) {
            match tokens[0].parse::<u64>() {
                Ok(n) => id = Some(n),
                Err(_) => return refuse(None),
            }
            tokens.pop_front();
        }
        let name = tokens.pop_front().unwrap_or("");
        let args: Vec<&str> = tokens.into_iter().collect();
        let (ok, effect) = self.command(name, &args);
        Some(GtpExpect { id, ok, effect })
    }

    fn command(&self, name: &str, args: &[&str]) -> (bool, GtpEffect) {
        use GtpEffect as E;
        let none = |ok| (ok, E::None);
        let position = self.record.current();
        match (name, args) {
            (
                "protocol_version"
                | "name"
                | "version"
                | "list_commands"
                | "showboard"
                | "list_games"
                | "othello-engine-levels",
                [],
            ) => none(true),
            ("quit", []) => (true, E::Quit),
            ("clear_board", []) => (true, E::Clear),
            ("undo", []) => (self.record.moves() > 0, E::Undo),
            ("final_score", []) => none(position.is_game_over()),
            ("known_command", [_]) => none(true),
            ("boardsize", [n]) => none(integer(n) == Some(8)),
            ("komi", [x]) => none(decimal(x).is_some()),
            ("set_game", [g]) => none(g.eq_ignore_ascii_case("othello")),
            ("play", [c, m]) => match (colour(c), m.parse::<Move>()) {
                (Some(c), Ok(mv)) => (self.can_play(c, mv), E::Play(c, mv)),
                _ => none(false),
            },
            ("genmove" | "reg_genmove", [c]) => match colour(c) {
                Some(c) => {
                    let ok = position.is_game_over()
                        || position.side_to_move() == c
                        || position.must_pass();
                    if name == "genmove" {
                        (ok, E::GenMove(c))
                    } else {
                        none(ok)
                    }
                }
                None => none(false),
            },
            ("time_settings", [main, period, stones]) => {
                none(seconds(main) && seconds(period) && stones_ok(stones))
            }
            ("time_left", [c, left, stones]) => {
                none(colour(c).is_some() && seconds(left) && stones_ok(stones))
            }
            ("othello-engine-set", [setting, value]) => {
                let mut levels = self.levels;
                match levels.set(setting, value) {
                    Ok(()) => (true, E::Levels(levels)),
                    Err(_) => none(false),
                }
            }
            _ => none(false),
        }
    }

    fn can_play(&self, c: Color, mv: Move) -> bool {
        let mut record = self.record.clone();
        record.apply_play(c, mv)
    }

    /// Carries out an accepted line, given the server's reply text (for `genmove`).
    pub fn apply(&mut self, effect: &GtpEffect, reply: &str) -> Result<(), String> {
        match effect {
            GtpEffect::Play(c, mv) => {
                if !self.record.apply_play(*c, *mv) {
                    return Err(format!("model: play {c:?} {mv} accepted but illegal"));
                }
            }
            GtpEffect::GenMove(c) => {
                let mv: Move = reply
                    .split_once(' ')
                    .map_or("", |(_, text)| text)
                    .parse()
                    .map_err(|_| format!("genmove reply {reply:?} is no move"))?;
                let position = self.record.current();
                if position.is_game_over() {
                    if mv != Move::Pass {
                        return Err(format!("genmove after the end gave {mv}"));
                    }
                } else if !self.record.apply_play(*c, mv) {
                    return Err(format!("genmove gave an illegal move {mv} in\n{position}"));
                }
            }
            GtpEffect::Undo => {
                self.record.undo();
            }
            GtpEffect::Clear => self.record = Record::new(Position::start()),
            GtpEffect::Levels(levels) => self.levels = *levels,
            GtpEffect::None | GtpEffect::Quit => {}
        }
        Ok(())
    }
}

impl Record {
    /// GTP's play: an implicit pass of the other side first when it has no move.
    fn apply_play(&mut self, c: Color, mv: Move) -> bool {
        let position = self.current();
        if position.is_game_over() {
            return false;
        }
        let mut next = self.clone();
        if position.side_to_move() != c && (!position.must_pass() || !next.push(Move::Pass, true)) {
            return false;
        }
        if !next.push(mv, false) {
            return false;
        }
        *self = next;
        true
    }
}

fn seconds(token: &str) -> bool {
    decimal(token).is_some_and(|s| s.is_finite() && s >= 0.0)
}

fn stones_ok(token: &str) -> bool {
    integer(token).is_some_and(|n| u32::try_from(n).is_ok())
}

/// Settings the fuzzer lets through: anything slower than an instant reply is replaced.
fn quick(levels: &Levels) -> bool {
    levels.opening.depth <= 3 && levels.midgame.depth <= 3 && levels.endgame_empties <= 12
}

/// GTP lines a controller sends, built for the model's position.
fn gtp_line(rng: &mut Rng, model: &GtpModel) -> String {
    let position = model.record.current();
    let side = common::colour(position.side_to_move());
    let other = common::colour(position.side_to_move().opponent());
    let legal: Vec<String> = position
        .legal_squares()
        .iter()
        .map(|s| {
            if rng.one_in(2) {
                s.to_string().to_uppercase()
            } else {
                s.to_string()
            }
        })
        .collect();
    let mut line = match rng.below(24) {
        0..=6 if !legal.is_empty() => {
            let short = if rng.one_in(3) { &side[..1] } else { side };
            format!("play {short} {}", legal[rng.below(legal.len())])
        }
        0..=6 => format!("play {other} a1"),
        7 | 8 => format!("genmove {side}"),
        9 => format!("reg_genmove {}", if rng.one_in(2) { side } else { other }),
        10 => "undo".into(),
        11 if rng.one_in(4) || position.is_game_over() => "clear_board".into(),
        11 | 12 => "showboard".into(),
        13 => "final_score".into(),
        14 => format!(
            "time_settings {} {} {}",
            rng.below(600),
            rng.below(30),
            rng.below(25)
        ),
        15 => format!(
            "time_left {side} {}.{} {}",
            rng.below(300),
            rng.below(10),
            rng.below(3)
        ),
        16 => format!("play {side} pass"),
        17 => format!(
            "play {other} {}",
            ["pass", "PA", "c4", "z9", "--"][rng.below(5)]
        ),
        18 => format!(
            "othello-engine-set {} {}",
            [
                "level",
                "midgame-depth",
                "opening-eval",
                "endgame-mode",
                "midgame-eval"
            ][rng.below(5)],
            ["1", "2", "3", "pattern", "wld", "exact", "discs", "x"][rng.below(8)]
        ),
        19 => [
            "name",
            "version",
            "protocol_version",
            "list_commands",
            "list_games",
        ][rng.below(5)]
        .into(),
        20 => format!(
            "{} {}",
            ["known_command", "boardsize", "komi", "set_game"][rng.below(4)],
            ["8", "19", "othello", "Othello", "6.5", "genmove", "-0"][rng.below(7)]
        ),
        21 => format!("time_left {side} 99999999999999999999 0"),
        22 => format!(
            "genmove {}",
            ["blac\u{212a}", "whit\u{e9}", "BLACK", "W"][rng.below(4)]
        ),
        _ => "othello-engine-levels".into(),
    };
    if rng.one_in(4) {
        let id = match rng.below(6) {
            0 => "18446744073709551615".to_string(),
            1 => "18446744073709551616".to_string(),
            2 => "99999999999999999999999999".to_string(),
            _ => rng.below(100_000).to_string(),
        };
        line = format!("{id} {line}");
    }
    if rng.one_in(10) {
        line.push_str(" # a comment");
    }
    line
}

/// Fuzzes a GTP server for `lines` lines; panics on the first disagreement with the model.
pub fn fuzz_gtp(seed: u64, lines: usize) -> Tally {
    let mut rng = Rng(seed);
    let start_levels = Levels::preset(1).expect("level 1");
    let mut s = Server::start(&["gtp", "--level", "1"]);
    let mut model = GtpModel::new(start_levels);
    let mut tally = Tally::default();
    let mut since_check = 0;
    while tally.lines < lines {
        let valid = gtp_line(&mut rng, &model);
        let mut raw = junk_or(
            &mut rng,
            &mut tally,
            valid,
            ["play black ", "", "1 genmove "],
        );
        let mut expect = model.classify(&raw);
        // Lines that would end the session or make searches slow are replaced.
        let harmful = match expect.as_ref().map(|e| &e.effect) {
            Some(GtpEffect::Quit) => true,
            Some(GtpEffect::Levels(l)) => !quick(l),
            _ => false,
        };
        if harmful {
            raw = b"name".to_vec();
            expect = model.classify(&raw);
        }
        s.send_raw(&raw);
        s.send_raw(b"\n");
        tally.lines += 1;
        since_check += 1;
        let Some(expect) = expect else {
            continue;
        };
        let reply = read_gtp_reply(&mut s);
        tally.replies += 1;
        check_gtp_head(&reply, &expect, &raw);
        let changed = expect.ok && expect.effect != GtpEffect::None;
        if expect.ok
            && let Err(e) = model.apply(&expect.effect, &reply[0])
        {
            panic!("{e}\nline: {:?}", String::from_utf8_lossy(&raw));
        }
        if changed || since_check >= 25 {
            since_check = 0;
            check_showboard(&mut s, &model, &raw);
            tally.lines += 1;
            tally.replies += 1;
            tally.position_checks += 1;
        }
    }
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
    tally
}

fn read_gtp_reply(s: &mut Server) -> Vec<String> {
    let mut reply = s.until(str::is_empty);
    reply.pop();
    reply
}

fn check_gtp_head(reply: &[String], expect: &GtpExpect, raw: &[u8]) {
    let line = || {
        String::from_utf8_lossy(raw)
            .chars()
            .take(200)
            .collect::<String>()
    };
    let head = reply.first().map(String::as_str).unwrap_or("");
    let mark = if expect.ok { '=' } else { '?' };
    let prefix = format!(
        "{mark}{}",
        expect.id.map(|i| i.to_string()).unwrap_or_default()
    );
    let rest = head.strip_prefix(&prefix);
    assert!(
        rest.is_some_and(|r| r.is_empty() || r.starts_with(' ')),
        "expected a reply starting {prefix:?}, got {reply:?}\nline: {:?}",
        line()
    );
}

fn check_showboard(s: &mut Server, model: &GtpModel, after: &[u8]) {
    let reply = s.gtp("showboard");
    let board = model.record.current().to_string();
    let expected: Vec<&str> = board.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        reply.get(1..).unwrap_or(&[]),
        expected.as_slice(),
        "position after {:?}",
        String::from_utf8_lossy(after)
            .chars()
            .take(200)
            .collect::<String>()
    );
}

// ---------------------------------------------------------------------------------------------
// NBoard

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
    ][rng.below(6)];
    text += "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]";
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
        let notes = ["", "//1.5", "/0.00", "/-2.50/0.1", "//0.003"][rng.below(5)];
        text += &format!("{tag}[{name}{notes}]");
        record.push(mv, false);
    }
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

/// Games every reader must refuse whole: a move out of turn, passes after the end, an
/// illegal move, a bad board, a bad clock.
const INVALID_GAMES: [&str; 5] = [
    "(;GM[Othello]TI[99999999999999999999:00]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]B[D6];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[E6]W[F4]B[E3]W[F6]B[G5]W[D6]B[E7]W[F5]B[C5]W[PA];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[A1];)",
    "(;GM[Othello]BO[8 ---------------------------O*------*O------------------------- *];)",
    "(;GM[Othello]TI[abc]BO[8 ---------------------------O*------*O--------------------------- *];)",
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
