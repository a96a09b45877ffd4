//! Error types: [`ParseError`], [`RangeError`] and [`GenerateError`].

use core::fmt;

/// Error from parsing a text form of a [`Scru128Id`](crate::Scru128Id): the 26-digit
/// base-32 form, the 32-digit hex form or the UUID form.
///
/// Its message names the broken rule and where: the length seen, the offending
/// character (or byte) and its 0-based position, or the out-of-range first digit.
///
/// Lengths and positions count **characters**, not bytes: the Unicode scalar values of
/// a `&str`; in bytes (the `*_ascii` parsers), each UTF-8 encoded character counts as
/// one and so does each byte that is not part of one. Every character before the
/// reported one is ASCII, so a position is also the byte offset.
///
/// ```
/// let err = "00PGHAJ3Q9VAJ7IU6PQBHBUAK".parse::<scru128::Scru128Id>().unwrap_err();
/// assert_eq!(err.to_string(), "invalid length: expected 26 characters, found 25");
/// // 26 characters, 27 bytes: the length is right, the last character is not a digit.
/// let err = "00PGHAJ3Q9VAJ7IU6PQBHBUAKé".parse::<scru128::Scru128Id>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid digit 'é' at position 25: expected 0-9 or A-V in either case"
/// );
/// ```
// Not `Copy`: scru128 1.0.0's was not, and adding it is a breaking change to
// `cargo semver-checks`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ParseError {
    pub(crate) form: TextForm,
    pub(crate) kind: ParseErrorKind,
}

/// The text form a parser reads; it decides the expected length and characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum TextForm {
    /// 26 base-32 digits.
    Base32,
    /// 32 hex digits.
    Hex,
    /// 8-4-4-4-12 hex digits separated by hyphens.
    Uuid,
}

impl TextForm {
    /// Length of the form in characters.
    pub(crate) const fn len(self) -> usize {
        match self {
            Self::Base32 => 26,
            Self::Hex => 32,
            Self::Uuid => 36,
        }
    }

    /// Whether the form has a hyphen at `pos` (the UUID form at 8, 13, 18 and 23).
    pub(crate) const fn has_hyphen_at(self, pos: usize) -> bool {
        matches!(self, Self::Uuid) && matches!(pos, 8 | 13 | 18 | 23)
    }

    /// The length rule, for messages.
    const fn length_rule(self) -> &'static str {
        match self {
            Self::Base32 => "26 characters",
            Self::Hex => "32 hex digits",
            Self::Uuid => "36 characters (UUID form 8-4-4-4-12)",
        }
    }

    /// What the character at `pos` must be, for messages: its name and the rule.
    const fn char_rule(self, pos: usize) -> (&'static str, &'static str) {
        match self {
            Self::Base32 => ("digit", "expected 0-9 or A-V in either case"),
            _ if self.has_hyphen_at(pos) => ("character", "expected '-' (UUID form 8-4-4-4-12)"),
            Self::Hex | Self::Uuid => ("hex digit", "expected 0-9 or a-f in either case"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum ParseErrorKind {
    /// The length in characters is not the form's.
    Length { len: usize },
    /// A character that is out of place (a digit position or, in the UUID form, a
    /// hyphen position).
    InvalidDigit { pos: usize, ch: char },
    /// The same for a byte that does not start an ASCII character (bytes input).
    InvalidByte { pos: usize, byte: u8 },
    /// Base-32 only: a first digit above 7.
    OutOfRange { first: char },
}

impl ParseError {
    /// A base-32 length error; `len` in characters.
    pub(crate) const fn length(len: usize) -> Self {
        Self {
            form: TextForm::Base32,
            kind: ParseErrorKind::Length { len },
        }
    }

    /// A base-32 byte that is not a digit; ASCII bytes are reported as characters.
    pub(crate) const fn invalid_byte(pos: usize, byte: u8) -> Self {
        let kind = if byte.is_ascii() {
            ParseErrorKind::InvalidDigit {
                pos,
                ch: byte as char,
            }
        } else {
            ParseErrorKind::InvalidByte { pos, byte }
        };
        Self {
            form: TextForm::Base32,
            kind,
        }
    }

    pub(crate) const fn out_of_range(first: u8) -> Self {
        Self {
            form: TextForm::Base32,
            kind: ParseErrorKind::OutOfRange {
                first: first as char,
            },
        }
    }

    /// The same error in another text form.
    pub(crate) const fn in_form(self, form: TextForm) -> Self {
        Self { form, ..self }
    }

    /// Replaces a non-ASCII byte with the whole character of `text` that starts there.
    pub(crate) const fn with_char_from(self, text: &str) -> Self {
        match self.kind {
            ParseErrorKind::InvalidByte { pos, .. } => Self {
                form: self.form,
                kind: ParseErrorKind::InvalidDigit {
                    pos,
                    ch: char_at(text.as_bytes(), pos),
                },
            },
            _ => self,
        }
    }
}

/// Number of characters in `bytes`: each UTF-8 encoded character counts as one, and
/// so does each byte that is not part of one (as `<[u8]>::utf8_chunks` sees them).
pub(crate) const fn char_count(bytes: &[u8]) -> usize {
    let mut count = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        pos += utf8_width_at(bytes, pos);
        count += 1;
    }
    count
}

/// Length in bytes of the UTF-8 character that starts at `pos`, or 1 if the bytes
/// there are not one.
const fn utf8_width_at(bytes: &[u8], pos: usize) -> usize {
    // ASCII and bytes that cannot start a character are one byte.
    let width = match bytes[pos] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 1,
    };
    if pos + width > bytes.len() {
        return 1;
    }
    let (_, rest) = bytes.split_at(pos);
    let (window, _) = rest.split_at(width);
    if core::str::from_utf8(window).is_ok() {
        width
    } else {
        1
    }
}

/// Decodes the UTF-8 character that starts at `pos` of valid UTF-8 `bytes`.
const fn char_at(bytes: &[u8], pos: usize) -> char {
    let b0 = bytes[pos] as u32;
    let (len, mut code) = if b0 < 0x80 {
        (1, b0)
    } else if b0 < 0xe0 {
        (2, b0 & 0x1f)
    } else if b0 < 0xf0 {
        (3, b0 & 0x0f)
    } else {
        (4, b0 & 0x07)
    };
    let mut i = 1;
    while i < len {
        code = (code << 6) | (bytes[pos + i] as u32 & 0x3f);
        i += 1;
    }
    match char::from_u32(code) {
        Some(ch) => ch,
        None => char::REPLACEMENT_CHARACTER,
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ParseErrorKind::Length { len } => {
                let expected = self.form.length_rule();
                write!(f, "invalid length: expected {expected}, found {len}")
            }
            ParseErrorKind::InvalidDigit { pos, ch } => {
                let (noun, rule) = self.form.char_rule(pos);
                write!(f, "invalid {noun} {ch:?} at position {pos}: {rule}")
            }
            ParseErrorKind::InvalidByte { pos, byte } => {
                let (_, rule) = self.form.char_rule(pos);
                write!(f, "invalid byte {byte:#04x} at position {pos}: {rule}")
            }
            ParseErrorKind::OutOfRange { first } => write!(
                f,
                "out of range: the first digit is {first:?}, above the largest allowed '7'"
            ),
        }
    }
}

impl core::error::Error for ParseError {}

/// Error from a value that a SCRU128 ID cannot represent: a field too large for its
/// bits, or a time outside the 44-bit millisecond range that starts at 2020-01-01.
///
/// ```
/// let err = scru128::Scru128Id::try_min_at_unix_ts_ms(0).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unix time 0 ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RangeError {
    kind: RangeErrorKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum RangeErrorKind {
    Field {
        name: &'static str,
        value: u64,
        max: u64,
    },
    UnixTsMs(u64),
    #[cfg(feature = "std")]
    BeforeUnixEpoch,
}

impl RangeError {
    pub(crate) const fn field(name: &'static str, value: u64, max: u64) -> Self {
        Self {
            kind: RangeErrorKind::Field { name, value, max },
        }
    }

    pub(crate) const fn unix_ts_ms(unix_ts_ms: u64) -> Self {
        Self {
            kind: RangeErrorKind::UnixTsMs(unix_ts_ms),
        }
    }

    #[cfg(feature = "std")]
    pub(crate) const fn before_unix_epoch() -> Self {
        Self {
            kind: RangeErrorKind::BeforeUnixEpoch,
        }
    }
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            RangeErrorKind::Field { name, value, max } => {
                write!(f, "{name} {value} is out of range (maximum {max})")
            }
            RangeErrorKind::UnixTsMs(ms) => write!(
                f,
                "unix time {ms} ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)"
            ),
            #[cfg(feature = "std")]
            RangeErrorKind::BeforeUnixEpoch => f.write_str("time is before the unix epoch"),
        }
    }
}

impl core::error::Error for RangeError {}

/// Error from a [`Scru128Generator`](crate::Scru128Generator) that cannot produce an ID
/// without breaking a rule.
///
/// ```
/// use scru128::{GenerateError, Scru128Generator};
///
/// let mut g = Scru128Generator::with_rng_and_clock(|| 4u32, || 0u64);
/// assert!(matches!(g.try_generate(), Err(GenerateError::ClockOutOfRange { unix_ts_ms: 0 })));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum GenerateError {
    /// The clock reads a time that no generated ID can carry: before
    /// 2020-01-01T00:00:00.001Z, or at or after the last representable millisecond
    /// (timestamps 0 and 2^44−1 are reserved).
    ClockOutOfRange {
        /// The clock reading, in Unix milliseconds.
        unix_ts_ms: u64,
    },
    /// The clock went back further than the rollback allowance. Only the `*_or_abort`
    /// methods report this; the others reset the generator instead.
    ClockRollback {
        /// The latest clock reading before this one (or the time of the ID given to
        /// `resume_after`), in Unix milliseconds.
        last_unix_ts_ms: u64,
        /// The clock reading, in Unix milliseconds.
        unix_ts_ms: u64,
    },
    /// The counter overflowed at the last timestamp that may be generated, so no
    /// greater ID is left.
    TimestampExhausted,
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::ClockOutOfRange { unix_ts_ms } => write!(
                f,
                "clock reads unix time {unix_ts_ms} ms, outside the range SCRU128 can generate \
                 (after 2020-01-01T00:00:00Z, before 2020-01-01T00:00:00Z plus 2^44-1 ms)"
            ),
            Self::ClockRollback {
                last_unix_ts_ms,
                unix_ts_ms,
            } => write!(
                f,
                "clock went back {} ms (from unix time {last_unix_ts_ms} ms to {unix_ts_ms} ms), \
                 more than the rollback allowance",
                // A user may build the variant with any two readings.
                last_unix_ts_ms.abs_diff(unix_ts_ms)
            ),
            Self::TimestampExhausted => {
                f.write_str("no greater ID left: the counter overflowed at the last timestamp")
            }
        }
    }
}

impl core::error::Error for GenerateError {}
