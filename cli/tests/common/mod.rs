//! Helpers shared by the integration tests of the `scru128` binary.
#![allow(dead_code)]

use std::process::Command as StdCommand;

use assert_cmd::Command;
use scru128::Scru128Id;

/// Path of the binary under test, built by Cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_scru128");

/// The binary with `args`, ready for assertions.
pub fn scru128(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    cmd
}

/// The binary as a plain `std::process::Command`, for custom pipes and files.
pub fn std_scru128(args: &[&str]) -> StdCommand {
    let mut cmd = StdCommand::new(BIN);
    cmd.args(args);
    cmd
}

/// Every command, in the order of `scru128 help` (`tests/manuals.rs` checks that
/// the list is complete).
pub const COMMANDS: [&str; 7] = [
    "generate",
    "inspect",
    "convert",
    "bounds",
    "check",
    "completions",
    "man",
];

/// Standard output of a successful run, as text.
pub fn stdout_of(args: &[&str]) -> String {
    let out = scru128(args).assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("stdout is UTF-8")
}

/// Standard output of a successful run with `stdin` on standard input, as text.
pub fn stdout_with(args: &[&str], stdin: impl Into<Vec<u8>>) -> String {
    let out = scru128(args)
        .write_stdin(stdin)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("stdout is UTF-8")
}

/// Parses canonical lines.
pub fn parse_lines(text: &str) -> Vec<Scru128Id> {
    text.lines()
        .map(|l| l.parse().expect("canonical ID"))
        .collect()
}

/// A deterministic xorshift random source for the library's generator.
pub fn xorshift(mut seed: u32) -> impl FnMut() -> u32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    }
}

/// Canonical lines of `count` IDs from the library's generator with a simulated
/// clock that starts at 2024-05-01 and moves `tick_ms` after every `per_tick` IDs.
pub fn simulated_stream(
    count: usize,
    per_tick: u64,
    tick_ms: u64,
    rng: impl FnMut() -> u32,
) -> Vec<String> {
    let mut calls = 0u64;
    let mut g = scru128::Scru128Generator::with_rng_and_clock(rng, move || {
        calls += 1;
        1_714_521_600_000 + (calls / per_tick) * tick_ms
    });
    (0..count).map(|_| g.generate().to_string()).collect()
}

/// Joins lines with `\n` and a final newline.
pub fn join(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Set to `1` (as `scripts/test` does) to make a test that cannot run here fail
/// instead of skipping.
pub const REQUIRE_ALL_ENV: &str = "SCRU128_TEST_REQUIRE_ALL";

/// Reports a test that cannot run here: one line on standard error, written past the
/// test harness's capture so that it shows, saying what is missing and how to run
/// it. Panics instead when [`REQUIRE_ALL_ENV`] is set.
pub fn skip(test: &str, how_to_run: &str) {
    assert!(
        std::env::var_os(REQUIRE_ALL_ENV).is_none(),
        "{test} cannot run here: {how_to_run} (and {REQUIRE_ALL_ENV} asks for every test)"
    );
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {how_to_run}");
}
