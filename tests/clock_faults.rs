//! Clock faults, simulated with an injected clock: steps back (by 1 ms, by exactly the
//! rollback allowance, by one more, by years, to before 2020), jumps forward by years
//! and back, the end of the 44-bit range, a start before 2020, and a clock that reads
//! anything at all. Every generate variant is checked for every fault; the outcomes
//! are the table "Clock handling" of docs/reliability.md:
//!
//! | clock reading `now`; `last`: the last ID's timestamp; `high`: the latest clock reading (or `resume_after` point) | every variant |
//! | --- | --- |
//! | `now > last` | ID at `now`, fresh random counter |
//! | `now ≤ last`, `high − now ≤ allowance` | ID at `last`, counter + 1 (at the counter's top: `last + 1`, fresh counter) |
//! | `high − now > allowance`, resetting variants¹ | ID at `now`, fresh counter and `per_sec_random` (smaller than the IDs before: documented) |
//! | `high − now > allowance`, `generate_or_abort`, `generate_or_abort_at` | `Err(ClockRollback)`, generator unchanged |
//!
//! (`last` and `high` differ only after counter overflows, which move the timestamp
//! ahead of the clock; that is never taken for a rollback.)
//! | `now` before 2020-01-01T00:00:00.001Z or at/after 2^44−1 ms past it | `Err(ClockOutOfRange)`; the panicking variants² panic with that message; generator unchanged |
//! | counter overflow at the last millisecond 2577-06-22T06:20:44.414Z | `Err(TimestampExhausted)` / panic "no greater ID left" |
//!
//! ¹ `generate`, `try_generate`, `try_generate_at`, `fill`, `try_fill`, `Iterator::next`.
//! ² `generate`, `fill`, `Iterator::next`.
//!
//! The last test drives a generator with a hostile clock (and `resume_after` and
//! `set_rollback_allowance` at random) against a model of SPEC section 3 written
//! from the spec, checking every outcome and field.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use scru128::{
    DEFAULT_ROLLBACK_ALLOWANCE, GenerateError, MAX_COUNTER, MAX_TIMESTAMP, Scru128Generator,
    Scru128Id, TIMESTAMP_BIAS,
};

/// 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
const TS0: u64 = T0 - TIMESTAMP_BIAS;
/// The first and last clock readings a generator accepts:
/// 2020-01-01T00:00:00.001Z and 2577-06-22T06:20:44.414Z.
const FIRST_MS: u64 = TIMESTAMP_BIAS + 1;
const LAST_MS: u64 = TIMESTAMP_BIAS + MAX_TIMESTAMP - 1;
/// 365.25 days.
const YEAR_MS: u64 = 31_557_600_000;

/// The ways to ask a generator for an ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Generate,
    TryGenerate,
    GenerateOrAbort,
    TryGenerateAt,
    GenerateOrAbortAt,
    Fill,
    TryFill,
    Next,
}

use Variant::{
    Fill, Generate, GenerateOrAbort, GenerateOrAbortAt, Next, TryFill, TryGenerate, TryGenerateAt,
};

const ALL: [Variant; 8] = [
    Generate,
    TryGenerate,
    GenerateOrAbort,
    TryGenerateAt,
    GenerateOrAbortAt,
    Fill,
    TryFill,
    Next,
];

impl Variant {
    /// Whether a rollback beyond the allowance is reported instead of resetting.
    fn aborts(self) -> bool {
        matches!(self, GenerateOrAbort | GenerateOrAbortAt)
    }

    /// Whether errors come as panics.
    fn panics(self) -> bool {
        matches!(self, Generate | Fill | Next)
    }
}

/// What one call gave.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Id(Scru128Id),
    Error(GenerateError),
    Panic(String),
}

impl Outcome {
    #[track_caller]
    fn id(&self) -> Scru128Id {
        match self {
            Self::Id(id) => *id,
            other => panic!("expected an ID, got {other:?}"),
        }
    }

    /// The same outcome as `err` would be for `variant`: the error itself, or a panic
    /// with its message.
    fn is_error(&self, variant: Variant, err: GenerateError) -> bool {
        if variant.panics() {
            *self == Self::Panic(format!("scru128: {err}"))
        } else {
            *self == Self::Error(err)
        }
    }
}

/// Clock: a shared cell of Unix milliseconds.
#[derive(Clone)]
struct TestClock(Rc<Cell<u64>>);

impl TestClock {
    fn at(ms: u64) -> Self {
        Self(Rc::new(Cell::new(ms)))
    }

    fn source(&self) -> impl FnMut() -> u64 + use<> {
        let cell = Rc::clone(&self.0);
        move || cell.get()
    }

    fn set(&self, ms: u64) {
        self.0.set(ms);
    }

    fn get(&self) -> u64 {
        self.0.get()
    }
}

type TestGen = Scru128Generator<Box<dyn FnMut() -> u32>, Box<dyn FnMut() -> u64>>;

mod common;

use common::SplitMix64;

/// A generator over the clock and a seeded random source.
fn generator(clock: &TestClock, seed: u64) -> TestGen {
    let mut rng = SplitMix64(seed);
    #[allow(clippy::cast_possible_truncation)]
    let source = move || rng.next_u64() as u32;
    Scru128Generator::with_rng_and_clock(
        Box::new(source) as Box<dyn FnMut() -> u32>,
        Box::new(clock.source()) as Box<dyn FnMut() -> u64>,
    )
}

/// Sets the clock to `clock_ms`, out of range, and checks that one call of `variant`
/// reports it (the error, or a panic with its message).
#[track_caller]
fn assert_out_of_range(g: &mut TestGen, variant: Variant, clock: &TestClock, clock_ms: u64) {
    clock.set(clock_ms);
    let err = GenerateError::ClockOutOfRange {
        unix_ts_ms: clock_ms,
    };
    let got = call(g, variant, clock);
    assert!(
        got.is_error(variant, err),
        "{variant:?} at {clock_ms}: {got:?}"
    );
}

/// One call of `variant`; the `_at` variants are given the clock's reading.
fn call(g: &mut TestGen, variant: Variant, clock: &TestClock) -> Outcome {
    common::quiet_generator_panics();
    let now = clock.get();
    let result = catch_unwind(AssertUnwindSafe(|| match variant {
        Generate => Ok(g.generate()),
        TryGenerate => g.try_generate(),
        GenerateOrAbort => g.generate_or_abort(),
        TryGenerateAt => g.try_generate_at(now),
        GenerateOrAbortAt => g.generate_or_abort_at(now),
        Fill => {
            let mut one = [Scru128Id::MIN];
            g.fill(&mut one);
            Ok(one[0])
        }
        TryFill => {
            let mut one = [Scru128Id::MIN];
            g.try_fill(&mut one).map(|()| one[0])
        }
        Next => Ok(g.next().expect("the generator never ends")),
    }));
    match result {
        Ok(Ok(id)) => Outcome::Id(id),
        Ok(Err(err)) => Outcome::Error(err),
        Err(payload) => Outcome::Panic(common::panic_text(&*payload).to_owned()),
    }
}

/// A generator that has made two IDs at `T0`; returns it with its clock and the IDs.
fn two_ids_at_t0(seed: u64) -> (TestGen, TestClock, Scru128Id, Scru128Id) {
    let clock = TestClock::at(T0);
    let mut g = generator(&clock, seed);
    let a = g.generate();
    let b = g.generate();
    assert_eq!((a.timestamp(), b.timestamp()), (TS0, TS0));
    (g, clock, a, b)
}

#[test]
fn steps_back_within_the_allowance_count_on_in_every_variant() {
    for variant in ALL {
        for step in [
            1,
            2,
            999,
            1000,
            DEFAULT_ROLLBACK_ALLOWANCE - 1,
            DEFAULT_ROLLBACK_ALLOWANCE,
        ] {
            let (mut g, clock, _a, b) = two_ids_at_t0(step);
            clock.set(T0 - step);
            let c = call(&mut g, variant, &clock).id();
            let what = format!("{variant:?}, {step} ms back");
            assert_eq!(c.timestamp(), TS0, "{what}: keeps the last timestamp");
            assert_eq!(c.counter(), b.counter() + 1, "{what}: counts on");
            assert_eq!(c.per_sec_random(), b.per_sec_random(), "{what}");
            assert!(c > b, "{what}");
            // And the clock coming back changes nothing either.
            clock.set(T0);
            let d = call(&mut g, variant, &clock).id();
            assert_eq!(
                (d.timestamp(), d.counter()),
                (TS0, c.counter() + 1),
                "{what}"
            );
        }
    }
}

#[test]
fn steps_back_beyond_the_allowance_reset_or_are_reported() {
    for variant in ALL {
        for step in [
            DEFAULT_ROLLBACK_ALLOWANCE + 1,
            DEFAULT_ROLLBACK_ALLOWANCE + 2,
            86_400_000,
            YEAR_MS,
            3 * YEAR_MS,
        ] {
            let (mut g, clock, a, b) = two_ids_at_t0(step);
            let back = T0 - step;
            clock.set(back);
            let what = format!("{variant:?}, {step} ms back");
            let c = call(&mut g, variant, &clock);
            if variant.aborts() {
                let err = GenerateError::ClockRollback {
                    last_unix_ts_ms: T0,
                    unix_ts_ms: back,
                };
                assert_eq!(c, Outcome::Error(err), "{what}");
                assert!(err.to_string().contains(&format!("went back {step} ms")));
                // Nothing changed: with the clock back, the generator counts on.
                clock.set(T0);
                let d = call(&mut g, variant, &clock).id();
                assert_eq!(
                    (d.timestamp(), d.counter()),
                    (TS0, b.counter() + 1),
                    "{what}"
                );
            } else {
                // Reset: the ID takes the clock's millisecond; it is smaller than the
                // IDs before (the documented cost of resetting).
                let c = c.id();
                assert_eq!(c.timestamp(), TS0 - step, "{what}");
                assert!(c < a, "{what}");
                // From then on the generator increases again from the new point.
                let d = call(&mut g, variant, &clock).id();
                assert_eq!((d.timestamp(), d.counter()), (TS0 - step, c.counter() + 1));
                // And the clock coming back is a step forward: a new millisecond.
                clock.set(T0);
                let e = call(&mut g, variant, &clock).id();
                assert_eq!(e.timestamp(), TS0, "{what}");
                assert!(e > d, "{what}");
            }
        }
    }
}

#[test]
fn a_custom_allowance_moves_the_threshold_in_every_variant() {
    for variant in ALL {
        for allowance in [0, 1, 50, 60_000] {
            let (mut g, clock, _a, b) = two_ids_at_t0(allowance);
            g.set_rollback_allowance(allowance);
            clock.set(T0 - allowance);
            let c = call(&mut g, variant, &clock).id();
            assert_eq!(
                (c.timestamp(), c.counter()),
                (TS0, b.counter() + 1),
                "{variant:?}, allowance {allowance}: exactly the allowance counts on"
            );
            clock.set(T0 - allowance - 1);
            let d = call(&mut g, variant, &clock);
            if variant.aborts() {
                assert!(
                    matches!(d, Outcome::Error(GenerateError::ClockRollback { .. })),
                    "{variant:?}, allowance {allowance}: {d:?}"
                );
            } else {
                assert_eq!(d.id().timestamp(), TS0 - allowance - 1, "{variant:?}");
            }
        }
    }
    // An unlimited allowance never resets: even a step back of 500 years counts on.
    for variant in ALL {
        let clock = TestClock::at(LAST_MS);
        let mut g = generator(&clock, 7);
        g.set_rollback_allowance(u64::MAX);
        let a = g.generate();
        clock.set(FIRST_MS);
        let b = call(&mut g, variant, &clock).id();
        assert_eq!(
            (b.timestamp(), b.counter()),
            (a.timestamp(), a.counter() + 1)
        );
    }
}

#[test]
fn steps_back_to_before_2020_are_errors_that_change_nothing() {
    for variant in ALL {
        for clock_ms in [FIRST_MS - 1, TIMESTAMP_BIAS - 1, 1_000, 0] {
            let (mut g, clock, _a, b) = two_ids_at_t0(clock_ms);
            assert_out_of_range(&mut g, variant, &clock, clock_ms);
            clock.set(T0);
            let c = call(&mut g, variant, &clock).id();
            assert_eq!((c.timestamp(), c.counter()), (TS0, b.counter() + 1));
        }
    }
}

#[test]
fn a_clock_that_starts_before_2020_works_once_it_is_in_range() {
    for variant in ALL {
        let clock = TestClock::at(0);
        let mut g = generator(&clock, 3);
        for clock_ms in [0, 1, TIMESTAMP_BIAS - 1, TIMESTAMP_BIAS] {
            assert_out_of_range(&mut g, variant, &clock, clock_ms);
        }
        // 2020-01-01T00:00:00.001Z, the first millisecond that may be generated.
        clock.set(FIRST_MS);
        let a = call(&mut g, variant, &clock).id();
        assert_eq!(a.timestamp(), 1, "{variant:?}");
        let b = call(&mut g, variant, &clock).id();
        assert_eq!((b.timestamp(), b.counter()), (1, a.counter() + 1));
    }
}

#[test]
fn jumps_forward_by_years_and_back() {
    for variant in ALL {
        for jump in [YEAR_MS, 10 * YEAR_MS, 500 * YEAR_MS] {
            let (mut g, clock, _a, b) = two_ids_at_t0(jump);
            let what = format!("{variant:?}, {jump} ms forward");
            clock.set(T0 + jump);
            let c = call(&mut g, variant, &clock).id();
            assert_eq!(c.timestamp(), TS0 + jump, "{what}: takes the clock");
            assert!(c > b);
            // per_sec_random is due after a second, so after years it is renewed (a
            // fresh 24-bit draw: equal to the old one with probability 2^-24; this
            // seeded source draws a different one).
            assert_ne!(c.per_sec_random(), b.per_sec_random(), "{what}");
            let d = call(&mut g, variant, &clock).id();
            assert_eq!((d.timestamp(), d.counter()), (TS0 + jump, c.counter() + 1));
            // The clock comes back (the jump was a mistake): a step back of years.
            clock.set(T0 + 1);
            let e = call(&mut g, variant, &clock);
            if variant.aborts() {
                // Reported until the clock reaches the jump again (within the
                // allowance); `generate` is the way out.
                assert_eq!(
                    e,
                    Outcome::Error(GenerateError::ClockRollback {
                        last_unix_ts_ms: T0 + jump,
                        unix_ts_ms: T0 + 1,
                    }),
                    "{what}"
                );
                let f = g.generate();
                assert_eq!(f.timestamp(), TS0 + 1);
                let h = call(&mut g, variant, &clock).id();
                assert!(h > f);
            } else {
                let e = e.id();
                assert_eq!(e.timestamp(), TS0 + 1, "{what}: resets to the clock");
                assert!(e > b, "still above the IDs made before the jump");
                assert!(e < d, "but below those made during it (documented)");
            }
        }
    }
}

#[test]
fn the_end_of_the_44_bit_range() {
    for variant in ALL {
        // The last millisecond that may be generated is accepted...
        let clock = TestClock::at(LAST_MS);
        let mut g = generator(&clock, 11);
        let a = call(&mut g, variant, &clock).id();
        assert_eq!(a.timestamp(), MAX_TIMESTAMP - 1, "{variant:?}");
        assert_eq!(a.unix_ts_ms(), LAST_MS);
        // ...the next is reserved, and every millisecond after it out of range.
        for clock_ms in [LAST_MS + 1, LAST_MS + 2, u64::MAX] {
            assert_out_of_range(&mut g, variant, &clock, clock_ms);
        }

        // A counter overflow one millisecond before the end moves to the last one; the
        // next overflow has nowhere to go.
        clock.set(LAST_MS - 1);
        let mut g = generator(&clock, 12);
        g.resume_after(Scru128Id::from_fields(
            MAX_TIMESTAMP - 2,
            MAX_COUNTER - 1,
            0,
            0,
        ));
        let b = call(&mut g, variant, &clock).id();
        assert_eq!(
            (b.timestamp(), b.counter()),
            (MAX_TIMESTAMP - 2, MAX_COUNTER)
        );
        let c = call(&mut g, variant, &clock).id();
        assert_eq!(c.timestamp(), MAX_TIMESTAMP - 1, "{variant:?}: overflow");
        g.resume_after(Scru128Id::from_fields(MAX_TIMESTAMP - 1, MAX_COUNTER, 0, 0));
        for _ in 0..3 {
            let got = call(&mut g, variant, &clock);
            assert!(
                got.is_error(variant, GenerateError::TimestampExhausted),
                "{variant:?}: {got:?}"
            );
        }
        // A clock far behind the end: the resetting variants start again from it,
        // the others report the rollback.
        clock.set(T0);
        let got = call(&mut g, variant, &clock);
        if variant.aborts() {
            assert!(matches!(
                got,
                Outcome::Error(GenerateError::ClockRollback { .. })
            ));
        } else {
            assert_eq!(got.id().timestamp(), TS0, "{variant:?}");
        }
    }
}

#[test]
fn fill_stops_at_the_end_of_the_range_with_the_ids_before_it_valid() {
    let clock = TestClock::at(LAST_MS);
    let mut g = generator(&clock, 13);
    g.resume_after(Scru128Id::from_fields(
        MAX_TIMESTAMP - 1,
        MAX_COUNTER - 100,
        0,
        0,
    ));
    let mut ids = vec![Scru128Id::MIN; 1000];
    assert_eq!(g.try_fill(&mut ids), Err(GenerateError::TimestampExhausted));
    for (k, id) in ids[..100].iter().enumerate() {
        assert_eq!(id.timestamp(), MAX_TIMESTAMP - 1);
        assert_eq!(id.counter(), MAX_COUNTER - 99 + u32::try_from(k).unwrap());
    }
    assert!(ids[100..].iter().all(|&id| id == Scru128Id::MIN));
}

/// The model of SPEC section 3 the hostile-clock test checks against: the last ID's
/// `(timestamp, counter, per_sec_random)` and the next renewal point.
#[derive(Clone, Copy, Debug)]
struct Model {
    last: Option<(u64, u32)>,
    per_sec: u32,
    renew_at: u64,
    allowance: u64,
    /// The latest clock reading (biased) since the last reset or resume point: a
    /// rollback is measured from it, not from a timestamp that overflows moved ahead.
    clock_high: u64,
}

/// What the model expects of the next ID for a clock reading `clock_ms`.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    /// An ID at this timestamp with exactly this counter.
    Counter(u64, u32),
    /// An ID at this timestamp with a fresh (random) counter.
    Fresh(u64),
    Error(GenerateError),
}

impl Model {
    fn expect(&self, clock_ms: u64, aborts: bool) -> Expect {
        if !(FIRST_MS..=LAST_MS).contains(&clock_ms) {
            return Expect::Error(GenerateError::ClockOutOfRange {
                unix_ts_ms: clock_ms,
            });
        }
        let now = clock_ms - TIMESTAMP_BIAS;
        let Some((ts, counter)) = self.last else {
            return Expect::Fresh(now);
        };
        let next = if now > ts {
            Expect::Fresh(now)
        } else if self.clock_high.saturating_sub(now) <= self.allowance {
            if counter < MAX_COUNTER {
                Expect::Counter(ts, counter + 1)
            } else {
                Expect::Fresh(ts + 1)
            }
        } else if aborts {
            return Expect::Error(GenerateError::ClockRollback {
                last_unix_ts_ms: self.clock_high + TIMESTAMP_BIAS,
                unix_ts_ms: clock_ms,
            });
        } else {
            return Expect::Fresh(now);
        };
        match next {
            Expect::Counter(t, _) | Expect::Fresh(t) if t >= MAX_TIMESTAMP => {
                Expect::Error(GenerateError::TimestampExhausted)
            }
            other => other,
        }
    }

    /// Checks `got` against the expectation and moves the model on.
    fn check(&mut self, expect: &Expect, got: &Outcome, variant: Variant, clock_ms: u64) {
        let aborts = variant.aborts();
        let reset = matches!(expect, Expect::Fresh(t) if self.last.is_some_and(|(ts, _)| *t < ts));
        match (expect, got) {
            (Expect::Error(err), got) => {
                assert!(
                    got.is_error(variant, *err),
                    "{variant:?}: {expect:?} != {got:?}"
                );
                return;
            }
            (Expect::Counter(ts, counter), Outcome::Id(id)) => {
                assert_eq!(
                    (id.timestamp(), id.counter()),
                    (*ts, *counter),
                    "{variant:?}"
                );
            }
            (Expect::Fresh(ts), Outcome::Id(id)) => {
                assert_eq!(id.timestamp(), *ts, "{variant:?}");
            }
            _ => panic!("{variant:?}: expected {expect:?}, got {got:?}"),
        }
        let id = got.id();
        assert!(
            (1..MAX_TIMESTAMP).contains(&id.timestamp()),
            "reserved timestamp"
        );
        if let Some((ts, counter)) = self.last {
            let before = Scru128Id::from_fields(ts, counter, 0, 0);
            if reset {
                assert!(!aborts, "only the resetting variants reset");
            } else {
                assert!(id.to_u128() >> 56 > before.to_u128() >> 56, "{variant:?}");
            }
        }
        let now = clock_ms - TIMESTAMP_BIAS;
        if reset {
            self.renew_at = 0;
            self.clock_high = now;
        }
        self.clock_high = self.clock_high.max(now);
        if id.timestamp() >= self.renew_at {
            self.renew_at = id.timestamp() + 1000;
        } else {
            assert_eq!(id.per_sec_random(), self.per_sec, "renewed too early");
        }
        self.per_sec = id.per_sec_random();
        self.last = Some((id.timestamp(), id.counter()));
    }
}

#[test]
fn a_hostile_clock_never_breaks_the_rules() {
    let ops = if cfg!(debug_assertions) {
        200_000
    } else {
        2_000_000
    };
    let mut r = SplitMix64(0x5eed_c10c);
    let clock = TestClock::at(T0);
    // Counter draws near the top half the time, so that overflows are frequent.
    let mut draws = SplitMix64(0xd1ce);
    let source = move || {
        let v = draws.next_u64();
        #[allow(clippy::cast_possible_truncation)]
        if v & 1 == 0 {
            (v >> 32) as u32 | 0x0fff_fff0
        } else {
            (v >> 32) as u32
        }
    };
    let mut g: TestGen = Scru128Generator::with_rng_and_clock(
        Box::new(source) as Box<dyn FnMut() -> u32>,
        Box::new(clock.source()) as Box<dyn FnMut() -> u64>,
    );
    let mut model = Model {
        last: None,
        per_sec: 0,
        renew_at: 0,
        allowance: DEFAULT_ROLLBACK_ALLOWANCE,
        clock_high: 0,
    };
    let mut seen = [0u64; 6];
    for _ in 0..ops {
        let last_ms = model.last.map_or(T0, |(ts, _)| ts + TIMESTAMP_BIAS);
        // The next clock reading.
        let clock_ms = match r.below(16) {
            0..=5 => last_ms.saturating_sub(r.below(4)),
            6 | 7 => last_ms + r.below(3),
            8 => last_ms.saturating_sub(model.allowance.min(last_ms)),
            9 => last_ms.saturating_sub(model.allowance.saturating_add(1).min(last_ms)),
            10 => last_ms.saturating_sub(r.below(100_000)),
            11 => FIRST_MS + r.below(LAST_MS - FIRST_MS + 1),
            12 => LAST_MS - r.below(4),
            13 => [0, TIMESTAMP_BIAS, LAST_MS + 1, u64::MAX, r.next_u64()][r.below(5) as usize],
            _ => last_ms.saturating_add(r.below(2_000)),
        };
        clock.set(clock_ms);
        match r.below(100) {
            // Now and then: a new allowance, or a resume point (reserved and extreme
            // IDs included).
            0 => {
                let allowance =
                    [0, 1, 1000, DEFAULT_ROLLBACK_ALLOWANCE, u64::MAX][r.below(5) as usize];
                g.set_rollback_allowance(allowance);
                model.allowance = allowance;
            }
            1 => {
                let ts = match r.below(4) {
                    0 => 0,
                    1 => MAX_TIMESTAMP,
                    2 => MAX_TIMESTAMP - 1,
                    _ => r.below(MAX_TIMESTAMP + 1),
                };
                let counter = if r.below(2) == 0 {
                    MAX_COUNTER
                } else {
                    u32::try_from(r.below(u64::from(MAX_COUNTER) + 1)).unwrap()
                };
                let id = Scru128Id::from_fields(ts, counter, 0, 0);
                g.resume_after(id);
                // A generator already past the resume point keeps its own state.
                model.last = Some(
                    model
                        .last
                        .map_or((ts, counter), |last| last.max((ts, counter))),
                );
                model.renew_at = 0;
                model.clock_high = model.clock_high.max(ts);
            }
            _ => {
                let variant = ALL[r.below(ALL.len() as u64) as usize];
                let expect = model.expect(clock_ms, variant.aborts());
                let got = call(&mut g, variant, &clock);
                seen[match &expect {
                    Expect::Counter(..) => 0,
                    Expect::Fresh(t) if model.last.is_some_and(|(ts, _)| *t < ts) => 1,
                    Expect::Fresh(_) => 2,
                    Expect::Error(GenerateError::ClockRollback { .. }) => 3,
                    Expect::Error(GenerateError::ClockOutOfRange { .. }) => 4,
                    Expect::Error(_) => 5,
                }] += 1;
                model.check(&expect, &got, variant, clock_ms);
            }
        }
    }
    // Every path was taken many times: counting on, reset, new millisecond, rollback
    // reported, clock out of range, timestamps exhausted.
    println!("outcomes (counted on, reset, new ms, rollback, out of range, exhausted): {seen:?}");
    assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
}
