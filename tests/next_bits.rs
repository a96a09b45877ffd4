//! `RandomSource::next_bits` (review of 87c99ad): the default's edge cases (0, 32 and
//! more than 32 bits), and that a source answering `next_bits` with more bits than
//! asked for never breaks an ID's fields or the counter rules, in `generate` and in
//! the batch path `fill`.

use std::cell::Cell;
use std::rc::Rc;

mod common;

use scru128::{MAX_COUNTER, MAX_PER_SEC_RANDOM, RandomSource, Scru128Generator, Scru128Id};

const T0: u64 = 1_700_000_000_000;

#[test]
fn default_next_bits_keeps_exactly_the_low_bits_for_every_width() {
    for value in [u32::MAX, 0xdead_beef, 0x8000_0001, 0] {
        let mut source = move || value;
        for bits in 0..=40u32 {
            let expected = if bits >= 32 {
                value
            } else {
                value & ((1u32 << bits) - 1)
            };
            assert_eq!(
                source.next_bits(bits),
                expected,
                "next_bits({bits}) of {value:#x}"
            );
        }
        assert_eq!(source.next_bits(u32::MAX), value);
    }
}

#[test]
fn default_next_bits_draws_one_next_u32_per_call() {
    let mut n = 0u32;
    let mut counting = move || {
        n += 1;
        n
    };
    for bits in [0, 1, 24, 28, 32, 33] {
        let _ = counting.next_bits(bits);
    }
    assert_eq!(counting.next_u32(), 7);
}

/// A seeded source that ignores the width: `next_bits` answers a full 32-bit xorshift
/// number of a stream of its own, `next_u32` one of another.
struct OverWide {
    bits_state: u32,
    u32_state: u32,
    bits_calls: Rc<Cell<u32>>,
}

impl RandomSource for OverWide {
    fn next_u32(&mut self) -> u32 {
        common::xorshift32_step(&mut self.u32_state)
    }

    fn next_bits(&mut self, _bits: u32) -> u32 {
        self.bits_calls.set(self.bits_calls.get() + 1);
        // at least bit 31 set: always wider than 28 or 24 bits
        common::xorshift32_step(&mut self.bits_state) | 0x8000_0000
    }
}

/// The fields in range, and the 128 bits exactly those of the checked constructor.
#[track_caller]
fn assert_well_formed(id: Scru128Id) {
    assert!(id.counter() <= MAX_COUNTER);
    assert!(id.per_sec_random() <= MAX_PER_SEC_RANDOM);
    let rebuilt = Scru128Id::from_fields(
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    );
    assert_eq!(rebuilt, id, "{id}: its fields do not give it back");
    let value = id.to_u128();
    assert_eq!((value >> 84) as u64, id.timestamp());
    assert_eq!(((value >> 56) as u32) & MAX_COUNTER, id.counter());
    assert_eq!(
        ((value >> 32) as u32) & MAX_PER_SEC_RANDOM,
        id.per_sec_random()
    );
}

fn over_wide(seed: u32) -> (OverWide, Rc<Cell<u32>>) {
    let calls = Rc::new(Cell::new(0));
    (
        OverWide {
            bits_state: seed,
            u32_state: seed ^ 0x5a5a_5a5a,
            bits_calls: calls.clone(),
        },
        calls,
    )
}

#[test]
fn over_wide_next_bits_gives_well_formed_increasing_ids_in_generate_and_fill() {
    // A clock that ticks 7 ms per read: new timestamps, counter draws and per-second
    // renewals all along.
    let clock = |now: Rc<Cell<u64>>| {
        move || {
            let t = now.get();
            now.set(t + 7);
            t
        }
    };
    let (rng, calls) = over_wide(0x1234_5678);
    let mut g = Scru128Generator::with_rng_and_clock(rng, clock(Rc::new(Cell::new(T0))));
    let mut ids: Vec<Scru128Id> = (0..5_000).map(|_| g.generate()).collect();
    let mut batch = vec![Scru128Id::MIN; 5_000];
    for chunk in batch.chunks_mut(100) {
        g.fill(chunk);
    }
    ids.extend(batch);
    assert!(
        calls.get() > 5_000,
        "next_bits was not used ({})",
        calls.get()
    );
    for id in &ids {
        assert_well_formed(*id);
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // Within one timestamp, the counter steps by one.
    for w in ids.windows(2) {
        if w[0].timestamp() == w[1].timestamp() {
            assert_eq!(w[1].counter(), w[0].counter() + 1);
        }
    }
}

#[test]
fn next_bits_of_all_ones_overflows_at_once_in_generate_and_in_fill_alike() {
    // Every counter drawn is 2^28-1 after masking: each following ID takes the next
    // millisecond, whichever path makes it.
    struct AllOnes;
    impl RandomSource for AllOnes {
        fn next_u32(&mut self) -> u32 {
            7
        }
        fn next_bits(&mut self, _bits: u32) -> u32 {
            u32::MAX
        }
    }
    let mut a = Scru128Generator::with_rng_and_clock(AllOnes, || T0);
    let mut b = Scru128Generator::with_rng_and_clock(AllOnes, || T0);
    let one_by_one: Vec<Scru128Id> = (0..300).map(|_| a.generate()).collect();
    let mut batch = vec![Scru128Id::MIN; 300];
    b.fill(&mut batch);
    assert_eq!(one_by_one, batch);
    let ts0 = one_by_one[0].timestamp();
    for (i, id) in one_by_one.iter().enumerate() {
        assert_well_formed(*id);
        assert_eq!(
            (
                id.timestamp(),
                id.counter(),
                id.per_sec_random(),
                id.per_gen_random()
            ),
            (ts0 + i as u64, MAX_COUNTER, MAX_PER_SEC_RANDOM, 7)
        );
    }
}

#[test]
fn a_closure_source_gives_the_same_ids_as_before_next_bits() {
    // The default `next_bits` keeps the low bits of one `next_u32`: the counter and
    // per_sec_random are the low 28 and 24 bits of the draws, as before 87c99ad.
    let mut n = 0u32;
    let mut g = Scru128Generator::with_rng_and_clock(
        move || {
            n += 1;
            n.wrapping_mul(0x9e37_79b9)
        },
        || T0,
    );
    let id = g.generate();
    assert_eq!(id.counter(), 0x9e37_79b9 & MAX_COUNTER);
    assert_eq!(
        id.per_sec_random(),
        2u32.wrapping_mul(0x9e37_79b9) & MAX_PER_SEC_RANDOM
    );
    assert_eq!(id.per_gen_random(), 3u32.wrapping_mul(0x9e37_79b9));
}
