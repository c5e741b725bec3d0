//! The positions of a training run: the label each is fitted to ([`Label`], [`target`]), and
//! which train and which are held out to measure the error ([`TrainingData::add`]).

use super::TrainSample;
use crate::fit::dataset::{FLAG_EXACT, FLAG_WTHOR, Sample};

/// Games whose index is a multiple of this are held out to measure the error.
pub const HOLDOUT_EVERY: u32 = 10;
/// Self-play positions with more empties are left out by default: datagen's random openings
/// (up to 12 plies) make them, and their labels carry the luck of the random moves still to
/// come.
pub const DEFAULT_OPENING_EMPTIES: u8 = 48;

/// Which label a position is trained on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// The exact value where known, else the mean of the search value and the game's ending.
    Mix,
    /// The exact value where known, else the search value.
    Value,
    /// The game's exact ending.
    Ending,
}

/// The training label of `sample`, in discs for its side to move.
pub fn target(sample: &Sample, label: Label) -> f32 {
    let (value, ending) = (f32::from(sample.value), f32::from(sample.ending));
    if sample.flags & FLAG_EXACT != 0 {
        return value;
    }
    match label {
        Label::Mix => (value + ending) / 2.0,
        Label::Value => value,
        Label::Ending => ending,
    }
}

/// The labelled positions of a run: those it trains on and those it holds out.
#[derive(Clone, Debug, Default)]
pub struct TrainingData {
    /// The positions the weights are fitted to.
    pub train: Vec<TrainSample>,
    /// The held-out positions the error is measured on.
    pub validation: Vec<TrainSample>,
}

impl TrainingData {
    /// Adds the positions of a data file, labelled by `label`: self-play positions with more
    /// than `opening_empties` empties are left out (WTHOR positions are kept), and whole
    /// games are held out (every [`HOLDOUT_EVERY`]th), so that no held-out position has a
    /// twin in training.
    pub fn add(&mut self, samples: &[Sample], label: Label, opening_empties: u8) {
        for sample in samples {
            if sample.flags & FLAG_WTHOR == 0 && sample.empties > opening_empties {
                continue;
            }
            let s = TrainSample {
                player: sample.player,
                opponent: sample.opponent,
                target: target(sample, label),
            };
            if sample.game % HOLDOUT_EVERY == 0 {
                self.validation.push(s);
            } else {
                self.train.push(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: u32, empties: u8, value: i8, ending: i8, flags: u8) -> Sample {
        Sample {
            player: 0x0000_0008_1000_0000,
            opponent: 0x0000_0010_0800_0000,
            game,
            ending,
            value,
            empties,
            flags,
        }
    }

    #[test]
    fn an_exact_value_is_the_label_whatever_is_asked() {
        let guessed = sample(1, 30, 6, -2, 0);
        assert_eq!(target(&guessed, Label::Mix), 2.0);
        assert_eq!(target(&guessed, Label::Value), 6.0);
        assert_eq!(target(&guessed, Label::Ending), -2.0);
        let exact = sample(1, 16, 6, -2, FLAG_EXACT);
        for label in [Label::Mix, Label::Value, Label::Ending] {
            assert_eq!(target(&exact, label), 6.0);
        }
    }

    #[test]
    fn whole_games_are_held_out_and_self_play_openings_left_out() {
        let mut data = TrainingData::default();
        let samples = [
            sample(0, 40, 4, 4, 0),
            sample(10, 20, 2, 2, FLAG_EXACT),
            sample(3, 40, 8, 0, 0),
            sample(3, 50, 8, 0, 0),
            sample(7, 50, -2, -2, FLAG_WTHOR),
            sample(20, 49, 1, 1, 0),
        ];
        data.add(&samples, Label::Mix, 48);
        let targets = |v: &[TrainSample]| v.iter().map(|s| s.target).collect::<Vec<_>>();
        assert_eq!(targets(&data.validation), [4.0, 2.0]);
        assert_eq!(targets(&data.train), [4.0, -2.0]);
        // A second file adds to the same sets; 60 keeps every position.
        data.add(&samples[3..], Label::Value, 60);
        assert_eq!(targets(&data.validation), [4.0, 2.0, 1.0]);
        assert_eq!(targets(&data.train), [4.0, -2.0, 8.0, -2.0]);
    }
}
