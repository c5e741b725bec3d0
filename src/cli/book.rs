//! `othello-engine book`: grows, deepens, shows and merges opening books.

use super::args::{BookFile, CliError, book_file, error, read_book};
use crate::board::{Move, Position};
use crate::cli::error::catch_signals;
use crate::search::book::{Book, normalize};
use crate::search::book_build::{self, BuildSettings};
use crate::search::{
    DEFAULT_HASH_MIB, LEARN_POSITIONS, Searcher, available_threads, parse_threads,
};
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use clap::{Args, Subcommand};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// `book` and its subcommands.
#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Grow a new book from the start position (and the positions WTHOR games often reach)
    /// by our own searches, backed up by negamax.
    Build(BuildArgs),
    /// Grow an existing book further (`--positions`), or value its positions again deeper
    /// (`--depth` above theirs), in place.
    Extend(ExtendArgs),
    /// Print the book moves of a position with their values, best first.
    Show(ShowArgs),
    /// Join books (the shards of a build) into one, keeping the deeper of two entries (and
    /// with `--max-ply`, only the positions that near the start).
    Merge(MergeArgs),
    /// Add games (GGF, one game a line, as `match --ggf` writes them) to a book: the first
    /// positions after each game left the book are searched and become book positions, and
    /// their values back up through the book.
    Learn(LearnArgs),
}

/// How a book grows: the flags `build` and `extend` share.
#[derive(Args, Debug, Clone)]
pub struct GrowArgs {
    /// Grow until the book holds this many positions.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    positions: usize,
    /// Depth of the search that values each move.
    #[arg(long, value_name = "PLIES", default_value_t = 12)]
    depth: u32,
    /// Price of one ply of a line, in discs: higher grows the book wider, lower deeper along
    /// the best lines.
    #[arg(long, value_name = "DISCS", default_value_t = 1.5)]
    ply_cost: f64,
    /// Include first the positions that at least `--wthor-games` games of the WTHOR files in
    /// DIR reach within `--wthor-plies` moves.
    #[arg(long, value_name = "DIR")]
    wthor: Option<String>,
    /// See `--wthor`.
    #[arg(long, value_name = "N", default_value_t = 500)]
    wthor_games: u32,
    /// See `--wthor`.
    #[arg(long, value_name = "PLIES", default_value_t = 16)]
    wthor_plies: usize,
    /// Include first every position reachable within this many plies (up to 10), and price
    /// the lines from there on: the book then covers the random openings of `match
    /// --opening-plies N` (N = 6: 2,174 positions up to symmetry, 1,773 of them 6 plies deep).
    #[arg(long, value_name = "PLIES", default_value_t = 0)]
    cover_plies: u32,
    /// Grow only this share of the lines, and deepen only this share of the positions: i/n
    /// with 1 <= i <= n (join the shards with `book merge`, which keeps the deeper entries).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Transposition table size in MiB.
    #[arg(long, value_name = "MIB", value_parser = super::args::hash_mib)]
    hash: Option<usize>,
}

/// Arguments of `book build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The book file to write (saved after every batch).
    #[arg(long, value_name = "FILE")]
    out: String,
    /// Go on with the book an interrupted build left in `--out`.
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    grow: GrowArgs,
}

/// Arguments of `book extend`.
#[derive(Args, Debug)]
pub struct ExtendArgs {
    /// The book file, grown in place.
    #[arg(value_name = "FILE")]
    file: String,
    #[command(flatten)]
    grow: GrowArgs,
}

/// Arguments of `book show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The position: OBF (64 squares and the side to move), or moves from the start such as
    /// `f5d6c3`; the start when absent.
    #[arg(value_name = "POSITION")]
    position: Option<String>,
    /// The book file (default, or `builtin`: the built-in book).
    #[arg(long, value_name = "FILE", value_parser = book_file)]
    book: Option<BookFile>,
}

/// Arguments of `book merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Book files to join.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// The joined book.
    #[arg(long, value_name = "FILE")]
    out: String,
    /// Keep only the positions within this many moves of the start: the lines end there.
    #[arg(long, value_name = "PLIES")]
    max_ply: Option<u32>,
}

/// Arguments of `book learn`.
#[derive(Args, Debug)]
pub struct LearnArgs {
    /// The book file, grown in place (saved after every game).
    #[arg(value_name = "FILE")]
    file: String,
    /// GGF files of games, one game a line.
    #[arg(value_name = "GAMES", required = true)]
    games: Vec<String>,
    /// The deepest search that values a learned move (the book's own depth when smaller).
    #[arg(long, value_name = "PLIES", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: u32,
    /// The most positions learned from each game after it left the book.
    #[arg(long, value_name = "N", default_value_t = LEARN_POSITIONS)]
    positions: usize,
    /// Go on after the first N games (what an interrupted run says): a game learned again
    /// would be deepened by `--positions` more.
    #[arg(long, value_name = "N", default_value_t = 0)]
    skip: usize,
    /// Transposition table size in MiB.
    #[arg(long, value_name = "MIB", value_parser = super::args::hash_mib)]
    hash: Option<usize>,
    /// Threads for the searches, 1 to 256 (default: the cores available).
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    threads: Option<usize>,
}

/// Runs a `book` subcommand.
pub fn run(command: BookCommand) -> Result<(), CliError> {
    match command {
        BookCommand::Build(args) => build(args),
        BookCommand::Extend(args) => extend(args),
        BookCommand::Show(args) => show(args),
        BookCommand::Merge(args) => merge(args),
        BookCommand::Learn(args) => learn(args),
    }
}

/// The position of `book show`: OBF, or a move list from the start.
fn parse_position(text: &str) -> Result<Position, CliError> {
    let text = text.trim();
    if let Ok(p) = text.parse::<Position>() {
        return Ok(p);
    }
    let bad = |why: String| error(format!("bad position '{text}': {why}"));
    let mut at = Position::start();
    let chars: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    if chars.is_empty() || !chars.len().is_multiple_of(2) {
        return Err(bad(
            "expected OBF or moves from the start such as f5d6c3".into()
        ));
    }
    for pair in chars.chunks(2) {
        let word: String = pair.iter().collect();
        let mv: Move = word
            .parse()
            .map_err(|_| bad(format!("'{word}' is not a move")))?;
        if at.must_pass() && !at.is_game_over() && mv != Move::Pass {
            at = at.pass();
        }
        at = at
            .play(mv)
            .map_err(|_| bad(format!("{word} is illegal there")))?;
    }
    Ok(at)
}

fn settings(grow: &GrowArgs) -> Result<BuildSettings, CliError> {
    if !(1..=40).contains(&grow.depth) {
        return Err(error(format!(
            "bad --depth {}: expected 1 to 40",
            grow.depth
        )));
    }
    if !(grow.ply_cost.is_finite() && (0.0..=64.0).contains(&grow.ply_cost)) {
        return Err(error(format!(
            "bad --ply-cost {}: expected discs from 0 to 64",
            grow.ply_cost
        )));
    }
    if grow.cover_plies > 10 {
        return Err(error(format!(
            "bad --cover-plies {}: expected 0 to 10",
            grow.cover_plies
        )));
    }
    if grow.positions == 0 {
        return Err(error("bad --positions 0: expected at least 1"));
    }
    let shard = match &grow.shard {
        Some(text) => {
            let (i, n) = super::args::shard(text)?;
            (u64::from(i - 1), u64::from(n))
        }
        None => (0, 1),
    };
    let frequent = match &grow.wthor {
        Some(dir) => {
            let games = crate::game::wthor::read_wthor_dir(Path::new(dir)).map_err(error)?;
            let lines: Vec<Vec<Move>> = games
                .iter()
                .map(|(g, _)| g.moves.iter().map(|&sq| Move::Play(sq)).collect())
                .collect();
            let frequent =
                book_build::frequent_positions(&lines, grow.wthor_plies, grow.wthor_games);
            eprintln!(
                "book: {} WTHOR games; {} positions reached by {} or more within {} moves",
                lines.len(),
                frequent.len(),
                grow.wthor_games,
                grow.wthor_plies
            );
            frequent
        }
        None => HashMap::new(),
    };
    Ok(BuildSettings {
        depth: grow.depth,
        ply_cost: (grow.ply_cost * 100.0).round() as i32,
        shard,
        frequent,
        cover_plies: grow.cover_plies,
    })
}

/// Writes `book` to `path` whole or not at all.
fn save(book: &Book, path: &str) -> Result<(), CliError> {
    book.save(Path::new(path)).map_err(error)
}

fn build(args: BuildArgs) -> Result<(), CliError> {
    let exists = Path::new(&args.out).exists();
    if exists && !args.resume {
        return Err(error(format!(
            "{} exists: use --resume to go on with it, or `book extend`",
            args.out
        )));
    }
    let book = if exists {
        read_book(&args.out).map_err(error)?
    } else {
        Book::new()
    };
    grow_book(book, &args.out, &args.grow)
}

fn extend(args: ExtendArgs) -> Result<(), CliError> {
    let book = read_book(&args.file).map_err(error)?;
    grow_book(book, &args.file, &args.grow)
}

/// Deepens the book's shallower positions, then grows it to `--positions`, saving to
/// `path` as it goes; a signal stops it with the finished work saved.
fn grow_book(mut book: Book, path: &str, grow: &GrowArgs) -> Result<(), CliError> {
    let settings = settings(grow)?;
    let stop = catch_signals()?;
    let mut searcher = Searcher::new(grow.hash.unwrap_or(DEFAULT_HASH_MIB), Some(0));
    let started = Instant::now();
    let before = book.len();
    let mut save_error = None;
    let shallow = book
        .entries()
        .filter(|(k, e)| book_build::needs_deepening(k, e.depth, &settings))
        .count();
    if shallow > 0 {
        let mut progress = Progress::new("book", "deepened", shallow, 0);
        let mut done = 0;
        book_build::deepen(&mut book, &mut searcher, &settings, &stop, &mut |b| {
            done += 1;
            progress.show(done, "");
            if done % 16 == 0
                && let Err(e) = save(b, path)
            {
                save_error = Some(e);
            }
        });
        progress.finish();
    }
    let target = grow.positions;
    let mut progress = Progress::new("book", "positions", target, book.len());
    book_build::grow(
        &mut book,
        &mut searcher,
        &settings,
        target,
        &stop,
        &mut |b| {
            progress.show(b.len(), "");
            if let Err(e) = save(b, path) {
                save_error = Some(e);
            }
        },
    );
    progress.finish();
    save(&book, path)?;
    if let Some(e) = save_error {
        return Err(e);
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "book: {} positions ({} new), {} bytes, in {secs:.0} s; main line {}",
        book.len(),
        book.len() - before,
        book.to_bytes().len(),
        main_line_text(&book)
    );
    exit_if_caught(
        "book",
        &format!(
            "{path} holds every finished position: rerun with --resume (build) or `book extend` to go on"
        ),
    );
    Ok(())
}

/// The book's size and how its positions spread over the plies (discs placed).
fn book_summary(book: &Book) -> String {
    let mut per_ply = [0usize; 61];
    for (key, _) in book.entries() {
        let discs = (key.0 | key.1).count_ones() as usize;
        per_ply[discs.saturating_sub(4).min(60)] += 1;
    }
    let deepest = per_ply.iter().rposition(|&n| n > 0).unwrap_or(0);
    let spread: Vec<String> = per_ply[..=deepest].iter().map(usize::to_string).collect();
    format!(
        "book: {} positions, {} bytes; positions per ply 0..{deepest}: {}; main line {}",
        book.len(),
        book.to_bytes().len(),
        spread.join(" "),
        main_line_text(book)
    )
}

/// The book's best line from the start, and its length.
fn main_line_text(book: &Book) -> String {
    let line = book.best_line(&Position::start(), 60);
    let moves: Vec<String> = line.iter().map(Move::to_string).collect();
    format!("{} moves: {}", line.len(), moves.join(" "))
}

fn show(args: ShowArgs) -> Result<(), CliError> {
    let position = match &args.position {
        Some(text) => parse_position(text)?,
        None => Position::start(),
    };
    let book = match args.book {
        Some(BookFile(book, _)) => book,
        None => crate::search::book::built_in(),
    };
    println!("{position}");
    println!("{}", book_summary(&book));
    let (key, _) = normalize(position.player(), position.opponent());
    let Some(moves) = book.moves(&position) else {
        println!("not in the book ({} positions)", book.len());
        return Ok(());
    };
    let entry = book.entry(&key);
    println!(
        "in the book: value {:+.2}, searched at depth {}, {} WTHOR games",
        f64::from(book.value(&key).unwrap_or(0)) / 100.0,
        entry.map_or(0, |e| e.depth),
        entry.map_or(0, |e| e.games)
    );
    println!("{:>5} {:>7}  {:<9} line", "move", "value", "source");
    for m in moves {
        let line: Vec<String> = book
            .line_after(&position, m.mv)
            .iter()
            .map(Move::to_string)
            .collect();
        let source = if m.in_book {
            format!("book {}", m.games)
        } else {
            "search".to_string()
        };
        println!(
            "{:>5} {:>+7.2}  {source:<9} {}",
            m.mv.to_string(),
            f64::from(m.value) / 100.0,
            line.join(" ")
        );
    }
    Ok(())
}

fn merge(args: MergeArgs) -> Result<(), CliError> {
    let mut merged = Book::new();
    for path in &args.files {
        merged.merge(&read_book(path).map_err(error)?);
    }
    if let Some(plies) = args.max_ply {
        merged.keep_within(plies);
    }
    save(&merged, &args.out)?;
    println!(
        "book merge: {} positions from {} files into {}",
        merged.len(),
        args.files.len(),
        args.out
    );
    Ok(())
}

/// The games of the GGF files at `paths`, one a line (blank lines skipped): every game's
/// positions from its start, or an error naming the file and line of the first bad one.
fn read_games(paths: &[String]) -> Result<Vec<Vec<Position>>, CliError> {
    let mut games = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(path).map_err(|e| error(format!("cannot read {path}: {e}")))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let game = crate::game::ggf::parse_ggf(line)
                .map_err(|e| error(format!("{path}:{}: {}", i + 1, e.0)))?;
            games.push(game.record.positions().to_vec());
        }
    }
    Ok(games)
}

fn learn(args: LearnArgs) -> Result<(), CliError> {
    let book = read_book(&args.file).map_err(error)?;
    let games = read_games(&args.games)?;
    let stop = catch_signals()?;
    let mut searcher = Searcher::new(args.hash.unwrap_or(DEFAULT_HASH_MIB), Some(0));
    searcher.set_threads(args.threads.unwrap_or_else(available_threads));
    let before = book.len();
    searcher.set_book(Some(std::sync::Arc::new(book)), 0);
    let started = Instant::now();
    let mut done = args.skip.min(games.len());
    let mut progress = Progress::new("book", "games", games.len(), done);
    for positions in &games[done..] {
        let added = searcher.learn_line(positions, args.depth, args.positions, &stop);
        if added > 0
            && let Some(book) = searcher.book()
        {
            save(book, &args.file)?;
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        done += 1;
        progress.show(done, "");
    }
    progress.finish();
    let book = searcher.book().cloned().unwrap_or_default();
    println!(
        "book learn: {done} of {} games learned, {} positions added, {} positions, {} bytes, in {:.0} s; main line {}",
        games.len(),
        book.len() - before,
        book.len(),
        book.to_bytes().len(),
        started.elapsed().as_secs_f64(),
        main_line_text(&book)
    );
    exit_if_caught(
        "book learn",
        &format!(
            "{} holds every finished position: add --skip {done} to the same command to go on",
            args.file
        ),
    );
    Ok(())
}
