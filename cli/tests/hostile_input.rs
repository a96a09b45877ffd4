//! Hostile input to the `scru128` tool, beyond cli/tests/robustness.rs and the
//! per-command tests: 100 MB on one line and 20 MB of random bytes with the peak
//! memory of the process measured (Linux), arguments out of range or not UTF-8,
//! standard streams closed, the counter running out at the last millisecond.
//!
//! Every failure is the documented exit status (1 bad data, 2 bad usage) with one
//! `scru128 [COMMAND]: error: ...` line (clap's usage errors too), never a panic.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use common::{BIN, scru128, std_scru128};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use scru128::{MAX_COUNTER, MAX_TIMESTAMP, Scru128Id};

/// 100 MB.
const BIG: usize = 100_000_000;

/// Asserts a usage error: status 2, nothing on standard output, one line on standard
/// error, `scru128 COMMAND: error: ...` (`scru128: error: ...` when no command is
/// named, for clap's errors and the tool's own alike) that contains `reason`.
fn assert_usage_error(args: &[&str], reason: &str) {
    let out = std_scru128(args).stdin(Stdio::null()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    let prefix = match args.first() {
        Some(&command) if !command.starts_with('-') => format!("scru128 {command}: error: "),
        _ => "scru128: error: ".into(),
    };
    assert!(err.starts_with(&prefix), "{args:?}: {err}");
    assert!(err.contains(reason), "{args:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"));
}

#[test]
fn out_of_range_arguments_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-n", "18446744073709551616"],
            "expected a whole number from 0",
        ),
        (
            &["-n", "-18446744073709551616"],
            "expected a whole number from 0",
        ),
        (&["--at", "18446744073709551615"], "too large"),
        (&["--at", "99999999999999999999999"], "too large"),
        // The reserved first and last milliseconds, and beyond.
        (
            &["--at", "1577836800000"],
            "outside the times IDs can be generated at",
        ),
        (&["--at", "2020-01-01T00:00:00Z"], "outside the times"),
        (&["--at", "2577-06-22T06:20:44.415Z"], "outside the times"),
        (&["--at", "9999-12-31T23:59:59.999Z"], "outside the times"),
        (&["--at", "0000-01-01T00:00:00Z"], "outside the times"),
        (
            &["bounds", "1577836799999"],
            "outside the SCRU128 time range",
        ),
        (
            &["bounds", "2577-06-22T06:20:44.416Z"],
            "outside the SCRU128 time range",
        ),
        (
            &["bounds", "2024-05-01T00:00:00Z", "2600-01-01T00:00:00Z"],
            "outside",
        ),
        // Dates and times that do not exist.
        (&["bounds", "2023-02-29T00:00:00Z"], "day"),
        (&["bounds", "2024-13-01T00:00:00Z"], "month"),
        (&["bounds", "2024-05-01T24:00:00Z"], "hour"),
        (&["bounds", "2024-05-01T12:60:00Z"], "minute"),
        (&["bounds", "2024-05-01T12:00:60Z"], "leap second"),
        (&["bounds", "2024-05-01T12:00:00+24:00"], "offset hour"),
        (&["bounds", "2024-05-01T12:00:00+02:60"], "offset minute"),
        (&["bounds", "2024-05-01T12:00:00.Z"], "digits after '.'"),
        (&["bounds", "2024-05-01T12:00:00Z "], "unexpected text"),
        (&["bounds", ""], "empty time"),
        (
            &["bounds", "2024-05-02T00:00:00Z", "2024-05-01T00:00:00Z"],
            "after TO",
        ),
        (
            &["check", "--max-skew", "18446744073709551616"],
            "expected a whole number from 0",
        ),
        (
            &["check", "--max-skew", "x"],
            "expected a whole number from 0",
        ),
        (
            &["check", "--max-skew", "-1"],
            "expected a whole number from 0",
        ),
        (
            &["check", "--show", "18446744073709551616"],
            "expected a whole number from 0",
        ),
        (
            &["check", "--no-clock", "--max-skew", "5"],
            "cannot be used with",
        ),
        (&["--format", ""], "a value is required"),
    ];
    for (args, reason) in cases {
        assert_usage_error(args, reason);
    }
    // A very long argument is refused the same way.
    let long = "9".repeat(100_000);
    assert_usage_error(&["--at", &long], "too large");
    assert_usage_error(&["-n", &long], "expected a whole number");
}

#[test]
fn the_edges_of_the_ranges_are_accepted() {
    let first = scru128(&["--at", "2020-01-01T00:00:00.001Z", "--format", "hex"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(first).unwrap().starts_with("00000000001"));
    let last = scru128(&["--at", "2577-06-22T06:20:44.414Z"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let id: Scru128Id = String::from_utf8(last).unwrap().trim_end().parse().unwrap();
    assert_eq!(id.timestamp(), MAX_TIMESTAMP - 1);
    scru128(&["bounds", "2020-01-01T00:00:00Z", "2577-06-22T06:20:44.415Z"])
        .assert()
        .success()
        .stdout("00000000000000000000000000\n7VVVVVVVVVVVVVVVVVVVVVVVVV\n");
    // The largest count streams until its reader goes away.
    let mut child = std_scru128(&["-n", "18446744073709551615"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.len(), 27);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8_are_usage_errors() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"2024-05-01T00:00:00\xffZ");
    for args in [
        &["bounds"][..],
        &["--at"],
        &["-n"],
        &["check", "--max-skew"],
    ] {
        let out = std::process::Command::new(BIN)
            .args(args)
            .arg(bad)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("scru128")
                && err.ends_with(": error: invalid UTF-8 was detected in one or more arguments\n")
                && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"));
    }
    // A choice of values names the choices.
    let out = std::process::Command::new(BIN)
        .arg("--format")
        .arg(bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "scru128: error: invalid value '2024-05-01T00:00:00\u{fffd}Z' for '--format"
        )
    );
    assert!(err.contains("[possible values: canonical, lower, hex, uuid, int]"));
}

/// Runs the tool in `sh` with some of its standard streams closed (`>&-` etc.).
#[cfg(unix)]
fn with_closed(redirect: &str, args: &str) -> (Option<i32>, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec '{BIN}' {args} {redirect}"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn closed_standard_streams_are_no_crash() {
    // Closed standard output: the writes go nowhere, the status is still right.
    assert_eq!(with_closed(">&-", "-n 3").0, Some(0));
    assert_eq!(with_closed(">&-", "-n 100000").0, Some(0));
    assert_eq!(with_closed(">&-", "bounds 1714521600000").0, Some(0));
    // Closed standard input: no input (which `check` fails: no ID was read).
    assert_eq!(with_closed("<&-", "inspect"), (Some(0), String::new()));
    assert_eq!(with_closed("<&-", "convert"), (Some(0), String::new()));
    assert_eq!(with_closed("<&-", "check"), (Some(1), String::new()));
    // Closed standard error: the reports go nowhere, the status is still right.
    let (code, out) = with_closed("2>&-", "inspect bad 00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    assert_eq!(code, Some(1));
    assert_eq!(out.lines().count(), 1);
    assert_eq!(with_closed("2>&-", "-n x").0, Some(2));
    // All three.
    assert_eq!(with_closed("<&- >&- 2>&-", "inspect").0, Some(0));
}

#[test]
fn empty_and_blank_input() {
    // inspect skips empty lines (as scru128-inspect does); check counts them as bad.
    scru128(&["inspect"])
        .write_stdin("\n\n\r\n")
        .assert()
        .success()
        .stdout("")
        .stderr("");
    let assert = scru128(&["check"]).write_stdin("\n\n").assert().code(1);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(err.contains("line 1: parse: \"\": invalid length"), "{err}");
    assert!(err.ends_with("no ID was read: no line is an ID\n"), "{err}");
    assert_eq!(err.lines().count(), 3);
    scru128(&["inspect", ""])
        .assert()
        .code(1)
        .stderr(contains("argument 1: \"\": invalid length").and(contains("panicked").not()));
    // A very long argument is quoted short.
    let long = "A".repeat(100_000);
    scru128(&["inspect", &long])
        .assert()
        .code(1)
        .stderr(format!(
            "scru128 inspect: argument 1: \"{}\"... (100000 characters): invalid length: \
             expected 26 characters, found 100000 (32 hex digits, the 36-character UUID form \
             and decimal integers are also accepted)\n",
            "A".repeat(40)
        ));
}

/// What a run under [`peak_memory`] saw.
#[cfg(target_os = "linux")]
struct MemoryRun {
    code: Option<i32>,
    peak_kib: u64,
    stdout_lines: u64,
    stderr_lines: u64,
    stderr_head: Vec<String>,
}

/// Runs the tool with `args`, writes `input` to its standard input and keeps that
/// open until `marker` shows on standard output or standard error (so the input
/// before it has been read and handled), then reads the process's peak resident
/// memory (`VmHWM`) while it is still alive, closes the input and waits.
#[cfg(target_os = "linux")]
fn peak_memory(args: &[&str], input: Vec<u8>, marker: &'static str) -> MemoryRun {
    let mut child = std_scru128(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (seen_tx, seen_rx) = mpsc::channel::<()>();
    let drain = |stream: Box<dyn Read + Send>, seen: mpsc::Sender<()>| {
        thread::spawn(move || {
            let mut reader = BufReader::new(stream);
            let (mut count, mut head) = (0u64, Vec::new());
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                count += 1;
                let text = String::from_utf8_lossy(&line).into_owned();
                if text.contains(marker) {
                    let _ = seen.send(());
                }
                if head.len() < 20 {
                    head.push(text);
                }
                line.clear();
            }
            (count, head)
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()), seen_tx.clone());
    let err = drain(Box::new(child.stderr.take().unwrap()), seen_tx);
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        stdin
    });
    seen_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the marker line never came out");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    drop(writer.join().unwrap());
    let code = child.wait().unwrap().code();
    let (stdout_lines, _) = out.join().unwrap();
    let (stderr_lines, stderr_head) = err.join().unwrap();
    MemoryRun {
        code,
        peak_kib,
        stdout_lines,
        stderr_lines,
        stderr_head,
    }
}

/// Peak memory allowed for any input: a few MiB of program and buffers, whatever
/// the input (the runs here read 100 MB).
#[cfg(target_os = "linux")]
const PEAK_LIMIT_KIB: u64 = 24 * 1024;

#[cfg(target_os = "linux")]
#[test]
fn a_100_mb_line_keeps_memory_flat() {
    const ID: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    let mut input = vec![b'A'; BIG];
    input.extend_from_slice(format!("\n{ID}\n").as_bytes());

    let run = peak_memory(&["inspect"], input.clone(), ID);
    assert_eq!(run.code, Some(1));
    assert!(
        run.peak_kib < PEAK_LIMIT_KIB,
        "inspect: peak {} KiB",
        run.peak_kib
    );
    assert_eq!(run.stdout_lines, 1);
    assert_eq!(run.stderr_lines, 1);
    assert!(run.stderr_head[0].contains("line too long: more than 4096 characters"));

    // check: the marker is a bad line after the long one, quoted on standard error.
    input.extend_from_slice(b"MARKER\n");
    let run = peak_memory(&["check", "--no-clock"], input, "MARKER");
    assert_eq!(run.code, Some(1));
    assert!(
        run.peak_kib < PEAK_LIMIT_KIB,
        "check: peak {} KiB",
        run.peak_kib
    );
    assert!(run.stderr_head[0].contains("line 1: parse: \"AAAA"));
    assert!(run.stderr_head[0].contains("line too long: more than 4096 characters"));
    println!("peak memory with a 100 MB line: {} KiB", run.peak_kib);
}

#[cfg(target_os = "linux")]
#[test]
fn random_bytes_keep_memory_flat_and_every_report_one_line() {
    // 20 MB of pseudo-random bytes (about 78 000 "lines", any byte values).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut input: Vec<u8> = Vec::with_capacity(BIG / 5 + 100);
    while input.len() < BIG / 5 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        input.extend_from_slice(&state.to_le_bytes());
    }
    input.extend_from_slice(b"\nMARKER-END\n");

    let run = peak_memory(&["inspect"], input.clone(), "MARKER-END");
    assert_eq!(run.code, Some(1));
    assert!(
        run.peak_kib < PEAK_LIMIT_KIB,
        "inspect: peak {} KiB",
        run.peak_kib
    );
    assert!(run.stderr_lines > 70_000, "{}", run.stderr_lines);
    for line in &run.stderr_head {
        assert!(line.starts_with("scru128 inspect: line "), "{line:?}");
        assert!(
            !line[..line.len() - 1].bytes().any(|b| b < 0x20),
            "{line:?}"
        );
    }

    let run = peak_memory(
        &["check", "--no-clock", "--show", "18446744073709551615"],
        input,
        "MARKER-END",
    );
    assert_eq!(run.code, Some(1));
    assert!(
        run.peak_kib < PEAK_LIMIT_KIB,
        "check: peak {} KiB",
        run.peak_kib
    );
    for line in &run.stderr_head {
        assert!(line.starts_with("scru128 check: line "), "{line:?}");
    }
    println!(
        "peak memory with 20 MB of random bytes: {} KiB",
        run.peak_kib
    );
}

/// `--at` the last millisecond with more IDs than one millisecond holds: the counter
/// runs out after at most 2^28 IDs, and the tool says so in one line, status 1, after
/// writing every ID it could make. (2^28 IDs take minutes in a debug build.)
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "makes up to 2^28 IDs: run with `cargo test --release -p scru128-v1-cli`"
)]
fn the_counter_running_out_at_the_last_millisecond_is_one_line_and_status_one() {
    let mut child = std_scru128(&["-n", "300000000", "--at", "2577-06-22T06:20:44.414Z"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
    let (mut lines, mut last) = (0u64, String::new());
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        lines += 1;
        std::mem::swap(&mut last, &mut line);
        line.clear();
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert_eq!(
        err,
        "scru128 generate: error: cannot generate: no greater ID left: the counter overflowed \
         at the last timestamp\n"
    );
    let last: Scru128Id = last.trim_end().parse().unwrap();
    assert_eq!(
        (last.timestamp(), last.counter()),
        (MAX_TIMESTAMP - 1, MAX_COUNTER)
    );
    assert!(lines >= 1 && lines <= u64::from(MAX_COUNTER) + 1);
}
