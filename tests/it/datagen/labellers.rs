//! The network as labeller (`datagen --eval neural`, issue 91's loop): its shards and their
//! folder's manifest name the network by the SHA-256 of its file, a folder takes no shard of
//! another recipe or network, a labeller that is missing, corrupt or of another shape is
//! refused in one line with nothing written, and `train` reads several folders as it reads
//! their shards listed one by one.

use super::shards::datagen_dir;
use super::{SMALL, bytes, refused};
use crate::common::{data, run, temp_dir};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The network labeller at depth 1 on `SMALL`'s games, three a shard.
const BY_NETWORK: &[&str] = &["--eval", "neural", "--depth", "1", "--games-per-shard", "3"];

fn sha256_of(path: &Path) -> String {
    Sha256::digest(bytes(path))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The manifest of `dir` as JSON.
fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&bytes(&dir.join("MANIFEST.json"))).unwrap()
}

/// Every shard file of `dir`, in the manifest's order.
fn shards_of(dir: &Path) -> Vec<String> {
    manifest(dir)["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let file = e["file"].as_str().unwrap();
            dir.join(file).to_str().unwrap().to_string()
        })
        .collect()
}

/// A network of `width` fitted in a second (one epoch) to the positions of `data`, written to
/// `net` (its checkpoint removed).
pub(super) fn small_network(data: &Path, width: &str, net: &Path) {
    let o = run(&[
        "train",
        data.to_str().unwrap(),
        "--model",
        "net",
        "--width",
        width,
        "--epochs",
        "1",
        "--threads",
        "1",
        "--out",
        net.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_file(net.with_extension("net.checkpoint"));
}

#[test]
fn a_network_labelled_folder_names_its_network_and_takes_no_other() {
    let dir = temp_dir("labeller-network");
    let built_in = dir.join("built-in");
    datagen_dir(&[SMALL, BY_NETWORK].concat(), &built_in);
    // The folder and each shard's entry name the built-in network by its file's digest.
    let net_digest = sha256_of(&data("neural.net"));
    let m = manifest(&built_in);
    assert_eq!(m["label_weights"], net_digest.as_str());
    for entry in m["shards"].as_array().unwrap() {
        assert_eq!(entry["label_weights"], net_digest.as_str());
        let labels = entry["labels"].as_str().unwrap();
        assert!(labels.contains("depth 1 at 100% with neural"), "{labels}");
    }
    let stats = run(&["datagen", "stats", built_in.to_str().unwrap()]);
    let stats = String::from_utf8_lossy(&stats.stdout).to_string();
    assert!(
        stats.contains(&format!("label network: {net_digest}")),
        "{stats}"
    );

    // Another network, of another shape, labels a folder of its own under its own digest.
    // (Width 32: not the built-in width 16.)
    let other = dir.join("other.net");
    small_network(&built_in, "32", &other);
    let given = dir.join("given");
    let other_s = other.to_str().unwrap();
    datagen_dir(
        &[SMALL, BY_NETWORK, &["--network", other_s]].concat(),
        &given,
    );
    assert_eq!(
        manifest(&given)["label_weights"],
        sha256_of(&other).as_str()
    );

    // It may not add to the built-in network's folder, nor may `pattern`; nothing changes.
    let before = bytes(&built_in.join("MANIFEST.json"));
    let out_dir = built_in.to_str().unwrap();
    let more = [SMALL, BY_NETWORK, &["--games", "9"]].concat();
    let line = refused(
        &[
            &["datagen"],
            &more[..],
            &["--network", other_s, "--out-dir", out_dir],
        ]
        .concat(),
    );
    assert!(
        line.contains("labelled by the weights (or network)"),
        "{line}"
    );
    let line = refused(
        &[
            &["datagen"],
            SMALL,
            &["--depth", "1", "--seed", "4", "--out-dir", out_dir],
        ]
        .concat(),
    );
    assert!(line.contains("a folder holds one recipe"), "{line}");
    assert_eq!(bytes(&built_in.join("MANIFEST.json")), before);
    assert_eq!(shards_of(&built_in).len(), 2);

    // A shard of the other network put in the folder under a shard's name, its manifest entry
    // mended to its digest: the header names a network the folder's manifest does not.
    let first = shards_of(&built_in)[0].clone();
    let foreign = bytes(Path::new(&shards_of(&given)[0]));
    let kept = bytes(Path::new(&first));
    std::fs::write(&first, &foreign).unwrap();
    let mut m = manifest(&built_in);
    let entry = &mut m["shards"][0];
    entry["sha256"] = serde_json::Value::from(sha256_of(Path::new(&first)));
    entry["bytes"] = serde_json::Value::from(foreign.len());
    std::fs::write(
        built_in.join("MANIFEST.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    let weights = dir.join("w.bin");
    let line = refused(&["train", out_dir, "--out", weights.to_str().unwrap()]);
    assert!(line.contains(&first), "{line}");
    assert!(!weights.exists());
    std::fs::write(&first, kept).unwrap();
    std::fs::write(built_in.join("MANIFEST.json"), before).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_labeller_network_missing_corrupt_or_not_a_network_is_refused_with_nothing_written() {
    let dir = temp_dir("labeller-bad");
    let truncated = dir.join("truncated.net");
    let net = bytes(&data("neural.net"));
    std::fs::write(&truncated, &net[..net.len() / 2]).unwrap();
    let not_a_net = data("train/d6/label-weights.bin");
    let missing = dir.join("missing.net");
    let out = dir.join("out");
    for (file, says) in [
        (missing.as_path(), "cannot read"),
        (truncated.as_path(), "truncated.net"),
        (not_a_net.as_path(), "label-weights.bin"),
    ] {
        let path = file.to_str().unwrap();
        let line = refused(
            &[
                &["datagen"],
                SMALL,
                BY_NETWORK,
                &["--network", path, "--out-dir", out.to_str().unwrap()],
            ]
            .concat(),
        );
        assert!(line.contains(says) && line.contains(path), "{line}");
        assert!(!out.exists(), "{path}: the folder was made");
    }
    // `--network` belongs to the network labeller.
    let path = data("neural.net");
    let line = refused(
        &[
            &["datagen"],
            SMALL,
            &["--network", path.to_str().unwrap()],
            &["--out-dir", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(line.contains("--eval neural"), "{line}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn train_over_two_folders_equals_train_over_their_shards_one_by_one() {
    let dir = temp_dir("labeller-two-folders");
    let (by_pattern, by_network) = (dir.join("pattern"), dir.join("network"));
    datagen_dir(&[SMALL, &["--games-per-shard", "3"]].concat(), &by_pattern);
    datagen_dir(&[SMALL, BY_NETWORK, &["--seed", "2"]].concat(), &by_network);
    let train = |data: &[String], out: &Path| {
        let mut args: Vec<&str> = vec!["train"];
        args.extend(data.iter().map(String::as_str));
        args.extend(["--threads", "1", "--out", out.to_str().unwrap()]);
        let o = run(&args);
        let said = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{said}");
        said
    };
    let folders = [&by_pattern, &by_network].map(|d| d.to_str().unwrap().to_string());
    let one_by_one: Vec<String> = [&by_pattern, &by_network]
        .iter()
        .flat_map(|d| shards_of(d))
        .collect();
    assert_eq!(one_by_one.len(), 4);
    let (a, b) = (dir.join("folders.bin"), dir.join("shards.bin"));
    let said = train(&folders, &a);
    train(&one_by_one, &b);
    assert_eq!(bytes(&a), bytes(&b));
    // Both recipes are named, with the positions each gave (six games of 60 moves or so).
    for recipe in ["with pattern", "with neural"] {
        let line = said
            .lines()
            .find(|l| l.starts_with("data: ") && l.contains(recipe))
            .unwrap_or_else(|| panic!("{recipe}: {said}"));
        let count: u64 = line["data: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((300..=400).contains(&count), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
