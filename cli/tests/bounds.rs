//! `scru128 bounds`.

mod common;

use common::{scru128, stdout_of};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::Scru128Id;

/// The two lines the library gives for FROM and TO in Unix ms.
fn expected(from: u64, to: u64) -> String {
    let lo = Scru128Id::try_min_at_unix_ts_ms(from).unwrap();
    let hi = Scru128Id::try_max_at_unix_ts_ms(to).unwrap();
    format!("{lo}\n{hi}\n")
}

#[test]
fn from_alone_is_one_millisecond() {
    let out = stdout_of(&["bounds", "2024-05-01T00:00:00Z"]);
    assert_eq!(out, expected(1_714_521_600_000, 1_714_521_600_000));
    assert_eq!(
        out,
        "01VKOCH0000000000000000000\n01VKOCH00FVVVVVVVVVVVVVVVV\n"
    );
}

#[test]
fn from_and_to_in_any_notation() {
    let want = expected(1_714_521_600_000, 1_714_607_999_999);
    for args in [
        ["bounds", "2024-05-01T00:00:00Z", "2024-05-01T23:59:59.999Z"],
        [
            "bounds",
            "2024-05-01T02:00:00+02:00",
            "2024-05-01T23:59:59.999999z",
        ],
        ["bounds", "1714521600000", "1714607999999"],
        ["bounds", "2024-05-01 00:00:00Z", "1714607999999"],
    ] {
        assert_eq!(stdout_of(&args), want, "{args:?}");
    }
}

#[test]
fn ids_of_the_span_fall_between() {
    let out = stdout_of(&["bounds", "2021-01-01T00:00:00Z", "2021-01-01T00:00:00.999Z"]);
    let lines: Vec<Scru128Id> = out.lines().map(|l| l.parse().unwrap()).collect();
    let ids = stdout_of(&["-n", "1000", "--at", "2021-01-01T00:00:00.500Z"]);
    for id in ids.lines().map(|l| l.parse::<Scru128Id>().unwrap()) {
        assert!(lines[0] <= id && id <= lines[1]);
    }
}

#[test]
fn formats() {
    let args = ["bounds", "1714521600000", "--format"];
    assert_eq!(
        stdout_of(&[&args[..], &["uuid"]].concat()),
        "01fd30c8-8000-0000-0000-000000000000\n01fd30c8-800f-ffff-ffff-ffffffffffff\n"
    );
    assert_eq!(
        stdout_of(&[&args[..], &["hex"]].concat()),
        "01fd30c8800000000000000000000000\n01fd30c8800fffffffffffffffffffff\n"
    );
    assert_eq!(
        stdout_of(&[&args[..], &["lower"]].concat()),
        "01vkoch0000000000000000000\n01vkoch00fvvvvvvvvvvvvvvvv\n"
    );
    let ints = stdout_of(&[&args[..], &["int"]].concat());
    let lo = Scru128Id::try_min_at_unix_ts_ms(1_714_521_600_000)
        .unwrap()
        .to_u128();
    assert!(ints.starts_with(&format!("{lo}\n")));
}

#[test]
fn the_whole_range_is_allowed_as_bounds() {
    assert_eq!(
        stdout_of(&["bounds", "2020-01-01T00:00:00Z", "2577-06-22T06:20:44.415Z"]),
        "00000000000000000000000000\n7VVVVVVVVVVVVVVVVVVVVVVVVV\n"
    );
}

#[test]
fn from_after_to_is_a_usage_error() {
    scru128(&["bounds", "2024-05-02T00:00:00Z", "2024-05-01T00:00:00Z"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "scru128 bounds: error: FROM (2024-05-02T00:00:00.000Z) is after TO \
             (2024-05-01T00:00:00.000Z); give the earlier time first\n",
        );
}

#[test]
fn bad_times_are_usage_errors() {
    for args in [
        &["bounds"][..],
        &["bounds", "1960-01-01T00:00:00Z"],
        &["bounds", "2019-12-31T23:59:59.999Z"],
        &["bounds", "2577-06-22T06:20:44.416Z"],
        &["bounds", "-1"],
        &["bounds", "2016-12-31T23:59:60Z"],
        &["bounds", "2024-05-32"],
        &["bounds", "2577-06-23"],
        &["bounds", "2024-05-01T00:00:00Z", "tomorrow"],
        &["bounds", "1", "2", "3"],
        &["bounds", "2024-05-01T00:00:00Z", "--format", "base32"],
    ] {
        scru128(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains("error:").and(contains("panicked").not()));
    }
    scru128(&["bounds", "1960-01-01T00:00:00Z"])
        .assert()
        .code(2)
        .stderr(contains("outside the SCRU128 time range"));
    scru128(&["bounds", "2016-12-31T23:59:60Z"])
        .assert()
        .code(2)
        .stderr(contains("leap second"));
}

#[test]
fn help_has_examples() {
    scru128(&["bounds", "--help"])
        .assert()
        .success()
        .stdout(contains("Examples:").and(contains("BETWEEN")));
}
