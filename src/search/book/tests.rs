use super::*;
use crate::board::{Bits, Square};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

fn sq(name: &str) -> Move {
    name.parse().unwrap()
}

/// The legal moves of `p` in its own orientation, each with value `f(square)`.
fn valued(p: &Position, f: impl Fn(u8) -> i16) -> Vec<(u8, i16)> {
    Bits(p.legal_moves())
        .map(|s| (s as u8, f(s as u8)))
        .collect()
}

#[test]
fn every_symmetric_image_finds_the_same_entry_and_moves() {
    let p = Position::start()
        .play(sq("f5"))
        .unwrap()
        .play(sq("d6"))
        .unwrap()
        .play(sq("c3"))
        .unwrap();
    let mut book = Book::new();
    book.insert(
        p.player(),
        p.opponent(),
        &valued(&p, |s| i16::from(s) * 10),
        0,
        8,
    );
    let base = book.moves(&p).unwrap();
    for sym in 0..8 {
        let image = p.transform(sym);
        let moves = book.moves(&image).expect("every image is in the book");
        assert_eq!(moves.len(), base.len());
        for (m, b) in moves.iter().zip(&base) {
            assert_eq!(m.mv, b.mv.transform(sym), "symmetry {sym}");
            assert_eq!(m.value, b.value);
            assert!(image.is_legal(m.mv));
        }
    }
}

#[test]
fn values_back_up_by_negamax_through_the_book() {
    // The start (moves all +0.5), f5 (its moves valued by square), and f5 d6 (moves +3
    // for the side to move there, Black): f5 d6 is then worth -3 to White at f5.
    let start = Position::start();
    let f5 = start.play(sq("f5")).unwrap();
    let f5d6 = f5.play(sq("d6")).unwrap();
    let mut book = Book::new();
    book.insert(
        start.player(),
        start.opponent(),
        &valued(&start, |_| 50),
        0,
        4,
    );
    book.insert(f5.player(), f5.opponent(), &valued(&f5, |_| -800), 0, 4);
    book.insert(
        f5d6.player(),
        f5d6.opponent(),
        &valued(&f5d6, |_| 300),
        0,
        4,
    );
    let at_f5 = book.moves(&f5).unwrap();
    let d6 = at_f5.iter().find(|m| m.mv == sq("d6")).unwrap();
    assert_eq!((d6.value, d6.in_book), (-300, true));
    assert_eq!(at_f5[0].mv, sq("d6"), "the backed-up move beats -8 discs");
    // Black at the start: every move leads to a position like f5, worth -300 for White.
    let at_start = book.moves(&start).unwrap();
    assert!(at_start.iter().all(|m| m.value == 300 && m.in_book));
    assert_eq!(
        book.value(&normalize(start.player(), start.opponent()).0),
        Some(300)
    );
}

#[test]
fn randomness_zero_is_the_best_and_a_window_varies_within_it() {
    let start = Position::start();
    let f5 = start.play(sq("f5")).unwrap();
    let mut book = Book::new();
    // At f5 White's moves: d6 +1.00, f6 +0.80, f4 -3.00.
    let values = |s: u8| match Square::new(usize::from(s)).unwrap().to_string().as_str() {
        "d6" => 100,
        "f6" => 80,
        _ => -300,
    };
    book.insert(f5.player(), f5.opponent(), &valued(&f5, values), 0, 4);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..20 {
        assert_eq!(book.choose(&f5, 0, &mut rng).unwrap().mv, sq("d6"));
    }
    let picks: Vec<Move> = (0..1000)
        .map(|_| book.choose(&f5, 50, &mut rng).unwrap().mv)
        .collect();
    assert!(picks.iter().all(|&m| m == sq("d6") || m == sq("f6")));
    let d6 = picks.iter().filter(|&&m| m == sq("d6")).count();
    // Weights 1 and exp(-20/50) = 0.67: d6 is drawn 60% of the time.
    assert!(
        (540..660).contains(&d6),
        "weighted toward the best: d6 {d6} of 1000"
    );
    assert!(book.choose(&start, 50, &mut rng).is_none());
}

#[test]
fn a_move_that_opens_more_playable_lines_is_drawn_more_often() {
    // At f5 White's d6 and f6 are worth the same; after d6 Black has two moves in the
    // window (the book knows that position), after f6 the line leaves the book: d6 opens
    // two lines and f6 one, so d6 is drawn about two times in three.
    let start = Position::start();
    let f5 = start.play(sq("f5")).unwrap();
    let f5d6 = f5.play(sq("d6")).unwrap();
    let [first, second] = [f5d6.legal_squares()[0], f5d6.legal_squares()[1]];
    let mut book = Book::new();
    book.insert(
        f5d6.player(),
        f5d6.opponent(),
        &valued(&f5d6, |s| {
            if s == first.index() as u8 || s == second.index() as u8 {
                100
            } else {
                -300
            }
        }),
        0,
        4,
    );
    let at_f5 = |s: u8| match Square::new(usize::from(s)).unwrap().to_string().as_str() {
        "f6" => -100,
        _ => -500,
    };
    book.insert(f5.player(), f5.opponent(), &valued(&f5, at_f5), 0, 4);
    let moves = book.moves(&f5).unwrap();
    assert_eq!((moves[0].value, moves[1].value), (-100, -100));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let d6 = (0..3000)
        .filter(|_| book.choose(&f5, 50, &mut rng).unwrap().mv == sq("d6"))
        .count();
    assert!((1850..2150).contains(&d6), "d6 drawn {d6} times of 3000");
    // After d6, Black draws both of its moves, evenly.
    let firsts = (0..1000)
        .filter(|_| book.choose(&f5d6, 50, &mut rng).unwrap().mv == Move::Play(first))
        .count();
    assert!(
        (430..570).contains(&firsts),
        "first move drawn {firsts} of 1000"
    );
}

#[test]
fn files_round_trip_and_damaged_files_are_refused() {
    let start = Position::start();
    let f5 = start.play(sq("f5")).unwrap();
    let mut book = Book::new();
    book.insert(
        start.player(),
        start.opponent(),
        &valued(&start, |_| 0),
        12,
        4,
    );
    book.insert(f5.player(), f5.opponent(), &valued(&f5, i16::from), 7, 4);
    let bytes = book.to_bytes();
    let back = Book::from_bytes(&bytes).unwrap();
    assert_eq!(back.entries, book.entries);
    assert_eq!(back.to_bytes(), bytes);
    assert!(Book::from_bytes(&bytes[..bytes.len() - 3]).is_err());
    assert!(
        Book::from_bytes(b"OEPATW02....")
            .unwrap_err()
            .contains("magic")
    );
    // One entry more announced than stored.
    let mut wrong = bytes.clone();
    wrong[8] += 1;
    assert!(Book::from_bytes(&wrong).unwrap_err().contains("cut short"));
    // A move that is not legal.
    let mut bad = Book::new();
    let (key, _) = normalize(start.player(), start.opponent());
    bad.entries.insert(
        key,
        BookEntry {
            moves: vec![(0, 0)],
            games: 0,
            depth: 1,
        },
    );
    assert!(
        Book::from_bytes(&bad.to_bytes())
            .unwrap_err()
            .contains("legal")
    );
}

#[test]
fn the_built_in_book_reads_and_knows_the_start() {
    let book = built_in();
    let moves = book
        .moves(&Position::start())
        .expect("the start is in the book");
    assert_eq!(moves.len(), 4);
    assert!(moves.iter().all(|m| Position::start().is_legal(m.mv)));
}
