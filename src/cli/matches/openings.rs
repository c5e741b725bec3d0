//! The match's openings from its flags: the built-in balanced set, a file, or every position a
//! few plies deep; then the first `--max-openings` or a seeded `--sample`.

use super::MatchArgs;
use crate::cli::args::{CliError, error};
use crate::game::openings::{
    BUILTIN_OPENINGS, Opening, balanced_set, generate, parse_openings, shuffle,
};

/// The seed of the opening shuffle without `--seed`.
const DEFAULT_SEED: u64 = 1;

/// The openings in playing order: read from `--openings` (in the file's order), or every
/// opening of `--opening-plies`, or the built-in balanced set, both shuffled by `--seed`; then
/// the first `--max-openings`, or `--sample` of them drawn by `--seed`.
pub(super) fn openings(args: &MatchArgs) -> Result<Vec<Opening>, CliError> {
    let seed = args.seed.unwrap_or(DEFAULT_SEED);
    if args.openings.is_some() && args.opening_plies.is_some() {
        return Err(error("give --openings or --opening-plies, not both"));
    }
    let mut openings = match (&args.openings, args.opening_plies) {
        (Some(path), _) if path != BUILTIN_OPENINGS => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| error(format!("cannot read openings file '{path}': {e}")))?;
            parse_openings(&text, path).map_err(CliError)?
        }
        (_, Some(plies)) => {
            let mut all = generate(plies);
            shuffle(&mut all, seed);
            all
        }
        _ => {
            let mut all = balanced_set();
            shuffle(&mut all, seed);
            all
        }
    };
    match (args.max_openings, args.sample) {
        (Some(_), Some(_)) => {
            return Err(error("give --max-openings or --sample, not both"));
        }
        (Some(n), None) => openings.truncate(n as usize),
        (None, Some(n)) => {
            let n = n as usize;
            if n > openings.len() {
                return Err(error(format!(
                    "--sample {n}: there are only {} openings to draw from",
                    openings.len()
                )));
            }
            // A seeded draw without replacement: the first n of a shuffled copy. The
            // built-in and generated sets are shuffled already; another shuffle is harmless.
            shuffle(&mut openings, seed);
            openings.truncate(n);
        }
        (None, None) => {}
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use std::collections::HashSet;

    /// The openings of a match between two `self:` engines with the extra flags `extra`.
    fn openings_of(extra: &[&str]) -> Result<Vec<String>, CliError> {
        let mut a = vec!["--engine", "self:", "--engine", "self:", "--depth", "1"];
        a.extend_from_slice(extra);
        parse(&a).map(|c| c.openings.iter().map(Opening::compact).collect())
    }

    #[test]
    fn the_default_openings_are_the_balanced_set_shuffled_by_the_seed() {
        let set: Vec<String> = balanced_set().iter().map(Opening::compact).collect();
        assert!(set.len() >= 20, "{} balanced openings", set.len());
        let default = openings_of(&[]).unwrap();
        let mut sorted = default.clone();
        sorted.sort();
        let mut expected = set.clone();
        expected.sort();
        assert_eq!(sorted, expected);
        assert_eq!(default, openings_of(&["--openings", "builtin"]).unwrap());
        assert_ne!(default, openings_of(&["--seed", "2"]).unwrap());
    }

    #[test]
    fn sample_draws_a_seeded_subset_of_a_file() {
        let path = std::env::temp_dir().join(format!("oe-sample-{}.txt", std::process::id()));
        let lines: Vec<String> = generate(5).iter().map(Opening::compact).collect();
        std::fs::write(&path, lines.join("\n")).unwrap();
        let file = path.to_str().unwrap();
        let first = openings_of(&["--openings", file, "--max-openings", "10"]).unwrap();
        assert_eq!(first, lines[..10]);
        let a = openings_of(&["--openings", file, "--sample", "10", "--seed", "3"]).unwrap();
        let b = openings_of(&["--openings", file, "--sample", "10", "--seed", "3"]).unwrap();
        let c = openings_of(&["--openings", file, "--sample", "10", "--seed", "4"]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, first);
        let distinct: HashSet<&String> = a.iter().collect();
        assert_eq!(distinct.len(), 10);
        assert!(a.iter().all(|o| lines.contains(o)));
        let too_many = (lines.len() + 1).to_string();
        let e = openings_of(&["--openings", file, "--sample", &too_many]).unwrap_err();
        assert!(e.0.contains("only"), "{e}");
        let both = openings_of(&["--sample", "2", "--max-openings", "2"]).unwrap_err();
        assert!(both.0.contains("not both"), "{both}");
        let _ = std::fs::remove_file(&path);
    }
}
