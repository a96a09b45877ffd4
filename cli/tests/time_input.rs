//! The times of `--at` and `bounds`: `now`, a date alone (a whole UTC day in
//! `bounds`), Unix seconds and milliseconds with their units, and the hint for digits
//! that fall before 2020 as milliseconds but fit as seconds.

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use common::{parse_lines, scru128, stdout_of};
use predicates::str::contains;
use scru128::Scru128Id;

/// Unix ms of 2024-05-01T00:00:00Z.
const MAY_1: u64 = 1_714_521_600_000;
const DAY: u64 = 86_400_000;
/// Unix ms of 2577-06-22T00:00:00Z, the start of the last day of the SCRU128 range.
const LAST_DAY: u64 = 19_170_000_000_000;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The two lines of `bounds` with `args`.
fn bounds(args: &[&str]) -> (Scru128Id, Scru128Id) {
    let out = stdout_of(&[&["bounds"], args].concat());
    let ids = parse_lines(&out);
    assert_eq!(ids.len(), 2, "{out}");
    (ids[0], ids[1])
}

fn min_at(ms: u64) -> Scru128Id {
    Scru128Id::try_min_at_unix_ts_ms(ms).unwrap()
}

fn max_at(ms: u64) -> Scru128Id {
    Scru128Id::try_max_at_unix_ts_ms(ms).unwrap()
}

#[test]
fn a_date_alone_in_bounds_is_the_whole_utc_day() {
    assert_eq!(
        bounds(&["2024-05-01"]),
        (min_at(MAY_1), max_at(MAY_1 + DAY - 1))
    );
    assert_eq!(
        bounds(&["2024-05-01", "2024-05-31"]),
        (min_at(MAY_1), max_at(MAY_1 + 31 * DAY - 1))
    );
    // A time to a date: to the end of that day; a date to a time: from its start.
    assert_eq!(
        bounds(&["2024-05-01T12:00:00Z", "2024-05-01"]),
        (min_at(MAY_1 + DAY / 2), max_at(MAY_1 + DAY - 1))
    );
    assert_eq!(
        bounds(&["2024-05-01", "2024-05-01T00:00:00.999Z"]),
        (min_at(MAY_1), max_at(MAY_1 + 999))
    );
    // The first day of the range.
    assert_eq!(
        bounds(&["2020-01-01"]),
        (Scru128Id::MIN, max_at(scru128::TIMESTAMP_BIAS + DAY - 1))
    );
    // The last day of the range starts inside it and ends with it, as FROM and as TO.
    let last_day = LAST_DAY;
    assert_eq!(
        Scru128Id::MAX.unix_ts_ms() - last_day,
        ((6 * 60 + 20) * 60 + 44) * 1000 + 415
    );
    assert_eq!(bounds(&["2577-06-22"]), (min_at(last_day), Scru128Id::MAX));
    assert_eq!(
        bounds(&["2024-05-01", "2577-06-22"]),
        (min_at(MAY_1), Scru128Id::MAX)
    );
    assert_eq!(
        bounds(&["2577-06-22", "2577-06-22T06:00:00Z"]),
        (min_at(last_day), max_at(last_day + 6 * 3_600_000))
    );
    // A day that starts outside the range is refused, saying so.
    for (args, arg) in [
        (&["2577-06-23"][..], "<FROM>"),
        (&["2019-12-31"], "<FROM>"),
        (&["2024-05-01", "2577-06-23"], "[TO]"),
    ] {
        scru128(&[&["bounds"], args].concat())
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "scru128 bounds: error: invalid value '{}' for '{arg}': the day starts \
                 outside the SCRU128 time range: 2020-01-01T00:00:00.000Z to \
                 2577-06-22T06:20:44.415Z\n",
                args.last().unwrap()
            ));
    }
    // A millisecond past the end is outside, as before.
    scru128(&["bounds", "2577-06-22T06:20:44.416Z"])
        .assert()
        .code(2)
        .stderr(
            "scru128 bounds: error: invalid value '2577-06-22T06:20:44.416Z' for '<FROM>': \
             outside the SCRU128 time range: 2020-01-01T00:00:00.000Z to \
             2577-06-22T06:20:44.415Z\n",
        );
    // TO's day ends before FROM: an error that shows both ends.
    scru128(&["bounds", "2024-05-02T00:00:00Z", "2024-05-01"])
        .assert()
        .code(2)
        .stderr(
            "scru128 bounds: error: FROM (2024-05-02T00:00:00.000Z) is after TO \
             (2024-05-01T23:59:59.999Z); give the earlier time first\n",
        );
}

#[test]
fn a_date_alone_in_at_is_its_first_millisecond() {
    let ids = parse_lines(&stdout_of(&["-n", "3", "--at", "2024-05-01"]));
    assert!(ids.iter().all(|id| id.unix_ts_ms() == MAY_1));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // 2020-01-01 starts with the reserved timestamp 0.
    scru128(&["--at", "2020-01-01"])
        .assert()
        .code(2)
        .stderr(contains("outside the times IDs can be generated at"));
}

#[test]
fn unix_time_takes_units_and_digits_alone_are_milliseconds() {
    let expected = (min_at(MAY_1), max_at(MAY_1));
    for text in ["1714521600s", "1714521600000ms", "1714521600000"] {
        assert_eq!(bounds(&[text]), expected, "{text}");
        let ids = parse_lines(&stdout_of(&["-n", "2", "--at", text]));
        assert!(ids.iter().all(|id| id.unix_ts_ms() == MAY_1), "{text}");
    }
    assert_eq!(
        bounds(&["1714521600s", "1714521601s"]),
        (min_at(MAY_1), max_at(MAY_1 + 1000))
    );
    for bad in [
        "1714521600S",
        "1.5s",
        "12 s",
        "s",
        "ms",
        "12sec",
        "+1714521600s",
        "1714521600 ",
    ] {
        scru128(&["bounds", bad])
            .assert()
            .code(2)
            .stderr(contains("expected now, a date (2024-05-01), RFC 3339"));
    }
    scru128(&["--at", "99999999999999999s"])
        .assert()
        .code(2)
        .stderr(contains("Unix time 99999999999999999s is too large"));
}

#[test]
fn digits_before_2020_that_fit_as_seconds_get_the_fix() {
    scru128(&["--at", "1714521600"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "scru128: error: invalid value '1714521600' for '--at <TIME>': 1714521600 is Unix \
         milliseconds, 1970-01-20T20:15:21.600Z (before 2020); as Unix seconds it is \
         2024-05-01T00:00:00.000Z: write 1714521600s\n",
        );
    scru128(&["bounds", "2024-05-01", "1714607999"])
        .assert()
        .code(2)
        .stderr(contains(
            "as Unix seconds it is 2024-05-01T23:59:59.000Z: write 1714607999s",
        ));
    // The fix works.
    assert_eq!(bounds(&["1714521600s"]).0, min_at(MAY_1));
    // No hint where seconds would not fit either, nor for RFC 3339 times.
    for text in ["99", "1577836799999", "1960-01-01T00:00:00Z"] {
        let out = scru128(&["bounds", text])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("outside the SCRU128 time range"),
            "{text}: {err}"
        );
        assert!(!err.contains("as Unix seconds"), "{text}: {err}");
    }
    // The time IDs can be generated at starts 1 ms later: 1577836800 as seconds is
    // exactly 2020-01-01, reserved, so no hint there either.
    scru128(&["--at", "1577836800"])
        .assert()
        .code(2)
        .stderr(contains("outside the times IDs can be generated at"));
}

#[test]
fn now_is_the_clock() {
    let before = now_ms();
    let (lo, hi) = bounds(&["now"]);
    let after = now_ms();
    assert!(
        (before..=after).contains(&lo.unix_ts_ms()),
        "{before} {lo:?} {after}"
    );
    assert_eq!(hi, max_at(lo.unix_ts_ms()));
    // In any case, and as an end.
    let (lo, hi) = bounds(&["2024-05-01", "NOW"]);
    assert_eq!(lo, min_at(MAY_1));
    assert!(hi.unix_ts_ms().abs_diff(now_ms()) < 60_000);
    // --at now: IDs of one millisecond near the clock, increasing.
    let ids = parse_lines(&stdout_of(&["-n", "50", "--at", "now"]));
    let ms = ids[0].unix_ts_ms();
    assert!(ms.abs_diff(now_ms()) < 60_000);
    assert!(ids.iter().all(|id| id.unix_ts_ms() == ms));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // Now is before a time in 2500.
    scru128(&["bounds", "2500-01-01", "now"])
        .assert()
        .code(2)
        .stderr(contains("is after TO"));
}
