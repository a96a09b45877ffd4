//! A broken random source must not break the order or the uniqueness of one
//! generator's IDs: those rest on `(timestamp, counter)` alone, never on the random
//! values. Sources that return a constant, all zeros, all ones, values that put
//! every new counter near its top (so that it overflows every few IDs), a source
//! that gets stuck after a while, and one that panics now and then; each with a
//! frozen clock and with clocks that tick, through `generate` and through `fill`,
//! a million IDs per combination, each checked against the one before as it comes.
//!
//! The last test is the combination that used to break (a source whose counter
//! draws sit at the top, so that every millisecond overflows after a few IDs, with a
//! clock that falls more than the rollback allowance behind the timestamp): a bug
//! found by this file and fixed; see docs/reliability.md, "Issues found and fixed".

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Once;

use scru128::{
    DEFAULT_ROLLBACK_ALLOWANCE, MAX_COUNTER, RandomSource, Scru128Generator, Scru128Id,
    TIMESTAMP_BIAS,
};

/// 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
const TS0: u64 = T0 - TIMESTAMP_BIAS;
/// IDs per combination.
const N: u64 = 1_000_000;

/// The broken sources, by name.
fn source(name: &str) -> Box<dyn FnMut() -> u32> {
    match name {
        "zeros" => Box::new(|| 0),
        "ones" => Box::new(|| u32::MAX),
        "constant" => Box::new(|| 0x5a5a_5a5a),
        // Counter 0x0fff_ff00 at every new millisecond: 256 IDs, then an overflow.
        "counter near the top" => Box::new(|| 0xffff_ff00),
        "alternating" => {
            let mut flip = false;
            Box::new(move || {
                flip = !flip;
                if flip { 0 } else { u32::MAX }
            })
        }
        // Fine for 1000 draws, then stuck at zero.
        "stuck" => {
            let mut state = 0x1234_5678u32;
            let mut draws = 0u32;
            Box::new(move || {
                draws += 1;
                if draws > 1000 {
                    return 0;
                }
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state
            })
        }
        _ => unreachable!("{name}"),
    }
}

/// How the clock moves: it reads `T0 + reads / reads_per_ms` (never moves with 0).
#[derive(Clone, Copy, Debug)]
struct Ticking {
    reads_per_ms: u64,
}

const FROZEN: Ticking = Ticking { reads_per_ms: 0 };

impl Ticking {
    fn clock(self) -> (impl FnMut() -> u64, Rc<Cell<u64>>) {
        let now = Rc::new(Cell::new(T0));
        let now_out = Rc::clone(&now);
        let mut reads = 0u64;
        let clock = move || {
            if let Some(ms) = reads.checked_div(self.reads_per_ms) {
                now.set(T0 + ms);
            }
            reads += 1;
            now.get()
        };
        (clock, now_out)
    }
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Generate,
    /// `fill` in batches of 100 IDs (one clock read per batch).
    Fill,
}

const BOTH: [Mode; 2] = [Mode::Generate, Mode::Fill];

/// What a run saw, or the first broken rule.
#[derive(Debug, Default)]
struct Seen {
    overflows: u64,
    new_ms_from_clock: u64,
}

/// Makes `n` IDs and checks each against the one before: strictly increasing (so
/// unique), the counter +1 within a millisecond, a new millisecond either from the
/// clock or right after the counter's top (+1 ms), never behind the clock.
fn run(rng: impl RandomSource, ticking: Ticking, mode: Mode, n: u64) -> Result<Seen, String> {
    let (clock, now) = ticking.clock();
    let mut g = Scru128Generator::with_rng_and_clock(rng, clock);
    let mut seen = Seen::default();
    let mut prev: Option<Scru128Id> = None;
    let mut batch = [Scru128Id::MIN; 100];
    let mut made = 0u64;
    while made < n {
        let ids: &[Scru128Id] = match mode {
            Mode::Generate => {
                batch[0] = g.generate();
                &batch[..1]
            }
            Mode::Fill => {
                let len = usize::try_from(n - made).map_or(batch.len(), |l| l.min(batch.len()));
                g.fill(&mut batch[..len]);
                &batch[..len]
            }
        };
        let clock_ts = now.get() - TIMESTAMP_BIAS;
        for &id in ids {
            if id.timestamp() < clock_ts {
                return Err(format!("ID {made}: {id} is behind the clock"));
            }
            if let Some(p) = prev {
                if id <= p {
                    return Err(format!("ID {made}: {id} does not follow {p}"));
                }
                if id.timestamp() == p.timestamp() {
                    if id.counter() != p.counter() + 1 {
                        return Err(format!("ID {made}: counter step {p} -> {id}"));
                    }
                } else if id.timestamp() == clock_ts && clock_ts > p.timestamp() {
                    seen.new_ms_from_clock += 1;
                } else if p.counter() == MAX_COUNTER && id.timestamp() == p.timestamp() + 1 {
                    seen.overflows += 1;
                } else {
                    return Err(format!(
                        "ID {made}: unexplained new millisecond {p} -> {id}"
                    ));
                }
            } else if id.timestamp() != TS0 {
                return Err(format!("first ID {id} is not at the clock"));
            }
            prev = Some(id);
            made += 1;
        }
    }
    Ok(seen)
}

/// Runs every combination of `sources` × `clocks` × `modes`; panics with every
/// failure found.
fn matrix(sources: &[&str], clocks: &[Ticking], modes: &[Mode], n: u64) -> Vec<(String, Seen)> {
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for &name in sources {
        for &ticking in clocks {
            for &mode in modes {
                let what = format!("{name}, {ticking:?}, {mode:?}");
                match run(source(name), ticking, mode, n) {
                    Ok(seen) => results.push((what, seen)),
                    Err(err) => failures.push(format!("{what}: {err}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    results
}

#[test]
fn broken_sources_keep_one_generators_ids_in_order_and_unique() {
    let clocks = [
        FROZEN,
        Ticking { reads_per_ms: 1000 },
        Ticking { reads_per_ms: 1 },
    ];
    let results = matrix(
        &["zeros", "constant", "counter near the top", "alternating"],
        &clocks,
        &BOTH,
        N,
    );
    // Each kind of step happened: with the counter near the top, a frozen clock
    // makes a million IDs over 3907 milliseconds, all by overflow.
    for (what, seen) in &results {
        if what.starts_with("counter near the top, Ticking { reads_per_ms: 0 }") {
            assert_eq!(seen.overflows, N.div_ceil(256) - 1, "{what}");
        }
    }
    assert!(results.iter().any(|(_, s)| s.new_ms_from_clock > 0));
}

#[test]
fn an_all_ones_source_keeps_order_while_the_clock_keeps_up() {
    // All ones: counter 2^28-1 at every new millisecond, so every ID overflows into
    // the next. That is fine as long as the clock moves at least as fast as the IDs
    // come (one per millisecond here: `generate` reads the clock for every ID)...
    matrix(
        &["ones"],
        &[Ticking { reads_per_ms: 1 }],
        &[Mode::Generate],
        N,
    );
    // ...or, with a frozen clock, for as long as the overflows have carried the
    // timestamp no further ahead of the clock than the rollback allowance.
    let allowance = DEFAULT_ROLLBACK_ALLOWANCE;
    matrix(&["ones", "stuck"], &[FROZEN], &BOTH, allowance + 1);
}

#[test]
fn a_source_that_panics_leaves_the_generator_consistent() {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&"random source failed") {
                default(info);
            }
        }));
    });
    let mut state = 0x9e37_79b9u32;
    let mut draws = 0u32;
    let rng = move || {
        draws += 1;
        assert!(draws % 97 != 0, "random source failed");
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Often near the counter's top, so that panics also hit overflows.
        if state % 3 == 0 {
            state | 0x0fff_ff00
        } else {
            state
        }
    };
    let (clock, _now) = Ticking { reads_per_ms: 50 }.clock();
    let mut g = Scru128Generator::with_rng_and_clock(rng, clock);
    let mut prev = Scru128Id::MIN;
    let (mut ok, mut panicked) = (0, 0);
    for k in 0..100_000 {
        let result = catch_unwind(AssertUnwindSafe(|| {
            if k % 2 == 0 {
                vec![g.generate()]
            } else {
                let mut ids = vec![Scru128Id::MIN; 7];
                g.fill(&mut ids);
                ids
            }
        }));
        match result {
            Ok(ids) => {
                for id in ids {
                    assert!(id > prev, "{id} after {prev}");
                    prev = id;
                    ok += 1;
                }
            }
            Err(_) => panicked += 1,
        }
    }
    assert!(
        ok > 100_000 && panicked > 1000,
        "{ok} IDs, {panicked} panics"
    );
}

/// Regression test (CHANGELOG.md, "Bugs found by the tests and reviews", 1): the rollback
/// allowance used to be measured from the last ID's timestamp, which counter
/// overflows carry ahead of the clock. With a source whose counter draws sit at the
/// top, every millisecond overflows after a few IDs; once the timestamp was more than
/// the allowance (10 s) ahead of a clock that does not keep up, `generate` took that
/// for a clock rollback and reset to the clock's millisecond: the order broke and,
/// with a constant source, the very first ID came again (all ones, frozen clock: ID
/// 10 002 equal to ID 1), and `generate_or_abort` failed with `ClockRollback` from
/// then on although the clock never went back. Rollbacks are now measured from the
/// latest clock reading.
#[test]
fn a_stuck_source_with_a_slow_clock_keeps_order() {
    matrix(
        &["ones", "stuck"],
        &[FROZEN, Ticking { reads_per_ms: 1000 }],
        &BOTH,
        N,
    );
    // 256 IDs per millisecond against a frozen clock: 10 s ahead after 2.56 million.
    matrix(&["counter near the top"], &[FROZEN], &BOTH, 4 * N);
    // No spurious rollback either.
    let mut g = Scru128Generator::with_rng_and_clock(|| u32::MAX, || T0);
    for k in 0..N {
        assert!(g.generate_or_abort().is_ok(), "ID {k}");
    }
}
