//! Build script: the commit the binary is built from, for `datagen`'s shard headers and
//! manifests and `--version` (`OTHELLO_COMMIT`; `unknown` outside a git checkout), and the
//! target triple for `--version` (`OTHELLO_TARGET`); for a wasm32 build (the web page), the
//! built-in pattern weights in eighths of a disc (`OEPATW03`, see `src/eval/eighths.rs`), which
//! the page embeds in place of `data/pattern-weights.bin` and `data/pattern-full-weights.bin`.

#[path = "src/eval/eighths.rs"]
mod eighths;
// For `symmetrize_patterns` alone; the rest of the layout is the crate's.
#[allow(dead_code)]
#[path = "src/eval/shapes.rs"]
mod shapes;

use std::path::Path;
use std::process::Command;

/// The weight files a wasm32 build embeds in eighths, each under its own name in OUT_DIR.
const IN_EIGHTHS: [&str; 2] = ["pattern-weights.bin", "pattern-full-weights.bin"];

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=OTHELLO_COMMIT={commit}");
    // The target triple, for `--version` (cargo tells build scripts the target in TARGET).
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=OTHELLO_TARGET={target}");
    // Only paths that exist: a missing one would run this script, and rebuild the crate, on
    // every build.
    let watched: Vec<&str> = [".git/HEAD", ".git/refs/heads", ".git/packed-refs"]
        .into_iter()
        .filter(|p| Path::new(p).exists())
        .collect();
    if watched.is_empty() {
        println!("cargo:rerun-if-changed=build.rs");
    }
    for path in watched {
        println!("cargo:rerun-if-changed={path}");
    }
    // Cargo runs build scripts for the host, and tells them the target's architecture here.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
        for name in IN_EIGHTHS {
            let source = format!("data/{name}");
            println!("cargo:rerun-if-changed={source}");
            let bytes = std::fs::read(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
            let converted = eighths::to_eighths_file(&bytes, shapes::symmetrize_patterns)
                .unwrap_or_else(|e| panic!("{source}: {e}"));
            std::fs::write(Path::new(&out_dir).join(name), converted)
                .unwrap_or_else(|e| panic!("{out_dir}/{name}: {e}"));
        }
    }
}
