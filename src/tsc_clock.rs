//! The TSC shortcut of the process clock (x86-64): Unix milliseconds, one reading for
//! every thread, without a system call while the CPU's time-stamp counter (TSC) proves
//! that the millisecond of the last read has not ended. Lock-free: every shared value
//! is one word replaced by compare-exchange, so nothing here ever waits, and a
//! `fork()` or a signal handler at any instruction finds every word whole.
//!
//! After each read of the system clock the reader publishes an *anchor*: the
//! millisecond read, the TSC value taken just before the read, and a *window* of ticks
//! during which that millisecond is sure to last. A caller whose TSC is inside the
//! window gets the anchor's millisecond; otherwise it reads the system clock itself and
//! publishes its reading by compare-exchange from the anchor it found expired. If
//! another caller published first, it looks again (that anchor may be current). While
//! another caller is reading, it waits for that caller's anchor first, for 20 µs at
//! most (one read of the system clock for many callers at the end of a window, as few
//! reads as a lock gave; the wait is bounded, so nothing can hang on it). So a
//! caller returns only the millisecond of an anchor current at its TSC read, or a
//! reading it published: no thread is given a millisecond older than one another
//! thread was already given (unless the system clock itself went back), and after a
//! step of the system clock every thread moves to the new time together, within the
//! old millisecond's window (less than 1 ms). The window is 3/4 of what is left of the
//! millisecond, so reads come closer together towards its end.
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
//! - Every clean read checks the counter against the monotonic clock since the clean
//!   read before it (each pair of reads is checked once, by the caller that moved the
//!   last-read word from the one to the other): if the clock says more time passed
//!   than the counter accounts for, by more than 50 µs plus 1% of the time between the
//!   reads, the counter slowed down or a core's counter is behind, and the rate is
//!   dropped until two measurements agree again; a shortfall beyond what a slew could
//!   make (1/8 of the time) is a fault, and a second fault within a minute (of the
//!   monotonic clock) gives the TSC up for the life of the process. So cores out of
//!   step by less than 50 µs (plus the length of a read on the core ahead, at most
//!   25 µs for a read to count) can make a millisecond come out late by at most that
//!   much, and a larger difference, or a counter whose rate drops without the kernel
//!   noticing, is caught at the next read. A read made while another caller drops the
//!   rate may still publish one window from the old rate (less than 1 ms more).
//!
//! `system_clock.rs` supplies the real sources and decides, when the library is
//! loaded, whether the shortcut may be used at all.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// TSC ticks measured over at least this many nanoseconds make a rate sample. Two
/// samples confirm a rate, so every call reads the system clock for the first 4-5 ms
/// of a process (or after a failed check).
const CALIBRATION_NS: u64 = 2_000_000;
/// How far the time between two reads may exceed what the counter says passed, before
/// the counter's rate is confirmed afresh: a constant, for cores whose counters differ
/// slightly, plus a share of the time between the reads (1%, ten times the most that
/// NTP's corrections change the clock's rate by).
const VERIFY_TOLERANCE_NS: u64 = 50_000;
const VERIFY_TOLERANCE_PER_NS: u64 = 100;
/// A shortfall of more than 1/8 of the time between two reads (plus the constant) is
/// more than any slew can make (chrony's at most 8.3%, the kernel's tick adjustment
/// 10%): a fault of the counter.
const SLEW_PER_NS: u64 = 8;
/// A second fault within this long (of the monotonic clock) gives the TSC up for good.
const SECOND_STRIKE_NS: u64 = 60_000_000_000;
/// A read whose TSC brackets are further apart than this (the thread was preempted
/// inside it) is not used to check the counter.
const CLEAN_READ_NS: u64 = 25_000;
/// A read whose TSC brackets are further apart than this many ticks is not used to
/// measure the rate (before the rate is known, a bound in ticks).
const CLEAN_READ_TICKS: u64 = 1 << 15;
/// Fixed part of the safety margin, in nanoseconds.
const MARGIN_NS: u64 = 250;
/// The longest a caller waits for another caller's read of the system clock, in
/// microseconds (a read takes well under one; under libfaketime, a few).
const HANDOFF_US: u64 = 20;

/// How the clock reads time: the counter and the system clock.
pub(crate) trait TimeSources {
    /// Current TSC value, or `None` where the shortcut may not be used (never was, or
    /// was given up).
    fn tsc(&self) -> Option<u64>;
    /// The TSC, for callers that found an anchor with a window (only a usable TSC
    /// publishes one).
    fn tsc_unchecked(&self) -> u64;
    /// The system clock: Unix milliseconds and nanoseconds into the millisecond.
    fn unix_time(&self) -> (u64, u32);
    /// The monotonic clock in nanoseconds: the system clock's rate, never stepped.
    fn monotonic_ns(&self) -> u64;
    /// Stops using the TSC: `tsc` returns `None` from now on.
    fn give_up_tsc(&self);
}

/// 16 bytes read and replaced as one: `movdqa` loads (atomic on every x86-64 CPU with
/// AVX, as Intel and AMD document) and `lock cmpxchg16b`. Only used where
/// `system_clock.rs` found both (the TSC shortcut needs them); the value is a `u128`
/// of two halves, low then high.
#[repr(C, align(16))]
pub(crate) struct Atomic128(UnsafeCell<[u64; 2]>);

// SAFETY: every access is one of the two instructions below, each atomic on the CPUs
// this is used on; no reference to the contents is ever handed out.
unsafe impl Sync for Atomic128 {}

impl Atomic128 {
    pub(crate) const fn new(value: u128) -> Self {
        Self(UnsafeCell::new([value as u64, (value >> 64) as u64]))
    }

    #[inline]
    pub(crate) fn load(&self) -> u128 {
        let (low, high): (u64, u64);
        // SAFETY: a 16-byte load of an aligned, live `[u64; 2]` (`repr(align(16))`),
        // SSE2 instructions every x86-64 CPU has; atomic where AVX is present, and
        // where it is not, nothing ever writes the value after it is made (see the
        // type's docs). Tested by this module's tests and `tests/cross_core_clock.rs`.
        unsafe {
            core::arch::asm!(
                "movdqa {v}, xmmword ptr [{p}]",
                "movq {low}, {v}",
                "pshufd {v}, {v}, 0xee",
                "movq {high}, {v}",
                p = in(reg) self.0.get(),
                v = out(xmm_reg) _,
                low = out(reg) low,
                high = out(reg) high,
                options(nostack, preserves_flags, readonly),
            );
        }
        (u128::from(high) << 64) | u128::from(low)
    }

    /// Whether the value is `value`, from two 8-byte loads (low half first), which x86
    /// keeps in order but does not make one: a test may see the low half of one value
    /// and the high half of a later one. For the anchor that is harmless (see
    /// [`ProcessClock::is_current`]), and it saves the move of a 16-byte load into
    /// general registers before the compare, on the path of every `scru128()`.
    #[inline]
    pub(crate) fn equals_by_halves(&self, value: u128) -> bool {
        let (low, high): (u64, u64);
        // SAFETY: two aligned 8-byte loads of a live `[u64; 2]`, each atomic on x86-64;
        // every write of the value is a `lock cmpxchg16b`. Tested by this module's
        // tests and by every test of `scru128()`.
        unsafe {
            core::arch::asm!(
                "mov {low}, qword ptr [{p}]",
                "mov {high}, qword ptr [{p} + 8]",
                p = in(reg) self.0.get(),
                low = out(reg) low,
                high = out(reg) high,
                options(nostack, preserves_flags, readonly),
            );
        }
        low == value as u64 && high == (value >> 64) as u64
    }

    /// Replaces `current` by `new`; `Err` with the value found if it was not `current`.
    #[inline]
    pub(crate) fn compare_exchange(&self, current: u128, new: u128) -> Result<(), u128> {
        let (found_low, found_high): (u64, u64);
        // SAFETY: `lock cmpxchg16b` on an aligned, live 16-byte value, on a CPU that
        // has it (the type's docs). The instruction takes the new low half from `rbx`,
        // which LLVM may also hand out as an operand register (it did: the pointer
        // landed in `rbx`, and the release build of tests/concurrency.rs crashed), so
        // every operand has a register named here, none of them `rbx`, which is
        // swapped with the new low half around the instruction and so keeps its value.
        // Success is read from the value found (equal to `current` exactly when the
        // exchange happened), so no flag needs a register either. Tested by this
        // module's tests (one thread and several), every test of `SystemClock`, and
        // the release tests (`.ci/run`).
        unsafe {
            core::arch::asm!(
                "xchg rsi, rbx",
                "lock cmpxchg16b xmmword ptr [rdi]",
                "mov rbx, rsi",
                in("rdi") self.0.get(),
                inout("rsi") new as u64 => _,
                in("rcx") (new >> 64) as u64,
                inout("rax") current as u64 => found_low,
                inout("rdx") (current >> 64) as u64 => found_high,
                options(nostack),
            );
        }
        let found = (u128::from(found_high) << 64) | u128::from(found_low);
        if found == current { Ok(()) } else { Err(found) }
    }
}

/// An anchor as one 128-bit word: the TSC before the read (low half), and the
/// millisecond (45 bits, to the year 3084) above the window in units of 16 ticks
/// (19 bits, up to 8.4 million ticks, a millisecond at 8 GHz). 0 is no anchor; an
/// anchor without a window is never current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Anchor(pub(crate) u128);

const WINDOW_BITS: u32 = 19;
const WINDOW_UNIT_SHIFT: u32 = 4;
const MS_BITS: u32 = 45;

impl Anchor {
    /// An anchor for a read of `ms` with the TSC at `base` before it, lasting `window`
    /// ticks (rounded down to the unit; none for a millisecond past the field).
    pub(crate) fn new(ms: u64, base: u64, window: u64) -> Self {
        let units = (window >> WINDOW_UNIT_SHIFT).min((1 << WINDOW_BITS) - 1);
        let units = if ms >> MS_BITS == 0 { units } else { 0 };
        let high = ((ms & ((1 << MS_BITS) - 1)) << WINDOW_BITS) | units;
        Self((u128::from(high) << 64) | u128::from(base))
    }

    pub(crate) const fn ms(self) -> u64 {
        (self.0 >> (64 + WINDOW_BITS)) as u64
    }

    const fn base(self) -> u64 {
        self.0 as u64
    }

    pub(crate) const fn window(self) -> u64 {
        (((self.0 >> 64) as u64) & ((1 << WINDOW_BITS) - 1)) << WINDOW_UNIT_SHIFT
    }

    /// Whether the counter reading `tsc` lies in the window (wrapping: a counter below
    /// the anchor's becomes huge and fails).
    #[inline]
    pub(crate) const fn holds_at(self, tsc: u64) -> bool {
        tsc.wrapping_sub(self.base()) < self.window()
    }
}

/// A pair of a TSC value and a monotonic time (0: none) in one word.
const fn pair(tsc: u64, ns: u64) -> u128 {
    ((ns as u128) << 64) | tsc as u128
}

const fn unpair(word: u128) -> (u64, u64) {
    (word as u64, (word >> 64) as u64)
}

/// What the clock knows of the TSC's rate. Each field is one word; times are of the
/// monotonic clock, in nanoseconds.
struct Calibration {
    /// The confirmed lower bound of ticks per millisecond (high half; 0 until two
    /// measurements agree) and the last measurement (low half).
    rate: AtomicU64,
    /// The read that starts the current measurement: the TSC after it, and its time.
    start: Atomic128,
    /// The last clean read: the TSC before it, and its time.
    last: Atomic128,
    /// When the last check of the counter failed (0: never).
    fault: AtomicU64,
}

fn rate_word(confirmed: u64, last: u64) -> u64 {
    (confirmed.min(u64::from(u32::MAX)) << 32) | last.min(u64::from(u32::MAX))
}

impl Calibration {
    const fn new() -> Self {
        Self {
            rate: AtomicU64::new(0),
            start: Atomic128::new(0),
            last: Atomic128::new(0),
            fault: AtomicU64::new(0),
        }
    }

    fn confirmed_rate(&self) -> u64 {
        self.rate.load(Relaxed) >> 32
    }

    /// 20 µs in ticks at the confirmed rate, or 2^16 ticks before there is one (20 µs
    /// at 3.3 GHz).
    fn handoff_ticks(&self) -> u64 {
        match self.confirmed_rate() {
            0 => 1 << 16,
            rate => rate * HANDOFF_US / 1_000,
        }
    }

    /// The window (in ticks from `before`) for a read of the system clock at
    /// `sub_ms_ns` into its millisecond and of the monotonic clock at `mono_ns`, both
    /// bracketed by TSC values `before` and `after`; 0 while no rate is confirmed, or
    /// once the TSC is given up.
    fn window(
        &self,
        sources: &impl TimeSources,
        before: u64,
        sub_ms_ns: u32,
        mono_ns: u64,
        after: u64,
    ) -> u64 {
        // 0 means "none" in the words; the monotonic clock is past it by boot time.
        let mono_ns = mono_ns.max(1);
        if self.verify(before, mono_ns, after) {
            sources.give_up_tsc();
        }
        if sources.tsc().is_none() {
            return 0;
        }
        self.learn_rate(sources, before, mono_ns, after);
        let rate = u128::from(self.confirmed_rate());
        if rate == 0 {
            return 0;
        }
        // Time left in this millisecond, counted from before the read (so at least
        // what is really left), in ticks at the lower-bound rate, less the margins.
        let ns_left = u128::from(1_000_000 - sub_ms_ns.min(999_999));
        let ticks = ns_left * rate / 1_000_000;
        let margin = ticks / 4 + rate * u128::from(MARGIN_NS) / 1_000_000;
        u64::try_from(ticks.saturating_sub(margin)).unwrap_or(0)
    }

    /// Checks the counter against the monotonic clock since the last clean read (see
    /// the module docs); true if the TSC must be given up (a second fault within a
    /// minute).
    fn verify(&self, before: u64, ns: u64, after: u64) -> bool {
        let rate = self.confirmed_rate();
        // A read the thread was preempted in says little about the counter.
        let clean = rate > 0
            && u128::from(after.wrapping_sub(before)) * 1_000_000 / u128::from(rate)
                <= u128::from(CLEAN_READ_NS);
        if !clean {
            return false;
        }
        // This read and the last one make a pair that one caller checks: the one
        // that moves the word on.
        let last = self.last.load();
        if self.last.compare_exchange(last, pair(before, ns)).is_err() {
            return false;
        }
        let (last_tsc, last_ns) = unpair(last);
        if last_ns == 0 || ns < last_ns {
            return false;
        }
        // Signed: a core a little behind can show fewer ticks than the last read.
        let ticks = i128::from(before) - i128::from(last_tsc);
        let counted_ns = ticks * 1_000_000 / i128::from(rate);
        let elapsed_ns = ns - last_ns;
        let short_ns = i128::from(elapsed_ns) - counted_ns;
        if short_ns <= i128::from(VERIFY_TOLERANCE_NS + elapsed_ns / VERIFY_TOLERANCE_PER_NS) {
            return false;
        }
        // A shortfall a slew of the clock could make only drops the rate; more is a
        // fault of the counter.
        self.rate.store(0, Relaxed);
        if short_ns <= i128::from(VERIFY_TOLERANCE_NS + elapsed_ns / SLEW_PER_NS) {
            return false;
        }
        let previous = self.fault.swap(ns, Relaxed);
        previous != 0 && ns.saturating_sub(previous) < SECOND_STRIKE_NS
    }

    /// Updates the rate from a read at `ns` bracketed by TSC values `before` and
    /// `after`, and the read that started the measurement.
    fn learn_rate(&self, sources: &impl TimeSources, before: u64, ns: u64, after: u64) {
        let last_rate = self.rate.load(Relaxed) & u64::from(u32::MAX);
        let start = self.start.load();
        let (start_tsc, start_ns) = unpair(start);
        // Cores' counters differ by a few ticks, so a read on another core can see a
        // counter slightly below the last one; only a step back of more than a
        // millisecond's ticks (a migration, a reset counter) means the counter went
        // back, and then its rate may have changed too. The counter is read afresh
        // for that, after the start's load: this read's brackets may be long past (a
        // caller preempted since), and another caller's measurement may have begun
        // after them, which is no step back of the counter.
        let tolerance = if last_rate > 0 { last_rate } else { 1 << 22 };
        let went_back = sources.tsc_unchecked().saturating_add(tolerance) < start_tsc;
        if went_back {
            self.rate.store(0, Relaxed);
        }
        // A read the thread was preempted in gives a bound far below the rate.
        if after.wrapping_sub(before) > CLEAN_READ_TICKS {
            return;
        }
        if start_ns == 0 || went_back {
            // First read, or the counter went back: a new measurement starts here.
            let _ = self.start.compare_exchange(start, pair(after, ns));
            return;
        }
        if ns < start_ns || before < start_tsc {
            // A read from before the measurement's start (by a caller preempted
            // since): nothing to learn from it.
            return;
        }
        let elapsed_ns = ns - start_ns;
        if elapsed_ns < CALIBRATION_NS {
            return;
        }
        // One caller ends each measurement: the one that moves its start on.
        if self.start.compare_exchange(start, pair(after, ns)).is_err() {
            return;
        }
        // Both reads happened inside their brackets, so at least `before - start_tsc`
        // ticks passed in `elapsed_ns`: a lower bound of the rate.
        let ticks = u128::from(before.saturating_sub(start_tsc));
        let sample = u64::try_from(ticks * 1_000_000 / u128::from(elapsed_ns)).unwrap_or(0);
        // A counter that jumped gives one wild measurement: use the rate only while
        // two measurements in a row agree within 1%, and then the lower.
        let mut word = self.rate.load(Relaxed);
        loop {
            let last = word & u64::from(u32::MAX);
            let agree = sample.abs_diff(last) <= last / 100;
            let confirmed = if agree { sample.min(last) } else { 0 };
            match self
                .rate
                .compare_exchange(word, rate_word(confirmed, sample), Relaxed, Relaxed)
            {
                Ok(_) => return,
                Err(found) => word = found,
            }
        }
    }
}

/// A 128-byte line of its own (two cache lines, what adjacent-line prefetchers pair):
/// the anchor, read at every ID, apart from the words a refresh writes.
#[repr(C, align(128))]
struct Line<T>(T);

/// Unix milliseconds, one reading for the whole process; see the module docs.
pub(crate) struct ProcessClock<S> {
    anchor: Line<Atomic128>,
    /// The TSC when a caller began to read the system clock (0: none): a hint for the
    /// others, which wait for its anchor a moment (see `refresh`), never a lock.
    reading: Line<AtomicU64>,
    calibration: Line<Calibration>,
    pub(crate) sources: S,
}

impl<S: TimeSources> ProcessClock<S> {
    pub(crate) const fn new(sources: S) -> Self {
        Self {
            anchor: Line(Atomic128::new(0)),
            reading: Line(AtomicU64::new(0)),
            calibration: Line(Calibration::new()),
            sources,
        }
    }

    /// The anchor's millisecond if the TSC is inside its window, without a system
    /// call. An anchor without a window (no TSC to use, not yet calibrated) is known
    /// from the load, before the counter is read.
    #[inline]
    pub(crate) fn cached_now(&self) -> Option<u64> {
        let anchor = self.anchor();
        if anchor.window() == 0 {
            return None;
        }
        anchor
            .holds_at(self.sources.tsc_unchecked())
            .then(|| anchor.ms())
    }

    /// Current Unix time in milliseconds (0 before 1970).
    #[inline]
    pub(crate) fn now_ms(&self) -> u64 {
        match self.cached_now() {
            Some(ms) => ms,
            None => self.refresh(),
        }
    }

    /// The anchor published now.
    #[inline]
    pub(crate) fn anchor(&self) -> Anchor {
        Anchor(self.anchor.0.load())
    }

    /// Whether the anchor is still `noted` (a value [`anchor`](Self::anchor) gave) and
    /// the TSC inside its window: then the clock reads that anchor's millisecond.
    ///
    /// The anchor is compared by halves, which may pair the low half of `noted` (its
    /// counter) with the high half of a later anchor (millisecond and window): that
    /// passes only if the later anchor has the same millisecond, and `noted`'s window,
    /// which is then the one tested, holds by itself. An anchor of another millisecond
    /// (after a step), published before this call began, is seen whole: its high half
    /// differs.
    #[inline]
    pub(crate) fn is_current(&self, noted: Anchor) -> bool {
        self.anchor.0.equals_by_halves(noted.0) && noted.holds_at(self.sources.tsc_unchecked())
    }

    /// Reads the system clock and publishes the reading, or returns the anchor that
    /// another caller published meanwhile, if it is current (see the module docs).
    #[cold]
    #[inline(never)]
    fn refresh(&self) -> u64 {
        // The TSC when this call first found another caller reading.
        let mut deferred_since = None;
        loop {
            let seen = self.anchor();
            let Some(tsc) = self.sources.tsc() else {
                // No shortcut: every read is a real one, and nothing is shared.
                return self.sources.unix_time().0;
            };
            if seen.holds_at(tsc) {
                return seen.ms();
            }
            // Another caller that is reading the system clock right now will publish
            // the anchor this call wants: it waits for it, but for 20 µs at most in
            // all (so that a reader preempted, stopped or left behind by a fork, or a
            // read that this call interrupted as a signal handler, delays it no more).
            let limit = self.calibration.0.handoff_ticks();
            let first = *deferred_since.get_or_insert(tsc);
            if tsc.wrapping_sub(first) < limit {
                let reader = self.reading.0.load(Relaxed);
                let busy = reader != 0 && tsc.wrapping_sub(reader) < limit;
                if busy
                    || self
                        .reading
                        .0
                        .compare_exchange(reader, tsc, Relaxed, Relaxed)
                        .is_err()
                {
                    core::hint::spin_loop();
                    continue;
                }
            }
            let before = self.sources.tsc_unchecked();
            let (ms, sub_ms_ns) = self.sources.unix_time();
            let mono_ns = self.sources.monotonic_ns();
            let after = self.sources.tsc_unchecked();
            let window =
                self.calibration
                    .0
                    .window(&self.sources, before, sub_ms_ns, mono_ns, after);
            let published = if window == 0 && self.sources.tsc().is_none() {
                // Given up just now: no anchor may hold from here on.
                self.retire(Anchor::new(ms, before, 0));
                true
            } else {
                self.anchor
                    .0
                    .compare_exchange(seen.0, Anchor::new(ms, before, window).0)
                    .is_ok()
            };
            let _ = self.reading.0.compare_exchange(tsc, 0, Relaxed, Relaxed);
            if published {
                return ms;
            }
        }
    }

    /// Replaces whatever anchor there is by `windowless`.
    #[cold]
    fn retire(&self, windowless: Anchor) {
        let mut seen = self.anchor();
        while let Err(found) = self.anchor.0.compare_exchange(seen.0, windowless.0) {
            seen = Anchor(found);
        }
    }
}

#[cfg(test)]
mod tests;
