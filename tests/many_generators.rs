//! Many independent generators, as separate machines would run them: each with its
//! own OS-seeded `DefaultRng` and all with clocks that read the same milliseconds, so
//! that every ID competes with every other one for the same timestamps. No two IDs
//! may be equal.
//!
//! The IDs are compared one millisecond at a time (IDs of different milliseconds
//! cannot be equal), so memory holds one millisecond of all generators: 16 bytes ×
//! generators × IDs per millisecond. Release builds run 1024 generators × 25 000 IDs
//! per millisecond × 4 milliseconds (102 400 000 IDs, 1.6 GB) and also check that the
//! counters are drawn uniformly: the number of ID pairs of different generators that
//! share `(timestamp, counter)` must be close to its expectation (see
//! docs/reliability.md, "Collisions between generators"):
//!
//! ```text
//! cargo test --release --test many_generators -- --nocapture
//! SCRU128_MILLIS=16 cargo test --release --test many_generators -- --nocapture
//! ```
//!
//! `SCRU128_GENERATORS`, `SCRU128_PER_MS` and `SCRU128_MILLIS` set other sizes.
//! Debug builds run 64 × 5 000 × 4. A control run with identically seeded generators
//! shows that the check does find collisions.

use std::thread;
use std::time::Instant;

use scru128::{Clock, DefaultRng, RandomSource, Scru128Generator, Scru128Id, TIMESTAMP_BIAS};

/// 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
/// 2^28 counter values.
#[allow(clippy::cast_precision_loss)]
const COUNTERS: f64 = (1u64 << 28) as f64;

/// A run's size.
#[derive(Clone, Copy, Debug)]
struct Size {
    generators: usize,
    per_ms: usize,
    millis: usize,
}

impl Size {
    fn from_env() -> Self {
        let var = |name: &str, debug: usize, release: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(if cfg!(debug_assertions) {
                    debug
                } else {
                    release
                })
        };
        Self {
            generators: var("SCRU128_GENERATORS", 64, 1024),
            per_ms: var("SCRU128_PER_MS", 5_000, 25_000),
            millis: var("SCRU128_MILLIS", 4, 4),
        }
    }

    fn ids(self) -> usize {
        self.generators * self.per_ms * self.millis
    }
}

/// A clock that reads `T0`, `T0 + 1`, ...: one millisecond per `fill`.
struct Ticker(u64);

impl Clock for Ticker {
    fn unix_ts_ms(&mut self) -> u64 {
        self.0 += 1;
        self.0 - 1
    }
}

/// What the sorted IDs showed.
#[derive(Debug, Default)]
struct Collisions {
    /// Pairs of equal IDs.
    ids: u64,
    /// Pairs of IDs with the same `(timestamp, counter)`.
    timestamp_counter: u64,
    /// Pairs with the same `(timestamp, counter, per_sec_random)`.
    timestamp_counter_per_sec: u64,
}

/// Runs `size.generators` generators over random sources from `make_rng`, each
/// making `size.per_ms` IDs (one `fill`) in each of `size.millis` milliseconds, and
/// counts the equal pairs among all their IDs, one millisecond at a time.
fn run<R: RandomSource + Send>(size: Size, make_rng: impl Fn() -> R) -> (Collisions, f64) {
    let mut generators: Vec<Scru128Generator<R, Ticker>> = (0..size.generators)
        .map(|_| Scru128Generator::with_rng_and_clock(make_rng(), Ticker(T0)))
        .collect();
    let threads = thread::available_parallelism().map_or(2, usize::from);
    let per_thread = size.generators.div_ceil(threads);
    let mut found = Collisions::default();
    let mut round = vec![0u128; size.generators * size.per_ms];
    // IDs that a counter overflow carried into the next millisecond.
    let mut carried: Vec<u128> = Vec::new();
    let mut generating = 0.0;
    for ms in 0..size.millis {
        let started = Instant::now();
        thread::scope(|scope| {
            for (gens, out) in generators
                .chunks_mut(per_thread)
                .zip(round.chunks_mut(per_thread * size.per_ms))
            {
                scope.spawn(move || {
                    let mut batch = vec![Scru128Id::MIN; size.per_ms];
                    for (g, out) in gens.iter_mut().zip(out.chunks_mut(size.per_ms)) {
                        g.fill(&mut batch);
                        for (slot, id) in out.iter_mut().zip(&batch) {
                            *slot = id.to_u128();
                        }
                    }
                });
            }
        });
        generating += started.elapsed().as_secs_f64();
        round.append(&mut carried);
        let ts = T0 + ms as u64 - TIMESTAMP_BIAS;
        carried = count_collisions(&mut round, ts, &mut found);
        round.resize(size.generators * size.per_ms, 0);
    }
    // A generator whose counter overflowed in the last millisecond (its first counter
    // fell within `per_ms` of 2^28: about 9 % of release runs) made IDs of the next
    // one; they are compared among themselves, and none can be later still.
    let next_ts = T0 + size.millis as u64 - TIMESTAMP_BIAS;
    let later = count_collisions(&mut carried, next_ts, &mut found);
    assert!(later.is_empty(), "IDs two milliseconds past the last one");
    (found, generating)
}

/// Sorts `ids` (two halves in parallel) and adds the equal pairs among those of
/// timestamp `ts` to `found` in one merged pass; returns the IDs of later timestamps.
fn count_collisions(ids: &mut [u128], ts: u64, found: &mut Collisions) -> Vec<u128> {
    let mid = ids.len() / 2;
    let (left, right) = ids.split_at_mut(mid);
    thread::scope(|scope| {
        scope.spawn(|| left.sort_unstable());
        right.sort_unstable();
    });
    let (left, right) = ids.split_at(mid);
    let (mut i, mut j) = (0, 0);
    let mut later = Vec::new();
    // Runs of equal values, by key: whole ID, (ts, counter, per_sec), (ts, counter).
    let mut runs = [(u128::MAX, 0u64); 3];
    let shifts = [0, 32, 56];
    loop {
        let v = match (left.get(i), right.get(j)) {
            (Some(&a), Some(&b)) if a <= b => {
                i += 1;
                a
            }
            (_, Some(&b)) => {
                j += 1;
                b
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (None, None) => break,
        };
        if (v >> 84) as u64 != ts {
            assert!((v >> 84) as u64 > ts, "an ID before its millisecond");
            later.push(v);
            continue;
        }
        for (run, shift) in runs.iter_mut().zip(shifts) {
            let key = v >> shift;
            if run.0 == key {
                run.1 += 1;
            } else {
                *run = (key, 1);
            }
        }
        // Each ID forms a pair with every equal one before it.
        found.ids += runs[0].1 - 1;
        found.timestamp_counter_per_sec += runs[1].1 - 1;
        found.timestamp_counter += runs[2].1 - 1;
    }
    later
}

/// Expected pairs (and their standard deviation) of IDs of different generators that
/// share `(timestamp, counter)`, when each of `generators` generators makes a run
/// of `per_ms` consecutive counters from a uniform random start in each of
/// `millis` milliseconds. Two runs overlap by `max(0, R − |d|)` counters, `d` the
/// difference of their starts: with probability `2R/2^28` by a uniform `0..R`, so
/// the mean overlap is `R²/2^28` and its variance about `2R³/(3·2^28)`; the overlaps
/// of different pairs are uncorrelated (given one start, the others are uniform).
#[allow(clippy::cast_precision_loss)]
fn expected_shared_counters(size: Size) -> (f64, f64) {
    let pairs = (size.generators * (size.generators - 1) / 2) as f64;
    let r = size.per_ms as f64;
    let millis = size.millis as f64;
    let mean = pairs * r * r / COUNTERS * millis;
    let var = pairs * 2.0 * r * r * r / (3.0 * COUNTERS) * millis;
    (mean, var.sqrt())
}

#[test]
fn independent_generators_in_the_same_milliseconds_never_collide() {
    let size = Size::from_env();
    let started = Instant::now();
    let (found, generating) = run(size, DefaultRng::new);
    let (mean, sd) = expected_shared_counters(size);
    println!(
        "{} generators x {} IDs per ms x {} ms = {} IDs: {:.1} s ({generating:.1} s \
         generating); equal IDs: {}; pairs sharing (timestamp, counter): {} (expected \
         {mean:.0} ± {sd:.0}); also sharing per_sec_random: {}",
        size.generators,
        size.per_ms,
        size.millis,
        size.ids(),
        started.elapsed().as_secs_f64(),
        found.ids,
        found.timestamp_counter,
        found.timestamp_counter_per_sec,
    );
    assert_eq!(found.ids, 0, "{found:?}");
    // Counter starts are uniform: the shared (timestamp, counter) pairs are within
    // 8 standard deviations of their mean (a loose bound: the count is a sum of a few
    // hundred clumps, not exactly normal). Judged only where the mean is large enough
    // for the normal approximation (the release size: about 390 overlapping runs).
    if mean > 100_000.0 {
        #[allow(clippy::cast_precision_loss)]
        let shared = found.timestamp_counter as f64;
        assert!(
            (shared - mean).abs() < 8.0 * sd,
            "{shared} pairs share (timestamp, counter), expected {mean:.0} ± {sd:.0}"
        );
    }
}

#[test]
fn the_check_finds_collisions_of_identically_seeded_generators() {
    // Control: generators seeded alike (a cloned source, as a copied VM image with a
    // fixed seed would be) make the same IDs, and the check sees every one.
    let size = Size {
        generators: 8,
        per_ms: 1000,
        millis: 4,
    };
    let (found, _) = run(size, || {
        let mut state = 0x2545_f491u32;
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        }
    });
    let pairs = (size.generators * (size.generators - 1) / 2 * size.per_ms * size.millis) as u64;
    assert_eq!(found.ids, pairs, "{found:?}");
    assert_eq!(found.timestamp_counter, pairs);
}
