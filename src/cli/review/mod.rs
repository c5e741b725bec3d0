//! `othello-engine review GAME...`: where each game was won and lost. Every position is valued
//! from the last back to the first (`Searcher::review`), and each move gets the best move's
//! value, the played move's value and the loss between them, from the mover's view.
//!
//! * `input`: the games of each GAME argument (GGF, WTHOR, transcripts).
//! * `output`: the table, the JSON lines, the annotated GGF, the batch's totals.
//! * `svg`: the picture of a game.
//!
//! One game prints its whole table; a batch prints a line per game as it finishes and a table
//! per player name at the end, with a progress bar on stderr. A game that cannot be read is
//! named on stderr and skipped (exit status 1 at the end); SIGINT or SIGTERM stops the review
//! after the position under way, and what is finished is printed.

mod input;
mod output;
mod svg;

use super::args::{LevelArgs, error};
use super::error::CliError;
use crate::search::Limits;
use crate::sys::progress::Progress;
use clap::{Args, ValueEnum};
use output::GameReview;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The search time per position when no depth is set.
const DEFAULT_SECONDS: f64 = 0.5;

/// The output's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A table per game (a line per game in a batch) and each player's summary.
    Text,
    /// One JSON object per game and line.
    Json,
    /// Each game in GGF with every move's value in its eval field, one game a line.
    Ggf,
}

/// Arguments of `review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The games: GGF files (one or many games), WTHOR files (.wtb), text files of transcripts
    /// (a game a line), or a transcript itself (`f5d6c3d3c4...`, passes optional).
    #[arg(value_name = "GAME", required = true)]
    games: Vec<String>,
    /// Of WTHOR files, only game N, or games N to M (`--wthor-game 1-100`), counted from 1.
    #[arg(long, value_name = "N[-M]", value_parser = game_numbers)]
    wthor_game: Option<RangeInclusive<usize>>,
    /// Seconds of search per position (default 0.5; with a depth flag, none unless given).
    #[arg(long, value_name = "S", value_parser = seconds, allow_hyphen_values = true)]
    time: Option<f64>,
    /// Output: text, json (a line per game) or ggf (a line per game, values in the moves).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Also draw Black's value over the game to FILE (SVG); in a batch FILE-1.svg, FILE-2.svg...
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    #[command(flatten)]
    levels: LevelArgs,
}

/// `N` or `N-M`, from 1.
fn game_numbers(text: &str) -> Result<RangeInclusive<usize>, String> {
    let bad = || format!("bad --wthor-game '{text}': expected N or N-M, counted from 1");
    let (first, last) = text.split_once('-').unwrap_or((text, text));
    let first: usize = first.trim().parse().map_err(|_| bad())?;
    let last: usize = last.trim().parse().map_err(|_| bad())?;
    if first == 0 || last < first {
        return Err(bad());
    }
    Ok(first..=last)
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 1e6 => Ok(s),
        _ => Err(format!("bad --time '{text}': expected seconds above 0")),
    }
}

/// The SVG file of game `number` of `count`.
fn svg_path(path: &Path, number: usize, count: usize) -> PathBuf {
    if count == 1 {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or("review".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}-{number}.svg"))
}

/// Reviews and prints; `Ok(false)` when a game could not be read.
pub fn run(args: ReviewArgs) -> Result<bool, CliError> {
    let mut games = Vec::new();
    let mut refused = Vec::new();
    for argument in &args.games {
        let (read, bad) = input::games_of(argument, args.wthor_game.as_ref()).map_err(error)?;
        games.extend(read);
        refused.extend(bad);
    }
    for line in &refused {
        eprintln!("review: skipped {line}");
    }
    if let Some(path) = &args.svg {
        crate::sys::files::check_writable(path)
            .map_err(|e| error(format!("cannot write {}: {e}", path.display())))?;
    }
    args.levels.install_weights()?;
    crate::search::warm_up();
    let levels = args.levels.levels();
    let seconds = match (args.time, levels.time_decides) {
        (Some(s), _) => Some(s),
        (None, true) => Some(DEFAULT_SECONDS),
        (None, false) => None,
    };
    let stop = crate::cli::error::catch_signals()?;
    let limits_for = || Limits {
        stop: stop.clone(),
        ..seconds.map_or(Limits::none(), |s| {
            Limits::time(Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX))
        })
    };
    let batch = games.len() > 1;
    let total: usize = games.iter().map(|g| g.record.positions().len()).sum();
    let mut progress = batch.then(|| Progress::new("review", "positions", total, 0));
    let mut searcher = args.levels.searcher();
    let mut reviews: Vec<GameReview> = Vec::new();
    let mut done = 0;
    for (number, game) in games.iter().enumerate() {
        let positions = game.record.positions();
        let moves: Vec<_> = game.record.moves().iter().map(|m| m.mv).collect();
        let note = format!("game {} of {}", number + 1, games.len());
        let reviewed = searcher.review(positions, &moves, &levels, &limits_for, &mut |n| {
            if let Some(p) = progress.as_mut() {
                p.show(done + n, &note);
            }
            !stop.load(Ordering::Relaxed)
        });
        let Some(moves) = reviewed else { break };
        done += positions.len();
        let review = GameReview {
            game: game.clone(),
            moves,
        };
        let shown = match args.format {
            Format::Text if batch => output::game_line(&review),
            Format::Text => output::game_text(&review).trim_end().to_string(),
            Format::Json => output::game_json(&review),
            Format::Ggf => output::game_ggf(&review),
        };
        match &progress {
            Some(p) => p.suspend(|| println!("{shown}")),
            None => println!("{shown}"),
        }
        if let Some(path) = &args.svg {
            svg::write_svg(&review, &svg_path(path, number + 1, games.len())).map_err(error)?;
        }
        reviews.push(review);
    }
    if let Some(p) = &progress {
        p.finish();
    }
    if batch && args.format == Format::Text && !reviews.is_empty() {
        println!("\n{}", output::totals_text(&reviews).trim_end());
    }
    crate::sys::signals::exit_if_caught(
        "review",
        &format!("{} of {} games reviewed", reviews.len(), games.len()),
    );
    Ok(refused.is_empty())
}
