//! Training data: games played or replayed, every position labelled by our own search and
//! exact solver, in the format of [`crate::fit::dataset`].
//!
//! **Self-play.** Game `i` of a run depends only on the run's seed and `i` (its random source is
//! seeded with [`game_seed`], and the searcher's table is cleared before it), so a run cut into
//! shards, or stopped and resumed, gives the very games of one uninterrupted run. A game opens
//! with a random number of uniformly random moves, then plays the best move of a fixed-depth
//! search (now and then, with probability epsilon, a random move instead, for variety), and
//! from the solve point on the best move of the exact solver, so every position from there on
//! has an exact value and the game's ending is the perfect-play result from that point.
//!
//! **WTHOR.** The expert games are replayed as played; positions before the solve point are
//! valued by the run's search, positions at the solve point or later are solved, and the first solved position's exact value (seen from each position's side to
//! move) is the ending of every position of the game.
//!
//! **Files** (`files.rs`): [`resume_point`] finds where a run stopped, [`merge_shards`] joins
//! the files of the shards of one run in game order, [`dataset_stats`] counts a file.
//! **Training sets** (`training_set.rs`): [`read_all_training_data`] reads what `train` is
//! given, one recipe a folder, and says how many positions each recipe gave.

use crate::board::{Color, Move, Position, Square};
use crate::eval::EvaluatorKind;
use crate::fit::dataset::{FLAG_EXACT, FLAG_WTHOR, Sample};
use crate::search::{EndgameMode, Limits, PhaseLevel, SearchReport, Searcher, Selectivity};
use std::sync::atomic::Ordering;

mod files;
pub mod manifest;
pub mod run;
pub mod shard;
mod stream;
mod training_set;
pub use files::{
    DatasetStats, ResumePoint, STATS_BRACKET, dataset_stats, merge_shards, resume_point,
};
pub use training_set::{
    LabelSource, describe_sources, network_fingerprint, read_all_training_data, read_training_data,
    weights_fingerprint,
};

/// How a run plays and labels its games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatagenSettings {
    /// The run's seed: with a game's index, it fixes the whole game.
    pub seed: u64,
    /// The fewest and most random moves that open a self-play game.
    pub random_plies: (u32, u32),
    /// Depth of the searches that choose the moves before the solve point.
    pub depth: u32,
    /// The evaluator of those searches.
    pub eval: EvaluatorKind,
    /// The chance of a random move instead of the searched one, before the solve point.
    pub epsilon: f64,
    /// Positions with this many empties or fewer are solved exactly.
    pub solve_empties: u32,
    /// How selective the searches are (Multi-ProbCut; 100% is full width).
    pub selectivity: Selectivity,
}

impl DatagenSettings {
    fn level(&self) -> PhaseLevel {
        PhaseLevel {
            depth: self.depth,
            eval: self.eval,
        }
    }

    /// How the positions are labelled, in words: shards whose recipes read the same were
    /// labelled alike and may be trained on together.
    pub fn label_recipe(&self) -> String {
        format!(
            "search depth {} at {} with {}{}; exact from {} empties",
            self.depth,
            self.selectivity,
            self.eval,
            neural_extras(self.eval, self.selectivity),
            self.solve_empties
        )
    }

    /// The fingerprint of the weights the labelling searches evaluate with.
    pub fn label_weights(&self) -> Option<String> {
        weights_fingerprint(self.eval)
    }

    /// How a self-play game's moves are chosen, in words.
    pub fn play_recipe(&self) -> String {
        format!(
            "{}-{} random moves, then the search's best (epsilon {}), the solver's from {} empties; search depth {} at {} with {}",
            self.random_plies.0,
            self.random_plies.1,
            self.epsilon,
            self.solve_empties,
            self.depth,
            self.selectivity,
            self.eval
        )
    }
}

/// What else a `neural` labeller's values depend on besides its network (whose fingerprint
/// the shard header carries): the tempo bonus, and for a selective search the fingerprint of
/// its Multi-ProbCut table. Empty for the other evaluators, so that their recipes read as
/// they always have.
fn neural_extras(eval: EvaluatorKind, selectivity: Selectivity) -> String {
    if eval != EvaluatorKind::Neural {
        return String::new();
    }
    let tempo = f64::from(crate::eval::network::tempo::tempo()) / 100.0;
    let mut extras = format!(" (tempo {tempo:.2}");
    if selectivity.is_selective() {
        let table = crate::search::probcut::neural_table().to_text("");
        let digest = crate::sys::files::sha256_hex(table.as_bytes());
        extras.push_str(&format!(", Multi-ProbCut table {}", &digest[..12]));
    }
    extras.push(')');
    extras
}

/// The exact value of `position` for the side to move, by the solver.
fn solved_value(
    searcher: &mut Searcher,
    settings: &DatagenSettings,
    position: &Position,
    limits: &Limits,
) -> i8 {
    let r = searcher.solve(
        position,
        EndgameMode::Exact,
        settings.level(),
        limits,
        &mut |_| {},
    );
    whole_discs(&r)
}

/// Labels the positions of a recorded game again by `settings` (their moves and ending stay):
/// positions with at most `solve_empties` empties are solved (an exact label already there is
/// kept), the others searched. `None`: `limits` stopped a search.
pub fn relabel_game(
    searcher: &mut Searcher,
    settings: &DatagenSettings,
    samples: &[Sample],
    limits: &Limits,
) -> Option<Vec<Sample>> {
    searcher.clear();
    let mut out = Vec::with_capacity(samples.len());
    for s in samples {
        let position = Position::from_player_opponent(s.player, s.opponent, Color::Black);
        let mut relabelled = *s;
        if u32::from(s.empties) <= settings.solve_empties {
            if !s.is_exact() {
                relabelled.value = solved_value(searcher, settings, &position, limits);
                relabelled.flags |= FLAG_EXACT;
            }
        } else {
            let r = searcher.search(&position, settings.level(), limits, &mut |_| {});
            relabelled.value = whole_discs(&r);
            relabelled.flags &= !FLAG_EXACT;
        }
        if limits.stop.load(Ordering::Relaxed) {
            return None;
        }
        out.push(relabelled);
    }
    Some(out)
}

/// One step of SplitMix64: a well-mixed 64-bit value from a counter.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of game `game` of a run seeded with `seed`: different games of one run, and the
/// same game of different runs, get unrelated seeds.
pub fn game_seed(seed: u64, game: u32) -> u64 {
    splitmix64(splitmix64(seed) ^ u64::from(game))
}

/// The random source of one game: SplitMix64, written out here so that the games a seed gives
/// never change with a library's version.
#[derive(Clone, Debug)]
pub struct GameRng(u64);

impl GameRng {
    /// The source of a game seeded with `seed`.
    pub fn new(seed: u64) -> GameRng {
        GameRng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.0)
    }

    /// A uniform whole number below `n` (which must not be 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// Whether shard `(i, n)` plays game `game` (0-based): games i - 1, i - 1 + n, ...
pub fn in_shard(game: u32, shard: Option<(u32, u32)>) -> bool {
    shard.is_none_or(|(i, n)| game % n == i - 1)
}

/// A uniformly random legal move of a position that has one.
fn random_move(position: &Position, rng: &mut GameRng) -> Move {
    let squares = position.legal_squares();
    if squares.is_empty() {
        return Move::Pass;
    }
    Move::Play(squares[rng.below(squares.len() as u64) as usize])
}

/// A search value in whole discs within -64..=64.
fn whole_discs(report: &SearchReport) -> i8 {
    report.value.discs().round().clamp(-64.0, 64.0) as i8
}

/// `black_diff`, a disc difference for black, seen from the side to move of `position`.
fn for_side_to_move(position: &Position, black_diff: i32) -> i8 {
    let diff = match position.side_to_move() {
        Color::Black => black_diff,
        Color::White => -black_diff,
    };
    diff.clamp(-64, 64) as i8
}

/// The disc difference for black of a finished game.
fn black_result(final_position: &Position) -> i32 {
    match final_position.side_to_move() {
        Color::Black => final_position.final_score(),
        Color::White => -final_position.final_score(),
    }
}

/// A recorded position before its ending is known.
struct Labelled {
    position: Position,
    value: i8,
    exact: bool,
}

/// Plays self-play game `game` of a run and returns its records, or `None` if `limits` stopped
/// a search on the way (the game is then incomplete and must not be kept). `searcher` is
/// cleared first, so the game depends on nothing that came before.
pub fn self_play_game(
    searcher: &mut Searcher,
    settings: &DatagenSettings,
    game: u32,
    limits: &Limits,
) -> Option<Vec<Sample>> {
    searcher.clear();
    let mut rng = GameRng::new(game_seed(settings.seed, game));
    let (min, max) = settings.random_plies;
    let random_plies = min + rng.below(u64::from(max - min) + 1) as u32;
    let level = settings.level();
    let mut position = Position::start();
    let mut played = 0u32;
    let mut labelled = Vec::new();
    while !position.is_game_over() {
        if position.must_pass() {
            position = position.pass();
            continue;
        }
        let (mv, value, exact) = if position.empty_count() <= settings.solve_empties {
            let r = searcher.solve(&position, EndgameMode::Exact, level, limits, &mut |_| {});
            (r.best_move, whole_discs(&r), true)
        } else {
            let r = searcher.search(&position, level, limits, &mut |_| {});
            let random = played < random_plies || rng.chance(settings.epsilon);
            let mv = if random {
                random_move(&position, &mut rng)
            } else {
                r.best_move
            };
            (mv, whole_discs(&r), false)
        };
        if limits.stop.load(Ordering::Relaxed) {
            return None;
        }
        labelled.push(Labelled {
            position,
            value,
            exact,
        });
        // The searches only ever return a legal move here (the side to move has one).
        position = position.play(mv).ok()?;
        played += 1;
    }
    let result = black_result(&position);
    Some(finish(labelled, game, |p| for_side_to_move(p, result), 0))
}

/// The records of a game's labelled positions, with the ending each position gets.
fn finish(
    labelled: Vec<Labelled>,
    game: u32,
    ending: impl Fn(&Position) -> i8,
    extra_flags: u8,
) -> Vec<Sample> {
    labelled
        .into_iter()
        .map(|l| Sample {
            player: l.position.player(),
            opponent: l.position.opponent(),
            game,
            ending: ending(&l.position),
            value: l.value,
            empties: l.position.empty_count() as u8,
            flags: extra_flags | if l.exact { FLAG_EXACT } else { 0 },
        })
        .collect()
}

/// The records of WTHOR game `game` (its moves as played): positions before the solve point
/// valued by a search of `settings.depth` (depth 0: by the game's ending instead, the labels
/// of the first WTHOR data sets), positions at the solve point or later solved exactly, and
/// every position's ending the exact value of the first solved one
/// (or the final result when the game ends before the solve point). `Ok(None)`: `limits`
/// stopped a solve. A game that stops before both the solve point and its end gives no
/// records (its result is an adjudication); an illegal move is an error.
pub fn wthor_game(
    searcher: &mut Searcher,
    settings: &DatagenSettings,
    moves: &[Square],
    game: u32,
    limits: &Limits,
) -> Result<Option<Vec<Sample>>, String> {
    searcher.clear();
    let (positions, position) = super::wthor::replay(moves)?;
    let mut labelled = Vec::with_capacity(positions.len());
    let mut anchor: Option<i32> = None;
    for position in positions {
        let solved = position.empty_count() <= settings.solve_empties;
        let searched = !solved && settings.depth > 0 && !position.must_pass();
        let value = if searched {
            let r = searcher.search(&position, settings.level(), limits, &mut |_| {});
            if limits.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            whole_discs(&r)
        } else if solved {
            let value = solved_value(searcher, settings, &position, limits);
            if limits.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            anchor.get_or_insert(i32::from(for_side_to_move(&position, value.into())));
            value
        } else {
            0
        };
        labelled.push(Labelled {
            position,
            value,
            exact: solved,
        });
    }
    let black_ending = match anchor {
        Some(black) => black,
        None if position.is_game_over() => black_result(&position),
        None => return Ok(Some(Vec::new())),
    };
    let mut samples = finish(
        labelled,
        game,
        |p| for_side_to_move(p, black_ending),
        FLAG_WTHOR,
    );
    if settings.depth == 0 {
        for s in &mut samples {
            if !s.is_exact() {
                s.value = s.ending;
            }
        }
    }
    Ok(Some(samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> DatagenSettings {
        DatagenSettings {
            seed: 7,
            random_plies: (6, 12),
            depth: 2,
            eval: EvaluatorKind::Pattern,
            epsilon: 0.05,
            solve_empties: 12,
            selectivity: Selectivity::FULL,
        }
    }

    #[test]
    fn a_game_is_fixed_by_seed_and_index_and_its_labels_agree() {
        let mut searcher = Searcher::new(4, Some(0));
        let limits = Limits::none();
        let a = self_play_game(&mut searcher, &settings(), 3, &limits).unwrap();
        // Another game in between, then the same game again: the same records.
        let other = self_play_game(&mut searcher, &settings(), 4, &limits).unwrap();
        let again = self_play_game(&mut searcher, &settings(), 3, &limits).unwrap();
        assert_eq!(a, again);
        assert_ne!(a, other);
        assert!(a.iter().all(|s| s.game == 3));
        // Every position has a move, and empties count down.
        for s in &a {
            let p = Position::from_player_opponent(s.player, s.opponent, Color::Black);
            assert!(p.legal_moves() != 0);
            assert_eq!(u32::from(s.empties), p.empty_count());
            assert_eq!(s.is_exact(), u32::from(s.empties) <= 12);
        }
        // Along the solved part the moves are perfect, so the ending is the exact value.
        for s in a.iter().filter(|s| s.is_exact()) {
            assert_eq!(s.ending, s.value, "{s:?}");
        }
        let first_exact = a.iter().position(Sample::is_exact).unwrap();
        let p = Position::from_player_opponent(
            a[first_exact].player,
            a[first_exact].opponent,
            Color::Black,
        );
        let (exact, _) = Searcher::new(4, None).solve_window(&p, -65, 65);
        assert_eq!(i32::from(a[first_exact].value), exact);
    }

    #[test]
    fn random_numbers_are_uniform_enough_and_seeds_differ() {
        let mut rng = GameRng::new(game_seed(1, 0));
        let mut counts = [0u32; 6];
        for _ in 0..6000 {
            counts[rng.below(6) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
    }
}
