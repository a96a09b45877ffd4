//! [`SystemClock`] (feature `std`): `CLOCK_REALTIME` on Unix, with the TSC shortcut of
//! `tsc_clock.rs` on x86-64 where the CPU and the kernel allow it (found out when the
//! library is loaded); `SystemTime` elsewhere.

use crate::sources::Clock;

/// The system's wall clock ([`SystemTime::now`](std::time::SystemTime::now)).
///
/// On Unix it reads `CLOCK_REALTIME` through one clock shared by every thread of the
/// process (the clock of [`scru128()`](crate::scru128) too). On x86-64 Linux with an
/// invariant TSC that the kernel keeps time with, that clock skips the system call
/// while the CPU's time-stamp counter proves that the millisecond of the last read
/// has not ended yet (`docs/performance.md` has what that saves on each CPU), and the
/// system clock is read 7 to 8 times per millisecond by a thread that reads it without
/// pause (every call reads it for the first 4-5 ms, until the counter's rate is
/// confirmed). Every value is a millisecond the system clock showed during the call,
/// but right after a step of the system clock: the millisecond from before the step
/// can still come for less than 1 ms after it, in every thread alike. No thread is
/// given a millisecond older than one another thread was already given (unless the
/// system clock itself went back): a generator moved between threads sees one clock.
/// Steps, NTP's corrections and chrony's slews never give the shortcut up (a slew that
/// starts pauses it for a few milliseconds). Its other worst cases: cores whose counters fall out of step (the
/// reason a kernel stops trusting the TSC) can make a millisecond come out late by
/// their difference while it is under 50 µs (75 µs when reads of the system clock are
/// slow), and a larger difference, or a counter whose rate drops unnoticed, is caught
/// at the next system-clock read; a counter caught twice within a minute is never used
/// again.
///
/// It holds no lock, and waits for another thread's read of the system clock for 20 µs
/// at most: it may be called from a signal handler, also one that interrupts it on the
/// same thread, in a child forked at any moment, and in thread-local destructors and
/// `atexit` handlers (`tests/late_calls.rs`, `tests/signals.rs`).
///
/// ```
/// use scru128::{Clock, SystemClock};
/// assert!(SystemClock.unix_ts_ms() > scru128::TIMESTAMP_BIAS);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        now_ms()
    }

    #[inline]
    fn __unix_ts_ms_at_hand(&mut self) -> Option<u64> {
        // The anchor's millisecond; elsewhere every read is a call.
        #[cfg(all(unix, target_arch = "x86_64"))]
        return tsc::CLOCK.cached_now();
        #[cfg(not(all(unix, target_arch = "x86_64")))]
        None
    }
}

/// Current Unix time in milliseconds (0 before 1970): the anchor's millisecond inline,
/// anything else out of line.
#[inline]
pub(crate) fn now_ms() -> u64 {
    #[cfg(all(unix, target_arch = "x86_64"))]
    return tsc::CLOCK.now_ms();
    #[cfg(all(unix, not(target_arch = "x86_64")))]
    return realtime().0;
    #[cfg(not(unix))]
    crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap_or(0)
}

/// The process clock's anchor now, and its millisecond, if it has a window (else the
/// anchor that never holds, 0). For `scru128()`, which notes it in a block whose
/// range holds that millisecond.
#[inline]
pub(crate) fn anchor() -> (u128, u64) {
    #[cfg(all(unix, target_arch = "x86_64"))]
    {
        let anchor = tsc::CLOCK.anchor();
        if anchor.window() > 0 {
            return (anchor.0, anchor.ms());
        }
    }
    (0, 0)
}

/// Whether the process clock's anchor is still `noted` (from [`anchor`]) and the TSC
/// inside its window: then [`now_ms`] gives that anchor's millisecond.
#[inline]
pub(crate) fn anchor_current(noted: u128) -> bool {
    #[cfg(all(unix, target_arch = "x86_64"))]
    return tsc::CLOCK.is_current(crate::tsc_clock::Anchor(noted));
    #[cfg(not(all(unix, target_arch = "x86_64")))]
    {
        let _ = noted;
        false
    }
}

/// For the crate's tests (`scru128::__private`): whether the process clock may still
/// use the TSC (never where the CPU or kernel does not allow it, nor after it gave the
/// counter up), and whether its anchor has a window (a confirmed rate).
pub(crate) fn tsc_shortcut() -> (bool, bool) {
    #[cfg(all(unix, target_arch = "x86_64"))]
    {
        let usable = tsc::present();
        return (usable, usable && tsc::CLOCK.anchor().window() > 0);
    }
    #[allow(unreachable_code)]
    (false, false)
}

/// Whether this CPU has the 16-byte atomics the TSC shortcut's words need.
#[cfg(all(test, unix, target_arch = "x86_64"))]
pub(crate) fn has_atomic_128() -> bool {
    tsc::atomic_128()
}

/// `CLOCK_REALTIME`: Unix milliseconds and the nanoseconds into that millisecond.
#[cfg(unix)]
fn realtime() -> (u64, u32) {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable `timespec` for the duration of the call.
    // Reading CLOCK_REALTIME directly skips `SystemTime`'s `duration_since` and u128
    // arithmetic. Tested by `the_real_sources_agree_with_system_time`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut now) };
    if rc != 0 {
        return (0, 0);
    }
    #[allow(clippy::useless_conversion)] // `time_t` and `c_long` are not i64 everywhere
    from_timespec(i64::from(now.tv_sec), i64::from(now.tv_nsec))
}

/// Milliseconds and nanoseconds into the millisecond of a `timespec`, computing
/// milliseconds directly (nanoseconds since 1970 pass `u64::MAX` in the year 2554): 0
/// before 1970, `u64::MAX` ms past the range of a `u64` (both are clocks out of range
/// for a generator).
#[cfg(unix)]
const fn from_timespec(secs: i64, nanos: i64) -> (u64, u32) {
    if secs < 0 || nanos < 0 || nanos >= 1_000_000_000 {
        return (0, 0);
    }
    // Both checked non-negative above.
    #[allow(clippy::cast_sign_loss)]
    let (secs, nanos) = (secs as u64, nanos as u64);
    let ms = match secs.checked_mul(1_000) {
        Some(ms) => ms.saturating_add(nanos / 1_000_000),
        None => u64::MAX,
    };
    (ms, (nanos % 1_000_000) as u32)
}

/// The process clock with the TSC shortcut, and its real sources: `rdtsc` where the
/// CPU has an invariant TSC that the kernel keeps time with (and the 16-byte atomics),
/// `CLOCK_REALTIME` and `CLOCK_MONOTONIC`.
#[cfg(all(unix, target_arch = "x86_64"))]
mod tsc {
    use core::sync::atomic::{AtomicU8, Ordering};

    use crate::tsc_clock::{ProcessClock, TimeSources};

    /// The clock of this process.
    pub(super) static CLOCK: ProcessClock<SystemSources> = ProcessClock::new(SystemSources);

    pub(super) struct SystemSources;

    impl TimeSources for SystemSources {
        #[inline]
        fn tsc(&self) -> Option<u64> {
            present().then(|| self.tsc_unchecked())
        }

        #[inline]
        fn tsc_unchecked(&self) -> u64 {
            // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter
            // (the floor lines of `scripts/bench-ratios` say what it costs). The logic
            // around it is tested with simulated counters in `tsc_clock`'s tests, the
            // real counter by `the_real_sources_agree_with_system_time` and
            // `tests/clock_steps.rs`.
            unsafe { core::arch::x86_64::_rdtsc() }
        }

        #[inline]
        fn unix_time(&self) -> (u64, u32) {
            super::realtime()
        }

        fn monotonic_ns(&self) -> u64 {
            let mut now = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: as in `realtime`. Read next to the system clock, 7 to 8 times a
            // millisecond. Tested with the rest of the real sources by
            // `the_real_sources_agree_with_system_time`.
            let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut now) };
            if rc != 0 {
                return 0;
            }
            #[allow(clippy::useless_conversion)] // as in `realtime`
            let (secs, nanos) = (i64::from(now.tv_sec), i64::from(now.tv_nsec));
            u64::try_from(secs)
                .ok()
                .and_then(|secs| secs.checked_mul(1_000_000_000))
                .and_then(|ns| ns.checked_add(u64::try_from(nanos).ok()?))
                .unwrap_or(0)
        }

        fn give_up_tsc(&self) {
            STATE.store(NO, Ordering::Relaxed);
        }
    }

    const UNKNOWN: u8 = 0;
    const YES: u8 = 1;
    const NO: u8 = 2;
    /// Whether the shortcut may be used: found out once, set to `NO` when it is given up.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    #[inline]
    pub(super) fn present() -> bool {
        match STATE.load(Ordering::Relaxed) {
            YES => true,
            NO => false,
            _ => detect(),
        }
    }

    /// The CPU's invariant TSC (`CPUID` leaf `8000_0007h`, EDX bit 8), 16-byte atomics
    /// (`cmpxchg16b`, leaf 1 ECX bit 13; and AVX, leaf 1 ECX bit 28, with which Intel
    /// and AMD make aligned 16-byte loads atomic), and a kernel that keeps time with
    /// the TSC (it has then checked that the counters of all cores agree).
    #[cold]
    fn detect() -> bool {
        let present = atomic_128() && invariant_tsc() && kernel_clocksource_is_tsc();
        // Two threads that check at once come to the same answer.
        match STATE.compare_exchange(
            UNKNOWN,
            if present { YES } else { NO },
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => present,
            Err(state) => state == YES,
        }
    }

    pub(super) fn atomic_128() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: `cpuid` exists on every x86-64 CPU; leaf 1 always does. (`__cpuid` is
        // a safe function in newer Rust, an unsafe one in the oldest we support.)
        #[allow(unused_unsafe)]
        let ecx = unsafe { __cpuid(1).ecx };
        ecx & (1 << 13) != 0 && ecx & (1 << 28) != 0
    }

    fn invariant_tsc() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: as in `atomic_128`; leaf 8000_0007h is read only after leaf
        // 8000_0000h says that it exists.
        #[allow(unused_unsafe)]
        unsafe {
            __cpuid(0x8000_0000).eax >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
        }
    }

    /// Reads the kernel's current clocksource without allocating.
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

    /// When the program or library is loaded: whether the TSC can be used. That reads
    /// the kernel's clocksource from `/sys`, which a sandbox set up later (seccomp)
    /// might forbid; no ID call ever opens a file after this
    /// (`tests/sandboxed_process.rs`). Where there is no load-time hook, the first use
    /// does it.
    extern "C" fn detect_at_load() {
        let _ = present();
    }

    crate::run_at_load!(DETECT_AT_LOAD = detect_at_load);
}

#[cfg(all(test, unix))]
mod tests {
    use super::{Clock, SystemClock, from_timespec, now_ms};

    fn system_ms() -> u64 {
        crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap()
    }

    #[test]
    fn the_real_sources_agree_with_system_time() {
        for _ in 0..200_000 {
            let before = system_ms();
            let ms = now_ms();
            let after = system_ms();
            assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
        }
    }

    /// Long enough (100 ms) for the TSC shortcut to calibrate and be used, on four
    /// threads at once (two per core here): every reading between two of
    /// `SystemTime` around it, none below one the thread had before.
    #[test]
    fn threads_at_once_read_one_clock() {
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let start = std::time::Instant::now();
                    let mut last = 0;
                    while start.elapsed() < std::time::Duration::from_millis(100) {
                        let before = system_ms();
                        let ours = SystemClock.unix_ts_ms();
                        let after = system_ms();
                        assert!(
                            before <= ours && ours <= after,
                            "{before} <= {ours} <= {after}"
                        );
                        assert!(ours >= last, "{ours} after {last}");
                        last = ours;
                    }
                });
            }
        });
    }

    /// Issue 10, defect 8: nanoseconds since 1970 overflow a `u64` in 2554; the
    /// conversion works in milliseconds up to the end of the SCRU128 range (2577).
    #[test]
    #[allow(clippy::cast_sign_loss)]
    fn years_2554_to_2577_are_read_right() {
        // 2554-07-21T23:34:33Z is where u64 nanoseconds end.
        for (secs, nanos) in [
            (18_446_744_073, 709_551_615),
            (18_446_744_074, 0),
            (18_617_184_000, 999_999_999),
            (19_169_078_399, 5),
        ] {
            let (ms, sub_ms_ns) = from_timespec(secs, nanos);
            assert_eq!(
                u128::from(ms),
                (secs as u128 * 1_000_000_000 + nanos as u128) / 1_000_000
            );
            assert_eq!(u64::from(sub_ms_ns), nanos as u64 % 1_000_000);
        }
        assert_eq!(from_timespec(i64::MAX, 0).0, u64::MAX);
        assert_eq!(from_timespec(-1, 0).0, 0);
        assert_eq!(from_timespec(5, 1_000_000_000).0, 0);
    }
}
