//! `scru128 check`: passes on the library's output, fails on broken streams.

mod common;

use std::process::Stdio;

use common::{join, scru128, simulated_stream, std_scru128, xorshift};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::{Scru128Id, TIMESTAMP_BIAS};

/// Runs `check` with `args` on `stdin`; returns (exit code, stdout, stderr).
fn check(args: &[&str], stdin: impl Into<Vec<u8>>) -> (i32, String, String) {
    let assert = scru128(&[&["check"], args].concat())
        .write_stdin(stdin)
        .assert();
    let out = assert.get_output();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The table row of `name`.
fn row<'a>(table: &'a str, name: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
}

#[test]
fn generate_piped_into_check_passes() {
    let mut generate = std_scru128(&["-n", "300000"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let ids = generate.stdout.take().unwrap();
    let out = std_scru128(&["check"]).stdin(ids).output().unwrap();
    assert!(generate.wait().unwrap().success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    assert!(
        table.ends_with("result: pass (300000 IDs, 0 violations)\n"),
        "{table}"
    );
    assert!(row(&table, "balance: per_gen_random bits").contains("pass"));
    assert!(row(&table, "timestamp near clock").contains("pass"));
}

#[test]
fn long_simulated_stream_passes_every_check() {
    // 30 000 timestamps 100 ms apart: ~3000 renewals, so every balance is judged.
    let lines = simulated_stream(300_000, 10, 100, xorshift(7));
    let (code, table, err) = check(&["--no-clock"], join(&lines));
    assert_eq!(code, 0, "{table}\n{err}");
    for name in [
        "counter +1 within a timestamp",
        "per_sec_random renewal",
        "balance: per_gen_random bits",
        "balance: counter bits at new timestamp",
        "balance: per_sec_random bits at renewal",
    ] {
        assert!(row(&table, name).contains(" pass"), "{name}: {table}");
    }
    assert!(row(&table, "timestamp near clock").contains("skipped"));
    // The same stream in hex and UUID form (lowercase, so text order holds).
    let hex: Vec<String> = lines
        .iter()
        .map(|l| format!("{:032x}", l.parse::<Scru128Id>().unwrap().to_u128()))
        .collect();
    assert_eq!(check(&["--no-clock"], join(&hex)).0, 0);
}

#[test]
fn old_streams_need_no_clock() {
    let lines = simulated_stream(1000, 10, 1, xorshift(3));
    let (code, table, err) = check(&[], join(&lines));
    assert_eq!(code, 1);
    assert!(row(&table, "timestamp near clock").contains("FAIL (1000 violations)"));
    assert!(
        err.starts_with(
            "scru128 check: line 1: timestamp near clock: timestamp 2024-05-01T00:00:00"
        )
    );
    assert!(err.contains("--no-clock for saved streams"));
    assert_eq!(check(&["--no-clock"], join(&lines)).0, 0);
    assert_eq!(check(&["--max-skew", "100000000000000"], join(&lines)).0, 0);
    scru128(&["check", "--no-clock", "--max-skew", "5"])
        .assert()
        .code(2);
}

#[test]
fn swapped_lines_fail() {
    let mut lines = simulated_stream(500, 50, 1, xorshift(11));
    lines.swap(100, 101);
    let (code, table, err) = check(&["--no-clock"], join(&lines));
    assert_eq!(code, 1);
    assert!(
        row(&table, "order as integer").contains("FAIL (1 violation)"),
        "{table}"
    );
    assert!(row(&table, "order as text").contains("FAIL (1 violation)"));
    assert!(err.contains(&format!(
        "line 102: order as integer: \"{}\" is smaller than \"{}\" of line 101",
        lines[101], lines[100]
    )));
    assert!(table.ends_with("violations)\n") && table.contains("result: FAIL"));
}

#[test]
fn skipped_counter_fails() {
    let mut lines = simulated_stream(500, 50, 1, xorshift(12));
    lines.remove(120);
    let (code, table, err) = check(&["--no-clock"], join(&lines));
    assert_eq!(code, 1);
    assert!(
        row(&table, "counter +1 within a timestamp").contains("FAIL (1 violation)"),
        "{table}"
    );
    assert!(row(&table, "order as integer").contains("pass"));
    assert!(
        err.contains("line 121: counter +1 within a timestamp: counter "),
        "{err}"
    );
}

#[test]
fn duplicated_line_fails() {
    let mut lines = simulated_stream(500, 50, 1, xorshift(13));
    lines.insert(201, lines[200].clone());
    let (code, _, err) = check(&["--no-clock"], join(&lines));
    assert_eq!(code, 1);
    assert!(err.contains(&format!(
        "line 202: order as integer: \"{}\" repeats the ID of line 201",
        lines[200]
    )));
}

#[test]
fn stuck_random_bit_fails_balance() {
    let mut rng = xorshift(5);
    let lines = simulated_stream(300_000, 10, 100, move || rng() | 1 << 5);
    let (code, table, err) = check(&["--no-clock"], join(&lines));
    assert_eq!(code, 1);
    for name in [
        "balance: per_gen_random bits",
        "balance: counter bits at new timestamp",
        "balance: per_sec_random bits at renewal",
    ] {
        assert!(row(&table, name).contains("FAIL (1 violation)"), "{table}");
    }
    assert!(err.contains("bit 5 (from the least significant) is one in 300000 of 300000 samples"));
    assert!(row(&table, "order as integer").contains("pass"));
}

/// Canonical text of an ID at `ms` after 2024-05-01 with the given fields.
fn at(ms: u64, counter: u32, per_sec: u32, per_gen: u32) -> String {
    let ts = 1_714_521_600_000 - TIMESTAMP_BIAS + ms;
    Scru128Id::from_fields(ts, counter, per_sec, per_gen).to_string()
}

#[test]
fn renewal_rules() {
    // Renewed after 500 ms.
    let early = [at(0, 1, 7, 1), at(10, 9, 8, 2), at(510, 3, 9, 3)];
    let (code, _, err) = check(&["--no-clock"], join(&early));
    assert_eq!(code, 1);
    assert!(err.contains(
        "line 3: per_sec_random renewal: per_sec_random renewed 500 ms after its change at line 2"
    ));
    // Changed at an unchanged timestamp.
    let same_ts = [at(0, 1, 7, 1), at(0, 2, 8, 2)];
    let (code, _, err) = check(&["--no-clock"], join(&same_ts));
    assert_eq!(code, 1);
    assert!(err.contains("changed at the timestamp of line 1"));
    // Never renewed over 3 s.
    let stale: Vec<String> = (0..30).map(|i| at(i * 100, 5, 7, i as u32)).collect();
    let (code, _, err) = check(&["--no-clock"], join(&stale));
    assert_eq!(code, 1);
    assert!(err.contains(
        "line 21: per_sec_random renewal: per_sec_random unchanged for 2000 ms since line 1"
    ));
    // Renewed at 1000 ms and later: fine.
    let fine = [
        at(0, 1, 7, 1),
        at(1000, 9, 8, 2),
        at(2000, 3, 9, 3),
        at(3500, 4, 10, 4),
    ];
    assert_eq!(check(&["--no-clock"], join(&fine)).0, 0);
}

#[test]
fn reserved_timestamp_fails() {
    let (code, table, _) = check(&["--no-clock"], "00000000000000000000000000\n");
    assert_eq!(code, 1);
    assert!(row(&table, "timestamp not reserved").contains("FAIL"));
}

#[test]
fn bad_lines_are_violations() {
    let lines = simulated_stream(10, 5, 1, xorshift(9));
    let stdin = format!(
        "{}\n\nnope\n\u{ff}\n{}\n",
        lines[..5].join("\n"),
        lines[5..].join("\n")
    );
    let (code, table, err) = check(&["--no-clock"], stdin);
    assert_eq!(code, 1);
    assert!(
        row(&table, "parse").contains("FAIL (3 violations)"),
        "{table}"
    );
    assert!(err.contains(
        "scru128 check: line 6: parse: \"\": invalid length: expected 26 characters, found 0"
    ));
    assert!(err.contains("line 7: parse: \"nope\""));
    assert!(row(&table, "order as integer").contains("pass"));
    assert!(table.contains("result: FAIL (10 IDs, 3 violations)"));
}

#[test]
fn show_limits_the_quotes() {
    let line = at(0, 1, 1, 1);
    let stdin = join(&vec![line; 100]);
    let (code, table, err) = check(&["--no-clock"], stdin.clone());
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 10);
    assert!(
        table.contains("220 violations not quoted (see --show)"),
        "{table}"
    );
    let (_, _, err) = check(&["--no-clock", "--show", "0"], stdin);
    assert_eq!(err, "");
}

#[test]
fn an_input_without_ids_fails_and_says_so() {
    // No line at all (`printf '' | scru128 check`): one line on standard error, no
    // table (its rows would all have checked nothing), status 1.
    for args in [&[][..], &["--no-clock"], &["-", "-"]] {
        let (code, table, err) = check(args, "");
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(err, "scru128 check: no ID was read: the input is empty\n");
        assert_eq!(table, "", "{args:?}");
    }
    // Only bad lines: they are reported, and so is the lack of IDs.
    let (code, table, err) = check(&["--no-clock"], "nope\n\n");
    assert_eq!(code, 1);
    assert!(
        err.ends_with("scru128 check: no ID was read: no line is an ID\n"),
        "{err}"
    );
    assert!(
        table.ends_with("result: FAIL (no ID was read, 2 violations)\n"),
        "{table}"
    );
    // One ID is enough, and is counted in the singular.
    let (code, table, _) = check(&["--no-clock"], "00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n");
    assert_eq!(code, 0);
    assert!(
        table.ends_with("result: pass (1 ID, 0 violations)\n"),
        "{table}"
    );
}

#[test]
fn binary_and_huge_input() {
    let (code, _, err) = check(&[], vec![b'\xff'; 10 << 20]);
    assert_eq!(code, 1);
    assert!(err.contains("line 1: parse: \"\\xff\\xff"));
    assert!(
        err.contains("... (more than 4096 characters): line too long: more than 4096 characters")
    );
    let (code, _, err) = check(&[], b"\x00\x01\x02\n\xc3(\n".to_vec());
    assert_eq!(code, 1);
    assert!(err.contains("line 1: parse: \"\\0\\u{1}\\u{2}\""));
    assert!(err.contains("line 2: parse: \"\\xc3(\""));
}

#[test]
fn help_has_examples() {
    scru128(&["check", "--help"]).assert().success().stdout(
        contains("Examples:")
            .and(contains("--no-clock"))
            .and(contains("Hoeffding")),
    );
}
