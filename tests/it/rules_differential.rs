//! The bitboard rules against the mailbox implementation over a million positions reached by
//! seeded random play: legal moves, the flips of every legal move, passes, game ends and scores.

use crate::common::reference::MailboxBoard;
use crate::common::rng::SplitMix;
use othello_engine::board::{Bits, Move, Position, Square};

#[test]
fn bitboards_agree_with_the_mailbox_over_a_million_positions() {
    let mut rng = SplitMix(20_261_121);
    let mut positions = 0u64;
    let mut passes = 0u64;
    let mut games = 0u64;
    while positions < 1_000_000 {
        let mut position = Position::start();
        let mut reference = MailboxBoard::from_position(&position);
        games += 1;
        loop {
            positions += 1;
            let moves = position.legal_moves();
            assert_eq!(
                moves,
                reference.legal_moves(),
                "moves of {}",
                position.to_obf()
            );
            for sq in Bits(moves) {
                let square = Square::new(sq).expect("square index");
                assert_eq!(
                    position.flips(square),
                    reference.flips(sq),
                    "flips of {square} in {}",
                    position.to_obf()
                );
            }
            assert_eq!(position.is_game_over(), reference.is_game_over());
            if position.is_game_over() {
                assert_eq!(position.final_score(), reference.final_score());
                break;
            }
            if moves == 0 {
                passes += 1;
                position = position.play(Move::Pass).expect("pass is legal");
                reference.pass();
                continue;
            }
            let squares: Vec<usize> = Bits(moves).collect();
            let sq = squares[rng.below(squares.len())];
            position = position
                .play(Move::Play(Square::new(sq).expect("square index")))
                .expect("legal move");
            reference.play(sq);
        }
    }
    // Random games pass now and then; make sure the walk really exercised passes.
    assert!(passes > 1000, "only {passes} passes in {games} games");
}

#[test]
fn symmetric_positions_have_symmetric_moves() {
    let mut rng = SplitMix(7);
    let mut position = Position::start();
    for _ in 0..40 {
        let moves = position.legal_moves();
        if moves == 0 {
            break;
        }
        for sym in 0..8u8 {
            let image = position.transform(sym);
            let mapped = Bits(moves)
                .map(|sq| Square::new(sq).expect("index").transform(sym).bit())
                .fold(0, |a, b| a | b);
            assert_eq!(image.legal_moves(), mapped);
        }
        let squares: Vec<usize> = Bits(moves).collect();
        let sq = Square::new(squares[rng.below(squares.len())]).expect("index");
        position = position.play(Move::Play(sq)).expect("legal");
    }
}
