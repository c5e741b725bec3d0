//! Misbehaving engines (crashes, hangs, illegal moves, garbage, refusals, chatter) lose their
//! games with the reason, and the match completes.

use super::{fixture, game_lines, run, text};

/// Plays a good fixture engine (`name=good`) against `bad`, a misbehaving one called `name`,
/// over two openings with both colours, and checks that the bad engine lost all four games
/// with `reason` while the match completed.
fn assert_faults_lose(bad: &str, name: &str, fault: &str, reason: &str) {
    let good = format!("name=good,gtp:{}", fixture());
    // Two openings (2 plies up to symmetry: 3, cut to 2) played with both colours.
    let o = run(&[
        "--engine",
        &good,
        "--engine",
        bad,
        "--opening-plies",
        "2",
        "--max-openings",
        "2",
        "--move-time",
        "0.3",
        "--timeout-margin",
        "0.1",
        "--concurrency",
        "2",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{fault}: {}", text(&o.stderr));
    let games = game_lines(&out);
    assert_eq!(games.len(), 4, "{fault}:\n{out}");
    for line in games {
        let bad_colour = if line.contains(&format!("{name} (black)")) {
            "black"
        } else {
            "white"
        };
        assert!(
            line.contains(&format!("{bad_colour} forfeits: {reason}")),
            "{fault}: {line}"
        );
    }
    assert!(
        out.contains(&format!("good vs {name}: W/D/L 4/0/0")),
        "{fault}:\n{out}"
    );
}

#[test]
fn each_fault_loses_its_games_with_the_reason_and_the_match_completes() {
    let engine = fixture();
    for (fault, reason) in [
        // The crash is reported with the engine's last stderr line, found past 200 KB of
        // noise that the runner must drain lest the engine block on it.
        (
            "crash",
            "crashed: exited during genmove; last stderr line: 'gtp_fixture: crashing on purpose'",
        ),
        ("hang", "timeout"),
        ("illegal", "illegal move d4"),
        // A line that is not GTP is skipped as GUIs do; no reply follows it, so the move
        // times out, and the reason quotes the line.
        (
            "garbage",
            "timeout: no answer to genmove within 0.40 s; skipped output that is not GTP: 'bestmove e6 ponder f4'",
        ),
        ("refuse", "genmove failed"),
    ] {
        let bad = format!("name=bad,gtp:{engine} {fault} 2");
        assert_faults_lose(&bad, "bad", fault, reason);
    }
}

#[test]
fn nboard_faults_lose_their_games_with_the_reason() {
    let engine = fixture();
    for (fault, reason) in [
        ("crash", "crashed: exited during go"),
        ("hang", "timeout"),
        ("illegal", "illegal move d4"),
        ("garbage", "unparsable move 'bestmove'"),
    ] {
        // No name=: the engine is called by its `set myname`.
        let bad = format!("nboard:{engine} nboard {fault} 2");
        assert_faults_lose(&bad, "nbfixture", fault, reason);
    }
}

#[test]
fn stray_lines_before_gtp_replies_are_skipped() {
    // Edax writes `*** SEARCH STILL RUNNING ? (0) ***` before some genmove replies; the
    // chatty fixture does it before every one.
    let engine = fixture();
    let good = format!("name=good,gtp:{engine}");
    let chatty = format!("name=chatty,gtp:{engine} chatty 0");
    let o = run(&[
        "--engine",
        &good,
        "--engine",
        &chatty,
        "--opening-plies",
        "2",
        "--max-openings",
        "2",
        "--move-time",
        "0.5",
        "--concurrency",
        "2",
    ]);
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(game_lines(&out).len(), 4, "{out}");
    assert!(!out.contains("forfeits"), "{out}");
    // Skipped with a warning, once per engine process rather than once per line.
    assert!(
        err.contains(
            "skipped a line that is not a GTP reply: '*** SEARCH STILL RUNNING ? (0) ***'"
        ),
        "{err}"
    );
    assert!(err.matches("skipped a line").count() <= 4, "{err}");
}
