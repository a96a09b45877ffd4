//! Several processes forked from one, all generating at once: the parent, 4 children
//! and a grandchild under each child, through the process-wide `scru128()` and through
//! a generator created before the forks. No ID is shared between any two of the 9
//! processes, and each process's IDs increase. (tests/fork.rs checks one child
//! field by field.)
//!
//! Also a fork while other threads of the parent are inside `scru128()` (a child that
//! hung there was a bug found by this file and fixed; CHANGELOG.md, "Bugs found by
//! the tests and reviews", 2).
//!
//! A binary of its own; its tests take turns, so that no thread of this process is
//! inside the generator at the moment of a fork (except where that is the test). A
//! child allocates nothing after the fork: its buffers are made before, and it writes
//! with `common::processes::write_all`, which allocates nothing.
#![cfg(unix)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use scru128::{Scru128Generator, Scru128Id, scru128};

mod common;
use common::processes::{
    ids_from_bytes, pipe, read_to_end, serial, wait, wait_with_timeout, write_all,
};

const CHILDREN: usize = 4;
const N: usize = 50_000;

/// In a child: closes every pipe end but `fd` (so that each pipe reaches its end of
/// file when its own writer is done), fills `buf` with `make`, sends it through `fd`
/// and leaves.
fn child_sends(
    pipes: &[(libc::c_int, libc::c_int)],
    buf: &mut [[u8; 16]],
    fd: libc::c_int,
    make: &mut impl FnMut() -> Scru128Id,
) -> ! {
    for &(r, w) in pipes {
        // SAFETY: closes this process's copies of the other pipe ends, once each.
        unsafe {
            libc::close(r);
            if w != fd {
                libc::close(w);
            }
        }
    }
    for slot in buf.iter_mut() {
        *slot = make().to_bytes();
    }
    let code = i32::from(!write_all(fd, buf.as_flattened()));
    // SAFETY: ends the process at once, without the parent's destructors or atexit.
    unsafe { libc::_exit(code) }
}

/// Forks `CHILDREN` children, each of which forks a grandchild; all of them and the
/// parent call `make` `N` times at once. Returns the IDs of every process.
fn fork_tree(mut make: impl FnMut() -> Scru128Id) -> Vec<Vec<Scru128Id>> {
    let processes = 2 * CHILDREN;
    let pipes: Vec<(libc::c_int, libc::c_int)> = (0..processes).map(|_| pipe()).collect();
    let mut buf = vec![[0u8; 16]; N];
    let mut pids = Vec::with_capacity(CHILDREN);
    for c in 0..CHILDREN {
        // SAFETY: the child only generates into memory allocated before, forks once
        // more, writes to its pipe and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: as above, for the grandchild.
            let grandchild = unsafe { libc::fork() };
            if grandchild == 0 {
                child_sends(&pipes, &mut buf, pipes[CHILDREN + c].1, &mut make);
            }
            let fd = if grandchild > 0 { pipes[c].1 } else { -1 };
            child_sends(&pipes, &mut buf, fd, &mut make);
        }
        pids.push(pid);
    }
    // The parent generates while the others do.
    let mine: Vec<Scru128Id> = (0..N).map(|_| make()).collect();
    for &(_, w) in &pipes {
        // SAFETY: our copy of each write end, closed once.
        unsafe { libc::close(w) };
    }
    let mut all = vec![mine];
    for &(r, _) in &pipes {
        let mut bytes = Vec::with_capacity(N * 16);
        read_to_end(r, &mut bytes).unwrap();
        assert_eq!(bytes.len(), N * 16, "a process did not send all its IDs");
        all.push(ids_from_bytes(&bytes));
    }
    for pid in pids {
        // (Grandchildren are reaped by init.)
        let status = wait(pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }
    all
}

fn assert_disjoint_and_increasing(all: &[Vec<Scru128Id>]) {
    let mut seen = HashSet::with_capacity(all.len() * N);
    for (p, ids) in all.iter().enumerate() {
        assert_eq!(ids.len(), N);
        for w in ids.windows(2) {
            assert!(w[0] < w[1], "process {p}: {} then {}", w[0], w[1]);
        }
        for id in ids {
            assert!(seen.insert(*id), "process {p} repeats {id}");
        }
    }
    // Unrelated random streams: the per_gen_random values of the processes barely
    // meet (about (9N)²/2^33 ≈ 24 equal pairs by chance); a copied stream would meet
    // thousands of times.
    let mut values = HashSet::new();
    let repeats = all
        .iter()
        .flatten()
        .filter(|id| !values.insert(id.per_gen_random()))
        .count();
    assert!(repeats < 200, "{repeats} repeated per_gen_random values");
}

#[test]
fn process_wide_generator_in_nine_processes_at_once() {
    let _serial = serial();
    let before = scru128();
    let all = fork_tree(scru128);
    assert!(all.iter().all(|ids| ids[0] > before));
    assert_disjoint_and_increasing(&all);
}

#[test]
fn one_generator_copied_into_nine_processes() {
    let _serial = serial();
    let mut g = Scru128Generator::new();
    let before = g.generate();
    let all = fork_tree(|| g.generate());
    assert!(all.iter().all(|ids| ids[0] > before));
    assert_disjoint_and_increasing(&all);
}

/// The process-wide generator's shared state sits behind a `std::sync::Mutex`. If
/// another thread held that lock at the moment of a `fork()` (it does for a few
/// nanoseconds every 256 IDs it makes), the child's copy of the lock would stay
/// locked forever and the child's first `scru128()` would hang (seen in about 1 fork
/// in 300 with two busy threads before the fix): a fork handler now holds the lock
/// across `fork()`. 1000 forks while two threads generate; no child may hang.
#[test]
fn a_fork_while_other_threads_generate_never_hangs_the_child() {
    let _serial = serial();
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = scru128();
    let busy: Vec<_> = (0..2)
        .map(|_| {
            thread::spawn(|| {
                while !STOP.load(Ordering::Relaxed) {
                    std::hint::black_box(scru128());
                }
            })
        })
        .collect();
    let mut hung = 0;
    let forks = 1000;
    for _ in 0..forks {
        // SAFETY: the child makes one ID and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            std::hint::black_box(scru128());
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(0) };
        }
        if wait_with_timeout(pid, Duration::from_secs(2)).is_none() {
            hung += 1;
        }
    }
    STOP.store(true, Ordering::Relaxed);
    for h in busy {
        h.join().unwrap();
    }
    assert_eq!(hung, 0, "{hung} of {forks} children hung in scru128()");
}
