//! A protocol fuzzer with a model of `protocol.md` as its oracle.
//!
//! Lines are generated from what real clients send (valid commands built from the model's
//! position), mutated (characters replaced, dropped, doubled; Unicode letters, invalid UTF-8,
//! NUL, control characters; huge numbers; 1 MB lines) and sent to the server binary. The model
//! is written independently of the server's parsers, from the grammar protocol.md gives; only
//! the rules core (`board`), which perft and a mailbox reference check elsewhere, is shared.
//!
//! What is checked: no crash and no hang (every wait has a deadline); for GTP every reply's
//! mark (`=`/`?`) and id, and the position after every line (`showboard` against the model
//! after every change and every few lines); for NBoard every line the server writes (`pong`
//! numbers, `set myname`, `learned`, and `search`/`===`/`analysis` lines legal in the model's
//! position) and the position after every change (the set of moves a `hint 64` names).
//!
//! * here: the line budget, the tally, and the junk (mutations, megabyte lines).
//! * `model`: what both models share: a line's text and numbers as the servers read them, and
//!   the game record.
//! * `gtp`, `nboard`: each protocol's model, its line generator and its fuzzing loop.
//! * `concurrent`: the same models as the oracle of a fuzzer of threads, pondering, clocks
//!   and interrupted searches (its own essay says what it adds).

pub mod concurrent;
mod gtp;
mod model;
mod nboard;

pub use gtp::fuzz_gtp;
pub use nboard::fuzz_nboard;

use crate::common::rng::Rng;

/// Lines per protocol: the environment's `variable` (`OTHELLO_FUZZ_LINES`,
/// `OTHELLO_CFUZZ_LINES`), or `default`.
pub fn line_budget(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What a run saw, for the closing report.
#[derive(Debug, Default)]
pub struct Tally {
    /// Lines sent, the harness's own checks included.
    pub lines: usize,
    /// Lines the server wrote.
    pub replies: usize,
    /// Position checks made (`showboard` or `hint 64`).
    pub position_checks: usize,
    /// Lines sent that were mutated or junk.
    pub junk: usize,
}

/// Characters that stress parsers: ASCII punctuation and letters of the grammar, controls,
/// NUL, DEL, and multi-byte letters (the Kelvin sign lower-cases to an ASCII letter).
const ALPHABET: &[char] = &[
    'a',
    'b',
    'k',
    'p',
    's',
    'z',
    'A',
    'H',
    'K',
    'P',
    '0',
    '1',
    '8',
    '9',
    '-',
    '+',
    '/',
    '.',
    ' ',
    '\t',
    '\r',
    '#',
    '[',
    ']',
    '(',
    ';',
    ')',
    '*',
    'O',
    '\u{0}',
    '\u{7}',
    '\u{7f}',
    'é',
    '∞',
    '=',
    '?',
    '\u{212a}',
    '\u{1F600}',
    'ß',
    'İ',
];

/// `line` with one to three random edits, as bytes (some edits insert invalid UTF-8).
pub fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(chars.len() + 1);
        let c = ALPHABET[rng.below(ALPHABET.len())];
        match rng.below(7) {
            0 if at < chars.len() => chars[at] = c,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 => chars.truncate(at),
            3 => {
                let copy = chars.clone();
                chars.extend(copy);
            }
            4 => {
                let digits = "9".repeat(1 + rng.below(40));
                chars.splice(at..at, digits.chars());
            }
            _ => chars.insert(at, c),
        }
    }
    let mut bytes = chars.into_iter().collect::<String>().into_bytes();
    if rng.one_in(20) {
        let at = rng.below(bytes.len() + 1);
        bytes.insert(at, [0xff, 0xc3, 0x80, 0xe2][rng.below(4)]);
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

/// The line to send: `valid` half the time, else a mutation of it, of nothing, or (rarely) a
/// megabyte line starting with one of `heads`; counts the junk.
fn junk_or(rng: &mut Rng, tally: &mut Tally, valid: String, heads: [&str; 3]) -> Vec<u8> {
    if rng.below(10) < 5 {
        return valid.into_bytes();
    }
    tally.junk += 1;
    match rng.below(5) {
        0..=3 => mutate(rng, &valid),
        _ if rng.one_in(200) => {
            let head = heads[rng.below(3)];
            huge_line(rng, head)
        }
        _ => mutate(rng, ""),
    }
}

/// A line of about a megabyte.
pub fn huge_line(rng: &mut Rng, head: &str) -> Vec<u8> {
    let mut bytes = head.as_bytes().to_vec();
    let filler = [b"a".as_slice(), b"9", b" ", b"\xff"][rng.below(4)];
    while bytes.len() < 1 << 20 {
        bytes.extend_from_slice(filler);
    }
    bytes
}
