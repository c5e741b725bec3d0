//! Match openings: the built-in set of balanced ones, every distinct position a few plies from
//! the start (one per symmetry class, shuffled by a seed), or lines read from a file of move
//! sequences or OBF positions.
//!
//! An opening is always a move sequence from the standard start, because GTP has no command
//! that sets up an arbitrary position; OBF lines are turned into a sequence that reaches them.

use super::record::GameRecord;
use crate::board::{Bits, Color, Move, Position, Square, parse_obf_line};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use std::collections::HashSet;
use std::fmt;

/// The name of the built-in balanced set where a file name is expected (`--openings builtin`).
pub const BUILTIN_OPENINGS: &str = "builtin";

/// The built-in set of balanced openings (`openings build`, see [`super::balanced`]): lines of
/// 8-12 random plies valued within 2 discs of even by a depth-16 search, one per symmetry class.
const BALANCED_SET: &str = include_str!("../../data/openings-balanced.txt");

/// The built-in balanced openings, in the file's order.
pub fn balanced_set() -> Vec<Opening> {
    // The file is checked by a test; a broken build of it would leave the set empty.
    parse_openings(BALANCED_SET, "data/openings-balanced.txt").unwrap_or_default()
}

/// An opening: the moves played from the standard start before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The moves from the start, passes included.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The opening as a game record from the start (its moves were checked when the opening
    /// was made or read; an illegal one would end the record there).
    pub fn record(&self) -> GameRecord {
        let mut record = GameRecord::new(Position::start());
        for &mv in &self.moves {
            if record.play(mv, None, None).is_err() {
                log::error!("opening {} is not legal from move {mv}", self.compact());
                break;
            }
        }
        record
    }

    /// The position the opening leads to.
    pub fn position(&self) -> Position {
        self.record().current()
    }

    /// The moves run together, e.g. `f5d6c3` (a pass is `PA`).
    pub fn compact(&self) -> String {
        self.moves.iter().map(Move::to_string).collect()
    }
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.moves.is_empty() {
            f.write_str("start")
        } else {
            f.write_str(&self.compact())
        }
    }
}

/// The representative of `position`'s symmetry class: the least (black, white) bitboard pair
/// over the 8 board symmetries. The side to move is unchanged by a symmetry.
pub fn canonical(position: &Position) -> (u64, u64, Color) {
    let key = (0..8)
        .map(|sym| {
            let t = position.transform(sym);
            (t.discs(Color::Black), t.discs(Color::White))
        })
        .min()
        .unwrap_or((position.discs(Color::Black), position.discs(Color::White)));
    (key.0, key.1, position.side_to_move())
}

/// Every position reachable in exactly `plies` plies from the start (a forced pass is a ply;
/// games that end sooner are left out), one per symmetry class, each with the first move
/// sequence found to reach it (moves tried in square order), in that order of discovery.
pub fn generate(plies: u32) -> Vec<Opening> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut line = Vec::new();
    walk(&Position::start(), plies, &mut line, &mut seen, &mut out);
    out
}

fn walk(
    position: &Position,
    plies_left: u32,
    line: &mut Vec<Move>,
    seen: &mut HashSet<(u64, u64, Color)>,
    out: &mut Vec<Opening>,
) {
    if plies_left == 0 {
        if seen.insert(canonical(position)) {
            out.push(Opening {
                moves: line.clone(),
            });
        }
        return;
    }
    if position.is_game_over() {
        return;
    }
    if position.must_pass() {
        line.push(Move::Pass);
        walk(&position.pass(), plies_left - 1, line, seen, out);
        line.pop();
        return;
    }
    for sq in Bits(position.legal_moves()).filter_map(Square::new) {
        let mv = Move::Play(sq);
        if let Ok(next) = position.play(mv) {
            line.push(mv);
            walk(&next, plies_left - 1, line, seen, out);
            line.pop();
        }
    }
}

/// Shuffles `openings` reproducibly: the same seed gives the same order on every machine.
pub fn shuffle(openings: &mut [Opening], seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    openings.shuffle(&mut rng);
}

/// Reads a move sequence such as `f5d6c3d3c4` (any case, optional spaces, `PA`/`pass` for a
/// pass) and checks every move from the start.
pub fn parse_move_sequence(text: &str) -> Result<Opening, String> {
    let compact: String = text.split_whitespace().collect();
    let chars: Vec<char> = compact.chars().collect();
    let mut moves = Vec::new();
    let mut position = Position::start();
    let mut i = 0;
    while i < chars.len() {
        let rest: String = chars[i..].iter().collect::<String>().to_ascii_lowercase();
        let (token_len, token) = if rest.starts_with("pass") {
            (4, "pass".to_string())
        } else {
            let end = (i + 2).min(chars.len());
            (end - i, chars[i..end].iter().collect::<String>())
        };
        let mv: Move = token
            .parse()
            .map_err(|_| format!("'{token}' at character {} is not a move", i + 1))?;
        position = position
            .play(mv)
            .map_err(|_| format!("move {} ({mv}) is illegal there", moves.len() + 1))?;
        moves.push(mv);
        i += token_len;
    }
    Ok(Opening { moves })
}

/// The most positions the search for a line to an OBF position visits before giving up.
const REACH_NODE_LIMIT: u64 = 2_000_000;

/// A move sequence from the start that reaches `target` exactly, if one is found. Only moves
/// onto squares that are occupied in `target` can be on such a line, which keeps the search
/// small for opening positions.
pub fn line_to(target: &Position) -> Option<Opening> {
    let occupied = !target.empty();
    let mut line = Vec::new();
    let mut budget = REACH_NODE_LIMIT;
    reach(&Position::start(), target, occupied, &mut line, &mut budget)
        .then_some(Opening { moves: line })
}

fn reach(
    position: &Position,
    target: &Position,
    occupied: u64,
    line: &mut Vec<Move>,
    budget: &mut u64,
) -> bool {
    if position == target {
        return true;
    }
    if *budget == 0 || position.is_game_over() || !position.empty() & !occupied != 0 {
        return false;
    }
    *budget -= 1;
    if position.must_pass() {
        line.push(Move::Pass);
        if reach(&position.pass(), target, occupied, line, budget) {
            return true;
        }
        line.pop();
        return false;
    }
    for sq in Bits(position.legal_moves() & occupied).filter_map(Square::new) {
        let mv = Move::Play(sq);
        if let Ok(next) = position.play(mv) {
            line.push(mv);
            if reach(&next, target, occupied, line, budget) {
                return true;
            }
            line.pop();
        }
    }
    false
}

/// Reads an openings file: one opening per line, either a move sequence (optionally followed
/// by a comment after `;`, `#` or `%`) or an OBF position (blank lines and lines starting with
/// `%` or `#` are skipped). Errors name the line.
pub fn parse_openings(text: &str, origin: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('%') || line.starts_with('#') {
            continue;
        }
        let looks_like_obf = line
            .split_whitespace()
            .next()
            .is_some_and(|w| w.len() == 64);
        let opening = if looks_like_obf {
            let obf = parse_obf_line(line).map_err(|e| format!("{origin}:{}: {e}", i + 1))?;
            line_to(&obf.position).ok_or_else(|| {
                format!(
                    "{origin}:{}: no line of moves from the start reaches this position",
                    i + 1
                )
            })?
        } else {
            // A comment may follow the moves (balanced sets give each line its value).
            let moves = line.split([';', '#', '%']).next().unwrap_or_default();
            parse_move_sequence(moves).map_err(|e| format!("{origin}:{}: {e}", i + 1))?
        };
        out.push(opening);
    }
    if out.is_empty() {
        return Err(format!("{origin}: no openings in the file"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position after exactly `plies` plies, without any symmetry reduction.
    fn all_positions(plies: u32) -> HashSet<Position> {
        let mut layer = HashSet::from([Position::start()]);
        for _ in 0..plies {
            let mut next = HashSet::new();
            for p in &layer {
                if p.is_game_over() {
                    continue;
                }
                if p.must_pass() {
                    next.insert(p.pass());
                }
                for sq in Bits(p.legal_moves()).filter_map(Square::new) {
                    next.extend(p.play(Move::Play(sq)).ok());
                }
            }
            layer = next;
        }
        layer
    }

    /// Symmetry classes counted without canonical forms: take any unvisited position, count
    /// one class, and mark its 8 images as visited.
    fn classes(positions: &HashSet<Position>) -> usize {
        let mut visited = HashSet::new();
        let mut count = 0;
        for p in positions {
            if visited.contains(p) {
                continue;
            }
            count += 1;
            visited.extend((0..8).map(|s| p.transform(s)));
        }
        count
    }

    #[test]
    fn counts_match_a_brute_force_enumeration() {
        // 1 ply: the 4 first moves give 4 positions, all images of f5 (the start is symmetric
        // under the two diagonals and the half turn, which carry f5 to the other three).
        assert_eq!(all_positions(1).len(), 4);
        assert_eq!(generate(1).len(), 1);
        // 2 plies: 12 positions (perft 2, no transpositions yet); up to symmetry the reply to
        // f5 is perpendicular (f6... d6/f4 pair up), diagonal or parallel: 3 classes.
        assert_eq!(all_positions(2).len(), 12);
        assert_eq!(generate(2).len(), 3);
        for plies in 3..=6 {
            let raw = all_positions(plies);
            let generated = generate(plies);
            assert_eq!(generated.len(), classes(&raw), "{plies} plies");
            // Every generated opening reaches a raw position after exactly that many plies,
            // and no two are images of each other.
            let keys: HashSet<_> = generated
                .iter()
                .map(|o| {
                    assert_eq!(o.moves.len(), plies as usize);
                    assert!(raw.contains(&o.position()));
                    canonical(&o.position())
                })
                .collect();
            assert_eq!(keys.len(), generated.len());
        }
    }

    #[test]
    fn shuffle_is_reproducible_and_a_permutation() {
        let base = generate(4);
        let (mut a, mut b, mut c) = (base.clone(), base.clone(), base.clone());
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        shuffle(&mut c, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut sorted: Vec<String> = a.iter().map(Opening::compact).collect();
        let mut orig: Vec<String> = base.iter().map(Opening::compact).collect();
        sorted.sort();
        orig.sort();
        assert_eq!(sorted, orig);
    }

    #[test]
    fn reads_move_sequences_and_obf_lines() {
        let o = parse_move_sequence("f5D6 c3").unwrap();
        assert_eq!(o.compact(), "f5d6c3");
        assert!(parse_move_sequence("f5f5").is_err());
        assert!(parse_move_sequence("f5z9").is_err());
        // An OBF line of the position after f5d6c3d3c4 is reached again by some move line.
        let target = parse_move_sequence("f5d6c3d3c4").unwrap().position();
        let file = format!("% comment\nf5d6\n\n{} ; d2:+3\n", target.to_obf());
        let openings = parse_openings(&file, "test").unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[1].position(), target);
        let bad = parse_openings("f5d6\nf5x", "test").unwrap_err();
        assert!(bad.starts_with("test:2:"), "{bad}");
        assert!(parse_openings("% only a comment\n", "t").is_err());
    }
}
