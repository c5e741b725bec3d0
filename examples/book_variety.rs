//! How varied and how costly the built-in book's draw is: `cargo run --release --example
//! book_variety -- [D] [SETS]` plays SETS sets (default 500) of 20 self-play games from the
//! book at `--book-randomness D` discs (default: the engine's), both sides drawing, and prints
//! the share of sets whose 20 games all differ in their first 12 moves, and how much book
//! value each side gives away a game on average (the sum over its moves of how far each fell
//! below the best of its position).

use othello_engine::board::{Move, Position};
use othello_engine::search::book::{DEFAULT_RANDOMNESS, built_in};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::collections::HashSet;

/// Games in one set, as in the book's variety measurement (docs/measurements/book.md).
const GAMES: usize = 20;
/// The plies whose moves must differ.
const PLIES: usize = 12;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let discs: f64 = match args.first().map(|s| s.parse()) {
        None => f64::from(DEFAULT_RANDOMNESS) / 100.0,
        Some(Ok(d)) if (0.0..=64.0).contains(&d) => d,
        Some(_) => return eprintln!("book_variety: D is discs from 0 to 64"),
    };
    let sets: usize = match args.get(1).map(|s| s.parse()) {
        None => 500,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return eprintln!("book_variety: SETS is a count above 0"),
    };
    let randomness = (discs * 100.0).round() as i32;
    let book = built_in();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let (mut varied_sets, mut loss, mut book_plies) = (0, [0i64; 2], 0);
    for _ in 0..sets {
        let mut openings = HashSet::new();
        for _ in 0..GAMES {
            let mut position = Position::start();
            let mut line: Vec<Move> = Vec::new();
            while let Some(chosen) = book.choose(&position, randomness, &mut rng) {
                let best = book.moves(&position).map_or(chosen.value, |m| m[0].value);
                loss[line.len() % 2] += i64::from(best - chosen.value);
                line.push(chosen.mv);
                match position.play(chosen.mv) {
                    Ok(next) if line.len() < 60 => position = next,
                    _ => break,
                }
            }
            book_plies += line.len();
            line.truncate(PLIES);
            openings.insert(line);
        }
        if openings.len() == GAMES {
            varied_sets += 1;
        }
    }
    let games = (sets * GAMES) as f64;
    println!(
        "D = {discs}: all {GAMES} games differ in their first {PLIES} moves in {:.1}% of {sets} sets; book value given away a game: Black {:.2}, White {:.2} discs; {:.1} plies in the book",
        100.0 * f64::from(varied_sets) / sets as f64,
        loss[0] as f64 / 100.0 / games,
        loss[1] as f64 / 100.0 / games,
        book_plies as f64 / games
    );
}
