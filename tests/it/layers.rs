//! The layers of `src/` as a test: board ← eval ← {search, fit} ← game ← {protocol, arena, web}
//! ← cli.
//!
//! Every `.rs` file under `src/` belongs to a top-level module: the folder it is in
//! (`src/search/book_build/mod.rs` is `search`), or itself (`src/X.rs` is `X`). An import is a
//! `crate::X` path anywhere in the code, `use crate::{X::…, Y}` groups included; comments
//! and string literals are not code. A module may import its own layer's module and those
//! below it; `protocol`, `arena` and `web` share a layer and never import each other. `sys` is
//! support: anything may import it, and it imports nothing of the crate. `lib.rs` (which
//! declares the modules) and `main.rs` are exempt. `super::` paths are not read: below the
//! top file of a module they stay inside it.

use std::path::{Path, PathBuf};

/// The top-level modules with their layers, from the bottom up.
const LAYERS: &[(&str, u32)] = &[
    ("board", 0),
    ("eval", 1),
    ("search", 2),
    ("fit", 2),
    ("game", 3),
    ("protocol", 4),
    ("arena", 4),
    ("web", 4),
    ("cli", 5),
];

/// The support module: below every layer, importing none of them.
const SUPPORT: &str = "sys";

/// An import that breaks the layers.
#[derive(Debug, PartialEq)]
struct Breach {
    line: usize,
    imported: String,
    why: String,
}

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// Why module `from` may not import module `to`, if it may not.
fn forbidden(from: &str, to: &str) -> Option<String> {
    if from == to || to == SUPPORT {
        return None;
    }
    if from == SUPPORT {
        return Some(format!("{SUPPORT} imports no other module of the crate"));
    }
    let (Some(a), Some(b)) = (layer(from), layer(to)) else {
        return Some(format!(
            "{to} has no layer: add it to LAYERS in tests/it/layers.rs"
        ));
    };
    if b > a {
        Some(format!("{from} imports {to}, a layer up"))
    } else if b == a {
        Some(format!(
            "{from} and {to} share a layer and never import each other"
        ))
    } else {
        None
    }
}

/// The top-level module a file of `src/` belongs to (`None`: `lib.rs`, `main.rs`).
fn module_of(relative: &Path) -> Option<String> {
    let mut parts = relative.components();
    let first = parts.next()?.as_os_str().to_str()?;
    if parts.next().is_some() {
        return Some(first.to_string());
    }
    match first.strip_suffix(".rs")? {
        "lib" | "main" => None,
        module => Some(module.to_string()),
    }
}

/// `text` with comments, string literals and character literals blanked to spaces; lines
/// stay where they were.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !word_before(&chars, i) {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            out.push_str(&" ".repeat(2 + hashes));
            while i < chars.len() && !chars[i..].starts_with(&close) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str(&" ".repeat(close.len()));
            i += close.len();
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for k in 0..step {
                    if let Some(&s) = chars.get(i + k) {
                        out.push(blank(s));
                    }
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('"', '\'', '\u{2a}'); a lifetime ('a) has no closing quote.
            let from = if next == Some('\\') { i + 3 } else { i + 2 };
            let end = chars[from.min(chars.len())..]
                .iter()
                .position(|&q| q == '\'')
                .map_or(chars.len(), |p| from + p + 1);
            out.push_str(&" ".repeat(end - i));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && is_ident(chars[i - 1])
}

/// Whether a word other than the `b` of a raw byte string (`br"…"`) ends before `i`.
fn word_before(chars: &[char], i: usize) -> bool {
    ident_before(chars, i) && (chars[i - 1] != 'b' || ident_before(chars, i - 1))
}

/// The crate modules a file's code names, with their 1-based line numbers: `crate::X` and
/// each first name in a `crate::{X::…, Y, …}` group.
fn imports(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let line_at = |i: usize| 1 + chars[..i].iter().filter(|&&c| c == '\n').count();
    let word = |i: usize| -> String { chars[i..].iter().take_while(|&&c| is_ident(c)).collect() };
    let skip_blanks = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let key: Vec<char> = "crate::".chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + key.len() <= chars.len() {
        if !chars[i..].starts_with(&key) || ident_before(&chars, i) {
            i += 1;
            continue;
        }
        let at = skip_blanks(i + key.len());
        if chars.get(at) == Some(&'{') {
            // A group: the first name of each item at its top level.
            let (mut depth, mut j, mut item_start) = (1, at + 1, true);
            while j < chars.len() && depth > 0 {
                let c = chars[j];
                if item_start && is_ident(c) {
                    found.push((line_at(j), word(j)));
                    item_start = false;
                }
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    _ => {}
                }
                j += 1;
            }
            i = j;
        } else {
            let name = word(at);
            if !name.is_empty() {
                found.push((line_at(at), name));
            }
            i = at.max(i + 1);
        }
    }
    found
}

/// The imports of one file of module `module` that break the layers.
fn breaches(module: &str, text: &str) -> Vec<Breach> {
    imports(&code_only(text))
        .into_iter()
        .filter(|(_, imported)| imported != "self")
        .filter_map(|(line, imported)| {
            let why = forbidden(module, &imported)?;
            Some(Breach {
                line,
                imported,
                why,
            })
        })
        .collect()
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_import_goes_up_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut report = Vec::new();
    let mut seen = 0;
    for path in &files {
        let relative = path.strip_prefix(&src).expect("under src");
        let Some(module) = module_of(relative) else {
            continue;
        };
        if layer(&module).is_none() && module != SUPPORT {
            report.push(format!(
                "src/{}: module {module} has no layer: add it to LAYERS in tests/it/layers.rs",
                relative.display()
            ));
            continue;
        }
        let text = std::fs::read_to_string(path).expect("a readable source file");
        seen += imports(&code_only(&text)).len();
        let lines: Vec<&str> = text.lines().collect();
        for b in breaches(&module, &text) {
            report.push(format!(
                "src/{}:{}: crate::{} ({}): {}",
                relative.display(),
                b.line,
                b.imported,
                b.why,
                lines.get(b.line - 1).map_or("", |l| l.trim()),
            ));
        }
    }
    // The house has hundreds of crate imports; none found means the reader is broken.
    assert!(
        seen > 100,
        "only {seen} crate imports found in {}",
        src.display()
    );
    assert!(
        report.is_empty(),
        "{} imports break the layers (board ← eval ← search ← game ← protocol, arena ← cli):\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_layer_check_sees_every_form_of_import() {
    let text = r##"//! `crate::cli` in a doc comment is no import.
use crate::board::Position;
use crate::eval::Evaluator;
use crate::{
    board::Move,
    search::{Limits, Searcher},
    self as root,
    sys,
};
/* crate::arena in /* a nested */ block comment */
fn f<'a>(x: &'a str) -> i32 {
    let s = "crate::protocol in a \" string";
    let (c, q) = ('"', '\'');
    let r = br#"crate::cli"#;
    crate::game::ggf::parse(s, c, q, r) // crate::cli
}
pub use crate::sys::signals;
pub(crate) fn g() { $crate::arena::run() }
"##;
    let found = breaches("board", text);
    let found: Vec<(usize, &str)> = found.iter().map(|b| (b.line, &*b.imported)).collect();
    assert_eq!(
        found,
        [(3, "eval"), (6, "search"), (15, "game"), (18, "arena")]
    );
    let support = breaches(
        "sys",
        "use crate::sys::files;\nuse crate::board::Position;\n",
    );
    assert_eq!(support.len(), 1);
    assert_eq!((support[0].line, &*support[0].imported), (2, "board"));
    assert_eq!(
        module_of(Path::new("search/book_build/mod.rs")).as_deref(),
        Some("search")
    );
    assert_eq!(module_of(Path::new("sys.rs")).as_deref(), Some("sys"));
    assert_eq!(module_of(Path::new("main.rs")), None);
    assert!(forbidden("protocol", "arena").is_some());
    assert!(forbidden("arena", "protocol").is_some());
    assert!(forbidden("sys", "board").is_some());
    assert!(forbidden("board", "sys").is_none());
    assert!(forbidden("cli", "arena").is_none());
    assert!(forbidden("game", "search").is_none());
    assert!(forbidden("game", "nowhere").is_some());
}
