//! `othello-engine datagen`: training data from self-play or WTHOR games, as shards in a
//! folder (`--out-dir DIR`, `shards.rs`) or as one file of 24-byte records (`--out FILE`), and
//! the tools for both: `merge`, `stats`, `relabel`, `pack`, `index`. The games and labels are
//! made in `game::datagen`, the formats are `game::datagen::shard` and `fit::dataset`; this
//! file reads the flags, keeps the output file, shows progress and stops cleanly on SIGINT or
//! SIGTERM.

mod file_tools;
mod pilot;
mod shards;
mod swing;

use super::args::{
    CliError, error, hash_mib, install_network_files, number_in, parse_in_range, seed, span,
    weights_file,
};
use crate::cli::error::catch_signals;
use crate::eval::EvaluatorKind;
use crate::eval::pattern::PatternWeights;
use crate::fit::dataset::{DatasetWriter, FLAG_WTHOR, Sample, parse_dataset};
use crate::game::datagen::{DatagenSettings, in_shard, resume_point, self_play_game, wthor_game};
use crate::game::wthor::{DEFAULT_WTHOR_DIR, read_wthor_dir};
use crate::search::{Limits, Searcher};
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use clap::{Args, Subcommand};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The table size when `--hash` is not given, in MiB: enough for solves of 20 empties, and
/// small enough that clearing it before each game costs little.
const DEFAULT_HASH_MIB: usize = 16;

/// `datagen`: a generation run, or `datagen merge` / `datagen stats`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DatagenCommand {
    #[command(subcommand)]
    tool: Option<DatagenTool>,
    #[command(flatten)]
    args: DatagenArgs,
}

/// The tools for data files.
#[derive(Subcommand, Debug)]
enum DatagenTool {
    /// Join the files of a run's shards into one, ordered by game.
    #[command(args_override_self = true)]
    Merge {
        /// Files written by `datagen --shard i/n`.
        #[arg(value_name = "FILE")]
        files: Vec<String>,
        /// The merged file (must not exist yet).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
    },
    /// Count a data file's or a shard folder's positions, games and exact labels, per source
    /// and per bracket of empties.
    #[command(args_override_self = true)]
    Stats {
        /// A file written by `datagen --out`, or a shard folder.
        #[arg(value_name = "FILE|DIR")]
        file: String,
        /// The WTHOR folder whose games WTHOR shards label.
        #[arg(long, value_name = "DIR", default_value = DEFAULT_WTHOR_DIR)]
        wthor: String,
    },
    /// Label the games of a shard folder again by another recipe, into --out-dir.
    #[command(args_override_self = true)]
    Relabel {
        /// The shard folder to read.
        #[arg(value_name = "DIR")]
        from: String,
        #[command(flatten)]
        args: DatagenArgs,
    },
    /// Make shards of a file of 24-byte records (`datagen --out`), into --out-dir.
    #[command(args_override_self = true)]
    Pack {
        /// The file to read.
        #[arg(value_name = "FILE")]
        file: String,
        #[command(flatten)]
        args: DatagenArgs,
    },
    /// Write a shard folder's MANIFEST.json anew from its shards (after copying shards made on
    /// several machines into one folder).
    #[command(args_override_self = true)]
    Index {
        /// The shard folder.
        #[arg(value_name = "DIR")]
        dir: String,
    },
    /// Reference values of held-out positions of a shard folder, for the label pilot: --out
    /// FILE, --games N positions (default 5000), exact to --solve-empties (default 24), else
    /// a search of --depth (default 16) at --selectivity (default 87); reruns go on.
    #[command(args_override_self = true)]
    Reference {
        /// The shard folder whose held-out games give the positions.
        #[arg(value_name = "DIR")]
        from: String,
        /// Only positions with MIN to MAX empties (default all).
        #[arg(long, value_name = "MIN-MAX")]
        empties: Option<String>,
        #[command(flatten)]
        args: DatagenArgs,
    },
    /// Each shard folder's labels, and each weights file's static values, against reference
    /// values (`datagen reference`): the mean absolute difference per bracket of empties.
    #[command(args_override_self = true)]
    Compare {
        /// Shard folders labelling the same games.
        #[arg(value_name = "DIR", required_unless_present_any = ["weights", "networks"])]
        dirs: Vec<String>,
        /// Weights files (written by `train`) whose values of the positions are compared too.
        #[arg(long = "weights", value_name = "FILE")]
        weights: Vec<String>,
        /// Networks (written by `train --model net`) whose values are compared too.
        #[arg(long = "network", value_name = "FILE")]
        networks: Vec<String>,
        /// The reference values.
        #[arg(long, value_name = "FILE")]
        reference: String,
        /// The WTHOR folder whose games WTHOR shards label.
        #[arg(long, value_name = "DIR", default_value = DEFAULT_WTHOR_DIR)]
        wthor: String,
    },
    /// The parity swing: exact reference values (`datagen reference --solve-empties 30
    /// --empties 26-30`) against the root values of searches to --depths (default 13,14) at
    /// --selectivity (default 73): the mean signed and absolute error per depth, and between
    /// depths of either parity.
    Swing(swing::SwingArgs),
}

/// The flags of a generation run. Values stay text here and are checked in [`run`], so that
/// every mistake gets our own one-line message.
#[derive(Args, Debug)]
pub struct DatagenArgs {
    /// Games to play (with --wthor: at most this many of the folder's games; default all).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    games: Option<String>,
    /// The data file to write; it must not exist unless --resume.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Write shards into this folder (with its MANIFEST.json) instead of one file; the same
    /// command resumes a stopped run.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<String>,
    /// Games per shard with --out-dir (default 2000).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    games_per_shard: Option<String>,
    /// How selective the searches are: 73, 87, 95, 98, 99 or 100 (full width, the default).
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    selectivity: Option<String>,
    /// The run's seed: with a game's index it fixes the game (default 0).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    seed: Option<String>,
    /// The number of random moves that open a game, drawn per game (default 6-12).
    #[arg(long, value_name = "MIN-MAX", allow_hyphen_values = true)]
    random_plies: Option<String>,
    /// Depth of the searches that choose the moves and value the positions before the solve
    /// point, 1 to 30 (default 6); with --wthor, 0 values them by the game's ending instead.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    depth: Option<String>,
    /// The evaluator of those searches (default pattern).
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// Weights for `pattern` from FILE (written by `train`) instead of the built-in ones: a
    /// shard folder's labels must all come from the same weights, whatever binary extends it
    /// (`scripts/make-data` passes those of data/train/d6).
    #[arg(long, value_name = "FILE", value_parser = weights_file)]
    weights: Option<PatternWeights>,
    /// The network of `--eval neural` from FILE (written by `train --model net`) instead of
    /// the built-in one: a shard folder's labels all come from one network, whose SHA-256
    /// every shard's header and the manifest name.
    #[arg(long, value_name = "FILE")]
    network: Option<String>,
    /// The Multi-ProbCut table of `--eval neural` from FILE (written by `mpc calibrate`), for
    /// a selective labeller with `--network` (default: the built-in network's table).
    #[arg(long, value_name = "FILE")]
    mpc_table: Option<String>,
    /// The chance of a random move instead of the searched one, 0 to 1 (default 0.05).
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    epsilon: Option<String>,
    /// Solve every position with this many empties or fewer, 0 to 30 (default 20).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    solve_empties: Option<String>,
    /// Play only the games g with g % n = i - 1, for n machines with one command line.
    #[arg(long, value_name = "i/n", allow_hyphen_values = true)]
    shard: Option<String>,
    /// Continue the --out file of a stopped run with the same flags.
    #[arg(long)]
    resume: bool,
    /// Transposition table size in MiB (default 16).
    #[arg(long, value_name = "MIB", value_parser = hash_mib, allow_hyphen_values = true)]
    hash: Option<usize>,
    /// Label the positions of the WTHOR games of DIR instead of playing games.
    #[arg(long, value_name = "DIR")]
    wthor: Option<String>,
}

/// Runs `datagen`, `datagen merge` or `datagen stats`.
pub fn run(command: DatagenCommand) -> Result<(), CliError> {
    match command.tool {
        Some(DatagenTool::Merge { files, out }) => file_tools::merge(&files, out.as_deref()),
        Some(DatagenTool::Stats { file, wthor }) if Path::new(&file).is_dir() => {
            shards::folder_stats(&file, &wthor)
        }
        Some(DatagenTool::Stats { file, .. }) => file_tools::stats(&file),
        Some(DatagenTool::Relabel { from, args }) => {
            let settings = settings(&args)?;
            let wthor = args
                .wthor
                .clone()
                .unwrap_or_else(|| DEFAULT_WTHOR_DIR.into());
            shards::relabel(&from, &args, settings, &wthor)
        }
        Some(DatagenTool::Pack { file, args }) => {
            let settings = settings(&args)?;
            shards::pack(&file, &args, settings)
        }
        Some(DatagenTool::Index { dir }) => shards::index(&dir),
        Some(DatagenTool::Reference {
            from,
            empties,
            args,
        }) => {
            let wthor = args
                .wthor
                .clone()
                .unwrap_or_else(|| DEFAULT_WTHOR_DIR.into());
            pilot::reference(&from, empties.as_deref(), &args, &wthor)
        }
        Some(DatagenTool::Compare {
            dirs,
            weights,
            networks,
            reference,
            wthor,
        }) => pilot::compare(&reference, &dirs, &weights, &networks, &wthor),
        Some(DatagenTool::Swing(args)) => swing::run(&args),
        None => generate(command.args),
    }
}

/// The settings the flags give, checked. `--weights` takes effect here, for every tool that
/// searches reads its settings first.
fn settings(args: &DatagenArgs) -> Result<DatagenSettings, CliError> {
    if let Some(weights) = &args.weights {
        crate::eval::pattern::use_weights(weights.clone()).map_err(error)?;
    }
    let seed = args
        .seed
        .as_deref()
        .map(seed)
        .transpose()
        .map_err(error)?
        .unwrap_or(0);
    let eval = match &args.eval {
        Some(e) => e
            .parse::<EvaluatorKind>()
            .map_err(|e| error(format!("--eval: {e}")))?,
        None => EvaluatorKind::Pattern,
    };
    if eval == EvaluatorKind::Random {
        return Err(error("datagen needs a searching evaluator, not random"));
    }
    install_labeller_network(args, eval)?;
    let epsilon = match &args.epsilon {
        Some(text) => number_in(text, "epsilon", 0.0..=1.0)?,
        None => 0.05,
    };
    let selectivity = match &args.selectivity {
        Some(text) => text
            .parse()
            .map_err(|e| error(format!("--selectivity: {e}")))?,
        None => crate::search::Selectivity::FULL,
    };
    Ok(DatagenSettings {
        selectivity,
        seed,
        random_plies: match &args.random_plies {
            Some(text) => span(text, "random-plies", 0, 60)?,
            None => (6, 12),
        },
        depth: match &args.depth {
            // Depth 0 (WTHOR only) keeps the game's ending as the value of unsolved positions.
            Some(d) if args.wthor.is_some() => parse_in_range(d, "depth", 0..=30)?,
            Some(d) => parse_in_range(d, "depth", 1..=30)?,
            None => 6,
        },
        eval,
        epsilon,
        solve_empties: match &args.solve_empties {
            Some(n) => parse_in_range(n, "solve-empties", 0..=30)?,
            None => 20,
        },
    })
}

/// Installs `--network` and `--mpc-table`, which only the `neural` labeller reads; a file
/// that is missing, not a network (or table), or damaged is refused in one line naming it,
/// before anything is written.
fn install_labeller_network(args: &DatagenArgs, eval: EvaluatorKind) -> Result<(), CliError> {
    if eval != EvaluatorKind::Neural {
        if let Some(flag) = [("network", &args.network), ("mpc-table", &args.mpc_table)]
            .iter()
            .find_map(|(name, value)| value.as_ref().map(|_| name))
        {
            return Err(error(format!(
                "--{flag} is read by --eval neural only (this run's evaluator is {eval})"
            )));
        }
        return Ok(());
    }
    install_network_files(args.network.as_deref(), args.mpc_table.as_deref())
}

/// The games of a run: `--games`, or with WTHOR the folder's games (at most `--games`).
fn total_games(args: &DatagenArgs, wthor_games: Option<usize>) -> Result<u32, CliError> {
    let limit = args
        .games
        .as_deref()
        .map(|g| parse_in_range(g, "games", 1..=1_000_000_000))
        .transpose()?;
    match (wthor_games, limit) {
        (Some(available), limit) => {
            let available = u32::try_from(available).unwrap_or(u32::MAX);
            Ok(limit.map_or(available, |l| l.min(available)))
        }
        (None, Some(n)) => Ok(n),
        (None, None) => Err(error("datagen needs --games N")),
    }
}

/// Where the games come from.
enum Source {
    /// Self-play.
    SelfPlay,
    /// The moves of the WTHOR games of a folder, in file order.
    Wthor(Vec<Vec<crate::board::Square>>),
}

/// Opens the output file: a new one (refused if it exists, unless `resume`), or the file of a
/// stopped run cut back to its last whole game. Returns the writer and the first game to play.
fn open_output(
    out: &str,
    resume: bool,
    shard: Option<(u32, u32)>,
    games: u32,
    wthor: bool,
) -> Result<(DatasetWriter<File>, u32, usize), CliError> {
    let exists = Path::new(out).exists();
    if exists && !resume {
        return Err(error(format!(
            "{out} exists: add --resume to continue it, or remove it"
        )));
    }
    if !exists {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(out)
            .map_err(|e| error(format!("cannot create {out}: {e}")))?;
        let writer =
            DatasetWriter::create(file).map_err(|e| error(format!("cannot write {out}: {e}")))?;
        return Ok((writer, 0, 0));
    }
    let bytes = std::fs::read(out).map_err(|e| error(format!("cannot read {out}: {e}")))?;
    let point = resume_point(&bytes, shard, games)
        .map_err(|e| error(format!("cannot resume {out}: {e}")))?;
    let (samples, _) = parse_dataset(&bytes, true).map_err(error)?;
    if let Some(s) = samples
        .iter()
        .find(|s| (s.flags & FLAG_WTHOR != 0) != wthor)
    {
        let (file_kind, run_kind) = if wthor {
            ("self-play", "--wthor")
        } else {
            ("WTHOR", "self-play")
        };
        return Err(error(format!(
            "cannot resume {out}: game {} is {file_kind} data, this run is {run_kind}",
            s.game
        )));
    }
    let mut file = OpenOptions::new()
        .write(true)
        .open(out)
        .map_err(|e| error(format!("cannot open {out}: {e}")))?;
    file.set_len(point.keep_bytes)
        .and_then(|()| file.seek(SeekFrom::End(0)).map(|_| ()))
        .map_err(|e| error(format!("cannot cut {out} back to its last whole game: {e}")))?;
    let next = point.next_game.unwrap_or(0);
    Ok((DatasetWriter::append(file), next, point.kept_records))
}

/// A generation run.
fn generate(args: DatagenArgs) -> Result<(), CliError> {
    let settings = settings(&args)?;
    if let Some(dir) = &args.out_dir {
        if args.out.is_some() || args.resume {
            return Err(error(
                "--out-dir writes shards and resumes by itself: give neither --out nor --resume",
            ));
        }
        return shards::generate_shards(&args, settings, dir);
    }
    let out = args
        .out
        .as_deref()
        .ok_or_else(|| error("datagen needs --out FILE or --out-dir DIR"))?;
    let shard = args.shard.as_deref().map(super::args::shard).transpose()?;
    let games_limit = args
        .games
        .as_deref()
        .map(|g| parse_in_range(g, "games", 1..=1_000_000_000))
        .transpose()?;
    let source = match &args.wthor {
        Some(dir) => {
            let games = read_wthor_dir(Path::new(dir)).map_err(error)?;
            Source::Wthor(games.into_iter().map(|(g, _)| g.moves).collect())
        }
        None => Source::SelfPlay,
    };
    let total = match (&source, games_limit) {
        (Source::Wthor(games), limit) => {
            let available = u32::try_from(games.len()).unwrap_or(u32::MAX);
            limit.map_or(available, |l| l.min(available))
        }
        (Source::SelfPlay, Some(n)) => n,
        (Source::SelfPlay, None) => return Err(error("datagen needs --games N")),
    };
    let is_wthor = matches!(source, Source::Wthor(_));
    let (mut writer, first, kept_records) = open_output(out, args.resume, shard, total, is_wthor)?;
    let to_play: Vec<u32> = (first..total).filter(|&g| in_shard(g, shard)).collect();
    let shard_total = (0..total).filter(|&g| in_shard(g, shard)).count();
    let already = shard_total - to_play.len();
    if already > 0 {
        eprintln!(
            "datagen: resuming {out}: {already} games ({kept_records} positions) kept, from game {first}"
        );
    }

    let stop = catch_signals()?;
    let limits = Limits {
        stop: Arc::clone(&stop),
        ..Limits::none()
    };
    let mut searcher = Searcher::new(args.hash.unwrap_or(DEFAULT_HASH_MIB), Some(settings.seed));
    searcher.set_selectivity(settings.selectivity);
    let mut progress = Progress::new("datagen", "games", shard_total, already);
    let start = Instant::now();
    let (mut games_done, mut positions) = (0usize, 0u64);
    for &game in &to_play {
        let samples: Option<Vec<Sample>> = match &source {
            Source::SelfPlay => self_play_game(&mut searcher, &settings, game, &limits),
            Source::Wthor(games) => wthor_game(
                &mut searcher,
                &settings,
                &games[game as usize],
                game,
                &limits,
            )
            .map_err(|e| error(format!("WTHOR game {game}: {e}")))?,
        };
        let Some(samples) = samples else { break };
        writer
            .write_game(&samples)
            .map_err(|e| error(format!("cannot write {out}: {e}")))?;
        games_done += 1;
        positions += samples.len() as u64;
        progress.show(already + games_done, &format!("{positions} positions"));
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "datagen: {games_done} games, {positions} positions, {:.0} positions/s, {secs:.1} s",
        positions as f64 / secs.max(1e-9)
    );
    exit_if_caught(
        "datagen",
        &format!("{out} holds every finished game: rerun with --resume to go on"),
    );
    Ok(())
}
