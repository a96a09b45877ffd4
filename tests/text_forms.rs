//! The hex and UUID text forms: the vectors of `tests/data/test-vectors.json` (their
//! `u128_hex` field) both ways and in both letter cases, property tests against naive
//! definitions, and every rule with its exact error message and position.

mod common;

use proptest::prelude::*;
use scru128::{EncodedHex, EncodedUuid, ParseError, Scru128Id};
use serde_json::Value;

const VECTORS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/test-vectors.json");

/// `(u128_hex, text)` of each vector.
fn vectors() -> Vec<(String, String)> {
    let json = std::fs::read_to_string(VECTORS_PATH).expect("tests/data/test-vectors.json");
    let parsed: Value = serde_json::from_str(&json).expect("test-vectors.json is JSON");
    let list: Vec<(String, String)> = parsed
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| {
            let field = |key: &str| v[key].as_str().expect(key).to_owned();
            (field("u128_hex"), field("text"))
        })
        .collect();
    assert_eq!(list.len(), 50);
    list
}

/// Parses `text` with a form's `&str` and bytes parsers, checks that they agree on
/// ASCII input (and both fail on other input), and returns the error message.
fn form_err(
    text: &str,
    from_str: fn(&str) -> Result<Scru128Id, ParseError>,
    from_ascii: fn(&[u8]) -> Result<Scru128Id, ParseError>,
) -> String {
    let e = from_str(text).expect_err(text);
    if text.is_ascii() {
        assert_eq!(from_ascii(text.as_bytes()), Err(e.clone()), "{text:?}");
    } else {
        assert!(from_ascii(text.as_bytes()).is_err(), "{text:?}");
    }
    e.to_string()
}

/// The message of the hex form for `text`.
fn hex_err(text: &str) -> String {
    form_err(text, Scru128Id::try_from_hex, Scru128Id::try_from_hex_ascii)
}

/// The message of the UUID form for `text`.
fn uuid_err(text: &str) -> String {
    form_err(
        text,
        Scru128Id::try_from_uuid_str,
        Scru128Id::try_from_uuid_ascii,
    )
}

const HEX_DIGITS: &str = "expected 0-9 or a-f in either case";
const HYPHEN: &str = "expected '-' (UUID form 8-4-4-4-12)";

fn hex_length_msg(len: usize) -> String {
    format!("invalid length: expected 32 hex digits, found {len}")
}

fn uuid_length_msg(len: usize) -> String {
    format!("invalid length: expected 36 characters (UUID form 8-4-4-4-12), found {len}")
}

fn hex_digit_msg(ch_debug: &str, pos: usize) -> String {
    format!("invalid hex digit {ch_debug} at position {pos}: {HEX_DIGITS}")
}

fn hyphen_msg(ch_debug: &str, pos: usize) -> String {
    format!("invalid character {ch_debug} at position {pos}: {HYPHEN}")
}

const HEX: &str = "00cc22a98f49faa67978d9d2e2bf2a84";
const UUID: &str = "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84";
const X: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;

#[test]
fn vectors_write_and_read_both_forms_in_both_cases() {
    for (hex, text) in vectors() {
        let id: Scru128Id = text.parse().unwrap();
        assert_eq!(id.encode_hex(), hex.as_str(), "{text}");
        assert_eq!(id.encode_uuid(), common::uuid_form(&hex), "{text}");
        for form in [hex.clone(), hex.to_ascii_uppercase()] {
            assert_eq!(Scru128Id::try_from_hex(&form), Ok(id), "{form}");
            assert_eq!(Scru128Id::try_from_hex_ascii(form.as_bytes()), Ok(id));
            let uuid = common::uuid_form(&form);
            assert_eq!(Scru128Id::try_from_uuid_str(&uuid), Ok(id), "{uuid}");
            assert_eq!(Scru128Id::try_from_uuid_ascii(uuid.as_bytes()), Ok(id));
        }
    }
}

#[test]
fn edge_ids_round_trip() {
    for id in common::edge_ids() {
        assert_eq!(Scru128Id::try_from_hex(&id.encode_hex()), Ok(id));
        assert_eq!(Scru128Id::try_from_uuid_str(&id.encode_uuid()), Ok(id));
    }
    assert_eq!(Scru128Id::MIN.encode_hex(), "0".repeat(32));
    assert_eq!(Scru128Id::MAX.encode_hex(), "f".repeat(32));
    assert_eq!(
        Scru128Id::MAX.encode_uuid(),
        "ffffffff-ffff-ffff-ffff-ffffffffffff"
    );
}

#[test]
fn the_text_types_behave_like_str() {
    let id = Scru128Id::from_u128(X);
    let hex: EncodedHex = id.encode_hex();
    let uuid: EncodedUuid = id.encode_uuid();
    assert_eq!(hex.as_str(), HEX);
    assert_eq!(hex.as_bytes(), HEX.as_bytes());
    assert_eq!(&*uuid, UUID);
    assert_eq!(uuid, UUID.to_owned());
    assert_eq!(String::from(uuid), UUID);
    assert_eq!(format!("{hex}|{uuid:>38}|"), format!("{HEX}|  {UUID}|"));
    assert_eq!(format!("{uuid:?}"), format!("{UUID:?}"));
    assert!(uuid.starts_with("00cc22a9-"));
}

#[test]
fn every_separator_and_case_rule_of_the_uuid_form() {
    let id = Scru128Id::from_u128(X);
    assert_eq!(
        Scru128Id::try_from_uuid_str(&UUID.to_ascii_uppercase()),
        Ok(id)
    );
    assert_eq!(
        Scru128Id::try_from_uuid_str("00Cc22A9-8f49-FaA6-7978-d9D2e2Bf2a84"),
        Ok(id)
    );
    // Each hyphen replaced by another character is reported there.
    for pos in [8, 13, 18, 23] {
        for ch in ['_', ' ', '0', 'a', ':'] {
            let mut text = UUID.to_owned();
            text.replace_range(pos..=pos, &ch.to_string());
            assert_eq!(
                uuid_err(&text),
                hyphen_msg(&format!("{ch:?}"), pos),
                "{text}"
            );
        }
    }
    // A hyphen moved one place: the first broken rule in reading order.
    assert_eq!(
        uuid_err("00cc22a-98f49-faa6-7978-d9d2e2bf2a84"),
        hex_digit_msg("'-'", 7)
    );
    assert_eq!(
        uuid_err("00cc22a98-f49-faa6-7978-d9d2e2bf2a84"),
        hyphen_msg("'8'", 8)
    );
    // Lengths: the hex form, braces, a URN prefix, one digit short.
    assert_eq!(uuid_err(HEX), uuid_length_msg(32));
    assert_eq!(uuid_err(&format!("{{{UUID}}}")), uuid_length_msg(38));
    assert_eq!(uuid_err(&format!("urn:uuid:{UUID}")), uuid_length_msg(45));
    assert_eq!(uuid_err(&UUID[..35]), uuid_length_msg(35));
    assert_eq!(uuid_err(""), uuid_length_msg(0));
    assert_eq!(uuid_err(&format!(" {UUID}")), uuid_length_msg(37));
}

#[test]
fn every_digit_rule_of_the_hex_form() {
    let id = Scru128Id::from_u128(X);
    assert_eq!(Scru128Id::try_from_hex(&HEX.to_ascii_uppercase()), Ok(id));
    for (pos, ch) in [
        (0, 'g'),
        (31, 'G'),
        (5, ' '),
        (10, '-'),
        (20, 'z'),
        (0, '+'),
    ] {
        let mut text = HEX.to_owned();
        text.replace_range(pos..=pos, &ch.to_string());
        assert_eq!(
            hex_err(&text),
            hex_digit_msg(&format!("{ch:?}"), pos),
            "{text}"
        );
    }
    // Prefixes, signs and spaces are not trimmed.
    assert_eq!(
        hex_err(&format!("0x{}", &HEX[2..])),
        hex_digit_msg("'x'", 1)
    );
    assert_eq!(hex_err(&format!("0x{HEX}")), hex_length_msg(34));
    assert_eq!(hex_err(&format!("{HEX}\n")), hex_length_msg(33));
    assert_eq!(hex_err(&HEX[..31]), hex_length_msg(31));
    assert_eq!(hex_err(""), hex_length_msg(0));
    assert_eq!(hex_err(UUID), hex_length_msg(36));
    // The earliest of two bad digits.
    assert_eq!(
        hex_err("00cc22a98f49faa6797gd9d2e2bf2a8h"),
        hex_digit_msg("'g'", 19)
    );
}

#[test]
fn lengths_and_positions_count_characters() {
    // 32 characters in 33 bytes: the length is right, the character is reported.
    let text = format!("{}é", &HEX[..31]);
    assert_eq!(text.chars().count(), 32);
    assert_eq!(hex_err(&text), hex_digit_msg("'é'", 31));
    // 31 characters in 32 bytes: the length is wrong.
    let text = format!("{}é", &HEX[..30]);
    assert_eq!(text.len(), 32);
    assert_eq!(hex_err(&text), hex_length_msg(31));
    // A 4-byte character at a hyphen position of the UUID form.
    let text = format!("{}😀{}", &UUID[..8], &UUID[9..]);
    assert_eq!(uuid_err(&text), hyphen_msg("'😀'", 8));
    assert_eq!(uuid_err(&"é".repeat(18)), uuid_length_msg(18));
    // Full-width digits and combining marks, whole.
    let text = format!("０{}", &HEX[1..]);
    assert_eq!(hex_err(&text), hex_digit_msg("'０'", 0));
    let text = format!("{}\u{301}{}", &HEX[..4], &HEX[5..]);
    assert_eq!(hex_err(&text), hex_digit_msg("'\\u{301}'", 4));
}

#[test]
fn the_bytes_parsers_report_bytes_that_are_not_ascii() {
    let mut bytes = HEX.as_bytes().to_vec();
    bytes[7] = 0xff;
    let err = Scru128Id::try_from_hex_ascii(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid byte 0xff at position 7: {HEX_DIGITS}")
    );
    let mut bytes = UUID.as_bytes().to_vec();
    bytes[13] = 0x80;
    let err = Scru128Id::try_from_uuid_ascii(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid byte 0x80 at position 13: {HYPHEN}")
    );
    // A byte that is not UTF-8 counts as one character in a length.
    let err = Scru128Id::try_from_hex_ascii(&[0xc3; 40]).unwrap_err();
    assert_eq!(err.to_string(), hex_length_msg(40));
    // A UTF-8 character counts as one.
    let mut bytes = HEX.as_bytes()[..31].to_vec();
    bytes.extend_from_slice("é".as_bytes());
    let err = Scru128Id::try_from_hex_ascii(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid byte 0xc3 at position 31: {HEX_DIGITS}")
    );
}

#[test]
fn errors_differ_by_form_and_are_std_errors() {
    let hex = Scru128Id::try_from_hex("").unwrap_err();
    let uuid = Scru128Id::try_from_uuid_str("").unwrap_err();
    let base32 = Scru128Id::try_from_str("").unwrap_err();
    assert_ne!(hex, uuid);
    assert_ne!(hex, base32);
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(uuid);
    assert_eq!(boxed.to_string(), uuid_length_msg(0));
}

// The parsers and writers are `const fn`s: usable in `const` items.
const FROM_HEX: Result<Scru128Id, ParseError> = Scru128Id::try_from_hex(HEX);
const FROM_UUID: Result<Scru128Id, ParseError> = Scru128Id::try_from_uuid_str(UUID);
const FROM_BYTES: Result<Scru128Id, ParseError> = Scru128Id::try_from_uuid_ascii(b"x");
const WRITTEN: EncodedUuid = Scru128Id::from_u128(X).encode_uuid();
const WRITTEN_HEX: EncodedHex = Scru128Id::from_u128(X).encode_hex();

#[test]
fn the_codec_works_in_const_items() {
    assert_eq!(FROM_HEX, Ok(Scru128Id::from_u128(X)));
    assert_eq!(FROM_UUID, Ok(Scru128Id::from_u128(X)));
    assert_eq!(FROM_BYTES.unwrap_err().to_string(), uuid_length_msg(1));
    assert_eq!(WRITTEN, UUID);
    assert_eq!(WRITTEN_HEX, HEX);
}

/// Naive reading by the definition: `Some(value)` for valid input.
fn naive(bytes: &[u8], uuid: bool) -> Option<u128> {
    let digits: Vec<u8> = if uuid {
        if bytes.len() != 36 || [8, 13, 18, 23].iter().any(|&p| bytes[p] != b'-') {
            return None;
        }
        bytes
            .iter()
            .enumerate()
            .filter(|(p, _)| ![8, 13, 18, 23].contains(p))
            .map(|(_, &b)| b)
            .collect()
    } else {
        bytes.to_vec()
    };
    if digits.len() != 32 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u128::from_str_radix(std::str::from_utf8(&digits).ok()?, 16).ok()
}

proptest! {
    #[test]
    fn any_value_round_trips_through_both_forms_in_any_case(value in any::<u128>(), mask in any::<u64>()) {
        let id = Scru128Id::from_u128(value);
        let hex = id.encode_hex();
        prop_assert_eq!(hex.as_str(), format!("{value:032x}"));
        prop_assert_eq!(id.encode_uuid(), common::uuid_form(&hex));
        let mixed = common::flip_case(&hex, mask);
        prop_assert_eq!(Scru128Id::try_from_hex(&mixed), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_hex_ascii(mixed.as_bytes()), Ok(id));
        let mixed = common::flip_case(&id.encode_uuid(), mask);
        prop_assert_eq!(Scru128Id::try_from_uuid_str(&mixed), Ok(id));
        prop_assert_eq!(Scru128Id::try_from_uuid_ascii(mixed.as_bytes()), Ok(id));
    }

    #[test]
    fn both_forms_sort_like_the_id(a in any::<u128>(), b in any::<u128>()) {
        let (x, y) = (Scru128Id::from_u128(a), Scru128Id::from_u128(b));
        prop_assert_eq!(x.encode_hex().cmp(&y.encode_hex()), x.cmp(&y));
        prop_assert_eq!(x.encode_uuid().cmp(&y.encode_uuid()), x.cmp(&y));
    }

    #[test]
    fn any_32_hex_digits_parse_to_their_value(text in "[0-9a-fA-F]{32}") {
        let id = Scru128Id::try_from_hex(&text).unwrap();
        prop_assert_eq!(id.to_u128(), u128::from_str_radix(&text, 16).unwrap());
    }

    #[test]
    fn strings_of_another_length_fail_with_a_length_error(text in "\\PC{0,48}") {
        let chars = text.chars().count();
        if chars != 32 {
            prop_assert_eq!(hex_err(&text), hex_length_msg(chars));
        }
        if chars != 36 {
            prop_assert_eq!(uuid_err(&text), uuid_length_msg(chars));
        }
    }

    #[test]
    fn one_wrong_character_is_reported_where_it_stands(
        value in any::<u128>(),
        pos in 0..36usize,
        ch in "[^0-9a-fA-F]",
    ) {
        let ch = ch.chars().next().unwrap();
        let id = Scru128Id::from_u128(value);
        let mut chars: Vec<char> = id.encode_uuid().chars().collect();
        let at_hyphen = [8, 13, 18, 23].contains(&pos);
        prop_assume!(!(at_hyphen && ch == '-'));
        chars[pos] = ch;
        let text: String = chars.into_iter().collect();
        let expected = if at_hyphen {
            hyphen_msg(&format!("{ch:?}"), pos)
        } else {
            hex_digit_msg(&format!("{ch:?}"), pos)
        };
        prop_assert_eq!(uuid_err(&text), expected);
        prop_assume!(ch != '-' || pos < 32);
        let mut chars: Vec<char> = id.encode_hex().chars().collect();
        let pos = pos % 32;
        chars[pos] = ch;
        let text: String = chars.into_iter().collect();
        prop_assert_eq!(hex_err(&text), hex_digit_msg(&format!("{ch:?}"), pos));
    }

    #[test]
    fn random_bytes_never_panic_and_match_the_definition(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..48),
            proptest::collection::vec(any::<u8>(), 32),
            proptest::collection::vec(any::<u8>(), 36),
            // Mostly hex digits and hyphens, so that valid and nearly valid inputs are common.
            proptest::collection::vec(
                prop_oneof![
                    12 => proptest::sample::select(b"0123456789abcdefABCDEF-".to_vec()),
                    1 => any::<u8>(),
                ],
                30..38,
            ),
        ],
    ) {
        let hex = Scru128Id::try_from_hex_ascii(&bytes);
        prop_assert_eq!(hex.clone().ok().map(Scru128Id::to_u128), naive(&bytes, false));
        let uuid = Scru128Id::try_from_uuid_ascii(&bytes);
        prop_assert_eq!(uuid.clone().ok().map(Scru128Id::to_u128), naive(&bytes, true));
        if let Ok(text) = std::str::from_utf8(&bytes) {
            prop_assert_eq!(Scru128Id::try_from_hex(text).is_ok(), hex.is_ok());
            prop_assert_eq!(Scru128Id::try_from_uuid_str(text).is_ok(), uuid.is_ok());
        }
        for err in [hex.err(), uuid.err()].into_iter().flatten() {
            let msg = err.to_string();
            prop_assert_eq!(msg.lines().count(), 1);
            prop_assert!(msg.starts_with("invalid "), "{}", msg);
        }
    }
}
