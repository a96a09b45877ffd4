//! Real forks against the fork detection and the crate's locks, from the adversarial
//! review of issue 10 (since issue 18 no lock is held across `fork()`: a child takes
//! the crate's locks back from the threads it does not have).
//!
//! - A constructor that runs before the crate's (the program's own, e.g. with the
//!   `ctor` crate, or a library loaded earlier) registers its fork handlers first,
//!   and glibc runs child handlers in registration order: its child handler runs
//!   before ours (then, while our prepare handler still held the crate's locks for
//!   the forking thread). This file registers such a handler from its own `.init_array`
//!   entry (the test crate's objects come first on the link line). Before the fix, a
//!   `scru128()` there spent the parent's block (the parent made the very same ID) or
//!   waited forever for a lock its own thread held. Now the fork count lives on a
//!   page the kernel zeroes in the child (`MADV_WIPEONFORK`).
//! - A fork by the raw system call runs no handlers at all: before the fix it was not
//!   counted; the zeroed page counts it.
//! - Held: 300 forks while three threads hammer `SystemClock` (the clock's lock),
//!   `scru128()` (the shared lock) and a `Mutex<Scru128Generator>`; each child uses
//!   all three; no child hangs.
//! - Held (review of issue 18): 200 forks by the raw system call while two threads
//!   hammer `SystemClock` and `scru128()`: no child hangs, none repeats a parent's ID.
//! - Held: a generator over a seeded source and a frozen clock moved past the
//!   per-second renewal, copied into a child and a grandchild (once with the child
//!   using it before it forks, once not), all filling with `fill` first: the three
//!   processes share no ID and no random stream.
#![cfg(target_os = "linux")]

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use scru128::{Clock, Scru128Generator, Scru128Id, SystemClock, scru128};

mod common;
use common::processes::{ids_from_bytes, pipe, read_to_end, serial, wait_with_timeout, write_all};

/// The IDs sent through the pipe end `fd`, which it closes.
fn read_ids(fd: libc::c_int) -> Vec<Scru128Id> {
    let mut bytes = Vec::new();
    read_to_end(fd, &mut bytes).unwrap();
    ids_from_bytes(&bytes)
}

// ---------------------------------------------------------------------------------
// Finding 5: a child handler registered before the crate's.

static EARLY_ARMED: AtomicBool = AtomicBool::new(false);
static EARLY_HI: AtomicU64 = AtomicU64::new(0);
static EARLY_LO: AtomicU64 = AtomicU64::new(0);

extern "C" fn early_child() {
    if EARLY_ARMED.load(Ordering::Relaxed) {
        let id = scru128().as_u128();
        EARLY_HI.store((id >> 64) as u64, Ordering::Relaxed);
        EARLY_LO.store(id as u64, Ordering::Relaxed);
    }
}

extern "C" fn register_early() {
    // SAFETY: only stores a function pointer; `early_child` cannot unwind... unless
    // `scru128()` panics, which aborts the child (reported as a failure).
    unsafe { libc::pthread_atfork(None, None, Some(early_child)) };
}

#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER_EARLY: extern "C" fn() = register_early;

#[test]
fn a_child_handler_registered_before_the_crates_makes_no_parent_id() {
    let _serial = serial();
    let rounds = 20;
    let (mut hung, mut repeated, mut examples) = (0, 0, Vec::new());
    for _ in 0..rounds {
        let (r, w) = pipe();
        let _ = scru128();
        EARLY_ARMED.store(true, Ordering::Relaxed);
        // SAFETY: the child only sends what its early handler made and leaves.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let id = (u128::from(EARLY_HI.load(Ordering::Relaxed)) << 64)
                | u128::from(EARLY_LO.load(Ordering::Relaxed));
            let code = i32::from(!write_all(w, &Scru128Id::from_u128(id).to_bytes()));
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(code) }
        }
        EARLY_ARMED.store(false, Ordering::Relaxed);
        // SAFETY: our copy of the write end, closed once.
        unsafe { libc::close(w) };
        let parent: Vec<Scru128Id> = (0..300).map(|_| scru128()).collect();
        if wait_with_timeout(pid, Duration::from_secs(2)).is_none() {
            hung += 1;
            let _ = read_ids(r);
            continue;
        }
        let early = read_ids(r)[0];
        if let Some(p) = parent
            .iter()
            .find(|p| (p.timestamp(), p.counter()) == (early.timestamp(), early.counter()))
        {
            repeated += 1;
            examples.push(format!("child {early} / parent {p}"));
        }
    }
    assert!(
        hung == 0 && repeated == 0,
        "of {rounds} forks, {hung} children hung in their early handler's scru128() and \
         {repeated} made a (timestamp, counter) of the parent's next IDs: {examples:?}"
    );
}

/// A fork that bypasses `pthread_atfork` (the raw `fork` or `clone` system call, as
/// some runtimes and sandboxing libraries make it) is counted too: the kernel zeroes
/// the count's page (`MADV_WIPEONFORK`). Before that, the child spent its parent's
/// block and made the parent's next IDs, bit for bit.
#[test]
fn a_fork_by_the_raw_system_call_makes_no_parent_id() {
    let _serial = serial();
    let mut shared = Vec::new();
    for _ in 0..10 {
        let (r, w) = pipe();
        let _ = scru128();
        // SAFETY: the raw system call, as a runtime would make it; the child only
        // makes IDs into memory of its own, writes them and leaves with `_exit`.
        let pid = unsafe { libc::syscall(libc::SYS_fork) };
        assert!(pid >= 0);
        if pid == 0 {
            let mut bytes = [0u8; 16 * 8];
            for chunk in bytes.chunks_exact_mut(16) {
                chunk.copy_from_slice(&scru128().to_bytes());
            }
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(i32::from(!write_all(w, &bytes))) }
        }
        // SAFETY: our copy of the write end, closed once.
        unsafe { libc::close(w) };
        let parent: HashSet<Scru128Id> = (0..8).map(|_| scru128()).collect();
        let pid = libc::pid_t::try_from(pid).unwrap();
        assert!(wait_with_timeout(pid, Duration::from_secs(5)).is_some());
        shared.extend(read_ids(r).into_iter().filter(|id| parent.contains(id)));
    }
    assert!(
        shared.is_empty(),
        "in 10 raw forks, child and parent both made {} IDs, e.g. {}",
        shared.len(),
        shared[0]
    );
}

// ---------------------------------------------------------------------------------
// Held: forks while the clock's lock and the shared lock are contended.

#[test]
fn forks_while_threads_hammer_the_clock_and_the_generators_never_hang_a_child() {
    let _serial = serial();
    static STOP: AtomicBool = AtomicBool::new(false);
    static SHARED: Mutex<Option<Scru128Generator>> = Mutex::new(None);
    *SHARED.lock().unwrap() = Some(Scru128Generator::new());
    let busy: Vec<_> = (0..3)
        .map(|k| {
            std::thread::spawn(move || {
                while !STOP.load(Ordering::Relaxed) {
                    match k {
                        0 => {
                            std::hint::black_box(SystemClock.unix_ts_ms());
                        }
                        1 => {
                            std::hint::black_box(scru128());
                        }
                        _ => {
                            let mut g = SHARED.lock().unwrap();
                            std::hint::black_box(g.as_mut().unwrap().generate());
                        }
                    }
                }
            })
        })
        .collect();
    let mut hung = 0;
    let forks = 300;
    for _ in 0..forks {
        // SAFETY: the child uses the clock and the generators, then leaves with
        // `_exit`. (The shared generator's mutex may be inherited locked by the
        // busy thread: `try_lock`.)
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let start = Instant::now();
            // Past the current window, so that the child refreshes the clock too.
            while start.elapsed() < Duration::from_millis(2) {
                std::hint::black_box(SystemClock.unix_ts_ms());
                std::hint::black_box(scru128());
            }
            if let Ok(mut g) = SHARED.try_lock() {
                std::hint::black_box(g.as_mut().unwrap().generate());
            }
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(0) };
        }
        if wait_with_timeout(pid, Duration::from_secs(5)).is_none() {
            hung += 1;
        }
    }
    STOP.store(true, Ordering::Relaxed);
    for h in busy {
        h.join().unwrap();
    }
    assert_eq!(hung, 0, "{hung} of {forks} children hung");
}

// ---------------------------------------------------------------------------------
// Held (review of issue 18): forks by the raw system call while threads hammer the
// clock and the shared generator. No handler runs, so only the zeroed fork count tells
// the child that the crate's locks, maybe held by a thread it does not have, are to be
// taken over; and the child's IDs must not be the parent's.

#[test]
fn raw_forks_while_threads_hammer_the_locks_never_hang_a_child_or_repeat_an_id() {
    let _serial = serial();
    static STOP: AtomicBool = AtomicBool::new(false);
    STOP.store(false, Ordering::Relaxed);
    let busy: Vec<_> = (0..2)
        .map(|k| {
            std::thread::spawn(move || {
                while !STOP.load(Ordering::Relaxed) {
                    if k == 0 {
                        std::hint::black_box(SystemClock.unix_ts_ms());
                    } else {
                        std::hint::black_box(scru128());
                    }
                }
            })
        })
        .collect();
    let (mut hung, mut failed, mut repeated) = (0, 0, 0);
    let forks = 200;
    for _ in 0..forks {
        let (r, w) = pipe();
        let _ = scru128();
        // SAFETY: the raw system call; the child only uses the clock and the
        // process-wide generator (neither allocates), writes its IDs into a pipe and
        // leaves with `_exit`.
        let pid = unsafe { libc::syscall(libc::SYS_fork) };
        assert!(pid >= 0);
        if pid == 0 {
            let mut bytes = [0u8; 16 * 64];
            let start = Instant::now();
            let mut last = Scru128Id::MIN;
            let mut ok = true;
            // Past the current window, so that the child refreshes the clock too.
            while start.elapsed() < Duration::from_millis(2) {
                std::hint::black_box(SystemClock.unix_ts_ms());
                let id = scru128();
                ok &= id > last;
                last = id;
            }
            for chunk in bytes.chunks_exact_mut(16) {
                chunk.copy_from_slice(&scru128().to_bytes());
            }
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(i32::from(!(ok && write_all(w, &bytes)))) }
        }
        // SAFETY: our copy of the write end, closed once.
        unsafe { libc::close(w) };
        let parent: HashSet<Scru128Id> = (0..64).map(|_| scru128()).collect();
        let pid = libc::pid_t::try_from(pid).unwrap();
        match wait_with_timeout(pid, Duration::from_secs(5)) {
            None => hung += 1,
            Some(status) => {
                failed += usize::from(!libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0);
                repeated += read_ids(r).iter().filter(|id| parent.contains(id)).count();
            }
        }
    }
    STOP.store(true, Ordering::Relaxed);
    for h in busy {
        h.join().unwrap();
    }
    assert_eq!(
        (hung, failed, repeated),
        (0, 0, 0),
        "of {forks} raw forks: children hung, children whose IDs went down (or that \
         could not write them), IDs the parent made too"
    );
}

// ---------------------------------------------------------------------------------
// Held: a seeded generator in a child and a grandchild, `fill` first.

static NOW: AtomicU64 = AtomicU64::new(0);
const T0: u64 = 1_700_000_000_000;
const N: usize = 20_000;

fn fill_n<R: scru128::RandomSource, C: Clock>(g: &mut Scru128Generator<R, C>) -> Vec<Scru128Id> {
    let mut ids = vec![Scru128Id::MIN; N];
    for chunk in ids.chunks_mut(1_000) {
        g.fill(chunk);
    }
    ids
}

fn three_generations(child_uses_it_before_forking: bool) {
    NOW.store(T0, Ordering::Relaxed);
    let mut g = Scru128Generator::with_rng_and_clock(common::xorshift32(0x00c0_ffee), || {
        NOW.load(Ordering::Relaxed)
    });
    let before = fill_n(&mut g);
    NOW.store(T0 + 3_000, Ordering::Relaxed);
    let (r_child, w_child) = pipe();
    let (r_grand, w_grand) = pipe();
    // SAFETY: the child (and grandchild) fill into memory of their own, write to a
    // pipe and leave with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let mut mine = Vec::new();
        if child_uses_it_before_forking {
            mine = fill_n(&mut g);
        }
        // SAFETY: as above.
        let grand = unsafe { libc::fork() };
        if grand == 0 {
            // SAFETY: the grandchild's copy of the child's write end, closed once (so
            // that the parent sees the child's pipe end when the child is done).
            unsafe { libc::close(w_child) };
            let ids = fill_n(&mut g);
            let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_bytes()).collect();
            // SAFETY: ends the grandchild at once.
            unsafe { libc::_exit(i32::from(!write_all(w_grand, &bytes))) };
        }
        // SAFETY: the child's copy of the grandchild's write end, closed once.
        unsafe { libc::close(w_grand) };
        if !child_uses_it_before_forking {
            mine = fill_n(&mut g);
        }
        let bytes: Vec<u8> = mine.iter().flat_map(|id| id.to_bytes()).collect();
        let ok = write_all(w_child, &bytes);
        // SAFETY: closed once, before waiting, so that the parent sees the end.
        unsafe { libc::close(w_child) };
        let mut status = 0;
        // SAFETY: `grand` is this child's child.
        unsafe { libc::waitpid(grand, &raw mut status, 0) };
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(i32::from(!ok)) };
    }
    // SAFETY: our copies of the write ends, closed once each.
    unsafe {
        libc::close(w_child);
        libc::close(w_grand);
    }
    let parent = fill_n(&mut g);
    let child = read_ids(r_child);
    let grand = read_ids(r_grand);
    assert!(wait_with_timeout(pid, Duration::from_secs(20)).is_some());
    assert_eq!((child.len(), grand.len()), (N, N));
    let all = [parent, child, grand];
    let mut seen: HashSet<(u64, u32, u32, u32)> = before
        .iter()
        .map(|id| {
            (
                id.timestamp(),
                id.counter(),
                id.per_sec_random(),
                id.per_gen_random(),
            )
        })
        .collect();
    let mut per_gen = HashSet::new();
    let mut per_gen_repeats = 0;
    for (p, ids) in all.iter().enumerate() {
        for w in ids.windows(2) {
            assert!(w[0] < w[1], "process {p}: {} then {}", w[0], w[1]);
        }
        assert!(ids[0] > *before.last().unwrap());
        for id in ids {
            let f = (
                id.timestamp(),
                id.counter(),
                id.per_sec_random(),
                id.per_gen_random(),
            );
            assert!(seen.insert(f), "process {p} repeats {id}");
            if !per_gen.insert(id.per_gen_random()) {
                per_gen_repeats += 1;
            }
        }
    }
    // 60 000 random 32-bit values meet about 0.4 times by chance.
    assert!(
        per_gen_repeats < 20,
        "{per_gen_repeats} shared per_gen_random values"
    );
}

#[test]
fn a_seeded_generator_in_child_and_grandchild_repeats_nothing() {
    let _serial = serial();
    three_generations(false);
    three_generations(true);
}
