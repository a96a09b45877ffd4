//! Unix milliseconds for the process-wide generator and [`SystemClock`](crate::SystemClock),
//! with the CPU's time-stamp counter (TSC) as a shortcut on x86-64.
//!
//! Reading the system clock costs about 23 ns here, the TSC about 10 ns. After each
//! system-clock read the clock knows how many nanoseconds are left in the current
//! millisecond; while the TSC says that less than 255/256 of that time has passed, the
//! millisecond cannot have changed, and the system clock is not read again. So every
//! value returned is a millisecond the system clock showed at or before the call, and
//! the clock is read at least once per millisecond in which IDs are made.
//!
//! Safe direction everywhere: the TSC rate is a *lower* bound taken from two
//! system-clock reads, each bracketed by TSC reads, at least 10 ms apart, used only
//! when two such measurements in a row agree within 1%, so the window it allows is
//! never longer than the real time left; a TSC reading below the last one (another
//! core, a VM migration) falls back to the system clock. The shortcut is only
//! used where the CPU declares an invariant TSC (constant rate, runs in every state).

use core::sync::atomic::{AtomicU64, Ordering};

/// TSC ticks measured over at least this many nanoseconds make a rate sample.
const CALIBRATION_NS: u64 = 10_000_000;

/// How a [`MsClock`] reads time: the counter and the system clock in nanoseconds.
pub(crate) trait TimeSources {
    /// Current TSC value, or `None` where there is no usable invariant TSC.
    fn tsc(&mut self) -> Option<u64>;
    /// System clock, Unix nanoseconds (0 if before 1970).
    fn unix_ns(&mut self) -> u64;
    /// A rate (ticks per ms, lower bound) already confirmed by another clock, or 0.
    fn known_rate(&mut self) -> u64 {
        0
    }
    /// Offers a confirmed rate to clocks made later (threads started later).
    fn share_rate(&mut self, _ticks_per_ms: u64) {}
}

/// Unix milliseconds with a TSC shortcut; see the module docs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MsClock {
    /// Millisecond of the last system-clock read.
    ms: u64,
    /// TSC before that read, and how many ticks after it the millisecond is sure to last.
    read_tsc: u64,
    window: u64,
    /// Lower bound of TSC ticks per millisecond; 0 until two measurements agree.
    ticks_per_ms: u64,
    /// The last measurement, which the next one must agree with.
    last_rate: u64,
    /// The earlier read of a rate measurement: TSC after it, and its nanoseconds.
    calib_tsc_after: u64,
    calib_ns: u64,
}

impl MsClock {
    pub(crate) const fn new() -> Self {
        Self {
            ms: 0,
            read_tsc: 0,
            window: 0,
            ticks_per_ms: 0,
            last_rate: 0,
            calib_tsc_after: 0,
            calib_ns: 0,
        }
    }

    /// Current Unix time in milliseconds.
    #[inline]
    pub(crate) fn unix_ts_ms(&mut self, sources: &mut impl TimeSources) -> u64 {
        match sources.tsc() {
            // Wrapping: a reading below `read_tsc` becomes huge and fails the test.
            Some(tsc) if tsc.wrapping_sub(self.read_tsc) < self.window => self.ms,
            tsc => self.read_system_clock(tsc, sources),
        }
    }

    #[cold]
    #[inline(never)]
    fn read_system_clock(&mut self, before: Option<u64>, sources: &mut impl TimeSources) -> u64 {
        let ns = sources.unix_ns();
        let ms = ns / 1_000_000;
        self.ms = ms;
        self.window = 0;
        let (Some(before), Some(after)) = (before, sources.tsc()) else {
            return ms;
        };
        self.learn_rate(before, ns, after, sources);
        if self.ticks_per_ms > 0 {
            // Time left in this millisecond, counted from before the read (so at least
            // what is really left), in ticks at the lower-bound rate, less 1/256 for
            // the system clock's own slewing (at most 1/2000) and 1 µs for counters of
            // different cores that differ slightly.
            let ns_left = u128::from(1_000_000 - ns % 1_000_000);
            let ticks = ns_left * u128::from(self.ticks_per_ms) / 1_000_000;
            let margin = ticks / 256 + u128::from(self.ticks_per_ms / 1_000);
            self.window = u64::try_from(ticks.saturating_sub(margin)).unwrap_or(0);
            self.read_tsc = before;
        }
        ms
    }

    /// Updates the rate from a read at `ns` bracketed by TSC values `before` and
    /// `after`, and the earlier read kept in `calib_*`.
    fn learn_rate(&mut self, before: u64, ns: u64, after: u64, sources: &mut impl TimeSources) {
        if self.calib_ns == 0 || ns < self.calib_ns || before < self.calib_tsc_after {
            // First read, or time or the counter went back: start a new measurement,
            // meanwhile trusting a rate that another clock has confirmed (the counter
            // is the same for every core). The next measurement must agree with it.
            self.calib_ns = ns;
            self.calib_tsc_after = after;
            self.last_rate = sources.known_rate();
            self.ticks_per_ms = self.last_rate;
            return;
        }
        let elapsed_ns = ns - self.calib_ns;
        if elapsed_ns < CALIBRATION_NS {
            return;
        }
        // Both reads happened inside their brackets, so at least `before -
        // calib_tsc_after` ticks passed in `elapsed_ns`: a lower bound of the rate.
        let ticks = u128::from(before - self.calib_tsc_after);
        let rate = u64::try_from(ticks * 1_000_000 / u128::from(elapsed_ns)).unwrap_or(0);
        // A counter that jumped (suspend, migration) gives one wild measurement: use
        // the rate only while two measurements in a row agree within 1%, and then
        // the lower of the two.
        let agree = rate.abs_diff(self.last_rate) <= self.last_rate / 100;
        self.ticks_per_ms = if agree { rate.min(self.last_rate) } else { 0 };
        if agree {
            sources.share_rate(self.ticks_per_ms);
        }
        self.last_rate = rate;
        self.calib_ns = ns;
        self.calib_tsc_after = after;
    }
}

#[cfg(target_arch = "x86_64")]
std::thread_local! {
    /// The calling thread's clock for [`SystemClock`](crate::SystemClock).
    static THREAD_CLOCK: core::cell::RefCell<MsClock> =
        const { core::cell::RefCell::new(MsClock::new()) };
}

/// Unix milliseconds through the calling thread's [`MsClock`] (a generator moved to
/// another thread reads that thread's clock, whose values are just as safe).
///
/// A call made while the thread is already inside one (a signal handler, or an
/// allocator that timestamps while the first call reads `/sys`) reads the system
/// clock directly, so `SystemClock` stays as re-entrant as `clock_gettime`.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn thread_unix_ts_ms() -> u64 {
    THREAD_CLOCK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut clock) => clock.unix_ts_ms(&mut SystemSources),
        Err(_) => SystemSources.unix_ns() / 1_000_000,
    })
}

/// The real sources: `rdtsc` where the CPU has an invariant TSC, and `CLOCK_REALTIME`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SystemSources;

impl TimeSources for SystemSources {
    #[inline]
    fn tsc(&mut self) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        if invariant_tsc::present() {
            // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter. It
            // is about 10 ns against 23 ns for the system clock, which makes
            // `scru128()` about 1.6x faster (benches/compare.rs); the logic around it is
            // tested with simulated counters in this module's tests.
            return Some(unsafe { core::arch::x86_64::_rdtsc() });
        }
        None
    }

    #[inline]
    fn unix_ns(&mut self) -> u64 {
        crate::sources::realtime_ns()
    }

    fn known_rate(&mut self) -> u64 {
        CONFIRMED_RATE.load(Ordering::Relaxed)
    }

    fn share_rate(&mut self, ticks_per_ms: u64) {
        CONFIRMED_RATE.store(ticks_per_ms, Ordering::Relaxed);
    }
}

/// The last TSC rate that a thread's clock confirmed, for threads started later.
static CONFIRMED_RATE: AtomicU64 = AtomicU64::new(0);

/// Whether the CPU declares an invariant TSC (`CPUID` leaf `8000_0007h`, EDX bit 8).
#[cfg(target_arch = "x86_64")]
mod invariant_tsc {
    use core::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const YES: u8 = 1;
    const NO: u8 = 2;
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    #[inline]
    pub(super) fn present() -> bool {
        match STATE.load(Ordering::Relaxed) {
            YES => true,
            NO => false,
            _ => detect(),
        }
    }

    #[cold]
    fn detect() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: `cpuid` exists on every x86-64 CPU; leaf 8000_0007h is read only
        // after leaf 8000_0000h says that it exists. (`__cpuid` is a safe function in
        // newer Rust, an unsafe one in the oldest we support.)
        #[allow(unused_unsafe)]
        let invariant = unsafe {
            __cpuid(0x8000_0000).eax >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
        };
        // Only where the kernel itself keeps time with the TSC: it has then checked
        // that the counters of all cores agree.
        let present = invariant && kernel_clocksource_is_tsc();
        STATE.store(if present { YES } else { NO }, Ordering::Relaxed);
        present
    }

    fn kernel_clocksource_is_tsc() -> bool {
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .is_ok_and(|source| source.trim() == "tsc")
    }
}

#[cfg(test)]
#[allow(clippy::cast_sign_loss, clippy::cast_precision_loss)] // simulated rates
mod tests {
    use super::{MsClock, TimeSources};

    /// Simulated time: true nanoseconds, a TSC at `ghz`, and a system clock that shows
    /// the true time plus `clock_offset_ns` and takes `read_cost_ns` to read.
    struct Sim {
        /// True time since the simulation's start, and the Unix time of that start.
        true_ns: u64,
        epoch_ns: u64,
        ghz: f64,
        tsc_base: u64,
        read_cost_ns: u64,
        clock_offset_ns: i64,
        reads: u64,
        shared_rate: u64,
    }

    impl Sim {
        fn tsc_at(&self, ns: u64) -> u64 {
            self.tsc_base + (ns as f64 * self.ghz) as u64
        }
        fn shown_ms(&self) -> u64 {
            (self.epoch_ns + self.true_ns).saturating_add_signed(self.clock_offset_ns) / 1_000_000
        }
    }

    impl TimeSources for Sim {
        fn tsc(&mut self) -> Option<u64> {
            self.true_ns += 3;
            Some(self.tsc_at(self.true_ns))
        }
        fn known_rate(&mut self) -> u64 {
            self.shared_rate
        }
        fn share_rate(&mut self, ticks_per_ms: u64) {
            self.shared_rate = ticks_per_ms;
        }
        fn unix_ns(&mut self) -> u64 {
            self.reads += 1;
            self.true_ns += self.read_cost_ns / 2;
            let ns = (self.epoch_ns + self.true_ns).saturating_add_signed(self.clock_offset_ns);
            self.true_ns += self.read_cost_ns - self.read_cost_ns / 2;
            ns
        }
    }

    fn sim(ghz: f64) -> Sim {
        Sim {
            true_ns: 0,
            epoch_ns: 1_700_000_000_000_123_456,
            ghz,
            tsc_base: 1 << 50,
            read_cost_ns: 25,
            clock_offset_ns: 0,
            reads: 0,
            shared_rate: 0,
        }
    }

    /// Steps of `step_ns` for `total_ns`; every value must be a millisecond the system
    /// clock showed at or before the call, and not older than the one shown before it.
    fn run(sim: &mut Sim, clock: &mut MsClock, step_ns: u64, total_ns: u64) {
        let end = sim.true_ns + total_ns;
        while sim.true_ns < end {
            let shown_before = sim.shown_ms();
            let ms = clock.unix_ts_ms(sim);
            let shown_after = sim.shown_ms();
            assert!(
                ms <= shown_after,
                "{ms} is ahead of the clock ({shown_after})"
            );
            assert!(
                ms >= shown_before,
                "{ms} is stale (clock showed {shown_before})"
            );
            sim.true_ns += step_ns;
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
            let mut sim = sim(ghz);
            let mut clock = MsClock::new();
            run(&mut sim, &mut clock, step_ns, 40_000_000);
        }
    }

    #[test]
    fn skips_most_system_clock_reads_once_calibrated() {
        let mut sim = sim(2.6);
        let mut clock = MsClock::new();
        run(&mut sim, &mut clock, 10, 30_000_000); // calibrates
        sim.reads = 0;
        run(&mut sim, &mut clock, 10, 100_000_000); // 100 ms, ~7.7M calls
        // At least one read per millisecond, more only in its last microseconds:
        // fewer than one call in a thousand reads the system clock.
        assert!(sim.reads < 7_700, "{} reads", sim.reads);
        assert!(sim.reads >= 100, "{} reads", sim.reads);
    }

    #[test]
    fn a_new_clock_starts_with_the_confirmed_rate_and_still_checks_it() {
        let mut first = sim(2.6);
        run(&mut first, &mut MsClock::new(), 10, 30_000_000);
        assert!(first.shared_rate > 0);
        // A clock made later (a new thread) skips reads from its first millisecond on.
        first.reads = 0;
        run(&mut first, &mut MsClock::new(), 10, 5_000_000);
        assert!(first.reads < 400, "{} reads", first.reads);
        // A shared rate far below the real one (a safe lower bound) is replaced after
        // the next two measurements; every answer stays right meanwhile.
        let mut other = sim(2.6);
        other.shared_rate = first.shared_rate / 4;
        run(&mut other, &mut MsClock::new(), 10, 40_000_000);
        assert!(other.shared_rate > first.shared_rate / 2);
    }

    #[test]
    fn a_clock_step_is_seen_within_a_millisecond() {
        let mut sim = sim(2.6);
        let mut clock = MsClock::new();
        run(&mut sim, &mut clock, 10, 30_000_000);
        // The system clock is set back 5 s, then forward 1 h.
        for offset in [-5_000_000_000_i64, 3_600_000_000_000] {
            sim.clock_offset_ns += offset;
            let mut calls = 0;
            while clock.unix_ts_ms(&mut sim) != sim.shown_ms() {
                sim.true_ns += 10;
                calls += 1;
                assert!(calls < 100_000, "step not seen after 1 ms");
            }
            run(&mut sim, &mut clock, 10, 30_000_000);
        }
    }

    #[test]
    fn a_preempted_calibration_read_only_shortens_the_window() {
        let mut sim = sim(2.6);
        let mut clock = MsClock::new();
        // Reads that take 3 ms (the thread was descheduled in the middle).
        sim.read_cost_ns = 3_000_000;
        run(&mut sim, &mut clock, 500, 50_000_000);
        sim.read_cost_ns = 25;
        run(&mut sim, &mut clock, 10, 50_000_000);
    }

    #[test]
    fn a_counter_that_goes_back_falls_back_to_the_system_clock() {
        let mut sim = sim(2.6);
        let mut clock = MsClock::new();
        run(&mut sim, &mut clock, 10, 30_000_000);
        // Another core whose counter is 0.5 µs behind: within the margin.
        sim.tsc_base -= 1_300;
        run(&mut sim, &mut clock, 10, 30_000_000);
        sim.tsc_base += 1 << 40; // a jump ahead (resume, migration)
        run(&mut sim, &mut clock, 10, 30_000_000);
        sim.tsc_base -= 1 << 39; // and back
        run(&mut sim, &mut clock, 10, 30_000_000);
    }

    #[test]
    fn without_a_tsc_every_call_reads_the_system_clock() {
        struct NoTsc(u64, u64);
        impl TimeSources for NoTsc {
            fn tsc(&mut self) -> Option<u64> {
                None
            }
            fn unix_ns(&mut self) -> u64 {
                self.1 += 1;
                self.0 += 1_000;
                self.0
            }
        }
        let mut sources = NoTsc(1_700_000_000_000_000_000, 0);
        let mut clock = MsClock::new();
        for _ in 0..10_000 {
            assert_eq!(clock.unix_ts_ms(&mut sources), sources.0 / 1_000_000);
        }
        assert_eq!(sources.1, 10_000);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_nested_call_reads_the_system_clock_instead_of_panicking() {
        let now = || crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap();
        super::THREAD_CLOCK.with_borrow_mut(|_held| {
            // As from a signal handler that interrupts a read.
            let before = now();
            let ms = super::thread_unix_ts_ms();
            let after = now();
            assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
        });
        assert!(super::THREAD_CLOCK.with(|cell| cell.try_borrow_mut().is_ok()));
    }

    #[test]
    fn the_real_sources_agree_with_system_time() {
        let mut clock = MsClock::new();
        let mut sources = super::SystemSources;
        for _ in 0..200_000 {
            let before = crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap();
            let ms = clock.unix_ts_ms(&mut sources);
            let after = crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap();
            assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
        }
    }
}
