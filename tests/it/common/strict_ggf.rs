//! GGF as NBoard 2.0 reads it (its shared library's `COsGame`, `OsClock`, `OsResult` and
//! `OsMoveListItem`, as `../shared/research/protocols.md` describes them), stricter than our
//! own reader: a property it does not know is an error ("Unknown token"), a clock field is
//! whole numbers joined by `:` (a `.` is a days separator, allowed only first: `0:10.000`
//! throws in `OsClock.ReadTime`), and a game without `TY` is refused. Every GGF we write must
//! pass it, so that NBoard opens our records.

/// The properties NBoard's reader knows.
const KNOWN: [&str; 19] = [
    "GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW", "TY", "BO", "B", "W", "RE", "CO",
    "KB", "KW", "KM",
];

/// Reads one game line as NBoard would; the error says what it would throw at.
pub fn nboard_reads(line: &str) -> Result<(), String> {
    let mut rest = line.trim();
    if let Some(r) = rest.strip_prefix('1').or_else(|| rest.strip_prefix('2')) {
        rest = r.trim_start();
    }
    rest = rest.strip_prefix("(;").ok_or("no '(;' at the start")?;
    let mut has_type = false;
    while !rest.starts_with(';') {
        let open = rest.find('[').ok_or(format!("no '[' in '{rest}'"))?;
        let name = &rest[..open];
        let close = rest[open..]
            .find(']')
            .ok_or(format!("no ']' after {name}"))?
            + open;
        let data = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if !KNOWN.contains(&name) {
            return Err(format!("Unknown token: {name}"));
        }
        match name {
            "GM" if data != "Othello" => return Err(format!("GM[{data}]")),
            "TI" | "TB" | "TW" => clock(data).map_err(|e| format!("{name}[{data}]: {e}"))?,
            "RE" => result(data).map_err(|e| format!("RE[{data}]: {e}"))?,
            "B" | "W" => move_item(data).map_err(|e| format!("{name}[{data}]: {e}"))?,
            "TY" => has_type = true,
            _ => {}
        }
    }
    if rest != ";)" {
        return Err(format!("'{rest}' after the last property"));
    }
    if !has_type {
        return Err("missing match type".into());
    }
    Ok(())
}

/// `MAIN[/INCREMENT[/GRACE]]`, each read by `OsClock.ReadTime`: up to four whole numbers
/// joined by `:`, a `.` only after the first (days); an empty increment is 0.
fn clock(text: &str) -> Result<(), String> {
    let fields: Vec<&str> = text.split('/').collect();
    if fields.len() > 3 {
        return Err("more than three fields".into());
    }
    for (i, field) in fields.iter().enumerate() {
        if field.is_empty() && i > 0 {
            continue;
        }
        let mut parts = 0;
        let mut rest = *field;
        loop {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            rest = &rest[digits..];
            match rest.chars().next() {
                Some('.') if parts == 0 => rest = &rest[1..],
                Some('.') => return Err(format!("'{field}': a '.' after the first number")),
                Some(':') => rest = &rest[1..],
                None => break,
                Some(c) => return Err(format!("'{field}': '{c}'")),
            }
            parts += 1;
            if parts >= 4 {
                return Err(format!("'{field}': more than four numbers"));
            }
        }
    }
    Ok(())
}

/// `?`, a word, or a number with `:r`, `:t` or `:l` after it.
fn result(text: &str) -> Result<(), String> {
    let text = text.trim_start();
    if text.starts_with('?') || text.starts_with(|c: char| c.is_alphabetic()) {
        return Ok(());
    }
    let (number, status) = text.split_once(':').unwrap_or((text, ""));
    plain_number(number)?;
    match status {
        "" | "r" | "t" | "l" => Ok(()),
        other => Err(format!("Unknown game status code : {other}")),
    }
}

/// A move (`F5`, `PA`), then an optional `/EVAL` (blank allowed) and `/TIME`.
fn move_item(text: &str) -> Result<(), String> {
    let mut fields = text.split('/');
    let mv = fields.next().unwrap_or("");
    let square = mv.len() == 2
        && mv.as_bytes()[0].to_ascii_uppercase().is_ascii_uppercase()
        && mv.as_bytes()[1].is_ascii_digit();
    if !square && !mv.eq_ignore_ascii_case("PA") && !mv.eq_ignore_ascii_case("pass") {
        return Err(format!("'{mv}' is no move"));
    }
    if let Some(eval) = fields.next().filter(|e| !e.is_empty()) {
        plain_number(eval)?;
    }
    if let Some(time) = fields.next() {
        plain_number(time)?;
    }
    Ok(())
}

/// A decimal number without an exponent (`readDoubleNoExponent`).
fn plain_number(text: &str) -> Result<(), String> {
    let ok = !text.is_empty()
        && !text.contains(['e', 'E'])
        && text.parse::<f64>().is_ok_and(f64::is_finite);
    if ok {
        Ok(())
    } else {
        Err(format!("'{text}' is no plain number"))
    }
}

#[test]
fn nboard_refuses_what_nboard_refuses() {
    let start = "BO[8 ---------------------------O*------*O--------------------------- *]";
    let good = format!(
        "(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[15:00]TY[8]{start}B[F5]W[F6//1.5]B[D3/2.00/0.5];)"
    );
    assert_eq!(nboard_reads(&good), Ok(()));
    let ggs = format!(
        "1 (;GM[Othello]PC[GGS/os]PB[x]PW[y]TI[05:00//02:00]TY[8]RE[+2.000:t]{start}B[d3//0.01];)"
    );
    assert_eq!(nboard_reads(&ggs), Ok(()));
    for bad in [
        good.replace("TI[15:00]", "TI[0:10.000/0:00.100]"),
        good.replace("PC[NBoard]", "PC[NBoard]GN[game 1]"),
        good.replace("TY[8]", ""),
        good.replace("RE[?]", "RE[+2:x]"),
        good.replace("B[D3/2.00/0.5]", "B[D3/2e1]"),
    ] {
        assert!(nboard_reads(&bad).is_err(), "{bad}");
    }
}
