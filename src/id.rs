//! The [`Scru128Id`] type and its text codec.

use core::{fmt, str::FromStr};

use crate::encoded::{EncodedId, EncodedText};
use crate::error::{ParseError, RangeError, char_count};

/// Unix time in milliseconds at 2020-01-01T00:00:00Z, the zero of the 44-bit timestamp.
///
/// ```
/// let id = scru128::Scru128Id::from_fields(5, 0, 0, 0);
/// assert_eq!(id.unix_ts_ms(), scru128::TIMESTAMP_BIAS + 5);
/// ```
pub const TIMESTAMP_BIAS: u64 = 1_577_836_800_000;

/// Largest value of the 44-bit `timestamp` field (reserved: never generated).
///
/// ```
/// assert_eq!(scru128::Scru128Id::MAX.timestamp(), scru128::MAX_TIMESTAMP);
/// ```
pub const MAX_TIMESTAMP: u64 = (1 << 44) - 1;

/// Largest value of the 28-bit `counter` field.
///
/// ```
/// assert_eq!(scru128::Scru128Id::MAX.counter(), scru128::MAX_COUNTER);
/// ```
pub const MAX_COUNTER: u32 = (1 << 28) - 1;

/// Largest value of the 24-bit `per_sec_random` field.
///
/// ```
/// assert_eq!(scru128::Scru128Id::MAX.per_sec_random(), scru128::MAX_PER_SEC_RANDOM);
/// ```
pub const MAX_PER_SEC_RANDOM: u32 = (1 << 24) - 1;

/// Digits of the base-32 text form, in value order.
const DIGITS: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
const DIGITS_LOWER: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

/// Marks a byte that is not a digit in [`DECODE`].
const NOT_A_DIGIT: u8 = 0xff;

/// Byte → digit value, either case; [`NOT_A_DIGIT`] elsewhere.
const DECODE: [u8; 256] = {
    let mut table = [NOT_A_DIGIT; 256];
    let mut i = 0;
    while i < 32 {
        table[DIGITS[i] as usize] = i as u8;
        table[DIGITS_LOWER[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// A SCRU128 ID: a 128-bit value of four fields, ordered as the unsigned integer.
///
/// | bits (MSB first) | field            | size |
/// | ---------------- | ---------------- | ---- |
/// | 0–43             | `timestamp`      | 44   |
/// | 44–71            | `counter`        | 28   |
/// | 72–95            | `per_sec_random` | 24   |
/// | 96–127           | `per_gen_random` | 32   |
///
/// It is stored as 16 big-endian bytes, so its derived order is at once the integer
/// order, the byte (memcmp) order and the order of its canonical text. It is 16 bytes
/// in memory, aligned to 8 so that it moves as two machine words (with alignment 1,
/// returning a `Result<Scru128Id, _>` cost parsing a third of its time in the
/// benchmarks).
///
/// # Examples
///
/// ```
/// use scru128::Scru128Id;
///
/// let y: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse()?;
/// assert_eq!(y.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
/// assert_eq!(Scru128Id::from_u128(y.to_u128()), y);
/// # Ok::<(), scru128::ParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
// diesel's `AsExpression` (for these SQL types, also `Nullable`, by value and by
// reference) and `FromSqlRow`, derived here because diesel's derives are its public way
// to them and must sit on the type; `ToSql`/`FromSql` are in
// src/external/diesel_support.rs. (Not `#[diesel(foreign_derive)]` from that module:
// since diesel 2.4 a foreign derive also implements the traits for `Rc`/`Arc`
// wrappers, which the orphan rules forbid outside diesel, E0117.)
#[cfg_attr(
    any(feature = "diesel-postgres", feature = "diesel-sqlite"),
    derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow),
    diesel(sql_type = diesel::sql_types::Binary, sql_type = diesel::sql_types::Text)
)]
#[cfg_attr(
    feature = "diesel-postgres",
    diesel(sql_type = diesel::sql_types::Uuid, sql_type = crate::diesel::sql_types::Scru128)
)]
#[repr(C)]
// Aligned to 8 by an empty array of `u64` rather than `repr(align)`: a `repr(align)`
// type cannot stand in a `repr(packed)` one, which scru128 1.0.0's ID could
// (`cargo semver-checks` against 1.0.0). The empty array adds no size and compares
// equal; `Hash` skips it.
pub struct Scru128Id([u8; 16], [u64; 0]);

impl core::hash::Hash for Scru128Id {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl Scru128Id {
    /// The smallest ID, `00000000000000000000000000` (all fields zero).
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Id::MIN.to_u128(), 0);
    /// ```
    pub const MIN: Self = Self([0; 16], []);

    /// The largest ID, `7VVVVVVVVVVVVVVVVVVVVVVVVV` (all bits one).
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Id::MAX.to_string(), "7VVVVVVVVVVVVVVVVVVVVVVVVV");
    /// ```
    pub const MAX: Self = Self([0xff; 16], []);

    /// Creates an ID from its 128-bit unsigned integer value.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// assert_eq!(x.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    /// ```
    #[inline]
    pub const fn from_u128(int_value: u128) -> Self {
        Self(int_value.to_be_bytes(), [])
    }

    /// Returns the 128-bit unsigned integer value (same as [`to_u128`](Self::to_u128);
    /// the name of scru128 1.0).
    ///
    /// ```
    /// let x: scru128::Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse()?;
    /// assert_eq!(x.as_u128(), 0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// # Ok::<(), scru128::ParseError>(())
    /// ```
    #[inline]
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// Returns the 128-bit unsigned integer value.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(42);
    /// assert_eq!(x.to_u128(), 42);
    /// ```
    #[inline]
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// Creates an ID from its 16-byte big-endian form.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_bytes([0xff; 16]);
    /// assert_eq!(x, scru128::Scru128Id::MAX);
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes, [])
    }

    /// Returns the 16-byte big-endian form, which sorts like the ID.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x0102);
    /// assert_eq!(&x.to_bytes()[14..], &[1, 2]);
    /// ```
    #[inline]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// Borrows the 16-byte big-endian form.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x0102);
    /// assert_eq!(x.as_bytes()[15], 2);
    /// ```
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Creates an ID from its four field values.
    ///
    /// # Panics
    ///
    /// Panics if a field is out of its range (`timestamp` > 2^44−1, `counter` >
    /// 2^28−1, `per_sec_random` > 2^24−1), like scru128 1.0. Use
    /// [`try_from_fields`](Self::try_from_fields) to get an error instead.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_fields(1, 2, 3, 4);
    /// assert_eq!((x.timestamp(), x.counter(), x.per_sec_random(), x.per_gen_random()), (1, 2, 3, 4));
    /// ```
    #[track_caller]
    pub const fn from_fields(
        timestamp: u64,
        counter: u32,
        per_sec_random: u32,
        per_gen_random: u32,
    ) -> Self {
        match Self::try_from_fields(timestamp, counter, per_sec_random, per_gen_random) {
            Ok(id) => id,
            Err(_) => panic!("invalid field value: a SCRU128 field is out of its range"),
        }
    }

    /// Creates an ID from its four field values, checking their ranges.
    ///
    /// # Errors
    ///
    /// Returns a [`RangeError`] naming the first field that is out of its range.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// assert!(Scru128Id::try_from_fields(1 << 44, 0, 0, 0).is_err());
    /// let err = Scru128Id::try_from_fields(0, 1 << 28, 0, 0).unwrap_err();
    /// assert_eq!(err.to_string(), "counter 268435456 is out of range (maximum 268435455)");
    /// ```
    pub const fn try_from_fields(
        timestamp: u64,
        counter: u32,
        per_sec_random: u32,
        per_gen_random: u32,
    ) -> Result<Self, RangeError> {
        if timestamp > MAX_TIMESTAMP {
            Err(RangeError::field("timestamp", timestamp, MAX_TIMESTAMP))
        } else if counter > MAX_COUNTER {
            Err(RangeError::field(
                "counter",
                counter as u64,
                MAX_COUNTER as u64,
            ))
        } else if per_sec_random > MAX_PER_SEC_RANDOM {
            Err(RangeError::field(
                "per_sec_random",
                per_sec_random as u64,
                MAX_PER_SEC_RANDOM as u64,
            ))
        } else {
            Ok(Self::from_fields_unchecked(
                timestamp,
                counter,
                per_sec_random,
                per_gen_random,
            ))
        }
    }

    /// Packs fields already known to be in range.
    #[inline]
    pub(crate) const fn from_fields_unchecked(
        timestamp: u64,
        counter: u32,
        per_sec_random: u32,
        per_gen_random: u32,
    ) -> Self {
        let hi = (timestamp << 20) | (counter as u64 >> 8);
        let lo = ((counter as u64 & 0xff) << 56)
            | ((per_sec_random as u64) << 32)
            | per_gen_random as u64;
        Self::from_u128(((hi as u128) << 64) | lo as u128)
    }

    /// The 44-bit `timestamp` field: milliseconds since 2020-01-01T00:00:00Z
    /// (Unix milliseconds minus [`TIMESTAMP_BIAS`]), as stored.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_fields(1234, 0, 0, 0);
    /// assert_eq!(x.timestamp(), 1234);
    /// ```
    #[inline]
    pub const fn timestamp(&self) -> u64 {
        (self.as_u128() >> 84) as u64
    }

    /// The 28-bit `counter` field.
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Id::from_fields(0, 77, 0, 0).counter(), 77);
    /// ```
    #[inline]
    pub const fn counter(&self) -> u32 {
        (self.as_u128() >> 56) as u32 & MAX_COUNTER
    }

    /// The 24-bit `per_sec_random` field.
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Id::from_fields(0, 0, 88, 0).per_sec_random(), 88);
    /// ```
    #[inline]
    pub const fn per_sec_random(&self) -> u32 {
        (self.as_u128() >> 32) as u32 & MAX_PER_SEC_RANDOM
    }

    /// The 32-bit `per_gen_random` field.
    ///
    /// ```
    /// assert_eq!(scru128::Scru128Id::from_fields(0, 0, 0, 99).per_gen_random(), 99);
    /// ```
    #[inline]
    pub const fn per_gen_random(&self) -> u32 {
        self.as_u128() as u32
    }

    /// The creation time in Unix milliseconds (`timestamp() + TIMESTAMP_BIAS`).
    ///
    /// ```
    /// let x: scru128::Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse()?;
    /// assert_eq!(x.unix_ts_ms(), 1_632_633_979_124);
    /// # Ok::<(), scru128::ParseError>(())
    /// ```
    #[inline]
    pub const fn unix_ts_ms(&self) -> u64 {
        self.timestamp() + TIMESTAMP_BIAS
    }

    /// The creation time as a [`SystemTime`](std::time::SystemTime).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// let x = scru128::Scru128Id::from_fields(0, 0, 0, 0);
    /// assert_eq!(x.to_system_time(), UNIX_EPOCH + Duration::from_millis(scru128::TIMESTAMP_BIAS));
    /// ```
    #[cfg(feature = "std")]
    pub fn to_system_time(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + core::time::Duration::from_millis(self.unix_ts_ms())
    }

    /// The smallest ID whose creation time is the given Unix millisecond: the lower
    /// bound of a range query (`WHERE id BETWEEN lo AND hi` with
    /// [`try_max_at_unix_ts_ms`](Self::try_max_at_unix_ts_ms) as `hi`).
    ///
    /// # Errors
    ///
    /// Returns a [`RangeError`] if `unix_ts_ms` is before 2020-01-01T00:00:00Z or past
    /// the 44-bit timestamp range. The two reserved timestamps (0 and 2^44−1), never
    /// generated, are accepted as bounds.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// let lo = Scru128Id::try_min_at_unix_ts_ms(1_700_000_000_000)?;
    /// let hi = Scru128Id::try_max_at_unix_ts_ms(1_700_000_000_999)?;
    /// let id = Scru128Id::from_fields(1_700_000_000_500 - scru128::TIMESTAMP_BIAS, 5, 6, 7);
    /// assert!(lo <= id && id <= hi);
    /// assert!(Scru128Id::try_min_at_unix_ts_ms(0).is_err());
    /// # Ok::<(), scru128::RangeError>(())
    /// ```
    pub const fn try_min_at_unix_ts_ms(unix_ts_ms: u64) -> Result<Self, RangeError> {
        match biased_timestamp(unix_ts_ms) {
            Ok(ts) => Ok(Self::from_fields_unchecked(ts, 0, 0, 0)),
            Err(e) => Err(e),
        }
    }

    /// The largest ID whose creation time is the given Unix millisecond: the upper
    /// bound of a range query.
    ///
    /// # Errors
    ///
    /// As [`try_min_at_unix_ts_ms`](Self::try_min_at_unix_ts_ms).
    ///
    /// ```
    /// let hi = scru128::Scru128Id::try_max_at_unix_ts_ms(scru128::TIMESTAMP_BIAS + 1)?;
    /// assert_eq!(hi.to_string(), "000000000VVVVVVVVVVVVVVVVV");
    /// # Ok::<(), scru128::RangeError>(())
    /// ```
    pub const fn try_max_at_unix_ts_ms(unix_ts_ms: u64) -> Result<Self, RangeError> {
        match biased_timestamp(unix_ts_ms) {
            Ok(ts) => Ok(Self::from_fields_unchecked(
                ts,
                MAX_COUNTER,
                MAX_PER_SEC_RANDOM,
                u32::MAX,
            )),
            Err(e) => Err(e),
        }
    }

    /// The smallest ID of the millisecond that contains `time` (sub-millisecond
    /// precision is truncated).
    ///
    /// # Errors
    ///
    /// As [`try_min_at_unix_ts_ms`](Self::try_min_at_unix_ts_ms), also for times
    /// before the Unix epoch.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    /// let lo = scru128::Scru128Id::try_min_at_system_time(t)?;
    /// assert_eq!(lo.unix_ts_ms(), 1_700_000_000_123);
    /// assert_eq!(lo.counter(), 0);
    /// # Ok::<(), scru128::RangeError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn try_min_at_system_time(time: std::time::SystemTime) -> Result<Self, RangeError> {
        Self::try_min_at_unix_ts_ms(system_time_to_unix_ms(time)?)
    }

    /// The largest ID of the millisecond that contains `time`.
    ///
    /// # Errors
    ///
    /// As [`try_min_at_system_time`](Self::try_min_at_system_time).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    /// let hi = scru128::Scru128Id::try_max_at_system_time(t)?;
    /// assert_eq!(hi.unix_ts_ms(), 1_700_000_000_123);
    /// assert_eq!(hi.per_gen_random(), u32::MAX);
    /// # Ok::<(), scru128::RangeError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn try_max_at_system_time(time: std::time::SystemTime) -> Result<Self, RangeError> {
        Self::try_max_at_unix_ts_ms(system_time_to_unix_ms(time)?)
    }

    /// Parses the 26-digit text form, in either case. Works in `const` context; at run
    /// time `text.parse()` ([`FromStr`]) gives the same results and is faster on x86-64,
    /// where it uses SSE2.
    ///
    /// # Errors
    ///
    /// Returns a [`ParseError`] that says which rule failed: the length is not 26
    /// characters (with the length seen), a character is not a digit `0-9A-Va-v`
    /// (with the character and its 0-based position), or the first digit is above
    /// `7`, so the value would not fit in 128 bits. Nothing is trimmed. Lengths and
    /// positions count characters (see [`ParseError`]).
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// const X: Scru128Id = match Scru128Id::try_from_str("00pghaj3q9vaj7iu6pqbhbuak4") {
    ///     Ok(x) => x,
    ///     Err(_) => panic!(),
    /// };
    /// assert_eq!(X.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    ///
    /// let err = Scru128Id::try_from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid length: expected 26 characters, found 25");
    /// let err = Scru128Id::try_from_str("00PGHAJ3Q9-AJ7IU6PQBHBUAK4").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid digit '-' at position 10: expected 0-9 or A-V in either case");
    /// let err = Scru128Id::try_from_str("80000000000000000000000000").unwrap_err();
    /// assert_eq!(err.to_string(), "out of range: the first digit is '8', above the largest allowed '7'");
    /// ```
    pub const fn try_from_str(text: &str) -> Result<Self, ParseError> {
        match decode(text.as_bytes()) {
            Ok(id) => Ok(id),
            Err(e) => Err(e.with_char_from(text)),
        }
    }

    /// Parses the 26-digit text form from bytes (for input that may not be UTF-8),
    /// with the same rules as [`try_from_str`](Self::try_from_str).
    ///
    /// # Errors
    ///
    /// As [`try_from_str`](Self::try_from_str); a non-ASCII byte is reported as a
    /// byte value with its position. A length counts each UTF-8 encoded character as
    /// one, and each byte that is not part of one.
    ///
    /// ```
    /// use scru128::Scru128Id;
    ///
    /// assert!(Scru128Id::try_from_ascii(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4").is_ok());
    /// let err = Scru128Id::try_from_ascii(b"00PGHAJ3Q9VAJ7IU6PQBHBUA\xff4").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid byte 0xff at position 24: expected 0-9 or A-V in either case");
    /// ```
    #[inline]
    pub fn try_from_ascii(bytes: &[u8]) -> Result<Self, ParseError> {
        decode_at_run_time(bytes)
    }

    /// Returns the canonical (uppercase) 26-digit text, held on the stack.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// let text = x.encode();
    /// assert_eq!(text, "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    /// assert_eq!(text.len(), 26); // derefs to `str`
    /// ```
    #[inline]
    pub const fn encode(&self) -> EncodedId {
        EncodedText(encode(self.as_u128(), 7))
    }

    /// Returns the 26-digit text in lowercase, held on the stack. It parses back to the
    /// same ID, and sorts like the ID against other lowercase text.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// assert_eq!(x.encode_lower(), "00pghaj3q9vaj7iu6pqbhbuak4");
    /// ```
    #[inline]
    pub const fn encode_lower(&self) -> EncodedId {
        EncodedText(encode(self.as_u128(), 39))
    }

    /// Returns the canonical (uppercase) 26-digit text as a `String`: the same text as
    /// [`Display`](fmt::Display), made without going through a formatter.
    ///
    /// `id.to_string()` picks this method over the blanket
    /// [`ToString`](alloc::string::ToString) one (inherent methods come first), which
    /// saves about 12 ns per call (`scripts/bench-summary`): std's blanket method runs
    /// [`Display`](fmt::Display) through a `Formatter` into an empty `String` that then
    /// grows, while this one
    /// allocates the 26 bytes once. Generic code (`T: ToString`, `format!`) still gets
    /// the `Display` text, which is identical.
    ///
    /// ```
    /// let x = scru128::Scru128Id::from_u128(0x00cc22a98f49faa67978d9d2e2bf2a84);
    /// assert_eq!(x.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    /// assert_eq!(x.to_string(), format!("{x}"));
    /// ```
    #[cfg(feature = "alloc")]
    #[allow(clippy::inherent_to_string_shadow_display)] // same text; the Display path is slower
    #[inline]
    #[must_use]
    pub fn to_string(&self) -> alloc::string::String {
        alloc::string::String::from(self.encode().as_str())
    }
}

/// Unix milliseconds → biased timestamp, if representable (reserved values included).
const fn biased_timestamp(unix_ts_ms: u64) -> Result<u64, RangeError> {
    if unix_ts_ms < TIMESTAMP_BIAS || unix_ts_ms - TIMESTAMP_BIAS > MAX_TIMESTAMP {
        Err(RangeError::unix_ts_ms(unix_ts_ms))
    } else {
        Ok(unix_ts_ms - TIMESTAMP_BIAS)
    }
}

#[cfg(feature = "std")]
pub(crate) fn system_time_to_unix_ms(time: std::time::SystemTime) -> Result<u64, RangeError> {
    match time.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => Ok(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        Err(_) => Err(RangeError::before_unix_epoch()),
    }
}

// The codec works on 8 digits (40 bits) at a time in the 8 byte lanes of a u64 (SWAR):
// 26 digits = 2 (the top 8 bits) + 3 × 8. Lane 0 (the least significant byte) holds
// the last digit, so `to_be_bytes` gives the text order.

const MASK40: u64 = (1 << 40) - 1;
pub(crate) const LANES_01: u64 = 0x0101_0101_0101_0101;

/// Spreads 40 bits into 8 lanes of 5 bits.
#[inline]
const fn spread40(v: u64) -> u64 {
    let v = ((v & 0xff_fff0_0000) << 12) | (v & 0xf_ffff);
    let v = ((v & 0x000f_fc00_000f_fc00) << 6) | (v & 0x0000_03ff_0000_03ff);
    ((v & 0x03e0_03e0_03e0_03e0) << 3) | (v & 0x001f_001f_001f_001f)
}

/// Packs 8 lanes of 5 bits into 40 bits (inverse of [`spread40`]).
#[inline]
const fn pack40(v: u64) -> u64 {
    let v = (v & 0x001f_001f_001f_001f) | ((v & 0x1f00_1f00_1f00_1f00) >> 3);
    let v = (v & 0x0000_03ff_0000_03ff) | ((v & 0x03ff_0000_03ff_0000) >> 6);
    (v & 0xf_ffff) | ((v >> 12) & 0xff_fff0_0000)
}

/// Digit values (0..=31) in each lane → their ASCII digits.
#[inline]
const fn lanes_to_ascii(lanes: u64, letter_offset: u64) -> u64 {
    // d + 0x76 has bit 7 set exactly when d >= 10; no lane carries (31 + 0x76 < 0x100).
    let letters = ((lanes + 0x76 * LANES_01) >> 7) & LANES_01;
    lanes + 0x30 * LANES_01 + letters * letter_offset
}

/// Per lane, bit 7 set where `lo <= byte <= hi` (bytes below 0x80 only).
#[inline]
const fn lanes_in_range(bytes: u64, lo: u64, hi: u64) -> u64 {
    let at_least_lo = bytes + (0x80 - lo) * LANES_01;
    let above_hi = bytes + (0x7f - hi) * LANES_01;
    at_least_lo & !above_hi & (0x80 * LANES_01)
}

/// Eight ASCII bytes (first in the top lane) sorted into digits `'0'..='9'` and
/// letters `'a'..=last_letter` in either case: per lane, bit 7 set in the first mask
/// for a digit, in the second for a letter; `None` if a byte is neither. The base-32
/// and the hex codecs read their digits through it.
#[inline]
pub(crate) const fn digit_and_letter_lanes(bytes: u64, last_letter: u8) -> Option<(u64, u64)> {
    let high = 0x80 * LANES_01;
    if bytes & high != 0 {
        return None;
    }
    let is_digit = lanes_in_range(bytes, b'0' as u64, b'9' as u64);
    let folded = bytes | (0x20 * LANES_01); // upper-case letters → lower; digits unchanged
    let is_letter = lanes_in_range(folded, b'a' as u64, last_letter as u64);
    if (is_digit | is_letter) != high {
        return None;
    }
    Some((is_digit, is_letter))
}

/// Eight ASCII digits (first in the top lane) → 40 bits, or `None` if one is not a digit.
#[inline]
const fn ascii_to_bits(bytes: u64) -> Option<u64> {
    let Some((is_digit, is_letter)) = digit_and_letter_lanes(bytes, b'v') else {
        return None;
    };
    let folded = bytes | (0x20 * LANES_01); // 'A'..='V' → 'a'..='v'
    // Full-lane masks from bit 7: 0x80 >> 7 = 1, times 0xff.
    let digit_mask = (is_digit >> 7) * 0xff;
    let letter_mask = (is_letter >> 7) * 0xff;
    let values = (bytes & (0x0f * LANES_01) & digit_mask)
        | (((folded & (0x1f * LANES_01)) + 9 * LANES_01) & letter_mask);
    Some(pack40(values))
}

/// Writes the 26 digits of `value`, most significant first; `letter_offset` is 7 for
/// uppercase, 39 for lowercase (the distance from `'0' + 10` to `'A'` or `'a'`).
#[inline]
const fn encode(value: u128, letter_offset: u64) -> [u8; 26] {
    let hi = (value >> 64) as u64;
    let lo = value as u64;
    let top = hi >> 56;
    let head = lanes_to_ascii(((top >> 5) << 8) | (top & 31), letter_offset).to_be_bytes();
    let chunks = [
        lanes_to_ascii(spread40((hi >> 16) & MASK40), letter_offset).to_be_bytes(),
        lanes_to_ascii(spread40(((lo >> 40) | (hi << 24)) & MASK40), letter_offset).to_be_bytes(),
        lanes_to_ascii(spread40(lo & MASK40), letter_offset).to_be_bytes(),
    ];
    let mut out = [0u8; 26];
    out[0] = head[6];
    out[1] = head[7];
    let mut c = 0;
    while c < 3 {
        let mut i = 0;
        while i < 8 {
            out[2 + 8 * c + i] = chunks[c][i];
            i += 1;
        }
        c += 1;
    }
    out
}

/// Reads 8 bytes starting at `at` as a big-endian u64.
#[inline]
pub(crate) const fn load8(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes([
        bytes[at],
        bytes[at + 1],
        bytes[at + 2],
        bytes[at + 3],
        bytes[at + 4],
        bytes[at + 5],
        bytes[at + 6],
        bytes[at + 7],
    ])
}

/// Decodes 26 digits; on failure finds the first broken rule in reading order.
#[inline]
const fn decode(bytes: &[u8]) -> Result<Scru128Id, ParseError> {
    if bytes.len() != 26 {
        return Err(find_error(bytes));
    }
    let d0 = DECODE[bytes[0] as usize];
    let d1 = DECODE[bytes[1] as usize];
    let (Some(c2), Some(c1), Some(c0)) = (
        ascii_to_bits(load8(bytes, 2)),
        ascii_to_bits(load8(bytes, 10)),
        ascii_to_bits(load8(bytes, 18)),
    ) else {
        return Err(find_error(bytes));
    };
    // `NOT_A_DIGIT` is above 7 too.
    if d0 > 7 || d1 == NOT_A_DIGIT {
        return Err(find_error(bytes));
    }
    let hi = ((d0 as u64) << 61) | ((d1 as u64) << 56) | (c2 << 16) | (c1 >> 24);
    let lo = (c1 << 40) | c0;
    Ok(Scru128Id::from_u128(((hi as u128) << 64) | lo as u128))
}

/// [`decode`] for run time, errors included: [`decode_value`], then the cold
/// [`find_error`] for text it refused.
#[inline]
fn decode_at_run_time(bytes: &[u8]) -> Result<Scru128Id, ParseError> {
    match decode_value(bytes) {
        Some(id) => Ok(id),
        None => Err(find_error(bytes)),
    }
}

/// The ID of valid text, else `None`: on x86-64 the AVX2 path where the CPU has AVX2
/// (found out at run time with `std`), else the SSE2 path (SSE2 is always present);
/// the portable [`decode`] elsewhere, with the same results (each tested on every
/// byte at every position). Only the value comes back, the error being left to the
/// caller's cold path: a `Result` built here went through the stack in a caller that
/// does not inline the parser.
#[inline]
fn decode_value(bytes: &[u8]) -> Option<Scru128Id> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        let bytes = <&[u8; 26]>::try_from(bytes).ok()?;
        #[cfg(feature = "std")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { avx2::decode(bytes) }.map(Scru128Id::from_bytes);
        }
        sse2::decode(bytes).map(Scru128Id::from_u128)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let bytes = <&[u8; 26]>::try_from(bytes).ok()?;
        decode_words(bytes)
    }
}

/// [`decode`] for run time on the other CPUs (arm64, WebAssembly): the same lanes,
/// read as whole words from a fixed-size array. The `const fn` reads its bytes one at a
/// time through a slice; in WebAssembly that took 24 to 36 ns an ID, a copy of this
/// 15 ns (loops of 10 million parses inside a module, Deno 2.9, a busy machine).
/// Tested against [`decode`] on every byte at every position.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline]
fn decode_words(bytes: &[u8; 26]) -> Option<Scru128Id> {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_be_bytes(w)
    };
    let d0 = DECODE_TABLE[bytes[0] as usize];
    let d1 = DECODE_TABLE[bytes[1] as usize];
    let c2 = ascii_to_bits(word(2))?;
    let c1 = ascii_to_bits(word(10))?;
    let c0 = ascii_to_bits(word(18))?;
    // `NOT_A_DIGIT` is above 7 too.
    if d0 > 7 || d1 == NOT_A_DIGIT {
        return None;
    }
    let hi = (u64::from(d0) << 61) | (u64::from(d1) << 56) | (c2 << 16) | (c1 >> 24);
    let lo = (c1 << 40) | c0;
    Some(Scru128Id::from_u128(
        (u128::from(hi) << 64) | u128::from(lo),
    ))
}

/// [`DECODE`] as a static: a run-time lookup reads it in place (a `const` array may be
/// copied where it is indexed).
static DECODE_TABLE: [u8; 256] = DECODE;

/// The error for text [`decode_value`] refused, its character found (cold path).
#[cold]
#[inline(never)]
fn text_error(text: &str) -> ParseError {
    find_error(text.as_bytes()).with_char_from(text)
}

/// 26 digits in two overlapping 16-byte vectors (bytes 0..16 and 10..26).
///
/// The intrinsics are called from ordinary functions rather than from
/// `#[target_feature]` ones, which the compiler would not inline into callers; that
/// takes an `unsafe` block, sound because this module only exists where the build
/// configuration enables SSE2 (every x86-64 CPU has it). Parsing this way is about
/// three times as fast as the portable path: 4.5 against 13.2 ns per ID over 1024
/// different IDs (`parse 1024 different, per ID` in compare/benches/compare.rs, AMD
/// EPYC, 2026-12-02). The unit tests `run_time_decoder_agrees_*` compare the two on
/// every byte at every position.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)] // bytes and lanes as SSE2 types them
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_add_epi64, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64,
        _mm_loadu_si128, _mm_madd_epi16, _mm_min_epu8, _mm_movemask_epi8, _mm_mul_epu32,
        _mm_or_si128, _mm_set1_epi8, _mm_set1_epi16, _mm_set1_epi32, _mm_set1_epi64x,
        _mm_setzero_si128, _mm_slli_epi16, _mm_srli_epi16, _mm_srli_epi64, _mm_sub_epi8,
        _mm_subs_epu8, _mm_unpackhi_epi64,
    };

    /// The 128-bit value of 26 valid digits with a first digit of 0-7, else `None`.
    // Measured: with plain `#[inline]` LLVM keeps this out of line in `from_str`
    // callers, and the call costs more than the work.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn decode(bytes: &[u8; 26]) -> Option<u128> {
        // SAFETY: SSE2 is enabled in the build configuration (see the module docs);
        // the two unaligned 16-byte loads read bytes 0..16 and 10..26 of the 26-byte
        // array, inside it; the other intrinsics take and return values only.
        let (ok, [a, b], [c, d]) = unsafe {
            let at = |offset: usize| _mm_loadu_si128(bytes.as_ptr().add(offset).cast());
            let (head, head_bad) = digit_values(at(0)); // 0..16
            let (tail, tail_bad) = digit_values(at(10)); // 10..26
            let bad = _mm_or_si128(head_bad, tail_bad);
            let ok = _mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) == 0xffff;
            (ok, forties(head), forties(tail))
        };
        // 130 bits: chars 0-7 (a), 8-15 (b), 16-17 (the low 10 bits of c, chars 10-17)
        // and 18-25 (d). The first digit is at most 7 when the top 2 bits are clear.
        if !ok || a >> 38 != 0 {
            return None;
        }
        let hi = (a << 26) | (b >> 14);
        let lo = (b << 50) | ((c & 0x3ff) << 40) | d;
        Some((u128::from(hi) << 64) | u128::from(lo))
    }

    /// Per byte: its digit value (meaningful for digits only), and a lane that is zero
    /// exactly where the byte is a digit in either case.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    unsafe fn digit_values(x: __m128i) -> (__m128i, __m128i) {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            // Wrapping: a digit has `as_digit` 0..=9, a letter (folded to lowercase)
            // `as_letter` 0..=21; every other byte is above both.
            let as_digit = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
            let folded = _mm_or_si128(x, _mm_set1_epi8(0x20)); // 'A'..='V' -> 'a'..='v'
            let as_letter = _mm_sub_epi8(folded, _mm_set1_epi8(b'a' as i8));
            let bad = _mm_min_epu8(
                _mm_subs_epu8(as_digit, _mm_set1_epi8(9)),
                _mm_subs_epu8(as_letter, _mm_set1_epi8(21)),
            );
            // For a digit `as_letter + 10` wraps above 200; for a letter `as_digit` is
            // at least 17 (uppercase) or 49 (lowercase), above its value (10..=31).
            let values = _mm_min_epu8(as_digit, _mm_add_epi8(as_letter, _mm_set1_epi8(10)));
            (values, bad)
        }
    }

    /// 16 digit values (the first the most significant) -> the two 40-bit numbers of
    /// their halves.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    unsafe fn forties(values: __m128i) -> [u64; 2] {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            // Pairs: the first byte (low in each 16-bit lane) is the more significant.
            let pairs = _mm_or_si128(
                _mm_slli_epi16(_mm_and_si128(values, _mm_set1_epi16(0x00ff)), 5),
                _mm_srli_epi16(values, 8),
            );
            // Quads: 32-bit lane = first pair * 1024 + second pair.
            let quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x0001_0400));
            // Eights: 64-bit lane = first quad * 2^20 + second quad.
            let eights = _mm_add_epi64(
                _mm_mul_epu32(quads, _mm_set1_epi64x(1 << 20)),
                _mm_srli_epi64(quads, 32),
            );
            [
                _mm_cvtsi128_si64(eights) as u64,
                _mm_cvtsi128_si64(_mm_unpackhi_epi64(eights, eights)) as u64,
            ]
        }
    }
}

/// 26 digits in one 32-byte vector (bytes 0..16 and 10..26 in its two halves), packed
/// straight into the ID's 16 big-endian bytes.
///
/// Chosen at run time (`std`'s cached feature check), so it is one call, not inlined
/// into `from_str`; with fewer instructions than the SSE2 path it still parses faster:
/// 3.2 against 5.1 ns per ID over 1024 different IDs (`scripts/bench-ratios parse`,
/// Intel Xeon, 2026-12-07; docs/performance.md). Its digits are grouped where they fall on byte boundaries
/// of the ID: digits 0-1 make byte 0 (the first digit, at most 7, gives 3 bits),
/// digits 2-9 bytes 1-5, 10-17 bytes 6-10 and 18-25 bytes 11-15, eight digits (40
/// bits) to five bytes. The unit tests `each_simd_decoder_agrees_*` compare it (and the
/// SSE2 path) with the portable one on every byte at every position.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", feature = "std"))]
#[allow(clippy::cast_possible_wrap)] // bytes as AVX2 types them
mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128, _mm256_add_epi8,
        _mm256_add_epi64, _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_inserti128_si256, _mm256_madd_epi16, _mm256_maddubs_epi16, _mm256_min_epu8,
        _mm256_mul_epu32, _mm256_or_si256, _mm256_set1_epi8, _mm256_set1_epi16, _mm256_set1_epi32,
        _mm256_set1_epi64x, _mm256_setr_epi8, _mm256_shuffle_epi8, _mm256_srli_epi64,
        _mm256_subs_epu8, _mm256_testz_si256,
    };

    /// A 32-byte constant from its two 16-byte halves.
    macro_rules! bytes32 {
        ($($b:expr),* $(,)?) => {
            _mm256_setr_epi8($($b as i8),*)
        };
    }

    /// The 16 big-endian bytes of 26 valid digits with a first digit of 0-7, else
    /// `None`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn decode(bytes: &[u8; 26]) -> Option<[u8; 16]> {
        const Z: i32 = 0x80; // a shuffle index that gives a zero byte
        const ALL: i32 = 0xff;
        // SAFETY: the caller guarantees AVX2; the two unaligned 16-byte loads read bytes
        // 0..16 and 10..26 of the 26-byte array, inside it; the store writes the
        // 16-byte array `out`; the other intrinsics take and return values only.
        #[allow(unused_unsafe)] // intrinsics are safe here in newer Rust, not in 1.86
        unsafe {
            let head = _mm_loadu_si128(bytes.as_ptr().cast());
            let tail = _mm_loadu_si128(bytes.as_ptr().add(10).cast());
            let x: __m256i = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(head), tail);
            // As in the SSE2 path: digits have `as_digit` 0..=9, letters (folded to
            // lowercase) `as_letter` 0..=21, every other byte is above both. The first
            // digit may only be 0-7, and no letter.
            let as_digit = _mm256_add_epi8(x, _mm256_set1_epi8(-(b'0' as i8)));
            let folded = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
            let as_letter = _mm256_add_epi8(folded, _mm256_set1_epi8(-(b'a' as i8)));
            let digit_max = bytes32!(
                7, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, //
                9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
            );
            let no_letter = bytes32!(
                ALL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            );
            let bad = _mm256_min_epu8(
                _mm256_subs_epu8(as_digit, digit_max),
                _mm256_or_si256(_mm256_subs_epu8(as_letter, _mm256_set1_epi8(21)), no_letter),
            );
            if _mm256_testz_si256(bad, bad) == 0 {
                return None;
            }
            // For a digit `as_letter + 10` wraps above 200; for a letter `as_digit` is
            // above its value.
            let values = _mm256_min_epu8(
                as_digit,
                _mm256_add_epi8(folded, _mm256_set1_epi8(10 - b'a' as i8)),
            );
            // Groups of eight digits, each in a 64-bit lane: digits 2-9, then 0-1 at
            // the end of a lane of zeros; 10-17, 18-25 (the second half as loaded).
            let groups = _mm256_shuffle_epi8(
                values,
                bytes32!(
                    2, 3, 4, 5, 6, 7, 8, 9, Z, Z, Z, Z, Z, Z, 0, 1, //
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                ),
            );
            // Pairs (16 bits) = first * 32 + second; quads (32 bits) = first pair *
            // 2^10 + second; eights (64 bits) = first quad * 2^20 + second.
            let pairs = _mm256_maddubs_epi16(groups, _mm256_set1_epi16(0x0120));
            let quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0001_0400));
            let eights = _mm256_add_epi64(
                _mm256_mul_epu32(quads, _mm256_set1_epi64x(1 << 20)),
                _mm256_srli_epi64::<32>(quads),
            );
            // Each eight's five low bytes, most significant first, to their places:
            // byte 0 from the lane of digits 0-1, bytes 1-5 from digits 2-9 (first
            // half); bytes 6-10 and 11-15 from the second half.
            let placed = _mm256_shuffle_epi8(
                eights,
                bytes32!(
                    8, 4, 3, 2, 1, 0, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, //
                    Z, Z, Z, Z, Z, Z, 4, 3, 2, 1, 0, 12, 11, 10, 9, 8,
                ),
            );
            let id = _mm_or_si128(
                _mm256_castsi256_si128(placed),
                _mm256_extracti128_si256::<1>(placed),
            );
            let mut out = [0u8; 16];
            _mm_storeu_si128(out.as_mut_ptr().cast(), id);
            Some(out)
        }
    }
}

/// The first rule broken by bytes known to be invalid (cold path). The length counts
/// characters: 26 characters in more bytes hold a non-ASCII one, found by the scan.
#[cold]
const fn find_error(bytes: &[u8]) -> ParseError {
    let len = char_count(bytes);
    if len != 26 {
        return ParseError::length(len);
    }
    let mut pos = 0;
    while pos < bytes.len() {
        let d = DECODE[bytes[pos] as usize];
        if d == NOT_A_DIGIT {
            return ParseError::invalid_byte(pos, bytes[pos]);
        }
        if pos == 0 && d > 7 {
            return ParseError::out_of_range(bytes[0]);
        }
        pos += 1;
    }
    // `decode` only calls here when a rule is broken.
    ParseError::length(len)
}

impl FromStr for Scru128Id {
    type Err = ParseError;

    /// Parses the 26-digit text form; see [`Scru128Id::try_from_str`] for the rules.
    #[inline]
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match decode_value(text.as_bytes()) {
            Some(id) => Ok(id),
            None => Err(text_error(text)),
        }
    }
}

impl TryFrom<&str> for Scru128Id {
    type Error = ParseError;

    /// Parses the 26-digit text form; see [`Scru128Id::try_from_str`].
    #[inline]
    fn try_from(text: &str) -> Result<Self, Self::Error> {
        text.parse()
    }
}

#[cfg(feature = "alloc")]
impl TryFrom<alloc::string::String> for Scru128Id {
    type Error = ParseError;

    /// Parses the 26-digit text form; see [`Scru128Id::try_from_str`].
    #[inline]
    fn try_from(text: alloc::string::String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

#[cfg(feature = "alloc")]
impl From<Scru128Id> for alloc::string::String {
    /// The canonical 26-digit text.
    #[inline]
    fn from(id: Scru128Id) -> Self {
        Self::from(id.encode().as_str())
    }
}

impl From<u128> for Scru128Id {
    #[inline]
    fn from(value: u128) -> Self {
        Self::from_u128(value)
    }
}

impl From<Scru128Id> for u128 {
    #[inline]
    fn from(id: Scru128Id) -> Self {
        id.to_u128()
    }
}

impl From<[u8; 16]> for Scru128Id {
    #[inline]
    fn from(bytes: [u8; 16]) -> Self {
        Self::from_bytes(bytes)
    }
}

impl From<Scru128Id> for [u8; 16] {
    #[inline]
    fn from(id: Scru128Id) -> Self {
        id.to_bytes()
    }
}

impl AsRef<[u8]> for Scru128Id {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Display for Scru128Id {
    /// Writes the canonical 26-digit text; honours width and alignment flags.
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // `pad` is out of line; without flags (as in `to_string`) skip it.
        if f.width().is_none() && f.precision().is_none() {
            f.write_str(&text)
        } else {
            f.pad(&text)
        }
    }
}

impl fmt::Debug for Scru128Id {
    /// `Scru128Id(00PGHAJ3Q9VAJ7IU6PQBHBUAK4)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scru128Id({})", self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ParseErrorKind;

    #[test]
    fn display_honours_width_and_precision() {
        extern crate std;
        use std::format;
        let id = Scru128Id::MAX;
        assert_eq!(format!("{id}"), "7VVVVVVVVVVVVVVVVVVVVVVVVV");
        assert_eq!(format!("{id:>28}"), "  7VVVVVVVVVVVVVVVVVVVVVVVVV");
        assert_eq!(format!("{id:-<27}"), "7VVVVVVVVVVVVVVVVVVVVVVVVV-");
        assert_eq!(format!("{id:.3}"), "7VV");
    }

    #[test]
    fn an_id_is_sixteen_bytes() {
        assert_eq!(core::mem::size_of::<Scru128Id>(), 16);
        assert_eq!(core::mem::align_of::<Scru128Id>(), 8);
    }

    #[test]
    fn decode_table_covers_exactly_the_alphabet_in_both_cases() {
        let valid: usize = DECODE.iter().filter(|&&d| d != NOT_A_DIGIT).count();
        assert_eq!(valid, 10 + 2 * 22);
        for (i, (&u, &l)) in DIGITS.iter().zip(DIGITS_LOWER.iter()).enumerate() {
            assert_eq!(DECODE[u as usize] as usize, i);
            assert_eq!(DECODE[l as usize] as usize, i);
        }
    }

    #[test]
    fn encode_matches_a_naive_loop() {
        let samples = [
            0u128,
            1,
            u128::MAX,
            0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84,
            1 << 127,
            (1 << 60) - 1,
            1 << 60,
            1 << 120,
        ];
        for v in samples {
            let mut naive = [0u8; 26];
            let mut n = v;
            for slot in naive.iter_mut().rev() {
                *slot = DIGITS[(n & 31) as usize];
                n >>= 5;
            }
            assert_eq!(encode(v, 7), naive, "{v:#x}");
            assert_eq!(
                encode(v, 39),
                naive.map(|b| b.to_ascii_lowercase()),
                "{v:#x}"
            );
            assert_eq!(decode(&naive).unwrap().to_u128(), v);
        }
    }

    #[test]
    fn encoded_text_is_always_ascii() {
        let check = |v: u128| {
            let id = Scru128Id::from_u128(v);
            for text in [id.encode(), id.encode_lower()] {
                assert!(
                    text.as_bytes().iter().all(u8::is_ascii_alphanumeric),
                    "{v:#x}"
                );
                assert_eq!(core::str::from_utf8(text.as_bytes()), Ok(text.as_str()));
            }
        };
        for v in [0, u128::MAX, 1 << 127, (1 << 125) - 1] {
            check(v);
        }
        let mut x = 0x0123_4567_89ab_cdef_u64;
        for _ in 0..100_000 {
            // splitmix64 steps spread over all bit patterns.
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            check((u128::from(z) << 64) | u128::from(z ^ (z >> 31)));
        }
    }

    #[test]
    fn run_time_decoder_agrees_with_the_portable_one_for_every_byte_at_every_position() {
        for (input, change) in each_byte_at_each_position() {
            assert_eq!(decode_at_run_time(&input), decode(&input), "{change:?}");
        }
        for len in [0, 1, 16, 25, 27, 40] {
            let input = [b'0'; 40];
            assert_eq!(decode_at_run_time(&input[..len]), decode(&input[..len]));
        }
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn from_str_agrees_with_the_const_parser_for_every_character_at_every_position() {
        // `from_str` builds its errors on its own cold path; they must be the same.
        let base = "01234567899ABCDEFGHIJKLMNO";
        for pos in 0..26 {
            for c in (0..=0x7f_u8).map(char::from).chain(['é', '€', '𝄞']) {
                let text: alloc::string::String = base
                    .char_indices()
                    .map(|(i, b)| if i == pos { c } else { b })
                    .collect();
                assert_eq!(
                    text.parse::<Scru128Id>(),
                    Scru128Id::try_from_str(&text),
                    "{c:?} at {pos}"
                );
            }
        }
        for text in [
            "",
            "0",
            "0000000000000000000000000",
            "000000000000000000000000000",
        ] {
            assert_eq!(text.parse::<Scru128Id>(), Scru128Id::try_from_str(text));
        }
    }

    /// The SIMD decoders one by one (the run-time one is whichever this CPU picks):
    /// SSE2, and AVX2 where the CPU has it.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn simd_decoders() -> [Option<(&'static str, SimdDecoder)>; 2] {
        let sse2: SimdDecoder = |b| super::sse2::decode(b).map(Scru128Id::from_u128);
        #[cfg_attr(not(feature = "std"), allow(unused_mut))]
        let mut decoders = [Some(("sse2", sse2)), None];
        #[cfg(feature = "std")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            decoders[1] = Some(("avx2", |b| {
                unsafe { super::avx2::decode(b) }.map(Scru128Id::from_bytes)
            }));
        } else {
            std::println!("avx2 decoder not tested: this CPU has no AVX2");
        }
        decoders
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    type SimdDecoder = fn(&[u8; 26]) -> Option<Scru128Id>;

    /// Three valid texts (both kinds of digit at every position), and each with every
    /// byte at every position: the text, and the byte and position changed (none for
    /// the text itself).
    fn each_byte_at_each_position() -> impl Iterator<Item = ([u8; 26], Option<(u8, usize)>)> {
        [
            *b"01234567899ABCDEFGHIJKLMNO",
            *b"7vutsrqponmlkjihgfedcba987",
            *b"0PQRSTUVpqrstuv01234567890",
        ]
        .into_iter()
        .flat_map(|base| {
            let changed = (0..26).flat_map(move |pos| {
                (0..=255u8).map(move |byte| {
                    let mut input = base;
                    input[pos] = byte;
                    (input, Some((byte, pos)))
                })
            });
            core::iter::once((base, None)).chain(changed)
        })
    }

    #[test]
    fn the_word_decoder_agrees_with_the_const_one_for_every_byte_at_every_position() {
        for (input, change) in each_byte_at_each_position() {
            assert_eq!(decode_words(&input), decode(&input).ok(), "{change:?}");
        }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn each_simd_decoder_agrees_with_the_portable_one_for_every_byte_at_every_position() {
        for (name, simd) in simd_decoders().into_iter().flatten() {
            for (input, change) in each_byte_at_each_position() {
                assert_eq!(simd(&input), decode(&input).ok(), "{name}: {change:?}");
            }
        }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn each_simd_decoder_agrees_with_the_portable_one_on_random_values() {
        // Every bit of the value matters: random 128-bit values as text, upper- and
        // lowercase.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (name, simd) in simd_decoders().into_iter().flatten() {
            for _ in 0..100_000 {
                let value = (u128::from(next()) << 64) | u128::from(next());
                let id = Scru128Id::from_u128(value);
                for text in [id.encode(), id.encode_lower()] {
                    let bytes: &[u8; 26] = text.as_bytes();
                    assert_eq!(simd(bytes), Some(id), "{name}: {}", text.as_str());
                }
            }
        }
    }

    #[test]
    fn run_time_decoder_agrees_with_the_portable_one_on_random_input() {
        // Bytes drawn mostly from the alphabet and its neighbours, some anywhere.
        const POOL: &[u8] =
            b"0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuvWwXx/:@[`{ \xff";
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200_000 {
            let mut input = [0u8; 26];
            for slot in &mut input {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *slot = if x % 97 == 0 {
                    (x >> 8) as u8
                } else {
                    POOL[(x >> 16) as usize % POOL.len()]
                };
            }
            assert_eq!(decode_at_run_time(&input), decode(&input), "{input:?}");
        }
    }

    #[test]
    fn swar_digit_reader_agrees_with_the_table_for_every_byte_in_every_lane() {
        for lane in 0..8 {
            for byte in 0..=255u8 {
                let mut chunk = [b'0'; 8];
                chunk[lane] = byte;
                let got = ascii_to_bits(u64::from_be_bytes(chunk));
                let want = match DECODE[byte as usize] {
                    NOT_A_DIGIT => None,
                    d => Some(u64::from(d) << (5 * (7 - lane))),
                };
                assert_eq!(got, want, "byte {byte:#04x} in lane {lane}");
            }
        }
    }

    #[test]
    fn errors_carry_kind_character_and_position() {
        let kind = |s: &str| Scru128Id::try_from_str(s).unwrap_err().kind;
        assert_eq!(kind(""), ParseErrorKind::Length { len: 0 });
        // 26 characters in 27 bytes: the length is right, the last digit is not.
        assert_eq!(
            kind("0000000000000000000000000é"),
            ParseErrorKind::InvalidDigit { pos: 25, ch: 'é' }
        );
        assert_eq!(
            kind("00000000000000000000000000é"),
            ParseErrorKind::Length { len: 27 }
        );
        // 25 characters in 26 bytes: a length error, as lengths count characters.
        assert_eq!(
            kind("000000000000000000000000é"),
            ParseErrorKind::Length { len: 25 }
        );
        assert_eq!(
            kind("0000000000000000000000000W"),
            ParseErrorKind::InvalidDigit { pos: 25, ch: 'W' }
        );
        assert_eq!(
            kind("80000000000000000000000000"),
            ParseErrorKind::OutOfRange { first: '8' }
        );
        assert_eq!(
            kind("v0000000000000000000000000"),
            ParseErrorKind::OutOfRange { first: 'v' }
        );
        // In reading order: an out-of-range first digit comes before a bad digit later.
        assert_eq!(
            kind("8000000000000000000000000-"),
            ParseErrorKind::OutOfRange { first: '8' }
        );
        assert_eq!(
            kind(" 0000000000000000000000000"),
            ParseErrorKind::InvalidDigit { pos: 0, ch: ' ' }
        );
        let bytes_err = Scru128Id::try_from_ascii(b"0000000000000\x80000000000000").unwrap_err();
        assert_eq!(
            bytes_err.kind,
            ParseErrorKind::InvalidByte {
                pos: 13,
                byte: 0x80
            }
        );
        // A multi-byte character is reported whole at its first byte.
        assert_eq!(
            kind("0000000000000€000000000000"),
            ParseErrorKind::InvalidDigit { pos: 13, ch: '€' }
        );
    }
}
