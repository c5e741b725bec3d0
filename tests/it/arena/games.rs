//! Matches that play out: clean games recorded to GGF, JSON and CSV, round robins, SPRT, the
//! clock and its increment, and peers (gtp-rhino, our own engine over GTP and NBoard).

use super::{fixture, game_lines, run, text};
use crate::common::{self, temp_dir};

#[test]
fn clean_games_are_played_out_and_recorded() {
    let engine = fixture();
    let dir = temp_dir("arena-recorded");
    let ggf = dir.join("games.ggf");
    let json = dir.join("results.json");
    let csv = dir.join("results.csv");
    let first = format!("name=one,gtp:{engine}");
    let second = format!("name=two,gtp:{engine}");
    for results in [&json, &csv] {
        let o = run(&[
            "--engine",
            &first,
            "--engine",
            &second,
            "--opening-plies",
            "3",
            "--max-openings",
            "3",
            "--tc",
            "10+0.1",
            "--ggf",
            ggf.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ]);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(game_lines(&out).len(), 6, "{out}");
        assert!(!out.contains("forfeits"), "{out}");
        // A played-out game's disc counts add to at most 64 and its margin follows them.
        for line in game_lines(&out) {
            let counts = line.rsplit(' ').next().unwrap_or("");
            let (b, w) = counts.split_once('-').expect("disc counts at the end");
            let (b, w): (i32, i32) = (b.parse().unwrap(), w.parse().unwrap());
            assert!(b + w <= 64, "{line}");
            assert_eq!(line.contains("1-0 "), b > w, "{line}");
        }
    }
    let ggf_text = std::fs::read_to_string(&ggf).unwrap();
    assert_eq!(ggf_text.matches("(;GM[Othello]").count(), 6);
    assert!(ggf_text.contains("PB[one]PW[two]") && ggf_text.contains("PB[two]PW[one]"));
    // NBoard opens them: whole-second clocks (10+0.1 rounds to 0:10), the exact one in a
    // comment, and no property it does not know.
    for line in ggf_text.lines() {
        assert_eq!(common::strict_ggf::nboard_reads(line), Ok(()), "{line}");
        assert!(
            line.contains("TI[0:10]") && line.contains("CO[time control 10+0.1 s]"),
            "{line}"
        );
    }
    let json_text = std::fs::read_to_string(&json).unwrap();
    assert_eq!(json_text.matches("\"game\":").count(), 6, "{json_text}");
    assert!(json_text.contains("\"first\": \"one\", \"second\": \"two\""));
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 7, "{csv_text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_round_robin_plays_every_pairing() {
    let engine = fixture();
    let specs: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| format!("name={n},gtp:{engine}"))
        .collect();
    let o = run(&[
        "--engine",
        &specs[0],
        "--engine",
        &specs[1],
        "--engine",
        &specs[2],
        "--opening-plies",
        "1",
        "--move-time",
        "0.5",
        "--concurrency",
        "2",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // 1 opening x 3 pairings x 2 colours.
    assert_eq!(game_lines(&out).len(), 6, "{out}");
    for pairing in ["a vs b:", "a vs c:", "b vs c:"] {
        assert!(out.contains(pairing), "{out}");
    }
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let engine = fixture();
    let good = format!("name=good,gtp:{engine}");
    let bad = format!("name=bad,gtp:{engine} crash 2");
    let o = run(&[
        "--engine",
        &good,
        "--engine",
        &bad,
        "--opening-plies",
        "4",
        "--max-openings",
        "20",
        "--move-time",
        "0.5",
        "--sprt",
        "elo0=0,elo1=5,alpha=0.05,beta=0.05",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.contains("of 40 games") || out.contains("40 games"),
        "{out}"
    );
    let played = game_lines(&out).len();
    // Two 2-0 pairs already pass the upper bound (see the stats unit tests); one more game
    // may have started before the stop.
    assert!((4..=5).contains(&played), "{played} games:\n{out}");
    assert!(out.contains("H1 accepted"), "{out}");
}

#[test]
fn a_match_against_gtp_rhino_completes_every_game() {
    let rhino = common::find_gtp_rhino()
        .expect("gtp-rhino is not installed: apt-get install grhino (as .ci/run does)");
    let rhino = format!("name=rhino,gtp:{rhino} --level 2");
    let fixture = format!("name=fixture,gtp:{}", fixture());
    let o = run(&[
        "--engine",
        &fixture,
        "--engine",
        &rhino,
        "--opening-plies",
        "6",
        "--max-openings",
        "3",
        "--tc",
        "20+0.1",
        "--concurrency",
        "2",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let games = game_lines(&out);
    assert_eq!(games.len(), 6, "{out}");
    assert!(!out.contains("forfeits"), "{out}");
    assert!(out.contains("fixture vs rhino: W/D/L"), "{out}");
}

#[test]
fn the_clock_runs_down_and_the_increment_refills_it() {
    let engine = fixture();
    let good = format!("name=good,gtp:{engine}");
    let slow = format!("name=slow,gtp:{engine} slow 0");
    let play = |tc: &str| {
        let o = run(&[
            "--engine",
            &good,
            "--engine",
            &slow,
            "--opening-plies",
            "1",
            "--tc",
            tc,
            "--timeout-margin",
            "0.05",
            "--concurrency",
            "2",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    // 0.25 s a move against a 1 s clock without increment: the slow side runs out by its
    // fifth move in both games.
    let out = play("1");
    let games = game_lines(&out);
    assert_eq!(games.len(), 2, "{out}");
    for line in games {
        assert!(line.contains("forfeits: timeout"), "{line}");
        assert!(line.contains("(+64)") || line.contains("(-64)"), "{line}");
    }
    // With 0.5 s added after every move the same engine never falls behind.
    let out = play("1+0.5");
    assert_eq!(game_lines(&out).len(), 2, "{out}");
    assert!(!out.contains("forfeits"), "{out}");
}

#[test]
fn our_own_engines_play_each_other_through_gtp_without_forfeits() {
    // Two levels of this very program, run as `othello-engine gtp FLAGS` subprocesses, at a
    // per-move limit short enough that rounding it to whole seconds would overrun it.
    let o = run(&[
        "--engine",
        "name=stronger,self:--level 4",
        "--engine",
        "name=weaker,self:--level 1",
        "--max-openings",
        "2",
        "--move-time",
        "0.1",
        "--seed",
        "3",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(game_lines(&out).len(), 4, "{out}");
    assert!(!out.contains("forfeits"), "{out}");
}

#[test]
fn our_nboard_server_plays_a_match_on_the_clock_without_forfeits() {
    // Our own binary as an NBoard engine (named by its `set myname`) against a self: engine,
    // with a clock, so that every move it is asked for comes as a `set game` with the clocks
    // our server must read, and `set depth 1` from --depth.
    let nboard = format!("nboard:{} nboard", common::ENGINE);
    let o = run(&[
        "--engine",
        &nboard,
        "--engine",
        "name=self1,self:--level 1",
        "--max-openings",
        "2",
        "--tc",
        "20+0.1",
        "--depth",
        "1",
        "--concurrency",
        "2",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The name of its last `set myname`: version and the depth it was given.
    let name = format!("othello-engine-{}-d1", env!("CARGO_PKG_VERSION"));
    let games = game_lines(&out);
    assert_eq!(games.len(), 4, "{out}");
    assert!(!out.contains("forfeits"), "{out}");
    assert_eq!(
        games
            .iter()
            .filter(|l| l.contains(&format!("{name} (black) vs self1 (white)")))
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains(&format!("{name} vs self1: W/D/L")), "{out}");
    // Standard output is not a terminal here: plain lines, no status line.
    assert!(!out.contains('\x1b') && !out.contains('\r'), "{out:?}");
}

#[test]
fn kept_engines_play_every_game_in_one_process_and_a_faulty_one_is_restarted() {
    let engine = fixture();
    let good = format!("name=good,gtp:{engine}");
    for (other, starts) in [
        // Eight games: each engine is started once.
        (format!("name=other,nboard:{engine} nboard"), 2),
        // The illegal mover loses every game and is started again for the next one (the good
        // engine is stopped with it: the game ended by a fault).
        (format!("name=bad,gtp:{engine} illegal 1"), 16),
    ] {
        let started = temp_dir(&format!("arena-kept-{starts}"));
        let json = started.join("results.json");
        let o = super::match_command()
            .args(["--engine", &good, "--engine", &other, "--keep-engines"])
            .args([
                "--opening-plies",
                "4",
                "--max-openings",
                "4",
                "--move-time",
                "0.2",
            ])
            .args(["--results", json.to_str().unwrap()])
            .env("GTP_FIXTURE_PID_DIR", &started)
            .output()
            .expect("the binary starts");
        let out = text(&o.stdout);
        assert!(o.status.success(), "{out}{}", text(&o.stderr));
        assert_eq!(game_lines(&out).len(), 8, "{out}");
        // Two probes at the start, then the games' engines.
        let pids = super::pids(&started);
        assert_eq!(pids.len(), 2 + starts, "{out}");
        for pid in pids {
            assert!(!super::running(pid), "engine {pid} is still running");
        }
        if cfg!(target_os = "linux") {
            let written = std::fs::read_to_string(&json).unwrap_or_default();
            assert_eq!(
                written.matches("\"black_peak_kib\": ").count(),
                8,
                "{written}"
            );
            assert!(out.contains("\npeak memory: good "), "{out}");
        }
        let _ = std::fs::remove_dir_all(started);
    }
}

/// Our own engine under a `gtp:` command (another build of it, by its path) is told its clock
/// to the millisecond, as `self:` engines are: it reads fractions, and whole seconds rounded
/// down only hid the increment it reads off the clock (it spent 8.3 s of a `10+0.1` game's
/// 13 against 11.4 s for 28df1d8). Other GTP engines still get whole seconds.
#[test]
fn our_engine_by_its_path_is_told_fractions_of_a_second() {
    let dir = temp_dir("arena-fractions");
    let log = dir.join("ours.log");
    let ours = format!(
        "name=ours,gtp:{} gtp --level 2 --log-file {}",
        common::ENGINE,
        log.display()
    );
    let theirs = format!("name=fixture,gtp:{}", fixture());
    let o = run(&[
        "--engine",
        &ours,
        "--engine",
        &theirs,
        "--max-openings",
        "1",
        "--tc",
        "5+0.1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = std::fs::read_to_string(&log).unwrap();
    let told: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split("< time_left ").nth(1))
        .collect();
    assert!(!told.is_empty(), "{log}");
    for clock in told {
        let seconds = clock.split_whitespace().nth(1).unwrap_or("");
        assert!(
            seconds.split_once('.').is_some_and(|(_, ms)| ms.len() == 3),
            "time_left {clock}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
