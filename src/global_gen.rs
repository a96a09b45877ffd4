//! The process-wide generator behind [`scru128`] and [`scru128_string`].
//!
//! One shared [`State`] behind a lock hands out *blocks* of consecutive counters at
//! one timestamp; each thread keeps its block, with its own random source, in
//! thread-local storage and spends it without taking the lock.
//!
//! A claim reads the clock *under* the lock, so the shared state sees the clock's
//! readings in the order it is used, and a thread spends its block only while all of
//! these hold:
//!
//! - counters are left;
//! - the clock reads at or after the reading the block was claimed at, and at or
//!   before the block's timestamp (a new millisecond, or a step back, ends the block);
//! - the block is still the newest any thread has claimed: its timestamp, and the
//!   number of resets so far (after another thread moved on, an old block never comes
//!   back into use, also when the clock steps back to it, or comes back to it after a
//!   reset);
//! - no `fork()` happened since the claim.
//!
//! The clock is the process-wide one of [`SystemClock`](crate::SystemClock) (see
//! `process_clock.rs`): every thread sees the same reading, also right after the
//! system clock is stepped.
//!
//! Blocks are disjoint, so no two IDs share `(timestamp, counter)`, and each new block
//! lies above every earlier one (unless the clock went back more than the rollback
//! allowance: the documented reset), so each thread's IDs increase. Within one
//! millisecond, IDs of different threads are unique but not ordered by call time
//! (across milliseconds they are, as IDs of different machines are).

use core::cell::RefCell;
use core::sync::atomic::{AtomicU64, Ordering, compiler_fence};

use crate::error::GenerateError;
use crate::fork_lock::ForkLock;
use crate::generator::{FieldRandom, State, timestamp_from_clock};
use crate::id::{MAX_TIMESTAMP, TIMESTAMP_BIAS};
use crate::sources::{DefaultRng, RandomSource};
use crate::{Scru128Id, fork};

/// Counters a thread claims at once: enough to make the shared lock rare under load,
/// few enough that the unused rest of a block (dropped when the millisecond changes)
/// is a negligible part of the 2^28 counter space.
const BLOCK: u32 = 256;

/// The state blocks are claimed from, and the stamp of the newest block (its timestamp,
/// and above it the number of resets so far), which threads read without the lock to
/// see that another has moved on.
#[repr(C)]
struct Shared {
    newest: AtomicU64,
    /// A lock that a forked child takes back from a thread it does not have (the
    /// state may then be half-updated, which the child's first claim repairs: it
    /// moves past the parent's timestamp, as after every fork). On cache lines of its
    /// own (`ForkLock`), apart from `newest`.
    state: ForkLock<State>,
}

impl Shared {
    const fn new() -> Self {
        Self {
            newest: AtomicU64::new(0),
            state: ForkLock::new(State::new()),
        }
    }
}

static SHARED: Shared = Shared::new();

/// A thread's current block of counters.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// Timestamp (biased) of the block, and the same in Unix milliseconds.
    timestamp: u64,
    unix_ts_ms: u64,
    /// The clock reading (Unix ms) under the lock when the block was claimed.
    claimed_at_ms: u64,
    /// Next counter to hand out, and one past the last of the block.
    next: u32,
    end: u32,
    per_sec_random: u32,
    /// Fork count when the block was claimed: a child must not spend its parent's block.
    fork_epoch: u32,
    /// `Shared::newest` as this claim left it.
    stamp: u64,
    /// The process clock's anchor (its sequence number) whose millisecond lies in this
    /// block's range of readings (`claimed_at_ms..=unix_ts_ms`), as the slow path
    /// last found it; `NO_ANCHOR` for none. While the anchor is still that one, the
    /// clock reads that millisecond, so the fast path compares one number instead of
    /// the reading with both ends of the range.
    anchor_seq: u64,
}

/// [`Block::anchor_seq`] for no anchor: the clock's sequence number, which rises by
/// two per anchor from 0, never reaches it.
const NO_ANCHOR: u64 = u64::MAX;

impl Block {
    const EMPTY: Self = Self {
        timestamp: 0,
        unix_ts_ms: 0,
        claimed_at_ms: 0,
        next: 0,
        end: 0,
        per_sec_random: 0,
        fork_epoch: 0,
        stamp: u64::MAX,
        anchor_seq: NO_ANCHOR,
    };

    /// Whether the next ID may come from this block, for a clock reading `now_ms`.
    #[inline]
    fn usable(&self, now_ms: u64, shared: &Shared, fork_epoch: u32) -> bool {
        self.next < self.end
            && self.claimed_at_ms <= now_ms
            && now_ms <= self.unix_ts_ms
            && shared.newest.load(Ordering::Relaxed) == self.stamp
            && self.fork_epoch == fork_epoch
    }

    /// Notes the anchor the process clock has now (a sequence number and its
    /// millisecond), if that millisecond lies in this block's range of readings.
    #[inline]
    fn note_anchor(&mut self, anchor: Option<(u64, u64)>) {
        self.anchor_seq = match anchor {
            Some((seq, ms)) if self.claimed_at_ms <= ms && ms <= self.unix_ts_ms => seq,
            _ => NO_ANCHOR,
        };
    }
}

/// A thread's random source and block.
struct Local<R> {
    /// Made at the thread's first ID (`DefaultRng::new` cannot run in a `const`).
    rng: Option<R>,
    block: Block,
}

/// A random source as the process-wide generator draws on it: `per_gen_random` with
/// the fork count the caller read already.
pub(crate) trait PerIdRandom: RandomSource {
    fn per_id(&mut self, fork_epoch: u32) -> u32;
}

impl PerIdRandom for DefaultRng {
    #[inline]
    fn per_id(&mut self, fork_epoch: u32) -> u32 {
        self.next_u32_at(fork_epoch)
    }
}

impl<R: PerIdRandom> Local<R> {
    /// The next ID, for a clock reading `now_ms`, with the fork count read from
    /// `epoch`; a claim reads `clock` under the shared lock.
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
        now_ms: u64,
        epoch: impl Fn() -> u32,
        shared: &Shared,
        mut clock: impl FnMut() -> u64,
        mut new_rng: impl FnMut() -> R,
    ) -> Result<Scru128Id, GenerateError> {
        loop {
            let fork_epoch = epoch();
            let id = self.next_id_at(now_ms, fork_epoch, shared, &mut clock, &mut new_rng)?;
            if epoch() == fork_epoch {
                return Ok(id);
            }
        }
    }

    /// [`next_id`](Self::next_id) for the fork count `fork_epoch`.
    #[inline]
    fn next_id_at(
        &mut self,
        now_ms: u64,
        fork_epoch: u32,
        shared: &Shared,
        clock: impl FnOnce() -> u64,
        new_rng: impl FnOnce() -> R,
    ) -> Result<Scru128Id, GenerateError> {
        let rng = match &mut self.rng {
            Some(rng) if self.block.usable(now_ms, shared, fork_epoch) => rng,
            _ => self.claim_block(fork_epoch, shared, clock, new_rng)?,
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

    /// Claims a new block from the shared state; returns the thread's random source.
    #[cold]
    #[inline(never)]
    fn claim_block(
        &mut self,
        fork_epoch: u32,
        shared: &Shared,
        clock: impl FnOnce() -> u64,
        new_rng: impl FnOnce() -> R,
    ) -> Result<&mut R, GenerateError> {
        // Nothing of the old block stays usable until this claim has succeeded: a
        // panic below (no entropy for a reseed after fork) caught by the caller must
        // not leave the parent's block to a retry.
        self.block.end = self.block.next;
        let rng = self.rng.get_or_insert_with(new_rng);
        self.block = claim(fork_epoch, shared, clock, rng)?;
        Ok(rng)
    }
}

/// Claims a block from `shared`, reading `clock` under its lock.
fn claim(
    fork_epoch: u32,
    shared: &Shared,
    clock: impl FnOnce() -> u64,
    rng: &mut impl FieldRandom,
) -> Result<Block, GenerateError> {
    let Ok(mut state) = shared.state.lock() else {
        // Only a signal handler that interrupted this thread's own claim gets here,
        // and `scru128()` refuses to be nested before that (see there).
        unreachable!("scru128: a claim nested in a claim");
    };
    claim_locked(fork_epoch, shared, &mut state, clock, rng)
}

/// [`claim`] with the lock held.
fn claim_locked(
    fork_epoch: u32,
    shared: &Shared,
    state: &mut State,
    clock: impl FnOnce() -> u64,
    rng: &mut impl FieldRandom,
) -> Result<Block, GenerateError> {
    if state.forked(fork_epoch) {
        state.after_fork(fork_epoch);
    }
    // Read under the lock, so that claims see the clock in the order they use it.
    let claimed_at_ms = clock();
    let now = timestamp_from_clock(claimed_at_ms)?;
    let (timestamp, next, count, per_sec_random) = state.reserve(now, rng, BLOCK)?;
    // A timestamp below the newest one is a reset (the clock went back beyond the
    // allowance): the reset count goes up, so that no block from before it comes back
    // into use when the clock reaches its timestamp again (the state no longer knows
    // which counters it holds).
    let newest = shared.newest.load(Ordering::Relaxed);
    let mut resets = newest >> TIMESTAMP_BITS;
    if timestamp < newest & MAX_TIMESTAMP {
        resets = (resets + 1) & (u64::MAX >> TIMESTAMP_BITS);
    }
    let stamp = (resets << TIMESTAMP_BITS) | timestamp;
    if newest != stamp {
        shared.newest.store(stamp, Ordering::Relaxed);
    }
    Ok(Block {
        timestamp,
        unix_ts_ms: timestamp + TIMESTAMP_BIAS,
        claimed_at_ms,
        next,
        end: next + count,
        per_sec_random,
        fork_epoch,
        stamp,
        anchor_seq: NO_ANCHOR,
    })
}

/// Sets the rollback allowance of the process-wide generator (default 10 000 ms); see
/// [`crate::__private::set_process_rollback_allowance`].
pub(crate) fn set_rollback_allowance(ms: u64) {
    // Only a signal handler that interrupted this thread's own claim could find the
    // lock held by this thread; a front end calls this when it loads.
    if let Ok(mut state) = SHARED.state.lock() {
        state.set_rollback_allowance(ms);
    }
}

/// Fork handler (child): see [`ForkLock::adopt_in_child`].
#[cfg(unix)]
pub(crate) fn adopt_lock_in_child() {
    SHARED.state.adopt_in_child();
}

/// Bits of a timestamp in a block's stamp; the reset count is above them.
const TIMESTAMP_BITS: u32 = MAX_TIMESTAMP.count_ones();

std::thread_local! {
    static LOCAL: RefCell<Local<DefaultRng>> = const {
        RefCell::new(Local { rng: None, block: Block::EMPTY })
    };
}

#[inline]
fn clock_ms() -> u64 {
    crate::sources::Clock::unix_ts_ms(&mut crate::SystemClock)
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
/// forward by any amount, and back within the rollback allowance (10 s); a step back
/// beyond it resets the generator, the only time a thread's IDs go down. After
/// `fork()` the child claims a fresh block at a fresh millisecond and reseeds, so it
/// never repeats its parent's IDs, also when a first attempt in the child panicked
/// (no OS entropy) and the panic was caught. A thread that panics never leaves the
/// generator unusable.
///
/// # Panics
///
/// Panics if the system clock is before 2020-01-01 or past the year 2577, or if the
/// operating system's random source fails. It is not async-signal-safe: do not call
/// it from a signal handler. Called from one that interrupted it on the same thread it
/// panics; from one that interrupted the process-wide clock's refresh it may wait for
/// ever (a thread inside a claim waits for that refresh). A `fork()` from a signal
/// handler that interrupted it is safe: it deadlocks neither process, the child never
/// waits for a lock that only a thread it does not have could let go, and the call,
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
    /// few registers, so `next_from` saves few (the whole of `next_id` inlined there
    /// made it save six and restore them at every call).
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
        if !crate::process_clock::anchor_current(block.anchor_seq)
            || block.next >= block.end
            || SHARED.newest.load(Ordering::Relaxed) != block.stamp
        {
            return None;
        }
        let per_gen = self.rng.as_mut()?.buffered_u32(block.fork_epoch)?;
        let counter = block.next;
        block.next += 1;
        // Everything the ID is made of is read before the fork count, also as the
        // compiler orders it: a fork from a signal handler lands between two
        // instructions of this thread.
        compiler_fence(Ordering::SeqCst);
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
    match local.next_id(clock_ms(), fork::epoch, &SHARED, clock_ms, DefaultRng::new) {
        Ok(id) => {
            local.block.note_anchor(crate::process_clock::anchor());
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
// call (scru128_string() 36 ns against 24 ns, compare/benches/compare.rs).
#[inline]
pub fn scru128_string() -> std::string::String {
    scru128().into()
}

#[cfg(test)]
mod tests {
    //! The claim logic with an injected clock, random source and fork count: several
    //! `Local`s stand for threads, one `Shared` for the process.

    use core::cell::Cell;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::vec;
    use std::vec::Vec;

    use super::{Block, Local, NO_ANCHOR, Shared};
    use crate::Scru128Id;
    use crate::id::TIMESTAMP_BIAS;

    /// The fast path spends a block only under an anchor whose millisecond the slow
    /// path found in the block's range of readings, both ends included.
    #[test]
    fn a_block_notes_only_an_anchor_inside_its_range() {
        let mut block = Block {
            claimed_at_ms: 1_700_000_000_100,
            unix_ts_ms: 1_700_000_000_105,
            ..Block::EMPTY
        };
        for (anchor, noted) in [
            (Some((4, 1_700_000_000_099)), NO_ANCHOR),
            (Some((4, 1_700_000_000_100)), 4),
            (Some((6, 1_700_000_000_103)), 6),
            (Some((8, 1_700_000_000_105)), 8),
            (Some((10, 1_700_000_000_106)), NO_ANCHOR),
            (None, NO_ANCHOR),
        ] {
            block.note_anchor(anchor);
            assert_eq!(block.anchor_seq, noted, "{anchor:?}");
        }
    }

    const T0: u64 = 1_700_000_000_000;

    /// A counting random source; panics at the draws listed in `fail_at` (1-based).
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
        Local {
            rng: None,
            block: super::Block::EMPTY,
        }
    }

    /// One ID for a thread whose own clock reads `view_ms`, while a claim reads the
    /// process clock `claim_ms`.
    fn next<'a>(
        t: &mut Thread<'a>,
        shared: &Shared,
        rng: &'a Counting,
        view_ms: u64,
        claim_ms: u64,
        epoch: u32,
    ) -> Scru128Id {
        t.next_id(view_ms, move || epoch, shared, || claim_ms, || rng)
            .unwrap()
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

    /// Issue 10, defect 1: threads whose readings disagree (one still at the
    /// millisecond before a +1 h step, the other already after it) never make a
    /// thread's IDs go down or reset the shared state, because a claim reads the
    /// clock under the lock instead of trusting the claiming thread's reading.
    #[test]
    fn threads_whose_readings_disagree_after_a_step_stay_increasing() {
        let shared = Shared::new();
        let (ra, rb) = (Counting::new(), Counting::new());
        let (mut a, mut b) = (thread(), thread());
        let step = T0 + 3_600_000;
        let mut ids_a = vec![next(&mut a, &shared, &ra, T0, T0, 0)];
        let mut ids_b = vec![next(&mut b, &shared, &rb, T0, T0, 0)];
        let mut all = vec![ids_a[0], ids_b[0]];
        for i in 0..2_000 {
            // A's reading lags (stale until i = 1000); B is at the stepped time.
            let view_a = if i < 1_000 { T0 } else { step };
            let ida = next(&mut a, &shared, &ra, view_a, step, 0);
            let idb = next(&mut b, &shared, &rb, step, step, 0);
            ids_a.push(ida);
            ids_b.push(idb);
            all.extend([ida, idb]);
        }
        assert_increasing(&ids_a);
        assert_increasing(&ids_b);
        let mut p = pairs(&all);
        p.sort_unstable();
        p.dedup();
        assert_eq!(p.len(), all.len(), "a (timestamp, counter) came twice");
        // A moved to the stepped time at its first claim after it (its first ID after
        // the step still came from the block it had).
        assert!(ids_a[2..].iter().all(|id| id.unix_ts_ms() == step));
    }

    /// Issue 10, defect 4: an idle thread's old block does not come back into use
    /// after the clock steps back (within the allowance) to its millisecond: its IDs
    /// then carry the newest timestamp, as other threads' do.
    #[test]
    fn an_idle_block_does_not_come_back_after_a_step_back_to_it() {
        let shared = Shared::new();
        let (ra, rb) = (Counting::new(), Counting::new());
        let (mut a, mut b) = (thread(), thread());
        let old = next(&mut a, &shared, &ra, T0, T0, 0); // A claims at T0, then idles
        // B goes on for 5 s.
        let mut last_b = next(&mut b, &shared, &rb, T0 + 5_000, T0 + 5_000, 0);
        // The clock steps back 5 s, to A's millisecond exactly.
        let ida = next(&mut a, &shared, &ra, T0, T0, 0);
        assert_eq!(
            ida.unix_ts_ms(),
            T0 + 5_000,
            "A spent its old block at {}",
            old.unix_ts_ms()
        );
        assert!(ida > old);
        for _ in 0..1_000 {
            let idb = next(&mut b, &shared, &rb, T0 + 1, T0 + 1, 0);
            assert!(idb > last_b);
            assert_eq!(idb.unix_ts_ms(), T0 + 5_000);
            last_b = idb;
        }
        // A step back to a time between A's claim and its block's timestamp ends the
        // block too (the reading is before the claim's).
        let shared = Shared::new();
        let mut c = thread();
        let rc = Counting::new();
        next(&mut c, &shared, &rc, T0 + 10, T0 + 10, 0);
        next(&mut c, &shared, &rc, T0 + 9, T0 + 9, 0);
        assert_eq!(
            c.block.claimed_at_ms,
            T0 + 9,
            "no new claim for a step back"
        );
    }

    /// Issue 18, item 4: "an old block never comes back" held only until a reset.
    /// After the clock went back beyond the allowance (a reset) and came forward again
    /// to an idle thread's millisecond, that thread's old block looked current again
    /// (the newest timestamp was its own), and the rest of it could meet the counters
    /// the reset state hands out there. The reset count in the stamp ends it.
    #[test]
    fn an_old_block_does_not_come_back_after_a_reset_either() {
        let shared = Shared::new();
        let (ra, rb) = (Counting::new(), Counting::new());
        let (mut a, mut b) = (thread(), thread());
        let old = next(&mut a, &shared, &ra, T0, T0, 0); // A claims at T0, then idles
        let old_stamp = a.block.stamp;
        // B: the clock goes back 20 s (beyond the 10 s allowance: a reset), then
        // forward again to T0.
        next(&mut b, &shared, &rb, T0 - 20_000, T0 - 20_000, 0);
        let b_at_t0 = next(&mut b, &shared, &rb, T0, T0, 0);
        assert_eq!(b_at_t0.unix_ts_ms(), T0);
        let ida = next(&mut a, &shared, &ra, T0, T0, 0);
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

    /// Issue 10, defect 2: after a fork, a reseed that fails (a panic, caught by the
    /// caller) leaves no usable block behind: the retry claims a fresh block at a
    /// fresh millisecond instead of spending the rest of the parent's.
    #[test]
    fn a_caught_panic_in_the_first_claim_after_a_fork_leaves_nothing_to_reuse() {
        let shared = Shared::new();
        let rng = Counting::new();
        let mut t = thread();
        let parent: Vec<Scru128Id> = (0..10)
            .map(|_| next(&mut t, &shared, &rng, T0, T0, 0))
            .collect();
        // What the parent goes on with: the rest of its block.
        let mut parent_copy = Local {
            rng: t.rng,
            block: t.block,
        };
        let parent_next = next(&mut parent_copy, &shared, &rng, T0, T0, 0);
        // In the child (fork count 1) the first draw fails.
        rng.fail_at.set(rng.draws.get() + 1);
        let failed = catch_unwind(AssertUnwindSafe(|| next(&mut t, &shared, &rng, T0, T0, 1)));
        assert!(failed.is_err());
        let child = next(&mut t, &shared, &rng, T0, T0, 1);
        assert!(
            child.timestamp() > parent_next.timestamp(),
            "{child} vs {parent_next}"
        );
        assert!(child > *parent.last().unwrap());
    }

    /// Review of issue 18 (item 4's "one read of the fork count per ID"): a fork inside
    /// a claim (a signal handler that interrupted it and forked; here the clock read
    /// under the lock forks, which is the same moment) makes parent and child return
    /// the *same ID*, not only the same `(timestamp, counter)`: the interrupted call
    /// goes on in the child with the fork count it read before the fork, so the
    /// claim does not move past the parent's state (no fresh counter is drawn within
    /// the same millisecond) and `per_id` is given the old count, so `DefaultRng`
    /// does not reseed and hands out the parent's next buffered word. Before 8b519d6
    /// the per-ID draw read the fork count itself and reseeded in the child (the IDs
    /// then shared `(timestamp, counter)` but differed). `scru128()`'s docs say the
    /// IDs are equal only "if the fork came after the ID was made"; here it came
    /// before. Now the fork count is read again once the ID is made, and the child
    /// makes it again (issue 29).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fork_inside_a_claim_never_gives_parent_and_child_the_same_id() {
        use crate::sources::DefaultRng;
        use std::io::{Read as _, Write as _};
        use std::os::fd::FromRawFd as _;

        let shared = Shared::new();
        let mut t: Local<DefaultRng> = Local {
            rng: None,
            block: super::Block::EMPTY,
        };
        // One millisecond throughout, so that the second claim steps the counter
        // (no draw) as any claim within a busy millisecond does.
        let first = t
            .next_id(T0, crate::fork::epoch, &shared, || T0, DefaultRng::new)
            .unwrap();
        t.block.end = t.block.next; // the block is spent: the next ID claims
        let mut fds = [0; 2];
        // SAFETY: a pipe for the child's answer.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let mut pid = -1;
        let id = t
            .next_id(
                T0,
                crate::fork::epoch,
                &shared,
                || {
                    if pid < 0 {
                        // SAFETY: the child only finishes this call, writes the ID to
                        // the pipe and leaves with `_exit`.
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
    /// thread has) is noticed by the second read, and the child makes its ID again
    /// from a fresh block past the parent's, with a fresh draw; the parent, whose
    /// count did not move, returns the ID the call made first.
    #[test]
    fn a_fork_during_the_call_is_noticed_and_the_child_makes_its_id_again() {
        let shared = Shared::new();
        let rng = Counting::new();
        let mut t = thread();
        let earlier = next(&mut t, &shared, &rng, T0, T0, 7);
        let mut parent = Local {
            rng: t.rng,
            block: t.block,
        };
        let parent_id = next(&mut parent, &shared, &rng, T0, T0, 7);
        // The child's copy of the same call: 7 at the first read, 8 (its own count)
        // from then on.
        let reads = Cell::new(0u32);
        let child_epoch = || {
            reads.set(reads.get() + 1);
            if reads.get() == 1 { 7 } else { 8 }
        };
        let child_id = t.next_id(T0, child_epoch, &shared, || T0, || &rng).unwrap();
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
        let after = t.next_id(T0, steady, &shared, || T0, || &rng).unwrap();
        assert_eq!(reads.get(), 2);
        assert_eq!(after.counter(), child_id.counter() + 1);
    }

    #[test]
    fn a_clock_out_of_range_at_a_claim_is_an_error_that_changes_nothing() {
        let shared = Shared::new();
        let rng = Counting::new();
        let mut t = thread();
        let first = next(&mut t, &shared, &rng, T0, T0, 0);
        for bad in [0, TIMESTAMP_BIAS, u64::MAX] {
            let err = t.next_id(bad, || 0, &shared, || bad, || &rng);
            assert!(err.is_err());
        }
        assert!(next(&mut t, &shared, &rng, T0, T0, 0) > first);
    }

    /// Issue 18, item 1 (reproduced by the review after 130 forks): `fork()` from a
    /// signal handler that interrupted a claim. The prepare handler took the shared
    /// lock unconditionally, which this very thread held: the parent deadlocked. Now
    /// nothing is taken across `fork()`; in the child, the interrupted claim still
    /// holds the lock, and the child's other threads wait for it instead of taking it
    /// over; it then finishes, in both processes.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fork_from_a_signal_handler_inside_a_claim_deadlocks_neither_process() {
        use core::sync::atomic::{AtomicBool, AtomicI32, Ordering};
        use std::os::unix::thread::JoinHandleExt as _;

        use crate::fork_lock::{Refused, signal_fork};

        static IN_CLAIM: AtomicBool = AtomicBool::new(false);
        static RELEASE: AtomicBool = AtomicBool::new(false);
        /// In the child: what another thread found the lock to be (1: busy, as it
        /// should; 2: taken over from the interrupted claim).
        static OTHER_THREAD: AtomicI32 = AtomicI32::new(0);
        let _serial = signal_fork::arm(|| {
            let busy = std::thread::spawn(|| super::SHARED.state.try_lock().err())
                .join()
                .ok()
                .flatten()
                == Some(Refused::Busy);
            OTHER_THREAD.store(if busy { 1 } else { 2 }, Ordering::Relaxed);
            RELEASE.store(true, Ordering::Relaxed); // the interrupted claim may end
            -1
        });
        IN_CLAIM.store(false, Ordering::Relaxed);
        RELEASE.store(false, Ordering::Relaxed);
        let parent = std::process::id();
        let claimer = std::thread::spawn(move || {
            let rng = Counting::new();
            let claimed = super::claim(
                crate::fork::epoch(),
                &super::SHARED,
                || {
                    IN_CLAIM.store(true, Ordering::Relaxed);
                    while !RELEASE.load(Ordering::Relaxed) {
                        core::hint::spin_loop();
                    }
                    super::clock_ms()
                },
                &mut &rng,
            );
            if std::process::id() != parent {
                // The child: the claim ended, the lock is free, and a new thread of
                // the child makes IDs.
                let ok = claimed.is_ok()
                    && OTHER_THREAD.load(Ordering::Relaxed) == 1
                    && !super::SHARED.state.is_held()
                    && std::thread::spawn(super::scru128).join().is_ok();
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(i32::from(!ok)) }
            }
            claimed.is_ok()
        });
        while !IN_CLAIM.load(Ordering::Relaxed) {
            std::thread::yield_now();
        }
        let child = signal_fork::fork_on(claimer.as_pthread_t());
        RELEASE.store(true, Ordering::Relaxed);
        let child = child.expect("the parent deadlocked in fork() (its handler never returned)");
        assert!(claimer.join().unwrap());
        assert_eq!(
            signal_fork::exit_status(child),
            Some(0),
            "the child failed or hung"
        );
    }
}
