//! What a refereed game comes to: the game record, black's margin, and how it ended; a
//! forfeit is typed by its kind, and says what happened in the words the files keep.

use super::client::EngineError;
use crate::board::{Color, Move, Position};
use crate::game::GameRecord;
use crate::game::openings::Opening;
use std::fmt;
use std::time::Duration;

/// Why a side lost a game by a fault. Its text (`Display`) is the reason the game line, the
/// results file and the GGF record give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForfeitKind {
    /// The engine could not be started or did not take its first command.
    Start(EngineError),
    /// A setup or relay command failed (`'play black e6': ...`).
    Command {
        /// The command sent.
        command: String,
        /// What went wrong.
        error: EngineError,
    },
    /// A move of the opening was not taken (`opening 'play black f5': ...`).
    Opening {
        /// The command sent.
        command: String,
        /// What went wrong.
        error: EngineError,
    },
    /// No answer to a request (`genmove`, `go`, `ping`) within the time allowed.
    NoAnswer {
        /// The request.
        request: &'static str,
        /// The time allowed.
        within: Duration,
        /// The last line skipped while waiting because it was not GTP, if any.
        stray: Option<String>,
    },
    /// A move answered, but later than the clock allowed.
    Late {
        /// The time the move took.
        spent: Duration,
        /// The time it had.
        allowed: Duration,
    },
    /// The engine exited while asked for a move.
    Crashed {
        /// The request.
        request: &'static str,
        /// Its last standard error line, if any.
        stderr: Option<String>,
    },
    /// A reply that is not the protocol's.
    UnparsableReply(String),
    /// A request refused (`? message`).
    Refused {
        /// The request.
        request: &'static str,
        /// The engine's message.
        message: String,
    },
    /// A reply whose move cannot be read (the start of the reply).
    UnparsableMove(String),
    /// The engine resigned.
    Resigned,
    /// A move the rules do not allow.
    Illegal(Move),
    /// The match was interrupted while the engine was asked.
    Interrupted,
}

impl ForfeitKind {
    /// The forfeit for `error`, the failure of `request` allowed `within`.
    pub fn of_request(error: EngineError, request: &'static str, within: Duration) -> ForfeitKind {
        match error {
            EngineError::Timeout(stray) => ForfeitKind::NoAnswer {
                request,
                within,
                stray,
            },
            EngineError::Exited(stderr) => ForfeitKind::Crashed { request, stderr },
            EngineError::Aborted => ForfeitKind::Interrupted,
            EngineError::Garbage(line) => ForfeitKind::UnparsableReply(line),
            EngineError::Failure(message) => ForfeitKind::Refused { request, message },
            error @ EngineError::Start(_) => ForfeitKind::Start(error),
        }
    }

    /// True when the engine ran out of time (GGF writes the result with `:t`).
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            ForfeitKind::NoAnswer { .. } | ForfeitKind::Late { .. }
        )
    }
}

impl fmt::Display for ForfeitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForfeitKind::Start(error) => write!(f, "{error}"),
            ForfeitKind::Command { command, error } => write!(f, "'{command}': {error}"),
            ForfeitKind::Opening { command, error } => write!(f, "opening '{command}': {error}"),
            ForfeitKind::NoAnswer {
                request,
                within,
                stray,
            } => {
                write!(
                    f,
                    "timeout: no answer to {request} within {:.2} s",
                    within.as_secs_f64()
                )?;
                match stray {
                    Some(line) => write!(f, "; skipped output that is not GTP: '{line}'"),
                    None => Ok(()),
                }
            }
            ForfeitKind::Late { spent, allowed } => write!(
                f,
                "timeout: took {:.2} s of {:.2} s",
                spent.as_secs_f64(),
                allowed.as_secs_f64()
            ),
            ForfeitKind::Crashed { request, stderr } => {
                write!(f, "crashed: exited during {request}")?;
                match stderr {
                    Some(line) => write!(f, "; last stderr line: '{line}'"),
                    None => Ok(()),
                }
            }
            ForfeitKind::UnparsableReply(line) => write!(f, "unparsable reply '{line}'"),
            ForfeitKind::Refused { request, message } => {
                write!(f, "{request} failed: '? {message}'")
            }
            ForfeitKind::UnparsableMove(reply) => write!(f, "unparsable move '{reply}'"),
            ForfeitKind::Resigned => f.write_str("resigned"),
            ForfeitKind::Illegal(mv) => write!(f, "illegal move {mv}"),
            ForfeitKind::Interrupted => write!(f, "{}", EngineError::Aborted),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played out: neither side can move.
    Finished,
    /// `side` lost by a fault.
    Forfeit {
        /// The side at fault.
        side: Color,
        /// What happened.
        kind: ForfeitKind,
    },
}

impl Ending {
    /// `black forfeits: illegal move a1` for a forfeit, as the files and game lines say it.
    pub fn forfeit_text(&self) -> Option<String> {
        match self {
            Ending::Finished => None,
            Ending::Forfeit { side, kind } => Some(format!("{side} forfeits: {kind}")),
        }
    }
}

/// A refereed game.
#[derive(Clone, Debug)]
pub struct Game {
    /// The opening that was set up.
    pub opening: Opening,
    /// The whole game from the start: the opening's moves, then the engines' with the time
    /// each took, and the passes the referee made for them (without a time).
    pub record: GameRecord,
    /// Black's margin in discs, empties to the winner; a forfeit counts as a 64-0 loss.
    pub black_margin: i32,
    /// How it ended.
    pub ending: Ending,
    /// Each engine's (black, white) most resident memory up to the end of the game, in KiB,
    /// where the system tells.
    pub peak_memory_kib: [Option<u64>; 2],
}

impl Game {
    /// A game set up at `opening`, not played yet.
    pub fn new(opening: &Opening) -> Game {
        Game {
            opening: opening.clone(),
            record: opening.record(),
            black_margin: 0,
            ending: Ending::Finished,
            peak_memory_kib: [None; 2],
        }
    }

    /// The last position.
    pub fn final_position(&self) -> Position {
        self.record.current()
    }

    /// The seconds `side` spent on its moves in this game.
    pub fn think_seconds(&self, side: Color) -> f64 {
        self.record
            .moves()
            .iter()
            .filter(|m| m.color == side)
            .filter_map(|m| m.seconds)
            .sum()
    }
}

/// A finished game with its place in the schedule.
#[derive(Clone, Debug)]
pub struct Played {
    /// 1-based game number in the schedule.
    pub number: usize,
    /// Index of the opening.
    pub opening: usize,
    /// Engine index playing black.
    pub black: usize,
    /// Engine index playing white.
    pub white: usize,
    /// The game.
    pub game: Game,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forfeits_read_as_the_files_have_always_said_them() {
        let ms = Duration::from_millis;
        let d4: Move = "d4".parse().unwrap_or(Move::Pass);
        let cases = [
            (
                ForfeitKind::of_request(
                    EngineError::Timeout(Some("bestmove e6 ponder f4".into())),
                    "genmove",
                    ms(400),
                ),
                "timeout: no answer to genmove within 0.40 s; skipped output that is not GTP: 'bestmove e6 ponder f4'",
                true,
            ),
            (
                ForfeitKind::of_request(EngineError::Timeout(None), "ping", ms(10_000)),
                "timeout: no answer to ping within 10.00 s",
                true,
            ),
            (
                ForfeitKind::Late {
                    spent: ms(1_234),
                    allowed: ms(1_000),
                },
                "timeout: took 1.23 s of 1.00 s",
                true,
            ),
            (
                ForfeitKind::of_request(
                    EngineError::Exited(Some("gtp_fixture: crashing on purpose".into())),
                    "genmove",
                    ms(400),
                ),
                "crashed: exited during genmove; last stderr line: 'gtp_fixture: crashing on purpose'",
                false,
            ),
            (
                ForfeitKind::of_request(EngineError::Exited(None), "go", ms(400)),
                "crashed: exited during go",
                false,
            ),
            (
                ForfeitKind::of_request(EngineError::Failure("no".into()), "genmove", ms(1)),
                "genmove failed: '? no'",
                false,
            ),
            (
                ForfeitKind::of_request(EngineError::Garbage("x".into()), "genmove", ms(1)),
                "unparsable reply 'x'",
                false,
            ),
            (
                ForfeitKind::Command {
                    command: "boardsize 8".into(),
                    error: EngineError::Timeout(None),
                },
                "'boardsize 8': no reply in time",
                false,
            ),
            (
                ForfeitKind::Opening {
                    command: "play black f5".into(),
                    error: EngineError::Failure("illegal move".into()),
                },
                "opening 'play black f5': replied '? illegal move'",
                false,
            ),
            (
                ForfeitKind::Start(EngineError::Start("nothing: not found".into())),
                "could not start: nothing: not found",
                false,
            ),
            (ForfeitKind::Illegal(d4), "illegal move d4", false),
            (ForfeitKind::Resigned, "resigned", false),
            (
                ForfeitKind::UnparsableMove("hello".into()),
                "unparsable move 'hello'",
                false,
            ),
            (
                ForfeitKind::Interrupted,
                "stopped: the match was interrupted",
                false,
            ),
        ];
        for (kind, text, timeout) in cases {
            assert_eq!(kind.to_string(), text);
            assert_eq!(kind.is_timeout(), timeout, "{text}");
        }
        let ending = Ending::Forfeit {
            side: Color::White,
            kind: ForfeitKind::Illegal(d4),
        };
        assert_eq!(
            ending.forfeit_text().as_deref(),
            Some("white forfeits: illegal move d4")
        );
        assert_eq!(Ending::Finished.forfeit_text(), None);
    }
}
