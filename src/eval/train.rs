//! Training the pattern evaluator: reading WTHOR game files, replaying their games into
//! positions labelled with the final disc difference, and fitting the weights by stochastic
//! gradient descent on the squared error.

use super::pattern::{
    PHASE_EMPTIES, PHASES, PatternWeights, feature_indices, instance_count, phase_size,
};
use crate::board::{Move, Position, Square};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use std::path::{Path, PathBuf};

/// One game of a WTHOR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// The moves as played; passes are not recorded.
    pub moves: Vec<Square>,
    /// Black's disc count at the end, empty squares going to the winner.
    pub black_score: u8,
    /// Black's disc count under perfect play from the file's theoretical-score depth on.
    pub black_theoretical: u8,
}

/// A WTHOR file's games and the depth (empties) of its theoretical scores.
#[derive(Clone, Debug)]
pub struct WthorFile {
    /// The number of empty squares from which the theoretical scores are perfect play.
    pub depth: u8,
    /// The games in file order.
    pub games: Vec<WthorGame>,
}

/// Reads a `.wtb` game file (format in ../shared/data/wthor/README.md).
pub fn parse_wthor(bytes: &[u8]) -> Result<WthorFile, String> {
    const HEADER: usize = 16;
    const RECORD: usize = 68;
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes: shorter than the 16-byte header",
            bytes.len()
        ));
    }
    let count = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let board = bytes[12];
    if board != 0 && board != 8 {
        return Err(format!("board size {board}: only 8x8 games are supported"));
    }
    let body = &bytes[HEADER..];
    if body.len() != count * RECORD {
        return Err(format!(
            "the header announces {count} games ({} bytes) but {} bytes follow it",
            count * RECORD,
            body.len()
        ));
    }
    let mut games = Vec::with_capacity(count);
    for (i, record) in body.chunks_exact(RECORD).enumerate() {
        let mut moves = Vec::new();
        for &b in &record[8..] {
            if b == 0 {
                break;
            }
            let (row, col) = (usize::from(b / 10), usize::from(b % 10));
            let bad = || format!("game {}: bad move byte {b}", i + 1);
            if !(1..=8).contains(&row) || !(1..=8).contains(&col) {
                return Err(bad());
            }
            let square = Square::from_file_rank(col - 1, row - 1).ok_or_else(bad)?;
            moves.push(square);
        }
        games.push(WthorGame {
            moves,
            black_score: record[6],
            black_theoretical: record[7],
        });
    }
    Ok(WthorFile {
        depth: bytes[14],
        games,
    })
}

/// A position from a game with its label: the final disc difference for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// The final disc difference for the side to move.
    pub target: i8,
}

/// Replays `game` and returns its positions (before each move) with their labels. Positions
/// with more than `depth` empties take the theoretical score (perfect play from `depth`
/// empties on), the others the real final score. A game whose moves are illegal is an error;
/// one that stops before the game is over gives no samples (its score is an adjudication).
pub fn game_samples(game: &WthorGame, depth: u8) -> Result<Vec<Sample>, String> {
    let mut position = Position::start();
    let mut positions = Vec::with_capacity(crate::board::MAX_EMPTIES as usize);
    for (i, &square) in game.moves.iter().enumerate() {
        if position.must_pass() {
            position = position.pass();
        }
        positions.push(position);
        position = position
            .play(Move::Play(square))
            .map_err(|_| format!("move {} ({square}) is illegal", i + 1))?;
    }
    if !position.is_game_over() {
        return Ok(Vec::new());
    }
    let real = 2 * i32::from(game.black_score) - 64;
    let theoretical = 2 * i32::from(game.black_theoretical) - 64;
    Ok(positions
        .into_iter()
        .map(|p| {
            let black_diff = if p.empty_count() > u32::from(depth) {
                theoretical
            } else {
                real
            };
            let target = if p.side_to_move() == crate::board::Color::Black {
                black_diff
            } else {
                -black_diff
            };
            Sample {
                player: p.player(),
                opponent: p.opponent(),
                target: target.clamp(-64, 64) as i8,
            }
        })
        .collect())
}

/// Reads every `WTH_*.wtb` file of `dir` and returns their samples, the games whose number
/// (counting across files in name order) is a multiple of `holdout_every` set apart for
/// validation.
pub fn load_wthor_dir(
    dir: &Path,
    holdout_every: usize,
) -> Result<(Vec<Sample>, Vec<Sample>), String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .wtb files in {}", dir.display()));
    }
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    let mut game_number = 0usize;
    for path in files {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file = parse_wthor(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        for (i, game) in file.games.iter().enumerate() {
            let samples = game_samples(game, file.depth)
                .map_err(|e| format!("{}: game {}: {e}", path.display(), i + 1))?;
            game_number += 1;
            if holdout_every > 0 && game_number.is_multiple_of(holdout_every) {
                validation.extend(samples);
            } else {
                train.extend(samples);
            }
        }
    }
    Ok((train, validation))
}

/// How a training run went, per phase.
#[derive(Clone, Debug)]
pub struct PhaseReport {
    /// The phase (weight table) number.
    pub phase: usize,
    /// Training positions in it.
    pub train_positions: usize,
    /// Root mean squared error in discs on the training positions.
    pub train_rmse: f64,
    /// The same on the held-out positions (NaN when there are none).
    pub validation_rmse: f64,
}

/// Training settings.
#[derive(Clone, Copy, Debug)]
pub struct TrainSettings {
    /// Passes over the data per phase.
    pub epochs: usize,
    /// The step size of the first pass; it falls geometrically to a hundredth of it.
    pub learning_rate: f32,
    /// Shuffling seed.
    pub seed: u64,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            epochs: 10,
            learning_rate: 0.01,
            seed: 1,
        }
    }
}

/// Fits one weight table per phase to `train` and measures it on `validation`. Each phase
/// trains on the positions within one phase width of it, so neighbouring tables agree.
pub fn train_weights(
    train: &[Sample],
    validation: &[Sample],
    settings: TrainSettings,
    mut report: impl FnMut(&PhaseReport),
) -> Result<PatternWeights, String> {
    let size = phase_size();
    let features = instance_count();
    let mut all = vec![0i16; PHASES * size];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    for phase in 0..PHASES {
        let in_phase = |s: &Sample| {
            let e = 64 - (s.player | s.opponent).count_ones() as usize;
            let centre = phase * PHASE_EMPTIES + PHASE_EMPTIES / 2;
            e.abs_diff(centre) <= PHASE_EMPTIES
        };
        let encode = |samples: &[Sample]| -> (Vec<u32>, Vec<f32>) {
            let chosen: Vec<&Sample> = samples.iter().filter(|s| in_phase(s)).collect();
            let mut indices = vec![0u32; chosen.len() * features];
            for (s, out) in chosen.iter().zip(indices.chunks_exact_mut(features)) {
                feature_indices(s.player, s.opponent, out);
            }
            (
                indices,
                chosen.iter().map(|s| f32::from(s.target)).collect(),
            )
        };
        let (indices, targets) = encode(train);
        let (val_indices, val_targets) = encode(validation);
        let mut weights = vec![0f32; size];
        let mut order: Vec<usize> = (0..targets.len()).collect();
        for epoch in 0..settings.epochs {
            order.shuffle(&mut rng);
            // Falls to a hundredth over the passes: a large step finds the weights fast, and
            // small ones at the end keep the last samples seen from pulling them about.
            let progress = epoch as f32 / (settings.epochs.max(2) - 1) as f32;
            let rate = settings.learning_rate * 0.01f32.powf(progress);
            for &i in &order {
                let row = &indices[i * features..][..features];
                let predicted: f32 =
                    weights[0] + row.iter().map(|&j| weights[j as usize]).sum::<f32>();
                let step = rate * (targets[i] - predicted);
                weights[0] += step * 0.1;
                for &j in row {
                    weights[j as usize] += step;
                }
            }
        }
        let rmse = |indices: &[u32], targets: &[f32]| -> f64 {
            if targets.is_empty() {
                return f64::NAN;
            }
            let total: f64 = targets
                .iter()
                .zip(indices.chunks_exact(features))
                .map(|(&t, row)| {
                    let p = weights[0] + row.iter().map(|&j| weights[j as usize]).sum::<f32>();
                    f64::from(t - p).powi(2)
                })
                .sum();
            (total / targets.len() as f64).sqrt()
        };
        report(&PhaseReport {
            phase,
            train_positions: targets.len(),
            train_rmse: rmse(&indices, &targets),
            validation_rmse: rmse(&val_indices, &val_targets),
        });
        for (slot, w) in all[phase * size..][..size].iter_mut().zip(&weights) {
            *slot = (w * 100.0).round().clamp(-32000.0, 32000.0) as i16;
        }
    }
    PatternWeights::from_centi_discs(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(moves: &[u8], black: u8, theoretical: u8) -> Vec<u8> {
        let mut r = vec![0u8; 68];
        r[6] = black;
        r[7] = theoretical;
        r[8..8 + moves.len()].copy_from_slice(moves);
        r
    }

    fn file(records: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = vec![0u8; 16];
        bytes[4..8].copy_from_slice(&(records.len() as u32).to_le_bytes());
        bytes[12] = 8;
        bytes[14] = 24;
        for r in records {
            bytes.extend_from_slice(r);
        }
        bytes
    }

    /// A whole game of first legal moves, as WTHOR move bytes, and black's final disc count.
    fn first_move_game() -> (Vec<u8>, u8) {
        let mut position = Position::start();
        let mut bytes = Vec::new();
        while !position.is_game_over() {
            if position.must_pass() {
                position = position.pass();
                continue;
            }
            let square = position.legal_squares()[0];
            bytes.push((10 * (square.rank() + 1) + square.file() + 1) as u8);
            position = position.play(Move::Play(square)).unwrap();
        }
        let black = if position.side_to_move() == crate::board::Color::Black {
            (position.final_score() + 64) / 2
        } else {
            (64 - position.final_score()) / 2
        };
        (bytes, black as u8)
    }

    #[test]
    fn a_finished_game_gives_one_labelled_position_per_move() {
        let (moves, black) = first_move_game();
        let bytes = file(&[record(&moves, black, 40)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert_eq!(parsed.depth, 24);
        let samples = game_samples(&parsed.games[0], parsed.depth).unwrap();
        assert_eq!(samples.len(), moves.len());
        // The start: black to move, labelled with the theoretical score 40-24.
        assert_eq!(samples[0].target, 16);
        assert_eq!(samples[0].player, Position::start().player());
        // The last position has few empties: the real score, for whoever moves there.
        let last = samples.last().unwrap();
        let real = 2 * i32::from(black) - 64;
        assert_eq!(i32::from(last.target).abs(), real.abs());
        // A game that stops early is an adjudication: no samples.
        let bytes = file(&[record(&moves[..10], black, 40)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert!(game_samples(&parsed.games[0], 24).unwrap().is_empty());
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        assert!(parse_wthor(&[0u8; 5]).is_err());
        let mut bytes = file(&[record(&[56], 32, 32)]);
        bytes.pop();
        assert!(
            parse_wthor(&bytes)
                .unwrap_err()
                .contains("header announces 1 games")
        );
        let bytes = file(&[record(&[99], 32, 32)]);
        assert!(
            parse_wthor(&bytes)
                .unwrap_err()
                .contains("bad move byte 99")
        );
        let bytes = file(&[record(&[11], 32, 32)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert!(
            game_samples(&parsed.games[0], 24)
                .unwrap_err()
                .contains("illegal")
        );
    }
}
