//! The process-wide generator behind [`scru128`] and [`scru128_string`].

use core::cell::RefCell;
use std::sync::{Mutex, PoisonError};

use crate::Scru128Id;
use crate::generator::{State, timestamp_from_clock};
use crate::sources::{Clock, DefaultRng, RandomSource, SystemClock};

/// Shared `(timestamp, counter, per_sec_random)`; held only for a few comparisons.
static STATE: Mutex<State> = Mutex::new(State::new());

std::thread_local! {
    /// Each thread's own random source, so that drawing numbers takes no shared lock.
    static RNG: RefCell<DefaultRng> = RefCell::new(DefaultRng::new());
}

/// Generates a new ID from the process-wide generator.
///
/// Thread-safe: the IDs of all threads come from one shared state, so each thread
/// sees strictly increasing IDs and no two IDs share `(timestamp, counter)`. The clock
/// is read, and `per_gen_random` drawn from a per-thread [`DefaultRng`], outside the
/// lock; the lock covers only the counter step. After `fork()` the child moves on to
/// a fresh millisecond and reseeds, so it never repeats its parent's IDs. A thread
/// that panics never leaves the generator unusable.
///
/// # Panics
///
/// Panics if the system clock is before 2020-01-01 or past the year 2577, or if the
/// operating system's random source fails.
///
/// ```
/// let a = scru128::scru128();
/// let b = scru128::scru128();
/// assert!(a < b);
/// ```
pub fn scru128() -> Scru128Id {
    let unix_ts_ms = SystemClock.unix_ts_ms();
    let now = match timestamp_from_clock(unix_ts_ms) {
        Ok(now) => now,
        Err(err) => panic!("scru128: {err}"),
    };
    RNG.with(|rng| {
        let rng = &mut *rng.borrow_mut();
        let fields = STATE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .next(now, true, rng);
        let (timestamp, counter, per_sec) = match fields {
            Ok(fields) => fields,
            Err(err) => panic!("scru128: {err}"),
        };
        Scru128Id::from_fields_unchecked(timestamp, counter, per_sec, rng.next_u32())
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
pub fn scru128_string() -> std::string::String {
    scru128().into()
}
