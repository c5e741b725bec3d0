//! Results files in CSV: one row per game (`game,opening,black,white,black_margin,forfeit`,
//! then `black_seconds,white_seconds`, the sides' thinking times, which files from before
//! them lack), written and read back; the engines are gathered from the games.

use super::model::{GameRow, Results};
use std::fmt::Write as _;

/// The columns, in order (the members of a game in JSON too).
const COLUMNS: [&str; 6] = [
    "game",
    "opening",
    "black",
    "white",
    "black_margin",
    "forfeit",
];

/// The optional columns, after [`COLUMNS`]: each side's thinking time in seconds.
const TIME_COLUMNS: [&str; 2] = ["black_seconds", "white_seconds"];

/// A CSV field, quoted when needed.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The results as CSV text: the header, then one row per game (an empty forfeit for a game
/// played out).
pub fn write(results: &Results) -> String {
    // Files without times keep the columns they always had.
    let timed = results
        .games
        .iter()
        .any(|g| g.black_seconds.is_some() || g.white_seconds.is_some());
    let mut text = COLUMNS.join(",");
    if timed {
        text += &format!(",{}", TIME_COLUMNS.join(","));
    }
    text.push('\n');
    for g in &results.games {
        let cells = [
            g.number.to_string(),
            field(&g.opening),
            field(&g.black),
            field(&g.white),
            g.black_margin.to_string(),
            g.forfeit.as_deref().map_or(String::new(), field),
        ];
        let times = [g.black_seconds, g.white_seconds]
            .map(|t| t.map_or(String::new(), |s| format!(",{s:.3}")));
        let times = if timed { times.concat() } else { String::new() };
        let _ = writeln!(text, "{}{times}", cells.join(","));
    }
    text
}

/// Reads CSV results: the columns found by their header, in any order. The engines are taken
/// from the games, each pairing's first engine (black in its odd-numbered games) before its
/// second, in the order of the games.
pub fn read(text: &str) -> Result<Results, String> {
    let mut records = parse(text)?.into_iter();
    let (_, header) = records.next().ok_or("empty file")?;
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| format!("line 1: no '{name}' column"))
    };
    let columns = COLUMNS
        .iter()
        .map(|c| column(c))
        .collect::<Result<Vec<_>, _>>()?;
    let time_columns = TIME_COLUMNS.map(|c| header.iter().position(|h| h.trim() == c));
    let mut games = Vec::new();
    for (line, record) in records {
        let at = |e: String| format!("line {line}: {e}");
        let field = |k: usize| {
            record
                .get(columns[k])
                .cloned()
                .ok_or_else(|| at(format!("no '{}' field", COLUMNS[k])))
        };
        let number: usize = field(0)?
            .trim()
            .parse()
            .map_err(|_| at("the game number is not a whole number".into()))?;
        let margin: f64 = field(4)?
            .trim()
            .parse()
            .map_err(|_| at("black_margin is not a number".into()))?;
        let forfeit = Some(field(5)?);
        let mut seconds = [None; 2];
        for (slot, column) in seconds.iter_mut().zip(time_columns) {
            let text = column.and_then(|c| record.get(c)).map_or("", |t| t.trim());
            if !text.is_empty() {
                *slot = Some(
                    text.parse::<f64>()
                        .map_err(|_| at(format!("'{text}' is not a time in seconds")))?,
                );
            }
        }
        let row = GameRow::read(number, field(1)?, field(2)?, field(3)?, margin, forfeit)
            .and_then(|row| row.with_think_seconds(seconds[0], seconds[1]));
        games.push(row.map_err(at)?);
    }
    Ok(Results {
        engines: engines_of(&games),
        listed: false,
        scheduled: None,
        shard: None,
        games,
    })
}

/// The engines that play in `games`, in the order of the pairings: by game number, each
/// pairing's first engine (black in its odd-numbered game) before its second.
fn engines_of(games: &[GameRow]) -> Vec<String> {
    let mut ordered: Vec<&GameRow> = games.iter().collect();
    ordered.sort_by_key(|g| g.number);
    let mut engines: Vec<String> = Vec::new();
    for g in ordered {
        let (first, second) = if g.number % 2 == 1 {
            (&g.black, &g.white)
        } else {
            (&g.white, &g.black)
        };
        for name in [first, second] {
            if !engines.contains(name) {
                engines.push(name.clone());
            }
        }
    }
    engines
}

/// Splits CSV text into records (with the line each starts on): fields separated by commas,
/// double-quoted fields may hold commas, line breaks and doubled quotes; `\r\n` line ends are
/// read as `\n`; blank lines are skipped.
fn parse(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut line, mut start_line) = (1, 1);
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => {
                quoted = false;
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    return Err(format!("line {line}: text after a closing quote"));
                }
            }
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                if record.iter().any(|f| !f.is_empty()) {
                    records.push((start_line, std::mem::take(&mut record)));
                }
                record.clear();
                line += 1;
                start_line = line;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {start_line}: a quoted field is not closed"));
    }
    record.push(field);
    if record.iter().any(|f| !f.is_empty()) {
        records.push((start_line, record));
    }
    Ok(records)
}
