//! Command-line errors and the whole-number reader the subcommands share.

use std::fmt;

/// A command-line mistake; the binary prints it and exits with status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

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

    #[test]
    fn numbers_in_range() {
        assert_eq!(parse_in_range("7", "depth", 1..=60), Ok(7));
        assert!(parse_in_range("0", "depth", 1..=60).is_err());
        assert!(parse_in_range("-3", "depth", 1..=60).is_err());
        assert!(parse_in_range("x", "depth", 1..=60).is_err());
    }
}
