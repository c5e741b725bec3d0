//! `othello-engine analyse`: searches one position as the engine would play it and prints every
//! finished depth.

use super::args::{LevelArgs, error, position};
use super::error::CliError;
use crate::board::{Move, Position};
use crate::search::{Limits, SearchReport, Value};
use clap::Args;
use std::time::Duration;

/// Arguments of `analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The position (OBF); the start when absent.
    #[arg(long, value_name = "OBF", value_parser = position, allow_hyphen_values = true)]
    position: Option<Position>,
    /// Stop after this many seconds (default: when the levels' depth is reached).
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    time: Option<String>,
    #[command(flatten)]
    levels: LevelArgs,
    /// Arguments are options only; a stray word is refused with a hint.
    #[arg(hide = true)]
    stray: Option<String>,
}

/// One line of search output: depth, value, nodes, time, speed and the principal variation.
fn report_line(r: &SearchReport) -> String {
    let depth = match r.value {
        _ if r.book.is_some() => "book".to_string(),
        Value::Exact(_) => format!("{}@100%", r.depth),
        Value::Wld(_) => format!("{}@WLD", r.depth),
        Value::Estimate(_) if r.selectivity.is_selective() => {
            format!("{}@{}", r.depth, r.selectivity)
        }
        Value::Estimate(_) => r.depth.to_string(),
    };
    let value = match r.value {
        Value::Wld(1) => "win".to_string(),
        Value::Wld(0) => "draw".to_string(),
        Value::Wld(_) => "loss".to_string(),
        v => format!("{:+.2}", v.discs()),
    };
    let secs = r.elapsed.as_secs_f64();
    let pv: Vec<String> = r.pv.iter().map(Move::to_string).collect();
    format!(
        "{depth:>7} {value:>7} {:>13} {secs:>9.3} {:>11.0}  {}",
        r.nodes,
        r.nodes as f64 / secs.max(1e-9),
        pv.join(" ")
    )
}

/// Searches and prints.
pub fn run(args: AnalyseArgs) -> Result<(), CliError> {
    if let Some(extra) = &args.stray {
        return Err(error(format!(
            "analyse takes no argument '{extra}' (use --position)"
        )));
    }
    args.levels.install_weights()?;
    // Before the clock starts: the weights would otherwise load inside `--time`.
    crate::search::warm_up();
    let levels = args.levels.levels();
    let position = args.position.unwrap_or_else(Position::start);
    let limits = match &args.time {
        Some(t) => match t.trim().parse::<f64>() {
            // Beyond what a Duration holds is as good as no limit.
            Ok(s) if s > 0.0 && s.is_finite() => {
                Limits::time(Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX))
            }
            _ => return Err(error(format!("bad --time '{t}': expected seconds above 0"))),
        },
        None => Limits::none(),
    };
    let mut searcher = args.levels.searcher();
    println!("{position}");
    println!("levels: {levels}");
    println!(
        "{:>7} {:>7} {:>13} {:>9} {:>11}  pv",
        "depth", "value", "nodes", "seconds", "nodes/s"
    );
    let report = searcher.think(&position, &levels, &limits, &mut |r| {
        println!("{}", report_line(r))
    });
    println!(
        "best move {}{} ({}){}",
        report.best_move,
        if report.book.is_some() {
            " from the book"
        } else {
            ""
        },
        match report.value {
            Value::Exact(s) => format!("exact {s:+}"),
            Value::Wld(s) => format!("win/draw/loss {s:+}"),
            v => format!("estimate {:+.2}", v.discs()),
        },
        if report.complete {
            ""
        } else {
            "; stopped by the time limit"
        }
    );
    Ok(())
}
