//! The command line as a user meets it: exit statuses and messages for good and bad input.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othello-engine"))
        .args(args)
        .output()
        .expect("the binary starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perft_prints_each_depth() {
    let o = run(&["perft", "5"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let counts: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4 && f[0].parse::<u32>().is_ok()).then(|| f[1])
        })
        .collect();
    assert_eq!(counts, ["4", "12", "56", "244", "1396"]);
}

#[test]
fn perft_from_a_given_position() {
    // FFO #1 at depth 2, counted against the mailbox implementation in tests/perft.rs.
    let o = run(&[
        "perft",
        "1",
        "--position",
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["1", "8"])),
        "{out}"
    );
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    let start = "---------------------------OX------XO--------------------------- X";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["perft".into(), "0".into()], "bad depth"),
        (vec!["perft".into(), "ten".into()], "bad depth"),
        (vec!["perft".into(), "-1".into()], "bad depth"),
        (vec!["perft".into()], "needs a depth"),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start[..60].into(),
            ],
            "60 characters",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start.replacen('-', "Q", 1),
            ],
            "square a1",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start[..64].into(),
            ],
            "side to move",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                format!("{} B", &start[..64]),
            ],
            "side to move 'B'",
        ),
        (
            vec!["perft".into(), "3".into(), "--position".into()],
            "needs a value",
        ),
        (
            vec!["perft".into(), "3".into(), "--bogus".into()],
            "unknown option",
        ),
        (vec!["frobnicate".into()], "unknown command"),
    ];
    for (args, needle) in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}
