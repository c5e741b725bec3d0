//! The network and its trainer against what must hold: the integer network agrees with its
//! float twin, scores mirror images and incremental indices alike, refuses bad files;
//! training learns, and a stopped and resumed run ends where an unstopped one does.

use super::*;
use crate::board::{Bits, Position, flips};
use crate::eval::features::random_disc_pairs;
use crate::eval::network::file::canonical_row;
use crate::eval::network::{NetShape, Network, RowFormat};
use crate::eval::state::FeatureState;
use std::sync::atomic::AtomicBool;

const SHAPE: NetShape = NetShape {
    width: 16,
    hidden: 8,
    buckets: 2,
    rows: RowFormat::I16,
};

/// [`SHAPE`] with 8-bit rows.
const SHAPE_I8: NetShape = NetShape {
    rows: RowFormat::I8,
    ..SHAPE
};

/// A model with every canonical row random (within the clip), as a trained one would be.
fn random_model(shape: NetShape, seed: u64) -> Model {
    let mut model = Model::new(shape, seed);
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 2001) as f32 / 1000.0 - 1.0
    };
    let w = shape.width;
    for bucket in 0..shape.buckets {
        for row in 0..ROWS {
            if canonical_row(row) != row {
                continue;
            }
            for i in 0..w {
                model.params[(bucket * ROWS + row) * w + i] = 0.08 * next();
            }
        }
    }
    model
}

/// Random games' positions (passes forced), each with its game's index.
fn random_positions(games: usize, seed: u64) -> Vec<(u32, Position)> {
    let mut seed = seed;
    let mut out = Vec::new();
    for game in 0..games {
        let mut position = Position::start();
        while !position.is_game_over() {
            if position.must_pass() {
                position = position.pass();
                continue;
            }
            out.push((game as u32, position));
            let moves: Vec<usize> = Bits(position.legal_moves()).collect();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let sq = moves[(seed >> 33) as usize % moves.len()];
            position =
                position.play_flips(1 << sq, flips(position.player(), position.opponent(), sq));
        }
    }
    out
}

/// The largest gap in discs between the float model of `shape` (random rows, seed 7) and its
/// integer network over `positions` random positions.
fn worst_float_gap(shape: NetShape, positions: usize) -> f32 {
    let model = random_model(shape, 7);
    let network = model.quantize().unwrap();
    random_disc_pairs(3, positions)
        .map(|(player, opponent)| {
            let float = model.discs(player, opponent);
            (float - network.score(player, opponent) as f32 / 100.0).abs()
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_integer_network_agrees_with_its_float_twin() {
    // Quantisation rounds each row to 1/512 and each weight to 1/1024 or 1/2048 of a unit:
    // over 5,000 random positions the integer score stays within 0.25 disc of the float one
    // (a unit of output is 32 discs).
    let worst = worst_float_gap(SHAPE, 5_000);
    assert!(worst < 0.25, "worst difference {worst} discs");
}

#[test]
fn the_integer_network_of_8_bit_rows_agrees_with_its_float_twin() {
    // The float network of 8-bit rows reads its rows on their grid, so the integer one differs
    // only by the dense layers' rounding, as a network of 16-bit rows does: within 0.25 disc.
    // Its rows are within the 8-bit range, but off the grid (as a fitted one's are).
    for width in crate::eval::network::WIDTHS {
        let worst = worst_float_gap(NetShape { width, ..SHAPE_I8 }, 3_000);
        assert!(
            worst < 0.25,
            "width {width}: worst difference {worst} discs"
        );
    }
}

#[test]
fn sums_of_8_bit_rows_never_overflow() {
    // Every row and bias at the top of its range, then at the bottom: 49 rows and the bias
    // summed in 16-bit lanes must not wrap (a wrapped sum would clip to the other end of the
    // activation, and the score would jump by the whole of the layers' range). The float twin
    // sums in floats; the integer network, plain and vector, must agree with it.
    for sign in [1.0f32, -1.0] {
        let mut model = random_model(SHAPE_I8, 3);
        let layout = Layout::of(SHAPE_I8);
        for p in &mut model.params[..layout.bias] {
            *p = sign * model::ROW8_CLIP;
        }
        model.params[layout.bias..layout.dense].fill(sign * 1e6);
        model.clip_dense();
        let network = model.quantize().unwrap();
        for (player, opponent) in random_disc_pairs(13, 300) {
            let float = model.discs(player, opponent);
            let integer = network.score(player, opponent);
            assert_eq!(
                integer,
                network.score_portable_from_scratch(player, opponent)
            );
            assert!(
                (float - integer as f32 / 100.0).abs() < 0.25,
                "sign {sign}: float {float}, integer {integer}"
            );
        }
    }
}

#[test]
fn the_vector_copy_and_the_plain_loops_score_alike() {
    // This CPU's level (AVX2 or AVX-512 where it runs) against the portable loops, for every
    // width the evaluation is compiled for: the same integer arithmetic, so the same scores.
    for width in crate::eval::network::WIDTHS {
        for base in [SHAPE, SHAPE_I8] {
            let shape = NetShape { width, ..base };
            let network = random_model(shape, 9).quantize().unwrap();
            for (player, opponent) in random_disc_pairs(5, 500) {
                assert_eq!(
                    network.score(player, opponent),
                    network.score_portable_from_scratch(player, opponent),
                    "width {width}, {:?}",
                    shape.rows
                );
            }
        }
    }
}

#[test]
fn mirror_images_and_incremental_indices_score_alike() {
    for shape in [SHAPE, SHAPE_I8] {
        mirror_images_and_incremental_indices_score_alike_in(shape);
    }
}

fn mirror_images_and_incremental_indices_score_alike_in(shape: NetShape) {
    let network = random_model(shape, 11).quantize().unwrap();
    let positions = random_positions(30, 5);
    let mut distinct = std::collections::HashSet::new();
    for (_, p) in &positions {
        let score = network.score(p.player(), p.opponent());
        distinct.insert(score);
        for sym in 1..8 {
            let image = p.transform(sym);
            assert_eq!(
                network.score(image.player(), image.opponent()),
                score,
                "{p}"
            );
        }
    }
    assert!(
        distinct.len() > 100,
        "the random network scores too few values"
    );
    // Along a game: the indices carried move by move give the scores made from scratch.
    let mut position = Position::start();
    let mut state = FeatureState::new(position.player(), position.opponent());
    for mv in [
        "f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7", "c5", "b4",
    ] {
        let sq = mv.parse::<crate::board::Square>().unwrap();
        let f = position.flips(sq);
        let mine = state.mine_after(sq.index(), f);
        state = state.play(sq.index(), f);
        position = position.play_flips(1u64 << sq.index(), f);
        let fresh = network.score(position.player(), position.opponent());
        assert_eq!(
            network.score_indices(&state.mine, position.player(), position.opponent()),
            fresh
        );
        assert_eq!(
            network.score_indices(&mine, position.player(), position.opponent()),
            fresh
        );
    }
}

#[test]
fn network_files_round_trip_and_bad_ones_are_refused() {
    let network = random_model(SHAPE, 13).quantize().unwrap();
    let bytes = network.to_bytes();
    assert_eq!(Network::from_bytes(&bytes).unwrap(), network);
    // Truncated, corrupt (a byte of the compressed body changed), foreign, empty.
    assert!(Network::from_bytes(&bytes[..bytes.len() / 2]).is_err());
    let mut corrupt = bytes.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0x55;
    assert!(Network::from_bytes(&corrupt).is_err());
    assert!(Network::from_bytes(b"OEWEIGHT not a network").is_err());
    assert!(Network::from_bytes(&[]).is_err());
    // Another shape: a width the evaluation has no copy for, in an otherwise sound file.
    let body = gunzip(&bytes);
    let mut other = body.clone();
    other[8..12].copy_from_slice(&24u32.to_le_bytes());
    let e = Network::from_bytes(&gzip(&other)).unwrap_err();
    assert!(e.contains("width 24"), "{e}");
    // Another input layout.
    let mut other = body.clone();
    other[20..24].copy_from_slice(&7u32.to_le_bytes());
    assert!(
        Network::from_bytes(&gzip(&other))
            .unwrap_err()
            .contains("input layout")
    );
    // A row too large for the sums: refused, not wrapped.
    let mut other = body.clone();
    other[32..34].copy_from_slice(&5000i16.to_le_bytes());
    assert!(
        Network::from_bytes(&gzip(&other))
            .unwrap_err()
            .contains("out of range")
    );
    // Trailing bytes.
    let mut other = body;
    other.push(0);
    assert!(Network::from_bytes(&gzip(&other)).is_err());
}

#[test]
fn files_of_8_bit_rows_round_trip_and_bad_ones_are_refused() {
    let network = random_model(SHAPE_I8, 13).quantize().unwrap();
    let bytes = network.to_bytes();
    let back = Network::from_bytes(&bytes).unwrap();
    assert_eq!(back, network);
    assert_eq!(back.shape().rows, RowFormat::I8);
    let body = gunzip(&bytes);
    assert_eq!(&body[..8], b"OENET002");
    // Read as a file of 16-bit rows, its length is wrong: refused, not misread.
    let mut other = body.clone();
    other[..8].copy_from_slice(b"OENET001");
    assert!(Network::from_bytes(&gzip(&other)).is_err());
    // A row at -128 (outside the symmetric range the sums are proved for): refused.
    let mut other = body.clone();
    other[32] = 0x80;
    assert!(
        Network::from_bytes(&gzip(&other))
            .unwrap_err()
            .contains("out of range")
    );
    // A row bias beyond its limit: refused.
    let stored = (body.len() - 32)
        - (2 * SHAPE_I8.buckets * SHAPE_I8.width)
        - 2 * SHAPE_I8.buckets * SHAPE_I8.hidden * SHAPE_I8.width
        - 4 * SHAPE_I8.buckets * SHAPE_I8.hidden
        - 2 * crate::eval::network::STAGES * SHAPE_I8.hidden
        - 4 * crate::eval::network::STAGES;
    let mut other = body.clone();
    other[32 + stored..34 + stored].copy_from_slice(&5000i16.to_le_bytes());
    assert!(
        Network::from_bytes(&gzip(&other))
            .unwrap_err()
            .contains("row bias")
    );
    // Truncated.
    assert!(Network::from_bytes(&bytes[..bytes.len() / 2]).is_err());
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Training data from random games, labelled by the final disc difference of the position
/// (a sum over squares, which the network can learn), every tenth game held out.
fn disc_difference_data(games: usize) -> TrainingData {
    let mut data = TrainingData::default();
    for (game, p) in random_positions(games, 21) {
        let s = TrainSample {
            player: p.player(),
            opponent: p.opponent(),
            target: p.player().count_ones() as f32 - p.opponent().count_ones() as f32,
        };
        if game % 10 == 0 {
            data.validation.push(s);
        } else {
            data.train.push(s);
        }
    }
    data
}

fn settings(epochs: usize, checkpoint: Option<PathBuf>) -> NetSettings {
    NetSettings {
        shape: SHAPE,
        epochs,
        batch: 64,
        rate: 0.01,
        decay: 0.8,
        seed: 5,
        threads: 2,
        checkpoint,
        checkpoint_every: Duration::from_secs(3600),
    }
}

#[test]
fn training_lowers_the_held_out_error() {
    let data = disc_difference_data(200);
    let zero = |_: u64, _: u64| 0.0f32;
    let mut first = None;
    let mut last = None;
    let outcome = train_network(
        &data,
        &settings(4, None),
        &zero,
        &AtomicBool::new(false),
        &mut |e| {
            if let Event::Epoch { held_out, .. } = e {
                let overall = held_out.last().unwrap().error;
                first.get_or_insert(overall);
                last = Some(overall);
            }
        },
    )
    .unwrap();
    assert!(matches!(outcome, Outcome::Finished(_)));
    let untrained = held_out_errors(
        &data.validation,
        1,
        &|p, o| Model::new(SHAPE, 5).discs(p, o),
        &zero,
    );
    let (before, after) = (untrained.last().unwrap().error, last.unwrap());
    assert!(
        after < 0.5 * before,
        "held-out error {before} -> {after} discs"
    );
    assert!(after <= first.unwrap(), "{first:?} then {after}");
}

#[test]
fn a_stopped_and_resumed_run_ends_as_an_unstopped_one() {
    let data = disc_difference_data(60);
    let dir = std::env::temp_dir().join(format!("oe-net-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let zero = |_: u64, _: u64| 0.0f32;
    let whole = match train_network(
        &data,
        &settings(2, None),
        &zero,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap()
    {
        Outcome::Finished(m) => m.quantize().unwrap().to_bytes(),
        Outcome::Stopped => panic!("not stopped"),
    };
    let checkpoint = dir.join("run.checkpoint");
    let stop = AtomicBool::new(false);
    let mut batches = 0;
    let outcome = train_network(
        &data,
        &settings(2, Some(checkpoint.clone())),
        &zero,
        &stop,
        &mut |e| {
            if let Event::Batch { .. } = e {
                batches += 1;
                if batches == 17 {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        },
    )
    .unwrap();
    assert!(matches!(outcome, Outcome::Stopped));
    // Another run's settings do not continue this checkpoint.
    let mut other = settings(2, Some(checkpoint.clone()));
    other.seed = 6;
    let e = train_network(&data, &other, &zero, &AtomicBool::new(false), &mut |_| {}).err();
    assert!(e.unwrap().contains("another run"));
    let resumed = match train_network(
        &data,
        &settings(2, Some(checkpoint)),
        &zero,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap()
    {
        Outcome::Finished(m) => m.quantize().unwrap().to_bytes(),
        Outcome::Stopped => panic!("not stopped"),
    };
    assert_eq!(resumed, whole);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn positions_never_seen_get_finite_bounded_scores() {
    // Rows no position trained keep their initial zero: any position, seen or not, scores
    // within the score limit.
    let data = disc_difference_data(20);
    let zero = |_: u64, _: u64| 0.0f32;
    let Outcome::Finished(model) = train_network(
        &data,
        &settings(1, None),
        &zero,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap() else {
        panic!("not finished")
    };
    let network = model.quantize().unwrap();
    for (player, opponent) in random_disc_pairs(9, 2_000) {
        let s = network.score(player, opponent);
        assert!(s.abs() <= 6400);
        assert!(model.discs(player, opponent).is_finite());
    }
}
