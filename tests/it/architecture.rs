//! ARCHITECTURE.md as a test: every path the page names exists, so that a file moved or
//! renamed cannot leave the page pointing at nothing.
//!
//! The page writes paths in code spans (`` `search/mod.rs` ``), outside fenced blocks (those
//! hold commands, whose paths are examples). A word of a span, made of path characters only,
//! is checked by how it starts:
//!
//! - with a folder at the top of the repository (`src/`, `tests/`, `data/`, `docs/`,
//!   `scripts/`, `examples/`, `.ci/`, `web/`: the web page, whose face is `src/web/`), or a
//!   page there (`protocol.md`): from the top;
//! - with a top-level module of the crate (`search/mod.rs`, `protocol/play/`, `main.rs`):
//!   under `src/`, where the page's module paths start;
//! - any other source file or folder (`levels.rs` under **`search`**, `time/lag.rs`, `fuzz/`)
//!   is named inside a paragraph about its folder: somewhere under `src/` or `tests/` it must
//!   end a path that exists. Which folder the paragraph means is prose, not a rule, so this
//!   checks less than the others, but a file deleted or renamed everywhere still fails.
//!
//! Not checked: paths outside the repository (`../shared/...`), and data files named without
//! their folder (`fforum-20-39.obf`, of `data/positions/`), whose folder is only told in
//! prose.

use std::path::{Path, PathBuf};

/// The folders at the top of the repository that the page names whole.
const ROOT_FOLDERS: &[&str] = &[
    "src/",
    "tests/",
    "data/",
    "docs/",
    "scripts/",
    "examples/",
    ".ci/",
    "web/",
];

/// The crate's top-level modules and files: the page gives their paths from `src/`.
const MODULES: &[&str] = &[
    "board", "eval", "search", "game", "protocol", "arena", "cli", "sys",
];
const TOP_FILES: &[&str] = &["main.rs", "lib.rs"];

/// Where a path the page names must be.
#[derive(Debug, PartialEq)]
enum Place {
    /// From the top of the repository.
    Top(String),
    /// Under `src/`.
    Src(String),
    /// At the end of some path under `src/` or `tests/`.
    Somewhere(String),
}

/// The code spans of `text` outside fenced blocks, each with the number of the line it starts
/// on (from 1). A span may run over a line break, as Markdown allows.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let prose: Vec<&str> = text
        .lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return "";
            }
            if fenced { "" } else { line }
        })
        .collect();
    let prose = prose.join("\n");
    let mut spans = Vec::new();
    let mut at = 0;
    // Between the first and second backtick, the third and fourth, and so on.
    for (i, piece) in prose.split('`').enumerate() {
        if i % 2 == 1 {
            let line = prose[..at].matches('\n').count() + 1;
            spans.push((line, piece.to_string()));
        }
        at += piece.len() + 1;
    }
    spans
}

/// Where `word` must be, if it is a path of the repository.
fn place(word: &str) -> Option<Place> {
    let path_chars = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    if word.is_empty() || !word.chars().all(path_chars) || word.starts_with("../") {
        return None;
    }
    let top_page = !word.contains('/') && word.ends_with(".md");
    let first = word.split('/').next().unwrap_or(word);
    let module_path = (MODULES.contains(&first) && word.contains('/')) || TOP_FILES.contains(&word);
    if ROOT_FOLDERS.iter().any(|f| word.starts_with(f)) || top_page {
        Some(Place::Top(word.to_string()))
    } else if module_path {
        Some(Place::Src(word.to_string()))
    } else if word.ends_with(".rs") || word.ends_with('/') {
        Some(Place::Somewhere(word.to_string()))
    } else {
        None
    }
}

/// Every folder under `dir`, `dir` included.
fn folders(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            folders(&path, out);
        }
    }
}

/// The paths ARCHITECTURE.md (`text`) names that do not exist under `root`, one line each,
/// and how many paths it names.
fn missing_paths(text: &str, root: &Path) -> (Vec<String>, usize) {
    let mut searched = Vec::new();
    folders(&root.join("src"), &mut searched);
    folders(&root.join("tests"), &mut searched);
    let mut missing = Vec::new();
    let mut checked = 0;
    for (line, span) in code_spans(text) {
        for place in span.split_whitespace().filter_map(place) {
            checked += 1;
            let (found, complaint) = match &place {
                Place::Top(p) => (root.join(p).exists(), format!("{p} does not exist")),
                Place::Src(p) => (
                    root.join("src").join(p).exists(),
                    format!("src/{p} does not exist"),
                ),
                Place::Somewhere(p) => (
                    searched.iter().any(|dir| dir.join(p).exists()),
                    format!("no folder of src/ or tests/ holds {p}"),
                ),
            };
            if !found {
                missing.push(format!("ARCHITECTURE.md:{line}: `{span}`: {complaint}"));
            }
        }
    }
    (missing, checked)
}

#[test]
fn every_path_architecture_md_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable");
    let (missing, checked) = missing_paths(&text, root);
    // The page names well over a hundred paths; a handful means the reader is broken.
    assert!(
        checked > 100,
        "only {checked} paths found in ARCHITECTURE.md"
    );
    assert!(
        missing.is_empty(),
        "{} paths named in ARCHITECTURE.md do not exist (move the page with the code):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn paths_are_told_from_commands_and_placed_by_how_they_start() {
    assert_eq!(
        place("src/search/mod.rs"),
        Some(Place::Top("src/search/mod.rs".into()))
    );
    assert_eq!(
        place("scripts/soak"),
        Some(Place::Top("scripts/soak".into()))
    );
    assert_eq!(place("protocol.md"), Some(Place::Top("protocol.md".into())));
    assert_eq!(
        place("search/time/"),
        Some(Place::Src("search/time/".into()))
    );
    assert_eq!(place("main.rs"), Some(Place::Src("main.rs".into())));
    assert_eq!(
        place("time/lag.rs"),
        Some(Place::Somewhere("time/lag.rs".into()))
    );
    assert_eq!(place("fuzz/"), Some(Place::Somewhere("fuzz/".into())));
    for not_a_path in [
        "../shared/positions/fforum-40-59.obf",
        "sys::cpu",
        "--threads",
        "othello-engine",
        "OTHELLO_CFUZZ_LINES=N",
        "play.c",
        "fforum-20-39.obf",
    ] {
        assert_eq!(place(not_a_path), None, "{not_a_path}");
    }
    let page =
        "A `search/mod.rs` and `mpc\ncalibrate`, then `gone/x.rs`.\n```sh\n`data/no.obf`\n```\n`a`";
    let spans = code_spans(page);
    assert_eq!(
        spans,
        [
            (1, "search/mod.rs".to_string()),
            (1, "mpc\ncalibrate".to_string()),
            (2, "gone/x.rs".to_string()),
            (6, "a".to_string()),
        ]
    );
}
