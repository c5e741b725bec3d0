//! The label pilot's measures run as a program: `datagen reference` (held-out positions
//! valued as well as we can, within a range of empties), `datagen compare` (labels, weights
//! and networks against those values) and `datagen swing` (root values by depth against
//! exact ones).

use super::refused;
use super::shards::datagen_dir;
use crate::common::{run, temp_dir};
use othello_engine::fit::dataset::read_dataset;

/// The label pilot's judge: `datagen reference` values held-out positions, and `datagen
/// compare` holds a folder's labels and a weights file's values against them. Exact labels
/// agree with exact reference values; a bad weights file is one line naming it.
#[test]
fn compare_holds_labels_and_weights_against_the_reference_values() {
    let dir = temp_dir("shards-compare");
    let data = dir.join("d2");
    datagen_dir(
        &[
            "--games",
            "40",
            "--seed",
            "3",
            "--depth",
            "2",
            "--solve-empties",
            "12",
        ],
        &data,
    );
    let reference = dir.join("reference.bin");
    let data_s = data.to_str().unwrap();
    let o = run(&[
        "datagen",
        "reference",
        data_s,
        "--out",
        reference.to_str().unwrap(),
        "--games",
        "60",
        "--solve-empties",
        "12",
        "--depth",
        "4",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let values = read_dataset(&reference).unwrap();
    assert_eq!(values.len(), 60);
    assert!(
        values.iter().all(|v| v.game % 10 == 0),
        "held-out games only"
    );
    let weights_s = concat!(env!("CARGO_MANIFEST_DIR"), "/data/pattern-weights.bin");
    let o = run(&[
        "datagen",
        "compare",
        "--reference",
        reference.to_str().unwrap(),
        data_s,
        "--weights",
        weights_s,
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let row = |bracket: &str| -> Vec<f64> {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(bracket))
            .unwrap_or_else(|| panic!("no {bracket} row:\n{out}"))
            .split_whitespace()
            .skip(2)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    // Up to 9 empties every label and every reference value is exact: they agree, and the
    // weights miss by some discs, as a static evaluation does.
    let exact = row("0-9");
    assert_eq!(exact[0], 0.0, "{out}");
    assert!(exact[1] > 0.0 && exact[1] < 20.0, "{out}");
    assert_eq!(row("all").len(), 2, "{out}");
    // A weights file that is not one: one line naming it, exit status 2.
    let bad = dir.join("bad-weights.bin");
    std::fs::write(&bad, b"not weights").unwrap();
    let line = refused(&[
        "datagen",
        "compare",
        "--reference",
        reference.to_str().unwrap(),
        "--weights",
        bad.to_str().unwrap(),
    ]);
    assert!(line.contains("bad-weights.bin"), "{line}");
    // A network trained on the folder: its static values are a column too.
    let net = dir.join("d2.net");
    super::labellers::small_network(std::path::Path::new(data_s), "16", &net);
    let o = run(&[
        "datagen",
        "compare",
        "--reference",
        reference.to_str().unwrap(),
        "--weights",
        weights_s,
        "--network",
        net.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{out}");
    let all: Vec<&str> = out
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(all.len(), 4, "all, positions, weights, network: {out}");
    let line = refused(&[
        "datagen",
        "compare",
        "--reference",
        reference.to_str().unwrap(),
        "--network",
        bad.to_str().unwrap(),
    ]);
    assert!(line.contains("bad-weights.bin"), "{line}");
    swing_reads_exact_values(&dir, data_s, &reference);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `datagen swing` on positions of 8 to 10 empties solved exactly (`datagen reference
/// --empties`): a search deeper than the game is long finds every exact score, a shallow
/// one misses; reference values not all exact are refused.
fn swing_reads_exact_values(dir: &std::path::Path, data: &str, not_exact: &std::path::Path) {
    let exact = dir.join("swing.bin");
    let o = run(&[
        "datagen",
        "reference",
        data,
        "--empties",
        "8-10",
        "--games",
        "30",
        "--solve-empties",
        "30",
        "--out",
        exact.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let values = read_dataset(&exact).unwrap();
    assert!(!values.is_empty() && values.iter().all(|v| (8..=10).contains(&v.empties)));
    let o = run(&[
        "datagen",
        "swing",
        "--reference",
        exact.to_str().unwrap(),
        "--depths",
        "1,2,12",
        "--selectivity",
        "100",
    ]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let row = |depth: &str| -> Vec<f64> {
        out.lines()
            .skip_while(|l| !l.starts_with("depth"))
            .find(|l| l.split_whitespace().next() == Some(depth))
            .unwrap_or_else(|| panic!("no depth {depth} row:\n{out}"))
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    assert_eq!(row("12"), [0.0, 0.0], "{out}");
    assert!(row("1")[1] > 0.0, "{out}");
    assert!(out.contains("swing 1 - 2: "), "{out}");
    let line = refused(&[
        "datagen",
        "swing",
        "--reference",
        not_exact.to_str().unwrap(),
    ]);
    assert!(line.contains("exact values only"), "{line}");
    // `datagen swing --reference FILE` with more flags.
    let swing = |reference: &std::path::Path, extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "datagen",
            "swing",
            "--reference",
            reference.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(String::from).collect()
    };
    let swing_out = |args: Vec<String>| -> String {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    // Searched reference values are taken when asked; the tempo moves the network's values
    // but no exact score: a search past the end of the game still finds them all.
    let inexact = swing_out(swing(
        not_exact,
        &[
            "--depths",
            "1,2",
            "--eval",
            "neural",
            "--tempo",
            "1.5",
            "--inexact",
        ],
    ));
    assert!(
        inexact.contains("tempo 1.50 discs") && inexact.contains("are searches"),
        "{inexact}"
    );
    let deep = swing_out(swing(
        &exact,
        &[
            "--depths",
            "12",
            "--selectivity",
            "100",
            "--eval",
            "neural",
            "--tempo",
            "3",
        ],
    ));
    assert!(
        deep.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["12", "+0.00", "0.00"]),
        "{deep}"
    );
    let bad_flags = [
        ("--tempo", "11"),
        ("--tempo", "-10.5"),
        ("--tempo", "x"),
        ("--tempo", "NaN"),
        ("--depths", "14,13"),
        ("--depths", "0,1"),
        ("--depths", "x"),
    ];
    for (flag, bad) in bad_flags {
        let args = swing(&exact, &["--eval", "neural", flag, bad]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let line = refused(&args);
        assert!(line.contains(flag), "{flag} {bad}: {line}");
    }
}
