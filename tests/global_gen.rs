//! The process-wide generator `scru128()`: thread-safe, increasing in every thread,
//! no two IDs sharing `(timestamp, counter)`, and not broken by a panicking thread.
//! (Its behaviour across `fork()` is in tests/fork.rs, a binary of its own.)

use std::collections::HashSet;
use std::panic::catch_unwind;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::SystemTime;

use scru128::{Scru128Id, scru128, scru128_string};

const THREADS: usize = 4;
const PER_THREAD: usize = 100_000;

/// The tests of this binary take turns (the 400k-ID test is the heavy one; the
/// others need not compete with it for the shared state).
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn assert_strictly_increasing(ids: &[Scru128Id]) {
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{} !< {}", w[0], w[1]);
    }
}

#[test]
fn four_threads_get_increasing_unique_ids_with_distinct_timestamp_and_counter() {
    let _serial = serial();
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            thread::spawn(|| {
                let mut ids = Vec::with_capacity(PER_THREAD);
                for _ in 0..PER_THREAD {
                    ids.push(scru128());
                }
                ids
            })
        })
        .collect();
    let streams: Vec<Vec<Scru128Id>> = handles.into_iter().map(|h| h.join().unwrap()).collect();

    let mut unique = HashSet::with_capacity(THREADS * PER_THREAD);
    let mut pairs = HashSet::with_capacity(THREADS * PER_THREAD);
    for ids in &streams {
        assert_eq!(ids.len(), PER_THREAD);
        // Each thread sees strictly increasing IDs.
        assert_strictly_increasing(ids);
        for &id in ids {
            assert!(unique.insert(id), "duplicate ID {id}");
            assert!(
                pairs.insert((id.timestamp(), id.counter())),
                "shared (timestamp, counter) in {id}"
            );
        }
    }
    assert_eq!(unique.len(), THREADS * PER_THREAD);
}

#[test]
fn ids_carry_the_system_time() {
    let _serial = serial();
    let before = SystemTime::now();
    let id = scru128();
    let text = scru128_string();
    let after = SystemTime::now();
    let lo = Scru128Id::try_min_at_system_time(before).unwrap();
    let hi = Scru128Id::try_max_at_system_time(after).unwrap();
    let parsed: Scru128Id = text.parse().unwrap();
    assert!(
        lo <= id && id < parsed && parsed <= hi,
        "{lo} {id} {parsed} {hi}"
    );
    assert_eq!(text.len(), 26);
    assert_eq!(text, parsed.encode());
}

#[test]
fn scru128_string_is_canonical_and_increasing() {
    let _serial = serial();
    let texts: Vec<String> = (0..10_000).map(|_| scru128_string()).collect();
    for t in &texts {
        assert_eq!(t.len(), 26);
        assert!(
            t.bytes()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'V').contains(&b))
        );
        assert!((b'0'..=b'7').contains(&t.as_bytes()[0]));
    }
    for w in texts.windows(2) {
        assert!(w[0] < w[1]);
    }
}

/// Hands a fresh ID to `f`, the way user code uses the generator in a callback.
fn with_new_id(f: impl FnOnce(Scru128Id)) {
    f(scru128());
}

#[test]
fn a_thread_panicking_while_using_scru128_does_not_break_it() {
    let _serial = serial();
    let before = scru128();

    // Threads that panic right after (and while) using the generator.
    let panickers: Vec<_> = (0..4)
        .map(|i| {
            thread::spawn(move || {
                let id = scru128();
                let _ = scru128_string();
                with_new_id(|inside| panic!("thread {i} panics with {id} and {inside}"));
            })
        })
        .collect();
    for h in panickers {
        assert!(h.join().is_err(), "the thread was meant to panic");
    }

    // A panic caught in this very thread, inside a closure that just used it.
    let caught = catch_unwind(|| with_new_id(|id| panic!("caught with {id}")));
    assert!(caught.is_err());

    // Still usable here, and still increasing in this thread.
    let after = scru128();
    assert!(before < after);
    // And in other threads (each increasing in itself; the spec orders IDs within a
    // thread, not between threads).
    let others: Vec<[Scru128Id; 3]> = (0..4)
        .map(|_| thread::spawn(|| [scru128(), scru128(), scru128()]))
        .map(|h| h.join().expect("scru128() works after a panic"))
        .collect();
    let last = scru128();
    assert!(after < last);
    let mut unique = HashSet::from([before, after, last]);
    for ids in others {
        assert!(ids[0] < ids[1] && ids[1] < ids[2]);
        for id in ids {
            assert!(unique.insert(id), "duplicate {id}");
        }
    }
    assert!(scru128_string().parse::<Scru128Id>().unwrap() > last);
}
