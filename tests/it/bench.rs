//! The bench node signature: `othello-engine bench` (its defaults, depth 9) searches the same
//! nodes as the total README.md states. A change that alters the search changes the total, and
//! must say so by updating README.md.

use crate::common::run;

/// The total on README.md's one line `Bench signature: <nodes> nodes`.
fn readme_signature() -> u64 {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md is readable");
    let lines: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Bench signature:"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "README.md has exactly one 'Bench signature: <nodes> nodes' line: {lines:?}"
    );
    let words: Vec<&str> = lines[0].split_whitespace().collect();
    match words[..] {
        [nodes, "nodes", ..] => nodes
            .parse()
            .unwrap_or_else(|e| panic!("README's bench signature '{nodes}': {e}")),
        _ => panic!("README's bench signature line reads '{}'", lines[0]),
    }
}

#[test]
fn bench_searches_the_nodes_the_readme_states() {
    let expected = readme_signature();
    let o = run(&["bench"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // bench: depth 9, evaluator weighted: 11252786 nodes 3002911 nps (3.747 s)
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("bench: depth 9, evaluator weighted: "),
        "the signature is that of depth 9 with weighted: {stdout}"
    );
    let words: Vec<&str> = last.split_whitespace().collect();
    let total: u64 = words
        .iter()
        .position(|&w| w == "nodes")
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| words[i].parse().ok())
        .unwrap_or_else(|| panic!("no node total in '{last}'"));
    assert_eq!(
        total, expected,
        "bench node total against README.md's signature (update README.md if the search \
         changed on purpose):\n{stdout}"
    );
}
