//! The process-wide generator behind [`scru128`] and [`scru128_string`].
//!
//! One shared [`State`] behind a mutex hands out *blocks* of consecutive counters at
//! one timestamp; each thread keeps its block, with its own random source, in
//! thread-local storage and spends it without touching shared memory. A thread goes
//! back to the shared state when its block is used up, when the clock reaches a new
//! millisecond (so timestamps follow the clock exactly as with one generator), when the
//! clock went back more than the allowance, or after `fork()`.
//!
//! The clock is [`SystemClock`](crate::SystemClock), whose per-thread
//! [`MsClock`](crate::tsc_clock::MsClock) skips the system call while the CPU's
//! time-stamp counter proves that the millisecond has not changed.
//!
//! Blocks are disjoint, so no two IDs share `(timestamp, counter)`, and each new block
//! lies above every earlier one, so each thread's IDs increase. Within one millisecond,
//! IDs of different threads are unique but not ordered by call time (across
//! milliseconds they are, as IDs of different machines are).

use core::cell::RefCell;
use std::sync::{Mutex, PoisonError};

use crate::Scru128Id;
use crate::generator::{DEFAULT_ROLLBACK_ALLOWANCE, State, timestamp_from_clock};
use crate::sources::{DefaultRng, RandomSource, fork};

/// Counters a thread claims at once: enough to make the shared lock rare under load,
/// few enough that the unused rest of a block (dropped when the millisecond changes)
/// is a negligible part of the 2^28 counter space.
const BLOCK: u32 = 256;

/// Shared `(timestamp, counter, per_sec_random)`; held only to claim a block.
static SHARED: Mutex<State> = Mutex::new(State::new());

/// A thread's random source and its current block of counters.
struct Local {
    /// Made at the thread's first ID (`DefaultRng::new` cannot run in a `const`).
    rng: Option<DefaultRng>,
    /// Timestamp (biased) of the block.
    timestamp: u64,
    /// Next counter to hand out, and one past the last of the block.
    next: u32,
    end: u32,
    per_sec_random: u32,
    /// Fork count when the block was claimed: a child must not spend its parent's block.
    fork_epoch: u32,
}

std::thread_local! {
    static LOCAL: RefCell<Local> = const {
        RefCell::new(Local {
            rng: None,
            timestamp: 0,
            next: 0,
            end: 0,
            per_sec_random: 0,
            fork_epoch: 0,
        })
    };
}

impl Local {
    /// The next ID.
    #[inline]
    fn next_id(&mut self) -> Scru128Id {
        let unix_ts_ms = crate::sources::Clock::unix_ts_ms(&mut crate::SystemClock);
        let now = match timestamp_from_clock(unix_ts_ms) {
            Ok(now) => now,
            Err(err) => panic!("scru128: {err}"),
        };
        let block_usable = self.next < self.end
            && now <= self.timestamp
            && self.timestamp - now <= DEFAULT_ROLLBACK_ALLOWANCE
            && self.fork_epoch == fork::epoch();
        let rng = match &mut self.rng {
            Some(rng) if block_usable => rng,
            _ => self.claim_block(now),
        };
        let per_gen = rng.next_u32();
        let counter = self.next;
        self.next += 1;
        Scru128Id::from_fields_unchecked(self.timestamp, counter, self.per_sec_random, per_gen)
    }

    /// Claims a new block from the shared state; returns the thread's random source.
    #[cold]
    #[inline(never)]
    fn claim_block(&mut self, now: u64) -> &mut DefaultRng {
        #[cfg(unix)]
        lock_across_fork::install();
        self.fork_epoch = fork::epoch();
        let rng = self.rng.get_or_insert_with(DefaultRng::new);
        let claimed = SHARED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .reserve(now, rng, BLOCK);
        let (timestamp, first, count, per_sec) = match claimed {
            Ok(block) => block,
            Err(err) => panic!("scru128: {err}"),
        };
        self.timestamp = timestamp;
        self.next = first;
        self.end = first + count;
        self.per_sec_random = per_sec;
        rng
    }
}

/// Holds the shared lock while a thread calls `fork()`, so that the child does not
/// start with a lock taken by a thread it does not have (it would wait forever).
#[cfg(unix)]
mod lock_across_fork {
    use core::cell::RefCell;
    use std::sync::{MutexGuard, Once, PoisonError};

    use super::{SHARED, State};

    std::thread_local! {
        /// The guard, from just before `fork()` to just after it, on the forking thread
        /// (the three handlers run on that thread, in the child on its copy).
        static HELD: RefCell<Option<MutexGuard<'static, State>>> = const { RefCell::new(None) };
    }

    extern "C" fn before_fork() {
        let guard = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        // If the thread is being torn down, the guard is dropped here: no protection,
        // but no deadlock either.
        let _ = HELD.try_with(move |held| *held.borrow_mut() = Some(guard));
    }

    extern "C" fn after_fork() {
        let _ = HELD.try_with(|held| held.borrow_mut().take());
    }

    pub(super) fn install() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: `pthread_atfork` only stores the handlers: plain `extern "C"`
            // functions that take and release a mutex in thread-local storage and
            // cannot unwind. Tested by `tests/fork_many.rs`
            // (`a_fork_while_other_threads_generate_never_hangs_the_child`).
            let rc = unsafe {
                libc::pthread_atfork(Some(before_fork), Some(after_fork), Some(after_fork))
            };
            assert!(rc == 0, "scru128: pthread_atfork failed with {rc}");
        });
    }
}

/// Generates a new ID from the process-wide generator.
///
/// Thread-safe and fast under contention: each thread spends a block of counters
/// claimed from one shared state, so each thread sees strictly increasing IDs, no two
/// IDs share `(timestamp, counter)`, and a single thread's IDs follow every rule of
/// [`Scru128Generator`](crate::Scru128Generator) (the counter rises by one within a
/// millisecond). Within one millisecond, IDs of *different* threads are unique but
/// not ordered by call time. After `fork()` the child claims a fresh block at a
/// fresh millisecond and reseeds, so it never repeats its parent's IDs. A thread that
/// panics never leaves the generator unusable.
///
/// # Panics
///
/// Panics if the system clock is before 2020-01-01 or past the year 2577, or if the
/// operating system's random source fails. It is not async-signal-safe: called from
/// a signal handler that interrupted it on the same thread, it panics.
///
/// ```
/// let a = scru128::scru128();
/// let b = scru128::scru128();
/// assert!(a < b);
/// ```
#[inline]
pub fn scru128() -> Scru128Id {
    // Through a u128 so that the value comes back in registers even where
    // `LocalKey::with` is not inlined (a returned `[u8; 16]` goes through memory).
    Scru128Id::from_u128(LOCAL.with_borrow_mut(|local| local.next_id().to_u128()))
}

/// Generates a new ID from the process-wide generator, as its 26-digit canonical text.
///
/// # Panics
///
/// As [`scru128`].
///
/// ```
/// let text = scru128::scru128_string();
/// assert_eq!(text.len(), 26);
/// assert!(text.parse::<scru128::Scru128Id>().is_ok());
/// ```
// Inlined like `scru128` so that the caller's copy reaches the thread-local directly;
// out of line, the library's copy of `LocalKey::with` found it through an indirect
// call (scru128_string() 36 ns against 24 ns, benches/compare.rs).
#[inline]
pub fn scru128_string() -> std::string::String {
    scru128().into()
}
