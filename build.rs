//! Build script: the commit the binary is built from, for `datagen`'s shard headers and
//! manifests and `--version` (`OTHELLO_COMMIT`; `unknown` outside a git checkout), and the
//! target triple for `--version` (`OTHELLO_TARGET`).

use std::path::Path;
use std::process::Command;

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
}
