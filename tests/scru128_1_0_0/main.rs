//! The unit tests of the seed-era `scru128` crate 1.0.0, run against this crate: the
//! drop-in promise (SPEC section 4), checked by 1.0.0's own tests.
//!
//! `identifier_tests.rs`, `default_gen_tests.rs` and `lib_tests.rs` are the
//! `#[cfg(test)]` modules of 1.0.0's `src/identifier.rs`, `src/default_gen.rs` and
//! `src/lib.rs`, copied unchanged (byte for byte: `compare/tests/compat_ref.rs` checks
//! them against the crate in cargo's registry). They are Copyright LiosK
//! <contact@mail.liosk.net>, licensed under the Apache License 2.0 (`LICENSE` here, the
//! licence file of the 1.0.0 crate). This file only lays out the modules they expect:
//! `super::Scru128Id` in `identifier`, `super::scru128` in `default_gen`, and
//! `crate::{Scru128Generator, Scru128Id}` at the root, each from this crate.
//!
//! The serde test among them (`#[cfg(feature = "serde")]`) runs under plain
//! `cargo test`: the crate's dev-dependency on itself turns the `serde` feature on in
//! every test build.

// 1.0.0's code, kept as it was written.
#![allow(clippy::all, clippy::pedantic)]

use scru128::{Scru128Generator, Scru128Id};

mod identifier {
    pub use scru128::Scru128Id;

    include!("identifier_tests.rs");
}

mod default_gen {
    pub use scru128::scru128;

    include!("default_gen_tests.rs");
}

include!("lib_tests.rs");
