//! What a generator draws on: a [`RandomSource`] and a [`Clock`], with the defaults
//! [`DefaultRng`] and [`SystemClock`] (feature `std`).

/// A source of uniformly distributed random 32-bit numbers for a generator.
///
/// The `counter` reset value, `per_sec_random` and `per_gen_random` are drawn from
/// it. For IDs that are unpredictable, as the SCRU128 spec asks, use a
/// cryptographically secure generator such as [`DefaultRng`]. Any `FnMut() -> u32`
/// closure is a source, which suits tests and simulations.
///
/// ```
/// use scru128::{RandomSource, Scru128Generator};
///
/// struct Xorshift(u32);
/// impl RandomSource for Xorshift {
///     fn next_u32(&mut self) -> u32 {
///         self.0 ^= self.0 << 13;
///         self.0 ^= self.0 >> 17;
///         self.0 ^= self.0 << 5;
///         self.0
///     }
/// }
///
/// let mut g = Scru128Generator::with_rng_and_clock(Xorshift(1), || 1_700_000_000_000u64);
/// assert!(g.generate() < g.generate());
/// ```
pub trait RandomSource {
    /// Returns the next random number; every bit must be uniformly distributed.
    fn next_u32(&mut self) -> u32;

    /// Fills `dest` with the numbers that `next_u32` would return next, in order.
    /// [`Scru128Generator::fill`](crate::Scru128Generator::fill) draws through it;
    /// override it when a batch is cheaper than one number at a time.
    ///
    /// ```
    /// use scru128::RandomSource;
    ///
    /// let mut n = 0u32;
    /// let mut counting = move || { n += 1; n };
    /// let mut dest = [0u32; 3];
    /// counting.fill_u32(&mut dest);
    /// assert_eq!(dest, [1, 2, 3]);
    /// ```
    fn fill_u32(&mut self, dest: &mut [u32]) {
        for slot in dest {
            *slot = self.next_u32();
        }
    }
}

impl<F: FnMut() -> u32> RandomSource for F {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self()
    }
}

/// A clock that tells the current time in Unix milliseconds.
///
/// Any `FnMut() -> u64` closure is a clock, which makes tests deterministic.
///
/// ```
/// use scru128::Scru128Generator;
///
/// let mut now = 1_700_000_000_000u64;
/// let mut g = Scru128Generator::with_rng_and_clock(|| 7u32, move || { now += 1; now });
/// let (a, b) = (g.generate(), g.generate());
/// assert_eq!(b.unix_ts_ms() - a.unix_ts_ms(), 1);
/// ```
pub trait Clock {
    /// Returns the current Unix time in milliseconds (0 if it is before 1970).
    fn unix_ts_ms(&mut self) -> u64;
}

impl<F: FnMut() -> u64> Clock for F {
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        self()
    }
}

/// The system's wall clock ([`SystemTime::now`](std::time::SystemTime::now)).
///
/// On Unix it reads `CLOCK_REALTIME`, and on x86-64 Linux with an invariant TSC (and
/// the kernel's `tsc` clocksource) it skips that read while the CPU's time-stamp
/// counter proves that the millisecond of the last read has not ended yet: about 10 ns
/// instead of 23 ns here. Every value is a millisecond the system clock showed at or
/// before the call (after the clock is stepped, the old millisecond can still come
/// for up to 1 ms). It is the shortcut of [`scru128()`](crate::scru128); each thread
/// keeps its own, and a call that interrupts another on the same thread (a signal
/// handler) reads `CLOCK_REALTIME` directly.
///
/// ```
/// use scru128::{Clock, SystemClock};
/// assert!(SystemClock.unix_ts_ms() > scru128::TIMESTAMP_BIAS);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    #[cfg(all(unix, target_arch = "x86_64"))]
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        crate::tsc_clock::thread_unix_ts_ms()
    }

    #[cfg(all(unix, not(target_arch = "x86_64")))]
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        realtime_ns() / 1_000_000
    }

    #[cfg(not(unix))]
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap_or(0)
    }
}

/// `CLOCK_REALTIME` in Unix nanoseconds (0 before 1970 or on failure).
#[cfg(all(feature = "std", unix))]
#[inline]
pub(crate) fn realtime_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable `timespec` for the duration of the call.
    // Reading CLOCK_REALTIME directly skips `SystemTime`'s `duration_since` and u128
    // arithmetic, about 50 instructions per ID (benches/compare.rs). Tested by
    // `system_clock_agrees_with_system_time`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut now) };
    match (rc, u64::try_from(now.tv_sec), u64::try_from(now.tv_nsec)) {
        (0, Ok(secs), Ok(nanos)) => secs * 1_000_000_000 + nanos,
        _ => 0,
    }
}

/// The default random source: `ChaCha12` (the algorithm of `rand`'s `StdRng`), seeded
/// from the operating system's random source and reseeded in a child process after
/// `fork()`, so that parent and child never share random numbers.
///
/// It is deliberately not `Clone`: two copies would yield the same numbers.
///
/// ```
/// use scru128::{DefaultRng, RandomSource};
/// let mut rng = DefaultRng::new();
/// let _ = rng.next_u32();
/// ```
#[cfg(feature = "std")]
pub struct DefaultRng {
    core: rand_chacha::ChaCha12Core,
    /// Output of the last block computation; `buf[next..]` is unread.
    buf: [u32; 64],
    next: usize,
    fork_epoch: u32,
}

#[cfg(feature = "std")]
impl DefaultRng {
    /// Creates a source seeded from the operating system.
    ///
    /// # Panics
    ///
    /// Panics if the operating system's random source fails, rather than fall back
    /// to a weak seed.
    pub fn new() -> Self {
        let fork_epoch = fork::watch();
        Self {
            core: os_seeded(),
            buf: [0; 64],
            next: 64,
            fork_epoch,
        }
    }

    /// Computes the next 64 words. Kept out of line so that the per-ID path stays
    /// small enough to inline.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        if self.fork_epoch != fork::epoch() {
            self.fork_epoch = fork::epoch();
            self.core = os_seeded();
        }
        rand_core::block::Generator::generate(&mut self.core, &mut self.buf);
        self.next = 0;
    }
}

#[cfg(feature = "std")]
fn os_seeded() -> rand_chacha::ChaCha12Core {
    let mut seed = [0u8; 32];
    if let Err(err) = getrandom::fill(&mut seed) {
        panic!(
            "scru128: the operating system's random source failed ({err}); refusing a weak seed"
        );
    }
    rand_core::SeedableRng::from_seed(seed)
}

#[cfg(feature = "std")]
impl Default for DefaultRng {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl RandomSource for DefaultRng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        // After a fork the buffered words are the parent's too: drop them.
        if self.next >= self.buf.len() || self.fork_epoch != fork::epoch() {
            self.refill();
        }
        let word = self.buf[self.next];
        self.next += 1;
        word
    }

    fn fill_u32(&mut self, mut dest: &mut [u32]) {
        while !dest.is_empty() {
            if self.next >= self.buf.len() || self.fork_epoch != fork::epoch() {
                self.refill();
            }
            let available = &self.buf[self.next..];
            let n = available.len().min(dest.len());
            let (head, tail) = dest.split_at_mut(n);
            head.copy_from_slice(&available[..n]);
            self.next += n;
            dest = tail;
        }
    }
}

#[cfg(feature = "std")]
impl core::fmt::Debug for DefaultRng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("DefaultRng { .. }")
    }
}

/// Counts `fork()`s, so that state copied into a child process can be told apart.
#[cfg(all(feature = "std", unix))]
pub(crate) mod fork {
    use core::sync::atomic::{AtomicU32, Ordering};

    static EPOCH: AtomicU32 = AtomicU32::new(0);

    extern "C" fn on_fork_in_child() {
        // Only an atomic add: async-signal-safe, as a fork handler must be.
        EPOCH.fetch_add(1, Ordering::Relaxed);
    }

    /// Makes sure forks are counted from now on; returns the current count.
    pub(crate) fn watch() -> u32 {
        static REGISTER: std::sync::Once = std::sync::Once::new();
        REGISTER.call_once(|| {
            // SAFETY: `pthread_atfork` only stores the handler; the handler is a plain
            // `extern "C" fn` with no captured state that does one atomic add. Tested
            // by the fork tests in `tests/global_gen.rs` and `generator.rs`.
            let rc = unsafe { libc::pthread_atfork(None, None, Some(on_fork_in_child)) };
            assert!(
                rc == 0,
                "scru128: pthread_atfork failed with {rc}; cannot detect fork()"
            );
        });
        epoch()
    }

    /// Number of forks seen in this process's ancestry since [`watch`] was first called.
    #[inline]
    pub(crate) fn epoch() -> u32 {
        // In a child the handler ran on this very thread before `fork` returned.
        EPOCH.load(Ordering::Relaxed)
    }
}

/// Without `fork()` there is nothing to count.
#[cfg(all(feature = "std", not(unix)))]
pub(crate) mod fork {
    pub(crate) fn watch() -> u32 {
        0
    }

    #[inline]
    pub(crate) fn epoch() -> u32 {
        0
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::{Clock, SystemClock};

    /// Long enough (100 ms) for the TSC shortcut to calibrate and be used, on two
    /// threads at once.
    #[test]
    fn system_clock_agrees_with_system_time() {
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let start = std::time::Instant::now();
                    while start.elapsed() < std::time::Duration::from_millis(100) {
                        let now = || std::time::SystemTime::now();
                        let before = crate::id::system_time_to_unix_ms(now()).unwrap();
                        let ours = SystemClock.unix_ts_ms();
                        let after = crate::id::system_time_to_unix_ms(now()).unwrap();
                        assert!(
                            before <= ours && ours <= after,
                            "{before} <= {ours} <= {after}"
                        );
                    }
                });
            }
        });
    }
}
