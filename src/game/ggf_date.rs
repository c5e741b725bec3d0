//! GGF dates (`DT`). GGF leaves the form open; GGS writes `2003.12.15_12:33:18.MST` (local
//! time and its zone) and, in older files, Unix seconds (`947375357`); NBoard writes
//! `2014-02-21 20:52:27 GMT` and shows whatever it finds in its game list as text, so a
//! record written as Unix seconds showed there as a bare number. We write GGS's form in UTC
//! and read all three; a date in another form, or in a zone whose offset we do not know, is
//! left out and said so by the reader ([`super::ggf::GgfGame::skipped`]).

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};

/// `unix_seconds` as GGS writes a date: `2026.12.06_04:09:18.UTC`.
pub fn ggf_date(unix_seconds: i64) -> String {
    let time = Timestamp::from_second(unix_seconds).unwrap_or(Timestamp::UNIX_EPOCH);
    time.strftime("%Y.%m.%d_%H:%M:%S.UTC").to_string()
}

/// The zones GGS and NBoard write, by name, with their offsets from UTC in hours (GGS ran in
/// North America and Europe; a name not here is not guessed).
const ZONES: [(&str, i8); 14] = [
    ("UTC", 0),
    ("GMT", 0),
    ("Z", 0),
    ("EST", -5),
    ("EDT", -4),
    ("CST", -6),
    ("CDT", -5),
    ("MST", -7),
    ("MDT", -6),
    ("PST", -8),
    ("PDT", -7),
    ("CET", 1),
    ("CEST", 2),
    ("JST", 9),
];

/// The Unix seconds of a GGF date in any of the forms above; `None` for any other text, an
/// impossible date, or an unknown zone.
pub fn parse_ggf_date(text: &str) -> Option<i64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse()
            .ok()
            .filter(|&s| Timestamp::from_second(s).is_ok());
    }
    // GGS: date and time joined by `_`, the zone after a dot; NBoard: spaces.
    let (civil, zone) = if let Some((civil, zone)) = text.rsplit_once('.')
        && civil.contains('_')
    {
        (DateTime::strptime("%Y.%m.%d_%H:%M:%S", civil).ok()?, zone)
    } else {
        let (civil, zone) = text.rsplit_once(' ')?;
        (
            DateTime::strptime("%Y-%m-%d %H:%M:%S", civil.trim()).ok()?,
            zone,
        )
    };
    let hours = ZONES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(zone.trim()))?
        .1;
    let zone = TimeZone::fixed(Offset::from_hours(hours).ok()?);
    Some(civil.to_zoned(zone).ok()?.timestamp().as_second())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_in_the_forms_ggs_and_nboard_write() {
        // 2026-12-06 04:09:18 UTC.
        let now = 1_796_530_158;
        assert_eq!(ggf_date(now), "2026.12.06_04:09:18.UTC");
        assert_eq!(parse_ggf_date(&ggf_date(now)), Some(now));
        // GGS's own example, in its local zone (MST = UTC-7): 19:33:18 UTC.
        assert_eq!(
            parse_ggf_date("2003.12.15_12:33:18.MST"),
            parse_ggf_date("2003.12.15_19:33:18.UTC")
        );
        assert_eq!(parse_ggf_date("947375357"), Some(947_375_357));
        assert_eq!(
            parse_ggf_date("2014-02-21 20:52:27 GMT"),
            parse_ggf_date("2014.02.21_20:52:27.UTC")
        );
        for broken in [
            "",
            "yesterday",
            "2003.13.15_12:33:18.UTC",
            "2003.12.15_12:33:18.XYZ",
            "2003.12.15 12:33:18",
            "99999999999999999999",
        ] {
            assert_eq!(parse_ggf_date(broken), None, "{broken}");
        }
    }
}
