//! `scru128 inspect`, compared with the output of the Python `scru128-inspect` 1.0.1
//! kept in `tests/fixtures/` (made with `scru128-inspect < inspect-input.txt`).

mod common;

use common::{BIN, scru128};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::Scru128Id;

const INPUT: &str = include_str!("fixtures/inspect-input.txt");
const PYTHON: &str = include_str!("fixtures/inspect-python-1.0.1.txt");
const INPUT_FAR: &str = include_str!("fixtures/inspect-input-after-2242.txt");
const PYTHON_FAR: &str = include_str!("fixtures/inspect-after-2242-python-1.0.1.txt");

/// Standard output of `inspect` with `args` on `stdin`, which must succeed with
/// nothing on standard error but, for the fixtures, the one warning about digits
/// alone (their edge values in canonical or hex form are digits only).
fn inspect(args: &[&str], stdin: &str) -> String {
    let mut cmd = scru128(&[&["inspect"], args].concat());
    let out = cmd.write_stdin(stdin).assert().success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.is_empty()
            || err.lines().count() == 1
                && err.contains(": warning: read as ")
                && err.contains(" digits alone are also a decimal integer"),
        "{err}"
    );
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The warning for the first of the fixtures' canonical IDs of digits alone (such
/// as `00000000000000200000000000`), which are also decimal integers.
const DIGITS_WARNING: &str = "\"00000000000000200000000000\": warning: read as canonical, though \
     26 digits alone are also a decimal integer (of another ID); give --from canonical \
     or --from int to choose (later such inputs are not reported)\n";

/// The pretty output squeezed to one line per object: whitespace outside strings
/// removed (the values hold none).
fn compact(pretty: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    for ch in pretty.chars() {
        match ch {
            '"' => {
                in_string = !in_string;
                out.push(ch);
            }
            ' ' | '\n' if !in_string => {}
            '}' if !in_string => out.push_str("}\n"),
            _ => out.push(ch),
        }
    }
    out
}

#[test]
fn pretty_is_byte_for_byte_the_python_output() {
    assert_eq!(inspect(&["--pretty"], INPUT), PYTHON);
}

#[test]
fn default_is_the_same_object_on_one_line() {
    let out = inspect(&[], INPUT);
    assert_eq!(out, compact(PYTHON));
    assert_eq!(
        out.lines().count(),
        INPUT.lines().filter(|l| !l.is_empty()).count()
    );
    assert!(
        out.lines()
            .all(|l| l.starts_with("{\"input\":\"") && l.ends_with("\"]}"))
    );
}

#[test]
fn arguments_give_the_same_as_lines() {
    let ids: Vec<&str> = INPUT.lines().filter(|l| !l.is_empty()).collect();
    let mut cmd = scru128(&[&["inspect", "--pretty"], &ids[..]].concat());
    cmd.assert()
        .success()
        .stdout(PYTHON)
        .stderr(format!("scru128 inspect: argument 6: {DIGITS_WARNING}"));
    // Read as the fixture says, they give no warning.
    let mut cmd = scru128(&[&["inspect", "--pretty", "--from", "canonical"], &ids[..]].concat());
    cmd.assert().success().stdout(PYTHON).stderr("");
}

#[test]
fn crlf_and_empty_lines() {
    let crlf = INPUT.replace('\n', "\r\n");
    assert_eq!(inspect(&["--pretty"], &crlf), PYTHON);
    let spaced = format!("\n\n{}\n\r\n", INPUT.replace('\n', "\n\n"));
    assert_eq!(inspect(&["--pretty"], &spaced), PYTHON);
    // Last line without a newline.
    assert_eq!(inspect(&["--pretty"], INPUT.trim_end()), PYTHON);
}

#[test]
fn empty_input_gives_nothing() {
    assert_eq!(inspect(&[], ""), "");
    assert_eq!(inspect(&[], "\n\n"), "");
}

/// Python's `datetime.fromtimestamp(ms / 1000)` loses the exact millisecond for
/// times after about 2242; `inspect` prints the exact time, so it differs there and
/// only there, by +1 ms.
#[test]
fn after_2242_only_python_float_rounding_differs() {
    let ours = inspect(&["--pretty"], INPUT_FAR);
    let ours: Vec<&str> = ours.lines().collect();
    let theirs: Vec<&str> = PYTHON_FAR.lines().collect();
    assert_eq!(ours.len(), theirs.len());
    let mut differing = 0;
    for (a, b) in ours.iter().zip(&theirs) {
        if a == b {
            continue;
        }
        differing += 1;
        assert!(a.starts_with("  \"timestampIso\": \"2"), "{a} vs {b}");
        assert_eq!(a[..38], b[..38], "same up to the seconds' fraction");
        let ms = |l: &str| l[39..42].parse::<u32>().unwrap();
        assert_eq!((ms(b) + 1) % 1000, ms(a), "{a} vs {b}");
    }
    assert!(differing > 0, "the fixture shows the difference");
    // And the exact value is the one of the `timestamp` field.
    let id: Scru128Id = INPUT_FAR.lines().next().unwrap().parse().unwrap();
    let first = inspect(&[], INPUT_FAR.lines().next().unwrap());
    let ms = id.unix_ts_ms() % 1000;
    assert!(first.contains(&format!(".{ms:03}+00:00")), "{first}");
}

#[test]
fn hex_uuid_and_decimal_forms_give_the_same_fields() {
    let ids: Vec<Scru128Id> = INPUT
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.parse().unwrap())
        .collect();
    let hex: Vec<String> = ids
        .iter()
        .map(|id| format!("{:032x}", id.to_u128()))
        .collect();
    let uuid: Vec<String> = hex
        .iter()
        .map(|h| {
            format!(
                "{}-{}-{}-{}-{}",
                &h[..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..]
            )
        })
        .collect();
    let int: Vec<String> = ids.iter().map(|id| id.to_u128().to_string()).collect();
    let without_input = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.contains("\"input\""))
            .map(str::to_owned)
            .collect()
    };
    let expected = without_input(PYTHON);
    // The fixture holds IDs of the first milliseconds of 2020, whose decimal forms
    // have 26 digits and are read as canonical text unless --from int says otherwise.
    for (forms, from) in [(&hex, "auto"), (&uuid, "auto"), (&int, "int")] {
        for upper in [false, true] {
            let lines: Vec<String> = forms
                .iter()
                .map(|f| if upper { f.to_uppercase() } else { f.clone() })
                .collect();
            let out = inspect(&["--pretty", "--from", from], &(lines.join("\n") + "\n"));
            assert_eq!(without_input(&out), expected);
            assert!(out.contains(&format!("\"input\":        \"{}\"", lines[0])));
        }
    }
}

#[test]
fn bad_lines_are_reported_and_the_rest_processed() {
    let good = INPUT.lines().find(|l| !l.is_empty()).unwrap();
    let stdin = format!("{good}\nnot an id\n {good}\n\n{good}\n80000000000000000000000000\n");
    let assert = scru128(&["inspect"]).write_stdin(stdin).assert().code(1);
    let out = assert.get_output();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert_eq!(
        lines[0],
        "scru128 inspect: line 2: \"not an id\": invalid length: expected 26 characters, found 9 \
         (32 hex digits, the 36-character UUID form and decimal integers are also accepted)"
    );
    assert!(
        lines[1].starts_with("scru128 inspect: line 3: \" "),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(
        "found 27 (32 hex digits, the 36-character UUID form and decimal integers are also accepted)"
    ));
    assert_eq!(
        lines[2],
        "scru128 inspect: line 6: \"80000000000000000000000000\": out of range: \
         the first digit is '8', above the largest allowed '7'"
    );
}

#[test]
fn bad_arguments_are_reported_by_position() {
    scru128(&[
        "inspect",
        "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
        "00PGHAJ3Q9-AJ7IU6PQBHBUAK4",
        "",
    ])
    .assert()
    .code(1)
    .stdout(contains("00PGHAJ3Q9VAJ7IU6PQBHBUAK4").count(2))
    .stderr(contains(
        "argument 2: \"00PGHAJ3Q9-AJ7IU6PQBHBUAK4\": invalid digit '-' at position 10",
    ))
    .stderr(contains("argument 3: \"\": invalid length"));
}

#[cfg(unix)]
#[test]
fn non_utf8_argument() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"00PGHAJ3Q9VAJ7IU6PQBHBUA\xff4");
    let mut cmd = assert_cmd::Command::new(BIN);
    cmd.arg("inspect").arg(arg);
    cmd.assert().code(1).stdout("").stderr(
        "scru128 inspect: argument 1: \"00PGHAJ3Q9VAJ7IU6PQBHBUA\\xff4\": \
                 invalid byte 0xff at position 24: expected 0-9 or A-V in either case\n",
    );
}

#[test]
fn non_utf8_and_control_bytes_are_escaped() {
    let stdin = b"\xff\xfe\x1b[31mred\x00\n00pghaj3q9vaj7iu6pqbhbuak\xc3\xa9\n".to_vec();
    scru128(&["inspect"])
        .write_stdin(stdin)
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains(
            "line 1: \"\\xff\\xfe\\u{1b}[31mred\\0\": invalid length",
        ))
        .stderr(contains(
            "line 2: \"00pghaj3q9vaj7iu6pqbhbuak\u{e9}\": invalid digit '\u{e9}' at position 25: \
             expected 0-9 or A-V in either case",
        ));
}

#[test]
fn binary_input_is_reported_not_fatal() {
    // Pseudo-random bytes with NULs and newlines here and there.
    let mut state = 0x9e37_79b9u32;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect();
    let assert = scru128(&["inspect"]).write_stdin(bytes).assert().code(1);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        err.lines().all(|l| l.starts_with("scru128 inspect: line ")),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    // Every line is one message: no raw control bytes leak into the terminal.
    assert!(!err.bytes().any(|b| b < 0x20 && b != b'\n'));
}

#[test]
fn huge_line_without_newline_is_too_long() {
    let mut stdin = vec![b'A'; 10 << 20];
    stdin.extend_from_slice(b"\n00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    let assert = scru128(&["inspect"]).write_stdin(stdin).assert().code(1);
    let out = assert.get_output();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let expected = format!(
        "scru128 inspect: line 1: \"{}\"... (more than 4096 characters): line too long: \
         more than 4096 characters\n",
        "A".repeat(40)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
    // And with no newline at all.
    scru128(&["inspect"])
        .write_stdin(vec![b'7'; 10 << 20])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("line 1: ").and(contains("line too long: more than 4096 characters")));
}

#[test]
fn help_has_examples() {
    scru128(&["inspect", "--help"])
        .assert()
        .success()
        .stdout(contains("Examples:").and(contains("--pretty")));
}
