//! The clocks' conversions: GGF and GTP clock text, budgets, charges.
use super::*;

#[test]
fn a_whole_second_clock_spans_that_second_and_a_fraction_is_exact() {
    let whole = GtpClock {
        seconds: 1.0,
        stones: 0,
    };
    assert_eq!(
        whole.bounds(),
        (Duration::from_millis(500), Duration::from_millis(1990))
    );
    let exact = GtpClock {
        seconds: 1.25,
        stones: 0,
    };
    assert_eq!(
        exact.bounds(),
        (Duration::from_millis(1250), Duration::from_millis(1250))
    );
}

#[test]
fn ggf_clocks_read_like_nboard() {
    let c = GgfClock::parse("15:00").unwrap_or(GgfClock {
        main: 0.0,
        increment: 0.0,
        grace: 0.0,
    });
    assert_eq!((c.main, c.increment, c.grace), (900.0, 0.0, 120.0));
    let c = GgfClock::parse("30:00/00:05/02:00");
    assert_eq!(
        c.map(|c| (c.main, c.increment, c.grace)),
        Some((1800.0, 5.0, 120.0))
    );
    assert_eq!(
        GgfClock::parse("05:00//02:00").map(|c| c.increment),
        Some(0.0)
    );
    assert_eq!(GgfClock::parse("15:0").map(|c| c.main), Some(900.0));
    assert_eq!(GgfClock::parse("1.00:00:10").map(|c| c.main), Some(86410.0));
    assert!(GgfClock::parse("abc").is_none());
    let c = GgfClock {
        main: 10.0,
        increment: 1.0,
        grace: 5.0,
    };
    assert_eq!(c.remaining_after([3.0]), 8.0);
    assert_eq!(c.remaining_after([12.0]), 4.0);
    assert_eq!(c.remaining_after([20.0]), 0.0);
}

#[test]
fn ggf_times_never_overstate() {
    assert_eq!(ggf_time(Duration::from_millis(61_999)), "1:01.999");
    assert_eq!(ggf_time(Duration::from_micros(100_900)), "0:00.100");
}

#[test]
fn record_clocks_are_whole_seconds_as_nboard_writes_them() {
    let clock = |tc: &str| TimeControl::parse_fischer(tc).map(|c| (c.ggf_clock(), c.exact_text()));
    assert_eq!(clock("900"), Ok((Some("15:00".into()), None)));
    assert_eq!(clock("1800+5"), Ok((Some("30:00/0:05".into()), None)));
    assert_eq!(clock("3600+0"), Ok((Some("1:00:00".into()), None)));
    // Not whole: the nearest second, and the exact figure said apart.
    assert_eq!(
        clock("10+0.1"),
        Ok((Some("0:10".into()), Some("10+0.1".into())))
    );
    assert_eq!(
        clock("90.6+0.5"),
        Ok((Some("1:31/0:01".into()), Some("90.6+0.5".into())))
    );
    let per_move = TimeControl::PerMove(Duration::from_millis(500));
    assert_eq!(per_move.ggf_clock(), None);
    assert_eq!(per_move.exact_text(), Some("per move 0.5".into()));
    assert_eq!(TimeControl::Untimed.ggf_clock(), None);
    // Our own reader reads them back.
    assert_eq!(
        GgfClock::parse("30:00/0:05").map(|c| (c.main, c.increment)),
        Some((1800.0, 5.0))
    );
    assert_eq!(GgfClock::parse("1:00:00").map(|c| c.main), Some(3600.0));
}
