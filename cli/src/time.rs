//! Times on the command line and in output: `now`, a date alone, a strict RFC 3339
//! parser, Unix seconds and milliseconds, and the ISO 8601 text that `inspect` writes.
//!
//! Only the proleptic Gregorian calendar in UTC is needed, so this is plain integer
//! arithmetic (the day-number algorithms of Howard Hinnant's `chrono`-compatible
//! date library), not a time-zone database.

use std::sync::OnceLock;
use std::time::SystemTime;

/// Milliseconds in a day.
const MS_PER_DAY: i64 = 86_400_000;

/// The forms a time may take, for messages.
const FORMS: &str = "expected now, a date (2024-05-01), RFC 3339 (2024-05-01T12:00:00Z, \
     2024-05-01T14:00:00.250+02:00) or Unix time in seconds (1714521600s) or \
     milliseconds (1714521600000ms, or the digits alone)";

/// The Unix milliseconds a time on the command line covers: one millisecond, or a
/// whole UTC day for a date alone. Negative before 1970.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeSpan {
    /// The first millisecond.
    pub first: i64,
    /// The last millisecond (the same as `first` but for a date).
    pub last: i64,
}

impl TimeSpan {
    /// The span of one millisecond.
    fn at(ms: i64) -> Self {
        Self {
            first: ms,
            last: ms,
        }
    }
}

/// The system clock in Unix milliseconds, read once per run so that every `now` of
/// one command line is the same millisecond.
pub fn now_ms() -> i64 {
    static NOW: OnceLock<i64> = OnceLock::new();
    *NOW.get_or_init(
        || match SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
        },
    )
}

/// Parses a time given on the command line; `now` reads the clock for `now`.
///
/// The forms:
/// - `now` (in any case): the clock's millisecond.
/// - A date alone, `YYYY-MM-DD`: that whole UTC day.
/// - RFC 3339 (section 5.6), `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, where `T` may
///   also be `t` or a space and `Z` may be `z`. Every field has exactly its number of
///   digits, the date must exist, and the offset is required. Digits of the fraction
///   beyond milliseconds are truncated (the time lies in that millisecond). A leap
///   second (`:60`) is rejected: Unix time has no place for it.
/// - Unix time: digits with `s` (seconds, the start of that second) or `ms`
///   (milliseconds); digits alone are milliseconds.
///
/// # Errors
///
/// A message that says what is wrong with the text.
pub fn parse_time(text: &str, now: impl FnOnce() -> i64) -> Result<TimeSpan, String> {
    let b = text.as_bytes();
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    if b.is_empty() {
        return Err(format!("empty time; {FORMS}"));
    }
    if text.eq_ignore_ascii_case("now") {
        return Ok(TimeSpan::at(now()));
    }
    let too_large = || format!("Unix time {text} is too large");
    if let Some(ms) = b.strip_suffix(b"ms").filter(|d| digits(d)) {
        return text[..ms.len()]
            .parse()
            .map(TimeSpan::at)
            .map_err(|_| too_large());
    }
    if let Some(secs) = b.strip_suffix(b"s").filter(|d| digits(d)) {
        return text[..secs.len()]
            .parse::<i64>()
            .ok()
            .and_then(|s| s.checked_mul(1000))
            .map(TimeSpan::at)
            .ok_or_else(too_large);
    }
    if digits(b) {
        return text.parse().map(TimeSpan::at).map_err(|_| too_large());
    }
    parse_rfc3339(b).map_err(|why| format!("{why}; {FORMS}"))
}

/// Reads `n` ASCII digits at `*pos` as a number and moves past them.
fn digits(b: &[u8], pos: &mut usize, n: usize, what: &str) -> Result<i64, String> {
    let field = b
        .get(*pos..*pos + n)
        .filter(|f| f.iter().all(u8::is_ascii_digit))
        .ok_or_else(|| format!("{what} must be {n} digits at position {}", *pos))?;
    *pos += n;
    Ok(field
        .iter()
        .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0')))
}

/// Expects one of `allowed` at `*pos` and moves past it; returns the byte.
fn separator(b: &[u8], pos: &mut usize, allowed: &[u8], what: &str) -> Result<u8, String> {
    match b.get(*pos) {
        Some(&c) if allowed.contains(&c) => {
            *pos += 1;
            Ok(c)
        }
        _ => Err(format!("expected {what} at position {}", *pos)),
    }
}

/// Checks that `value` is in `lo..=hi`.
fn in_range(value: i64, lo: i64, hi: i64, what: &str) -> Result<i64, String> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{what} {value} is out of range ({lo}-{hi})"))
    }
}

/// The RFC 3339 and date parts of [`parse_time`].
fn parse_rfc3339(b: &[u8]) -> Result<TimeSpan, String> {
    let mut pos = 0;
    let year = digits(b, &mut pos, 4, "the year")?;
    separator(b, &mut pos, b"-", "'-' after the year")?;
    let month = in_range(digits(b, &mut pos, 2, "the month")?, 1, 12, "month")?;
    separator(b, &mut pos, b"-", "'-' after the month")?;
    let day = digits(b, &mut pos, 2, "the day")?;
    let last_day = days_in_month(year, month);
    in_range(day, 1, last_day, "day")?;
    let days = days_from_civil(year, month, day);
    if pos == b.len() {
        // A date alone: the whole UTC day.
        return Ok(TimeSpan {
            first: days * MS_PER_DAY,
            last: days * MS_PER_DAY + MS_PER_DAY - 1,
        });
    }
    separator(b, &mut pos, b"Tt ", "'T' between date and time")?;
    let hour = in_range(digits(b, &mut pos, 2, "the hour")?, 0, 23, "hour")?;
    separator(b, &mut pos, b":", "':' after the hour")?;
    let minute = in_range(digits(b, &mut pos, 2, "the minute")?, 0, 59, "minute")?;
    separator(b, &mut pos, b":", "':' after the minute")?;
    let second = digits(b, &mut pos, 2, "the second")?;
    if second == 60 {
        return Err("a leap second (:60) has no Unix time".into());
    }
    in_range(second, 0, 59, "second")?;
    let mut millis = 0;
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        let start = pos;
        while b.get(pos).is_some_and(u8::is_ascii_digit) {
            if pos - start < 3 {
                millis = millis * 10 + i64::from(b[pos] - b'0');
            }
            pos += 1;
        }
        if pos == start {
            return Err(format!("expected digits after '.' at position {pos}"));
        }
        for _ in pos - start..3 {
            millis *= 10;
        }
    }
    let offset_min = match separator(b, &mut pos, b"Zz+-", "'Z' or an offset like +02:00")? {
        b'Z' | b'z' => 0,
        sign => {
            let oh = in_range(
                digits(b, &mut pos, 2, "the offset hour")?,
                0,
                23,
                "offset hour",
            )?;
            separator(b, &mut pos, b":", "':' in the offset")?;
            let om = in_range(
                digits(b, &mut pos, 2, "the offset minute")?,
                0,
                59,
                "offset minute",
            )?;
            let total = oh * 60 + om;
            if sign == b'-' { -total } else { total }
        }
    };
    if pos != b.len() {
        return Err(format!("unexpected text after the time at position {pos}"));
    }
    let ms_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    Ok(TimeSpan::at(
        days * MS_PER_DAY + ms_of_day - offset_min * 60_000,
    ))
}

/// Whether `year` is a leap year of the Gregorian calendar.
fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Number of days in `month` (1–12) of `year`.
fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of a day number since 1970-01-01 (not negative).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Length of the text [`write_iso`] writes.
pub const ISO_LEN: usize = 29;

/// Writes `unix_ms` as `YYYY-MM-DDTHH:MM:SS.mmm+00:00`, the form of Python's
/// `datetime.isoformat(timespec="milliseconds")` in UTC, which `scru128-inspect`
/// prints. Years up to 9999 (SCRU128 ends in 2577).
pub fn write_iso(unix_ms: u64, out: &mut [u8; ISO_LEN]) {
    let days = unix_ms / MS_PER_DAY as u64;
    let ms_of_day = unix_ms % MS_PER_DAY as u64;
    let (year, month, day) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    *out = *b"0000-00-00T00:00:00.000+00:00";
    put(&mut out[0..4], year % 10_000);
    put(&mut out[5..7], month);
    put(&mut out[8..10], day);
    put(&mut out[11..13], secs / 3600);
    put(&mut out[14..16], secs / 60 % 60);
    put(&mut out[17..19], secs % 60);
    put(&mut out[20..23], ms_of_day % 1000);
}

/// Writes `value` right-aligned into `field` as zero-padded decimal digits.
fn put(field: &mut [u8], mut value: u64) {
    for slot in field.iter_mut().rev() {
        // `value % 10` is below 10, so the cast cannot truncate.
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// `unix_ms` as ISO 8601 text in UTC (`2024-05-01T12:00:00.000Z`), for messages.
pub fn iso_z(unix_ms: u64) -> String {
    let mut buf = [0u8; ISO_LEN];
    write_iso(unix_ms, &mut buf);
    let mut text = String::from_utf8_lossy(&buf[..23]).into_owned();
    text.push('Z');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock that must not be read.
    fn no_clock() -> i64 {
        panic!("the clock was read")
    }

    /// The millisecond of a point in time.
    fn point(text: &str) -> Result<i64, String> {
        parse_time(text, no_clock).map(|span| {
            assert_eq!(span.first, span.last, "{text}");
            span.first
        })
    }

    #[test]
    fn unix_time_in_milliseconds_and_seconds() {
        assert_eq!(point("1700000000000"), Ok(1_700_000_000_000));
        assert_eq!(point("1700000000000ms"), Ok(1_700_000_000_000));
        assert_eq!(point("1700000000s"), Ok(1_700_000_000_000));
        assert_eq!(point("0"), Ok(0));
        assert_eq!(point("0s"), Ok(0));
        assert!(point("99999999999999999999").is_err());
        assert!(point("9999999999999999999s").is_err());
        for bad in [
            "-5", "", "1e3", "s", "ms", "1.5s", "12 s", "12S", "12sec", "+12s", "12mss",
        ] {
            assert!(point(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn now_reads_the_clock_in_any_case() {
        for text in ["now", "NOW", "Now"] {
            assert_eq!(
                parse_time(text, || 42),
                Ok(TimeSpan {
                    first: 42,
                    last: 42
                })
            );
        }
        assert!(parse_time("now ", || 42).is_err());
        assert!(parse_time("today", || 42).is_err());
    }

    #[test]
    fn a_date_alone_is_the_whole_utc_day() {
        let day = parse_time("2024-05-01", no_clock).unwrap();
        assert_eq!(day.first, 1_714_521_600_000);
        assert_eq!(day.last, 1_714_521_600_000 + 86_400_000 - 1);
        let leap = parse_time("2024-02-29", no_clock).unwrap();
        assert_eq!(leap.first, 1_709_164_800_000);
        for bad in [
            "2023-02-29",
            "2024-5-01",
            "2024-05-1",
            "2024-05-01T",
            "2024-05-01Z",
        ] {
            assert!(parse_time(bad, no_clock).is_err(), "{bad}");
        }
    }

    #[test]
    fn rfc3339_forms() {
        assert_eq!(point("2020-01-01T00:00:00Z"), Ok(1_577_836_800_000));
        assert_eq!(point("2020-01-01t00:00:00z"), Ok(1_577_836_800_000));
        assert_eq!(point("2020-01-01 00:00:00.5Z"), Ok(1_577_836_800_500));
        assert_eq!(point("2020-01-01T00:00:00.123999Z"), Ok(1_577_836_800_123));
        assert_eq!(point("2020-01-01T02:00:00+02:00"), Ok(1_577_836_800_000));
        assert_eq!(point("2019-12-31T23:30:00-00:30"), Ok(1_577_836_800_000));
        assert_eq!(point("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(point("1960-01-01T00:00:00Z"), Ok(-315_619_200_000));
        assert_eq!(point("2024-02-29T00:00:00Z"), Ok(1_709_164_800_000));
    }

    #[test]
    fn rfc3339_rejects() {
        for bad in [
            "2020-01-01T00:00:00",
            "2020-1-01T00:00:00Z",
            "2020-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2020-04-31T00:00:00Z",
            "2020-01-01T24:00:00Z",
            "2020-01-01T00:60:00Z",
            "2016-12-31T23:59:60Z",
            "2020-01-01T00:00:00.Z",
            "2020-01-01T00:00:00+2:00",
            "2020-01-01T00:00:00+24:00",
            "2020-01-01T00:00:00Z ",
            " 2020-01-01T00:00:00Z",
            "2020-01-01T00:00:00UTC",
        ] {
            let err = point(bad).unwrap_err();
            assert!(err.contains("; expected now, a date"), "{bad}: {err}");
        }
    }

    #[test]
    fn iso_output() {
        let mut buf = [0u8; ISO_LEN];
        write_iso(1_632_633_979_124, &mut buf);
        assert_eq!(&buf, b"2021-09-26T05:26:19.124+00:00");
        write_iso(1_577_836_800_000 + (1 << 44) - 1, &mut buf);
        assert_eq!(&buf, b"2577-06-22T06:20:44.415+00:00");
        assert_eq!(iso_z(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn round_trip_days() {
        for days in [0u64, 1, 59, 60, 365, 10_957, 18_262, 200_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            let signed = |v: u64| i64::try_from(v).unwrap();
            assert_eq!(
                days_from_civil(signed(y), signed(m), signed(d)),
                signed(days)
            );
        }
    }
}
