//! SPEC section 3, the rules of a generator, as both generators apply them: [`advance`]
//! gives the next `(timestamp, counter)` (rules 1–4), [`State`] holds a generator's
//! fields and renews `per_sec_random` (rule 5), [`timestamp_from_clock`] is rule 7.
//! Pure: no clock, no random source of its own, no fork count.

use crate::error::GenerateError;
use crate::id::{MAX_COUNTER, MAX_PER_SEC_RANDOM, MAX_TIMESTAMP, Scru128Id, TIMESTAMP_BIAS};
use crate::sources::RandomSource;

/// Default rollback allowance: how far (in ms) the clock may go back before the
/// generator stops carrying on from its last timestamp.
///
/// ```
/// let g = scru128::Scru128Generator::new();
/// assert_eq!(g.rollback_allowance(), scru128::DEFAULT_ROLLBACK_ALLOWANCE);
/// ```
pub const DEFAULT_ROLLBACK_ALLOWANCE: u64 = 10_000;

/// Interval (ms) after which `per_sec_random` is renewed.
pub(crate) const PER_SEC_INTERVAL: u64 = 1_000;

/// Random draws the rules need besides `per_gen_random`.
pub(crate) trait FieldRandom {
    /// A fresh 28-bit counter value.
    fn counter(&mut self) -> u32;
    /// A fresh 24-bit `per_sec_random`.
    fn per_sec(&mut self) -> u32;
}

impl<R: RandomSource> FieldRandom for R {
    #[inline]
    fn counter(&mut self) -> u32 {
        // masked again: a source's `next_bits` may return more bits than asked for
        self.next_bits(MAX_COUNTER.count_ones()) & MAX_COUNTER
    }

    #[inline]
    fn per_sec(&mut self) -> u32 {
        self.next_bits(MAX_PER_SEC_RANDOM.count_ones()) & MAX_PER_SEC_RANDOM
    }
}

/// Converts a clock reading to a timestamp that may be generated (1 ..= 2^44−2):
/// rule 7.
#[inline]
pub(crate) const fn timestamp_from_clock(unix_ts_ms: u64) -> Result<u64, GenerateError> {
    let ts = unix_ts_ms.wrapping_sub(TIMESTAMP_BIAS);
    if ts.wrapping_sub(1) < MAX_TIMESTAMP - 1 {
        Ok(ts)
    } else {
        Err(GenerateError::ClockOutOfRange { unix_ts_ms })
    }
}

/// The next ID's place, from [`advance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Advance {
    pub(crate) timestamp: u64,
    pub(crate) counter: u32,
    /// The clock went back beyond the allowance: a new start from the clock.
    pub(crate) reset: bool,
}

/// Rules 1–4: the `(timestamp, counter)` after `last` for the clock reading `now` (a
/// timestamp from [`timestamp_from_clock`]); `rollback` says whether `now` is behind by
/// more than the allowance (each generator measures that from what it keeps), and a
/// rollback is a reset (the caller that reports one instead does so before).
/// `fresh_counter` is called only where rule 1, 3 or 4 asks for a random counter.
///
/// # Errors
///
/// [`GenerateError::TimestampExhausted`] past the last timestamp.
#[inline]
pub(crate) fn advance(
    last: (u64, u32),
    now: u64,
    rollback: bool,
    fresh_counter: impl FnOnce() -> u32,
) -> Result<Advance, GenerateError> {
    let (last_timestamp, last_counter) = last;
    let (timestamp, counter, reset) = if now > last_timestamp {
        (now, fresh_counter(), false)
    } else if !rollback {
        if last_counter < MAX_COUNTER {
            (last_timestamp, last_counter + 1, false)
        } else {
            // Counter overflow: borrow the next millisecond rather than wait.
            (last_timestamp + 1, fresh_counter(), false)
        }
    } else {
        (now, fresh_counter(), true)
    };
    if timestamp >= MAX_TIMESTAMP {
        return Err(GenerateError::TimestampExhausted);
    }
    Ok(Advance {
        timestamp,
        counter,
        reset,
    })
}

/// A generator's fields: the last ID's timestamp, counter and `per_sec_random`, when
/// `per_sec_random` is due, the clock's latest reading and the rollback allowance.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct State {
    /// Timestamp (biased) of the last ID; 0 before the first.
    pub(crate) timestamp: u64,
    /// Counter of the last ID.
    pub(crate) counter: u32,
    per_sec_random: u32,
    /// Timestamp from which `per_sec_random` is due for renewal (last renewal + 1000);
    /// 0 forces a renewal at the next ID.
    renew_at: u64,
    /// The latest clock reading (biased) since the last reset. A rollback is measured
    /// from it, not from `timestamp`, which counter overflows may have moved ahead of
    /// the clock: running ahead is not the clock going back, and must never reset.
    clock_high: u64,
    pub(crate) rollback_allowance: u64,
}

/// The next ID's fields, drawn but not yet applied (see [`State::step`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    now: u64,
    advance: Advance,
    /// A renewed `per_sec_random`, if one is due.
    per_sec_random: Option<u32>,
}

impl State {
    pub(crate) const fn new() -> Self {
        Self {
            timestamp: 0,
            counter: 0,
            per_sec_random: 0,
            renew_at: 0,
            clock_high: 0,
            rollback_allowance: DEFAULT_ROLLBACK_ALLOWANCE,
        }
    }

    /// In a child process: move past every `(timestamp, counter)` the parent may go on
    /// to use at this timestamp, and renew `per_sec_random`. Cannot fail, so whatever a
    /// caller must do first (a reseed that may panic) is done before.
    #[cfg(feature = "std")]
    pub(crate) fn move_past(&mut self) {
        self.counter = MAX_COUNTER;
        self.renew_at = 0;
    }

    /// What the next `(timestamp, counter, per_sec_random)` is for a clock reading `now`
    /// (a timestamp from [`timestamp_from_clock`]), with its random draws made, but
    /// without changing the state: [`apply`](Self::apply) does that. So a random
    /// source that panics, and a caller that catches the panic, leave the state as it
    /// was (no reset half done, no counter skipped).
    ///
    /// # Errors
    ///
    /// [`GenerateError::ClockRollback`] for a rollback beyond the allowance when
    /// `reset_on_rollback` is false; [`GenerateError::TimestampExhausted`].
    #[inline]
    pub(crate) fn step(
        &self,
        now: u64,
        reset_on_rollback: bool,
        rng: &mut impl FieldRandom,
    ) -> Result<Step, GenerateError> {
        let rollback = self.is_rollback(now);
        if rollback && now <= self.timestamp && !reset_on_rollback {
            return Err(GenerateError::ClockRollback {
                last_unix_ts_ms: self.clock_high + TIMESTAMP_BIAS,
                unix_ts_ms: now + TIMESTAMP_BIAS,
            });
        }
        let advance = advance((self.timestamp, self.counter), now, rollback, || {
            rng.counter()
        })?;
        // A reset renews `per_sec_random` too.
        let renew_at = if advance.reset { 0 } else { self.renew_at };
        let per_sec_random = (advance.timestamp >= renew_at).then(|| rng.per_sec());
        Ok(Step {
            now,
            advance,
            per_sec_random,
        })
    }

    /// Makes a [`step`](Self::step) the state; returns `(timestamp, counter,
    /// per_sec_random)` of the ID.
    #[inline]
    pub(crate) fn apply(&mut self, step: Step) -> (u64, u32, u32) {
        self.clock_high = if step.advance.reset {
            step.now
        } else {
            self.clock_high.max(step.now)
        };
        self.timestamp = step.advance.timestamp;
        self.counter = step.advance.counter;
        if let Some(per_sec_random) = step.per_sec_random {
            self.per_sec_random = per_sec_random;
            self.renew_at = step.advance.timestamp + PER_SEC_INTERVAL;
        }
        (self.timestamp, self.counter, self.per_sec_random)
    }

    /// How many more IDs, for a clock reading `now`, would only step the counter (same
    /// timestamp, no overflow, no renewal due, no reset).
    #[inline]
    pub(crate) fn counter_run(&self, now: u64) -> usize {
        if now <= self.timestamp && !self.is_rollback(now) && !self.renewal_due() {
            (MAX_COUNTER - self.counter) as usize
        } else {
            0
        }
    }

    /// Whether the next ID at this timestamp renews `per_sec_random`.
    #[inline]
    fn renewal_due(&self) -> bool {
        self.timestamp >= self.renew_at
    }

    /// The next ID's fields after a [`counter_run`](Self::counter_run) of at least 1:
    /// what `step` and `apply` give then.
    #[inline]
    pub(crate) fn next_counter(&mut self, now: u64) -> (u64, u32, u32) {
        self.clock_high = self.clock_high.max(now);
        self.counter += 1;
        (self.timestamp, self.counter, self.per_sec_random)
    }

    /// Records `n` IDs made after a [`counter_run`](Self::counter_run) of at least `n`.
    #[inline]
    pub(crate) fn advance_counter(&mut self, n: usize) {
        self.counter += n as u32;
    }

    /// Whether `now` is behind the latest clock reading by more than the allowance.
    #[inline]
    fn is_rollback(&self, now: u64) -> bool {
        self.clock_high.saturating_sub(now) > self.rollback_allowance
    }

    /// Continues after `last`: the next ID is greater than `last` and than every ID
    /// made before, unless the clock is behind by more than the rollback allowance.
    /// A state already past `last` is kept.
    pub(crate) fn resume_after(&mut self, last: Scru128Id) {
        if (last.timestamp(), last.counter()) > (self.timestamp, self.counter) {
            self.timestamp = last.timestamp();
            self.counter = last.counter();
        }
        self.renew_at = 0;
        // As if the clock had (also) read `last`'s time: a clock further back than the
        // allowance after a restart is a rollback.
        self.clock_high = self.clock_high.max(last.timestamp());
    }

    /// The state as numbers, for `Scru128Generator::__state`.
    pub(crate) const fn to_parts(&self) -> [u64; 6] {
        [
            self.timestamp,
            self.counter as u64,
            self.per_sec_random as u64,
            self.renew_at,
            self.clock_high,
            self.rollback_allowance,
        ]
    }

    /// Takes the numbers of [`to_parts`](Self::to_parts). Values no state can hold are
    /// brought into range (a counter at most 2^28−1, a timestamp at most 2^44−1, which
    /// fails the next ID), so that no input makes a later step overflow.
    pub(crate) fn set_parts(&mut self, parts: [u64; 6]) {
        let [
            timestamp,
            counter,
            per_sec_random,
            renew_at,
            clock_high,
            allowance,
        ] = parts;
        self.timestamp = timestamp.min(MAX_TIMESTAMP);
        self.counter = counter.min(MAX_COUNTER as u64) as u32;
        self.per_sec_random = (per_sec_random & MAX_PER_SEC_RANDOM as u64) as u32;
        self.renew_at = renew_at;
        self.clock_high = clock_high;
        self.rollback_allowance = allowance;
    }
}

#[cfg(test)]
mod tests {
    use super::{Advance, advance};
    use crate::GenerateError;
    use crate::id::{MAX_COUNTER, MAX_TIMESTAMP};

    /// Rules 1–4, each case once, and the draw made only where a rule asks for one.
    #[test]
    fn advance_applies_rules_1_to_4() {
        let drawn = core::cell::Cell::new(0u32);
        let fresh = || {
            drawn.set(drawn.get() + 1);
            7
        };
        let at = |timestamp, counter, reset| {
            Ok(Advance {
                timestamp,
                counter,
                reset,
            })
        };
        // 1: a later clock, a fresh counter.
        assert_eq!(advance((100, 5), 101, false, fresh), at(101, 7, false));
        // 2: the same millisecond or a small step back: the counter + 1, no draw.
        assert_eq!(advance((100, 5), 100, false, fresh), at(100, 6, false));
        assert_eq!(advance((100, 5), 90, false, fresh), at(100, 6, false));
        assert_eq!(drawn.get(), 1);
        // 3: overflow: the next millisecond, a fresh counter.
        assert_eq!(
            advance((100, MAX_COUNTER), 100, false, fresh),
            at(101, 7, false)
        );
        // 4: a rollback: a reset to the clock.
        assert_eq!(advance((100, 5), 50, true, fresh), at(50, 7, true));
        assert_eq!(drawn.get(), 3);
        assert_eq!(
            advance(
                (MAX_TIMESTAMP - 1, MAX_COUNTER),
                MAX_TIMESTAMP - 1,
                false,
                fresh
            ),
            Err(GenerateError::TimestampExhausted)
        );
    }
}
