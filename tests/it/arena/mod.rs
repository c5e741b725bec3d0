//! `othello-engine match` end to end, against the misbehaving GTP and NBoard engine of
//! tests/fixtures/gtp_fixture.rs (built by `cargo test` as the example `gtp_fixture`), our own
//! engine over both protocols, and `match merge`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello-engine"))
}

/// The fixture engine beside the binary; `cargo test` builds examples with the tests.
fn fixture() -> String {
    let path = binary()
        .parent()
        .map(|dir| dir.join("examples").join("gtp_fixture"))
        .unwrap_or_default();
    assert!(
        path.exists(),
        "{} is missing: run the whole 'cargo test', which builds examples",
        path.display()
    );
    path.display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(binary())
        .arg("match")
        .args(args)
        .output()
        .expect("the binary starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn game_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("game ")).collect()
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("othello-arena-{}-{name}", std::process::id()))
}

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
fn clean_games_are_played_out_and_recorded() {
    let engine = fixture();
    let ggf = temp_path("games.ggf");
    let json = temp_path("results.json");
    let csv = temp_path("results.csv");
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
    let json_text = std::fs::read_to_string(&json).unwrap();
    assert_eq!(json_text.matches("\"game\":").count(), 6, "{json_text}");
    assert!(json_text.contains("\"first\": \"one\", \"second\": \"two\""));
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 7, "{csv_text}");
    for path in [ggf, json, csv] {
        let _ = std::fs::remove_file(path);
    }
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
fn bad_input_exits_2_before_any_game() {
    let engine = fixture();
    let good = format!("gtp:{engine}");
    let missing_file = temp_path("no-such-openings.txt");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![good.clone(), "uci:stockfish".into()],
            "unknown kind 'uci'",
        ),
        (
            vec![good.clone(), "gtp:/no/such/engine".into()],
            "does not work",
        ),
        (vec![good.clone()], "at least two"),
        (vec![good.clone(), "nboard:true".into()], "does not work"),
        (
            vec![good.clone(), format!("depth=4,{good}")],
            "depth= is for nboard",
        ),
        (
            vec![good.clone(), good.clone(), "--tc".into(), "60+x".into()],
            "increment",
        ),
        (
            vec![good.clone(), good.clone(), "--tc".into(), "0".into()],
            "base time",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--tc".into(),
                "1".into(),
                "--move-time".into(),
                "1".into(),
            ],
            "not both",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--openings".into(),
                missing_file.display().to_string(),
            ],
            "cannot read openings file",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--sprt".into(),
                "elo0=5,elo1=0".into(),
            ],
            "bad --sprt",
        ),
        // A self: engine that refuses its flags is reported with its own error message.
        (
            vec![good.clone(), "name=x,self:--no-such-flag".into()],
            "unknown option '--no-such-flag'",
        ),
        (
            vec![good.clone(), good.clone(), "--resume".into()],
            "--resume needs --results",
        ),
    ];
    for (args, expected) in cases {
        let mut full = Vec::new();
        let mut rest = args.iter();
        // The leading SPECs become --engine options; the rest is passed as is.
        for a in rest.by_ref() {
            if a.starts_with("--") {
                full.push(a.clone());
                break;
            }
            full.push("--engine".into());
            full.push(a.clone());
        }
        full.extend(rest.cloned());
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        let o = run(&refs);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{full:?}: {err}");
        assert!(err.contains(expected), "{full:?}: {err}");
        assert!(game_lines(&text(&o.stdout)).is_empty(), "{full:?}");
    }
}

#[test]
fn an_illegal_line_in_an_openings_file_is_named() {
    let engine = fixture();
    let path = temp_path("openings.txt");
    std::fs::write(&path, "f5d6\nf5f5\n").unwrap();
    let good = format!("gtp:{engine}");
    let o = run(&[
        "--engine",
        &good,
        "--engine",
        &good,
        "--openings",
        path.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(":2:") && err.contains("illegal"), "{err}");
    let _ = std::fs::remove_file(path);
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

/// gtp-rhino from the Debian package grhino (installed by .ci/run), on PATH or in /usr/games.
fn rhino() -> String {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("gtp-rhino"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/games/gtp-rhino")])
        .find(|p| p.exists())
        .map(|p| p.display().to_string())
        .expect("gtp-rhino is not installed: apt-get install grhino (as .ci/run does)")
}

#[test]
fn a_match_against_gtp_rhino_completes_every_game() {
    let rhino = format!("name=rhino,gtp:{} --level 2", rhino());
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
fn a_shard_plays_every_nth_game_of_the_schedule() {
    let engine = fixture();
    let spec = format!("gtp:{engine}");
    let o = run(&[
        "--engine",
        &spec,
        "--engine",
        &spec,
        "--opening-plies",
        "2",
        "--move-time",
        "0.5",
        "--shard",
        "2/3",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // 3 openings x 2 colours = 6 games in 3 pairs; shard 2 of 3 plays the second pair.
    let mut numbers: Vec<&str> = game_lines(&out)
        .iter()
        .filter_map(|l| l.strip_prefix("game ")?.split('/').next())
        .collect();
    numbers.sort();
    assert_eq!(numbers, ["3", "4"], "{out}");
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
fn our_nboard_server_plays_a_match_on_the_clock_without_forfeits() {
    // Our own binary as an NBoard engine (named by its `set myname`) against a self: engine,
    // with a clock, so that every move it is asked for comes as a `set game` with the clocks
    // our server must read, and `set depth 1` from --depth.
    let nboard = format!("nboard:{} nboard", binary().display());
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

/// The summary: everything from the line `finished N games` on.
/// The summary of a match's output, without the thinking times, which differ between runs.
fn summary_of(out: &str) -> String {
    out.lines()
        .skip_while(|l| !l.starts_with("finished "))
        .filter(|l| !l.starts_with("thinking time per game: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A results file without the games' thinking times (`, "black_seconds": 1.234,
/// "white_seconds": 0.567`), which differ between runs.
fn without_times(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(", \"black_seconds\": ") {
            Some(at) => {
                let close = line[at..].find('}').map_or(line.len(), |c| at + c);
                format!("{}{}", &line[..at], &line[close..])
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn shards_merge_into_the_totals_of_the_whole_tournament() {
    // Fixed-depth games between two of our levels are deterministic, so the two shards of a
    // schedule played apart and merged must give what the whole schedule gives at once.
    let whole = temp_path("whole.json");
    let first = temp_path("shard1.json");
    let second = temp_path("shard2.csv");
    let merged = temp_path("merged.json");
    let play = |results: &PathBuf, shard: Option<&str>| {
        let mut args = vec![
            "--engine",
            "name=classic,self:--level 1",
            "--engine",
            "name=discs,self:--level 1 --midgame-eval discs --opening-eval discs",
            "--opening-plies",
            "4",
            "--max-openings",
            "4",
            "--depth",
            "2",
            "--concurrency",
            "2",
            "--results",
            results.to_str().unwrap(),
        ];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let all = play(&whole, None);
    let one = play(&first, Some("1/2"));
    let two = play(&second, Some("2/2"));
    assert_eq!(game_lines(&all).len(), 8, "{all}");
    assert_eq!(game_lines(&one).len(), 4, "{one}");
    assert_eq!(game_lines(&two).len(), 4, "{two}");
    let o = run(&[
        "merge",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
        "--results",
        merged.to_str().unwrap(),
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.starts_with("merged 2 files (shards 1/2): 8 games of 8 scheduled"),
        "{out}"
    );
    assert_eq!(summary_of(&out), summary_of(&all));
    // The merged results file is the whole run's, byte for byte but for the thinking times.
    let read = |p: &PathBuf| without_times(&std::fs::read_to_string(p).unwrap_or_default());
    assert_eq!(read(&merged), read(&whole));
    for path in [whole, first, second, merged] {
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn merge_refuses_files_it_cannot_combine() {
    let game = |n: usize, black: &str, white: &str| {
        format!(
            "{{\"game\": {n}, \"opening\": \"f5\", \"black\": \"{black}\", \"white\": \"{white}\", \"black_margin\": 2, \"forfeit\": null}}"
        )
    };
    let json = |engines: &str, games: &[String]| {
        format!(
            "{{\"engines\": [{engines}], \"scheduled_games\": 4, \"shard\": null, \"pairings\": [], \"games\": [{}]}}",
            games.join(", ")
        )
    };
    let files = [
        ("ab.json", json("\"a\", \"b\"", &[game(1, "a", "b")])),
        ("ac.json", json("\"a\", \"c\"", &[game(3, "a", "c")])),
        ("ab-again.json", json("\"a\", \"b\"", &[game(1, "a", "b")])),
        (
            "broken.json",
            "{\"engines\": [\"a\", \"b\"], \"games\": [".into(),
        ),
        ("broken.csv", "game,opening,black\n1,f5,a\n".into()),
        ("beyond.json", json("\"a\", \"b\"", &[game(5, "a", "b")])),
        ("itself.json", json("\"a\", \"b\"", &[game(3, "a", "a")])),
    ];
    let path = |name: &str| temp_path(&format!("merge-{name}"));
    for (name, contents) in &files {
        std::fs::write(path(name), contents).unwrap();
    }
    let missing = path("missing.json");
    let cases = [
        (vec![path("ab.json"), path("ac.json")], "different engines"),
        (
            vec![path("ab.json"), path("ab-again.json")],
            "game 1 is in both",
        ),
        (
            vec![path("ab.json"), path("broken.json")],
            "cannot be read: line 1",
        ),
        (vec![path("broken.csv")], "no 'white' column"),
        (
            vec![path("ab.json"), path("beyond.json")],
            "merge-beyond.json' cannot be read: game 5 is numbered beyond the 4 scheduled games",
        ),
        (
            vec![path("itself.json")],
            "merge-itself.json' cannot be read: game 3 has engine 'a' playing itself",
        ),
        (vec![path("ab.json"), missing], "cannot read results file"),
        (vec![], "needs one or more results files"),
    ];
    for (paths, expected) in cases {
        let mut args = vec!["merge".to_string()];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    for (name, _) in &files {
        let _ = std::fs::remove_file(path(name));
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

/// A fresh directory for the fixture's pid files (GTP_FIXTURE_PID_DIR).
fn pid_dir(name: &str) -> PathBuf {
    let dir = temp_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture processes started so far, by the pid files in `dir`.
fn pids(dir: &Path) -> Vec<u32> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether process `pid` still runs (a zombie does not count: its parent is gone and init
/// reaps it).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| rest.to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
fn unwritable_output_files_are_refused_before_any_engine_starts() {
    let engine = fixture();
    let good = format!("gtp:{engine}");
    let missing = temp_path("no-such-dir").join("none");
    let results = missing.join("r.json");
    let ggf = missing.join("g.ggf");
    let dir = std::env::temp_dir();
    for (flag, path, expected) in [
        (
            "--results",
            results.display().to_string(),
            format!("cannot write results file '{}'", results.display()),
        ),
        (
            "--ggf",
            ggf.display().to_string(),
            format!("cannot write GGF file '{}'", ggf.display()),
        ),
        (
            "--results",
            dir.display().to_string(),
            "is a directory".to_string(),
        ),
    ] {
        let started = pid_dir("unwritable-pids");
        let clock = Instant::now();
        let o = Command::new(binary())
            .arg("match")
            .args(["--engine", &good, "--engine", &good])
            .args(["--opening-plies", "4", "--move-time", "0.2", flag, &path])
            .env("GTP_FIXTURE_PID_DIR", &started)
            .output()
            .expect("the binary starts");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {path}: {err}");
        assert!(err.contains(&expected), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(game_lines(&text(&o.stdout)).is_empty());
        assert!(pids(&started).is_empty(), "no engine may start: {err}");
        assert!(clock.elapsed() < Duration::from_secs(5), "refused at once");
        let _ = std::fs::remove_dir_all(started);
    }
}

/// The resumable match of the interruption test: our level 2 at depth 2 against the fixture
/// slowed down to 15 ms a move, both deterministic, 12 games two at a time.
fn resumable_match(results: &Path, ggf: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(binary());
    command
        .arg("match")
        .args(["--engine", "name=self2,self:--level 2"])
        .args(["--engine", &format!("name=fixture,gtp:{}", fixture())])
        .args(["--opening-plies", "4", "--max-openings", "6", "--seed", "5"])
        .args(["--depth", "2", "--concurrency", "2"])
        .args(["--results", results.to_str().unwrap()])
        .args(["--ggf", ggf.to_str().unwrap()])
        .args(extra)
        .env("GTP_FIXTURE_DELAY_MS", "15");
    command
}

/// The schedule numbers of the records of a GGF file, in file order.
fn ggf_numbers(ggf: &Path) -> Vec<usize> {
    std::fs::read_to_string(ggf)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.split_once("PC[othello-engine match, game ")?
                .1
                .split_once(']')?
                .0
                .parse()
                .ok()
        })
        .collect()
}

#[test]
fn a_match_stopped_by_sigterm_resumes_to_the_results_of_an_uninterrupted_run() {
    let whole = temp_path("resume-whole.json");
    let whole_ggf = temp_path("resume-whole.ggf");
    let cut = temp_path("resume-cut.json");
    let cut_ggf = temp_path("resume-cut.ggf");
    let read = |p: &PathBuf| without_times(&std::fs::read_to_string(p).unwrap_or_default());

    let o = resumable_match(&whole, &whole_ggf, &[])
        .output()
        .expect("the binary starts");
    let all = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(game_lines(&all).len(), 12, "{all}");

    // The same match, stopped by SIGTERM once three games are done.
    let mut child = resumable_match(&cut, &cut_ggf, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut before = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let game = line.starts_with("game ");
        before.push(line);
        if before.iter().filter(|l| l.starts_with("game ")).count() == 3 && game {
            break;
        }
    }
    let clock = Instant::now();
    sigterm(child.id());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let stopped = format!("{}\n{}", before.join("\n"), rest.join("\n"));
    assert_eq!(status.code(), Some(143), "{stopped}\n{err}");
    assert!(clock.elapsed() < Duration::from_secs(5), "stops promptly");
    assert!(
        stopped.contains("match interrupted by SIGTERM"),
        "{stopped}"
    );
    assert!(
        stopped.contains("finished "),
        "the summary so far: {stopped}"
    );
    let kept = game_lines(&stopped).len();
    assert!((3..12).contains(&kept), "{stopped}");
    // Every finished game is in both files, and nothing else.
    assert_eq!(
        read(&cut).matches("\"game\":").count(),
        kept,
        "{}",
        read(&cut)
    );
    assert_eq!(ggf_numbers(&cut_ggf).len(), kept);

    // Resumed: only the missing games are played, and the files end as the whole run's.
    let o = resumable_match(&cut, &cut_ggf, &["--resume"])
        .output()
        .expect("the binary starts");
    let resumed = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        resumed.contains(&format!(
            "resuming: {kept} games already played, {} to play",
            12 - kept
        )),
        "{resumed}"
    );
    assert_eq!(game_lines(&resumed).len(), 12 - kept, "{resumed}");
    assert_eq!(summary_of(&resumed), summary_of(&all));
    assert_eq!(read(&cut), read(&whole), "byte for byte, times aside");
    let mut numbers = ggf_numbers(&cut_ggf);
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>(), "each game once");

    // Resuming a complete match plays nothing and changes nothing.
    let o = resumable_match(&cut, &cut_ggf, &["--resume"])
        .output()
        .expect("the binary starts");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(game_lines(&text(&o.stdout)).is_empty());
    assert_eq!(read(&cut), read(&whole));
    assert_eq!(ggf_numbers(&cut_ggf).len(), 12);

    // The results file of another match is refused.
    let o = resumable_match(&cut, &cut_ggf, &["--resume", "--max-openings", "5"])
        .output()
        .expect("the binary starts");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot resume from results file")
            && err.contains("its schedule has 12 games, this match's 10"),
        "{err}"
    );
    assert!(game_lines(&text(&o.stdout)).is_empty());
    for path in [whole, whole_ggf, cut, cut_ggf] {
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn sigterm_stops_a_hung_engine_and_keeps_the_results_file() {
    let engine = fixture();
    let started = pid_dir("hung-pids");
    let results = temp_path("hung.json");
    // The stuck engine plays one move, then never answers; no clock (--depth), so only
    // the interruption can end the game before its two minutes are up.
    let mut child = Command::new(binary())
        .arg("match")
        .args(["--engine", &format!("name=good,gtp:{engine}")])
        .args(["--engine", &format!("name=stuck,gtp:{engine} hang 1")])
        .args([
            "--opening-plies",
            "2",
            "--max-openings",
            "1",
            "--depth",
            "1",
        ])
        .args(["--results", results.to_str().unwrap()])
        .env("GTP_FIXTURE_PID_DIR", &started)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    // Two engines probed, then the two of the first game.
    let clock = Instant::now();
    while pids(&started).len() < 4 && clock.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(pids(&started).len(), 4);
    std::thread::sleep(Duration::from_millis(500));
    let clock = Instant::now();
    sigterm(child.id());
    let mut out = String::new();
    let _ = child.stdout.take().unwrap().read_to_string(&mut out);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{out}");
    assert!(clock.elapsed() < Duration::from_secs(5), "stops promptly");
    assert!(
        out.contains("match interrupted by SIGTERM: 0 games finished, 1 under way abandoned"),
        "{out}"
    );
    assert!(out.contains("finished 0 games"), "{out}");
    for pid in pids(&started) {
        assert!(!running(pid), "engine {pid} is still running");
    }
    let written = std::fs::read_to_string(&results).unwrap_or_default();
    assert!(written.contains("\"scheduled_games\": 2"), "{written}");
    assert_eq!(written.matches("\"game\":").count(), 0, "{written}");
    let _ = std::fs::remove_dir_all(started);
    let _ = std::fs::remove_file(results);
}
