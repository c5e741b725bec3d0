//! Arguments several subcommands share (the level flags, the table size, the seed, a
//! position) and value parsers whose errors name the problem.

use crate::arena::options::CliError;
use crate::board::{MAX_EMPTIES, Position};
use crate::eval::EvaluatorKind;
use crate::search::{DEFAULT_LEVEL, EndgameMode, Levels, MAX_LEVEL, Searcher};
use clap::Args;

/// A whole number in `range`, or the message `bad WHAT 'TEXT': expected ...`.
pub fn number_in(
    text: &str,
    what: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "bad {what} '{text}': expected a whole number from {} to {}",
                range.start(),
                range.end()
            )
        })
}

fn level(s: &str) -> Result<u32, String> {
    number_in(s, "level", 1..=MAX_LEVEL)
}
fn opening_moves(s: &str) -> Result<u32, String> {
    number_in(s, "opening-moves", 0..=MAX_EMPTIES)
}
fn opening_depth(s: &str) -> Result<u32, String> {
    number_in(s, "opening-depth", 1..=MAX_EMPTIES)
}
fn midgame_depth(s: &str) -> Result<u32, String> {
    number_in(s, "midgame-depth", 1..=MAX_EMPTIES)
}
fn endgame_empties(s: &str) -> Result<u32, String> {
    number_in(s, "endgame-empties", 0..=MAX_EMPTIES)
}
fn evaluator(s: &str) -> Result<EvaluatorKind, String> {
    s.trim().parse()
}
fn endgame_mode(s: &str) -> Result<EndgameMode, String> {
    s.trim().parse()
}
/// A table size in MiB: 1 to 65536, and less than the machine's memory (allocating more
/// would abort the process).
pub fn hash_mib(s: &str) -> Result<usize, String> {
    let mib = number_in(s, "hash size (MiB)", 1..=65536)? as usize;
    match physical_memory_mib() {
        Some(total) if mib >= total => Err(format!(
            "--hash {mib} MiB does not fit in this machine's {total} MiB of memory"
        )),
        _ => Ok(mib),
    }
}
fn seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("bad --seed '{s}': expected a whole number"))
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

/// The level flags: a preset, then per-phase refinements; the table size and the seed.
#[derive(Args, Debug, Clone, Default)]
pub struct LevelArgs {
    /// A preset, 1 to 20 (default 10); the other flags refine it.
    #[arg(long, value_name = "N", value_parser = level, allow_hyphen_values = true)]
    pub level: Option<u32>,
    /// Moves (discs placed) that count as the opening.
    #[arg(long, value_name = "N", value_parser = opening_moves, allow_hyphen_values = true)]
    pub opening_moves: Option<u32>,
    /// Search depth in the opening.
    #[arg(long, value_name = "N", value_parser = opening_depth, allow_hyphen_values = true)]
    pub opening_depth: Option<u32>,
    /// Evaluator in the opening.
    #[arg(long, value_name = "NAME", value_parser = evaluator)]
    pub opening_eval: Option<EvaluatorKind>,
    /// Search depth in the midgame.
    #[arg(long, value_name = "N", value_parser = midgame_depth, allow_hyphen_values = true)]
    pub midgame_depth: Option<u32>,
    /// Evaluator in the midgame.
    #[arg(long, value_name = "NAME", value_parser = evaluator)]
    pub midgame_eval: Option<EvaluatorKind>,
    /// Solve from this many empties on (0: never).
    #[arg(long, value_name = "N", value_parser = endgame_empties, allow_hyphen_values = true)]
    pub endgame_empties: Option<u32>,
    /// How to solve: exact, wld or win-else-least.
    #[arg(long, value_name = "MODE", value_parser = endgame_mode)]
    pub endgame_mode: Option<EndgameMode>,
    /// Transposition table size in MiB (default 64).
    #[arg(long, value_name = "MIB", value_parser = hash_mib, allow_hyphen_values = true)]
    pub hash: Option<usize>,
    /// Seed for the random evaluator, for games that repeat.
    #[arg(long, value_name = "N", value_parser = seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
}

impl LevelArgs {
    /// The levels: the preset, then each refinement given.
    pub fn levels(&self) -> Levels {
        let mut levels = Levels::preset(self.level.unwrap_or(DEFAULT_LEVEL)).unwrap_or_default();
        if let Some(n) = self.opening_moves {
            levels.opening_moves = n;
        }
        if let Some(d) = self.opening_depth {
            levels.opening.depth = d;
        }
        if let Some(e) = self.opening_eval {
            levels.opening.eval = e;
        }
        if let Some(d) = self.midgame_depth {
            levels.midgame.depth = d;
        }
        if let Some(e) = self.midgame_eval {
            levels.midgame.eval = e;
        }
        if let Some(n) = self.endgame_empties {
            levels.endgame_empties = n;
        }
        if let Some(m) = self.endgame_mode {
            levels.endgame_mode = m;
        }
        levels
    }

    /// A searcher with the table size and the seed.
    pub fn searcher(&self) -> Searcher {
        Searcher::new(
            self.hash.unwrap_or(crate::search::DEFAULT_HASH_MIB),
            self.seed,
        )
    }
}

/// A `CliError` from a message.
pub fn error(message: impl Into<String>) -> CliError {
    CliError(message.into())
}
