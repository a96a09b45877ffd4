//! Property tests of the codec: every form of an ID (integer, bytes, text in either
//! case, fields) round-trips and sorts alike; parsing accepts exactly the valid
//! strings; field and time bounds are enforced.

use std::time::{Duration, UNIX_EPOCH};

mod common;

use proptest::prelude::*;
use scru128::{MAX_COUNTER, MAX_PER_SEC_RANDOM, MAX_TIMESTAMP, Scru128Id, TIMESTAMP_BIAS};

const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";

/// Base-32 text by the definition (repeated division), independent of the crate.
fn naive_encode(mut value: u128) -> String {
    let mut out = [b'0'; 26];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(value % 32) as usize];
        value /= 32;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

/// Validity by the definition of SPEC section 2.
fn naive_is_valid(bytes: &[u8]) -> bool {
    bytes.len() == 26
        && bytes
            .iter()
            .all(|b| ALPHABET.contains(&b.to_ascii_uppercase()))
        && (b'0'..=b'7').contains(&bytes[0])
}

fn fields(id: Scru128Id) -> (u64, u32, u32, u32) {
    (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    )
}

proptest! {
    #[test]
    fn integer_bytes_text_and_fields_round_trip(value in any::<u128>()) {
        let id = Scru128Id::from_u128(value);
        prop_assert_eq!(id.as_u128(), value);
        prop_assert_eq!(id.to_u128(), value);
        prop_assert_eq!(u128::from(id), value);
        prop_assert_eq!(Scru128Id::from(value), id);

        // Bytes: big-endian.
        prop_assert_eq!(id.to_bytes(), value.to_be_bytes());
        prop_assert_eq!(*id.as_bytes(), value.to_be_bytes());
        prop_assert_eq!(Scru128Id::from_bytes(id.to_bytes()), id);
        prop_assert_eq!(<[u8; 16]>::from(id), value.to_be_bytes());

        // Text: uppercase canonical, lowercase variant, both parse back.
        let upper = id.encode();
        prop_assert_eq!(upper.as_str(), naive_encode(value));
        prop_assert_eq!(id.to_string(), naive_encode(value));
        prop_assert_eq!(String::from(id), naive_encode(value));
        // The inherent `to_string` shadows the blanket one; both must give the text.
        prop_assert_eq!(ToString::to_string(&id), naive_encode(value));
        let by_ref = &id;
        prop_assert_eq!(by_ref.to_string(), naive_encode(value));
        prop_assert_eq!(format!("{id}"), naive_encode(value));
        prop_assert_eq!(u128::from_str_radix(&upper, 32).unwrap(), value);
        let lower = id.encode_lower();
        prop_assert_eq!(lower.as_str(), naive_encode(value).to_ascii_lowercase());
        prop_assert_eq!(Scru128Id::try_from_str(&upper), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_str(&lower), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_ascii(upper.as_bytes()), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_ascii(lower.as_bytes()), Ok(id));

        // Fields: the bit layout of SPEC section 1.
        let (ts, counter, per_sec, per_gen) = fields(id);
        prop_assert_eq!(u128::from(ts), value >> 84);
        prop_assert_eq!(u128::from(counter), (value >> 56) & 0xfff_ffff);
        prop_assert_eq!(u128::from(per_sec), (value >> 32) & 0xff_ffff);
        prop_assert_eq!(u128::from(per_gen), value & 0xffff_ffff);
        prop_assert_eq!(Scru128Id::from_fields(ts, counter, per_sec, per_gen), id);
        prop_assert_eq!(Scru128Id::try_from_fields(ts, counter, per_sec, per_gen), Ok(id));
        prop_assert_eq!(id.unix_ts_ms(), ts + TIMESTAMP_BIAS);
    }

    #[test]
    fn fields_round_trip(
        ts in 0..=MAX_TIMESTAMP,
        counter in 0..=MAX_COUNTER,
        per_sec in 0..=MAX_PER_SEC_RANDOM,
        per_gen in any::<u32>(),
    ) {
        let id = Scru128Id::from_fields(ts, counter, per_sec, per_gen);
        prop_assert_eq!(fields(id), (ts, counter, per_sec, per_gen));
        let expected = (u128::from(ts) << 84)
            | (u128::from(counter) << 56)
            | (u128::from(per_sec) << 32)
            | u128::from(per_gen);
        prop_assert_eq!(id.as_u128(), expected);
        let parsed: Scru128Id = id.to_string().parse().unwrap();
        prop_assert_eq!(fields(parsed), (ts, counter, per_sec, per_gen));
    }

    #[test]
    fn integer_byte_and_text_orders_agree(a in any::<u128>(), b in any::<u128>()) {
        let (x, y) = (Scru128Id::from_u128(a), Scru128Id::from_u128(b));
        let order = a.cmp(&b);
        prop_assert_eq!(x.cmp(&y), order);
        prop_assert_eq!(x.partial_cmp(&y), Some(order));
        prop_assert_eq!(x.as_bytes().cmp(y.as_bytes()), order);
        prop_assert_eq!(x.encode().cmp(&y.encode()), order);
        prop_assert_eq!(x.to_string().cmp(&y.to_string()), order);
        prop_assert_eq!(x.encode_lower().cmp(&y.encode_lower()), order);
        prop_assert_eq!(x.encode_lower().as_str().cmp(y.encode_lower().as_str()), order);
        prop_assert_eq!(x == y, a == b);
    }

    #[test]
    fn close_values_sort_alike(a in any::<u128>(), delta in 0u128..1 << 40) {
        // Random pairs almost always differ in the first digit; these share a prefix.
        let b = a.saturating_add(delta);
        let (x, y) = (Scru128Id::from_u128(a), Scru128Id::from_u128(b));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.encode().cmp(&y.encode()), a.cmp(&b));
        prop_assert_eq!(x.encode_lower().cmp(&y.encode_lower()), a.cmp(&b));
        prop_assert_eq!(x.as_bytes().cmp(y.as_bytes()), a.cmp(&b));
    }

    #[test]
    fn mixed_case_text_parses_to_the_same_id(value in any::<u128>(), mask in any::<u32>()) {
        let id = Scru128Id::from_u128(value);
        let mixed = common::flip_case(&id.encode(), u64::from(mask));
        prop_assert_eq!(Scru128Id::try_from_str(&mixed), Ok(id));
        prop_assert_eq!(mixed.parse::<Scru128Id>(), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_ascii(mixed.as_bytes()), Ok(id));
    }

    #[test]
    fn any_string_over_the_alphabet_with_first_digit_0_to_7_parses(
        text in "[0-7][0-9A-Va-v]{25}",
    ) {
        let id = Scru128Id::try_from_str(&text).unwrap();
        prop_assert_eq!(id.encode(), text.to_ascii_uppercase());
        prop_assert_eq!(id.encode_lower(), text.to_ascii_lowercase());
        prop_assert_eq!(id.as_u128(), u128::from_str_radix(&text, 32).unwrap());
    }

    #[test]
    fn first_digit_above_7_is_rejected(text in "[8-9A-Va-v][0-9A-Va-v]{25}") {
        let err = Scru128Id::try_from_str(&text).unwrap_err();
        let first = text.chars().next().unwrap();
        prop_assert_eq!(
            err.to_string(),
            format!("out of range: the first digit is '{first}', above the largest allowed '7'")
        );
    }

    #[test]
    fn strings_not_26_characters_long_fail_with_a_length_error(text in "\\PC{0,40}") {
        let chars = text.chars().count();
        prop_assume!(chars != 26);
        let err = Scru128Id::try_from_str(&text).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("invalid length: expected 26 characters, found {chars}")
        );
    }

    #[test]
    fn digit_strings_not_26_characters_long_fail_with_a_length_error(
        text in "[0-7][0-9A-Va-v]{0,24}|[0-7][0-9A-Va-v]{26,60}",
    ) {
        let err = Scru128Id::try_from_str(&text).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("invalid length: expected 26 characters, found {}", text.len())
        );
    }

    #[test]
    fn a_non_ascii_character_among_26_is_reported_where_it_stands(
        digits in "[0-7][0-9A-Va-v]{25}",
        pos in 0..26usize,
        ch in "[^\\x00-\\x7f]",
    ) {
        // 26 characters in more than 26 bytes: not a length error but the character.
        let ch = ch.chars().next().unwrap();
        let mut chars: Vec<char> = digits.chars().collect();
        chars[pos] = ch;
        let text: String = chars.into_iter().collect();
        let err = Scru128Id::try_from_str(&text).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("invalid digit {ch:?} at position {pos}: expected 0-9 or A-V in either case")
        );
    }

    #[test]
    fn random_bytes_never_panic_and_match_the_definition(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..40),
            proptest::collection::vec(any::<u8>(), 26),
            // Mostly digits, so that valid and nearly valid inputs are common.
            proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(b"0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv".to_vec()),
                    1 => any::<u8>(),
                ],
                26,
            ),
        ],
    ) {
        let result = Scru128Id::try_from_ascii(&bytes);
        prop_assert_eq!(result.is_ok(), naive_is_valid(&bytes), "{:?}", bytes);
        if let Ok(id) = result {
            prop_assert_eq!(id.encode().as_bytes().to_vec(), bytes.to_ascii_uppercase());
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            prop_assert_eq!(Scru128Id::try_from_str(text).is_ok(), result.is_ok());
        }
    }

    #[test]
    fn try_from_fields_rejects_a_timestamp_out_of_range(ts in MAX_TIMESTAMP + 1..=u64::MAX) {
        let err = Scru128Id::try_from_fields(ts, 0, 0, 0).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("timestamp {ts} is out of range (maximum 17592186044415)")
        );
    }

    #[test]
    fn try_from_fields_rejects_a_counter_out_of_range(counter in MAX_COUNTER + 1..=u32::MAX) {
        let err = Scru128Id::try_from_fields(0, counter, 0, 0).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("counter {counter} is out of range (maximum 268435455)")
        );
    }

    #[test]
    fn try_from_fields_rejects_a_per_sec_random_out_of_range(
        per_sec in MAX_PER_SEC_RANDOM + 1..=u32::MAX,
    ) {
        let err = Scru128Id::try_from_fields(0, 0, per_sec, 0).unwrap_err();
        prop_assert_eq!(
            err.to_string(),
            format!("per_sec_random {per_sec} is out of range (maximum 16777215)")
        );
    }

    #[test]
    fn time_bounds_enclose_every_id_of_their_millisecond(
        ms in TIMESTAMP_BIAS..=TIMESTAMP_BIAS + MAX_TIMESTAMP,
        counter in 0..=MAX_COUNTER,
        per_sec in 0..=MAX_PER_SEC_RANDOM,
        per_gen in any::<u32>(),
    ) {
        let lo = Scru128Id::try_min_at_unix_ts_ms(ms).unwrap();
        let hi = Scru128Id::try_max_at_unix_ts_ms(ms).unwrap();
        prop_assert_eq!(fields(lo), (ms - TIMESTAMP_BIAS, 0, 0, 0));
        prop_assert_eq!(
            fields(hi),
            (ms - TIMESTAMP_BIAS, MAX_COUNTER, MAX_PER_SEC_RANDOM, u32::MAX)
        );
        let id = Scru128Id::from_fields(ms - TIMESTAMP_BIAS, counter, per_sec, per_gen);
        prop_assert!(lo <= id && id <= hi);
        prop_assert_eq!(lo.unix_ts_ms(), ms);
        prop_assert_eq!(hi.unix_ts_ms(), ms);
        // Adjacent milliseconds tile the ID space with no gap and no overlap.
        if ms < TIMESTAMP_BIAS + MAX_TIMESTAMP {
            let next_lo = Scru128Id::try_min_at_unix_ts_ms(ms + 1).unwrap();
            prop_assert_eq!(hi.as_u128() + 1, next_lo.as_u128());
            prop_assert!(id < next_lo);
        }
        if ms > TIMESTAMP_BIAS {
            let prev_hi = Scru128Id::try_max_at_unix_ts_ms(ms - 1).unwrap();
            prop_assert_eq!(prev_hi.as_u128() + 1, lo.as_u128());
            prop_assert!(prev_hi < id);
        }
    }

    #[test]
    fn system_time_bounds_truncate_to_the_millisecond(
        ms in TIMESTAMP_BIAS..=TIMESTAMP_BIAS + MAX_TIMESTAMP,
        sub_ms_nanos in 0u32..1_000_000,
    ) {
        let t = UNIX_EPOCH + Duration::from_millis(ms) + Duration::from_nanos(sub_ms_nanos.into());
        prop_assert_eq!(
            Scru128Id::try_min_at_system_time(t),
            Scru128Id::try_min_at_unix_ts_ms(ms)
        );
        prop_assert_eq!(
            Scru128Id::try_max_at_system_time(t),
            Scru128Id::try_max_at_unix_ts_ms(ms)
        );
        let lo = Scru128Id::try_min_at_unix_ts_ms(ms).unwrap();
        prop_assert_eq!(lo.to_system_time(), UNIX_EPOCH + Duration::from_millis(ms));
    }

    #[test]
    fn time_bounds_reject_milliseconds_before_2020(ms in 0..TIMESTAMP_BIAS) {
        let msg = format!(
            "unix time {ms} ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)"
        );
        prop_assert_eq!(Scru128Id::try_min_at_unix_ts_ms(ms).unwrap_err().to_string(), msg.clone());
        prop_assert_eq!(Scru128Id::try_max_at_unix_ts_ms(ms).unwrap_err().to_string(), msg);
        let t = UNIX_EPOCH + Duration::from_millis(ms);
        prop_assert!(Scru128Id::try_min_at_system_time(t).is_err());
        prop_assert!(Scru128Id::try_max_at_system_time(t).is_err());
    }

    #[test]
    fn time_bounds_reject_milliseconds_past_the_range(
        ms in TIMESTAMP_BIAS + MAX_TIMESTAMP + 1..=u64::MAX,
    ) {
        prop_assert!(Scru128Id::try_min_at_unix_ts_ms(ms).is_err());
        prop_assert!(Scru128Id::try_max_at_unix_ts_ms(ms).is_err());
    }
}

#[test]
fn time_bounds_at_the_edges_of_the_range() {
    // The reserved timestamps 0 and 2^44-1 are valid bounds.
    let first = Scru128Id::try_min_at_unix_ts_ms(TIMESTAMP_BIAS).unwrap();
    assert_eq!(first, Scru128Id::MIN);
    let last = Scru128Id::try_max_at_unix_ts_ms(TIMESTAMP_BIAS + MAX_TIMESTAMP).unwrap();
    assert_eq!(last, Scru128Id::MAX);
    assert!(Scru128Id::try_min_at_unix_ts_ms(TIMESTAMP_BIAS - 1).is_err());
    assert!(Scru128Id::try_max_at_unix_ts_ms(TIMESTAMP_BIAS + MAX_TIMESTAMP + 1).is_err());
    assert!(Scru128Id::try_min_at_unix_ts_ms(u64::MAX).is_err());
    // Before the Unix epoch.
    let before = UNIX_EPOCH - Duration::from_millis(1);
    assert_eq!(
        Scru128Id::try_min_at_system_time(before)
            .unwrap_err()
            .to_string(),
        "time is before the unix epoch"
    );
    assert!(Scru128Id::try_max_at_system_time(before).is_err());
}

#[test]
fn try_from_fields_accepts_the_maxima_and_names_the_first_bad_field() {
    let id = Scru128Id::try_from_fields(MAX_TIMESTAMP, MAX_COUNTER, MAX_PER_SEC_RANDOM, u32::MAX);
    assert_eq!(id, Ok(Scru128Id::MAX));
    let err = Scru128Id::try_from_fields(MAX_TIMESTAMP + 1, MAX_COUNTER + 1, 0, 0).unwrap_err();
    assert!(err.to_string().starts_with("timestamp "), "{err}");
    let err =
        Scru128Id::try_from_fields(0, MAX_COUNTER + 1, MAX_PER_SEC_RANDOM + 1, 0).unwrap_err();
    assert!(err.to_string().starts_with("counter "), "{err}");
}

// `from_fields` panics on each out-of-range field, like scru128 1.0.

#[test]
#[should_panic(expected = "out of its range")]
fn from_fields_panics_on_a_timestamp_out_of_range() {
    let _ = Scru128Id::from_fields(MAX_TIMESTAMP + 1, 0, 0, 0);
}

#[test]
#[should_panic(expected = "out of its range")]
fn from_fields_panics_on_a_counter_out_of_range() {
    let _ = Scru128Id::from_fields(0, MAX_COUNTER + 1, 0, 0);
}

#[test]
#[should_panic(expected = "out of its range")]
fn from_fields_panics_on_a_per_sec_random_out_of_range() {
    let _ = Scru128Id::from_fields(0, 0, MAX_PER_SEC_RANDOM + 1, 0);
}

#[test]
fn display_honours_width_and_alignment() {
    let id = Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    assert_eq!(format!("{id:>28}"), "  00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    assert_eq!(format!("{id:-<27}"), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4-");
    assert_eq!(format!("{id}"), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
}
