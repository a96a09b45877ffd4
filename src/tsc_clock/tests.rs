//! The TSC shortcut against simulated time: counters on two cores, slews, steps and
//! faults of the counter, reads that take long; and the 128-bit word against threads.
#![allow(
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap
)]

use core::cell::Cell;
use std::vec::Vec;

use super::{Anchor, Atomic128, ProcessClock, TimeSources};

/// Simulated time: true nanoseconds, a TSC at `ghz` on each of two cores (core 1
/// may be offset), and a system clock that shows the true time (slewed by
/// `slew_ppm` since `slew_from`) plus `offset_ns`, and takes `read_cost_ns`.
struct Sim {
    true_ns: Cell<u64>,
    /// Unix time of the simulation's start, in nanoseconds.
    epoch_ns: u128,
    ghz: Cell<f64>,
    tsc_base: Cell<u64>,
    core: Cell<usize>,
    core1_ticks_behind: Cell<u64>,
    read_cost_ns: Cell<u64>,
    offset_ns: Cell<i128>,
    slew_ppm: Cell<i64>,
    slew_from: Cell<u64>,
    /// Keeps the clocks continuous across changes of the slew.
    slew_fix_ns: Cell<i128>,
    reads: Cell<u64>,
    /// Core 1's counter falls behind core 0's by this many ticks per millisecond.
    core1_drift_per_ms: Cell<u64>,
    /// The clock gave the TSC up.
    tsc_given_up: Cell<bool>,
    /// A clock to read from inside the next read of the system clock, as a signal
    /// handler would, and what it returned.
    nested: Cell<Option<*const Clock>>,
    nested_ms: Cell<Option<u64>>,
    /// How long the next read of the system clock is preempted, before the nested
    /// clock (if any) is read: other callers go on meanwhile.
    preempt_ns: Cell<u64>,
}

impl Sim {
    fn new(ghz: f64) -> Self {
        Self {
            true_ns: Cell::new(0),
            epoch_ns: 1_700_000_000_000_123_456,
            ghz: Cell::new(ghz),
            tsc_base: Cell::new(1 << 50),
            core: Cell::new(0),
            core1_ticks_behind: Cell::new(0),
            read_cost_ns: Cell::new(25),
            offset_ns: Cell::new(0),
            slew_ppm: Cell::new(0),
            slew_from: Cell::new(0),
            slew_fix_ns: Cell::new(0),
            reads: Cell::new(0),
            core1_drift_per_ms: Cell::new(0),
            tsc_given_up: Cell::new(false),
            nested: Cell::new(None),
            nested_ms: Cell::new(None),
            preempt_ns: Cell::new(0),
        }
    }

    fn at_year_2560() -> Self {
        let sim = Self::new(2.6);
        Self {
            // 2560-01-01T00:00:00Z, past the 2^64 ns of 2554.
            epoch_ns: 18_617_184_000_000_000_000,
            ..sim
        }
    }

    fn advance(&self, ns: u64) {
        self.true_ns.set(self.true_ns.get() + ns);
    }

    /// Time since the start at true time `t`, as the system's clocks count it: at
    /// the slewed rate, continuous.
    fn slewed_ns_at(&self, t: u64) -> i128 {
        let from = self.slew_from.get().min(t);
        i128::from(t)
            + i128::from(t - from) * i128::from(self.slew_ppm.get()) / 1_000_000
            + self.slew_fix_ns.get()
    }

    /// The system clock's time in nanoseconds at true time `t`.
    fn shown_ns_at(&self, t: u64) -> u128 {
        (self.epoch_ns as i128 + self.slewed_ns_at(t) + self.offset_ns.get()).max(0) as u128
    }

    fn shown_ms(&self) -> u64 {
        (self.shown_ns_at(self.true_ns.get()) / 1_000_000) as u64
    }

    /// Changes the slew (of both clocks, as NTP does), keeping them continuous.
    fn set_slew(&self, ppm: i64) {
        let t = self.true_ns.get();
        let shown = self.slewed_ns_at(t);
        self.slew_from.set(t);
        self.slew_ppm.set(ppm);
        self.slew_fix_ns
            .set(self.slew_fix_ns.get() + shown - self.slewed_ns_at(t));
    }

    /// Steps the system clock (the monotonic one runs on).
    fn step(&self, ns: i128) {
        self.offset_ns.set(self.offset_ns.get() + ns);
    }
}

impl Sim {
    /// The counter of the current core, read (3 ns), whether or not the clock gave
    /// it up.
    fn counter(&self) -> u64 {
        self.advance(3);
        let ticks = (self.true_ns.get() as f64 * self.ghz.get()) as u64;
        let behind = if self.core.get() == 1 {
            self.core1_ticks_behind.get()
                + self.true_ns.get() / 1_000_000 * self.core1_drift_per_ms.get()
        } else {
            0
        };
        self.tsc_base.get() + ticks - behind
    }
}

impl TimeSources for Sim {
    fn tsc(&self) -> Option<u64> {
        if self.tsc_given_up.get() {
            return None;
        }
        Some(self.counter())
    }

    /// As the real sources' (`rdtsc` without asking whether the counter is still
    /// usable): the counter, also after the clock gave it up. (The provided method
    /// gives 0 then, which no window holds, and so hid an anchor that kept its
    /// window after the counter was given up.)
    fn tsc_unchecked(&self) -> u64 {
        self.counter()
    }

    fn unix_time(&self) -> (u64, u32) {
        self.reads.set(self.reads.get() + 1);
        let cost = self.read_cost_ns.get();
        self.advance(cost / 2);
        let ns = self.shown_ns_at(self.true_ns.get());
        self.advance(self.preempt_ns.take());
        if let Some(clock) = self.nested.take() {
            // A signal handler that interrupts this read and reads the clock.
            // SAFETY: the test set it to the live clock that is reading, and it is
            // taken once, so the nested call does not nest again.
            let clock = unsafe { &*clock };
            self.nested_ms.set(Some(clock.now_ms()));
        }
        self.advance(cost - cost / 2);
        ((ns / 1_000_000) as u64, (ns % 1_000_000) as u32)
    }

    fn monotonic_ns(&self) -> u64 {
        // Read in the same instant as `unix_time` (the cost is counted there).
        (123_000_000_000 + self.slewed_ns_at(self.true_ns.get())) as u64
    }

    fn give_up_tsc(&self) {
        self.tsc_given_up.set(true);
    }
}

type Clock = ProcessClock<Sim>;

fn clock(sim: Sim) -> Clock {
    assert!(
        crate::system_clock::has_atomic_128(),
        "this CPU has no atomic 16-byte load (AVX) or cmpxchg16b: the TSC shortcut is off here"
    );
    ProcessClock::new(sim)
}

/// Calls of every `step_ns` for `total_ns`, alternating between the two cores;
/// every value must be a millisecond the system clock showed during the call.
fn run(clock: &Clock, step_ns: u64, total_ns: u64) {
    run_on_cores(clock, step_ns, total_ns, 2);
}

/// As [`run`], with every `core1_every`-th call on core 1 and the rest on core 0.
fn run_on_cores(clock: &Clock, step_ns: u64, total_ns: u64, core1_every: u64) {
    let sim = &clock.sources;
    let end = sim.true_ns.get() + total_ns;
    let mut calls = 0u64;
    while sim.true_ns.get() < end {
        calls += 1;
        sim.core.set(usize::from(calls % core1_every == 0));
        let shown_before = sim.shown_ms();
        let ms = clock.now_ms();
        let shown_after = sim.shown_ms();
        assert!(
            ms <= shown_after,
            "{ms} is ahead of the clock ({shown_after})"
        );
        assert!(
            ms >= shown_before,
            "{ms} is stale (clock showed {shown_before})"
        );
        sim.advance(step_ns);
    }
}

/// What starts a phase of [`through_phases`].
#[derive(Clone, Copy)]
enum Event {
    None,
    /// The system clock stepped by this many nanoseconds.
    Step(i128),
    /// The system clock slewed at this many parts per million from now on.
    Slew(i64),
}

/// Calls `call` through 20 ms of simulated time per phase (`call` advances the time),
/// each phase started by its event; `call` is told whether the phase's first
/// millisecond is over: as for `now_ms` (`a_clock_step_is_seen_within_a_millisecond`),
/// the millisecond before a step may still come for less than 1 ms after it.
fn through_phases(sim: &Sim, events: &[Event], mut call: impl FnMut(bool)) {
    for &event in events {
        match event {
            Event::None => {}
            Event::Step(ns) => sim.step(ns),
            Event::Slew(ppm) => sim.set_slew(ppm),
        }
        let settled = sim.true_ns.get() + 1_000_000;
        let end = sim.true_ns.get() + 20_000_000;
        while sim.true_ns.get() < end {
            call(sim.true_ns.get() >= settled);
        }
    }
}

/// The two shortcuts of the callers: `now_ms()`'s inline read (`cached_now`, else
/// the whole of `now_ms`), and `scru128()`'s (the millisecond of the anchor noted
/// after its last slow call, while `is_current` says that anchor still holds):
/// every value a millisecond the system clock showed during the call, through
/// steps of the system clock both ways and a slew, on both cores.
#[test]
fn the_callers_shortcuts_never_give_a_stale_or_future_millisecond() {
    for anchored in [false, true] {
        let clock = clock(Sim::new(2.6));
        let sim = &clock.sources;
        let mut noted: Option<Anchor> = None;
        let (mut shortcuts, mut calls) = (0u64, 0u64);
        let events = [
            Event::None,
            Event::Step(5_000_000_000),
            Event::Step(-7_000_000_000),
            Event::Slew(500),
            Event::Step(-300_000),
            Event::None,
        ];
        through_phases(sim, &events, |settled| {
            calls += 1;
            sim.core.set(usize::from(calls % 3 == 0));
            let shown_before = sim.shown_ms();
            let shortcut = if anchored {
                noted.filter(|&a| clock.is_current(a)).map(Anchor::ms)
            } else {
                clock.cached_now()
            };
            shortcuts += u64::from(shortcut.is_some());
            let ms = shortcut.unwrap_or_else(|| {
                let ms = clock.now_ms();
                noted = Some(clock.anchor());
                ms
            });
            let shown_after = sim.shown_ms();
            if settled {
                assert!(
                    ms <= shown_after,
                    "{ms} is ahead of the clock ({shown_after})"
                );
                assert!(
                    ms >= shown_before,
                    "{ms} is stale (clock showed {shown_before})"
                );
            }
            sim.advance(17);
        });
        // The shortcut was taken for most calls.
        assert!(shortcuts > calls / 2, "{shortcuts} of {calls}");
        // No anchor (the word 0) never holds.
        assert!(!clock.is_current(Anchor(0)));
    }
}

/// Review of the fast paths (48d0f70): `is_current(noted)` holds only for the anchor
/// published now, whichever caller published it. `scru128()` spends a block while
/// the anchor it noted holds, so an older anchor of the same clock (one a thread
/// noted before another thread's read replaced it) must never hold again: its
/// millisecond may be one the clock has left, or be outside the block's range.
/// The callers' shortcuts test above has one caller, which is also the only one
/// to publish, so the anchor it noted is always the one published: a check of the
/// window alone (without the anchor's identity) passed it. Here another caller
/// publishes at random, every anchor ever seen is asked at every call, and at
/// most the one published now may hold, with a millisecond the system clock
/// showed during the call. Then the counter is given up (two faults within a
/// minute), and from then on no anchor holds and `cached_now` gives nothing,
/// although the simulated counter, like `rdtsc` in `tsc_unchecked`, still reads.
#[test]
fn only_the_anchor_published_now_is_current_and_none_once_the_tsc_is_given_up() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    // Anchors seen, newest last (the last 32: older ones are checked as long).
    let mut seen: Vec<Anchor> = Vec::new();
    let note = |seen: &mut Vec<Anchor>, anchor: Anchor| {
        if anchor.window() > 0 && !seen.contains(&anchor) {
            seen.push(anchor);
            if seen.len() > 32 {
                seen.remove(0);
            }
        }
    };
    let mut random = 0x2545_f491_4f6c_dd1d_u64;
    let (mut held, mut calls) = (0u64, 0u64);
    let events = [
        Event::None,
        Event::Step(3_600_000_000_000),
        Event::Step(-5_000_000_000),
        Event::Slew(500),
        Event::Step(-60_000_000_000),
    ];
    through_phases(sim, &events, |settled| {
        calls += 1;
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        sim.core.set(usize::from(random & 1 == 1));
        if random & 6 == 0 {
            // Another thread reads the clock, replacing the anchor when its
            // window has passed.
            clock.cached_now().unwrap_or_else(|| clock.now_ms());
            note(&mut seen, clock.anchor());
        }
        let shown_before = sim.shown_ms();
        let current: Vec<Anchor> = seen
            .iter()
            .copied()
            .filter(|&a| clock.is_current(a))
            .collect();
        let shown_after = sim.shown_ms();
        assert!(current.len() <= 1, "several anchors hold: {current:?}");
        if let Some(&a) = current.first() {
            held += 1;
            assert_eq!(
                clock.anchor(),
                a,
                "anchor {a:?} holds, but it is not the one published"
            );
            let ms = a.ms();
            if settled {
                assert!(
                    shown_before <= ms && ms <= shown_after,
                    "anchor {a:?} holds with {ms}, the clock showed {shown_before} to {shown_after}"
                );
            }
        }
    });
    assert!(
        held > calls / 4,
        "an anchor held at {held} of {calls} calls"
    );
    // The counter slows down twice within a minute: it is given up.
    slow_the_counter_down(sim);
    spin(&clock, 30_000_000);
    note(&mut seen, clock.anchor());
    sim.advance(10_000_000_000);
    spin(&clock, 30_000_000);
    note(&mut seen, clock.anchor());
    slow_the_counter_down(sim);
    spin(&clock, 30_000_000);
    assert!(sim.tsc_given_up.get(), "the counter was not given up");
    let end = sim.true_ns.get() + 20_000_000;
    while sim.true_ns.get() < end {
        sim.core.set(usize::from(sim.true_ns.get() % 3 == 0));
        assert_eq!(
            clock.cached_now(),
            None,
            "the counter is used after it was given up"
        );
        assert_eq!(clock.anchor().window(), 0);
        for &a in &seen {
            assert!(!clock.is_current(a), "anchor {a:?} holds after the give-up");
        }
        let shown_before = sim.shown_ms();
        let ms = clock.now_ms();
        assert!(shown_before <= ms && ms <= sim.shown_ms());
        sim.advance(97);
    }
}

#[test]
fn never_returns_a_stale_or_future_millisecond() {
    for (ghz, step_ns) in [
        (2.6, 7),
        (1.0, 13),
        (3.9, 101),
        (0.05, 1_000),
        (2.6, 333_333),
    ] {
        run(&clock(Sim::new(ghz)), step_ns, 40_000_000);
    }
}

/// Issue 18, item 4: the figures the docs give. Before the rate is confirmed (the
/// first 4-5 ms), every call reads the system clock under the lock. Then it is read
/// 5 to 16 times per millisecond for the whole process, whatever the number of
/// threads: the window covers 3/4 of what is left of the millisecond, so reads come
/// closer together towards its end, and in its last 1/3 µs every call reads (here,
/// a call every 13 ns: 15; a real process making IDs as fast as it can reads it 7
/// to 8 times per millisecond).
#[test]
fn reads_of_the_system_clock_per_millisecond() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    // Calls every 13 ns (10 + the 3 of a TSC read) until the first that does not
    // read the system clock.
    loop {
        let reads = sim.reads.get();
        clock.now_ms();
        if sim.reads.get() == reads {
            break;
        }
        sim.advance(10);
    }
    let calibrated_at_ns = sim.true_ns.get();
    std::println!(
        "every call read the clock for the first {calibrated_at_ns} ns ({} reads)",
        sim.reads.get()
    );
    assert!(
        (4_000_000..=5_500_000).contains(&calibrated_at_ns),
        "calibrated after {calibrated_at_ns} ns"
    );
    sim.reads.set(0);
    run(&clock, 10, 100_000_000); // 100 ms, ~7.7M calls
    let per_ms = sim.reads.get() as f64 / 100.0;
    std::println!("{per_ms} reads per millisecond");
    assert!(
        (5.0..=16.0).contains(&per_ms),
        "{per_ms} reads per millisecond"
    );
}

#[test]
fn a_clock_step_is_seen_within_a_millisecond() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    // The system clock is set back 5 s, then forward 1 h.
    for step in [-5_000_000_000_i128, 3_600_000_000_000] {
        sim.step(step);
        let stepped_at = sim.true_ns.get();
        while clock.now_ms() != sim.shown_ms() {
            sim.advance(10);
            assert!(
                sim.true_ns.get() - stepped_at < 1_000_000,
                "step not seen after 1 ms"
            );
        }
        run(&clock, 10, 30_000_000);
    }
}

/// Issue 10, defect 1: per-thread caches disagreed after a step (one thread at the
/// new time, another still at the old one for up to a millisecond). With one
/// anchor, once any call has returned the new time, no call on any core returns
/// the old one; also with core 1's counter 200 ns behind core 0's.
#[test]
fn after_a_step_no_core_goes_back_to_the_time_before_it() {
    for behind_ns in [0u64, 200] {
        let clock = clock(Sim::new(2.6));
        let sim = &clock.sources;
        sim.core1_ticks_behind.set(behind_ns * 26 / 10);
        run(&clock, 10, 30_000_000);
        for step in [3_600_000_000_000_i128, -5_000_000_000, -60_000_000_000] {
            // The step lands anywhere in a window.
            sim.advance(123_457);
            sim.step(step);
            let mut left: Vec<u64> = Vec::new();
            let mut last = None;
            for _ in 0..300_000 {
                sim.core.set(1 - sim.core.get());
                let ms = clock.now_ms();
                if last != Some(ms) {
                    assert!(!left.contains(&ms), "{ms} came back after {left:?}");
                    left.extend(last);
                    last = Some(ms);
                }
                sim.advance(10);
            }
            // And it did move to the stepped time.
            assert_eq!(last, Some(sim.shown_ms()));
        }
    }
}

/// Issue 10, defect 7: chrony slews by up to 83 333 ppm and the kernel's tick
/// adjustment by up to 10%; a window from a rate measured while the clock ran slow
/// must still end in time while it runs fast.
#[test]
fn a_slewed_clock_never_gives_a_stale_millisecond() {
    for (measured_ppm, used_ppm) in [
        (-100_000, 100_000),
        (0, 83_333),
        (-83_333, 83_333),
        (100_000, -100_000),
    ] {
        let clock = clock(Sim::new(2.6));
        clock.sources.set_slew(measured_ppm);
        run(&clock, 10, 40_000_000);
        clock.sources.set_slew(used_ppm);
        run(&clock, 10, 40_000_000);
    }
}

#[test]
fn a_preempted_calibration_read_only_shortens_the_window() {
    let clock = clock(Sim::new(2.6));
    // Reads that take 3 ms (the thread was descheduled in the middle).
    clock.sources.read_cost_ns.set(3_000_000);
    run(&clock, 500, 50_000_000);
    clock.sources.read_cost_ns.set(25);
    run(&clock, 10, 50_000_000);
}

#[test]
fn a_counter_that_goes_back_or_jumps_falls_back_to_the_system_clock() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    // Another core whose counter is 0.2 µs behind: within the margin.
    sim.core1_ticks_behind.set(520);
    run(&clock, 10, 30_000_000);
    sim.tsc_base.set(sim.tsc_base.get() + (1 << 40)); // a jump ahead (resume, migration)
    run(&clock, 10, 30_000_000);
    sim.tsc_base.set(sim.tsc_base.get() - (1 << 39)); // and back
    run(&clock, 10, 30_000_000);
}

/// A refresh on a core whose counter is a little behind the one that made the last
/// measurement is not a counter that went back: the confirmed rate stays (it used
/// to be dropped, turning the shortcut off for two measurements).
#[test]
fn a_core_slightly_behind_does_not_reset_the_calibration() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    sim.core1_ticks_behind.set(2_600); // 1 µs
    run(&clock, 10, 60_000_000);
    sim.reads.set(0);
    run(&clock, 10, 100_000_000);
    let reads = sim.reads.get();
    assert!(reads < 7_700, "{reads} reads: the rate was dropped");
}

/// Issue 10, defect 6: the TSC is not trusted for the life of the process. Cores
/// whose counters fall out of step (what makes the kernel stop trusting the TSC)
/// make windows started on the core ahead last too long on the core behind. Every
/// clean read checks the counter against the clock: a millisecond comes out late
/// by at most the cores' difference, only until a read on the core behind catches
/// it twice, and the TSC is then given up for good. For a fixed difference of
/// 200 µs, and for drifts that grow to 1 ms and to 40 ms over the run.
#[test]
fn cores_out_of_step_are_caught_and_bounded() {
    for (behind_ns, drift_ns_per_ms) in [(200_000u64, 0u64), (0, 50), (0, 2_000)] {
        let clock = clock(Sim::new(2.6));
        let sim = &clock.sources;
        run(&clock, 10, 30_000_000);
        let start_ms = sim.true_ns.get() / 1_000_000;
        sim.core1_ticks_behind.set(behind_ns * 26 / 10);
        sim.core1_drift_per_ms.set(drift_ns_per_ms * 26 / 10);
        // Calls now and then, on either core: a window one core started is used
        // by the other at every point of it.
        let mut x = 0x9e37_79b9_u64;
        let mut worst_late_ns = 0u128;
        let mut given_up_at_ms = None;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sim.core.set(usize::from(x & 1 == 1));
            let given_up = sim.tsc_given_up.get();
            if given_up && given_up_at_ms.is_none() {
                given_up_at_ms = Some(sim.true_ns.get() / 1_000_000 - start_ms);
            }
            let shown = sim.shown_ns_at(sim.true_ns.get());
            let ms = clock.now_ms();
            assert!(ms <= sim.shown_ms());
            let late_ns = shown.saturating_sub(u128::from(ms + 1) * 1_000_000);
            if ms < (shown / 1_000_000) as u64 {
                // Core 1's difference now (the drift counts from the sim's start).
                let diff_ns = behind_ns + sim.true_ns.get() / 1_000_000 * drift_ns_per_ms;
                assert!(!given_up, "late by {late_ns} ns after the TSC was given up");
                assert!(
                    late_ns <= u128::from(diff_ns),
                    "late by {late_ns} ns, cores {diff_ns} ns apart"
                );
                worst_late_ns = worst_late_ns.max(late_ns);
            }
            sim.advance((x >> 8) % 400_000);
        }
        assert!(
            sim.tsc_given_up.get(),
            "cores {behind_ns} ns + {drift_ns_per_ms} ns/ms apart: still in use"
        );
        std::println!(
            "{behind_ns} ns + {drift_ns_per_ms} ns/ms: late by up to {worst_late_ns} ns, \
             TSC given up {given_up_at_ms:?} ms in"
        );
        run(&clock, 10, 30_000_000);
    }
}

/// Review of issue 18: "a larger difference [than 50 µs] is caught at the next
/// read" holds only for reads that are quick. A read up to `CLEAN_READ_NS` (25 µs)
/// long still counts as clean, and the check measures from the TSC before each read
/// to the monotonic clock read inside it: slow reads on the core ahead (24 µs,
/// e.g. interrupts, a hypervisor, libfaketime) and quick ones on the core behind hide
/// up to 25 µs of the difference. Cores 70 µs apart then make milliseconds come out
/// up to 70 µs late for as long as it lasts, and the TSC is never caught. Fails
/// on the current code (the docs' bound would be 50 µs + `CLEAN_READ_NS`).
/// So the bound the docs give is 50 µs plus the longest clean read (25 µs): cores
/// 70 µs apart with slow reads on the core ahead may go uncaught, and make a
/// millisecond late by at most 75 µs.
#[test]
fn cores_out_of_step_with_slow_reads_are_late_by_at_most_50_us_plus_a_read() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    let behind_ns = 70_000u64;
    sim.core1_ticks_behind.set(behind_ns * 26 / 10);
    let mut x = 0x9e37_79b9_u64;
    let mut worst_late_ns = 0u128;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let core = usize::from(x & 1 == 1);
        sim.core.set(core);
        sim.read_cost_ns.set(if core == 0 { 24_000 } else { 25 });
        let shown = sim.shown_ns_at(sim.true_ns.get());
        let ms = clock.now_ms();
        if ms < (shown / 1_000_000) as u64 {
            worst_late_ns = worst_late_ns.max(shown.saturating_sub(u128::from(ms + 1) * 1_000_000));
        }
        sim.advance((x >> 8) % 400_000);
    }
    assert!(
        sim.tsc_given_up.get() || worst_late_ns <= 75_000,
        "cores {behind_ns} ns apart not caught and late by up to {worst_late_ns} ns"
    );
}

/// Issue 18, item 3: steps of the system clock are not faults of the counter. The
/// counter is checked against the monotonic clock, which no step moves: any number
/// of steps, however close together, keep the rate (the shortcut never even
/// pauses), and each is seen within a millisecond.
#[test]
fn steps_of_the_system_clock_never_give_the_tsc_up() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    for step in [
        3_600_000_000_000_i128,
        -3_600_000_000_000,
        1_000_000_000,
        1_000_000_000,
        -3_000_000_000,
        86_400_000_000_000,
    ] {
        sim.step(step);
        while clock.now_ms() != sim.shown_ms() {
            sim.advance(10);
        }
        sim.reads.set(0);
        run(&clock, 10, 10_000_000);
        assert!(
            !sim.tsc_given_up.get(),
            "given up after a step of {step} ns"
        );
        // 10 ms at most 16 reads per millisecond: the rate was kept
        assert!(
            sim.reads.get() <= 160,
            "{} reads: the rate was dropped",
            sim.reads.get()
        );
    }
}

/// Issue 18, item 3: an idle process (a call every 10 s) while NTP changes the
/// clock's frequency by 10 ppm every 20 s, and at the most the kernel allows
/// (500 ppm). The check's tolerance grows with the time between reads (1%), so
/// these changes are never taken for a faulty counter (with 50 µs whatever the
/// interval, the shortcut was given up within a minute).
#[test]
fn an_idle_process_under_ntp_frequency_changes_keeps_the_tsc() {
    for ppm in [10_i64, 100, 500] {
        let clock = clock(Sim::new(2.6));
        let sim = &clock.sources;
        run(&clock, 10, 30_000_000);
        for call in 0..60 {
            if call % 2 == 0 {
                sim.set_slew(if call % 4 == 0 { ppm } else { -ppm });
            }
            sim.advance(10_000_000_000);
            run(&clock, 10, 2_000_000);
            assert!(
                !sim.tsc_given_up.get(),
                "{ppm} ppm: given up at call {call}"
            );
        }
        sim.reads.set(0);
        run(&clock, 10, 10_000_000);
        assert!(
            sim.reads.get() <= 160,
            "{ppm} ppm: {} reads",
            sim.reads.get()
        );
    }
}

/// Review of issue 18: the check's 1% tolerates NTP's frequency changes, not
/// chrony's slews, which run at up to 8.3% (`maxslewrate` 83 333 ppm) while a
/// large offset is corrected (after a resume, or when `makestep` no longer
/// applies). An idle process (a call a second) sees each start of such a slew as
/// a counter that slowed down: one strike; two starts within a minute (a second
/// correction, or a slew that chrony raises again) give the TSC up for the life
/// of the process, though nothing is wrong with it. The README and the
/// `SystemClock` docs say that NTP's corrections never give it up. Fails on the
/// current code.
/// Since fixed: a shortfall a slew can make only drops the rate.
#[test]
fn an_idle_process_under_two_chrony_slews_keeps_the_tsc() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    for call in 0..60 {
        match call {
            5 | 35 => sim.set_slew(83_333),
            17 | 47 => sim.set_slew(0),
            _ => {}
        }
        sim.advance(1_000_000_000);
        run(&clock, 10, 1_000);
        assert!(!sim.tsc_given_up.get(), "given up at call {call}");
    }
}

/// Calls every 10 ns for `total_ns`, without checking what they return.
fn spin(clock: &Clock, total_ns: u64) {
    let end = clock.sources.true_ns.get() + total_ns;
    while clock.sources.true_ns.get() < end {
        clock.now_ms();
        clock.sources.advance(10);
    }
}

/// Halves the counter's rate, keeping it continuous (a VM moved to a slower host).
fn slow_the_counter_down(sim: &Sim) {
    let t = sim.true_ns.get() as f64;
    let ghz = sim.ghz.get();
    sim.tsc_base
        .set(sim.tsc_base.get() + (t * ghz / 2.0) as u64);
    sim.ghz.set(ghz / 2.0);
}

/// Issue 18, item 3: "a second fault within a minute" is a minute of the monotonic
/// clock. Two real faults of the counter two minutes apart, with the system clock
/// stepped back an hour between them, leave the shortcut on (in system time the
/// second came "before" the first); two faults ten seconds apart give it up.
#[test]
fn a_second_fault_gives_the_tsc_up_only_within_a_minute_of_monotonic_time() {
    for (apart_ns, step_back, given_up) in [
        (120_000_000_000_u64, true, false),
        (120_000_000_000, false, false),
        (10_000_000_000, false, true),
        (10_000_000_000, true, true),
    ] {
        let clock = clock(Sim::new(2.6));
        let sim = &clock.sources;
        run(&clock, 10, 30_000_000);
        slow_the_counter_down(sim);
        spin(&clock, 30_000_000);
        assert!(!sim.tsc_given_up.get());
        if step_back {
            sim.step(-3_600_000_000_000);
        }
        sim.advance(apart_ns);
        spin(&clock, 30_000_000);
        slow_the_counter_down(sim);
        spin(&clock, 30_000_000);
        assert_eq!(
            sim.tsc_given_up.get(),
            given_up,
            "faults {apart_ns} ns apart, step back {step_back}"
        );
    }
}

/// Issue 10, defect 6, the worst case the kernel does not see: the counter's rate
/// halves (a VM moved to a slower host without TSC scaling). A millisecond comes
/// out late by less than half a millisecond, and only until the next clean read
/// checks the counter against the clock (the rate is then confirmed afresh).
#[test]
fn a_counter_that_slows_down_is_bounded_and_then_caught() {
    let clock = clock(Sim::new(2.6));
    let sim = &clock.sources;
    run(&clock, 10, 30_000_000);
    // Halve the rate, keeping the counter continuous.
    let t = sim.true_ns.get();
    sim.tsc_base
        .set(sim.tsc_base.get() + (t as f64 * 1.3) as u64);
    sim.ghz.set(1.3);
    let mut worst_late_ns = 0u128;
    let mut last_late_at = 0;
    let start = sim.true_ns.get();
    while sim.true_ns.get() - start < 60_000_000 {
        // What the clock showed when the call began: a value below it is late.
        let shown = sim.shown_ns_at(sim.true_ns.get());
        let ms = clock.now_ms();
        if u128::from(ms + 1) * 1_000_000 <= shown {
            let late = shown - u128::from(ms + 1) * 1_000_000;
            worst_late_ns = worst_late_ns.max(late);
            last_late_at = sim.true_ns.get() - start;
        }
        sim.advance(10);
    }
    std::println!("late by up to {worst_late_ns} ns, last {last_late_at} ns after the change");
    assert!(worst_late_ns < 500_000, "late by {worst_late_ns} ns");
    assert!(
        last_late_at < 25_000_000,
        "still late {last_late_at} ns after the change"
    );
    run(&clock, 10, 30_000_000);
}

#[test]
fn without_a_tsc_every_call_reads_the_system_clock() {
    struct NoTsc(Cell<u64>, Cell<u64>);
    impl TimeSources for NoTsc {
        fn tsc(&self) -> Option<u64> {
            None
        }
        fn tsc_unchecked(&self) -> u64 {
            unreachable!("no anchor has a window")
        }
        fn unix_time(&self) -> (u64, u32) {
            self.1.set(self.1.get() + 1);
            self.0.set(self.0.get() + 1_000);
            (self.0.get() / 1_000_000, (self.0.get() % 1_000_000) as u32)
        }
        fn monotonic_ns(&self) -> u64 {
            unreachable!("read only with a TSC")
        }
        fn give_up_tsc(&self) {}
    }
    let clock = ProcessClock::new(NoTsc(Cell::new(1_700_000_000_000_000_000), Cell::new(0)));
    for _ in 0..10_000 {
        assert_eq!(clock.now_ms(), clock.sources.0.get() / 1_000_000);
    }
    assert_eq!(clock.sources.1.get(), 10_000);
    assert_eq!(clock.anchor(), Anchor(0), "nothing published");
}

/// Issue 10, defect 8: the clock stays right up to the end of the SCRU128 range
/// (2577), past where nanoseconds since 1970 overflow a `u64` (2554); the anchor's
/// millisecond field reaches the year 3084.
#[test]
fn years_2554_to_2577_are_read_right() {
    run(&clock(Sim::at_year_2560()), 10, 40_000_000);
    let last = 19_169_078_399_999_u64; // 2577-06-01T23:59:59.999Z
    let anchor = Anchor::new(last, 1 << 50, 1 << 20);
    assert_eq!((anchor.ms(), anchor.window()), (last, 1 << 20));
    assert_eq!(
        Anchor::new(1 << 45, 0, 1 << 20).window(),
        0,
        "past the field"
    );
}

/// Issue 39: a signal handler that interrupts this thread's read of the system clock
/// and reads the clock itself (here, from inside the simulated read) gets a
/// millisecond the clock showed, at once: nothing waits for the interrupted read.
/// Both then publish their reading or find the other's; the clock goes on with one
/// anchor.
#[test]
fn a_nested_call_reads_the_clock_without_waiting_for_the_call_it_interrupted() {
    let clock = clock(Sim::new(2.6));
    run(&clock, 10, 30_000_000);
    let sim = &clock.sources;
    for gap_ns in [2_000_000, 2_000_000, 10] {
        sim.advance(gap_ns); // past the window (then within one)
        sim.nested.set(Some(&raw const clock));
        let shown_before = sim.shown_ms();
        let ms = clock.now_ms();
        let shown_after = sim.shown_ms();
        let nested = sim.nested_ms.take();
        assert!(ms >= shown_before && ms <= shown_after, "{ms}");
        if gap_ns > 10 {
            let nested = nested.expect("the nested call ran");
            assert!(nested >= shown_before && nested <= shown_after, "{nested}");
        }
    }
    run(&clock, 10, 30_000_000);
}

/// A caller preempted inside its read of the system clock while another caller goes
/// on (here from inside the read, 3 ms later) and ends a rate measurement comes back
/// to a measurement begun after its own read: no step back of the counter, and the
/// confirmed rate stays. It was dropped (the check compared the measurement's start
/// with the preempted read's counter), which turned the shortcut off until two new
/// measurements agreed: 16 threads under libfaketime (`tests/review_fast_paths.rs`)
/// found a window at 26 of 1 079 samples, where the clock with a lock had one at all.
#[test]
fn a_read_overtaken_by_another_callers_measurement_keeps_the_rate() {
    let clock = clock(Sim::new(2.6));
    run(&clock, 10, 30_000_000);
    let sim = &clock.sources;
    let rate = clock.calibration.0.confirmed_rate();
    assert!(rate > 0, "no rate confirmed");
    for _ in 0..3 {
        sim.advance(2_000_000); // past the window: the next call reads the clock
        sim.preempt_ns.set(3_000_000);
        sim.nested.set(Some(&raw const clock));
        let shown_before = sim.shown_ms();
        let ms = clock.now_ms();
        let nested = sim
            .nested_ms
            .take()
            .expect("the other caller read the clock");
        assert!(
            ms >= shown_before && nested >= shown_before,
            "{ms} {nested}"
        );
        assert!(
            clock.calibration.0.confirmed_rate() > 0,
            "the confirmed rate was dropped"
        );
    }
}

/// The 128-bit word is one value for every thread: threads replace a value whose
/// halves are equal by the next one (each step changes both halves), and no load or
/// failed exchange ever sees halves of two values; no step is lost.
#[test]
fn the_128_bit_word_is_never_seen_torn_and_loses_no_update() {
    if !crate::system_clock::has_atomic_128() {
        std::println!("skipped: this CPU has no atomic 16-byte load (AVX) or cmpxchg16b");
        return;
    }
    let start = u64::MAX - 50_000;
    let word = Atomic128::new((u128::from(start) << 64) | u128::from(start));
    let per_thread = 100_000u64;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let mut done = 0;
                let mut seen = word.load();
                while done < per_thread {
                    let (low, high) = (seen as u64, (seen >> 64) as u64);
                    assert_eq!(low, high, "a torn value: {seen:#x}");
                    let next = low.wrapping_add(1);
                    match word.compare_exchange(seen, (u128::from(next) << 64) | u128::from(next)) {
                        Ok(()) => {
                            done += 1;
                            seen = word.load();
                        }
                        Err(found) => seen = found,
                    }
                }
            });
        }
    });
    let end = start.wrapping_add(4 * per_thread);
    assert_eq!(word.load(), (u128::from(end) << 64) | u128::from(end));
}
