//! The process-wide clock under real-time scheduling, for real (no injection).
//!
//! Found by the adversarial review of issue 10 (fixed; this test hung before): a
//! thread that needed a new anchor while another thread was publishing one did not
//! block on the clock's mutex: it spun (`try_lock`, `spin_loop`, a
//! `yield_now` every 64 rounds) until that thread's anchor appears. With `SCHED_FIFO`
//! (audio, robotics, trading and other real-time programs) the publishing thread may
//! be a lower-priority thread on the same CPU, preempted inside its refresh: the
//! spinning thread never lets it run again (`sched_yield` only yields to threads of
//! the same or higher priority, and the kernel's real-time throttling only gives
//! time to non-real-time threads), so the clock, `SystemClock`, every
//! `Scru128Generator::generate` and every `scru128()` claim on that thread hang for
//! good. It now spins briefly, then waits on the mutex (it sleeps and lets the
//! holder finish).
//!
//! The scenario runs in a child process (this test binary, re-run on this test only
//! with `SCRU128_REVIEW_RT_WORKER=1`), so that a hang can be detected and killed: a
//! low-priority `SCHED_FIFO` thread reads `SystemClock` in bursts, a high-priority
//! `SCHED_FIFO` thread on the same CPU wakes every 20-80 µs and reads it once; a
//! watchdog on the other CPU reports a hang when the high-priority thread makes no
//! progress for 2 s. Needs two CPUs and the right to use `SCHED_FIFO` (root or
//! `CAP_SYS_NICE`); otherwise the test says so and passes.
#![cfg(target_os = "linux")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use scru128::{Clock, SystemClock};

mod common;

const WORKER_ENV: &str = "SCRU128_REVIEW_RT_WORKER";
/// How long the scenario runs when nothing hangs (the CPU it uses is busy meanwhile).
const RUN: Duration = Duration::from_secs(4);

#[test]
fn a_real_time_thread_never_hangs_on_the_process_clock() {
    if std::env::var_os(WORKER_ENV).is_some() {
        worker();
        return;
    }
    let out = common::worker::run(
        "a_real_time_thread_never_hangs_on_the_process_clock",
        WORKER_ENV,
        "1",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let verdict = common::worker::verdicts(&stdout, "rt: ");
    println!("{}", verdict.join("\n"));
    assert!(
        out.status.success(),
        "the worker failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    if let Some(skipped) = verdict.iter().find(|l| l.starts_with("rt: skipped ")) {
        common::skip(skipped);
        return;
    }
    assert!(
        verdict.iter().any(|l| l.starts_with("rt: no hang")),
        "no verdict:\n{stdout}\n{stderr}"
    );
}

fn pin_to_cpu(cpu: usize) -> bool {
    // SAFETY: `set` is a valid, zeroed cpu_set_t; the calls only read and write it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &raw const set) == 0
    }
}

fn set_fifo(priority: i32) -> bool {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is a valid sched_param for the calling thread.
    unsafe {
        libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &raw const param) == 0
    }
}

fn sleep_us(us: u64) {
    let ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: i64::try_from(us * 1_000).unwrap(),
    };
    // SAFETY: `ts` is a valid timespec; no remainder is asked for.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            0,
            &raw const ts,
            std::ptr::null_mut(),
        )
    };
}

fn worker() {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 || !pin_to_cpu(1) {
        println!("rt: skipped (needs two CPUs)");
        return;
    }
    // The clock is calibrated (and its TSC shortcut on) before the real-time part.
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(50) {
        SystemClock.unix_ts_ms();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicBool::new(false));

    let low = {
        let (stop, refused) = (stop.clone(), refused.clone());
        std::thread::spawn(move || {
            if !pin_to_cpu(0) || !set_fifo(1) {
                refused.store(true, Ordering::Relaxed);
                return;
            }
            while !stop.load(Ordering::Relaxed) {
                // Bursts of reads (each millisecond ends with a few refreshes), then a
                // rest, so that the CPU is not taken whole.
                let burst = Instant::now();
                while burst.elapsed() < Duration::from_millis(3) {
                    SystemClock.unix_ts_ms();
                }
                sleep_us(1_000);
            }
        })
    };
    let high = {
        let (stop, progress, refused) = (stop.clone(), progress.clone(), refused.clone());
        std::thread::spawn(move || {
            if !pin_to_cpu(0) || !set_fifo(2) {
                refused.store(true, Ordering::Relaxed);
                return;
            }
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                sleep_us(20 + (n * 7_919) % 60);
                SystemClock.unix_ts_ms();
                progress.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let begin = Instant::now();
    let mut last = (0, Instant::now());
    while begin.elapsed() < RUN {
        std::thread::sleep(Duration::from_millis(50));
        if refused.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
            low.join().unwrap();
            high.join().unwrap();
            println!("rt: skipped (SCHED_FIFO or CPU affinity refused)");
            return;
        }
        let now = progress.load(Ordering::Relaxed);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(2) {
            println!(
                "rt: HANG: the SCHED_FIFO thread made no progress for 2 s after {now} reads \
                 ({:.1} s in)",
                begin.elapsed().as_secs_f64()
            );
            // For a look with a debugger: `SCRU128_REVIEW_RT_HOLD=<seconds>` waits
            // before ending.
            if let Some(secs) = std::env::var("SCRU128_REVIEW_RT_HOLD")
                .ok()
                .and_then(|s| s.parse().ok())
            {
                std::thread::sleep(Duration::from_secs(secs));
            }
            // The spinning thread cannot be stopped; end the process.
            std::process::exit(3);
        }
    }
    stop.store(true, Ordering::Relaxed);
    low.join().unwrap();
    high.join().unwrap();
    println!(
        "rt: no hang in {} high-priority reads over {:?}",
        progress.load(Ordering::Relaxed),
        RUN
    );
}
