//! Library errors as PostgreSQL `ERROR`s with a SQLSTATE (never a panic that would
//! surface as an internal error).

use core::ffi::{CStr, c_char, c_int};

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// Raises an `ERROR` with `code` and `message`; does not return.
#[track_caller]
pub fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ErrorReport::new(code, message, "scru128").report(PgLogLevel::ERROR);
    unreachable!("an ERROR report does not return")
}

// PostgreSQL's error reporting (utils/elog.h), which pgrx keeps out of its bindings.
unsafe extern "C-unwind" {
    fn errstart(elevel: c_int, domain: *const c_char) -> bool;
    fn errcode(sqlerrcode: c_int) -> c_int;
    fn errmsg(fmt: *const c_char, ...) -> c_int;
    fn errfinish(filename: *const c_char, lineno: c_int, funcname: *const c_char);
}

/// Raises an `ERROR` with `code` and `message`, a NUL-terminated string in the
/// server's encoding, as PostgreSQL's own `ereport` does.
///
/// pgrx reports only Rust strings (UTF-8), which in a `LATIN1` or `SQL_ASCII`
/// database cannot echo the input as it was given; this passes the bytes through.
///
/// # Safety
///
/// `message` points at a NUL-terminated string. The caller is the outermost frame of
/// a function that PostgreSQL called, with nothing on its stack that needs dropping:
/// the report ends with a `longjmp` out of it (what pgrx's own reporting does at the
/// same place).
pub unsafe fn raise_in_server_encoding(
    code: PgSqlErrorCode,
    message: *const c_char,
    filename: &CStr,
    lineno: u32,
    funcname: &CStr,
) -> ! {
    // SAFETY: the calls of PostgreSQL's `ereport(ERROR, ...)` macro, in its order;
    // `errstart` returns true for ERROR, `errfinish` does not return. `message` is
    // copied by `errmsg` ("%s" takes it as it is). Exercised by every bad input in
    // pg/server-tests/tests/io.rs and encodings.rs.
    unsafe {
        errstart(PgLogLevel::ERROR as c_int, core::ptr::null());
        errcode(code as c_int);
        errmsg(c"%s".as_ptr(), message);
        errfinish(filename.as_ptr(), lineno as c_int, funcname.as_ptr());
    }
    unreachable!("errfinish does not return from an ERROR")
}
