//! Engine specifications, as `--engine` gives them: `gtp:COMMAND`, `nboard:COMMAND` or
//! `self:FLAGS`, after optional `name=`, `dir=`, `depth=` and `tc=`.

use crate::board::MAX_EMPTIES;
use crate::game::clock::TimeControl;
use std::path::PathBuf;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineProtocol {
    /// GTP version 2 with the Othello conventions (`gtp:` and `self:` engines).
    Gtp,
    /// NBoard protocol version 2 (`nboard:` engines).
    NBoard,
}

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name shown in results and game records.
    pub name: String,
    /// True when the name came from `name=`; otherwise an NBoard engine's `set myname`
    /// replaces it.
    pub name_given: bool,
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory, if not the runner's.
    pub dir: Option<PathBuf>,
    /// True for `self:` engines, which accept level flags such as `--midgame-depth`.
    pub is_self: bool,
    /// The protocol the engine speaks.
    pub protocol: EngineProtocol,
    /// The search depth sent to an NBoard engine with `set depth` (from `depth=` or the
    /// match's `--depth`); none leaves the engine's own setting.
    pub depth: Option<u32>,
    /// The engine's own clock (`tc=BASE+INC`), for an engine that spends its own time
    /// whatever it is told; none: the match's time control.
    pub control: Option<TimeControl>,
}

impl EngineSpec {
    /// Whether the engine thinks on its opponent's time, as far as its flags tell (a `self:`
    /// engine's `--ponder`): then it keeps its cores busy while the other engine thinks.
    pub fn ponders(&self) -> bool {
        self.is_self && matches!(flag_value(&self.args, "--ponder"), Some("" | "on"))
    }

    /// The threads the engine searches with, as far as its flags tell: a `self:` engine's
    /// `--threads`; 1 for other engines, whose flags we cannot read.
    pub fn threads(&self) -> usize {
        flag_value(&self.args, "--threads")
            .filter(|_| self.is_self)
            .and_then(|v| crate::search::parse_threads(v).ok())
            .unwrap_or(1)
    }
}

/// The value `args` give `flag` (`--flag=V` or `--flag V`): `Some("")` when the flag is
/// there without a value (last, or before another flag), `None` when it is absent.
fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, w)| {
        if let Some(v) = w.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            return Some(v);
        }
        (w == flag).then(|| {
            args.get(i + 1)
                .map(String::as_str)
                .filter(|v| !v.starts_with("--"))
                .unwrap_or("")
        })
    })
}

/// Splits a command line into words: white space separates, and single or double quotes keep
/// spaces inside a word. No other shell syntax is interpreted.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("unmatched {q} in '{text}'"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The `name=`, `dir=`, `depth=` and `tc=` settings before the engine's kind.
#[derive(Default)]
struct Settings {
    name: Option<String>,
    dir: Option<String>,
    depth: Option<u32>,
    control: Option<TimeControl>,
}

/// Reads the `key=value,` settings at the start of `text` (the whole spec, for messages);
/// returns them and the rest, `KIND:COMMAND`.
fn read_settings(text: &str) -> Result<(Settings, &str), String> {
    let mut rest = text.trim();
    let mut settings = Settings::default();
    while let Some(key) = ["name", "dir", "depth", "tc"]
        .into_iter()
        .find(|k| rest.strip_prefix(k).is_some_and(|r| r.starts_with('=')))
    {
        let after = &rest[key.len() + 1..];
        let (value, tail) = after.split_once(',').ok_or_else(|| {
            format!("engine '{text}': {key}= must be followed by ',' and the engine")
        })?;
        let value = value.trim();
        if value.is_empty() {
            return Err(format!("engine '{text}': empty {key}="));
        }
        match key {
            "name" => settings.name = Some(value.to_string()),
            "dir" => settings.dir = Some(value.to_string()),
            "tc" => {
                settings.control = Some(
                    TimeControl::parse_fischer(value)
                        .map_err(|e| format!("engine '{text}': tc={value}: {e}"))?,
                );
            }
            _ => {
                settings.depth = Some(
                    value
                        .parse::<u32>()
                        .ok()
                        .filter(|d| (1..=MAX_EMPTIES).contains(d))
                        .ok_or_else(|| {
                            format!("engine '{text}': bad depth={value} (1 to {MAX_EMPTIES})")
                        })?,
                );
            }
        }
        rest = tail.trim_start();
    }
    Ok((settings, rest))
}

impl EngineSpec {
    /// Reads `[name=NAME,][dir=DIR,][depth=N,][tc=BASE+INC,]KIND:COMMAND` where KIND is `gtp`
    /// or `nboard` (COMMAND is a program and its arguments) or `self` (COMMAND is level flags
    /// for this program's `gtp` server); `depth=` (1 to 60) is for `nboard:` engines; `tc=`
    /// gives the engine its own clock in place of the match's.
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let (settings, rest) = read_settings(text)?;
        let (kind, command) = rest.split_once(':').ok_or_else(|| {
            format!("engine '{text}': expected gtp:COMMAND, nboard:COMMAND or self:FLAGS")
        })?;
        let words = split_command(command).map_err(|e| format!("engine '{text}': {e}"))?;
        let (program, args, is_self, protocol) = match kind {
            "gtp" | "nboard" => {
                let Some((program, args)) = words.split_first() else {
                    return Err(format!("engine '{text}': {kind}: needs a command"));
                };
                let protocol = if kind == "gtp" {
                    EngineProtocol::Gtp
                } else {
                    EngineProtocol::NBoard
                };
                (PathBuf::from(program), args.to_vec(), false, protocol)
            }
            "self" => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find this program to run self: ({e})"))?;
                let mut args = vec!["gtp".to_string()];
                args.extend(words.iter().cloned());
                // Tests of the search stay clean: no book unless the spec asks for one.
                let asks_for_book = flag_value(&words, "--book").is_some()
                    || flag_value(&words, "--no-book").is_some();
                if !asks_for_book {
                    args.push("--no-book".to_string());
                }
                // One thread each unless asked: games played side by side (--concurrency)
                // would otherwise share the cores and slow each other unevenly.
                if flag_value(&words, "--threads").is_none() {
                    args.extend(["--threads".to_string(), "1".to_string()]);
                }
                (exe, args, true, EngineProtocol::Gtp)
            }
            other => {
                return Err(format!(
                    "engine '{text}': unknown kind '{other}' (expected gtp:, nboard: or self:)"
                ));
            }
        };
        if settings.depth.is_some() && protocol != EngineProtocol::NBoard {
            return Err(format!(
                "engine '{text}': depth= is for nboard: engines (GTP has no depth command; \
                 give self: engines level flags)"
            ));
        }
        let name_given = settings.name.is_some();
        let name = settings.name.unwrap_or_else(|| {
            if is_self {
                format!("self {}", words.join(" ")).trim_end().to_string()
            } else {
                program
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_else(|| program.display().to_string())
            }
        });
        // A relative program path given with a working directory is found inside it.
        let program = match &settings.dir {
            Some(d) if program.is_relative() && program.components().count() > 1 => {
                PathBuf::from(d).join(program)
            }
            _ => program,
        };
        Ok(EngineSpec {
            name,
            name_given,
            program,
            args,
            dir: settings.dir.map(PathBuf::from),
            is_self,
            protocol,
            depth: settings.depth,
            control: settings.control,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let s = EngineSpec::parse("name=Rhino,dir=/tmp,gtp:gtp-rhino --level 3").unwrap();
        assert_eq!(s.name, "Rhino");
        assert!(s.name_given);
        assert_eq!(s.program, PathBuf::from("gtp-rhino"));
        assert_eq!(s.args, ["--level", "3"]);
        assert_eq!(s.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(s.protocol, EngineProtocol::Gtp);
        let s = EngineSpec::parse("gtp:'/opt/my engine/run' -q").unwrap();
        assert_eq!(s.name, "run");
        assert!(!s.name_given);
        assert_eq!(s.args, ["-q"]);
        let s = EngineSpec::parse("self:--level 5").unwrap();
        assert!(s.is_self);
        assert_eq!(
            s.args,
            ["gtp", "--level", "5", "--no-book", "--threads", "1"]
        );
        assert_eq!(s.threads(), 1);
        assert_eq!(s.name, "self --level 5");
        let t = EngineSpec::parse("self:--threads 4").unwrap();
        assert_eq!(t.args, ["gtp", "--threads", "4", "--no-book"]);
        assert_eq!(t.threads(), 4);
        assert!(!t.ponders());
        assert!(
            EngineSpec::parse("self:--ponder --level 3")
                .unwrap()
                .ponders()
        );
        assert!(EngineSpec::parse("self:--ponder=on").unwrap().ponders());
        assert!(!EngineSpec::parse("self:--ponder=off").unwrap().ponders());
        assert_eq!(EngineSpec::parse("gtp:x --threads 8").unwrap().threads(), 1);
        let s = EngineSpec::parse("self:--book builtin --book-randomness 0").unwrap();
        assert_eq!(
            s.args,
            [
                "gtp",
                "--book",
                "builtin",
                "--book-randomness",
                "0",
                "--threads",
                "1"
            ]
        );
        let s = EngineSpec::parse("depth=12,dir=/opt/edax,nboard:bin/lEdax -nboard").unwrap();
        assert_eq!(s.protocol, EngineProtocol::NBoard);
        assert_eq!(s.depth, Some(12));
        assert_eq!(s.program, PathBuf::from("/opt/edax/bin/lEdax"));
        assert_eq!(s.args, ["-nboard"]);
        assert_eq!(s.name, "lEdax");
        assert_eq!(s.control, None);
        let s = EngineSpec::parse("tc=120+0.5,name=Rhino,gtp:gtp-rhino -l 4").unwrap();
        assert_eq!(
            s.control,
            Some(TimeControl::Fischer {
                base: std::time::Duration::from_secs(120),
                increment: std::time::Duration::from_millis(500),
            })
        );
        assert_eq!(s.name, "Rhino");
        for bad in [
            "tc=,gtp:x",
            "tc=-5+1,gtp:x",
            "tc=abc,gtp:x",
            "tc=10+x,gtp:x",
            "tc=0,gtp:x",
            "tc=1e9,gtp:x",
            "uci:stockfish",
            "gtp:",
            "nboard:",
            "edax",
            "name=x",
            "gtp:'a",
            "depth=0,nboard:edax",
            "depth=x,nboard:edax",
            "depth=8,gtp:edax",
            "depth=8,self:",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
