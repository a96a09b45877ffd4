//! After `fork()`, a seeded source that overrides `RandomSource::next_bits` (as the
//! Python package's `getrandbits(k)` source does) is salted in the child through
//! `next_bits` too: parent and child, both taking a new millisecond, do not draw the
//! same counters or `per_sec_random`. (`per_gen_random` alone would keep their IDs
//! apart, so the ID sets being disjoint does not show this: the fields are compared.)
//!
//! A test binary of its own, like `fork.rs`, so that it forks with few threads.
#![cfg(unix)]

use std::sync::atomic::{AtomicU64, Ordering};

use scru128::{MAX_COUNTER, MAX_PER_SEC_RANDOM, RandomSource, Scru128Generator, Scru128Id};

mod common;
use common::processes::fork_and_generate;

/// Two xorshift streams: one for `next_u32`, one for `next_bits`, which answers with
/// more bits than asked for. Copied as it is by `fork()`.
#[derive(Clone)]
struct TwoStreams {
    words: u32,
    widths: u32,
}

impl RandomSource for TwoStreams {
    fn next_u32(&mut self) -> u32 {
        common::xorshift32_step(&mut self.words)
    }

    fn next_bits(&mut self, _bits: u32) -> u32 {
        common::xorshift32_step(&mut self.widths)
    }
}

#[track_caller]
fn assert_well_formed(id: Scru128Id) {
    let rebuilt = Scru128Id::from_fields(
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    );
    assert_eq!(rebuilt, id);
    assert!(id.counter() <= MAX_COUNTER && id.per_sec_random() <= MAX_PER_SEC_RANDOM);
}

#[test]
fn a_source_overriding_next_bits_is_salted_in_the_child() {
    static NOW: AtomicU64 = AtomicU64::new(0);
    const T0: u64 = 1_700_000_000_000;
    NOW.store(T0, Ordering::Relaxed);
    let source = TwoStreams {
        words: 0x1234_5678,
        widths: 0x0bad_cafe,
    };
    let mut g = Scru128Generator::with_rng_and_clock(source, || NOW.load(Ordering::Relaxed));
    for _ in 0..100 {
        g.generate();
    }
    // Past the per-second renewal: both sides take a new millisecond, a fresh counter
    // and a fresh per_sec_random at their first ID after the fork.
    NOW.store(T0 + 5_000, Ordering::Relaxed);
    let (parent, child) = fork_and_generate(1_000, || g.generate());

    let (p, c) = (parent[0], child[0]);
    assert_eq!(p.unix_ts_ms(), T0 + 5_000);
    assert_eq!(c.unix_ts_ms(), T0 + 5_000);
    assert_ne!(
        p.counter(),
        c.counter(),
        "parent and child drew the same counter through next_bits"
    );
    assert_ne!(
        p.per_sec_random(),
        c.per_sec_random(),
        "parent and child drew the same per_sec_random through next_bits"
    );
    for id in parent.iter().chain(&child) {
        assert_well_formed(*id);
    }
    let parent_set: std::collections::HashSet<_> = parent.iter().collect();
    assert!(child.iter().all(|id| !parent_set.contains(id)));
}

#[test]
fn a_copied_seeded_source_overriding_next_bits_differs_between_siblings() {
    // Two children forked from one master (each with a clone of its generator): each
    // salts with a stream of its own, so their counters and per_sec_random differ.
    static NOW: AtomicU64 = AtomicU64::new(0);
    const T0: u64 = 1_700_000_000_000;
    NOW.store(T0, Ordering::Relaxed);
    let master = Scru128Generator::with_rng_and_clock(
        TwoStreams {
            words: 0xfeed_f00d,
            widths: 0x1357_9bdf,
        },
        || NOW.load(Ordering::Relaxed),
    );
    NOW.store(T0 + 2_000, Ordering::Relaxed);
    let mut first = master.clone();
    let (_, child1) = fork_and_generate(10, || first.generate());
    let mut second = master.clone();
    let (_, child2) = fork_and_generate(10, || second.generate());
    assert_ne!(
        (child1[0].counter(), child1[0].per_sec_random()),
        (child2[0].counter(), child2[0].per_sec_random()),
        "two children drew the same next_bits numbers"
    );
}
