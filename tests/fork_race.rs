//! A `fork()` racing the very first use of the crate in a process (issue 10, defect 5).
//!
//! The fork handlers used to be registered at first use (a `std::sync::Once`): a fork
//! on one thread while another thread was inside that registration gave a child that
//! inherited it half done (and hung at its own first use), or a child whose fork was
//! not counted (it went on with the parent's numbers). They are now registered when
//! the program is loaded.
//!
//! Each round is a fresh process (this binary in worker mode), so that the first use
//! really is the first: a thread makes a generator over a counting source and a
//! frozen clock, and calls `scru128()`, while the main thread forks at that moment.
//! The child, if the generator was there at the fork, makes IDs with its copy, and
//! calls `scru128()`; the parent makes IDs with its own. Checked: the child never
//! hangs, and never makes an ID the parent makes.
#![cfg(unix)]

use std::collections::HashSet;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use scru128::{Scru128Generator, Scru128Id};

mod common;
use common::processes::{ids_from_bytes, pipe, read_to_end, wait_with_timeout, write_all};

const ROUNDS: usize = 200;
/// Passes of `ROUNDS`, each over a wider range of delays, until both sides are seen.
const PASSES: usize = 3;
const IDS: usize = 16;

type Counting = Scru128Generator<fn() -> u32, fn() -> u64>;

static DRAWS: AtomicU32 = AtomicU32::new(0);
static GENERATOR: Mutex<Option<Counting>> = Mutex::new(None);
static READY: AtomicBool = AtomicBool::new(false);
static GO: AtomicBool = AtomicBool::new(false);

fn counting() -> u32 {
    DRAWS.fetch_add(1, Ordering::Relaxed) + 1
}

fn frozen() -> u64 {
    1_700_000_000_000
}

fn main() -> ExitCode {
    if let Ok(delay_us) = std::env::var("SCRU128_FORK_RACE_WORKER") {
        return worker(delay_us.parse().unwrap());
    }
    let mut outcomes = [0usize; 2];
    // The rounds must cover both sides of the first use. The fork comes a delay after
    // the first-use thread is let go (a positive delay), or that thread waits a while
    // before it starts (a negative one): the first use takes a few microseconds, and
    // `fork()` itself longer, while the other thread goes on. On a busy machine a
    // thread may not run within the first pass's range (or be preempted in its wait),
    // so a pass that leaves one side uncovered is followed by another over a range
    // four times as wide, up to three.
    for pass in 0..PASSES {
        let scale = 1_i64 << (2 * pass);
        let range_us = 180 * scale;
        for round in 1..=ROUNDS {
            // The fork lands at a different point of the first use in each round:
            // delays from -60 to 119 µs in the first pass.
            let delay_us = (round as i64 * 7 * scale) % range_us - 60 * scale;
            let out = Command::new(std::env::current_exe().unwrap())
                .env("SCRU128_FORK_RACE_WORKER", delay_us.to_string())
                .output()
                .expect("starting the worker");
            let stdout = String::from_utf8_lossy(&out.stdout);
            if !out.status.success() {
                eprintln!(
                    "fork_race: round {round} failed: {}{}",
                    stdout,
                    String::from_utf8_lossy(&out.stderr)
                );
                println!("test result: FAILED. 0 passed; 1 failed; 0 ignored");
                return ExitCode::FAILURE;
            }
            outcomes[usize::from(stdout.contains("generator copied"))] += 1;
        }
        println!(
            "fork_race: pass {}, delays {} to {} us: after {} rounds the child had the generator in {} and not yet in {}",
            pass + 1,
            -60 * scale,
            120 * scale - 1,
            ROUNDS * (pass + 1),
            outcomes[1],
            outcomes[0]
        );
        if outcomes[0] > 0 && outcomes[1] > 0 {
            break;
        }
    }
    if outcomes[0] == 0 || outcomes[1] == 0 {
        eprintln!("fork_race: every fork fell on the same side of the first use");
        println!("test result: FAILED. 0 passed; 1 failed; 0 ignored");
        return ExitCode::FAILURE;
    }
    // The summary line of a test harness, for tools that count them (one test).
    println!("test result: ok. 1 passed; 0 failed; 0 ignored");
    ExitCode::SUCCESS
}

/// One round: the fork `delay_us` after the first-use thread is let go, or, for a
/// negative delay, at once while that thread waits as long before it starts.
fn worker(delay_us: i64) -> ExitCode {
    let spin = |us: i64| {
        let start = Instant::now();
        while start.elapsed() < Duration::from_micros(us.unsigned_abs()) {
            std::hint::spin_loop();
        }
    };
    let first_use = std::thread::spawn(move || {
        READY.store(true, Ordering::Release);
        while !GO.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        if delay_us < 0 {
            spin(delay_us);
        }
        let mut g: Counting = Scru128Generator::with_rng_and_clock(counting, frozen);
        g.generate();
        *GENERATOR.lock().unwrap_or_else(PoisonError::into_inner) = Some(g);
        scru128::scru128();
    });
    let (read_fd, write_fd) = pipe();
    let mut child_ids = [[0u8; 16]; IDS];
    while !READY.load(Ordering::Acquire) {
        std::hint::spin_loop();
    }
    GO.store(true, Ordering::Release);
    if delay_us > 0 {
        spin(delay_us);
    }
    // SAFETY: the child uses only memory that exists before the fork, writes to a pipe
    // and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // Child: the generator, if it was made before the fork and not locked at it.
        let copied = match GENERATOR.try_lock() {
            Ok(mut g) => g.as_mut().map(|g| {
                for slot in &mut child_ids {
                    *slot = g.generate().to_bytes();
                }
            }),
            Err(_) => None,
        };
        for _ in 0..100 {
            scru128::scru128();
        }
        let len = if copied.is_some() { IDS * 16 } else { 0 };
        let code = i32::from(!write_all(write_fd, &child_ids.as_flattened()[..len]));
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: our end of the pipe, closed once.
    unsafe { libc::close(write_fd) };
    first_use.join().unwrap();
    let parent_ids: HashSet<Scru128Id> = {
        let mut g = GENERATOR.lock().unwrap_or_else(PoisonError::into_inner);
        let g = g.as_mut().expect("made by the first-use thread");
        (0..IDS * 4).map(|_| g.generate()).collect()
    };
    let status = wait_with_timeout(pid, Duration::from_secs(20));
    let Some(status) = status else {
        println!("the child hung");
        return ExitCode::FAILURE;
    };
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        println!("the child failed (status {status:#x})");
        return ExitCode::FAILURE;
    }
    let mut received = Vec::new();
    read_to_end(read_fd, &mut received).unwrap();
    if received.is_empty() {
        println!("generator not yet made at the fork");
        return ExitCode::SUCCESS;
    }
    for id in ids_from_bytes(&received) {
        if parent_ids.contains(&id) {
            println!("the child made {id}, as the parent did: its fork was not counted");
            return ExitCode::FAILURE;
        }
    }
    println!("generator copied; the child repeated nothing");
    ExitCode::SUCCESS
}
