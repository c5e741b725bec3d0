//! The WTHOR reader against the facts its README states about the game files of data/wthor,
//! `train` against WTHOR files other than those its shards pin, and the built-in pattern
//! weights against exact endgame scores.

use crate::common;
use othello_engine::eval::{Evaluator, Pattern};
use othello_engine::game::datagen::manifest::Manifest;
use othello_engine::game::datagen::read_training_data;
use othello_engine::game::datagen::shard::ShardSource;
use othello_engine::game::wthor::{parse_wthor, replay};
use std::path::Path;

#[test]
fn every_wthor_game_replays_and_the_readme_counts_the_finished_ones() {
    let dir = common::data("wthor");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/wthor is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wtb"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 44);
    let (mut games, mut finished) = (0usize, 0usize);
    for path in files {
        let file = parse_wthor(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(file.depth, 24, "{}", path.display());
        for game in &file.games {
            games += 1;
            let (positions, end) = replay(&game.moves).unwrap();
            assert_eq!(positions.len(), game.moves.len());
            if end.is_game_over() {
                finished += 1;
            }
        }
    }
    // The README's counts: 124,106 games, of which 433 stop before the game is over.
    assert_eq!(games, 124_106);
    assert_eq!(finished, 124_106 - 433);
}

#[test]
fn the_pattern_evaluator_sees_who_wins_clearly_won_ffo_positions() {
    let (mut clear, mut right) = (0, 0);
    for name in ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"] {
        for obf in common::obf::read_obf(name) {
            let Some(best) = obf.moves.iter().map(|m| m.1).max() else {
                continue;
            };
            if best.abs() < 10 {
                continue;
            }
            clear += 1;
            let estimate = Pattern.evaluate(&obf.position);
            if estimate.signum() == best.signum() {
                right += 1;
            }
        }
    }
    eprintln!("{right} of {clear} clearly decided positions named right");
    assert!(clear >= 10, "only {clear} clearly decided positions");
    // A static evaluation is no solver, but on positions won or lost by 10 discs or more it
    // should name the winner nearly always.
    assert!(right * 10 >= clear * 8, "{right} of {clear} right");
}

/// Spoils WTHOR file `file` as `how` says: `missing`, `truncated` or `altered`.
fn spoil(file: &Path, how: &str) {
    match how {
        "missing" => std::fs::remove_file(file).unwrap(),
        "truncated" => {
            // One game record fewer, as a copy cut short would be.
            let len = std::fs::metadata(file).unwrap().len();
            let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
            f.set_len(len - 68).unwrap();
        }
        _ => {
            // Game 1's black score: the file still parses, only its digest tells.
            let mut bytes = std::fs::read(file).unwrap();
            bytes[16 + 6] ^= 1;
            std::fs::write(file, bytes).unwrap();
        }
    }
}

/// The WTHOR shards of `data/train/pilot/d6` pin every WTHOR file by SHA-256: given a folder
/// where one is missing, cut short or has a byte changed, `train` refuses in one line naming
/// the file and the shard, with exit status 2, and writes no weights. A file they do not pin is
/// no matter.
#[test]
fn train_refuses_wthor_files_other_than_those_its_shards_pin() {
    let shards = common::data("train/pilot/d6");
    let manifest = Manifest::load(&shards).expect("the pilot's manifest reads");
    let first_wthor = manifest
        .shards
        .iter()
        .find(|e| e.source == ShardSource::Wthor)
        .expect("the pilot holds WTHOR shards");
    let shard = shards.join(&first_wthor.file);
    let dir = common::temp_dir("train-wthor-pins");
    let year = "WTH_1990.wtb";
    let copy_of_data_wthor = |name: &str| {
        let wthor = dir.join(name);
        std::fs::create_dir(&wthor).unwrap();
        for entry in std::fs::read_dir(common::data("wthor")).unwrap() {
            let from = entry.unwrap().path();
            std::fs::copy(&from, wthor.join(from.file_name().unwrap())).unwrap();
        }
        wthor
    };
    for damage in ["missing", "truncated", "altered"] {
        let wthor = copy_of_data_wthor(damage);
        let damaged = wthor.join(year);
        spoil(&damaged, damage);
        let out = dir.join(format!("{damage}.bin"));
        let o = common::run(&[
            "train",
            shards.to_str().unwrap(),
            "--wthor",
            wthor.to_str().unwrap(),
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{damage}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{damage}: {stderr}");
        assert!(
            stderr.contains(damaged.to_str().unwrap()) && stderr.contains(shard.to_str().unwrap()),
            "{damage}: {stderr}"
        );
        let reason = if damage == "missing" {
            "is missing"
        } else {
            "is not the file pinned"
        };
        assert!(stderr.contains(reason), "{damage}: {stderr}");
        assert!(!out.exists(), "{damage}: weights written");
        assert!(
            o.stdout.is_empty(),
            "{damage}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // A file the shards do not pin (a later year) is not read: game numbers count only the
    // pinned files, so the shard reads whole.
    let newer = copy_of_data_wthor("newer");
    std::fs::copy(newer.join("WTH_2020.wtb"), newer.join("WTH_2021.wtb")).unwrap();
    let (_, samples) = read_training_data(&shard, &newer).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(samples.len() as u64, first_wthor.positions);
    let _ = std::fs::remove_dir_all(&dir);
}
