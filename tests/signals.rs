//! From the adversarial review of issue 10 (attacks that held, kept as coverage): signal handlers that read the clock while the
//! thread they interrupt is anywhere in the clock or the generators, for real.
//!
//! `SystemClock` documents that "a call that interrupts the clock's own read on the
//! same thread (a signal handler) reads `CLOCK_REALTIME` directly". A worker thread
//! loops over `SystemClock`, a `Scru128Generator` of its own and `scru128()`, while a
//! second thread sends it `SIGUSR1` thousands of times a second, each once the last
//! was handled; the handler reads `SystemClock` and makes an ID with a fresh
//! `Scru128Generator` over the system clock (not `scru128()`, which is documented
//! not to be async-signal-safe). Checked:
//! no hang (a watchdog), every reading in the handler lies between two
//! `CLOCK_REALTIME` reads around it, and the worker's IDs still increase.
//! Result: held on e907eb7 (coverage).
#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use scru128::{Clock, Scru128Generator, Scru128Id, SystemClock, scru128};

mod common;

static HANDLED: AtomicU64 = AtomicU64::new(0);
static OUT_OF_BOUNDS: AtomicU64 = AtomicU64::new(0);
static LAST_BAD: AtomicU64 = AtomicU64::new(0);

fn realtime_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec; clock_gettime is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut ts) };
    u64::try_from(ts.tv_sec).unwrap() * 1_000 + u64::try_from(ts.tv_nsec).unwrap() / 1_000_000
}

extern "C" fn on_signal(_: libc::c_int) {
    let before = realtime_ms();
    let ms = SystemClock.unix_ts_ms();
    let mut g = Scru128Generator::with_rng_and_clock(|| 0x5a5a_5a5au32, SystemClock);
    let id = g.generate();
    let after = realtime_ms();
    if ms < before || ms > after || id.unix_ts_ms() < before || id.unix_ts_ms() > after {
        OUT_OF_BOUNDS.fetch_add(1, Ordering::Relaxed);
        LAST_BAD.store(ms, Ordering::Relaxed);
    }
    HANDLED.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn signal_handlers_reading_the_clock_never_hang_or_read_wrong() {
    // A handler that only reads clocks and atomics.
    common::processes::on_sigusr1(on_signal);
    static STOP: AtomicBool = AtomicBool::new(false);
    static PROGRESS: AtomicU64 = AtomicU64::new(0);
    let (tid_tx, tid_rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        // SAFETY: pthread_self has no preconditions.
        tid_tx.send(unsafe { libc::pthread_self() } as u64).unwrap();
        let mut g = Scru128Generator::new();
        let (mut last_own, mut last_global) = (Scru128Id::MIN, Scru128Id::MIN);
        while !STOP.load(Ordering::Relaxed) {
            for _ in 0..1_000 {
                std::hint::black_box(SystemClock.unix_ts_ms());
                let own = g.generate();
                assert!(own > last_own, "{own} after {last_own}");
                last_own = own;
                let global = scru128();
                assert!(global > last_global, "{global} after {last_global}");
                last_global = global;
            }
            PROGRESS.fetch_add(1, Ordering::Relaxed);
        }
    });
    let target = tid_rx.recv().unwrap() as libc::pthread_t;
    let sender = std::thread::spawn(move || {
        let mut sent = 0u64;
        while !STOP.load(Ordering::Relaxed) {
            let handled = HANDLED.load(Ordering::Relaxed);
            // SAFETY: `target` is a live thread until STOP is set and it is joined.
            unsafe { libc::pthread_kill(target, libc::SIGUSR1) };
            sent += 1;
            // Until it is handled (a pending signal is not queued twice), at most
            // about 100 µs, then a short pause that moves the next one elsewhere.
            let wait = Instant::now();
            while HANDLED.load(Ordering::Relaxed) == handled
                && wait.elapsed() < Duration::from_micros(100)
            {
                std::hint::spin_loop();
            }
            for _ in 0..(sent % 97) * 10 {
                std::hint::spin_loop();
            }
        }
        sent
    });
    let start = Instant::now();
    let mut last = (0, Instant::now());
    // 3 s, and on a loaded machine longer, until a thousand signals were handled (at
    // most 30 s).
    while start.elapsed() < Duration::from_secs(3)
        || (HANDLED.load(Ordering::Relaxed) < 1_000 && start.elapsed() < Duration::from_secs(30))
    {
        std::thread::sleep(Duration::from_millis(20));
        let p = PROGRESS.load(Ordering::Relaxed);
        if p != last.0 {
            last = (p, Instant::now());
        }
        assert!(
            last.1.elapsed() < Duration::from_secs(2),
            "the worker hung ({} signals handled)",
            HANDLED.load(Ordering::Relaxed)
        );
    }
    STOP.store(true, Ordering::Relaxed);
    let sent = sender.join().unwrap();
    worker.join().unwrap();
    let handled = HANDLED.load(Ordering::Relaxed);
    println!("{sent} signals sent, {handled} handled");
    assert!(handled >= 1_000, "only {handled} signals handled in 30 s");
    assert_eq!(
        OUT_OF_BOUNDS.load(Ordering::Relaxed),
        0,
        "a handler read {} outside the system clock around it",
        LAST_BAD.load(Ordering::Relaxed)
    );
}
