//! The text parsers on any input: `str::parse` (the run-time SSE2 path on x86-64),
//! `Scru128Id::try_from_str` (the `const` portable path), `TryFrom<&str>`,
//! `TryFrom<String>` and `try_from_ascii` (bytes) must agree with each other and with
//! a naive decoder written from the spec: the same ID, or the same error, whose
//! message names the broken rule and where (lengths in characters). An accepted text
//! re-encodes to itself up to case. The same for the hex and UUID forms
//! (`try_from_hex[_ascii]`, `try_from_uuid_{str,ascii}`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use scru128::Scru128Id;

const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";

/// The first broken rule, as the spec orders them.
#[derive(Debug, PartialEq, Eq)]
enum Broken {
    Length(usize),
    /// A byte that is not a digit (either case), at this position.
    Digit(usize),
    /// First digit above 7.
    Range,
}

/// Characters as the library counts them: a UTF-8 character, or a byte that is not
/// part of one, is one.
fn char_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum()
}

/// Naive decoder: 26 characters, each a digit of the alphabet in either case, the
/// first 0-7; the value is the base-32 number.
fn naive(bytes: &[u8]) -> Result<u128, Broken> {
    let len = char_count(bytes);
    if len != 26 {
        return Err(Broken::Length(len));
    }
    let mut value = 0u128;
    for (pos, &b) in bytes.iter().enumerate() {
        let up = b.to_ascii_uppercase();
        let Some(d) = ALPHABET.iter().position(|&a| a == up) else {
            return Err(Broken::Digit(pos));
        };
        if pos == 0 && d > 7 {
            return Err(Broken::Range);
        }
        value = (value << 5) | d as u128;
    }
    Ok(value)
}

fn check_message(msg: &str, broken: &Broken) {
    assert_eq!(msg.lines().count(), 1, "{msg:?}");
    match broken {
        Broken::Length(len) => {
            assert_eq!(
                msg,
                format!("invalid length: expected 26 characters, found {len}")
            );
        }
        Broken::Digit(pos) => {
            assert!(msg.starts_with("invalid "), "{msg:?}");
            assert!(
                msg.contains(&format!(" at position {pos}: ")),
                "{msg:?} {pos}"
            );
        }
        Broken::Range => assert!(
            msg.starts_with("out of range: the first digit is "),
            "{msg:?}"
        ),
    }
}

/// Naive hex or UUID decoder: 32 hex digits, or 36 characters with `-` at 8, 13, 18
/// and 23 and hex digits elsewhere.
fn naive_hex(bytes: &[u8], uuid: bool) -> Result<u128, Broken> {
    let want = if uuid { 36 } else { 32 };
    let len = char_count(bytes);
    if len != want {
        return Err(Broken::Length(len));
    }
    let mut value = 0u128;
    for (pos, &b) in bytes.iter().enumerate() {
        if uuid && [8, 13, 18, 23].contains(&pos) {
            if b != b'-' {
                return Err(Broken::Digit(pos));
            }
            continue;
        }
        let Some(d) = char::from(b).to_digit(16).filter(|_| b.is_ascii()) else {
            return Err(Broken::Digit(pos));
        };
        value = (value << 4) | u128::from(d);
    }
    Ok(value)
}

/// The hex and UUID parsers against the naive decoder, bytes and text.
fn check_hex_forms(data: &[u8]) {
    let text = std::str::from_utf8(data).ok();
    for uuid in [false, true] {
        let expected = naive_hex(data, uuid);
        let (from_ascii, from_text) = if uuid {
            (
                Scru128Id::try_from_uuid_ascii(data),
                text.map(Scru128Id::try_from_uuid_str),
            )
        } else {
            (
                Scru128Id::try_from_hex_ascii(data),
                text.map(Scru128Id::try_from_hex),
            )
        };
        for result in [Some(from_ascii), from_text].into_iter().flatten() {
            match (&result, &expected) {
                (Ok(id), Ok(value)) => {
                    assert_eq!(id.to_u128(), *value);
                    let written = if uuid {
                        id.encode_uuid().to_string()
                    } else {
                        id.encode_hex().to_string()
                    };
                    assert!(written.as_bytes().eq_ignore_ascii_case(data));
                }
                (Err(err), Err(Broken::Length(len))) => {
                    let msg = err.to_string();
                    assert!(msg.starts_with("invalid length: expected "), "{msg:?}");
                    assert!(msg.ends_with(&format!(", found {len}")), "{msg:?}");
                }
                (Err(err), Err(broken)) => check_message(&err.to_string(), broken),
                _ => panic!("uuid {uuid}: {result:?}, naive: {expected:?}"),
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check_hex_forms(data);
    let expected = naive(data);
    let from_ascii = Scru128Id::try_from_ascii(data);
    match (&from_ascii, &expected) {
        (Ok(id), Ok(value)) => assert_eq!(id.to_u128(), *value),
        (Err(err), Err(broken)) => check_message(&err.to_string(), broken),
        _ => panic!("try_from_ascii: {from_ascii:?}, naive: {expected:?}"),
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = text.parse::<Scru128Id>();
    let const_path = Scru128Id::try_from_str(text);
    assert_eq!(parsed, const_path, "{text:?}");
    assert_eq!(parsed, Scru128Id::try_from(text));
    assert_eq!(parsed, Scru128Id::try_from(text.to_owned()));
    match (&parsed, &expected) {
        (Ok(id), Ok(value)) => {
            assert_eq!(id.to_u128(), *value);
            assert!(id.encode().eq_ignore_ascii_case(text));
            assert!(id.encode_lower().eq_ignore_ascii_case(text));
            assert_eq!(id.to_string(), id.encode().as_str());
            assert_eq!(id.encode().parse::<Scru128Id>(), Ok(*id));
        }
        (Err(err), Err(broken)) => {
            check_message(&err.to_string(), broken);
            // On ASCII input the text and byte parsers say the same; otherwise the
            // text one names the whole character.
            if text.is_ascii() {
                assert_eq!(Err(err.clone()), from_ascii);
            }
        }
        _ => panic!("parse: {parsed:?}, naive: {expected:?}"),
    }
});
