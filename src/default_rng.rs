//! [`DefaultRng`] (feature `std`): `ChaCha12` seeded by the operating system, reseeded
//! when the fork count says it was copied into a child.

use crate::fork;
use crate::sources::RandomSource;

/// The default random source: `ChaCha12` (the algorithm of `rand`'s `StdRng`), seeded
/// from the operating system's random source and reseeded in a child process after
/// `fork()`, so that parent and child never share random numbers (also when the first
/// reseed in the child fails and the panic is caught: the next draw tries again).
///
/// It is deliberately not `Clone`: two copies would yield the same numbers.
///
/// ```
/// use scru128::{DefaultRng, RandomSource};
/// let mut rng = DefaultRng::new();
/// let _ = rng.next_u32();
/// ```
/// Two sources are equal when they will yield the same numbers (scru128 1.0.0's
/// generator was `PartialEq`, so a generator over this source is too).
#[derive(PartialEq, Eq)]
pub struct DefaultRng {
    core: rand_chacha::ChaCha12Core,
    /// Output of the last block computation; `buf[next..]` is unread.
    buf: [u32; 64],
    next: usize,
    fork_epoch: u32,
}

impl DefaultRng {
    /// Creates a source seeded from the operating system.
    ///
    /// # Panics
    ///
    /// Panics if the operating system's random source fails, rather than fall back
    /// to a weak seed.
    pub fn new() -> Self {
        let fork_epoch = fork::watch();
        Self {
            core: os_seeded(),
            buf: [0; 64],
            next: 64,
            fork_epoch,
        }
    }

    /// Computes the next 64 words. Kept out of line so that the per-ID path stays
    /// small enough to inline.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let epoch = fork::epoch();
        if self.fork_epoch != epoch {
            // After a fork the buffered words and the core are the parent's too. The
            // new seed first: if the OS random source fails (a panic), nothing says the
            // fork was handled, and a caught retry reseeds again instead of going on
            // with the parent's stream.
            self.next = self.buf.len();
            self.core = os_seeded();
            self.fork_epoch = epoch;
        }
        rand_core::block::Generator::generate(&mut self.core, &mut self.buf);
        self.next = 0;
    }
}

/// Fills `dest` from the operating system's random source.
///
/// # Panics
///
/// Panics if it fails, rather than fall back to a weak seed.
pub(crate) fn os_random(dest: &mut [u8]) {
    if let Err(err) = getrandom::fill(dest) {
        panic!(
            "scru128: the operating system's random source failed ({err}); refusing a weak seed"
        );
    }
}

fn os_seeded() -> rand_chacha::ChaCha12Core {
    let mut seed = [0u8; 32];
    os_random(&mut seed);
    rand_core::SeedableRng::from_seed(seed)
}

impl Default for DefaultRng {
    fn default() -> Self {
        Self::new()
    }
}

impl DefaultRng {
    /// The next buffered word, if one is left and no fork came since the buffer was
    /// filled (fork count `epoch`); else `None` (then [`next_u32_at`](Self::next_u32_at)).
    /// For the process-wide generator, which has read the fork count already.
    #[inline]
    pub(crate) fn buffered_u32(&mut self, epoch: u32) -> Option<u32> {
        let word = *self.buf.get(self.next)?;
        if self.fork_epoch != epoch {
            return None;
        }
        self.next += 1;
        Some(word)
    }

    /// `next_u32` for a caller that has just read the fork count `epoch`: one read of
    /// it per ID, not two.
    #[inline]
    pub(crate) fn next_u32_at(&mut self, epoch: u32) -> u32 {
        // After a fork the buffered words are the parent's too: drop them.
        if self.next >= self.buf.len() || self.fork_epoch != epoch {
            self.refill();
        }
        let word = self.buf[self.next];
        self.next += 1;
        word
    }
}

impl RandomSource for DefaultRng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        // The count as stored: 0 in a child that has not taken its own yet differs
        // from the buffer's (never 0), and `refill` takes it.
        self.next_u32_at(fork::count_now())
    }

    #[inline]
    fn __next_u32_at_hand(&mut self) -> Option<u32> {
        self.buffered_u32(fork::count_now())
    }

    fn fill_u32(&mut self, mut dest: &mut [u32]) {
        while !dest.is_empty() {
            if self.next >= self.buf.len() || self.fork_epoch != fork::epoch() {
                self.refill();
            }
            let available = &self.buf[self.next..];
            let n = available.len().min(dest.len());
            let (head, tail) = dest.split_at_mut(n);
            head.copy_from_slice(&available[..n]);
            self.next += n;
            dest = tail;
        }
    }
}

impl core::fmt::Debug for DefaultRng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("DefaultRng { .. }")
    }
}
