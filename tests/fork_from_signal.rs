//! `fork()` from a signal handler while threads generate, for real (issue 18, item 1;
//! the review's reproduction: 1 of 3000 such forks hung a child, and a handler that
//! interrupted a claim deadlocked the parent after 130 forks).
//!
//! Two threads loop over `SystemClock`, `scru128()` and a `Scru128Generator` of their
//! own; the test thread sends one of them `SIGUSR1` 400 times, each once the
//! last was handled, and the handler forks. The child returns from the handler into
//! whatever the interrupted thread was doing (maybe waiting for, or holding, one of
//! the crate's locks, while the other thread, which the child does not have, held the
//! other) and leaves at its loop's next turn. Checked: the handler forks every time
//! within 5 s (the parent does not deadlock), and every child exits within 5 s.
#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use scru128::{Clock, Scru128Generator, SystemClock, scru128};

mod common;
use common::processes::wait_with_timeout;

static PARENT: AtomicU32 = AtomicU32::new(0);
static CHILD: AtomicI32 = AtomicI32::new(0);
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // SAFETY: a plain fork; the child returns into the interrupted loop, which leaves
    // with `_exit` at its next turn.
    let pid = unsafe { libc::fork() };
    if pid > 0 {
        CHILD.store(pid, Ordering::Relaxed);
    }
}

fn busy() {
    let mut g = Scru128Generator::new();
    while !STOP.load(Ordering::Relaxed) {
        if std::process::id() != PARENT.load(Ordering::Relaxed) {
            // A child, out of the handler and the call it interrupted.
            let code = i32::from(scru128() <= scru128::Scru128Id::MIN);
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(code) }
        }
        std::hint::black_box(SystemClock.unix_ts_ms());
        std::hint::black_box(scru128());
        std::hint::black_box(g.generate());
    }
}

#[test]
fn forks_from_a_signal_handler_hang_neither_parent_nor_child() {
    PARENT.store(std::process::id(), Ordering::Relaxed);
    // A handler that forks and stores an atomic.
    common::processes::on_sigusr1(on_signal);
    let threads: Vec<_> = (0..2).map(|_| std::thread::spawn(busy)).collect();
    let targets: Vec<libc::pthread_t> = {
        use std::os::unix::thread::JoinHandleExt;
        threads.iter().map(JoinHandleExt::as_pthread_t).collect()
    };
    let forks = 400;
    let mut hung = 0;
    let start = Instant::now();
    for i in 0..forks {
        CHILD.store(0, Ordering::Relaxed);
        // SAFETY: a live thread of this process.
        assert_eq!(
            unsafe { libc::pthread_kill(targets[i % 2], libc::SIGUSR1) },
            0
        );
        let asked = Instant::now();
        let pid = loop {
            match CHILD.load(Ordering::Relaxed) {
                0 if asked.elapsed() > Duration::from_secs(5) => {
                    // The handler hangs in the parent: report it (the hung thread
                    // cannot be joined).
                    eprintln!("fork {i}: the signal handler did not return from fork() in 5 s");
                    std::process::abort();
                }
                0 => std::thread::yield_now(),
                pid => break pid,
            }
        };
        if wait_with_timeout(pid, Duration::from_secs(5)) != Some(0) {
            hung += 1;
        }
    }
    STOP.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    println!(
        "{forks} forks from a signal handler in {:?}",
        start.elapsed()
    );
    assert_eq!(hung, 0, "{hung} of {forks} children hung or failed");
}
