//! The tempo: a bonus the `neural` evaluator gives the side to move.
//!
//! **Why.** A search's root value leans towards whoever chose last. At the last ply the chooser
//! takes the largest of several noisy leaf values, so the one kept is, on average, one the
//! evaluation overrated for the chooser, that is, underrated for the side to move at the leaf.
//! At an odd depth the root's side chose last and the root value comes out too high; at an even
//! depth too low: the root value swings with the parity of the depth (issue 82 measured about
//! two discs between depths 13 and 14 on solved positions of 26 empties). A constant bonus for
//! the side to move at the leaves undoes the lean on average. Within one depth it changes no
//! move (every leaf of a full-depth line has the same side to move); it brings the values of
//! consecutive depths together, which is what iterative deepening, aspiration windows,
//! Multi-ProbCut's shallow searches and the leaves at the end of the game compare.
//!
//! **How much** is measured, not trained: the labels themselves came from searches of one
//! parity, so the trainer cannot see the lean. [`DEFAULT_TEMPO`] is the bonus at which
//! consecutive depths from 11 to 14 agree on average (`datagen swing --tempo`: 1.20, 1.20 and
//! 1.29 discs for 11-12, 12-13 and 13-14) on 300 positions of 26 empties from the label
//! pilot's held-out games, other games than those the swing is judged on (docs/recipes.md).
//! Measured for the built-in network: another network has its own lean.

use std::sync::atomic::{AtomicI32, Ordering};

/// The built-in bonus, in hundredths of a disc.
pub const DEFAULT_TEMPO: i32 = 125;
/// The largest bonus that may be set, in hundredths of a disc.
pub const MAX_TEMPO: i32 = 1000;

static TEMPO: AtomicI32 = AtomicI32::new(DEFAULT_TEMPO);

/// The bonus in use, in hundredths of a disc.
#[inline(always)]
pub fn tempo() -> i32 {
    TEMPO.load(Ordering::Relaxed)
}

/// Sets the bonus for the rest of the process (measuring tools: `datagen swing --tempo`);
/// an error beyond ±[`MAX_TEMPO`].
pub fn set_tempo(centidiscs: i32) -> Result<(), String> {
    if centidiscs.abs() > MAX_TEMPO {
        return Err(format!(
            "tempo {centidiscs} out of range (at most {MAX_TEMPO} hundredths of a disc either way)"
        ));
    }
    TEMPO.store(centidiscs, Ordering::Relaxed);
    Ok(())
}
