//! What a generator draws on: the [`RandomSource`] and [`Clock`] traits. The defaults,
//! [`DefaultRng`](crate::DefaultRng) and [`SystemClock`](crate::SystemClock) (feature
//! `std`), are in `default_rng.rs` and `system_clock.rs`.

/// A source of uniformly distributed random 32-bit numbers for a generator.
///
/// The `counter` reset value, `per_sec_random` and `per_gen_random` are drawn from
/// it. For IDs that are unpredictable, as the SCRU128 spec asks, use a
/// cryptographically secure generator such as [`DefaultRng`](crate::DefaultRng). Any `FnMut() -> u32`
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
    /// through it, so that it has no call to make (a call there makes it save four
    /// registers at every ID); the default is `next_u32` itself. Not part of the
    /// stable API: implement `next_u32` only.
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
    /// clock through it, as it draws through `RandomSource::__next_u32_at_hand`; the
    /// default is `unix_ts_ms` itself. Not part of the stable API: implement
    /// `unix_ts_ms` only.
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
