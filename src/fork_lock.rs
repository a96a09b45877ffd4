//! A lock that a forked child takes back from the threads it does not have.
//!
//! `fork()` copies one thread. A lock that another thread held at that moment stays
//! held in the child for ever, by nobody. The usual cure, a fork handler that takes
//! every lock before `fork()` and releases it after, deadlocks when the fork is made
//! from a signal handler: the interrupted thread may itself hold one of the locks, or
//! wait for one while holding another (issue 18, item 1). So nothing is taken across
//! `fork()`: the lock word says which thread of which process holds the lock (the
//! process's fork count, [`fork::epoch`], and a token of the thread), and a thread
//! that finds it held by a thread of an *ancestor* process takes it over. What the
//! lock guards may then be half-updated: the guard says so ([`ForkLockGuard::inherited`])
//! and the caller repairs or resets it.
//!
//! A thread that finds the lock held by itself is a nested call (a signal handler that
//! interrupted the holder): [`ForkLock::lock`] refuses it instead of waiting for
//! itself. If such a handler forks, the interrupted call goes on holding the lock in
//! the child too: the child's fork handler restamps it with the child's count
//! ([`ForkLock::adopt_in_child`]), so that the child's other threads wait for it. A waiter spins briefly, then sleeps a little longer each time, so that a
//! holder preempted by a higher-priority waiter on its CPU gets to run (real-time
//! threads: `tests/realtime_threads.rs`).

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
    /// 0 when free; otherwise the holder's fork count (high half) and thread token (low
    /// half), both never 0.
    word: AtomicU64,
    value: UnsafeCell<T>,
}

// SAFETY: the lock hands out `&mut T` to one thread at a time (the word is taken by a
// compare-exchange, and only by a thread whose process does not contain the holder),
// so `T` moves between threads but is never shared: `T: Send` is enough, as for
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
            word: AtomicU64::new(0),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock if it is free, or held by a thread of an ancestor process.
    pub(crate) fn try_lock(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        let me = holder_word();
        let Err(held) = self
            .word
            .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
        else {
            return Ok(self.guard(false));
        };
        if held as u32 == me as u32 {
            return Err(Refused::Nested);
        }
        if held >> 32 != me >> 32
            && self
                .word
                .compare_exchange(held, me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            // Held by a thread that this process does not have: it was copied by
            // `fork()` while another thread held it.
            return Ok(self.guard(true));
        }
        Err(Refused::Busy)
    }

    /// Takes the lock, waiting while another thread of this process holds it.
    ///
    /// # Errors
    ///
    /// [`Refused::Nested`] if this thread holds it already.
    pub(crate) fn lock(&self) -> Result<ForkLockGuard<'_, T>, Refused> {
        let mut round = 0u32;
        loop {
            match self.try_lock() {
                Err(Refused::Busy) => back_off(&mut round),
                taken => return taken,
            }
        }
    }

    /// In a child, on the forking thread (the fork handler): if this thread held the
    /// lock at `fork()` (the fork was made from a signal handler that interrupted it
    /// inside), the interrupted call still holds it in the child and will release it.
    /// Restamps the word with the child's fork count, so that the child's other threads
    /// wait for that call instead of taking the lock over.
    pub(crate) fn adopt_in_child(&self) {
        let held = self.word.load(Ordering::Relaxed);
        if held != 0 && held as u32 == thread_token() {
            self.word.store(holder_word(), Ordering::Relaxed);
        }
    }

    fn guard(&self, inherited: bool) -> ForkLockGuard<'_, T> {
        ForkLockGuard {
            lock: self,
            inherited,
        }
    }

    /// Whether a thread holds the lock right now (tests).
    #[cfg(test)]
    pub(crate) fn is_held(&self) -> bool {
        self.word.load(Ordering::Relaxed) != 0
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
        self.lock.word.store(0, Ordering::Release);
    }
}

/// Spins for the first rounds (a holder is done within a microsecond or so), then
/// sleeps 1, 2, 4… µs, at most 100 µs, which lets a preempted holder run.
#[cold]
fn back_off(round: &mut u32) {
    const SPINS: u32 = 256;
    if *round < SPINS {
        for _ in 0..16 {
            core::hint::spin_loop();
        }
    } else {
        let us = 1u64 << (*round - SPINS).min(7);
        std::thread::sleep(core::time::Duration::from_micros(us.min(100)));
    }
    *round = round.saturating_add(1);
}

/// This thread's lock word: the fork count of its process and its token.
#[inline]
fn holder_word() -> u64 {
    (u64::from(fork::epoch()) << 32) | u64::from(thread_token())
}

/// Tokens handed out so far; a child inherits the count, so the tokens of its threads
/// differ from those of every thread it was copied from (the forking thread keeps its
/// own).
static TOKENS: AtomicU32 = AtomicU32::new(0);

std::thread_local! {
    static TOKEN: Cell<u32> = const { Cell::new(0) };
}

/// A number of this thread's own, never 0 (after 2^32 threads numbers come again;
/// only a thread holding a lock at that moment could be mistaken for a nested call).
#[inline]
fn thread_token() -> u32 {
    TOKEN.with(|token| match token.get() {
        0 => {
            let mut fresh = TOKENS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            if fresh == 0 {
                fresh = TOKENS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            }
            token.set(fresh);
            fresh
        }
        token => token,
    })
}

/// Makes the next token handed out `next` (tests: the numbers coming round again after
/// 2^32 threads).
#[cfg(test)]
pub(crate) fn set_next_token(next: u32) {
    TOKENS.store(next.wrapping_sub(1), Ordering::Relaxed);
}

/// This thread's token (tests).
#[cfg(test)]
pub(crate) fn token() -> u32 {
    thread_token()
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::Ordering;

    use std::vec::Vec;

    use super::{ForkLock, Refused, holder_word};

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
                        lock.lock().unwrap().push((t, i));
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
    }

    /// What a child finds: the word of a thread of its parent (another fork count, a
    /// token no thread of the child has). It takes the lock over and is told so; the
    /// word of a thread of this process is respected.
    #[test]
    fn a_lock_held_in_an_ancestor_process_is_taken_over() {
        let me = holder_word();
        let lock = ForkLock::new(1u8);
        let parent_thread = ((me >> 32) ^ 0x5555) << 32 | 0x0fff_ffff;
        lock.word.store(parent_thread, Ordering::Relaxed);
        let guard = lock.try_lock().unwrap();
        assert!(guard.inherited());
        drop(guard);
        // Another thread of this very process: busy, never taken over.
        lock.word
            .store(me & !0xffff_ffff | 0x0fff_ffff, Ordering::Relaxed);
        assert_eq!(lock.try_lock().err(), Some(Refused::Busy));
        // This thread in an ancestor (it forked from a signal handler that
        // interrupted it as it held the lock): the interrupted call still holds it.
        lock.word.store(
            parent_thread & !0xffff_ffff | me & 0xffff_ffff,
            Ordering::Relaxed,
        );
        assert_eq!(lock.try_lock().err(), Some(Refused::Nested));
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
