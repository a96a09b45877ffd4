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

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::os::fd::FromRawFd;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use scru128::{Scru128Id, scru128};

mod common;
use common::seccomp::break_getrandom_on_this_thread;

const WORKER_ENV: &str = "SCRU128_REVIEW_RESET_WORKER";
const FILE_ENV: &str = "SCRU128_REVIEW_RESET_FILE";
const NAME: &str = "a_reset_whose_reseed_failed_and_was_caught_still_resets";

#[test]
fn a_reset_whose_reseed_failed_and_was_caught_still_resets() {
    if std::env::var_os(WORKER_ENV).is_some() {
        worker();
        return;
    }
    let Some(lib) = std::env::var_os("SCRU128_FAKETIME") else {
        println!("skipped: set SCRU128_FAKETIME to the path of libfaketime.so.1");
        return;
    };
    let dir = std::env::temp_dir().join(format!("scru128-review-reset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let offset_file = dir.join("faketimerc");
    std::fs::write(&offset_file, "+0\n").unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env(WORKER_ENV, "1")
        .env(FILE_ENV, &offset_file)
        .env("LD_PRELOAD", &lib)
        .env("FAKETIME_TIMESTAMP_FILE", &offset_file)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env_remove("FAKETIME")
        .output()
        .expect("starting the worker");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "worker failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // The harness may print "test ... " before it on the same line.
    let verdict = stdout
        .lines()
        .find_map(|l| l.find("reset: ").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no verdict:\n{stdout}\n{stderr}"));
    println!("{verdict}");
    assert!(
        verdict.starts_with("reset: ok") || verdict.starts_with("reset: skipped"),
        "{verdict}"
    );
}

fn set_offset(seconds: i64) {
    let path = std::path::PathBuf::from(std::env::var_os(FILE_ENV).unwrap());
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).unwrap();
    writeln!(f, "{seconds:+}").unwrap();
    drop(f);
    std::fs::rename(&tmp, &path).unwrap();
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn worker() {
    // libfaketime is in force.
    set_offset(10_000);
    let moved = now_ms();
    set_offset(0);
    assert!(moved >= now_ms() + 9_990_000, "libfaketime is not in force");
    std::panic::set_hook(Box::new(|_| {}));

    let before: Vec<Scru128Id> = (0..1_000).map(|_| scru128()).collect();
    let last_before = *before.last().unwrap();

    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two ints.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child reports through the pipe and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let report = child(last_before);
        // SAFETY: writes a valid buffer, then ends the child at once.
        unsafe {
            libc::write(fds[1], report.as_ptr().cast(), report.len());
            libc::_exit(0);
        }
    }
    // SAFETY: our end of the pipe, closed once; `File` owns the read end.
    unsafe { libc::close(fds[1]) };
    let mut report = String::new();
    // SAFETY: the read end is open and owned by nothing else.
    unsafe { File::from_raw_fd(fds[0]) }
        .read_to_string(&mut report)
        .unwrap();
    let mut status = 0;
    // SAFETY: `pid` is our child.
    assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
    set_offset(0);
    println!("{report}");
}

/// In the child: returns the verdict line.
fn child(last_before: Scru128Id) -> String {
    // A retry thread, made before the filter (it keeps its entropy).
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let retry = std::thread::spawn(move || {
        go_rx.recv().unwrap();
        (scru128(), now_ms())
    });
    set_offset(-60);
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
