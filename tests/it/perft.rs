//! Perft against published counts (tests/data/perft.txt) and against the simple mailbox
//! implementation on positions from the FFO suite and midgame10.

use crate::common;
use crate::common::reference::MailboxBoard;
use othello_engine::board::{Position, perft, perft_divide};

#[test]
fn published_counts_from_the_data_file() {
    let text = include_str!("../data/perft.txt");
    let mut position = None;
    let mut checked = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(obf) = line.strip_prefix("position ") {
            position = Some(obf.parse::<Position>().expect("valid position"));
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest
                .split_whitespace()
                .map(|n| n.parse::<u64>().expect("number"));
            let (depth, leaves) = (it.next().expect("depth"), it.next().expect("leaves"));
            let p = position.as_ref().expect("a position line first");
            assert_eq!(
                perft(p, depth as u32),
                leaves,
                "perft {depth} of {}",
                p.to_obf()
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 11);
}

#[test]
fn suite_positions_agree_with_the_mailbox_implementation() {
    let mut lines = common::obf::read_obf("fforum-1-19.obf");
    lines.extend(common::obf::read_obf("fforum-20-39.obf"));
    lines.extend(common::obf::read_obf("midgame10.obf"));
    assert_eq!(lines.len(), 49);
    for (i, line) in lines.iter().enumerate() {
        let reference = MailboxBoard::from_position(&line.position);
        // Deeper where the tree is narrow: the endgame positions run into passes and game ends.
        let depth = if line.position.empty_count() <= 16 {
            6
        } else {
            4
        };
        for d in 1..=depth {
            assert_eq!(
                perft(&line.position, d),
                reference.perft(d),
                "position {} depth {d}",
                i + 1
            );
        }
    }
}

#[test]
fn positions_with_passes_and_ends() {
    // White to move with no move while black can move: one pass leaf at depth 1.
    let p: Position = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO- O"
        .parse()
        .expect("valid");
    assert!(p.must_pass() && !p.is_game_over());
    assert_eq!(perft(&p, 1), 1);
    // After the pass black plays h8 and the game is over: still one leaf each ply.
    assert_eq!(perft(&p, 2), 1);
    assert_eq!(perft(&p, 5), 1);
    let divide = perft_divide(&p, 3);
    assert_eq!(divide.len(), 1);
    assert_eq!(divide[0].0.to_string(), "PA");
    // A full board is over: one leaf at any depth, and no first moves to divide.
    let full: Position = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO X"
        .parse()
        .expect("valid");
    assert!(full.is_game_over());
    assert_eq!(perft(&full, 4), 1);
    assert!(perft_divide(&full, 4).is_empty());
}
