//! When the operating system's random source fails, the default random source panics
//! with a clear message instead of falling back to a weak seed: at start-up
//! (`DefaultRng::new`, `Scru128Generator::new`, a thread's first `scru128()`) and when
//! it reseeds in a child process after `fork()`.
//!
//! The failure is real, not mocked: a seccomp filter, installed on one thread only,
//! makes the `getrandom` system call fail with `EIO` on that thread (and in a child
//! forked from it); other threads are untouched. Linux only; a binary of its own
//! because of the forks, whose tests take turns (two of them fork).
#![cfg(target_os = "linux")]

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::thread;

use scru128::{DefaultRng, RandomSource, Scru128Generator, scru128};

mod common;
use common::processes::{pipe, read_to_string, serial, wait, write_all};
use common::seccomp::break_getrandom_on_this_thread;

/// The start of the message of every such panic.
const MESSAGE: &str = "scru128: the operating system's random source failed (";
const MESSAGE_END: &str = "); refusing a weak seed";

/// Mutes the expected panics; others (failed assertions) are still printed.
fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !message(info.payload()).starts_with(MESSAGE) {
                default(info);
            }
        }));
    });
}

fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

/// Runs `f` on a new thread whose `getrandom` fails; returns its panic message
/// (`None` where seccomp is not available).
fn panic_without_entropy<T>(f: impl FnOnce() -> T + Send + 'static) -> Option<String> {
    quiet_expected_panics();
    let handle = thread::spawn(move || {
        if !break_getrandom_on_this_thread() {
            return None;
        }
        Some(match catch_unwind(AssertUnwindSafe(f)) {
            Ok(_) => String::from("<no panic>"),
            Err(payload) => message(&*payload),
        })
    });
    handle.join().expect("the test thread itself failed")
}

fn assert_clear_message(msg: Option<String>) {
    let Some(msg) = msg else { return };
    assert!(
        msg.starts_with(MESSAGE) && msg.ends_with(MESSAGE_END),
        "unexpected: {msg:?}"
    );
    // The OS error is named (EIO is "Input/output error").
    assert!(
        msg.contains("os error 5") || msg.contains("Input/output"),
        "{msg:?}"
    );
    assert_eq!(msg.lines().count(), 1);
}

#[test]
fn default_rng_refuses_to_start_without_os_entropy() {
    let _serial = serial();
    assert_clear_message(panic_without_entropy(DefaultRng::new));
    assert_clear_message(panic_without_entropy(Scru128Generator::new));
    assert_clear_message(panic_without_entropy(|| {
        let mut g = Scru128Generator::default();
        g.generate()
    }));
    // The process-wide generator: a thread's first ID seeds its random source.
    assert_clear_message(panic_without_entropy(scru128));
    // Other threads are not affected and go on.
    let a = scru128();
    assert!(scru128() > a);
    let mut g = Scru128Generator::new();
    let b = g.generate();
    assert!(g.generate() > b);
}

#[test]
fn the_reseed_after_fork_refuses_a_weak_seed_too() {
    let _serial = serial();
    quiet_expected_panics();
    let handle = thread::spawn(|| {
        // Seeded while the OS source works...
        let mut rng = DefaultRng::new();
        let mut g = Scru128Generator::new();
        let before = (rng.next_u32(), g.generate());
        // ...then the source breaks, and this thread forks: the child must reseed.
        if !break_getrandom_on_this_thread() {
            return None;
        }
        let (read_fd, write_fd) = pipe();
        // SAFETY: the child only draws a number, reports through the pipe and leaves
        // with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let first = catch_unwind(AssertUnwindSafe(|| rng.next_u32()));
            let second = catch_unwind(AssertUnwindSafe(|| g.generate()));
            let report = format!(
                "{}\n{}\n",
                first.map_or_else(|p| message(&*p), |v| format!("<drew {v}>")),
                second.map_or_else(|p| message(&*p), |id| format!("<made {id}>")),
            );
            let code = i32::from(!write_all(write_fd, report.as_bytes()));
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(code) }
        }
        // SAFETY: our end of the pipe, closed once.
        unsafe { libc::close(write_fd) };
        let report = read_to_string(read_fd).unwrap();
        wait(pid);
        // The parent's generators (seeded before) go on.
        assert!(g.generate() > before.1);
        let _ = rng.next_u32();
        Some(report)
    });
    let Some(report) = handle.join().expect("the test thread failed") else {
        common::skip("seccomp filters are refused here");
        return;
    };
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 2, "{report:?}");
    assert_clear_message(Some(lines[0].to_owned()));
    assert_clear_message(Some(lines[1].to_owned()));
}

/// Issue 10, defect 2: in a child, the first reseed fails (a panic, caught, as thread
/// pools, web frameworks and PyO3 do) and a retry then succeeds. The retry must reseed,
/// not go on with the parent's buffered numbers. The failure is real: the first try
/// runs on a thread whose `getrandom` fails, the retry on the child's main thread,
/// where it works.
#[test]
fn a_caught_reseed_failure_after_fork_is_retried_not_skipped() {
    const K: usize = 8;
    let _serial = serial();
    quiet_expected_panics();
    let mut rng = DefaultRng::new();
    let mut g = Scru128Generator::new();
    // The parent has used both: the source's buffer holds unread words of its stream.
    let _ = rng.next_u32();
    let _ = g.generate();

    let (read_fd, write_fd) = pipe();
    // SAFETY: the child draws, reports through the pipe and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let first_tries = thread::scope(|s| {
            s.spawn(|| {
                if !break_getrandom_on_this_thread() {
                    return None;
                }
                let a = catch_unwind(AssertUnwindSafe(|| rng.next_u32())).is_err();
                let b = catch_unwind(AssertUnwindSafe(|| g.generate())).is_err();
                Some((a, b))
            })
            .join()
        });
        let mut report = match first_tries {
            Ok(Some((true, true))) => String::from("both failed\n"),
            Ok(Some(other)) => format!("unexpected first tries {other:?}\n"),
            Ok(None) => String::from("skipped\n"),
            Err(_) => String::from("the first-try thread itself failed\n"),
        };
        for _ in 0..K {
            report.push_str(&format!("{} {}\n", rng.next_u32(), g.generate()));
        }
        let code = i32::from(!write_all(write_fd, report.as_bytes()));
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: our end of the pipe, closed once.
    unsafe { libc::close(write_fd) };
    let parent: Vec<(u32, scru128::Scru128Id)> =
        (0..4 * K).map(|_| (rng.next_u32(), g.generate())).collect();
    let report = read_to_string(read_fd).unwrap();
    wait(pid);
    let mut lines = report.lines();
    match lines.next() {
        Some("skipped") => {
            common::skip("seccomp filters are refused here");
            return;
        }
        Some("both failed") => {}
        other => panic!("child: {other:?} ({report:?})"),
    }
    let child: Vec<(u32, String)> = lines
        .map(|l| {
            let (word, id) = l.split_once(' ').unwrap();
            (word.parse().unwrap(), id.to_owned())
        })
        .collect();
    assert_eq!(child.len(), K, "{report:?}");
    for (word, id) in &child {
        assert!(
            !parent.iter().any(|(w, _)| w == word),
            "the child's retry drew {word}, a number of the parent's stream"
        );
        assert!(
            !parent.iter().any(|(_, p)| p.to_string() == *id),
            "the child's retry made {id}, as the parent did"
        );
    }
}
