//! Growing the opening book (`othello-engine book build` and `book extend`).
//!
//! **Best first.** The book grows one batch of positions at a time, from the start. Every move
//! of a book position that leads out of the book is a candidate, priced by how far the line
//! to it strays from the book's best play: the sum, along the cheapest line from the start,
//! of each move's drop below its position's best value, plus a fixed price per ply. The
//! cheapest candidates are expanded: each move of the new position is valued by a search of
//! the position after it, and the values are backed up by negamax ([`Book`]). So the book
//! goes deep along the best lines and wide where moves are close, as drop-out expansion does
//! (Lincke's method, which the strong Othello books use). Positions that many WTHOR expert
//! games reached come first, whatever their price, so the book covers what people play.
//!
//! **Covering the first plies.** With `cover_plies` N, every position reachable within N
//! plies comes first, shallowest first, and the moves of those first N plies cost nothing
//! but their ply price: each position N plies deep is then the root of its own best-first
//! growth. Engine testers start their games from random openings of a few plies (`match
//! --opening-plies`); a book grown from the start alone never sees most of them, since one of
//! their random moves usually gives away more than any line the book would follow.
//!
//! **Shards.** With `shard i/n`, the lines are split by the position they reach after
//! [`SHARD_PLY`] moves (or after the covered plies, when there are more: their positions are
//! the roots every shard should share evenly): every shard grows the positions before it, and
//! beyond it only the lines of its own share; `book merge` joins the shards' books.

use super::book::{Book, BookKey, normalize};
use super::searcher::{Searcher, value_moves};
use crate::board::{Move, Position};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

/// Lines are given to shards by the position they reach after this many moves.
pub const SHARD_PLY: u32 = 4;
/// The most positions one batch expands: a batch grows the book by about 1/`BATCH_DIVISOR`.
const BATCH_DIVISOR: usize = 32;
/// The price of the covered plies' positions: below every other candidate's.
const COVER_PRICE: i64 = i64::MIN / 2;

/// How to grow a book.
#[derive(Clone, Debug)]
pub struct BuildSettings {
    /// The depth of the search that values each move (the search of the position after it is
    /// one ply shallower).
    pub depth: u32,
    /// The price of one ply of a line, in hundredths of a disc: higher makes the book wider
    /// and shallower.
    pub ply_cost: i32,
    /// This shard's index and the number of shards (0 and 1: the whole book).
    pub shard: (u64, u64),
    /// WTHOR game counts of the positions to include first (by key).
    pub frequent: HashMap<BookKey, u32>,
    /// Every position reachable within this many plies comes first, and the moves of these
    /// plies are priced without their drops (0: none; the book grows from the start alone).
    pub cover_plies: u32,
}

/// A move leading out of the book, with the price of the line to it.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    price: i64,
    child: Position,
    key: BookKey,
}

/// A key's shard, from a mix of its bits.
fn shard_of(key: &BookKey, shards: u64) -> u64 {
    let mix = key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key.1.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mix >> 17) % shards.max(1)
}

/// The cheapest candidates out of `book`: moves of book positions whose child is not in the
/// book, cheapest first, each child once, only those of this shard.
fn candidates(book: &Book, settings: &BuildSettings) -> Vec<Candidate> {
    let start = Position::start();
    let (root, _) = normalize(start.player(), start.opponent());
    // Cheapest price and owning shard of each book position reached, layer by layer: every
    // move adds a disc, so a position's parents all lie in the layer before (lines through a
    // pass, which books hardly ever reach, are not followed).
    let mut best: HashMap<BookKey, (i64, Option<u64>, Position)> = HashMap::new();
    best.insert(root, (0, None, start));
    let mut layer = vec![root];
    let mut queued: HashSet<BookKey> = HashSet::new();
    let mut out: HashMap<BookKey, Candidate> = HashMap::new();
    let mut ply = 0;
    while !layer.is_empty() {
        let mut next: Vec<BookKey> = Vec::new();
        for key in &layer {
            let (price, owner, position) = best[key];
            let Some(moves) = book.moves(&position) else {
                continue;
            };
            let top = moves[0].value;
            for m in moves {
                let Ok(child) = position.play(m.mv) else {
                    continue;
                };
                let (child_key, _) = normalize(child.player(), child.opponent());
                let drop = if ply < settings.cover_plies {
                    0
                } else {
                    i64::from(top - m.value)
                };
                let child_price = price + drop + i64::from(settings.ply_cost);
                let child_owner = if ply + 1 == SHARD_PLY.max(settings.cover_plies) {
                    Some(shard_of(&child_key, settings.shard.1))
                } else {
                    owner
                };
                if m.in_book {
                    let slot = best.entry(child_key).or_insert((i64::MAX, None, child));
                    if child_price < slot.0 {
                        *slot = (child_price, child_owner, child);
                    }
                    if m.mv != Move::Pass && queued.insert(child_key) {
                        next.push(child_key);
                    }
                } else {
                    if child.is_game_over() {
                        continue;
                    }
                    if child_owner.is_some_and(|o| o != settings.shard.0) {
                        continue;
                    }
                    let price = if ply < settings.cover_plies {
                        // The covered plies first, the shallowest first.
                        COVER_PRICE + i64::from(ply)
                    } else if settings.frequent.contains_key(&child_key) {
                        // Positions people play go first, the most played first.
                        -i64::from(settings.frequent[&child_key])
                    } else {
                        child_price
                    };
                    let slot = out.entry(child_key).or_insert(Candidate {
                        price: i64::MAX,
                        child,
                        key: child_key,
                    });
                    if price < slot.price {
                        *slot = Candidate {
                            price,
                            child,
                            key: child_key,
                        };
                    }
                }
            }
        }
        layer = next;
        ply += 1;
    }
    let mut out: Vec<Candidate> = out.into_values().collect();
    out.sort_by_key(|c| (c.price, c.key));
    out
}

/// Grows `book` until it holds `target` positions (or `stop` is raised), batch by batch;
/// `after_batch` gets the book after each batch (to save it and show progress). Starts with
/// the start position when the book lacks it. Returns the positions added.
pub fn grow(
    book: &mut Book,
    searcher: &mut Searcher,
    settings: &BuildSettings,
    target: usize,
    stop: &AtomicBool,
    after_batch: &mut dyn FnMut(&Book),
) -> usize {
    let mut added = 0;
    let start = Position::start();
    let (root, _) = normalize(start.player(), start.opponent());
    if book.entry(&root).is_none()
        && !stop.load(Ordering::Relaxed)
        && let Some(moves) = value_moves(searcher, &start, settings.depth, stop)
    {
        book.insert(
            start.player(),
            start.opponent(),
            &moves,
            0,
            settings.depth as u8,
        );
        added += 1;
        after_batch(book);
    }
    while book.len() < target && !stop.load(Ordering::Relaxed) {
        let batch = (book.len() / BATCH_DIVISOR).clamp(1, target - book.len());
        let chosen: Vec<Candidate> = candidates(book, settings).into_iter().take(batch).collect();
        if chosen.is_empty() {
            break;
        }
        for c in chosen {
            let Some(moves) = value_moves(searcher, &c.child, settings.depth, stop) else {
                break;
            };
            let games = settings.frequent.get(&c.key).copied().unwrap_or(0);
            book.insert_unbacked(
                c.child.player(),
                c.child.opponent(),
                &moves,
                games,
                settings.depth as u8,
            );
            added += 1;
        }
        book.back_up();
        after_batch(book);
    }
    added
}

/// Values again, at `settings.depth`, every book position searched shallower (`book extend
/// --depth`), the positions nearest the start first, until done or stopped; `after_each`
/// gets the book after each position. Returns the positions deepened. Nearest first because
/// they are played most (every game passes through its first plies) and a deepening of a
/// large book takes hours: one stopped early has deepened what counts most. With a shard,
/// only its share of the positions (by key): `book merge` keeps the deeper of two entries.
pub fn deepen(
    book: &mut Book,
    searcher: &mut Searcher,
    settings: &BuildSettings,
    stop: &AtomicBool,
    after_each: &mut dyn FnMut(&Book),
) -> usize {
    let mut shallow: Vec<(BookKey, u32)> = book
        .entries()
        .filter(|(k, e)| needs_deepening(k, e.depth, settings))
        .map(|(k, e)| (*k, e.games))
        .collect();
    shallow.sort_by_key(|&(key, _)| ((key.0 | key.1).count_ones(), key));
    let mut done = 0;
    for (key, games) in shallow {
        let position = Position::from_player_opponent(key.0, key.1, crate::board::Color::Black);
        let Some(moves) = value_moves(searcher, &position, settings.depth, stop) else {
            break;
        };
        book.insert(key.0, key.1, &moves, games, settings.depth as u8);
        done += 1;
        after_each(book);
    }
    done
}

/// Whether `deepen` values the position `key`, searched at `depth`, again: it is shallower
/// than the settings ask, and in their shard.
pub fn needs_deepening(key: &BookKey, depth: u8, settings: &BuildSettings) -> bool {
    let (shard, shards) = settings.shard;
    u32::from(depth) < settings.depth && (shards <= 1 || shard_of(key, shards) == shard)
}

/// The keys of the positions that at least `min_games` of `games` reach within their first
/// `max_ply` moves, with their counts.
pub fn frequent_positions(
    games: &[Vec<Move>],
    max_ply: usize,
    min_games: u32,
) -> HashMap<BookKey, u32> {
    let mut counts: HashMap<BookKey, u32> = HashMap::new();
    for game in games {
        let mut at = Position::start();
        for mv in game.iter().take(max_ply) {
            if at.must_pass() && !at.is_game_over() {
                at = at.pass();
            }
            let Ok(next) = at.play(*mv) else {
                break;
            };
            at = next;
            let (key, _) = normalize(at.player(), at.opponent());
            *counts.entry(key).or_insert(0) += 1;
        }
    }
    counts.retain(|_, c| *c >= min_games);
    counts
}

#[cfg(test)]
mod tests;
