//! Real wall-clock steps while threads generate (SPEC section 3: the rules hold
//! through a step forward by any amount and back within the allowance; a step back
//! beyond it is the documented reset).
//!
//! The clock is stepped for real, for this process only: each scenario runs in a
//! child process (this same binary, in worker mode) under libfaketime (its thread-safe
//! build, `libfaketimeMT.so.1`, since the threads read the clock at once), whose offset
//! file the child's control thread rewrites while four threads generate: +1 h, then
//! 5 s back (within the allowance), then 60 s back (beyond it). libfaketime fakes
//! `CLOCK_REALTIME` only (`FAKETIME_DONT_FAKE_MONOTONIC=1`); the CPU's time-stamp
//! counter runs on, as it does when NTP, chrony or a resumed VM steps the clock.
//!
//! Checked, for the process-wide `scru128()` and for a `Mutex<Scru128Generator>`
//! shared by the threads (`generate_or_abort`, falling back to `generate` when it
//! reports a rollback): every thread's IDs strictly increase except for one reset per thread
//! after the 60 s step back, and only there; no `(timestamp, counter)` comes twice;
//! `generate_or_abort` reports no rollback for the forward step or the small step
//! back, and reports the large one exactly once (the `generate` after it resets).
//!
//! Needs libfaketime (Debian: `libfaketime`): set `SCRU128_FAKETIME` to the path of
//! `libfaketime.so.1`, as `scripts/test` does (it installs the package if missing).
//! Without that variable the test says so and does nothing; with it set to a path
//! that does not exist, it fails.

use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use scru128::{GenerateError, Scru128Generator, Scru128Id};

mod common;
use common::faketime::{self, FakeClock};

const THREADS: usize = 4;
/// Offsets of the fake clock from the real one, in seconds, one per phase.
const OFFSETS: [i64; 4] = [0, 3600, 3595, 3535];
/// The phase that steps back beyond the rollback allowance.
const RESET_PHASE: u32 = 3;
/// How long each phase lasts.
const PHASE: Duration = Duration::from_millis(120);
const RUNS: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    ProcessWide,
    SharedGenerator,
}

impl Scenario {
    const ALL: [Self; 2] = [Self::ProcessWide, Self::SharedGenerator];

    fn name(self) -> &'static str {
        match self {
            Self::ProcessWide => "process-wide",
            Self::SharedGenerator => "shared-generator",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

fn main() -> ExitCode {
    if let Ok(mode) = std::env::var("SCRU128_CLOCK_STEP_WORKER") {
        let Some(scenario) = Scenario::from_name(&mode) else {
            eprintln!("unknown worker mode {mode:?}");
            return ExitCode::FAILURE;
        };
        return worker(scenario);
    }
    let Some(lib) = faketime::library() else {
        if std::env::var_os(common::REQUIRE_ALL_ENV).is_some() {
            eprintln!(
                "clock_steps: cannot run: SCRU128_FAKETIME is not set (and {} asks for \
                 every test)",
                common::REQUIRE_ALL_ENV
            );
            return ExitCode::FAILURE;
        }
        println!(
            "clock_steps: skipped: libfaketime is not installed (Debian: apt-get install \
             libfaketime; or set SCRU128_FAKETIME to its libfaketime.so.1), or run \
             scripts/test, to step the clock for real"
        );
        return ExitCode::SUCCESS;
    };
    if !std::path::Path::new(&lib).is_file() {
        eprintln!("clock_steps: SCRU128_FAKETIME={lib:?} is not a file");
        return ExitCode::FAILURE;
    }
    // The thread-safe build beside it: the threads read the clock at once (see
    // `faketime::library_mt`).
    let Some(lib) = faketime::library_mt() else {
        eprintln!(
            "clock_steps: no libfaketimeMT.so.1 beside {lib:?} (Debian's libfaketime has it)"
        );
        return ExitCode::FAILURE;
    };
    let mut failed = 0;
    for scenario in Scenario::ALL {
        for run in 1..=RUNS {
            let clock = FakeClock::new(&lib);
            let out = clock
                .command()
                .env("SCRU128_CLOCK_STEP_WORKER", scenario.name())
                .output()
                .expect("starting the worker");
            drop(clock);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let verdict = if out.status.success() { "ok" } else { "FAILED" };
            println!("clock_steps {} run {run}: {verdict}", scenario.name());
            print!("{stdout}");
            if !out.status.success() {
                eprint!("{stderr}");
                failed += 1;
            }
        }
    }
    // The summary line of a test harness, for tools that count them.
    let verdict = if failed > 0 { "FAILED" } else { "ok" };
    println!(
        "test result: {verdict}. {} passed; {failed} failed; 0 ignored",
        Scenario::ALL.len() * RUNS - failed
    );
    if failed > 0 {
        eprintln!("clock_steps: {failed} run(s) failed");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// One ID as a thread saw it: the phase in force when the call ended, the ID, and
/// whether `generate_or_abort` reported a rollback first (then `generate` made it).
type Record = (u32, Scru128Id, bool);

fn worker(scenario: Scenario) -> ExitCode {
    faketime::assert_in_force();

    let phase = Arc::new(AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(THREADS + 1));
    let shared = Arc::new(Mutex::new(Scru128Generator::new()));
    // IDs each thread made in the last phase: it lasts until every thread made some
    // (a thread starved of the shared lock on a loaded machine made none in 120 ms,
    // and so saw no reset).
    let in_last_phase: Arc<[AtomicU32; THREADS]> = Arc::new([const { AtomicU32::new(0) }; THREADS]);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (phase, stop, start, shared, in_last_phase) = (
                phase.clone(),
                stop.clone(),
                start.clone(),
                shared.clone(),
                in_last_phase.clone(),
            );
            std::thread::spawn(move || {
                let mut records: Vec<Record> = Vec::with_capacity(1 << 20);
                start.wait();
                while !stop.load(Ordering::Relaxed) {
                    let (id, rollback_reported) = match scenario {
                        Scenario::ProcessWide => (scru128::scru128(), false),
                        Scenario::SharedGenerator => {
                            let mut g = shared.lock().unwrap();
                            match g.generate_or_abort() {
                                Ok(id) => (id, false),
                                Err(GenerateError::ClockRollback { .. }) => (g.generate(), true),
                                Err(err) => panic!("{err}"),
                            }
                        }
                    };
                    // Read after the call: an ID labelled with a phase was made before
                    // the next phase's step (the label is set before the step).
                    let p = phase.load(Ordering::SeqCst);
                    if p == RESET_PHASE {
                        in_last_phase[t].fetch_add(1, Ordering::Relaxed);
                    }
                    records.push((p, id, rollback_reported));
                }
                records
            })
        })
        .collect();
    start.wait();
    for (p, &offset) in OFFSETS.iter().enumerate() {
        if p > 0 {
            phase.store(u32::try_from(p).unwrap(), Ordering::SeqCst);
            faketime::set_offset(&format!("{offset:+}"));
        }
        std::thread::sleep(PHASE);
    }
    let waited = std::time::Instant::now();
    while in_last_phase
        .iter()
        .any(|n| n.load(Ordering::Relaxed) < 1_000)
        && waited.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    let per_thread: Vec<Vec<Record>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    match check(scenario, &per_thread) {
        Ok(summary) => {
            println!("  {summary}");
            ExitCode::SUCCESS
        }
        Err(problem) => {
            eprintln!("  {}: {problem}", scenario.name());
            ExitCode::FAILURE
        }
    }
}

fn check(scenario: Scenario, per_thread: &[Vec<Record>]) -> Result<String, String> {
    let mut pairs = HashSet::new();
    let mut total = 0usize;
    let mut per_phase = [0usize; OFFSETS.len()];
    let mut rollbacks_reported = [0usize; OFFSETS.len()];
    for (t, records) in per_thread.iter().enumerate() {
        let mut last: Option<Scru128Id> = None;
        let mut resets = 0;
        for &(p, id, rollback_reported) in records {
            if rollback_reported {
                rollbacks_reported[p as usize] += 1;
            }
            total += 1;
            per_phase[p as usize] += 1;
            if !pairs.insert((id.timestamp(), id.counter())) {
                return Err(format!(
                    "thread {t}: (timestamp, counter) of {id} came twice (phase {p})"
                ));
            }
            if let Some(prev) = last {
                if id <= prev {
                    let back_ms = prev.timestamp().saturating_sub(id.timestamp());
                    let expected_reset = p == RESET_PHASE && resets == 0 && back_ms > 10_000;
                    if !expected_reset {
                        return Err(format!(
                            "thread {t}: {id} after {prev} (phase {p}, {back_ms} ms back, \
                             {resets} reset(s) before)"
                        ));
                    }
                    resets += 1;
                }
            }
            last = Some(id);
        }
        // The step back beyond the allowance is the one documented reset: it does
        // happen, once, in every thread (each makes IDs for a while after it).
        if resets != 1 {
            return Err(format!("thread {t}: {resets} resets, expected 1"));
        }
    }
    for (p, n) in per_phase.iter().enumerate() {
        if *n == 0 {
            return Err(format!("no ID was made in phase {p}"));
        }
    }
    if scenario == Scenario::SharedGenerator {
        // The forward step and the small step back are no rollback beyond the
        // allowance; the 60 s step back is, once (then `generate` resets).
        if rollbacks_reported[..RESET_PHASE as usize]
            .iter()
            .sum::<usize>()
            > 0
        {
            return Err(format!(
                "generate_or_abort reported a rollback for a step forward or within the \
                 allowance: {rollbacks_reported:?} per phase"
            ));
        }
        if rollbacks_reported[RESET_PHASE as usize] != 1 {
            return Err(format!(
                "the 60 s step back was reported {} times, expected once",
                rollbacks_reported[RESET_PHASE as usize]
            ));
        }
    }
    Ok(format!(
        "{total} IDs, per phase {per_phase:?}, rollbacks reported {rollbacks_reported:?}"
    ))
}
