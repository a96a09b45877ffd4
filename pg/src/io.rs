//! Text and binary forms: the type's input and output functions (text I/O, on the
//! library's codec) and the casts to and from `text` and `bytea`. Binary send/receive
//! are PostgreSQL's own `uuid_send`/`uuid_recv` (the same 16 bytes), declared in
//! src/scru128.sql.
//!
//! Text input reads the three text forms of the library, told apart by their length in
//! characters (as the command-line tool does): 26 canonical digits, 32 hex digits, or
//! the 8-4-4-4-12 UUID form (36), each in either case. Anything else is SQLSTATE 22P02
//! with the library's reason, its position counted from 1 as SQL counts. The input is
//! taken as bytes in the server's encoding, whatever it is (`UTF8`, `LATIN1`,
//! `SQL_ASCII`, ...), and echoed in the error as it came.

use core::ffi::{CStr, c_char, c_int};

use pgrx::prelude::*;
use pgrx::{FromDatum, IntoDatum, PgSqlErrorCode, pg_sys};
use scru128::{ParseError, Scru128Id};

use crate::datum::{CText, LEN, Scru128};
use crate::errors::{raise, raise_in_server_encoding};

/// Why a text is not an ID: the library's error for the form of its length, and
/// whether no form has that length.
struct Failure {
    err: ParseError,
    no_form: bool,
}

/// Parses one of the text forms in `text`, chosen by its length in characters.
fn parse_text(text: &str) -> Result<Scru128Id, Failure> {
    let chars = text.chars().count();
    match chars {
        26 => text.parse(),
        32 => Scru128Id::try_from_hex(text),
        36 => Scru128Id::try_from_uuid_str(text),
        // the canonical form's length error
        _ => text.parse(),
    }
    .map_err(|err| Failure {
        err,
        no_form: !matches!(chars, 26 | 32 | 36),
    })
}

/// The same for bytes that are not UTF-8 (in a `SQL_ASCII` database), with the
/// library's parsers for bytes; a length counts characters as those parsers do (a
/// UTF-8 encoded character as one, and any other byte as one).
fn parse_bytes(bytes: &[u8]) -> Result<Scru128Id, Failure> {
    let chars: usize = bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
        .sum();
    match chars {
        32 => Scru128Id::try_from_hex_ascii(bytes),
        36 => Scru128Id::try_from_uuid_ascii(bytes),
        _ => Scru128Id::try_from_ascii(bytes),
    }
    .map_err(|err| Failure {
        err,
        no_form: !matches!(chars, 26 | 32 | 36),
    })
}

/// The library's reason, with the position counted from 1 (SQL's `position()` and
/// `substr()` count from 1; the library counts from 0, as Rust indexes), and, for a
/// length that no form has, the other forms (as the command-line tool says).
fn reason(failure: Failure) -> String {
    let mut text = failure.err.to_string();
    if let Some((head, tail)) = text.split_once(" at position ") {
        let end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        if let Ok(pos) = tail[..end].parse::<usize>() {
            text = format!("{head} at position {}{}", pos + 1, &tail[end..]);
        }
    }
    if failure.no_form {
        text.push_str(" (32 hex digits and the 36-character UUID form are also accepted)");
    }
    text
}

/// The database's encoding (`pg_enc`).
fn server_encoding() -> c_int {
    // SAFETY: reads a backend global; no arguments, cannot fail. Exercised by every
    // non-ASCII input in the tests (pg/server-tests/tests/encodings.rs).
    unsafe { pg_sys::GetDatabaseEncoding() }
}

const UTF8: c_int = pg_sys::pg_enc::PG_UTF8 as c_int;
const SQL_ASCII: c_int = pg_sys::pg_enc::PG_SQL_ASCII as c_int;

/// The result of PostgreSQL's `pg_server_to_any`/`pg_any_to_server`: `input` itself
/// when no conversion was needed, or a new NUL-terminated string.
///
/// # Safety
///
/// `converted` is what one of those functions returned for `input`.
unsafe fn converted_bytes(input: &[u8], converted: *const c_char) -> &[u8] {
    if converted.cast::<u8>() == input.as_ptr() {
        input
    } else {
        // SAFETY: a converted string is palloc'd and NUL-terminated; it lives as long
        // as the function call's memory context, longer than `input`'s borrow here.
        unsafe { CStr::from_ptr(converted) }.to_bytes()
    }
}

/// Text of the server's encoding (neither UTF-8 nor `SQL_ASCII`) as UTF-8, by
/// PostgreSQL's own conversion.
fn server_to_utf8(bytes: &[u8]) -> String {
    // SAFETY: `pg_server_to_any` reads `len` bytes; the conversion of text that is
    // valid in the server's encoding cannot fail (it would be an ERROR, not UB).
    // Exercised by the LATIN1 database of pg/server-tests/tests/encodings.rs.
    let converted = unsafe {
        let ptr = pg_sys::pg_server_to_any(bytes.as_ptr().cast(), bytes.len() as c_int, UTF8);
        converted_bytes(bytes, ptr)
    };
    String::from_utf8_lossy(converted).into_owned()
}

/// UTF-8 text as the server's encoding (neither UTF-8 nor `SQL_ASCII`).
fn utf8_to_server(text: &str) -> Vec<u8> {
    if text.is_ascii() {
        // ASCII is the same in every server encoding
        return text.as_bytes().to_vec();
    }
    // SAFETY: as in `server_to_utf8`; every character of `text` came from the
    // server's encoding, so it has an equivalent there.
    unsafe {
        let ptr = pg_sys::pg_any_to_server(text.as_ptr().cast(), text.len() as c_int, UTF8);
        converted_bytes(text.as_bytes(), ptr).to_vec()
    }
}

/// A bad input's message, NUL-terminated in palloc'd memory (it must outlive the Rust
/// frames, which are gone when the ERROR is raised): `input` as it came, in the
/// server's encoding, and `reason` already in that encoding.
fn message(input: &[u8], reason: &[u8]) -> *mut c_char {
    let mut text = Vec::with_capacity(input.len() + reason.len() + 48);
    text.extend_from_slice(b"invalid input syntax for type scru128: \"");
    text.extend_from_slice(input);
    text.extend_from_slice(b"\": ");
    text.extend_from_slice(reason);
    text.push(0);
    // SAFETY: palloc returns `text.len()` writable bytes in the current memory context
    // (or raises an ERROR); they do not overlap `text`. Exercised by every bad input.
    unsafe {
        let ptr = pg_sys::palloc(text.len()).cast::<u8>();
        ptr.copy_from_nonoverlapping(text.as_ptr(), text.len());
        ptr.cast()
    }
}

/// Reads an ID from `input`, text in the server's encoding; a bad one gives its
/// ERROR message (see [`message`]).
fn read(input: &[u8]) -> Result<Scru128Id, *mut c_char> {
    match core::str::from_utf8(input) {
        // ASCII (every valid input) reads the same in every server encoding; other
        // UTF-8 is what it says in a UTF-8 database, and in SQL_ASCII (which has no
        // encoding) the most likely reading.
        Ok(text) if text.is_ascii() || matches!(server_encoding(), UTF8 | SQL_ASCII) => {
            parse_text(text).map_err(|err| message(input, reason(err).as_bytes()))
        }
        // bytes with no encoding, read as bytes
        Err(_) if matches!(server_encoding(), UTF8 | SQL_ASCII) => {
            parse_bytes(input).map_err(|err| message(input, reason(err).as_bytes()))
        }
        // another encoding (LATIN1, EUC_JP, ...): read its characters, and name them
        // in it
        _ => parse_text(&server_to_utf8(input))
            .map_err(|err| message(input, &utf8_to_server(&reason(err)))),
    }
}

/// The end of an input function: the ID as a datum, or the input's ERROR.
///
/// # Safety
///
/// As [`raise_in_server_encoding`]: called by the entry point, outermost.
unsafe fn finish(read: Result<pg_sys::Datum, *mut c_char>, funcname: &CStr) -> pg_sys::Datum {
    match read {
        Ok(datum) => datum,
        // SAFETY: the caller's promise; the message is NUL-terminated (`message`).
        Err(message) => unsafe {
            raise_in_server_encoding(
                PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
                message,
                c"io.rs",
                line!(),
                funcname,
            )
        },
    }
}

/// The datum of an ID read from `input`, or the message of its ERROR.
fn datum_of(input: &[u8]) -> Result<pg_sys::Datum, *mut c_char> {
    read(input).map(|id| {
        Scru128(id)
            .into_datum()
            .expect("a scru128 datum is never null")
    })
}

/// The type's input function, `scru128_in(cstring)`.
///
/// Written out rather than by `#[pg_extern]` so that a bad input's ERROR carries the
/// input's bytes in the server's encoding: pgrx reports errors only as UTF-8 and
/// takes text arguments only as UTF-8 (it panics on other bytes).
///
/// # Safety
///
/// Called by PostgreSQL, as a version-1 C function, with one non-null `cstring`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn scru128_in_wrapper(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    // SAFETY: this is the outermost Rust frame, as pgrx's guard requires (a panic or a
    // PostgreSQL ERROR inside it is reported as pgrx does); the argument is a
    // NUL-terminated string. Exercised by every text input in the tests.
    let read = unsafe {
        pg_sys::panic::pgrx_extern_c_guard(|| {
            let arg = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0);
            datum_of(CStr::from_ptr(arg.cast_mut_ptr::<c_char>()).to_bytes())
        })
    };
    // SAFETY: nothing on this frame needs dropping (a datum or a pointer).
    unsafe { finish(read, c"scru128_in") }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_scru128_in_wrapper() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

/// The cast from `text`, `scru128_from_text(text)`: the same reading as the input
/// function, of the text's bytes.
///
/// # Safety
///
/// Called by PostgreSQL, as a version-1 C function, with one non-null `text`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn scru128_from_text_wrapper(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    // SAFETY: as in `scru128_in_wrapper`; a `text` datum is a varlena, which the
    // `&[u8]` conversion detoasts and reads as its bytes (as for `bytea`).
    let read = unsafe {
        pg_sys::panic::pgrx_extern_c_guard(|| {
            let arg = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0);
            let bytes = <&[u8]>::from_datum(arg, false).expect("a strict function's argument");
            datum_of(bytes)
        })
    };
    // SAFETY: nothing on this frame needs dropping (a datum or a pointer).
    unsafe { finish(read, c"scru128_from_text") }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_scru128_from_text_wrapper() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_out(id: Scru128) -> CText {
    CText(id.0.encode())
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
