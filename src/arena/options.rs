//! Command-line reading shared by the subcommands: positional arguments and `--flag value`
//! options, with errors that name the problem.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A command-line mistake; the binary prints it and exits with status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

/// Whether an option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// `--flag`
    Switch,
    /// `--flag VALUE` or `--flag=VALUE`
    Value,
}

/// Parsed arguments: positionals in order and the options given (the last one wins,
/// except for options read with [`Options::all`]).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Arguments that are not options, in order.
    pub positional: Vec<String>,
    values: HashMap<String, Vec<String>>,
}

impl Options {
    /// Splits `args` by the option table `known` (names without the leading `--`).
    pub fn parse(args: &[String], known: &[(&str, Arity)]) -> Result<Options, CliError> {
        let mut options = Options::default();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                options.positional.push(arg.clone());
                continue;
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            let Some(&(_, arity)) = known.iter().find(|(k, _)| *k == name) else {
                let names: Vec<String> = known.iter().map(|(k, _)| format!("--{k}")).collect();
                return Err(CliError(format!(
                    "unknown option '--{name}' (known here: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            };
            let value = match (arity, inline) {
                (Arity::Switch, None) => String::new(),
                (Arity::Switch, Some(_)) => {
                    return Err(CliError(format!("option '--{name}' takes no value")));
                }
                (Arity::Value, Some(v)) => v,
                (Arity::Value, None) => iter
                    .next()
                    .cloned()
                    .ok_or_else(|| CliError(format!("option '--{name}' needs a value")))?,
            };
            options
                .values
                .entry(name.to_string())
                .or_default()
                .push(value);
        }
        Ok(options)
    }

    /// True if the switch or option was given.
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The last value given for `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    /// Every value given for `name`, in order.
    pub fn all(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    /// The last value of `name` read as `T`, with a message naming the option on failure.
    pub fn parsed<T: FromStr>(&self, name: &str) -> Result<Option<T>, CliError>
    where
        T::Err: fmt::Display,
    {
        self.get(name)
            .map(|v| {
                v.parse::<T>()
                    .map_err(|e| CliError(format!("bad value '{v}' for --{name}: {e}")))
            })
            .transpose()
    }
}

/// Reads a whole number within `range`, naming `what` in the error.
pub fn parse_in_range(
    text: &str,
    what: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, CliError> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            CliError(format!(
                "bad {what} '{text}': expected a whole number from {} to {}",
                range.start(),
                range.end()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn splits_positionals_and_options() {
        let known = [("position", Arity::Value), ("quiet", Arity::Switch)];
        let o = Options::parse(&strings(&["12", "--position=abc", "--quiet"]), &known).unwrap();
        assert_eq!(o.positional, ["12"]);
        assert_eq!(o.get("position"), Some("abc"));
        assert!(o.has("quiet"));
        assert!(Options::parse(&strings(&["--nope"]), &known).is_err());
        assert!(Options::parse(&strings(&["--position"]), &known).is_err());
        assert!(Options::parse(&strings(&["--quiet=1"]), &known).is_err());
    }

    #[test]
    fn numbers_in_range() {
        assert_eq!(parse_in_range("7", "depth", 1..=60), Ok(7));
        assert!(parse_in_range("0", "depth", 1..=60).is_err());
        assert!(parse_in_range("-3", "depth", 1..=60).is_err());
        assert!(parse_in_range("x", "depth", 1..=60).is_err());
    }
}
