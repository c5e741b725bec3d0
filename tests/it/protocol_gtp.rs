//! GTP transcripts: exact framing, passes in both styles, illegal and malformed commands, and
//! whole games whose moves are checked against the rules.

use crate::common::rng::Rng;
use crate::common::server::Server;
use crate::common::{colour, final_score_reply};
use othello_engine::board::{Move, Position};

#[test]
fn fixed_transcript_is_exact() {
    fixed_transcript(Server::start(&["gtp", "--level", "2"]));
}

/// The same session with every line ended by `\r\n`, as GUIs on Windows send: the same
/// answers, in GTP's form (`\n` line ends, no `\r`).
#[test]
fn fixed_transcript_is_exact_with_crlf() {
    fixed_transcript(Server::start(&["gtp", "--level", "2"]).crlf());
}

fn fixed_transcript(mut s: Server) {
    let script: &[(&str, &[&str])] = &[
        ("protocol_version", &["= 2"]),
        ("1 name", &["=1 othello-engine"]),
        ("2 known_command genmove", &["=2 true"]),
        ("known_command frobnicate", &["= false"]),
        ("list_games", &["= Othello"]),
        ("set_game Othello", &["="]),
        ("set_game Go", &["? unsupported game"]),
        ("3 boardsize 8", &["=3"]),
        ("4 boardsize 9", &["?4 unacceptable size"]),
        ("komi 6.5", &["="]),
        ("clear_board", &["="]),
        ("play black a1", &["? illegal move: a1"]),
        ("play white d3", &["? wrong color: black is to move"]),
        (
            "play black",
            &["? syntax error: expected a colour and a move, e.g. 'play black f5'"],
        ),
        (
            "play purple d3",
            &["? syntax error: expected a colour and a move, e.g. 'play black f5'"],
        ),
        ("5 frobnicate", &["?5 unknown command"]),
        ("final_score", &["? cannot score: the game is not over"]),
        ("undo", &["? cannot undo"]),
        ("play B F5", &["="]),
        ("play w f6", &["="]),
        ("undo", &["="]),
        (
            "6 showboard",
            &[
                "=6",
                "  a b c d e f g h",
                "1 . . . . . . . .",
                "2 . . . . . . . .",
                "3 . . . . . . . .",
                "4 . . . O X * . .",
                "5 . . . X X X . .",
                "6 . . . * . * . .",
                "7 . . . . . . . .",
                "8 . . . . . . . .",
                "white to move; black 4, white 1",
            ],
        ),
        ("   # a comment line gets no reply", &[]),
        ("time_settings 0 1 0", &["="]),
        ("time_left white 30 0", &["="]),
        ("othello-engine-set midgame-depth 3", &["="]),
        (
            "othello-engine-levels",
            &[
                "= opening: 6 moves at depth 2 (pattern); midgame: depth 3 (pattern); selectivity 100%; endgame: exact solve from 6 empties",
            ],
        ),
        ("othello-engine-set level default", &["="]),
        (
            "othello-engine-levels",
            &[
                "= under a clock, the time decides depth and solve; without: opening: 6 moves at depth 6 (neural); midgame: depth 12 (neural); selectivity 87%; endgame: exact solve from 20 empties",
            ],
        ),
        ("othello-engine-set level 2", &["="]),
        (
            "othello-engine-set level best",
            &["? bad level 'best': expected a whole number from 1 to 20 or 'default'"],
        ),
        (
            "othello-engine-set midgame-depth 99",
            &["? bad midgame-depth '99': expected a whole number from 1 to 60"],
        ),
        ("othello-engine-threads 2", &["="]),
        ("othello-engine-ponder on", &["="]),
        ("othello-engine-ponder off", &["="]),
        (
            "othello-engine-ponder sometimes",
            &["? bad switch 'sometimes': expected on or off"],
        ),
        (
            "othello-engine-threads 0",
            &["? bad thread count '0': expected a whole number from 1 to 256"],
        ),
        (
            "othello-engine-threads",
            &["? syntax error: expected a thread count"],
        ),
        (
            "othello-engine-set colour blue",
            &[
                "? unknown setting 'colour' (known: level, opening-moves, opening-depth, opening-eval, midgame-depth, midgame-eval, endgame-empties, endgame-mode, selectivity)",
            ],
        ),
    ];
    for (command, expected) in script {
        if expected.is_empty() {
            s.send(command);
            continue;
        }
        assert_eq!(&s.gtp(command), expected, "reply to '{command}'");
    }
    let listed = s.gtp("list_commands");
    for needed in [
        "protocol_version",
        "genmove",
        "set_game",
        "list_games",
        "time_left",
        "othello-engine-set",
        "othello-engine-threads",
        "othello-engine-ponder",
    ] {
        assert!(
            listed.iter().any(|l| l.trim_start_matches("= ") == needed),
            "{needed} listed"
        );
    }
    assert_eq!(s.gtp("quit"), ["="]);
    let (rest, stderr) = s.finish();
    assert!(rest.is_empty(), "nothing after quit: {rest:?}");
    assert!(stderr.is_empty(), "stderr stays quiet: {stderr}");
}

#[test]
fn crlf_and_end_of_input() {
    let mut s = Server::start(&[]);
    s.send_raw(b"1 protocol_version\r\n");
    assert_eq!(s.until(str::is_empty), ["=1 2", ""]);
    s.send_raw(b"name\r\n\xff\xfe garbage\r\n");
    assert_eq!(s.until(str::is_empty), ["= othello-engine", ""]);
    assert_eq!(s.until(str::is_empty), ["? unknown command", ""]);
    s.send("genmove black");
    let (rest, _) = s.finish();
    assert_eq!(
        rest.len(),
        2,
        "genmove still answers at end of input: {rest:?}"
    );
    let mv: Move = rest[0].trim_start_matches("= ").parse().expect("a move");
    assert!(Position::start().is_legal(mv));
}

/// Random games fed with `play`, passes explicit or implied by the next colour; the server
/// must accept every legal move and agree on the final score.
#[test]
fn random_games_with_both_pass_styles() {
    let mut s = Server::start(&["gtp"]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut passes_seen = 0;
    for game in 0..40 {
        assert_eq!(s.gtp("clear_board"), ["="]);
        let explicit = game % 2 == 0;
        let mut position = Position::start();
        while !position.is_game_over() {
            let mover = position.side_to_move();
            if position.must_pass() {
                passes_seen += 1;
                if explicit {
                    assert_eq!(s.gtp(&format!("play {} pass", colour(mover))), ["="]);
                }
                position = position.pass();
                continue;
            }
            let squares = position.legal_squares();
            let sq = squares[rng.below(squares.len())];
            let command = format!("play {} {}", colour(mover), sq.to_string().to_uppercase());
            assert_eq!(s.gtp(&command), ["="], "{command}");
            position = position.play(Move::Play(sq)).expect("legal");
        }
        let expected = final_score_reply(&position);
        assert_eq!(s.gtp("final_score"), [expected]);
    }
    assert!(passes_seen > 0, "the seed gives games with passes");
    s.finish();
}

/// The engine plays both sides with `genmove`; every move must be legal, passes answered
/// `pass` exactly when forced, and the final score must match the rules.
#[test]
fn self_play_game_is_legal() {
    let mut s = Server::start(&["gtp", "--level", "2"]);
    let mut position = Position::start();
    let mut implicit = false;
    while !position.is_game_over() {
        let mover = position.side_to_move();
        if position.must_pass() && implicit {
            // Ask the other colour directly: the server must infer the pass.
            position = position.pass();
            continue;
        }
        implicit = !implicit;
        let reply = s.gtp(&format!("genmove {}", colour(mover)));
        assert_eq!(reply.len(), 1);
        let text = reply[0].strip_prefix("= ").expect("a success reply");
        let mv: Move = text.parse().expect("a move or pass");
        assert!(position.is_legal(mv), "{mv} legal in\n{position}");
        position = position.play(mv).expect("legal");
    }
    assert!(s.gtp("final_score")[0].starts_with('='));
    assert_eq!(s.gtp("genmove black"), ["= pass"], "after the end");
    s.finish();
}

#[test]
fn genmove_keeps_to_the_clock() {
    let mut s = Server::start(&["gtp", "--level", "20"]);
    assert_eq!(s.gtp("time_settings 2 0 0"), ["="]);
    let started = std::time::Instant::now();
    let mut position = Position::start();
    for _ in 0..4 {
        let mover = position.side_to_move();
        let reply = s.gtp(&format!("genmove {}", colour(mover)));
        let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
        position = position.play(mv).expect("legal");
    }
    assert!(
        started.elapsed().as_secs_f64() < 2.0,
        "two 2 s clocks, four moves"
    );
    s.finish();
}

/// A whole game against itself at the strongest level with 3 s per side, the controller
/// sending `time_left` as Quarry does: each side's thinking stays inside its clock.
#[test]
fn whole_game_inside_a_short_clock() {
    let mut s = Server::start(&["gtp", "--level", "20"]);
    assert_eq!(s.gtp("time_settings 3 0 0"), ["="]);
    let mut left = [3.0f64, 3.0];
    let mut position = Position::start();
    while !position.is_game_over() {
        if position.must_pass() {
            position = position.pass();
            continue;
        }
        let mover = position.side_to_move();
        let index = mover.index();
        assert_eq!(
            s.gtp(&format!(
                "time_left {} {:.0} 0",
                colour(mover),
                left[index].floor()
            )),
            ["="]
        );
        let started = std::time::Instant::now();
        let reply = s.gtp(&format!("genmove {}", colour(mover)));
        left[index] -= started.elapsed().as_secs_f64();
        assert!(left[index] > 0.0, "{} lost on time", colour(mover));
        let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
        position = position.play(mv).expect("legal");
    }
    s.finish();
}

/// `--log-file` in a folder whose name has spaces, as Windows users' folders do. Under Wine
/// (`OTHELLO_TEST_RUNNER=wine`, .ci/run) the path is given as Windows writes it, with a
/// drive letter and backslashes (Wine's `Z:` is the Unix root).
#[test]
fn log_file_in_a_folder_with_spaces() {
    let dir = crate::common::temp_dir("gtp-log-spaces").join("My Games");
    std::fs::create_dir_all(&dir).expect("a folder");
    let log = dir.join("engine log.txt");
    let unix = log.to_string_lossy().into_owned();
    let under_wine = std::env::var("OTHELLO_TEST_RUNNER").is_ok_and(|r| r.contains("wine"));
    let arg = if under_wine {
        format!("Z:{}", unix.replace('/', "\\"))
    } else {
        unix
    };
    let mut s = Server::start(&["gtp", "--level", "1", "--no-book", "--log-file", &arg]);
    let reply = s.gtp("genmove black");
    let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
    assert!(Position::start().is_legal(mv));
    assert_eq!(s.gtp("quit"), ["="]);
    s.finish();
    let text = std::fs::read_to_string(&log).expect("the log was written");
    assert!(
        text.contains("genmove black"),
        "the log has the command:\n{text}"
    );
}
