//! Tests of growing the book: negamax values, the covered plies, shards, and the end.

use super::*;
use crate::search::book::child_of;

/// Build settings for the tests: depth, shard and covered plies as given, a disc a ply.
fn settings(depth: u32, shard: (u64, u64), cover_plies: u32) -> BuildSettings {
    BuildSettings {
        depth,
        ply_cost: 100,
        shard,
        frequent: HashMap::new(),
        cover_plies,
    }
}

#[test]
fn a_tiny_book_holds_the_negamax_of_its_searches() {
    let mut searcher = Searcher::new(4, Some(1));
    let settings = settings(2, (0, 1), 0);
    let stop = AtomicBool::new(false);
    let mut book = Book::new();
    let added = grow(&mut book, &mut searcher, &settings, 6, &stop, &mut |_| {});
    assert_eq!((added, book.len()), (6, 6));
    // The file check refuses entries whose moves are not their position's legal moves.
    let book = Book::from_bytes(&book.to_bytes()).expect("a valid book");
    // Every book position is worth its best move, a move being worth minus its child's
    // value when the child is in the book, else the value its search stored.
    for (key, entry) in book.entries() {
        let expected = entry
            .moves
            .iter()
            .map(|&(mv, searched)| {
                let (p, o) = child_of(*key, mv);
                let child = normalize(p, o).0;
                book.value(&child).map_or(i32::from(searched), |v| -v)
            })
            .max()
            .unwrap();
        assert_eq!(book.value(key), Some(expected));
    }
    // The start's four moves lead to one position (up to symmetry), which the book has.
    let at_start = book.moves(&Position::start()).unwrap();
    assert!(
        at_start
            .iter()
            .all(|m| m.in_book && m.value == at_start[0].value)
    );
    // Lines are priced: the second position is the one every first move reaches, and a
    // search of depth 1 from a fresh searcher values the start's moves as the book does.
    let f5 = Position::start().play("f5".parse().unwrap()).unwrap();
    let fresh = value_moves(&mut Searcher::new(4, Some(1)), &Position::start(), 2, &stop).unwrap();
    assert!(fresh.iter().all(|&(_, v)| v == fresh[0].1), "{fresh:?}");
    assert!(book.moves(&f5).is_some());
}

/// A book of `positions` valued at depth 1, covering `cover_plies`, and its searcher.
fn depth_one_book(cover_plies: u32, positions: usize) -> (Book, Searcher) {
    let mut searcher = Searcher::new(4, Some(1));
    let mut book = Book::new();
    let settings = settings(1, (0, 1), cover_plies);
    let stop = AtomicBool::new(false);
    grow(
        &mut book,
        &mut searcher,
        &settings,
        positions,
        &stop,
        &mut |_| {},
    );
    (book, searcher)
}

#[test]
fn deepening_goes_nearest_the_start_first() {
    let (mut book, mut searcher) = depth_one_book(3, 40);
    let stop = AtomicBool::new(false);
    let plies = |key: &BookKey| (key.0 | key.1).count_ones() - 4;
    let deepest = book.entries().map(|(k, _)| plies(k)).max().unwrap();
    assert!(deepest >= 3, "the book reaches ply {deepest}");
    // Stopped after 10 positions: those deepened are the ones nearest the start.
    let mut done = 0;
    let deepened = deepen(
        &mut book,
        &mut searcher,
        &settings(2, (0, 1), 0),
        &stop,
        &mut |_| {
            done += 1;
            if done == 10 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    );
    assert_eq!(deepened, 10);
    let ply_of = |depth: u8| {
        let mut plies: Vec<u32> = book
            .entries()
            .filter(|(_, e)| e.depth == depth)
            .map(|(k, _)| plies(k))
            .collect();
        plies.sort();
        plies
    };
    let (deep, shallow) = (ply_of(2), ply_of(1));
    assert_eq!(deep.len(), 10);
    assert!(
        deep.last() <= shallow.first(),
        "deepened {deep:?}, left {shallow:?}"
    );
}

#[test]
fn deepening_shards_split_the_positions_and_merge_to_the_whole() {
    let (book, mut searcher) = depth_one_book(2, 30);
    let stop = AtomicBool::new(false);
    let mut merged = Book::new();
    let mut total = 0;
    for shard in 0..2 {
        let mut part = book.clone();
        total += deepen(
            &mut part,
            &mut searcher,
            &settings(2, (shard, 2), 0),
            &stop,
            &mut |_| {},
        );
        let deepened = part.entries().filter(|(_, e)| e.depth == 2).count();
        assert!(
            0 < deepened && deepened < book.len(),
            "shard {shard}: {deepened}"
        );
        merged.merge(&part);
    }
    assert_eq!(total, book.len());
    assert!(merged.entries().all(|(_, e)| e.depth == 2));
    assert_eq!(merged.len(), book.len());
}

#[test]
fn covered_plies_come_first_then_lines_grow_from_them() {
    // Every position `plies` deep, up to symmetry (lines that pass are left out).
    fn reachable(plies: u32) -> Vec<Position> {
        let mut layer = vec![Position::start()];
        for _ in 0..plies {
            let mut seen = HashSet::new();
            layer = layer
                .iter()
                .flat_map(|p| p.legal_squares().into_iter().map(|s| p.play(Move::Play(s))))
                .filter_map(Result::ok)
                .filter(|c| seen.insert(normalize(c.player(), c.opponent()).0))
                .collect();
        }
        layer
    }
    let mut searcher = Searcher::new(4, Some(1));
    let settings = settings(1, (0, 1), 3);
    // Up to symmetry: the start, one position after any first move, three after two
    // (the perpendicular, parallel and diagonal openings).
    let covered: Vec<Vec<Position>> = (0..=3).map(reachable).collect();
    assert_eq!(
        covered.iter().map(Vec::len).take(3).collect::<Vec<_>>(),
        [1, 1, 3]
    );
    let total: usize = covered.iter().map(Vec::len).sum();
    let stop = AtomicBool::new(false);
    let mut book = Book::new();
    grow(
        &mut book,
        &mut searcher,
        &settings,
        total,
        &stop,
        &mut |_| {},
    );
    assert_eq!(book.len(), total);
    for at in covered.iter().flatten() {
        assert!(book.moves(at).is_some(), "{at}");
    }
    // Past the covered plies, lines grow best first from the positions they reach.
    grow(
        &mut book,
        &mut searcher,
        &settings,
        total + 40,
        &stop,
        &mut |_| {},
    );
    assert_eq!(book.len(), total + 40);
    let deeper = book
        .entries()
        .map(|(k, _)| (k.0 | k.1).count_ones() - 4)
        .filter(|&ply| ply > 3)
        .count();
    assert_eq!(deeper, 40);
}

#[test]
fn shards_split_the_lines_by_the_covered_positions() {
    // Two shards of a book that covers 5 plies (deeper than the usual split at ply 4):
    // they split the 5-ply positions between them, and each grows lines below its own
    // share, so what they grow beyond those plies hardly overlaps.
    let grow_shard = |i: u64| {
        let settings = settings(1, (i, 2), 5);
        let stop = AtomicBool::new(false);
        let mut book = Book::new();
        let mut searcher = Searcher::new(4, Some(1));
        grow(&mut book, &mut searcher, &settings, 600, &stop, &mut |_| {});
        book
    };
    let ply = |k: &BookKey| (k.0 | k.1).count_ones() - 4;
    let (first, second) = (grow_shard(0), grow_shard(1));
    let deeper = |book: &Book| -> HashSet<BookKey> {
        book.entries()
            .map(|(k, _)| *k)
            .filter(|k| ply(k) > 5)
            .collect()
    };
    let covered = |book: &Book| book.entries().filter(|(k, _)| ply(k) <= 5).count();
    // Up to symmetry, 1 + 1 + 3 + 14 + 60 + 322 positions within 5 plies; each shard
    // grows the 79 before the split, and its own share of the 322 at the split (split
    // at ply 4, the shards would share only 19 and split the 60 + 322 after them).
    assert_eq!(covered(&first) + covered(&second) - 2 * 79, 322);
    // Beyond, only transpositions between the shares are in both.
    let (a, b) = (deeper(&first), deeper(&second));
    let both = a.intersection(&b).count();
    assert!(
        both * 20 < a.len().min(b.len()),
        "{both} of {} and {}",
        a.len(),
        b.len()
    );
}

#[test]
fn the_book_neither_plays_nor_learns_positions_near_the_end() {
    // A line down to 29 empties (first legal move each time, passing when it must).
    let mut line = vec![Position::start()];
    while line.last().unwrap().empty_count() > 29 {
        let at = *line.last().unwrap();
        let next = match at.legal_squares().first() {
            Some(&sq) => at.play(Move::Play(sq)).unwrap(),
            None => at.play(Move::Pass).unwrap(),
        };
        line.push(next);
    }
    let deep = line.last().unwrap();
    let shallow = line.iter().rev().find(|p| p.empty_count() == 30).unwrap();
    let before_the_end = line.iter().filter(|p| p.empty_count() >= 30).count();
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(4, Some(1));
    let mut book = Book::new();
    for position in [deep, shallow] {
        let moves = value_moves(&mut searcher, position, 2, &stop).unwrap();
        book.insert(position.player(), position.opponent(), &moves, 0, 2);
    }
    searcher.set_book(Some(std::sync::Arc::new(book)), 0);
    assert!(searcher.book_reports(shallow).is_some());
    assert!(searcher.book_reports(deep).is_none());
    // Learning the line adds the positions from the start up to 30 empties, not beyond.
    searcher.set_book(Some(std::sync::Arc::new(Book::new())), 0);
    let added = searcher.learn_line(&line, 2, 64, &stop);
    assert_eq!(added, before_the_end);
    assert!(searcher.book().unwrap().moves(shallow).is_some());
    assert!(searcher.book().unwrap().moves(deep).is_none());
}

#[test]
fn a_book_kept_within_two_plies_ends_its_lines_there() {
    let (mut book, _) = depth_one_book(3, 40);
    let plies = |key: &BookKey| (key.0 | key.1).count_ones() - 4;
    let near = book.entries().filter(|(k, _)| plies(k) <= 2).count();
    assert!(near < book.len());
    book.keep_within(2);
    assert_eq!(book.len(), near);
    // The positions two plies deep are leaves now: worth their best searched move.
    for (key, entry) in book.entries().filter(|(k, _)| plies(k) == 2) {
        let searched = entry.moves.iter().map(|&(_, v)| i32::from(v)).max();
        assert_eq!(book.value(key), searched);
    }
}
