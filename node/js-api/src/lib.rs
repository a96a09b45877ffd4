//! What the npm package `scru128-v1` does beyond plain JavaScript, written once for
//! both of its engines: the Node-API addon (`node/src/lib.rs`) and the WebAssembly
//! module (`node/wasm/`). Each engine only moves values between JavaScript and these
//! functions; the rules (the codec and the generator) are the library's, and the
//! rules of npm `scru128` 1.0.1's API that the library does not have (its hex form,
//! its field checks, its use of a random source's `nextUint32()`, its logger's
//! events) are here, so that the two engines cannot disagree.
//!
//! An ID and a generator's state cross between JavaScript and an engine as
//! JavaScript numbers (an ID's four fields, a state's five values), so that no object
//! has to be made across the boundary and the JavaScript side never takes bits apart.
//! Messages are written into a [`Message`], a buffer on the stack: nothing here
//! allocates, so the WebAssembly module needs no allocator.

#![no_std]

use scru128::{
    GenerateError, MAX_COUNTER, RandomSource, Scru128Generator, Scru128Id, TIMESTAMP_BIAS,
};

// ---- IDs as JavaScript numbers ----------------------------------------------------------

/// An ID's four fields as JavaScript numbers (timestamp, counter, `perSecRandom`,
/// `perGenRandom`), the form an ID crosses between JavaScript and an engine in, so
/// that the JavaScript side never takes the 128 bits apart itself.
#[inline]
pub fn fields_of(id: Scru128Id) -> [f64; 4] {
    [
        id.timestamp() as f64,
        f64::from(id.counter()),
        f64::from(id.per_sec_random()),
        f64::from(id.per_gen_random()),
    ]
}

/// The ID of four field values, if each is an integer in its field's range.
#[inline]
pub fn id_of_fields(fields: [f64; 4]) -> Option<Scru128Id> {
    from_fields(
        fields[0],
        fields[1],
        fields[2],
        fields[3],
        &mut Message::new(),
    )
}

// ---- messages --------------------------------------------------------------------------

/// An error message, at most [`Message::CAPACITY`] bytes of UTF-8 (a longer one is cut
/// at a character boundary; none written here comes near it).
pub struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    /// The most bytes a message holds.
    pub const CAPACITY: usize = 240;

    /// An empty message.
    pub const fn new() -> Self {
        Self {
            buf: [0; Self::CAPACITY],
            len: 0,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole characters are ever written (see `write_str`).
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl Default for Message {
    fn default() -> Self {
        Self::new()
    }
}

impl Message {
    /// Appends `text` (cut at a character boundary if it does not fit).
    pub fn push_str(&mut self, text: &str) -> &mut Self {
        let room = Self::CAPACITY - self.len;
        let mut take = text.len().min(room);
        while !text.is_char_boundary(take) {
            take -= 1;
        }
        self.buf[self.len..self.len + take].copy_from_slice(&text.as_bytes()[..take]);
        self.len += take;
        self
    }

    /// Appends a decimal integer.
    pub fn push_u64(&mut self, mut n: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        // ASCII digits.
        self.push_str(core::str::from_utf8(&digits[i..]).unwrap_or(""))
    }

    /// Appends a character from the input, quoted: `'W'`; a control character as
    /// `'\u{1b}'`, so that a message shows what was there and never carries a control
    /// code into a terminal or a log.
    pub fn push_quoted(&mut self, ch: char) -> &mut Self {
        self.push_str("'");
        if ch.is_control() {
            self.push_str("\\u{");
            let code = ch as u32;
            let mut shift = 20;
            let mut started = false;
            while shift > 0 {
                shift -= 4;
                let digit = (code >> shift) & 0xf;
                if digit != 0 || started || shift == 0 {
                    started = true;
                    self.push_str(&"0123456789abcdef"[digit as usize..digit as usize + 1]);
                }
            }
            self.push_str("}");
        } else if ch == '\'' || ch == '\\' {
            // As Rust writes a char: the quote and the backslash escaped.
            self.push_str("\\");
            let mut utf8 = [0u8; 4];
            self.push_str(ch.encode_utf8(&mut utf8));
        } else {
            let mut utf8 = [0u8; 4];
            self.push_str(ch.encode_utf8(&mut utf8));
        }
        self.push_str("'")
    }
}

// Messages are made without `core::fmt`: its machinery would be most of the
// WebAssembly module.

// ---- the 26-digit text -------------------------------------------------------------------

/// `Scru128Id.fromString` of 26 UTF-16 code units: the ID, and whether the units are
/// already its canonical (uppercase) text; `None` if they are not a valid ID (then
/// [`parse_message`] says why).
#[inline]
pub fn parse_units(units: &[u16; 26]) -> Option<(Scru128Id, bool)> {
    let mut ascii = [0u8; 26];
    for (byte, &unit) in ascii.iter_mut().zip(units) {
        if unit > 0x7f {
            return None;
        }
        *byte = unit as u8;
    }
    parse_bytes(&ascii)
}

/// [`parse_units`] of 26 code units that are each below 256, as bytes.
#[inline]
pub fn parse_bytes(ascii: &[u8; 26]) -> Option<(Scru128Id, bool)> {
    let id = Scru128Id::try_from_ascii(ascii).ok()?;
    // Valid text is canonical when it has no lowercase digit (the canonical text is
    // the same digits in uppercase).
    let canonical = !ascii.iter().any(|b| b.is_ascii_lowercase());
    Some((id, canonical))
}

/// The digit values of the 26-digit form: `0-9`, `A-V` and `a-v`.
const fn digit_value(unit: u16) -> Option<u8> {
    match unit {
        0x30..=0x39 => Some((unit - 0x30) as u8),
        0x41..=0x56 => Some((unit - 0x41 + 10) as u8),
        0x61..=0x76 => Some((unit - 0x61 + 10) as u8),
        _ => None,
    }
}

/// Why [`parse_units`] refused `units`: "invalid string representation: " (1.0.1's
/// words), then the library's message for that case (the same text the library's
/// [`ParseError`](scru128::ParseError) shows for an ASCII input, tested): the first
/// character that is not a digit and its position in characters (a lone surrogate
/// shows as U+FFFD), or the first digit above 7.
pub fn parse_message(units: &[u16; 26], out: &mut Message) {
    out.push_str("invalid string representation: ");
    for (pos, ch) in char::decode_utf16(units.iter().copied()).enumerate() {
        let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
        let unit = if (ch as u32) < 0x80 {
            ch as u16
        } else {
            0xffff
        };
        if digit_value(unit).is_none() {
            out.push_str("invalid digit ")
                .push_quoted(ch)
                .push_str(" at position ")
                .push_u64(pos as u64)
                .push_str(": expected 0-9 or A-V in either case");
            return;
        }
    }
    // Every character is a digit: the first is out of range.
    let first = char::from_u32(u32::from(units[0])).unwrap_or('?');
    out.push_str("out of range: the first digit is ")
        .push_quoted(first)
        .push_str(", above the largest allowed '7'");
}

// ---- fields ------------------------------------------------------------------------------

/// `Scru128Id.fromFields` of four JavaScript numbers that are integers (the caller
/// checked `Number.isInteger`, and said which is not): the ID, or `None` with 1.0.1's
/// "invalid field value" and which field is out of its range in `out`.
pub fn from_fields(
    timestamp: f64,
    counter: f64,
    per_sec_random: f64,
    per_gen_random: f64,
    out: &mut Message,
) -> Option<Scru128Id> {
    let fields = [
        ("timestamp", timestamp, scru128::MAX_TIMESTAMP),
        ("counter", counter, u64::from(MAX_COUNTER)),
        (
            "perSecRandom",
            per_sec_random,
            u64::from(scru128::MAX_PER_SEC_RANDOM),
        ),
        ("perGenRandom", per_gen_random, u64::from(u32::MAX)),
    ];
    let mut values = [0u64; 4];
    for (value, (name, number, max)) in values.iter_mut().zip(fields) {
        // Integers are written as integers: no float formatting is linked (it would
        // double the WebAssembly module).
        if !is_integer(number) {
            out.push_str("invalid field value: ")
                .push_str(name)
                .push_str(" is not an integer");
            return None;
        }
        if number < 0.0 {
            out.push_str("invalid field value: ").push_str(name);
            if number > -1.8e19 {
                out.push_str(" -").push_u64((-number) as u64);
            }
            out.push_str(" is negative");
            return None;
        }
        if number > max as f64 {
            out.push_str("invalid field value: ").push_str(name);
            if number < 1.8e19 {
                out.push_str(" ").push_u64(number as u64);
            }
            out.push_str(" is out of range (maximum ")
                .push_u64(max)
                .push_str(")");
            return None;
        }
        *value = number as u64;
    }
    // In range, as just checked: the library cannot refuse them.
    Scru128Id::try_from_fields(
        values[0],
        values[1] as u32,
        values[2] as u32,
        values[3] as u32,
    )
    .ok()
}

// ---- the hex form ------------------------------------------------------------------------

/// `toHex()`: `"0x"` and 32 lowercase hex digits.
#[inline]
pub fn to_hex(id: Scru128Id) -> [u8; 34] {
    let mut text = [0u8; 34];
    text[..2].copy_from_slice(b"0x");
    text[2..].copy_from_slice(id.encode_hex().as_bytes());
    text
}

/// `Scru128Id.fromHex` by 1.0.1's rule, `/^(?:0x)?0*(0|[1-9a-f][0-9a-f]*)$/i` with at
/// most 32 digits in the group: an optional `0x` or `0X`, any number of leading zeros,
/// then at most 32 significant hex digits, either case. The text is fed in pieces of
/// UTF-16 code units ([`feed`](Self::feed)), so that a string of any length is read
/// without a copy of it; only what the rule keeps is kept.
pub struct HexReader {
    /// Code units fed so far.
    units: u64,
    /// Characters (code points) fed so far, for positions in messages.
    chars: u64,
    /// The first unit was a `0` that may start the `0x` prefix.
    pending_zero: bool,
    /// A digit has been seen (a leading zero counts).
    digit: bool,
    /// The significant digits (from the first that is not `0`), as ASCII; only the
    /// first 32 are kept, `count` counts them all.
    significant: [u8; 32],
    count: u64,
    /// The first unit that is not a hex digit.
    bad: Option<BadUnit>,
    /// The last unit fed was a high surrogate.
    after_high: bool,
}

/// The first unit of a hex text that is not a hex digit.
#[derive(Clone, Copy)]
struct BadUnit {
    /// Its position in characters.
    pos: u64,
    /// Its index in code units.
    index: u64,
    unit: u16,
    /// The low surrogate after it, if it is the high half of a pair.
    low: Option<u16>,
}

impl HexReader {
    /// A reader at the start of the text.
    pub const fn new() -> Self {
        Self {
            units: 0,
            chars: 0,
            pending_zero: false,
            digit: false,
            significant: [b'0'; 32],
            count: 0,
            bad: None,
            after_high: false,
        }
    }

    /// Reads the next code units of the text.
    pub fn feed(&mut self, units: &[u16]) {
        for &unit in units {
            self.unit(unit);
        }
    }

    fn unit(&mut self, unit: u16) {
        let index = self.units;
        self.units += 1;
        // A low surrogate right after a high one is the same character.
        let continues = self.after_high && (0xdc00..0xe000).contains(&unit);
        self.after_high = !continues && (0xd800..0xdc00).contains(&unit);
        let pos = self.chars;
        if !continues {
            self.chars += 1;
        }
        if let Some(bad) = &mut self.bad {
            if continues && index == bad.index + 1 {
                bad.low = Some(unit);
            }
            return;
        }
        if index == 0 && unit == u16::from(b'0') {
            self.pending_zero = true;
            return;
        }
        if self.pending_zero {
            self.pending_zero = false;
            if index == 1 && (unit == u16::from(b'x') || unit == u16::from(b'X')) {
                return; // the prefix
            }
            self.digit = true; // the first `0` was a leading zero
        }
        if unit >= 0x80 || !(unit as u8).is_ascii_hexdigit() {
            self.bad = Some(BadUnit {
                pos,
                index,
                unit,
                low: None,
            });
            return;
        }
        self.digit = true;
        if self.count == 0 && unit == u16::from(b'0') {
            return; // a leading zero
        }
        if let Some(slot) = self.significant.get_mut(self.count as usize) {
            *slot = unit as u8;
        }
        self.count += 1;
    }

    /// The ID, once the whole text is fed; or `None` with why in `out` ("invalid
    /// hexadecimal integer representation: " and the broken rule, with the character
    /// and its position in characters where one is at fault).
    pub fn finish(&self, out: &mut Message) -> Option<Scru128Id> {
        const HEAD: &str = "invalid hexadecimal integer representation";
        if let Some(BadUnit { pos, unit, low, .. }) = self.bad {
            let ch = match low {
                Some(low) => char::decode_utf16([unit, low]).next(),
                None => char::decode_utf16([unit]).next(),
            };
            let ch = ch
                .and_then(Result::ok)
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            out.push_str(HEAD)
                .push_str(": invalid hex digit ")
                .push_quoted(ch)
                .push_str(" at position ")
                .push_u64(pos)
                .push_str(": expected 0-9 or a-f in either case");
            return None;
        }
        if self.pending_zero {
            // The text was "0".
            return Some(Scru128Id::from_u128(0));
        }
        if !self.digit {
            out.push_str(HEAD).push_str(": no hex digits");
            return None;
        }
        if self.count > 32 {
            out.push_str(HEAD)
                .push_str(": ")
                .push_u64(self.count)
                .push_str(" significant hex digits, more than 32 (128 bits)");
            return None;
        }
        // Only hex digits were kept, at most 32: the value fits.
        let value = self.significant[..self.count as usize]
            .iter()
            .fold(0u128, |acc, &digit| {
                (acc << 4) | u128::from(hex_value(digit))
            });
        Some(Scru128Id::from_u128(value))
    }
}

/// The value of an ASCII hex digit (either case).
const fn hex_value(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit.wrapping_sub(b'A').wrapping_add(10) & 0xf,
    }
}

impl Default for HexReader {
    fn default() -> Self {
        Self::new()
    }
}

// ---- generators --------------------------------------------------------------------------

/// The rollback allowance of the package's generators: none is too large. 1.0.1 kept
/// its last timestamp, and counted on, whatever the clock did, so its IDs stayed in
/// order through any step back of the clock; so do these (the library's default of
/// 10 s, after which it starts again from the clock, is not 1.0.1's behaviour).
pub const ROLLBACK_ALLOWANCE: u64 = u64::MAX;

/// No event for the logger.
pub const EVENT_NONE: u32 = 0;
/// The counter passed its maximum within one millisecond (1.0.1's `info`).
pub const EVENT_COUNTER_LIMIT: u32 = 1;
/// The generator started again from the clock (1.0.1's `warn`); with
/// [`ROLLBACK_ALLOWANCE`] it does not happen, but is told if it does.
pub const EVENT_RESET: u32 = 2;

/// Number of values in a generator's state (see [`step`]).
pub const STATE_LEN: usize = 5;

/// One `generate()` of a `Scru128Generator` whose state is `state` (all zeros for a
/// new one: the last timestamp, the counter, `perSecRandom`, the timestamp its
/// renewal is due at and the latest clock reading, as the library keeps them, each
/// below 2^53 so exact as a JavaScript number), with the clock reading `unix_ts_ms`
/// and draws from `rng`: the library's generator, set to the state, makes the ID; the
/// new state goes back into `state`. Returns the ID and the logger's event
/// ([`EVENT_NONE`] and so on). On error `state` is unchanged.
///
/// # Errors
///
/// The library's [`GenerateError`]: a clock outside the range SCRU128 can represent,
/// or no ID left after the last timestamp.
pub fn step<R: RandomSource>(
    state: &mut [f64; STATE_LEN],
    unix_ts_ms: u64,
    rng: &mut R,
) -> Result<(Scru128Id, u32), GenerateError> {
    // `as` saturates: NaN and negatives are 0, and the library brings the rest into
    // range.
    let mut before = [0u64; 6];
    for (part, value) in before.iter_mut().zip(state.iter()) {
        *part = *value as u64;
    }
    before[5] = ROLLBACK_ALLOWANCE;
    let mut generator = Scru128Generator::with_rng_and_clock(Borrowed(rng), move || unix_ts_ms);
    generator.__set_state(before);
    let id = generator.try_generate_at(unix_ts_ms)?;
    let mut after = generator.__state();
    // 1.0.1 renewed `perSecRandom` when the timestamp was *more* than 1000 ms past the
    // last renewal (the library, after spec v1.0.2, at 1000 ms): due one millisecond
    // later, so that a seeded source gives 1.0.1's IDs.
    if after[3] != before[3] {
        after[3] += 1;
    }
    let now = unix_ts_ms.saturating_sub(TIMESTAMP_BIAS);
    // What the generator continued from (it brings values into range).
    let last_timestamp = before[0].min(scru128::MAX_TIMESTAMP);
    let last_counter = before[1].min(u64::from(MAX_COUNTER));
    let event = if last_timestamp == 0 {
        EVENT_NONE
    } else if (id.timestamp(), u64::from(id.counter())) <= (last_timestamp, last_counter) {
        EVENT_RESET
    } else if last_counter == u64::from(MAX_COUNTER) && now <= last_timestamp {
        EVENT_COUNTER_LIMIT
    } else {
        EVENT_NONE
    };
    for (value, part) in state.iter_mut().zip(after) {
        *value = part as f64;
    }
    Ok((id, event))
}

/// A random source used through a reference (the caller keeps it, and what it noted).
struct Borrowed<'a, R>(&'a mut R);

impl<R: RandomSource> RandomSource for Borrowed<'_, R> {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    #[inline]
    fn next_bits(&mut self, bits: u32) -> u32 {
        self.0.next_bits(bits)
    }
}

/// A generator's error as JavaScript sees it: 1.0.1 threw a `RangeError` ("invalid
/// field value", from `fromFields`) for a clock outside the SCRU128 range.
pub fn generate_message(err: &GenerateError, out: &mut Message) {
    out.push_str("invalid field value: ");
    match *err {
        GenerateError::ClockOutOfRange { unix_ts_ms } => {
            out.push_str("the clock reads unix time ")
                .push_u64(unix_ts_ms)
                .push_str(" ms, outside the range SCRU128 can generate (2020-01-01T00:00:00.001Z to 2577-06-22T06:20:44.414Z)");
        }
        GenerateError::TimestampExhausted => {
            out.push_str("no greater ID left: the counter overflowed at the last timestamp");
        }
        _ => {
            out.push_str("the generator refused to make an ID");
        }
    }
}

/// `|number|` (core has no `f64::abs` before Rust 1.85).
fn magnitude(number: f64) -> f64 {
    if number < 0.0 { -number } else { number }
}

/// `Number.isInteger`: finite, with no fractional part. From 2^52 on every double is
/// an integer; below, `as i64` truncates toward zero.
fn is_integer(number: f64) -> bool {
    number.is_finite()
        && (magnitude(number) >= 4_503_599_627_370_496.0 || (number as i64) as f64 == number)
}

/// ECMAScript's `ToUint32` of a number: the integer part modulo 2^32; `NaN` and the
/// infinities give 0.
#[inline]
pub fn to_uint32(number: f64) -> u32 {
    if !number.is_finite() {
        return 0;
    }
    // `as` truncates toward zero; below 2^126 the integer part converts exactly to
    // i128, whose low 32 bits are the answer. From 2^85 on a double is a multiple of
    // 2^33, so they are 0 anyway.
    if magnitude(number) < 1.0e38 {
        (number as i128) as u32
    } else {
        0
    }
}

/// A `Scru128Generator(rng)`'s random source: `draw(bits)` calls `rng.nextUint32()`
/// and returns its value, converted by `ToNumber` for the counter (`bits` 28) and
/// `perSecRandom` (24), and as it is for `perGenRandom` (32; `NaN` if it is not a
/// number). Each is used as 1.0.1 used it: `nextUint32() >>> 4` for the counter,
/// `>>> 8` for `perSecRandom` (the high bits), and the value itself for
/// `perGenRandom`, which must then be an integer from 0 to 2^32−1 (else
/// [`refused`](Self::refused) is set, the draw gives 0, and the caller throws 1.0.1's
/// `RangeError`).
pub struct UserRandom<F> {
    draw: F,
    /// A `perGenRandom` draw was not an integer from 0 to 2^32−1.
    pub refused: bool,
}

impl<F: FnMut(u32) -> f64> UserRandom<F> {
    /// A source over `draw`.
    pub const fn new(draw: F) -> Self {
        Self {
            draw,
            refused: false,
        }
    }
}

impl<F: FnMut(u32) -> f64> RandomSource for UserRandom<F> {
    fn next_u32(&mut self) -> u32 {
        let value = (self.draw)(32);
        if is_integer(value) && (0.0..=f64::from(u32::MAX)).contains(&value) {
            value as u32
        } else {
            self.refused = true;
            0
        }
    }

    fn next_bits(&mut self, bits: u32) -> u32 {
        let value = to_uint32((self.draw)(bits));
        value.checked_shr(32 - bits.min(32)).unwrap_or(0)
    }
}

/// The message for a refused `perGenRandom` draw.
pub const REFUSED_MESSAGE: &str = "invalid field value: nextUint32() returned a value that is not an integer from 0 to 4294967295";

#[cfg(test)]
mod tests;
