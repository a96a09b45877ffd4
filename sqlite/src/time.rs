//! Times in and out: the time strings of SQLite's date functions read as Unix
//! milliseconds (for `scru128_min`/`scru128_max`), and Unix milliseconds written as
//! `YYYY-MM-DD HH:MM:SS.SSS` (for `scru128_datetime`).
//!
//! The reader follows SQLite's own parser (`parseDateOrTime` in `date.c`), so the same
//! strings mean the same millisecond, with three deliberate differences, each an error
//! rather than a guess:
//!
//! - `now` (and `subsec`): the functions are deterministic, so they must not read the
//!   clock; `strftime('%Y-%m-%d %H:%M:%f', 'now')` gives the same time as a fixed
//!   string (`datetime('now')` too, without the milliseconds).
//! - A number (SQLite reads it as a Julian day): a Unix time is easily mistaken for
//!   one; Unix milliseconds go in as `INTEGER`.
//! - More than three digits of fractional seconds (other than zeros, up to nine in
//!   all): SQLite versions read them differently (3.40 and 3.50 round to the
//!   millisecond in floating point, older ones drop them, and 309 digits or more give
//!   NaN, which 3.40 reads as no time); a NUL character, where SQLite stops reading
//!   while the value goes on. Either is an error that says so; with at most three
//!   fractional digits every version reads the same millisecond as this reader.
//!
//! Whole-program tests compare the reader with the host's `julianday()` on many strings.

use core::fmt;

/// Milliseconds in a day (SQLite has no leap seconds either).
const MS_PER_DAY: i64 = 86_400_000;

/// Why a string is not a time this reader accepts.
#[derive(Debug, PartialEq, Eq)]
pub enum TimeError {
    /// `now`, `subsec` or `subsecond`: the clock.
    Now,
    /// A number, which SQLite would read as a Julian day.
    Number,
    /// None of the forms.
    Malformed,
    /// A NUL character at this byte: SQLite's date functions stop reading there.
    Nul(usize),
    /// This many digits of fractional seconds, more than three (or more than nine, or
    /// not zeros past the third).
    Fraction(usize),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Nul(at) => {
                return write!(
                    f,
                    "has a NUL character at byte {at}, where SQLite's date functions stop \
                     reading: remove it"
                );
            }
            Self::Fraction(digits) => {
                return write!(
                    f,
                    "has {digits} digits of fractional seconds: give at most 3 (zeros may \
                     follow, up to 9 in all), as SQLite versions round or drop further \
                     digits differently; strftime('%Y-%m-%d %H:%M:%f', t) gives the host's \
                     reading"
                );
            }
            _ => {}
        }
        f.write_str(match self {
            Self::Now => {
                "is not a fixed time and the function is deterministic: pass \
                 strftime('%Y-%m-%d %H:%M:%f', 'now') instead"
            }
            Self::Number => {
                "is a number, not a time string: pass unix milliseconds as INTEGER \
                 (Julian day numbers are not read)"
            }
            Self::Malformed => {
                "is not a time: expected YYYY-MM-DD, optionally followed by a space or T, \
                 HH:MM[:SS[.SSS]] and a Z or +HH:MM offset"
            }
            Self::Nul(_) | Self::Fraction(_) => unreachable!("written above"),
        })
    }
}

/// SQLite's `sqlite3Isspace`.
const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A cursor over the bytes, `0` past the end (SQLite reads a NUL-terminated string).
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> u8 {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn skip_spaces(&mut self) {
        while is_space(self.peek()) {
            self.pos += 1;
        }
    }

    /// `n` decimal digits in `min..=max`, followed by `sep` if one is given (consumed),
    /// as SQLite's `getDigits` reads one field.
    fn field(&mut self, n: usize, min: u32, max: u32, sep: Option<u8>) -> Option<u32> {
        let mut value = 0;
        for i in 0..n {
            let b = self.peek_at(i);
            if !b.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u32::from(b - b'0');
        }
        if value < min || value > max {
            return None;
        }
        if let Some(sep) = sep {
            if self.peek_at(n) != sep {
                return None;
            }
            self.pos += n + 1;
        } else {
            self.pos += n;
        }
        Some(value)
    }
}

/// The time of day and offset: milliseconds since midnight, minus the offset.
/// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.F…`, then an optional `Z` or `±HH:MM` (SQLite's
/// `parseHhMmSs` and `parseTimezone`).
fn time_of_day(c: &mut Cursor<'_>) -> Result<i64, TimeError> {
    let h = c.field(2, 0, 24, Some(b':')).ok_or(TimeError::Malformed)?;
    let m = c.field(2, 0, 59, None).ok_or(TimeError::Malformed)?;
    let mut ms = i64::from(h) * 3_600_000 + i64::from(m) * 60_000;
    // A fraction this reader refuses, reported once the rest of the string is read
    // (a string that is no time at all says so instead).
    let mut long_fraction = None;
    if c.peek() == b':' {
        c.pos += 1;
        ms += i64::from(c.field(2, 0, 59, None).ok_or(TimeError::Malformed)?) * 1000;
        if c.peek() == b'.' && c.peek_at(1).is_ascii_digit() {
            c.pos += 1;
            let start = c.pos;
            let mut scale = 100;
            while c.peek().is_ascii_digit() {
                ms += i64::from(c.peek() - b'0') * scale;
                scale /= 10;
                c.pos += 1;
            }
            let digits = &c.bytes[start..c.pos];
            if digits.len() > 9 || digits.iter().skip(3).any(|&d| d != b'0') {
                long_fraction = Some(digits.len());
            }
        }
    }
    c.skip_spaces();
    let sign = match c.peek() {
        b'-' => -1,
        b'+' => 1,
        b'Z' | b'z' => {
            c.pos += 1;
            0
        }
        _ if c.at_end() => 0,
        _ => return Err(TimeError::Malformed),
    };
    if sign != 0 {
        c.pos += 1;
        let oh = c.field(2, 0, 14, Some(b':')).ok_or(TimeError::Malformed)?;
        let om = c.field(2, 0, 59, None).ok_or(TimeError::Malformed)?;
        ms -= sign * (i64::from(oh) * 3_600_000 + i64::from(om) * 60_000);
    }
    c.skip_spaces();
    match (c.at_end(), long_fraction) {
        (false, _) => Err(TimeError::Malformed),
        (true, Some(digits)) => Err(TimeError::Fraction(digits)),
        (true, None) => Ok(ms),
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date; a day past the end of its month
/// runs on into the next, as in SQLite (2023-02-31 is 2023-03-03).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Reads a time string in the forms of SQLite's date functions as Unix milliseconds
/// (negative before 1970). A time without a date is on 2000-01-01, as in SQLite.
///
/// # Errors
///
/// [`TimeError`] for `now`, numbers, a NUL character, more than three digits of
/// fractional seconds (other than zeros) and anything else that is none of the forms.
pub fn parse_time(text: &[u8]) -> Result<i64, TimeError> {
    if let Some(at) = text.iter().position(|&b| b == 0) {
        return Err(TimeError::Nul(at));
    }
    // YYYY-MM-DD, then optional spaces or Ts and a time of day (`parseYyyyMmDd`).
    let mut c = Cursor {
        bytes: text,
        pos: 0,
    };
    let negative = c.peek() == b'-';
    if negative {
        c.pos += 1;
    }
    if let Some(y) = c.field(4, 0, 9999, Some(b'-')) {
        if let (Some(m), Some(d)) = (c.field(2, 1, 12, Some(b'-')), c.field(2, 1, 31, None)) {
            while is_space(c.peek()) || c.peek() == b'T' {
                c.pos += 1;
            }
            let year = if negative {
                -i64::from(y)
            } else {
                i64::from(y)
            };
            let midnight = days_from_civil(year, m, d) * MS_PER_DAY;
            if c.at_end() {
                return Ok(midnight);
            }
            return time_of_day(&mut c).map(|ms| midnight + ms);
        }
        return Err(TimeError::Malformed);
    }
    // A time of day alone, on 2000-01-01.
    let mut c = Cursor {
        bytes: text,
        pos: 0,
    };
    match time_of_day(&mut c) {
        Ok(ms) => return Ok(days_from_civil(2000, 1, 1) * MS_PER_DAY + ms),
        Err(TimeError::Malformed) => {}
        Err(err) => return Err(err),
    }
    if [&b"now"[..], b"subsec", b"subsecond"]
        .iter()
        .any(|word| text.eq_ignore_ascii_case(word))
    {
        return Err(TimeError::Now);
    }
    if is_number(text) {
        return Err(TimeError::Number);
    }
    Err(TimeError::Malformed)
}

/// Whether SQLite would read `text` as a number: optional spaces, a sign, digits with
/// an optional fraction and exponent, optional spaces.
fn is_number(text: &[u8]) -> bool {
    let s = text.trim_ascii();
    let s = s
        .strip_prefix(b"+")
        .or_else(|| s.strip_prefix(b"-"))
        .unwrap_or(s);
    let (mantissa, exponent) = match s.iter().position(|&b| b == b'e' || b == b'E') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, &b""[..]),
    };
    let digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e
            .strip_prefix(b"+")
            .or_else(|| e.strip_prefix(b"-"))
            .unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM:SS.SSS` (UTC), the form of SQLite's
/// `strftime('%Y-%m-%d %H:%M:%f', …)`. Years past 9999 do not occur: a SCRU128 time
/// ends in 2577.
pub fn format_datetime(unix_ms: u64) -> [u8; 23] {
    let days = (unix_ms / MS_PER_DAY as u64) as i64;
    let ms_of_day = unix_ms % MS_PER_DAY as u64;
    // Civil date from days (H. Hinnant's algorithm, on the proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);

    let mut out = *b"0000-00-00 00:00:00.000";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year as u64);
    put(5, 2, month as u64);
    put(8, 2, day as u64);
    put(11, 2, ms_of_day / 3_600_000);
    put(14, 2, ms_of_day / 60_000 % 60);
    put(17, 2, ms_of_day / 1000 % 60);
    put(20, 3, ms_of_day % 1000);
    out
}

#[cfg(test)]
mod tests {
    use super::{TimeError, format_datetime, parse_time};

    fn ms(text: &str) -> Result<i64, TimeError> {
        parse_time(text.as_bytes())
    }

    #[test]
    fn forms_of_the_date_functions() {
        let day = 1_767_225_600_000; // 2026-01-01T00:00:00Z
        assert_eq!(ms("2026-01-01"), Ok(day));
        assert_eq!(ms("2026-01-01T"), Ok(day));
        assert_eq!(ms("2026-01-01   "), Ok(day));
        assert_eq!(ms("2026-01-01 00:01"), Ok(day + 60_000));
        assert_eq!(ms("2026-01-01T00:00:01"), Ok(day + 1000));
        assert_eq!(ms("2026-01-01 00:00:01.5"), Ok(day + 1500));
        assert_eq!(ms("2026-01-01 00:00:01.123"), Ok(day + 1123));
        assert_eq!(ms("2026-01-01 00:00:01.123000"), Ok(day + 1123));
        assert_eq!(ms("2026-01-01 00:00:01.120000000Z"), Ok(day + 1120));
        assert_eq!(ms("2026-01-01 00:00Z"), Ok(day));
        assert_eq!(ms("2026-01-01 00:00:00 z "), Ok(day));
        assert_eq!(ms("2026-01-01T01:00:00+01:00"), Ok(day));
        assert_eq!(ms("2026-01-01 00:00 -00:30"), Ok(day + 1_800_000));
        assert_eq!(ms("2026-01-01 24:00"), Ok(day + 86_400_000));
        assert_eq!(ms("2026-02-29"), ms("2026-03-01")); // runs on, as in SQLite
        assert_eq!(ms("2024-02-29").map(|t| t + 86_400_000), ms("2024-03-01"));
        assert_eq!(ms("12:00"), Ok(946_728_000_000)); // 2000-01-01T12:00Z
        assert_eq!(ms("1969-12-31"), Ok(-86_400_000));
        assert_eq!(ms("-0001-01-01").map(|t| t < 0), Ok(true));
    }

    #[test]
    fn what_is_refused() {
        for bad in [
            "",
            " 2026-01-01",
            "2026-1-01",
            "2026-13-01",
            "2026-01-32",
            "2026-01-00",
            "2026/01/01",
            "2026-01-01x",
            "2026-01-01 25:00",
            "2026-01-01 12:60",
            "2026-01-01 12:00:60",
            "2026-01-01 12:00:00.",
            "2026-01-01 12:00 +15:00",
            "2026-01-01 12:00 +1:00",
            "2026-01-01 12:00 Z x",
            "2026-01-01 12:00:00.1234x",
            "yesterday",
        ] {
            assert_eq!(ms(bad), Err(TimeError::Malformed), "{bad:?}");
        }
        for (nul, at) in [("2026-01-01\0", 10), ("\x002026-01-01", 0), ("now\0", 3)] {
            assert_eq!(ms(nul), Err(TimeError::Nul(at)), "{nul:?}");
        }
        let nines = format!("2026-01-01 00:00:00.{}", "9".repeat(400));
        for (long, digits) in [
            ("2026-01-01 00:00:01.1239", 4),
            ("2026-01-01 00:00:01.999999", 6),
            ("2026-01-01 00:00:01.1230000001", 10),
            ("2026-01-01 00:00:01.1230000000", 10),
            ("12:00:00.0001", 4),
            ("2026-01-01 00:00:01.1239 +01:00", 4),
            (nines.as_str(), 400),
        ] {
            assert_eq!(ms(long), Err(TimeError::Fraction(digits)), "{long:?}");
        }
        for now in ["now", "NOW", "Subsec", "subsecond"] {
            assert_eq!(ms(now), Err(TimeError::Now), "{now:?}");
        }
        for number in ["2460000.5", " 1714521600000 ", "-1", "1e3", ".5", "5."] {
            assert_eq!(ms(number), Err(TimeError::Number), "{number:?}");
        }
        for not_number in ["1e", ".", "e5", "1.2.3", "0x10"] {
            assert_eq!(ms(not_number), Err(TimeError::Malformed), "{not_number:?}");
        }
    }

    #[test]
    fn datetime_text() {
        assert_eq!(
            &format_datetime(1_577_836_800_000),
            b"2020-01-01 00:00:00.000"
        );
        assert_eq!(
            &format_datetime(1_767_225_599_999),
            b"2025-12-31 23:59:59.999"
        );
        assert_eq!(
            &format_datetime(1_709_164_800_123),
            b"2024-02-29 00:00:00.123"
        );
        let last = 1_577_836_800_000 + (1 << 44) - 1;
        assert_eq!(&format_datetime(last), b"2577-06-22 06:20:44.415");
    }

    #[test]
    fn both_ways_agree_on_every_day_of_the_range() {
        let first_day = 1_577_836_800_000 / 86_400_000;
        let last_day = (1_577_836_800_000 + (1u64 << 44)) / 86_400_000;
        for day in first_day..=last_day {
            let unix_ms = day * 86_400_000 + 45_296_789; // 12:34:56.789
            let text = format_datetime(unix_ms);
            assert_eq!(
                parse_time(&text),
                Ok(unix_ms as i64),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
    }
}
