//! What stops a match or a merge outside the games themselves: an engine that does not work,
//! a file that cannot be read or written, a results file of another match. Typed, so that the
//! command line (which prints one line and exits with status 2) and tests can tell them apart.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// An output file of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchFile {
    /// The results (JSON or CSV), rewritten after every game.
    Results,
    /// Every game in GGF, appended after every game.
    Ggf,
}

impl fmt::Display for MatchFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MatchFile::Results => "results",
            MatchFile::Ggf => "GGF",
        })
    }
}

/// Why a match or a merge cannot go on.
#[derive(Debug)]
pub enum MatchError {
    /// The results and the GGF file are one file.
    SameFile(String),
    /// An output file cannot be written (checked before the first game, then at every write).
    CannotWrite {
        /// Which file.
        file: MatchFile,
        /// Its path.
        path: String,
        /// Why.
        error: io::Error,
    },
    /// A results file cannot be read.
    CannotRead {
        /// Its path.
        path: String,
        /// Why.
        error: io::Error,
        /// Whether it was read to resume a match (rather than to merge it).
        resuming: bool,
    },
    /// A results file was read but holds no results.
    BadResults {
        /// Its path.
        path: String,
        /// What is wrong with it.
        error: String,
        /// Whether it was read to resume a match (rather than to merge it).
        resuming: bool,
    },
    /// The results file to resume is another match's.
    CannotResume {
        /// Its path.
        path: String,
        /// How it differs from this match.
        why: String,
    },
    /// An engine does not start or does not answer its protocol.
    EngineFails {
        /// Its name in the match.
        name: String,
        /// Its program.
        program: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// A merge of no files.
    NothingToMerge,
    /// Results files that cannot be combined (other engines, schedules, a game twice).
    Unmergeable(String),
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let to_resume = |resuming: bool| if resuming { " to resume" } else { "" };
        match self {
            MatchError::SameFile(path) => {
                write!(f, "--results and --ggf name the same file '{path}'")
            }
            MatchError::CannotWrite { file, path, error } => {
                write!(f, "cannot write {file} file '{path}': {error}")
            }
            MatchError::CannotRead {
                path,
                error,
                resuming,
            } => write!(
                f,
                "cannot read results file '{path}'{}: {error}",
                to_resume(*resuming)
            ),
            MatchError::BadResults {
                path,
                error,
                resuming,
            } => write!(
                f,
                "results file '{path}' cannot be read{}: {error}",
                to_resume(*resuming)
            ),
            MatchError::CannotResume { path, why } => write!(
                f,
                "cannot resume from results file '{path}': {why}; resume with the command line \
                 that wrote it"
            ),
            MatchError::EngineFails { name, program, why } => write!(
                f,
                "engine '{name}' ({}) does not work: {why}",
                program.display()
            ),
            MatchError::NothingToMerge => f.write_str(
                "match merge needs one or more results files (written by match --results)",
            ),
            MatchError::Unmergeable(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for MatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MatchError::CannotWrite { error, .. } | MatchError::CannotRead { error, .. } => {
                Some(error)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_one_line_naming_the_file() {
        let missing = || io::Error::new(io::ErrorKind::NotFound, "gone");
        let cases = [
            (
                MatchError::CannotWrite {
                    file: MatchFile::Ggf,
                    path: "g.ggf".into(),
                    error: missing(),
                },
                "cannot write GGF file 'g.ggf': gone",
            ),
            (
                MatchError::CannotRead {
                    path: "r.json".into(),
                    error: missing(),
                    resuming: true,
                },
                "cannot read results file 'r.json' to resume: gone",
            ),
            (
                MatchError::BadResults {
                    path: "r.json".into(),
                    error: "line 1".into(),
                    resuming: false,
                },
                "results file 'r.json' cannot be read: line 1",
            ),
            (
                MatchError::CannotResume {
                    path: "r.json".into(),
                    why: "its schedule has 12 games, this match's 10".into(),
                },
                "cannot resume from results file 'r.json': its schedule has 12 games, this \
                 match's 10; resume with the command line that wrote it",
            ),
            (
                MatchError::EngineFails {
                    name: "edax".into(),
                    program: "/bin/edax".into(),
                    why: "'ping': timeout".into(),
                },
                "engine 'edax' (/bin/edax) does not work: 'ping': timeout",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
