//! The text forms of an ID: reading the forms `inspect`, `convert` and `check` accept,
//! and writing the forms of `--format`. The base-32, hex and UUID forms are the
//! library's codec; the decimal form is the integer value.

use std::fmt;

use scru128::{ParseError, Scru128Id};

use crate::args::{Format, InputForm};
use crate::lines::{MAX_LINE, char_count};

/// Why an input is not an ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// The library's reason why a text of one form is not an ID.
    Parse(ParseError),
    /// The library's reason for a length that no accepted form has.
    Length(ParseError),
    /// A character that is not a decimal digit, where only the decimal form is read.
    NotDecimal {
        /// 0-based position in characters.
        pos: usize,
        /// The character or, in input that is not UTF-8, the byte.
        found: Found,
    },
    /// Empty input, where only the decimal form is read.
    NoDigits,
    /// Decimal digits whose value is above 2^128 - 1.
    DecimalTooLarge,
    /// A line longer than the line reader keeps.
    TooLong,
}

/// An offending character of the input, or a byte where the input is not UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A character.
    Char(char),
    /// A byte that is not part of a UTF-8 character.
    Byte(u8),
}

impl Found {
    /// What starts `bytes` (not empty).
    fn first_of(bytes: &[u8]) -> Self {
        match bytes
            .utf8_chunks()
            .next()
            .and_then(|c| c.valid().chars().next())
        {
            Some(ch) => Self::Char(ch),
            None => Self::Byte(bytes[0]),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Parse(ref err) => write!(f, "{err}"),
            Self::Length(ref err) => write!(
                f,
                "{err} (32 hex digits, the 36-character UUID form and decimal integers are also accepted)"
            ),
            Self::NotDecimal { pos, found } => match found {
                Found::Char(ch) => write!(
                    f,
                    "invalid decimal digit {ch:?} at position {pos}: expected 0-9"
                ),
                Found::Byte(byte) => {
                    write!(
                        f,
                        "invalid byte {byte:#04x} at position {pos}: expected 0-9"
                    )
                }
            },
            Self::NoDigits => f.write_str("empty input: expected decimal digits"),
            Self::DecimalTooLarge => write!(
                f,
                "decimal integer out of range: above 2^128-1 ({})",
                u128::MAX
            ),
            Self::TooLong => write!(f, "line too long: more than {MAX_LINE} characters"),
        }
    }
}

impl std::error::Error for InputError {}

/// A form that an input is read in.
#[derive(Clone, Copy)]
enum Form {
    Base32,
    Hex,
    Uuid,
    Decimal,
    /// No form has the length (auto mode): a length error.
    Unknown,
}

/// The form of an input of `chars` characters in auto mode.
#[inline]
fn auto_form(bytes: &[u8], chars: usize) -> Form {
    match chars {
        26 => Form::Base32,
        32 => Form::Hex,
        _ if is_decimal(bytes) => Form::Decimal,
        36 => Form::Uuid,
        _ => Form::Unknown,
    }
}

/// Reads `bytes` in `form` with the library's parsers for bytes.
#[inline]
fn read_ascii(bytes: &[u8], form: Form) -> Result<Scru128Id, InputError> {
    match form {
        Form::Base32 => Scru128Id::try_from_ascii(bytes).map_err(InputError::Parse),
        Form::Hex => Scru128Id::try_from_hex_ascii(bytes).map_err(InputError::Parse),
        Form::Uuid => Scru128Id::try_from_uuid_ascii(bytes).map_err(InputError::Parse),
        Form::Decimal => parse_decimal(bytes),
        Form::Unknown => Err(InputError::Length(
            Scru128Id::try_from_ascii(bytes).unwrap_err(),
        )),
    }
}

/// Reads UTF-8 `text` in `form` with the library's parsers for text, which name a
/// bad character whole.
fn read_text(text: &str, form: Form) -> Result<Scru128Id, InputError> {
    match form {
        Form::Base32 => text.parse().map_err(InputError::Parse),
        Form::Hex => Scru128Id::try_from_hex(text).map_err(InputError::Parse),
        Form::Uuid => Scru128Id::try_from_uuid_str(text).map_err(InputError::Parse),
        Form::Decimal => parse_decimal(text.as_bytes()),
        Form::Unknown => Err(InputError::Length(text.parse::<Scru128Id>().unwrap_err())),
    }
}

/// Whether `bytes` are decimal digits only (at least one).
fn is_decimal(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit)
}

/// The value of decimal digits, or `None` above 2^128 - 1.
fn decimal(digits: &[u8]) -> Option<u128> {
    digits.iter().try_fold(0u128, |value, &d| {
        value.checked_mul(10)?.checked_add(u128::from(d - b'0'))
    })
}

/// Parses an ID in the accepted forms, told apart by length in characters:
/// - 26: canonical text in either case;
/// - 32: the 128 bits as hex digits, either case;
/// - 36: UUID form 8-4-4-4-12 of hex digits, either case (version and variant bits
///   are not checked: a SCRU128 ID is no RFC 9562 UUID);
/// - any other length of decimal digits only: the 128-bit value (as `--format int`
///   writes it). Decimal digits of length 26 or 32 are read as the canonical or the
///   hex form; as integers they would be IDs of the first hours of 2020 (see
///   [`InputForm::Int`] to read them as integers).
///
/// With a `form` other than [`InputForm::Auto`], only that form is read.
///
/// # Errors
///
/// An [`InputError`] saying which character or length is wrong.
pub fn parse_id(bytes: &[u8], form: InputForm) -> Result<Scru128Id, InputError> {
    let named = match form {
        InputForm::Auto => None,
        InputForm::Canonical => Some(Form::Base32),
        InputForm::Hex => Some(Form::Hex),
        InputForm::Uuid => Some(Form::Uuid),
        InputForm::Int => Some(Form::Decimal),
    };
    // Taken as ASCII first, whose characters are its bytes: the common case costs
    // no counting. Only input that fails and is not ASCII is read again by
    // characters, as UTF-8 text where it is.
    let result = read_ascii(
        bytes,
        named.unwrap_or_else(|| auto_form(bytes, bytes.len())),
    );
    if result.is_ok() || bytes.is_ascii() {
        return result;
    }
    let form = named.unwrap_or_else(|| auto_form(bytes, char_count(bytes)));
    match std::str::from_utf8(bytes) {
        Ok(text) => read_text(text, form),
        Err(_) => read_ascii(bytes, form),
    }
}

/// A warning for `bytes`, read in `form` as `id`, when it is digits alone that the
/// length took for the canonical or the hex form although, as a decimal integer,
/// they are another ID: 26 or 32 digits in auto mode (digits that read the same
/// either way, such as all zeros, get none).
pub fn ambiguous_digits(bytes: &[u8], form: InputForm, id: &Scru128Id) -> Option<Ambiguous> {
    if form != InputForm::Auto || !matches!(bytes.len(), 26 | 32) || !is_decimal(bytes) {
        return None;
    }
    // At most 32 digits: below 10^32, so within a u128.
    let as_integer = decimal(bytes)?;
    (as_integer != id.to_u128()).then_some(Ambiguous {
        hex: bytes.len() == 32,
    })
}

/// Digits alone read in the canonical or the hex form that are also a decimal
/// integer of another ID (see [`ambiguous_digits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ambiguous {
    /// Read as hex (32 digits), not canonical (26).
    hex: bool,
}

impl fmt::Display for Ambiguous {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (form, digits) = if self.hex {
            ("hex", 32)
        } else {
            ("canonical", 26)
        };
        write!(
            f,
            "warning: read as {form}, though {digits} digits alone are also a decimal \
             integer (of another ID); give --from {form} or --from int to choose (later \
             such inputs are not reported)"
        )
    }
}

/// Parses the decimal form.
fn parse_decimal(bytes: &[u8]) -> Result<Scru128Id, InputError> {
    // Every byte before the first non-digit is a digit: its index is its position.
    if let Some(pos) = bytes.iter().position(|b| !b.is_ascii_digit()) {
        let found = Found::first_of(&bytes[pos..]);
        return Err(InputError::NotDecimal { pos, found });
    }
    if bytes.is_empty() {
        return Err(InputError::NoDigits);
    }
    decimal(bytes)
        .map(Scru128Id::from_u128)
        .ok_or(InputError::DecimalTooLarge)
}

/// Longest text [`write_id`] writes: 39 decimal digits of a u128.
pub const MAX_FORM_LEN: usize = 39;

/// Writes `id` in `format` to the start of `out` and returns the length written.
#[inline]
pub fn write_id(id: &Scru128Id, format: Format, out: &mut [u8; MAX_FORM_LEN + 1]) -> usize {
    match format {
        Format::Canonical => {
            out[..26].copy_from_slice(id.encode().as_bytes());
            26
        }
        Format::Lower => {
            out[..26].copy_from_slice(id.encode_lower().as_bytes());
            26
        }
        Format::Hex => {
            out[..32].copy_from_slice(id.encode_hex().as_bytes());
            32
        }
        Format::Uuid => {
            out[..36].copy_from_slice(id.encode_uuid().as_bytes());
            36
        }
        Format::Int => {
            let mut fmt = itoa::Buffer::new();
            let text = fmt.format(id.to_u128()).as_bytes();
            out[..text.len()].copy_from_slice(text);
            text.len()
        }
    }
}

/// Appends `ids` to `block`, each as `W` bytes written by `write` and a newline.
/// The line width is known at compile time, so every copy is a few moves.
#[inline]
fn fixed_lines<const W: usize>(
    ids: &[Scru128Id],
    block: &mut Vec<u8>,
    write: impl Fn(&Scru128Id) -> [u8; W],
) {
    let start = block.len();
    block.resize(start + ids.len() * (W + 1), b'\n');
    for (line, id) in block[start..].chunks_exact_mut(W + 1).zip(ids) {
        if let Some(text) = line.first_chunk_mut::<W>() {
            *text = write(id);
        }
    }
}

/// Appends `ids` to `block` in `format`, one per line: the fast path of `generate`.
pub fn write_lines(ids: &[Scru128Id], format: Format, block: &mut Vec<u8>) {
    match format {
        Format::Canonical => fixed_lines(ids, block, |id| *id.encode().as_bytes()),
        Format::Lower => fixed_lines(ids, block, |id| *id.encode_lower().as_bytes()),
        Format::Hex => fixed_lines(ids, block, |id| *id.encode_hex().as_bytes()),
        Format::Uuid => fixed_lines(ids, block, |id| *id.encode_uuid().as_bytes()),
        Format::Int => {
            let mut fmt = itoa::Buffer::new();
            for id in ids {
                block.extend_from_slice(fmt.format(id.to_u128()).as_bytes());
                block.push(b'\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;

    /// `id` in `format` as a `String`.
    fn id_string(id: &Scru128Id, format: Format) -> String {
        let mut buf = [0u8; MAX_FORM_LEN + 1];
        let len = write_id(id, format, &mut buf);
        String::from_utf8_lossy(&buf[..len]).into_owned()
    }

    fn auto(text: &[u8]) -> Result<Scru128Id, InputError> {
        parse_id(text, InputForm::Auto)
    }

    #[test]
    fn parses_every_form() {
        let id = Scru128Id::from_u128(X);
        for text in [
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
            "00pghaj3q9vaj7iu6pqbhbuak4",
            "00cc22a98f49faa67978d9d2e2bf2a84",
            "00CC22A98F49FAA67978D9D2E2BF2A84",
            "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84",
            "00CC22A9-8F49-FAA6-7978-D9D2E2BF2A84",
            "1059931594972885555505120546683562628",
            "0001059931594972885555505120546683562628",
        ] {
            assert_eq!(auto(text.as_bytes()), Ok(id), "{text}");
        }
        assert_eq!(X.to_string(), "1059931594972885555505120546683562628");
        assert_eq!(auto(b"0"), Ok(Scru128Id::MIN));
        assert_eq!(auto(u128::MAX.to_string().as_bytes()), Ok(Scru128Id::MAX));
        // 36 decimal digits are an integer, not a UUID.
        let digits36 = "1".repeat(36);
        assert_eq!(
            auto(digits36.as_bytes()),
            Ok(Scru128Id::from_u128(digits36.parse().unwrap()))
        );
        // 26 and 32 digits are the canonical and the hex form, unless told otherwise.
        let digits32 = "12345678901234567890123456789012";
        assert_eq!(
            auto(digits32.as_bytes()),
            Ok(Scru128Id::from_u128(
                u128::from_str_radix(digits32, 16).unwrap()
            ))
        );
        assert_eq!(
            parse_id(digits32.as_bytes(), InputForm::Int),
            Ok(Scru128Id::from_u128(digits32.parse().unwrap()))
        );
    }

    #[test]
    fn a_named_form_reads_only_that_form() {
        let hex = b"00cc22a98f49faa67978d9d2e2bf2a84";
        assert_eq!(parse_id(hex, InputForm::Hex), Ok(Scru128Id::from_u128(X)));
        assert!(matches!(
            parse_id(hex, InputForm::Uuid),
            Err(InputError::Parse(_))
        ));
        assert!(parse_id(hex, InputForm::Canonical).is_err());
        assert_eq!(
            parse_id(hex, InputForm::Int),
            Err(InputError::NotDecimal {
                pos: 2,
                found: Found::Char('c')
            })
        );
    }

    #[test]
    fn says_what_is_wrong() {
        let msg = |s: &[u8]| auto(s).unwrap_err().to_string();
        assert_eq!(
            msg(b"abc"),
            "invalid length: expected 26 characters, found 3 (32 hex digits, the \
             36-character UUID form and decimal integers are also accepted)"
        );
        assert_eq!(
            msg(b"00cc22a98f49faa67978d9d2e2bf2a8g"),
            "invalid hex digit 'g' at position 31: expected 0-9 or a-f in either case"
        );
        assert_eq!(
            msg(b"00cc22a9_8f49-faa6-7978-d9d2e2bf2a84"),
            "invalid character '_' at position 8: expected '-' (UUID form 8-4-4-4-12)"
        );
        assert_eq!(
            msg(b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a8\xff"),
            "invalid byte 0xff at position 35: expected 0-9 or a-f in either case"
        );
        // A UTF-8 character is named whole, at its position in characters.
        assert_eq!(
            msg("00cc22a98f49faa67978d9d2e2bf2a8é".as_bytes()),
            "invalid hex digit 'é' at position 31: expected 0-9 or a-f in either case"
        );
        assert!(msg(b"80000000000000000000000000").starts_with("out of range"));
        assert_eq!(
            msg(b"340282366920938463463374607431768211456"),
            "decimal integer out of range: above 2^128-1 (340282366920938463463374607431768211455)"
        );
        let int = |s: &[u8]| parse_id(s, InputForm::Int).unwrap_err().to_string();
        assert_eq!(
            int(b"12a"),
            "invalid decimal digit 'a' at position 2: expected 0-9"
        );
        assert_eq!(
            int("12é".as_bytes()),
            "invalid decimal digit 'é' at position 2: expected 0-9"
        );
        assert_eq!(
            int(b"1\xff"),
            "invalid byte 0xff at position 1: expected 0-9"
        );
        assert_eq!(
            int(b"-1"),
            "invalid decimal digit '-' at position 0: expected 0-9"
        );
        assert_eq!(int(b""), "empty input: expected decimal digits");
    }

    #[test]
    fn digits_alone_of_26_or_32_are_ambiguous_when_they_read_differently() {
        let check = |text: &str, form| {
            let id = parse_id(text.as_bytes(), form).unwrap();
            ambiguous_digits(text.as_bytes(), form, &id)
        };
        let d26 = "12345678901234567890123456";
        let d32 = "12345678901234567890123456789012";
        assert_eq!(check(d26, InputForm::Auto), Some(Ambiguous { hex: false }));
        assert_eq!(check(d32, InputForm::Auto), Some(Ambiguous { hex: true }));
        // Named forms are not ambiguous, nor other lengths, nor letters.
        assert_eq!(check(d26, InputForm::Canonical), None);
        assert_eq!(check(d26, InputForm::Int), None);
        assert_eq!(check(d32, InputForm::Hex), None);
        assert_eq!(check(&d26[1..], InputForm::Auto), None);
        assert_eq!(check("1234567890123456789012345A", InputForm::Auto), None);
        assert_eq!(
            check("00cc22a98f49faa67978d9d2e2bf2a84", InputForm::Auto),
            None
        );
        // Digits that give the same ID either way.
        assert_eq!(check(&"0".repeat(26), InputForm::Auto), None);
        assert_eq!(check("00000000000000000000000009", InputForm::Auto), None);
        assert_eq!(
            check(&format!("{}9", "0".repeat(31)), InputForm::Auto),
            None
        );
        assert_eq!(
            check("00000000000000000000000010", InputForm::Auto),
            Some(Ambiguous { hex: false })
        );
        assert!(
            Ambiguous { hex: false }
                .to_string()
                .contains("give --from canonical or --from int")
        );
    }

    #[test]
    fn writes_every_format() {
        let id = Scru128Id::from_u128(X);
        assert_eq!(
            id_string(&id, Format::Canonical),
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"
        );
        assert_eq!(id_string(&id, Format::Lower), "00pghaj3q9vaj7iu6pqbhbuak4");
        assert_eq!(
            id_string(&id, Format::Hex),
            "00cc22a98f49faa67978d9d2e2bf2a84"
        );
        assert_eq!(
            id_string(&id, Format::Uuid),
            "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84"
        );
        assert_eq!(id_string(&id, Format::Int), X.to_string());
        assert_eq!(
            id_string(&Scru128Id::MAX, Format::Int),
            u128::MAX.to_string()
        );
        for format in [
            Format::Canonical,
            Format::Lower,
            Format::Hex,
            Format::Uuid,
            Format::Int,
        ] {
            let text = id_string(&id, format);
            assert_eq!(auto(text.as_bytes()), Ok(id));
            let mut block = Vec::new();
            write_lines(&[id, Scru128Id::MAX], format, &mut block);
            let max = id_string(&Scru128Id::MAX, format);
            assert_eq!(
                String::from_utf8(block).unwrap(),
                format!("{text}\n{max}\n")
            );
        }
    }
}
