//! The worker pool: threads that take the next job of the queue, play it (each game starts
//! its own engines) and report to the runner, until the queue is empty, the runner asks them
//! to stop, or a signal comes.

use super::config::MatchConfig;
use super::outcome::Played;
use super::referee::{Allowance, KeptEngines, play_game};
use super::schedule::Job;
use crate::sys::signals;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What the workers tell the runner: a game started, or a game finished.
pub enum Event {
    /// A worker took a job.
    Started,
    /// A game is over.
    Finished(Box<Played>),
}

/// The running workers and the channel of their events.
pub struct Pool {
    /// Their events; it disconnects when the last worker has stopped.
    pub events: Receiver<Event>,
    stop: Arc<AtomicBool>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `count` workers playing `jobs` in order.
    pub fn start(count: usize, jobs: VecDeque<Job>, config: Arc<MatchConfig>) -> Pool {
        let queue = Arc::new(Mutex::new(jobs));
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, events) = channel::<Event>();
        let handles = (0..count)
            .map(|_| {
                let (queue, stop, config, sender) =
                    (queue.clone(), stop.clone(), config.clone(), sender.clone());
                std::thread::spawn(move || work(&queue, &stop, &config, &sender))
            })
            .collect();
        Pool {
            events,
            stop,
            handles,
        }
    }

    /// Asks the workers to take no more jobs; games under way still finish.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for every worker to end.
    pub fn join(self) {
        for handle in self.handles {
            let _ = handle.join();
        }
    }
}

/// One worker: plays jobs until there is none left, it is stopped, or a signal comes (a game
/// cut short by the signal is abandoned, not reported).
fn work(
    queue: &Mutex<VecDeque<Job>>,
    stop: &AtomicBool,
    config: &MatchConfig,
    sender: &Sender<Event>,
) {
    let mut kept = KeptEngines::default();
    while !stop.load(Ordering::Relaxed) && signals::caught().is_none() {
        let job = match queue.lock() {
            Ok(mut q) => q.pop_front(),
            Err(_) => None,
        };
        let Some(job) = job else { break };
        if sender.send(Event::Started).is_err() {
            break;
        }
        let seats = [
            (job.black, &config.engines[job.black]),
            (job.white, &config.engines[job.white]),
        ];
        let game = play_game(
            seats,
            config.keep_engines.then_some(&mut kept),
            &config.openings[job.opening],
            [config.control_of(job.black), config.control_of(job.white)],
            Allowance {
                margin: config.margin,
                latency: config.latency,
            },
        );
        if signals::caught().is_some() {
            break; // cut short by the interruption, or not: it is abandoned either way
        }
        let played = Played {
            number: job.number,
            opening: job.opening,
            black: job.black,
            white: job.white,
            game,
        };
        if sender.send(Event::Finished(Box::new(played))).is_err() {
            break;
        }
    }
    kept.quit_all();
}
