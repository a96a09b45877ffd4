//! From the adversarial review of issue 10 (attacks that held, kept as coverage): many small real wall-clock steps, at random
//! moments relative to the clock's TSC windows, while many threads generate
//! (libfaketime, as `tests/clock_steps.rs`, but a step every 0.2-2 ms instead of three).
//!
//! - `ids_stay_ordered_through_a_jittering_clock`: the offset wanders within ±2 s
//!   (every step forward or back lands within the 10 s allowance of the latest
//!   reading), 6 threads call `scru128()`, and in a second run 6 threads share a
//!   `Mutex<Scru128Generator>` through `generate_or_abort`. Every thread's IDs strictly
//!   increase, no (timestamp, counter) comes twice, no reset happens and no rollback
//!   is reported.
//! - `system_clock_readings_are_linearizable_through_forward_steps`: the clock only
//!   steps forward (0-5 ms, now and then 1 h); 6 threads read `SystemClock` inside one
//!   mutex, so the readings form one sequence in real-time order: it never goes down
//!   ("no thread is given a millisecond older than one another thread was already
//!   given, unless the system clock went back").
//!
//! Each scenario runs in a child process (this binary, re-run on one test, under
//! libfaketime's thread-safe build). Needs `SCRU128_FAKETIME`; without it the tests
//! say so and pass.
//! Result: both held on e907eb7 (coverage, not a finding).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use scru128::{Clock, GenerateError, Scru128Generator, Scru128Id, SystemClock, scru128};

mod common;
use common::faketime::{self, FakeClock};

const WORKER_ENV: &str = "SCRU128_REVIEW_JITTER_WORKER";
const THREADS: usize = 6;
const RUN: Duration = Duration::from_millis(700);

fn run_in_child(test: &str, mode: &str) {
    // The thread-safe build: the threads read the clock at once (see `library_mt`).
    let Some(lib) = faketime::library_mt() else {
        common::skip(&format!(
            "{} (and its thread-safe build libfaketimeMT.so.1 beside it)",
            faketime::MISSING
        ));
        return;
    };
    let clock = FakeClock::new(&lib);
    let out = clock
        .preload(&mut common::worker::command(test, WORKER_ENV, mode))
        .output()
        .expect("starting the worker");
    drop(clock);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let verdict = common::worker::verdicts(&stdout, "jitter: ")
        .first()
        .copied()
        .unwrap_or("no verdict");
    println!("{mode}: {verdict}");
    assert!(
        out.status.success() && verdict.starts_with("jitter: ok"),
        "{mode} ({}): {verdict}\n{stdout}\n{stderr}",
        out.status
    );
}

/// Sets the fake clock's offset, in microseconds.
fn set_offset_us(us: i64) {
    let sign = if us < 0 { '-' } else { '+' };
    faketime::set_offset(&format!(
        "{sign}{}.{:06}",
        us.unsigned_abs() / 1_000_000,
        us.unsigned_abs() % 1_000_000
    ));
}

/// A small xorshift for the control thread's choices.
struct Rand(u64);
impl Rand {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Steps the clock until `stop`, every 0.2-2 ms; `next` gives the next offset (µs).
fn step_clock(stop: &AtomicBool, mut next: impl FnMut(&mut Rand, i64) -> i64) -> usize {
    let mut rand = Rand(0x9e37_79b9_7f4a_7c15);
    let mut offset = 0i64;
    let mut steps = 0;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_micros(200 + rand.below(1_800)));
        offset = next(&mut rand, offset);
        set_offset_us(offset);
        steps += 1;
    }
    steps
}

#[test]
fn ids_stay_ordered_through_a_jittering_clock() {
    match std::env::var(WORKER_ENV).as_deref() {
        Ok("ids-process-wide") => ids_worker(false),
        Ok("ids-shared-generator") => ids_worker(true),
        Ok(_) => {}
        Err(_) => {
            run_in_child(
                "ids_stay_ordered_through_a_jittering_clock",
                "ids-process-wide",
            );
            run_in_child(
                "ids_stay_ordered_through_a_jittering_clock",
                "ids-shared-generator",
            );
        }
    }
}

fn ids_worker(shared_generator: bool) {
    faketime::assert_in_force();
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(THREADS + 1));
    let shared = Arc::new(Mutex::new(Scru128Generator::new()));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (stop, start, shared) = (stop.clone(), start.clone(), shared.clone());
            std::thread::spawn(move || {
                let mut ids: Vec<Scru128Id> = Vec::with_capacity(1 << 20);
                let mut reported = 0usize;
                start.wait();
                while !stop.load(Ordering::Relaxed) {
                    let id = if shared_generator {
                        let mut g = shared.lock().unwrap();
                        match g.generate_or_abort() {
                            Ok(id) => id,
                            Err(GenerateError::ClockRollback { .. }) => {
                                reported += 1;
                                g.generate()
                            }
                            Err(err) => panic!("{err}"),
                        }
                    } else {
                        scru128()
                    };
                    ids.push(id);
                }
                (ids, reported)
            })
        })
        .collect();
    start.wait();
    let begin = Instant::now();
    let control = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // A random walk within ±2 s, steps of up to ±0.5 s: always within the
            // allowance of the latest reading.
            step_clock(&stop, |rand, offset| {
                let step = i64::try_from(rand.below(1_000_001)).unwrap() - 500_000;
                (offset + step).clamp(-2_000_000, 2_000_000)
            })
        })
    };
    std::thread::sleep(RUN);
    stop.store(true, Ordering::Relaxed);
    let steps = control.join().unwrap();
    let results: Vec<(Vec<Scru128Id>, usize)> =
        handles.into_iter().map(|h| h.join().unwrap()).collect();
    set_offset_us(0);
    let mut pairs = HashSet::new();
    let mut total = 0;
    for (t, (ids, reported)) in results.iter().enumerate() {
        if *reported > 0 {
            println!("jitter: FAILED: thread {t}: {reported} rollbacks reported");
            return;
        }
        for w in ids.windows(2) {
            if w[1] <= w[0] {
                println!("jitter: FAILED: thread {t}: {} after {}", w[1], w[0]);
                return;
            }
        }
        for id in ids {
            if !pairs.insert((id.timestamp(), id.counter())) {
                println!("jitter: FAILED: (timestamp, counter) of {id} came twice");
                return;
            }
        }
        total += ids.len();
    }
    println!(
        "jitter: ok: {total} IDs from {THREADS} threads through {steps} steps in {:?}",
        begin.elapsed()
    );
}

#[test]
fn system_clock_readings_are_linearizable_through_forward_steps() {
    match std::env::var(WORKER_ENV).as_deref() {
        Ok("linearizable") => linearizable_worker(),
        Ok(_) => {}
        Err(_) => run_in_child(
            "system_clock_readings_are_linearizable_through_forward_steps",
            "linearizable",
        ),
    }
}

fn linearizable_worker() {
    faketime::assert_in_force();
    let stop = Arc::new(AtomicBool::new(false));
    let log: Arc<Mutex<Vec<u64>>> = Arc::new(Mutex::new(Vec::with_capacity(1 << 22)));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (stop, log) = (stop.clone(), log.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // Outside the lock too, so that refreshes also race with readers.
                    SystemClock.unix_ts_ms();
                    let mut log = log.lock().unwrap();
                    let ms = SystemClock.unix_ts_ms();
                    log.push(ms);
                }
            })
        })
        .collect();
    let control = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            step_clock(&stop, |rand, offset| {
                if rand.below(50) == 0 {
                    offset + 3_600_000_000
                } else {
                    offset + i64::try_from(rand.below(5_000)).unwrap()
                }
            })
        })
    };
    std::thread::sleep(RUN);
    stop.store(true, Ordering::Relaxed);
    let steps = control.join().unwrap();
    for h in handles {
        h.join().unwrap();
    }
    set_offset_us(0);
    let log = log.lock().unwrap();
    for (i, w) in log.windows(2).enumerate() {
        if w[1] < w[0] {
            println!(
                "jitter: FAILED: reading {} is {} after {} (clock only stepped forward)",
                i + 1,
                w[1],
                w[0]
            );
            return;
        }
    }
    println!(
        "jitter: ok: {} readings in order through {steps} forward steps",
        log.len()
    );
}

/// A caught panic for a real clock out of range (set to 2019, before the SCRU128
/// epoch), retried once the clock is back: `scru128()` and a generator's
/// `generate` panic with `ClockOutOfRange` (`try_generate` returns it), change
/// nothing, and carry on above their last IDs, without a reset.
#[test]
fn a_clock_out_of_range_panics_changes_nothing_and_is_retried() {
    match std::env::var(WORKER_ENV).as_deref() {
        Ok("out-of-range") => out_of_range_worker(),
        Ok(_) => {}
        Err(_) => run_in_child(
            "a_clock_out_of_range_panics_changes_nothing_and_is_retried",
            "out-of-range",
        ),
    }
}

fn out_of_range_worker() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    faketime::assert_in_force();
    std::panic::set_hook(Box::new(|_| {}));
    let mut g = Scru128Generator::new();
    let (mut last_global, mut last_own) = (scru128(), g.generate());
    let real_ms = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    // 2019-06-01T00:00:00Z.
    let back_us = (1_559_347_200_000 - real_ms) * 1_000;
    for round in 0..20 {
        set_offset_us(back_us);
        std::thread::sleep(Duration::from_millis(2)); // past the old window
        let global = catch_unwind(AssertUnwindSafe(scru128));
        let own = catch_unwind(AssertUnwindSafe(|| g.generate()));
        let tried = g.try_generate();
        if global.is_ok()
            || own.is_ok()
            || !matches!(tried, Err(GenerateError::ClockOutOfRange { .. }))
        {
            println!("jitter: FAILED: round {round}: no error for a clock in 2019: {tried:?}");
            return;
        }
        set_offset_us(0);
        std::thread::sleep(Duration::from_millis(2));
        for _ in 0..1_000 {
            let (a, b) = (scru128(), g.generate_or_abort());
            let Ok(b) = b else {
                println!("jitter: FAILED: round {round}: {b:?} after the clock came back");
                return;
            };
            if a <= last_global || b <= last_own {
                println!(
                    "jitter: FAILED: round {round}: {a} / {b} after {last_global} / {last_own}"
                );
                return;
            }
            (last_global, last_own) = (a, b);
        }
    }
    println!("jitter: ok: 20 rounds out of range and back");
}
