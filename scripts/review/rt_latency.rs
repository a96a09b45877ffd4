//! The program of scripts/bench-rt-latency: a SCHED_FIFO thread (priority 2) on CPU 0
//! sleeps 20-80 µs and then reads `SystemClock` and makes an ID, timing both; a
//! SCHED_FIFO thread of priority 1 on the same CPU does the same in 3 ms bursts with
//! 1 ms rests, so that the first now and then preempts the second inside one of the
//! crate's locks. Prints the high-priority calls' percentiles.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use scru128::{Clock, SystemClock};

fn pin(cpu: usize) -> bool {
    // SAFETY: a zeroed cpu_set_t with one CPU set, for the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

fn fifo(priority: i32) -> bool {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: a valid sched_param for the calling thread.
    unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) == 0 }
}

fn sleep_us(us: u64) {
    let ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: (us * 1000) as _,
    };
    // SAFETY: a valid timespec.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &ts, std::ptr::null_mut()) };
}

fn main() {
    let secs: u64 = std::env::args().nth(1).map_or(3, |s| s.parse().unwrap());
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_millis(50) {
        SystemClock.unix_ts_ms();
        scru128::scru128();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let low = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            if !(pin(0) && fifo(1)) {
                return false;
            }
            while !stop.load(Ordering::Relaxed) {
                let burst = Instant::now();
                while burst.elapsed() < Duration::from_millis(3) {
                    SystemClock.unix_ts_ms();
                    std::hint::black_box(scru128::scru128());
                }
                sleep_us(1000);
            }
            true
        })
    };
    let high = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            if !(pin(0) && fifo(2)) {
                return None;
            }
            let mut n = 0u64;
            let mut lat = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                sleep_us(20 + (n * 7919) % 60);
                let t = Instant::now();
                SystemClock.unix_ts_ms();
                std::hint::black_box(scru128::scru128());
                lat.push(t.elapsed().as_nanos() as u64);
            }
            Some(lat)
        })
    };
    std::thread::sleep(Duration::from_secs(secs));
    stop.store(true, Ordering::Relaxed);
    let low_ok = low.join().unwrap();
    let Some(mut lat) = high.join().unwrap().filter(|_| low_ok) else {
        println!("skipped: SCHED_FIFO or CPU affinity refused (needs root or CAP_SYS_NICE)");
        return;
    };
    lat.sort_unstable();
    let q = |f: f64| lat[((lat.len() - 1) as f64 * f) as usize];
    println!(
        "{} calls: median {} ns, p99.9 {} ns, p99.99 {} ns, max {} ns, over 50 us: {}",
        lat.len(),
        q(0.5),
        q(0.999),
        q(0.9999),
        lat[lat.len() - 1],
        lat.iter().filter(|&&x| x > 50_000).count()
    );
}
