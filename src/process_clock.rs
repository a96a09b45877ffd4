//! The process-wide clock behind [`SystemClock`](crate::SystemClock) and
//! [`scru128()`](crate::scru128): Unix milliseconds, one reading for every thread of
//! the process, with the CPU's time-stamp counter (TSC) as a shortcut on x86-64.
//!
//! Reading the system clock costs about 19 ns, the TSC about 8 ns (Intel Xeon; 24 and
//! 10 ns on an AMD EPYC). After each system-clock read the clock publishes an
//! *anchor*: the millisecond read, the TSC value taken just before the read, and a
//! *window* of ticks during which that millisecond is sure to last. A caller whose TSC
//! is inside the window gets the anchor's millisecond without a system call; otherwise
//! it reads the system clock and publishes a new anchor. The window is 3/4 of what is
//! left of the millisecond, so reads come closer together towards its end: the system
//! clock is read 7 to 8 times per millisecond for the whole process here (at most 16
//! when calls come every few nanoseconds), whatever the number of threads. Until the
//! counter's rate is confirmed, the first 4-5 ms of a process, every call reads the
//! system clock under the lock (about 40 000 reads here).
//!
//! There is one anchor for the whole process, replaced under a lock in the order of
//! the reads, and a caller only ever returns the current anchor or a read it
//! published itself. So no thread is given a millisecond older than one another
//! thread was already given, except when the system clock itself steps back; after a
//! step, every thread moves to the new time together, within the old millisecond's
//! window (less than 1 ms). (Per-thread caches, as this crate had before, could
//! disagree by the size of the step.)
//!
//! Why the window is safe, and its worst cases:
//!
//! - The rate is a *lower* bound of TSC ticks per millisecond of the monotonic clock
//!   (which runs at the system clock's rate, slewed alike, but is never stepped), from
//!   two reads at least 2 ms apart, each bracketed by TSC reads less than about 10 µs
//!   apart; it is used only while two such measurements in a row agree within 1%, and
//!   then the lower of the two. A measurement across a suspend or a migration
//!   disagrees and turns the shortcut off until two agree again. A step of the system
//!   clock does not enter at all.
//! - The window is 3/4 of the time left in the millisecond, in ticks at that rate,
//!   counted from before the read, less 250 ns. The 1/4 covers the system clock being
//!   slewed at any rate the kernel allows (±10% by tick adjustment, plus 0.05% by
//!   frequency; chrony slews at most 8.3%), even when the slew changes from −10% during
//!   the measurements to +10% afterwards; the 250 ns covers counters of different
//!   cores that differ slightly and a `rdtsc` that runs a little early.
//! - A TSC below the anchor's (another core behind it, a VM migrated) is outside every
//!   window: the system clock is read.
//! - The shortcut is used only where the CPU declares an invariant TSC and the kernel
//!   keeps time with it (clocksource `tsc`, which the kernel only keeps while it finds
//!   the counters of all cores in step), found out when the library is loaded (no ID
//!   call reads a file, which a sandbox might forbid).
//! - Every read checks the counter against the monotonic clock since the read before:
//!   if the clock says more time passed than the counter accounts for, by more than
//!   50 µs plus 1% of the time between the reads, the counter slowed down or a core's
//!   counter is behind (the kernel may have stopped trusting the TSC), and the rate is
//!   dropped until two measurements agree again; a shortfall beyond what a slew could
//!   make is a fault, and a second fault within a minute (of the monotonic clock) gives
//!   the TSC up for the life of the process. So cores
//!   out of step by less than 50 µs (plus the length of a read of the system clock on
//!   the core ahead, at most 25 µs for a read to count) can make a millisecond come
//!   out late by at most that much, and a larger difference, or a counter whose rate drops without the
//!   kernel noticing (a VM moved to a slower host without TSC scaling), is caught at
//!   the next read (within a millisecond of use). The 1% is ten times what NTP's
//!   corrections change the clock's rate by, so an idle process that reads the clock
//!   every few seconds is not misled by them. A shortfall a slew could make (up to
//!   1/8 of the time) only drops the rate: a chrony slew of more than 1% that starts
//!   pauses the shortcut for a few milliseconds; only more than that counts as a fault
//!   of the counter. A TSC that stops while time goes on stops the kernel's
//!   own clock as well (it counts with the same TSC).
//! - The lock is a [`ForkLock`]: a forked child takes it back from a thread of the
//!   parent that held it, and then measures the rate afresh.

use core::sync::atomic::{AtomicU64, Ordering, fence};

use crate::fork_lock::{ForkLock, ForkLockGuard, Refused};

/// TSC ticks measured over at least this many nanoseconds make a rate sample. Two
/// samples confirm a rate, so every call takes the lock for the first 4-5 ms of a
/// process (or after a failed check); reads bracketed within 0.1 µs make a sample 2 ms
/// long precise to 0.005%.
const CALIBRATION_NS: u64 = 2_000_000;
/// How far the time between two reads may exceed what the counter says passed, before
/// the counter's rate is confirmed afresh (see [`Calibration::verify`]): a constant,
/// for cores whose counters differ slightly, plus a share of the time between the
/// reads (1%, ten times the most that NTP's frequency and offset corrections change
/// the clock's rate by, so that an idle process that checks once every few seconds is
/// not misled by them).
const VERIFY_TOLERANCE_NS: u64 = 50_000;
const VERIFY_TOLERANCE_PER_NS: u64 = 100;
/// A shortfall of more than 1/8 of the time between two reads (plus the constant) is
/// more than any slew can make (chrony's at most 8.3%, the kernel's tick adjustment
/// 10%): a fault of the counter, counted towards giving it up.
const SLEW_PER_NS: u64 = 8;
/// A second fault within this long (of the monotonic clock, which no one steps) of
/// the first gives the TSC up for good.
const SECOND_STRIKE_NS: u64 = 60_000_000_000;
/// A read whose TSC brackets are further apart than this (the thread was preempted
/// inside it) is not used to check the counter. A read inside its brackets can make
/// the check err by at most their width, so half the check's constant tolerance is
/// safe; clock reads take well under a microsecond (under libfaketime, which reads its
/// offset file at every call, several).
const CLEAN_READ_NS: u64 = 25_000;
/// A read whose TSC brackets are further apart than this many ticks is not used to
/// measure the rate (before the rate is known, a bound in ticks).
const CLEAN_READ_TICKS: u64 = 1 << 15;
/// How often a thread that needs a new anchor checks for another thread's before it
/// waits for the lock.
const SPINS: u32 = 100;
/// Fixed part of the safety margin, in nanoseconds.
const MARGIN_NS: u64 = 250;

/// A system-clock reading: Unix milliseconds and the nanoseconds into that millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnixTime {
    pub(crate) ms: u64,
    pub(crate) sub_ms_ns: u32,
}

impl UnixTime {
    /// From a `timespec`, computing milliseconds directly (nanoseconds since 1970 pass
    /// `u64::MAX` in the year 2554): 0 before 1970, `u64::MAX` ms past the range of a
    /// `u64` (both are clocks out of range for a generator).
    pub(crate) const fn from_timespec(secs: i64, nanos: i64) -> Self {
        if secs < 0 || nanos < 0 || nanos >= 1_000_000_000 {
            return Self {
                ms: 0,
                sub_ms_ns: 0,
            };
        }
        // Both checked non-negative above.
        #[allow(clippy::cast_sign_loss)]
        let (secs, nanos) = (secs as u64, nanos as u64);
        let ms = match secs.checked_mul(1_000) {
            Some(ms) => ms.saturating_add(nanos / 1_000_000),
            None => u64::MAX,
        };
        Self {
            ms,
            sub_ms_ns: (nanos % 1_000_000) as u32,
        }
    }
}

/// How the clock reads time: the counter and the system clock.
pub(crate) trait TimeSources {
    /// Current TSC value, or `None` where there is no usable invariant TSC.
    fn tsc(&self) -> Option<u64>;
    /// The system clock.
    fn unix_time(&self) -> UnixTime;
    /// The monotonic clock in nanoseconds: the system clock's rate, never stepped. The
    /// counter is measured against it, so that a step of the system clock is never
    /// taken for a counter that went wrong.
    fn monotonic_ns(&self) -> u64;
    /// Stops using the TSC: `tsc` returns `None` from now on.
    fn give_up_tsc(&self) {}
    /// The TSC without asking whether it is usable, for callers that found an anchor
    /// with a window, which only a usable TSC publishes (a value that is not the
    /// counter fails the window).
    #[inline]
    fn tsc_unchecked(&self) -> u64 {
        self.tsc().unwrap_or(0)
    }
}

/// What the refreshing thread knows about the TSC's rate; behind the clock's lock.
/// Times are of the monotonic clock, in nanoseconds.
#[derive(Debug)]
pub(crate) struct Calibration {
    /// Lower bound of TSC ticks per millisecond; 0 until two measurements agree.
    ticks_per_ms: u64,
    /// The last measurement, which the next one must agree with.
    last_rate: u64,
    /// The earlier read of a rate measurement: TSC after it, and its time (0: none).
    calib_tsc_after: u64,
    calib_ns: u64,
    /// The last clean read: TSC before it, and its time (0: none yet).
    last_tsc_before: u64,
    last_ns: u64,
    /// When the last check of the counter failed (0: never).
    failed_check_ns: u64,
    /// The counter failed twice: never use it again.
    given_up: bool,
}

impl Calibration {
    const fn new() -> Self {
        Self {
            ticks_per_ms: 0,
            last_rate: 0,
            calib_tsc_after: 0,
            calib_ns: 0,
            last_tsc_before: 0,
            last_ns: 0,
            failed_check_ns: 0,
            given_up: false,
        }
    }

    /// The window (in ticks from `before`) for a read of the system clock at
    /// `sub_ms_ns` into its millisecond and of the monotonic clock at `mono_ns`, both
    /// bracketed by TSC values `before` and `after`; 0 while the rate is unconfirmed.
    fn window(&mut self, before: u64, sub_ms_ns: u32, mono_ns: u64, after: u64) -> u64 {
        // 0 means "none" in the fields; the monotonic clock is past it by boot time.
        let mono_ns = mono_ns.max(1);
        self.verify(before, mono_ns, after);
        if self.given_up {
            return 0;
        }
        self.learn_rate(before, mono_ns, after);
        if self.ticks_per_ms == 0 {
            return 0;
        }
        // Time left in this millisecond, counted from before the read (so at least
        // what is really left), in ticks at the lower-bound rate, less the margins.
        let ns_left = u128::from(1_000_000 - sub_ms_ns);
        let rate = u128::from(self.ticks_per_ms);
        let ticks = ns_left * rate / 1_000_000;
        let margin = ticks / 4 + rate * u128::from(MARGIN_NS) / 1_000_000;
        u64::try_from(ticks.saturating_sub(margin)).unwrap_or(0)
    }

    /// Checks the counter against the monotonic clock at every clean read: with a
    /// confirmed rate, the ticks since the last read (counted from before each read,
    /// on whatever cores) must account for the time that passed, to within 50 µs plus
    /// 1% of it. Less means a clock slewed faster than when the rate was measured, a
    /// counter that slowed down, or a core whose counter is behind the one of the last
    /// read (counters the kernel no longer keeps in step): windows could last too long,
    /// so the rate is dropped (and confirmed afresh by two measurements). A shortfall
    /// beyond what a slew can make (50 µs plus 1/8 of the time) is a fault; a second
    /// fault within a minute gives the TSC up for good, as the kernel does with a TSC
    /// it stops trusting. Steps of the system clock do not enter: the monotonic clock
    /// is never stepped.
    fn verify(&mut self, before: u64, ns: u64, after: u64) {
        let rate = u128::from(self.ticks_per_ms);
        // A read the thread was preempted in says little about the counter.
        let clean = rate > 0
            && u128::from(after.wrapping_sub(before)) * 1_000_000 / rate
                <= u128::from(CLEAN_READ_NS);
        if !clean {
            return;
        }
        if self.last_ns != 0 && ns >= self.last_ns {
            // Signed: a core a little behind can show fewer ticks than the last read.
            let ticks = i128::from(before) - i128::from(self.last_tsc_before);
            let counted_ns = ticks * 1_000_000 / i128::from(self.ticks_per_ms);
            let elapsed_ns = ns - self.last_ns;
            let short_ns = i128::from(elapsed_ns) - counted_ns;
            let tolerance = VERIFY_TOLERANCE_NS + elapsed_ns / VERIFY_TOLERANCE_PER_NS;
            if short_ns > i128::from(tolerance) {
                // A shortfall a slew of the clock could make (chrony slews at up to
                // 8.3%) only drops the rate; more is a fault of the counter.
                let fault = VERIFY_TOLERANCE_NS + elapsed_ns / SLEW_PER_NS;
                if short_ns > i128::from(fault) {
                    let again = self.failed_check_ns != 0
                        && ns.saturating_sub(self.failed_check_ns) < SECOND_STRIKE_NS;
                    self.given_up |= again;
                    self.failed_check_ns = ns;
                }
                self.ticks_per_ms = 0;
                self.last_rate = 0;
            }
        }
        self.last_tsc_before = before;
        self.last_ns = ns;
    }

    /// Updates the rate from a read at `ns` bracketed by TSC values `before` and
    /// `after`, and the earlier read kept in `calib_*`.
    fn learn_rate(&mut self, before: u64, ns: u64, after: u64) {
        // Cores' counters differ by a few ticks, so a read on another core can see a
        // counter slightly below the last one; only a step back of more than a
        // millisecond's ticks (a migration, a reset counter) means the counter went
        // back, and then its rate may have changed too: unconfirmed until two
        // measurements agree.
        let tolerance = if self.last_rate > 0 {
            self.last_rate
        } else {
            1 << 22
        };
        let went_back = before.saturating_add(tolerance) < self.calib_tsc_after;
        if went_back {
            self.ticks_per_ms = 0;
            self.last_rate = 0;
        }
        // A read the thread was preempted in gives a bound far below the rate: keep it
        // out of the measurements (whose brackets must be tight, ticks under 2^15, 10 µs
        // at 3.3 GHz, for 2 ms to give a rate precise to 0.5%).
        if after.wrapping_sub(before) > CLEAN_READ_TICKS {
            return;
        }
        if self.calib_ns == 0 || ns < self.calib_ns || went_back {
            // First read, or the counter went back: start a new measurement.
            self.calib_ns = ns;
            self.calib_tsc_after = after;
            return;
        }
        let elapsed_ns = ns - self.calib_ns;
        if elapsed_ns < CALIBRATION_NS {
            return;
        }
        // Both reads happened inside their brackets, so at least `before -
        // calib_tsc_after` ticks passed in `elapsed_ns`: a lower bound of the rate.
        let ticks = u128::from(before.saturating_sub(self.calib_tsc_after));
        let rate = u64::try_from(ticks * 1_000_000 / u128::from(elapsed_ns)).unwrap_or(0);
        // A counter that jumped gives one wild measurement: use the rate only while
        // two measurements in a row agree within 1%, and then the lower.
        let agree = rate.abs_diff(self.last_rate) <= self.last_rate / 100;
        self.ticks_per_ms = if agree { rate.min(self.last_rate) } else { 0 };
        self.last_rate = rate;
        self.calib_ns = ns;
        self.calib_tsc_after = after;
    }
}

/// Unix milliseconds, one reading for the whole process; see the module docs.
#[repr(C)]
pub(crate) struct ProcessClock<S> {
    /// Seqlock over the anchor: odd while it is being written.
    seq: AtomicU64,
    ms: AtomicU64,
    base_tsc: AtomicU64,
    window: AtomicU64,
    /// Held by the one thread that reads the system clock and publishes an anchor; a
    /// forked child takes it back from a thread it does not have.
    calibration: ForkLock<Calibration>,
    sources: S,
}

impl<S: TimeSources> ProcessClock<S> {
    pub(crate) const fn new(sources: S) -> Self {
        Self {
            seq: AtomicU64::new(0),
            ms: AtomicU64::new(0),
            base_tsc: AtomicU64::new(0),
            window: AtomicU64::new(0),
            calibration: ForkLock::new(Calibration::new()),
            sources,
        }
    }

    /// Current Unix time in milliseconds (0 before 1970).
    #[inline]
    pub(crate) fn now_ms(&self) -> u64 {
        match self.sources.tsc() {
            Some(tsc) => match self.cached(tsc) {
                Some(ms) => ms,
                None => self.refresh(),
            },
            // Every read is a real one: nothing to share.
            None => self.sources.unix_time().ms,
        }
    }

    /// The anchor's millisecond if the TSC is inside its window, read without a system
    /// call. An anchor without a window (no TSC to use, or not yet calibrated) is
    /// known from one load, before the counter is read.
    #[inline]
    fn cached_now(&self) -> Option<u64> {
        if self.window.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.cached(self.sources.tsc_unchecked())
    }

    /// Whether the anchor is still the one numbered `seq` (from [`anchor`](Self::anchor))
    /// and the TSC inside its window: then the clock reads that anchor's millisecond.
    /// For callers that know which millisecond that is (the fast path of `scru128()`);
    /// an odd `seq` never matches an anchor's number once written.
    #[inline]
    fn is_current(&self, seq: u64) -> bool {
        if self.seq.load(Ordering::Acquire) != seq {
            return false;
        }
        let tsc = self.sources.tsc_unchecked();
        let base = self.base_tsc.load(Ordering::Relaxed);
        let window = self.window.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        // Wrapping: a counter below the anchor's becomes huge and fails the test.
        self.seq.load(Ordering::Relaxed) == seq && tsc.wrapping_sub(base) < window
    }

    /// The anchor published now, as its sequence number and millisecond, if it has a
    /// window; `None` while it is being written, or without a window.
    #[inline]
    fn anchor(&self) -> Option<(u64, u64)> {
        let seq = self.seq.load(Ordering::Acquire);
        let ms = self.ms.load(Ordering::Relaxed);
        let window = self.window.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let valid = self.seq.load(Ordering::Relaxed) == seq && seq & 1 == 0 && window != 0;
        valid.then_some((seq, ms))
    }

    /// The anchor's millisecond, if `tsc` is inside its window.
    #[inline]
    fn cached(&self, tsc: u64) -> Option<u64> {
        let seq = self.seq.load(Ordering::Acquire);
        let ms = self.ms.load(Ordering::Relaxed);
        let base = self.base_tsc.load(Ordering::Relaxed);
        let window = self.window.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        // Wrapping: a counter below the anchor's becomes huge and fails the test.
        let valid = self.seq.load(Ordering::Relaxed) == seq
            && seq & 1 == 0
            && tsc.wrapping_sub(base) < window;
        if valid { Some(ms) } else { None }
    }

    /// Reads the system clock and publishes the anchor, or, if another thread is doing
    /// that right now, waits for its anchor. A call nested in this thread's own refresh
    /// (a signal handler) reads the system clock directly instead of waiting for
    /// itself.
    #[cold]
    #[inline(never)]
    fn refresh(&self) -> u64 {
        for _ in 0..SPINS {
            match self.calibration.try_lock() {
                Ok(mut calibration) => return self.read_and_publish(&mut calibration),
                Err(Refused::Nested) => return self.sources.unix_time().ms,
                Err(Refused::Busy) => {}
            }
            // Another thread is reading the clock; its anchor is the answer (returning
            // a read of our own instead could undercut an anchor it publishes later).
            core::hint::spin_loop();
            match self.sources.tsc() {
                Some(tsc) => {
                    if let Some(ms) = self.cached(tsc) {
                        return ms;
                    }
                }
                None => return self.sources.unix_time().ms,
            }
        }
        // Then wait for the lock itself, sleeping: a waiter that only spun could keep a
        // preempted holder from running (a real-time thread above it on the same CPU).
        match self.calibration.lock() {
            Ok(mut calibration) => self.read_and_publish(&mut calibration),
            Err(_) => self.sources.unix_time().ms,
        }
    }

    /// Behind the lock: the system clock, then the anchor it makes.
    fn read_and_publish(&self, calibration: &mut ForkLockGuard<'_, Calibration>) -> u64 {
        if calibration.inherited() {
            // Taken over in a child from a thread of the parent that was inside: the
            // measurements may be half-updated. Measure afresh.
            **calibration = Calibration::new();
        }
        // A thread may have published while this one waited for the lock.
        let Some(first) = self.sources.tsc() else {
            return self.sources.unix_time().ms;
        };
        if let Some(ms) = self.cached(first) {
            return ms;
        }
        let before = self.sources.tsc().unwrap_or(first);
        let now = self.sources.unix_time();
        let mono_ns = self.sources.monotonic_ns();
        let window = match self.sources.tsc() {
            Some(after) => calibration.window(before, now.sub_ms_ns, mono_ns, after),
            None => 0,
        };
        if calibration.given_up {
            // From now on every call reads the system clock (the anchor below, with no
            // window, is used by nobody).
            self.sources.give_up_tsc();
        }
        let seq = self.seq.load(Ordering::Relaxed) & !1;
        self.seq.store(seq + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        self.ms.store(now.ms, Ordering::Relaxed);
        self.base_tsc.store(before, Ordering::Relaxed);
        self.window.store(window, Ordering::Relaxed);
        self.seq.store(seq + 2, Ordering::Release);
        now.ms
    }
}

/// The clock of this process.
static CLOCK: ProcessClock<SystemSources> = ProcessClock::new(SystemSources);

/// Current Unix time in milliseconds from the process-wide clock: the anchor's
/// millisecond inline, anything else out of line.
#[inline]
pub(crate) fn now_ms() -> u64 {
    match CLOCK.cached_now() {
        Some(ms) => ms,
        None => now_ms_slow(),
    }
}

/// [`now_ms`] if it needs no call: the anchor's millisecond while the TSC is inside
/// its window, else `None`.
#[inline]
pub(crate) fn now_ms_at_hand() -> Option<u64> {
    CLOCK.cached_now()
}

#[cold]
#[inline(never)]
fn now_ms_slow() -> u64 {
    CLOCK.now_ms()
}

/// The process clock's anchor now: its sequence number and millisecond, if it has a
/// window (see [`anchor_current`]).
pub(crate) fn anchor() -> Option<(u64, u64)> {
    CLOCK.anchor()
}

/// Whether the process clock's anchor is still the one [`anchor`] numbered `seq` and
/// the TSC is inside its window: then [`now_ms`] gives that anchor's millisecond.
#[inline]
pub(crate) fn anchor_current(seq: u64) -> bool {
    CLOCK.is_current(seq)
}

/// Fork handler (child): see [`ForkLock::adopt_in_child`].
pub(crate) fn adopt_lock_in_child() {
    CLOCK.calibration.adopt_in_child();
}

/// Run when the library is loaded (with the fork handlers' registration): finds out
/// whether the TSC can be used. That reads the kernel's clocksource from `/sys`, which
/// a sandbox set up later (seccomp) might forbid; no ID call ever opens a file after
/// this. (Where there is no load-time hook, the first use does it.)
pub(crate) fn detect_at_load() {
    #[cfg(target_arch = "x86_64")]
    let _ = invariant_tsc::present();
}

/// The real sources: `rdtsc` where the CPU has an invariant TSC that the kernel keeps
/// time with, and `CLOCK_REALTIME`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SystemSources;

impl TimeSources for SystemSources {
    #[inline]
    fn tsc(&self) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        if invariant_tsc::present() {
            // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter. It
            // costs about 10 ns against 24 ns for the system clock (the floor lines of
            // `scripts/bench-ratios`, AMD EPYC); the logic around it is
            // tested with simulated counters in this module's tests, and the real
            // counter by `the_real_sources_agree_with_system_time` and
            // `tests/clock_steps.rs`.
            return Some(unsafe { core::arch::x86_64::_rdtsc() });
        }
        None
    }

    fn give_up_tsc(&self) {
        #[cfg(target_arch = "x86_64")]
        invariant_tsc::give_up();
    }

    #[inline]
    fn tsc_unchecked(&self) -> u64 {
        // SAFETY: as in `tsc`. Without the check of `invariant_tsc::present`: callers
        // found an anchor with a window, which is only published while it holds; after
        // `give_up` every anchor has none.
        #[cfg(target_arch = "x86_64")]
        return unsafe { core::arch::x86_64::_rdtsc() };
        #[cfg(not(target_arch = "x86_64"))]
        0
    }

    #[inline]
    fn unix_time(&self) -> UnixTime {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable `timespec` for the duration of the call.
        // Reading CLOCK_REALTIME directly skips `SystemTime`'s `duration_since` and
        // u128 arithmetic, about 50 instructions per ID (compare/benches/compare.rs). Tested
        // by `the_real_sources_agree_with_system_time`.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut now) };
        if rc != 0 {
            return UnixTime::from_timespec(-1, 0);
        }
        #[allow(clippy::useless_conversion)] // `time_t` and `c_long` are not i64 everywhere
        UnixTime::from_timespec(i64::from(now.tv_sec), i64::from(now.tv_nsec))
    }

    fn monotonic_ns(&self) -> u64 {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: as in `unix_time`. Read only under the lock, next to the system
        // clock (about 7 times per millisecond). Tested with the rest of the real
        // sources by `the_real_sources_agree_with_system_time`.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut now) };
        if rc != 0 {
            return 0;
        }
        #[allow(clippy::useless_conversion)] // as above
        let (secs, nanos) = (i64::from(now.tv_sec), i64::from(now.tv_nsec));
        u64::try_from(secs)
            .ok()
            .and_then(|secs| secs.checked_mul(1_000_000_000))
            .and_then(|ns| ns.checked_add(u64::try_from(nanos).ok()?))
            .unwrap_or(0)
    }
}

/// For the crate's tests (`scru128::__private`): whether the process clock may still
/// use the TSC (never where the CPU or kernel does not allow it, nor after it gave the
/// counter up), and whether its last anchor has a window (a confirmed rate).
pub(crate) fn tsc_shortcut() -> (bool, bool) {
    let usable = SystemSources.tsc().is_some();
    (usable, usable && CLOCK.window.load(Ordering::Relaxed) > 0)
}

/// Whether the CPU declares an invariant TSC (`CPUID` leaf `8000_0007h`, EDX bit 8) and
/// the kernel keeps time with it.
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
    pub(super) fn detect() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: `cpuid` exists on every x86-64 CPU; leaf 8000_0007h is read only
        // after leaf 8000_0000h says that it exists. (`__cpuid` is a safe function in
        // newer Rust, an unsafe one in the oldest we support.)
        #[allow(unused_unsafe)]
        let invariant = unsafe {
            __cpuid(0x8000_0000).eax >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
        };
        // Only where the kernel itself keeps time with the TSC: it has then checked
        // that the counters of all cores agree. A check that runs twice at once (two
        // threads) comes to the same answer.
        let present = invariant && kernel_clocksource_is_tsc();
        if STATE
            .compare_exchange(
                UNKNOWN,
                if present { YES } else { NO },
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_err()
        {
            return STATE.load(Ordering::Relaxed) == YES;
        }
        present
    }

    /// Never uses the TSC again.
    pub(super) fn give_up() {
        STATE.store(NO, Ordering::Relaxed);
    }

    /// Reads the kernel's current clocksource without allocating (the clock may be
    /// read from inside an allocator).
    fn kernel_clocksource_is_tsc() -> bool {
        use std::io::Read as _;
        let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
        let mut buf = [0u8; 32];
        let Ok(mut file) = std::fs::File::open(path) else {
            return false;
        };
        let n = file.read(&mut buf).unwrap_or(0);
        buf[..n].trim_ascii() == b"tsc"
    }
}

#[cfg(test)]
#[allow(
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap
)]
mod tests {
    use core::cell::Cell;
    use std::vec::Vec;

    use super::{ProcessClock, TimeSources, UnixTime};

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

        fn unix_time(&self) -> UnixTime {
            self.reads.set(self.reads.get() + 1);
            let cost = self.read_cost_ns.get();
            self.advance(cost / 2);
            let ns = self.shown_ns_at(self.true_ns.get());
            self.advance(cost - cost / 2);
            UnixTime {
                ms: (ns / 1_000_000) as u64,
                sub_ms_ns: (ns % 1_000_000) as u32,
            }
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
            let mut noted: Option<(u64, u64)> = None;
            let (mut shortcuts, mut calls) = (0u64, 0u64);
            for phase in 0..6u64 {
                match phase {
                    1 => sim.step(5_000_000_000),
                    2 => sim.step(-7_000_000_000),
                    3 => sim.set_slew(500),
                    4 => sim.step(-300_000),
                    _ => {}
                }
                // As for `now_ms` (`a_clock_step_is_seen_within_a_millisecond`), the
                // millisecond before a step may still come for less than 1 ms after it.
                let settled = sim.true_ns.get() + 1_000_000;
                let end = sim.true_ns.get() + 20_000_000;
                while sim.true_ns.get() < end {
                    calls += 1;
                    sim.core.set(usize::from(calls % 3 == 0));
                    let shown_before = sim.shown_ms();
                    let shortcut = if anchored {
                        noted
                            .filter(|&(seq, _)| clock.is_current(seq))
                            .map(|(_, ms)| ms)
                    } else {
                        clock.cached_now()
                    };
                    shortcuts += u64::from(shortcut.is_some());
                    let ms = shortcut.unwrap_or_else(|| {
                        let ms = clock.now_ms();
                        noted = clock.anchor();
                        ms
                    });
                    let shown_after = sim.shown_ms();
                    if sim.true_ns.get() >= settled {
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
                }
            }
            // The shortcut was taken for most calls.
            assert!(shortcuts > calls / 2, "{shortcuts} of {calls}");
            // An odd number (`NO_ANCHOR`, or an anchor being written) never holds.
            assert!(!clock.is_current(u64::MAX));
        }
    }

    /// Review of the fast paths (48d0f70): `is_current(seq)` holds only for the anchor
    /// published now, whichever caller published it. `scru128()` spends a block while
    /// the anchor it noted holds, so an older anchor of the same clock (one a thread
    /// noted before another thread's read replaced it) must never hold again: its
    /// millisecond may be one the clock has left, or be outside the block's range.
    /// The callers' shortcuts test above has one caller, which is also the only one
    /// to publish, so the anchor it noted is always the one published: a check of the
    /// window alone (without the sequence number) passed it. Here another caller
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
        let mut seen: Vec<(u64, u64)> = Vec::new();
        let note = |seen: &mut Vec<(u64, u64)>, anchor: Option<(u64, u64)>| {
            if let Some(anchor) = anchor {
                if seen.last() != Some(&anchor) {
                    seen.push(anchor);
                }
                if seen.len() > 32 {
                    seen.remove(0);
                }
            }
        };
        let mut random = 0x2545_f491_4f6c_dd1d_u64;
        let (mut held, mut calls) = (0u64, 0u64);
        for phase in 0..5u64 {
            match phase {
                1 => sim.step(3_600_000_000_000),
                2 => sim.step(-5_000_000_000),
                3 => sim.set_slew(500),
                4 => sim.step(-60_000_000_000),
                _ => {}
            }
            // As in `a_clock_step_is_seen_within_a_millisecond`: the millisecond before
            // a step may come for less than 1 ms after it.
            let settled = sim.true_ns.get() + 1_000_000;
            let end = sim.true_ns.get() + 20_000_000;
            while sim.true_ns.get() < end {
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
                let current: Vec<(u64, u64)> = seen
                    .iter()
                    .copied()
                    .filter(|&(seq, _)| clock.is_current(seq))
                    .collect();
                let shown_after = sim.shown_ms();
                assert!(current.len() <= 1, "several anchors hold: {current:?}");
                if let Some(&(seq, ms)) = current.first() {
                    held += 1;
                    assert_eq!(
                        clock.anchor().map(|(now, _)| now),
                        Some(seq),
                        "anchor {seq} holds, but it is not the one published"
                    );
                    if sim.true_ns.get() >= settled {
                        assert!(
                            shown_before <= ms && ms <= shown_after,
                            "anchor {seq} holds with {ms}, the clock showed {shown_before} to {shown_after}"
                        );
                    }
                }
                sim.advance(random >> 55);
            }
        }
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
            assert_eq!(clock.anchor(), None);
            for &(seq, ms) in &seen {
                assert!(
                    !clock.is_current(seq),
                    "anchor {seq} ({ms}) holds after the give-up"
                );
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
                worst_late_ns =
                    worst_late_ns.max(shown.saturating_sub(u128::from(ms + 1) * 1_000_000));
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
            fn unix_time(&self) -> UnixTime {
                self.1.set(self.1.get() + 1);
                self.0.set(self.0.get() + 1_000);
                UnixTime {
                    ms: self.0.get() / 1_000_000,
                    sub_ms_ns: (self.0.get() % 1_000_000) as u32,
                }
            }
            fn monotonic_ns(&self) -> u64 {
                unreachable!("read only with a TSC")
            }
        }
        let clock = ProcessClock::new(NoTsc(Cell::new(1_700_000_000_000_000_000), Cell::new(0)));
        for _ in 0..10_000 {
            assert_eq!(clock.now_ms(), clock.sources.0.get() / 1_000_000);
        }
        assert_eq!(clock.sources.1.get(), 10_000);
    }

    /// Issue 10, defect 8: nanoseconds since 1970 overflow a `u64` in 2554; the clock
    /// works in milliseconds and stays right up to the end of the SCRU128 range (2577).
    #[test]
    fn years_2554_to_2577_are_read_right() {
        // 2554-07-21T23:34:33Z is where u64 nanoseconds end.
        for (secs, nanos) in [
            (18_446_744_073, 709_551_615),
            (18_446_744_074, 0),
            (18_617_184_000, 999_999_999),
            (19_169_078_399, 5),
        ] {
            let t = UnixTime::from_timespec(secs, nanos);
            assert_eq!(
                u128::from(t.ms),
                (secs as u128 * 1_000_000_000 + nanos as u128) / 1_000_000
            );
            assert_eq!(u64::from(t.sub_ms_ns), nanos as u64 % 1_000_000);
        }
        assert_eq!(UnixTime::from_timespec(i64::MAX, 0).ms, u64::MAX);
        assert_eq!(UnixTime::from_timespec(-1, 0).ms, 0);
        assert_eq!(UnixTime::from_timespec(5, 1_000_000_000).ms, 0);
        run(&clock(Sim::at_year_2560()), 10, 40_000_000);
    }

    #[test]
    fn a_nested_call_reads_the_system_clock_instead_of_waiting_for_itself() {
        let clock = clock(Sim::new(2.6));
        run(&clock, 10, 30_000_000);
        let sim = &clock.sources;
        // As from a signal handler that interrupts this thread's refresh.
        let _held = clock.calibration.lock().unwrap();
        sim.advance(2_000_000); // past every window
        let reads = sim.reads.get();
        let shown_before = sim.shown_ms();
        let ms = clock.now_ms();
        assert!(ms >= shown_before && ms <= sim.shown_ms());
        assert_eq!(sim.reads.get(), reads + 1);
    }

    #[test]
    fn the_real_sources_agree_with_system_time() {
        let now = || crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap();
        for _ in 0..200_000 {
            let before = now();
            let ms = super::now_ms();
            let after = now();
            assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
        }
    }

    /// The real clock's lock, as a thread holds it: until `release` is dropped.
    #[cfg(target_os = "linux")]
    fn hold_the_real_lock() -> (std::thread::JoinHandle<()>, std::sync::mpsc::Sender<()>) {
        let (held_tx, held) = std::sync::mpsc::channel();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let _guard = super::CLOCK.calibration.lock().unwrap();
            held_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        held.recv().unwrap();
        // Past the last anchor's window: the next call must take the lock.
        std::thread::sleep(std::time::Duration::from_millis(2));
        (holder, release)
    }

    /// Whether `ms` lies between two reads of `SystemTime` around it (in the child).
    #[cfg(target_os = "linux")]
    fn sane(read: impl FnOnce() -> u64) -> bool {
        let now = || crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap();
        let before = now();
        let ms = read();
        before <= ms && ms <= now()
    }

    /// Where the TSC shortcut is off, the clock takes no lock: nothing to test.
    #[cfg(target_os = "linux")]
    fn lock_in_use() -> bool {
        let ms = super::now_ms();
        std::thread::sleep(std::time::Duration::from_millis(30)); // calibrated
        let used = super::now_ms() >= ms && super::tsc_shortcut().0;
        if !used {
            std::println!("skipped: the clock's TSC shortcut (and its lock) is off here");
        }
        used
    }

    /// Issue 18, item 1: a child made while another thread held the clock's lock takes
    /// it back (before, a prepare handler had to take it across `fork()`).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_takes_the_clock_back_from_a_thread_that_held_it() {
        let _serial = crate::fork_lock::signal_fork::arm(|| 0);
        if !lock_in_use() {
            return;
        }
        let (holder, release) = hold_the_real_lock();
        // SAFETY: the child reads the clock and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = i32::from(!sane(super::now_ms));
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(code) }
        }
        drop(release);
        holder.join().unwrap();
        let status = crate::fork_lock::signal_fork::exit_status(pid);
        assert_eq!(status, Some(0), "the child hung or read a wrong time");
    }

    /// Issue 18, item 1 (reproduced by the review: 1 of 3000 forks hung): `fork()` from
    /// a signal handler that interrupted a thread waiting for the clock's lock, held by
    /// another thread. The old flag said "in a refresh" from before the lock was taken,
    /// so the prepare handler left the lock to the other thread, and the child, back
    /// in the interrupted wait, waited for ever.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fork_from_a_signal_handler_while_waiting_for_the_clock_hangs_no_child() {
        use std::os::unix::thread::JoinHandleExt as _;
        // In the handler: the child reads the clock (a call nested in the wait), then
        // returns into the interrupted wait, which must end too (below).
        let _serial =
            crate::fork_lock::signal_fork::arm(|| if sane(super::now_ms) { -1 } else { 3 });
        if !lock_in_use() {
            return;
        }
        let (holder, release) = hold_the_real_lock();
        let parent = std::process::id();
        let waiter = std::thread::spawn(move || {
            let ok = sane(super::now_ms);
            if std::process::id() != parent {
                // The child, out of the interrupted wait.
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(i32::from(!ok)) }
            }
            ok
        });
        std::thread::sleep(std::time::Duration::from_millis(20)); // waiting, asleep
        let child = crate::fork_lock::signal_fork::fork_on(waiter.as_pthread_t());
        drop(release);
        holder.join().unwrap();
        assert!(
            waiter.join().unwrap(),
            "the parent's wait read a wrong time"
        );
        let child = child.expect("the signal handler did not fork");
        assert_eq!(
            crate::fork_lock::signal_fork::exit_status(child),
            Some(0),
            "the child hung (or read a wrong time) in the wait it was forked from"
        );
    }
}
