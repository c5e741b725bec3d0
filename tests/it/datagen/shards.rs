//! `datagen --out-dir`: shard folders hold exactly the positions and labels of the 24-byte
//! files, a stopped or killed run resumes to the shards of an uninterrupted one, `train`
//! learns from a shard folder, and a corrupt, truncated, foreign or mislabelled shard is
//! refused in one line naming the file, with nothing overwritten.

use super::{SMALL, bytes, datagen, refused};
use crate::common::{data, run, stop_with_sigterm, temp_dir};
use othello_engine::fit::dataset::read_dataset;
use othello_engine::game::datagen::read_training_data;
use othello_engine::game::datagen::shard::{decode_shard, read_shard_header};
use std::path::Path;

/// Runs `datagen flags --out-dir dir`; asserts success.
pub(super) fn datagen_dir(flags: &[&str], dir: &Path) {
    let mut args = vec!["datagen"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--out-dir", dir.to_str().unwrap()]);
    let o = run(&args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn wthor_dir() -> String {
    data("wthor").to_str().unwrap().to_string()
}

/// The positions of a shard folder, read as `train` reads them.
fn folder(dir: &Path) -> Vec<othello_engine::fit::dataset::Sample> {
    read_training_data(dir, &data("wthor"))
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

/// The shard files of a folder, by name.
fn shard_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".oes"))
        .collect();
    names.sort();
    names
}

/// A shard's bytes after its header (the header names the time and command, which differ).
fn body(path: &Path) -> Vec<u8> {
    let data = bytes(path);
    let (_, rest) = read_shard_header(&data).unwrap();
    rest.to_vec()
}

#[test]
fn shards_hold_the_positions_and_labels_of_the_record_file_in_under_2_5_bytes_each() {
    let dir = temp_dir("shards-round-trip");
    // Self-play: the same run written both ways.
    let file = dir.join("self.bin");
    datagen(SMALL, &file);
    let shards = dir.join("self");
    datagen_dir(&[SMALL, &["--games-per-shard", "4"]].concat(), &shards);
    assert_eq!(
        shard_names(&shards),
        ["self-s0-0000000.oes", "self-s0-0000004.oes"]
    );
    let records = read_dataset(&file).unwrap();
    assert_eq!(folder(&shards), records);
    // The budget is 2.5 bytes a position; a real run's shards take 0.9. Each shard
    // also carries a JSON header of a few hundred bytes, left out here.
    let bodies: usize = shard_names(&shards)
        .iter()
        .map(|n| body(&shards.join(n)).len())
        .sum();
    assert!(
        bodies * 2 < records.len() * 5,
        "{bodies} bytes for {} positions",
        records.len()
    );
    // WTHOR: only labels are stored; the games come from the folder.
    let wthor = wthor_dir();
    let flags = [
        "--wthor",
        &wthor,
        "--games",
        "5",
        "--depth",
        "1",
        "--solve-empties",
        "8",
    ];
    let file = dir.join("wthor.bin");
    datagen(&flags, &file);
    let shards = dir.join("wthor");
    datagen_dir(&flags, &shards);
    assert_eq!(folder(&shards), read_dataset(&file).unwrap());
    // `pack` makes the same shards of the record file.
    let packed = dir.join("packed");
    let o = run(&[
        &["datagen", "pack", file.to_str().unwrap()][..],
        &flags[..],
        &["--out-dir", packed.to_str().unwrap()],
    ]
    .concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let name = "wthor-0000000.oes";
    assert_eq!(body(&packed.join(name)), body(&shards.join(name)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_or_killed_run_resumes_to_the_shards_of_an_uninterrupted_one() {
    let dir = temp_dir("shards-resume");
    let flags = [
        "--games",
        "9",
        "--solve-empties",
        "14",
        "--depth",
        "3",
        "--games-per-shard",
        "3",
    ];
    let whole = dir.join("whole");
    datagen_dir(&flags, &whole);
    let names = shard_names(&whole);
    assert_eq!(names.len(), 3);
    // SIGTERM once the first game of the second shard is under way.
    let stopped = dir.join("stopped");
    let args = [
        &["datagen"][..],
        &flags[..],
        &["--out-dir", stopped.to_str().unwrap()],
    ]
    .concat();
    let status = stop_with_sigterm(&args, || stopped.join("self-s0-0000000.oes").exists());
    assert!(matches!(status.code(), Some(143) | Some(0)), "{status:?}");
    // A kill in the middle of writing a game: the work file cut inside a record.
    let work = stopped.join(".work/self-s0-0000003.bin");
    if let Ok(data) = std::fs::read(&work)
        && data.len() > 16 + 24 * 40
    {
        std::fs::write(&work, &data[..16 + 24 * 40 + 7]).unwrap();
    }
    datagen_dir(&flags, &stopped);
    assert_eq!(shard_names(&stopped), names);
    for name in &names {
        assert_eq!(body(&stopped.join(name)), body(&whole.join(name)), "{name}");
    }
    assert_eq!(folder(&stopped), folder(&whole));
    // Run again: every shard is kept as it is.
    let before = bytes(&stopped.join("MANIFEST.json"));
    datagen_dir(&flags, &stopped);
    assert_eq!(bytes(&stopped.join("MANIFEST.json")), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The held-out error of every stage row of a `train` report, weighted by its positions:
/// (new weights, compared weights).
fn held_out_errors(report: &str) -> (f64, f64) {
    let (mut new, mut old, mut n) = (0.0, 0.0, 0.0);
    for row in report.lines() {
        let cells: Vec<&str> = row.split_whitespace().collect();
        if cells.len() == 8 && cells[0].parse::<u32>().is_ok() {
            let count: f64 = cells[5].parse().unwrap();
            if count == 0.0 {
                continue;
            }
            new += count * cells[6].parse::<f64>().unwrap();
            old += count * cells[7].parse::<f64>().unwrap();
            n += count;
        }
    }
    assert!(n > 0.0, "{report}");
    (new / n, old / n)
}

#[test]
fn train_on_a_tiny_shard_folder_lowers_the_held_out_error() {
    let dir = temp_dir("shards-train");
    let data = dir.join("data");
    datagen_dir(
        &["--games", "60", "--solve-empties", "10", "--depth", "1"],
        &data,
    );
    let data_s = data.to_str().unwrap();
    // Weights held at nearly zero by the largest ridge: what knowing nothing scores.
    let flat = dir.join("flat.bin");
    let o = run(&[
        "train",
        data_s,
        "--ridge",
        "100000",
        "--out",
        flat.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fitted = dir.join("fitted.bin");
    let o = run(&[
        "train",
        data_s,
        "--out",
        fitted.to_str().unwrap(),
        "--compare",
        flat.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (new, flat_error) = held_out_errors(&String::from_utf8_lossy(&o.stdout));
    assert!(
        new < 0.8 * flat_error,
        "held-out error {new:.2} against {flat_error:.2} for flat weights"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_shards_and_flags_are_refused_in_one_line_naming_the_file() {
    let dir = temp_dir("shards-bad");
    let good = dir.join("good");
    datagen_dir(&[SMALL, &["--games-per-shard", "3"]].concat(), &good);
    let shard = good.join("self-s0-0000003.oes");
    let original = bytes(&shard);
    let manifest = bytes(&good.join("MANIFEST.json"));
    let good_s = good.to_str().unwrap();
    let weights = dir.join("w.bin");
    let weights_s = weights.to_str().unwrap();
    let check = |what: &str, says: &str| {
        for args in [
            vec!["datagen", "stats", good_s],
            vec!["train", good_s, "--out", weights_s],
        ] {
            let line = refused(&args);
            assert!(line.contains(says), "{what}: {args:?}: {line}");
        }
    };
    // A byte changed in the body: the manifest's digest no longer matches.
    let mut corrupt = original.clone();
    let last = corrupt.len() - 20;
    corrupt[last] ^= 0x40;
    std::fs::write(&shard, &corrupt).unwrap();
    check("corrupt", "self-s0-0000003.oes: SHA-256");
    // Even without the manifest the gzip check refuses it.
    assert!(decode_shard(&corrupt, None).is_err());
    // Cut short.
    std::fs::write(&shard, &original[..original.len() / 2]).unwrap();
    check("truncated", "self-s0-0000003.oes");
    let (_, rest) = read_shard_header(&original).unwrap();
    let header_len = original.len() - rest.len();
    let cut = &original[..header_len + rest.len() / 2];
    assert!(decode_shard(cut, None).unwrap_err().contains("truncated"));
    std::fs::write(&shard, &original).unwrap();
    // A foreign file named like a shard, which the manifest does not list.
    let foreign = good.join("stray.oes");
    std::fs::write(&foreign, b"OEDATA01 not a shard").unwrap();
    check("foreign", "stray.oes: not in");
    std::fs::remove_file(&foreign).unwrap();
    assert!(
        decode_shard(b"OEDATA01 not a shard", None)
            .unwrap_err()
            .contains("not a training shard")
    );
    // A folder of another recipe beside it is no refusal (labellers/ has what `train` makes
    // of it); in it, a run of another recipe is refused, whatever its shards' names.
    let other = dir.join("other");
    datagen_dir(
        &[SMALL, &["--depth", "1", "--games-per-shard", "3"]].concat(),
        &other,
    );
    let line = refused(
        &[
            &["datagen"],
            SMALL,
            &["--depth", "1", "--seed", "9", "--out-dir", good_s],
        ]
        .concat(),
    );
    assert!(line.contains("a folder holds one recipe"), "{line}");
    // The same folder written by another recipe is refused, and nothing in it changes.
    let line = refused(
        &[
            &["datagen"],
            SMALL,
            &[
                "--depth",
                "1",
                "--games-per-shard",
                "3",
                "--out-dir",
                good_s,
            ],
        ]
        .concat(),
    );
    assert!(line.contains("a folder holds one recipe"), "{line}");
    for (flags, says) in [
        (&["--games-per-shard", "0"][..], "games-per-shard"),
        (&["--resume"][..], "--resume"),
        (&["--selectivity", "50"][..], "selectivity"),
    ] {
        let line = refused(&[&["datagen"], SMALL, flags, &["--out-dir", good_s]].concat());
        assert!(line.contains(says), "{flags:?}: {line}");
    }
    assert_eq!(bytes(&shard), original);
    assert_eq!(bytes(&good.join("MANIFEST.json")), manifest);
    assert!(!weights.exists());
    // All is well again.
    let o = run(&["datagen", "stats", good_s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A later build's own weights would label a folder's positions differently: a folder
/// labelled by one set of weights takes no shard from a run with others; `train` joins two
/// folders (or their shards) of different weights and names each.
#[test]
fn shards_labelled_by_other_weights_are_refused() {
    let dir = temp_dir("shards-weights");
    let (built_in, given) = (dir.join("built-in"), dir.join("given"));
    let weights = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/train/d6/label-weights.bin"
    );
    let flags = [SMALL, &["--games-per-shard", "3"]].concat();
    datagen_dir(&flags, &built_in);
    datagen_dir(&[&flags[..], &["--weights", weights]].concat(), &given);
    let manifest = bytes(&built_in.join("MANIFEST.json"));
    let names = shard_names(&built_in);
    // The folder names its weights, and a run with others may not add to it.
    let stats = run(&["datagen", "stats", given.to_str().unwrap()]);
    let stats = String::from_utf8_lossy(&stats.stdout).to_string();
    assert!(stats.contains("label weights: "), "{stats}");
    let more = [SMALL, &["--games", "9", "--games-per-shard", "3"]].concat();
    let line = refused(
        &[
            &["datagen"],
            &more[..],
            &[
                "--weights",
                weights,
                "--out-dir",
                built_in.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    assert!(line.contains("labelled by the weights"), "{line}");
    assert_eq!(bytes(&built_in.join("MANIFEST.json")), manifest);
    assert_eq!(shard_names(&built_in), names);
    // The same run with the folder's weights goes on.
    let more_given = [&more[..], &["--weights", weights]].concat();
    datagen_dir(&more_given, &given);
    assert_eq!(shard_names(&given).len(), 3);
    // Training on both, as folders or as shards, names both sets of weights.
    let out = dir.join("w.bin");
    let shard = |d: &Path| d.join("self-s0-0000000.oes").to_str().unwrap().to_string();
    let fingerprint = |d: &Path| {
        let m: serde_json::Value =
            serde_json::from_slice(&bytes(&d.join("MANIFEST.json"))).unwrap();
        m["label_weights"].as_str().unwrap()[..12].to_string()
    };
    for set in [
        [
            built_in.to_str().unwrap().to_string(),
            given.to_str().unwrap().to_string(),
        ],
        [shard(&given), shard(&built_in)],
    ] {
        let o = run(&["train", &set[0], &set[1], "--out", out.to_str().unwrap()]);
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{set:?}: {said}");
        for d in [&built_in, &given] {
            assert!(said.contains(&fingerprint(d)), "{set:?}: {said}");
        }
        std::fs::remove_file(&out).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
