//! The commands that read datagen's files: `mpc calibrate` (stopped and resumed) and `train`.

use super::{bytes, datagen};
use crate::common::{run, stop_with_sigterm, temp_dir};
use std::path::Path;

/// The table lines of an `mpc calibrate` output file (its header's comments hold the time).
fn table_lines(path: &Path) -> Vec<String> {
    String::from_utf8(bytes(path))
        .expect("the table is text")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn mpc_calibrate_stopped_by_sigterm_resumes_to_the_table_of_a_whole_run() {
    let dir = temp_dir("datagen-mpc");
    let data = dir.join("data.bin");
    datagen(
        &["--games", "8", "--solve-empties", "12", "--depth", "3"],
        &data,
    );
    let (whole, stopped) = (dir.join("whole.txt"), dir.join("stopped.txt"));
    let calibrate = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "mpc",
            "calibrate",
            data.to_str().unwrap(),
            "--positions",
            "150",
            "--max-depth",
            "8",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let o = calibrate(&whole, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let progress = dir.join("stopped.txt.progress");
    let (data_path, out) = (data.to_str().unwrap(), stopped.to_str().unwrap());
    let args = [
        "mpc",
        "calibrate",
        data_path,
        "--positions",
        "150",
        "--max-depth",
        "8",
    ];
    // Stopped once a few positions are searched.
    let status = stop_with_sigterm(&[&args[..], &["--out", out]].concat(), || {
        std::fs::read_to_string(&progress).map_or(0, |t| t.lines().count()) >= 4 || stopped.exists()
    });
    if status.code() == Some(143) {
        assert!(!stopped.exists(), "no table from a stopped run");
        // Without --resume the stopped run's progress is not overwritten.
        let before = bytes(&progress);
        let o = calibrate(&stopped, &[]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
        assert_eq!(bytes(&progress), before);
        let o = calibrate(&stopped, &["--resume"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("already searched"),
            "the resumed run reads the progress"
        );
    } else {
        // The run finished before the signal came.
        assert_eq!(status.code(), Some(0));
    }
    assert!(
        !progress.exists(),
        "a finished run removes its progress file"
    );
    assert_eq!(table_lines(&stopped), table_lines(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `train` on a small run's data writes weights that `--weights` and `--compare` read back,
/// and measures them beside other weights on the same held-out positions; a `--compare` file
/// that is no weights file is refused before anything is written.
#[test]
fn train_writes_weights_that_compare_reads_back() {
    let dir = temp_dir("datagen-train");
    let data = dir.join("data.bin");
    datagen(
        &["--games", "40", "--solve-empties", "10", "--depth", "1"],
        &data,
    );
    let weights = dir.join("w.bin");
    let train = |out: &Path, more: &[&str]| {
        let mut a = vec![
            "train",
            data.to_str().unwrap(),
            "--epochs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ];
        a.extend_from_slice(more);
        run(&a)
    };
    let o = train(&weights, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("compare-mae"), "{report}");
    assert!(report.contains("(built-in "), "{report}");
    // Compared with themselves, the new weights' two columns agree on every stage.
    let again = dir.join("w2.bin");
    let o = train(&again, &["--compare", weights.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bytes(&weights), bytes(&again), "training is seeded");
    let report = String::from_utf8_lossy(&o.stdout);
    let mut stages = 0;
    for row in report.lines() {
        let cells: Vec<&str> = row.split_whitespace().collect();
        // stage, empties, positions, iterations, train-mae, held-out, held-out-mae, compare-mae
        if cells.len() == 8 && cells[0].parse::<u32>().is_ok() && cells[5] != "0" {
            assert_eq!(cells[6], cells[7], "{row}");
            stages += 1;
        }
    }
    assert!(stages > 5, "{report}");
    // The gradient-descent solver still trains, to weights of its own.
    let sgd = dir.join("w-sgd.bin");
    let o = train(&sgd, &["--method", "sgd"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(
        bytes(&weights),
        bytes(&sgd),
        "--method sgd is another solver"
    );
    let refused = dir.join("w3.bin");
    let o = train(&refused, &["--compare", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    assert!(!refused.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
