//! From the adversarial review of issue 10 (attacks that held, kept as coverage): the process-wide clock across CPU cores, on the
//! real TSC (where the kernel keeps time with it, as on this machine).
//!
//! Two threads pinned to different CPUs read `SystemClock` and `SystemTime::now()`
//! in turn and publish both readings; each checks its own against what the other
//! published before (an acquire load, so the other's reads happened before):
//!
//! - not stale: its `SystemClock` reading is at or after the millisecond the other
//!   core's system clock showed (cross-core counter skew, the window's margins);
//! - one clock for the process: at or after the other core's `SystemClock` reading;
//! - not ahead: its own system clock reading, taken after, is at or after the other
//!   core's `SystemClock` reading.
//!
//! (No clock step happens during the run.) Result: held on e907eb7 (coverage).
#![cfg(target_os = "linux")]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use scru128::{Clock, SystemClock};

mod common;

fn pin_to_cpu(cpu: usize) -> bool {
    // SAFETY: `set` is a valid, zeroed cpu_set_t; the calls only read and write it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &raw const set) == 0
    }
}

/// Per thread: (system clock ms, SystemClock ms) packed as two words.
static PUBLISHED: [[AtomicU64; 2]; 2] = [
    [AtomicU64::new(0), AtomicU64::new(0)],
    [AtomicU64::new(0), AtomicU64::new(0)],
];
static STOP: AtomicBool = AtomicBool::new(false);

#[test]
fn two_cores_never_see_a_stale_or_early_millisecond_of_each_other() {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        common::skip("needs two CPUs");
        return;
    }
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            std::thread::spawn(move || {
                if !pin_to_cpu(me) {
                    return Err(String::from("skipped: CPU affinity refused"));
                }
                let other = 1 - me;
                let mut checks = 0u64;
                let start = Instant::now();
                while start.elapsed() < Duration::from_secs(2) && !STOP.load(Ordering::Relaxed) {
                    // The other's ours-then-system pair: load the system one first
                    // (published last), so that both are at least as new as a pair.
                    let their_sys = PUBLISHED[other][0].load(Ordering::Acquire);
                    let their_ours = PUBLISHED[other][1].load(Ordering::Acquire);
                    let ours = SystemClock.unix_ts_ms();
                    let sys = common::system_ms();
                    let problem = if ours < their_sys {
                        Some("stale: below the other core's system clock")
                    } else if ours < their_ours {
                        Some("below the other core's SystemClock reading")
                    } else if sys < their_ours {
                        Some("the other core's SystemClock reading was ahead of the clock")
                    } else {
                        None
                    };
                    if let Some(problem) = problem {
                        STOP.store(true, Ordering::Relaxed);
                        return Err(format!(
                            "core {me}: {problem}: ours {ours}, system {sys}, theirs \
                             (system {their_sys}, SystemClock {their_ours})"
                        ));
                    }
                    PUBLISHED[me][1].store(ours, Ordering::Release);
                    PUBLISHED[me][0].store(sys, Ordering::Release);
                    checks += 1;
                }
                Ok(checks)
            })
        })
        .collect();
    let results: Vec<Result<u64, String>> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    for r in &results {
        match r {
            Err(e) if e.starts_with("skipped") => {
                common::skip(e);
                return;
            }
            Err(e) => panic!("{e}"),
            Ok(n) => println!("{n} checks"),
        }
    }
}
