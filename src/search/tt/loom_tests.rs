//! Model tests of the lock-free slots: `loom` runs each closure under every interleaving of its
//! threads (up to a bound on preemptions) and lets every relaxed load return any value the
//! memory model allows, so a reader sees every way a slot can be torn. Run by .ci/run:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --lib search::tt`.
use super::*;
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic::AtomicUsize;

/// Runs `model` under loom with at most `preemptions` forced thread switches per execution
/// (unless `LOOM_MAX_PREEMPTIONS` says otherwise) and prints how many executions it explored.
/// Loads see stale values whatever the bound: it limits only the interleavings, and exploring
/// them all grows steeply with it.
fn explore(name: &str, preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(preemptions);
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&executions);
    builder.check(move || {
        counter.fetch_add(1, Ordering::Relaxed);
        model();
    });
    let explored = executions.load(Ordering::Relaxed);
    eprintln!("{name}: {explored} executions");
}

/// For one slot, three threads of four accesses each: a reader switched out between loads
/// while two writers run, or a writer switched out between stores (the torn reads of three
/// entries); at 3, about 540,000 executions and 2 minutes a test.
const SLOT_PREEMPTIONS: usize = 2;

/// For a bucket, two threads of up to sixteen accesses each: a store switched out once (say
/// between reading the bucket and writing it) while the other runs; at 2, about 400,000
/// executions and 90 s a test.
const BUCKET_PREEMPTIONS: usize = 1;

const fn entry(position: (u64, u64), lower: i32, upper: i32, best: u8, depth: u8) -> Entry {
    Entry {
        player: position.0,
        opponent: position.1,
        lower,
        upper,
        best,
        depth,
        kind: 3,
        age: 1,
    }
}

/// What a probe may see: a whole entry that was written, or something no probe of a
/// written position accepts.
fn assert_whole_or_miss(seen: Entry, written: &[Entry]) {
    if written.contains(&seen) {
        return;
    }
    for w in written {
        assert!(
            !seen.is_of(w.player, w.opponent, w.kind),
            "a torn slot reads as {seen:?}, a hit for the position of {w:?}"
        );
    }
}

/// `initial` is in the slot; two threads save `first` and `second` into it while the main
/// thread reads it, and reads it again once they are done.
fn race_on_one_slot(initial: Entry, first: Entry, second: Entry) {
    let slot = Arc::new(Slot::default());
    slot.save(&initial);
    // Alone, a slot reads back what was saved: a table that never hits would pass the rest.
    assert_eq!(slot.load(), initial);
    let writers = [first, second].map(|e| {
        let slot = Arc::clone(&slot);
        thread::spawn(move || slot.save(&e))
    });
    let written = [initial, first, second];
    assert_whole_or_miss(slot.load(), &written);
    for writer in writers {
        writer.join().unwrap();
    }
    assert_whole_or_miss(slot.load(), &written);
}

#[test]
fn a_slot_written_with_results_for_one_position_reads_whole_or_misses() {
    // The bounds and the info words of these three differ by the same bits (lower 2, 3, 9;
    // best 5, 7, 4): a check that only XORs the two data words would take the key words
    // of the first, the bounds of the second and the info of the third for a whole entry.
    let p = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
    explore("one position", SLOT_PREEMPTIONS, move || {
        race_on_one_slot(
            entry(p, 2, 10, 5, 8),
            entry(p, 3, 10, 7, 8),
            entry(p, 9, 10, 4, 8),
        )
    });
}

#[test]
fn a_slot_written_with_different_positions_reads_whole_or_misses() {
    explore("different positions", SLOT_PREEMPTIONS, || {
        race_on_one_slot(
            entry((0x0000_0000_1800_0000, 0x0000_0018_0000_0000), 0, 0, 20, 7),
            entry(
                (0x0000_0008_1000_0000, 0x0000_0010_0800_0000),
                -4,
                12,
                19,
                6,
            ),
            entry(
                (0x0000_0018_1000_0000, 0x0000_0000_0800_0000),
                -64,
                64,
                37,
                9,
            ),
        )
    });
}

/// A table of one bucket: every position lands in it.
fn one_bucket() -> TranspositionTable {
    TranspositionTable {
        buckets: vec![Bucket::default()],
        mask: 0,
        age: AtomicU8::new(1),
    }
}

/// Two threads store `(lower, upper, best)` results for `positions` at depth 6 into one
/// bucket; once both are done, a probe of either position finds one of `written` or nothing.
/// (The probes run after the stores: a probe racing a store is a read of a slot, tested above,
/// and leaving it out keeps the model small enough to explore.)
fn race_on_one_bucket(
    positions: [(u64, u64); 2],
    results: [(i32, i32, u8); 2],
    written: &'static [Entry],
) {
    let tt = Arc::new(one_bucket());
    let storers = [0, 1].map(|k| {
        let tt = Arc::clone(&tt);
        let (lower, upper, best) = results[k];
        thread::spawn(move || tt.store(positions[k], 3, 6, lower, upper, best))
    });
    for storer in storers {
        storer.join().unwrap();
    }
    for (player, opponent) in positions {
        if let Some(seen) = tt.probe(player, opponent, 3) {
            assert_whole_or_miss(seen, written);
        }
    }
}

const P: (u64, u64) = (1, 2);
const Q: (u64, u64) = (4, 8);

#[test]
fn two_threads_storing_two_positions_into_one_bucket_leave_only_whole_entries() {
    static WRITTEN: [Entry; 2] = [entry(P, -4, 12, 19, 6), entry(Q, 30, 64, 37, 6)];
    explore("bucket, two positions", BUCKET_PREEMPTIONS, || {
        race_on_one_bucket([P, Q], [(-4, 12, 19), (30, 64, 37)], &WRITTEN)
    });
}

#[test]
fn two_threads_merging_bounds_of_one_position_leave_only_whole_entries() {
    // Each store alone, or the later merged with the earlier: both bounds kept, and the move
    // of the one that proved the lower bound (none, when that one named none).
    static WRITTEN: [Entry; 4] = [
        entry(P, -64, 8, 5, 6),
        entry(P, 4, 64, NO_MOVE, 6),
        entry(P, 4, 8, 5, 6),
        entry(P, 4, 8, NO_MOVE, 6),
    ];
    explore("bucket, one position", BUCKET_PREEMPTIONS, || {
        race_on_one_bucket([P, P], [(-64, 8, 5), (4, 64, NO_MOVE)], &WRITTEN)
    });
}
