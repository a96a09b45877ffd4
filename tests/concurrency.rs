//! The process-wide generator `scru128()` under load: 8 threads × 1 000 000 IDs
//! (250 000 in debug builds), many short-lived threads next to busy ones, and calls
//! from thread-local destructors while a thread exits. Every ID is unique, no two share
//! `(timestamp, counter)`, and each thread's IDs strictly increase. (tests/global_gen.rs
//! covers a panicking thread; tests/fork.rs and tests/fork_many.rs the forks.)

use std::sync::mpsc;
use std::sync::{Barrier, Mutex, MutexGuard, PoisonError};
use std::thread;

use scru128::{Scru128Id, scru128};

/// One load test at a time: they measure the shared generator, not each other.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// IDs per thread: a million in release builds
/// (`cargo test --release --test concurrency`), a quarter of that in debug builds.
fn per_thread() -> usize {
    if cfg!(debug_assertions) {
        250_000
    } else {
        1_000_000
    }
}

/// Checks that `ids` strictly increase (as a thread sees them).
fn assert_increasing(what: &str, ids: &[u128]) {
    for w in ids.windows(2) {
        assert!(
            w[0] < w[1],
            "{what}: {} then {}",
            Scru128Id::from_u128(w[0]),
            Scru128Id::from_u128(w[1])
        );
    }
}

/// Sorts all IDs and checks that no two share `(timestamp, counter)` (so that none
/// are equal either).
fn assert_no_shared_timestamp_counter(mut all: Vec<u128>) {
    all.sort_unstable();
    for w in all.windows(2) {
        assert!(
            w[0] >> 56 != w[1] >> 56,
            "{} and {} share (timestamp, counter)",
            Scru128Id::from_u128(w[0]),
            Scru128Id::from_u128(w[1])
        );
    }
}

#[test]
fn eight_threads_of_a_million_ids() {
    let _serial = serial();
    let n = per_thread();
    let start = Barrier::new(8);
    let streams: Vec<Vec<u128>> = thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let start = &start;
                scope.spawn(move || {
                    let mut ids = Vec::with_capacity(n);
                    start.wait();
                    for _ in 0..n {
                        ids.push(scru128().to_u128());
                    }
                    ids
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, ids) in streams.iter().enumerate() {
        assert_eq!(ids.len(), n);
        assert_increasing(&format!("thread {t}"), ids);
    }
    assert_no_shared_timestamp_counter(streams.concat());
}

#[test]
fn short_lived_threads_next_to_busy_ones() {
    let _serial = serial();
    let (tx, rx) = mpsc::channel::<Vec<u128>>();
    thread::scope(|scope| {
        // Two busy threads...
        for _ in 0..2 {
            let tx = tx.clone();
            scope.spawn(move || {
                let ids: Vec<u128> = (0..200_000).map(|_| scru128().to_u128()).collect();
                tx.send(ids).unwrap();
            });
        }
        // ...while 1000 threads come and go, each taking a few IDs (and leaving most
        // of its block of counters unused).
        for wave in 0..50 {
            let handles: Vec<_> = (0..20)
                .map(|i| {
                    let tx = tx.clone();
                    scope.spawn(move || {
                        let k = 1 + (wave * 20 + i) % 7;
                        let ids: Vec<u128> = (0..k).map(|_| scru128().to_u128()).collect();
                        tx.send(ids).unwrap();
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
        }
    });
    drop(tx);
    let streams: Vec<Vec<u128>> = rx.iter().collect();
    assert_eq!(streams.len(), 2 + 1000);
    for (t, ids) in streams.iter().enumerate() {
        assert_increasing(&format!("stream {t}"), ids);
    }
    assert_no_shared_timestamp_counter(streams.concat());
}

/// Calls `scru128()` when its thread's thread-locals are destroyed.
struct IdOnExit(mpsc::Sender<u128>);

impl Drop for IdOnExit {
    fn drop(&mut self) {
        let _ = self.0.send(scru128().to_u128());
    }
}

thread_local! {
    static ON_EXIT: std::cell::RefCell<Option<IdOnExit>> = const { std::cell::RefCell::new(None) };
}

#[test]
fn scru128_works_in_thread_local_destructors() {
    let _serial = serial();
    // A thread that exits must not make `scru128()` panic (a panic in a thread-local
    // destructor aborts the process), whatever the order in which its thread-locals
    // are destroyed: register the destructor before and after the thread's first ID.
    let (tx, rx) = mpsc::channel();
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let tx = tx.clone();
            thread::spawn(move || {
                if i % 2 == 0 {
                    ON_EXIT.with_borrow_mut(|slot| *slot = Some(IdOnExit(tx.clone())));
                    tx.send(scru128().to_u128()).unwrap();
                } else {
                    tx.send(scru128().to_u128()).unwrap();
                    ON_EXIT.with_borrow_mut(|slot| *slot = Some(IdOnExit(tx.clone())));
                }
            })
        })
        .collect();
    drop(tx);
    for h in handles {
        h.join().expect("a thread-local destructor panicked");
    }
    let ids: Vec<u128> = rx.iter().collect();
    assert_eq!(
        ids.len(),
        32,
        "every thread made an ID while running and on exit"
    );
    assert_no_shared_timestamp_counter(ids);
}
