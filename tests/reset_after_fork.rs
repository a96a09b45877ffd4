//! A reset whose first draw panics, caught and retried, still resets: on `scru128()`,
//! with real faults only: a real wall-clock step (libfaketime), a real `fork()` and a
//! real `getrandom` failure (a seccomp filter on one thread).
//!
//! In a child process the first claim of the forking thread meets a clock that went
//! back 60 s (beyond the 10 s allowance): the shared state takes the reset branch and
//! draws the new counter; that draw is the thread's first after the fork, so its
//! `DefaultRng` reseeds, and the reseed fails (no OS entropy). The panic is caught
//! (thread pools, web frameworks and PyO3 catch panics) and another thread of the
//! child retries. Found by the adversarial review of issue 10: the reset lowered its
//! rollback reference *before* the draw, so the retry no longer saw the rollback, did
//! not reset, and the child's IDs carried the time from before the step, 60 s ahead
//! of its clock. Every draw now comes before the state changes.
//!
//! Runs in a child process of its own (this binary, re-run on this test under
//! libfaketime). Needs `SCRU128_FAKETIME` (the path of Debian's `libfaketime.so.1`,
//! as for `tests/clock_steps.rs`) and seccomp; without them it says so and passes.
#![cfg(target_os = "linux")]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use scru128::{Scru128Id, scru128};

mod common;
use common::faketime::{self, FakeClock};
use common::processes::{pipe, read_to_string, wait, write_all};
use common::seccomp::break_getrandom_on_this_thread;

const WORKER_ENV: &str = "SCRU128_REVIEW_RESET_WORKER";
const NAME: &str = "a_reset_whose_reseed_failed_and_was_caught_still_resets";

#[test]
fn a_reset_whose_reseed_failed_and_was_caught_still_resets() {
    if std::env::var_os(WORKER_ENV).is_some() {
        worker();
        return;
    }
    let Some(lib) = faketime::library() else {
        common::skip(common::faketime::MISSING);
        return;
    };
    let clock = FakeClock::new(&lib);
    let out = clock
        .preload(&mut common::worker::command(NAME, WORKER_ENV, "1"))
        .output()
        .expect("starting the worker");
    drop(clock);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "worker failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let verdict = *common::worker::verdicts(&stdout, "reset: ")
        .first()
        .unwrap_or_else(|| panic!("no verdict:\n{stdout}\n{stderr}"));
    println!("{verdict}");
    if let Some(reason) = verdict.strip_prefix("reset: skipped ") {
        common::skip(reason);
        return;
    }
    assert!(verdict.starts_with("reset: ok"), "{verdict}");
}

fn worker() {
    faketime::assert_in_force();
    std::panic::set_hook(Box::new(|_| {}));

    let before: Vec<Scru128Id> = (0..1_000).map(|_| scru128()).collect();
    let last_before = *before.last().unwrap();

    let (read_fd, write_fd) = pipe();
    // SAFETY: the child reports through the pipe and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let report = child(last_before);
        let code = i32::from(!write_all(write_fd, report.as_bytes()));
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: our end of the pipe, closed once.
    unsafe { libc::close(write_fd) };
    let report = read_to_string(read_fd).unwrap();
    wait(pid);
    faketime::set_offset("+0");
    println!("{report}");
}

/// In the child: returns the verdict line.
fn child(last_before: Scru128Id) -> String {
    // A retry thread, made before the filter (it keeps its entropy).
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let retry = std::thread::spawn(move || {
        go_rx.recv().unwrap();
        (scru128(), common::system_ms())
    });
    faketime::set_offset("-60");
    std::thread::sleep(Duration::from_millis(5)); // past any window of the old time
    if !break_getrandom_on_this_thread() {
        drop(go_tx);
        let _ = retry.join();
        return String::from("reset: skipped (no seccomp)");
    }
    if let Ok(id) = catch_unwind(AssertUnwindSafe(scru128)) {
        return format!("reset: unexpected: the first try in the child made {id}");
    }
    go_tx.send(()).unwrap();
    let (id, clock) = retry.join().unwrap();
    let ahead = i128::from(id.unix_ts_ms()) - i128::from(clock);
    if ahead.abs() <= 5 {
        format!("reset: ok ({id} at the clock's {clock})")
    } else {
        format!(
            "reset: FAILED: after the caught panic the child's ID {id} is {ahead} ms ahead \
             of its clock (last ID before the 60 s step back: {last_before}); no reset"
        )
    }
}
