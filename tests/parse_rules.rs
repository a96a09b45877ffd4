//! Every rule of the text form (SPEC section 2) with the exact error message: the
//! length seen, the character and its 0-based position, the non-ASCII byte from
//! `try_from_ascii`, or the out-of-range first digit. Lengths and positions count
//! characters, not bytes.

use scru128::{ParseError, Scru128Id};

const DIGITS_MSG: &str = "expected 0-9 or A-V in either case";

fn length_msg(len: usize) -> String {
    format!("invalid length: expected 26 characters, found {len}")
}

/// `ch_debug` is the character as `{:?}` shows it, quotes included.
fn digit_msg(ch_debug: &str, pos: usize) -> String {
    format!("invalid digit {ch_debug} at position {pos}: {DIGITS_MSG}")
}

fn byte_msg(byte_hex: &str, pos: usize) -> String {
    format!("invalid byte {byte_hex} at position {pos}: {DIGITS_MSG}")
}

fn range_msg(first_debug: &str) -> String {
    format!("out of range: the first digit is {first_debug}, above the largest allowed '7'")
}

/// Parses `text` through every `&str`/`String` entry point, checks that they agree,
/// and returns the error message.
fn err(text: &str) -> String {
    let e = Scru128Id::try_from_str(text).expect_err(text);
    assert_eq!(
        text.parse::<Scru128Id>(),
        Err(e.clone()),
        "FromStr differs: {text:?}"
    );
    assert_eq!(
        Scru128Id::try_from(text),
        Err(e.clone()),
        "TryFrom<&str>: {text:?}"
    );
    assert_eq!(
        Scru128Id::try_from(text.to_owned()),
        Err(e.clone()),
        "TryFrom<String>: {text:?}"
    );
    if text.is_ascii() {
        // Same rules for bytes; for ASCII input the errors are the same.
        assert_eq!(
            Scru128Id::try_from_ascii(text.as_bytes()),
            Err(e.clone()),
            "{text:?}"
        );
    } else {
        assert!(
            Scru128Id::try_from_ascii(text.as_bytes()).is_err(),
            "{text:?}"
        );
    }
    e.to_string()
}

fn err_ascii(bytes: &[u8]) -> String {
    Scru128Id::try_from_ascii(bytes)
        .expect_err("should be rejected")
        .to_string()
}

/// A valid ID to mutate: `00PGHAJ3Q9VAJ7IU6PQBHBUAK4`.
const VALID: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";

fn with_byte(pos: usize, b: u8) -> Vec<u8> {
    let mut bytes = VALID.as_bytes().to_vec();
    bytes[pos] = b;
    bytes
}

#[test]
fn valid_strings_parse_in_either_case() {
    let id = Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    assert_eq!(Scru128Id::try_from_str(VALID), Ok(id));
    assert_eq!(
        Scru128Id::try_from_str("00pghaj3q9vaj7iu6pqbhbuak4"),
        Ok(id)
    );
    assert_eq!(
        Scru128Id::try_from_str("00pGhAj3Q9vAj7Iu6PqBhBuAk4"),
        Ok(id)
    );
    assert_eq!(
        Scru128Id::try_from_str("7VVVVVVVVVVVVVVVVVVVVVVVVV"),
        Ok(Scru128Id::MAX)
    );
    assert_eq!(
        Scru128Id::try_from_str("7vvvvvvvvvvvvvvvvvvvvvvvvv"),
        Ok(Scru128Id::MAX)
    );
    assert_eq!(
        Scru128Id::try_from_str("00000000000000000000000000"),
        Ok(Scru128Id::MIN)
    );
    // Every first digit 0-7 is allowed.
    for first in '0'..='7' {
        let text = format!("{first}VVVVVVVVVVVVVVVVVVVVVVVVV");
        let id = Scru128Id::try_from_str(&text).unwrap();
        assert_eq!(id.as_u128() >> 125, u128::from(first.to_digit(10).unwrap()));
    }
}

#[test]
fn empty_string_is_a_length_error() {
    assert_eq!(err(""), length_msg(0));
    assert_eq!(err_ascii(b""), length_msg(0));
}

#[test]
fn wrong_lengths_report_the_length_seen() {
    assert_eq!(err(&VALID[..25]), length_msg(25));
    assert_eq!(err(&format!("{VALID}0")), length_msg(27));
    assert_eq!(err("0"), length_msg(1));
    assert_eq!(err(&"0".repeat(52)), length_msg(52));
    // Length is checked before the digits.
    assert_eq!(err("-----"), length_msg(5));
    assert_eq!(err_ascii(&[0xff; 30]), length_msg(30));
}

#[test]
fn length_is_counted_in_characters_not_bytes() {
    // 26 characters, 27 bytes: a length that passes, then the digit is wrong.
    let text = format!("{}é", &VALID[..25]);
    assert_eq!(text.chars().count(), 26);
    assert_eq!(err(&text), digit_msg("'é'", 25));
    // 25 characters, 26 bytes.
    let text = format!("{}é", &VALID[..24]);
    assert_eq!(text.chars().count(), 25);
    assert_eq!(err(&text), length_msg(25));
    // 26 four-byte characters.
    assert_eq!(err(&"😀".repeat(26)), digit_msg("'😀'", 0));
    assert_eq!(err(&"😀".repeat(27)), length_msg(27));
    // In bytes, a byte that is not UTF-8 counts as one character, a UTF-8 one as one.
    let mut bytes = VALID.as_bytes()[..24].to_vec();
    bytes.extend_from_slice("é".as_bytes());
    assert_eq!(err_ascii(&bytes), length_msg(25));
    bytes.push(0xff);
    assert_eq!(err_ascii(&bytes), byte_msg("0xc3", 24));
    assert_eq!(err_ascii(&[0x80; 30]), length_msg(30));
}

#[test]
fn whitespace_is_never_trimmed() {
    // Added around a valid ID: the length is wrong.
    assert_eq!(err(&format!(" {VALID}")), length_msg(27));
    assert_eq!(err(&format!("{VALID} ")), length_msg(27));
    assert_eq!(err(&format!("{VALID}\n")), length_msg(27));
    assert_eq!(err(&format!("{VALID}\r\n")), length_msg(28));
    assert_eq!(err(&format!("\t{VALID}")), length_msg(27));
    // In place of a digit: an invalid digit at that byte.
    assert_eq!(err(&format!(" {}", &VALID[1..])), digit_msg("' '", 0));
    assert_eq!(err(&format!("{} ", &VALID[..25])), digit_msg("' '", 25));
    assert_eq!(err(&format!("{}\n", &VALID[..25])), digit_msg("'\\n'", 25));
    assert_eq!(err(&format!("\t{}", &VALID[1..])), digit_msg("'\\t'", 0));
    assert_eq!(err(&format!("{}\0", &VALID[..25])), digit_msg("'\\0'", 25));
}

#[test]
fn signs_prefixes_hyphens_and_underscores_are_invalid_digits() {
    assert_eq!(err(&format!("+{}", &VALID[1..])), digit_msg("'+'", 0));
    assert_eq!(err(&format!("-{}", &VALID[1..])), digit_msg("'-'", 0));
    assert_eq!(err(&format!("+{VALID}")), length_msg(27));
    assert_eq!(err(&format!("0x{}", &VALID[2..])), digit_msg("'x'", 1));
    assert_eq!(err("00PGHAJ3-Q9VAJ7IU6PQBHBUAK"), digit_msg("'-'", 8));
    assert_eq!(err("00PGHAJ3_Q9VAJ7IU6PQBHBUAK"), digit_msg("'_'", 8));
    // A UUID-like hyphenated form of the right length.
    assert_eq!(err("00PGHAJ3-Q9VA-J7IU-6PQBHB"), length_msg(25));
    assert_eq!(err("00PGHAJ3-Q9VA-J7IU-6PQBHBU"), digit_msg("'-'", 8));
}

#[test]
fn multi_byte_characters_are_reported_whole_at_their_character_position() {
    // 2-byte character at the start, in place of a digit.
    assert_eq!(err(&format!("é{}", &VALID[1..])), digit_msg("'é'", 0));
    // 3-byte character in the middle: position 13.
    let text = format!("{}€{}", &VALID[..13], &VALID[14..]);
    assert_eq!(text.chars().count(), 26);
    assert_eq!(err(&text), digit_msg("'€'", 13));
    // 25 characters with a multi-byte one: the length comes first.
    let text = format!("{}€", &VALID[..24]);
    assert_eq!(err(&text), length_msg(25));
    // Two multi-byte characters: the first is reported.
    let text = format!("{}é€{}", &VALID[..5], &VALID[7..]);
    assert_eq!(text.chars().count(), 26);
    assert_eq!(err(&text), digit_msg("'é'", 5));
    // 4-byte character at the end.
    let text = format!("{}😀", &VALID[..25]);
    assert_eq!(err(&text), digit_msg("'😀'", 25));
    // Full-width digits look like digits but are not ASCII.
    let text = format!("０{}", &VALID[1..]);
    assert_eq!(err(&text), digit_msg("'０'", 0));
    // A combining mark is shown escaped (as `{:?}` shows it), still whole.
    let text = format!("{}\u{301}{}", &VALID[..10], &VALID[11..]);
    assert_eq!(err(&text), digit_msg("'\\u{301}'", 10));
    // An ASCII mistake before a multi-byte character is found first (reading order).
    let text = format!("{}-{}é", &VALID[..3], &VALID[4..25]);
    assert_eq!(err(&text), digit_msg("'-'", 3));
    let text = format!("9{}é", &VALID[1..25]);
    assert_eq!(err(&text), range_msg("'9'"));
}

#[test]
fn letters_past_v_are_invalid_digits_in_either_case() {
    for (pos, b) in [
        (10, b'W'),
        (10, b'w'),
        (25, b'X'),
        (1, b'y'),
        (13, b'Z'),
        (20, b'z'),
    ] {
        let bytes = with_byte(pos, b);
        let text = std::str::from_utf8(&bytes).unwrap();
        let ch = format!("{:?}", b as char);
        assert_eq!(err(text), digit_msg(&ch, pos), "{text}");
    }
    // A non-digit first is an invalid digit, not out of range.
    assert_eq!(err("W0000000000000000000000000"), digit_msg("'W'", 0));
    assert_eq!(err("w0000000000000000000000000"), digit_msg("'w'", 0));
}

#[test]
fn first_digit_above_7_is_out_of_range_in_either_case() {
    for first in "89ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv".chars() {
        let text = format!("{first}0000000000000000000000000");
        assert_eq!(err(&text), range_msg(&format!("'{first}'")), "{text}");
        let text = format!("{first}VVVVVVVVVVVVVVVVVVVVVVVVV");
        assert_eq!(err(&text), range_msg(&format!("'{first}'")), "{text}");
    }
    assert_eq!(err("vvvvvvvvvvvvvvvvvvvvvvvvvv"), range_msg("'v'"));
    // Just above the largest value, 2^128.
    assert_eq!(err("80000000000000000000000000"), range_msg("'8'"));
}

#[test]
fn the_first_broken_rule_in_reading_order_is_reported() {
    // Out-of-range first digit before a later invalid digit.
    assert_eq!(err("8000000000000000000000000-"), range_msg("'8'"));
    // The earliest of two invalid digits.
    assert_eq!(err("00000-000000000000000000_0"), digit_msg("'-'", 5));
    assert_eq!(err("00000W0000000000000000000-"), digit_msg("'W'", 5));
    // Length before everything else.
    assert_eq!(err("8-"), length_msg(2));
}

#[test]
fn the_reference_crates_invalid_strings() {
    // The 14 strings of scru128 1.0.0's own test, with the reason each fails (that 1.0.0
    // rejects them too is checked against it in compare/tests/compat_ref.rs).
    let cases: [(&str, String); 14] = [
        ("", length_msg(0)),
        (" 00SCT4FL89GQPRHN44C4LFM0OV", length_msg(27)),
        ("00SCT4FL89GQPRJN44C7SQO381 ", length_msg(27)),
        (" 00SCT4FL89GQPRLN44C4BGCIIO ", length_msg(28)),
        ("+00SCT4FL89GQPRNN44C4F3QD24", length_msg(27)),
        ("-00SCT4FL89GQPRPN44C7H4E5RC", length_msg(27)),
        ("+0SCT4FL89GQPRRN44C55Q7RVC", digit_msg("'+'", 0)),
        ("-0SCT4FL89GQPRTN44C6PN0A2R", digit_msg("'-'", 0)),
        ("00SCT4FL89WQPRVN44C41RGVMM", digit_msg("'W'", 10)),
        ("00SCT4FL89GQPS1N4_C54QDC5O", digit_msg("'_'", 17)),
        ("00SCT4-L89GQPS3N44C602O0K8", digit_msg("'-'", 6)),
        ("00SCT4FL89GQPS N44C7VHS5QJ", digit_msg("' '", 14)),
        ("80000000000000000000000000", range_msg("'8'")),
        ("VVVVVVVVVVVVVVVVVVVVVVVVVV", range_msg("'V'")),
    ];
    for (text, msg) in cases {
        assert_eq!(err(text), msg, "{text:?}");
    }
}

#[test]
fn try_from_ascii_reports_non_ascii_bytes_as_bytes() {
    assert_eq!(err_ascii(&with_byte(24, 0xff)), byte_msg("0xff", 24));
    assert_eq!(err_ascii(&with_byte(0, 0x80)), byte_msg("0x80", 0));
    assert_eq!(err_ascii(&with_byte(13, 0xc3)), byte_msg("0xc3", 13));
    // UTF-8 input: the first byte of the character is reported.
    let text = format!("{}é", &VALID[..25]);
    assert_eq!(err_ascii(text.as_bytes()), byte_msg("0xc3", 25));
    // ASCII bytes are reported as characters, like `try_from_str` does.
    assert_eq!(err_ascii(&with_byte(3, b'-')), digit_msg("'-'", 3));
    assert_eq!(err_ascii(&with_byte(0, b'9')), range_msg("'9'"));
    // A non-ASCII first byte is invalid, not out of range.
    assert_eq!(
        err_ascii(b"\xf70000000000000000000000000"),
        byte_msg("0xf7", 0)
    );
    // Valid input, either case.
    assert_eq!(
        Scru128Id::try_from_ascii(b"00pghaj3q9vaj7iu6pqbhbuak4"),
        Scru128Id::try_from_str(VALID)
    );
}

#[test]
fn errors_compare_and_work_as_std_errors() {
    let a = Scru128Id::try_from_str("").unwrap_err();
    let b = Scru128Id::try_from_str("").unwrap_err();
    let c = Scru128Id::try_from_str("0").unwrap_err();
    assert_eq!(a, b);
    assert_ne!(a, c);
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(c);
    assert_eq!(boxed.to_string(), length_msg(1));
    assert!(boxed.source().is_none());
    // Debug output exists and is not the empty string.
    assert!(!format!("{a:?}").is_empty());
}

// `try_from_str` is a `const fn`: usable in `const` items.
const PARSED: Result<Scru128Id, ParseError> = Scru128Id::try_from_str("00pghaj3q9vaj7iu6pqbhbuak4");
const REJECTED: Result<Scru128Id, ParseError> =
    Scru128Id::try_from_str("80000000000000000000000000");
const UNWRAPPED: Scru128Id = match Scru128Id::try_from_str(VALID) {
    Ok(id) => id,
    Err(_) => panic!("VALID must parse at compile time"),
};

#[test]
fn try_from_str_works_in_const_items() {
    let expected = Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    assert_eq!(PARSED, Ok(expected));
    assert_eq!(UNWRAPPED, expected);
    assert_eq!(REJECTED.unwrap_err().to_string(), range_msg("'8'"));
}
