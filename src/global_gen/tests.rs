//! The claims with an injected clock, random source and fork count: several `Local`s
//! stand for threads, one `Shared` for the process. Another thread's claim between a
//! thread's loads and its compare-exchange (where a real thread can be preempted, or
//! interrupted by a signal) is made from inside the first thread's clock read.

use core::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::vec;
use std::vec::Vec;

use super::{Block, Local, Shared};
use crate::Scru128Id;
use crate::id::TIMESTAMP_BIAS;

/// The fast path spends a block only under an anchor whose millisecond the slow path
/// found in the block's range of readings, both ends included.
#[test]
fn a_block_notes_only_an_anchor_inside_its_range() {
    let mut block = Block {
        claimed_at_ms: 1_700_000_000_100,
        timestamp: 1_700_000_000_105 - TIMESTAMP_BIAS,
        ..Block::EMPTY
    };
    for (anchor, noted) in [
        ((4, 1_700_000_000_099), 0),
        ((4, 1_700_000_000_100), 4),
        ((6, 1_700_000_000_103), 6),
        ((8, 1_700_000_000_105), 8),
        ((10, 1_700_000_000_106), 0),
        ((0, 0), 0),
    ] {
        block.note_anchor(anchor);
        assert_eq!(block.anchor, noted, "{anchor:?}");
    }
}

const T0: u64 = 1_700_000_000_000;

/// A counting random source; panics at the draw `fail_at` (1-based).
struct Counting {
    draws: Cell<u32>,
    fail_at: Cell<u32>,
}

impl Counting {
    fn new() -> Self {
        Self {
            draws: Cell::new(0),
            fail_at: Cell::new(0),
        }
    }
}

impl super::PerIdRandom for &Counting {
    fn per_id(&mut self, _: u32) -> u32 {
        crate::RandomSource::next_u32(self)
    }
}

impl crate::RandomSource for &Counting {
    fn next_u32(&mut self) -> u32 {
        let n = self.draws.get() + 1;
        self.draws.set(n);
        assert!(n != self.fail_at.get(), "no entropy");
        n.wrapping_mul(0x9e37_79b9)
    }
}

type Thread<'a> = Local<&'a Counting>;

fn thread() -> Thread<'static> {
    Local::new()
}

/// One ID for a thread whose clock reads `ms`, under the fork count `epoch`.
fn next<'a>(
    t: &mut Thread<'a>,
    shared: &Shared,
    rng: &'a Counting,
    ms: u64,
    epoch: u32,
) -> Scru128Id {
    t.next_id(move || epoch, shared, || ms, || rng).unwrap()
}

fn pairs(ids: &[Scru128Id]) -> Vec<(u64, u32)> {
    ids.iter()
        .map(|id| (id.timestamp(), id.counter()))
        .collect()
}

fn assert_increasing(ids: &[Scru128Id]) {
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{} !< {}", w[0], w[1]);
    }
}

/// Issue 10, defect 1, and the claim's compare-exchange: thread A loads the words
/// and reads the clock, but before A's claim lands, thread B claims at the time after
/// a +1 h step (here from inside A's clock read, which still gives A the time before
/// the step, as a reading taken just before B's claim). A's claim then fails, and A
/// reads the clock again after B's claim: it moves to the stepped time instead of
/// taking its old reading for a rollback of an hour and resetting.
#[test]
fn a_claim_that_lost_to_another_reads_the_clock_again() {
    let shared = Shared::new();
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let step = T0 + 3_600_000;
    let first_a = next(&mut a, &shared, &ra, T0, 1);
    a.block.end = a.block.next; // A's next ID claims
    let reads = Cell::new(0);
    let clock = || {
        reads.set(reads.get() + 1);
        if reads.get() == 1 {
            next(&mut b, &shared, &rb, step, 1);
            T0
        } else {
            step
        }
    };
    let id = a.next_id(|| 1, &shared, clock, || &ra).unwrap();
    assert_eq!(
        reads.get(),
        2,
        "the clock read once more after the lost claim"
    );
    assert_eq!(id.unix_ts_ms(), step);
    assert!(id > first_a);
    assert_eq!(
        shared.stamp.0.load(core::sync::atomic::Ordering::Relaxed) >> super::TIMESTAMP_BITS,
        0,
        "no reset"
    );
}

/// Threads through a +1 h step, read as the process clock gives it: every thread
/// alike may get the millisecond before the step for less than a millisecond after
/// it, and once one thread has the new time, every reading taken after is new (a
/// claim reads the clock after loading the word, so a thread never claims with a
/// reading older than the claim it follows: the test above). No thread's IDs go down,
/// and no `(timestamp, counter)` comes twice.
#[test]
fn threads_around_a_step_stay_increasing_and_unique() {
    let shared = Shared::new();
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let step = T0 + 3_600_000;
    let mut ids_a = vec![next(&mut a, &shared, &ra, T0, 1)];
    let mut ids_b = vec![next(&mut b, &shared, &rb, T0, 1)];
    for i in 0..2_000 {
        let ms = if i < 1_000 { T0 } else { step };
        ids_a.push(next(&mut a, &shared, &ra, ms, 1));
        if i % 3 == 0 {
            a.block.end = a.block.next; // claims often
        }
        ids_b.push(next(&mut b, &shared, &rb, ms, 1));
    }
    assert_increasing(&ids_a);
    assert_increasing(&ids_b);
    let mut all = pairs(&ids_a);
    all.extend(pairs(&ids_b));
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "a (timestamp, counter) came twice");
    assert!(ids_a[1_001..].iter().all(|id| id.unix_ts_ms() == step));
}

/// Issue 10, defect 4: an idle thread's old block does not come back into use after
/// the clock steps back (within the allowance) to its millisecond: its IDs then carry
/// the newest timestamp, as other threads' do.
#[test]
fn an_idle_block_does_not_come_back_after_a_step_back_to_it() {
    let shared = Shared::new();
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let old = next(&mut a, &shared, &ra, T0, 1); // A claims at T0, then idles
    // B goes on for 5 s.
    let mut last_b = next(&mut b, &shared, &rb, T0 + 5_000, 1);
    // The clock steps back 5 s, to A's millisecond exactly.
    let ida = next(&mut a, &shared, &ra, T0, 1);
    assert_eq!(
        ida.unix_ts_ms(),
        T0 + 5_000,
        "A spent its old block at {}",
        old.unix_ts_ms()
    );
    assert!(ida > old);
    for _ in 0..1_000 {
        let idb = next(&mut b, &shared, &rb, T0 + 1, 1);
        assert!(idb > last_b);
        assert_eq!(idb.unix_ts_ms(), T0 + 5_000);
        last_b = idb;
    }
    // A step back to a time between A's claim and its block's timestamp ends the
    // block too (the reading is before the claim's).
    let shared = Shared::new();
    let mut c = thread();
    let rc = Counting::new();
    next(&mut c, &shared, &rc, T0 + 10, 1);
    next(&mut c, &shared, &rc, T0 + 9, 1);
    assert_eq!(
        c.block.claimed_at_ms,
        T0 + 9,
        "no new claim for a step back"
    );
}

/// Issue 18, item 4: "an old block never comes back" held only until a reset. After
/// the clock went back beyond the allowance (a reset) and came forward again to an
/// idle thread's millisecond, that thread's old block looked current again (the newest
/// timestamp was its own), and the rest of it could meet the counters the reset state
/// hands out there. The reset count in the stamp ends it.
#[test]
fn an_old_block_does_not_come_back_after_a_reset_either() {
    let shared = Shared::new();
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let old = next(&mut a, &shared, &ra, T0, 1); // A claims at T0, then idles
    let old_stamp = a.block.stamp;
    // B: the clock goes back 20 s (beyond the 10 s allowance: a reset), then
    // forward again to T0.
    next(&mut b, &shared, &rb, T0 - 20_000, 1);
    let b_at_t0 = next(&mut b, &shared, &rb, T0, 1);
    assert_eq!(b_at_t0.unix_ts_ms(), T0);
    let ida = next(&mut a, &shared, &ra, T0, 1);
    assert_ne!(
        a.block.stamp, old_stamp,
        "A spent its block from before the reset"
    );
    assert_eq!(
        a.block.stamp >> super::TIMESTAMP_BITS,
        1,
        "one reset counted"
    );
    assert!(ida.counter() != old.counter() + 1 || ida.unix_ts_ms() != T0);
    assert!(ida > b_at_t0);
}

/// The process-wide rollback allowance (`__private::set_process_rollback_allowance`,
/// which the npm addon sets to `u64::MAX`): a step back of 60 s resets under the
/// default and is carried through under the largest, as npm scru128 1.0.1 did (the
/// IDs keep the newest timestamp and go on increasing).
#[test]
fn the_rollback_allowance_decides_what_a_step_back_is() {
    for (allowance, resets) in [(super::DEFAULT_ROLLBACK_ALLOWANCE, true), (u64::MAX, false)] {
        let shared = Shared::new();
        shared
            .rollback_allowance
            .store(allowance, core::sync::atomic::Ordering::Relaxed);
        let rng = Counting::new();
        let mut t = thread();
        let before = next(&mut t, &shared, &rng, T0, 1);
        let after = next(&mut t, &shared, &rng, T0 - 60_000, 1);
        assert_eq!(after < before, resets, "allowance {allowance}");
        let expected_ms = if resets { T0 - 60_000 } else { T0 };
        assert_eq!(after.unix_ts_ms(), expected_ms, "allowance {allowance}");
    }
}

/// A reset raises the reset count before its own claim exists: thread C claims a
/// block in the old run while the resetting thread R is between its loads and its
/// claim (here, inside R's clock read). R's claim fails, R looks again and resets
/// with a count above C's block's, so C's block is dead although it was claimed after
/// R first read the stamp; when the clock comes back to C's millisecond, C claims
/// afresh instead of spending counters that the new run may hand out there.
#[test]
fn a_block_claimed_while_another_thread_resets_is_dead_after_the_reset() {
    let shared = Shared::new();
    let (rr, rc) = (Counting::new(), Counting::new());
    let (mut r, mut c) = (thread(), thread());
    next(&mut r, &shared, &rr, T0, 1);
    next(&mut c, &shared, &rc, T0, 1);
    c.block.end = c.block.next; // C's next ID claims
    r.block.end = r.block.next; // so does R's
    let back = T0 - 20_000;
    let reads = Cell::new(0);
    let clock = || {
        reads.set(reads.get() + 1);
        if reads.get() == 1 {
            // C's claim lands first, in the old run.
            next(&mut c, &shared, &rc, T0, 1);
        }
        back
    };
    let reset = r.next_id(|| 1, &shared, clock, || &rr).unwrap();
    assert_eq!(reset.unix_ts_ms(), back);
    assert!(c.block.stamp >> super::TIMESTAMP_BITS < r.block.stamp >> super::TIMESTAMP_BITS);
    // The clock comes forward to T0 again; R's run claims there.
    let r_at_t0 = next(&mut r, &shared, &rr, T0, 1);
    let c_before = c.block;
    let c_at_t0 = next(&mut c, &shared, &rc, T0, 1);
    assert_ne!(
        c.block.stamp, c_before.stamp,
        "C spent its block from the old run"
    );
    assert_ne!(pairs(&[c_at_t0]), pairs(&[r_at_t0]));
}

/// Many threads, preempted at the clock read by the others' claims in a pattern
/// drawn at random, through small and large steps of the clock: each thread's IDs
/// increase (but across a reset), and no `(timestamp, counter)` comes twice within a
/// run of the shared word.
#[test]
fn interleaved_claims_stay_increasing_and_unique() {
    let shared = Shared::new();
    let rngs: Vec<Counting> = (0..6).map(|_| Counting::new()).collect();
    let threads: Vec<core::cell::RefCell<Thread<'_>>> = (0..6)
        .map(|_| core::cell::RefCell::new(Local::new()))
        .collect();
    let mut ids: Vec<Vec<Scru128Id>> = vec![Vec::new(); 6];
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut random = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut now = T0;
    let mut resets_seen = 0;
    for round in 0..20_000u32 {
        match round % 5_000 {
            1_000 => now += 3_600_000, // forward an hour
            2_000 => now -= 3_000,     // back within the allowance
            3_000 => now -= 60_000,    // back beyond it: a reset
            _ => now += u64::from(random() % 4 == 0),
        }
        let t = (random() % 6) as usize;
        let other = (random() % 6) as usize;
        let interrupt = other != t && random() % 3 == 0;
        let mut this = threads[t].borrow_mut();
        if random() % 7 == 0 {
            this.block.end = this.block.next; // a claim now
        }
        let reads = Cell::new(0);
        let clock = || {
            reads.set(reads.get() + 1);
            if interrupt && reads.get() == 1 {
                let mut o = threads[other].borrow_mut();
                o.block.end = o.block.next;
                let id = o.next_id(|| 1, &shared, || now, || &rngs[other]).unwrap();
                ids[other].push(id);
            }
            now
        };
        let id = this.next_id(|| 1, &shared, clock, || &rngs[t]).unwrap();
        drop(this);
        ids[t].push(id);
        let resets =
            shared.stamp.0.load(core::sync::atomic::Ordering::Relaxed) >> super::TIMESTAMP_BITS;
        resets_seen = resets_seen.max(resets);
    }
    assert_eq!(resets_seen, 4, "one reset per cycle");
    let mut all = Vec::new();
    for thread_ids in &ids {
        // Increasing, but for one fall at each reset.
        let falls = thread_ids.windows(2).filter(|w| w[0] >= w[1]).count();
        assert!(falls <= 4, "{falls} falls");
        // Within each run (between two resets), unique.
        all.extend(thread_ids.iter().copied());
    }
    let n = all.len();
    let mut by_pair = pairs(&all);
    by_pair.sort_unstable();
    by_pair.dedup();
    // Runs after a reset go back 60 s into milliseconds no earlier run used (the
    // clock moves on by about a millisecond per few rounds), so here no pair at all
    // comes twice.
    assert_eq!(by_pair.len(), n, "a (timestamp, counter) came twice");
}

/// Issue 10, defect 2: after a fork, a reseed that fails (a panic, caught by the
/// caller) leaves no usable block behind: the retry claims a fresh block at a fresh
/// millisecond instead of spending the rest of the parent's.
#[test]
fn a_caught_panic_in_the_first_claim_after_a_fork_leaves_nothing_to_reuse() {
    let shared = Shared::new();
    let rng = Counting::new();
    let mut t = thread();
    let parent: Vec<Scru128Id> = (0..10)
        .map(|_| next(&mut t, &shared, &rng, T0, 1))
        .collect();
    // What the parent goes on with: the rest of its block.
    let mut parent_copy = Local {
        rng: t.rng,
        block: t.block,
        per_sec: t.per_sec,
    };
    let parent_next = next(&mut parent_copy, &shared, &rng, T0, 1);
    // In the child (fork count 2) the first draw fails.
    rng.fail_at.set(rng.draws.get() + 1);
    let failed = catch_unwind(AssertUnwindSafe(|| next(&mut t, &shared, &rng, T0, 2)));
    assert!(failed.is_err());
    let child = next(&mut t, &shared, &rng, T0, 2);
    assert!(
        child.timestamp() > parent_next.timestamp(),
        "{child} vs {parent_next}"
    );
    assert!(child > *parent.last().unwrap());
}

/// Review of issue 18 (item 4's "one read of the fork count per ID"): a fork inside a
/// claim (a signal handler that interrupted it and forked; here the clock read of the
/// claim forks, which is the same moment) must not make parent and child return the
/// same ID: the interrupted call goes on in the child with the fork count it read
/// before the fork. The fork count is read again once the ID is made, and the child
/// makes it again (issue 29).
#[cfg(target_os = "linux")]
#[test]
fn a_fork_inside_a_claim_never_gives_parent_and_child_the_same_id() {
    use crate::default_rng::DefaultRng;
    use std::io::{Read as _, Write as _};
    use std::os::fd::FromRawFd as _;

    let shared = Shared::new();
    let mut t: Local<DefaultRng> = Local::new();
    // One millisecond throughout, so that the second claim steps the counter (no
    // draw) as any claim within a busy millisecond does.
    let first = t
        .next_id(crate::fork::epoch, &shared, || T0, DefaultRng::new)
        .unwrap();
    t.block.end = t.block.next; // the block is spent: the next ID claims
    let mut fds = [0; 2];
    // SAFETY: a pipe for the child's answer.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let mut pid = -1;
    let id = t
        .next_id(
            crate::fork::epoch,
            &shared,
            || {
                if pid < 0 {
                    // SAFETY: the child only finishes this call, writes the ID to the
                    // pipe and leaves with `_exit`.
                    pid = unsafe { libc::fork() };
                }
                T0
            },
            DefaultRng::new,
        )
        .unwrap();
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: the write end of the pipe, owned by this child.
        let mut out = unsafe { std::fs::File::from_raw_fd(fds[1]) };
        let _ = out.write_all(&id.to_u128().to_be_bytes());
        // SAFETY: ends the child at once.
        unsafe { libc::_exit(0) }
    }
    // SAFETY: the parent's copy of the write end, and the read end.
    unsafe { libc::close(fds[1]) };
    let mut input = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    let mut bytes = [0u8; 16];
    input.read_exact(&mut bytes).expect("the child's ID");
    let mut status = 0;
    // SAFETY: waits for the child just made.
    unsafe { libc::waitpid(pid, &raw mut status, 0) };
    let child = Scru128Id::from_u128(u128::from_be_bytes(bytes));
    assert!(id > first);
    assert_ne!(child, id, "parent and child made the same ID");
}

/// Issue 29: a fork anywhere in the call after its first read of the fork count
/// (here between the two reads, on the fast path: the ID comes from the block the
/// thread has) is noticed by the second read, and the child makes its ID again from a
/// fresh block past the parent's, with a fresh draw; the parent, whose count did not
/// move, returns the ID the call made first.
#[test]
fn a_fork_during_the_call_is_noticed_and_the_child_makes_its_id_again() {
    let shared = Shared::new();
    let rng = Counting::new();
    let mut t = thread();
    let earlier = next(&mut t, &shared, &rng, T0, 7);
    let mut parent = Local {
        rng: t.rng,
        block: t.block,
        per_sec: t.per_sec,
    };
    let parent_id = next(&mut parent, &shared, &rng, T0, 7);
    // The child's copy of the same call: 7 at the first read, 8 (its own count) from
    // then on.
    let reads = Cell::new(0u32);
    let child_epoch = || {
        reads.set(reads.get() + 1);
        if reads.get() == 1 { 7 } else { 8 }
    };
    let child_id = t.next_id(child_epoch, &shared, || T0, || &rng).unwrap();
    assert_eq!(
        reads.get(),
        4,
        "made and checked, then made again and checked"
    );
    assert!(
        child_id.timestamp() > parent_id.timestamp(),
        "{child_id} vs {parent_id}"
    );
    assert!(child_id > earlier);
    assert_eq!(t.block.fork_epoch, 8);
    // Without a fork the count is read twice and the ID made once.
    let reads = Cell::new(0u32);
    let steady = || {
        reads.set(reads.get() + 1);
        8
    };
    let after = t.next_id(steady, &shared, || T0, || &rng).unwrap();
    assert_eq!(reads.get(), 2);
    assert_eq!(after.counter(), child_id.counter() + 1);
}

#[test]
fn a_clock_out_of_range_at_a_claim_is_an_error_that_changes_nothing() {
    let shared = Shared::new();
    let rng = Counting::new();
    let mut t = thread();
    let first = next(&mut t, &shared, &rng, T0, 1);
    for bad in [0, TIMESTAMP_BIAS, u64::MAX] {
        let err = t.next_id(|| 1, &shared, || bad, || &rng);
        assert!(err.is_err());
    }
    assert!(next(&mut t, &shared, &rng, T0, 1) > first);
}

/// Issue 18, item 1 (reproduced by the review after 130 forks, when a prepare handler
/// took the shared lock): `fork()` from a signal handler that interrupted a claim,
/// for real, on the process's own `scru128()`. Nothing is held, so the handler
/// returns at once in the parent; in the child the interrupted claim ends, and a new
/// thread of the child makes IDs.
#[cfg(target_os = "linux")]
#[test]
fn a_fork_from_a_signal_handler_inside_a_claim_hangs_neither_process() {
    use core::sync::atomic::{AtomicBool, AtomicI32, Ordering};
    use std::os::unix::thread::JoinHandleExt as _;
    use std::time::{Duration, Instant};

    static IN_CLAIM: AtomicBool = AtomicBool::new(false);
    static RELEASE: AtomicBool = AtomicBool::new(false);
    static CHILD: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(_: libc::c_int) {
        // SAFETY: a plain fork; the child returns into the interrupted claim.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            RELEASE.store(true, Ordering::Relaxed);
        } else {
            CHILD.store(pid.max(1), Ordering::Relaxed);
        }
    }
    // SAFETY: installs a handler that forks and touches only atomics.
    unsafe {
        let mut action: libc::sigaction = core::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&raw mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGUSR2, &raw const action, core::ptr::null_mut()),
            0
        );
    }
    let parent = std::process::id();
    let claimer = std::thread::spawn(move || {
        let rng = Counting::new();
        let mut t = thread();
        let claimed = t.next_id(
            crate::fork::epoch,
            &super::SHARED,
            || {
                IN_CLAIM.store(true, Ordering::Relaxed);
                while !RELEASE.load(Ordering::Relaxed) {
                    core::hint::spin_loop();
                }
                crate::system_clock::now_ms()
            },
            || &rng,
        );
        if std::process::id() != parent {
            // The child: the claim ended, and a new thread of the child makes IDs.
            let ok = claimed.is_ok()
                && std::thread::spawn(|| (0..1000).all(|_| super::scru128() > Scru128Id::MIN))
                    .join()
                    .unwrap_or(false);
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(i32::from(!ok)) }
        }
        claimed.is_ok()
    });
    while !IN_CLAIM.load(Ordering::Relaxed) {
        std::thread::yield_now();
    }
    // SAFETY: `claimer` is a live thread of this process.
    assert_eq!(
        unsafe { libc::pthread_kill(claimer.as_pthread_t(), libc::SIGUSR2) },
        0
    );
    let asked = Instant::now();
    while CHILD.load(Ordering::Relaxed) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "the handler did not return from fork()"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    RELEASE.store(true, Ordering::Relaxed);
    assert!(claimer.join().unwrap());
    let child = CHILD.load(Ordering::Relaxed);
    let mut status = 0;
    let start = Instant::now();
    loop {
        // SAFETY: waits for our own child without blocking.
        if unsafe { libc::waitpid(child, &raw mut status, libc::WNOHANG) } == child {
            break;
        }
        if start.elapsed() > Duration::from_secs(5) {
            // SAFETY: our own child, hung: killed and reaped.
            unsafe {
                libc::kill(child, libc::SIGKILL);
                libc::waitpid(child, &raw mut status, 0);
            }
            panic!("the child hung");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child failed"
    );
}

/// The thread-local state of `scru128()` needs no destructor, so that it is there in
/// every other thread-local's destructor, in `atexit` handlers and after `main`
/// (`tests/late_calls.rs`); a random source or block that came to need dropping (a
/// dependency's zeroizing `Drop`, say) would register one, and late calls would find
/// the state gone.
#[test]
fn the_thread_local_state_needs_no_destructor() {
    assert!(!core::mem::needs_drop::<
        core::cell::RefCell<Local<crate::DefaultRng>>,
    >());
}

/// Rule 5 for a thread's IDs through a reset made by another thread (found by the
/// redesign's review): `Scru128Generator` renews `per_sec_random` at a reset, and a
/// thread's IDs follow that generator's rules but for the blocks. Thread A makes an ID
/// at T0 (renewal due again at T0 + 1000); the clock goes back 60 s and thread B's
/// claim resets; A's next claim is not itself the reset, and its timestamp is far below
/// A's `renew_at`: the reset count A's value was drawn under renews it (before the fix,
/// A kept it for 61 s of timestamps).
#[test]
fn a_thread_renews_per_sec_random_after_another_threads_reset() {
    let shared = Shared::new();
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let before = next(&mut a, &shared, &ra, T0, 1);
    let back = T0 - 60_000;
    let reset = next(&mut b, &shared, &rb, back, 1);
    assert_eq!(reset.unix_ts_ms(), back, "B's claim is the reset");
    let mut after = Vec::new();
    for ms in (back..back + 1_500).step_by(100) {
        after.push(next(&mut a, &shared, &ra, ms, 1));
    }
    assert!(after[0] < before, "A's IDs go down with the reset");
    assert_ne!(
        after[0].per_sec_random(),
        before.per_sec_random(),
        "A's first ID after the reset kept the per_sec_random of before it"
    );
    let first = after[0];
    let same: Vec<_> = after
        .iter()
        .filter(|id| id.per_sec_random() == first.per_sec_random())
        .collect();
    let span = same.last().unwrap().unix_ts_ms() - first.unix_ts_ms();
    assert!(
        span < 1_000,
        "one per_sec_random over {span} ms of A's timestamps"
    );
}

/// A counter overflow is no rollback, also under a process-wide allowance of 0
/// (found by the redesign's review): an overflow moves the shared word's timestamp one
/// millisecond ahead of the clock, and the rollback is measured from the latest clock
/// reading, as `Scru128Generator` measures it. Before the fix it was measured from the
/// word's timestamp: the next claim, with the clock still (never back) at T0, reset to
/// T0 and a fresh random counter, among the counters T0's blocks had handed out.
#[test]
fn an_overflow_is_no_rollback_under_a_process_allowance_of_0() {
    let shared = Shared::new();
    shared
        .rollback_allowance
        .store(0, core::sync::atomic::Ordering::Relaxed);
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    let mut last = next(&mut a, &shared, &ra, T0, 1);
    // A spends every block of T0, one ID per block (the clock never moves).
    while last.unix_ts_ms() == T0 {
        a.block.end = a.block.next;
        let id = next(&mut a, &shared, &ra, T0, 1);
        assert!(id > last);
        last = id;
    }
    assert_eq!(last.unix_ts_ms(), T0 + 1, "the overflow borrowed T0 + 1");
    // B's first ID, with the clock still at T0.
    let from_b = next(&mut b, &shared, &rb, T0, 1);
    assert!(
        from_b.unix_ts_ms() == T0 + 1,
        "an overflow was taken for a rollback: B reset to {} after {last}",
        from_b.unix_ts_ms()
    );
    let from_a = next(&mut a, &shared, &ra, T0, 1);
    assert!(from_a > last, "A's IDs went down: {from_a} after {last}");
}

/// The reset count wraps (20 bits above the timestamp) and the latest reading still
/// follows the runs after the wrap (found by the redesign's review): raised by
/// `fetch_max`, it kept the count 2^20 − 1 above every later one, every claim fell
/// back to the newest timestamp, and a counter overflow under an allowance of 0 was
/// a rollback again (a reset, IDs going down, the clock never back). Counts are now
/// compared for equality only.
#[test]
fn the_latest_reading_follows_the_runs_after_the_reset_count_wraps() {
    use core::sync::atomic::Ordering::Relaxed;
    let shared = Shared::new();
    shared.rollback_allowance.store(0, Relaxed);
    let (ra, rb) = (Counting::new(), Counting::new());
    let (mut a, mut b) = (thread(), thread());
    // 2^20 resets, each a real step back of 1 ms under the allowance of 0.
    let wraps = 1u64 << (64 - super::TIMESTAMP_BITS);
    for _ in 0..wraps {
        next(&mut a, &shared, &ra, T0 + 1, 1);
        next(&mut a, &shared, &ra, T0, 1);
    }
    assert_eq!(
        shared.stamp.0.load(Relaxed) >> super::TIMESTAMP_BITS,
        0,
        "wrapped"
    );
    // From here on the clock only moves forward: T0 + 10, held while A spends
    // every block of it (one ID per block) until the counter overflows.
    let t1 = T0 + 10;
    let mut last = next(&mut a, &shared, &ra, t1, 1);
    while last.unix_ts_ms() == t1 {
        a.block.end = a.block.next;
        let id = next(&mut a, &shared, &ra, t1, 1);
        assert!(id > last);
        last = id;
    }
    assert_eq!(last.unix_ts_ms(), t1 + 1, "the overflow borrowed t1 + 1");
    let resets = shared.stamp.0.load(Relaxed) >> super::TIMESTAMP_BITS;
    // B's first ID, with the clock still at t1 (never back since the wrap).
    let from_b = next(&mut b, &shared, &rb, t1, 1);
    assert_eq!(
        shared.stamp.0.load(Relaxed) >> super::TIMESTAMP_BITS,
        resets,
        "a reset with the clock never going back (clock_high {:#x})",
        shared.clock_high.load(Relaxed)
    );
    assert_eq!(from_b.unix_ts_ms(), t1 + 1);
    let from_a = next(&mut a, &shared, &ra, t1, 1);
    assert!(from_a > last, "A's IDs went down: {from_a} after {last}");
}

/// A claim loads the latest-reading mark before it reads the clock (found by the
/// redesign's review): loaded after, a mark raised by another thread's claim in
/// between (a reading taken after its own) made its reading look like a step back.
/// Under an allowance of 0, with the shared word's timestamp ahead of the clock after
/// counter overflows, the reset's compare-exchange on the stamp succeeded and the one
/// on the word failed, and the retry measured from the word's overflowed timestamp: a
/// second reset, and IDs going down, the clock never back. Here A reads T0
/// throughout, C reads T0 + 1, B reads T0 just before C's claim (from inside B's clock
/// read) and T0 + 1 after it.
#[test]
fn a_reading_taken_before_another_threads_mark_is_no_step_back() {
    use core::sync::atomic::Ordering::Relaxed;
    let shared = Shared::new();
    shared.rollback_allowance.store(0, Relaxed);
    let (ra, rb, rc) = (Counting::new(), Counting::new(), Counting::new());
    let (mut a, mut b, mut c) = (thread(), thread(), thread());
    // A spends every block at T0 and at T0 + 1 (one ID per block, the clock at T0):
    // two overflows put the word's timestamp at T0 + 2.
    let mut last = next(&mut a, &shared, &ra, T0, 1);
    while last.unix_ts_ms() < T0 + 2 {
        a.block.end = a.block.next;
        let id = next(&mut a, &shared, &ra, T0, 1);
        assert!(id > last);
        last = id;
    }
    // C's claim at T0 + 1 (from inside B's first clock read, which gives B the
    // time just before it): the timestamp stays T0 + 2, the mark moves to T0 + 1.
    let reads = Cell::new(0);
    let mut from_c = None;
    let clock = || {
        reads.set(reads.get() + 1);
        if reads.get() == 1 {
            from_c = Some(next(&mut c, &shared, &rc, T0 + 1, 1));
            T0
        } else {
            T0 + 1
        }
    };
    let from_b = b.next_id(|| 1, &shared, clock, || &rb).unwrap();
    let from_c = from_c.unwrap();
    assert!(from_c > last);
    let resets = shared.stamp.0.load(Relaxed) >> super::TIMESTAMP_BITS;
    assert!(
        resets == 0 && from_b > from_c,
        "{resets} reset(s) with the clock never going back: B's ID {from_b} (at {}) after C's {from_c} (at {})",
        from_b.unix_ts_ms(),
        from_c.unix_ts_ms()
    );
}
