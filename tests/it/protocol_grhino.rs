//! Whole games through GTP against gtp-rhino (Debian package grhino): every move of both sides
//! must be legal and the game must end with the score the rules give. gtp-rhino takes only
//! implied passes, so passes are never sent, as Quarry does.

use crate::common::server::Server;
use crate::common::{colour, final_score_reply, find_gtp_rhino};
use othello_engine::board::{Color, Move, Position};

/// Plays one game; `engines[0]` is Black. Returns the final position.
fn play_game(engines: &mut [Server; 2]) -> Position {
    for e in engines.iter_mut() {
        assert_eq!(e.gtp("boardsize 8"), ["="]);
        assert_eq!(e.gtp("clear_board"), ["="]);
    }
    let mut position = Position::start();
    while !position.is_game_over() {
        if position.must_pass() {
            position = position.pass();
            continue;
        }
        let mover = position.side_to_move();
        let index = mover.index();
        let reply = engines[index].gtp(&format!("genmove {}", colour(mover)));
        assert_eq!(reply.len(), 1, "{reply:?}");
        let text = reply[0].strip_prefix("= ").expect("a success reply");
        let mv: Move = text.parse().expect("a move");
        assert!(
            position.is_legal(mv),
            "{} played {mv} in\n{position}",
            colour(mover)
        );
        position = position.play(mv).expect("legal");
        let relay = format!("play {} {}", colour(mover), text.to_uppercase());
        assert_eq!(engines[1 - index].gtp(&relay), ["="], "{relay}");
    }
    position
}

#[test]
fn games_against_gtp_rhino() {
    let Some(rhino) = find_gtp_rhino() else {
        assert!(
            std::env::var_os("OTHELLO_REQUIRE_GRHINO").is_none(),
            "gtp-rhino is required here but not installed"
        );
        eprintln!("gtp-rhino not installed (apt-get install grhino); skipping");
        return;
    };
    for ours in [Color::Black, Color::White] {
        let us = Server::start(&["gtp", "--level", "3"]);
        let them = Server::start_program(&rhino, &["-l", "1"]);
        let mut engines = if ours == Color::Black {
            [us, them]
        } else {
            [them, us]
        };
        let position = play_game(&mut engines);
        let expected = final_score_reply(&position);
        let index = ours.index();
        assert_eq!(engines[index].gtp("final_score"), [expected]);
        for e in engines {
            e.finish();
        }
    }
}
