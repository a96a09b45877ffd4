//! The text parsers on any input: `str::parse` (the run-time SSE2 path on x86-64),
//! `Scru128Id::try_from_str` (the `const` portable path), `TryFrom<&str>`,
//! `TryFrom<String>` and `try_from_ascii` (bytes) must agree with each other and with
//! a naive decoder written from the spec: the same ID, or the same error, whose
//! message names the broken rule and where. An accepted text re-encodes to itself up
//! to case.
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

/// Naive decoder: 26 bytes, each a digit of the alphabet in either case, the first
/// 0-7; the value is the base-32 number.
fn naive(bytes: &[u8]) -> Result<u128, Broken> {
    if bytes.len() != 26 {
        return Err(Broken::Length(bytes.len()));
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
                format!("invalid length: expected 26 bytes, found {len}")
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

fuzz_target!(|data: &[u8]| {
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
                assert_eq!(Err(*err), from_ascii);
            }
        }
        _ => panic!("parse: {parsed:?}, naive: {expected:?}"),
    }
});
