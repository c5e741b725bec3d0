//! Per-move clocks (a period of one move): what a move spends and what it keeps back.
use super::*;

/// The budget of a move under a per-move limit of `seconds`, told in whole seconds (a GUI's)
/// or not (a script's), with `overhead` told and `lag` measured.
fn per_move(seconds: f64, coarse: bool, overhead: Option<f64>, lag: f64) -> TimeBudget {
    TimeBudget {
        remaining: Duration::from_secs_f64(seconds),
        moves_to_go: Some(1),
        main: Duration::from_secs_f64(seconds),
        lag: Duration::from_secs_f64(lag),
        coarse,
        overhead: overhead.map(Duration::from_secs_f64),
        ..TimeBudget::default()
    }
}

#[test]
fn a_per_move_clock_without_a_delay_spends_most_of_each_move() {
    for seconds in [0.05, 0.1, 0.2, 0.5, 1.0, 10.0] {
        for empties in [60, 40, 24, 12, 2] {
            let (soft, hard) = move_time(empties, per_move(seconds, false, None, 0.0));
            assert_eq!(
                soft, hard,
                "{seconds} s a move: the whole move is for the search"
            );
            let part = hard.as_secs_f64() / seconds;
            let least = if seconds >= 0.1 { 0.8 } else { 0.6 };
            assert!(
                (least..1.0).contains(&part),
                "{seconds} s a move at {empties} empties: {part:.3} of it"
            );
        }
    }
}

#[test]
fn a_per_move_clock_keeps_the_delay_it_is_told_or_measures() {
    // Told 0.15 s (`--move-overhead 0.15`): a move of 0.5 s ends before 0.35 s.
    let (_, hard) = move_time(30, per_move(0.5, false, Some(0.15), 0.0));
    assert!(hard.as_secs_f64() <= 0.35, "{hard:?}");
    assert!(hard.as_secs_f64() >= 0.3, "{hard:?}");
    // Told none at all: the move keeps only its small part and its own reply.
    let (_, hard) = move_time(30, per_move(0.5, false, Some(0.0), 0.0));
    assert!(hard.as_secs_f64() >= 0.47, "{hard:?}");
    // A lag measured beyond what was told counts.
    let (_, hard) = move_time(30, per_move(1.0, false, Some(0.0), 0.3));
    assert!(hard.as_secs_f64() <= 0.7, "{hard:?}");
    // A GUI's limit in whole seconds keeps a GUI's delay: Quarry charged 20 to 150 ms.
    let (_, hard) = move_time(30, per_move(1.0, true, None, 0.0));
    assert!(hard + GUI_DELAY <= Duration::from_secs(1), "{hard:?}");
    assert!(hard.as_secs_f64() >= 0.75, "{hard:?}");
    // A delay beyond the whole move leaves nothing, not a negative time.
    let (soft, hard) = move_time(30, per_move(0.1, false, Some(5.0), 0.0));
    assert_eq!((soft, hard), (Duration::ZERO, Duration::ZERO));
}

#[test]
fn a_told_overhead_is_charged_on_game_clocks_too() {
    let budget = |overhead: Option<f64>| TimeBudget {
        remaining: Duration::from_secs(10),
        increment: Duration::ZERO,
        main: Duration::from_secs(10),
        overhead: overhead.map(Duration::from_secs_f64),
        ..TimeBudget::default()
    };
    // Every move left keeps the told delay: 30 moves of 0.2 s are 6 of the 10 seconds.
    let (_, untold) = move_time(60, budget(None));
    let (_, told) = move_time(60, budget(Some(0.2)));
    assert!(told < untold.mul_f64(0.6), "{told:?} against {untold:?}");
}

#[test]
fn move_overheads_are_read_in_seconds_within_bounds() {
    assert_eq!(parse_move_overhead("0.15"), Ok(Duration::from_millis(150)));
    assert_eq!(parse_move_overhead(" 0 "), Ok(Duration::ZERO));
    for bad in ["-0.1", "11", "NaN", "inf", "", "0.1s", "1e400"] {
        assert!(parse_move_overhead(bad).is_err(), "{bad}");
    }
}
