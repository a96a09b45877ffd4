//! Error types: [`ParseError`], [`RangeError`] and [`GenerateError`].

use core::fmt;

/// Error from parsing the text form of a [`Scru128Id`](crate::Scru128Id).
///
/// Its message names the broken rule and where: the length seen, the offending
/// character (or byte) and its 0-based byte position, or the out-of-range first digit.
///
/// ```
/// let err = "00PGHAJ3Q9VAJ7IU6PQBHBUAK".parse::<scru128::Scru128Id>().unwrap_err();
/// assert_eq!(err.to_string(), "invalid length: expected 26 bytes, found 25");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ParseError {
    pub(crate) kind: ParseErrorKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum ParseErrorKind {
    Length { len: usize },
    InvalidDigit { pos: usize, ch: char },
    InvalidByte { pos: usize, byte: u8 },
    OutOfRange { first: char },
}

impl ParseError {
    pub(crate) const fn length(len: usize) -> Self {
        Self {
            kind: ParseErrorKind::Length { len },
        }
    }

    /// A byte that is not a digit; ASCII bytes are reported as characters.
    pub(crate) const fn invalid_byte(pos: usize, byte: u8) -> Self {
        let kind = if byte.is_ascii() {
            ParseErrorKind::InvalidDigit {
                pos,
                ch: byte as char,
            }
        } else {
            ParseErrorKind::InvalidByte { pos, byte }
        };
        Self { kind }
    }

    pub(crate) const fn out_of_range(first: u8) -> Self {
        Self {
            kind: ParseErrorKind::OutOfRange {
                first: first as char,
            },
        }
    }

    /// Replaces a non-ASCII byte with the whole character of `text` that starts there.
    pub(crate) const fn with_char_from(self, text: &str) -> Self {
        match self.kind {
            ParseErrorKind::InvalidByte { pos, .. } => Self {
                kind: ParseErrorKind::InvalidDigit {
                    pos,
                    ch: char_at(text.as_bytes(), pos),
                },
            },
            _ => self,
        }
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
        const DIGITS: &str = "expected 0-9 or A-V in either case";
        match self.kind {
            ParseErrorKind::Length { len } => {
                write!(f, "invalid length: expected 26 bytes, found {len}")
            }
            ParseErrorKind::InvalidDigit { pos, ch } => {
                write!(f, "invalid digit {ch:?} at position {pos}: {DIGITS}")
            }
            ParseErrorKind::InvalidByte { pos, byte } => {
                write!(f, "invalid byte {byte:#04x} at position {pos}: {DIGITS}")
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
