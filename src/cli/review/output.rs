//! What `review` writes: a table of a game's moves and a summary per player (text), the same as
//! one JSON object per game (JSON Lines), the game in GGF with each move's value in its eval
//! field (NBoard shows it), and in a batch one line per game and a table per player name.

use super::input::SourceGame;
use crate::board::{Color, Move};
use crate::game::GameRecord;
use crate::game::ggf::{tag_value, write_game};
use crate::search::{MoveReview, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// A loss of at least this many discs is a mistake.
pub const MISTAKE: f64 = 2.0;
/// A loss of at least this many discs is a blunder.
pub const BLUNDER: f64 = 6.0;

/// A reviewed game.
pub struct GameReview {
    /// The game.
    pub game: SourceGame,
    /// Its moves as the review judged them (passes left out).
    pub moves: Vec<MoveReview>,
}

/// `mistake`, `blunder` or nothing, by the loss.
fn mark(loss: f64) -> Option<&'static str> {
    if loss >= BLUNDER {
        Some("blunder")
    } else if loss >= MISTAKE {
        Some("mistake")
    } else {
        None
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// What a value rests on: the book, the solver, or a search.
fn source(value: Value, book: bool) -> &'static str {
    match value {
        _ if book => "book",
        Value::Exact(_) | Value::Wld(_) => "exact",
        Value::Estimate(_) => "search",
    }
}

/// A value in discs as the text table shows it, to the hundredth: `10.63`, not the float
/// sum's `10.629999999999999`.
fn as_shown<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    // Adding 0.0 turns a rounded -0.0 into 0.0.
    serializer.serialize_f64((value * 100.0).round() / 100.0 + 0.0)
}

/// One player's moves summed up.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayerSummary {
    /// Moves reviewed.
    pub moves: usize,
    /// Discs lost over them.
    #[serde(serialize_with = "as_shown")]
    pub total_loss: f64,
    /// Per move.
    #[serde(serialize_with = "as_shown")]
    pub mean_loss: f64,
    /// Losses of [`MISTAKE`] discs or more (blunders included).
    pub mistakes: usize,
    /// Losses of [`BLUNDER`] discs or more.
    pub blunders: usize,
    /// The three worst moves: (move number, square, loss), worst first.
    #[serde(skip)]
    pub worst: Vec<(usize, Move, f64)>,
}

impl PlayerSummary {
    fn add(&mut self, other: &PlayerSummary) {
        self.moves += other.moves;
        self.total_loss += other.total_loss;
        self.mistakes += other.mistakes;
        self.blunders += other.blunders;
        self.mean_loss = self.total_loss / self.moves.max(1) as f64;
    }
}

impl GameReview {
    /// The summary of `color`'s moves.
    pub fn summary(&self, color: Color) -> PlayerSummary {
        let mine: Vec<&MoveReview> = self.moves.iter().filter(|m| m.color == color).collect();
        // An empty sum of floats is -0.0; a player without a move lost 0.
        let total_loss: f64 = mine.iter().map(|m| m.loss).sum::<f64>() + 0.0;
        let mut worst: Vec<(usize, Move, f64)> = mine
            .iter()
            .filter(|m| m.loss > 0.0)
            .map(|m| (m.number, m.played, m.loss))
            .collect();
        worst.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        worst.truncate(3);
        PlayerSummary {
            moves: mine.len(),
            total_loss,
            mean_loss: total_loss / mine.len().max(1) as f64,
            mistakes: mine.iter().filter(|m| m.loss >= MISTAKE).count(),
            blunders: mine.iter().filter(|m| m.loss >= BLUNDER).count(),
            worst,
        }
    }

    /// Black's and White's discs at the end, when the game is over (empties to the winner).
    pub fn result(&self) -> Option<(i32, i32)> {
        let end = self.game.record.current();
        if !end.is_game_over() {
            return None;
        }
        let mover = end.final_score();
        let black = if end.side_to_move() == Color::Black {
            mover
        } else {
            -mover
        };
        Some(((64 + black) / 2, (64 - black) / 2))
    }

    /// `36-28`, or `unfinished`.
    pub fn result_text(&self) -> String {
        self.result()
            .map_or("unfinished".into(), |(b, w)| format!("{b}-{w}"))
    }

    /// Black's value of each position the review valued, by moves made: the points of the
    /// game's curve, the end (Black's margin) last when the game is over.
    pub fn black_curve(&self) -> Vec<(usize, f64)> {
        let mut points: Vec<(usize, f64)> = self
            .moves
            .iter()
            .map(|m| {
                let value = m.best_value.discs();
                let black = if m.color == Color::Black {
                    value
                } else {
                    -value
                };
                (m.index, black)
            })
            .collect();
        if let Some((b, w)) = self.result() {
            points.push((self.game.record.moves().len(), f64::from(b - w)));
        }
        points
    }
}

/// A value as the table writes it: whole discs when exact, else two decimals.
fn value_text(value: Value) -> String {
    match value {
        Value::Exact(v) => format!("{v:+}"),
        Value::Wld(v) => ["loss", "draw", "win"][(v.signum() + 1) as usize].into(),
        v => format!("{:+.2}", v.discs()),
    }
}

/// The text review of one game: a row per move, then each player's summary.
pub fn game_text(review: &GameReview) -> String {
    let game = &review.game;
    let mut out = format!(
        "{}: {} (black) vs {} (white), {}\n",
        game.label,
        game.player(Color::Black),
        game.player(Color::White),
        review.result_text()
    );
    out += &format!(
        "{:>3} {:<5} {:>6} {:>7} {:>6} {:>7} {:>6}  {:<6}\n",
        "#", "side", "played", "value", "best", "value", "loss", "by"
    );
    for m in &review.moves {
        let row = format!(
            "{:>3} {:<5} {:>6} {:>7} {:>6} {:>7} {:>6.2}  {:<6} {}",
            m.number,
            color_name(m.color),
            m.played.to_string(),
            value_text(m.played_value),
            m.best.to_string(),
            value_text(m.best_value),
            m.loss,
            source(m.best_value, m.book),
            mark(m.loss).unwrap_or(""),
        );
        out += row.trim_end();
        out.push('\n');
    }
    for color in [Color::Black, Color::White] {
        let s = review.summary(color);
        let worst: Vec<String> = s
            .worst
            .iter()
            .map(|(n, mv, loss)| format!("{n}. {mv} (-{loss:.2})"))
            .collect();
        out += &format!(
            "{} ({}): lost {:.2} discs in {} moves, {:.2} a move; {} mistakes, {} blunders; worst: {}\n",
            color_name(color),
            game.player(color),
            s.total_loss,
            s.moves,
            s.mean_loss,
            s.mistakes,
            s.blunders,
            if worst.is_empty() {
                "none".into()
            } else {
                worst.join(", ")
            }
        );
    }
    out
}

/// The one line of a game in a batch.
pub fn game_line(review: &GameReview) -> String {
    let (b, w) = (review.summary(Color::Black), review.summary(Color::White));
    format!(
        "{}: {} vs {} {}: black lost {:.2} ({} mistakes, {} blunders), white lost {:.2} ({}, {})",
        review.game.label,
        review.game.player(Color::Black),
        review.game.player(Color::White),
        review.result_text(),
        b.total_loss,
        b.mistakes,
        b.blunders,
        w.total_loss,
        w.mistakes,
        w.blunders
    )
}

/// Each player's moves over all `reviews`, by name.
pub fn totals(reviews: &[GameReview]) -> BTreeMap<String, (usize, PlayerSummary)> {
    let mut totals: BTreeMap<String, (usize, PlayerSummary)> = BTreeMap::new();
    for review in reviews {
        for color in [Color::Black, Color::White] {
            let entry = totals
                .entry(review.game.player(color).to_string())
                .or_default();
            entry.0 += 1;
            entry.1.add(&review.summary(color));
        }
    }
    totals
}

/// The batch's table: a row per player name, most moves first.
pub fn totals_text(reviews: &[GameReview]) -> String {
    let mut rows: Vec<(String, (usize, PlayerSummary))> = totals(reviews).into_iter().collect();
    rows.sort_by(|a, b| b.1.1.moves.cmp(&a.1.1.moves).then(a.0.cmp(&b.0)));
    let width = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:<width$} {:>5} {:>6} {:>10} {:>9} {:>8} {:>8}\n",
        "player", "games", "moves", "lost", "per move", "mistakes", "blunders"
    );
    for (name, (games, s)) in rows {
        out += &format!(
            "{name:<width$} {games:>5} {:>6} {:>10.2} {:>9.3} {:>8} {:>8}\n",
            s.moves, s.total_loss, s.mean_loss, s.mistakes, s.blunders
        );
    }
    out
}

/// A move in the JSON output.
#[derive(Serialize)]
struct MoveJson {
    number: usize,
    color: &'static str,
    played: String,
    #[serde(serialize_with = "as_shown")]
    played_value: f64,
    best: String,
    #[serde(serialize_with = "as_shown")]
    best_value: f64,
    #[serde(serialize_with = "as_shown")]
    loss: f64,
    by: &'static str,
    mark: Option<&'static str>,
}

/// A game in the JSON output.
#[derive(Serialize)]
struct GameJson<'a> {
    game: &'a str,
    black: &'a str,
    white: &'a str,
    black_discs: Option<i32>,
    white_discs: Option<i32>,
    moves: Vec<MoveJson>,
    black_summary: PlayerSummary,
    white_summary: PlayerSummary,
}

/// The game as one line of JSON.
pub fn game_json(review: &GameReview) -> String {
    let result = review.result();
    let json = GameJson {
        game: &review.game.label,
        black: review.game.player(Color::Black),
        white: review.game.player(Color::White),
        black_discs: result.map(|r| r.0),
        white_discs: result.map(|r| r.1),
        moves: review
            .moves
            .iter()
            .map(|m| MoveJson {
                number: m.number,
                color: color_name(m.color),
                played: m.played.to_string(),
                played_value: m.played_value.discs(),
                best: m.best.to_string(),
                best_value: m.best_value.discs(),
                loss: m.loss,
                by: source(m.best_value, m.book),
                mark: mark(m.loss),
            })
            .collect(),
        black_summary: review.summary(Color::Black),
        white_summary: review.summary(Color::White),
    };
    serde_json::to_string(&json).unwrap_or_default()
}

/// The game in GGF, each reviewed move with its value (the mover's) in its eval field.
pub fn game_ggf(review: &GameReview) -> String {
    let record = &review.game.record;
    let mut annotated = GameRecord::new(record.start());
    for (index, m) in record.moves().iter().enumerate() {
        let eval = review
            .moves
            .iter()
            .find(|r| r.index == index)
            .map(|r| r.played_value.discs());
        // The moves come from a legal record, so each plays again.
        if annotated.play(m.mv, eval, m.seconds).is_err() {
            break;
        }
    }
    let mut tags = format!(
        "PB[{}]PW[{}]",
        tag_value(review.game.player(Color::Black)),
        tag_value(review.game.player(Color::White))
    );
    if let Some((b, w)) = review.result() {
        tags += &format!("RE[{:+}]", b - w);
    }
    // Where the game came from, as a comment: NBoard refuses a file with a property it does
    // not know (`GN` was one).
    let comment = format!("CO[{}]", tag_value(&review.game.label));
    write_game(&annotated, "othello-engine review", &tags, false, &comment)
}
