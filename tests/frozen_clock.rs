//! A clock that never moves, for hundreds of millions of IDs: the counter overflows
//! again and again, and the generator must neither repeat, nor reorder, nor wait for
//! the clock, and its timestamp may run ahead of the clock by exactly one millisecond
//! per counter overflow (SPEC section 3, rule 3), never more.
//!
//! Every ID is checked against the one before as it comes (strictly increasing as a
//! 128-bit integer, which implies unique; the counter +1 within a millisecond; a new
//! millisecond only right after the counter reached 2^28−1, and only +1), so nothing
//! but one batch is kept in memory.
//!
//! Release builds make 300 million IDs per run (more than 2^28, so at least one
//! overflow even from a counter start of 0):
//!
//! ```text
//! cargo test --release --test frozen_clock -- --nocapture
//! ```
//!
//! `SCRU128_FROZEN_IDS=N` sets another count. Debug builds (`cargo test`) make
//! 3 million, starting (with `resume_after`) a million
//! counters below the top so that the overflow still happens. `--nocapture` shows the
//! figures (IDs per second, overflows, drift).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;

use scru128::{DefaultRng, MAX_COUNTER, RandomSource, Scru128Generator, Scru128Id, TIMESTAMP_BIAS};

/// The frozen clock: 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
const TS0: u64 = T0 - TIMESTAMP_BIAS;
/// Counters per millisecond.
const PER_MS: u64 = MAX_COUNTER as u64 + 1;
/// IDs per `fill` call.
const BATCH: usize = 1 << 16;

/// IDs per run: the full 300 million in release builds; `SCRU128_FROZEN_IDS` sets
/// another count (e.g. 4294967296 for a run of 16 overflows).
fn run_length() -> u64 {
    if let Some(n) = std::env::var("SCRU128_FROZEN_IDS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if cfg!(debug_assertions) {
        3_000_000
    } else {
        300_000_000
    }
}

/// Where a debug run starts: `resume_after` this ID (the clock reads `T0`), so that the
/// counter overflows within a few IDs; release runs start fresh.
fn debug_start() -> Option<Scru128Id> {
    cfg!(debug_assertions).then(|| Scru128Id::from_fields(TS0, MAX_COUNTER - 1_000_000, 0, 0))
}

/// What a run saw.
#[derive(Debug)]
struct Run {
    ids: u64,
    /// Counter overflows: times the timestamp moved on (the clock never does).
    overflows: u64,
    first: Scru128Id,
    last: Scru128Id,
    clock_reads: u64,
    seconds: f64,
}

impl Run {
    #[allow(clippy::cast_precision_loss)]
    fn ids_per_second(&self) -> f64 {
        self.ids as f64 / self.seconds
    }

    fn print(&self, name: &str) {
        println!(
            "{name}: {} IDs in {:.2} s ({:.0} M IDs/s), {} overflows, timestamp {} ms ahead \
             of the clock, {} clock reads",
            self.ids,
            self.seconds,
            self.ids_per_second() / 1e6,
            self.overflows,
            self.last.timestamp() - TS0,
            self.clock_reads
        );
    }
}

/// How IDs are taken from the generator.
#[derive(Clone, Copy)]
enum Mode {
    /// `fill` in batches of [`BATCH`] (one clock read per batch).
    Fill,
    /// `generate`, one ID at a time (one clock read per ID).
    Generate,
}

/// Makes `n` IDs with a frozen clock and checks each against the one before.
fn frozen_run<R: RandomSource>(rng: R, n: u64, mode: Mode, start: Option<Scru128Id>) -> Run {
    let reads = Rc::new(Cell::new(0u64));
    let reads_in = Rc::clone(&reads);
    let clock = move || {
        reads_in.set(reads_in.get() + 1);
        T0
    };
    let mut g = Scru128Generator::with_rng_and_clock(rng, clock);
    if let Some(last) = start {
        g.resume_after(last);
    }
    let mut batch = vec![Scru128Id::MIN; BATCH];
    let mut prev: Option<u128> = start.map(Scru128Id::to_u128);
    let mut first = None;
    let mut per_sec = None;
    let mut overflows = 0u64;
    let mut left = n;
    let started = Instant::now();
    while left > 0 {
        let len = usize::try_from(left).map_or(BATCH, |l| l.min(BATCH));
        let ids = &mut batch[..len];
        match mode {
            Mode::Fill => g.fill(ids),
            Mode::Generate => {
                for slot in ids.iter_mut() {
                    *slot = g.generate();
                }
            }
        }
        for id in ids.iter() {
            let v = id.to_u128();
            let (ts, counter) = ((v >> 84) as u64, ((v >> 56) as u32) & MAX_COUNTER);
            match prev {
                None => assert_eq!(ts, TS0, "the first ID takes the clock's millisecond"),
                Some(p) => {
                    assert!(
                        v > p,
                        "not increasing: {id} after {}",
                        Scru128Id::from_u128(p)
                    );
                    let (p_ts, p_counter) = ((p >> 84) as u64, ((p >> 56) as u32) & MAX_COUNTER);
                    if ts == p_ts {
                        assert_eq!(counter, p_counter + 1, "counter step at {id}");
                    } else {
                        assert_eq!(
                            (ts, p_counter),
                            (p_ts + 1, MAX_COUNTER),
                            "a new millisecond only after the counter's top, and only +1: {id}"
                        );
                        overflows += 1;
                    }
                }
            }
            // The clock never reaches a renewal point: per_sec_random stays as drawn.
            let s = ((v >> 32) as u32) & 0x00ff_ffff;
            assert_eq!(
                *per_sec.get_or_insert(s),
                s,
                "per_sec_random changed at {id}"
            );
            prev = Some(v);
        }
        first.get_or_insert(batch[0]);
        left -= len as u64;
    }
    let seconds = started.elapsed().as_secs_f64();
    let last = Scru128Id::from_u128(prev.expect("at least one ID"));
    let run = Run {
        ids: n,
        overflows,
        first: first.expect("at least one ID"),
        last,
        clock_reads: reads.get(),
        seconds,
    };
    // The timestamp ran ahead of the frozen clock by one millisecond per overflow.
    assert_eq!(run.last.timestamp() - TS0, run.overflows, "{run:?}");
    // Never waited for the clock: it was read once per call, never polled.
    let calls = match mode {
        Mode::Fill => n.div_ceil(BATCH as u64),
        Mode::Generate => n,
    };
    assert_eq!(run.clock_reads, calls, "{run:?}");
    run
}

/// The fewest overflows `n` IDs can take when the first one has counter `c0`: the
/// first millisecond holds `2^28 − c0` IDs, each further one at most `2^28`.
fn least_overflows(n: u64, c0: u32) -> u64 {
    let first_ms = PER_MS - u64::from(c0);
    if n <= first_ms {
        0
    } else {
        (n - first_ms).div_ceil(PER_MS)
    }
}

#[test]
fn frozen_clock_with_the_default_rng_through_fill() {
    let n = run_length();
    let run = frozen_run(DefaultRng::new(), n, Mode::Fill, debug_start());
    run.print("fill, DefaultRng");
    assert!(
        run.overflows >= least_overflows(n, run.first.counter()),
        "{run:?}"
    );
    assert!(
        run.overflows >= 1,
        "the run is long enough to overflow: {run:?}"
    );
}

#[test]
fn frozen_clock_with_the_default_rng_through_generate() {
    let n = run_length();
    let run = frozen_run(DefaultRng::new(), n, Mode::Generate, debug_start());
    run.print("generate, DefaultRng");
    assert!(
        run.overflows >= least_overflows(n, run.first.counter()),
        "{run:?}"
    );
    assert!(run.overflows >= 1, "{run:?}");
}

#[test]
fn frozen_clock_drift_is_exactly_one_millisecond_per_2_pow_28_ids() {
    // A source of zeros starts every millisecond at counter 0, so each holds exactly
    // 2^28 IDs and the drift is exactly the least possible: ⌈(n − first ms) / 2^28⌉.
    let n = run_length();
    let run = frozen_run(|| 0u32, n, Mode::Fill, debug_start());
    run.print("fill, zeros");
    assert_eq!(
        run.overflows,
        least_overflows(n, run.first.counter()),
        "{run:?}"
    );
    if debug_start().is_none() {
        // From counter 0: 300 million IDs are one full millisecond (2^28 =
        // 268 435 456) and 31 564 544 IDs of the next.
        assert_eq!(run.first.counter(), 0);
        assert_eq!(run.overflows, (n - 1) / PER_MS);
        assert_eq!(run.last.counter() as u64, (n - 1) % PER_MS);
    }
}
