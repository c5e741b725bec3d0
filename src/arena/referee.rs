//! One game between two engines (GTP or NBoard), refereed: the runner checks every move with
//! the rules core, relays passes itself, keeps both clocks, and ends the game. Whatever an
//! engine does wrong (an illegal move, a timeout, a crash, a reply it cannot parse) loses it
//! the game.

use super::client::{EngineError, GtpEngine, NBoardEngine};
use super::records::nboard_game;
use super::spec::{EngineProtocol, EngineSpec};
use crate::board::{Color, Move, Position};
use crate::game::GameRecord;
use crate::game::clock::TimeControl;
use crate::game::notation::move_item;
use crate::game::openings::Opening;
use std::time::{Duration, Instant};

/// How long an engine may take to start and answer a setup command.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest a move may take when no clock runs (`--depth` alone): enough for any sane
/// fixed-depth search, short enough that a hung engine does not stall the match.
pub const UNTIMED_MOVE_LIMIT: Duration = Duration::from_secs(120);

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played out: neither side can move.
    Finished,
    /// `side` lost by a fault described by `reason`.
    Forfeit {
        /// The side at fault.
        side: Color,
        /// What happened, e.g. "illegal move a1".
        reason: String,
    },
}

/// A refereed game.
#[derive(Clone, Debug)]
pub struct Game {
    /// The opening that was set up.
    pub opening: Opening,
    /// Every move after the opening with the time it took (None for passes the referee made).
    pub moves: Vec<(Move, Option<Duration>)>,
    /// The last position.
    pub final_position: Position,
    /// Black's margin in discs, empties to the winner; a forfeit counts as a 64-0 loss.
    pub black_margin: i32,
    /// How it ended.
    pub ending: Ending,
}

impl Game {
    /// The whole game, opening included, as a game record (engine moves with their times).
    pub fn record(&self) -> GameRecord {
        let opening = self.opening.moves.iter().map(|&mv| (mv, None));
        let played = self
            .moves
            .iter()
            .map(|&(mv, t)| (mv, t.map(|t| t.as_secs_f64())));
        GameRecord::replay(Position::start(), opening.chain(played)).unwrap_or_else(|| {
            // Every move was checked by the referee; a record that does not replay is a bug.
            log::error!("a refereed game does not replay; recording its start only");
            GameRecord::new(Position::start())
        })
    }
}

/// The colour word GTP engines expect.
fn gtp_colour(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// A fault: the side and the reason.
type Fault = (Color, String);

/// A running engine of either protocol.
enum Player {
    Gtp(GtpEngine),
    NBoard(NBoardEngine),
}

impl Player {
    fn start(spec: &EngineSpec) -> Result<Player, EngineError> {
        Ok(match spec.protocol {
            EngineProtocol::Gtp => Player::Gtp(GtpEngine::start(spec)?),
            EngineProtocol::NBoard => Player::NBoard(NBoardEngine::start(spec)?),
        })
    }

    fn quit(self) {
        match self {
            Player::Gtp(engine) => engine.quit(),
            Player::NBoard(engine) => engine.quit(),
        }
    }
}

/// Starts both engines and plays the game; `specs` is (black, white).
pub fn play_game(
    specs: [&EngineSpec; 2],
    opening: &Opening,
    control: TimeControl,
    margin: Duration,
) -> Game {
    let mut game = Game {
        opening: opening.clone(),
        moves: Vec::new(),
        final_position: opening.position(),
        black_margin: 0,
        ending: Ending::Finished,
    };
    let names = [specs[0].name.as_str(), specs[1].name.as_str()];
    let result = start_both(specs).and_then(|mut engines| {
        let outcome = setup(&mut engines, opening, control)
            .and_then(|()| play_out(&mut engines, &mut game, names, control, margin));
        for engine in engines {
            engine.quit();
        }
        outcome
    });
    match result {
        Ok(()) => {
            let p = game.final_position;
            let for_mover = p.final_score();
            game.black_margin = if p.side_to_move() == Color::Black {
                for_mover
            } else {
                -for_mover
            };
        }
        Err((side, reason)) => {
            game.black_margin = if side == Color::Black { -64 } else { 64 };
            game.ending = Ending::Forfeit { side, reason };
        }
    }
    game
}

fn start_both(specs: [&EngineSpec; 2]) -> Result<[Player; 2], Fault> {
    let black = Player::start(specs[0]).map_err(|e| (Color::Black, e.to_string()))?;
    let white = Player::start(specs[1]).map_err(|e| (Color::White, e.to_string()))?;
    Ok([black, white])
}

/// Sends a command whose refusal does not matter (optional GTP commands); a timeout or crash
/// still counts.
fn send_optional(engine: &mut GtpEngine, command: &str, color: Color) -> Result<(), Fault> {
    match engine.send(command, SETUP_TIMEOUT) {
        Ok(_) | Err(EngineError::Failure(_)) => Ok(()),
        Err(e) => Err((color, format!("'{command}': {e}"))),
    }
}

/// Sets up the GTP engines' boards, clocks and openings; NBoard engines get the whole game
/// with each request instead.
fn setup(engines: &mut [Player; 2], opening: &Opening, control: TimeControl) -> Result<(), Fault> {
    for (player, color) in engines.iter_mut().zip([Color::Black, Color::White]) {
        let Player::Gtp(engine) = player else {
            continue;
        };
        for command in ["boardsize 8", "clear_board"] {
            engine
                .send(command, SETUP_TIMEOUT)
                .map_err(|e| (color, format!("'{command}': {e}")))?;
        }
        let settings = match control {
            TimeControl::Fischer { base, .. } => {
                Some(format!("time_settings {} 0 0", engine.seconds(base, 0)))
            }
            TimeControl::PerMove(t) => Some(format!("time_settings 0 {} 1", engine.seconds(t, 1))),
            TimeControl::Untimed => None,
        };
        if let Some(command) = settings {
            send_optional(engine, &command, color)?;
        }
        for m in opening.record().moves() {
            let command = format!("play {} {}", gtp_colour(m.color), gtp_move(m.mv));
            engine
                .send(&command, SETUP_TIMEOUT)
                .map_err(|e| (color, format!("opening '{command}': {e}")))?;
        }
    }
    Ok(())
}

/// A move as GTP writes it: `e6` or `pass`.
fn gtp_move(mv: Move) -> String {
    match mv {
        Move::Pass => "pass".into(),
        Move::Play(sq) => sq.to_string(),
    }
}

/// Reads the move of a `genmove` reply (`e6`, `pass`) or of an NBoard `===` line
/// (`E6/-1.50/0.87`, `e6 -1.00 0.0`, `PA`); the error is the reason of the forfeit.
fn read_move(reply: &str, protocol: EngineProtocol) -> Result<Move, String> {
    let unparsable = || {
        format!(
            "unparsable move '{}'",
            reply.chars().take(40).collect::<String>()
        )
    };
    match protocol {
        EngineProtocol::Gtp => {
            let word = reply.split_whitespace().next().unwrap_or("");
            if word.eq_ignore_ascii_case("resign") {
                return Err("resigned".into());
            }
            word.parse().map_err(|_| unparsable())
        }
        EngineProtocol::NBoard => match move_item(reply) {
            Ok((_, item)) => Ok(item.mv),
            Err(_) => Err(unparsable()),
        },
    }
}

/// Asks the side to move for its move: GTP `time_left` then `genmove`; NBoard `set game` with
/// the whole game and the clocks, `ping`/`pong`, then `go`. Returns the reply and the time
/// from the request to the answer; a crash, a timeout or a reply that is not the protocol's
/// is the mover's fault.
fn request_move(
    player: &mut Player,
    side: Color,
    game: &Game,
    names: [&str; 2],
    control: TimeControl,
    clocks: [Duration; 2],
    timeout: Duration,
) -> Result<(String, Duration), Fault> {
    let mover = index(side);
    let (request, reply, started) = match player {
        Player::Gtp(engine) => {
            let time_left = match control {
                TimeControl::Fischer { .. } => Some(format!(
                    "time_left {} {} 0",
                    gtp_colour(side),
                    engine.seconds(clocks[mover], 0)
                )),
                TimeControl::PerMove(t) => Some(format!(
                    "time_left {} {} 1",
                    gtp_colour(side),
                    engine.seconds(t, 1)
                )),
                TimeControl::Untimed => None,
            };
            if let Some(command) = time_left {
                send_optional(engine, &command, side)?;
            }
            let started = Instant::now();
            let reply = engine.send(&format!("genmove {}", gtp_colour(side)), timeout);
            ("genmove", reply, started)
        }
        Player::NBoard(engine) => {
            let ggf = nboard_game(names, game, control, clocks);
            engine
                .set_game(&ggf)
                .and_then(|()| engine.sync(SETUP_TIMEOUT))
                .map_err(|e| (side, fault_reason(e, "ping", SETUP_TIMEOUT)))?;
            let started = Instant::now();
            ("go", engine.go(timeout), started)
        }
    };
    let spent = started.elapsed();
    let reply = reply.map_err(|e| (side, fault_reason(e, request, timeout)))?;
    Ok((reply, spent))
}

/// The reason a failed `request` (allowed `timeout`) gives for the forfeit.
fn fault_reason(error: EngineError, request: &str, timeout: Duration) -> String {
    match error {
        EngineError::Timeout(stray) => format!(
            "timeout: no answer to {request} within {:.2} s{}",
            timeout.as_secs_f64(),
            stray.map_or(String::new(), |line| format!(
                "; skipped output that is not GTP: '{line}'"
            ))
        ),
        EngineError::Exited(stderr) => format!(
            "crashed: exited during {request}{}",
            stderr.map_or(String::new(), |line| format!(
                "; last stderr line: '{line}'"
            ))
        ),
        EngineError::Aborted => EngineError::Aborted.to_string(),
        EngineError::Garbage(line) => format!("unparsable reply '{line}'"),
        EngineError::Failure(m) => format!("{request} failed: '? {m}'"),
        EngineError::Start(m) => m,
    }
}

fn play_out(
    engines: &mut [Player; 2],
    game: &mut Game,
    names: [&str; 2],
    control: TimeControl,
    margin: Duration,
) -> Result<(), Fault> {
    let mut clocks = match control {
        TimeControl::Fischer { base, .. } => [base; 2],
        _ => [Duration::ZERO; 2],
    };
    let mut position = game.final_position;
    while !position.is_game_over() {
        let side = position.side_to_move();
        let mover = index(side);
        if position.must_pass() {
            // The referee passes for the side without moves and tells the GTP engines; an
            // engine that passes implicitly may refuse the explicit pass, which is harmless.
            // NBoard engines see the pass in the next game they are sent.
            for (player, color) in engines.iter_mut().zip([Color::Black, Color::White]) {
                if let Player::Gtp(engine) = player {
                    send_optional(engine, &format!("play {} pass", gtp_colour(side)), color)?;
                }
            }
            game.moves.push((Move::Pass, None));
            position = position.pass();
            game.final_position = position;
            continue;
        }
        let allowed = match control {
            TimeControl::Fischer { .. } => clocks[mover],
            TimeControl::PerMove(t) => t,
            TimeControl::Untimed => UNTIMED_MOVE_LIMIT,
        };
        let (reply, spent) = request_move(
            &mut engines[mover],
            side,
            game,
            names,
            control,
            clocks,
            allowed + margin,
        )?;
        if spent > allowed + margin {
            return Err((
                side,
                format!(
                    "timeout: took {:.2} s of {:.2} s",
                    spent.as_secs_f64(),
                    allowed.as_secs_f64()
                ),
            ));
        }
        let protocol = match engines[mover] {
            Player::Gtp(_) => EngineProtocol::Gtp,
            Player::NBoard(_) => EngineProtocol::NBoard,
        };
        let mv = read_move(&reply, protocol).map_err(|reason| (side, reason))?;
        position = position
            .play(mv)
            .map_err(|_| (side, format!("illegal move {mv}")))?;
        if let TimeControl::Fischer { increment, .. } = control {
            clocks[mover] = clocks[mover].saturating_sub(spent) + increment;
        }
        game.moves.push((mv, Some(spent)));
        game.final_position = position;
        if let Player::Gtp(engine) = &mut engines[1 - mover] {
            let relay = format!("play {} {}", gtp_colour(side), gtp_move(mv));
            engine
                .send(&relay, SETUP_TIMEOUT)
                .map_err(|e| (side.opponent(), format!("'{relay}': {e}")))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_read_from_either_protocol() {
        let e6: Move = "e6".parse().unwrap_or(Move::Pass);
        assert_eq!(read_move("E6", EngineProtocol::Gtp), Ok(e6));
        assert_eq!(read_move("pass", EngineProtocol::Gtp), Ok(Move::Pass));
        assert_eq!(
            read_move("resign", EngineProtocol::Gtp),
            Err("resigned".into())
        );
        assert!(read_move("bestmove", EngineProtocol::Gtp).is_err());
        assert_eq!(read_move("E6/-1.50/0.87", EngineProtocol::NBoard), Ok(e6));
        assert_eq!(read_move("e6 -1.00 0.0", EngineProtocol::NBoard), Ok(e6));
        assert_eq!(read_move("PA", EngineProtocol::NBoard), Ok(Move::Pass));
        assert_eq!(
            read_move("hello", EngineProtocol::NBoard),
            Err("unparsable move 'hello'".into())
        );
        assert!(read_move("", EngineProtocol::NBoard).is_err());
    }
}
