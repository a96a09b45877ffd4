//! The text forms of an ID: reading the forms `inspect` and `check` accept, and
//! writing the forms of `--format`.

use std::fmt;

use scru128::{ParseError, Scru128Id};

use crate::args::Format;

/// Why an input is not an ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputError {
    /// The library's reason why a 26-byte text is not an ID.
    Parse(ParseError),
    /// The library's reason for a length that no accepted form has.
    Length(ParseError),
    /// A byte of the 32-digit hex form that is not a hex digit.
    Hex {
        /// 0-based byte position.
        pos: usize,
        /// The offending byte.
        byte: u8,
    },
    /// A byte of the 36-byte UUID form that is out of place.
    Uuid {
        /// 0-based byte position.
        pos: usize,
        /// The offending byte.
        byte: u8,
    },
    /// A line longer than the line reader keeps.
    TooLong {
        /// Its length in bytes.
        len: u64,
    },
}

/// Writes a byte for a message: ASCII as a quoted character, others as hex.
fn describe_byte(f: &mut fmt::Formatter<'_>, byte: u8) -> fmt::Result {
    if byte.is_ascii() {
        write!(f, "{:?}", char::from(byte))
    } else {
        write!(f, "byte {byte:#04x}")
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Parse(err) => write!(f, "{err}"),
            Self::Length(err) => {
                write!(
                    f,
                    "{err} (32 hex digits or a 36-byte UUID are also accepted)"
                )
            }
            Self::Hex { pos, byte } => {
                f.write_str("invalid hex digit ")?;
                describe_byte(f, byte)?;
                write!(f, " at position {pos} of a 32-digit hex ID")
            }
            Self::Uuid { pos, byte } => {
                f.write_str("invalid UUID form: ")?;
                describe_byte(f, byte)?;
                if matches!(pos, 8 | 13 | 18 | 23) {
                    write!(f, " at position {pos}, expected '-'")
                } else {
                    write!(f, " at position {pos}, expected a hex digit")
                }
            }
            Self::TooLong { len } => write!(
                f,
                "line too long: {len} bytes, more than the {} kept",
                crate::lines::MAX_LINE
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// Value of a hex digit (either case), or `None`.
#[inline]
fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// Parses hex digits at `positions` of `bytes` into a 128-bit value.
fn parse_hex(
    bytes: &[u8],
    positions: impl Iterator<Item = usize>,
    err: impl Fn(usize, u8) -> InputError,
) -> Result<u128, InputError> {
    let mut value = 0u128;
    for pos in positions {
        let byte = bytes[pos];
        let digit = hex_value(byte).ok_or_else(|| err(pos, byte))?;
        value = (value << 4) | u128::from(digit);
    }
    Ok(value)
}

/// Parses an ID in one of the accepted forms, told apart by length:
/// 26 bytes: canonical text in either case (the library's rules);
/// 32 bytes: the 128 bits as hex digits, either case;
/// 36 bytes: UUID form 8-4-4-4-12 of hex digits, either case (version and variant
/// bits are not checked: a SCRU128 ID is no RFC 9562 UUID).
///
/// # Errors
///
/// An [`InputError`] saying which byte or length is wrong.
pub fn parse_id(bytes: &[u8]) -> Result<Scru128Id, InputError> {
    match bytes.len() {
        32 => parse_hex(bytes, 0..32, |pos, byte| InputError::Hex { pos, byte })
            .map(Scru128Id::from_u128),
        36 => {
            for pos in [8, 13, 18, 23] {
                if bytes[pos] != b'-' {
                    return Err(InputError::Uuid {
                        pos,
                        byte: bytes[pos],
                    });
                }
            }
            let digits = (0..36).filter(|p| !matches!(p, 8 | 13 | 18 | 23));
            parse_hex(bytes, digits, |pos, byte| InputError::Uuid { pos, byte })
                .map(Scru128Id::from_u128)
        }
        26 => Scru128Id::try_from_ascii(bytes).map_err(InputError::Parse),
        _ => Scru128Id::try_from_ascii(bytes).map_err(InputError::Length),
    }
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes the 16 bytes of `id` as 32 lowercase hex digits into `out`.
#[inline]
fn write_hex32(id: &Scru128Id, out: &mut [u8; 32]) {
    for (pair, byte) in out.chunks_exact_mut(2).zip(id.as_bytes()) {
        pair[0] = HEX[usize::from(byte >> 4)];
        pair[1] = HEX[usize::from(byte & 15)];
    }
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
            let mut hex = [0u8; 32];
            write_hex32(id, &mut hex);
            out[..32].copy_from_slice(&hex);
            32
        }
        Format::Uuid => {
            let mut uuid = [0u8; 36];
            write_uuid(id, &mut uuid);
            out[..36].copy_from_slice(&uuid);
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

/// Writes the 36-byte UUID form (8-4-4-4-12) of `id`.
#[inline]
fn write_uuid(id: &Scru128Id, out: &mut [u8; 36]) {
    let mut hex = [0u8; 32];
    write_hex32(id, &mut hex);
    out[..8].copy_from_slice(&hex[..8]);
    out[8] = b'-';
    out[9..13].copy_from_slice(&hex[8..12]);
    out[13] = b'-';
    out[14..18].copy_from_slice(&hex[12..16]);
    out[18] = b'-';
    out[19..23].copy_from_slice(&hex[16..20]);
    out[23] = b'-';
    out[24..].copy_from_slice(&hex[20..]);
}

/// Appends `ids` to `block`, each as `W` bytes written by `write` and a newline.
/// The line width is known at compile time, so every copy is a few moves.
#[inline]
fn fixed_lines<const W: usize>(
    ids: &[Scru128Id],
    block: &mut Vec<u8>,
    write: impl Fn(&Scru128Id, &mut [u8; W]),
) {
    let start = block.len();
    block.resize(start + ids.len() * (W + 1), b'\n');
    for (line, id) in block[start..].chunks_exact_mut(W + 1).zip(ids) {
        if let Some(text) = line.first_chunk_mut::<W>() {
            write(id, text);
        }
    }
}

/// Appends `ids` to `block` in `format`, one per line: the fast path of `generate`.
pub fn write_lines(ids: &[Scru128Id], format: Format, block: &mut Vec<u8>) {
    match format {
        Format::Canonical => {
            fixed_lines::<26>(ids, block, |id, out| *out = *id.encode().as_bytes());
        }
        Format::Lower => {
            fixed_lines::<26>(ids, block, |id, out| *out = *id.encode_lower().as_bytes());
        }
        Format::Hex => fixed_lines::<32>(ids, block, write_hex32),
        Format::Uuid => fixed_lines::<36>(ids, block, write_uuid),
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
        ] {
            assert_eq!(parse_id(text.as_bytes()), Ok(id), "{text}");
        }
    }

    #[test]
    fn says_what_is_wrong() {
        let msg = |s: &[u8]| parse_id(s).unwrap_err().to_string();
        assert_eq!(
            msg(b"abc"),
            "invalid length: expected 26 characters, found 3 (32 hex digits or a 36-byte UUID are also accepted)"
        );
        assert_eq!(
            msg(b"00cc22a98f49faa67978d9d2e2bf2a8g"),
            "invalid hex digit 'g' at position 31 of a 32-digit hex ID"
        );
        assert_eq!(
            msg(b"00cc22a9_8f49-faa6-7978-d9d2e2bf2a84"),
            "invalid UUID form: '_' at position 8, expected '-'"
        );
        assert_eq!(
            msg(b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a8\xff"),
            "invalid UUID form: byte 0xff at position 35, expected a hex digit"
        );
        assert!(msg(b"80000000000000000000000000").starts_with("out of range"));
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
            if format != Format::Int {
                assert_eq!(parse_id(text.as_bytes()), Ok(id));
            }
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
