//! Arguments several subcommands share (the level flags, the table size, the seed, a
//! position) and value parsers whose errors name the problem.

pub use super::error::{CliError, error};
use crate::board::Position;
use crate::eval::network::Network;
use crate::eval::pattern::PatternWeights;
use crate::search::book::Book;
use crate::search::probcut::MpcTable;
use crate::search::{LevelSetting, Levels, Searcher, available_threads, parse_threads};
use clap::Args;
use std::sync::Arc;

/// A table size in MiB: 1 to 65536, and less than the machine's memory (allocating more
/// would abort the process).
pub fn hash_mib(s: &str) -> Result<usize, String> {
    let mib = parse_in_range(s, "hash size (MiB)", 1..=65536).map_err(|e| e.0)? as usize;
    match physical_memory_mib() {
        Some(total) if mib >= total => Err(format!(
            "--hash {mib} MiB does not fit in this machine's {total} MiB of memory"
        )),
        _ => Ok(mib),
    }
}
/// A `--seed`: a whole number.
pub fn seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("bad --seed '{s}': expected a whole number"))
}

/// A number within `range`, the value of `--flag`.
pub fn number_in(
    text: &str,
    flag: &str,
    range: std::ops::RangeInclusive<f64>,
) -> Result<f64, CliError> {
    match text.trim().parse::<f64>() {
        Ok(x) if range.contains(&x) => Ok(x),
        _ => Err(error(format!(
            "bad --{flag} '{text}': expected a number from {} to {}",
            range.start(),
            range.end()
        ))),
    }
}

/// `MIN-MAX` (or one number for both) with `lowest <= MIN <= MAX <= highest`, the value of
/// `--flag`.
pub fn span(text: &str, flag: &str, lowest: u32, highest: u32) -> Result<(u32, u32), CliError> {
    let bad = || {
        error(format!(
            "bad --{flag} '{text}': expected MIN-MAX with {lowest} <= MIN <= MAX <= {highest}"
        ))
    };
    let (min, max) = text.split_once('-').unwrap_or((text, text));
    let (min, max): (u32, u32) = (
        min.trim().parse().map_err(|_| bad())?,
        max.trim().parse().map_err(|_| bad())?,
    );
    if min < lowest || min > max || max > highest {
        return Err(bad());
    }
    Ok((min, max))
}
/// A position in OBF (64 squares and the side to move).
pub fn position(s: &str) -> Result<Position, String> {
    s.parse().map_err(|e| format!("--position: {e}"))
}

/// The machine's memory in MiB, from /proc/meminfo where there is one.
fn physical_memory_mib() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// A value parser for level flag `name`, with the checks and messages GTP's
/// `othello-engine-set` uses.
macro_rules! setting {
    ($name:literal) => {
        |value: &str| LevelSetting::parse($name, value)
    };
}

/// The level flags: a preset, then per-phase refinements; the table size and the seed.
#[derive(Args, Debug, Clone, Default)]
pub struct LevelArgs {
    /// A preset, 1 to 20, or `default` (full strength in the time given); the other flags refine it.
    #[arg(long, value_name = "N", value_parser = setting!("level"), allow_hyphen_values = true)]
    pub level: Option<LevelSetting>,
    /// Moves (discs placed) that count as the opening.
    #[arg(long, value_name = "N", value_parser = setting!("opening-moves"), allow_hyphen_values = true)]
    pub opening_moves: Option<LevelSetting>,
    /// Search depth in the opening.
    #[arg(long, value_name = "N", value_parser = setting!("opening-depth"), allow_hyphen_values = true)]
    pub opening_depth: Option<LevelSetting>,
    /// Evaluator in the opening (default neural, the built-in network; the presets: pattern).
    #[arg(long, value_name = "NAME", value_parser = setting!("opening-eval"))]
    pub opening_eval: Option<LevelSetting>,
    /// Search depth in the midgame.
    #[arg(long, value_name = "N", value_parser = setting!("midgame-depth"), allow_hyphen_values = true)]
    pub midgame_depth: Option<LevelSetting>,
    /// Evaluator in the midgame (default neural, the built-in network; the presets: pattern).
    #[arg(long, value_name = "NAME", value_parser = setting!("midgame-eval"))]
    pub midgame_eval: Option<LevelSetting>,
    /// Solve from this many empties on (0: never).
    #[arg(long, value_name = "N", value_parser = setting!("endgame-empties"), allow_hyphen_values = true)]
    pub endgame_empties: Option<LevelSetting>,
    /// How to solve: exact, wld or win-else-least.
    #[arg(long, value_name = "MODE", value_parser = setting!("endgame-mode"))]
    pub endgame_mode: Option<LevelSetting>,
    /// Multi-ProbCut confidence of the midgame search, in percent: 73, 87, 95, 98, 99 or 100
    /// (full width).
    #[arg(long, value_name = "PERCENT", value_parser = setting!("selectivity"), allow_hyphen_values = true)]
    pub selectivity: Option<LevelSetting>,
    /// Transposition table size in MiB (default 64).
    #[arg(long, value_name = "MIB", value_parser = hash_mib, allow_hyphen_values = true)]
    pub hash: Option<usize>,
    /// Threads for the search and the solver, 1 to 256 (default: the cores available; 1
    /// searches deterministically).
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Weights for the `pattern` evaluator from FILE (written by `train`) instead of the
    /// built-in ones (the endgame solver's `pattern-full` keeps its own).
    #[arg(long, value_name = "FILE", value_parser = weights_file)]
    pub weights: Option<PatternWeights>,
    /// The network of the `neural` evaluator (the default's), from FILE (written by `train
    /// --model net`) instead of the built-in one.
    #[arg(long, value_name = "FILE", value_parser = network_file)]
    pub network: Option<Network>,
    /// The Multi-ProbCut table of the `neural` evaluator, from FILE (written by `mpc
    /// calibrate --eval neural`) instead of the built-in one (made for the built-in network).
    #[arg(long, value_name = "FILE", value_parser = mpc_table_file)]
    pub mpc_table: Option<MpcTable>,
    /// Seed for the random evaluator and the book's random choices, for games that repeat.
    #[arg(long, value_name = "N", value_parser = seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Open from the book FILE (written by `book build`) instead of the book built into the
    /// binary (`builtin`, the default).
    #[arg(long, value_name = "FILE", value_parser = book_file, conflicts_with = "no_book")]
    pub book: Option<BookFile>,
    /// Play without an opening book: search from the first move.
    #[arg(long)]
    pub no_book: bool,
    /// Draw book moves among those within D discs of the best, weighted toward the best (0:
    /// always the best line; default 1).
    #[arg(long, value_name = "D", value_parser = book_randomness, allow_hyphen_values = true)]
    pub book_randomness: Option<i32>,
    /// Out of the book, play any move within D discs of the best (by null-window searches at
    /// the root), drawn at random: for sparring and varied self-play (default 0: the best).
    #[arg(long, value_name = "D", value_parser = randomness, allow_hyphen_values = true)]
    pub randomness: Option<i32>,
}

/// A book file read and checked (`--book`), and its path (none for the built-in book).
#[derive(Clone, Debug)]
pub struct BookFile(pub Arc<Book>, pub Option<String>);

/// `--book FILE`: a book that `book build` wrote, read and checked.
pub fn book_file(path: &str) -> Result<BookFile, String> {
    if path == "builtin" {
        return Ok(BookFile(crate::search::book::built_in(), None));
    }
    read_book(path).map(|b| BookFile(Arc::new(b), Some(path.to_string())))
}

/// Reads and checks the book file at `path`.
pub fn read_book(path: &str) -> Result<Book, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Book::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}

/// `--book-randomness D`: discs, 0 to 64, in hundredths of a disc.
fn book_randomness(s: &str) -> Result<i32, String> {
    discs("--book-randomness", s)
}

/// `--randomness D`: discs, 0 to 64, in hundredths of a disc.
fn randomness(s: &str) -> Result<i32, String> {
    discs("--randomness", s)
}

fn discs(flag: &str, s: &str) -> Result<i32, String> {
    match s.trim().parse::<f64>() {
        Ok(d) if (0.0..=64.0).contains(&d) => Ok((d * 100.0).round() as i32),
        _ => Err(format!("bad {flag} '{s}': expected discs from 0 to 64")),
    }
}

impl LevelArgs {
    /// The levels: the preset (`--level`, else the default), then each refinement given.
    pub fn levels(&self) -> Levels {
        let mut levels = Levels::default();
        let refinements = [
            self.level,
            self.opening_moves,
            self.opening_depth,
            self.opening_eval,
            self.midgame_depth,
            self.midgame_eval,
            self.endgame_empties,
            self.endgame_mode,
            self.selectivity,
        ];
        for setting in refinements.into_iter().flatten() {
            levels.apply(setting);
        }
        levels
    }

    /// Makes `--weights` the `pattern` weights of this process, `--network` the `neural`
    /// evaluator's network and `--mpc-table` its table, if given (else the built-in ones).
    pub fn install_weights(&self) -> Result<(), CliError> {
        if let Some(w) = &self.weights {
            crate::eval::pattern::use_weights(w.clone()).map_err(error)?;
        }
        install_network(self.network.clone())?;
        install_mpc_table(self.mpc_table.clone())
    }

    /// A searcher with the table size, the seed and the book.
    pub fn searcher(&self) -> Searcher {
        let mut searcher = Searcher::new(
            self.hash.unwrap_or(crate::search::DEFAULT_HASH_MIB),
            self.seed,
        );
        searcher.set_book(self.opening_book(), self.book_randomness());
        searcher.set_randomness(self.randomness.unwrap_or(0));
        searcher.set_threads(self.threads());
        searcher
    }

    /// `--threads`, or the cores available.
    pub fn threads(&self) -> usize {
        self.threads.unwrap_or_else(available_threads)
    }

    /// The opening book: `--book`'s, none with `--no-book`, else the one built into the
    /// binary.
    pub fn opening_book(&self) -> Option<Arc<Book>> {
        if self.no_book {
            return None;
        }
        Some(match &self.book {
            Some(BookFile(book, _)) => Arc::clone(book),
            None => crate::search::book::built_in(),
        })
    }

    /// The file of `--book FILE`, where NBoard's `learn` saves what it learns.
    pub fn book_path(&self) -> Option<String> {
        self.book.as_ref().and_then(|b| b.1.clone())
    }

    /// `--book-randomness` in hundredths of a disc.
    pub fn book_randomness(&self) -> i32 {
        self.book_randomness
            .unwrap_or(crate::search::book::DEFAULT_RANDOMNESS)
    }
}

/// `--network FILE`: a network file that `train --model net` wrote, read and checked.
pub fn network_file(path: &str) -> Result<Network, String> {
    crate::eval::network::read_network_file(path)
}

/// `--mpc-table FILE`: a Multi-ProbCut table that `mpc calibrate` wrote, read and checked.
pub fn mpc_table_file(path: &str) -> Result<MpcTable, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    MpcTable::from_text(&text).map_err(|e| format!("{path}: {e}"))
}

/// Makes `table` the `neural` evaluator's Multi-ProbCut table, if given.
pub fn install_mpc_table(table: Option<MpcTable>) -> Result<(), CliError> {
    match table {
        Some(t) => crate::search::probcut::use_neural_table(t).map_err(error),
        None => Ok(()),
    }
}

/// Makes `network` the `neural` evaluator's, if given.
pub fn install_network(network: Option<Network>) -> Result<(), CliError> {
    match network {
        Some(n) => crate::eval::network::use_network(n).map_err(error),
        None => Ok(()),
    }
}

/// Reads and installs the `neural` evaluator's `--network` and `--mpc-table` files, where
/// given; a file that is missing or not one is refused in one line naming it.
pub fn install_network_files(
    network: Option<&str>,
    mpc_table: Option<&str>,
) -> Result<(), CliError> {
    install_network(network.map(network_file).transpose().map_err(error)?)?;
    install_mpc_table(mpc_table.map(mpc_table_file).transpose().map_err(error)?)
}

/// `--weights FILE`: a weights file that `train` wrote, read and checked.
pub fn weights_file(path: &str) -> Result<PatternWeights, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    PatternWeights::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}

/// Reads a whole number within `range`, naming `what` in the error.
pub fn parse_in_range(
    text: &str,
    what: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, CliError> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            error(format!(
                "bad {what} '{text}': expected a whole number from {} to {}",
                range.start(),
                range.end()
            ))
        })
}

/// `--shard i/n` with 1 <= i <= n.
pub fn shard(text: &str) -> Result<(u32, u32), CliError> {
    let bad = || {
        error(format!(
            "bad --shard '{text}': expected i/n with 1 <= i <= n"
        ))
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_range() {
        assert_eq!(parse_in_range("7", "depth", 1..=60), Ok(7));
        assert!(parse_in_range("0", "depth", 1..=60).is_err());
        assert!(parse_in_range("-3", "depth", 1..=60).is_err());
        assert!(parse_in_range("x", "depth", 1..=60).is_err());
    }

    #[test]
    fn shards_are_one_of_n() {
        assert_eq!(shard("2/3"), Ok((2, 3)));
        assert_eq!(shard(" 1 / 1 "), Ok((1, 1)));
        for bad in ["3/2", "0/2", "1", "a/b", "1/2/3"] {
            assert_eq!(
                shard(bad),
                Err(error(format!(
                    "bad --shard '{bad}': expected i/n with 1 <= i <= n"
                )))
            );
        }
    }
}
