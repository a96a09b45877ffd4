//! Nothing of its own: this package holds the tests and benchmarks that compare the
//! repository's `scru128` with the seed-era reference `scru128` 1.0.0 (same format),
//! so that the library package itself depends on no other `scru128`.
//!
//! `cargo test -p scru128-compare`; `cargo bench -p scru128-compare --bench compare`
//! (or `scripts/bench-summary`, which prints the table).
