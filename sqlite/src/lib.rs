//! The SQLite loadable extension `scru128`: SCRU128 IDs minted and read inside SQLite.
//!
//! | function | returns |
//! | --- | --- |
//! | `scru128()` | a new ID as 26-digit TEXT |
//! | `scru128_blob()` | a new ID as a 16-byte BLOB |
//! | `scru128_text(x)` | the canonical TEXT of an ID given as TEXT (26 digits, 32 hex digits or UUID form, either case) or as a 16-byte BLOB |
//! | `scru128_to_blob(x)` | the 16-byte BLOB of the same inputs |
//! | `scru128_uuid(x)` | the 8-4-4-4-12 UUID text of the same 128 bits |
//! | `scru128_timestamp_ms(x)` | Unix milliseconds (INTEGER) |
//! | `scru128_datetime(x)` | `YYYY-MM-DD HH:MM:SS.SSS` in UTC |
//! | `scru128_min(t)`, `scru128_max(t)` | the smallest and largest ID (TEXT) of the millisecond of `t` (Unix ms INTEGER or a time string) |
//! | `scru128_is_valid(x)` | 1 or 0 |
//! | `scru128_series(n)`, `scru128_series_blob(n)` | a table of `n` new IDs (column `id`, TEXT or BLOB), strictly increasing |
//!
//! NULL in gives NULL out; any other bad input is an SQL error that names the function
//! and what is wrong. The reading functions are deterministic, and every function is
//! innocuous: they work in `DEFAULT`, generated columns, CHECK constraints and
//! expression indexes, also under `PRAGMA trusted_schema=OFF`. `scru128()`,
//! `scru128_blob()` and the two table-valued functions (`series.rs`) call the
//! library's process-wide generator, shared by every connection and thread of the
//! process and safe across `fork()`: each thread's IDs strictly increase, and so do
//! those of one `scru128_series` call, whichever threads step it.
//!
//! The extension calls SQLite only through the routine table the host passes to
//! [`sqlite3_extension_init`] (see `ffi.rs`): it links no SQLite of its own.
#![warn(clippy::pedantic)]
#![warn(clippy::undocumented_unsafe_blocks)]
// SQLite's types are C ints; IDs' fields fit the conversions made.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

mod ffi;
mod functions;
mod series;
mod time;

use core::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use ffi::{Api, Context, Routines, Sqlite3, Value, XFunc};
use functions::{Arg, Fail, Out};

/// The oldest SQLite the extension loads into: the first with `SQLITE_INNOCUOUS`
/// (and `PRAGMA trusted_schema`).
const MIN_SQLITE_VERSION: c_int = 3_031_000;

/// One SQL function to register.
struct Function {
    name: &'static CStr,
    args: c_int,
    deterministic: bool,
    call: XFunc,
}

/// Declares the C callback of a one-argument function: it reads the argument, runs
/// `$body` and sets the result (or the error, prefixed with `$name`).
macro_rules! unary {
    ($callback:ident, $name:literal, $body:path) => {
        unsafe extern "C" fn $callback(ctx: *mut Context, argc: c_int, argv: *mut *mut Value) {
            // SAFETY: SQLite calls the function as registered: one argument in `argv`,
            // valid for the duration of the call, and the context of this call.
            unsafe { call_unary(ctx, argc, argv, $name, $body) }
        }
    };
}

/// Declares the C callback of a generating function (no arguments).
macro_rules! nullary {
    ($callback:ident, $name:literal, $body:path) => {
        unsafe extern "C" fn $callback(ctx: *mut Context, _argc: c_int, _argv: *mut *mut Value) {
            // SAFETY: SQLite passes the context of this call.
            unsafe { call_nullary(ctx, $name, $body) }
        }
    };
}

nullary!(x_scru128, "scru128", functions::generate_text);
nullary!(x_scru128_blob, "scru128_blob", functions::generate_blob);
unary!(x_text, "scru128_text", functions::text);
unary!(x_to_blob, "scru128_to_blob", functions::to_blob);
unary!(x_uuid, "scru128_uuid", functions::uuid);
unary!(
    x_timestamp_ms,
    "scru128_timestamp_ms",
    functions::timestamp_ms
);
unary!(x_datetime, "scru128_datetime", functions::datetime);
unary!(x_min, "scru128_min", functions::min);
unary!(x_max, "scru128_max", functions::max);
unary!(x_is_valid, "scru128_is_valid", functions::is_valid);

const FUNCTIONS: &[Function] = &[
    Function {
        name: c"scru128",
        args: 0,
        deterministic: false,
        call: x_scru128,
    },
    Function {
        name: c"scru128_blob",
        args: 0,
        deterministic: false,
        call: x_scru128_blob,
    },
    Function {
        name: c"scru128_text",
        args: 1,
        deterministic: true,
        call: x_text,
    },
    Function {
        name: c"scru128_to_blob",
        args: 1,
        deterministic: true,
        call: x_to_blob,
    },
    Function {
        name: c"scru128_uuid",
        args: 1,
        deterministic: true,
        call: x_uuid,
    },
    Function {
        name: c"scru128_timestamp_ms",
        args: 1,
        deterministic: true,
        call: x_timestamp_ms,
    },
    Function {
        name: c"scru128_datetime",
        args: 1,
        deterministic: true,
        call: x_datetime,
    },
    Function {
        name: c"scru128_min",
        args: 1,
        deterministic: true,
        call: x_min,
    },
    Function {
        name: c"scru128_max",
        args: 1,
        deterministic: true,
        call: x_max,
    },
    Function {
        name: c"scru128_is_valid",
        args: 1,
        deterministic: true,
        call: x_is_valid,
    },
];

/// What a call came to, short of a panic.
enum Outcome {
    Done(Result<Out, Fail>),
    /// SQLite could not convert an argument for lack of memory.
    NoMem,
}

/// Reads an argument. A BLOB is read only if it is 16 bytes long: of any other length
/// only the length is taken, so a `zeroblob(1000000000)` is never made into a gigabyte
/// of zeros to be refused.
///
/// # Safety
///
/// `value` is an argument of the current call; the returned bytes are used before the
/// call returns.
unsafe fn read_arg<'a>(r: &Routines, value: *mut Value) -> Option<Arg<'a>> {
    // SAFETY: (every call below) `value` is a live argument, as the caller promises;
    // the type is read first and the matching accessor called, so no conversion
    // invalidates a pointer already taken. For TEXT `value_bytes` comes after the
    // pointer, as SQLite's documentation requires; for a BLOB it may come first (a
    // BLOB's length is its length, zeroblob or not, and reading the bytes after it
    // converts nothing).
    unsafe {
        match (r.value_type)(value) {
            ffi::SQLITE_INTEGER => Some(Arg::Integer((r.value_int64)(value))),
            ffi::SQLITE_FLOAT => Some(Arg::Real),
            ffi::SQLITE_TEXT => {
                let ptr = (r.value_text)(value);
                if ptr.is_null() {
                    return None;
                }
                let len = (r.value_bytes)(value) as usize;
                Some(Arg::Text(core::slice::from_raw_parts(ptr, len)))
            }
            ffi::SQLITE_BLOB => {
                let len = (r.value_bytes)(value) as usize;
                if len != 16 {
                    return Some(Arg::BlobOfLength(len));
                }
                let ptr = (r.value_blob)(value).cast::<u8>();
                if ptr.is_null() {
                    None
                } else {
                    Some(Arg::Blob(core::slice::from_raw_parts(ptr, len)))
                }
            }
            _ => Some(Arg::Null),
        }
    }
}

/// Runs a one-argument function and sets its result.
///
/// # Safety
///
/// `ctx` is the context of the current call and `args` holds `n_args` live arguments.
unsafe fn call_unary(
    ctx: *mut Context,
    n_args: c_int,
    args: *mut *mut Value,
    name: &str,
    body: fn(Arg<'_>) -> Result<Out, Fail>,
) {
    // Registered only after the routines are installed, so they are there.
    let Some(r) = ffi::routines() else { return };
    if n_args != 1 || args.is_null() {
        return;
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: there is one argument, args[0], live for this call.
        match unsafe { read_arg(r, *args) } {
            Some(arg) => Outcome::Done(body(arg)),
            None => Outcome::NoMem,
        }
    }));
    // SAFETY: `ctx` is the context of this call.
    unsafe { finish(r, ctx, name, outcome) }
}

/// Runs a generating function and sets its result.
///
/// # Safety
///
/// `ctx` is the context of the current call.
unsafe fn call_nullary(ctx: *mut Context, name: &str, body: fn() -> Out) {
    let Some(r) = ffi::routines() else { return };
    // The process-wide generator panics (with a message) only if the clock is outside
    // 2020..2577 or the OS has no entropy: that becomes the call's SQL error.
    let outcome = catch_unwind(|| Outcome::Done(Ok(body())));
    // SAFETY: `ctx` is the context of this call.
    unsafe { finish(r, ctx, name, outcome) }
}

/// Sets the result of a call: the value, or an error that names the function.
///
/// # Safety
///
/// `ctx` is the context of the current call.
unsafe fn finish(
    r: &Routines,
    ctx: *mut Context,
    name: &str,
    outcome: std::thread::Result<Outcome>,
) {
    let message = match outcome {
        Ok(Outcome::Done(Ok(out))) => {
            // SAFETY: `ctx` is live; SQLite copies the bytes (SQLITE_TRANSIENT) before
            // the call returns, while `out` is still on the stack.
            unsafe { set_result(r, ctx, &out) };
            return;
        }
        Ok(Outcome::NoMem) => {
            // SAFETY: `ctx` is live.
            unsafe { (r.result_error_nomem)(ctx) };
            return;
        }
        Ok(Outcome::Done(Err(fail))) => format!("{name}: {fail}"),
        Err(panic) => {
            let text = scru128::__private::panic_text(&*panic).unwrap_or("internal error");
            // The library's panics begin with its own name; the function's goes first.
            format!("{name}: {}", text.strip_prefix("scru128: ").unwrap_or(text))
        }
    };
    // SAFETY: `ctx` is live; SQLite copies the message (the length is given).
    unsafe { (r.result_error)(ctx, message.as_ptr().cast(), message.len() as c_int) };
}

/// # Safety
///
/// `ctx` is the context of the current call.
unsafe fn set_result(r: &Routines, ctx: *mut Context, out: &Out) {
    let text = |bytes: &[u8]| {
        // SAFETY: `ctx` is live; SQLite copies the ASCII text (SQLITE_TRANSIENT).
        unsafe {
            (r.result_text)(
                ctx,
                bytes.as_ptr().cast(),
                bytes.len() as c_int,
                ffi::transient(),
            );
        }
    };
    match out {
        Out::Text(id) => text(id.as_bytes()),
        Out::Uuid(uuid) => text(uuid.as_bytes()),
        Out::DateTime(datetime) => text(datetime),
        // SAFETY: `ctx` is live; SQLite copies the bytes (SQLITE_TRANSIENT).
        Out::Blob(bytes) => unsafe {
            (r.result_blob)(ctx, bytes.as_ptr().cast(), 16, ffi::transient());
        },
        // SAFETY: `ctx` is live.
        Out::Integer(value) => unsafe { (r.result_int64)(ctx, *value) },
        // SAFETY: `ctx` is live.
        Out::Null => unsafe { (r.result_null)(ctx) },
    }
}

/// Registers the functions on `db`.
///
/// # Safety
///
/// `db` is the connection being loaded into.
unsafe fn register(r: &Routines, db: *mut Sqlite3) -> Result<(), String> {
    for f in FUNCTIONS {
        let mut flags = ffi::SQLITE_UTF8 | ffi::SQLITE_INNOCUOUS;
        if f.deterministic {
            flags |= ffi::SQLITE_DETERMINISTIC;
        }
        // SAFETY: `db` is the connection SQLite is loading into; the name is a static C
        // string; the callback matches the xFunc signature; no user data, no destructor.
        let rc = unsafe {
            (r.create_function)(
                db,
                f.name.as_ptr(),
                f.args,
                flags,
                core::ptr::null_mut(),
                Some(f.call),
                None,
                None,
            )
        };
        if rc != ffi::SQLITE_OK {
            // SAFETY: `db` is live; errmsg returns a NUL-terminated string (or null).
            let why = unsafe {
                let msg = (r.errmsg)(db);
                if msg.is_null() {
                    format!("error code {rc}")
                } else {
                    CStr::from_ptr(msg).to_string_lossy().into_owned()
                }
            };
            return Err(format!(
                "scru128: cannot register {}(): {why}",
                f.name.to_string_lossy()
            ));
        }
    }
    Ok(())
}

/// Hands `message` to SQLite as the load's error text, in memory from the host's
/// `sqlite3_malloc` (SQLite frees it with `sqlite3_free`).
///
/// # Safety
///
/// `api` is the table passed to the entry point; `pz_err_msg` is null or writable.
unsafe fn set_load_error(api: *mut Api, pz_err_msg: *mut *mut c_char, message: &str) {
    if pz_err_msg.is_null() {
        return;
    }
    // SAFETY: `api` is the host's table (checked non-null by the caller).
    let Some(malloc) = (unsafe { (*api).malloc }) else {
        return;
    };
    let len = message.len().min(1000);
    // SAFETY: the host's allocator; a null result is checked.
    let buf = unsafe { malloc((len + 1) as c_int) }.cast::<u8>();
    if buf.is_null() {
        return;
    }
    // SAFETY: `buf` holds len + 1 bytes; the copy does not overlap.
    unsafe {
        core::ptr::copy_nonoverlapping(message.as_ptr(), buf, len);
        *buf.add(len) = 0;
        *pz_err_msg = buf.cast();
    }
}

/// The entry point SQLite looks for first (`sqlite3_extension_init`): registers the
/// functions on the connection being loaded into.
///
/// Loading again (another connection, or the same one) registers them again; every
/// load in the process shares one image and so one generator. Loading into a second,
/// different SQLite library of the same process is refused with a message (the image
/// can call only one library's routines).
///
/// # Safety
///
/// Only SQLite calls this, with the connection, a place for an error message and its
/// routine table.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sqlite3_extension_init(
    db: *mut Sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut Api,
) -> c_int {
    if p_api.is_null() || db.is_null() {
        return ffi::SQLITE_ERROR;
    }
    let loaded = catch_unwind(|| {
        // SAFETY: `p_api` is the table SQLite passed in.
        let version = unsafe { ffi::libversion_number(p_api) }.unwrap_or(0);
        if version < MIN_SQLITE_VERSION {
            return Err(format!(
                "scru128: SQLite {}.{}.{} is too old: the extension needs 3.31.0 or later",
                version / 1_000_000,
                version / 1000 % 1000,
                version % 1000
            ));
        }
        // SAFETY: `p_api` is SQLite's own table, a static of the library, which lives
        // as long as the process.
        let routines = match unsafe { ffi::install(p_api) } {
            Ok(routines) => routines,
            Err(ffi::InstallError::OtherHost) => {
                return Err(
                    "scru128: this file is already loaded by another SQLite library \
                            in this process; load a separate copy of it into this one"
                        .to_owned(),
                );
            }
            Err(ffi::InstallError::Missing(name)) => {
                return Err(format!("scru128: the host SQLite lacks sqlite3_{name}()"));
            }
        };
        // SAFETY: `db` is the connection being loaded into.
        unsafe {
            register(&routines, db)?;
            series::register(&routines, db)
        }
    });
    let message = match loaded {
        Ok(Ok(())) => return ffi::SQLITE_OK,
        Ok(Err(message)) => message,
        Err(_) => "scru128: internal error while loading".to_owned(),
    };
    // SAFETY: `p_api` is the host's table; `pz_err_msg` is SQLite's out-parameter.
    unsafe { set_load_error(p_api, pz_err_msg, &message) };
    ffi::SQLITE_ERROR
}
