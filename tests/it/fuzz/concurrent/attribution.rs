//! Which NBoard request printed a line, when several may be running or queued.
//!
//! NBoard's replies are not one per line: `go`, `hint`, `analyze` and `learn` print while the
//! session reads on. A batch is kept as a list of entries (requests, pings, and the
//! `set myname` lines owed), and protocol.md fixes the order their output may take: a request
//! starts only when the one before it has finished or was cancelled, so once a request has
//! printed, every earlier one is silent for good; a `pong n` comes after everything the
//! requests before `ping n` print. Which request printed a line is not always decidable (two
//! `analyze` of one game print the same lines, and the first may have been cancelled before
//! it printed anything, or not), so the checker keeps every attribution still consistent with
//! the lines so far: the request printing now and how far it got. A line no hypothesis can
//! place fails: a move illegal in the position of every request that could be printing, a
//! stale `===` after its `pong`, anything from a ponder (which prints nothing). So does a
//! `pong` before the end a request owed (the `===` of a `go` a later request waited for, a
//! pass answered at once), a `pong` later than [`PROMPT`] and a timed `===` later than its
//! clock plus [`CLOCK_MARGIN`].

use super::{CLOCK_MARGIN, PROMPT, Tally, shown};
use othello_engine::board::{Move, Position};
use std::time::{Duration, Instant};

/// What a request may still print.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `search`/`nodestats` lines, then one `===`; `bound` when its clock is tiny.
    Go {
        position: Position,
        bound: Option<f64>,
    },
    /// `search`/`book` lines, then `nodestats` (`search PA 0.00 0 0` alone for a pass).
    Hint { position: Position },
    /// `analysis k` for k from the game's moves down to 0, then `nodestats`.
    Analyze { next: i64 },
    /// `learned`.
    Learn,
    /// Prints nothing, but waits for a running `go` as a request does (`clear`, a `hint` in
    /// a finished game).
    Quiet,
}

pub struct Request {
    kind: Kind,
    text: String,
    sent: Instant,
    /// It must finish (a `go` that a later request waits for, a pass answered at once).
    pub owes: bool,
}

enum Entry {
    Request(Request),
    Ping { n: i64, sent: Instant },
    Name { text: String, seen: bool },
}

/// The request printing now in one hypothesis, and how far it got.
#[derive(Clone)]
struct Active {
    index: usize,
    kind: Kind,
    done: bool,
    began: Instant,
}

pub struct Batch {
    entries: Vec<Entry>,
    /// Entries before this one are closed by a `pong`.
    cursor: usize,
    /// Every attribution still possible: the request printing now, none since the cursor.
    hypotheses: Vec<Option<Active>>,
    /// When the last line a request printed arrived.
    last_output: Option<Instant>,
    /// The most recent `go` with no request or `ping` after it yet.
    open_go: Option<usize>,
    /// A `go` that only a `ping` may follow (it would think for minutes).
    pub must_ping: bool,
    pub log: Vec<String>,
}

impl Batch {
    /// A batch whose failure messages show `history`, the lines of the batches before it.
    pub fn new(mut history: Vec<String>) -> Batch {
        let keep = history.len().saturating_sub(80);
        history.drain(..keep);
        Batch {
            entries: Vec::new(),
            cursor: 0,
            hypotheses: vec![None],
            last_output: None,
            open_go: None,
            must_ping: false,
            log: history,
        }
    }

    /// A request sent now.
    pub fn push_request(&mut self, kind: Kind, text: &str) -> &mut Request {
        // A request makes a running `go` finish first: that `go` owes its `===`.
        if let Some(go) = self.open_go.take()
            && let Entry::Request(r) = &mut self.entries[go]
        {
            r.owes = true;
        }
        if matches!(kind, Kind::Go { .. }) {
            self.open_go = Some(self.entries.len());
        }
        self.entries.push(Entry::Request(Request {
            kind,
            text: text.to_string(),
            sent: Instant::now(),
            owes: false,
        }));
        match self.entries.last_mut() {
            Some(Entry::Request(r)) => r,
            _ => unreachable!("just pushed"),
        }
    }

    /// A `ping n` sent now.
    pub fn push_ping(&mut self, n: i64) {
        self.open_go = None;
        self.must_ping = false;
        self.entries.push(Entry::Ping {
            n,
            sent: Instant::now(),
        });
    }

    /// A `set myname` line the last line sent must bring.
    pub fn push_name(&mut self, text: String) {
        self.entries.push(Entry::Name { text, seen: false });
    }

    /// Whether some attribution has the last entry, a request, finished.
    pub fn last_request_done(&self) -> bool {
        let last = self.entries.len() - 1;
        self.hypotheses
            .iter()
            .flatten()
            .any(|a| a.index == last && a.done)
    }

    /// The last entry is a request that may still print.
    pub fn last_request(&self) -> Option<&Kind> {
        match self.entries.last() {
            Some(Entry::Request(r)) if r.kind != Kind::Quiet => Some(&r.kind),
            _ => None,
        }
    }

    /// The end of the open range: the first ping not yet answered.
    fn range_end(&self) -> usize {
        (self.cursor..self.entries.len())
            .find(|&i| matches!(self.entries[i], Entry::Ping { .. }))
            .unwrap_or(self.entries.len())
    }

    /// Whether requests `from..to` may all have printed nothing at all.
    fn may_skip(&self, from: usize, to: usize) -> bool {
        self.entries[from..to]
            .iter()
            .all(|e| !matches!(e, Entry::Request(r) if r.owes))
    }

    /// Whether `active` may print nothing more.
    fn may_stop(&self, active: &Active) -> bool {
        active.done || !matches!(&self.entries[active.index], Entry::Request(r) if r.owes)
    }

    /// Gives one output line its place, or says why it has none.
    pub fn attribute(&mut self, line: &str, at: Instant, tally: &mut Tally) -> Result<(), String> {
        tally.replies += 1;
        self.log.push(format!("< {line}"));
        let end = self.range_end();
        if let Some(n) = line.strip_prefix("pong ") {
            return self.pong(n, end, at, tally);
        }
        if line.starts_with("set myname") {
            let owed = self.entries[self.cursor..end]
                .iter_mut()
                .find_map(|e| match e {
                    Entry::Name { text, seen } if !*seen => Some((text, seen)),
                    _ => None,
                });
            return match owed {
                Some((text, seen)) if text == line => {
                    *seen = true;
                    Ok(())
                }
                _ => Err("an unexpected set myname".into()),
            };
        }
        let mut next: Vec<Option<Active>> = Vec::new();
        let mut errors = Vec::new();
        for hypothesis in &self.hypotheses {
            let mut from = self.cursor;
            if let Some(active) = hypothesis {
                // The request printing goes on…
                let mut going_on = active.clone();
                if !active.done {
                    match take(&mut going_on, line, at) {
                        Ok(true) => next.push(Some(going_on)),
                        Ok(false) => {}
                        Err(e) => errors.push(e),
                    }
                }
                if !self.may_stop(active) {
                    continue;
                }
                from = active.index + 1;
            }
            // …or a later one begins, all between printing nothing.
            for j in from..end {
                let Entry::Request(r) = &self.entries[j] else {
                    continue;
                };
                if !self.may_skip(from, j) {
                    break;
                }
                let began = self.last_output.map_or(r.sent, |t| t.max(r.sent));
                let mut fresh = Active {
                    index: j,
                    kind: r.kind.clone(),
                    done: false,
                    began,
                };
                match take(&mut fresh, line, at) {
                    Ok(true) => next.push(Some(fresh)),
                    Ok(false) => {}
                    Err(e) => errors.push(e),
                }
            }
        }
        // Hypotheses that agree on where the printing request stands are one.
        let mut unique: Vec<Option<Active>> = Vec::new();
        for h in next {
            let same = |u: &Option<Active>| match (u, &h) {
                (Some(u), Some(h)) => u.index == h.index && u.kind == h.kind && u.done == h.done,
                _ => false,
            };
            if !unique.iter().any(same) {
                unique.push(h);
            }
        }
        let next = unique;
        if next.is_empty() {
            if !errors.is_empty() {
                return Err(errors.join("; "));
            }
            let open: Vec<&str> = self.entries[self.cursor..end]
                .iter()
                .filter_map(|e| match e {
                    Entry::Request(r) => Some(r.text.as_str()),
                    _ => None,
                })
                .collect();
            return Err(format!(
                "no request sent since the last pong could have printed {line:?} (requests: {open:?})"
            ));
        }
        if next
            .iter()
            .flatten()
            .any(|a| a.done && is_timed_end(line, a))
        {
            tally.timed_moves += 1;
        }
        self.hypotheses = next;
        self.last_output = Some(at);
        Ok(())
    }

    /// `pong n`: due now, every owed line before it printed, in time.
    fn pong(&mut self, n: &str, end: usize, at: Instant, tally: &mut Tally) -> Result<(), String> {
        let Some(Entry::Ping { n: expected, sent }) = self.entries.get(end) else {
            return Err("a pong for no ping".into());
        };
        if n != expected.to_string() {
            return Err(format!("pong {n} where pong {expected} was due"));
        }
        let began = self.last_output.map_or(*sent, |t| t.max(*sent));
        let took = at.saturating_duration_since(began);
        if took > PROMPT {
            return Err(format!("pong took {took:?}"));
        }
        tally.prompt_checks += 1;
        let complete = self.hypotheses.iter().any(|h| match h {
            None => self.may_skip(self.cursor, end),
            Some(a) => self.may_stop(a) && self.may_skip(a.index + 1, end),
        });
        if !complete {
            return Err("a request owed its end (=== or a pass) before this pong".into());
        }
        for entry in &self.entries[self.cursor..end] {
            if let Entry::Name { text, seen: false } = entry {
                return Err(format!("{text:?} missing before the pong"));
            }
        }
        self.cursor = end + 1;
        self.hypotheses = vec![None];
        Ok(())
    }

    pub fn failure(&self, why: &str, context: &str) -> ! {
        // Runs of lines of one kind (`analysis`, `search`) shown as their first and a count.
        let kind = |l: &str| l.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let mut lines: Vec<String> = Vec::new();
        let mut run = 0;
        for line in &self.log {
            let repeats =
                line.starts_with("< ") && lines.last().is_some_and(|last| kind(last) == kind(line));
            if repeats {
                run += 1;
                continue;
            }
            if run > 0 {
                lines.push(format!("  ... {run} more"));
                run = 0;
            }
            lines.push(shown(line));
        }
        if run > 0 {
            lines.push(format!("  ... {run} more"));
        }
        let keep = lines.len().saturating_sub(60);
        panic!(
            "{why}\nlast lines (> sent, < read):\n{}\n{context}",
            lines[keep..].join("\n")
        )
    }
}

/// Whether `line` was the `===` of a `go` under a tiny clock (counted once checked).
fn is_timed_end(line: &str, active: &Active) -> bool {
    line.starts_with("===") && matches!(active.kind, Kind::Go { bound: Some(_), .. })
}

/// Takes `line` if `active` may print it next, updating what it may print after; an error for
/// an end that came too late.
fn take(active: &mut Active, line: &str, at: Instant) -> Result<bool, String> {
    let fields: Vec<&str> = line.split(' ').collect();
    let taken = match (&mut active.kind, fields[0]) {
        (Kind::Go { position, .. }, "search") => search_line(&fields, position),
        (Kind::Go { .. }, "nodestats") => nodestats_line(&fields),
        (Kind::Go { position, bound }, "===") => {
            if !move_line(line, position) {
                return Ok(false);
            }
            if let Some(bound) = bound {
                let took = at.saturating_duration_since(active.began);
                if took > Duration::from_secs_f64(*bound) + CLOCK_MARGIN {
                    return Err(format!("go under a {bound} s clock took {took:?}"));
                }
            }
            active.done = true;
            true
        }
        (Kind::Hint { position }, _) if position.must_pass() => {
            active.done = line == "search PA 0.00 0 0";
            active.done
        }
        (Kind::Hint { position }, "search" | "book") => search_line(&fields, position),
        (Kind::Hint { .. }, "nodestats") => {
            active.done = nodestats_line(&fields);
            active.done
        }
        (Kind::Analyze { next }, "analysis") => {
            let ok = *next >= 0
                && fields.len() == 3
                && fields[1] == next.to_string()
                && number(fields[2]);
            if ok {
                *next -= 1;
            }
            ok
        }
        (Kind::Analyze { next }, "nodestats") => {
            active.done = *next < 0 && nodestats_line(&fields);
            active.done
        }
        (Kind::Learn, "learned") => {
            active.done = fields.len() == 1;
            active.done
        }
        _ => false,
    };
    Ok(taken)
}

/// A plain decimal (protocol.md: never an exponent).
fn number(text: &str) -> bool {
    !text.contains(['e', 'E', 'i', 'n', 'N']) && text.parse::<f64>().is_ok()
}

/// `search|book <pv> <eval> <count> <depth>` with a first move legal in `position`.
fn search_line(fields: &[&str], position: &Position) -> bool {
    fields.len() == 5
        && fields[1]
            .get(..2)
            .and_then(|m| m.parse::<Move>().ok())
            .is_some_and(|mv| position.is_legal(mv))
        && number(fields[2])
        && fields[3].parse::<u64>().is_ok()
}

/// `nodestats <nodes> <seconds>`, seconds never 0.
fn nodestats_line(fields: &[&str]) -> bool {
    fields.len() == 3
        && fields[1].parse::<u64>().is_ok()
        && number(fields[2])
        && fields[2].parse::<f64>().is_ok_and(|s| s > 0.0)
}

/// `=== MOVE/eval/seconds` with a legal move, or `=== PA` where there is none.
fn move_line(line: &str, position: &Position) -> bool {
    let Some(rest) = line.strip_prefix("=== ") else {
        return false;
    };
    if position.legal_moves() == 0 {
        return rest == "PA";
    }
    let parts: Vec<&str> = rest.split('/').collect();
    parts.len() == 3
        && parts[0]
            .parse::<Move>()
            .is_ok_and(|mv| position.is_legal(mv))
        && number(parts[1])
        && number(parts[2])
}
