//! Live comparison with the Python reference `scru128==1.0.1` (same format), which
//! `scripts/test` installs and points to with `SCRU128_PYREF_BIN`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{scru128, stdout_of};

/// Folder of the reference's `scru128` and `scru128-inspect` commands.
fn pyref_bin() -> PathBuf {
    let dir = std::env::var_os("SCRU128_PYREF_BIN")
        .map(PathBuf::from)
        .expect(
            "SCRU128_PYREF_BIN is not set: run the tests with scripts/test, which installs \
         the Python reference scru128==1.0.1",
        );
    assert!(
        dir.join("scru128-inspect").is_file(),
        "no scru128-inspect in {}",
        dir.display()
    );
    dir
}

/// Runs a reference command with `input` on standard input; returns its stdout.
fn run_reference(command: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(pyref_bin().join(command))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("reference starts");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{command} failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "needs the Python reference scru128==1.0.1 (SCRU128_PYREF_BIN): scripts/test installs it and runs these"]
fn inspect_matches_the_reference_on_fresh_ids_byte_for_byte() {
    // Upper- and lowercase input, freshly generated, plus the edge values.
    let mut input = stdout_of(&["-n", "300"]);
    input.push_str(&stdout_of(&["-n", "300", "--format", "lower"]));
    input.push_str("00000000000000000000000000\n7VVVVVVVVVVVVVVVVVVVVVVVVV\n");
    let ours = scru128(&["inspect", "--pretty"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reference = run_reference("scru128-inspect", &[], &input);
    assert_eq!(String::from_utf8(ours).unwrap(), reference);
}

#[test]
#[ignore = "needs the Python reference scru128==1.0.1 (SCRU128_PYREF_BIN): scripts/test installs it and runs these"]
fn check_accepts_the_reference_generators_output() {
    let stream = run_reference("scru128", &["-n", "20000"], "");
    assert_eq!(stream.lines().count(), 20_000);
    scru128(&["check"]).write_stdin(stream).assert().success();
}

#[test]
#[ignore = "needs the Python reference scru128==1.0.1 (SCRU128_PYREF_BIN): scripts/test installs it and runs these"]
fn both_tools_generate_ids_of_the_same_format_and_time() {
    let ours: Vec<scru128::Scru128Id> = common::parse_lines(&stdout_of(&["-n", "3"]));
    let theirs: Vec<scru128::Scru128Id> =
        common::parse_lines(&run_reference("scru128", &["-n", "3"], ""));
    // Made within seconds of each other, so the 44-bit timestamps agree closely.
    let gap = ours[0].timestamp().abs_diff(theirs[0].timestamp());
    assert!(gap < 60_000, "timestamps {gap} ms apart");
}
