//! A lock that a forked child takes back from the threads it does not have.
//!
//! `fork()` copies one thread. A lock that another thread held at that moment stays
//! held in the child for ever, by nobody. The usual cure, a fork handler that takes
//! every lock before `fork()` and releases it after, deadlocks when the fork is made
//! from a signal handler: the interrupted thread may itself hold one of the locks, or
//! wait for one while holding another (issue 18, item 1). So nothing is taken across
//! `fork()`, and no fork handler touches the lock: the lock word names its holder, a
//! thread (by a number of its own) of a process (by its fork count, [`fork::epoch`]),
//! in one atomic. Whoever looks at the word can then tell exactly which of three cases
//! it is in:
//!
//! - held by this very thread: a nested call (a signal handler that interrupted the
//!   holder), which [`ForkLock::lock`] refuses instead of waiting for itself; this
//!   also holds in a child forked from such a handler, where the interrupted call goes
//!   on holding the lock and lets go of it as in the parent;
//! - held by another thread of this process: wait;
//! - held by a thread of an *ancestor* process (another fork count): that thread does
//!   not exist here, so the lock is taken over. What it guards may then be
//!   half-updated: the guard says so ([`ForkLockGuard::inherited`]) and the caller
//!   repairs or resets it.
//!
//! So a child never waits for a lock that no thread of its own can let go, whether it
//! was made by `fork()` or by the raw system call (which runs no fork handler; the
//! fork count still changes, see `fork.rs`). (Issue 29: the lock word used to hold the
//! fork count alone, with a per-thread list of the locks a thread held, and the child
//! handler restamped the locks on that list as the child's. Between a holder's letting
//! go and its unlisting, another thread could take the lock; a fork then restamped that
//! thread's hold as the child's, held by nobody, and the child waited for ever: 1 child
//! in 25 000 with a clock that took 14 µs a read.)
//!
//! A lock that the forking thread itself holds (the fork came from a signal handler
//! that interrupted it inside) goes on being held in the child by the interrupted
//! call, which lets go of it as in the parent. The child's fork handler stamps such a
//! lock with the child's count ([`ForkLock::adopt_in_child`]: the word names the
//! thread, so the handler knows exactly which locks are its own), for a thread that
//! the signal handler might start before the interrupted call ends. After a raw fork
//! (no handler) it keeps its parent's count until that call lets go; the child has no
//! other thread then unless the signal handler made one, which POSIX does not allow
//! (`pthread_create` is not async-signal-safe).
//!
//! A waiter spins for a moment (a holder is done within a microsecond or so), then
//! sleeps until the holder lets go: in the kernel (a futex) on Linux, which lets a
//! holder preempted by a higher-priority waiter on its CPU run at once (real-time
//! threads: `tests/realtime_threads.rs`, `scripts/bench-rt-latency`); by sleeps that
//! grow longer elsewhere.

use core::cell::{Cell, UnsafeCell};
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::fork;

/// Why a lock was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Another thread of this process holds it (`try_lock` only).
    Busy,
    /// This thread holds it: a call nested in the holder (a signal handler).
    Nested,
}

/// A mutual-exclusion lock that a forked child can take over (see the module docs).
///
/// Aligned to 128 bytes (two cache lines, what adjacent-line prefetchers pair), so
/// that taking it never disturbs what lies beside it: the clock's anchor and the
/// newest timestamp, which every ID reads.
#[repr(C, align(128))]
pub(crate) struct ForkLock<T> {
    /// 0 when free; otherwise the holder ([`holder_word`]): its process's fork count in
    /// the high half, its thread's number in the low half (never 0).
    holder: AtomicU64,
    /// Threads asleep in `lock`, to be woken when it is let go.
    sleepers: AtomicU32,
    value: UnsafeCell<T>,
}

// SAFETY: the lock hands out `&mut T` to one thread at a time (`holder` is taken by a
// compare-exchange, and only from 0 or from a process that is not this one), so `T`
// moves between threads but is never shared: `T: Send` is enough, as for
// `std::sync::Mutex`.
unsafe impl<T: Send> Sync for ForkLock<T> {}

/// The holder's view of a [`ForkLock`]; releases it on drop.
pub(crate) struct ForkLockGuard<'a, T> {
    lock: &'a ForkLock<T>,
    inherited: bool,
}

/// The lock word of thread `thread` in the process of fork count `epoch`.
const fn holder_word(epoch: u32, thread: u32) -> u64 {
    ((epoch as u64) << 32) | thread as u64
}

/// The thread number in a lock word.
const fn thread_of(word: u64) -> u32 {
    word as u32
}

/// The fork count in a lock word.
const fn epoch_of(word: u64) -> u32 {
    (word >> 32) as u32
}

/// Numbers handed to threads so far.
static THREADS: AtomicU32 = AtomicU32::new(0);

/// Numbers of threads that have ended, for the next threads to take (so that numbers
/// stay about as many as the threads alive at once, and never wrap: a thread that got
/// the number of a live holder would take its hold for a nested call of its own).
/// Taken with a try-lock only, never waited for: a thread that finds it busy takes a
/// fresh number, or (ending) lets its number go unused. The lock word is the holder's
/// fork count, so a child takes it over from a thread of its parent.
struct Pool {
    holder: AtomicU32,
    numbers: UnsafeCell<std::vec::Vec<u32>>,
}

// SAFETY: `numbers` is touched only by the thread that took `holder` (from 0, or from
// another process's count), one at a time.
unsafe impl Sync for Pool {}

static POOL: Pool = Pool {
    holder: AtomicU32::new(0),
    numbers: UnsafeCell::new(std::vec::Vec::new()),
};

impl Pool {
    /// Runs `f` on the numbers if the pool can be had at once.
    fn with<R>(&self, f: impl FnOnce(&mut std::vec::Vec<u32>) -> R) -> Option<R> {
        let me = fork::epoch();
        let held = self.holder.load(Ordering::Relaxed);
        if (held != 0 && held == me)
            || self
                .holder
                .compare_exchange(held, me, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return None;
        }
        // SAFETY: this thread holds the pool (see `Pool`).
        let result = f(unsafe { &mut *self.numbers.get() });
        self.holder.store(0, Ordering::Release);
        Some(result)
    }
}

/// A thread's number; given back to the pool when the thread ends.
struct ThreadNumber(Cell<u32>);

impl Drop for ThreadNumber {
    fn drop(&mut self) {
        let number = self.0.get();
        if number != 0 {
            // Busy: the number goes unused (a fresh one is taken later instead).
            let _ = POOL.with(|numbers| numbers.push(number));
        }
    }
}

std::thread_local! {
    /// This thread's number (0 until its first lock). A child's forking thread keeps
    /// its parent's number; the child's new threads take ended threads' numbers or
    /// fresh ones above every number of the parent (both are copied), so no two live
    /// threads of a process share one.
    static THREAD: ThreadNumber = const { ThreadNumber(Cell::new(0)) };
}

/// This thread's number, never 0.
fn thread_number() -> u32 {
    let fresh = || {
        let mut fresh = THREADS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if fresh == 0 {
            fresh = THREADS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        }
        fresh
    };
    // Inside another thread-local's destructor, after this one's: a fresh number for
    // good (reaching a destroyed thread-local would abort the process).
    THREAD
        .try_with(|number| match number.0.get() {
            0 => {
                let taken = POOL
                    .with(std::vec::Vec::pop)
                    .flatten()
                    .unwrap_or_else(fresh);
                // A signal handler that interrupted this between taking and storing
                // took a number of its own and let go of every lock it took before
                // returning.
                number.0.set(taken);
                taken
            }
            n => n,
        })
        .unwrap_or_else(|_| fresh())
}

/// This thread's number if it has one, else 0 (the fork handler).
fn thread_number_if_any() -> u32 {
    THREAD.try_with(|number| number.0.get()).unwrap_or(0)
}

impl<T> ForkLock<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self {
            holder: AtomicU64::new(0),
            sleepers: AtomicU32::new(0),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock if it is free, or held in an ancestor process.
    pub(crate) fn try_lock(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        let thread = thread_number();
        let mut epoch = fork::epoch();
        let me = holder_word(epoch, thread);
        let inherited =
            match self
                .holder
                .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => false,
                Err(held) if thread_of(held) == thread => return Err(Refused::Nested),
                // Held by a thread of another process: copied by `fork()` while a thread
                // this process does not have held it. (The count read afresh: a fork
                // since the first read made this a child, whose other threads' holds
                // are its own.)
                Err(held) if epoch_of(held) != fork::epoch() => {
                    if self
                        .holder
                        .compare_exchange(held, me, Ordering::Acquire, Ordering::Relaxed)
                        .is_err()
                    {
                        return Err(Refused::Busy);
                    }
                    true
                }
                Err(_) => return Err(Refused::Busy),
            };
        // A fork between the first read of the count and the compare-exchange (from a
        // signal handler; the child handler found the lock free then) leaves this hold
        // under the parent's count in the child, for another thread there to take
        // over: stamped with the child's (found by the review of issue 29's fix). A
        // fork after the stamp is the child handler's (`adopt_in_child`).
        loop {
            let now = fork::epoch();
            if now == epoch {
                break;
            }
            self.holder
                .store(holder_word(now, thread), Ordering::Relaxed);
            epoch = now;
        }
        Ok(ForkLockGuard {
            lock: self,
            inherited,
        })
    }

    /// Takes the lock, waiting while another thread of this process holds it.
    ///
    /// # Errors
    ///
    /// [`Refused::Nested`] if this thread holds it already.
    pub(crate) fn lock(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        for _ in 0..SPINS {
            match self.try_lock() {
                Err(Refused::Busy) => core::hint::spin_loop(),
                taken => return taken,
            }
        }
        self.lock_asleep()
    }

    #[cold]
    fn lock_asleep(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        let mut round = 0u32;
        loop {
            // Counted before the holder is looked at again: a holder that lets go
            // after this sees a sleeper and wakes it (`Drop`), one that let go before
            // left 0, which the wait below does not sleep on.
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            let taken = self.try_lock();
            if let Err(Refused::Busy) = taken {
                let held = self.holder.load(Ordering::SeqCst);
                if held != 0 {
                    wait(&self.holder, held, &mut round);
                }
            }
            self.sleepers.fetch_sub(1, Ordering::Relaxed);
            match taken {
                Err(Refused::Busy) => {}
                taken => return taken,
            }
        }
    }

    /// In a child, on the forking thread (the fork handler): if this thread held the
    /// lock at `fork()` (the fork was made from a signal handler that interrupted it
    /// inside), the interrupted call still holds it in the child and will let go.
    /// Stamps the lock with the child's count, so that the child's other threads wait
    /// for that call instead of taking the lock over. The word names the thread, so no
    /// other thread's hold is ever stamped (issue 29's hang).
    pub(crate) fn adopt_in_child(&self) {
        let held = self.holder.load(Ordering::Relaxed);
        if held != 0 && thread_of(held) == thread_number_if_any() {
            self.holder.store(
                holder_word(fork::epoch(), thread_of(held)),
                Ordering::Relaxed,
            );
        }
    }

    /// Whether a thread holds the lock right now (tests).
    #[cfg(test)]
    pub(crate) fn is_held(&self) -> bool {
        self.holder.load(Ordering::Relaxed) != 0
    }
}

impl<T> ForkLockGuard<'_, T> {
    /// Whether the lock was taken over from a thread of an ancestor process, which may
    /// have left the value half-updated.
    pub(crate) fn inherited(&self) -> bool {
        self.inherited
    }
}

impl<T> Deref for ForkLockGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the guard exists only while this thread holds the lock, and it is the
        // only guard of the lock in this process (`try_lock`).
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for ForkLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this the only access through it.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for ForkLockGuard<'_, T> {
    fn drop(&mut self) {
        // SeqCst, against the sleepers' count: see `lock_asleep`.
        self.lock.holder.store(0, Ordering::SeqCst);
        if self.lock.sleepers.load(Ordering::SeqCst) != 0 {
            wake(&self.lock.holder);
        }
    }
}

/// Rounds of `try_lock` before a waiter goes to sleep.
const SPINS: u32 = 100;

/// The 32-bit half of a lock word that holds the thread number, the word a futex
/// sleeps on: it changes whenever the lock is let go (to 0) or passes to another
/// thread.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn thread_half(word: &AtomicU64) -> *const u32 {
    let low = usize::from(cfg!(target_endian = "big"));
    // The low half of the `u64` is its first `u32` on little-endian targets, its
    // second on big-endian ones; `AtomicU64` is 8-aligned, so either is 4-aligned.
    word.as_ptr().cast::<u32>().cast_const().wrapping_add(low)
}

/// Sleeps while `word` still holds `held`, at most 5 ms (or, where there is no futex,
/// a while). The limit is for a fork: a thread that forks from a signal handler that
/// interrupted it in this wait goes on waiting in the child, where the holder does not
/// exist and nobody wakes it; when the limit ends it looks again, and takes the lock
/// over (`tests/fork_from_signal.rs` hung children without it).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wait(word: &AtomicU64, held: u64, _round: &mut u32) {
    let limit = libc::timespec {
        tv_sec: 0,
        tv_nsec: 5_000_000,
    };
    // SAFETY: a futex wait on the thread half of a live, aligned lock word of this
    // process, which returns at once if it no longer holds `held`'s thread, and at the
    // latest after `limit` (a valid `timespec` for the call). Interruptions and
    // spurious wake-ups return early: the caller looks again. The kernel reads the
    // word itself (no Rust access of mixed size). Exercised by
    // `tests::a_waiter_gets_the_lock_when_the_holder_lets_go`.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            thread_half(word),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            thread_of(held),
            &raw const limit,
        );
    }
}

/// Wakes every thread asleep on `word`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wake(word: &AtomicU64) {
    // SAFETY: a futex wake on the half `wait` sleeps on; it only wakes threads.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            thread_half(word),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

/// Without a futex: sleeps 1, 2, 4… µs, at most 100 µs.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn wait(_word: &AtomicU64, _held: u64, round: &mut u32) {
    let us = (1u64 << (*round).min(7)).min(100);
    std::thread::sleep(core::time::Duration::from_micros(us));
    *round = round.saturating_add(1);
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn wake(_word: &AtomicU64) {}

#[cfg(test)]
mod tests {
    use core::sync::atomic::Ordering;
    use std::vec::Vec;

    use super::{ForkLock, Refused, holder_word, thread_number};

    #[test]
    fn one_holder_at_a_time_and_a_nested_call_is_refused() {
        let lock = ForkLock::new(5u32);
        let mut guard = lock.try_lock().unwrap();
        assert!(!guard.inherited());
        *guard += 1;
        assert_eq!(lock.try_lock().err(), Some(Refused::Nested));
        assert_eq!(lock.lock().err(), Some(Refused::Nested));
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(lock.try_lock().err(), Some(Refused::Busy)));
        });
        drop(guard);
        assert!(!lock.is_held());
        assert_eq!(*lock.lock().unwrap(), 6);
    }

    #[test]
    fn a_waiter_gets_the_lock_when_the_holder_lets_go() {
        let lock = ForkLock::new(Vec::new());
        std::thread::scope(|s| {
            for t in 0..4 {
                let lock = &lock;
                s.spawn(move || {
                    for i in 0..10_000 {
                        let mut held = lock.lock().unwrap();
                        held.push((t, i));
                        if i % 1000 == 0 {
                            // Long enough for the others to go to sleep.
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    }
                });
            }
        });
        let all = lock.lock().unwrap();
        assert_eq!(all.len(), 40_000);
        for t in 0..4 {
            let mine: Vec<_> = all.iter().filter(|(owner, _)| *owner == t).collect();
            assert!(mine.windows(2).all(|w| w[0].1 < w[1].1));
        }
        assert_eq!(lock.sleepers.load(Ordering::Relaxed), 0);
    }

    /// Threads alive at once have numbers of their own, never 0, the same at every
    /// call.
    #[test]
    fn threads_have_distinct_numbers() {
        let mine = thread_number();
        assert_ne!(mine, 0);
        assert_eq!(thread_number(), mine);
        // Threads alive at once (an ended thread's number is given to later ones).
        let barrier = std::sync::Barrier::new(8);
        let others: Vec<u32> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        let n = thread_number();
                        barrier.wait();
                        n
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all = others.clone();
        all.push(mine);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 9, "{others:?} and {mine}");
    }

    /// What a child finds in a lock word, each case by its word: the parent's thread
    /// that held it does not exist here (taken over, and told so); a thread of this
    /// process holds it (busy, whatever that thread is); this thread held it in the
    /// parent (the fork came from a signal handler that interrupted it inside, and the
    /// interrupted call goes on holding it: nested).
    #[test]
    fn a_lock_held_in_an_ancestor_process_is_taken_over() {
        let epoch = crate::fork::epoch();
        let me = thread_number();
        let other = me.wrapping_add(1).max(1);
        let parent = epoch ^ 0x5555;
        let lock = ForkLock::new(1u8);
        // Another thread of the parent.
        lock.holder
            .store(holder_word(parent, other), Ordering::Relaxed);
        let guard = lock.try_lock().unwrap();
        assert!(guard.inherited());
        assert_eq!(
            lock.holder.load(Ordering::Relaxed),
            holder_word(epoch, me),
            "taken over in this process's name"
        );
        drop(guard);
        assert!(!lock.is_held());
        // Another thread of this very process: busy, never taken over.
        lock.holder
            .store(holder_word(epoch, other), Ordering::Relaxed);
        assert_eq!(lock.try_lock().err(), Some(Refused::Busy));
        // This thread, holding it in the parent: nested, and the word stays.
        lock.holder
            .store(holder_word(parent, me), Ordering::Relaxed);
        assert_eq!(lock.try_lock().err(), Some(Refused::Nested));
        assert_eq!(lock.lock().err(), Some(Refused::Nested));
        assert_eq!(lock.holder.load(Ordering::Relaxed), holder_word(parent, me));
        // The child's fork handler stamps it as this process's...
        lock.adopt_in_child();
        assert_eq!(lock.holder.load(Ordering::Relaxed), holder_word(epoch, me));
        // ...but never another thread's hold, nor a free lock.
        lock.holder
            .store(holder_word(parent, other), Ordering::Relaxed);
        lock.adopt_in_child();
        assert_eq!(
            lock.holder.load(Ordering::Relaxed),
            holder_word(parent, other)
        );
        lock.holder.store(0, Ordering::Relaxed);
        lock.adopt_in_child();
        assert!(!lock.is_held());
    }

    /// Issue 29's hang, the interleaving itself: thread A lets go, thread B takes the
    /// lock, and A forks (from a signal handler) before it has done anything else. The
    /// old child handler found the lock on A's list of held locks and restamped B's
    /// hold as the child's, so that the child waited for a holder it does not have.
    /// Now nothing is restamped: in the child (a new fork count) the word still names
    /// B of the parent, which the child takes over at once.
    #[test]
    fn a_hold_taken_just_before_a_fork_by_another_thread_is_taken_over_in_the_child() {
        let lock = ForkLock::new(0u32);
        let epoch = crate::fork::epoch();
        // A (this thread) takes the lock and lets go.
        drop(lock.try_lock().unwrap());
        // B takes it.
        std::thread::scope(|s| {
            s.spawn(|| core::mem::forget(lock.try_lock().unwrap()));
        });
        let held_by_b = lock.holder.load(Ordering::Relaxed);
        assert_eq!(super::epoch_of(held_by_b), epoch);
        // In this process B's hold is respected...
        assert_eq!(lock.try_lock().err(), Some(Refused::Busy));
        // ...and in a child, whose fork count is another, it is taken over.
        #[cfg(target_os = "linux")]
        {
            // SAFETY: the child only takes the lock (atomics and a thread-local) and
            // leaves with `_exit`.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                let ok = lock.try_lock().is_ok_and(|guard| guard.inherited());
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(i32::from(!ok)) }
            }
            assert_eq!(
                super::signal_fork::exit_status(pid),
                Some(0),
                "the child did not take the lock over"
            );
        }
        lock.holder.store(0, Ordering::Relaxed);
    }

    /// Found by the review of issue 29's fix: numbers taken for good by every thread
    /// would wrap after 2^32 threads (a server starting a thread per request at
    /// 1 000 a second gets there in about 50 days), and a thread given the number of a live holder would take that hold for
    /// a nested call of its own (the shared generator's claim then panics). Ended
    /// threads give their numbers back, so numbers stay as many as the threads alive
    /// at once: 2 000 threads one after the other take a handful of numbers.
    #[test]
    fn ended_threads_give_their_numbers_back() {
        let mut numbers: Vec<u32> = (0..2_000)
            .map(|_| std::thread::spawn(thread_number).join().unwrap())
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        // Other tests of this binary start and end threads meanwhile; a few dozen
        // numbers at most, not 2 000.
        assert!(
            numbers.len() < 100,
            "{} numbers for 2 000 threads",
            numbers.len()
        );
        // A live thread's number is never handed out.
        let mine = thread_number();
        let others: Vec<u32> = (0..200)
            .map(|_| std::thread::spawn(thread_number).join().unwrap())
            .collect();
        assert!(!others.contains(&mine));
    }

    /// Found by the review of issue 29's fix: `try_lock` reads the fork count, then takes the word with a
    /// compare-exchange. A `fork()` from a signal handler between the two (the child
    /// handler runs while the lock is still free, so `adopt_in_child` stamps nothing)
    /// leaves the interrupted call in the child holding the lock under the *parent's*
    /// count. A thread of the child (one the signal handler starts, which the module
    /// docs say `adopt_in_child` is there for) then sees "held in an ancestor" and
    /// takes the lock over while the interrupted call still holds it: two holders.
    /// Here the handler forks and calls `adopt_in_child` at once, as the crate's
    /// atfork child handler does for its own locks; the interrupted thread, back in
    /// its loop, checks its hold as soon as its `try_lock` returns.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fork_inside_try_lock_leaves_no_hold_under_the_parents_count() {
        use core::sync::atomic::{AtomicBool, AtomicI32};
        use std::os::unix::thread::JoinHandleExt as _;
        use std::time::{Duration, Instant};

        static LOCK: ForkLock<u64> = ForkLock::new(0);
        static IN_CHILD: AtomicBool = AtomicBool::new(false);
        static CHILD: AtomicI32 = AtomicI32::new(0);
        static STOP: AtomicBool = AtomicBool::new(false);

        extern "C" fn on_signal(_: libc::c_int) {
            // SAFETY: a plain fork; the child returns into the interrupted code.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // What `fork::child` does for the crate's own locks.
                LOCK.adopt_in_child();
                IN_CHILD.store(true, Ordering::Relaxed);
                return;
            }
            CHILD.store(if pid < 0 { -1 } else { pid }, Ordering::Relaxed);
        }
        // SAFETY: installs a handler that forks and touches only atomics.
        unsafe {
            let mut action: libc::sigaction = core::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&raw mut action.sa_mask);
            assert_eq!(
                libc::sigaction(libc::SIGUSR1, &raw const action, core::ptr::null_mut()),
                0
            );
        }
        let busy = std::thread::spawn(|| {
            while !STOP.load(Ordering::Relaxed) {
                let guard = LOCK.try_lock();
                if IN_CHILD.load(Ordering::Relaxed) {
                    let word = LOCK.holder.load(Ordering::Relaxed);
                    let code = match guard {
                        Ok(_) if super::epoch_of(word) != crate::fork::epoch() => {
                            // Held by this thread under the parent's count: another
                            // thread of this child takes it over.
                            let other =
                                std::thread::spawn(|| LOCK.try_lock().map(|g| g.inherited()).err())
                                    .join()
                                    .unwrap();
                            if other == Some(Refused::Busy) { 2 } else { 1 }
                        }
                        Ok(_) => 0,
                        Err(_) => 5,
                    };
                    // SAFETY: ends the child at once.
                    unsafe { libc::_exit(code) }
                }
                drop(guard);
            }
        });
        let mut outcomes = [0usize; 7];
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut forks = 0;
        while forks < 3000 && outcomes[1] == 0 && Instant::now() < deadline {
            CHILD.store(0, Ordering::Relaxed);
            // SAFETY: `busy` is a live thread of this process.
            assert_eq!(
                unsafe { libc::pthread_kill(busy.as_pthread_t(), libc::SIGUSR1) },
                0
            );
            let start = Instant::now();
            let pid = loop {
                match CHILD.load(Ordering::Relaxed) {
                    0 if start.elapsed() < Duration::from_secs(5) => std::thread::yield_now(),
                    pid => break pid,
                }
            };
            assert!(pid > 0, "no fork ({pid})");
            forks += 1;
            let code = super::signal_fork::exit_status(pid).unwrap_or(6);
            outcomes[usize::try_from(code).unwrap_or(6).min(6)] += 1;
        }
        STOP.store(true, Ordering::Relaxed);
        busy.join().unwrap();
        assert_eq!(
            outcomes[1], 0,
            "after {forks} forks: a child's thread took over the hold of the interrupted \
             try_lock, which named the parent's fork count ({outcomes:?}: \
             [fine, taken over, stale count but busy, -, -, refused, hung])"
        );
    }
}

/// Forks made from a signal handler, for the tests of the clock's and the shared
/// generator's locks (issue 18, item 1).
#[cfg(all(test, target_os = "linux"))]
pub(crate) mod signal_fork {
    use core::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
    use std::sync::{Mutex, MutexGuard, PoisonError};
    use std::time::{Duration, Instant};

    /// One such test at a time: they share the signal and its handler.
    static SERIAL: Mutex<()> = Mutex::new(());
    /// What the child does inside the handler, then `_exit` with its result.
    static IN_CHILD: AtomicUsize = AtomicUsize::new(0);
    /// The child's pid, set by the handler in the parent (0: not forked yet).
    static CHILD: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(_: libc::c_int) {
        // SAFETY: a plain fork; the child runs `IN_CHILD` and leaves with `_exit`, or
        // returns from the handler when that says so (-1).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: `IN_CHILD` holds a `fn() -> i32` stored by `arm`.
            let action: fn() -> i32 =
                unsafe { core::mem::transmute(IN_CHILD.load(Ordering::Relaxed)) };
            let code = action();
            if code >= 0 {
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(code) }
            }
            return;
        }
        CHILD.store(pid.max(1), Ordering::Relaxed);
    }

    /// Installs the handler (for `SIGUSR2`) with what the child is to do inside it: its
    /// exit status, or -1 to return from the handler into the interrupted code.
    pub(crate) fn arm(in_child: fn() -> i32) -> MutexGuard<'static, ()> {
        let serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        IN_CHILD.store(in_child as usize, Ordering::Relaxed);
        CHILD.store(0, Ordering::Relaxed);
        // SAFETY: installs a handler that forks and touches only atomics in the
        // parent.
        unsafe {
            let mut action: libc::sigaction = core::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&raw mut action.sa_mask);
            assert_eq!(
                libc::sigaction(libc::SIGUSR2, &raw const action, core::ptr::null_mut()),
                0
            );
        }
        serial
    }

    /// Sends the signal to `thread` and waits (up to 5 s) for its handler to fork;
    /// `None` if it did not (the handler hangs in the parent).
    pub(crate) fn fork_on(thread: libc::pthread_t) -> Option<libc::pid_t> {
        // SAFETY: `thread` is a live thread of this process.
        assert_eq!(unsafe { libc::pthread_kill(thread, libc::SIGUSR2) }, 0);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            match CHILD.load(Ordering::Relaxed) {
                0 => std::thread::sleep(Duration::from_millis(1)),
                pid => return Some(pid),
            }
        }
        None
    }

    /// The child's exit status, waiting up to 5 s; `None` if it hung (it is killed).
    pub(crate) fn exit_status(pid: libc::pid_t) -> Option<i32> {
        let start = Instant::now();
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child without blocking.
            let done = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
            if done == pid {
                return libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            }
            if start.elapsed() > Duration::from_secs(5) {
                // SAFETY: our own child, hung: killed and reaped.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &raw mut status, 0);
                }
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
