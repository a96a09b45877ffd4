//! `gen_scru128()`: one generator per backend, made at the backend's first call.
//!
//! Backends are forked from the postmaster. The generator is made in the backend
//! itself, after the fork, so two backends never start from the same state, with or
//! without `shared_preload_libraries` (which loads this library into the postmaster
//! before it forks); the library's `DefaultRng` also reseeds itself in a forked child.
//!
//! It never goes back: the rollback allowance is unlimited, so after the clock steps
//! back the backend carries on from its last timestamp (the counter, then the
//! timestamp, keep rising) and its IDs strictly increase for as long as it lives.

use core::cell::RefCell;

use pgrx::PgSqlErrorCode;
use pgrx::prelude::*;
use scru128::Scru128Generator;

use crate::datum::Scru128;
use crate::errors::raise;

std::thread_local! {
    static GENERATOR: RefCell<Option<Scru128Generator>> = const { RefCell::new(None) };
}

#[pg_extern(volatile, strict, parallel_restricted, sql = false)]
fn gen_scru128() -> Scru128 {
    let generated = GENERATOR.with_borrow_mut(|generator| {
        generator
            .get_or_insert_with(|| {
                let mut generator = Scru128Generator::new();
                generator.set_rollback_allowance(u64::MAX);
                generator
            })
            .try_generate()
    });
    match generated {
        Ok(id) => Scru128(id),
        Err(err) => raise(
            PgSqlErrorCode::ERRCODE_SYSTEM_ERROR,
            format!("gen_scru128: {err}"),
        ),
    }
}
