//! The `othello-engine` command line.

use othello_engine::board::{Move, ObfLine, Position, parse_obf_line, perft, perft_divide};
use othello_engine::cli::{Arity, CliError, Options, parse_in_range};
use othello_engine::eval::EvaluatorKind;
use othello_engine::protocol::{Protocol, ServeConfig, init_logging, serve};
use othello_engine::search::{
    DEFAULT_HASH_MIB, EndgameMode, Levels, Limits, PhaseLevel, SETTING_NAMES, SearchReport,
    Searcher, Value,
};
use std::process::ExitCode;
use std::time::Duration;
use std::time::Instant;

const USAGE: &str = "\
usage: othello-engine <command> [arguments]

commands:
  perft <depth> [--position \"<OBF>\"] [--divide]
      count the leaves of the game tree to each depth from 1 to <depth>
      (a pass is a ply; a finished game is one leaf)
  solve <FILE.obf> [--mode exact|wld] [--hash MIB]
      solve every position of an OBF file; exit status 1 if any answer is wrong
  bench [--depth N] [--eval NAME] [--hash MIB]
      fixed-depth searches of 10 built-in midgame positions; the node total is a
      signature of the search (default depth 9, evaluator weighted)
  analyse [--position \"<OBF>\"] [--time SECONDS] [level flags]
      search one position as the engine would play it, printing every depth
  nboard [level flags] [--log-file FILE]
  gtp [level flags] [--log-file FILE]
      serve that protocol on stdin/stdout (see protocol.md); with no command at
      all, serve the protocol the first input line implies (nboard ... or GTP)
  match --engine SPEC --engine SPEC [options]   (options: 'othello-engine match --help')
      engine-against-engine games refereed by this program; SPEC is gtp:COMMAND,
      nboard:COMMAND or self:FLAGS
  match merge FILE... [--results FILE]
      one summary from the results files of a tournament's shards
  train --wthor DIR [--out FILE] [--epochs N] [--rate R] [--seed N]
      fit the pattern evaluator's weights to the WTHOR games of DIR (*.wtb), holding
      every 10th game out to measure the error; writes FILE (default
      data/pattern-weights.bin, the file built into the engine)
  help
      show this text

level flags (shared by analyse and the protocol servers):
  --level N              a preset, 1 to 20 (default 10); other flags refine it
  --opening-moves N      moves that count as the opening (default 6)
  --opening-depth N      --opening-eval NAME
  --midgame-depth N      --midgame-eval NAME
  --endgame-empties N    solve from N empties on      --endgame-mode exact|wld|win-else-least
  --hash MIB             transposition table size (default 64)
  --seed N               seed for the random evaluator
evaluators: random, discs, discs-inverse, classic, weighted, pattern";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perft") => run_perft(&args[1..]),
        Some("solve") => run_solve(&args[1..]),
        Some("bench") => run_bench(&args[1..]),
        Some("analyse" | "analyze") => run_analyse(&args[1..]),
        Some("nboard") => run_serve(Some(Protocol::NBoard), &args[1..]),
        Some("gtp") => run_serve(Some(Protocol::Gtp), &args[1..]),
        None => run_serve(None, &[]),
        Some(flag) if flag.starts_with("--") && flag != "--help" => run_serve(None, &args),
        Some("match") => othello_engine::arena::run_match(&args[1..]),
        Some("train") => run_train(&args[1..]),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(CliError(format!(
            "unknown command '{other}'; run 'othello-engine help'"
        ))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("othello-engine: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads `--position` if given, else the start position.
fn position_option(options: &Options) -> Result<Position, CliError> {
    match options.get("position") {
        Some(text) => text
            .parse()
            .map_err(|e| CliError(format!("--position: {e}"))),
        None => Ok(Position::start()),
    }
}

fn run_perft(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        args,
        &[("position", Arity::Value), ("divide", Arity::Switch)],
    )?;
    let depth = match options.positional.as_slice() {
        [d] => parse_in_range(d, "depth", 1..=60)?,
        [] => return Err(CliError("perft needs a depth, e.g. 'perft 10'".into())),
        more => {
            return Err(CliError(format!(
                "perft takes one depth, got {} arguments",
                more.len()
            )));
        }
    };
    let position = position_option(&options)?;
    println!("{position}");
    if options.has("divide") {
        let start = Instant::now();
        let mut total = 0;
        for (mv, n) in perft_divide(&position, depth) {
            println!("{mv:>4} {n:>16}");
            total += n;
        }
        println!("total {total} in {:.3} s", start.elapsed().as_secs_f64());
        return Ok(());
    }
    println!(
        "{:>5} {:>16} {:>10} {:>16}",
        "depth", "leaves", "seconds", "leaves/s"
    );
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = perft(&position, d);
        let secs = start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            leaves as f64 / secs
        } else {
            0.0
        };
        println!("{d:>5} {leaves:>16} {secs:>10.3} {rate:>16.0}");
    }
    Ok(())
}

/// Reads `--hash` (MiB) or `default`; a table larger than the machine's memory is refused
/// (allocating it would abort the process).
fn hash_option(options: &Options, default: usize) -> Result<usize, CliError> {
    let Some(v) = options.get("hash") else {
        return Ok(default);
    };
    let mib = parse_in_range(v, "hash size (MiB)", 1..=65536)? as usize;
    match physical_memory_mib() {
        Some(total) if mib >= total => Err(CliError(format!(
            "--hash {mib} MiB does not fit in this machine's {total} MiB of memory"
        ))),
        _ => Ok(mib),
    }
}

/// The machine's memory in MiB, from /proc/meminfo where there is one.
fn physical_memory_mib() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Reads every position of an OBF file, naming the line of the first bad one.
fn read_obf_file(path: &str) -> Result<Vec<ObfLine>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError(format!("cannot read OBF file '{path}': {e}")))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('%'))
        .map(|(i, l)| parse_obf_line(l).map_err(|e| CliError(format!("{path}:{}: {e}", i + 1))))
        .collect()
}

fn run_solve(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(args, &[("mode", Arity::Value), ("hash", Arity::Value)])?;
    let [path] = options.positional.as_slice() else {
        return Err(CliError(
            "solve takes one OBF file, e.g. 'solve fforum-20-39.obf'".into(),
        ));
    };
    let mode = match options.get("mode") {
        None => EndgameMode::Exact,
        Some(m) => match m.parse::<EndgameMode>() {
            Ok(EndgameMode::WinElseLeast) | Err(_) => {
                return Err(CliError(format!("bad --mode '{m}': expected exact or wld")));
            }
            Ok(mode) => mode,
        },
    };
    let lines = read_obf_file(path)?;
    let mut searcher = Searcher::new(hash_option(&options, DEFAULT_HASH_MIB)?, None);
    let fallback = Levels::default().midgame;
    println!(
        "{:>3} {:>3} {:>5} {:>5} {:>12} {:>5} {:>14} {:>9} {:>12}",
        "#", "emp", "move", "score", "expected", "ok", "nodes", "seconds", "nodes/s"
    );
    let (mut total_nodes, mut total_time, mut wrong) = (0u64, 0f64, 0usize);
    for (i, line) in lines.iter().enumerate() {
        searcher.clear();
        let report = searcher.solve(&line.position, mode, fallback, &Limits::none(), &mut |_| {});
        let secs = report.elapsed.as_secs_f64();
        let score = match report.value {
            Value::Exact(s) | Value::Wld(s) => s,
            Value::Estimate(_) => 0,
        };
        let (expected, ok) = judge(line, report.best_move, score, mode);
        if !ok {
            wrong += 1;
        }
        total_nodes += report.nodes;
        total_time += secs;
        println!(
            "{:>3} {:>3} {:>5} {:>+5} {:>12} {:>5} {:>14} {:>9.3} {:>12.0}",
            i + 1,
            line.position.empty_count(),
            report.best_move.to_string(),
            score,
            expected,
            if ok { "yes" } else { "NO" },
            report.nodes,
            secs,
            report.nodes as f64 / secs.max(1e-9)
        );
    }
    println!(
        "total: {} positions, {} wrong, {} nodes, {:.3} s, {:.0} nodes/s",
        lines.len(),
        wrong,
        total_nodes,
        total_time,
        total_nodes as f64 / total_time.max(1e-9)
    );
    if wrong > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// The file's answer as text, and whether `best`/`score` agree with it: the same score (in wld
/// mode the same sign) and a move the file scores that well. A line without moves is judged
/// by nothing and counts as agreeing.
fn judge(line: &ObfLine, best: Move, score: i32, mode: EndgameMode) -> (String, bool) {
    let Some(&(_, top)) = line.moves.first() else {
        return ("-".into(), true);
    };
    let class = |s: i32| {
        if mode == EndgameMode::Exact {
            s
        } else {
            s.signum()
        }
    };
    let good: Vec<String> = line
        .moves
        .iter()
        .filter(|(_, s)| class(*s) == class(top))
        .map(|(m, _)| m.to_string())
        .collect();
    let ok = class(score) == class(top)
        && line
            .moves
            .iter()
            .any(|&(m, s)| m == best && class(s) == class(top));
    (format!("{}:{:+}", good.join("/"), class(top)), ok)
}

/// The option table of commands that take level flags.
fn level_option_table(extra: &[(&'static str, Arity)]) -> Vec<(&'static str, Arity)> {
    let mut table: Vec<(&'static str, Arity)> =
        SETTING_NAMES.iter().map(|&n| (n, Arity::Value)).collect();
    table.extend_from_slice(&[("hash", Arity::Value), ("seed", Arity::Value)]);
    table.extend_from_slice(extra);
    table
}

/// The levels given by `--level` and the per-phase flags (a preset first, then refinements).
pub fn levels_from_options(options: &Options) -> Result<Levels, CliError> {
    let mut levels = Levels::default();
    for name in SETTING_NAMES {
        if let Some(value) = options.get(name) {
            levels
                .set(name, value)
                .map_err(|e| CliError(format!("--{name}: {e}")))?;
        }
    }
    Ok(levels)
}

/// Reads `--seed` if given.
fn seed_option(options: &Options) -> Result<Option<u64>, CliError> {
    options
        .get("seed")
        .map(|s| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| CliError(format!("bad --seed '{s}': expected a whole number")))
        })
        .transpose()
}

/// A searcher sized by `--hash` and seeded by `--seed`.
fn searcher_from_options(options: &Options) -> Result<Searcher, CliError> {
    let seed = seed_option(options)?;
    Ok(Searcher::new(hash_option(options, DEFAULT_HASH_MIB)?, seed))
}

/// One line of search output: depth, value, nodes, time, speed and the principal variation.
fn report_line(r: &SearchReport) -> String {
    let depth = match r.value {
        Value::Exact(_) => format!("{}@100%", r.depth),
        Value::Wld(_) => format!("{}@WLD", r.depth),
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

fn run_analyse(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        args,
        &level_option_table(&[("position", Arity::Value), ("time", Arity::Value)]),
    )?;
    if let Some(extra) = options.positional.first() {
        return Err(CliError(format!(
            "analyse takes no argument '{extra}' (use --position)"
        )));
    }
    let levels = levels_from_options(&options)?;
    let position = position_option(&options)?;
    let limits = match options.get("time") {
        Some(t) => match t.trim().parse::<f64>() {
            // Beyond what a Duration holds is as good as no limit.
            Ok(s) if s > 0.0 && s.is_finite() => {
                Limits::time(Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX))
            }
            _ => {
                return Err(CliError(format!(
                    "bad --time '{t}': expected seconds above 0"
                )));
            }
        },
        None => Limits::none(),
    };
    let mut searcher = searcher_from_options(&options)?;
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
        "best move {} ({}){}",
        report.best_move,
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

/// Serves a protocol with the level flags and an optional log file.
fn run_serve(protocol: Option<Protocol>, args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(args, &level_option_table(&[("log-file", Arity::Value)]))?;
    if let Some(extra) = options.positional.first() {
        return Err(CliError(format!("the server takes no argument '{extra}'")));
    }
    init_logging(options.get("log-file")).map_err(CliError)?;
    let levels = levels_from_options(&options)?;
    let seed = seed_option(&options)?;
    let config = ServeConfig {
        levels,
        hash_mib: hash_option(&options, DEFAULT_HASH_MIB)?,
        seed,
    };
    serve(protocol, config);
    Ok(())
}

fn run_train(args: &[String]) -> Result<(), CliError> {
    use othello_engine::eval::train::{TrainSettings, train_weights};
    use othello_engine::game::wthor::load_wthor_dir;
    let options = Options::parse(
        args,
        &[
            ("wthor", Arity::Value),
            ("out", Arity::Value),
            ("epochs", Arity::Value),
            ("rate", Arity::Value),
            ("seed", Arity::Value),
        ],
    )?;
    let dir = options
        .get("wthor")
        .ok_or_else(|| CliError("train needs --wthor DIR (a folder of WTHOR .wtb files)".into()))?;
    let out = options.get("out").unwrap_or("data/pattern-weights.bin");
    let mut settings = TrainSettings::default();
    if let Some(e) = options.get("epochs") {
        settings.epochs = parse_in_range(e, "epochs", 1..=1000)? as usize;
    }
    if let Some(r) = options.parsed::<f32>("rate")? {
        if !(r > 0.0 && r < 1.0) {
            return Err(CliError(format!(
                "bad --rate {r}: expected a number between 0 and 1"
            )));
        }
        settings.learning_rate = r;
    }
    if let Some(s) = options.parsed::<u64>("seed")? {
        settings.seed = s;
    }
    let start = Instant::now();
    let (train, validation) = load_wthor_dir(std::path::Path::new(dir), 10).map_err(CliError)?;
    println!(
        "{} training and {} validation positions read in {:.1} s",
        train.len(),
        validation.len(),
        start.elapsed().as_secs_f64()
    );
    println!("phase  empties  positions  train-rmse  validation-rmse (discs)");
    let weights = train_weights(&train, &validation, settings, |r| {
        println!(
            "{:>5}  {:>7}  {:>9}  {:>10.2}  {:>15.2}",
            r.phase,
            format!(
                "{}-{}",
                r.phase * othello_engine::eval::pattern::PHASE_EMPTIES,
                (r.phase + 1) * othello_engine::eval::pattern::PHASE_EMPTIES - 1
            ),
            r.train_positions,
            r.train_rmse,
            r.validation_rmse
        );
    })
    .map_err(CliError)?;
    std::fs::write(out, weights.to_bytes())
        .map_err(|e| CliError(format!("cannot write {out}: {e}")))?;
    println!("wrote {out} in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The positions `bench` searches: ../shared/positions/midgame10.obf, copied into the crate.
const BENCH_POSITIONS: &str = include_str!("../data/midgame10.obf");

fn run_bench(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        args,
        &[
            ("depth", Arity::Value),
            ("eval", Arity::Value),
            ("hash", Arity::Value),
        ],
    )?;
    let depth = match options.get("depth") {
        Some(d) => parse_in_range(d, "depth", 1..=30)?,
        None => 9,
    };
    let eval = match options.get("eval") {
        Some(e) => e
            .parse::<EvaluatorKind>()
            .map_err(|e| CliError(format!("--eval: {e}")))?,
        None => EvaluatorKind::Weighted,
    };
    if eval == EvaluatorKind::Random {
        return Err(CliError(
            "bench needs a searching evaluator, not random".into(),
        ));
    }
    let mut searcher = Searcher::new(hash_option(&options, 16)?, Some(0));
    let level = PhaseLevel { depth, eval };
    let (mut nodes, mut secs) = (0u64, 0f64);
    for (i, line) in BENCH_POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let position = parse_obf_line(line)
            .map_err(|e| CliError(format!("built-in bench position {}: {e}", i + 1)))?
            .position;
        searcher.clear();
        let r = searcher.search(&position, level, &Limits::none(), &mut |_| {});
        println!(
            "{:>2} {:>5} {:>+8.2} {:>12} {:>8.3}",
            i + 1,
            r.best_move.to_string(),
            r.value.discs(),
            r.nodes,
            r.elapsed.as_secs_f64()
        );
        nodes += r.nodes;
        secs += r.elapsed.as_secs_f64();
    }
    println!(
        "bench: depth {depth}, evaluator {eval}: {nodes} nodes {:.0} nps ({secs:.3} s)",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
