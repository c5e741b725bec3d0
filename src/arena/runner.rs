//! The match command: reads the options, checks everything before the first game, schedules
//! the games over worker threads, prints one line per game and the summary, and writes the
//! records.

use super::engine::{EngineProtocol, EngineSpec, GtpEngine, NBoardEngine};
use super::openings::{Opening, generate, parse_openings, shuffle};
use super::progress::{Progress, status_line, terminal_width};
use super::records::write_ggf;
use super::referee::{Ending, Game, SETUP_TIMEOUT, TimeControl, play_game};
use super::results::{GameRow, Results, write_results};
use super::stats::{EloEstimate, PairingScore, Sprt, SprtVerdict, pairings, score_game};
use crate::board::Color;
use crate::cli::{Arity, CliError, Options, parse_in_range};
use std::collections::{HashMap, VecDeque};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The usage text of `match`, for the binary's help.
pub const USAGE: &str = "\
  match --engine SPEC --engine SPEC [...] [--tc 60+0.5 | --move-time S] [--depth N]
        [--opening-plies N | --openings FILE] [--max-openings N] [--seed N]
        [--concurrency N] [--timeout-margin S] [--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05]
        [--ggf FILE] [--results FILE.json|FILE.csv] [--shard i/n]
      engine-against-engine games, each opening twice with colours swapped; SPEC is
      [name=NAME,][dir=DIR,][depth=N,]gtp:COMMAND, nboard:COMMAND or self:LEVEL-FLAGS
  match merge FILE... [--results FILE.json|FILE.csv]
      one summary of results files written by shards of one tournament";

/// Everything a match needs, read and checked from the command line.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines; two play a match, more a round robin.
    pub engines: Vec<EngineSpec>,
    /// The openings in playing order.
    pub openings: Vec<Opening>,
    /// Each side's time.
    pub control: TimeControl,
    /// Extra time allowed past the limit before a move counts as late.
    pub margin: Duration,
    /// Games played at once.
    pub concurrency: usize,
    /// The sequential test, if any (two-engine matches only).
    pub sprt: Option<Sprt>,
    /// Where to write the games in GGF.
    pub ggf: Option<String>,
    /// Where to write the summary.
    pub results: Option<String>,
    /// `(i, n)`: play only opening pairs i, i + n, i + 2n, ... of the schedule (1-based), so
    /// that one tournament can be spread over n machines; both games of an opening stay in
    /// one shard, which keeps the pentanomial counts whole.
    pub shard: Option<(usize, usize)>,
}

/// Makes engine names distinct: a name given again gets ` #2`, ` #3`, ... (two engines with
/// one name could not be told apart in the results).
pub fn distinct_names(engines: &mut [EngineSpec]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for spec in engines {
        let n = seen.entry(spec.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            spec.name = format!("{} #{}", spec.name, n);
        }
    }
}

/// Reads `--shard i/n` with 1 <= i <= n.
fn parse_shard(text: &str) -> Result<(usize, usize), CliError> {
    let bad = || {
        CliError(format!(
            "bad --shard '{text}': expected i/n with 1 <= i <= n"
        ))
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

const OPTIONS: &[(&str, Arity)] = &[
    ("engine", Arity::Value),
    ("tc", Arity::Value),
    ("move-time", Arity::Value),
    ("depth", Arity::Value),
    ("opening-plies", Arity::Value),
    ("openings", Arity::Value),
    ("max-openings", Arity::Value),
    ("seed", Arity::Value),
    ("concurrency", Arity::Value),
    ("timeout-margin", Arity::Value),
    ("sprt", Arity::Value),
    ("ggf", Arity::Value),
    ("results", Arity::Value),
    ("shard", Arity::Value),
];

fn seconds_option(options: &Options, name: &str, min: f64) -> Result<Option<Duration>, CliError> {
    options
        .get(name)
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= min && *s <= 86_400.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| CliError(format!("bad --{name} '{t}': expected seconds")))
        })
        .transpose()
}

impl MatchConfig {
    /// Reads and checks the `match` arguments (engines are not started here).
    pub fn parse(args: &[String]) -> Result<MatchConfig, CliError> {
        let options = Options::parse(args, OPTIONS)?;
        if let Some(extra) = options.positional.first() {
            return Err(CliError(format!("match takes no argument '{extra}'")));
        }
        let depth = options
            .get("depth")
            .map(|d| parse_in_range(d, "--depth", 1..=60))
            .transpose()?;
        let mut engines = options
            .all("engine")
            .iter()
            .map(|s| EngineSpec::parse(s).map_err(CliError))
            .collect::<Result<Vec<_>, _>>()?;
        if engines.len() < 2 {
            return Err(CliError(format!(
                "match needs at least two --engine SPEC, got {}",
                engines.len()
            )));
        }
        for spec in &mut engines {
            match (depth, spec.protocol) {
                (Some(d), EngineProtocol::Gtp) if spec.is_self => {
                    for flag in ["--opening-depth", "--midgame-depth"] {
                        spec.args.push(flag.into());
                        spec.args.push(d.to_string());
                    }
                }
                (Some(d), EngineProtocol::NBoard) => {
                    spec.depth = spec.depth.or(Some(d));
                }
                _ => {}
            }
        }
        distinct_names(&mut engines);
        if depth.is_some()
            && engines
                .iter()
                .any(|e| e.protocol == EngineProtocol::Gtp && !e.is_self)
        {
            eprintln!("match: note: --depth does not limit gtp: engines; GTP has no depth command");
        }
        let control = match (
            options.get("tc"),
            seconds_option(&options, "move-time", 0.001)?,
        ) {
            (Some(_), Some(_)) => {
                return Err(CliError("give --tc or --move-time, not both".into()));
            }
            (Some(tc), None) => TimeControl::parse_fischer(tc).map_err(CliError)?,
            (None, Some(t)) => TimeControl::PerMove(t),
            (None, None) if depth.is_some() => TimeControl::Untimed,
            (None, None) => TimeControl::PerMove(Duration::from_secs(1)),
        };
        let margin =
            seconds_option(&options, "timeout-margin", 0.0)?.unwrap_or(Duration::from_millis(200));
        let seed = match options.get("seed") {
            Some(s) => s
                .trim()
                .parse::<u64>()
                .map_err(|_| CliError(format!("bad --seed '{s}': expected a whole number")))?,
            None => 1,
        };
        let mut openings = match options.get("openings") {
            Some(path) => {
                if options.has("opening-plies") {
                    return Err(CliError(
                        "give --openings or --opening-plies, not both".into(),
                    ));
                }
                let text = std::fs::read_to_string(path)
                    .map_err(|e| CliError(format!("cannot read openings file '{path}': {e}")))?;
                parse_openings(&text, path).map_err(CliError)?
            }
            None => {
                let plies = match options.get("opening-plies") {
                    Some(p) => parse_in_range(p, "--opening-plies", 0..=10)?,
                    None => 6,
                };
                let mut all = generate(plies);
                shuffle(&mut all, seed);
                all
            }
        };
        if let Some(n) = options.get("max-openings") {
            openings.truncate(parse_in_range(n, "--max-openings", 1..=u32::MAX)? as usize);
        }
        let concurrency = match options.get("concurrency") {
            Some(c) => parse_in_range(c, "--concurrency", 1..=256)? as usize,
            None => 1,
        };
        let sprt = options
            .get("sprt")
            .map(|s| Sprt::parse(s).map_err(|e| CliError(format!("bad --sprt '{s}': {e}"))))
            .transpose()?;
        if sprt.is_some() && engines.len() != 2 {
            return Err(CliError("--sprt needs exactly two engines".into()));
        }
        Ok(MatchConfig {
            engines,
            openings,
            control,
            margin,
            concurrency,
            sprt,
            ggf: options.get("ggf").map(str::to_string),
            results: options.get("results").map(str::to_string),
            shard: options.get("shard").map(parse_shard).transpose()?,
        })
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
struct Job {
    number: usize,
    opening: usize,
    black: usize,
    white: usize,
}

/// A finished game with its place in the schedule.
#[derive(Clone, Debug)]
pub struct Played {
    /// 1-based game number in the schedule.
    pub number: usize,
    /// Index of the opening.
    pub opening: usize,
    /// Engine index playing black.
    pub black: usize,
    /// Engine index playing white.
    pub white: usize,
    /// The game.
    pub game: Game,
}

fn elo_text(e: Option<EloEstimate>) -> String {
    match e {
        Some(e) => format!("{:+.1} [{:+.1}, {:+.1}]", e.elo, e.low, e.high),
        None => "-".into(),
    }
}

/// One line describing a finished game.
pub fn game_line(played: &Played, engines: &[EngineSpec], total: usize) -> String {
    let game = &played.game;
    let p = game.final_position;
    let result = match game.black_margin.signum() {
        1 => "1-0",
        0 => "1/2-1/2",
        _ => "0-1",
    };
    let detail = match &game.ending {
        Ending::Finished => format!(
            "{}-{}",
            p.disc_count(Color::Black),
            p.disc_count(Color::White)
        ),
        Ending::Forfeit { side, reason } => format!("{side} forfeits: {reason}"),
    };
    format!(
        "game {}/{}: {} (black) vs {} (white), opening {}: {result} ({:+}) {detail}",
        played.number,
        total,
        engines[played.black].name,
        engines[played.white].name,
        game.opening,
        game.black_margin
    )
}

/// Checks that every engine starts and answers its protocol (GTP `protocol_version`, NBoard
/// `ping`) before any game is played; an NBoard engine without `name=` takes the name it gives
/// with `set myname`.
fn probe(engines: &mut [EngineSpec]) -> Result<(), CliError> {
    for spec in engines.iter_mut() {
        let fail = |e: String| {
            CliError(format!(
                "engine '{}' ({}) does not work: {e}",
                spec.name,
                spec.program.display()
            ))
        };
        match spec.protocol {
            EngineProtocol::Gtp => {
                let mut engine = GtpEngine::start(spec).map_err(|e| fail(e.to_string()))?;
                engine
                    .send("protocol_version", SETUP_TIMEOUT)
                    .map_err(|e| fail(format!("'protocol_version': {e}")))?;
                engine.quit();
            }
            EngineProtocol::NBoard => {
                let mut engine = NBoardEngine::start(spec).map_err(|e| fail(e.to_string()))?;
                engine
                    .sync(SETUP_TIMEOUT)
                    .map_err(|e| fail(format!("'ping': {e}")))?;
                if let (false, Some(name)) = (spec.name_given, engine.myname.take()) {
                    spec.name = name;
                }
                engine.quit();
            }
        }
    }
    distinct_names(engines);
    Ok(())
}

/// What the workers tell the runner: a game started, or a game finished.
enum Event {
    Started,
    Finished(Box<Played>),
}

/// The results of the games played so far, for the results file and the summary.
fn results_of(config: &MatchConfig, total: usize, games: &[Played]) -> Results {
    let name = |i: usize| config.engines[i].name.clone();
    Results {
        engines: config.engines.iter().map(|e| e.name.clone()).collect(),
        listed: true,
        scheduled: Some(total),
        shard: config.shard,
        games: games
            .iter()
            .map(|p| GameRow {
                number: p.number,
                opening: p.game.opening.to_string(),
                black: name(p.black),
                white: name(p.white),
                black_margin: p.game.black_margin,
                forfeit: match &p.game.ending {
                    Ending::Finished => None,
                    Ending::Forfeit { side, reason } => Some(format!("{side} forfeits: {reason}")),
                },
            })
            .collect(),
    }
}

/// Writes the per-game lines and, on a terminal, the status line below them.
struct Display {
    /// Whether standard output is a terminal that gets a live status line.
    live: bool,
    width: usize,
}

impl Display {
    /// A line above the status line (the status line is cleared first, and redrawn by the
    /// next [`Display::status`]).
    fn line(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.live {
            let _ = write!(out, "\r\x1b[2K");
        }
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    /// Rewrites the status line in place (terminals only).
    fn status(&self, progress: Progress, names: &[String], scores: &[PairingScore]) {
        if self.live {
            let mut out = std::io::stdout().lock();
            let text = status_line(progress, names, scores, self.width.saturating_sub(1));
            let _ = write!(out, "\r\x1b[2K{text}");
            let _ = out.flush();
        }
    }
}

/// Warnings from the engine clients (lines skipped, ...) on standard error; `RUST_LOG`
/// changes the level.
fn init_logging() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|out, record| {
            writeln!(
                out,
                "match: {}: {}",
                record.level().as_str().to_ascii_lowercase(),
                record.args()
            )
        })
        .try_init();
}

/// Runs `othello-engine match ARGS` (or `match merge ...`); errors before the first game are
/// command-line errors.
pub fn run_match(args: &[String]) -> Result<(), CliError> {
    if args.first().map(String::as_str) == Some("merge") {
        return super::merge::run_merge(&args[1..]);
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("usage:\n{USAGE}");
        return Ok(());
    }
    let mut config = MatchConfig::parse(args)?;
    init_logging();
    probe(&mut config.engines)?;
    let mut ggf_file = match &config.ggf {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| CliError(format!("cannot write GGF file '{path}': {e}")))?,
        ),
        None => None,
    };
    let mut scores = pairings(config.engines.len());
    let mut jobs = VecDeque::new();
    for opening in 0..config.openings.len() {
        for &(a, b) in scores.iter().map(|s| &s.engines) {
            for (black, white) in [(a, b), (b, a)] {
                jobs.push_back(Job {
                    number: jobs.len() + 1,
                    opening,
                    black,
                    white,
                });
            }
        }
    }
    let total = jobs.len();
    if let Some((i, n)) = config.shard {
        // The schedule lists the two colourings of each (opening, pairing) side by side.
        jobs.retain(|job| ((job.number - 1) / 2) % n == i - 1);
    }
    let to_play = jobs.len();
    let display = Display {
        live: std::io::stdout().is_terminal(),
        width: terminal_width(),
    };
    display.line(&format!(
        "match: {} engines, {} openings, {total} games{}, {} at once",
        config.engines.len(),
        config.openings.len(),
        config.shard.map_or(String::new(), |(i, n)| format!(
            " (shard {i}/{n}: {to_play} of them)"
        )),
        config.concurrency
    ));
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let queue = Arc::new(Mutex::new(jobs));
    let stop = Arc::new(AtomicBool::new(false));
    let config = Arc::new(config);
    let (sender, events) = channel::<Event>();
    let mut workers = Vec::new();
    for _ in 0..config.concurrency.min(total.max(1)) {
        let (queue, stop, config, sender) =
            (queue.clone(), stop.clone(), config.clone(), sender.clone());
        workers.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let job = match queue.lock() {
                    Ok(mut q) => q.pop_front(),
                    Err(_) => None,
                };
                let Some(job) = job else { break };
                if sender.send(Event::Started).is_err() {
                    break;
                }
                let specs = [&config.engines[job.black], &config.engines[job.white]];
                let game = play_game(
                    specs,
                    &config.openings[job.opening],
                    config.control,
                    config.margin,
                );
                let played = Played {
                    number: job.number,
                    opening: job.opening,
                    black: job.black,
                    white: job.white,
                    game,
                };
                if sender.send(Event::Finished(Box::new(played))).is_err() {
                    break;
                }
            }
        }));
    }
    drop(sender);
    let mut started = 0;
    let mut all_games = Vec::new();
    let mut verdict = SprtVerdict::Continue;
    for event in events {
        let played = match event {
            Event::Started => {
                started += 1;
                let progress = Progress {
                    done: all_games.len(),
                    total: to_play,
                    running: started - all_games.len(),
                };
                display.status(progress, &names, &scores);
                continue;
            }
            Event::Finished(played) => *played,
        };
        display.line(&game_line(&played, &config.engines, total));
        if let Some(file) = ggf_file.as_mut()
            && let Err(e) = writeln!(file, "{}", write_ggf(&played, &config))
        {
            eprintln!("match: cannot write GGF: {e}");
        }
        let pair = (played.number - 1) / 2;
        let score = score_game(
            &mut scores,
            played.black,
            played.white,
            played.game.black_margin,
            pair,
        );
        // The first decision stands; games already under way still finish and count.
        if let (Some(score), Some(sprt), SprtVerdict::Continue) = (score, config.sprt, verdict) {
            verdict = sprt.verdict(score.penta.llr(sprt.elo0, sprt.elo1));
            if verdict != SprtVerdict::Continue {
                stop.store(true, Ordering::Relaxed);
            }
        }
        all_games.push(played);
        let progress = Progress {
            done: all_games.len(),
            total: to_play,
            running: started.saturating_sub(all_games.len()),
        };
        display.status(progress, &names, &scores);
    }
    for worker in workers {
        let _ = worker.join();
    }
    all_games.sort_by_key(|p| p.number);
    let results = results_of(&config, total, &all_games);
    display.line(&summary(&results, config.sprt.map(|s| (s, verdict))));
    if let Some(path) = &config.results {
        write_results(path, &results)
            .map_err(|e| CliError(format!("cannot write results file '{path}': {e}")))?;
    }
    Ok(())
}

/// The closing summary: per pairing W/D/L, score, disc margin, Elo, pentanomial, LOS, and the
/// SPRT when one ran (with its verdict).
pub fn summary(results: &Results, sprt: Option<(Sprt, SprtVerdict)>) -> String {
    let mut out = format!("finished {} games", results.games.len());
    let forfeits = results.forfeits();
    if forfeits > 0 {
        out += &format!(" ({forfeits} by forfeit)");
    }
    for s in results.scores() {
        let (a, b) = s.engines;
        let games = s.wdl.games().max(1) as f64;
        let score = (s.wdl.wins as f64 + s.wdl.draws as f64 / 2.0) / games;
        out += &format!(
            "\n{} vs {}: W/D/L {}/{}/{}, score {:.1}%, mean disc margin {:+.2}\n  Elo {}\n  pentanomial [{}] over {} pairs, Elo {}\n  LOS {}",
            results.engines[a],
            results.engines[b],
            s.wdl.wins,
            s.wdl.draws,
            s.wdl.losses,
            100.0 * score,
            s.mean_discs(),
            elo_text(s.wdl.elo()),
            s.penta.0.map(|c| c.to_string()).join(", "),
            s.penta.pairs(),
            elo_text(s.penta.elo()),
            s.wdl
                .los()
                .map_or("-".into(), |l| format!("{:.1}%", 100.0 * l)),
        );
        if let Some((sprt, verdict)) = sprt {
            let (low, high) = sprt.bounds();
            out += &format!(
                "\n  SPRT elo0={} elo1={}: LLR {:.3} [{:.3}, {:.3}], {}",
                sprt.elo0,
                sprt.elo1,
                s.penta.llr(sprt.elo0, sprt.elo1),
                low,
                high,
                match verdict {
                    SprtVerdict::H1 => "H1 accepted",
                    SprtVerdict::H0 => "H0 accepted",
                    SprtVerdict::Continue => "undecided",
                }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_a_match_command_line() {
        let c = MatchConfig::parse(&args(&[
            "--engine",
            "self:--level 3",
            "--engine",
            "self:--level 3",
            "--depth",
            "4",
            "--opening-plies",
            "2",
            "--concurrency",
            "3",
            "--tc",
            "30+0.25",
        ]))
        .unwrap();
        // Same names are told apart; --depth becomes level flags of self: engines and the
        // `set depth` of nboard: engines without their own depth=.
        assert_eq!(c.engines[0].name, "self --level 3");
        assert_eq!(c.engines[1].name, "self --level 3 #2");
        assert_eq!(
            c.engines[0].args,
            [
                "gtp",
                "--level",
                "3",
                "--opening-depth",
                "4",
                "--midgame-depth",
                "4"
            ]
        );
        assert_eq!(c.openings.len(), 3);
        assert_eq!(c.concurrency, 3);
        assert_eq!(
            c.control,
            TimeControl::Fischer {
                base: Duration::from_secs(30),
                increment: Duration::from_millis(250)
            }
        );
        let untimed = MatchConfig::parse(&args(&[
            "--engine", "self:", "--engine", "self:", "--depth", "2",
        ]))
        .unwrap();
        assert_eq!(untimed.control, TimeControl::Untimed);
        assert_eq!(untimed.openings.len(), generate(6).len());
        let nboard = MatchConfig::parse(&args(&[
            "--engine",
            "nboard:edax -nboard",
            "--engine",
            "depth=3,nboard:edax -nboard",
            "--depth",
            "5",
        ]))
        .unwrap();
        let depths: Vec<_> = nboard.engines.iter().map(|e| e.depth).collect();
        assert_eq!(depths, [Some(5), Some(3)]);
        assert_eq!(nboard.engines[1].name, "edax #2");
        assert_eq!(nboard.engines[1].args, ["-nboard"]);
        for bad in [
            &["--engine", "self:", "--engine", "self:", "--depth", "0"][..],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--move-time",
                "-1",
            ],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--concurrency",
                "0",
            ],
            &["--engine", "self:", "--engine", "self:", "stray"],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--opening-plies",
                "11",
            ],
            &["--engine", "self:", "--engine", "self:", "--shard", "3/2"],
            &["--engine", "self:", "--engine", "self:", "--shard", "0/2"],
            &["--engine", "self:", "--engine", "self:", "--shard", "1"],
        ] {
            assert!(MatchConfig::parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
