//! The worker's engine: a [`Searcher`] with its table and the built-in book, asked for a move,
//! for the value of every move (hints), for the benchmark, or for an exact solve. Each call
//! takes the position as OBF, so that the engine keeps no game of its own to drift from the
//! page's; it reports every finished depth through a JavaScript callback while it thinks, and
//! returns its answer as JSON.

use crate::board::{Move, Position, parse_obf_line};
use crate::eval::EvaluatorKind;
use crate::search::{EndgameMode, Levels, Limits, PhaseLevel, SearchReport, Searcher, Value};
use js_sys::Function;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;
use wasm_bindgen::prelude::*;

/// The positions of `othello-engine bench` (`src/cli/bench.rs` reads the same file), so that
/// the page's speed and node counts compare with the native binary's.
const BENCH_POSITIONS: &str = include_str!("../../data/positions/midgame10.obf");
/// The table of the bench, as `othello-engine bench` has it: 16 MiB.
const BENCH_HASH_MIB: usize = 16;
/// How far the book may stray from its best line, in discs: the command line's default.
const BOOK_RANDOMNESS: i32 = 1;
/// The largest table the page may ask for: a browser tab's memory is not the machine's.
const MAX_HASH_MIB: u32 = 1024;

/// One report as the page reads it.
#[derive(Serialize)]
struct Report {
    /// The move (`PA` for a pass).
    #[serde(rename = "move")]
    best_move: String,
    /// The value in discs for the side to move (win/draw/loss: 1, 0, -1).
    value: f64,
    /// `estimate`, `exact`, `wld` or `book`.
    kind: &'static str,
    depth: u32,
    /// `100%` for a full-width search or a solve.
    selectivity: String,
    /// The principal variation, the move first.
    pv: Vec<String>,
    nodes: u64,
    ms: f64,
    /// False when the deadline cut the search short.
    complete: bool,
}

impl From<&SearchReport> for Report {
    fn from(r: &SearchReport) -> Report {
        let kind = match r.value {
            _ if r.book.is_some() => "book",
            Value::Estimate(_) => "estimate",
            Value::Exact(_) => "exact",
            Value::Wld(_) => "wld",
        };
        Report {
            best_move: r.best_move.to_string(),
            value: r.value.discs(),
            kind,
            depth: r.depth,
            selectivity: r.selectivity.to_string(),
            pv: r.pv.iter().map(Move::to_string).collect(),
            nodes: r.nodes,
            ms: r.elapsed.as_secs_f64() * 1000.0,
            complete: r.complete,
        }
    }
}

fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Hands `text` to the page's callback; a callback that throws is the page's problem, not a
/// reason to stop thinking.
fn tell(progress: &Function, text: &str) {
    let _ = progress.call1(&JsValue::NULL, &JsValue::from_str(text));
}

/// A position to think about: OBF, and a game not over.
fn position(obf: &str) -> Result<Position, JsError> {
    let position: Position = obf
        .trim()
        .parse()
        .map_err(|e| JsError::new(&format!("{e}")))?;
    if position.is_game_over() {
        return Err(JsError::new(
            "the game is over: there is no move to think about",
        ));
    }
    Ok(position)
}

/// The settings for `level` (0: the default, full strength, the time decides), capped at
/// `depth` plies when `depth` is above 0.
fn levels(level: u32, depth: u32) -> Result<Levels, JsError> {
    let base = match level {
        0 => Levels::default(),
        n => Levels::preset(n).ok_or_else(|| JsError::new(&format!("no level {n}: 1 to 20")))?,
    };
    match depth {
        0 => Ok(base),
        d => base
            .with_depth(d)
            .ok_or_else(|| JsError::new(&format!("depth {d} is too deep"))),
    }
}

/// A deadline `time_ms` milliseconds away, none for 0.
fn limits(time_ms: f64) -> Result<Limits, JsError> {
    if time_ms == 0.0 {
        return Ok(Limits::none());
    }
    if !(time_ms > 0.0 && time_ms.is_finite()) {
        return Err(JsError::new(&format!(
            "bad time {time_ms} ms: expected a number above 0"
        )));
    }
    Ok(Limits::time(
        Duration::try_from_secs_f64(time_ms / 1000.0).unwrap_or(Duration::MAX),
    ))
}

/// The engine of the worker.
#[wasm_bindgen]
pub struct Engine {
    searcher: Searcher,
}

#[wasm_bindgen]
impl Engine {
    /// An engine with a table of `hash_mib` MiB (1 to 1024), playing from the built-in book
    /// when `book` is true.
    #[wasm_bindgen(constructor)]
    pub fn new(hash_mib: u32, book: bool) -> Result<Engine, JsError> {
        if !(1..=MAX_HASH_MIB).contains(&hash_mib) {
            return Err(JsError::new(&format!(
                "bad table size {hash_mib} MiB: 1 to {MAX_HASH_MIB}"
            )));
        }
        let mut searcher = Searcher::new(hash_mib as usize, None);
        if book {
            searcher.set_book(Some(crate::search::book::built_in()), BOOK_RANDOMNESS);
        }
        Ok(Engine { searcher })
    }

    /// Loads the built-in weights and network now, so that the first search's time is spent
    /// searching.
    #[wasm_bindgen(js_name = warmUp)]
    pub fn warm_up(&self) {
        crate::search::warm_up();
    }

    /// Does what `request` (JSON) asks: `{"kind": "think" | "hints" | "solve", "obf": OBF,
    /// "level": N, "depth": D, "timeMs": T}`. `level` 0 (the default) plays at full strength,
    /// 1 to 20 are the presets; `depth` above 0 caps the depth; `timeMs` above 0 is a deadline.
    /// `progress` gets each finished depth's report, or the hints' list after each move
    /// searched (JSON); the result is the final report or list.
    pub fn run(&mut self, request: &str, progress: &Function) -> Result<String, JsError> {
        let request: Request = serde_json::from_str(request)
            .map_err(|e| JsError::new(&format!("bad request: {e}")))?;
        let position = position(&request.obf)?;
        let levels = levels(request.level, request.depth)?;
        let limits = limits(request.time_ms)?;
        match request.kind.as_str() {
            "think" => {
                let report = self.searcher.think(&position, &levels, &limits, &mut |r| {
                    tell(progress, &json(&Report::from(r)))
                });
                Ok(json(&Report::from(&report)))
            }
            "hints" => Ok(self.hints(&position, levels, &limits, progress)),
            "solve" => Ok(self.solve(&position)),
            other => Err(JsError::new(&format!("unknown request '{other}'"))),
        }
    }

    /// `othello-engine bench` in the page: the ten positions searched to `depth` (9 gives the
    /// README's signature with `weighted`) with evaluator `eval`, one thread, a 16 MiB table
    /// cleared before each; returns each position's nodes and milliseconds, and the totals.
    pub fn bench(depth: u32, eval: &str) -> Result<String, JsError> {
        let eval: EvaluatorKind = eval.parse().map_err(|e: String| JsError::new(&e))?;
        if eval == EvaluatorKind::Random || !(1..=30).contains(&depth) {
            return Err(JsError::new(
                "bench needs a searching evaluator and a depth of 1 to 30",
            ));
        }
        crate::search::warm_up();
        let mut searcher = Searcher::new(BENCH_HASH_MIB, Some(0));
        let level = PhaseLevel { depth, eval };
        let mut reports = Vec::new();
        for line in BENCH_POSITIONS.lines().filter(|l| !l.trim().is_empty()) {
            let position = parse_obf_line(line)
                .map_err(|e| JsError::new(&format!("bench position: {e}")))?
                .position;
            searcher.clear();
            let r = searcher.search(&position, level, &Limits::none(), &mut |_| {});
            reports.push(Report::from(&r));
        }
        Ok(json(&reports))
    }

    /// Makes the network of `bytes` (a file `train --model net` wrote) the one `neural`
    /// evaluates with in this worker, in place of the built-in one; returns its shape (JSON).
    /// Refused, with the built-in network kept, when the bytes are no network or when another
    /// was loaded before. What runs the page's WebAssembly copies of the network's sums on
    /// files the page does not embed (8-bit rows, say) in its tests.
    #[wasm_bindgen(js_name = useNetwork)]
    pub fn use_network(bytes: &[u8]) -> Result<String, JsError> {
        let network = crate::eval::network::Network::from_bytes(bytes)
            .map_err(|e| JsError::new(&format!("bad network: {e}")))?;
        let shape = network.shape();
        crate::eval::network::use_network(network).map_err(|e| JsError::new(&e))?;
        Ok(serde_json::json!({
            "width": shape.width,
            "hidden": shape.hidden,
            "buckets": shape.buckets,
            "rows": shape.rows.name(),
        })
        .to_string())
    }

    /// Panics on purpose, for the page's test that a panic in the worker is shown, not lost.
    #[wasm_bindgen(js_name = panicForTest)]
    pub fn panic_for_test() {
        panic!("a panic asked for by the page's test");
    }
}

/// What the page asks of the engine ([`Engine::run`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    kind: String,
    obf: String,
    #[serde(default)]
    level: u32,
    #[serde(default)]
    depth: u32,
    #[serde(default)]
    time_ms: f64,
}

impl Engine {
    /// The value of every legal move, as NBoard's hints: each move's position searched deeper
    /// each round up to the level's depth (an exact solve in the level's endgame), the book's
    /// moves first when the book knows the position; the last finished round's list, best
    /// first. A deadline cuts the rounds short; the unfinished round is dropped.
    fn hints(
        &mut self,
        position: &Position,
        mut levels: Levels,
        limits: &Limits,
        progress: &Function,
    ) -> String {
        // Depths bind: under a deadline the time manager would give the first move all of it.
        levels.time_decides = false;
        let legal = position.legal_squares().len().max(1);
        let mut latest: BTreeMap<String, SearchReport> = BTreeMap::new();
        let ranked = |latest: &BTreeMap<String, SearchReport>| {
            let mut list: Vec<Report> = latest.values().map(Report::from).collect();
            list.sort_by(|a, b| b.value.total_cmp(&a.value));
            json(&list)
        };
        self.searcher
            .top_moves(position, &levels, limits, legal, &mut |r| {
                latest.insert(r.best_move.to_string(), r.clone());
                tell(progress, &ranked(&latest));
            });
        ranked(&latest)
    }

    /// The exact solve `othello-engine solve` makes (one thread, no deadline): the best move
    /// and its exact score.
    fn solve(&mut self, position: &Position) -> String {
        self.searcher.clear();
        let fallback = Levels::default().midgame;
        let report = self.searcher.solve(
            position,
            EndgameMode::Exact,
            fallback,
            &Limits::none(),
            &mut |_| {},
        );
        json(&Report::from(&report))
    }
}
