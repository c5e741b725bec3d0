//! Match records: each game in GGF (which NBoard opens) and a machine-readable summary in
//! JSON or CSV.

use super::referee::Ending;
use super::runner::{MatchConfig, PairingScore, Played};
use crate::board::{Color, Move, Position};
use std::fmt::Write as _;

/// A GGF tag value: GGF has no escapes, so `]` cannot appear.
fn ggf_value(text: &str) -> String {
    text.replace(']', ")")
}

/// The GGF board: `8`, 64 cells (`*` black, `O` white, `-` empty) and the side to move:
/// the OBF form with black written `*`.
fn ggf_board(position: &Position) -> String {
    format!("8 {}", position.to_obf().replace('X', "*"))
}

/// One game in GGF: players, clock, start board, the opening moves, then the engines' moves
/// with their times, and the result (black's margin; `:t` after a timeout, `:r` after any
/// other forfeit, with the reason as a comment).
pub fn write_ggf(played: &Played, config: &MatchConfig) -> String {
    let game = &played.game;
    let date = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let result = match &game.ending {
        Ending::Finished => format!("{:+}", game.black_margin),
        Ending::Forfeit { reason, .. } if reason.starts_with("timeout") => {
            format!("{:+}:t", game.black_margin)
        }
        Ending::Forfeit { .. } => format!("{:+}:r", game.black_margin),
    };
    let mut out = format!(
        "(;GM[Othello]PC[othello-engine match]DT[{date}]PB[{}]PW[{}]RE[{result}]TI[{}]TY[8]BO[{}]",
        ggf_value(&config.engines[played.black].name),
        ggf_value(&config.engines[played.white].name),
        config.control.ggf_clock(),
        ggf_board(&Position::start())
    );
    let mut position = Position::start();
    let opening = game.opening.moves.iter().map(|&m| (m, None));
    for (mv, time) in opening.chain(game.moves.iter().copied()) {
        let tag = match position.side_to_move() {
            Color::Black => 'B',
            Color::White => 'W',
        };
        let text = match mv {
            Move::Pass => "PA".to_string(),
            Move::Play(sq) => sq.to_string().to_ascii_uppercase(),
        };
        match time {
            Some(t) => {
                let _ = write!(out, "{tag}[{text}//{:.3}]", t.as_secs_f64());
            }
            None => {
                let _ = write!(out, "{tag}[{text}]");
            }
        }
        position = position.play(mv).unwrap_or(position);
    }
    if let Ending::Forfeit { side, reason } = &game.ending {
        let _ = write!(out, "CO[{side} forfeits: {}]", ggf_value(reason));
    }
    out.push_str(";)");
    out
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, or `null` for infinities (a 100% score has no finite Elo).
fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    }
}

/// A CSV field, quoted when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn reason(played: &Played) -> String {
    match &played.game.ending {
        Ending::Finished => String::new(),
        Ending::Forfeit { side, reason } => format!("{side} forfeits: {reason}"),
    }
}

/// Writes the summary to `path`: JSON (engines, pairings with their statistics, games) when it
/// ends in `.json`, otherwise CSV with one row per game.
pub fn write_results(
    path: &str,
    config: &MatchConfig,
    scores: &[PairingScore],
    games: &[Played],
) -> std::io::Result<()> {
    let name = |i: usize| config.engines[i].name.as_str();
    let text = if path.ends_with(".json") {
        let engines: Vec<String> = config
            .engines
            .iter()
            .map(|e| json_string(&e.name))
            .collect();
        let pairings: Vec<String> = scores
            .iter()
            .map(|s| {
                let elo = s.wdl.elo();
                let penta_elo = s.penta.elo();
                let field = |e: Option<super::stats::EloEstimate>, f: fn(&super::stats::EloEstimate) -> f64| {
                    e.as_ref().map_or("null".into(), |e| json_number(f(e)))
                };
                format!(
                    "{{\"first\": {}, \"second\": {}, \"wins\": {}, \"draws\": {}, \"losses\": {}, \"mean_disc_margin\": {}, \"elo\": {}, \"elo_low\": {}, \"elo_high\": {}, \"pentanomial\": [{}], \"penta_elo\": {}, \"los\": {}}}",
                    json_string(name(s.engines.0)),
                    json_string(name(s.engines.1)),
                    s.wdl.wins,
                    s.wdl.draws,
                    s.wdl.losses,
                    json_number(s.mean_discs()),
                    field(elo, |e| e.elo),
                    field(elo, |e| e.low),
                    field(elo, |e| e.high),
                    s.penta.0.map(|c| c.to_string()).join(", "),
                    field(penta_elo, |e| e.elo),
                    s.wdl.los().map_or("null".into(), json_number),
                )
            })
            .collect();
        let rows: Vec<String> = games
            .iter()
            .map(|p| {
                format!(
                    "{{\"game\": {}, \"opening\": {}, \"black\": {}, \"white\": {}, \"black_margin\": {}, \"forfeit\": {}}}",
                    p.number,
                    json_string(&p.game.opening.to_string()),
                    json_string(name(p.black)),
                    json_string(name(p.white)),
                    p.game.black_margin,
                    match reason(p).as_str() {
                        "" => "null".into(),
                        r => json_string(r),
                    }
                )
            })
            .collect();
        format!(
            "{{\n\"engines\": [{}],\n\"pairings\": [\n{}\n],\n\"games\": [\n{}\n]\n}}\n",
            engines.join(", "),
            pairings.join(",\n"),
            rows.join(",\n")
        )
    } else {
        let mut text = String::from("game,opening,black,white,black_margin,forfeit\n");
        for p in games {
            let _ = writeln!(
                text,
                "{},{},{},{},{},{}",
                p.number,
                p.game.opening,
                csv_field(name(p.black)),
                csv_field(name(p.white)),
                p.game.black_margin,
                csv_field(&reason(p))
            );
        }
        text
    };
    std::fs::write(path, text)
}
