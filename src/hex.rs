//! The hex and UUID text forms of a [`Scru128Id`]: the 128 bits as 32 hex digits
//! (the form of the seed-era JavaScript and Rust libraries) and in the 8-4-4-4-12 UUID
//! form (what a database `uuid` column shows).
//!
//! Both are written in lowercase and read in either case, on the stack, in `const fn`s.
//! The UUID form is only a layout here: a SCRU128 ID has no RFC 9562 version or
//! variant bits, so none are checked or set.
//!
//! The codec works on 8 digits at a time in the 8 byte lanes of a u64 (SWAR), with the
//! lane helpers of the base-32 codec: writing spreads 32 bits into 8 lanes of 4 bits,
//! reading checks 8 characters at once and packs their values back.

use crate::encoded::{EncodedHex, EncodedText, EncodedUuid};
use crate::error::{ParseError, TextForm, char_count};
use crate::id::{LANES_01, Scru128Id, digit_and_letter_lanes, load8};

impl Scru128Id {
    /// Returns the 32-digit hex form (lowercase), held on the stack: the 128-bit value
    /// in base 16, most significant digit first. It sorts like the ID.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// assert_eq!(x.encode_hex(), "00cc22a98f49faa67978d9d2e2bf2a84");
    /// ```
    #[inline]
    pub const fn encode_hex(&self) -> EncodedHex {
        let words = hex_words(self.to_u128());
        let mut out = [0u8; 32];
        let mut w = 0;
        while w < 4 {
            copy8(&mut out, 8 * w, words[w], 0, 8);
            w += 1;
        }
        EncodedText(out)
    }

    /// Returns the UUID form, 8-4-4-4-12 lowercase hex digits, held on the stack. It
    /// is how a PostgreSQL `uuid` column shows the ID (the same 16 bytes); it sorts
    /// like the ID. It is not an RFC 9562 UUID: no version or variant bits are set.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// assert_eq!(x.encode_uuid(), "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84");
    /// ```
    #[inline]
    pub const fn encode_uuid(&self) -> EncodedUuid {
        // Digits 0-7 | 8-11, 12-15 | 16-19, 20-23 | 24-31 of the four words, with a
        // hyphen after digits 8, 12, 16 and 20: fixed copies, no per-digit branch.
        let [a, b, c, d] = hex_words(self.to_u128());
        let mut out = [b'-'; 36];
        copy8(&mut out, 0, a, 0, 8);
        copy8(&mut out, 9, b, 0, 4);
        copy8(&mut out, 14, b, 4, 8);
        copy8(&mut out, 19, c, 0, 4);
        copy8(&mut out, 24, c, 4, 8);
        copy8(&mut out, 28, d, 0, 8);
        EncodedText(out)
    }

    /// Parses the 32-digit hex form, in either case. Works in `const` context.
    ///
    /// # Errors
    ///
    /// Returns a [`ParseError`] that says which rule failed: the length is not 32
    /// characters (with the length seen), or a character is not a hex digit
    /// `0-9a-fA-F` (with the character and its 0-based position). Nothing is trimmed:
    /// no `0x` prefix, sign, space or hyphen is accepted. Every 32-digit hex number is
    /// an ID.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// let x = Scru128Id::try_from_hex("00CC22A98F49FAA67978D9D2E2BF2A84")?;
    /// assert_eq!(x.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    ///
    /// let err = Scru128Id::try_from_hex("0x0c22a98f49faa67978d9d2e2bf2a84").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid hex digit 'x' at position 1: expected 0-9 or a-f in either case");
    /// let err = Scru128Id::try_from_hex("00cc22a98f49faa6").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid length: expected 32 hex digits, found 16");
    /// # Ok::<(), scru128::ParseError>(())
    /// ```
    pub const fn try_from_hex(text: &str) -> Result<Self, ParseError> {
        match decode_hex(text.as_bytes()) {
            Ok(id) => Ok(id),
            Err(e) => Err(e.with_char_from(text)),
        }
    }

    /// Parses the 32-digit hex form from bytes (for input that may not be UTF-8), with
    /// the same rules as [`try_from_hex`](Self::try_from_hex).
    ///
    /// # Errors
    ///
    /// As [`try_from_hex`](Self::try_from_hex); a non-ASCII byte is reported as a byte
    /// value with its position.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// assert!(Scru128Id::try_from_hex_ascii(b"00cc22a98f49faa67978d9d2e2bf2a84").is_ok());
    /// let err = Scru128Id::try_from_hex_ascii(b"00cc22a98f49faa67978d9d2e2bf2a8\xff").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid byte 0xff at position 31: expected 0-9 or a-f in either case");
    /// ```
    pub const fn try_from_hex_ascii(bytes: &[u8]) -> Result<Self, ParseError> {
        decode_hex(bytes)
    }

    /// Parses the UUID form, 8-4-4-4-12 hex digits in either case with hyphens between
    /// the groups (36 characters). Works in `const` context. The version and variant
    /// bits of RFC 9562 are not checked: every 128-bit value is an ID.
    ///
    /// # Errors
    ///
    /// Returns a [`ParseError`] that says which rule failed: the length is not 36
    /// characters (with the length seen), or a character is out of place: not a hex
    /// digit where one belongs, or not `-` at positions 8, 13, 18 and 23 (with the
    /// character and its 0-based position). Braces, a `urn:uuid:` prefix and spaces
    /// are not accepted; for the 32 digits without hyphens use
    /// [`try_from_hex`](Self::try_from_hex).
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// let x = Scru128Id::try_from_uuid_str("00CC22A9-8F49-FAA6-7978-D9D2E2BF2A84")?;
    /// assert_eq!(x.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    ///
    /// let err = Scru128Id::try_from_uuid_str("00cc22a9_8f49-faa6-7978-d9d2e2bf2a84").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid character '_' at position 8: expected '-' (UUID form 8-4-4-4-12)");
    /// let err = Scru128Id::try_from_uuid_str("{00cc22a9-8f49-faa6-7978-d9d2e2bf2a84}").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid length: expected 36 characters (UUID form 8-4-4-4-12), found 38");
    /// # Ok::<(), scru128::ParseError>(())
    /// ```
    pub const fn try_from_uuid_str(text: &str) -> Result<Self, ParseError> {
        match decode_uuid(text.as_bytes()) {
            Ok(id) => Ok(id),
            Err(e) => Err(e.with_char_from(text)),
        }
    }

    /// Parses the UUID form from bytes (for input that may not be UTF-8), with the same
    /// rules as [`try_from_uuid_str`](Self::try_from_uuid_str).
    ///
    /// # Errors
    ///
    /// As [`try_from_uuid_str`](Self::try_from_uuid_str); a non-ASCII byte is reported
    /// as a byte value with its position.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// assert!(Scru128Id::try_from_uuid_ascii(b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a84").is_ok());
    /// let err = Scru128Id::try_from_uuid_ascii(b"00cc22a9-8f49-faa6-7978\xffd9d2e2bf2a84").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid byte 0xff at position 23: expected '-' (UUID form 8-4-4-4-12)");
    /// ```
    pub const fn try_from_uuid_ascii(bytes: &[u8]) -> Result<Self, ParseError> {
        decode_uuid(bytes)
    }
}

/// Spreads 32 bits into 8 lanes of 4 bits, the most significant in the top lane.
#[inline]
const fn spread32(v: u32) -> u64 {
    let v = v as u64;
    let v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
    let v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
    (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f
}

/// Packs 8 lanes of 4 bits into 32 bits (inverse of [`spread32`]).
#[inline]
const fn pack32(v: u64) -> u32 {
    let v = (v | (v >> 4)) & 0x00ff_00ff_00ff_00ff;
    let v = (v | (v >> 8)) & 0x0000_ffff_0000_ffff;
    (v | (v >> 16)) as u32
}

/// The 32 lowercase hex digits of `value` as four words of 8 ASCII digits, most
/// significant first (in text order with `to_be_bytes`).
#[inline]
const fn hex_words(value: u128) -> [[u8; 8]; 4] {
    [
        hex_word((value >> 96) as u32),
        hex_word((value >> 64) as u32),
        hex_word((value >> 32) as u32),
        hex_word(value as u32),
    ]
}

/// The 8 lowercase hex digits of `bits`, most significant first.
#[inline]
const fn hex_word(bits: u32) -> [u8; 8] {
    let lanes = spread32(bits);
    // n + 0x76 has bit 7 set exactly when n >= 10; no lane carries (15 + 0x76 < 0x100).
    let letters = ((lanes + 0x76 * LANES_01) >> 7) & LANES_01;
    // Letters are 39 past the digits ('a' - '0' - 10): 32 + 8 - 1, in shifts, as a
    // multiplication makes LLVM vectorize this into a slow emulated 64-bit multiply.
    let ascii = lanes + 0x30 * LANES_01 + (letters << 5) + (letters << 3) - letters;
    ascii.to_be_bytes()
}

/// Copies `word[from..to]` to `out[at..]`.
#[inline]
const fn copy8<const N: usize>(
    out: &mut [u8; N],
    at: usize,
    word: [u8; 8],
    from: usize,
    to: usize,
) {
    let mut i = from;
    while i < to {
        out[at + i - from] = word[i];
        i += 1;
    }
}

/// Eight ASCII hex digits (first in the top lane) → 32 bits, or `None` if one is not
/// a hex digit in either case.
#[inline]
const fn hex_to_bits(bytes: u64) -> Option<u32> {
    let Some((_, is_letter)) = digit_and_letter_lanes(bytes, b'f') else {
        return None;
    };
    // The low nibble is the value of '0'..='9' and 1..=6 for 'a'..='f' in either case.
    let letters = (is_letter >> 7) * 9;
    Some(pack32((bytes & (0x0f * LANES_01)) + letters))
}

/// Reads 4 bytes starting at `at` as a big-endian u32.
#[inline]
const fn load4(bytes: &[u8], at: usize) -> u64 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as u64
}

/// The ID of four 8-digit groups, most significant first, or `None` if one is not
/// eight hex digits.
// Measured: with plain `#[inline]` LLVM keeps this out of line and passes the result
// through memory, which made reading half again as slow (benches/text_forms.rs:
// 35 ns against 23 ns for `try_from_hex`).
#[allow(clippy::inline_always)]
#[inline(always)]
const fn from_groups(groups: [u64; 4]) -> Option<Scru128Id> {
    match (
        hex_to_bits(groups[0]),
        hex_to_bits(groups[1]),
        hex_to_bits(groups[2]),
        hex_to_bits(groups[3]),
    ) {
        (Some(a), Some(b), Some(c), Some(d)) => Some(Scru128Id::from_u128(
            ((a as u128) << 96) | ((b as u128) << 64) | ((c as u128) << 32) | d as u128,
        )),
        _ => None,
    }
}

/// Decodes 32 hex digits; on failure finds the first broken rule in reading order.
#[inline]
const fn decode_hex(bytes: &[u8]) -> Result<Scru128Id, ParseError> {
    if bytes.len() != 32 {
        return Err(find_error(TextForm::Hex, bytes));
    }
    let groups = [
        load8(bytes, 0),
        load8(bytes, 8),
        load8(bytes, 16),
        load8(bytes, 24),
    ];
    match from_groups(groups) {
        Some(id) => Ok(id),
        None => Err(find_error(TextForm::Hex, bytes)),
    }
}

/// Decodes the 36-character UUID form; on failure finds the first broken rule in
/// reading order.
#[inline]
const fn decode_uuid(bytes: &[u8]) -> Result<Scru128Id, ParseError> {
    if bytes.len() != 36 {
        return Err(find_error(TextForm::Uuid, bytes));
    }
    let hyphens = bytes[8] == b'-' && bytes[13] == b'-' && bytes[18] == b'-' && bytes[23] == b'-';
    // Digits 0-7 | 9-12, 14-17 | 19-22, 24-27 | 28-35.
    let groups = [
        load8(bytes, 0),
        (load4(bytes, 9) << 32) | load4(bytes, 14),
        (load4(bytes, 19) << 32) | load4(bytes, 24),
        load8(bytes, 28),
    ];
    match from_groups(groups) {
        Some(id) if hyphens => Ok(id),
        _ => Err(find_error(TextForm::Uuid, bytes)),
    }
}

/// The first rule of `form` (hex or UUID) broken by bytes known to be invalid (cold
/// path). The length counts characters: the right number of characters in more bytes
/// holds a non-ASCII one, found by the scan.
#[cold]
const fn find_error(form: TextForm, bytes: &[u8]) -> ParseError {
    let len = char_count(bytes);
    if len != form.len() {
        return ParseError::length(len).in_form(form);
    }
    let mut pos = 0;
    while pos < bytes.len() {
        let byte = bytes[pos];
        let fits = if form.has_hyphen_at(pos) {
            byte == b'-'
        } else {
            byte.is_ascii_hexdigit()
        };
        if !fits {
            return ParseError::invalid_byte(pos, byte).in_form(form);
        }
        pos += 1;
    }
    // The decoders only call here when a rule is broken.
    ParseError::length(len).in_form(form)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ParseErrorKind;

    /// Naive hex digits of `value`.
    fn naive_hex(value: u128) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, slot) in out.iter_mut().enumerate() {
            let nibble = (value >> (124 - 4 * i)) & 15;
            *slot = b"0123456789abcdef"[nibble as usize];
        }
        out
    }

    /// Naive reading of the hex form: the value, or whether the input was rejected.
    fn naive_decode(bytes: &[u8], uuid: bool) -> Option<u128> {
        let form = if uuid { TextForm::Uuid } else { TextForm::Hex };
        if bytes.len() != form.len() {
            return None;
        }
        let mut value = 0u128;
        for (pos, &b) in bytes.iter().enumerate() {
            if form.has_hyphen_at(pos) {
                if b != b'-' {
                    return None;
                }
                continue;
            }
            value = (value << 4) | u128::from(char::from(b).to_digit(16)?);
        }
        Some(value)
    }

    /// `SplitMix64` steps, spread over all bit patterns.
    fn samples(count: usize) -> impl Iterator<Item = u128> {
        let mut x = 0x0123_4567_89ab_cdef_u64;
        let mut next = move || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let fixed = [
            0,
            u128::MAX,
            1 << 127,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ];
        fixed
            .into_iter()
            .chain(core::iter::repeat_with(move || {
                (u128::from(next()) << 64) | u128::from(next())
            }))
            .take(count)
    }

    #[test]
    fn spread_and_pack_are_inverse_and_keep_the_digit_order() {
        for v in [0, 1, 0x1234_5678, u32::MAX, 0x8000_0001, 0xdead_beef] {
            let lanes = spread32(v);
            assert_eq!(pack32(lanes), v);
            for (i, lane) in lanes.to_be_bytes().iter().enumerate() {
                assert_eq!(
                    u32::from(*lane),
                    (v >> (28 - 4 * i)) & 15,
                    "{v:#x} lane {i}"
                );
            }
        }
    }

    #[test]
    fn encoders_match_a_naive_loop() {
        for v in samples(10_000) {
            let id = Scru128Id::from_u128(v);
            let hex = naive_hex(v);
            assert_eq!(id.encode_hex().as_bytes(), &hex, "{v:#x}");
            let uuid = id.encode_uuid();
            let joined = [
                &hex[..8],
                b"-",
                &hex[8..12],
                b"-",
                &hex[12..16],
                b"-",
                &hex[16..20],
                b"-",
                &hex[20..],
            ]
            .concat();
            assert_eq!(uuid.as_bytes().as_slice(), joined.as_slice(), "{v:#x}");
        }
    }

    #[test]
    fn hex_and_uuid_text_is_always_ascii() {
        // Guards the `from_utf8_unchecked` in `EncodedText::as_str`.
        for v in samples(100_000) {
            let id = Scru128Id::from_u128(v);
            let hex = id.encode_hex();
            let uuid = id.encode_uuid();
            assert!(hex.as_bytes().iter().all(u8::is_ascii_hexdigit));
            assert!(
                uuid.as_bytes()
                    .iter()
                    .all(|b| b.is_ascii_hexdigit() || *b == b'-')
            );
            assert_eq!(core::str::from_utf8(hex.as_bytes()), Ok(hex.as_str()));
            assert_eq!(core::str::from_utf8(uuid.as_bytes()), Ok(uuid.as_str()));
        }
    }

    #[test]
    fn hex_reader_agrees_with_a_naive_one_for_every_byte_at_every_position() {
        let hex = *b"0123456789abcdefABCDEF0123456789";
        let uuid = *b"01234567-89ab-cdef-ABCD-EF0123456789";
        for byte in 0..=255u8 {
            for pos in 0..32 {
                let mut input = hex;
                input[pos] = byte;
                let got = decode_hex(&input).ok().map(Scru128Id::to_u128);
                assert_eq!(got, naive_decode(&input, false), "{byte:#04x} at {pos}");
            }
            for pos in 0..36 {
                let mut input = uuid;
                input[pos] = byte;
                let got = decode_uuid(&input).ok().map(Scru128Id::to_u128);
                assert_eq!(got, naive_decode(&input, true), "{byte:#04x} at {pos}");
            }
        }
    }

    #[test]
    fn errors_carry_form_kind_character_and_position() {
        let hex = |s: &str| Scru128Id::try_from_hex(s).unwrap_err();
        let uuid = |s: &str| Scru128Id::try_from_uuid_str(s).unwrap_err();
        let e = hex("");
        assert_eq!(
            (e.form, e.kind),
            (TextForm::Hex, ParseErrorKind::Length { len: 0 })
        );
        let e = hex("0000000000000000000000000000000g");
        assert_eq!(e.kind, ParseErrorKind::InvalidDigit { pos: 31, ch: 'g' });
        // 32 characters in 33 bytes: the length is right, a digit is not.
        let e = hex("000000000000000000000000000000é0");
        assert_eq!(e.kind, ParseErrorKind::InvalidDigit { pos: 30, ch: 'é' });
        let e = Scru128Id::try_from_hex_ascii(b"0000000000000000\x80000000000000000").unwrap_err();
        assert_eq!(
            e.kind,
            ParseErrorKind::InvalidByte {
                pos: 16,
                byte: 0x80
            }
        );
        let e = uuid("00000000-0000-0000-0000-00000000000");
        assert_eq!(
            (e.form, e.kind),
            (TextForm::Uuid, ParseErrorKind::Length { len: 35 })
        );
        let e = uuid("00000000-0000-0000-0000+000000000000");
        assert_eq!(e.kind, ParseErrorKind::InvalidDigit { pos: 23, ch: '+' });
        // A hyphen where a digit belongs, found before the missing one.
        let e = uuid("0000000-00000-0000-0000-000000000000");
        assert_eq!(e.kind, ParseErrorKind::InvalidDigit { pos: 7, ch: '-' });
    }
}
