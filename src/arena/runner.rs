//! The match command: reads the options, checks everything before the first game, schedules
//! the games over worker threads, prints one line per game and the summary, and keeps the
//! records. The results and GGF files are brought up to date after every game (the results
//! file replaced atomically), so an interrupted match loses only the games under way, and
//! `--resume` plays only the games its results file lacks.

use super::client::{GtpEngine, NBoardEngine};
use super::files::{check_writable, write_atomically};
use super::progress::{Progress, status_line, terminal_width};
use super::records::{ggf_game_number, write_ggf};
use super::referee::{Ending, Game, SETUP_TIMEOUT, play_game};
use super::results::{GameRow, Results, read_results, write_results};
use super::signals;
use super::spec::{EngineProtocol, EngineSpec};
use super::stats::{EloEstimate, PairingScore, Sprt, SprtVerdict, pairings, score_game};
use crate::board::Color;
use crate::cli::{Arity, CliError, Options, parse_in_range};
use crate::game::clock::TimeControl;
use crate::game::openings::{Opening, generate, parse_openings, shuffle};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The usage text of `match`, for the binary's help.
pub const USAGE: &str = "\
  match --engine SPEC --engine SPEC [...] [--tc 60+0.5 | --move-time S] [--depth N]
        [--opening-plies N | --openings FILE] [--max-openings N] [--seed N]
        [--concurrency N] [--timeout-margin S] [--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05]
        [--ggf FILE] [--results FILE.json|FILE.csv [--resume]] [--shard i/n]
      engine-against-engine games, each opening twice with colours swapped; SPEC is
      [name=NAME,][dir=DIR,][depth=N,]gtp:COMMAND, nboard:COMMAND or self:LEVEL-FLAGS;
      --resume plays only the games the results file lacks (same command line)
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
    /// Continue the match of the results file: play only the games it lacks.
    pub resume: bool,
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
    ("resume", Arity::Switch),
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
        let resume = options.has("resume");
        if resume && !options.has("results") {
            return Err(CliError(
                "--resume needs --results FILE: the games played so far are read from it".into(),
            ));
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
            resume,
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

/// A finished game as the results file lists it.
fn row_of(played: &Played, config: &MatchConfig) -> GameRow {
    let name = |i: usize| config.engines[i].name.clone();
    GameRow {
        number: played.number,
        opening: played.game.opening.to_string(),
        black: name(played.black),
        white: name(played.white),
        black_margin: played.game.black_margin,
        forfeit: match &played.game.ending {
            Ending::Finished => None,
            Ending::Forfeit { side, reason } => Some(format!("{side} forfeits: {reason}")),
        },
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

/// Every game of the whole schedule in order: for each opening, each pairing, the two
/// colourings side by side.
fn schedule(config: &MatchConfig) -> Vec<Job> {
    let mut jobs = Vec::new();
    for opening in 0..config.openings.len() {
        for &(a, b) in pairings(config.engines.len()).iter().map(|s| &s.engines) {
            for (black, white) in [(a, b), (b, a)] {
                jobs.push(Job {
                    number: jobs.len() + 1,
                    opening,
                    black,
                    white,
                });
            }
        }
    }
    jobs
}

/// Whether shard `(i, n)` plays `job`: the opening pairs i, i + n, ... (both games of a pair
/// stay together).
fn in_shard(job: &Job, shard: Option<(usize, usize)>) -> bool {
    shard.is_none_or(|(i, n)| ((job.number - 1) / 2) % n == i - 1)
}

fn shard_text(shard: Option<(usize, usize)>) -> String {
    shard.map_or("the whole schedule".into(), |(i, n)| {
        format!("shard {i}/{n}")
    })
}

/// Checks, before any engine starts, that the output files can be written (a match must not
/// play for hours and then fail to write them).
fn check_files(config: &MatchConfig) -> Result<(), CliError> {
    if let (Some(results), Some(ggf)) = (&config.results, &config.ggf)
        && Path::new(results) == Path::new(ggf)
    {
        return Err(CliError(format!(
            "--results and --ggf name the same file '{results}'"
        )));
    }
    for (path, what) in [(&config.results, "results"), (&config.ggf, "GGF")] {
        if let Some(path) = path {
            check_writable(Path::new(path))
                .map_err(|e| CliError(format!("cannot write {what} file '{path}': {e}")))?;
        }
    }
    Ok(())
}

/// The results file a resumed match continues, if there is one yet.
fn read_previous(path: &str) -> Result<Option<Results>, CliError> {
    let text = match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(CliError(format!(
                "cannot read results file '{path}' to resume: {e}"
            )));
        }
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
    };
    read_results(&text).map(Some).map_err(|e| {
        CliError(format!(
            "results file '{path}' cannot be read to resume: {e}"
        ))
    })
}

/// The games of `previous`, once it is checked to come from this very match: the same
/// engines, schedule and shard, and every game the one this schedule has at its number (same
/// players, same opening: the same openings and seed).
fn resumed_games(
    config: &MatchConfig,
    schedule: &[Job],
    previous: Results,
    path: &str,
) -> Result<Vec<GameRow>, CliError> {
    let refuse = |why: String| {
        CliError(format!(
            "cannot resume from results file '{path}': {why}; resume with the command line that wrote it"
        ))
    };
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    if previous.listed && previous.engines != names {
        return Err(refuse(format!(
            "its engines are [{}], this match's [{}]",
            previous.engines.join(", "),
            names.join(", ")
        )));
    }
    if let Some(n) = previous.scheduled
        && n != schedule.len()
    {
        return Err(refuse(format!(
            "its schedule has {n} games, this match's {}",
            schedule.len()
        )));
    }
    if previous.listed && previous.shard != config.shard {
        return Err(refuse(format!(
            "it holds {}, this match plays {}",
            shard_text(previous.shard),
            shard_text(config.shard)
        )));
    }
    let mut seen = HashSet::new();
    for game in &previous.games {
        let job = schedule
            .get(game.number.wrapping_sub(1))
            .filter(|job| in_shard(job, config.shard))
            .ok_or_else(|| {
                refuse(format!(
                    "game {} is not one this match plays ({} of {} games)",
                    game.number,
                    shard_text(config.shard),
                    schedule.len()
                ))
            })?;
        let opening = config.openings[job.opening].to_string();
        let (black, white) = (&names[job.black], &names[job.white]);
        if (&game.black, &game.white, &game.opening) != (black, white, &opening) {
            return Err(refuse(format!(
                "game {} is {} (black) vs {} (white) from opening {}, where this match has {black} vs {white} from {opening}",
                game.number, game.black, game.white, game.opening
            )));
        }
        if !seen.insert(game.number) {
            return Err(refuse(format!("game {} is listed twice", game.number)));
        }
    }
    let mut games = previous.games;
    games.sort_by_key(|g| g.number);
    Ok(games)
}

/// Opens the GGF file for appending. A new match empties it; a resumed one keeps only the
/// records of the games resumed, each once (a game recorded there but not in the results
/// file, cut off by a crash between the two writes, is played again), rewritten atomically.
fn open_ggf(path: &str, resumed: &[GameRow]) -> std::io::Result<File> {
    if resumed.is_empty() {
        return File::create(path);
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let wanted: HashSet<usize> = resumed.iter().map(|g| g.number).collect();
    let mut seen = HashSet::new();
    let mut kept = String::new();
    for line in text.lines() {
        if let Some(number) = ggf_game_number(line)
            && wanted.contains(&number)
            && seen.insert(number)
        {
            kept.push_str(line.trim());
            kept.push('\n');
        }
    }
    if seen.len() < wanted.len() {
        eprintln!(
            "match: note: {} of the {} games resumed are not in GGF file '{path}'",
            wanted.len() - seen.len(),
            wanted.len()
        );
    }
    write_atomically(Path::new(path), kept.as_bytes())?;
    OpenOptions::new().append(true).open(path)
}

/// Keeps the match's files up to date: after every game the GGF file gets the game's record
/// and then the results file is replaced, so the results file never lists a game the GGF
/// file lacks.
struct Recorder {
    /// The results so far, games in schedule order (resumed ones included).
    results: Results,
    results_path: Option<String>,
    ggf: Option<(String, File)>,
}

impl Recorder {
    /// Writes the results file at once (the games resumed, or none), so that it always
    /// describes this match, and opens the GGF file.
    fn open(config: &MatchConfig, total: usize, games: Vec<GameRow>) -> Result<Recorder, CliError> {
        let ggf = match &config.ggf {
            Some(path) => Some((
                path.clone(),
                open_ggf(path, &games)
                    .map_err(|e| CliError(format!("cannot write GGF file '{path}': {e}")))?,
            )),
            None => None,
        };
        let recorder = Recorder {
            results: Results {
                engines: config.engines.iter().map(|e| e.name.clone()).collect(),
                listed: true,
                scheduled: Some(total),
                shard: config.shard,
                games,
            },
            results_path: config.results.clone(),
            ggf,
        };
        recorder.write_results()?;
        Ok(recorder)
    }

    fn write_results(&self) -> Result<(), CliError> {
        match &self.results_path {
            Some(path) => write_results(path, &self.results)
                .map_err(|e| CliError(format!("cannot write results file '{path}': {e}"))),
            None => Ok(()),
        }
    }

    /// Records a finished game in both files; a failure is reported and the match goes on
    /// (the next game writes the whole results file again).
    fn add(&mut self, played: &Played, config: &MatchConfig) {
        if let Some((path, file)) = &mut self.ggf {
            // One write of the whole line: the file never holds half a game.
            let record = format!("{}\n", write_ggf(played, config));
            if let Err(e) = file.write_all(record.as_bytes()) {
                eprintln!("match: cannot write GGF file '{path}': {e}");
            }
        }
        let row = row_of(played, config);
        let at = self
            .results
            .games
            .partition_point(|g| g.number < row.number);
        self.results.games.insert(at, row);
        if let Err(e) = self.write_results() {
            eprintln!("match: {e}");
        }
    }
}

/// The SPRT verdict after a game changed `score`: the first decision stands.
fn sprt_after(
    verdict: SprtVerdict,
    score: Option<&PairingScore>,
    sprt: Option<Sprt>,
) -> SprtVerdict {
    match (score, sprt, verdict) {
        (Some(score), Some(sprt), SprtVerdict::Continue) => {
            sprt.verdict(score.penta.llr(sprt.elo0, sprt.elo1))
        }
        _ => verdict,
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

/// Ends the process after a signal, with the shell's status for it (128 + the signal).
fn exit_after(signal: i32) -> ! {
    let _ = std::io::stdout().flush();
    std::process::exit(128 + signal)
}

/// Runs `othello-engine match ARGS` (or `match merge ...`); errors before the first game are
/// command-line errors. SIGINT or SIGTERM stops the match: games under way are abandoned,
/// engines stopped, finished games kept in the files, the summary so far printed, and the
/// process exits with status 128 + the signal (130, 143).
pub fn run_match(args: &[String]) -> Result<(), CliError> {
    if args.first().map(String::as_str) == Some("merge") {
        return super::merge::run_merge(&args[1..]);
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("usage:\n{USAGE}");
        return Ok(());
    }
    let mut config = MatchConfig::parse(args)?;
    check_files(&config)?;
    let previous = match (&config.results, config.resume) {
        (Some(path), true) => read_previous(path)?,
        _ => None,
    };
    init_logging();
    if let Err(e) = signals::install() {
        eprintln!("match: note: cannot catch SIGINT and SIGTERM ({e})");
    }
    let probed = probe(&mut config.engines);
    if let Some(signal) = signals::caught() {
        eprintln!(
            "match: interrupted by {} before the first game",
            signals::name(signal)
        );
        exit_after(signal);
    }
    probed?;
    let schedule = schedule(&config);
    let total = schedule.len();
    let resumed = match (previous, &config.results) {
        (Some(previous), Some(path)) => resumed_games(&config, &schedule, previous, path)?,
        (None, Some(path)) if config.resume => {
            eprintln!(
                "match: note: no results file '{path}' yet: the match starts from its first game"
            );
            Vec::new()
        }
        _ => Vec::new(),
    };
    let mut recorder = Recorder::open(&config, total, resumed)?;
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut scores = pairings(config.engines.len());
    let mut verdict = SprtVerdict::Continue;
    for game in &recorder.results.games {
        let index = |name: &str| names.iter().position(|n| n == name);
        if let (Some(black), Some(white)) = (index(&game.black), index(&game.white)) {
            let score = score_game(&mut scores, black, white, game.black_margin, game.pair());
            verdict = sprt_after(verdict, score, config.sprt);
        }
    }
    let resumed_count = recorder.results.games.len();
    let done: HashSet<usize> = recorder.results.games.iter().map(|g| g.number).collect();
    let shard_games = schedule
        .iter()
        .filter(|job| in_shard(job, config.shard))
        .count();
    let jobs: VecDeque<Job> = if verdict == SprtVerdict::Continue {
        schedule
            .into_iter()
            .filter(|job| in_shard(job, config.shard) && !done.contains(&job.number))
            .collect()
    } else {
        VecDeque::new()
    };
    let display = Display {
        live: std::io::stdout().is_terminal(),
        width: terminal_width(),
    };
    display.line(&format!(
        "match: {} engines, {} openings, {total} games{}, {} at once",
        config.engines.len(),
        config.openings.len(),
        config.shard.map_or(String::new(), |(i, n)| format!(
            " (shard {i}/{n}: {shard_games} of them)"
        )),
        config.concurrency
    ));
    if config.resume && resumed_count > 0 {
        display.line(&format!(
            "match: resuming: {resumed_count} games already played, {} to play",
            jobs.len()
        ));
    }
    let workers_wanted = config.concurrency.min(jobs.len().max(1));
    let queue = Arc::new(Mutex::new(jobs));
    let stop = Arc::new(AtomicBool::new(false));
    let config = Arc::new(config);
    let (sender, events) = channel::<Event>();
    let mut workers = Vec::new();
    for _ in 0..workers_wanted {
        let (queue, stop, config, sender) =
            (queue.clone(), stop.clone(), config.clone(), sender.clone());
        workers.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) && signals::caught().is_none() {
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
                if signals::caught().is_some() {
                    break; // cut short by the interruption, or not: it is abandoned either way
                }
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
    let (mut started, mut finished) = (0, 0);
    let mut interrupted = None;
    let progress = |finished: usize, started: usize| Progress {
        done: resumed_count + finished,
        total: shard_games,
        running: started - finished,
    };
    loop {
        let event = match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => Some(event),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if interrupted.is_none()
            && let Some(signal) = signals::caught()
        {
            interrupted = Some(signal);
            stop.store(true, Ordering::Relaxed);
        }
        let played = match event {
            None => continue,
            Some(Event::Started) => {
                started += 1;
                display.status(progress(finished, started), &names, &scores);
                continue;
            }
            Some(Event::Finished(played)) => *played,
        };
        finished += 1;
        recorder.add(&played, &config);
        display.line(&game_line(&played, &config.engines, total));
        let pair = (played.number - 1) / 2;
        let score = score_game(
            &mut scores,
            played.black,
            played.white,
            played.game.black_margin,
            pair,
        );
        verdict = sprt_after(verdict, score, config.sprt);
        if verdict != SprtVerdict::Continue {
            // Games already under way still finish and count.
            stop.store(true, Ordering::Relaxed);
        }
        display.status(progress(finished, started), &names, &scores);
    }
    for worker in workers {
        let _ = worker.join();
    }
    // The workers may all have stopped on the signal before the loop above looked.
    let interrupted = interrupted.or_else(signals::caught);
    let results = &recorder.results;
    if let Some(signal) = interrupted {
        display.line(&format!(
            "match interrupted by {}: {} games finished, {} under way abandoned{}",
            signals::name(signal),
            results.games.len(),
            started - finished,
            if config.results.is_some() {
                "; the same command with --resume plays the rest"
            } else {
                ""
            }
        ));
        display.line(&summary(results, config.sprt.map(|s| (s, verdict))));
        exit_after(signal);
    }
    display.line(&summary(results, config.sprt.map(|s| (s, verdict))));
    recorder.write_results()
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
