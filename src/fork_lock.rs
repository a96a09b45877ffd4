//! A lock that a forked child takes back from the threads it does not have.
//!
//! `fork()` copies one thread. A lock that another thread held at that moment stays
//! held in the child for ever, by nobody. The usual cure, a fork handler that takes
//! every lock before `fork()` and releases it after, deadlocks when the fork is made
//! from a signal handler: the interrupted thread may itself hold one of the locks, or
//! wait for one while holding another (issue 18, item 1). So nothing is taken across
//! `fork()`: the lock word holds the fork count of the holder's process
//! ([`fork::epoch`]), and a thread that finds it held in an *ancestor* process takes
//! it over. What the lock guards may then be half-updated: the guard says so
//! ([`ForkLockGuard::inherited`]) and the caller repairs or resets it.
//!
//! Each thread marks the locks it is taking and the locks it holds. A thread that
//! finds a lock it cannot take marked by itself is a nested call (a signal handler
//! that interrupted the holder, or the thread while it was taking the lock):
//! [`ForkLock::lock`] refuses it instead of waiting for itself. If such a
//! handler forks, the interrupted call goes on holding the lock in the child too (the
//! list is copied with the thread): the child's fork handler restamps the lock with
//! the child's count ([`ForkLock::adopt_in_child`]), so that the child's other threads
//! wait for it.
//!
//! A waiter spins for a moment (a holder is done within a microsecond or so), then
//! sleeps until the holder lets go: in the kernel (a futex) on Linux, which lets a
//! holder preempted by a higher-priority waiter on its CPU run at once (real-time
//! threads: `tests/realtime_threads.rs`, `scripts/bench-rt-latency`); by sleeps that
//! grow longer elsewhere.

use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering, compiler_fence};

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
    /// 0 when free; otherwise the fork count of the holder's process (never 0).
    holder: AtomicU32,
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

impl<T> ForkLock<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self {
            holder: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            value: UnsafeCell::new(value),
        }
    }

    fn address(&self) -> usize {
        core::ptr::from_ref(self).addr()
    }

    /// Takes the lock if it is free, or held in an ancestor process.
    pub(crate) fn try_lock(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        let me = fork::epoch();
        let lock = self.address();
        // Marked before the lock word is touched and unmarked after, so that a signal
        // handler that interrupts this thread anywhere in between (or while it holds
        // the lock) knows that it is nested, instead of waiting for itself.
        let nested = MARKS.with(|marks| {
            let nested = marks.acquiring.contains(lock) || marks.holding.contains(lock);
            marks.acquiring.push(lock);
            nested
        });
        let taken = match self
            .holder
            .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
        {
            Ok(_) => Some(false),
            // Held in a process that is not this one: copied by `fork()` while a
            // thread this process does not have held it.
            Err(held) if held != me && !nested => self
                .holder
                .compare_exchange(held, me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
                .then_some(true),
            Err(_) => None,
        };
        MARKS.with(|marks| {
            if taken.is_some() {
                marks.holding.push(lock);
            }
            marks.acquiring.remove(lock);
        });
        match taken {
            Some(inherited) => Ok(ForkLockGuard {
                lock: self,
                inherited,
            }),
            None if nested => Err(Refused::Nested),
            None => Err(Refused::Busy),
        }
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
    /// inside), the interrupted call still holds it in the child and will release it.
    /// Restamps the lock with the child's fork count, so that the child's other
    /// threads wait for that call instead of taking the lock over.
    pub(crate) fn adopt_in_child(&self) {
        // Marked and held: a thread letting go clears the word before its mark, so a
        // fork in between leaves a mark on a free lock, which must stay free (stamped,
        // it would be held by nobody: `tests/fork_from_signal.rs` hung children so).
        if MARKS.with(|marks| marks.holding.contains(self.address()))
            && self.holder.load(Ordering::Relaxed) != 0
        {
            self.holder.store(fork::epoch(), Ordering::Relaxed);
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
        // SeqCst, against the sleepers' count: see `lock_asleep`. Let go first, then
        // unmarked: a handler that interrupts in between finds it free, or nested.
        self.lock.holder.store(0, Ordering::SeqCst);
        MARKS.with(|marks| marks.holding.remove(self.lock.address()));
        if self.lock.sleepers.load(Ordering::SeqCst) != 0 {
            wake(&self.lock.holder);
        }
    }
}

/// Rounds of `try_lock` before a waiter goes to sleep.
const SPINS: u32 = 100;

/// Sleeps while `word` still holds `held`, at most 5 ms (or, where there is no futex,
/// a while). The limit is for a fork: a thread that forks from a signal handler that
/// interrupted it in this wait goes on waiting in the child, where the holder does not
/// exist and nobody wakes it; when the limit ends it looks again, and takes the lock
/// over (`tests/fork_from_signal.rs` hung children without it).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wait(word: &AtomicU32, held: u32, _round: &mut u32) {
    let limit = libc::timespec {
        tv_sec: 0,
        tv_nsec: 5_000_000,
    };
    // SAFETY: a futex wait on a live, aligned 32-bit atomic of this process, which
    // returns at once if it no longer holds `held`, and at the latest after `limit`
    // (a valid `timespec` for the call). Interruptions and spurious wake-ups return
    // early: the caller looks again. Exercised by
    // `tests::a_waiter_gets_the_lock_when_the_holder_lets_go`.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            held,
            &raw const limit,
        );
    }
}

/// Wakes every thread asleep on `word`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wake(word: &AtomicU32) {
    // SAFETY: a futex wake on a live, aligned 32-bit atomic; it only wakes threads.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

/// Without a futex: sleeps 1, 2, 4… µs, at most 100 µs.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn wait(_word: &AtomicU32, _held: u32, round: &mut u32) {
    let us = (1u64 << (*round).min(7)).min(100);
    std::thread::sleep(core::time::Duration::from_micros(us));
    *round = round.saturating_add(1);
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn wake(_word: &AtomicU32) {}

/// Some of the crate's locks, by address: at most eight at once (the crate takes at
/// most two, the shared generator's and the clock's, one inside the other; signal
/// handlers nested in that add theirs).
///
/// Used as a stack: a mark goes into the first free slot and the last slot holding
/// it is cleared, so that a signal handler's mark, made and cleared while it
/// interrupts this thread between finding a slot and writing it, is always the one
/// the handler clears. (Clearing the first slot holding the address instead leaked a
/// mark whenever a handler interrupted a removal of the same lock's mark: the
/// handler cleared the interrupted call's slot, the interrupted call cleared it
/// again, and the handler's stayed; nine such leaks aborted the process in
/// `tests/signals.rs`.) This holds while marks go in the reverse order of coming
/// (every guard is dropped before the guards taken before it, as the crate's are:
/// the clock's inside the generator's); a hole below the top would bring the leak
/// back, which `remove` checks in debug builds. The slots are atomics (relaxed: one
/// thread, but a handler reading them while they change must not be a data race) and
/// the compiler fences keep the accesses where the code has them, since a handler
/// runs between any two instructions of this thread.
struct Locks([AtomicUsize; 8]);

impl Locks {
    fn contains(&self, lock: usize) -> bool {
        self.0
            .iter()
            .any(|slot| slot.load(Ordering::Relaxed) == lock)
    }

    fn push(&self, lock: usize) {
        compiler_fence(Ordering::SeqCst);
        match self.0.iter().find(|slot| slot.load(Ordering::Relaxed) == 0) {
            Some(slot) => slot.store(lock, Ordering::Relaxed),
            None => unreachable!("scru128: locks nested more than eight deep"),
        }
        compiler_fence(Ordering::SeqCst);
    }

    /// Removes the last mark of `lock`.
    fn remove(&self, lock: usize) {
        if let Some(slot) = self.last_of(lock) {
            debug_assert!(
                self.0
                    .iter()
                    .rev()
                    .find(|other| other.load(Ordering::Relaxed) != 0)
                    .is_some_and(|top| core::ptr::eq(top, slot)),
                "scru128: a lock let go out of order"
            );
            slot.store(0, Ordering::Relaxed);
        }
        compiler_fence(Ordering::SeqCst);
    }

    /// The last slot holding `lock`: what [`Locks::remove`] clears.
    fn last_of(&self, lock: usize) -> Option<&AtomicUsize> {
        compiler_fence(Ordering::SeqCst);
        let slot = self
            .0
            .iter()
            .rev()
            .find(|slot| slot.load(Ordering::Relaxed) == lock);
        compiler_fence(Ordering::SeqCst);
        slot
    }

    /// How many marks there are.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.0
            .iter()
            .filter(|slot| slot.load(Ordering::Relaxed) != 0)
            .count()
    }
}

/// A thread's marks: the locks it is taking (between its first look at the lock word
/// and knowing whether it got it), and the locks it holds.
struct Marks {
    acquiring: Locks,
    holding: Locks,
}

std::thread_local! {
    static MARKS: Marks = const {
        Marks {
            acquiring: Locks([const { AtomicUsize::new(0) }; 8]),
            holding: Locks([const { AtomicUsize::new(0) }; 8]),
        }
    };
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::Ordering;
    use std::vec::Vec;

    use super::{ForkLock, Locks, Refused};

    fn empty_marks() -> Locks {
        Locks([const { core::sync::atomic::AtomicUsize::new(0) }; 8])
    }

    /// A signal handler that takes and lets go of the same lock while it interrupts a
    /// removal of that lock's mark, between finding the slot and clearing it (where
    /// `tests/signals.rs` aborted after nine leaked marks): no mark is left.
    #[test]
    fn a_handler_inside_a_removal_leaves_no_mark() {
        let marks = empty_marks();
        for _ in 0..20 {
            marks.push(0x1000);
            // The interrupted removal has found its slot...
            let slot = marks.last_of(0x1000).unwrap();
            // ...and the handler runs: marks the lock as nested, then unmarks it.
            assert!(marks.contains(0x1000));
            marks.push(0x1000);
            marks.remove(0x1000);
            // The removal goes on.
            slot.store(0, Ordering::Relaxed);
            assert_eq!(marks.len(), 0, "a mark leaked");
        }
    }

    /// The same around a mark of another lock, and a handler inside a push: every
    /// mark the handler makes it clears, and the interrupted call's stays.
    #[test]
    fn a_handler_inside_a_push_or_around_other_marks_keeps_them_apart() {
        let marks = empty_marks();
        marks.push(0x2000); // held: the generator's lock
        marks.push(0x1000); // acquiring: the clock's
        // A removal of 0x1000 interrupted by a handler that takes both locks in turn.
        let slot = marks.last_of(0x1000).unwrap();
        marks.push(0x2000);
        marks.push(0x1000);
        marks.remove(0x1000);
        marks.remove(0x2000);
        slot.store(0, Ordering::Relaxed);
        assert_eq!(marks.len(), 1);
        assert!(marks.contains(0x2000) && !marks.contains(0x1000));
        // A push interrupted after finding its free slot (the handler's marks come
        // and go in that same slot before the push writes it).
        let free = marks
            .0
            .iter()
            .find(|slot| slot.load(Ordering::Relaxed) == 0)
            .unwrap();
        marks.push(0x1000);
        marks.remove(0x1000);
        free.store(0x3000, Ordering::Relaxed);
        assert_eq!(marks.len(), 2);
        assert!(marks.contains(0x3000) && marks.contains(0x2000));
        marks.remove(0x3000);
        marks.remove(0x2000);
        assert_eq!(marks.len(), 0);
    }

    /// Marks let go out of order would leave a hole that brings the leak back: debug
    /// builds refuse it.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a lock let go out of order")]
    fn marks_let_go_out_of_order_are_caught_in_debug_builds() {
        let marks = empty_marks();
        marks.push(0x2000);
        marks.push(0x1000);
        marks.remove(0x2000);
    }

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

    /// What a child finds: the count of its parent. It takes the lock over and is told
    /// so; a lock held by another thread of this process is respected, whatever that
    /// thread is.
    #[test]
    fn a_lock_held_in_an_ancestor_process_is_taken_over() {
        let me = crate::fork::epoch();
        let lock = ForkLock::new(1u8);
        lock.holder.store(me ^ 0x5555, Ordering::Relaxed);
        let guard = lock.try_lock().unwrap();
        assert!(guard.inherited());
        drop(guard);
        // Another thread of this very process: busy, never taken over.
        lock.holder.store(me, Ordering::Relaxed);
        assert_eq!(lock.try_lock().err(), Some(Refused::Busy));
        lock.holder.store(0, Ordering::Relaxed);
        // This thread, holding it in an ancestor (it forked from a signal handler
        // that interrupted it inside): the interrupted call still holds it.
        let guard = lock.try_lock().unwrap();
        lock.holder.store(me ^ 0x5555, Ordering::Relaxed);
        assert_eq!(lock.try_lock().err(), Some(Refused::Nested));
        lock.adopt_in_child();
        assert_eq!(lock.holder.load(Ordering::Relaxed), me);
        // Forked just after the holder cleared the word, before its mark: the lock
        // stays free in the child.
        lock.holder.store(0, Ordering::Relaxed);
        lock.adopt_in_child();
        assert!(!lock.is_held());
        drop(guard);
        assert!(!lock.is_held());
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
