//! `RandCoreSource` (feature `rand_core`): a `rand_core` 0.10 generator drives a
//! `Scru128Generator`, and a seeded one makes the generator deterministic.

use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use rand_core::{Rng, SeedableRng};
use scru128::{RandCoreSource, RandomSource, Scru128Generator, Scru128Id};

/// A clock that moves 0, 1 or 2 ms per reading, from 2024-05-01.
fn stepping_clock() -> impl FnMut() -> u64 {
    let mut now = 1_714_564_800_000u64;
    let mut step = 0u64;
    move || {
        step += 1;
        now += step % 3;
        now
    }
}

fn ids_from_seed(seed: u64, n: usize) -> Vec<Scru128Id> {
    let source = RandCoreSource::new(ChaCha20Rng::seed_from_u64(seed));
    let mut g = Scru128Generator::with_rng_and_clock(source, stepping_clock());
    (0..n).map(|_| g.generate()).collect()
}

#[test]
fn same_seed_same_ids() {
    let a = ids_from_seed(42, 10_000);
    assert_eq!(a, ids_from_seed(42, 10_000));
    assert_ne!(a, ids_from_seed(43, 10_000));
    assert!(a.windows(2).all(|w| w[0] < w[1]), "IDs must increase");
}

#[test]
fn each_draw_is_one_next_u32_of_the_wrapped_generator() {
    let mut source = RandCoreSource::new(ChaCha8Rng::seed_from_u64(7));
    let mut reference = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..1000 {
        assert_eq!(source.next_u32(), reference.next_u32());
    }
    // the wrapped generator continues where the source left it
    let mut inner = source.into_inner();
    assert_eq!(inner.next_u32(), reference.next_u32());
}

#[test]
fn the_random_fields_come_from_the_wrapped_generator() {
    // Every `per_gen_random` is one of the generator's words: all of them appear, in
    // order, in the stream of the same seed.
    let ids = ids_from_seed(5, 2000);
    let mut stream = ChaCha20Rng::seed_from_u64(5);
    let words: Vec<u32> = (0..20_000).map(|_| stream.next_u32()).collect();
    let mut at = 0;
    for id in &ids {
        let found = words[at..]
            .iter()
            .position(|&w| w == id.per_gen_random())
            .expect("per_gen_random is a word of the seeded stream");
        at += found + 1;
    }
}

#[test]
fn a_borrowed_generator_works_and_keeps_its_state() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    {
        let mut g = Scru128Generator::with_rng_and_clock(RandCoreSource::new(&mut rng), || {
            1_714_564_800_000u64
        });
        let (a, b) = (g.generate(), g.generate());
        assert_eq!(b.counter(), a.counter() + 1);
    }
    let mut fresh = ChaCha20Rng::seed_from_u64(9);
    // the borrowed generator has moved on
    assert_ne!(rng.next_u32(), fresh.next_u32());
}

#[test]
fn conversion_from_the_generator() {
    let source: RandCoreSource<ChaCha8Rng> = ChaCha8Rng::seed_from_u64(1).into();
    let mut g = Scru128Generator::with_rng_and_clock(source, stepping_clock());
    let id = g.try_generate().expect("clock in range");
    assert_eq!(id.unix_ts_ms(), 1_714_564_800_001);
}
