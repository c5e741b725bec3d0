//! Results files (`--results`): the machine-readable summary of a match, in JSON (engines,
//! schedule, pairings with their statistics, games) or CSV (one row per game), and the reader
//! `match merge` uses. Every game is there with its place in the schedule, so the pairing
//! statistics, pentanomial counts included, can be worked out again from any set of files.

use super::stats::{EloEstimate, PairingScore, pairings, score_game};
use std::fmt::Write as _;

/// One game as a results file lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// 1-based game number in the schedule; games 2k + 1 and 2k + 2 are one opening with
    /// colours swapped.
    pub number: usize,
    /// The opening's moves (`f5d6c3`, or `start`).
    pub opening: String,
    /// Black's engine name.
    pub black: String,
    /// White's engine name.
    pub white: String,
    /// Black's margin in discs (a forfeit counts as 64-0).
    pub black_margin: i32,
    /// `black forfeits: reason` or `white forfeits: reason`, for a game lost by a fault.
    pub forfeit: Option<String>,
}

impl GameRow {
    /// The opening pair the game belongs to: (opening, pairing) in schedule order.
    pub fn pair(&self) -> usize {
        self.number.saturating_sub(1) / 2
    }
}

/// What a results file holds: the match's engines and schedule and its games.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Engine names in the order of the command line (pairings are in this order).
    pub engines: Vec<String>,
    /// True when the file lists the engines (JSON); false when they were gathered from its
    /// games (CSV), which may leave out engines that played no game in it.
    pub listed: bool,
    /// Games in the whole schedule, every shard together (JSON files only).
    pub scheduled: Option<usize>,
    /// `(i, n)` when the file is shard i of n.
    pub shard: Option<(usize, usize)>,
    /// The games played, by number.
    pub games: Vec<GameRow>,
}

impl Results {
    /// The score of every pairing, worked out from the games.
    pub fn scores(&self) -> Vec<PairingScore> {
        let mut scores = pairings(self.engines.len());
        let index = |name: &str| self.engines.iter().position(|e| e == name);
        for game in &self.games {
            if let (Some(black), Some(white)) = (index(&game.black), index(&game.white)) {
                score_game(&mut scores, black, white, game.black_margin, game.pair());
            }
        }
        scores
    }

    /// Games lost by a fault.
    pub fn forfeits(&self) -> usize {
        self.games.iter().filter(|g| g.forfeit.is_some()).count()
    }

    /// Refuses games no match writes, which the statistics would silently leave out or
    /// count wrongly: a number past the schedule (when the file gives its size), an engine
    /// playing itself, a game number listed twice.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for game in &self.games {
            if let Some(scheduled) = self.scheduled
                && game.number > scheduled
            {
                return Err(format!(
                    "game {} is numbered beyond the {scheduled} scheduled games",
                    game.number
                ));
            }
            if game.black == game.white {
                return Err(format!(
                    "game {} has engine '{}' playing itself",
                    game.number, game.black
                ));
            }
            if !seen.insert(game.number) {
                return Err(format!("game {} is listed twice", game.number));
            }
        }
        Ok(())
    }
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, or `null` for infinities (a 100% score has no finite Elo).
fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    }
}

/// A CSV field, quoted when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The fields of a game, in order: the CSV columns and the JSON members.
const CSV_COLUMNS: [&str; 6] = [
    "game",
    "opening",
    "black",
    "white",
    "black_margin",
    "forfeit",
];

/// A game's field as a results file writes it.
enum Cell<'a> {
    Number(i64),
    Text(&'a str),
    /// No value (the forfeit of a game played out): empty in CSV, `null` in JSON.
    Empty,
}

/// A game's fields in the order of [`CSV_COLUMNS`].
fn game_cells(g: &GameRow) -> [Cell<'_>; 6] {
    [
        Cell::Number(i64::try_from(g.number).unwrap_or(i64::MAX)),
        Cell::Text(&g.opening),
        Cell::Text(&g.black),
        Cell::Text(&g.white),
        Cell::Number(i64::from(g.black_margin)),
        g.forfeit.as_deref().map_or(Cell::Empty, Cell::Text),
    ]
}

/// The results as a file's text: JSON (engines, schedule, pairings with their statistics,
/// games) when `json`, otherwise CSV with one row per game.
pub fn results_text(results: &Results, json: bool) -> String {
    if !json {
        let mut text = CSV_COLUMNS.join(",") + "\n";
        for g in &results.games {
            let cells = game_cells(g).map(|cell| match cell {
                Cell::Number(n) => n.to_string(),
                Cell::Text(t) => csv_field(t),
                Cell::Empty => String::new(),
            });
            let _ = writeln!(text, "{}", cells.join(","));
        }
        return text;
    }
    let name = |i: usize| results.engines[i].as_str();
    let engines: Vec<String> = results.engines.iter().map(|e| json_string(e)).collect();
    let field = |e: Option<EloEstimate>, f: fn(&EloEstimate) -> f64| {
        e.as_ref().map_or("null".into(), |e| json_number(f(e)))
    };
    let pairings: Vec<String> = results
        .scores()
        .iter()
        .map(|s| {
            let (elo, penta_elo) = (s.wdl.elo(), s.penta.elo());
            format!(
                "{{\"first\": {}, \"second\": {}, \"wins\": {}, \"draws\": {}, \"losses\": {}, \"mean_disc_margin\": {}, \"elo\": {}, \"elo_low\": {}, \"elo_high\": {}, \"pentanomial\": [{}], \"penta_elo\": {}, \"los\": {}}}",
                json_string(name(s.engines.0)),
                json_string(name(s.engines.1)),
                s.wdl.wins,
                s.wdl.draws,
                s.wdl.losses,
                json_number(s.mean_discs()),
                field(elo, |e| e.elo),
                field(elo, |e| e.low),
                field(elo, |e| e.high),
                s.penta.0.map(|c| c.to_string()).join(", "),
                field(penta_elo, |e| e.elo),
                s.wdl.los().map_or("null".into(), json_number),
            )
        })
        .collect();
    let rows: Vec<String> = results
        .games
        .iter()
        .map(|g| {
            let members: Vec<String> = CSV_COLUMNS
                .iter()
                .zip(game_cells(g))
                .map(|(column, cell)| {
                    let value = match cell {
                        Cell::Number(n) => n.to_string(),
                        Cell::Text(t) => json_string(t),
                        Cell::Empty => "null".into(),
                    };
                    format!("\"{column}\": {value}")
                })
                .collect();
            format!("{{{}}}", members.join(", "))
        })
        .collect();
    format!(
        "{{\n\"engines\": [{}],\n\"scheduled_games\": {},\n\"shard\": {},\n\"pairings\": [\n{}\n],\n\"games\": [\n{}\n]\n}}\n",
        engines.join(", "),
        results.scheduled.map_or("null".into(), |n| n.to_string()),
        results
            .shard
            .map_or("null".into(), |(i, n)| json_string(&format!("{i}/{n}"))),
        pairings.join(",\n"),
        rows.join(",\n")
    )
}

/// Writes the results to `path`, atomically (a reader or a crash never sees half a file):
/// JSON when it ends in `.json`, otherwise CSV.
pub fn write_results(path: &str, results: &Results) -> std::io::Result<()> {
    let text = results_text(results, path.ends_with(".json"));
    super::files::write_atomically(std::path::Path::new(path), text.as_bytes())
}

/// Reads a results file's text: JSON when it starts with `{`, otherwise CSV. A CSV file does
/// not list the engines; they are taken from its games, each pairing's first engine (black
/// in its odd-numbered games) before its second, in the order of the games. Games that no
/// match writes are refused (see [`Results::check`]).
pub fn read_results(text: &str) -> Result<Results, String> {
    let results = if text.trim_start().starts_with('{') {
        read_json_results(text)
    } else {
        read_csv_results(text)
    }?;
    results.check()?;
    Ok(results)
}

fn read_json_results(text: &str) -> Result<Results, String> {
    let root = parse_json(text)?;
    let strings = |key: &str| -> Result<Vec<String>, String> {
        let items = root
            .get(key)
            .and_then(Json::as_array)
            .ok_or_else(|| format!("no \"{key}\" list"))?;
        items
            .iter()
            .map(|e| {
                e.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("\"{key}\" holds a value that is not a string"))
            })
            .collect()
    };
    let engines = strings("engines")?;
    let scheduled = match root.get("scheduled_games") {
        None | Some(Json::Null) => None,
        Some(v) => Some(whole_number(v, "scheduled_games")?),
    };
    let shard = match root.get("shard") {
        None | Some(Json::Null) => None,
        Some(v) => Some(
            v.as_str()
                .and_then(|s| {
                    let (i, n) = s.split_once('/')?;
                    Some((i.trim().parse().ok()?, n.trim().parse().ok()?))
                })
                .ok_or("\"shard\" is not \"i/n\"")?,
        ),
    };
    let games = root
        .get("games")
        .and_then(Json::as_array)
        .ok_or("no \"games\" list")?;
    let games = games
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let at = |e: String| format!("game {} of the list: {e}", k + 1);
            let text = |key: &str| {
                g.get(key)
                    .and_then(Json::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| at(format!("no \"{key}\" string")))
            };
            let number = |key: &str| {
                g.get(key)
                    .ok_or_else(|| at(format!("no \"{key}\"")))
                    .and_then(|v| whole_number(v, key).map_err(at))
            };
            let forfeit = match g.get("forfeit") {
                None | Some(Json::Null) => None,
                Some(Json::Str(s)) => Some(s.clone()),
                Some(_) => return Err(at("\"forfeit\" is neither a string nor null".into())),
            };
            game_row(
                number("game")?,
                text("opening")?,
                text("black")?,
                text("white")?,
                g.get("black_margin")
                    .and_then(Json::as_f64)
                    .ok_or_else(|| at("no \"black_margin\" number".into()))?,
                forfeit,
            )
            .map_err(at)
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

/// A whole number >= 0 from a JSON value.
fn whole_number(value: &Json, key: &str) -> Result<usize, String> {
    value
        .as_f64()
        .filter(|x| x.fract() == 0.0 && (0.0..=1e15).contains(x))
        .map(|x| x as usize)
        .ok_or_else(|| format!("\"{key}\" is not a whole number"))
}

/// A checked game row: a game number from 1 and a margin from -64 to 64.
fn game_row(
    number: usize,
    opening: String,
    black: String,
    white: String,
    black_margin: f64,
    forfeit: Option<String>,
) -> Result<GameRow, String> {
    if number == 0 {
        return Err("game numbers start at 1".into());
    }
    if black_margin.fract() != 0.0 || !(-64.0..=64.0).contains(&black_margin) {
        return Err(format!(
            "black_margin {black_margin} is not -64 to 64 discs"
        ));
    }
    Ok(GameRow {
        number,
        opening,
        black,
        white,
        black_margin: black_margin as i32,
        forfeit: forfeit.filter(|f| !f.is_empty()),
    })
}

fn read_csv_results(text: &str) -> Result<Results, String> {
    let mut records = parse_csv(text)?.into_iter();
    let (_, header) = records.next().ok_or("empty file")?;
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| format!("line 1: no '{name}' column"))
    };
    let columns = CSV_COLUMNS
        .iter()
        .map(|c| column(c))
        .collect::<Result<Vec<_>, _>>()?;
    let mut games = Vec::new();
    for (line, record) in records {
        let at = |e: String| format!("line {line}: {e}");
        let field = |k: usize| {
            record
                .get(columns[k])
                .cloned()
                .ok_or_else(|| at(format!("no '{}' field", CSV_COLUMNS[k])))
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
        games.push(game_row(number, field(1)?, field(2)?, field(3)?, margin, forfeit).map_err(at)?);
    }
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
    Ok(Results {
        engines,
        listed: false,
        scheduled: None,
        shard: None,
        games,
    })
}

/// Splits CSV text into records (with the line each starts on): fields separated by commas,
/// double-quoted fields may hold commas, line breaks and doubled quotes; `\r\n` line ends are
/// read as `\n`; blank lines are skipped.
fn parse_csv(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
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

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its members in order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The member `key` of an object (the last one if repeated).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The items of an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(x) => Some(*x),
            _ => None,
        }
    }
}

/// How deeply arrays and objects may nest (results files need 3 levels).
const JSON_MAX_DEPTH: usize = 64;

/// Reads one JSON value (RFC 8259) filling the whole text but for white space; the error
/// says what is wrong and at which line.
pub fn parse_json(text: &str) -> Result<Json, String> {
    let mut reader = JsonReader { text, at: 0 };
    let value = reader.value(0)?;
    reader.blank();
    if reader.at < text.len() {
        return Err(reader.error("text after the JSON value"));
    }
    Ok(value)
}

struct JsonReader<'a> {
    text: &'a str,
    at: usize,
}

impl JsonReader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn error(&self, what: &str) -> String {
        let line = self.text[..self.at.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        format!("line {line}: {what}")
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.blank();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", byte as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > JSON_MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.blank();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => {
                for (word, value) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.text[self.at..].starts_with(word) {
                        self.at += word.len();
                        return Ok(value);
                    }
                }
                Err(self.error("expected a JSON value"))
            }
            None => Err(self.error("the text ends where a value should be")),
        }
    }

    /// Reads `open item, item, ... close` (possibly empty), each item by `item`.
    fn sequence(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        self.expect(open)?;
        self.blank();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.blank();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b) if b == close => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error(&format!("expected ',' or '{}'", close as char))),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        let mut members = Vec::new();
        self.sequence(b'{', b'}', |reader| {
            reader.blank();
            if reader.peek() != Some(b'"') {
                return Err(reader.error("expected a member name in quotes"));
            }
            let key = reader.string()?;
            reader.expect(b':')?;
            members.push((key, reader.value(depth + 1)?));
            Ok(())
        })?;
        Ok(Json::Object(members))
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        let mut items = Vec::new();
        self.sequence(b'[', b']', |reader| {
            items.push(reader.value(depth + 1)?);
            Ok(())
        })?;
        Ok(Json::Array(items))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
        self.at += 4;
        u32::from_str_radix(digits, 16).map_err(|_| self.error("bad \\u escape"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.at;
            // Stops only at ASCII bytes, which are always character boundaries.
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.at += 1;
            }
            out.push_str(&self.text[start..self.at]);
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self.peek().ok_or_else(|| self.error("unfinished escape"))?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code)
                                && self.text[self.at..].starts_with("\\u")
                            {
                                self.at += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                }
                            }
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.error("unknown escape in a string")),
                    }
                }
                Some(_) => return Err(self.error("a control character in a string")),
                None => return Err(self.error("a string is not closed")),
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.at += 1;
        }
        self.text[start..self.at]
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Json::Number)
            .ok_or_else(|| self.error("a bad number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        let row = |number, black: &str, white: &str, black_margin, forfeit: Option<&str>| GameRow {
            number,
            opening: "f5d6c3".into(),
            black: black.into(),
            white: white.into(),
            black_margin,
            forfeit: forfeit.map(str::to_string),
        };
        Results {
            engines: vec!["one".into(), "two, \"quoted\"".into()],
            listed: true,
            scheduled: Some(8),
            shard: Some((2, 3)),
            games: vec![
                row(3, "one", "two, \"quoted\"", 10, None),
                row(
                    4,
                    "two, \"quoted\"",
                    "one",
                    64,
                    Some("white forfeits: unparsable reply 'a\tb'"),
                ),
            ],
        }
    }

    #[test]
    fn results_files_read_back_as_written() {
        let results = sample();
        let json = results_text(&results, true);
        assert_eq!(read_results(&json), Ok(results.clone()));
        let csv = results_text(&results, false);
        // CSV keeps the games; the engines come back from them, the schedule does not.
        let back = read_results(&csv);
        assert_eq!(back.as_ref().map(|r| &r.games), Ok(&results.games));
        assert_eq!(back.map(|r| r.engines), Ok(results.engines.clone()));
        // The statistics: engine one won its black game by 10 and lost the other by forfeit.
        let s = &results.scores()[0];
        assert_eq!(
            (s.wdl.wins, s.wdl.losses, s.penta.0),
            (1, 1, [0, 0, 1, 0, 0])
        );
        assert!(json.contains("\"pentanomial\": [0, 0, 1, 0, 0]"), "{json}");
    }

    /// Files written before the JSON moved to serde (tests/fixtures/results/README.md).
    const EARLIER_FILES: [(&str, &str); 5] = [
        (
            "match.json",
            include_str!("../../tests/fixtures/results/match.json"),
        ),
        (
            "match.csv",
            include_str!("../../tests/fixtures/results/match.csv"),
        ),
        (
            "escapes.json",
            include_str!("../../tests/fixtures/results/escapes.json"),
        ),
        (
            "escapes.csv",
            include_str!("../../tests/fixtures/results/escapes.csv"),
        ),
        (
            "empty.json",
            include_str!("../../tests/fixtures/results/empty.json"),
        ),
    ];

    #[test]
    fn files_of_earlier_versions_read_and_write_back_byte_for_byte() {
        for (name, text) in EARLIER_FILES {
            let results = read_results(text);
            let results = results.as_ref().map_err(|e| format!("{name}: {e}"));
            let results = results.expect("an earlier file reads");
            assert_eq!(
                results_text(results, name.ends_with(".json")),
                text,
                "{name}"
            );
        }
        let results = read_results(EARLIER_FILES[0].1);
        let results = results.as_ref().expect("reads");
        assert_eq!((results.games.len(), results.forfeits()), (20, 18));
        assert_eq!((results.scheduled, results.shard), (Some(20), Some((1, 1))));
        assert_eq!(results.engines[1], "bad \"q\" \\ x");
        let escapes = read_results(EARLIER_FILES[2].1);
        let forfeit = escapes.as_ref().map(|r| r.games[1].forfeit.as_deref());
        assert_eq!(
            forfeit,
            Ok(Some("white forfeits: unparsable reply 'a\tb\\c\r\n'"))
        );
    }

    #[test]
    fn files_written_before_the_schedule_fields_still_read() {
        let old = "{\n\"engines\": [\"a\", \"b\"],\n\"pairings\": [],\n\"games\": [\n{\"game\": 1, \"opening\": \"start\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": -2, \"forfeit\": null}\n]\n}\n";
        let r = read_results(old);
        assert_eq!(r.as_ref().map(|r| (r.scheduled, r.shard)), Ok((None, None)));
        assert_eq!(r.map(|r| r.games[0].black_margin), Ok(-2));
        let old_csv = "game,opening,black,white,black_margin,forfeit\r\n2,start,b,a,0,\r\n";
        let r = read_results(old_csv);
        assert_eq!(
            r.map(|r| (r.engines, r.games[0].pair())),
            Ok((vec!["a".into(), "b".into()], 0))
        );
    }

    #[test]
    fn bad_files_are_refused_with_the_place() {
        for (text, expected) in [
            ("{\"engines\": [\"a\"], \"games\": [", "line 1"),
            ("{\"engines\": [\"a\"]}", "no \"games\""),
            ("{\"engines\": [1], \"games\": []}", "not a string"),
            (
                "{\"engines\": [], \"games\": [{\"game\": 0, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 0}]}",
                "start at 1",
            ),
            (
                "{\"engines\": [], \"games\": [{\"game\": 1, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 65}]}",
                "-64 to 64",
            ),
            ("{} x", "after the JSON"),
            ("game,opening\n1,x\n", "no 'black' column"),
            (
                "game,opening,black,white,black_margin,forfeit\n1,x,a,b,zero,\n",
                "line 2",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n1,\"x,a,b,0,\n",
                "not closed",
            ),
            ("", "empty file"),
            (
                "{\"engines\": [\"a\", \"b\"], \"scheduled_games\": 2, \"games\": [{\"game\": 3, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 0}]}",
                "game 3 is numbered beyond the 2 scheduled games",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n2,x,a,a,0,\n",
                "game 2 has engine 'a' playing itself",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n2,x,a,b,0,\n2,x,a,b,0,\n",
                "game 2 is listed twice",
            ),
            (
                &format!("{{\"engines\": {}", "[".repeat(100)),
                "nested too deeply",
            ),
        ] {
            let e = read_results(text).err().unwrap_or_default();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn json_values() {
        assert_eq!(
            parse_json(r#" {"a": [1, -2.5e1, true, null, "\u00e9\ud83d\ude00\n"]} "#),
            Ok(Json::Object(vec![(
                "a".into(),
                Json::Array(vec![
                    Json::Number(1.0),
                    Json::Number(-25.0),
                    Json::Bool(true),
                    Json::Null,
                    Json::Str("é😀\n".into())
                ])
            )]))
        );
        assert!(parse_json("\"a\u{1}\"").is_err());
        assert!(parse_json("[1,]").is_err());
        assert!(parse_json("nul").is_err());
        assert_eq!(parse_json("\"ünï\""), Ok(Json::Str("ünï".into())));
    }
}
