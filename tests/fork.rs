//! After `fork()`, parent and child never emit the same ID (SPEC section 3), for the
//! process-wide generator and for a generator the user created before the fork.
//!
//! A test binary of its own, so that the process forks with as few threads as
//! possible; the tests here also take a lock so that no two fork at once, and no
//! other thread holds the process-wide generator's lock at the moment of a fork. The
//! child does no heavy allocation: its buffer is allocated before the fork, it writes
//! with `common::processes::write_all`, which allocates nothing, and it leaves with
//! `_exit`, never returning into the test harness.
#![cfg(unix)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};

use scru128::{Scru128Generator, Scru128Id, TIMESTAMP_BIAS, scru128};

mod common;
use common::processes::fork_and_generate;
use common::xorshift32;

const N: usize = 100_000;

fn assert_strictly_increasing(side: &str, ids: &[Scru128Id]) {
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{side}: {} !< {}", w[0], w[1]);
    }
}

/// The child draws its random numbers from a reseeded source, not from a copy of the
/// parent's: by chance, two sets of 100 000 random 32-bit values share about 2
/// (Poisson, mean n²/2³²); a copied stream would share nearly all of them.
fn assert_independent_randomness(parent: &[Scru128Id], child: &[Scru128Id]) {
    let parent_set: HashSet<u32> = parent.iter().map(Scru128Id::per_gen_random).collect();
    let shared = child
        .iter()
        .filter(|id| parent_set.contains(&id.per_gen_random()))
        .count();
    assert!(
        shared < 100,
        "{shared} per_gen_random values appear on both sides: the child reuses the parent's random stream"
    );
}

/// What every fork test expects of the IDs made on both sides after the fork: each
/// side increasing and after `last_before`, no ID shared, the child at a fresh
/// millisecond, and unrelated random fields.
#[track_caller]
fn assert_fork_outcome(last_before: Scru128Id, parent: &[Scru128Id], child: &[Scru128Id]) {
    assert_strictly_increasing("parent", parent);
    assert_strictly_increasing("child", child);
    // Both carry on after what came before the fork.
    assert!(parent[0] > last_before);
    assert!(child[0] > last_before);
    assert_disjoint(parent, child);
    assert_child_moved_on(last_before, child);
    assert_independent_randomness(parent, child);
}

/// The child moves on to a millisecond of its own: its first ID has a later
/// timestamp than the parent's last ID before the fork.
fn assert_child_moved_on(last_before: Scru128Id, child: &[Scru128Id]) {
    assert!(
        child[0].timestamp() > last_before.timestamp(),
        "child's first ID {} shares the timestamp of the parent's last ID {last_before}",
        child[0]
    );
}

fn assert_disjoint(parent: &[Scru128Id], child: &[Scru128Id]) {
    let parent_set: HashSet<Scru128Id> = parent.iter().copied().collect();
    let shared: Vec<&Scru128Id> = child.iter().filter(|id| parent_set.contains(id)).collect();
    assert!(
        shared.is_empty(),
        "{} IDs emitted by both parent and child, e.g. {}",
        shared.len(),
        shared[0]
    );
}

#[test]
fn process_wide_generator_parent_and_child_share_no_id() {
    // The parent has used the generator (and this thread's random source) before.
    let before: Vec<Scru128Id> = (0..1000).map(|_| scru128()).collect();
    assert_strictly_increasing("before", &before);
    let last_before = *before.last().unwrap();

    let (parent, child) = fork_and_generate(N, scru128);

    assert_eq!(parent.len(), N);
    assert_eq!(child.len(), N);
    assert_fork_outcome(last_before, &parent, &child);
    // And the parent is still fine afterwards.
    assert!(scru128() > *parent.last().unwrap());
}

#[test]
fn user_generator_created_before_the_fork_parent_and_child_share_no_id() {
    let mut g = Scru128Generator::new();
    let before: Vec<Scru128Id> = (0..1000).map(|_| g.generate()).collect();
    let last_before = *before.last().unwrap();

    // Both sides go on with their copy of the same generator.
    let (parent, child) = fork_and_generate(N, || g.generate());

    assert_fork_outcome(last_before, &parent, &child);
}

#[test]
fn user_generator_with_injected_sources_moves_the_child_a_millisecond_on() {
    // A frozen clock and a counting random source (copied as they are into the
    // child) make the parent's outcome exact: without fork handling both sides would
    // make the very same IDs.
    const T0: u64 = 1_700_000_000_000;
    const TS0: u64 = T0 - TIMESTAMP_BIAS;
    let mut draws = 0u32;
    let rng = move || {
        draws += 1;
        draws
    };
    let mut g = Scru128Generator::with_rng_and_clock(rng, || T0);
    for _ in 0..10 {
        g.generate();
    }
    // 10 IDs: draws 1 (counter), 2 (per_sec_random), 3..=12 (per_gen_random).
    let (parent, child) = fork_and_generate(1000, || g.generate());

    // Parent: counts on at TS0 (counter 11, 12, ...), per_gen_random from draw 13.
    let p = parent[0];
    assert_eq!(
        (
            p.timestamp(),
            p.counter(),
            p.per_sec_random(),
            p.per_gen_random()
        ),
        (TS0, 11, 2, 13)
    );
    // Child: the next millisecond, a fresh counter, a fresh per_sec_random and
    // per_gen_random: draws 13, 14, 15 of its copy of the source, but each mixed with a
    // stream of the child's own (the copy alone would repeat the parent's numbers).
    let c = child[0];
    assert_eq!(c.timestamp(), TS0 + 1);
    assert_ne!(
        (c.counter(), c.per_sec_random(), c.per_gen_random()),
        (13, 14, 15),
        "the child draws the parent's numbers"
    );
    let counting_on = child
        .windows(2)
        .filter(|w| w[1].per_gen_random() == w[0].per_gen_random().wrapping_add(1))
        .count();
    assert!(
        counting_on < 10,
        "{counting_on} of the child's per_gen_random follow the copied count"
    );
    assert!(parent.iter().all(|id| id.timestamp() == TS0));
    assert!(child.iter().all(|id| id.timestamp() == TS0 + 1));
    assert_strictly_increasing("parent", &parent);
    assert_strictly_increasing("child", &child);
    assert_disjoint(&parent, &child);
}

/// Issue 10, defect 3: a seeded source (here a xorshift closure) copied into a child,
/// with the clock moved on by more than the per-second renewal before both sides
/// generate: both take a new millisecond, where moving the child on a millisecond
/// does not separate them, so without a stream of the child's own they would make the
/// very same IDs.
#[test]
fn a_seeded_source_copied_by_fork_with_the_clock_moved_on_repeats_nothing() {
    static NOW: AtomicU64 = AtomicU64::new(0);
    const T0: u64 = 1_700_000_000_000;
    NOW.store(T0, Ordering::Relaxed);
    let mut g = Scru128Generator::with_rng_and_clock(xorshift32(0x1234_5678), || {
        NOW.load(Ordering::Relaxed)
    });
    let before: Vec<Scru128Id> = (0..100).map(|_| g.generate()).collect();
    let last_before = *before.last().unwrap();
    NOW.store(T0 + 5_000, Ordering::Relaxed);

    let (parent, child) = fork_and_generate(10_000, || g.generate());

    assert!(child.iter().all(|id| id.unix_ts_ms() == T0 + 5_000));
    assert_fork_outcome(last_before, &parent, &child);
}

/// Issue 10, defect 3, between siblings: two workers forked from one master, each with
/// a copy of a generator over a seeded source, used after the clock moved on: each
/// child mixes in a stream of its own, so the two repeat nothing of each other.
#[test]
fn siblings_forked_with_one_seeded_generator_repeat_nothing() {
    static NOW: AtomicU64 = AtomicU64::new(0);
    const T0: u64 = 1_700_000_000_000;
    NOW.store(T0, Ordering::Relaxed);
    let mut master = Scru128Generator::with_rng_and_clock(xorshift32(0x0bad_cafe), || {
        NOW.load(Ordering::Relaxed)
    });
    for _ in 0..100 {
        master.generate();
    }
    NOW.store(T0 + 2_000, Ordering::Relaxed);
    // Each fork starts from the master's state as it was (a clone of it).
    let mut first = master.clone();
    let (_, child1) = fork_and_generate(10_000, || first.generate());
    let mut second = master.clone();
    let (_, child2) = fork_and_generate(10_000, || second.generate());
    assert_strictly_increasing("first child", &child1);
    assert_strictly_increasing("second child", &child2);
    assert_disjoint(&child1, &child2);
    assert_independent_randomness(&child1, &child2);
}

/// `try_fill` in a child forked during the call (here by the random source, as a
/// signal handler might): the batch is made again, and where that fails (at the last
/// representable millisecond, the child's counter moved past the parent's), none of
/// the first attempt's IDs, its parent's, are left in the slice.
#[test]
fn a_batch_made_again_after_a_fork_that_fails_leaves_none_of_the_parents_ids() {
    use std::sync::atomic::AtomicBool;
    let _serial = common::processes::serial();
    static FORKED: AtomicBool = AtomicBool::new(false);
    static PID: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);
    struct Forking(u32);
    impl scru128::RandomSource for Forking {
        fn next_u32(&mut self) -> u32 {
            common::xorshift32_step(&mut self.0)
        }
        fn fill_u32(&mut self, dest: &mut [u32]) {
            if !FORKED.swap(true, Ordering::Relaxed) {
                // SAFETY: the child only fills a slice, checks it and leaves by `_exit`.
                let pid = unsafe { libc::fork() };
                assert!(pid >= 0, "fork failed");
                PID.store(pid, Ordering::Relaxed);
            }
            for slot in dest {
                *slot = self.next_u32();
            }
        }
    }
    let last_ms = TIMESTAMP_BIAS + scru128::MAX_TIMESTAMP - 1;
    let mut g = Scru128Generator::with_rng_and_clock(Forking(7), move || last_ms);
    let mut ids = vec![Scru128Id::MIN; 100];
    let filled = g.try_fill(&mut ids);
    let pid = PID.load(Ordering::Relaxed);
    if pid == 0 {
        let code = match filled {
            Err(scru128::GenerateError::TimestampExhausted)
                if ids.iter().all(|&id| id == Scru128Id::MIN) =>
            {
                0
            }
            Err(_) => 2,
            Ok(()) => 3,
        };
        // SAFETY: leaves the child at once, never returning into the test harness.
        unsafe { libc::_exit(code) };
    }
    let status = common::processes::wait(pid);
    filled.expect("the parent's batch");
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(libc::WIFEXITED(status), "child status {status}");
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "child: 2 = left the parent's IDs in the slice, 3 = no error"
    );
}
