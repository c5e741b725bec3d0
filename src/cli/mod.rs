//! The command line: one file (or folder) per subcommand, parsed with clap, and the arguments
//! they share (`args`). Usage errors, like every other bad input, are one line on stderr and
//! exit status 2 ([`error::CliError`]). The layers below know no flags: this module reads
//! them into their typed settings and turns their typed errors into that one line.

mod analyse;
mod args;
mod bench;
mod book;
mod datagen;
mod error;
mod matches;
mod mpc;
mod openings;
mod perft;
mod review;
mod serve;
mod solve;
mod train;

use crate::eval::EvaluatorKind;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use error::usage_error;
use std::process::ExitCode;

/// An Othello engine: serves NBoard and GTP on stdin/stdout (with no command, the first input
/// line picks the protocol), and tools for people who test engines.
#[derive(Parser, Debug)]
#[command(
    name = "othello-engine",
    version = crate::board::cpu::version_text(),
    args_conflicts_with_subcommands = true,
    args_override_self = true,
    after_help = evaluators_help()
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command: serve the protocol the first input line implies.
    #[command(flatten)]
    serve: serve::ServeArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the game tree to each depth (a pass is a ply; a finished game is
    /// one leaf).
    #[command(args_override_self = true)]
    Perft(perft::PerftArgs),
    /// Solve every position of an OBF file; exit status 1 if any answer is wrong.
    #[command(args_override_self = true)]
    Solve(solve::SolveArgs),
    /// Fixed-depth searches of 10 built-in midgame positions; the node total is a signature
    /// of the search.
    #[command(args_override_self = true)]
    Bench(bench::BenchArgs),
    /// Search one position as the engine would play it, printing every depth.
    #[command(alias = "analyze")]
    #[command(args_override_self = true)]
    Analyse(analyse::AnalyseArgs),
    /// Review games: each move's value against the best move's, the discs lost, mistakes and
    /// blunders, per game and per player (text, JSON, GGF, SVG).
    #[command(alias = "analyse-game", args_override_self = true)]
    Review(review::ReviewArgs),
    /// Serve the NBoard protocol on stdin/stdout (see protocol.md).
    #[command(args_override_self = true)]
    Nboard(serve::ServeArgs),
    /// Serve GTP on stdin/stdout (see protocol.md).
    #[command(args_override_self = true)]
    Gtp(serve::ServeArgs),
    /// Engine-against-engine games refereed by this program: each opening twice with colours
    /// swapped, then W/D/L, Elo, pentanomial counts and LOS.
    #[command(args_override_self = true)]
    Match(Box<matches::MatchCommand>),
    /// Fit the pattern weights to data files made by datagen
    #[command(args_override_self = true)]
    Train(train::TrainArgs),
    /// Training data: self-play (or WTHOR) games labelled by search and exact solver; `datagen
    /// merge` joins shard files, `datagen stats` counts a file.
    #[command(args_override_self = true)]
    Datagen(Box<datagen::DatagenCommand>),
    /// Multi-ProbCut: `mpc calibrate` fits the selective search's regressions.
    #[command(subcommand)]
    Mpc(mpc::MpcCommand),
    /// Match openings: `openings build` makes a set of balanced ones.
    #[command(subcommand)]
    Openings(openings::OpeningsCommand),
    /// The opening book: `book build`, `book extend`, `book show`, `book merge`.
    #[command(subcommand)]
    Book(book::BookCommand),
}

/// The command line with a server's flags moved after its command: `othello-engine --threads 2
/// gtp` reads as `othello-engine gtp --threads 2`, as users put flags before the command too.
/// The words before `nboard` or `gtp` must all be the servers' flags and their values (a flag
/// whose value is not joined by `=` takes the next word); anything else is left for clap to
/// refuse as it is.
fn servers_command_first(mut words: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let command = Cli::command();
    let mut i = 1;
    while let Some(word) = words.get(i).and_then(|w| w.to_str()) {
        if word == "nboard" || word == "gtp" {
            if i > 1 {
                words[1..=i].rotate_right(1);
            }
            break;
        }
        let Some(flag) = word.strip_prefix("--") else {
            break;
        };
        let (name, joined) = match flag.split_once('=') {
            Some((name, _)) => (name, true),
            None => (flag, false),
        };
        let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(name)) else {
            break;
        };
        let takes_a_word = arg.get_action().takes_values()
            && !arg.is_require_equals_set()
            && arg.get_num_args().is_none_or(|n| n.min_values() > 0);
        i += if takes_a_word && !joined { 2 } else { 1 };
    }
    words
}

/// The line of `--help` that names the evaluators, from the registry (`EvaluatorKind::ALL`).
fn evaluators_help() -> String {
    let names: Vec<&str> = EvaluatorKind::ALL.iter().map(|k| k.name()).collect();
    format!("Evaluators: {}.", names.join(", "))
}

/// Runs the command line of this process; the exit status to return.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(servers_command_first(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&usage_error(&e)),
    };
    if matches!(
        cli.command,
        Some(
            Command::Perft(_)
                | Command::Solve(_)
                | Command::Bench(_)
                | Command::Analyse(_)
                | Command::Review(_)
                | Command::Book(_)
                | Command::Datagen(_)
        )
    ) {
        crate::sys::signals::end_quietly_on_closed_output();
    }
    let result = match cli.command {
        None => serve::run(None, cli.serve),
        Some(Command::Perft(a)) => perft::run(a),
        Some(Command::Solve(a)) => match solve::run(a) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Some(Command::Bench(a)) => bench::run(a),
        Some(Command::Analyse(a)) => analyse::run(a),
        Some(Command::Review(a)) => match review::run(a) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Some(Command::Nboard(a)) => serve::run(Some(crate::protocol::Protocol::NBoard), a),
        Some(Command::Gtp(a)) => serve::run(Some(crate::protocol::Protocol::Gtp), a),
        Some(Command::Match(m)) => matches::run(*m),
        Some(Command::Train(a)) => train::run(a),
        Some(Command::Datagen(a)) => datagen::run(*a),
        Some(Command::Mpc(c)) => mpc::run(c),
        Some(Command::Book(c)) => book::run(c),
        Some(Command::Openings(c)) => openings::run(c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e.0),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("othello-engine: {message}");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(Into::into).collect()
    }

    #[test]
    fn server_flags_before_the_command_read_as_after_it() {
        for (given, read) in [
            ("oe --threads 2 gtp", "oe gtp --threads 2"),
            ("oe --ponder gtp --level 3", "oe gtp --ponder --level 3"),
            (
                "oe --ponder=off --hash 8 nboard",
                "oe nboard --ponder=off --hash 8",
            ),
            ("oe --log-file gtp nboard", "oe nboard --log-file gtp"),
            ("oe gtp --threads 2", "oe gtp --threads 2"),
            ("oe --threads 2 solve x.obf", "oe --threads 2 solve x.obf"),
            ("oe --threads 2", "oe --threads 2"),
            ("oe --nonsense gtp", "oe --nonsense gtp"),
        ] {
            assert_eq!(servers_command_first(words(given)), words(read), "{given}");
        }
        let cli = Cli::try_parse_from(servers_command_first(words("oe --ponder --threads 3 gtp")))
            .expect("parses");
        assert!(matches!(cli.command, Some(Command::Gtp(_))));
    }
    use clap::CommandFactory;

    #[test]
    fn help_lists_the_evaluators_of_the_registry_in_its_order() {
        let help = Cli::command().render_long_help().to_string();
        let line = help
            .lines()
            .find(|l| l.starts_with("Evaluators: "))
            .expect("--help names the evaluators");
        let listed: Vec<&str> = line
            .trim_start_matches("Evaluators: ")
            .trim_end_matches('.')
            .split(", ")
            .collect();
        let registry: Vec<&str> = EvaluatorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(listed, registry);
        for name in listed {
            let setting = crate::search::LevelSetting::parse("midgame-eval", name);
            assert!(setting.is_ok(), "--midgame-eval {name}: {setting:?}");
        }
    }

    #[test]
    fn a_value_parser_that_refuses_with_a_cli_error_gives_the_whole_line() {
        let words = ["othello-engine", "match", "--concurrency", "0"];
        let e = Cli::try_parse_from(words).expect_err("--concurrency 0 is refused");
        assert_eq!(
            usage_error(&e),
            "bad --concurrency '0': expected a whole number from 1 to 256"
        );
        let e = Cli::try_parse_from(["othello-engine", "analyse", "--hash", "lots"])
            .expect_err("--hash lots is refused");
        assert_eq!(
            usage_error(&e),
            "invalid value 'lots' for '--hash <MIB>': bad hash size (MiB) 'lots': expected a \
             whole number from 1 to 65536"
        );
    }
}
