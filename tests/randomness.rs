//! Statistical checks of the random fields as the default random source fills them
//! (`DefaultRng`: ChaCha12 seeded by the operating system; see docs/reliability.md):
//! every bit of `per_gen_random`, of the counter at each new millisecond and of
//! `per_sec_random` at each renewal is 1 half of the time; consecutive
//! `per_gen_random` values are unrelated; `per_sec_random` is renewed every 1000 ms
//! of the (injected) clock and differs between generators; threads of the
//! process-wide generator draw unrelated numbers.
//!
//! # Bounds: a correct generator fails this file less than once in a million runs
//!
//! Bit balance: for `n` independent fair bits, Hoeffding's inequality gives
//! `P(|ones − n/2| ≥ t) ≤ 2·exp(−2t²/n)`. The file makes `BIT_TESTS` = 148 such tests
//! (32 + 32 + 28 + 24 + 32 bits below). With a total budget of `ALPHA_BITS` = 5·10⁻⁷,
//! split evenly (Bonferroni: the union bound needs no independence between tests),
//! each test allows `t = sqrt(n·ln(2·148/5·10⁻⁷)/2) = sqrt(n · 10.1)`: ±3 178 for a
//! million samples (0.32 %), ±1 421 for 200 000. A bit stuck at 0 or 1, or a bias
//! of 1 % at a million samples (10 000 off), fails.
//!
//! The other checks have failure probabilities (given in each test) that add up to
//! below 10⁻⁷, so the whole file stays below 10⁻⁶.

use std::collections::HashSet;
use std::thread;

use scru128::{DefaultRng, Scru128Generator, Scru128Id, TIMESTAMP_BIAS, scru128};

/// 2023-11-14T22:13:20Z.
const T0: u64 = 1_700_000_000_000;
/// Bit-balance tests in this file, and their total false-alarm budget.
const BIT_TESTS: f64 = 148.0;
const ALPHA_BITS: f64 = 5e-7;

/// Ones per bit of a field.
struct Bits<const B: usize> {
    ones: [u64; B],
    n: u64,
}

impl<const B: usize> Bits<B> {
    fn new() -> Self {
        Self { ones: [0; B], n: 0 }
    }

    fn add(&mut self, value: u32) {
        self.n += 1;
        for (bit, ones) in self.ones.iter_mut().enumerate() {
            *ones += u64::from((value >> bit) & 1);
        }
    }

    /// Asserts every bit within the Hoeffding bound; returns the worst deviation.
    #[allow(clippy::cast_precision_loss)]
    fn assert_balanced(&self, what: &str) -> f64 {
        let n = self.n as f64;
        let alpha = ALPHA_BITS / BIT_TESTS;
        let bound = (n * (2.0 / alpha).ln() / 2.0).sqrt();
        let mut worst = 0.0f64;
        for (bit, &ones) in self.ones.iter().enumerate() {
            let dev = (ones as f64 - n / 2.0).abs();
            assert!(
                dev < bound,
                "{what}: bit {bit} has {ones} ones in {} samples (limit {} ± {bound:.0})",
                self.n,
                n / 2.0
            );
            worst = worst.max(dev);
        }
        println!(
            "{what}: {B} bits, {} samples, worst deviation {worst:.0} (limit {bound:.0})",
            self.n
        );
        worst
    }
}

#[test]
fn per_gen_random_bits_are_balanced_and_consecutive_values_unrelated() {
    // One generator, a frozen clock: a million IDs through `fill`.
    let mut g = Scru128Generator::with_rng_and_clock(DefaultRng::new(), || T0);
    let mut ids = vec![Scru128Id::MIN; 1_000_000];
    g.fill(&mut ids);
    let mut bits = Bits::<32>::new();
    // Each bit of x_i XOR x_{i+1} is balanced too: a value that repeats or follows
    // from the one before would fail this.
    let mut lag1 = Bits::<32>::new();
    for (k, id) in ids.iter().enumerate() {
        bits.add(id.per_gen_random());
        if k + 1 < ids.len() {
            lag1.add(id.per_gen_random() ^ ids[k + 1].per_gen_random());
        }
    }
    bits.assert_balanced("per_gen_random");
    lag1.assert_balanced("per_gen_random, XOR of consecutive values");
}

#[test]
fn counter_bits_at_each_new_millisecond_are_balanced() {
    // The clock moves one millisecond per ID, so every ID draws a fresh counter.
    let mut g = Scru128Generator::with_rng_and_clock(DefaultRng::new(), || T0);
    let mut bits = Bits::<28>::new();
    for k in 0..200_000 {
        let id = g.try_generate_at(T0 + k).unwrap();
        assert_eq!(id.timestamp(), T0 + k - TIMESTAMP_BIAS);
        bits.add(id.counter());
    }
    bits.assert_balanced("counter at a new millisecond");
}

#[test]
fn per_sec_random_bits_at_each_renewal_are_balanced() {
    // The clock moves a second per ID, so every ID renews per_sec_random.
    let mut g = Scru128Generator::with_rng_and_clock(DefaultRng::new(), || T0);
    let mut bits = Bits::<24>::new();
    for k in 0..200_000 {
        let id = g.try_generate_at(T0 + 1000 * k).unwrap();
        bits.add(id.per_sec_random());
    }
    bits.assert_balanced("per_sec_random at a renewal");
}

#[test]
fn process_wide_generator_per_gen_random_bits_are_balanced() {
    let mut bits = Bits::<32>::new();
    for _ in 0..1_000_000 {
        bits.add(scru128().per_gen_random());
    }
    bits.assert_balanced("scru128() per_gen_random");
}

#[test]
fn per_sec_random_is_renewed_every_1000_ms_of_the_clock() {
    // The clock moves by random steps of 0 to 299 ms over ten simulated minutes.
    let mut g = Scru128Generator::with_rng_and_clock(DefaultRng::new(), || T0);
    let mut step = 0x9e37_79b9_7f4a_7c15u64;
    let mut now = T0;
    let first = g.try_generate_at(now).unwrap();
    let mut renewed_at = first.timestamp();
    let mut value = first.per_sec_random();
    let (mut due, mut unchanged_when_due) = (0, 0);
    while now < T0 + 600_000 {
        step ^= step << 7;
        step ^= step >> 9;
        now += step % 300;
        let id = g.try_generate_at(now).unwrap();
        if id.timestamp() >= renewed_at + 1000 {
            // Due: a fresh draw (the same value again has probability 2^-24).
            due += 1;
            if id.per_sec_random() == value {
                unchanged_when_due += 1;
            }
            renewed_at = id.timestamp();
            value = id.per_sec_random();
        } else {
            assert_eq!(id.per_sec_random(), value, "renewed early at {id}");
        }
    }
    // About 600 renewals; two or more unchanged draws: probability below
    // C(600, 2)·2^-48 < 10^-9.
    assert!(due > 500, "{due} renewals");
    assert!(unchanged_when_due <= 1, "{unchanged_when_due} of {due}");
}

#[test]
fn generators_draw_different_random_fields() {
    // 1000 generators, each seeded by the OS, make their first ID in the same
    // millisecond. Equal per_sec_random pairs: Poisson with mean C(1000, 2)/2^24 ≈
    // 0.03, so 4 or more have probability 3·10^-8. Counters (28 bits, mean 0.002)
    // and per_gen_random (32 bits, mean 0.0001): 3 or more, below 10^-9.
    let firsts: Vec<Scru128Id> = (0..1000)
        .map(|_| Scru128Generator::with_rng_and_clock(DefaultRng::new(), || T0).generate())
        .collect();
    let equal_pairs = |field: fn(&Scru128Id) -> u32| {
        let mut values: Vec<u32> = firsts.iter().map(field).collect();
        values.sort_unstable();
        values.windows(2).filter(|w| w[0] == w[1]).count()
    };
    assert!(equal_pairs(Scru128Id::per_sec_random) <= 3);
    assert!(equal_pairs(Scru128Id::counter) <= 2);
    assert!(equal_pairs(Scru128Id::per_gen_random) <= 2);
    assert_eq!(firsts.iter().collect::<HashSet<_>>().len(), 1000);
}

#[test]
fn threads_of_the_process_wide_generator_draw_unrelated_numbers() {
    // Each thread has its own OS-seeded source: 4 threads × 10 000 per_gen_random
    // values share, by chance, about 6·10^8/2^32 ≈ 0.14 values between two threads
    // (Poisson: 10 or more, below 10^-15); threads sharing one stream, or streams
    // seeded alike, would share thousands.
    let streams: Vec<HashSet<u32>> = (0..4)
        .map(|_| thread::spawn(|| (0..10_000).map(|_| scru128().per_gen_random()).collect()))
        .map(|h| h.join().unwrap())
        .collect();
    let mut shared = 0;
    for (i, a) in streams.iter().enumerate() {
        for b in &streams[i + 1..] {
            shared += a.intersection(b).count();
        }
    }
    assert!(shared < 10, "{shared} values shared between threads");
}
