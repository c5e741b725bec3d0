//! Games in GGF: the record of every game (`--ggf`, which NBoard opens), and the game so far
//! as NBoard engines are sent it with `set game`, clocks included.

use super::outcome::{Ending, Played};
use crate::board::Color;
use crate::game::GameRecord;
use crate::game::clock::{TimeControl, nboard_clocks};
use crate::game::ggf::{tag_value, write_game};
use crate::game::ggf_date::ggf_date;
use std::time::Duration;

/// The place (`PC`) of the games a match sends and records; a record adds its game number.
const PLACE: &str = "othello-engine match";

/// One game in GGF: its number in the schedule (in `PC`, which lets `--resume` tell the
/// records apart), players (`names` is black, white), clock, start board, the opening moves,
/// then the engines' moves with their times, and the result (black's margin; `:t` after a
/// timeout, `:r` after any other forfeit, with the reason as a comment). `controls` are
/// black's and white's: one `TI` when they agree, else `TB` and `TW`.
pub fn write_ggf(played: &Played, names: [&str; 2], controls: [TimeControl; 2]) -> String {
    let game = &played.game;
    let date = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    let date = ggf_date(date);
    let result = match &game.ending {
        Ending::Finished => format!("{:+}", game.black_margin),
        Ending::Forfeit { kind, .. } if kind.is_timeout() => {
            format!("{:+}:t", game.black_margin)
        }
        Ending::Forfeit { .. } => format!("{:+}:r", game.black_margin),
    };
    let tag = |name: &str, control: TimeControl| {
        control
            .ggf_clock()
            .map_or(String::new(), |c| format!("{name}[{c}]"))
    };
    let clock = if controls[0] == controls[1] {
        tag("TI", controls[0])
    } else {
        tag("TB", controls[0]) + &tag("TW", controls[1])
    };
    let tags = format!(
        "DT[{date}]PB[{}]PW[{}]RE[{result}]{clock}",
        tag_value(names[0]),
        tag_value(names[1]),
    );
    // NBoard reads no property but GGS's few (any other makes the file unreadable), so the
    // exact clock, where whole seconds round it, goes in a comment as the forfeit does.
    let exact = if controls[0] == controls[1] {
        controls[0]
            .exact_text()
            .map(|t| format!("time control {t} s"))
    } else if controls.iter().any(|c| c.exact_text().is_some()) {
        let side = |c: TimeControl| {
            c.exact_text()
                .or_else(|| c.ggf_clock())
                .unwrap_or("none".into())
        };
        Some(format!(
            "time control: black {}, white {}",
            side(controls[0]),
            side(controls[1])
        ))
    } else {
        None
    };
    let trailer: String = exact
        .into_iter()
        .chain(game.ending.forfeit_text())
        .map(|text| format!("CO[{}]", tag_value(&text)))
        .collect();
    let place = format!("{PLACE}, game {}", played.number);
    write_game(&game.record, &place, &tags, true, &trailer)
}

/// The schedule number of a whole game record as [`write_ggf`] writes it (one line from `(;`
/// to `;)`); none for anything else, such as a line cut short.
pub fn ggf_game_number(line: &str) -> Option<usize> {
    let line = line.trim();
    if !line.starts_with("(;") || !line.ends_with(";)") {
        return None;
    }
    let after = line.split_once(&format!("PC[{PLACE}, game "))?.1;
    after.split_once(']')?.0.parse().ok()
}

/// The game so far as an NBoard engine is sent it (`set game`): players, the clocks the runner
/// keeps (see [`nboard_clocks`]), and every move from the start, passes explicit, without
/// times. `names`, `controls` and the time `left` are black's and white's.
pub fn nboard_game(
    names: [&str; 2],
    record: &GameRecord,
    controls: [TimeControl; 2],
    left: [Duration; 2],
) -> String {
    let moves = [record.moves_by(Color::Black), record.moves_by(Color::White)];
    let tags = format!(
        "PB[{}]PW[{}]RE[?]{}",
        tag_value(names[0]),
        tag_value(names[1]),
        nboard_clocks(controls, left, moves, record.current().side_to_move())
    );
    write_game(record, PLACE, &tags, false, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::outcome::{ForfeitKind, Game};
    use crate::board::Move;
    use crate::game::clock::nboard_budget;
    use crate::game::ggf::parse_ggf;
    use crate::game::openings::Opening;

    fn game(opening: &str, moves: &[(&str, Option<u64>)]) -> Game {
        let parse = |m: &str| m.parse::<Move>().unwrap_or(Move::Pass);
        let opening = Opening {
            moves: (0..opening.len() / 2)
                .map(|i| parse(&opening[2 * i..2 * i + 2]))
                .collect(),
        };
        let mut game = Game::new(&opening);
        for &(m, ms) in moves {
            let seconds = ms.map(|ms| Duration::from_millis(ms).as_secs_f64());
            let played = game.record.play(parse(m), None, seconds);
            assert!(played.is_ok(), "{m} is legal");
        }
        game
    }

    fn fischer(base_ms: u64, increment_ms: u64) -> TimeControl {
        TimeControl::Fischer {
            base: Duration::from_millis(base_ms),
            increment: Duration::from_millis(increment_ms),
        }
    }

    /// The time an NBoard engine works out from the GGF, as our server reads it.
    fn engine_view(ggf: &str) -> (Color, f64, f64) {
        let parsed = parse_ggf(ggf).map_err(|e| e.0);
        let parsed = parsed
            .as_ref()
            .expect("the GGF we send is one our server reads");
        let budget = nboard_budget(&parsed.clocks, &parsed.record).expect("a clock");
        (
            parsed.record.current().side_to_move(),
            budget.remaining.as_secs_f64(),
            budget.increment.as_secs_f64(),
        )
    }

    #[test]
    fn nboard_engines_read_the_runners_clocks_exactly() {
        // Opening f5 d6 (one move each), then c3 (black, 1.5 s) and d3 (white, 0.25 s):
        // black to move with two moves of each side in the game.
        let g = game("f5d6", &[("c3", Some(1500)), ("d3", Some(250))]).record;
        let control = fischer(10_000, 500);
        // The runner's clocks: black 10 - 1.5 + 0.5 = 9 s, white 10 - 0.25 + 0.5 = 10.25 s.
        let left = [Duration::from_secs(9), Duration::from_millis(10_250)];
        let ggf = nboard_game(["one", "two"], &g, [control; 2], left);
        // Two increments of 0.5 s per side come back in the engine's count: main = left - 1 s.
        assert!(
            ggf.contains("PB[one]PW[two]RE[?]TI[0:08.000/0:00.500/0:00.000]TB[0:08.000/0:00.500/0:00.000]TW[0:09.250/0:00.500/0:00.000]"),
            "{ggf}"
        );
        assert!(ggf.ends_with("B[F5]W[D6]B[C3]W[D3];)"), "{ggf}");
        assert_eq!(engine_view(&ggf), (Color::Black, 9.0, 0.5));
        // An increment larger than what is left after it is dropped; the time left stays.
        let big = fischer(1000, 5000);
        let ggf = nboard_game(["one", "two"], &g, [big; 2], [Duration::from_secs(3); 2]);
        assert_eq!(engine_view(&ggf), (Color::Black, 3.0, 0.0));
        // A per-move limit is that much time left; no clock without a control.
        let per_move = TimeControl::PerMove(Duration::from_millis(300));
        let ggf = nboard_game(["one", "two"], &g, [per_move; 2], [Duration::ZERO; 2]);
        assert_eq!(engine_view(&ggf), (Color::Black, 0.3, 0.0));
        let ggf = nboard_game(
            ["one", "two"],
            &g,
            [TimeControl::Untimed; 2],
            [Duration::ZERO; 2],
        );
        assert!(!ggf.contains("TI[") && parse_ggf(&ggf).is_ok(), "{ggf}");
        // Each engine its own clock: white's own control (1 s + 5 s a move) reaches white.
        let ggf = nboard_game(["one", "two"], &g, [control, big], left);
        assert!(
            ggf.contains("TB[0:08.000/0:00.500/0:00.000]TW[0:00.250/0:05.000/0:00.000]"),
            "{ggf}"
        );
    }

    #[test]
    fn records_carry_their_game_number_and_only_whole_ones_are_read_back() {
        let played = Played {
            number: 12,
            opening: 0,
            black: 1,
            white: 0,
            game: game("f5d6", &[("c3", Some(100))]),
        };
        let record = write_ggf(
            &played,
            ["b", "a"],
            [TimeControl::PerMove(Duration::from_secs(1)); 2],
        );
        assert!(
            record.starts_with("(;GM[Othello]PC[othello-engine match, game 12]"),
            "{record}"
        );
        // A per-move limit has no GGF clock (NBoard showed `TI[0:00/0:01]` as 0:00 all game):
        // no `TI`, and the limit in the comment.
        assert!(record.contains("PB[b]PW[a]RE[+0]TY[8]"), "{record}");
        assert!(
            record.ends_with("B[F5]W[D6]B[C3//0.100]CO[time control per move 1 s];)"),
            "{record}"
        );
        // The date in GGS's form, read back as the time it was written.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let date = parse_ggf(&record).map(|g| g.date);
        assert!(
            matches!(date, Ok(Some(d)) if (now - 5..=now).contains(&d)),
            "{date:?}, now {now}: {record}"
        );
        let dt = record.split("DT[").nth(1).and_then(|r| r.split(']').next());
        assert_eq!(
            dt.map(str::len),
            Some("2026.12.06_04:09:18.UTC".len()),
            "{record}"
        );
        let own = write_ggf(
            &played,
            ["b", "a"],
            [
                fischer(60_000, 0),
                TimeControl::PerMove(Duration::from_secs(1)),
            ],
        );
        assert!(own.contains("RE[+0]TB[1:00]TY[8]"), "{own}");
        assert!(
            own.contains("CO[time control: black 1:00, white per move 1]"),
            "{own}"
        );
        assert!(parse_ggf(&own).is_ok(), "{own}");
        assert!(parse_ggf(&record).is_ok(), "{record}");
        assert_eq!(ggf_game_number(&format!("{record}\n")), Some(12));
        // Cut short (a crash mid-write), or not one of ours: no number.
        assert_eq!(ggf_game_number(&record[..record.len() - 1]), None);
        assert_eq!(ggf_game_number("(;GM[Othello]PC[NBoard];)"), None);
        assert_eq!(ggf_game_number(""), None);
    }

    #[test]
    fn forfeits_are_written_with_their_kind_and_reason() {
        let mut played = Played {
            number: 3,
            opening: 0,
            black: 0,
            white: 1,
            game: game("f5", &[]),
        };
        let forfeit = |side, kind| Ending::Forfeit { side, kind };
        let timeout = ForfeitKind::Late {
            spent: Duration::from_millis(1500),
            allowed: Duration::from_secs(1),
        };
        played.game.black_margin = 64;
        played.game.ending = forfeit(Color::White, timeout);
        let ggf = write_ggf(&played, ["a", "b"], [TimeControl::Untimed; 2]);
        assert!(ggf.contains("RE[+64:t]"), "{ggf}");
        assert!(
            ggf.ends_with("B[F5]CO[white forfeits: timeout: took 1.50 s of 1.00 s];)"),
            "{ggf}"
        );
        played.game.black_margin = -64;
        let crash = ForfeitKind::Crashed {
            request: "genmove",
            stderr: Some("bad [flag]".into()),
        };
        played.game.ending = forfeit(Color::Black, crash);
        let ggf = write_ggf(&played, ["a", "b"], [TimeControl::Untimed; 2]);
        assert!(ggf.contains("RE[-64:r]"), "{ggf}");
        assert!(
            ggf.contains("CO[black forfeits: crashed: exited during genmove; last stderr line: 'bad [flag)'];)"),
            "{ggf}"
        );
    }
}
