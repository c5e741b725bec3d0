//! Results files in JSON, with serde: the engines, the schedule (`scheduled_games`, `shard`),
//! each pairing's statistics and every game.
//!
//! The layout is the one these files have always had, byte for byte (see
//! `tests/fixtures/results/`): one top-level member per line, one pairing or game per line,
//! `, ` and `: ` between items, decimals to three places, `null` for a missing or infinite
//! value, and strings escaped only where JSON requires it, control characters as `\u00XX`.

use super::model::{GameRow, Results};
use crate::arena::stats::EloEstimate;
use serde::{Deserialize, Serialize};
use serde_json::ser::{CharEscape, Formatter, Serializer};
use std::io::{self, Write};

/// A pairing's statistics as the file lists them (worked out again from the games on reading,
/// so never read).
#[derive(Serialize)]
struct Pairing<'a> {
    first: &'a str,
    second: &'a str,
    wins: u64,
    draws: u64,
    losses: u64,
    mean_disc_margin: f64,
    elo: Option<f64>,
    elo_low: Option<f64>,
    elo_high: Option<f64>,
    pentanomial: [u64; 5],
    penta_elo: Option<f64>,
    los: Option<f64>,
}

/// The file as written.
#[derive(Serialize)]
struct FileOut<'a> {
    engines: &'a [String],
    scheduled_games: Option<usize>,
    shard: Option<String>,
    pairings: Vec<Pairing<'a>>,
    games: &'a [GameRow],
}

/// A game as read: numbers as JSON numbers (whole ones are checked for on reading).
#[derive(Deserialize)]
struct GameIn {
    game: f64,
    opening: String,
    black: String,
    white: String,
    black_margin: f64,
    forfeit: Option<String>,
    black_seconds: Option<f64>,
    white_seconds: Option<f64>,
    black_peak_kib: Option<f64>,
    white_peak_kib: Option<f64>,
}

/// The file as read: the pairings are left out; files written before the schedule fields
/// have no `scheduled_games` and `shard`.
#[derive(Deserialize)]
struct FileIn {
    engines: Option<Vec<String>>,
    scheduled_games: Option<f64>,
    shard: Option<String>,
    games: Option<Vec<GameIn>>,
}

/// The largest whole number read (beyond it a JSON number may not be exact).
const MAX_WHOLE: f64 = 1e15;

/// A whole number >= 0 from the JSON number of the member `key`.
fn whole_number(value: f64, key: &str) -> Result<usize, String> {
    Some(value)
        .filter(|x| x.fract() == 0.0 && (0.0..=MAX_WHOLE).contains(x))
        .map(|x| x as usize)
        .ok_or_else(|| format!("\"{key}\" is not a whole number"))
}

/// The top-level members whose lists hold one record per line.
const RECORD_LISTS: [&str; 2] = ["pairings", "games"];

/// A container open in [`Layout`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// The file's object: one member per line.
    File,
    /// A list of records: one per line.
    Records,
    /// Anything else, on one line.
    Inline,
}

/// The files' layout, as a serde_json formatter (see the module's documentation).
#[derive(Default)]
struct Layout {
    open: Vec<Open>,
    /// The name of the file's member being written, while its key is written.
    key: Option<String>,
    /// The name of the file's last member.
    member: String,
}

impl Formatter for Layout {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        write!(writer, "{value:.3}")
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            key.push_str(fragment);
        }
        writer.write_all(fragment.as_bytes())
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let control = match escape {
            CharEscape::Quote => return writer.write_all(b"\\\""),
            CharEscape::ReverseSolidus => return writer.write_all(b"\\\\"),
            CharEscape::Solidus => return writer.write_all(b"\\/"),
            CharEscape::Backspace => 0x08,
            CharEscape::Tab => 0x09,
            CharEscape::LineFeed => 0x0a,
            CharEscape::FormFeed => 0x0c,
            CharEscape::CarriageReturn => 0x0d,
            CharEscape::AsciiControl(byte) => byte,
        };
        write!(writer, "\\u{control:04x}")
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let records =
            self.open.last() == Some(&Open::File) && RECORD_LISTS.contains(&self.member.as_str());
        self.open
            .push(if records { Open::Records } else { Open::Inline });
        writer.write_all(if records { b"[\n" } else { b"[" })
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let records = self.open.pop() == Some(Open::Records);
        writer.write_all(if records { b"\n]" } else { b"]" })
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.separate(writer, first)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let file = self.open.is_empty();
        self.open.push(if file { Open::File } else { Open::Inline });
        writer.write_all(if file { b"{\n" } else { b"{" })
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        let file = self.open.pop() == Some(Open::File);
        writer.write_all(if file { b"\n}" } else { b"}" })
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if self.open.last() == Some(&Open::File) {
            self.key = Some(String::new());
        }
        self.separate(writer, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        if let Some(key) = self.key.take() {
            self.member = key;
        }
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

impl Layout {
    /// The separator before an item of the innermost container: a line break between the
    /// file's members and between records, `, ` elsewhere.
    fn separate<W: ?Sized + Write>(&self, writer: &mut W, first: bool) -> io::Result<()> {
        match (first, self.open.last()) {
            (true, _) => Ok(()),
            (false, Some(Open::File | Open::Records)) => writer.write_all(b",\n"),
            (false, _) => writer.write_all(b", "),
        }
    }
}

/// The results as the text of a JSON results file.
pub fn write(results: &Results) -> String {
    let name = |i: usize| results.engines[i].as_str();
    let field = |e: Option<EloEstimate>, f: fn(&EloEstimate) -> f64| e.as_ref().map(f);
    let pairings = results
        .scores()
        .iter()
        .map(|s| {
            let (elo, penta_elo) = (s.wdl.elo(), s.penta.elo());
            Pairing {
                first: name(s.engines.0),
                second: name(s.engines.1),
                wins: s.wdl.wins,
                draws: s.wdl.draws,
                losses: s.wdl.losses,
                mean_disc_margin: s.mean_discs(),
                elo: field(elo, |e| e.elo),
                elo_low: field(elo, |e| e.low),
                elo_high: field(elo, |e| e.high),
                pentanomial: s.penta.0,
                penta_elo: field(penta_elo, |e| e.elo),
                los: s.wdl.los(),
            }
        })
        .collect();
    let file = FileOut {
        engines: &results.engines,
        scheduled_games: results.scheduled,
        shard: results.shard.map(|(i, n)| format!("{i}/{n}")),
        pairings,
        games: &results.games,
    };
    let mut out = Vec::new();
    let written = file.serialize(&mut Serializer::with_formatter(&mut out, Layout::default()));
    if let Err(e) = written {
        // Writing to memory fails only on a bug in the layout above.
        log::error!("cannot write the results as JSON: {e}");
    }
    out.push(b'\n');
    String::from_utf8_lossy(&out).into_owned()
}

/// A serde_json error as `line N: what` (its position moved to the front, where the other
/// readers of results files put it).
fn error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let position = format!(" at line {} column {}", e.line(), e.column());
    format!(
        "line {}: {}",
        e.line(),
        text.strip_suffix(&position).unwrap_or(&text)
    )
}

/// Reads a JSON results file; the pairings are not read (they follow from the games).
pub fn read(text: &str) -> Result<Results, String> {
    let file: FileIn = serde_json::from_str(text).map_err(|e| error_text(&e))?;
    let engines = file.engines.ok_or("no \"engines\" list")?;
    let shard = match file.shard {
        None => None,
        Some(s) => Some(
            s.split_once('/')
                .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)))
                .ok_or("\"shard\" is not \"i/n\"")?,
        ),
    };
    let scheduled = file
        .scheduled_games
        .map(|n| whole_number(n, "scheduled_games"))
        .transpose()?;
    let games = file
        .games
        .ok_or("no \"games\" list")?
        .into_iter()
        .enumerate()
        .map(|(k, g)| {
            let number = whole_number(g.game, "game");
            number
                .and_then(|n| {
                    GameRow::read(n, g.opening, g.black, g.white, g.black_margin, g.forfeit)
                })
                .and_then(|row| row.with_think_seconds(g.black_seconds, g.white_seconds))
                .and_then(|row| {
                    let kib = |value: Option<f64>, key| {
                        value
                            .map(|v| whole_number(v, key).map(|k| k as u64))
                            .transpose()
                    };
                    Ok(GameRow {
                        black_peak_kib: kib(g.black_peak_kib, "black_peak_kib")?,
                        white_peak_kib: kib(g.white_peak_kib, "white_peak_kib")?,
                        ..row
                    })
                })
                .map_err(|e| format!("game {} of the list: {e}", k + 1))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Results {
        engines,
        listed: true,
        scheduled,
        shard,
        games,
    })
}
