//! `scru128 convert`: every form read, every form written, streamed; bad inputs
//! reported as in `inspect`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::{scru128, std_scru128, stdout_of, stdout_with};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::Scru128Id;

const X: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;

/// The five forms of `X`, in the order of `FORMATS`.
fn forms_of_x() -> [String; 5] {
    [
        "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".into(),
        "00pghaj3q9vaj7iu6pqbhbuak4".into(),
        "00cc22a98f49faa67978d9d2e2bf2a84".into(),
        "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84".into(),
        X.to_string(),
    ]
}

const FORMATS: [&str; 5] = ["canonical", "lower", "hex", "uuid", "int"];

#[test]
fn every_form_in_every_format_out() {
    let forms = forms_of_x();
    let inputs: Vec<String> = forms
        .iter()
        .flat_map(|f| [f.clone(), f.to_uppercase()])
        .collect();
    for (format, expected) in FORMATS.iter().zip(&forms) {
        let args: Vec<&str> = ["convert", "--format", format]
            .into_iter()
            .chain(inputs.iter().map(String::as_str))
            .collect();
        let want = format!("{expected}\n").repeat(inputs.len());
        scru128(&args)
            .assert()
            .success()
            .stdout(want.clone())
            .stderr("");
        // The same lines from standard input.
        scru128(&["convert", "--format", format])
            .write_stdin(inputs.join("\n") + "\n")
            .assert()
            .success()
            .stdout(want)
            .stderr("");
    }
}

#[test]
fn the_default_is_canonical() {
    scru128(&["convert", "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84"])
        .assert()
        .success()
        .stdout("00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n");
}

#[test]
fn generated_ids_survive_every_round_trip_through_pipes() {
    let canonical = stdout_of(&["-n", "3000"]);
    for format in FORMATS {
        let converted = stdout_with(&["convert", "--format", format], canonical.clone());
        let back = stdout_with(&["convert"], converted);
        assert_eq!(back, canonical, "{format}");
    }
}

#[test]
fn generate_int_into_convert_and_inspect() {
    // `scru128 -n 1 --format int | scru128 inspect`, and the same through convert.
    let int = stdout_of(&["-n", "5", "--format", "int"]);
    let ids: Vec<Scru128Id> = int
        .lines()
        .map(|l| Scru128Id::from_u128(l.parse().unwrap()))
        .collect();
    let expected: String = ids.iter().map(|id| format!("{id}\n")).collect();
    assert_eq!(stdout_with(&["convert"], int.clone()), expected);
    let json = stdout_with(&["inspect"], int.clone());
    for ((line, id), input) in json.lines().zip(&ids).zip(int.lines()) {
        assert!(line.starts_with(&format!("{{\"input\":\"{input}\",\"canonical\":\"{id}\"")));
    }
    // check reads the decimal form too.
    let stream = stdout_of(&["-n", "2000", "--format", "int"]);
    scru128(&["check"])
        .write_stdin(stream)
        .assert()
        .success()
        .stdout(contains("result: pass (2000 IDs, 0 violations)"));
}

#[test]
fn bad_lines_are_reported_and_the_rest_converted() {
    let stdin = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n\
                 not an id\n\
                 \n\
                 00cc22a98f49faa67978d9d2e2bf2a8g\n\
                 340282366920938463463374607431768211456\n\
                 00cc22a9-8f49-faa6-7978-d9d2e2bf2a84\r\n\
                 00cc22a9_8f49-faa6-7978-d9d2e2bf2a84\n";
    let assert = scru128(&["convert", "--format", "hex"])
        .write_stdin(stdin)
        .assert()
        .code(1);
    let out = assert.get_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "00cc22a98f49faa67978d9d2e2bf2a84\n00cc22a98f49faa67978d9d2e2bf2a84\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "scru128 convert: line 2: \"not an id\": invalid length: expected 26 characters, \
             found 9 (32 hex digits, the 36-character UUID form and decimal integers are also \
             accepted)",
            "scru128 convert: line 4: \"00cc22a98f49faa67978d9d2e2bf2a8g\": invalid hex digit \
             'g' at position 31: expected 0-9 or a-f in either case",
            "scru128 convert: line 5: \"340282366920938463463374607431768211456\": decimal \
             integer out of range: above 2^128-1 (340282366920938463463374607431768211455)",
            "scru128 convert: line 7: \"00cc22a9_8f49-faa6-7978-d9d2e2bf2a84\": invalid \
             character '_' at position 8: expected '-' (UUID form 8-4-4-4-12)",
        ]
    );
}

#[test]
fn bad_arguments_are_reported_by_position() {
    scru128(&[
        "convert",
        "--format",
        "uuid",
        "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
        "",
        "é",
    ])
    .assert()
    .code(1)
    .stdout("00cc22a9-8f49-faa6-7978-d9d2e2bf2a84\n")
    .stderr(
        "scru128 convert: argument 2: \"\": invalid length: expected 26 characters, found 0 \
             (32 hex digits, the 36-character UUID form and decimal integers are also accepted)\n\
             scru128 convert: argument 3: \"é\": invalid length: expected 26 characters, found 1 \
             (32 hex digits, the 36-character UUID form and decimal integers are also accepted)\n",
    );
}

#[test]
fn from_reads_one_form_only() {
    // 32 decimal digits are the hex form unless --from int says otherwise.
    let digits = "12345678901234567890123456789012";
    let as_hex = Scru128Id::from_u128(u128::from_str_radix(digits, 16).unwrap());
    let as_int = Scru128Id::from_u128(digits.parse().unwrap());
    assert_eq!(stdout_of(&["convert", digits]), format!("{as_hex}\n"));
    assert_eq!(
        stdout_of(&["convert", "--from", "int", digits]),
        format!("{as_int}\n")
    );
    assert_eq!(
        stdout_of(&["convert", "--from", "HEX", digits]),
        format!("{as_hex}\n")
    );
    // Another form is refused with that form's own rule.
    scru128(&[
        "convert",
        "--from",
        "uuid",
        "00cc22a98f49faa67978d9d2e2bf2a84",
    ])
    .assert()
    .code(1)
    .stdout("")
    .stderr(contains(
        "invalid length: expected 36 characters (UUID form 8-4-4-4-12), found 32",
    ));
    scru128(&["convert", "--from", "int", "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"])
        .assert()
        .code(1)
        .stderr(contains(
            "invalid decimal digit 'P' at position 2: expected 0-9",
        ));
    scru128(&["convert", "--from", "lower", "00pghaj3q9vaj7iu6pqbhbuak4"])
        .assert()
        .success()
        .stdout("00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n");
    scru128(&["convert", "--from", "base64", "x"])
        .assert()
        .code(2)
        .stderr(contains(
            "scru128 convert: error: invalid value 'base64' for '--from <FORM>'",
        ));
}

#[test]
fn digits_alone_of_canonical_or_hex_length_are_read_so_with_a_warning() {
    let d26 = "12345678901234567890123456";
    let d32 = "12345678901234567890123456789012";
    let warning = |place: &str, text: &str, form: &str, digits: u32| {
        format!(
            "scru128 convert: {place}: \"{text}\": warning: read as {form}, though {digits} \
             digits alone are also a decimal integer (of another ID); give --from {form} or \
             --from int to choose (later such inputs are not reported)\n"
        )
    };
    let canonical: Scru128Id = d26.parse().unwrap();
    let as_int = Scru128Id::from_u128(d26.parse().unwrap());
    assert_ne!(canonical, as_int);
    // Read as canonical, as the length says, but not silently; the status stays 0.
    scru128(&["convert", d26])
        .assert()
        .success()
        .stdout(format!("{canonical}\n"))
        .stderr(warning("argument 1", d26, "canonical", 26));
    // Once per run: the first such input only, whichever form.
    scru128(&["convert", "--format", "int"])
        .write_stdin(format!("00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n{d32}\n{d26}\n{d26}\n"))
        .assert()
        .success()
        .stdout(format!(
            "{X}\n{}\n{}\n{}\n",
            u128::from_str_radix(d32, 16).unwrap(),
            canonical.to_u128(),
            canonical.to_u128()
        ))
        .stderr(warning("line 2", d32, "hex", 32));
    // A named form is no warning, and --from int reads the integer.
    scru128(&["convert", "--from", "canonical", d26])
        .assert()
        .success()
        .stdout(format!("{canonical}\n"))
        .stderr("");
    scru128(&["convert", "--from", "int", d26])
        .assert()
        .success()
        .stdout(format!("{as_int}\n"))
        .stderr("");
    // Digits that read the same either way (zeros and one digit) need no warning.
    scru128(&[
        "convert",
        "00000000000000000000000000",
        "00000000000000000000000007",
    ])
    .assert()
    .success()
    .stderr("");
    // inspect and check say the same.
    scru128(&["inspect", d26])
        .assert()
        .success()
        .stdout(contains(format!("\"canonical\":\"{canonical}\"")))
        .stderr(warning("argument 1", d26, "canonical", 26).replace("convert", "inspect"));
    scru128(&["check", "--no-clock"])
        .write_stdin(format!("{d26}\n"))
        .assert()
        .success()
        .stderr(warning("line 1", d26, "canonical", 26).replace("convert", "check"));
}

#[test]
fn output_is_streamed_line_by_line() {
    // Each converted line comes out before the next input line is written.
    let mut child = std_scru128(&["convert", "--format", "uuid"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    for _ in 0..3 {
        stdin.write_all(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n").unwrap();
        stdin.flush().unwrap();
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("no output before the next input");
        assert_eq!(line, "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn help_has_examples() {
    scru128(&["convert", "--help"])
        .assert()
        .success()
        .stdout(contains("Examples:").and(contains("--from int")));
}
