//! The GTP model (protocol.md's GTP section), the lines a controller sends, and the loop that
//! checks a GTP server against the model.

use super::model::{Record, colour, decimal, decoded, integer};
use super::{Tally, junk_or};
use crate::common;
use crate::common::rng::Rng;
use crate::common::server::Server;
use othello_engine::board::{Color, Move, Position};
use othello_engine::search::Levels;
use std::collections::VecDeque;

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
