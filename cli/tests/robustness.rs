//! Exit statuses, help and version, a reader that goes away, a full disk.

mod common;

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{scru128, std_scru128};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

/// Waits for `child` for at most 20 s; returns its exit code and standard error.
fn wait_briefly(mut child: Child) -> (Option<i32>, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                stderr.read_to_string(&mut err).unwrap();
            }
            return (status.code(), err);
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("the command did not end after its reader went away");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn help_and_version_exit_zero() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["generate", "--help"],
        &["inspect", "--help"],
        &["bounds", "--help"],
        &["check", "--help"],
    ] {
        scru128(args)
            .assert()
            .success()
            .stdout(contains("Usage: scru128").and(contains("Examples:")))
            .stderr("");
    }
    scru128(&["--help"])
        .assert()
        .stdout(
            contains("generate")
                .and(contains("inspect"))
                .and(contains("bounds"))
                .and(contains("check")),
        )
        .stdout(contains("\nExit status:\n  0  success").and(contains("\n  1  bad data: ")));
    scru128(&["--version"])
        .assert()
        .success()
        .stdout(format!("scru128 {}\n", env!("CARGO_PKG_VERSION")));
    scru128(&["-V"]).assert().success();
}

#[test]
fn usage_errors_exit_two_without_panic() {
    for args in [
        &["--nope"][..],
        &["help", "nonsense"],
        &["inspect", "--pretty=yes"],
        &["check", "--max-skew", "-5"],
    ] {
        scru128(args).assert().code(2).stdout("").stderr(
            contains("error:")
                .and(contains("panicked").not())
                .and(contains("RUST_BACKTRACE").not()),
        );
    }
}

#[test]
fn generate_ends_quietly_when_the_reader_goes_away() {
    // `scru128 -n 100000000 | head -1`
    let mut child = std_scru128(&["-n", "100000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.len(), 27);
    // The reader (and with it the pipe's read end) is dropped here.
    let start = Instant::now();
    let (code, err) = wait_briefly(child);
    assert_eq!(code, Some(0));
    assert_eq!(err, "");
    assert!(start.elapsed() < Duration::from_secs(10));

    // Also with `--at`, and with the read end closed before anything is written.
    let child = std_scru128(&[
        "-n",
        "100000000",
        "--at",
        "2024-05-01T00:00:00Z",
        "--format",
        "int",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut child = child;
    drop(child.stdout.take());
    assert_eq!(wait_briefly(child), (Some(0), String::new()));
}

#[test]
fn inspect_ends_quietly_when_the_reader_goes_away() {
    let ids = std_scru128(&["-n", "200000"]).output().unwrap().stdout;
    let mut child = std_scru128(&["inspect", "--pretty"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    drop(child.stdout.take());
    // The writer may itself see a broken pipe once inspect has ended.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&ids);
    });
    assert_eq!(wait_briefly(child), (Some(0), String::new()));
    writer.join().unwrap();
}

#[test]
fn check_and_bounds_end_quietly_when_the_reader_goes_away() {
    let ids = std_scru128(&["-n", "1000"]).output().unwrap().stdout;
    let mut child = std_scru128(&["check"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.stdin.take().unwrap().write_all(&ids).unwrap();
    // The stream is good, so the status stays 0 although the table is lost.
    assert_eq!(wait_briefly(child), (Some(0), String::new()));

    let mut child = std_scru128(&["bounds", "2024-05-01T00:00:00Z"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(wait_briefly(child), (Some(0), String::new()));
}

/// Runs the binary with standard output on `/dev/full`; returns code and stderr.
fn to_dev_full(args: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    let full = File::options().write(true).open("/dev/full").unwrap();
    let mut child = std_scru128(args)
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    wait_briefly(child)
}

#[cfg(target_os = "linux")]
#[test]
fn full_disk_is_one_line_and_status_one() {
    let message = |cmd: &str| {
        format!(
            "scru128 {cmd}: error: cannot write to standard output: No space left on device (os error 28)\n"
        )
    };
    assert_eq!(
        to_dev_full(&["-n", "1000000"], b""),
        (Some(1), message("generate"))
    );
    assert_eq!(
        to_dev_full(&["-n", "1"], b""),
        (Some(1), message("generate"))
    );
    assert_eq!(
        to_dev_full(&["generate", "-n", "10", "--at", "1714521600000"], b""),
        (Some(1), message("generate"))
    );
    assert_eq!(
        to_dev_full(&["inspect", "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"], b""),
        (Some(1), message("inspect"))
    );
    assert_eq!(
        to_dev_full(&["inspect"], b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n"),
        (Some(1), message("inspect"))
    );
    assert_eq!(
        to_dev_full(&["bounds", "1714521600000"], b""),
        (Some(1), message("bounds"))
    );
    assert_eq!(
        to_dev_full(&["check", "--no-clock"], b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n"),
        (Some(1), message("check"))
    );
    assert_eq!(
        to_dev_full(&["convert"], b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n"),
        (Some(1), message("convert"))
    );
    assert_eq!(
        to_dev_full(&["completions", "bash"], b""),
        (Some(1), message("completions"))
    );
    assert_eq!(to_dev_full(&["man"], b""), (Some(1), message("man")));
}

#[cfg(target_os = "linux")]
#[test]
fn full_stderr_is_no_panic() {
    let full = File::options().write(true).open("/dev/full").unwrap();
    let status = std_scru128(&["inspect", "bad", "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"])
        .stdout(Stdio::null())
        .stderr(full)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let full = File::options().write(true).open("/dev/full").unwrap();
    let status = std_scru128(&["-n", "-1"]).stderr(full).status().unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn closed_stdin_is_empty_input() {
    let out = std_scru128(&["inspect"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        (out.status.code(), out.stdout.len(), out.stderr.len()),
        (Some(0), 0, 0)
    );
}

#[cfg(unix)]
#[test]
fn unreadable_stdin_is_status_one() {
    // A directory as standard input: read() fails with EISDIR.
    let dir = File::open("/").unwrap();
    let out = std_scru128(&["inspect"]).stdin(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("scru128 inspect: error: cannot read standard input: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

/// The exit statuses that `args --help` documents, in order.
fn documented_statuses(args: &[&str]) -> Vec<i32> {
    let help = common::stdout_of(args);
    let section = help
        .split("\nExit status:\n")
        .nth(1)
        .expect("an Exit status section");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_once("  "))
        .filter_map(|(code, _)| code.parse().ok())
        .collect()
}

/// How a case runs: standard input, and whether standard output is a full disk.
enum Run {
    Stdin(&'static str),
    FullDisk,
}

/// One run of the binary per documented exit status of each page: the help of each
/// command lists exactly the statuses that the command ends with, and the code gives
/// each of them. (Exit status 1 of generate for a clock outside the range is in
/// tests/generate.rs, and for the timestamps after --at used up in
/// tests/hostile_input.rs.)
#[cfg(target_os = "linux")]
#[test]
fn every_documented_exit_status_is_the_one_the_code_gives() {
    use Run::{FullDisk, Stdin};
    const ID: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    let fresh = common::stdout_of(&["-n", "3"]);
    let fresh: &'static str = Box::leak(fresh.into_boxed_str());
    type Case = (&'static [&'static str], Run, i32);
    let pages: Vec<(&str, Vec<Case>)> = vec![
        (
            "",
            vec![
                (&["-n", "1"], Stdin(""), 0),
                (&["inspect", "nope"], Stdin(""), 1),
                (&["-n", "1"], FullDisk, 1),
                (&["--bogus"], Stdin(""), 2),
            ],
        ),
        (
            "generate",
            vec![
                (&["generate", "-n", "2"], Stdin(""), 0),
                (&["generate", "-n", "2"], FullDisk, 1),
                (&["generate", "-n", "x"], Stdin(""), 2),
                (&["generate", "--at", "2577-06-23"], Stdin(""), 2),
            ],
        ),
        (
            "inspect",
            vec![
                (&["inspect", ID], Stdin(""), 0),
                (&["inspect", "12345678901234567890123456"], Stdin(""), 0),
                (&["inspect", "nope", ID], Stdin(""), 1),
                (&["inspect"], Stdin("nope\n"), 1),
                (&["inspect", ID], FullDisk, 1),
                (&["inspect", "--from", "base64"], Stdin(""), 2),
            ],
        ),
        (
            "convert",
            vec![
                (&["convert", "-"], Stdin("00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n"), 0),
                (&["convert", "-", "nope"], Stdin(""), 1),
                (&["convert", ID], FullDisk, 1),
                (&["convert", "--bogus"], Stdin(""), 2),
            ],
        ),
        (
            "bounds",
            vec![
                (&["bounds", "2577-06-22"], Stdin(""), 0),
                (&["bounds", "2024-05-01"], FullDisk, 1),
                (&["bounds", "2577-06-23"], Stdin(""), 2),
                (&["bounds", "2024-05-02", "2024-05-01"], Stdin(""), 2),
            ],
        ),
        (
            "check",
            vec![
                (&["check"], Stdin(fresh), 0),
                (&["check"], Stdin(""), 1),
                (&["check", "-"], Stdin("nope\n"), 1),
                (&["check"], FullDisk, 1),
                (&["check", "/nonexistent/ids.txt"], Stdin(""), 2),
            ],
        ),
        (
            "completions",
            vec![
                (&["completions", "fish"], Stdin(""), 0),
                (&["completions", "fish"], FullDisk, 1),
                (&["completions", "tcsh"], Stdin(""), 2),
            ],
        ),
        (
            "man",
            vec![
                (&["man", "check"], Stdin(""), 0),
                (&["man"], FullDisk, 1),
                (&["man", "help"], Stdin(""), 2),
            ],
        ),
    ];
    for (command, cases) in &pages {
        let help: Vec<&str> = [*command]
            .into_iter()
            .filter(|c| !c.is_empty())
            .chain(["--help"])
            .collect();
        let mut given: Vec<i32> = cases.iter().map(|(_, _, code)| *code).collect();
        given.dedup();
        assert_eq!(documented_statuses(&help), given, "{command}");
        for (args, run, code) in cases {
            let (got, err) = match run {
                FullDisk => to_dev_full(args, fresh.as_bytes()),
                Stdin(input) => {
                    let out = scru128(args)
                        .write_stdin(*input)
                        .assert()
                        .get_output()
                        .clone();
                    (
                        out.status.code(),
                        String::from_utf8_lossy(&out.stderr).into_owned(),
                    )
                }
            };
            assert_eq!(got, Some(*code), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}
