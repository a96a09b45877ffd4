//! What a generator draws on: a [`RandomSource`] and a [`Clock`], with the defaults
//! [`DefaultRng`] and [`SystemClock`] (feature `std`).

#[cfg(feature = "std")]
use crate::fork;

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

    /// The number [`next_u32`](Self::next_u32) would return next, if it can be had
    /// without a call (a buffered word); `None` leaves it to `next_u32`. The fast path
    /// of [`Scru128Generator::generate`](crate::Scru128Generator::generate) draws
    /// through it, so that it has no call to make; the default is `next_u32` itself.
    /// Not part of the stable API: implement `next_u32` only.
    #[doc(hidden)]
    #[inline]
    fn __next_u32_at_hand(&mut self) -> Option<u32> {
        Some(self.next_u32())
    }

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

    /// Returns a random number of `bits` bits (0 to 32), below `2^bits`. A generator
    /// draws its 28-bit `counter` values and its 24-bit `per_sec_random` through it,
    /// and `per_gen_random` through [`next_u32`](Self::next_u32).
    ///
    /// The default keeps the low `bits` bits of one `next_u32`. Override it for a
    /// source that makes numbers of a given width itself, such as Python's
    /// `getrandbits(k)` (the Python package passes the width on, as scru128 1.0.1 did).
    /// A generator keeps only the low `bits` bits of what it returns.
    ///
    /// ```
    /// use scru128::RandomSource;
    ///
    /// let mut all_ones = || u32::MAX;
    /// assert_eq!(all_ones.next_bits(24), 0xff_ffff);
    /// assert_eq!(all_ones.next_bits(32), u32::MAX);
    /// assert_eq!(all_ones.next_bits(0), 0);
    /// ```
    #[inline]
    fn next_bits(&mut self, bits: u32) -> u32 {
        self.next_u32() & low_bits(bits)
    }
}

/// The mask of the low `bits` bits of a `u32` (all of them from 32 on).
#[inline]
pub(crate) const fn low_bits(bits: u32) -> u32 {
    match u32::MAX.checked_shr(32u32.saturating_sub(bits)) {
        // a shift by 32 (bits == 0) keeps nothing
        Some(mask) => mask,
        None => 0,
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

    /// [`unix_ts_ms`](Self::unix_ts_ms) if it can be had without a call; `None` leaves
    /// it to `unix_ts_ms`. The fast path of
    /// [`Scru128Generator::generate`](crate::Scru128Generator::generate) reads the
    /// clock through it; the default is `unix_ts_ms` itself. Not part of the stable
    /// API: implement `unix_ts_ms` only.
    #[doc(hidden)]
    #[inline]
    fn __unix_ts_ms_at_hand(&mut self) -> Option<u64> {
        Some(self.unix_ts_ms())
    }
}

impl<F: FnMut() -> u64> Clock for F {
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        self()
    }
}

/// The system's wall clock ([`SystemTime::now`](std::time::SystemTime::now)).
///
/// On Unix it reads `CLOCK_REALTIME` through one clock shared by every thread of the
/// process (the clock of [`scru128()`](crate::scru128) too). On x86-64 Linux with an
/// invariant TSC that the kernel keeps time with, that clock skips the system call
/// while the CPU's time-stamp counter proves that the millisecond of the last read
/// has not ended yet: about 8 ns instead of 19 ns (Intel Xeon; 10 and 24 ns on
/// an AMD EPYC), and the system clock is read 7 to 8 times per millisecond for the
/// whole process (every call reads it for the first 4-5 ms, until the counter's rate
/// is confirmed). Every value is a millisecond the system clock showed during the
/// call, and no thread is given a millisecond older
/// than one another thread was already given (unless the system clock itself went
/// back): a generator moved between threads sees one clock. After the system clock is
/// stepped, the old millisecond can still come for less than 1 ms, in every thread
/// alike; steps, NTP's corrections and chrony's slews never give the shortcut up (a
/// slew that starts pauses it for a few milliseconds). Its other worst cases: cores
/// whose counters fall out of step (the reason a kernel stops trusting the TSC) can
/// make a millisecond come out late by their difference while it is under 50 µs (75 µs
/// when reads of the system clock are slow), and a larger difference, or a counter
/// whose rate drops unnoticed, is caught at the next system-clock read; a counter
/// caught twice within a minute is never used again. A call that interrupts the clock's own read on the same thread
/// (a signal handler) reads `CLOCK_REALTIME` directly.
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
    #[cfg(unix)]
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        crate::process_clock::now_ms()
    }

    #[cfg(unix)]
    #[inline]
    fn __unix_ts_ms_at_hand(&mut self) -> Option<u64> {
        crate::process_clock::now_ms_at_hand()
    }

    #[cfg(not(unix))]
    #[inline]
    fn unix_ts_ms(&mut self) -> u64 {
        crate::id::system_time_to_unix_ms(std::time::SystemTime::now()).unwrap_or(0)
    }
}

/// The default random source: `ChaCha12` (the algorithm of `rand`'s `StdRng`), seeded
/// from the operating system's random source and reseeded in a child process after
/// `fork()`, so that parent and child never share random numbers (also when the first
/// reseed in the child fails and the panic is caught: the next draw tries again).
///
/// It is deliberately not `Clone`: two copies would yield the same numbers.
///
/// ```
/// use scru128::{DefaultRng, RandomSource};
/// let mut rng = DefaultRng::new();
/// let _ = rng.next_u32();
/// ```
/// Two sources are equal when they will yield the same numbers (scru128 1.0.0's
/// generator was `PartialEq`, so a generator over this source is too).
#[cfg(feature = "std")]
#[derive(PartialEq, Eq)]
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
        let epoch = fork::epoch();
        if self.fork_epoch != epoch {
            // After a fork the buffered words and the core are the parent's too. The
            // new seed first: if the OS random source fails (a panic), nothing says the
            // fork was handled, and a caught retry reseeds again instead of going on
            // with the parent's stream.
            self.next = self.buf.len();
            self.core = os_seeded();
            self.fork_epoch = epoch;
        }
        rand_core::block::Generator::generate(&mut self.core, &mut self.buf);
        self.next = 0;
    }
}

/// Fills `dest` from the operating system's random source.
///
/// # Panics
///
/// Panics if it fails, rather than fall back to a weak seed.
#[cfg(feature = "std")]
pub(crate) fn os_random(dest: &mut [u8]) {
    if let Err(err) = getrandom::fill(dest) {
        panic!(
            "scru128: the operating system's random source failed ({err}); refusing a weak seed"
        );
    }
}

#[cfg(feature = "std")]
fn os_seeded() -> rand_chacha::ChaCha12Core {
    let mut seed = [0u8; 32];
    os_random(&mut seed);
    rand_core::SeedableRng::from_seed(seed)
}

#[cfg(feature = "std")]
impl Default for DefaultRng {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl DefaultRng {
    /// `next_u32` for a caller that has just read the fork count `epoch` (the
    /// process-wide generator): one read of it per ID, not two.
    /// The next buffered word, if one is left and no fork came since the buffer was
    /// filled (fork count `epoch`); else `None` (then [`next_u32_at`](Self::next_u32_at)).
    #[inline]
    pub(crate) fn buffered_u32(&mut self, epoch: u32) -> Option<u32> {
        let word = *self.buf.get(self.next)?;
        if self.fork_epoch != epoch {
            return None;
        }
        self.next += 1;
        Some(word)
    }

    #[inline]
    pub(crate) fn next_u32_at(&mut self, epoch: u32) -> u32 {
        // After a fork the buffered words are the parent's too: drop them.
        if self.next >= self.buf.len() || self.fork_epoch != epoch {
            self.refill();
        }
        let word = self.buf[self.next];
        self.next += 1;
        word
    }
}

#[cfg(feature = "std")]
impl RandomSource for DefaultRng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.next_u32_at(fork::epoch())
    }

    #[inline]
    fn __next_u32_at_hand(&mut self) -> Option<u32> {
        // The count as stored: 0 in a child that has not taken its own fails the
        // comparison with the buffer's (from `fork::watch` or `fork::epoch`, never 0).
        self.buffered_u32(fork::count_now())
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
