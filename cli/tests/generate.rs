//! `scru128` / `scru128 generate`.

mod common;

use common::{parse_lines, scru128, stdout_of};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::{Scru128Id, TIMESTAMP_BIAS};

#[test]
fn default_is_one_canonical_id() {
    let out = stdout_of(&[]);
    assert_eq!(out.len(), 27, "{out:?}");
    let ids = parse_lines(&out);
    assert_eq!(ids.len(), 1);
    assert_eq!(ids[0].to_string(), out.trim_end());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(ids[0].unix_ts_ms().abs_diff(now) < 60_000);
    scru128(&["generate"]).assert().success().stderr("");
}

#[test]
fn count_gives_increasing_ids_with_and_without_command_name() {
    for args in [
        &["-n", "5"][..],
        &["generate", "-n", "5"],
        &["--count", "5"],
    ] {
        let ids = parse_lines(&stdout_of(args));
        assert_eq!(ids.len(), 5);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn zero_count_writes_nothing() {
    scru128(&["-n", "0"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
}

#[test]
fn large_count_streams_in_order() {
    // Above the size from which generation runs on its own thread.
    let out = stdout_of(&["-n", "100000"]);
    let ids = parse_lines(&out);
    assert_eq!(ids.len(), 100_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn every_format() {
    let check = |format: &str, len: usize, parse: &dyn Fn(&str) -> u128| {
        let out = stdout_of(&["-n", "20000", "--format", format]);
        let values: Vec<u128> = out
            .lines()
            .map(|line| {
                if len > 0 {
                    assert_eq!(line.len(), len, "{format}: {line}");
                }
                parse(line)
            })
            .collect();
        assert_eq!(values.len(), 20_000);
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{format}");
    };
    check("canonical", 26, &|l| {
        assert!(
            l.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        );
        l.parse::<Scru128Id>().unwrap().to_u128()
    });
    check("lower", 26, &|l| {
        assert!(
            l.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        );
        l.parse::<Scru128Id>().unwrap().to_u128()
    });
    check("hex", 32, &|l| {
        assert!(
            l.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        u128::from_str_radix(l, 16).unwrap()
    });
    check("uuid", 36, &|l| {
        let groups: Vec<usize> = l.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12]);
        u128::from_str_radix(&l.replace('-', ""), 16).unwrap()
    });
    check("int", 0, &|l| l.parse::<u128>().unwrap());
}

#[test]
fn formats_are_the_same_bits() {
    let at = ["--at", "2024-05-01T12:00:00Z", "-n", "1"];
    // Different runs give different IDs, so compare the timestamp bits only.
    let ts = |format: &str| {
        let out = stdout_of(&[&at[..], &["--format", format]].concat());
        let line = out.trim_end().replace('-', "");
        let value = match format {
            "int" => line.parse::<u128>().unwrap(),
            "hex" | "uuid" => u128::from_str_radix(&line, 16).unwrap(),
            _ => line.parse::<Scru128Id>().unwrap().to_u128(),
        };
        (value >> 84) as u64 + TIMESTAMP_BIAS
    };
    for format in ["canonical", "lower", "hex", "uuid", "int"] {
        assert_eq!(ts(format), 1_714_564_800_000, "{format}");
    }
}

#[test]
fn at_fixes_the_timestamp_and_counts_up() {
    for at in [
        "2024-05-01T12:00:00Z",
        "2024-05-01T14:00:00+02:00",
        "1714564800000",
    ] {
        let ids = parse_lines(&stdout_of(&["-n", "50", "--at", at]));
        assert_eq!(ids.len(), 50);
        for pair in ids.windows(2) {
            assert_eq!(pair[0].unix_ts_ms(), 1_714_564_800_000, "{at}");
            assert_eq!(pair[1].unix_ts_ms(), 1_714_564_800_000, "{at}");
            assert_eq!(pair[1].counter(), pair[0].counter() + 1);
            assert_eq!(pair[1].per_sec_random(), pair[0].per_sec_random());
        }
    }
    // Also on the threaded path.
    let ids = parse_lines(&stdout_of(&[
        "-n",
        "40000",
        "--at",
        "2021-01-01T00:00:00.5Z",
    ]));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert!(ids.iter().all(|id| id.unix_ts_ms() == 1_609_459_200_500));
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["-n", "-1"][..],
        &["-n", "abc"],
        &["-n", "1.5"],
        &["-n", "99999999999999999999999"],
        &["-n"],
        &["--format", "base64"],
        &["--at", "1960-01-01T00:00:00Z"],
        &["--at", "2020-01-01T00:00:00Z"],
        &["--at", "2600-01-01T00:00:00Z"],
        &["--at", "yesterday"],
        &["--at", "2024-02-30T00:00:00Z"],
        &["--at", "2024-05-01T12:00:00"],
        &["--at", "0"],
        &["--bogus"],
        &["frobnicate"],
        &["-n", "2", "inspect"],
    ] {
        scru128(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains("error:"))
            .stderr(contains("panicked").not());
    }
    scru128(&["--at", "1960-01-01T00:00:00Z"])
        .assert()
        .code(2)
        .stderr(contains("outside the times IDs can be generated at"));
    scru128(&["-n", "-1"])
        .assert()
        .code(2)
        .stderr(contains("whole number"));
}

/// Exit status 1, as `generate --help` says, when the clock is outside the SCRU128
/// time range: the clock set to 2019 with libfaketime (`SCRU128_FAKETIME`, as
/// `scripts/test` sets it).
#[cfg(target_os = "linux")]
#[test]
fn a_clock_outside_the_range_is_one_line_and_status_one() {
    // SCRU128_FAKETIME, or Debian's libfaketime where it is installed.
    let lib = std::env::var_os("SCRU128_FAKETIME").or_else(|| {
        std::fs::read_dir("/usr/lib")
            .ok()?
            .filter_map(Result::ok)
            .map(|dir| dir.path().join("faketime/libfaketime.so.1"))
            .find(|lib| lib.is_file())
            .map(std::path::PathBuf::into_os_string)
    });
    let Some(lib) = lib else {
        common::skip(
            "a_clock_outside_the_range_is_one_line_and_status_one",
            "libfaketime is not installed (Debian: apt-get install libfaketime; or set \
             SCRU128_FAKETIME to its libfaketime.so.1), or run scripts/test",
        );
        return;
    };
    for args in [&["-n", "3"][..], &["-n", "100000", "--format", "uuid"]] {
        let out = common::std_scru128(args)
            .env("LD_PRELOAD", &lib)
            .env("FAKETIME", "@2019-06-01 00:00:00")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.starts_with("scru128 generate: error: cannot generate: clock reads unix time ")
                && err.contains("outside the range SCRU128 can generate"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
