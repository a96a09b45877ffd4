//! Tests that run a scenario in a child process of their own: the test binary again,
//! on the one test, in worker mode (a variable says which), so that a hang, a kill or
//! a process-wide change (a sandbox, a fake clock) stays in the child. The worker
//! prints verdict lines with a prefix of its own, which the parent collects.

use std::process::{Command, Output};

/// This test binary, to run the test `name` alone with `var` set to `mode`. The
/// worker's output is not captured by its harness, so that its verdicts reach the
/// parent.
pub fn command(name: &str, var: &str, mode: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    command
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(var, mode);
    command
}

/// Runs `command(name, var, mode)` to its end and returns its output.
pub fn run(name: &str, var: &str, mode: &str) -> Output {
    command(name, var, mode)
        .output()
        .expect("starting the worker")
}

/// The verdict lines of a worker's output: each line's text from `prefix` on (the
/// harness may print `test ... ` before it on the same line).
pub fn verdicts<'a>(stdout: &'a str, prefix: &str) -> Vec<&'a str> {
    stdout
        .lines()
        .filter_map(|l| l.find(prefix).map(|at| &l[at..]))
        .collect()
}
