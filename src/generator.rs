//! [`Scru128Generator`]: the rules of SPEC section 3 (`rules.rs`) over a random source
//! and a clock of the user's, with the fork check of feature `std`.

use core::fmt;

use crate::error::GenerateError;
use crate::id::Scru128Id;
use crate::rules::{State, timestamp_from_clock};
use crate::sources::{Clock, RandomSource};

/// After a fork, a per-process stream that every draw of a generator's random source
/// is mixed with, so that forked processes do not repeat each other's numbers with a
/// source that cannot reseed itself (a seeded PRNG or a closure copied by `fork()`).
/// `None` until the generator sees its first fork; then `SplitMix64` seeded with 64
/// bits from the operating system, fresh in every process.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ForkSalt(Option<u64>);

#[cfg(feature = "std")]
impl ForkSalt {
    /// No fork seen yet: draws pass unchanged.
    const NONE: Self = Self(None);

    /// A fresh salt for this process.
    ///
    /// # Panics
    ///
    /// If the operating system's random source fails.
    fn fresh() -> Self {
        let mut seed = [0u8; 8];
        crate::default_rng::os_random(&mut seed);
        Self(Some(u64::from_le_bytes(seed)))
    }

    #[inline]
    fn mix(&mut self, draw: u32) -> u32 {
        match &mut self.0 {
            None => draw,
            Some(state) => {
                *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = *state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                draw ^ ((z ^ (z >> 31)) >> 32) as u32
            }
        }
    }

    fn is_active(&self) -> bool {
        self.0.is_some()
    }
}

/// Without `std` there is no fork detection, and nothing to mix in.
#[cfg(not(feature = "std"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ForkSalt;

#[cfg(not(feature = "std"))]
#[allow(clippy::unused_self, clippy::trivially_copy_pass_by_ref)] // the same calls as with std
impl ForkSalt {
    const NONE: Self = Self;

    #[inline]
    fn mix(&mut self, draw: u32) -> u32 {
        draw
    }

    fn is_active(&self) -> bool {
        false
    }
}

/// A generator's random source as it is drawn from: through the fork salt.
struct Salted<'a, R> {
    rng: &'a mut R,
    salt: &'a mut ForkSalt,
}

impl<R: RandomSource> RandomSource for Salted<'_, R> {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.salt.mix(self.rng.next_u32())
    }

    fn fill_u32(&mut self, dest: &mut [u32]) {
        self.rng.fill_u32(dest);
        if self.salt.is_active() {
            for draw in dest {
                *draw = self.salt.mix(*draw);
            }
        }
    }

    #[inline]
    fn next_bits(&mut self, bits: u32) -> u32 {
        self.salt.mix(self.rng.next_bits(bits)) & crate::sources::low_bits(bits)
    }
}

/// A fork count (nothing without `std`, which has no fork detection): the one a
/// generator last made an ID under, and the one it read before an ID.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ForkEpoch(u32);
#[cfg(not(feature = "std"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ForkEpoch;

/// A SCRU128 generator: the state of SPEC section 3 over a random source `R` and a
/// clock `C`.
///
/// The IDs of one generator strictly increase, as integers and as text; within one
/// timestamp the counter rises by exactly one per ID. The rules, for each ID, with
/// `now` read from the clock and `last` the timestamp of the previous ID:
///
/// 1. `now > last`: the ID takes `now` and a fresh random counter.
/// 2. `now ≤ last`, and the clock has not gone back by more than the rollback
///    allowance (default 10 000 ms,
///    [`set_rollback_allowance`](Self::set_rollback_allowance)): it keeps `last` and
///    the counter goes up by one.
/// 3. If the counter would pass 2^28−1, the ID takes `last + 1` and a fresh random
///    counter: the generator never blocks. The timestamp can so run ahead of the
///    clock, by 1 ms per 2^28 IDs (or faster, with a broken random source that keeps
///    drawing counters near the top); running ahead is never taken for a rollback.
/// 4. The clock went back by more than the allowance — measured from its latest
///    reading (or from the ID given to [`resume_after`](Self::resume_after)), not
///    from `last`: [`generate`](Self::generate) and the other resetting methods
///    start again from `now` (order with the IDs before is then broken); the
///    `*_or_abort` methods return [`GenerateError::ClockRollback`] and change
///    nothing.
/// 5. `per_sec_random` is renewed at the first ID, after a reset, and whenever the
///    timestamp is 1000 ms or more past that of the last renewal.
/// 6. `per_gen_random` is fresh for every ID.
/// 7. A clock before 2020-01-01T00:00:00.001Z, or at or after the last
///    representable millisecond, is an error ([`GenerateError::ClockOutOfRange`]);
///    the reserved timestamps 0 and 2^44−1 are never generated.
///
/// With feature `std` on Unix, a generator copied into a child by `fork()` notices
/// it at its next ID: it moves on by one millisecond with a fresh counter and a fresh
/// `per_sec_random`, and from then on mixes every number it draws from its random
/// source with a stream seeded from the operating system in that process
/// ([`DefaultRng`](crate::DefaultRng) also reseeds itself). So parent and children do
/// not repeat each other, whatever the random source: a seeded PRNG or a closure
/// copied by `fork()` would otherwise give every process the same numbers. (A
/// deterministic source therefore stops being deterministic in a forked child.)
///
/// # Examples
///
/// ```
/// use scru128::Scru128Generator;
///
/// let mut g = Scru128Generator::new();
/// let a = g.generate();
/// let b = g.generate();
/// assert!(a < b);
/// ```
///
/// Deterministic, with a random source and a clock of your own (also in `no_std`):
///
/// ```
/// use scru128::Scru128Generator;
///
/// let mut g = Scru128Generator::with_rng_and_clock(|| 0x0123_4567u32, || 1_700_000_000_000u64);
/// let a = g.generate();
/// let b = g.generate();
/// assert_eq!(a.unix_ts_ms(), 1_700_000_000_000);
/// assert_eq!((a.counter(), b.counter()), (0x0123_4567, 0x0123_4568));
/// ```
// `PartialEq`/`Eq` as scru128 1.0.0's generator had them: two generators are equal
// when their states, random sources and clocks are.
#[cfg(feature = "std")]
#[derive(Clone, PartialEq, Eq)]
pub struct Scru128Generator<R = crate::DefaultRng, C = crate::SystemClock> {
    state: State,
    salt: ForkSalt,
    /// The fork count the state was last used under.
    fork_epoch: ForkEpoch,
    rng: R,
    clock: C,
}

/// A SCRU128 generator over a random source `R` and a clock `C`; see the crate docs.
#[cfg(not(feature = "std"))]
#[derive(Clone, PartialEq, Eq)]
pub struct Scru128Generator<R, C> {
    state: State,
    salt: ForkSalt,
    /// The fork count the state was last used under.
    fork_epoch: ForkEpoch,
    rng: R,
    clock: C,
}

#[cfg(feature = "std")]
impl Scru128Generator {
    /// Creates a generator with the OS-seeded [`DefaultRng`](crate::DefaultRng) and the
    /// [`SystemClock`](crate::SystemClock).
    ///
    /// # Panics
    ///
    /// Panics if the operating system's random source fails.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// println!("{}", g.generate());
    /// ```
    pub fn new() -> Self {
        Self::with_rng(crate::DefaultRng::new())
    }
}

#[cfg(feature = "std")]
impl Default for Scru128Generator {
    /// Same as [`Scru128Generator::new`].
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl<R: RandomSource> Scru128Generator<R> {
    /// Creates a generator with a random source of your own and the system clock.
    /// For unpredictable IDs the source should be cryptographically secure.
    ///
    /// ```
    /// let mut seed = 1u32;
    /// let mut g = scru128::Scru128Generator::with_rng(move || { seed = seed.wrapping_mul(747796405).wrapping_add(1); seed });
    /// assert!(g.generate() < g.generate());
    /// ```
    pub fn with_rng(rng: R) -> Self {
        Self::with_rng_and_clock(rng, crate::SystemClock)
    }
}

impl<R: RandomSource, C: Clock> Scru128Generator<R, C> {
    /// Creates a generator with a random source and a clock of your own: for tests,
    /// simulations and `no_std`.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::with_rng_and_clock(|| 1u32, || 1_600_000_000_000u64);
    /// assert_eq!(g.generate().unix_ts_ms(), 1_600_000_000_000);
    /// ```
    pub fn with_rng_and_clock(rng: R, clock: C) -> Self {
        Self {
            state: State::new(),
            salt: ForkSalt::NONE,
            // Registers the fork handler if needed.
            #[cfg(feature = "std")]
            fork_epoch: ForkEpoch(crate::fork::watch()),
            #[cfg(not(feature = "std"))]
            fork_epoch: ForkEpoch,
            rng,
            clock,
        }
    }

    /// Whether the state was last used before a fork that brought it into this
    /// process (`epoch`: the current fork count).
    #[cfg(feature = "std")]
    #[inline]
    fn forked(&self, epoch: u32) -> bool {
        self.fork_epoch.0 != epoch
    }

    /// Notices a `fork()` since the last ID (feature `std`, Unix); returns the fork
    /// count, for [`made_here`](Self::made_here).
    #[inline]
    #[cfg_attr(not(feature = "std"), allow(clippy::unused_self))]
    fn check_fork(&mut self) -> ForkEpoch {
        #[cfg(feature = "std")]
        {
            let epoch = crate::fork::epoch();
            if self.forked(epoch) {
                self.after_fork(epoch);
            }
            ForkEpoch(epoch)
        }
        #[cfg(not(feature = "std"))]
        ForkEpoch
    }

    /// Whether the fork count is still `epoch`: no `fork()` came since
    /// [`check_fork`](Self::check_fork) read it. A signal handler may fork while this
    /// generator makes an ID (`fork()` is async-signal-safe); the child then goes on
    /// with the call from a copy of the generator and makes the ID its parent makes,
    /// so the ID is made again where the count moved (issue 29).
    #[inline]
    #[allow(clippy::unused_self, clippy::trivially_copy_pass_by_ref)]
    fn made_here(&self, epoch: ForkEpoch) -> bool {
        #[cfg(feature = "std")]
        return crate::fork::epoch() == epoch.0;
        #[cfg(not(feature = "std"))]
        {
            let _ = epoch;
            true
        }
    }

    /// Whether the state was last used under the fork count there is now, read after
    /// everything before it, also as the compiler orders it (a fork from a signal
    /// handler lands between two instructions of this thread).
    #[inline]
    #[cfg_attr(not(feature = "std"), allow(clippy::unused_self))]
    fn state_made_here(&self) -> bool {
        #[cfg(feature = "std")]
        {
            core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
            // The count as stored: a child's 0 (before it takes its own) differs from
            // the state's, which came from `fork::watch` or `fork::epoch`, never 0.
            // (`watch` may give a value no count equals: then the state looks copied.)
            !self.forked(crate::fork::count_now())
        }
        #[cfg(not(feature = "std"))]
        true
    }

    /// Whether the last ID was made in this process, rather than copied from the
    /// parent by a `fork()` that came after it was made (tests).
    #[cfg(feature = "std")]
    pub(crate) fn last_id_made_here(&self) -> bool {
        !self.forked(crate::fork::epoch())
    }

    /// In a child process: a fresh salt for the random source, then a fresh
    /// millisecond. The salt first: if the OS random source fails (a panic), the fork
    /// is not yet counted as handled, and a caught retry tries again.
    #[cfg(feature = "std")]
    #[cold]
    #[inline(never)]
    fn after_fork(&mut self, epoch: u32) {
        self.salt = ForkSalt::fresh();
        self.state.move_past();
        self.fork_epoch = ForkEpoch(epoch);
    }

    /// Sets how far (in milliseconds) the clock may go back and the generator still
    /// carry on from its last timestamp (default 10 000). A larger step back resets
    /// the generator (in [`generate`](Self::generate)) or is reported (in
    /// [`generate_or_abort`](Self::generate_or_abort)).
    ///
    /// The step back is measured from the clock's latest reading, so an allowance of 0
    /// still lets the timestamp run ahead of the clock after counter overflows.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// g.set_rollback_allowance(60_000);
    /// assert_eq!(g.rollback_allowance(), 60_000);
    /// ```
    pub fn set_rollback_allowance(&mut self, ms: u64) {
        self.state.rollback_allowance = ms;
    }

    /// The rollback allowance in milliseconds.
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Generator::new().rollback_allowance(), 10_000);
    /// ```
    pub fn rollback_allowance(&self) -> u64 {
        self.state.rollback_allowance
    }

    /// Generates a new ID, resetting the generator if the clock went back more than the
    /// rollback allowance (see the type's docs).
    ///
    /// # Panics
    ///
    /// Panics if the clock is outside the range SCRU128 can represent (before
    /// 2020-01-01 or after the year 2577), or if the counter overflows at the last
    /// representable millisecond. [`try_generate`](Self::try_generate) returns these as
    /// errors.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// let id = g.generate();
    /// assert_eq!(id.to_string().len(), 26);
    /// ```
    #[inline]
    #[track_caller]
    pub fn generate(&mut self) -> Scru128Id {
        let reading = self.clock.__unix_ts_ms_at_hand();
        if let Some(id) = reading.and_then(|ms| self.next_in_counter_run(ms)) {
            return id;
        }
        self.generate_slow(reading)
    }

    /// [`generate`](Self::generate) for every case, out of line (see
    /// [`generate_from_clock_slow`](Self::generate_from_clock_slow)).
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn generate_slow(&mut self, reading: Option<u64>) -> Scru128Id {
        let unix_ts_ms = reading.unwrap_or_else(|| self.clock.unix_ts_ms());
        match self.generate_from_clock_slow(unix_ts_ms, true) {
            Ok(id) => id,
            Err(err) => panic!("scru128: {err}"),
        }
    }

    /// Generates a new ID like [`generate`](Self::generate), returning an error instead
    /// of panicking.
    ///
    /// # Errors
    ///
    /// [`GenerateError::ClockOutOfRange`] or [`GenerateError::TimestampExhausted`].
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::with_rng_and_clock(|| 1u32, || 1_000u64);
    /// assert!(g.try_generate().is_err()); // 1970 is before 2020
    /// ```
    #[inline]
    pub fn try_generate(&mut self) -> Result<Scru128Id, GenerateError> {
        let reading = self.clock.__unix_ts_ms_at_hand();
        if let Some(id) = reading.and_then(|ms| self.next_in_counter_run(ms)) {
            return Ok(id);
        }
        let unix_ts_ms = reading.unwrap_or_else(|| self.clock.unix_ts_ms());
        self.generate_from_clock_slow(unix_ts_ms, true)
    }

    /// Generates a new ID, or reports a clock rollback larger than the allowance
    /// instead of resetting; the generator is then unchanged.
    ///
    /// # Errors
    ///
    /// [`GenerateError::ClockRollback`], [`GenerateError::ClockOutOfRange`] or
    /// [`GenerateError::TimestampExhausted`].
    ///
    /// ```
    /// use scru128::{GenerateError, Scru128Generator};
    ///
    /// let mut t = 1_700_000_100_000u64;
    /// let mut g = Scru128Generator::with_rng_and_clock(|| 1u32, move || { t -= 20_000; t });
    /// assert!(g.generate_or_abort().is_ok());
    /// assert!(matches!(g.generate_or_abort(), Err(GenerateError::ClockRollback { .. })));
    /// ```
    #[inline]
    pub fn generate_or_abort(&mut self) -> Result<Scru128Id, GenerateError> {
        let now = self.clock.unix_ts_ms();
        self.generate_from_clock(now, false)
    }

    /// Generates a new ID as if the clock read `unix_ts_ms` (the clock is not read),
    /// resetting on a large rollback like [`generate`](Self::generate).
    ///
    /// # Errors
    ///
    /// [`GenerateError::ClockOutOfRange`] or [`GenerateError::TimestampExhausted`].
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// let id = g.try_generate_at(1_700_000_000_000)?;
    /// assert_eq!(id.unix_ts_ms(), 1_700_000_000_000);
    /// # Ok::<(), scru128::GenerateError>(())
    /// ```
    #[inline]
    pub fn try_generate_at(&mut self, unix_ts_ms: u64) -> Result<Scru128Id, GenerateError> {
        self.generate_from_clock(unix_ts_ms, true)
    }

    /// Generates a new ID as if the clock read `unix_ts_ms`, reporting a large rollback
    /// like [`generate_or_abort`](Self::generate_or_abort).
    ///
    /// # Errors
    ///
    /// As [`generate_or_abort`](Self::generate_or_abort).
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// g.generate_or_abort_at(1_700_000_100_000)?;
    /// assert!(g.generate_or_abort_at(1_700_000_000_000).is_err());
    /// # Ok::<(), scru128::GenerateError>(())
    /// ```
    #[inline]
    pub fn generate_or_abort_at(&mut self, unix_ts_ms: u64) -> Result<Scru128Id, GenerateError> {
        self.generate_from_clock(unix_ts_ms, false)
    }

    #[inline]
    fn generate_from_clock(
        &mut self,
        unix_ts_ms: u64,
        reset_on_rollback: bool,
    ) -> Result<Scru128Id, GenerateError> {
        if let Some(id) = self.next_in_counter_run(unix_ts_ms) {
            return Ok(id);
        }
        self.generate_from_clock_slow(unix_ts_ms, reset_on_rollback)
    }

    /// [`generate_from_clock`](Self::generate_from_clock) for every case, out of line:
    /// the fast path then needs few registers (inlined, this made `generate` save six
    /// at every call).
    #[cold]
    #[inline(never)]
    fn generate_from_clock_slow(
        &mut self,
        unix_ts_ms: u64,
        reset_on_rollback: bool,
    ) -> Result<Scru128Id, GenerateError> {
        let now = timestamp_from_clock(unix_ts_ms)?;
        loop {
            let epoch = self.check_fork();
            let id = self.next_at(now, reset_on_rollback)?;
            if self.made_here(epoch) {
                return Ok(id);
            }
        }
    }

    /// The next ID when it only steps the counter (the common case: same timestamp, a
    /// counter left, no renewal of `per_sec_random` due, no rollback), with the fork
    /// count read once, after the draw: the state carries the count it was last used
    /// under, and one that differs then (a fork before the call, or during it from a
    /// signal handler) leaves the state as it was and sends the call to the general
    /// path, which sees the fork. `None` for every other case, also then.
    #[inline]
    fn next_in_counter_run(&mut self, unix_ts_ms: u64) -> Option<Scru128Id> {
        let now = timestamp_from_clock(unix_ts_ms).ok()?;
        if self.state.counter_run(now) == 0 {
            return None;
        }
        let per_gen = self.salt.mix(self.rng.__next_u32_at_hand()?);
        if !self.state_made_here() {
            return None;
        }
        let (timestamp, counter, per_sec) = self.state.next_counter(now);
        Some(Scru128Id::from_fields_unchecked(
            timestamp, counter, per_sec, per_gen,
        ))
    }

    /// The next ID for the clock reading (biased) `now`.
    #[inline]
    fn next_at(&mut self, now: u64, reset_on_rollback: bool) -> Result<Scru128Id, GenerateError> {
        let mut rng = Salted {
            rng: &mut self.rng,
            salt: &mut self.salt,
        };
        let step = self.state.step(now, reset_on_rollback, &mut rng)?;
        // Every draw before the state changes: a panic here (caught by the caller)
        // leaves it as it was.
        let per_gen = rng.next_u32();
        let (timestamp, counter, per_sec) = self.state.apply(step);
        Ok(Scru128Id::from_fields_unchecked(
            timestamp, counter, per_sec, per_gen,
        ))
    }

    /// Fills `ids` with new IDs, reading the clock once: the batch keeps every rule of
    /// [`generate`](Self::generate) (the IDs increase, the counter steps by one,
    /// overflows move to the next millisecond, `per_sec_random` is renewed on time).
    ///
    /// # Panics
    ///
    /// As [`generate`](Self::generate); [`try_fill`](Self::try_fill) returns errors.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// let mut ids = [scru128::Scru128Id::MIN; 64];
    /// g.fill(&mut ids);
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// ```
    #[track_caller]
    pub fn fill(&mut self, ids: &mut [Scru128Id]) {
        if let Err(err) = self.try_fill(ids) {
            panic!("scru128: {err}");
        }
    }

    /// Fills `ids` with new IDs like [`fill`](Self::fill), returning an error instead of
    /// panicking.
    ///
    /// # Errors
    ///
    /// As [`try_generate`](Self::try_generate). On an error the IDs before the failing
    /// one are written and valid; the rest of the slice is untouched, but for one
    /// case: in a child forked during the call (from a signal handler, or by the random
    /// source), the batch is made again, and where that fails, what the first attempt
    /// wrote past the failing ID (its parent's IDs) is set to [`Scru128Id::MIN`]. The
    /// same holds where the call panics (the random source, or no OS entropy for the
    /// child's reseed) and the caller catches the panic: the IDs written before it are
    /// valid, and none of the parent's is left in the slice.
    ///
    /// ```
    /// let mut g = scru128::Scru128Generator::new();
    /// let mut ids = vec![scru128::Scru128Id::MIN; 1000];
    /// g.try_fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), scru128::GenerateError>(())
    /// ```
    pub fn try_fill(&mut self, ids: &mut [Scru128Id]) -> Result<(), GenerateError> {
        if ids.is_empty() {
            return Ok(());
        }
        let unix_ts_ms = self.clock.unix_ts_ms();
        let now = timestamp_from_clock(unix_ts_ms)?;
        // As in `generate`: a fork during the batch (from a signal handler) makes the
        // child's batch again. What an attempt wrote in a child before the fork was
        // noticed is its parent's: it is cleared before the batch is made again, so
        // that none of it is left if that attempt fails, by an error or by a panic
        // (the reseed or the fork salt of the child may find no OS entropy).
        loop {
            let epoch = self.check_fork();
            let mut written = 0;
            let filled = self.fill_at_in_process(now, ids, &mut written, epoch);
            if self.made_here(epoch) {
                return filled;
            }
            ids[..written].fill(Scru128Id::MIN);
        }
    }

    /// [`fill_at`](Self::fill_at), for the fork count `epoch`: where it panics in a
    /// child forked during it, what it wrote (copied from its parent's state, or
    /// made before the fork: its parent's IDs) is cleared before the panic goes on,
    /// since a caller that catches the panic takes the IDs written before it as made.
    fn fill_at_in_process(
        &mut self,
        now: u64,
        ids: &mut [Scru128Id],
        written: &mut usize,
        epoch: ForkEpoch,
    ) -> Result<(), GenerateError> {
        #[cfg(feature = "std")]
        {
            let attempt = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
                self.fill_at(now, ids, written)
            }));
            match attempt {
                Ok(filled) => filled,
                Err(panic) => {
                    if !self.made_here(epoch) {
                        ids[..*written].fill(Scru128Id::MIN);
                    }
                    std::panic::resume_unwind(panic)
                }
            }
        }
        #[cfg(not(feature = "std"))]
        {
            let _ = epoch;
            self.fill_at(now, ids, written)
        }
    }

    /// [`try_fill`](Self::try_fill) for the clock reading (biased) `now`; counts the IDs
    /// written in `written`.
    fn fill_at(
        &mut self,
        now: u64,
        ids: &mut [Scru128Id],
        written: &mut usize,
    ) -> Result<(), GenerateError> {
        let mut rng = Salted {
            rng: &mut self.rng,
            salt: &mut self.salt,
        };
        let mut rest = ids;
        while let Some((first, tail)) = rest.split_first_mut() {
            let step = self.state.step(now, true, &mut rng)?;
            let per_gen = rng.next_u32();
            let (timestamp, counter, per_sec) = self.state.apply(step);
            *first = Scru128Id::from_fields_unchecked(timestamp, counter, per_sec, per_gen);
            *written += 1;
            // What `next` would do for the following IDs, without its checks: the same
            // timestamp and `per_sec_random`, the counter + 1, until it would overflow.
            let run = self.state.counter_run(now).min(tail.len());
            let (run_ids, after) = tail.split_at_mut(run);
            let mut counters = counter + 1..;
            // `per_gen_random` in batches: the same numbers, in the same order.
            let mut per_gen = [0u32; 64];
            for chunk in run_ids.chunks_mut(per_gen.len()) {
                let per_gen = &mut per_gen[..chunk.len()];
                rng.fill_u32(per_gen);
                for ((slot, counter), &per_gen) in
                    chunk.iter_mut().zip(&mut counters).zip(&*per_gen)
                {
                    *slot = Scru128Id::from_fields_unchecked(timestamp, counter, per_sec, per_gen);
                }
                // Counted chunk by chunk: a source that panics in a later chunk (the
                // caller catching it) leaves the IDs written so far accounted for.
                self.state.advance_counter(chunk.len());
                *written += chunk.len();
            }
            rest = after;
        }
        Ok(())
    }

    /// Continues after `last`, an ID saved by an earlier run (of this or another
    /// generator): the next ID is greater than `last` whenever the clock is not behind
    /// it by more than the rollback allowance, even if the clock went back across a
    /// restart. A generator already past `last` keeps its own state (so the next ID is
    /// also greater than every ID it made); `per_sec_random` is renewed at the next ID.
    ///
    /// ```
    /// use scru128::{Scru128Generator, Scru128Id};
    ///
    /// let saved: Scru128Id = "7G0000000000000000000000000".get(..26).unwrap().parse()?;
    /// let mut g = Scru128Generator::with_rng_and_clock(|| 9u32, move || saved.unix_ts_ms() - 5_000);
    /// g.resume_after(saved);
    /// assert!(g.generate() > saved);
    /// # Ok::<(), scru128::ParseError>(())
    /// ```
    pub fn resume_after(&mut self, last: Scru128Id) {
        self.state.resume_after(last);
    }

    /// Not public API: the state of SPEC section 3 as six numbers (timestamp,
    /// counter, `per_sec_random`, the timestamp its renewal is due at, the latest
    /// clock reading, the rollback allowance), for a front end that keeps the state of
    /// its generator objects itself (the npm package keeps it in the JavaScript object,
    /// so that a dropped generator is collected like any object: `node/`).
    #[doc(hidden)]
    pub const fn __state(&self) -> [u64; 6] {
        self.state.to_parts()
    }

    /// Not public API: sets the state [`__state`](Self::__state) gave (values out of
    /// range are brought into it).
    #[doc(hidden)]
    pub fn __set_state(&mut self, parts: [u64; 6]) {
        self.state.set_parts(parts);
    }
}

impl<R: RandomSource, C: Clock> Iterator for Scru128Generator<R, C> {
    type Item = Scru128Id;

    /// Returns [`generate`](Self::generate)'s next ID; the iterator never ends.
    ///
    /// # Panics
    ///
    /// As [`generate`](Self::generate).
    #[inline]
    fn next(&mut self) -> Option<Scru128Id> {
        Some(self.generate())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

impl<R: RandomSource, C: Clock> core::iter::FusedIterator for Scru128Generator<R, C> {}

impl<R, C> fmt::Debug for Scru128Generator<R, C> {
    /// Shows the counters, not the random source's state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scru128Generator")
            .field("timestamp", &self.state.timestamp)
            .field("counter", &self.state.counter)
            .field("rollback_allowance", &self.state.rollback_allowance)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    // The tests use `std` also where the library does not (`--no-default-features`).
    extern crate std;

    use super::{Scru128Generator, State};

    /// Clock readings that take every branch: the same millisecond, a new one, a
    /// small and a large step back, a renewal of `per_sec_random` due (with
    /// `resume_after`, also at the same timestamp).
    fn readings() -> impl Iterator<Item = u64> {
        let base = 1_700_000_000_000u64;
        (0..4000u64).map(move |i| match i % 400 {
            0..=199 => base + i / 8,
            200..=219 => base + i / 8 - 3_000, // back within the allowance
            220..=239 => base + i / 8 - 60_000, // back beyond it: a reset, then on
            _ => base + i * 3,                 // a renewal due every few hundred
        })
    }

    #[test]
    fn a_state_taken_out_and_put_into_another_generator_goes_on_the_same() {
        let rng = || {
            let mut n = 0x0fff_fff0u32;
            move || {
                n = n.wrapping_mul(0x9e37_79b9).wrapping_add(0x0fff_fff7);
                n
            }
        };
        let clock = || {
            let mut it = readings();
            move || it.next().unwrap_or(1_800_000_000_000)
        };
        let mut whole = Scru128Generator::with_rng_and_clock(rng(), clock());
        // The state goes through a fresh generator before every ID, as the npm
        // package's generator objects do; the source and clock stay with the caller.
        let mut parts = NewState::new();
        let (mut draw, mut read) = (rng(), clock());
        for _ in 0..4000 {
            let mut g = Scru128Generator::with_rng_and_clock(&mut draw, &mut read);
            g.__set_state(parts.0);
            let id = g.try_generate();
            parts.0 = g.__state();
            assert_eq!(id, whole.try_generate());
            assert_eq!(parts.0, whole.__state());
        }
    }

    /// The state of a new generator.
    struct NewState([u64; 6]);

    impl NewState {
        fn new() -> Self {
            Self(Scru128Generator::with_rng_and_clock(|| 0u32, || 0u64).__state())
        }
    }

    #[test]
    fn a_state_out_of_range_is_brought_into_range() {
        let mut g = Scru128Generator::with_rng_and_clock(|| 5u32, || 1_700_000_000_000u64);
        g.__set_state([u64::MAX; 6]);
        let [timestamp, counter, per_sec_random, ..] = g.__state();
        assert_eq!(timestamp, crate::id::MAX_TIMESTAMP);
        assert_eq!(counter, u64::from(crate::MAX_COUNTER));
        assert_eq!(per_sec_random, u64::from(crate::MAX_PER_SEC_RANDOM));
        // The next ID fails rather than overflow.
        assert!(g.try_generate().is_err());
    }

    #[test]
    fn the_fast_path_gives_what_the_general_path_gives() {
        // Counters near the top, so that overflows come every few IDs as well.
        let rng = || {
            let mut n = 0x0fff_fff0u32;
            move || {
                n = n.wrapping_mul(0x9e37_79b9).wrapping_add(0x0fff_fff7);
                n | 0x0fff_ff00
            }
        };
        let now = std::rc::Rc::new(core::cell::Cell::new(0u64));
        let read = now.clone();
        let (mut fast, mut general) = (
            Scru128Generator::with_rng_and_clock(rng(), move || read.get()),
            Scru128Generator::with_rng_and_clock(rng(), || 0u64),
        );
        let mut took_fast = 0;
        for (i, ms) in readings().enumerate() {
            if i % 500 == 250 {
                // `per_sec_random` is renewed at the next ID, at the same timestamp.
                let last = general.generate_from_clock_slow(ms, true).unwrap();
                assert_eq!(fast.generate_from_clock_slow(ms, true).unwrap(), last);
                fast.resume_after(last);
                general.resume_after(last);
            }
            let counter_run = fast.state.counter_run(ms - crate::id::TIMESTAMP_BIAS) > 0;
            took_fast += usize::from(counter_run);
            now.set(ms);
            let a = fast.generate();
            let b = general.generate_from_clock_slow(ms, true).unwrap();
            assert_eq!(a, b, "at {ms}");
            assert_eq!(fast.state, general.state, "at {ms}");
        }
        // Both kinds of call were made.
        assert!((1000..3900).contains(&took_fast), "{took_fast}");
    }

    #[test]
    fn each_id_reads_the_clock_once() {
        let mut readings = readings();
        let reads = std::rc::Rc::new(core::cell::Cell::new(0u32));
        let counted = reads.clone();
        let clock = move || {
            counted.set(counted.get() + 1);
            readings.next().unwrap()
        };
        let mut g = Scru128Generator::with_rng_and_clock(|| 7u32, clock);
        for i in 1..=1000 {
            match i % 3 {
                0 => drop(g.generate()),
                1 => drop(g.try_generate().unwrap()),
                _ => drop(g.generate_or_abort()),
            }
            assert_eq!(reads.get(), i);
        }
    }

    #[test]
    fn the_state_fits_in_a_cache_line() {
        // With function pointers as random source and clock, the rest is the state.
        type Bare = Scru128Generator<fn() -> u32, fn() -> u64>;
        assert!(core::mem::size_of::<State>() <= 64);
        assert!(core::mem::size_of::<Bare>() - 2 * core::mem::size_of::<fn()>() <= 64);
    }
}
