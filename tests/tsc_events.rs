//! The TSC shortcut of the process-wide clock through real clock events (issue 18,
//! item 3): it stays on through what NTP, chrony and administrators do to a clock, and
//! goes off for a counter that really goes wrong.
//!
//! Each scenario runs in a child process (this binary, in worker mode) under
//! libfaketime, whose offset file the worker rewrites while it makes IDs:
//!
//! - ordinary: steps of `CLOCK_REALTIME` alone (libfaketime leaves `CLOCK_MONOTONIC`
//!   real, as the kernel does): +1 h, back 1 h, +1 s, +1 s, −3 s, +1 day, a few tens of
//!   milliseconds apart, and the rate changed by 100 ppm (which libfaketime, faking
//!   the system clock only, turns into a small continuous divergence as well). Before
//!   the fix, two steps within a minute gave the shortcut up: every step looked like
//!   a counter that had stopped. Checked: still on, with a confirmed rate, at the end.
//! - fault: both clocks faked, their rate switched between 1 and 1.5 every 40 ms, three times: the
//!   CPU's counter, which libfaketime does not touch, keeps disagreeing with them.
//!   Checked: the shortcut is given up.
//!
//! In the first, every reading of the clock lies between two `SystemTime` reads around
//! it (the fake time), but within 2 ms of a step; IDs are made all along. The worker reports the shortcut's state through
//! `scru128::__private::tsc_shortcut`. Where the machine has no TSC shortcut (another
//! CPU, a kernel that does not keep time with the TSC), the test says so and passes.
//! Needs libfaketime: `SCRU128_FAKETIME`, as in `tests/clock_steps.rs`.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use scru128::{Clock, SystemClock};

mod common;
use common::faketime::{self, FakeClock};

const WORKER_ENV: &str = "SCRU128_TSC_EVENTS_WORKER";

fn main() -> ExitCode {
    if let Ok(mode) = std::env::var(WORKER_ENV) {
        return worker(&mode);
    }
    let Some(lib) = faketime::library() else {
        if std::env::var_os(common::REQUIRE_ALL_ENV).is_some() {
            eprintln!("tsc_events: cannot run: SCRU128_FAKETIME is not set");
            return ExitCode::FAILURE;
        }
        println!(
            "tsc_events: skipped: libfaketime is not installed (Debian: apt-get install \
             libfaketime; or set SCRU128_FAKETIME to its libfaketime.so.1), or run \
             scripts/test"
        );
        return ExitCode::SUCCESS;
    };
    let mut failed = 0;
    for mode in ["ordinary", "fault"] {
        let clock = FakeClock::new(&lib);
        let mut command = if mode == "fault" {
            clock.command_faking_monotonic()
        } else {
            clock.command()
        };
        let out = command
            .env(WORKER_ENV, mode)
            .output()
            .expect("starting the worker");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let verdict = if out.status.success() { "ok" } else { "FAILED" };
        println!("tsc_events {mode}: {verdict}");
        print!("{stdout}");
        if !out.status.success() {
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            failed += 1;
        }
    }
    // The summary line of a test harness, for tools that count them.
    let verdict = if failed > 0 { "FAILED" } else { "ok" };
    println!(
        "test result: {verdict}. {} passed; {failed} failed; 0 ignored",
        2 - failed
    );
    if failed > 0 {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn system_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Reads `SystemClock` (the process-wide clock, as IDs do) for `how_long`. With
/// `check`, every reading must lie between `SystemTime` reads around it, but within
/// 2 ms of a step (the old millisecond may last less than 1 ms after one).
fn read_for(how_long: Duration, check: bool, stepped: &mut Instant) -> Result<u64, String> {
    let start = Instant::now();
    let mut n = 0;
    // `Instant` may run at the fake rate: bound the loop by a count as well.
    while start.elapsed() < how_long && n < 20_000_000 {
        let before = system_ms();
        let ms = SystemClock.unix_ts_ms();
        let after = system_ms();
        if check && (ms < before || ms > after) && stepped.elapsed() > Duration::from_millis(2) {
            return Err(format!("read {ms}, called between {before} and {after}"));
        }
        std::hint::black_box(scru128::scru128());
        n += 1;
    }
    Ok(n)
}

fn worker(mode: &str) -> ExitCode {
    faketime::assert_in_force();
    let check = mode == "ordinary";
    let mut stepped = Instant::now();
    let run = |how_long: u64, stepped: &mut Instant| {
        read_for(Duration::from_millis(how_long), check, stepped).unwrap_or_else(|err| {
            eprintln!("  {mode}: {err}");
            std::process::exit(1)
        })
    };
    run(50, &mut stepped);
    if scru128::__private::tsc_shortcut() != (true, true) {
        println!(
            "  skipped: no TSC shortcut on this machine ({:?})",
            scru128::__private::tsc_shortcut()
        );
        return ExitCode::SUCCESS;
    }
    let mut made = 0;
    let state = if mode == "ordinary" {
        for offset in [
            "+3600",
            "+0",
            "+1",
            "+2",
            "-1",
            "+86399",
            "+86399 x1.0001",
            "+86399",
        ] {
            faketime::set_offset(offset);
            stepped = Instant::now();
            made += run(40, &mut stepped);
        }
        made += run(20, &mut stepped);
        let state = scru128::__private::tsc_shortcut();
        if state != (true, true) {
            eprintln!("  ordinary: the shortcut is {state:?} after steps and a rate change");
            return ExitCode::FAILURE;
        }
        state
    } else {
        for round in 0..6 {
            faketime::set_offset(if round % 2 == 0 { "+0 x1.5" } else { "+0 x1" });
            made += run(40, &mut stepped);
        }
        let state = scru128::__private::tsc_shortcut();
        if state.0 {
            eprintln!(
                "  fault: the shortcut is still in use ({state:?}) after the counter kept \
                 disagreeing"
            );
            return ExitCode::FAILURE;
        }
        state
    };
    println!("  {made} readings; shortcut (usable, confirmed) at the end: {state:?}");
    ExitCode::SUCCESS
}
