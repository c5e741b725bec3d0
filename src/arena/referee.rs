//! One game between two engines (GTP or NBoard), refereed: the runner checks every move with
//! the rules core, relays passes itself, keeps both clocks, and ends the game. Whatever an
//! engine does wrong (an illegal move, a timeout, a crash, a reply it cannot parse) loses it
//! the game.

use super::client::gtp::{genmove_command, play_command};
use super::client::{EngineError, GtpEngine, NBoardEngine};
use super::ggf::nboard_game;
use super::outcome::{Ending, ForfeitKind, Game};
use super::spec::{EngineProtocol, EngineSpec};
use crate::board::{Color, Move};
use crate::game::clock::TimeControl;
use crate::game::notation::move_item;
use crate::game::openings::Opening;
use std::time::{Duration, Instant};

/// How long an engine may take to start and answer a setup command.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest a move may take when no clock runs (`--depth` alone): enough for any sane
/// fixed-depth search, short enough that a hung engine does not stall the match.
pub const UNTIMED_MOVE_LIMIT: Duration = Duration::from_secs(120);

/// Black's margin in a game lost by a fault: all 64 discs to the winner.
const FORFEIT_MARGIN: i32 = 64;

/// How much of an unreadable move reply the reason quotes.
const MOVE_QUOTE_LIMIT: usize = 40;
/// What our engine answers to GTP `name` (the servers answer with the package's name).
const OUR_NAME: &str = env!("CARGO_PKG_NAME");

/// The index of `color` in the referee's pairs (engines, clocks): black first.
fn index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// A fault: the side and what it did.
type Fault = (Color, ForfeitKind);

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

    fn peak_memory_kib(&self) -> Option<u64> {
        match self {
            Player::Gtp(engine) => engine.peak_memory_kib(),
            Player::NBoard(engine) => engine.peak_memory_kib(),
        }
    }

    fn protocol(&self) -> EngineProtocol {
        match self {
            Player::Gtp(_) => EngineProtocol::Gtp,
            Player::NBoard(_) => EngineProtocol::NBoard,
        }
    }

    fn quit(self) {
        match self {
            Player::Gtp(engine) => engine.quit(),
            Player::NBoard(engine) => engine.quit(),
        }
    }
}

/// Engine processes kept from one game to the next (`--keep-engines`), by engine index.
#[derive(Default)]
pub struct KeptEngines(Vec<(usize, Player)>);

impl KeptEngines {
    fn take(&mut self, engine: usize) -> Option<Player> {
        let at = self.0.iter().position(|(e, _)| *e == engine)?;
        Some(self.0.swap_remove(at).1)
    }

    /// Sends every kept engine `quit` and stops it.
    pub fn quit_all(self) {
        for (_, player) in self.0 {
            player.quit();
        }
    }
}

/// One side of a game: the engine's index in the match, and how to start it.
pub type Seat<'a> = (usize, &'a EngineSpec);

/// What the referee forgives and charges beyond an engine's own time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// Extra time past a limit before a move counts as late.
    pub margin: Duration,
    /// Time charged to every move beyond the engine's answer (a GUI's own delay); when it is
    /// not zero, GTP engines are told whole seconds rounded to the nearest, as Quarry does.
    pub latency: Duration,
}

/// Plays the game; `seats` and their time `controls` are (black, white). Each engine is
/// taken from `kept` when it is there, else started; after the game both go back to `kept`
/// when there is one and the game ended without a fault, and are stopped otherwise.
pub fn play_game(
    seats: [Seat; 2],
    mut kept: Option<&mut KeptEngines>,
    opening: &Opening,
    controls: [TimeControl; 2],
    allowance: Allowance,
) -> Game {
    let mut game = Game::new(opening);
    let names = [seats[0].1.name.as_str(), seats[1].1.name.as_str()];
    let result = start_both(seats, kept.as_deref_mut()).and_then(|mut engines| {
        if !allowance.latency.is_zero() {
            for engine in &mut engines {
                if let Player::Gtp(engine) = engine {
                    engine.tell_like_a_gui();
                }
            }
        }
        let outcome = setup(&mut engines, opening, controls)
            .and_then(|()| play_out(&mut engines, &mut game, names, controls, allowance));
        let seated = engines
            .into_iter()
            .zip(seats)
            .zip(&mut game.peak_memory_kib);
        for ((engine, (index, _)), peak) in seated {
            *peak = engine.peak_memory_kib();
            match kept.as_deref_mut() {
                Some(kept) if outcome.is_ok() => kept.0.push((index, engine)),
                _ => engine.quit(),
            }
        }
        outcome
    });
    match result {
        Ok(()) => {
            let p = game.final_position();
            let for_mover = p.final_score();
            game.black_margin = if p.side_to_move() == Color::Black {
                for_mover
            } else {
                -for_mover
            };
        }
        Err((side, kind)) => {
            game.black_margin = if side == Color::Black {
                -FORFEIT_MARGIN
            } else {
                FORFEIT_MARGIN
            };
            game.ending = Ending::Forfeit { side, kind };
        }
    }
    game
}

/// Both sides' engines: kept ones where there are, else started.
fn start_both(seats: [Seat; 2], mut kept: Option<&mut KeptEngines>) -> Result<[Player; 2], Fault> {
    let mut seat =
        |(index, spec): Seat, color: Color| match kept.as_deref_mut().and_then(|k| k.take(index)) {
            Some(player) => Ok(player),
            None => Player::start(spec).map_err(|e| (color, ForfeitKind::Start(e))),
        };
    let black = seat(seats[0], Color::Black)?;
    let white = seat(seats[1], Color::White)?;
    Ok([black, white])
}

/// Sends a command that must succeed; its failure is `color`'s fault.
fn send_required(engine: &mut GtpEngine, command: String, color: Color) -> Result<(), Fault> {
    match engine.send(&command, SETUP_TIMEOUT) {
        Ok(_) => Ok(()),
        Err(error) => Err((color, ForfeitKind::Command { command, error })),
    }
}

/// Sends a command whose refusal does not matter (optional GTP commands); a timeout or crash
/// still counts.
fn send_optional(engine: &mut GtpEngine, command: String, color: Color) -> Result<(), Fault> {
    match engine.send(&command, SETUP_TIMEOUT) {
        Ok(_) | Err(EngineError::Failure(_)) => Ok(()),
        Err(error) => Err((color, ForfeitKind::Command { command, error })),
    }
}

/// Sets up the GTP engines' boards, clocks and openings; NBoard engines get the whole game
/// with each request instead.
fn setup(
    engines: &mut [Player; 2],
    opening: &Opening,
    controls: [TimeControl; 2],
) -> Result<(), Fault> {
    for ((player, color), control) in engines
        .iter_mut()
        .zip([Color::Black, Color::White])
        .zip(controls)
    {
        let Player::Gtp(engine) = player else {
            continue;
        };
        for command in ["boardsize 8", "clear_board"] {
            send_required(engine, command.into(), color)?;
        }
        if !engine.fractional_seconds {
            // Our own engine, whatever command starts it (another build of it by its path),
            // reads the clock to the millisecond, as `self:` engines are told it: whole
            // seconds would only hide the increment it reads off the clock. (As a GUI's, its
            // game clock is told in whole seconds all the same.)
            match engine.send("name", SETUP_TIMEOUT) {
                Ok(name) => engine.fractional_seconds = name.trim() == OUR_NAME,
                Err(EngineError::Failure(_)) => {}
                Err(error) => {
                    let command = "name".to_string();
                    return Err((color, ForfeitKind::Command { command, error }));
                }
            }
        }
        if let Some(command) = engine.time_settings(control) {
            send_optional(engine, command, color)?;
        }
        for m in opening.record().moves() {
            let command = play_command(m.color, m.mv);
            if let Err(error) = engine.send(&command, SETUP_TIMEOUT) {
                return Err((color, ForfeitKind::Opening { command, error }));
            }
        }
    }
    Ok(())
}

/// Reads the move of a `genmove` reply (`e6`, `pass`) or of an NBoard `===` line
/// (`E6/-1.50/0.87`, `e6 -1.00 0.0`, `PA`); the error is the kind of the forfeit.
fn read_move(reply: &str, protocol: EngineProtocol) -> Result<Move, ForfeitKind> {
    let unparsable = || ForfeitKind::UnparsableMove(reply.chars().take(MOVE_QUOTE_LIMIT).collect());
    match protocol {
        EngineProtocol::Gtp => {
            let word = reply.split_whitespace().next().unwrap_or("");
            if word.eq_ignore_ascii_case("resign") {
                return Err(ForfeitKind::Resigned);
            }
            word.parse().map_err(|_| unparsable())
        }
        EngineProtocol::NBoard => match move_item(reply) {
            Ok((_, item)) => Ok(item.mv),
            Err(_) => Err(unparsable()),
        },
    }
}

/// What the side to move is asked with: the game so far, the players' names, time controls
/// and clocks (black, white).
struct Request<'a> {
    game: &'a Game,
    names: [&'a str; 2],
    controls: [TimeControl; 2],
    clocks: [Duration; 2],
}

/// Asks the side to move for its move: GTP `time_left` then `genmove`; NBoard `set game` with
/// the whole game and the clocks, `ping`/`pong`, then `go`. Returns the reply and the time
/// from the request to the answer; a crash, a timeout or a reply that is not the protocol's
/// is the mover's fault.
fn request_move(
    player: &mut Player,
    side: Color,
    request: &Request,
    timeout: Duration,
) -> Result<(String, Duration), Fault> {
    let (asked, reply, started) = match player {
        Player::Gtp(engine) => {
            let clock = request.clocks[index(side)];
            let control = request.controls[index(side)];
            if let Some(command) = engine.time_left(side, control, clock) {
                send_optional(engine, command, side)?;
            }
            let started = Instant::now();
            (
                "genmove",
                engine.send(&genmove_command(side), timeout),
                started,
            )
        }
        Player::NBoard(engine) => {
            let ggf = nboard_game(
                request.names,
                &request.game.record,
                request.controls,
                request.clocks,
            );
            engine
                .set_game(&ggf)
                .and_then(|()| engine.sync(SETUP_TIMEOUT))
                .map_err(|e| (side, ForfeitKind::of_request(e, "ping", SETUP_TIMEOUT)))?;
            let started = Instant::now();
            ("go", engine.go(timeout), started)
        }
    };
    let spent = started.elapsed();
    let reply = reply.map_err(|e| (side, ForfeitKind::of_request(e, asked, timeout)))?;
    Ok((reply, spent))
}

/// Plays the game from its opening to the end: passes made by the referee, every move timed,
/// checked and relayed.
fn play_out(
    engines: &mut [Player; 2],
    game: &mut Game,
    names: [&str; 2],
    controls: [TimeControl; 2],
    allowance: Allowance,
) -> Result<(), Fault> {
    let Allowance { margin, latency } = allowance;
    let mut clocks = controls.map(|control| match control {
        TimeControl::Fischer { base, .. } => base,
        _ => Duration::ZERO,
    });
    let mut position = game.final_position();
    while !position.is_game_over() {
        let side = position.side_to_move();
        let mover = index(side);
        if position.must_pass() {
            // The referee passes for the side without moves and tells the GTP engines; an
            // engine that passes implicitly may refuse the explicit pass, which is harmless.
            // NBoard engines see the pass in the next game they are sent.
            for (player, color) in engines.iter_mut().zip([Color::Black, Color::White]) {
                if let Player::Gtp(engine) = player {
                    send_optional(engine, play_command(side, Move::Pass), color)?;
                }
            }
            play(game, Move::Pass, None, side)?;
            position = game.final_position();
            continue;
        }
        let allowed = match controls[mover] {
            TimeControl::Fischer { .. } => clocks[mover],
            TimeControl::PerMove(t) => t,
            TimeControl::Untimed => UNTIMED_MOVE_LIMIT,
        };
        let request = Request {
            game,
            names,
            controls,
            clocks,
        };
        let (reply, answered) =
            request_move(&mut engines[mover], side, &request, allowed + margin)?;
        // The clock runs on while the GUI handles the answer.
        let spent = answered + latency;
        if spent > allowed + margin {
            return Err((side, ForfeitKind::Late { spent, allowed }));
        }
        let mv = read_move(&reply, engines[mover].protocol()).map_err(|kind| (side, kind))?;
        play(game, mv, Some(spent), side)?;
        position = game.final_position();
        if let TimeControl::Fischer { increment, .. } = controls[mover] {
            clocks[mover] = clocks[mover].saturating_sub(spent) + increment;
        }
        if let Player::Gtp(engine) = &mut engines[1 - mover] {
            send_required(engine, play_command(side, mv), side.opponent())?;
        }
    }
    Ok(())
}

/// Records `mv` by `side` with the time it took; a move the rules refuse is `side`'s fault.
fn play(game: &mut Game, mv: Move, spent: Option<Duration>, side: Color) -> Result<(), Fault> {
    let seconds = spent.map(|t| t.as_secs_f64());
    game.record
        .play(mv, None, seconds)
        .map_err(|_| (side, ForfeitKind::Illegal(mv)))
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
            Err(ForfeitKind::Resigned)
        );
        assert!(read_move("bestmove", EngineProtocol::Gtp).is_err());
        assert_eq!(read_move("E6/-1.50/0.87", EngineProtocol::NBoard), Ok(e6));
        assert_eq!(read_move("e6 -1.00 0.0", EngineProtocol::NBoard), Ok(e6));
        assert_eq!(read_move("PA", EngineProtocol::NBoard), Ok(Move::Pass));
        assert_eq!(
            read_move("hello", EngineProtocol::NBoard).map_err(|k| k.to_string()),
            Err("unparsable move 'hello'".into())
        );
        assert!(read_move("", EngineProtocol::NBoard).is_err());
    }
}
