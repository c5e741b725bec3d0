//! Output files replaced atomically, so that a crash or a kill never leaves half a file, and
//! checked writable before a long job starts (a match must not play for hours and then fail to
//! write its results).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The directory a file is in (`.` for a bare name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The temporary file beside `path` that [`write_atomically`] renames over it: hidden, and
/// named by the process so that two jobs never share one.
fn temporary_beside(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    Ok(directory_of(path).join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// Checks that `path` can be written as [`write_atomically`] and appending do it: it is not a
/// directory, a file can be created beside it, and if it exists it opens for appending. Nothing
/// is changed (a file made for the test is removed).
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is a directory",
        ));
    }
    let temporary = temporary_beside(path)?;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)?;
    let _ = std::fs::remove_file(&temporary);
    if path.exists() {
        OpenOptions::new().append(true).open(path)?;
    }
    Ok(())
}

/// Replaces `path` by `contents` all at once: a temporary file in the same directory is
/// written and synced, then renamed over it. Readers see the old file or the new one, never
/// a part.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let temporary = temporary_beside(path)?;
    let result = File::create(&temporary)
        .and_then(|mut file| {
            file.write_all(contents)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// The SHA-256 digest of `bytes` in lower-case hex, as `sha256sum` prints it: how training
/// shards and the WTHOR files they refer to are pinned.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_standard_test_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn files_are_replaced_whole_and_leave_nothing_beside_them() {
        let dir = std::env::temp_dir().join(format!("othello-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        check_writable(&path).unwrap();
        assert!(!path.exists(), "checking creates nothing");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["r.json"]);
        assert!(check_writable(&dir.join("none").join("r.json")).is_err());
        assert!(check_writable(&dir).is_err());
        assert!(write_atomically(&dir.join("none").join("r.json"), b"x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
