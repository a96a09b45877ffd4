//! Conventions shared by every command: `help [COMMAND]`, values in any case, one
//! style for every usage error, whole numbers, characters in messages, singular and
//! plural; and `check FILE...`.

mod common;

use std::path::PathBuf;

use common::{COMMANDS, join, scru128, simulated_stream, stdout_of, xorshift};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

#[test]
fn help_command_shows_the_help_of_each_command() {
    let main = stdout_of(&["help"]);
    assert_eq!(main, stdout_of(&["--help"]));
    for command in COMMANDS {
        assert!(
            main.contains(&format!("\n  {command} ")),
            "{command}: {main}"
        );
        assert_eq!(
            stdout_of(&["help", command]),
            stdout_of(&[command, "--help"]),
            "{command}"
        );
    }
    scru128(&["help", "nonsense"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "scru128 help: error: unrecognized subcommand 'nonsense' (the commands are \
             generate, inspect, convert, bounds, check, completions, man, help; see \
             'scru128 --help')\n",
        );
}

#[test]
fn help_takes_help_like_every_command() {
    // `scru128 help --help` is the help of `help`, as `scru128 help help`.
    let of_help = stdout_of(&["help", "help"]);
    assert!(
        of_help.contains("Usage: scru128 help [COMMAND]"),
        "{of_help}"
    );
    for flag in ["--help", "-h"] {
        scru128(&["help", flag])
            .assert()
            .success()
            .stdout(of_help.clone())
            .stderr("");
        // After a command's name, the help of that command.
        for command in COMMANDS {
            assert_eq!(
                stdout_of(&["help", command, flag]),
                stdout_of(&[command, "--help"]),
                "help {command} {flag}"
            );
        }
    }
}

#[test]
fn a_mistyped_command_or_option_gets_a_suggestion() {
    // Suggested, not run: no prefix of a command is taken for the command.
    for (args, expected) in [
        (
            &["gen"][..],
            "scru128: error: unrecognized subcommand 'gen' (tip: a similar subcommand \
             exists: 'generate')",
        ),
        (
            &["inspekt"],
            "scru128: error: unrecognized subcommand 'inspekt' (tip: a similar subcommand \
             exists: 'inspect')",
        ),
        (
            &["inspect", "--prety"],
            "scru128 inspect: error: unexpected argument '--prety' found (tip: a similar \
             argument exists: '--pretty')",
        ),
        (
            &["--format", "uid"],
            "scru128: error: invalid value 'uid' for '--format <FORMAT>' [possible values: \
             canonical, lower, hex, uuid, int] (tip: a similar value exists: 'uuid')",
        ),
    ] {
        let (code, err) = usage_error(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err, format!("{expected}\n"), "{args:?}");
    }
}

#[test]
fn a_dash_is_standard_input_for_every_command() {
    let id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    let line = format!("{id}\n");
    // Where it stands among the IDs.
    let first = stdout_of(&["inspect", id]);
    let second = stdout_of(&["inspect", "00PGHAJ3Q9VAJ7IU6PQBHBUAK5"]);
    scru128(&["inspect", id, "-"])
        .write_stdin("00PGHAJ3Q9VAJ7IU6PQBHBUAK5\n")
        .assert()
        .success()
        .stdout(format!("{first}{second}"))
        .stderr("");
    scru128(&["convert", "--format", "int", "1", "-", "3"])
        .write_stdin("2\n\n")
        .assert()
        .success()
        .stdout("1\n2\n3\n")
        .stderr("");
    // Bad lines of standard input are reported by line, arguments by position.
    scru128(&["convert", "-", "nope"])
        .write_stdin(format!("{id}\nbad\n"))
        .assert()
        .code(1)
        .stdout(line.clone())
        .stderr(
            contains("scru128 convert: line 2: \"bad\": invalid length").and(contains(
                "scru128 convert: argument 2: \"nope\": invalid length",
            )),
        );
    scru128(&["check", "--no-clock", "-"])
        .write_stdin(line.clone())
        .assert()
        .success();
    // Given twice, the second finds standard input at its end (and nothing hangs).
    for command in ["inspect", "convert"] {
        let out = common::std_scru128(&[command, "-", "-"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            (out.status.code(), out.stdout.len()),
            (Some(0), 0),
            "{command}"
        );
    }
    scru128(&["check", "--no-clock", "-", "-"])
        .timeout(std::time::Duration::from_secs(20))
        .write_stdin(line)
        .assert()
        .success()
        .stdout(contains("result: pass (1 ID, 0 violations)"));
}

#[test]
fn values_are_taken_in_any_case() {
    let hex = stdout_of(&["bounds", "2024-05-01", "--format", "hex"]);
    for spelling in ["HEX", "Hex", "hEx"] {
        assert_eq!(
            stdout_of(&["bounds", "2024-05-01", "--format", spelling]),
            hex
        );
    }
    let line = stdout_of(&["-n", "1", "--format", "UUID"]);
    assert_eq!(line.len(), 37);
    assert_eq!(line.matches('-').count(), 4);
    assert_eq!(
        stdout_of(&[
            "convert",
            "--format",
            "Int",
            "--from",
            "CANONICAL",
            "00000000000000000000000001"
        ]),
        "1\n"
    );
    assert!(stdout_of(&["completions", "BASH"]).contains("_scru128()"));
}

/// Runs the tool; returns (status, stderr) and checks that nothing went to stdout.
fn usage_error(args: &[&str]) -> (Option<i32>, String) {
    let out = common::std_scru128(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "{args:?}");
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn every_usage_error_is_one_line_in_one_style() {
    let cases: &[(&[&str], &str)] = &[
        // clap's own errors
        (
            &["--bogus"],
            "scru128: error: unexpected argument '--bogus' found (usage: scru128 [OPTIONS] \
             or scru128 <COMMAND>)",
        ),
        (
            &["--format", "base64"],
            "scru128: error: invalid value 'base64' for '--format <FORMAT>' [possible values: \
             canonical, lower, hex, uuid, int]",
        ),
        (
            &["frobnicate"],
            "scru128: error: unrecognized subcommand 'frobnicate' (the commands are \
             generate, inspect, convert, bounds, check, completions, man, help; see \
             'scru128 --help')",
        ),
        (
            &["bounds"],
            "scru128 bounds: error: the following required arguments were not provided: <FROM> \
             (usage: scru128 bounds <FROM> [TO])",
        ),
        (
            &["inspect", "--from"],
            "scru128 inspect: error: a value is required for '--from <FORM>' but none was supplied \
             [possible values: auto, canonical, hex, uuid, int]",
        ),
        (
            &["check", "--no-clock", "--max-skew", "5"],
            "scru128 check: error: the argument '--no-clock' cannot be used with '--max-skew <MS>' \
             (usage: scru128 check --no-clock [FILE]...)",
        ),
        (
            &["-n", "3", "inspect"],
            "scru128 inspect: error: the subcommand 'inspect' cannot be used with '--count <COUNT>' \
             (usage: scru128 [OPTIONS] or scru128 <COMMAND>)",
        ),
        // the tool's value parsers
        (
            &["generate", "-n", "many"],
            "scru128 generate: error: invalid value 'many' for '--count <COUNT>': expected a \
             whole number from 0 to 18446744073709551615",
        ),
        (
            &["bounds", "yesterday"],
            "scru128 bounds: error: invalid value 'yesterday' for '<FROM>': the year must be 4 \
             digits at position 0; expected now, a date (2024-05-01), RFC 3339 \
             (2024-05-01T12:00:00Z, 2024-05-01T14:00:00.250+02:00) or Unix time in seconds \
             (1714521600s) or milliseconds (1714521600000ms, or the digits alone)",
        ),
        // the tool's own checks after parsing
        (
            &["bounds", "2024-05-02", "2024-05-01"],
            "scru128 bounds: error: FROM (2024-05-02T00:00:00.000Z) is after TO \
             (2024-05-01T23:59:59.999Z); give the earlier time first",
        ),
        (
            &["man", "frobnicate"],
            "scru128 man: error: no command \"frobnicate\"; the commands are generate, inspect, \
             convert, bounds, check, completions, man",
        ),
        (
            &["check", "no-such-file.txt"],
            "scru128 check: error: cannot open \"no-such-file.txt\": No such file or directory \
             (os error 2)",
        ),
    ];
    for (args, expected) in cases {
        let (code, err) = usage_error(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err, format!("{expected}\n"), "{args:?}");
    }
}

#[test]
fn whole_number_options_read_the_same_way() {
    // -n, --max-skew and --show: the same message for a non-number, a negative
    // number and one too large.
    let reason = "expected a whole number from 0 to 18446744073709551615";
    for bad in ["x", "-1", "1.5", "18446744073709551616", ""] {
        for (args, name) in [
            (vec!["-n", bad], "'--count <COUNT>'"),
            (vec!["check", "--max-skew", bad], "'--max-skew <MS>'"),
            (vec!["check", "--show", bad], "'--show <N>'"),
        ] {
            let (code, err) = usage_error(&args);
            assert_eq!(code, Some(2), "{args:?}");
            if bad.is_empty() {
                // An empty value is a value, not a missing one: the same message too.
                assert!(
                    err.contains(&format!("invalid value '' for {name}: {reason}")),
                    "{err}"
                );
            } else {
                assert!(
                    err.ends_with(&format!("for {name}: {reason}\n")),
                    "{args:?}: {err}"
                );
            }
        }
    }
}

#[test]
fn messages_count_characters_not_bytes() {
    // Three characters in six bytes.
    scru128(&["inspect", "ééé"]).assert().code(1).stderr(
        "scru128 inspect: argument 1: \"ééé\": invalid length: expected 26 characters, found 3 \
         (32 hex digits, the 36-character UUID form and decimal integers are also accepted)\n",
    );
    // 26 characters in 27 bytes: the length is right, the character is wrong.
    scru128(&["inspect", "00PGHAJ3Q9VAJ7IU6PQBHBUAKé"])
        .assert()
        .code(1)
        .stderr(contains(
            "invalid digit 'é' at position 25: expected 0-9 or A-V in either case",
        ));
    // A long input is cut after 40 characters, with its length in characters.
    let long = "é".repeat(50);
    scru128(&["convert", &long])
        .assert()
        .code(1)
        .stderr(contains(format!(
            "\"{}\"... (50 characters)",
            "é".repeat(40)
        )));
    // A line of 4096 four-byte characters is read; one more character is too long.
    let line = "😀".repeat(4096);
    scru128(&["inspect"])
        .write_stdin(format!("{line}\n{line}😀\n"))
        .assert()
        .code(1)
        .stderr(contains("line 1: ").and(contains("found 4096 (")))
        .stderr(contains("line 2: "))
        .stderr(contains("line too long: more than 4096 characters"));
}

#[test]
fn singular_and_plural() {
    let one = stdout_of(&["-n", "1"]);
    let out = scru128(&["check"]).write_stdin(one).assert().success();
    let table = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        table.ends_with("result: pass (1 ID, 0 violations)\n"),
        "{table}"
    );
    // One renewal over 1.5 seconds, one violation (a duplicate).
    let mut lines = simulated_stream(1500, 1, 1, xorshift(7));
    lines.push(lines.last().unwrap().clone());
    let out = scru128(&["check", "--no-clock"])
        .write_stdin(join(&lines))
        .assert()
        .code(1);
    let table = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(table.contains("  1 change seen"), "{table}");
    assert!(table.contains("FAIL (1 violation)"), "{table}");
    assert!(
        table.ends_with("result: FAIL (1501 IDs, 2 violations)\n"),
        "{table}"
    );
}

/// A fresh directory under the target dir for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn check_reads_files_in_order_as_one_stream() {
    let dir = scratch("check-files");
    let lines = simulated_stream(3000, 10, 1, xorshift(3));
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&a, join(&lines[..1000])).unwrap();
    std::fs::write(&b, join(&lines[1000..])).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    scru128(&["check", "--no-clock", a, b])
        .assert()
        .success()
        .stdout(contains("result: pass (3000 IDs, 0 violations)"));
    // `-` is standard input, here between the files.
    let c = dir.join("c.txt");
    std::fs::write(&c, join(&lines[2000..])).unwrap();
    scru128(&["check", "--no-clock", a, "-", c.to_str().unwrap()])
        .write_stdin(join(&lines[1000..2000]))
        .assert()
        .success()
        .stdout(contains("result: pass (3000 IDs, 0 violations)"));
    // In the wrong order, the break is reported where it is, in both files.
    let out = scru128(&["check", "--no-clock", "--show", "1", b, a])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.starts_with(&format!(
            "scru128 check: line 1 of {a}: order as text: \"{}\" does not sort after \"{}\" \
             of line 2000 of {b}\n",
            lines[0], lines[2999]
        )),
        "{err}"
    );
    // One file: line numbers alone, as for standard input.
    let out = scru128(&["check", "--no-clock", "--show", "1", a])
        .write_stdin("")
        .assert()
        .success();
    assert!(out.get_output().stderr.is_empty());
    std::fs::write(dir.join("bad.txt"), "nope\n").unwrap();
    scru128(&["check", "--no-clock", dir.join("bad.txt").to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(contains("scru128 check: line 1: parse: \"nope\""));
}

#[test]
fn check_refuses_files_it_cannot_read_before_reading_any() {
    let dir = scratch("check-bad-files");
    let a = dir.join("a.txt");
    std::fs::write(&a, "00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n").unwrap();
    let a = a.to_str().unwrap();
    let missing = dir.join("missing.txt");
    scru128(&["check", a, missing.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "scru128 check: error: cannot open \"{}\": No such file or directory (os error 2)\n",
            missing.display()
        ));
    scru128(&["check", dir.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "scru128 check: error: cannot open \"{}\": is a directory\n",
            dir.display()
        ));
    // An empty file is an input without IDs.
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    scru128(&["check", empty.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("")
        .stderr("scru128 check: no ID was read: the input is empty\n");
}
