//! The match command: reads the options, checks everything before the first game, hands the
//! schedule to the workers, prints one line per game and the summary, and keeps the records.
//! The results and GGF files are brought up to date after every game (the results file
//! replaced atomically), so an interrupted match loses only the games under way, and
//! `--resume` plays only the games its results file lacks.

use super::client::{GtpEngine, NBoardEngine};
use super::config::{MatchConfig, distinct_names};
use super::display::{Display, Progress, game_line};
use super::error::{MatchError, MatchFile};
use super::pool::{Event, Pool};
use super::recorder::Recorder;
use super::referee::SETUP_TIMEOUT;
use super::results::{GameRow, Results};
use super::schedule::{Job, in_shard, read_previous, resumed_games, schedule};
use super::spec::{EngineProtocol, EngineSpec};
use super::stats::{PairingScore, Sprt, SprtVerdict, pairings, score_game};
use super::summary::{summary, time_left_line};
use crate::game::clock::TimeControl;
use crate::sys::files::check_writable;
use crate::sys::signals::{self, exit_after};
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// How often the runner looks for a signal while no game ends.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Checks that every engine starts and answers its protocol (GTP `protocol_version`, NBoard
/// `ping`) before any game is played; an NBoard engine without `name=` takes the name it gives
/// with `set myname`.
fn probe(engines: &mut [EngineSpec]) -> Result<(), MatchError> {
    for spec in engines.iter_mut() {
        let fail = |why: String| MatchError::EngineFails {
            name: spec.name.clone(),
            program: spec.program.clone(),
            why,
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

/// Checks, before any engine starts, that the output files can be written (a match must not
/// play for hours and then fail to write them).
fn check_files(config: &MatchConfig) -> Result<(), MatchError> {
    if let (Some(results), Some(ggf)) = (&config.results, &config.ggf)
        && Path::new(results) == Path::new(ggf)
    {
        return Err(MatchError::SameFile(results.clone()));
    }
    for (path, file) in [
        (&config.results, MatchFile::Results),
        (&config.ggf, MatchFile::Ggf),
    ] {
        if let Some(path) = path {
            check_writable(Path::new(path)).map_err(|error| MatchError::CannotWrite {
                file,
                path: path.clone(),
                error,
            })?;
        }
    }
    Ok(())
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

/// The score of every pairing so far and the SPRT's verdict, if one runs.
struct Tally {
    scores: Vec<PairingScore>,
    sprt: Option<Sprt>,
    verdict: SprtVerdict,
}

impl Tally {
    fn new(engines: usize, sprt: Option<Sprt>) -> Tally {
        Tally {
            scores: pairings(engines),
            sprt,
            verdict: SprtVerdict::Continue,
        }
    }

    /// Counts a game; the SPRT's first decision stands.
    fn add(&mut self, black: usize, white: usize, black_margin: i32, pair: usize) {
        let score = score_game(&mut self.scores, black, white, black_margin, pair);
        if let (Some(score), Some(sprt), SprtVerdict::Continue) = (score, self.sprt, self.verdict) {
            self.verdict = sprt.verdict(score.penta.llr(sprt.elo0, sprt.elo1));
        }
    }

    /// Whether the SPRT has decided (no more games need starting).
    fn decided(&self) -> bool {
        self.verdict != SprtVerdict::Continue
    }

    /// The SPRT and its verdict, for the summary.
    fn sprt(&self) -> Option<(Sprt, SprtVerdict)> {
        self.sprt.map(|s| (s, self.verdict))
    }
}

/// The games resumed from the results file, if the match resumes one.
fn resumed(
    config: &MatchConfig,
    schedule: &[Job],
    previous: Option<Results>,
) -> Result<Vec<GameRow>, MatchError> {
    Ok(match (previous, &config.results) {
        (Some(previous), Some(path)) => resumed_games(config, schedule, previous, path)?,
        (None, Some(path)) if config.resume => {
            eprintln!(
                "match: note: no results file '{path}' yet: the match starts from its first game"
            );
            Vec::new()
        }
        _ => Vec::new(),
    })
}

/// Plays the match of `config`: everything is checked before the first game (the files
/// writable, the results file to resume this match's, every engine working). SIGINT or SIGTERM stops the match: games under way are abandoned,
/// engines stopped, finished games kept in the files, the summary so far printed, and the
/// process exits with status 128 + the signal (130, 143).
pub fn run_match(mut config: MatchConfig) -> Result<(), MatchError> {
    check_files(&config)?;
    let previous = match (&config.results, config.resume) {
        (Some(path), true) => read_previous(path)?,
        _ => None,
    };
    init_logging();
    if let Err(e) = signals::catch() {
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
    let resumed = resumed(&config, &schedule, previous)?;
    let recorder = Recorder::open(&config, schedule.len(), resumed)?;
    Run::new(config, schedule.len(), recorder).play(schedule)
}

/// A match under way: what the runner keeps while the workers play.
struct Run {
    config: Arc<MatchConfig>,
    names: Vec<String>,
    /// Games in the whole schedule.
    total: usize,
    recorder: Recorder,
    tally: Tally,
    display: Display,
    /// Games taken from the results file.
    resumed: usize,
    /// Games started and finished by this run.
    started: usize,
    finished: usize,
}

impl Run {
    /// The match of `config` with `total` games scheduled, its results so far in `recorder`
    /// (counted at once, so that a decided SPRT stays decided).
    fn new(config: MatchConfig, total: usize, recorder: Recorder) -> Run {
        let names = config.names();
        let mut tally = Tally::new(config.engines.len(), config.sprt);
        for game in &recorder.results.games {
            let index = |name: &str| names.iter().position(|n| n == name);
            if let (Some(black), Some(white)) = (index(&game.black), index(&game.white)) {
                tally.add(black, white, game.black_margin, game.pair());
            }
        }
        Run {
            resumed: recorder.results.games.len(),
            config: Arc::new(config),
            names,
            total,
            recorder,
            tally,
            display: Display::stdout(),
            started: 0,
            finished: 0,
        }
    }

    /// Plays the games of `schedule` this run owes (its shard's, not played yet, none once
    /// the SPRT has decided), then prints the summary and writes the results file; after a
    /// signal, prints the summary so far and exits.
    fn play(mut self, schedule: Vec<Job>) -> Result<(), MatchError> {
        let config = self.config.clone();
        let done: HashSet<usize> = self
            .recorder
            .results
            .games
            .iter()
            .map(|g| g.number)
            .collect();
        let shard_games = schedule
            .iter()
            .filter(|job| in_shard(job, config.shard))
            .count();
        let jobs: VecDeque<Job> = if self.tally.decided() {
            VecDeque::new()
        } else {
            schedule
                .into_iter()
                .filter(|job| in_shard(job, config.shard) && !done.contains(&job.number))
                .collect()
        };
        self.display.line(&format!(
            "match: {} engines, {} openings, {} games{}, {} at once",
            config.engines.len(),
            config.openings.len(),
            self.total,
            config.shard.map_or(String::new(), |(i, n)| format!(
                " (shard {i}/{n}: {shard_games} of them)"
            )),
            config.concurrency
        ));
        if config.resume && self.resumed > 0 {
            self.display.line(&format!(
                "match: resuming: {} games already played, {} to play",
                self.resumed,
                jobs.len()
            ));
        }
        let pool = Pool::start(
            config.concurrency.min(jobs.len().max(1)),
            jobs,
            config.clone(),
        );
        let interrupted = self.watch(&pool, shard_games);
        pool.join();
        // The workers may all have stopped on the signal before the loop looked.
        let interrupted = interrupted.or_else(signals::caught);
        let mut summary = summary(&self.recorder.results, self.tally.sprt());
        if let TimeControl::Fischer { base, increment } = config.control
            && increment.is_zero()
            && config.engines.iter().all(|e| e.control.is_none())
            && let Some(line) = time_left_line(&self.recorder.results, base.as_secs_f64())
        {
            summary += &line;
        }
        if let Some(signal) = interrupted {
            self.display.line(&format!(
                "match interrupted by {}: {} games finished, {} under way abandoned{}",
                signals::name(signal),
                self.recorder.results.games.len(),
                self.started - self.finished,
                if config.results.is_some() {
                    "; the same command with --resume plays the rest"
                } else {
                    ""
                }
            ));
            self.display.line(&summary);
            exit_after(signal);
        }
        self.display.line(&summary);
        self.recorder.write_results()
    }

    /// Follows the workers' events until the last worker ends: records and shows each game,
    /// keeps the status line, and stops the workers when the SPRT decides or a signal comes
    /// (whose number it returns). `shard_games` is the games this shard plays in all.
    fn watch(&mut self, pool: &Pool, shard_games: usize) -> Option<i32> {
        let mut interrupted = None;
        loop {
            let event = match pool.events.recv_timeout(SIGNAL_POLL) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if interrupted.is_none()
                && let Some(signal) = signals::caught()
            {
                interrupted = Some(signal);
                pool.stop();
            }
            match event {
                None => continue,
                Some(Event::Started) => self.started += 1,
                Some(Event::Finished(played)) => {
                    self.finished += 1;
                    self.recorder.add(&played, &self.config);
                    self.display
                        .line(&game_line(&played, &self.names, self.total));
                    let pair = (played.number - 1) / 2;
                    self.tally
                        .add(played.black, played.white, played.game.black_margin, pair);
                    if self.tally.decided() {
                        // Games already under way still finish and count.
                        pool.stop();
                    }
                }
            }
            let progress = Progress {
                done: self.resumed + self.finished,
                total: shard_games,
                running: self.started - self.finished,
            };
            self.display
                .status(progress, &self.names, &self.tally.scores);
        }
        interrupted
    }
}
