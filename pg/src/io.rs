//! Text and binary forms: the type's input and output functions (text I/O, on the
//! library's codec) and the casts to and from `text` and `bytea`. Binary send/receive
//! are PostgreSQL's own `uuid_send`/`uuid_recv` (the same 16 bytes), declared in
//! src/scru128.sql.

use core::ffi::CStr;

use pgrx::prelude::*;
use pgrx::{PgSqlErrorCode, pg_sys};
use scru128::Scru128Id;

use crate::datum::{CText, LEN, Scru128};
use crate::errors::raise;

/// Whether the database's text is UTF-8 (then the library can name a bad character
/// rather than its first byte).
fn utf8_database() -> bool {
    // SAFETY: reads a backend global; no arguments, cannot fail. Exercised by every
    // bad text input in the tests (pg/server-tests/tests/io.rs).
    let encoding = unsafe { pg_sys::GetDatabaseEncoding() };
    encoding == pg_sys::pg_enc::PG_UTF8 as core::ffi::c_int
}

/// Parses the 26-digit text (either case); anything else is SQLSTATE 22P02 with the
/// library's reason and position.
fn parse(text: &[u8]) -> Scru128 {
    let parsed = match core::str::from_utf8(text) {
        Ok(text) if utf8_database() => Scru128Id::try_from_str(text),
        _ => Scru128Id::try_from_ascii(text),
    };
    match parsed {
        Ok(id) => Scru128(id),
        Err(err) => raise(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!(
                "invalid input syntax for type scru128: \"{}\": {err}",
                String::from_utf8_lossy(text)
            ),
        ),
    }
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_in(input: &CStr) -> Scru128 {
    parse(input.to_bytes())
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_out(id: Scru128) -> CText {
    CText(id.0.encode())
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_from_text(text: &str) -> Scru128 {
    parse(text.as_bytes())
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_to_text(id: Scru128) -> String {
    id.0.to_string()
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_from_bytea(bytes: &[u8]) -> Scru128 {
    match <[u8; LEN]>::try_from(bytes) {
        Ok(bytes) => Scru128(Scru128Id::from_bytes(bytes)),
        Err(_) => raise(
            PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
            format!(
                "invalid length for type scru128: expected 16 bytes, found {}",
                bytes.len()
            ),
        ),
    }
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_to_bytea(id: Scru128) -> Vec<u8> {
    id.0.to_bytes().to_vec()
}

/// The smaller of two IDs (the state function of `min(scru128)`).
#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_smaller(a: Scru128, b: Scru128) -> Scru128 {
    a.min(b)
}

/// The larger of two IDs (the state function of `max(scru128)`).
#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_larger(a: Scru128, b: Scru128) -> Scru128 {
    a.max(b)
}
