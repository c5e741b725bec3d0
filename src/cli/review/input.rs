//! The games `review` is given: GGF files (one game or many), WTHOR files (every game, or those
//! `--wthor-game` names; the players' names from `WTHOR.JOU` beside the file), text files of
//! transcripts (one game a line), or a transcript on the command line (`f5d6c3d3c4...`).

use crate::board::Color;
use crate::game::GameRecord;
use crate::game::ggf::parse_ggf_games;
use crate::game::wthor::{WthorFile, parse_wthor, parse_wthor_names};
use std::ops::RangeInclusive;
use std::path::Path;

/// A game to review, with where it came from.
#[derive(Clone, Debug)]
pub struct SourceGame {
    /// Where it is: `file.ggf #3`, `WTH_2019.wtb #17`, `moves`.
    pub label: String,
    /// Black's name, then White's (`?` when the source gives none).
    pub players: [String; 2],
    /// The game.
    pub record: GameRecord,
}

impl SourceGame {
    /// The player of `color`.
    pub fn player(&self, color: Color) -> &str {
        match color {
            Color::Black => &self.players[0],
            Color::White => &self.players[1],
        }
    }
}

/// A player whose name the source does not give.
const UNNAMED: &str = "?";

/// The games of one GAME argument, and a line for each game that could not be read (its
/// label and reason). `wthor_games` picks games of WTHOR files by number (1-based).
pub fn games_of(
    argument: &str,
    wthor_games: Option<&RangeInclusive<usize>>,
) -> Result<(Vec<SourceGame>, Vec<String>), String> {
    let path = Path::new(argument);
    if !path.exists() {
        return GameRecord::from_transcript(argument)
            .map(|record| {
                let game = SourceGame {
                    label: "moves".into(),
                    players: [UNNAMED.into(), UNNAMED.into()],
                    record,
                };
                (vec![game], Vec::new())
            })
            .map_err(|e| format!("'{argument}' is neither a file nor a transcript ({e})"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {argument}: {e}"))?;
    let name = path
        .file_name()
        .map_or(argument.into(), |n| n.to_string_lossy().into_owned());
    if name.to_ascii_lowercase().ends_with(".wtb") {
        let file = parse_wthor(&bytes).map_err(|e| format!("{argument}: {e}"))?;
        return Ok(wthor_games_of(&file, &name, path, wthor_games));
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut games = Vec::new();
    let mut refused = Vec::new();
    if text.contains("(;") {
        for (i, game) in parse_ggf_games(&text).into_iter().enumerate() {
            let label = format!("{name} #{}", i + 1);
            match game {
                Ok(game) => {
                    for what in &game.skipped {
                        log::warn!("{label}: {what}");
                    }
                    let named = |n: &String| {
                        if n.is_empty() {
                            UNNAMED.into()
                        } else {
                            n.clone()
                        }
                    };
                    games.push(SourceGame {
                        label,
                        players: [named(&game.players[0]), named(&game.players[1])],
                        record: game.record,
                    });
                }
                Err(e) => refused.push(format!("{label}: {}", e.0)),
            }
        }
        return Ok((games, refused));
    }
    for (i, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let label = format!("{name} line {}", i + 1);
        match GameRecord::from_transcript(line) {
            Ok(record) => games.push(SourceGame {
                label,
                players: [UNNAMED.into(), UNNAMED.into()],
                record,
            }),
            Err(e) => refused.push(format!("{label}: {e}")),
        }
    }
    if games.is_empty() && refused.is_empty() {
        return Err(format!("{argument}: no game in it"));
    }
    Ok((games, refused))
}

/// The games of a WTHOR file, named from the `WTHOR.JOU` beside it when it reads.
fn wthor_games_of(
    file: &WthorFile,
    name: &str,
    path: &Path,
    wanted: Option<&RangeInclusive<usize>>,
) -> (Vec<SourceGame>, Vec<String>) {
    let names = path
        .parent()
        .map(|dir| dir.join("WTHOR.JOU"))
        .and_then(|jou| std::fs::read(jou).ok())
        .and_then(|bytes| parse_wthor_names(&bytes, 20).ok())
        .unwrap_or_default();
    let player = |number: u16| {
        names
            .get(usize::from(number))
            .cloned()
            .unwrap_or_else(|| format!("player {number}"))
    };
    let mut games = Vec::new();
    let mut refused = Vec::new();
    for (i, game) in file.games.iter().enumerate() {
        let number = i + 1;
        if wanted.is_some_and(|w| !w.contains(&number)) {
            continue;
        }
        let label = format!("{name} #{number}");
        let transcript: String = game.moves.iter().map(|s| s.to_string()).collect();
        match GameRecord::from_transcript(&transcript) {
            Ok(record) => games.push(SourceGame {
                label,
                players: [player(game.players[0]), player(game.players[1])],
                record,
            }),
            Err(e) => refused.push(format!("{label}: {e}")),
        }
    }
    if let Some(w) = wanted
        && *w.start() > file.games.len()
    {
        refused.push(format!(
            "{name}: no game {} (the file has {})",
            w.start(),
            file.games.len()
        ));
    }
    (games, refused)
}
