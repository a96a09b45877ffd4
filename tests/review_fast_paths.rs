//! Adversarial review of the fast paths of `scru128()` and
//! `Scru128Generator::generate` (48d0f70) and of `try_fill` (a7ad9d9): what the other
//! tests left open.
//!
//! - **The same IDs and draws as the general path, through every entry point.**
//!   `generate`, `try_generate`, `Iterator::next` and the `_at` and `_or_abort`
//!   variants step the counter inline and leave every other case to one out-of-line
//!   function, drawing through the provided `RandomSource::__next_u32_at_hand` and
//!   reading the clock through `Clock::__unix_ts_ms_at_hand`. A generator over a user's
//!   source and clock that implement only `next_u32` and `unix_ts_ms` must give, bit
//!   for bit, the IDs, errors and panics of the same generator whose every ID is made
//!   by the general path (a source that declines the fast path's draw and a clock
//!   that has no reading at hand, as `SystemClock` without an anchor), with the same
//!   number of draws and clock reads. The unit test beside the code compares
//!   `generate` alone, over closures (always a reading at hand); `tests/clock_faults.rs`
//!   checks every variant against a model of the rules, but not the random fields or
//!   the draws; no test used a clock without a reading at hand but `SystemClock`,
//!   which has one most of the time (a `generate_slow` that took "no reading at
//!   hand" for 0 failed only `generator_rules::iterator_gives_increasing_ids`, and
//!   that only because it runs in the first milliseconds of its process).
//! - **Many threads through real clock steps** (`scru128()` and per-thread
//!   generators over `SystemClock`, under libfaketime): 16 threads on two cores, half
//!   of them in bursts with pauses (their blocks, and the anchors they noted, grow old
//!   while the clock is stepped), through steps forward, back within the allowance,
//!   forward again, back beyond it (the one reset) and forward: each thread's IDs
//!   increase but at the reset, no `(timestamp, counter)` of `scru128()` comes twice,
//!   and no ID carries a millisecond older than one the clock showed (50 µs) before
//!   its call began (the shortcut's "never a stale millisecond", through the fast
//!   path; the real time from the system call, which libfaketime does not see, plus
//!   the offset in force). `tests/clock_steps.rs` runs four threads through three
//!   steps and does not check the last. With the anchor check taken out of
//!   `scru128()`'s fast path, or `is_current` not comparing the anchor's number, this
//!   test fails within a run (IDs a millisecond or two stale).
//! - **`try_fill` in a child forked during the call, then a panic** (the one finding:
//!   see `fill_fork`).

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use scru128::{
    Clock, DEFAULT_ROLLBACK_ALLOWANCE, GenerateError, MAX_COUNTER, MAX_TIMESTAMP, RandomSource,
    Scru128Generator, Scru128Id, TIMESTAMP_BIAS,
};

mod common;
use common::SplitMix64;

const T0: u64 = 1_700_000_000_000;
/// The first and last clock readings a generator accepts.
const FIRST_MS: u64 = TIMESTAMP_BIAS + 1;
const LAST_MS: u64 = TIMESTAMP_BIAS + MAX_TIMESTAMP - 1;

// ---- the same IDs and draws as the general path ----------------------------------------

/// The numbers both generators draw: SplitMix64, with counters near the top half the
/// time (so that counter overflows come every few IDs as well as after long runs).
fn draw(state: &mut u64, draws: &Cell<u64>) -> u32 {
    draws.set(draws.get() + 1);
    let mut rng = SplitMix64(*state);
    let v = rng.next_u64();
    *state = rng.0;
    #[allow(clippy::cast_possible_truncation)]
    let word = (v >> 32) as u32;
    if v & 1 == 0 { word | 0x0fff_fff0 } else { word }
}

/// A user's random source: it implements `next_u32` only, so the fast path draws
/// through the provided `__next_u32_at_hand`.
struct UserSource {
    state: u64,
    draws: Rc<Cell<u64>>,
}

impl RandomSource for UserSource {
    fn next_u32(&mut self) -> u32 {
        draw(&mut self.state, &self.draws)
    }
}

/// The same numbers, with the fast path's draw declined: every ID is made by the
/// general path.
struct GeneralOnlySource {
    state: u64,
    draws: Rc<Cell<u64>>,
}

impl RandomSource for GeneralOnlySource {
    fn next_u32(&mut self) -> u32 {
        draw(&mut self.state, &self.draws)
    }

    fn __next_u32_at_hand(&mut self) -> Option<u32> {
        None
    }
}

/// A user's clock: `unix_ts_ms` only; counts its reads.
struct UserClock {
    now: Rc<Cell<u64>>,
    reads: Rc<Cell<u64>>,
}

impl Clock for UserClock {
    fn unix_ts_ms(&mut self) -> u64 {
        self.reads.set(self.reads.get() + 1);
        self.now.get()
    }
}

/// The same clock with no reading at hand (as `SystemClock` while no anchor holds):
/// `generate` and `try_generate` then read `unix_ts_ms`.
struct NotAtHandClock {
    now: Rc<Cell<u64>>,
    reads: Rc<Cell<u64>>,
}

impl Clock for NotAtHandClock {
    fn unix_ts_ms(&mut self) -> u64 {
        self.reads.set(self.reads.get() + 1);
        self.now.get()
    }

    fn __unix_ts_ms_at_hand(&mut self) -> Option<u64> {
        None
    }
}

/// The calls compared.
#[derive(Clone, Copy, Debug)]
enum Call {
    Generate,
    TryGenerate,
    GenerateOrAbort,
    TryGenerateAt,
    GenerateOrAbortAt,
    Next,
    Fill(usize),
    TryFill(usize),
}

/// What a call gave: IDs, an error, or a panic's message.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Ids(Vec<Scru128Id>),
    Error(GenerateError),
    Panic(String),
}

fn call<R: RandomSource, C: Clock>(
    g: &mut Scru128Generator<R, C>,
    what: Call,
    now: u64,
) -> Outcome {
    common::quiet_generator_panics();
    let result = catch_unwind(AssertUnwindSafe(|| match what {
        Call::Generate => Ok(vec![g.generate()]),
        Call::TryGenerate => g.try_generate().map(|id| vec![id]),
        Call::GenerateOrAbort => g.generate_or_abort().map(|id| vec![id]),
        Call::TryGenerateAt => g.try_generate_at(now).map(|id| vec![id]),
        Call::GenerateOrAbortAt => g.generate_or_abort_at(now).map(|id| vec![id]),
        Call::Next => Ok(vec![g.next().expect("never ends")]),
        Call::Fill(n) => {
            let mut ids = vec![Scru128Id::MIN; n];
            g.fill(&mut ids);
            Ok(ids)
        }
        Call::TryFill(n) => {
            let mut ids = vec![Scru128Id::MIN; n];
            g.try_fill(&mut ids).map(|()| ids)
        }
    }));
    match result {
        Ok(Ok(ids)) => Outcome::Ids(ids),
        Ok(Err(err)) => Outcome::Error(err),
        Err(payload) => Outcome::Panic(common::panic_text(&*payload).to_owned()),
    }
}

#[test]
fn the_fast_path_gives_the_general_paths_ids_draws_and_reads_through_every_entry_point() {
    let ops = if cfg!(debug_assertions) {
        200_000
    } else {
        2_000_000
    };
    let now = Rc::new(Cell::new(T0));
    let (draws_fast, draws_general) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let (reads_fast, reads_general) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let seed = 0x5eed_fa57_u64;
    let mut fast = Scru128Generator::with_rng_and_clock(
        UserSource {
            state: seed,
            draws: draws_fast.clone(),
        },
        UserClock {
            now: now.clone(),
            reads: reads_fast.clone(),
        },
    );
    let mut general = Scru128Generator::with_rng_and_clock(
        GeneralOnlySource {
            state: seed,
            draws: draws_general.clone(),
        },
        NotAtHandClock {
            now: now.clone(),
            reads: reads_general.clone(),
        },
    );
    let mut r = SplitMix64(0xfa57_9a7e);
    let mut last: Option<Scru128Id> = None;
    let mut allowance = DEFAULT_ROLLBACK_ALLOWANCE;
    // IDs that only stepped the counter (same timestamp and `per_sec_random`, counter
    // + 1, by a single-ID call): the fast path's case.
    let mut counter_steps = 0u64;
    let mut outcomes = [0u64; 4];
    for op in 0..ops {
        let last_ms = last.map_or(T0, |id| id.unix_ts_ms());
        let clock_ms = match r.below(20) {
            0..=9 => last_ms.saturating_sub(r.below(3)),
            10 | 11 => last_ms + r.below(3),
            12 => last_ms.saturating_sub(allowance.min(last_ms)),
            13 => last_ms.saturating_sub(allowance.saturating_add(1).min(last_ms)),
            14 => last_ms.saturating_sub(r.below(100_000)),
            15 => LAST_MS - r.below(3),
            16 => [0, TIMESTAMP_BIAS, FIRST_MS, LAST_MS + 1, u64::MAX][r.index(5)],
            _ => last_ms.saturating_add(r.below(1_500)),
        };
        now.set(clock_ms);
        match r.below(50) {
            0 => {
                allowance = r.pick(&[0, 1, 3, 1_000, DEFAULT_ROLLBACK_ALLOWANCE, u64::MAX]);
                fast.set_rollback_allowance(allowance);
                general.set_rollback_allowance(allowance);
            }
            1 => {
                // A resume point: the last ID, or one near it, or an extreme one.
                let id = match r.below(4) {
                    0 => last.unwrap_or(Scru128Id::MIN),
                    1 => Scru128Id::from_fields(
                        last.map_or(1, |id| id.timestamp()),
                        MAX_COUNTER,
                        0,
                        0,
                    ),
                    2 => Scru128Id::from_fields(MAX_TIMESTAMP - 1, MAX_COUNTER - 2, 0, 0),
                    _ => Scru128Id::from_u128(r.next_u128()),
                };
                fast.resume_after(id);
                general.resume_after(id);
            }
            _ => {
                let what = match r.below(16) {
                    0..=5 => Call::Generate,
                    6 | 7 => Call::TryGenerate,
                    8 => Call::GenerateOrAbort,
                    9 => Call::TryGenerateAt,
                    10 => Call::GenerateOrAbortAt,
                    11 | 12 => Call::Next,
                    13 => Call::Fill(1 + r.index(4)),
                    _ => Call::TryFill(1 + r.index(4)),
                };
                let read = reads_general.get();
                let a = call(&mut fast, what, clock_ms);
                let b = call(&mut general, what, clock_ms);
                assert_eq!(a, b, "op {op}: {what:?} with the clock at {clock_ms}");
                assert_eq!(
                    (draws_fast.get(), reads_fast.get()),
                    (draws_general.get(), reads_general.get()),
                    "op {op}: {what:?} with the clock at {clock_ms}: (draws, clock reads)"
                );
                let at = matches!(what, Call::TryGenerateAt | Call::GenerateOrAbortAt);
                assert_eq!(
                    reads_general.get() - read,
                    u64::from(!at),
                    "op {op}: {what:?}: clock reads"
                );
                match a {
                    Outcome::Ids(ids) => {
                        let first = ids[0];
                        if let Some(prev) = last {
                            if ids.len() == 1
                                && (first.timestamp(), first.per_sec_random())
                                    == (prev.timestamp(), prev.per_sec_random())
                                && first.counter() == prev.counter() + 1
                            {
                                counter_steps += 1;
                            }
                        }
                        outcomes[0] += 1;
                        last = ids.last().copied();
                    }
                    Outcome::Error(GenerateError::ClockRollback { .. }) => outcomes[1] += 1,
                    Outcome::Error(_) => outcomes[2] += 1,
                    Outcome::Panic(_) => outcomes[3] += 1,
                }
            }
        }
        assert_eq!(
            format!("{fast:?}"),
            format!("{general:?}"),
            "op {op}: the states differ"
        );
    }
    println!(
        "{ops} ops: IDs, rollbacks reported, other errors, panics {outcomes:?}; {counter_steps} \
         IDs only stepped the counter"
    );
    assert!(counter_steps > ops / 4, "{counter_steps} counter steps");
    assert!(outcomes.iter().all(|&n| n > 100), "{outcomes:?}");
}

// ---- many threads through real clock steps ---------------------------------------------

mod steps {
    use std::process::ExitStatus;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use scru128::{Scru128Generator, Scru128Id};

    use super::common::{self, SplitMix64, faketime, worker};

    pub const TEST: &str =
        "many_threads_through_real_clock_steps_stay_ordered_unique_and_never_stale";
    const WORKER_ENV: &str = "SCRU128_REVIEW_STEPS_WORKER";
    const PREFIX: &str = "review-steps: ";
    const RUNS: usize = 2;

    const THREADS: usize = 16;
    /// Threads `0..GLOBAL` call `scru128()`; the others each have a generator of their
    /// own over `SystemClock`. Odd threads make IDs in bursts, with pauses.
    const GLOBAL: usize = 12;
    /// The fake clock's offsets from the real one, one per phase, as libfaketime reads
    /// them and in milliseconds: +1 h, 5 s back, forward again, 9.5 s back (within the
    /// allowance), forward, 60.25 s back (beyond it: the one reset), forward past every
    /// time used before. The reset lands on times no ID was made at, and so does the
    /// step after it (after a reset the generator no longer knows the counters it
    /// used, so a clock that came back to them could meet them again, as two
    /// generators may: documented).
    const OFFSETS: [(&str, u64); 8] = [
        ("+0", 0),
        ("+3600", 3_600_000),
        ("+3595", 3_595_000),
        ("+3600", 3_600_000),
        ("+3590.5", 3_590_500),
        ("+3600.25", 3_600_250),
        ("+3540", 3_540_000),
        ("+3601", 3_601_000),
    ];
    const RESET_PHASE: u32 = 6;
    const PHASE: Duration = Duration::from_millis(100);
    /// After a step, the old millisecond may still come for less than 1 ms (the
    /// anchor's window): no floor until this long after it.
    const SETTLE: Duration = Duration::from_millis(2);

    static PHASE_NOW: AtomicU32 = AtomicU32::new(0);
    /// The step's number (bits 48 and up) and a millisecond the fake clock showed, at
    /// least `SETTLE` after that step, before the floor was stored (0: none yet): the
    /// real time from the system call itself (which libfaketime does not see), 50 µs
    /// earlier (the cores' counters may differ by that much, see `SystemClock`), plus
    /// the offset in force.
    static FLOOR: AtomicU64 = AtomicU64::new(0);
    static STOP: AtomicBool = AtomicBool::new(false);
    static IN_RESET_PHASE: [AtomicU32; THREADS] = [const { AtomicU32::new(0) }; THREADS];

    const MS_BITS: u32 = 48;

    /// The real time in nanoseconds, from the system call (libfaketime fakes the C
    /// library's `clock_gettime`, not the call itself).
    fn real_ns() -> u64 {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable `timespec`.
        let rc =
            unsafe { libc::syscall(libc::SYS_clock_gettime, libc::CLOCK_REALTIME, &raw mut now) };
        assert_eq!(rc, 0, "clock_gettime");
        u64::try_from(now.tv_sec).unwrap() * 1_000_000_000 + u64::try_from(now.tv_nsec).unwrap()
    }

    /// What one thread saw.
    #[derive(Default)]
    struct Seen {
        /// `(timestamp mod 2^36, counter)` of its `scru128()` IDs, as one number.
        keys: Vec<u64>,
        per_phase: [u64; OFFSETS.len()],
        resets: u32,
        problems: Vec<String>,
    }

    fn run_thread(t: usize, start: &Barrier) -> Seen {
        let mut own = (t >= GLOBAL).then(Scru128Generator::new);
        let bursty = t % 2 == 1;
        let mut r = SplitMix64(0xb0b5_0000 + t as u64);
        let mut seen = Seen::default();
        let mut prev: Option<Scru128Id> = None;
        start.wait();
        while !STOP.load(Ordering::Relaxed) {
            let burst = if bursty { 1 + r.below(300) } else { 1_000 };
            for _ in 0..burst {
                let floor = FLOOR.load(Ordering::Acquire);
                let id = own
                    .as_mut()
                    .map_or_else(scru128::scru128, Scru128Generator::generate);
                let after = FLOOR.load(Ordering::Acquire);
                // Read after the call: an ID labelled with a phase was made before the
                // next phase's step (the label is set before the step).
                let p = PHASE_NOW.load(Ordering::SeqCst);
                seen.per_phase[p as usize] += 1;
                // Counted up to the 200 the control thread waits for, not beyond: 16
                // threads adding to one cache line at every ID made the phase 4 times
                // slower.
                if p == RESET_PHASE && seen.per_phase[p as usize] <= 200 {
                    IN_RESET_PHASE[t].store(
                        u32::try_from(seen.per_phase[p as usize]).unwrap(),
                        Ordering::Relaxed,
                    );
                }
                let floor_ms = floor & ((1 << MS_BITS) - 1);
                if floor >> MS_BITS == after >> MS_BITS
                    && id.unix_ts_ms() < floor_ms
                    && seen.problems.len() < 5
                {
                    seen.problems.push(format!(
                        "thread {t}: {id} carries {} ms, but the clock showed {floor_ms} before \
                         the call (phase {p}): a stale millisecond",
                        id.unix_ts_ms()
                    ));
                }
                if let Some(prev) = prev {
                    if id <= prev {
                        let back_ms = prev.timestamp().saturating_sub(id.timestamp());
                        let reset = p == RESET_PHASE && seen.resets == 0 && back_ms > 10_000;
                        if !reset && seen.problems.len() < 5 {
                            seen.problems.push(format!(
                                "thread {t}: {id} after {prev} (phase {p}, {back_ms} ms back, \
                                 {} reset(s) before)",
                                seen.resets
                            ));
                        }
                        seen.resets += 1;
                    }
                }
                prev = Some(id);
                if own.is_none() {
                    seen.keys
                        .push(((id.timestamp() & ((1 << 36) - 1)) << 28) | u64::from(id.counter()));
                }
            }
            if bursty {
                std::thread::sleep(Duration::from_micros(r.below(4_000)));
            }
        }
        seen
    }

    /// The worker: the threads, and the steps of the fake clock.
    fn run_worker() -> Vec<String> {
        faketime::assert_in_force();
        let start = Barrier::new(THREADS + 1);
        // How often the clock's TSC shortcut had a window when the floor was stored.
        let (mut samples, mut with_window, mut shortcut_usable) = (0u64, 0u64, false);
        let seen: Vec<Seen> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let start = &start;
                    s.spawn(move || run_thread(t, start))
                })
                .collect();
            start.wait();
            for (p, &(offset, offset_ms)) in OFFSETS.iter().enumerate() {
                let step = p as u64;
                if p > 0 {
                    FLOOR.store(step << MS_BITS, Ordering::Release);
                    PHASE_NOW.store(u32::try_from(p).unwrap(), Ordering::SeqCst);
                    faketime::set_offset(offset);
                }
                let began = Instant::now();
                std::thread::sleep(SETTLE);
                loop {
                    let enough = began.elapsed() >= PHASE
                        && (p != RESET_PHASE as usize
                            || IN_RESET_PHASE
                                .iter()
                                .all(|n| n.load(Ordering::Relaxed) >= 200)
                            || began.elapsed() > Duration::from_secs(10));
                    if enough {
                        break;
                    }
                    let floor = (real_ns() - 50_000) / 1_000_000 + offset_ms;
                    FLOOR.store((step << MS_BITS) | floor, Ordering::Release);
                    let (usable, window) = scru128::__private::tsc_shortcut();
                    samples += 1;
                    shortcut_usable |= usable;
                    with_window += u64::from(window);
                    std::thread::sleep(Duration::from_micros(500));
                }
            }
            STOP.store(true, Ordering::Relaxed);
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut problems: Vec<String> = seen.iter().flat_map(|s| s.problems.clone()).collect();
        for (t, s) in seen.iter().enumerate() {
            // The step back beyond the allowance is the one reset, in every thread.
            if s.resets != 1 {
                problems.push(format!("thread {t}: {} resets, expected 1", s.resets));
            }
        }
        let mut per_phase = [0u64; OFFSETS.len()];
        for s in &seen {
            for (total, n) in per_phase.iter_mut().zip(s.per_phase) {
                *total += n;
            }
        }
        if per_phase.contains(&0) {
            problems.push(format!("a phase without IDs: {per_phase:?}"));
        }
        let mut keys: Vec<u64> = seen.into_iter().flat_map(|s| s.keys).collect();
        let total = keys.len();
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            problems.push(format!(
                "scru128(): (timestamp, counter) ({}, {}) came twice",
                w[0] >> 28,
                w[0] & ((1 << 28) - 1)
            ));
        }
        println!(
            "{PREFIX}{total} IDs of scru128(), per phase (all threads) {per_phase:?}; the \
             clock's shortcut had a window at {with_window} of {samples} samples"
        );
        // Where the machine has the shortcut, the fast path of `scru128()` (which needs
        // it) was in use.
        if shortcut_usable && with_window * 2 < samples {
            problems.push(format!(
                "the clock's shortcut had a window at only {with_window} of {samples} samples"
            ));
        }
        problems
    }

    pub fn test() {
        if std::env::var_os(WORKER_ENV).is_some() {
            let problems = run_worker();
            for p in &problems {
                println!("{PREFIX}FAIL {p}");
            }
            assert!(problems.is_empty(), "{}", problems.join("\n"));
            println!("{PREFIX}ok");
            return;
        }
        // The thread-safe build: with the plain one, 16 threads in and out of
        // libfaketime at once met real-time readings (offset 0) in the middle of the
        // +1 h phases, which reset the generator as a real 1 h step back would.
        let Some(lib) = faketime::library_mt() else {
            return common::skip(&format!(
                "{} (and its thread-safe build libfaketimeMT.so.1 beside it)",
                faketime::MISSING
            ));
        };
        for run in 1..=RUNS {
            let clock = faketime::FakeClock::new(&lib);
            let out = clock
                .preload(&mut worker::command(TEST, WORKER_ENV, "1"))
                .output()
                .expect("starting the worker");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let verdicts = worker::verdicts(&stdout, PREFIX);
            for v in &verdicts {
                println!("run {run}: {v}");
            }
            let status: ExitStatus = out.status;
            assert!(
                status.success() && verdicts.contains(&"review-steps: ok"),
                "run {run}: {status}\n{}\n{}",
                verdicts.join("\n"),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn many_threads_through_real_clock_steps_stay_ordered_unique_and_never_stale() {
    steps::test();
}

// ---- try_fill: a fork during the call, then a panic -------------------------------------

/// `try_fill` in a child forked during the call (here by the random source, as a
/// signal handler might) makes the batch again (issue 29); a7ad9d9 made sure that
/// where the batch made again fails with an *error*, none of the first attempt's IDs
/// (the parent's) stay in the slice. Where it fails with a *panic* that the caller
/// catches, they all stayed: the caller finds the IDs written before the panic
/// (`tests/caught_panics.rs` holds those to be valid IDs, "a panic should not leave
/// fewer guarantees" than an error), and they are the ones its parent returns. Two
/// ways: the batch made again panics (here for real: no entropy in the child for the
/// generator's fork salt, `getrandom` broken by a seccomp filter), or the first
/// attempt itself panics after the fork (a source that cannot go on in a child), with
/// what it wrote since the fork copied from the parent's state.
#[cfg(target_os = "linux")]
mod fill_fork {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

    use scru128::{RandomSource, Scru128Generator, Scru128Id};

    use super::common::processes::{ids_from_bytes, pipe, read_to_end, wait, write_all};
    use super::common::{self, seccomp, worker, xorshift32_step};

    pub const TEST: &str =
        "a_batch_made_again_after_a_fork_that_panics_leaves_none_of_the_parents_ids";
    const WORKER_ENV: &str = "SCRU128_REVIEW_FILL_FORK_WORKER";
    const PREFIX: &str = "review-fill-fork: ";
    const SKIP: &str = "review-fill-fork: skip ";
    const MODES: [&str; 2] = ["remake-without-entropy", "source-fails-in-child"];
    const N: usize = 100;

    static FORKED: AtomicBool = AtomicBool::new(false);
    static PID: AtomicI32 = AtomicI32::new(-1);
    /// 1: the source panics at its next batch in the child.
    static FAIL_IN_CHILD: AtomicU32 = AtomicU32::new(0);

    /// xorshift32 that forks at its first batch (the generator's first run of
    /// counters: ID 0 is made before the fork, IDs 1..=64 from the first batch, after
    /// it).
    struct Forking(u32);

    impl RandomSource for Forking {
        fn next_u32(&mut self) -> u32 {
            xorshift32_step(&mut self.0)
        }

        fn fill_u32(&mut self, dest: &mut [u32]) {
            if !FORKED.swap(true, Ordering::Relaxed) {
                // SAFETY: the child only finishes the call, writes its slice to a pipe
                // and leaves with `_exit`.
                let pid = unsafe { libc::fork() };
                assert!(pid >= 0, "fork failed");
                PID.store(pid, Ordering::Relaxed);
            } else if PID.load(Ordering::Relaxed) == 0 && FAIL_IN_CHILD.load(Ordering::Relaxed) == 1
            {
                panic!("review: the source cannot go on in a child");
            }
            for slot in dest {
                *slot = xorshift32_step(&mut self.0);
            }
        }
    }

    fn quiet() {
        std::panic::set_hook(Box::new(|info| {
            let msg = common::panic_text(info.payload());
            if !msg.starts_with("review: ") && !msg.starts_with("scru128: ") {
                eprintln!("{info}");
            }
        }));
    }

    /// The worker: one batch with a fork in it; the child's slice against the parent's.
    fn run_worker(mode: &str) -> Result<String, String> {
        quiet();
        match mode {
            "remake-without-entropy" => {
                if !seccomp::break_getrandom_on_this_thread() {
                    return Ok(format!("{SKIP}seccomp filters are refused here"));
                }
            }
            _ => FAIL_IN_CHILD.store(1, Ordering::Relaxed),
        }
        let (read_fd, write_fd) = pipe();
        // Everything the child needs, allocated before the fork.
        let mut report = vec![0u8; 1 + N * 16];
        let mut ids = vec![Scru128Id::MIN; N];
        let mut g = Scru128Generator::with_rng_and_clock(Forking(7), || 1_700_000_000_000u64);
        let outcome = catch_unwind(AssertUnwindSafe(|| g.try_fill(&mut ids)));
        if PID.load(Ordering::Relaxed) == 0 {
            report[0] = match &outcome {
                Ok(Ok(())) => 0,
                Ok(Err(_)) => 1,
                Err(_) => 2,
            };
            for (chunk, id) in report[1..].chunks_exact_mut(16).zip(&ids) {
                chunk.copy_from_slice(&id.to_bytes());
            }
            let ok = write_all(write_fd, &report);
            // SAFETY: ends the child at once, never returning into the harness.
            unsafe { libc::_exit(i32::from(!ok)) }
        }
        // SAFETY: the parent's copy of the write end, used by nothing else.
        unsafe { libc::close(write_fd) };
        let mut bytes = Vec::new();
        read_to_end(read_fd, &mut bytes).map_err(|err| format!("reading the child: {err}"))?;
        let pid = PID.load(Ordering::Relaxed);
        if pid <= 0 {
            return Err(String::from("the source did not fork"));
        }
        let status = wait(pid);
        if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 || bytes.len() != 1 + N * 16 {
            return Err(format!(
                "the child failed (status {status:#x}, {} bytes)",
                bytes.len()
            ));
        }
        match outcome {
            Ok(Ok(())) => {}
            other => return Err(format!("the parent's batch: {other:?}")),
        }
        if bytes[0] != 2 {
            return Err(format!(
                "the child's call did not panic (outcome {}): the scenario did not happen",
                bytes[0]
            ));
        }
        let child = ids_from_bytes(&bytes[1..]);
        let left: Vec<&Scru128Id> = child.iter().filter(|id| ids.contains(id)).collect();
        let written = child.iter().filter(|&&id| id != Scru128Id::MIN).count();
        if left.is_empty() {
            Ok(format!(
                "ok {mode}: the child's slice after its caught panic holds {written} IDs, none \
                 of the parent's"
            ))
        } else {
            Err(format!(
                "{mode}: after its caught panic the child's slice holds {} of the parent's \
                 {N} IDs (the first: {})",
                left.len(),
                left[0]
            ))
        }
    }

    pub fn test() {
        if let Ok(mode) = std::env::var(WORKER_ENV) {
            match run_worker(&mode) {
                Ok(verdict) => println!("{PREFIX}{verdict}"),
                Err(problem) => {
                    println!("{PREFIX}FAIL {problem}");
                    panic!("{problem}");
                }
            }
            return;
        }
        let mut problems = Vec::new();
        for mode in MODES {
            let out = worker::run(TEST, WORKER_ENV, mode);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let verdicts = worker::verdicts(&stdout, PREFIX);
            for v in &verdicts {
                println!("{v}");
            }
            if let Some(reason) = verdicts.iter().find_map(|v| v.strip_prefix(SKIP)) {
                common::skip(reason);
            } else if !out.status.success() || !verdicts.iter().any(|v| v.contains(" ok ")) {
                problems.push(format!(
                    "{mode}: {}\n{}",
                    verdicts.join("\n"),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_batch_made_again_after_a_fork_that_panics_leaves_none_of_the_parents_ids() {
    fill_fork::test();
}
