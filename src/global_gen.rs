//! The process-wide generator behind [`scru128`] and [`scru128_string`].
//!
//! Threads claim *blocks* of consecutive counters at one timestamp from one shared
//! word, `(timestamp, last block)`, by compare-exchange; each thread keeps its block,
//! with its own random source, in thread-local storage and spends it without touching
//! the word. A claim reads the clock after loading the word, and one that lost to
//! another thread's claim starts again with a new reading: the word sees the clock's
//! readings in the order it is changed, as under a lock, and no thread ever waits for
//! another. A thread spends its block only while all of these hold:
//!
//! - counters are left;
//! - the clock reads at or after the reading the block was claimed at, and at or
//!   before the block's timestamp (a new millisecond, or a step back, ends the block);
//! - the block is still the newest any thread has claimed: a second word, the
//!   *stamp* (the newest timestamp, and above it the number of resets), still holds
//!   the block's (after another thread moved on, an old block never comes back into
//!   use, also when the clock steps back to it, or comes back to it after a reset);
//! - no `fork()` happened since the claim.
//!
//! Blocks are disjoint (each claim moves the word on), so no two IDs share
//! `(timestamp, counter)`, and each new block lies above every earlier one unless the
//! clock went back more than the rollback allowance (the documented reset). A reset
//! first raises the reset count by compare-exchange from the stamp loaded before the
//! shared word, so every block claimed before it is dead before its counters exist.
//! Within one millisecond, IDs of different threads are unique but not ordered by
//! call time (across milliseconds they are, as IDs of different machines are).
//!
//! Counters: the first block at a new timestamp starts at a random counter and ends
//! at the next multiple of 256; later blocks are the next 256 counters. The word holds
//! the timestamp and the last counter's block number (counter / 256).

use core::cell::RefCell;
use core::sync::atomic::{
    AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed},
    compiler_fence, fence,
};

use crate::default_rng::DefaultRng;
use crate::error::GenerateError;
use crate::id::{MAX_COUNTER, MAX_TIMESTAMP, Scru128Id, TIMESTAMP_BIAS};
use crate::rules::{
    DEFAULT_ROLLBACK_ALLOWANCE, FieldRandom, PER_SEC_INTERVAL, advance, timestamp_from_clock,
};
use crate::{fork, system_clock};

/// Counters in a block: enough to make claims rare under load, few enough that the
/// unused rest of a block (dropped when the millisecond changes) is a negligible part
/// of the 2^28 counter space.
const BLOCK_BITS: u32 = 8;
/// Bits of a block number (counter / 256) in the shared word, below the timestamp.
const BLOCK_NUMBER_BITS: u32 = MAX_COUNTER.count_ones() - BLOCK_BITS;
/// Bits of a timestamp, in the shared word and in the stamp; the stamp's reset count is
/// above them (and wraps).
const TIMESTAMP_BITS: u32 = MAX_TIMESTAMP.count_ones();

/// A 128-byte line of its own (two cache lines, what adjacent-line prefetchers pair):
/// the stamp, read at every ID, apart from the word every claim writes.
#[repr(C, align(128))]
struct Line<T>(T);

/// The words blocks are claimed from.
struct Shared {
    /// `(timestamp << 20) | block number of the last counter handed out`.
    claims: Line<AtomicU64>,
    /// `(resets << 44) | timestamp` of the newest block; raised at every claim of a
    /// newer timestamp, and first at a reset.
    stamp: Line<AtomicU64>,
    /// `(resets << 44) | timestamp` of the latest clock reading a claim acted on since
    /// the last reset (`raise_clock_high`). A rollback is measured from it,
    /// not from the newest timestamp, which counter overflows may have moved ahead of
    /// the clock: running ahead is not the clock going back (as `Scru128Generator`'s
    /// latest reading).
    clock_high: AtomicU64,
    /// The fork count of the last claim: a claim under another count is the first in
    /// a child, which moves past its parent's timestamp.
    claimed_in: AtomicU32,
    /// How far (ms) a claim's clock reading may be behind the latest reading before it
    /// is a reset (`__private::set_process_rollback_allowance`).
    rollback_allowance: AtomicU64,
}

impl Shared {
    const fn new() -> Self {
        Self {
            claims: Line(AtomicU64::new(0)),
            stamp: Line(AtomicU64::new(0)),
            clock_high: AtomicU64::new(0),
            claimed_in: AtomicU32::new(0),
            rollback_allowance: AtomicU64::new(DEFAULT_ROLLBACK_ALLOWANCE),
        }
    }
}

static SHARED: Shared = Shared::new();

/// A thread's current block of counters.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// Timestamp (biased) of the block.
    timestamp: u64,
    /// The clock reading (Unix ms) the block was claimed at.
    claimed_at_ms: u64,
    /// Next counter to hand out, and one past the last of the block.
    next: u32,
    end: u32,
    per_sec_random: u32,
    /// Fork count when the block was claimed: a child must not spend its parent's block.
    fork_epoch: u32,
    /// The stamp word as this claim left it.
    stamp: u64,
    /// The process clock's anchor whose millisecond lies in this block's range of
    /// readings (`claimed_at_ms..=` its timestamp in Unix milliseconds), as the slow path last found it; 0 for
    /// none. While the anchor is still that one, the clock reads that millisecond, so
    /// the fast path compares the anchor instead of the reading with both ends.
    anchor: u128,
}

impl Block {
    const EMPTY: Self = Self {
        timestamp: 0,
        claimed_at_ms: 0,
        next: 0,
        end: 0,
        per_sec_random: 0,
        fork_epoch: 0,
        stamp: u64::MAX,
        anchor: 0,
    };

    /// The block's timestamp in Unix milliseconds: the latest clock reading it serves.
    #[inline]
    const fn unix_ts_ms(&self) -> u64 {
        self.timestamp + TIMESTAMP_BIAS
    }

    /// Whether the next ID may come from this block, for a clock reading `now_ms` and
    /// the stamp word `stamp`.
    #[inline]
    fn usable(&self, now_ms: u64, stamp: u64, fork_epoch: u32) -> bool {
        self.next < self.end
            && self.claimed_at_ms <= now_ms
            && now_ms <= self.unix_ts_ms()
            && stamp == self.stamp
            && self.fork_epoch == fork_epoch
    }

    /// Notes the process clock's anchor (the word and its millisecond), if that
    /// millisecond lies in this block's range of readings.
    #[inline]
    fn note_anchor(&mut self, (anchor, ms): (u128, u64)) {
        let inside = self.claimed_at_ms <= ms && ms <= self.unix_ts_ms();
        self.anchor = if inside { anchor } else { 0 };
    }
}

/// A thread's `per_sec_random` (rule 5 holds for each thread's IDs).
#[derive(Clone, Copy, Debug)]
struct PerSec {
    value: u32,
    /// The timestamp from which a new one is due (0: at the next claim).
    renew_at: u64,
    /// The stamp's reset count it was drawn under: a reset by any thread renews it, as
    /// a reset of a `Scru128Generator` does.
    resets: u64,
}

/// A thread's random source, block and `per_sec_random`.
struct Local<R> {
    /// Made at the thread's first ID (`DefaultRng::new` cannot run in a `const`).
    rng: Option<R>,
    block: Block,
    per_sec: PerSec,
}

/// A random source as the process-wide generator draws on it: `per_gen_random` with
/// the fork count the caller read already.
pub(crate) trait PerIdRandom: FieldRandom {
    fn per_id(&mut self, fork_epoch: u32) -> u32;
}

impl PerIdRandom for DefaultRng {
    #[inline]
    fn per_id(&mut self, fork_epoch: u32) -> u32 {
        self.next_u32_at(fork_epoch)
    }
}

impl<R: PerIdRandom> Local<R> {
    const fn new() -> Self {
        Self {
            rng: None,
            block: Block::EMPTY,
            per_sec: PerSec {
                value: 0,
                renew_at: 0,
                resets: 0,
            },
        }
    }

    /// The next ID, with the fork count read from `epoch` and the clock from `clock`.
    ///
    /// The fork count is read again once the ID is made: a signal handler may have
    /// forked during the call (`fork()` is async-signal-safe), and the child then goes
    /// on with it from a copy of the parent's block and random source, making the ID
    /// the parent returns. There the count has moved, and the ID is made again, from a
    /// fresh block past the parent's (issue 29: 78 children of 2 000 returned their
    /// parent's ID). A fork after that second read is a fork after the call: its ID is
    /// both processes', as is every value made before a fork.
    #[inline]
    fn next_id(
        &mut self,
        epoch: impl Fn() -> u32,
        shared: &Shared,
        mut clock: impl FnMut() -> u64,
        mut new_rng: impl FnMut() -> R,
    ) -> Result<Scru128Id, GenerateError> {
        loop {
            let fork_epoch = epoch();
            let id = self.next_id_at(fork_epoch, shared, &mut clock, &mut new_rng)?;
            if epoch() == fork_epoch {
                return Ok(id);
            }
        }
    }

    /// [`next_id`](Self::next_id) for the fork count `fork_epoch`: one clock reading,
    /// taken after the shared words are loaded, for the block's check and for a claim.
    fn next_id_at(
        &mut self,
        fork_epoch: u32,
        shared: &Shared,
        clock: &mut impl FnMut() -> u64,
        new_rng: impl FnOnce() -> R,
    ) -> Result<Scru128Id, GenerateError> {
        let seen = Seen::load(shared, clock);
        let rng = match &mut self.rng {
            Some(rng) if self.block.usable(seen.reading, seen.stamp, fork_epoch) => rng,
            _ => self.claim_block(fork_epoch, shared, seen, clock, new_rng)?,
        };
        let per_gen = rng.per_id(fork_epoch);
        let block = &mut self.block;
        let counter = block.next;
        block.next += 1;
        Ok(Scru128Id::from_fields_unchecked(
            block.timestamp,
            counter,
            block.per_sec_random,
            per_gen,
        ))
    }

    /// Claims a new block; returns the thread's random source.
    #[cold]
    #[inline(never)]
    fn claim_block(
        &mut self,
        fork_epoch: u32,
        shared: &Shared,
        first: Seen,
        clock: &mut impl FnMut() -> u64,
        new_rng: impl FnOnce() -> R,
    ) -> Result<&mut R, GenerateError> {
        // Nothing of the old block stays usable until this claim has succeeded: a
        // panic below (no entropy for a reseed after fork) caught by the caller must
        // not leave the parent's block to a retry.
        self.block.end = self.block.next;
        if self.block.fork_epoch != fork_epoch {
            // A child: `per_sec_random` is renewed too.
            self.per_sec.renew_at = 0;
        }
        let rng = self.rng.get_or_insert_with(new_rng);
        self.block = claim(fork_epoch, shared, first, clock, rng, &mut self.per_sec)?;
        Ok(rng)
    }
}

/// The shared words as a call found them, and the clock reading it took after.
#[derive(Clone, Copy, Debug)]
struct Seen {
    stamp: u64,
    word: u64,
    high: u64,
    /// Unix milliseconds.
    reading: u64,
}

impl Seen {
    /// Loads the words, then reads the clock: as the compiler and the CPU order them
    /// (relaxed loads may otherwise move past the clock's; the fence is free on
    /// x86-64). So every claim and mark the words show came from a reading taken
    /// before this one: the word sees readings in the order it changes, and no
    /// reading is older than the latest-reading mark it is measured from (a mark
    /// loaded after the reading may hold another thread's later one, which the
    /// review of the redesign found taken for a step back).
    #[inline]
    fn load(shared: &Shared, clock: &mut impl FnMut() -> u64) -> Self {
        let stamp = shared.stamp.0.load(Relaxed);
        let word = shared.claims.0.load(Relaxed);
        let high = shared.clock_high.load(Relaxed);
        fence(Acquire);
        Self {
            stamp,
            word,
            high,
            reading: clock(),
        }
    }
}

/// Claims a block from `shared`, starting from what `first` saw, and loading the
/// words and reading the clock again after a claim lost to another thread's;
/// `per_sec` is the thread's, renewed when due.
fn claim(
    fork_epoch: u32,
    shared: &Shared,
    first: Seen,
    clock: &mut impl FnMut() -> u64,
    rng: &mut impl FieldRandom,
    per_sec: &mut PerSec,
) -> Result<Block, GenerateError> {
    let mut seen = first;
    loop {
        let Seen {
            stamp,
            word,
            high,
            reading: claimed_at_ms,
        } = seen;
        let now = timestamp_from_clock(claimed_at_ms)?;
        let last_timestamp = word >> BLOCK_NUMBER_BITS;
        let last_counter = if shared.claimed_in.load(Relaxed) == fork_epoch {
            let block_number = (word & ((1 << BLOCK_NUMBER_BITS) - 1)) as u32;
            (block_number << BLOCK_BITS) | ((1 << BLOCK_BITS) - 1)
        } else {
            // The first claim in this process (a child, or the first ever): past
            // every counter the parent may go on to use at its timestamp.
            MAX_COUNTER
        };
        // The rollback is measured from the latest reading since the last reset; until
        // a claim after the newest reset has raised that mark, from the newest
        // timestamp (a reset whose claim lost to another thread's is still seen).
        let resets = stamp >> TIMESTAMP_BITS;
        let clock_high = if high >> TIMESTAMP_BITS == resets {
            high & MAX_TIMESTAMP
        } else {
            last_timestamp
        };
        let rollback = clock_high.saturating_sub(now) > shared.rollback_allowance.load(Relaxed);
        let next = advance((last_timestamp, last_counter), now, rollback, || {
            rng.counter()
        })?;
        let resets = if next.reset {
            (resets + 1) & (u64::MAX >> TIMESTAMP_BITS)
        } else {
            resets
        };
        // Every draw before the words change: a panic here, caught by the caller,
        // leaves them as they were.
        let renew = next.reset || next.timestamp >= per_sec.renew_at || resets != per_sec.resets;
        let per_sec_random = if renew { rng.per_sec() } else { per_sec.value };
        let new_stamp = (resets << TIMESTAMP_BITS) | next.timestamp;
        let new_word =
            (next.timestamp << BLOCK_NUMBER_BITS) | u64::from(next.counter >> BLOCK_BITS);
        let claimed = (!next.reset
            || shared
                .stamp
                .0
                .compare_exchange(stamp, new_stamp, Relaxed, Relaxed)
                .is_ok())
            && shared
                .claims
                .0
                .compare_exchange(word, new_word, Relaxed, Relaxed)
                .is_ok();
        if !claimed {
            // Another thread claimed (or reset) first: look again, and read the clock
            // again, after its claim.
            seen = Seen::load(shared, clock);
            continue;
        }
        if shared.claimed_in.load(Relaxed) != fork_epoch {
            shared.claimed_in.store(fork_epoch, Relaxed);
        }
        if !next.reset {
            shared.stamp.0.fetch_max(new_stamp, Relaxed);
        }
        // After the claim: a claim that has not yet seen this reading measures from an
        // earlier one, which can only miss a reset by the difference (never makes one).
        raise_clock_high(shared, resets, now);
        if renew {
            *per_sec = PerSec {
                value: per_sec_random,
                renew_at: next.timestamp + PER_SEC_INTERVAL,
                resets,
            };
        }
        return Ok(Block {
            timestamp: next.timestamp,
            claimed_at_ms,
            next: next.counter,
            end: (next.counter | ((1 << BLOCK_BITS) - 1)) + 1,
            per_sec_random,
            fork_epoch,
            stamp: new_stamp,
            anchor: 0,
        });
    }
}

/// Raises the latest clock reading to `now`, for a claim under the reset count
/// `resets`: within one run of the generator (the same count) only upwards; a mark of
/// another run is replaced only while `resets` is the stamp's. Counts are compared for
/// equality only, never by size, so that the count's wrap (after 2^20 resets) leaves
/// no mark above every reading of the runs after it (the review of the redesign: with
/// `fetch_max`, every claim after the wrap fell back to the newest timestamp).
fn raise_clock_high(shared: &Shared, resets: u64, now: u64) {
    let new = (resets << TIMESTAMP_BITS) | now;
    let mut high = shared.clock_high.load(Relaxed);
    loop {
        if high >> TIMESTAMP_BITS == resets {
            if high & MAX_TIMESTAMP >= now {
                return;
            }
        } else if shared.stamp.0.load(Relaxed) >> TIMESTAMP_BITS != resets {
            // A claim of a run that a reset has ended since.
            return;
        }
        match shared
            .clock_high
            .compare_exchange_weak(high, new, Relaxed, Relaxed)
        {
            Ok(_) => return,
            Err(found) => high = found,
        }
    }
}

/// Sets the rollback allowance of the process-wide generator (default 10 000 ms); see
/// [`crate::__private::set_process_rollback_allowance`].
pub(crate) fn set_rollback_allowance(ms: u64) {
    SHARED.rollback_allowance.store(ms, Relaxed);
}

std::thread_local! {
    /// No destructor (nothing in it needs dropping), so it is there in every other
    /// thread-local's destructor too.
    static LOCAL: RefCell<Local<DefaultRng>> = const { RefCell::new(Local::new()) };
}

/// Generates a new ID from the process-wide generator.
///
/// Thread-safe and fast under contention: each thread spends a block of counters
/// claimed from one shared state, so each thread sees strictly increasing IDs, no two
/// IDs share `(timestamp, counter)`, and a single thread's IDs follow the rules of
/// [`Scru128Generator`](crate::Scru128Generator) but one: within a millisecond a
/// thread's counter rises by one only inside a block of 256, and jumps past the
/// blocks other threads claimed in between (alone in the process, a thread's counter
/// rises by one). Within one timestamp (one millisecond, or longer while the clock
/// catches up after a small step back), IDs of *different* threads are unique but
/// not ordered by call time. All of this holds through steps of the system clock:
/// forward by any amount, and back within the rollback allowance (10 s, measured from
/// the latest clock reading); a step back beyond it resets the generator, the only time a
/// thread's IDs go down. After `fork()` the child claims a fresh block at a fresh
/// millisecond and reseeds, so it never repeats its parent's IDs, also when a first
/// attempt in the child panicked (no OS entropy) and the panic was caught. A thread
/// that panics never leaves the generator unusable, and no thread ever waits for
/// another.
///
/// # Panics
///
/// Panics if the system clock is before 2020-01-01 or past the year 2577, or if the
/// operating system's random source fails. It is not async-signal-safe: do not call
/// it from a signal handler; called from one that interrupted it on the same thread,
/// it panics. A `fork()` from a signal handler that interrupted it is safe: the call,
/// which goes on in both processes, notices the fork and makes the child's ID again,
/// so the two return different IDs (unless the fork came after the ID was made and
/// checked: that ID is both processes', as is every value made before a fork).
///
/// ```
/// let a = scru128::scru128();
/// let b = scru128::scru128();
/// assert!(a < b);
/// ```
#[inline]
pub fn scru128() -> Scru128Id {
    // The thread-local is reached here, in the caller's code, where it is a fixed
    // offset from the thread pointer; the rest is one direct call. (With the whole of
    // it inside the closure, `LocalKey::with` was too big to inline and reached the
    // thread-local through an indirect call.) Through a u128, so that the value comes
    // back in registers.
    Scru128Id::from_u128(LOCAL.with(next_from))
}

impl Local<DefaultRng> {
    /// The next ID when nothing but the common case is needed: the process clock's
    /// anchor is the one the slow path last found inside the block's range and the
    /// counter is inside its window, the block is the newest and has counters left, a
    /// random word is buffered, and the fork count is the block's once the ID is made;
    /// else `None`, and [`next_from_slow`] does it all. Apart from the rest, this needs
    /// few registers, so `next_from` saves few.
    ///
    /// The fork count is read once, at the end: the block and the random words carry
    /// the count they were made under, and a count that differs then (a fork before
    /// the call, or during it from a signal handler) sends the call to the slow path,
    /// which finds both copied from the parent and makes the ID afresh. Spending a
    /// copied counter or word before that is harmless: the child never uses them.
    #[allow(clippy::inline_always)] // measured: the fast path must be in `next_from`
    #[inline(always)]
    fn next_fast(&mut self) -> Option<u128> {
        let block = &mut self.block;
        if !system_clock::anchor_current(block.anchor)
            || block.next >= block.end
            || SHARED.stamp.0.load(Relaxed) != block.stamp
        {
            return None;
        }
        let per_gen = self.rng.as_mut()?.buffered_u32(block.fork_epoch)?;
        let counter = block.next;
        block.next += 1;
        // Everything the ID is made of is read before the fork count, also as the
        // compiler orders it: a fork from a signal handler lands between two
        // instructions of this thread.
        compiler_fence(core::sync::atomic::Ordering::SeqCst);
        // The block's count came from `fork::epoch`, never 0 (the empty block's 0
        // has no counters to spend).
        if fork::count_now() != block.fork_epoch {
            return None;
        }
        Some(
            Scru128Id::from_fields_unchecked(
                block.timestamp,
                counter,
                block.per_sec_random,
                per_gen,
            )
            .to_u128(),
        )
    }
}

/// The next ID of this thread's [`Local`].
#[inline(never)]
fn next_from(local: &RefCell<Local<DefaultRng>>) -> u128 {
    if let Ok(mut fast) = local.try_borrow_mut() {
        if let Some(id) = fast.next_fast() {
            return id;
        }
    }
    next_from_slow(local)
}

/// [`next_from`] for every case: claims, clock refreshes, refills, forks, errors.
#[cold]
#[inline(never)]
fn next_from_slow(local: &RefCell<Local<DefaultRng>>) -> u128 {
    let Ok(mut local) = local.try_borrow_mut() else {
        panic!("scru128: not async-signal-safe: called from a signal handler that interrupted it");
    };
    match local.next_id(fork::epoch, &SHARED, system_clock::now_ms, DefaultRng::new) {
        Ok(id) => {
            local.block.note_anchor(system_clock::anchor());
            id.to_u128()
        }
        Err(err) => panic!("scru128: {err}"),
    }
}

/// Whether this thread's last ID from [`scru128`] was made in this process, rather
/// than copied from the parent by a `fork()` that came after it was made (tests, via
/// `scru128::__private`).
pub(crate) fn last_id_made_here() -> bool {
    LOCAL.with(|local| {
        local
            .try_borrow()
            .is_ok_and(|local| local.block.fork_epoch == fork::epoch())
    })
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
// call.
#[inline]
pub fn scru128_string() -> std::string::String {
    scru128().into()
}

#[cfg(test)]
mod tests;
