//! This crate against the seed-era reference `scru128` 1.0.0, measured the way a user
//! would compare them: both in one process, rounds interleaved (ours, reference, ours,
//! reference…), the median of each side's rounds, and their ratio. Beside them the
//! floor: what one `SystemTime::now()` and one time-stamp-counter read cost here, the
//! least a call that reads the clock can cost.
//!
//! `cargo bench -p scru128-compare --bench interleaved` (or `scripts/bench-ratios`).
//! `ROUNDS` and `CALLS` in the environment change the 9 rounds of 400 000 calls;
//! arguments pick cases by name (`scripts/bench-ratios parse to_string`).
//! Prints one table; the targets are those of issue 18.

use std::hint::black_box;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::{Instant, SystemTime};

/// One measured operation: ours and the reference, each run for `calls` calls.
struct Case {
    name: &'static str,
    /// The speed-up asked for (issue 18), if any.
    target: Option<f64>,
    /// Runs `calls` calls and returns the elapsed nanoseconds.
    ours: Box<dyn FnMut(u64) -> f64>,
    reference: Box<dyn FnMut(u64) -> f64>,
}

/// Times `calls` calls of `f` (nanoseconds in all).
fn timed<T>(calls: u64, mut f: impl FnMut() -> T) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        black_box(f());
    }
    start.elapsed().as_nanos() as f64
}

/// Times `calls` calls made as batches of 1024 by `batch` (nanoseconds for `calls`).
fn batched(calls: u64, mut batch: impl FnMut()) -> f64 {
    let batches = calls.div_ceil(1024);
    timed(batches, &mut batch) * calls as f64 / (batches * 1024) as f64
}

/// Wall time for two threads started for it to make `calls` IDs between them (their
/// start-up, and the wake-up of an idle CPU, included).
fn spawned_pair<T>(calls: u64, generate: fn() -> T) -> f64 {
    let half = calls.div_ceil(2);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..half {
                    black_box(generate());
                }
            });
        }
    });
    start.elapsed().as_nanos() as f64
}

/// What the two threads of a [`Pair`] run next: a function and how many calls each.
type Job = std::sync::Arc<std::sync::Mutex<(fn(), u64)>>;

/// The gate of a [`Pair`]'s round: how many threads are awake and waiting, the start
/// signal, and when each thread finished (nanoseconds after `epoch`).
struct Gate {
    ready: AtomicU64,
    go: AtomicU64,
    finished: [AtomicU64; 2],
    epoch: Instant,
}

/// Two threads that live for the whole run (as a server's do), each making half of a
/// round's IDs when told. They are woken first and then started together by a flag
/// they spin on, and each notes when it finished: the round is timed from the start
/// signal to the later finish, so thread wake-ups (tens of microseconds on a VM, a
/// share of a 2 ms round that would weigh against the faster crate) stay out of the
/// figures, for both crates alike.
struct Pair {
    job: Job,
    gate: std::sync::Arc<Gate>,
    start: std::sync::Arc<std::sync::Barrier>,
    end: std::sync::Arc<std::sync::Barrier>,
}

impl Pair {
    fn new() -> Self {
        let job: Job = std::sync::Arc::new(std::sync::Mutex::new(((|| {}) as fn(), 0)));
        let gate = std::sync::Arc::new(Gate {
            ready: AtomicU64::new(0),
            go: AtomicU64::new(0),
            finished: [AtomicU64::new(0), AtomicU64::new(0)],
            epoch: Instant::now(),
        });
        let start = std::sync::Arc::new(std::sync::Barrier::new(3));
        let end = std::sync::Arc::new(std::sync::Barrier::new(3));
        for i in 0..2 {
            let (job, gate, start, end) = (job.clone(), gate.clone(), start.clone(), end.clone());
            std::thread::spawn(move || {
                let mut round = 0;
                loop {
                    start.wait();
                    round += 1;
                    let (generate, n) = *job.lock().unwrap();
                    gate.ready.fetch_add(1, SeqCst);
                    while gate.go.load(SeqCst) != round {
                        std::hint::spin_loop();
                    }
                    for _ in 0..n {
                        generate();
                    }
                    let done = gate.epoch.elapsed().as_nanos() as u64;
                    gate.finished[i].store(done, SeqCst);
                    end.wait();
                }
            });
        }
        Self {
            job,
            gate,
            start,
            end,
        }
    }

    /// Time for the two threads to make `calls` IDs between them, from the start
    /// signal to the later thread's last ID.
    fn run(&self, calls: u64, generate: fn()) -> f64 {
        *self.job.lock().unwrap() = (generate, calls.div_ceil(2));
        let gate = &self.gate;
        gate.ready.store(0, SeqCst);
        self.start.wait();
        while gate.ready.load(SeqCst) != 2 {
            std::hint::spin_loop();
        }
        let started = gate.epoch.elapsed().as_nanos() as u64;
        gate.go.fetch_add(1, SeqCst);
        self.end.wait();
        let finished = gate.finished.iter().map(|f| f.load(SeqCst)).max().unwrap();
        (finished - started) as f64
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[cfg(target_arch = "x86_64")]
fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// 32 additions in 8 independent chains, alone or after a TSC read: whether the rest
/// of a call overlaps with the counter read (it does on the AMD EPYC; on the Intel Xeon
/// each instruction after `rdtsc` adds its own time, see docs/performance.md).
#[cfg(target_arch = "x86_64")]
fn adds(with_rdtsc: bool) -> u64 {
    macro_rules! adds32 {
        () => {
            concat!(
                "add {a}, 1\n add {b}, 1\n add {c}, 1\n add {d}, 1\n",
                "add {e}, 1\n add {f}, 1\n add {g}, 1\n add {h}, 1\n",
                "add {a}, 1\n add {b}, 1\n add {c}, 1\n add {d}, 1\n",
                "add {e}, 1\n add {f}, 1\n add {g}, 1\n add {h}, 1\n",
                "add {a}, 1\n add {b}, 1\n add {c}, 1\n add {d}, 1\n",
                "add {e}, 1\n add {f}, 1\n add {g}, 1\n add {h}, 1\n",
                "add {a}, 1\n add {b}, 1\n add {c}, 1\n add {d}, 1\n",
                "add {e}, 1\n add {f}, 1\n add {g}, 1\n add {h}, 1\n",
            )
        };
    }
    let (mut a, mut b, mut c, mut d) = (0u64, 0u64, 0u64, 0u64);
    let (mut e, mut f, mut g, mut h) = (0u64, 0u64, 0u64, 0u64);
    let tsc = if with_rdtsc { rdtsc() } else { 0 };
    // SAFETY: register arithmetic only.
    unsafe {
        core::arch::asm!(
            adds32!(),
            a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
            e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
            options(nomem, nostack),
        );
    }
    tsc ^ a ^ b ^ c ^ d ^ e ^ f ^ g ^ h
}

fn cases() -> Vec<Case> {
    const TEXT: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    let ours_id = scru128::Scru128Id::from_str(TEXT).unwrap();
    let ref_id = scru128_ref::Scru128Id::from_str(TEXT).unwrap();
    // 1024 different IDs as text: one text over and over lets the branch predictor
    // learn it, which users' data does not.
    let texts: Vec<String> = (0..1024).map(|_| scru128::scru128_string()).collect();
    let texts_ref = texts.clone();
    let mut ours_gen = scru128::Scru128Generator::new();
    let mut ref_gen = scru128_ref::Scru128Generator::new();
    let pair = std::rc::Rc::new(Pair::new());
    let pair_ref = pair.clone();
    vec![
        Case {
            name: "scru128()",
            target: Some(3.5),
            ours: Box::new(|n| timed(n, scru128::scru128)),
            reference: Box::new(|n| timed(n, scru128_ref::scru128)),
        },
        Case {
            name: "Scru128Generator::generate",
            target: Some(3.0),
            ours: Box::new(move |n| timed(n, || ours_gen.generate())),
            reference: Box::new(move |n| timed(n, || ref_gen.generate())),
        },
        Case {
            name: "scru128_string()",
            target: Some(3.5),
            ours: Box::new(|n| timed(n, scru128::scru128_string)),
            reference: Box::new(|n| timed(n, scru128_ref::scru128_string)),
        },
        Case {
            name: "to_string",
            target: Some(2.5),
            ours: Box::new(move |n| timed(n, || black_box(ours_id).to_string())),
            reference: Box::new(move |n| timed(n, || black_box(ref_id).to_string())),
        },
        Case {
            name: "parse, 1024 different IDs",
            target: Some(3.0),
            // As users parse: through a list, one after the other.
            ours: Box::new(move |n| {
                batched(n, || {
                    for text in &texts {
                        black_box(scru128::Scru128Id::from_str(black_box(text)).unwrap());
                    }
                })
            }),
            reference: Box::new(move |n| {
                batched(n, || {
                    for text in &texts_ref {
                        black_box(scru128_ref::Scru128Id::from_str(black_box(text)).unwrap());
                    }
                })
            }),
        },
        Case {
            name: "two threads spawned for each round, per ID",
            target: None,
            ours: Box::new(|n| spawned_pair(n, scru128::scru128)),
            reference: Box::new(|n| spawned_pair(n, scru128_ref::scru128)),
        },
        Case {
            name: "two threads, scru128() per ID",
            target: Some(10.0),
            ours: Box::new(move |n| {
                pair.run(n, || {
                    black_box(scru128::scru128());
                })
            }),
            reference: Box::new(move |n| {
                pair_ref.run(n, || {
                    black_box(scru128_ref::scru128());
                })
            }),
        },
    ]
}

fn main() {
    // `cargo bench` passes `--bench`; other arguments filter the cases by name (a case
    // runs if its name contains any of them; none given, every case runs).
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rounds = env_u64("ROUNDS", 9);
    let calls = env_u64("CALLS", 400_000);
    let mut rows = Vec::new();
    for mut case in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        // A warm-up round of each, then the rounds, interleaved.
        (case.ours)(calls / 4);
        (case.reference)(calls / 4);
        let (mut ours, mut reference) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            ours.push((case.ours)(calls) / calls as f64);
            reference.push((case.reference)(calls) / calls as f64);
        }
        let (o, r) = (median(ours), median(reference));
        rows.push((case.name, o, r, r / o, case.target));
    }
    let mut floor = Vec::new();
    for _ in 0..rounds {
        floor.push(timed(calls, SystemTime::now) / calls as f64);
    }
    let now_floor = median(floor);
    // What `to_string` pays before any digit: the 26-byte `String` both crates make,
    // allocated and freed.
    let mut string_floor = Vec::new();
    for _ in 0..rounds {
        string_floor.push(timed(calls, || String::with_capacity(black_box(26))) / calls as f64);
    }
    let string_floor = median(string_floor);

    println!("{rounds} rounds of {calls} calls, interleaved; medians (ns per call)");
    println!();
    println!("| operation | ours | scru128 1.0.0 | speed-up | target |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, o, r, ratio, target) in &rows {
        let (mark, target) = match target {
            Some(t) if ratio < t => (" (below)", format!("≥ {t}×")),
            Some(t) => ("", format!("≥ {t}×")),
            None => ("", String::new()),
        };
        println!("| {name} | {o:.1} | {r:.1} | {ratio:.2}×{mark} | {target} |");
    }
    println!();
    println!("floor: SystemTime::now() {now_floor:.1} ns");
    println!("floor: a 26-byte String (allocate, free) {string_floor:.1} ns");
    #[cfg(target_arch = "x86_64")]
    {
        let mut tsc = Vec::new();
        for _ in 0..rounds {
            tsc.push(timed(calls, rdtsc) / calls as f64);
        }
        println!("floor: one TSC read (rdtsc) {:.1} ns", median(tsc));
        let (mut alone, mut after) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            alone.push(timed(calls, || adds(false)) / calls as f64);
            after.push(timed(calls, || adds(true)) / calls as f64);
        }
        println!(
            "overlap: 32 independent additions {:.1} ns alone, {:.1} ns after one TSC read",
            median(alone),
            median(after)
        );
    }
}
