//! Thousands of random and mutated command lines to each protocol: the server must neither
//! panic nor hang, must frame every answer correctly, and bad lines must leave the position
//! exactly as the valid commands before them left it.

mod serve;

use othello_engine::board::{Move, Position};
use serve::Server;

const LINES: usize = 3000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const ALPHABET: &[char] = &[
    'a', 'b', 'h', 'p', 's', 'z', 'A', 'H', 'P', '0', '1', '8', '9', '-', '/', '.', ' ', '\t',
    '\r', '#', '[', ']', '(', ';', ')', '*', 'O', '\u{0}', '\u{7f}', 'é', '∞', '=', '?',
];

/// `line` with one to three random edits.
fn mutate(rng: &mut Rng, line: &str) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = if chars.is_empty() {
            0
        } else {
            rng.below(chars.len() + 1)
        };
        let c = ALPHABET[rng.below(ALPHABET.len())];
        match rng.below(6) {
            0 if at < chars.len() => chars[at] = c,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 => chars.truncate(at),
            3 => {
                let copy: Vec<char> = chars.clone();
                chars.extend(copy);
            }
            _ => chars.insert(at, c),
        }
    }
    chars.into_iter().collect()
}

/// First word after GTP's optional numeric id.
fn gtp_command_word(line: &str) -> String {
    let clean: String = line
        .split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control() || *c == '\t')
        .collect();
    let mut words = clean.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.chars().all(|c| c.is_ascii_digit()) {
        words.next().unwrap_or("").to_string()
    } else {
        first.to_string()
    }
}

#[test]
fn gtp_survives_junk_and_keeps_its_position() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut s = Server::start(&["gtp", "--level", "1"]);
    assert_eq!(s.gtp("play black f5"), ["="]);
    assert_eq!(s.gtp("play white d6"), ["="]);
    let board = s.gtp("showboard");
    let corpus = [
        "protocol_version",
        "1 name",
        "version",
        "known_command play",
        "list_commands",
        "boardsize 8",
        "boardsize 19",
        "komi 0.5",
        "showboard",
        "final_score",
        "set_game Othello",
        "list_games",
        "reg_genmove black",
        "othello-engine-levels",
        "play black c3",
        "genmove white",
        "time_left black 10 0",
        "undo",
        "clear_board",
        "quit",
    ];
    // Commands that would legitimately change the game or end the session are replaced by
    // invalid forms of themselves.
    let changing = [
        "play",
        "genmove",
        "undo",
        "clear_board",
        "quit",
        "time_settings",
        "time_left",
        "othello-engine-set",
    ];
    let invalid = [
        "play black z9",
        "play black",
        "play white c3",
        "play black a1",
        "play black pass",
        "play black c3 extra",
        "play",
        "genmove purple",
        "genmove",
        "undo now",
        "clear_board 1",
        "quit please",
        "time_settings 1 2",
        "time_left black -1 0",
        "othello-engine-set level 99",
        "othello-engine-set",
        "time_settings x y z",
    ];
    let mut sent = 0;
    while sent < LINES {
        let base = rng.pick(&corpus);
        let mut line = if rng.below(8) == 0 {
            rng.pick(&invalid).to_string()
        } else {
            mutate(&mut rng, base)
        };
        if changing.contains(&gtp_command_word(&line).as_str()) && !invalid.contains(&line.as_str())
        {
            line = rng.pick(&invalid).to_string();
        }
        s.send(&line.replace(['\n', '\r'], " "));
        sent += 1;
    }
    s.send("424242 name");
    let lines = s.until(|l| l == "=424242 othello-engine");
    let mut at_reply_start = true;
    for line in &lines {
        if at_reply_start {
            assert!(
                line.starts_with('=') || line.starts_with('?'),
                "reply framing: {line:?}"
            );
        }
        at_reply_start = line.is_empty();
    }
    assert_eq!(s.until(str::is_empty), [""]);
    assert_eq!(s.gtp("showboard"), board, "junk changed nothing");
    let position = Position::start()
        .play("f5".parse().expect("a move"))
        .and_then(|p| p.play("d6".parse().expect("a move")))
        .expect("legal");
    let reply = s.gtp("genmove black");
    let mv: Move = reply[0].trim_start_matches("= ").parse().expect("a move");
    assert!(position.is_legal(mv));
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn nboard_ignores_junk_and_keeps_its_position() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = Server::start(&["nboard", "--level", "1"]);
    let game = "(;GM[Othello]PC[NBoard]TI[5:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//2.4]W[D6/0.00];)";
    s.send(&format!("set game {game}"));
    let corpus = [
        "nboard 2",
        "set depth 4",
        "set contempt 100",
        "clear",
        "learn",
        "analyze",
        "ping 3",
        "hint 4",
        "go",
        "move C3//1.0",
        "F5",
        "quit",
        &format!("set game {game}"),
        "set myname junk",
        "status hello",
        "=== F5",
    ];
    let invalid = [
        "move z9",
        "move",
        "move a1",
        "move C3/x/y/z/w",
        "set game garbage",
        "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[A1];)",
        "set game (;GM[Go];)",
        "set depth x",
        "ping x",
        "hint x",
        "go now",
        "quit later",
        "set game",
        "nboard",
        "F9",
        "pass pass",
    ];
    // Lines that change the game, answer, or end the session are replaced by invalid forms.
    let meaningful = [
        "move", "go", "hint", "ping", "quit", "nboard", "learn", "analyze",
    ];
    for _ in 0..LINES {
        let mut line = if rng.below(8) == 0 {
            rng.pick(&invalid).to_string()
        } else {
            let base = rng.pick(&corpus);
            mutate(&mut rng, base)
        }
        .replace(['\n', '\r'], " ");
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        let second = words.next().unwrap_or("");
        let bare_move = first.get(..2).is_some_and(|m| m.parse::<Move>().is_ok())
            || first.to_ascii_lowercase().starts_with("pa")
            || first.starts_with("--");
        let changes = meaningful.iter().any(|m| first.starts_with(m))
            || (first == "set" && second.starts_with("game"))
            || bare_move;
        if changes && !invalid.contains(&line.as_str()) {
            line = "this line is ignored".to_string();
        }
        s.send(&line);
    }
    s.send("ping 77");
    assert_eq!(s.next(), "pong 77", "junk gets no answer");
    let position = Position::start()
        .play("f5".parse().expect("a move"))
        .and_then(|p| p.play("d6".parse().expect("a move")))
        .expect("legal");
    s.send("go");
    let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
    let mv: Move = line[4..6].parse().expect("a move");
    assert!(position.is_legal(mv), "{line}");
    let (_, stderr) = s.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
