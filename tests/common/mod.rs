//! Shared by the integration tests: the IDs every integration must round-trip, a
//! seeded random source, the PostgreSQL URL, (Linux) seccomp filters, (Unix) pipes and
//! waits for the tests that fork, tests that re-run their binary in worker mode, and a
//! fake wall clock for such a worker (libfaketime).
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use scru128::{Scru128Generator, Scru128Id};

/// The test vectors, built into the test binaries (so that `compare/`, which
/// includes this module, finds them too).
const VECTORS_JSON: &str = include_str!("../data/test-vectors.json");

/// The IDs of `tests/data/test-vectors.json`, from their 128-bit values.
pub fn vectors() -> Vec<Scru128Id> {
    let json = VECTORS_JSON;
    let parsed: serde_json::Value =
        serde_json::from_str(json).expect("test-vectors.json is not valid JSON");
    let vectors: Vec<Scru128Id> = parsed
        .as_array()
        .expect("test-vectors.json is not an array")
        .iter()
        .map(|v| {
            let hex = v["u128_hex"].as_str().expect("u128_hex is not a string");
            let id = Scru128Id::from_u128(u128::from_str_radix(hex, 16).expect("bad u128_hex"));
            assert_eq!(
                id.to_string(),
                v["text"].as_str().expect("text is not a string")
            );
            id
        })
        .collect();
    assert_eq!(vectors.len(), 50, "expected the 50 shared test vectors");
    vectors
}

/// The UUID form of 32 hex digits by its definition: groups of 8-4-4-4-12 joined by
/// hyphens.
pub fn uuid_form(hex: &str) -> String {
    assert_eq!(hex.len(), 32, "{hex}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Flips the case of the ASCII letters of `text` where `mask` has a 1 bit (bit `i % 64`
/// for the `i`-th character), for inputs in mixed case.
pub fn flip_case(text: &str, mask: u64) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| match mask >> (i % 64) & 1 {
            1 if c.is_ascii_uppercase() => c.to_ascii_lowercase(),
            1 => c.to_ascii_uppercase(),
            _ => c,
        })
        .collect()
}

/// Set by `scripts/test`, which runs every test: there a test that cannot run on the
/// machine fails instead of passing as skipped.
pub const REQUIRE_ALL_ENV: &str = "SCRU128_TEST_REQUIRE_ALL";

/// Ends a test that cannot run here: it prints why and passes, except under
/// `scripts/test` ([`REQUIRE_ALL_ENV`] set), where it fails with the reason.
///
/// # Panics
///
/// When [`REQUIRE_ALL_ENV`] is set.
pub fn skip(reason: &str) {
    assert!(
        std::env::var_os(REQUIRE_ALL_ENV).is_none(),
        "this test cannot run here: {reason} (and {REQUIRE_ALL_ENV} asks for every test)"
    );
    // Straight to the standard error, past the test harness's capture of `println!`,
    // so that a skip is seen in a plain `cargo test` too; once per reason and process.
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.iter().any(|r| r == reason) {
        said.push(reason.to_owned());
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("skipped: {reason}\n").as_bytes(),
        );
    }
}

pub mod faketime;
pub mod formats;
#[cfg(unix)]
pub mod pg_server;
#[cfg(unix)]
pub mod processes;
#[cfg(target_os = "linux")]
pub mod seccomp;
#[cfg(unix)]
pub mod slow_clock;
mod split_mix;
pub mod worker;
pub use split_mix::SplitMix64;

/// The system clock now, in Unix milliseconds (`SystemTime`, apart from the crate's
/// clock).
pub fn system_ms() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the system clock is before 1970");
    u64::try_from(since.as_millis()).expect("the system clock is past 2^64 ms")
}

/// MIN, MAX, the shared vectors, values at byte and sign boundaries (a database that
/// compared bytes as signed, or 64-bit halves as signed integers, would misorder
/// them), 1000 random 128-bit values and 100 freshly generated IDs.
pub fn edge_ids() -> Vec<Scru128Id> {
    let mut ids = vec![Scru128Id::MIN, Scru128Id::MAX];
    ids.extend(vectors());
    for value in [
        1u128,
        0x7f,
        0x80,
        0xff,
        0x7fff_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        0xffff_ffff_ffff_ffff,
        1 << 64,
        u128::MAX >> 1,
        1 << 127,
        u128::MAX - 1,
        0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10,
        0x8081_8283_8485_8687_8889_8a8b_8c8d_8e8f,
    ] {
        ids.push(Scru128Id::from_u128(value));
    }
    let mut rng = SplitMix64(0x5c12_8ed9);
    ids.extend((0..1000).map(|_| Scru128Id::from_u128(rng.next_u128())));
    let mut g = Scru128Generator::new();
    ids.extend((0..100).map(|_| g.generate()));
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The shared vectors, MIN and MAX, sorted, each once.
pub fn vectors_min_max() -> Vec<Scru128Id> {
    let mut ids = vectors();
    ids.extend([Scru128Id::MIN, Scru128Id::MAX]);
    ids.sort_unstable();
    ids.dedup(); // the vectors may hold MIN or MAX already
    ids
}

/// Asserts that the IDs a query (`what`) read back are `expected`, in the library's
/// order; on failure it names the first row out of place rather than printing them all.
pub fn assert_library_order(what: &str, found: &[Scru128Id], expected: &[Scru128Id]) {
    assert_eq!(found.len(), expected.len(), "{what}: the number of rows");
    if let Some(row) = found.iter().zip(expected).position(|(a, b)| a != b) {
        panic!(
            "{what}: the database order differs from the library's at row {row}: {} where {} belongs",
            found[row], expected[row]
        );
    }
}

/// `n` distinct IDs for the sort-order tests, shuffled: half from one generator (runs
/// of consecutive counters, as real tables hold), half generated at random times over
/// the whole 44-bit range with random fields, so every byte position varies.
pub fn shuffled_ids_for_order(n: usize, seed: u64) -> Vec<Scru128Id> {
    let mut rng = SplitMix64(seed);
    let mut ids = Vec::with_capacity(n);
    let mut g = Scru128Generator::new();
    ids.extend((0..n / 2).map(|_| g.generate()));
    while ids.len() < n {
        ids.push(Scru128Id::from_fields(
            rng.below(1 << 44),
            rng.below(1 << 28) as u32,
            rng.below(1 << 24) as u32,
            rng.next_u64() as u32,
        ));
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate IDs in the order test data");
    rng.shuffle(&mut ids);
    ids
}

/// The windows of the time-window tests: IDs generated at chosen times, and the
/// window `[start, end]` (Unix ms, both included) whose IDs a query must return.
pub struct TimedIds {
    /// `(id, unix_ts_ms it was generated at)`, in generation order.
    pub rows: Vec<(Scru128Id, u64)>,
    pub start: u64,
    pub end: u64,
}

impl TimedIds {
    /// IDs of the rows created in `[start, end]`, sorted.
    pub fn expected(&self) -> Vec<Scru128Id> {
        let mut ids: Vec<Scru128Id> = self
            .rows
            .iter()
            .filter(|(_, ms)| (self.start..=self.end).contains(ms))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The library's range bounds for the window.
    pub fn bounds(&self) -> (Scru128Id, Scru128Id) {
        (
            Scru128Id::try_min_at_unix_ts_ms(self.start).expect("start in range"),
            Scru128Id::try_max_at_unix_ts_ms(self.end).expect("end in range"),
        )
    }
}

/// 20 IDs in each of 90 seconds from 2024-05-01T12:00:00Z, at times spread over each
/// second, plus IDs at the window's edges (first and last millisecond, and one
/// millisecond outside each); the window is seconds 30..=59.
pub fn timed_ids() -> TimedIds {
    let base = 1_714_564_800_000u64;
    let start = base + 30_000;
    let end = base + 60_000 - 1;
    let mut times: Vec<u64> = (0..90u64)
        .flat_map(|s| (0..20u64).map(move |i| base + s * 1000 + i * 50 + (s % 7)))
        .chain([start - 1, start, start + 1, end - 1, end, end + 1])
        .collect();
    times.sort_unstable();
    let mut g = Scru128Generator::new();
    let rows = times
        .into_iter()
        .map(|ms| {
            let id = g.try_generate_at(ms).expect("time in range");
            assert_eq!(id.unix_ts_ms(), ms);
            (id, ms)
        })
        .collect();
    TimedIds { rows, start, end }
}

/// The URL of the PostgreSQL server the tests use: `SCRU128_PG_URL`, or a throwaway
/// server of this test process's own (see `pg_server`); `None` (the test is skipped,
/// with a line saying how to run it) where PostgreSQL is not installed.
#[cfg(unix)]
pub fn pg_url() -> Option<String> {
    pg_server::url()
}

/// SQL that makes sure the database has this repository's `scru128` extension (pg/),
/// one session at a time. It fails where the extension is not installed in the server:
/// scripts/test installs it first (scripts/test-pg).
pub const CREATE_EXTENSION: &str = "BEGIN; SELECT pg_advisory_xact_lock(128); \
                                    CREATE EXTENSION IF NOT EXISTS scru128; COMMIT";

/// After a failed `CREATE_EXTENSION`: the native-type test cannot run on this server
/// (the extension of pg/ is not installed in it); says so and how to run it.
///
/// # Panics
///
/// Under [`REQUIRE_ALL_ENV`] (scripts/test, which installs the extension).
pub fn no_extension(err: &dyn std::fmt::Display) {
    skip(&format!(
        "the scru128 extension is not installed in this PostgreSQL ({err}); \
         scripts/test builds and installs it (scripts/test-pg)"
    ));
}

/// A path for a temporary SQLite database, removed (with its journal files) on drop.
pub struct TempDb(pub std::path::PathBuf);

impl TempDb {
    pub fn new(name: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "scru128-test-{}-{name}-{n}.sqlite3",
            std::process::id()
        ));
        let db = Self(path);
        db.remove();
        db
    }

    fn remove(&self) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.remove();
    }
}

// xorshift32: a deterministic random source of a few lines, which `fork()` copies as
// it is (the seeded sources of the generator-rule and fork tests).

/// One step of xorshift32 (Marsaglia's 13, 17, 5): the next state, also the number
/// drawn. A state of 0 stays 0.
pub fn xorshift32_step(state: &mut u32) -> u32 {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    *state
}

/// A xorshift32 generator from `state` as a `FnMut() -> u32` random source.
pub fn xorshift32(mut state: u32) -> impl FnMut() -> u32 + Clone {
    move || xorshift32_step(&mut state)
}

/// Mutes the messages of the generator's own panics (`scru128: ...`, expected by the
/// tests that call this); other panics, such as failed assertions, are still printed.
pub fn quiet_generator_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !panic_text(info.payload()).starts_with("scru128: ") {
                default(info);
            }
        }));
    });
}

/// The text of a panic's payload (a `String` or a `&str`; empty for anything else).
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("")
}
