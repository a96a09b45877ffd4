//! ID generation inside a seccomp sandbox entered after start-up, for real.
//!
//! Found by the adversarial review of issue 10 (fixed; this test was killed before):
//! the process-wide clock checked the kernel's clocksource again "at least once per
//! second" by opening and reading
//! `/sys/devices/system/clocksource/clocksource0/current_clocksource` from inside
//! whichever ID call refreshed the clock. So `scru128()`, `SystemClock` and every
//! `Scru128Generator::generate` made `openat`/`read`/`close` system calls once a
//! second, for the life of the process. A program that initialises, then locks itself
//! down with a seccomp filter whose default action kills (systemd's
//! `SystemCallFilter=` without `SystemCallErrorNumber=`, firecracker-style VMMs,
//! sandboxed workers) is killed with `SIGSYS` about a second after it entered the
//! sandbox, from inside an ID call. (A filter that returns an error instead only turns
//! the TSC shortcut off, which is fine.) The clocksource is now read once, when the
//! library is loaded; no ID call opens a file.
//!
//! The scenario runs in a child process (this test binary, re-run on this test only):
//! it generates for 50 ms (the clock calibrates), installs a filter on its thread that
//! kills the process on `open`/`openat`, and generates for 2.5 s more. Needs seccomp
//! (Linux); where the kernel refuses filters the test says so and passes.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use scru128::{Clock, Scru128Generator, SystemClock, scru128};

mod common;
use common::seccomp::forbid_open_on_this_thread;

const WORKER_ENV: &str = "SCRU128_REVIEW_SANDBOX_WORKER";

#[test]
fn generating_inside_a_sandbox_entered_after_start_up_survives() {
    if std::env::var_os(WORKER_ENV).is_some() {
        worker();
        return;
    }
    let out = common::worker::run(
        "generating_inside_a_sandbox_entered_after_start_up_survives",
        WORKER_ENV,
        "1",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    use std::os::unix::process::ExitStatusExt as _;
    assert_ne!(
        out.status.signal(),
        Some(libc::SIGSYS),
        "killed by the sandbox (SIGSYS) while generating: {}",
        common::worker::verdicts(&stdout, "sandbox: ").join("; ")
    );
    assert!(
        out.status.success(),
        "the worker failed ({}): {stdout}",
        out.status
    );
    if let Some(verdict) = common::worker::verdicts(&stdout, "sandbox: skipped ").first() {
        common::skip(verdict);
        return;
    }
    assert!(stdout.contains("sandbox: survived"), "{stdout}");
}

fn worker() {
    let mut g = Scru128Generator::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(50) {
        scru128();
        g.generate();
        SystemClock.unix_ts_ms();
    }
    if !forbid_open_on_this_thread() {
        println!("sandbox: skipped (no seccomp filters here)");
        return;
    }
    println!("sandbox: entered");
    std::io::Write::flush(&mut std::io::stdout()).unwrap();
    // `Instant` is a vDSO read, `println!` a write: neither opens anything.
    let entered = Instant::now();
    let mut n = 0u64;
    while entered.elapsed() < Duration::from_millis(2_500) {
        scru128();
        g.generate();
        n += 1;
    }
    println!("sandbox: survived {n} rounds in 2.5 s");
}
