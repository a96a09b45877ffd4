//! [`RandCoreSource`]: any `rand_core` 0.10 random generator as a [`RandomSource`]
//! (feature `rand_core`, also without `std`).

use crate::RandomSource;

/// Lets any [`rand_core::Rng`] (version 0.10) drive a
/// [`Scru128Generator`](crate::Scru128Generator): `rand`'s `StdRng` or `ThreadRng`,
/// `rand_chacha`, a seeded generator for reproducible tests, a hardware RNG…
///
/// Each [`RandomSource::next_u32`] call is one [`rand_core::Rng::next_u32`] call. The
/// SCRU128 spec wants IDs that cannot be predicted: for production IDs use a
/// cryptographically secure generator ([`rand_core::CryptoRng`]) seeded from the
/// operating system. A seeded generator gives the same IDs for the same clock readings,
/// which suits tests and simulations. `&mut R` works too, to lend a generator you keep.
///
/// It is deliberately not `Clone`, like `DefaultRng`: two copies
/// would draw the same numbers.
///
/// ```
/// use rand_chacha::ChaCha20Rng;
/// use rand_core::SeedableRng;
/// use scru128::{RandCoreSource, Scru128Generator};
///
/// let make = || {
///     let rng = RandCoreSource::new(ChaCha20Rng::seed_from_u64(42));
///     Scru128Generator::with_rng_and_clock(rng, || 1_700_000_000_000u64)
/// };
/// let (mut a, mut b) = (make(), make());
/// let first = a.generate();
/// assert_eq!(first, b.generate()); // same seed, same clock: same IDs
/// assert!(a.generate() > first);
/// ```
#[derive(Debug, Default)]
pub struct RandCoreSource<R>(pub R);

impl<R> RandCoreSource<R> {
    /// Wraps `rng`.
    ///
    /// ```
    /// use rand_core::SeedableRng;
    /// let source = scru128::RandCoreSource::new(rand_chacha::ChaCha8Rng::seed_from_u64(1));
    /// let mut g = scru128::Scru128Generator::with_rng_and_clock(source, || 1_700_000_000_000u64);
    /// assert_eq!(g.generate().unix_ts_ms(), 1_700_000_000_000);
    /// ```
    pub const fn new(rng: R) -> Self {
        Self(rng)
    }

    /// Returns the wrapped generator.
    ///
    /// ```
    /// use rand_core::{Rng, SeedableRng};
    /// use scru128::{RandCoreSource, RandomSource};
    ///
    /// let mut source = RandCoreSource::new(rand_chacha::ChaCha8Rng::seed_from_u64(1));
    /// let first = source.next_u32();
    /// let mut again = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    /// assert_eq!(again.next_u32(), first);
    /// assert_eq!(source.into_inner().next_u32(), again.next_u32());
    /// ```
    pub fn into_inner(self) -> R {
        self.0
    }
}

impl<R> From<R> for RandCoreSource<R> {
    /// Same as [`RandCoreSource::new`].
    ///
    /// ```
    /// use rand_core::SeedableRng;
    /// let source: scru128::RandCoreSource<_> = rand_chacha::ChaCha8Rng::seed_from_u64(1).into();
    /// # let _ = source;
    /// ```
    fn from(rng: R) -> Self {
        Self(rng)
    }
}

impl<R: rand_core::Rng> RandomSource for RandCoreSource<R> {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
}
