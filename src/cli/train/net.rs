//! `othello-engine train --model net`: fits the `neural` evaluator's network to the same data
//! as the linear weights, with a progress bar, a checkpoint that a stop or a kill leaves
//! behind (the same command resumes from it), and the held-out error per bracket of empties
//! at every epoch beside the linear weights'. The fitting is `fit::net`'s; this file reads the
//! flags and the files, prints and writes the network.

use super::args::{TrainArgs, fraction, read_data, write_model};
use crate::cli::args::{CliError, error, parse_in_range, weights_file};
use crate::eval::network::{RowFormat, read_network_file};
use crate::eval::pattern::{PatternWeights, active_weights, wthor_weights};
use crate::fit::linear::DEFAULT_OPENING_EMPTIES;
use crate::fit::net::{Bracket, Event, NetSettings, Outcome, held_out_errors, train_network};
use crate::sys::progress::Progress;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where `train --model net` writes by default.
const DEFAULT_OUT: &str = "neural.net";

/// The flags of the linear fit, refused with `--model net`.
fn refuse_linear_flags(args: &TrainArgs) -> Result<(), CliError> {
    let linear = [
        ("method", args.method.is_some()),
        ("ridge", args.ridge.is_some()),
        ("iterations", args.iterations.is_some()),
        ("l2", args.l2.is_some()),
        ("stage-empties", args.stage_empties.is_some()),
        ("counts", args.counts.is_some()),
        ("shapes", args.shapes.is_some()),
    ];
    match linear.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(error(format!(
            "--{name} is a flag of the linear fit, not of --model net"
        ))),
        None => Ok(()),
    }
}

/// The settings the flags give.
fn settings(args: &TrainArgs, out: &str) -> Result<NetSettings, CliError> {
    let mut s = NetSettings::default();
    if let Some(w) = &args.width {
        s.shape.width = parse_in_range(w, "width", 1..=64)? as usize;
        if !crate::eval::network::WIDTHS.contains(&s.shape.width) {
            return Err(error(format!("bad --width {w}: expected 16, 32 or 64")));
        }
    }
    if let Some(r) = &args.rows {
        s.shape.rows = match r.trim() {
            "i16" => RowFormat::I16,
            "i8" => RowFormat::I8,
            _ => return Err(error(format!("bad --rows {r}: expected i16 or i8"))),
        };
    }
    if let Some(h) = &args.hidden {
        s.shape.hidden = parse_in_range(h, "hidden", 1..=64)? as usize;
        if !crate::eval::network::HIDDENS.contains(&s.shape.hidden) {
            return Err(error(format!("bad --hidden {h}: expected 8, 16 or 32")));
        }
    }
    if let Some(b) = &args.buckets {
        s.shape.buckets = parse_in_range(b, "buckets", 1..=16)? as usize;
    }
    if let Some(e) = &args.epochs {
        s.epochs = parse_in_range(e, "epochs", 1..=1000)? as usize;
    }
    if let Some(b) = &args.batch {
        s.batch = parse_in_range(b, "batch", 1..=1 << 20)? as usize;
    }
    if let Some(r) = &args.rate {
        s.rate = fraction(r, "rate")?;
    }
    if let Some(d) = &args.decay {
        s.decay = match d.trim().parse::<f32>() {
            Ok(v) if v > 0.0 && v <= 1.0 => v,
            _ => {
                return Err(error(format!(
                    "bad --decay {d}: expected a number in (0, 1]"
                )));
            }
        };
    }
    if let Some(n) = &args.threads {
        s.threads = parse_in_range(n, "threads", 1..=64)? as usize;
    } else {
        s.threads = crate::search::available_threads();
    }
    if let Some(seed) = &args.seed {
        s.seed = seed
            .trim()
            .parse()
            .map_err(|_| error(format!("bad --seed '{seed}': expected a whole number")))?;
    }
    s.checkpoint = Some(PathBuf::from(
        args.checkpoint
            .clone()
            .unwrap_or_else(|| format!("{out}.checkpoint")),
    ));
    Ok(s)
}

fn print_brackets(title: &str, rows: &[Bracket], compare_name: &str) {
    println!("{title}");
    println!("  empties  positions  net (discs)  {compare_name}");
    for b in rows {
        println!(
            "  {:>7}  {:>9}  {:>11.3}  {:>8.3}",
            format!("{}-{}", b.empties.0, b.empties.1),
            b.positions,
            b.error,
            b.compare
        );
    }
}

/// Reads the data, fits the network (resuming from its checkpoint) and writes it.
pub(super) fn run(args: TrainArgs) -> Result<(), CliError> {
    refuse_linear_flags(&args)?;
    let out = args.out.clone().unwrap_or_else(|| DEFAULT_OUT.to_string());
    let settings = settings(&args, &out)?;
    crate::sys::files::check_writable(Path::new(&out))
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    let opening_empties = match &args.opening_empties {
        Some(n) => parse_in_range(n, "opening-empties", 0..=60)? as u8,
        None => DEFAULT_OPENING_EMPTIES,
    };
    let loaded: PatternWeights;
    let compare_net;
    let (compare, compare_name): (Box<dyn Fn(u64, u64) -> f32 + Sync>, String) =
        match args.compare.as_deref() {
            None | Some("builtin") => {
                let w = active_weights();
                (
                    Box::new(move |p, o| w.score(p, o) as f32 / 100.0),
                    "pattern".into(),
                )
            }
            Some("wthor") => {
                let w = wthor_weights();
                (
                    Box::new(move |p, o| w.score(p, o) as f32 / 100.0),
                    "pattern-wthor".into(),
                )
            }
            Some(path) if path.ends_with(".net") => {
                compare_net = read_network_file(path).map_err(error)?;
                let n = &compare_net;
                (
                    Box::new(move |p, o| n.score(p, o) as f32 / 100.0),
                    path.to_string(),
                )
            }
            Some(path) => {
                loaded = weights_file(path).map_err(error)?;
                let w = &loaded;
                (
                    Box::new(move |p, o| w.score(p, o) as f32 / 100.0),
                    path.to_string(),
                )
            }
        };
    let start = Instant::now();
    let data = read_data(&args, opening_empties, start)?;
    let s = &settings;
    eprintln!(
        "network: width {} ({} rows), hidden {}, {} buckets; {} epochs of batches of {}, rate {} (x{} an epoch), seed {}, {} threads",
        s.shape.width,
        s.shape.rows.name(),
        s.shape.hidden,
        s.shape.buckets,
        s.epochs,
        s.batch,
        s.rate,
        s.decay,
        s.seed,
        s.threads
    );
    let stop = crate::sys::signals::catch().map_err(|e| error(format!("signals: {e}")))?;
    let batches = data.train.len().div_ceil(s.batch);
    let mut progress: Option<Progress> = None;
    let mut report = |event: Event| match event {
        Event::Batch {
            epoch,
            batch,
            batches,
        } => {
            let done = epoch * batches + batch;
            let bar = progress.get_or_insert_with(|| {
                Progress::new(
                    "train",
                    "batches",
                    s.epochs * batches,
                    done.saturating_sub(1),
                )
            });
            if batch % 64 == 0 || batch == batches {
                bar.show(done, &format!("epoch {}", epoch + 1));
            }
        }
        Event::Epoch {
            epoch,
            train_error,
            held_out,
        } => {
            let line = || {
                print_brackets(
                    &format!(
                        "epoch {}: training error {train_error:.3} discs; held-out error by empties ({:.0} s):",
                        epoch + 1,
                        start.elapsed().as_secs_f64()
                    ),
                    held_out,
                    &compare_name,
                )
            };
            match &progress {
                Some(bar) => bar.suspend(line),
                None => line(),
            }
        }
        Event::Saved => {}
    };
    let _ = batches;
    let outcome = train_network(&data, s, &*compare, &stop, &mut report).map_err(error)?;
    let model = match outcome {
        Outcome::Finished(model) => model,
        Outcome::Stopped => {
            crate::sys::signals::exit_if_caught(
                "train",
                &format!(
                    "the run is saved in {} and resumes with the same command",
                    s.checkpoint
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ),
            );
            return Err(error("stopped"));
        }
    };
    if let Some(bar) = &progress {
        bar.finish();
    }
    let network = model.quantize().map_err(error)?;
    let quantized = held_out_errors(
        &data.validation,
        s.threads,
        &|p, o| network.score(p, o) as f32 / 100.0,
        &|p, o| model.discs(p, o),
    );
    print_brackets(
        "the integer network (net) against its float twin (right), held-out error:",
        &quantized,
        "float",
    );
    write_model(&out, &network.to_bytes(), start)
}
