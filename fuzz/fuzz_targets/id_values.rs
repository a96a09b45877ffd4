//! Every 128-bit ID, reserved timestamps included, from `Arbitrary` (the library's
//! feature `arbitrary`): each text form (base 32 in both cases, hex, UUID) parses back
//! to the same ID, the fields rebuild it, its order is the same as integers, bytes
//! and text, the range bounds of its millisecond hold it, serde round-trips it, and a
//! generator resumed after it makes only greater IDs or reports why it cannot.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use scru128::{MAX_TIMESTAMP, Scru128Generator, Scru128Id};

#[derive(Arbitrary, Debug)]
struct Input {
    id: Scru128Id,
    other: Scru128Id,
    /// The resumed generator's clock, in ms from the ID's time: within ±33 s, so both
    /// sides of the 10 s rollback allowance come up.
    clock_offset_ms: i16,
    random: u32,
}

/// Every text form, parsed back.
fn check_text_forms(id: Scru128Id) {
    let text = id.encode();
    assert_eq!(text.len(), 26);
    assert!(matches!(text.as_bytes()[0], b'0'..=b'7'), "{text}");
    assert_eq!(text.parse::<Scru128Id>(), Ok(id));
    assert_eq!(Scru128Id::try_from_str(&text), Ok(id));
    assert_eq!(Scru128Id::try_from_ascii(id.encode_lower().as_bytes()), Ok(id));
    assert_eq!(id.to_string(), text.as_str());
    assert_eq!(format!("{id}"), text.as_str());
    let hex = id.encode_hex();
    assert_eq!(hex.as_str(), format!("{:032x}", id.to_u128()));
    assert_eq!(Scru128Id::try_from_hex(&hex), Ok(id));
    assert_eq!(Scru128Id::try_from_hex(&hex.to_ascii_uppercase()), Ok(id));
    let uuid = id.encode_uuid();
    assert_eq!(uuid.replace('-', ""), hex.as_str());
    assert_eq!(Scru128Id::try_from_uuid_str(&uuid), Ok(id));
}

/// The fields, the integer and the bytes: the same 128 bits.
fn check_fields(id: Scru128Id) {
    let (ts, counter, per_sec, per_gen) = (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    );
    assert!(ts <= MAX_TIMESTAMP);
    assert_eq!(Scru128Id::from_fields(ts, counter, per_sec, per_gen), id);
    assert_eq!(Scru128Id::try_from_fields(ts, counter, per_sec, per_gen), Ok(id));
    assert_eq!(Scru128Id::from_u128(id.to_u128()), id);
    assert_eq!(id.to_bytes(), id.to_u128().to_be_bytes());
    assert_eq!(id.unix_ts_ms(), ts + scru128::TIMESTAMP_BIAS);
    // the bounds of its millisecond hold it (also for the reserved timestamps)
    let lo = Scru128Id::try_min_at_unix_ts_ms(id.unix_ts_ms()).unwrap();
    let hi = Scru128Id::try_max_at_unix_ts_ms(id.unix_ts_ms()).unwrap();
    assert!(lo <= id && id <= hi, "{lo} {id} {hi}");
    assert_eq!((lo.timestamp(), hi.timestamp()), (ts, ts));
}

/// serde in a human-readable and a binary format.
fn check_serde(id: Scru128Id) {
    let json = serde_json::to_string(&id).unwrap();
    assert_eq!(json, format!("\"{id}\""));
    assert_eq!(serde_json::from_str::<Scru128Id>(&json).unwrap(), id);
    let bytes = postcard::to_allocvec(&id).unwrap();
    assert_eq!(postcard::from_bytes::<Scru128Id>(&bytes).unwrap(), id);
}

/// A generator resumed after `last` (saved by an earlier run, say) at a clock near its
/// time: an ID greater than `last` with a timestamp that may be generated, or an
/// error, never a panic or a smaller ID.
fn check_resume(last: Scru128Id, clock_offset_ms: i16, random: u32) {
    let clock = last
        .unix_ts_ms()
        .saturating_add_signed(i64::from(clock_offset_ms));
    let mut state = random;
    let rng = move || {
        state = state.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
        state
    };
    let mut g = Scru128Generator::with_rng_and_clock(rng, move || clock);
    g.resume_after(last);
    let mut prev = last;
    for _ in 0..3 {
        match g.generate_or_abort_at(clock) {
            Ok(id) => {
                assert!(id > prev, "{id} after {prev} (clock {clock})");
                assert!((1..MAX_TIMESTAMP).contains(&id.timestamp()), "{id}");
                prev = id;
            }
            // the clock outside the range, behind `last` beyond the allowance, or no
            // greater ID left
            Err(_) => break,
        }
    }
}

fuzz_target!(|input: Input| {
    let Input {
        id,
        other,
        clock_offset_ms,
        random,
    } = input;
    check_text_forms(id);
    check_fields(id);
    check_serde(id);
    // one order for IDs, integers, bytes and text
    let order = id.cmp(&other);
    assert_eq!(order, id.to_u128().cmp(&other.to_u128()));
    assert_eq!(order, id.to_bytes().cmp(&other.to_bytes()));
    assert_eq!(order, id.encode().as_str().cmp(other.encode().as_str()));
    assert_eq!(order, id.encode_hex().as_str().cmp(other.encode_hex().as_str()));
    check_resume(id, clock_offset_ms, random);
});
