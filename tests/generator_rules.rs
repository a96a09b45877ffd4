//! The generator rules of SPEC section 3, checked field by field with an injected
//! clock (a shared cell the test moves) and an injected random source (scripted
//! values, then the 1-based index of the draw, so every field tells which draw made
//! it). Inside one ID the draws come in this order: counter (when a new timestamp is
//! taken), `per_sec_random` (when due), `per_gen_random`.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

mod common;

use scru128::{
    DEFAULT_ROLLBACK_ALLOWANCE, GenerateError, MAX_COUNTER, MAX_PER_SEC_RANDOM, MAX_TIMESTAMP,
    Scru128Generator, Scru128Id, TIMESTAMP_BIAS,
};

/// A clock reading well inside the range: 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
/// Its timestamp field.
const TS0: u64 = T0 - TIMESTAMP_BIAS;
/// The last clock reading a generator accepts.
const LAST_MS: u64 = TIMESTAMP_BIAS + MAX_TIMESTAMP - 1;

/// Random source: scripted values first, then the 1-based index of each draw.
#[derive(Clone, Default)]
struct TestRng {
    draws: Rc<Cell<u32>>,
    script: Rc<RefCell<VecDeque<u32>>>,
}

impl TestRng {
    fn source(&self) -> impl FnMut() -> u32 + use<> {
        let me = self.clone();
        move || {
            let n = me.draws.get() + 1;
            me.draws.set(n);
            me.script.borrow_mut().pop_front().unwrap_or(n)
        }
    }

    /// The next draws return these values (each draw still counts).
    fn script(&self, values: &[u32]) {
        self.script.borrow_mut().extend(values);
    }

    fn draws(&self) -> u32 {
        self.draws.get()
    }
}

/// Clock: a shared cell of Unix milliseconds that also counts its reads.
#[derive(Clone)]
struct TestClock {
    now: Rc<Cell<u64>>,
    reads: Rc<Cell<u32>>,
}

impl TestClock {
    fn at(ms: u64) -> Self {
        Self {
            now: Rc::new(Cell::new(ms)),
            reads: Rc::new(Cell::new(0)),
        }
    }

    fn source(&self) -> impl FnMut() -> u64 + use<> {
        let me = self.clone();
        move || {
            me.reads.set(me.reads.get() + 1);
            me.now.get()
        }
    }

    fn set(&self, ms: u64) {
        self.now.set(ms);
    }

    fn reads(&self) -> u32 {
        self.reads.get()
    }
}

type TestGen = Scru128Generator<Box<dyn FnMut() -> u32>, Box<dyn FnMut() -> u64>>;

/// A generator over a fresh [`TestRng`] and a [`TestClock`] reading `ms`.
fn setup(ms: u64) -> (TestGen, TestRng, TestClock) {
    let rng = TestRng::default();
    let clock = TestClock::at(ms);
    let g = Scru128Generator::with_rng_and_clock(
        Box::new(rng.source()) as Box<dyn FnMut() -> u32>,
        Box::new(clock.source()) as Box<dyn FnMut() -> u64>,
    );
    (g, rng, clock)
}

fn fields(id: Scru128Id) -> (u64, u32, u32, u32) {
    (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    )
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else {
        String::from("<non-string panic payload>")
    }
}

/// Serializes the swaps of the process-wide panic hook between tests.
static HOOK_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `f`, expecting a panic, and returns its message (the panic output is muted).
fn expect_panic<T: std::fmt::Debug>(f: impl FnOnce() -> T) -> String {
    let _guard = HOOK_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match result {
        Ok(value) => panic!("expected a panic, got {value:?}"),
        Err(payload) => panic_message(&*payload),
    }
}

fn assert_strictly_increasing(ids: &[Scru128Id]) {
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{} !< {}", w[0], w[1]);
        assert!(w[0].encode() < w[1].encode());
        assert!(w[0].as_u128() < w[1].as_u128());
    }
}

#[test]
fn same_millisecond_counter_steps_by_exactly_one() {
    let (mut g, rng, clock) = setup(T0);
    let ids: Vec<Scru128Id> = (0..1000).map(|_| g.generate()).collect();
    // First ID: counter = draw 1, per_sec_random = draw 2, per_gen_random = draw 3;
    // then one draw (per_gen_random) per ID.
    for (k, &id) in ids.iter().enumerate() {
        let k = u32::try_from(k).unwrap();
        assert_eq!(fields(id), (TS0, 1 + k, 2, 3 + k), "ID {k}");
    }
    assert_eq!(rng.draws(), 1002);
    assert_eq!(clock.reads(), 1000);
    assert_strictly_increasing(&ids);
}

#[test]
fn new_millisecond_resets_counter_to_masked_random_and_per_gen_is_fresh() {
    let (mut g, rng, clock) = setup(T0);
    rng.script(&[0xF123_4567, 0xFFAB_CDEF, 0xDEAD_BEEF]);
    let a = g.generate();
    // Counter masked to 28 bits, per_sec_random to 24 bits, per_gen_random whole.
    assert_eq!(fields(a), (TS0, 0x0123_4567, 0xAB_CDEF, 0xDEAD_BEEF));
    let b = g.generate();
    assert_eq!(fields(b), (TS0, 0x0123_4568, 0xAB_CDEF, 4));

    clock.set(T0 + 1);
    rng.script(&[0x7000_0005, 0x1234_5678]);
    let c = g.generate();
    // A lower counter than before, but a later timestamp: still greater.
    assert_eq!(fields(c), (TS0 + 1, 5, 0xAB_CDEF, 0x1234_5678));
    assert!(c > b);

    clock.set(T0 + 2);
    let d = g.generate();
    assert_eq!(fields(d), (TS0 + 2, 7, 0xAB_CDEF, 8));

    // All ones: the masks keep the fields in range.
    let (mut g, rng, _clock) = setup(T0);
    rng.script(&[u32::MAX, u32::MAX, u32::MAX]);
    assert_eq!(
        fields(g.generate()),
        (TS0, MAX_COUNTER, MAX_PER_SEC_RANDOM, u32::MAX)
    );
}

#[test]
fn counter_overflow_borrows_the_next_millisecond_without_blocking() {
    let (mut g, rng, clock) = setup(T0);
    rng.script(&[0x0FFF_FFFE]);
    let a = g.generate();
    assert_eq!(fields(a), (TS0, 0x0FFF_FFFE, 2, 3));
    let b = g.generate();
    assert_eq!(fields(b), (TS0, MAX_COUNTER, 2, 4));
    // Overflow: timestamp + 1 with a fresh counter (draw 5); per_sec_random is not
    // due (1 ms after its renewal); per_gen_random is draw 6.
    let c = g.generate();
    assert_eq!(fields(c), (TS0 + 1, 5, 2, 6));
    // The clock is still behind: keep counting at the borrowed timestamp.
    let d = g.generate();
    assert_eq!(fields(d), (TS0 + 1, 6, 2, 7));
    let e = g.generate();
    assert_eq!(fields(e), (TS0 + 1, 7, 2, 8));
    // The clock catches up with the borrowed millisecond: still counting on.
    clock.set(T0 + 1);
    let f = g.generate();
    assert_eq!(fields(f), (TS0 + 1, 8, 2, 9));
    // And passes it: a new timestamp and a fresh counter.
    clock.set(T0 + 2);
    let h = g.generate();
    assert_eq!(fields(h), (TS0 + 2, 10, 2, 11));
    // One clock read per ID: the generator never polled the clock waiting.
    assert_eq!(clock.reads(), 7);
    assert_strictly_increasing(&[a, b, c, d, e, f, h]);
}

#[test]
fn repeated_overflows_run_ahead_of_a_frozen_clock() {
    let (mut g, rng, clock) = setup(T0);
    rng.script(&[MAX_COUNTER]);
    let a = g.generate();
    assert_eq!(fields(a), (TS0, MAX_COUNTER, 2, 3));
    rng.script(&[u32::MAX]);
    let b = g.generate();
    assert_eq!(fields(b), (TS0 + 1, MAX_COUNTER, 2, 5));
    let c = g.generate();
    assert_eq!(fields(c), (TS0 + 2, 6, 2, 7));
    let d = g.generate();
    assert_eq!(fields(d), (TS0 + 2, 7, 2, 8));
    assert_strictly_increasing(&[a, b, c, d]);
    // A rollback is measured from the clock's latest reading (T0), not from the
    // borrowed timestamp: 10_001 ms behind TS0 + 2 is only 9_999 behind the clock,
    // so the generator counts on.
    clock.set(T0 + 2 - 10_001);
    assert_eq!(fields(g.generate_or_abort().unwrap()), (TS0 + 2, 8, 2, 9));
    // 10_001 ms behind the clock is a rollback.
    clock.set(T0 - 10_001);
    assert_eq!(
        g.generate_or_abort(),
        Err(GenerateError::ClockRollback {
            last_unix_ts_ms: T0,
            unix_ts_ms: T0 - 10_001,
        })
    );
    // 10_000 behind it is still counted on.
    clock.set(T0 - 10_000);
    assert_eq!(fields(g.generate_or_abort().unwrap()), (TS0 + 2, 9, 2, 10));
}

#[test]
fn running_ahead_of_a_frozen_clock_never_resets() {
    // A source stuck at the top makes every new timestamp overflow at once, so the
    // timestamp runs ahead of the frozen clock by 1 ms per 2 IDs: far past the
    // allowance, and still no reset, no reordering.
    let mut stuck = Scru128Generator::with_rng_and_clock(|| u32::MAX, move || T0);
    stuck.set_rollback_allowance(10);
    let ids: Vec<Scru128Id> = (0..1000).map(|_| stuck.generate()).collect();
    assert_strictly_increasing(&ids);
    assert!(ids[999].timestamp() - TS0 > 400);
}

#[test]
fn small_rollback_keeps_the_last_timestamp_and_counts_on() {
    let (mut g, rng, clock) = setup(T0);
    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
    clock.set(T0 - 1);
    assert_eq!(fields(g.generate()), (TS0, 2, 2, 4));
    // Exactly the allowance.
    clock.set(T0 - DEFAULT_ROLLBACK_ALLOWANCE);
    assert_eq!(fields(g.generate()), (TS0, 3, 2, 5));
    assert_eq!(fields(g.try_generate().unwrap()), (TS0, 4, 2, 6));
    assert_eq!(fields(g.generate_or_abort().unwrap()), (TS0, 5, 2, 7));
    assert_eq!(
        fields(g.generate_or_abort_at(T0 - 10_000).unwrap()),
        (TS0, 6, 2, 8)
    );
    assert_eq!(fields(g.try_generate_at(T0 - 1).unwrap()), (TS0, 7, 2, 9));
    clock.set(T0);
    assert_eq!(fields(g.generate()), (TS0, 8, 2, 10));
    assert_eq!(rng.draws(), 10);
}

#[test]
fn large_rollback_resets_in_the_resetting_methods() {
    for variant in ["generate", "try_generate", "try_generate_at", "fill"] {
        let (mut g, rng, clock) = setup(T0);
        let a = g.generate();
        let b = g.generate();
        assert_eq!(fields(a), (TS0, 1, 2, 3));
        assert_eq!(fields(b), (TS0, 2, 2, 4));
        let back = T0 - DEFAULT_ROLLBACK_ALLOWANCE - 1;
        clock.set(back);
        let c = match variant {
            "generate" => g.generate(),
            "try_generate" => g.try_generate().unwrap(),
            "try_generate_at" => g.try_generate_at(back).unwrap(),
            _ => {
                let mut one = [Scru128Id::MIN];
                g.fill(&mut one);
                one[0]
            }
        };
        // Reset: timestamp = now, fresh counter (draw 5), per_sec_random renewed
        // (draw 6), per_gen_random (draw 7). Order with the earlier IDs is broken.
        assert_eq!(fields(c), (TS0 - 10_001, 5, 6, 7), "{variant}");
        assert!(c < a, "{variant}");
        // The generator carries on from the new state.
        let d = g.generate();
        assert_eq!(fields(d), (TS0 - 10_001, 6, 6, 8), "{variant}");
        assert_eq!(rng.draws(), 8, "{variant}");
    }
}

#[test]
fn large_rollback_is_reported_by_the_abort_methods_and_changes_nothing() {
    for variant in ["generate_or_abort", "generate_or_abort_at"] {
        let (mut g, rng, clock) = setup(T0);
        assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
        let back = T0 - DEFAULT_ROLLBACK_ALLOWANCE - 1;
        clock.set(back);
        let expected = GenerateError::ClockRollback {
            last_unix_ts_ms: T0,
            unix_ts_ms: back,
        };
        for _ in 0..3 {
            let result = match variant {
                "generate_or_abort" => g.generate_or_abort(),
                _ => g.generate_or_abort_at(back),
            };
            assert_eq!(result, Err(expected), "{variant}");
        }
        assert_eq!(
            expected.to_string(),
            format!(
                "clock went back 10001 ms (from unix time {T0} ms to {back} ms), \
                 more than the rollback allowance"
            )
        );
        // Nothing drawn, nothing changed: once the clock is back, the next ID continues
        // from before the failed calls.
        assert_eq!(rng.draws(), 3, "{variant}");
        clock.set(T0 - 3);
        let next = match variant {
            "generate_or_abort" => g.generate_or_abort(),
            _ => g.generate_or_abort_at(T0 - 3),
        };
        assert_eq!(fields(next.unwrap()), (TS0, 2, 2, 4), "{variant}");
    }
}

#[test]
fn set_rollback_allowance_moves_the_threshold() {
    let (mut g, _rng, clock) = setup(T0);
    assert_eq!(DEFAULT_ROLLBACK_ALLOWANCE, 10_000);
    assert_eq!(g.rollback_allowance(), DEFAULT_ROLLBACK_ALLOWANCE);
    g.set_rollback_allowance(100);
    assert_eq!(g.rollback_allowance(), 100);

    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
    clock.set(T0 - 100);
    assert_eq!(fields(g.generate()), (TS0, 2, 2, 4));
    assert_eq!(
        g.generate_or_abort_at(T0 - 101),
        Err(GenerateError::ClockRollback {
            last_unix_ts_ms: T0,
            unix_ts_ms: T0 - 101
        })
    );
    clock.set(T0 - 101);
    assert_eq!(fields(g.generate()), (TS0 - 101, 5, 6, 7));

    // Allowance 0: the same millisecond still counts on, one step back does not.
    g.set_rollback_allowance(0);
    assert_eq!(fields(g.generate()), (TS0 - 101, 6, 6, 8));
    clock.set(T0 - 102);
    assert_eq!(
        g.generate_or_abort(),
        Err(GenerateError::ClockRollback {
            last_unix_ts_ms: T0 - 101,
            unix_ts_ms: T0 - 102
        })
    );
    // Raised again: the same step back is absorbed.
    g.set_rollback_allowance(20_000);
    assert_eq!(fields(g.generate_or_abort().unwrap()), (TS0 - 101, 7, 6, 9));
    clock.set(T0 - 101 - 20_000);
    assert_eq!(
        fields(g.generate_or_abort().unwrap()),
        (TS0 - 101, 8, 6, 10)
    );
}

#[test]
fn per_sec_random_is_renewed_at_exactly_1000_ms_after_the_last_renewal() {
    let (mut g, _rng, clock) = setup(T0);
    let mut at = |ms: u64| {
        clock.set(ms);
        fields(g.generate())
    };
    assert_eq!(at(T0), (TS0, 1, 2, 3));
    // +999: not renewed (counter 4, per_gen 5).
    assert_eq!(at(T0 + 999), (TS0 + 999, 4, 2, 5));
    // +1000: renewed, drawn between the counter and per_gen_random.
    assert_eq!(at(T0 + 1000), (TS0 + 1000, 6, 7, 8));
    assert_eq!(at(T0 + 1000), (TS0 + 1000, 7, 7, 9));
    assert_eq!(at(T0 + 1999), (TS0 + 1999, 10, 7, 11));
    assert_eq!(at(T0 + 2000), (TS0 + 2000, 12, 13, 14));
    // After a gap, the next second counts from that renewal, not from T0.
    assert_eq!(at(T0 + 5500), (TS0 + 5500, 15, 16, 17));
    assert_eq!(at(T0 + 6000), (TS0 + 6000, 18, 16, 19));
    assert_eq!(at(T0 + 6499), (TS0 + 6499, 20, 16, 21));
    assert_eq!(at(T0 + 6500), (TS0 + 6500, 22, 23, 24));
}

#[test]
fn clock_out_of_range_is_an_error_never_a_wrap() {
    let out_of_range = [
        0,
        1_000,
        TIMESTAMP_BIAS - 1,
        // The reserved timestamp 0.
        TIMESTAMP_BIAS,
        // The reserved timestamp 2^44-1, and past it.
        TIMESTAMP_BIAS + MAX_TIMESTAMP,
        TIMESTAMP_BIAS + MAX_TIMESTAMP + 1,
        u64::MAX,
    ];
    for ms in out_of_range {
        let expected = GenerateError::ClockOutOfRange { unix_ts_ms: ms };
        let (mut g, rng, _clock) = setup(ms);
        assert_eq!(g.try_generate(), Err(expected), "{ms}");
        assert_eq!(g.generate_or_abort(), Err(expected), "{ms}");
        assert_eq!(g.try_generate_at(ms), Err(expected), "{ms}");
        assert_eq!(g.generate_or_abort_at(ms), Err(expected), "{ms}");
        let mut ids = [Scru128Id::MIN; 3];
        assert_eq!(g.try_fill(&mut ids), Err(expected), "{ms}");
        assert_eq!(ids, [Scru128Id::MIN; 3], "{ms}: untouched");
        assert_eq!(rng.draws(), 0, "{ms}");

        let msg = expected.to_string();
        assert!(msg.contains("outside the range"), "{msg}");
        assert!(msg.contains(&format!("unix time {ms} ms")), "{msg}");

        let msg = expect_panic(|| g.generate());
        assert!(msg.contains("outside the range"), "{ms}: {msg}");
        let msg = expect_panic(|| g.fill(&mut ids));
        assert!(msg.contains("outside the range"), "{ms}: {msg}");
        let msg = expect_panic(|| g.next());
        assert!(msg.contains("outside the range"), "{ms}: {msg}");
    }
}

#[test]
#[should_panic(expected = "outside the range")]
fn generate_panics_on_a_clock_before_2020() {
    let mut g = Scru128Generator::with_rng_and_clock(|| 1u32, || 0u64);
    let _ = g.generate();
}

#[test]
#[should_panic(expected = "outside the range")]
fn generate_panics_on_a_clock_at_the_last_millisecond() {
    let mut g = Scru128Generator::with_rng_and_clock(|| 1u32, || TIMESTAMP_BIAS + MAX_TIMESTAMP);
    let _ = g.generate();
}

#[test]
fn a_bad_clock_reading_leaves_the_state_unchanged() {
    let (mut g, rng, clock) = setup(T0);
    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
    clock.set(0);
    assert!(g.try_generate().is_err());
    clock.set(u64::MAX);
    assert!(g.try_generate().is_err());
    assert_eq!(rng.draws(), 3);
    clock.set(T0);
    assert_eq!(fields(g.generate()), (TS0, 2, 2, 4));
}

#[test]
fn the_edges_of_the_clock_range_are_accepted() {
    let (mut g, _rng, _clock) = setup(TIMESTAMP_BIAS + 1);
    assert_eq!(fields(g.generate()), (1, 1, 2, 3));
    let (mut g, _rng, _clock) = setup(LAST_MS);
    assert_eq!(fields(g.generate()), (MAX_TIMESTAMP - 1, 1, 2, 3));
}

#[test]
fn counter_overflow_at_the_last_timestamp_is_timestamp_exhausted() {
    let (mut g, rng, clock) = setup(LAST_MS);
    rng.script(&[MAX_COUNTER - 1]);
    let a = g.try_generate().unwrap();
    assert_eq!(fields(a), (MAX_TIMESTAMP - 1, MAX_COUNTER - 1, 2, 3));
    let b = g.try_generate().unwrap();
    assert_eq!(fields(b), (MAX_TIMESTAMP - 1, MAX_COUNTER, 2, 4));
    // The next would take the reserved timestamp 2^44-1.
    for _ in 0..2 {
        assert_eq!(g.try_generate(), Err(GenerateError::TimestampExhausted));
        assert_eq!(
            g.generate_or_abort(),
            Err(GenerateError::TimestampExhausted)
        );
        assert_eq!(
            g.try_generate_at(LAST_MS),
            Err(GenerateError::TimestampExhausted)
        );
        assert_eq!(
            g.generate_or_abort_at(LAST_MS),
            Err(GenerateError::TimestampExhausted)
        );
    }
    // Also with the clock a little behind.
    clock.set(LAST_MS - 5);
    assert_eq!(g.try_generate(), Err(GenerateError::TimestampExhausted));
    let msg = expect_panic(|| g.generate());
    assert!(msg.contains("no greater ID left"), "{msg}");
    assert_eq!(
        GenerateError::TimestampExhausted.to_string(),
        "no greater ID left: the counter overflowed at the last timestamp"
    );
}

#[test]
fn try_fill_stops_at_timestamp_exhausted_leaving_the_rest_untouched() {
    let (mut g, rng, _clock) = setup(LAST_MS);
    rng.script(&[MAX_COUNTER - 1]);
    let mut ids = [Scru128Id::MIN; 4];
    assert_eq!(g.try_fill(&mut ids), Err(GenerateError::TimestampExhausted));
    assert_eq!(fields(ids[0]), (MAX_TIMESTAMP - 1, MAX_COUNTER - 1, 2, 3));
    assert_eq!(fields(ids[1]), (MAX_TIMESTAMP - 1, MAX_COUNTER, 2, 4));
    assert_eq!(ids[2], Scru128Id::MIN);
    assert_eq!(ids[3], Scru128Id::MIN);
    let msg = expect_panic(|| g.fill(&mut ids));
    assert!(msg.contains("no greater ID left"), "{msg}");
}

#[test]
fn resume_after_the_last_counter_at_the_last_timestamp_is_exhausted() {
    let last = Scru128Id::from_fields(MAX_TIMESTAMP - 1, MAX_COUNTER, 0, 0);
    for clock_ms in [LAST_MS, LAST_MS - 10, LAST_MS - DEFAULT_ROLLBACK_ALLOWANCE] {
        let (mut g, _rng, _clock) = setup(clock_ms);
        g.resume_after(last);
        assert_eq!(
            g.try_generate(),
            Err(GenerateError::TimestampExhausted),
            "{clock_ms}"
        );
        assert_eq!(
            g.generate_or_abort(),
            Err(GenerateError::TimestampExhausted),
            "{clock_ms}"
        );
    }
}

#[test]
fn fill_matches_generate_id_for_id_with_one_clock_read() {
    let clock_a = TestClock::at(T0);
    let clock_b = TestClock::at(T0);
    let mut filler = Scru128Generator::with_rng_and_clock(common::xorshift32(7), clock_a.source());
    let mut one_by_one =
        Scru128Generator::with_rng_and_clock(common::xorshift32(7), clock_b.source());

    let mut batch = vec![Scru128Id::MIN; 10_000];
    filler.fill(&mut batch);
    assert_eq!(clock_a.reads(), 1);
    let expected: Vec<Scru128Id> = (0..10_000).map(|_| one_by_one.generate()).collect();
    assert_eq!(batch, expected);
    assert_strictly_increasing(&batch);
    for w in batch.windows(2) {
        if w[0].timestamp() == w[1].timestamp() {
            assert_eq!(w[1].counter(), w[0].counter() + 1);
        }
    }

    // A second batch after the clock moved, with try_fill.
    clock_a.set(T0 + 1500);
    clock_b.set(T0 + 1500);
    filler.try_fill(&mut batch).unwrap();
    assert_eq!(clock_a.reads(), 2);
    let expected: Vec<Scru128Id> = (0..10_000).map(|_| one_by_one.generate()).collect();
    assert_eq!(batch, expected);
    assert_eq!(batch[0].timestamp(), TS0 + 1500);
}

#[test]
fn fill_across_a_counter_overflow() {
    let (mut g, rng, clock) = setup(T0);
    rng.script(&[MAX_COUNTER - 5]);
    let mut ids = [Scru128Id::MIN; 20];
    g.fill(&mut ids);
    assert_eq!(clock.reads(), 1);
    for (k, &id) in ids[..6].iter().enumerate() {
        let k = u32::try_from(k).unwrap();
        assert_eq!(fields(id), (TS0, MAX_COUNTER - 5 + k, 2, 3 + k), "ID {k}");
    }
    assert_eq!(fields(ids[6]), (TS0 + 1, 9, 2, 10));
    for (j, &id) in ids[7..].iter().enumerate() {
        let j = u32::try_from(j).unwrap();
        assert_eq!(fields(id), (TS0 + 1, 10 + j, 2, 11 + j), "ID {}", 7 + j);
    }
    assert_strictly_increasing(&ids);

    // The same script through generate with a frozen clock gives the same IDs.
    let (mut h, rng, _clock) = setup(T0);
    rng.script(&[MAX_COUNTER - 5]);
    let one_by_one: Vec<Scru128Id> = (0..20).map(|_| h.generate()).collect();
    assert_eq!(ids.to_vec(), one_by_one);
}

#[test]
fn fill_across_a_per_second_renewal() {
    let (mut g, rng, clock) = setup(T0);
    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
    clock.set(T0 + 999);
    rng.script(&[MAX_COUNTER - 1]);
    assert_eq!(fields(g.generate()), (TS0 + 999, MAX_COUNTER - 1, 2, 5));
    let mut ids = [Scru128Id::MIN; 4];
    g.fill(&mut ids);
    assert_eq!(fields(ids[0]), (TS0 + 999, MAX_COUNTER, 2, 6));
    // The overflow reaches +1000 ms from the renewal: counter draw 7, renewal draw 8,
    // per_gen_random draw 9.
    assert_eq!(fields(ids[1]), (TS0 + 1000, 7, 8, 9));
    assert_eq!(fields(ids[2]), (TS0 + 1000, 8, 8, 10));
    assert_eq!(fields(ids[3]), (TS0 + 1000, 9, 8, 11));
    assert_eq!(clock.reads(), 3);
}

#[test]
fn fill_of_nothing_is_fine() {
    let (mut g, rng, _clock) = setup(T0);
    g.fill(&mut []);
    assert_eq!(g.try_fill(&mut []), Ok(()));
    assert_eq!(rng.draws(), 0);
    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
}

#[test]
fn resume_after_continues_when_the_clock_is_behind_within_the_allowance() {
    let last = Scru128Id::from_fields(TS0, 1000, 0xAAAA, 0xBBBB);
    for behind in [0, 1, 5_000, DEFAULT_ROLLBACK_ALLOWANCE] {
        let (mut g, _rng, _clock) = setup(T0 - behind);
        g.resume_after(last);
        let next = g.generate();
        // counter = last + 1 (no counter draw), per_sec_random renewed (draw 1),
        // per_gen_random (draw 2).
        assert_eq!(fields(next), (TS0, 1001, 1, 2), "behind {behind}");
        assert!(next > last);
        assert_eq!(fields(g.generate()), (TS0, 1002, 1, 3));
    }
}

#[test]
fn resume_after_renews_per_sec_random_at_the_next_id() {
    // Even on a generator whose last renewal is less than a second old.
    let (mut g, _rng, clock) = setup(T0);
    assert_eq!(fields(g.generate()), (TS0, 1, 2, 3));
    clock.set(T0 + 500);
    g.resume_after(Scru128Id::from_fields(TS0 + 500, 1000, 0xAAAA, 0xBBBB));
    assert_eq!(fields(g.generate()), (TS0 + 500, 1001, 4, 5));
    assert_eq!(fields(g.generate()), (TS0 + 500, 1002, 4, 6));
}

#[test]
fn resume_after_takes_a_new_timestamp_when_the_clock_is_ahead() {
    let last = Scru128Id::from_fields(TS0, 1000, 0xAAAA, 0xBBBB);
    let (mut g, _rng, _clock) = setup(T0 + 1);
    g.resume_after(last);
    let next = g.generate();
    assert_eq!(fields(next), (TS0 + 1, 1, 2, 3));
    assert!(next > last);
}

#[test]
fn resume_after_an_id_with_the_last_counter_moves_on_a_millisecond() {
    let last = Scru128Id::from_fields(TS0, MAX_COUNTER, 0xAAAA, 0xBBBB);
    let (mut g, _rng, _clock) = setup(T0);
    g.resume_after(last);
    let next = g.generate();
    assert_eq!(fields(next), (TS0 + 1, 1, 2, 3));
    assert!(next > last);
}

#[test]
fn resume_after_with_the_clock_far_behind_resets_or_errors() {
    let last = Scru128Id::from_fields(TS0, 1000, 0xAAAA, 0xBBBB);
    let back = T0 - DEFAULT_ROLLBACK_ALLOWANCE - 1;

    let (mut g, _rng, _clock) = setup(back);
    g.resume_after(last);
    let next = g.generate();
    assert_eq!(fields(next), (TS0 - 10_001, 1, 2, 3));
    assert!(next < last, "generate resets: the order is broken");

    let (mut g, rng, clock) = setup(back);
    g.resume_after(last);
    assert_eq!(
        g.generate_or_abort(),
        Err(GenerateError::ClockRollback {
            last_unix_ts_ms: T0,
            unix_ts_ms: back
        })
    );
    assert_eq!(rng.draws(), 0);
    clock.set(T0);
    assert_eq!(fields(g.generate_or_abort().unwrap()), (TS0, 1001, 1, 2));
}

#[test]
fn iterator_gives_increasing_ids() {
    // A clock that ticks every third read, so timestamps change within the run.
    let reads = Cell::new(0u64);
    let clock = move || {
        reads.set(reads.get() + 1);
        T0 + reads.get() / 3
    };
    let g = Scru128Generator::with_rng_and_clock(common::xorshift32(11), clock);
    let ids: Vec<Scru128Id> = g.take(1000).collect();
    assert_eq!(ids.len(), 1000);
    assert_strictly_increasing(&ids);
    assert_eq!(ids[0].timestamp(), TS0);
    assert_eq!(ids[999].timestamp(), TS0 + 1000 / 3);

    let ids: Vec<Scru128Id> = Scru128Generator::new().take(1000).collect();
    assert_strictly_increasing(&ids);

    // The iterator is the same sequence as generate.
    let (mut g, rng, _clock) = setup(T0);
    let first: Vec<Scru128Id> = g.by_ref().take(3).collect();
    assert_eq!(fields(first[2]), (TS0, 3, 2, 5));
    assert_eq!(fields(g.generate()), (TS0, 4, 2, 6));
    assert_eq!(rng.draws(), 6);
}

#[test]
fn the_clock_is_read_once_per_generate_and_once_per_fill() {
    let (mut g, _rng, clock) = setup(T0);
    for n in 1..=5 {
        g.generate();
        assert_eq!(clock.reads(), n);
    }
    g.try_generate().unwrap();
    assert_eq!(clock.reads(), 6);
    g.generate_or_abort().unwrap();
    assert_eq!(clock.reads(), 7);
    g.next();
    assert_eq!(clock.reads(), 8);
    // The `_at` variants take the time as an argument.
    g.try_generate_at(T0).unwrap();
    g.generate_or_abort_at(T0).unwrap();
    assert_eq!(clock.reads(), 8);
    let mut ids = [Scru128Id::MIN; 100];
    g.fill(&mut ids);
    assert_eq!(clock.reads(), 9);
    g.try_fill(&mut ids).unwrap();
    assert_eq!(clock.reads(), 10);
    // Even on errors: one read.
    clock.set(0);
    assert!(g.try_generate().is_err());
    assert!(g.try_fill(&mut ids).is_err());
    assert_eq!(clock.reads(), 12);
}

#[test]
fn ids_increase_under_a_wandering_clock() {
    // A random walk of the clock within the allowance, and random values that often
    // put the counter near its maximum, so overflows happen too.
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        seed ^= seed << 7;
        seed ^= seed >> 9;
        seed
    };
    let draws = Rc::new(RefCell::new(Vec::<u64>::new()));
    let draws_in = Rc::clone(&draws);
    let rng = move || {
        let v = draws_in.borrow_mut().pop().unwrap_or(0);
        #[allow(clippy::cast_possible_truncation)]
        let v = v as u32;
        if v % 4 == 0 { v | 0x0FFF_FFF8 } else { v }
    };
    let clock = TestClock::at(T0);
    let mut g = Scru128Generator::with_rng_and_clock(rng, clock.source());
    let mut now = T0;
    let mut prev: Option<Scru128Id> = None;
    let mut overflows = 0;
    for _ in 0..50_000 {
        draws.borrow_mut().extend([next(), next(), next()]);
        let step = next() % 100;
        if step < 20 {
            now -= next() % 3000;
        } else if step < 40 {
            now += next() % 50;
        }
        // Stay within the allowance of the last ID (which overflows can push ahead).
        if let Some(p) = prev {
            now = now.max(p.unix_ts_ms() - 9_000);
        }
        clock.set(now);
        let id = g.generate();
        let now_ts = now - TIMESTAMP_BIAS;
        assert!(id.timestamp() >= now_ts, "never behind the clock");
        if let Some(p) = prev {
            assert!(p < id, "{p} !< {id}");
            if id.timestamp() == p.timestamp() {
                assert_eq!(id.counter(), p.counter() + 1);
            } else if id.timestamp() != now_ts {
                // Only an overflow moves past the clock, by one millisecond.
                assert_eq!(p.counter(), MAX_COUNTER);
                assert_eq!(id.timestamp(), p.timestamp() + 1);
                overflows += 1;
            }
        }
        prev = Some(id);
        draws.borrow_mut().clear();
    }
    assert!(overflows > 0);
}

#[test]
fn resume_after_an_earlier_id_keeps_the_later_state() {
    // The generator is ahead of the ID it is told to resume after: it keeps its own
    // state, so no `(timestamp, counter)` comes twice and the order holds.
    let (mut g, _rng, _clock) = setup(T0);
    let made: Vec<Scru128Id> = (0..3).map(|_| g.generate()).collect();
    assert_eq!(made[2].counter(), 3);
    g.resume_after(Scru128Id::from_fields(TS0, 0, 0, 0));
    let next = g.generate();
    assert!(next > made[2], "{next} after {}", made[2]);
    assert_eq!((next.timestamp(), next.counter()), (TS0, 4));
    // An ID from long ago changes nothing either, beyond renewing per_sec_random.
    g.resume_after(Scru128Id::from_fields(TS0 - 50_000, MAX_COUNTER, 0, 0));
    let after = g.generate();
    assert_eq!((after.timestamp(), after.counter()), (TS0, 5));
    // A later ID is still taken.
    g.resume_after(Scru128Id::from_fields(TS0, 1_000, 0, 0));
    assert_eq!(g.generate().counter(), 1_001);
}

#[test]
fn resume_after_raises_the_rollback_reference_but_never_lowers_it() {
    // The clock read T0 + 20 s; resuming after an older ID must not make a later
    // reading of T0 (20 s back, beyond the allowance) look like a small step.
    let (mut g, _rng, clock) = setup(T0 + 20_000);
    g.generate();
    g.resume_after(Scru128Id::from_fields(TS0, 7, 0, 0));
    clock.set(T0);
    assert!(matches!(
        g.generate_or_abort(),
        Err(GenerateError::ClockRollback {
            last_unix_ts_ms,
            unix_ts_ms: T0
        }) if last_unix_ts_ms == T0 + 20_000
    ));
}

#[test]
fn clock_rollback_display_never_overflows() {
    // Built by hand with the readings the wrong way round, or at the extremes.
    for (last, now) in [(T0, T0 + 7), (0, u64::MAX), (u64::MAX, 0), (T0, T0)] {
        let err = GenerateError::ClockRollback {
            last_unix_ts_ms: last,
            unix_ts_ms: now,
        };
        let text = err.to_string();
        assert!(text.contains(&last.abs_diff(now).to_string()), "{text}");
        assert!(text.contains(&format!("from unix time {last} ms to {now} ms")));
    }
}

/// A source that makes numbers of a given width itself (as Python's `getrandbits(k)`):
/// records each request, `next_bits(k)` or `next_u32`, and answers with too many bits.
struct WidthRecorder(Rc<RefCell<Vec<u32>>>);

impl scru128::RandomSource for WidthRecorder {
    fn next_u32(&mut self) -> u32 {
        self.0.borrow_mut().push(32);
        0xdead_beef
    }

    fn next_bits(&mut self, bits: u32) -> u32 {
        self.0.borrow_mut().push(bits);
        u32::MAX // more than `bits` bits: the generator must keep the low ones only
    }
}

#[test]
fn counter_and_per_sec_random_are_drawn_by_width_and_masked() {
    let widths = Rc::new(RefCell::new(Vec::new()));
    let now = Rc::new(Cell::new(T0));
    let clock = {
        let now = now.clone();
        move || now.get()
    };
    let mut g = Scru128Generator::with_rng_and_clock(WidthRecorder(widths.clone()), clock);
    // new timestamp and per-second renewal: counter, per_sec_random, per_gen_random
    assert_eq!(
        fields(g.generate()),
        (TS0, MAX_COUNTER, MAX_PER_SEC_RANDOM, 0xdead_beef)
    );
    assert_eq!(*widths.borrow(), [28, 24, 32]);
    // the next millisecond: a fresh counter, the same per_sec_random
    now.set(T0 + 1);
    widths.borrow_mut().clear();
    assert_eq!(
        fields(g.generate()),
        (TS0 + 1, MAX_COUNTER, MAX_PER_SEC_RANDOM, 0xdead_beef)
    );
    assert_eq!(*widths.borrow(), [28, 32]);
    // the same millisecond: only per_gen_random (the counter has overflowed, so the
    // next millisecond is taken, with a fresh counter)
    widths.borrow_mut().clear();
    assert_eq!(fields(g.generate()).0, TS0 + 2);
    assert_eq!(*widths.borrow(), [28, 32]);
}
