//! Every function and its errors (tests/data/functions.txt) through rusqlite and
//! through the `sqlite3` shell, on a database file.

mod common;

use common::{Scratch, cases, open, run_shell, shell};

fn message(err: rusqlite::Error) -> String {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message,
        other => other.to_string(),
    }
}

#[test]
fn every_case_through_rusqlite() {
    let dir = Scratch::new("functions-rusqlite");
    let conn = open(dir.path("cases.db"));
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let got = conn
            .query_row(&format!("SELECT quote({})", case.expr), [], |row| {
                row.get::<_, String>(0)
            })
            .map_err(message);
        if got != case.expected {
            failures.push(format!(
                "functions.txt:{}: {}\n  expected {:?}\n  got      {got:?}",
                case.line, case.expr, case.expected
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} cases passed through rusqlite", cases.len());
}

#[test]
fn every_case_through_the_shell() {
    let Some(shell) = shell() else { return };
    let dir = Scratch::new("functions-shell");
    let db = dir.path("cases.db");
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let out = run_shell(&shell, &db, &format!("SELECT quote({});\n", case.expr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ok = match &case.expected {
            Ok(value) => out.status.success() && stdout.trim_end_matches('\n') == value,
            // The shell adds its own words around the message ("Error: stepping, ...",
            // "Parse error: ..."), which vary between versions.
            Err(message) => !out.status.success() && stdout.is_empty() && stderr.contains(message),
        };
        if !ok {
            failures.push(format!(
                "functions.txt:{}: {}\n  expected {:?}\n  got      {} stdout {stdout:?} stderr {stderr:?}",
                case.line, case.expr, case.expected, out.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} cases passed through the sqlite3 shell", cases.len());
}

/// Time strings in the forms of SQLite's date functions, and near misses: dates over
/// the whole range (days past the end of a month too), times with and without seconds
/// and up to five fractional digits, `T` or spaces between, `Z` or offsets, spaces
/// around them; then the same strings with one character changed.
fn time_strings() -> Vec<String> {
    let mut state = 0x2545_f491_u32;
    let mut next = move |n: u32| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % n
    };
    let mut strings = Vec::new();
    for _ in 0..20_000 {
        let mut s = format!(
            "{:04}-{:02}-{:02}",
            2018 + next(562),
            1 + next(12),
            1 + next(31)
        );
        if next(5) > 0 {
            s.push_str(["T", " ", "  ", "T "][next(4) as usize]);
            s.push_str(&format!("{:02}:{:02}", next(25), next(60)));
            if next(3) > 0 {
                s.push_str(&format!(":{:02}", next(60)));
                match next(6) {
                    0 => {}
                    digits => s.push_str(&format!(
                        ".{:0width$}",
                        next(10u32.pow(digits)),
                        width = digits as usize
                    )),
                }
            }
            match next(6) {
                0 => s.push('Z'),
                1 => s.push_str(" z "),
                2 => s.push_str(&format!(
                    "{}{:02}:{:02}",
                    ["+", "-", " +", " -"][next(4) as usize],
                    next(15),
                    next(60)
                )),
                _ => {}
            }
        } else if next(2) == 0 {
            s.push('T');
        }
        strings.push(s);
    }
    let mutated: Vec<String> = strings
        .iter()
        .take(5000)
        .map(|s| {
            let mut bytes = s.clone().into_bytes();
            let at = next(bytes.len() as u32) as usize;
            bytes[at] = b"0123456789-:. TZz+x"[next(19) as usize];
            String::from_utf8(bytes).unwrap()
        })
        .collect();
    strings.extend(mutated);
    strings.extend(
        [
            "12:00",
            "24:00",
            "2026-02-29",
            "2024-02-31 24:59:59.999",
            "now",
            "2460000.5",
        ]
        .map(String::from),
    );
    strings
}

/// `scru128_min` reads a time string as the host's `julianday()` does: the same
/// millisecond when SQLite reads it, an error when it does not (and for its documented
/// refusals: numbers and 'now').
#[test]
fn time_strings_mean_what_the_hosts_date_functions_say() {
    let conn = open(":memory:");
    let mut sqlite = conn
        .prepare("SELECT CAST(round(julianday(?1) * 86400000.0) AS INTEGER) - 210866760000000")
        .unwrap();
    let mut ours = conn
        .prepare("SELECT scru128_timestamp_ms(scru128_min(?1))")
        .unwrap();
    let (lo, hi) = (
        scru128::TIMESTAMP_BIAS as i64,
        scru128::TIMESTAMP_BIAS as i64 + (1 << 44) - 1,
    );
    let (mut read, mut refused, mut outside, mut long) = (0, 0, 0, 0);
    for s in time_strings() {
        let expected: Option<i64> = sqlite.query_row([&s], |row| row.get(0)).unwrap();
        let got = ours
            .query_row([&s], |row| row.get::<_, i64>(0))
            .map_err(message);
        let number_or_now = s.trim().parse::<f64>().is_ok() || s.eq_ignore_ascii_case("now");
        // More than 3 digits of fractional seconds (not zeros): refused here, read
        // differently by SQLite versions (documented).
        let sub_ms = s.split('.').skip(1).any(|f| {
            let digits: Vec<u8> = f.bytes().take_while(u8::is_ascii_digit).collect();
            digits.len() > 9 || digits.iter().skip(3).any(|&d| d != b'0')
        });
        match expected {
            Some(_) if sub_ms => {
                let err = got.unwrap_err();
                assert!(err.contains("digits of fractional seconds"), "{s:?}: {err}");
                long += 1;
            }
            Some(ms) if number_or_now => {
                assert!(got.is_err(), "{s:?}: {ms} ms in SQLite, refused here")
            }
            Some(ms) if (lo..=hi).contains(&ms) => {
                assert_eq!(got, Ok(ms), "{s:?}");
                read += 1;
            }
            Some(ms) => {
                let err = got.unwrap_err();
                assert!(
                    err.contains(&format!("unix time {ms} ms is outside the SCRU128 range")),
                    "{s:?}: {err}"
                );
                outside += 1;
            }
            None => {
                let err = got.unwrap_err();
                assert!(err.contains("is not a time"), "{s:?}: {err}");
                refused += 1;
            }
        }
    }
    assert!(
        read > 10_000 && refused > 1000 && outside > 100 && long > 100,
        "{read} {refused} {outside} {long}"
    );
    println!(
        "time strings: {read} read as SQLite does, {outside} outside the range, {refused} refused \
         by both, {long} with more than 3 digits of fractional seconds refused here"
    );
}
