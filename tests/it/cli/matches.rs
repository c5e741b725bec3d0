//! The match's refusals as a user meets them: the whole line and exit status 2.

use super::stderr;
use crate::common::{run, temp_dir};

/// The refusals whose code moved when the match's flags came from the arena into the command
/// line (and the arena's errors became typed): each is pinned as the whole line, status 2.
#[test]
fn match_refusals_keep_their_exact_lines() {
    let dir = temp_dir("cli-match-refusals");
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (missing, no_dir) = (path("none.txt"), path("no-dir/r.json"));
    let same = path("same.json");
    let two = ["match", "--engine", "self:", "--engine", "self:"];
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--depth", "0"],
            "bad --depth '0': expected a whole number from 1 to 60".into(),
        ),
        (
            vec!["--move-time", "-1"],
            "bad --move-time '-1': expected seconds from 0.001 to 86400".into(),
        ),
        (
            vec!["--timeout-margin", "soon"],
            "bad --timeout-margin 'soon': expected seconds from 0 to 86400".into(),
        ),
        (
            vec!["--concurrency", "0"],
            "bad --concurrency '0': expected a whole number from 1 to 256".into(),
        ),
        (
            vec!["--opening-plies", "11"],
            "bad --opening-plies '11': expected a whole number from 0 to 10".into(),
        ),
        (
            vec!["--max-openings", "0"],
            "bad --max-openings '0': expected a whole number from 1 to 4294967295".into(),
        ),
        (
            vec!["--sample", "x"],
            "bad --sample 'x': expected a whole number from 1 to 4294967295".into(),
        ),
        (
            vec!["--seed", "-1"],
            "bad --seed '-1': expected a whole number".into(),
        ),
        (
            vec!["--shard", "3/2"],
            "bad --shard '3/2': expected i/n with 1 <= i <= n".into(),
        ),
        (
            vec!["--tc", "1", "--move-time", "1"],
            "give --tc or --move-time, not both".into(),
        ),
        (
            vec!["--openings", "builtin", "--opening-plies", "2"],
            "give --openings or --opening-plies, not both".into(),
        ),
        (
            vec!["--sample", "2", "--max-openings", "2"],
            "give --max-openings or --sample, not both".into(),
        ),
        (
            vec!["--opening-plies", "1", "--sample", "2"],
            "--sample 2: there are only 1 openings to draw from".into(),
        ),
        (
            vec!["--openings", &missing],
            format!(
                "cannot read openings file '{missing}': No such file or directory (os error 2)"
            ),
        ),
        (
            vec!["--sprt", "elo0=5,elo1=0"],
            "bad --sprt 'elo0=5,elo1=0': elo1 must be above elo0".into(),
        ),
        (
            vec!["--engine", "self:", "--sprt", "elo0=0,elo1=5"],
            "--sprt needs exactly two engines".into(),
        ),
        (
            vec!["--resume"],
            "--resume needs --results FILE: the games played so far are read from it".into(),
        ),
        (
            vec!["--engine", "uci:stockfish"],
            "engine 'uci:stockfish': unknown kind 'uci' (expected gtp:, nboard: or self:)".into(),
        ),
        (
            vec!["--engine", "depth=61,nboard:edax"],
            "engine 'depth=61,nboard:edax': bad depth=61 (1 to 60)".into(),
        ),
        (
            vec!["--results", &same, "--ggf", &same],
            format!("--results and --ggf name the same file '{same}'"),
        ),
        (
            vec!["--results", &no_dir],
            format!("cannot write results file '{no_dir}': No such file or directory (os error 2)"),
        ),
        (
            vec!["--tc", "60+x"],
            "bad time control '60+x': the increment 'x' is not seconds".into(),
        ),
        (vec!["--depth"], "option '--depth' needs a value".into()),
    ];
    let refused = |args: &[&str], expected: &str| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("othello-engine: {expected}\n"),
            "{args:?}"
        );
    };
    for (extra, expected) in &cases {
        let args: Vec<&str> = two.iter().chain(extra).copied().collect();
        refused(&args, expected);
    }
    refused(
        &["match", "--engine", "self:"],
        "match needs at least two --engine SPEC, got 1",
    );
    refused(
        &["match", "merge"],
        "match merge needs one or more results files (written by match --results)",
    );
    refused(
        &["match", "merge", &missing],
        &format!("cannot read results file '{missing}': No such file or directory (os error 2)"),
    );
    let garbage = path("garbage.json");
    std::fs::write(&garbage, "no results here\n").expect("write");
    refused(
        &["match", "merge", &garbage],
        &format!("results file '{garbage}' cannot be read: line 1: no 'game' column"),
    );
    refused(
        &[
            "datagen",
            "--out",
            &path("d.bin"),
            "--games",
            "1",
            "--shard",
            "0/2",
        ],
        "bad --shard '0/2': expected i/n with 1 <= i <= n",
    );
    refused(
        &["perft", "61"],
        "bad depth '61': expected a whole number from 1 to 60",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
