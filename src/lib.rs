//! # SCRU128: sortable, clock and random number-based unique identifiers
//!
//! A SCRU128 ID is a 128-bit value written as 26 base-32 digits (`0-9A-V`). IDs
//! sort by creation time, as integers, as 16 big-endian bytes and as text, and many
//! machines can generate them without talking to each other. This crate implements
//! SCRU128 **as specified in 2021 (spec v1.0.2)**, the format of the `scru128`
//! crate 1.0 and the Python package 1.0.1, and is a drop-in successor of `scru128`
//! 1.0. Later SCRU128 versions (48-bit timestamp, 25-digit Base36 text) are a
//! different format, not handled here.
//!
//! The package is `scru128-v1` (crates.io's `scru128` is now upstream's later format)
//! and the library keeps the name `scru128`: from 1.0, `scru128 = "1.0"` in
//! `Cargo.toml` becomes `scru128-v1 = "1.1"`, and no code changes.
//!
//! ```
//! use scru128::{scru128, scru128_string, Scru128Id};
//!
//! let id = scru128(); // e.g. 00S6GVKR1MH58KE72EJD87SDOO
//! println!("{id} {}", id.as_u128());
//! let text = scru128_string();
//! let parsed: Scru128Id = text.parse()?;
//! assert!(parsed > id);
//! # Ok::<(), scru128::ParseError>(())
//! ```
//!
//! ## The format
//!
//! | bits (MSB first) | field            | size | meaning |
//! | ---------------- | ---------------- | ---- | ------- |
//! | 0–43             | `timestamp`      | 44   | Unix ms − [`TIMESTAMP_BIAS`] (2020-01-01T00:00:00Z) |
//! | 44–71            | `counter`        | 28   | +1 per ID within a timestamp, random at each new timestamp |
//! | 72–95            | `per_sec_random` | 24   | random, renewed once per second |
//! | 96–127           | `per_gen_random` | 32   | random, fresh for every ID |
//!
//! Text: 26 digits of `0123456789ABCDEFGHIJKLMNOPQRSTUV`, most significant first,
//! written uppercase and read in either case; the first digit is `0`–`7`. This is
//! not RFC 4648 base32. Nothing is trimmed: a string with spaces, signs or hyphens is
//! rejected with a [`ParseError`] that says what and where (lengths and positions in
//! characters).
//!
//! The same 128 bits have two more text forms, written in lowercase and read in
//! either case: 32 hex digits ([`Scru128Id::encode_hex`], [`Scru128Id::try_from_hex`];
//! the form of the seed-era JavaScript and Rust libraries) and the 8-4-4-4-12 UUID
//! form ([`Scru128Id::encode_uuid`], [`Scru128Id::try_from_uuid_str`]; what a database
//! `uuid` column shows). Like the base-32 codec they work on the stack, in `const fn`s.
//!
//! ## Generating
//!
//! [`scru128()`] uses one process-wide generator; [`Scru128Generator`] is one you own,
//! generic over a [`RandomSource`] and a [`Clock`]. The rules (SPEC section 3) are
//! on [`Scru128Generator`]. Decisions where the spec leaves room:
//!
//! - The clock may go back by up to 10 000 ms (configurable): the generator keeps
//!   its last timestamp and counts on. Beyond that, [`Scru128Generator::generate`]
//!   resets (order across the reset is broken) and
//!   [`Scru128Generator::generate_or_abort`] reports it.
//! - When the counter overflows, the next millisecond is taken at once: the
//!   generator never blocks or waits for the clock.
//! - `per_sec_random` is renewed when the timestamp is **≥** 1000 ms past the last
//!   renewal (scru128 1.0 used > 1000).
//! - A clock outside 2020-01-01T00:00:00.001Z ..= 2^44−2 ms after it is an error
//!   ([`GenerateError::ClockOutOfRange`]) or, in the infallible methods, a panic with
//!   that message; timestamps 0 and 2^44−1 are reserved and never generated.
//!
//! ## Guarantees
//!
//! - **Ordering**: one generator's IDs strictly increase (integer, bytes, text); the
//!   process-wide generator's IDs strictly increase in every thread.
//! - **Uniqueness**: within a generator by construction (`(timestamp, counter)` never
//!   repeats); across generators by 84 bits of layered randomness: `N` generators
//!   making `R` IDs each in the same millisecond expect `C(N,2)·R²/2^84` equal pairs
//!   (analysis and experiments in [`docs::reliability`]).
//! - **Clock handling**: small steps back are absorbed, large ones reset or are
//!   reported, out-of-range clocks are errors, never a silent wrap. All of this holds
//!   through real steps of the system clock, in every thread: [`SystemClock`] is one
//!   clock for the whole process, so no thread is given a millisecond older than
//!   another thread already got (unless the system clock itself went back); after a
//!   step, the millisecond from before it can still come for less than 1 ms.
//! - **Fork safety** (Unix, feature `std`): after `fork()` the child moves to a fresh
//!   `(timestamp, counter)`, [`DefaultRng`] reseeds, and every generator mixes a
//!   per-process OS-seeded stream into its random source's draws, so parent and
//!   children do not repeat each other whatever the source; a reseed that panics in
//!   the child is retried at the next call. The fork handler is registered when the
//!   library is loaded. The crate has no lock: nothing is held across `fork()` or
//!   waited for but for a bounded moment, so a `fork()` from a signal handler hangs
//!   neither process, and [`SystemClock`] works in signal handlers, thread-local
//!   destructors and `atexit` handlers (so does `scru128()`, but in a handler that
//!   interrupted it).
//! - **Unpredictability**: the default [`RandomSource`] is `ChaCha12` seeded by the OS;
//!   an OS entropy failure is a panic with a clear message, never a weak seed.
//! - **No panics on input**: parsing and deserializing return typed errors (fuzzed).
//!
//! Each promise and the test that shows it: [`docs::guarantees`], and the
//! experiments behind them in [`docs::reliability`]; how the code is laid out:
//! [`docs::design`]. The format and the decisions this crate made, in full:
//! [`docs::format`].
//!
//! ## Performance
//!
//! What bounds each operation (figures from `scripts/bench-summary` on a 2-core Intel
//! Xeon, 2026-12-02; [`docs::performance`] has the tables against scru128 1.0.0, and
//! those of an AMD EPYC):
//!
//! - [`scru128()`] (about 14 ns): the clock. The process-wide clock reads the CPU's
//!   time-stamp counter (about 8 ns) and calls the system clock (about 19 ns) only
//!   when the counter cannot prove that the millisecond is unchanged (7 to 8 times per
//!   millisecond for the whole process, and for every call in the first 4-5 ms, until
//!   the counter's rate is confirmed); each thread spends blocks of 256 counters, so
//!   the shared word is changed once per block or per millisecond, and draws random
//!   numbers from its own `ChaCha12`.
//! - [`Scru128Generator::generate`] (about 13 ns): the clock, read for every ID through
//!   [`SystemClock`], the same process-wide clock.
//!   [`Scru128Generator::fill`] reads it once per batch: about 2.8 ns per ID, half of it
//!   the random source.
//! - [`Scru128Id::encode`] and parsing (about 6 ns each): arithmetic on machine
//!   words, SSE2 for parsing on x86-64.
//! - [`Scru128Id::to_string`] (about 12 ns) and [`scru128_string()`]: the heap
//!   allocation of the `String`. The inherent `to_string` allocates the 26 bytes once;
//!   the blanket `ToString` (generic code, `format!`) goes through `Display` and a
//!   `Formatter` and costs about 12 ns more, for the same text.
//!
//! No generate, encode or parse path allocates.
//!
//! ## Features
//!
//! - `std` (default): [`scru128()`], [`scru128_string()`], [`Scru128Generator::new`],
//!   [`DefaultRng`], [`SystemClock`], `SystemTime` conversions. Implies `alloc`.
//! - `alloc`: `String` conversions.
//! - `serde`: `Serialize`/`Deserialize` for [`Scru128Id`]: the canonical string in every
//!   format, exactly as scru128 1.0.0 writes it (16 bytes on request, per field); the
//!   module `scru128::serde` tells what each kind of format reads back.
//! - `uuid`: `From` conversions between [`Scru128Id`] and `uuid::Uuid`, the same 128
//!   bits in the same order. The result is not an RFC 9562 UUID (a SCRU128 ID has no
//!   version or variant bits), but a database `uuid` column holds it fine: PostgreSQL
//!   stores the 16 bytes as they are and compares them byte by byte, so the IDs' order
//!   is kept.
//! - `rand_core`: `RandCoreSource`, any `rand_core` 0.10 generator as a
//!   [`RandomSource`]; works without `std`.
//! - `postgres`: `ToSql`/`FromSql` of `postgres-types` (the `postgres` and
//!   `tokio-postgres` clients): a `uuid` column; also reads `text` and `bytea`.
//! - `sqlx-postgres`: sqlx `Type`/`Encode`/`Decode` for PostgreSQL: a `uuid` column
//!   (`uuid[]` for `Vec<Scru128Id>`); also reads `text` and `bytea`.
//! - `sqlx-sqlite`: sqlx `Type`/`Encode`/`Decode` for SQLite: a 16-byte `BLOB`, which
//!   SQLite sorts like the ID; also reads `TEXT`.
//! - `rusqlite`: rusqlite `ToSql`/`FromSql`: a 16-byte `BLOB`; also reads `TEXT`.
//! - `diesel-postgres`, `diesel-sqlite` (`diesel` is both): a `Scru128Id` field in
//!   diesel models, as `Uuid`, `Binary` or `Text`, and as the native `scru128` of the
//!   extension through `scru128::diesel::sql_types::Scru128`; the module
//!   `scru128::diesel` has the table of column types.
//! - `arbitrary`: `arbitrary::Arbitrary` for [`Scru128Id`], every 128-bit value
//!   (reserved timestamps included), for fuzz targets; needs `std` through arbitrary.
//!
//! The database integrations report a stored value that is not an ID with a
//! `StoredValueError` (inside the client's error), never a panic. The sqlx features
//! are for sqlx 0.9 (which needs Rust 1.94), `rusqlite` for rusqlite 0.39, `postgres`
//! for postgres-types 0.2, the diesel features for diesel 2.3 and 2.4; none of them picks a
//! runtime, TLS, diesel connection or SQLite build for you.
//!
//! Without default features the crate is `no_std` and needs no allocator: the ID type,
//! the codec and [`Scru128Generator`] with your own random source and clock.
#![no_std]
// On docs.rs: every item gated by a feature says which ("Available on crate feature …").
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![warn(clippy::pedantic)]
// Bit-field packing truncates on purpose; `as` widening reads better in const fns.
#![allow(
    clippy::module_name_repetitions,
    clippy::must_use_candidate,
    clippy::cast_possible_truncation,
    clippy::cast_lossless
)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// Runs `$f` when the program or library is loaded: an ELF `.init_array` or Mach-O
/// `__mod_init_func` entry, which the loader calls before `main` (or inside `dlopen`,
/// for a library). `#[used]` keeps the entry although nothing refers to it. Elsewhere
/// nothing runs, and the first use does the work.
#[cfg(all(feature = "std", unix))]
macro_rules! run_at_load {
    ($name:ident = $f:path) => {
        #[cfg(any(
            target_os = "linux",
            target_os = "android",
            target_os = "freebsd",
            target_os = "dragonfly",
            target_os = "netbsd",
            target_os = "openbsd",
            target_os = "illumos",
            target_os = "solaris"
        ))]
        #[used]
        #[unsafe(link_section = ".init_array")]
        static $name: extern "C" fn() = $f;

        #[cfg(target_vendor = "apple")]
        #[used]
        #[unsafe(link_section = "__DATA,__mod_init_func")]
        static $name: extern "C" fn() = $f;
    };
}
#[cfg(all(feature = "std", unix))]
pub(crate) use run_at_load;

// The modules; docs/design.md draws their layers, and tests/layering.rs checks that
// each imports what the design says.
#[cfg(feature = "std")]
mod default_rng;
mod encoded;
mod error;
#[cfg(all(feature = "std", unix))]
mod fork;
mod generator;
#[cfg(feature = "std")]
mod global_gen;
mod hex;
mod id;
mod rules;
mod sources;
#[cfg(feature = "std")]
mod system_clock;
#[cfg(all(feature = "std", unix, target_arch = "x86_64"))]
mod tsc_clock;

/// Without `fork()` there is nothing to count.
#[cfg(all(feature = "std", not(unix)))]
mod fork {
    pub(crate) fn watch() -> u32 {
        0
    }

    #[inline]
    pub(crate) fn epoch() -> u32 {
        0
    }

    #[inline]
    pub(crate) fn count_now() -> u32 {
        0
    }
}

mod external;

/// Not part of the API: what the crate's own tests look at from outside. May change
/// or go in any release.
#[doc(hidden)]
pub mod __private {
    /// Whether the process-wide clock may still use the CPU's time-stamp counter
    /// (false where it never could, and after it gave the counter up), and whether
    /// its last reading was published with a window (a confirmed rate).
    #[cfg(feature = "std")]
    pub fn tsc_shortcut() -> (bool, bool) {
        crate::system_clock::tsc_shortcut()
    }

    /// Whether this thread's last ID from [`scru128()`](crate::scru128) was made in
    /// this process, rather than copied from the parent by a `fork()` that came after
    /// it was made (`tests/fork_in_call.rs`).
    #[cfg(feature = "std")]
    pub fn last_id_made_here() -> bool {
        crate::global_gen::last_id_made_here()
    }

    /// Sets how far the clock may go back and the process-wide generator
    /// ([`scru128()`](crate::scru128)) still carry on from its last timestamp (default
    /// 10 000 ms; see [`Scru128Generator::set_rollback_allowance`](crate::Scru128Generator::set_rollback_allowance)).
    /// For a front end whose users expect another rule: the npm package sets
    /// `u64::MAX`, as npm scru128 1.0.1 never started over (node/). Each copy of the
    /// library (each extension module) has its own process-wide generator.
    ///
    /// The step back is measured from the latest clock reading a claim of a block acted
    /// on, as `Scru128Generator` measures it, but for the moment after a reset before
    /// any claim of the new run has noted its reading: then from the newest timestamp,
    /// which counter overflows can move ahead of the clock by a millisecond or so. An
    /// allowance of a few milliseconds or less may take such an overflow for a step
    /// back then (a reset); the default and `u64::MAX` cannot.
    #[cfg(feature = "std")]
    pub fn set_process_rollback_allowance(ms: u64) {
        crate::global_gen::set_rollback_allowance(ms);
    }

    /// Keeps the default panic hook from printing the library's own panics (messages
    /// starting `scru128: `: a clock out of range, an entropy failure), for the front
    /// ends (node/, python/), which turn them into exceptions with the message; other
    /// panics still print. Installed once per copy of the standard library (each
    /// extension module has its own).
    #[cfg(feature = "std")]
    pub fn quiet_library_panics() {
        static INSTALL: std::sync::Once = std::sync::Once::new();
        INSTALL.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(std::boxed::Box::new(move |info| {
                if !panic_text(info.payload()).is_some_and(|m| m.starts_with("scru128: ")) {
                    previous(info);
                }
            }));
        });
    }

    /// The text of a panic's payload (a `&str` or a `String`, as `panic!` makes), for
    /// the front ends that turn the library's panics into their own errors.
    #[cfg(feature = "std")]
    pub fn panic_text(payload: &(dyn core::any::Any + Send)) -> Option<&str> {
        payload.downcast_ref::<&str>().copied().or_else(|| {
            payload
                .downcast_ref::<std::string::String>()
                .map(std::string::String::as_str)
        })
    }

    /// The same for the last ID of generator `g`.
    #[cfg(feature = "std")]
    pub fn generator_last_id_made_here<R: crate::RandomSource, C: crate::Clock>(
        g: &crate::Scru128Generator<R, C>,
    ) -> bool {
        g.last_id_made_here()
    }
}

pub use encoded::{EncodedHex, EncodedId, EncodedText, EncodedUuid};
pub use error::{GenerateError, ParseError, RangeError};
pub use generator::Scru128Generator;
#[cfg(feature = "std")]
pub use global_gen::{scru128, scru128_string};
pub use id::{MAX_COUNTER, MAX_PER_SEC_RANDOM, MAX_TIMESTAMP, Scru128Id, TIMESTAMP_BIAS};
pub use rules::DEFAULT_ROLLBACK_ALLOWANCE;
pub use sources::{Clock, RandomSource};

#[cfg(feature = "std")]
pub use default_rng::DefaultRng;
/// Serde support: `Serialize`/`Deserialize` for [`Scru128Id`] and modules for
/// `#[serde(with = ...)]` (feature `serde`).
#[cfg(feature = "serde")]
pub use external::serde_support as serde;
#[cfg(feature = "std")]
pub use system_clock::SystemClock;

/// diesel support: `Scru128Id` in diesel models, and the SQL type of the extension's
/// native `scru128` (features `diesel-postgres`, `diesel-sqlite`).
#[cfg(any(feature = "diesel-postgres", feature = "diesel-sqlite"))]
pub use external::diesel_support as diesel;
#[cfg(feature = "rand_core")]
pub use external::rand_core_support::RandCoreSource;
#[cfg(any(
    feature = "postgres",
    feature = "sqlx-postgres",
    feature = "sqlx-sqlite",
    feature = "rusqlite",
    feature = "diesel-postgres",
    feature = "diesel-sqlite"
))]
pub use external::stored::StoredValueError;

/// The project's documents, readable here as on its repository (`docs/`): nothing to
/// call, only text.
#[allow(clippy::doc_markdown)] // prose written for a code host, not doc comments
pub mod docs {
    #[doc = include_str!("../docs/format.md")]
    pub mod format {}

    #[doc = include_str!("../docs/library.md")]
    pub mod library {}

    #[doc = include_str!("../docs/guarantees.md")]
    pub mod guarantees {}

    #[doc = include_str!("../docs/performance.md")]
    pub mod performance {}

    #[doc = include_str!("../docs/reliability.md")]
    pub mod reliability {}

    #[doc = include_str!("../docs/collisions.md")]
    pub mod collisions {}

    #[doc = include_str!("../docs/design.md")]
    pub mod design {}
}

/// The README's examples, checked as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
