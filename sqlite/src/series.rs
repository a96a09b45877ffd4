//! `scru128_series(n)` and `scru128_series_blob(n)`: table-valued functions (eponymous
//! virtual tables) that yield `n` new IDs, strictly increasing, in one column `id`
//! (TEXT, or the 16-byte BLOB), so that `INSERT INTO t (id, …) SELECT id, … FROM
//! scru128_series(100000)` needs no recursive CTE.
//!
//! The IDs come from the library's process-wide generator, as `scru128()`'s do: one
//! call each, on the thread that steps the statement. They increase along one call
//! also when two threads step the statement by turns (one connection in serialized
//! mode): an ID not above the call's last one (another thread's block of counters in
//! the same millisecond) is skipped, at most [`SKIPS`] in a row; a generator reset
//! (the clock stepped back more than 10 s) in the middle of a call is an error rather
//! than an ID out of order.

use core::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use scru128::Scru128Id;

use crate::ffi::{self, Context, IndexInfo, Module, Routines, Sqlite3, VTab, VTabCursor, Value};

/// The most IDs one call yields: more is almost surely a mistake (ten million IDs is
/// several seconds and a few hundred MB of table); call it again for more.
pub const MAX_SERIES: i64 = 10_000_000;

/// IDs skipped in a row before a call gives up (a thread's block of counters is 256,
/// so after at most that many skips the generator hands out a block above the rest).
const SKIPS: u32 = 1024;

/// The virtual table of one connection: which of the two functions it is.
#[repr(C)]
struct Table {
    base: VTab,
    blob: bool,
}

/// A scan: the count asked for, the rows made so far, the current ID.
#[repr(C)]
struct Cursor {
    base: VTabCursor,
    n: i64,
    row: i64,
    id: Scru128Id,
}

/// The function's name, for messages.
fn name(blob: bool) -> &'static str {
    if blob {
        "scru128_series_blob"
    } else {
        "scru128_series"
    }
}

/// Replaces the table's error message with `message` (in memory from
/// `sqlite3_malloc`, which SQLite frees) and returns `SQLITE_ERROR`.
///
/// # Safety
///
/// `vtab` is a live table of this module.
unsafe fn fail(r: &Routines, vtab: *mut VTab, message: &str) -> c_int {
    // SAFETY: `vtab` is live; an old message came from `sqlite3_malloc` (here or in
    // SQLite) and is freed with `sqlite3_free`; the new one is `len + 1` bytes, filled
    // before it is published.
    unsafe {
        let old = (*vtab).err_msg;
        if !old.is_null() {
            (r.free)(old.cast());
        }
        let len = message.len().min(1000);
        let buf = (r.malloc)((len + 1) as c_int).cast::<u8>();
        if !buf.is_null() {
            core::ptr::copy_nonoverlapping(message.as_ptr(), buf, len);
            *buf.add(len) = 0;
        }
        (*vtab).err_msg = buf.cast();
    }
    ffi::SQLITE_ERROR
}

/// xConnect of the text form (`BLOB` false) and of the blob form.
unsafe extern "C" fn connect_as<const BLOB: bool>(
    db: *mut Sqlite3,
    _aux: *mut c_void,
    _argc: c_int,
    _argv: *const *const c_char,
    vtab: *mut *mut VTab,
    _err: *mut *mut c_char,
) -> c_int {
    // SAFETY: SQLite's arguments to xConnect, passed on.
    unsafe { connect(db, vtab, BLOB) }
}

/// Declares the columns (`id`, and the hidden argument `n`) and makes the table.
///
/// # Safety
///
/// `db` is the connection; `vtab` is where SQLite takes the new table from.
unsafe fn connect(db: *mut Sqlite3, vtab: *mut *mut VTab, blob: bool) -> c_int {
    let Some(r) = ffi::routines() else {
        return ffi::SQLITE_ERROR;
    };
    let schema: &CStr = if blob {
        c"CREATE TABLE x(id BLOB, n HIDDEN)"
    } else {
        c"CREATE TABLE x(id TEXT, n HIDDEN)"
    };
    // SAFETY: `db` is the connection calling xConnect; the schema is a C string.
    let rc = unsafe { (r.declare_vtab)(db, schema.as_ptr()) };
    if rc != ffi::SQLITE_OK {
        return rc;
    }
    // Innocuous, like scru128(): usable in views and triggers under
    // `PRAGMA trusted_schema=OFF`. (SQLite 3.31 and later, which the entry point
    // checks, know the option.)
    // SAFETY: `db` is the connection calling xConnect, the one place the option may be
    // set; SQLITE_VTAB_INNOCUOUS takes no further argument.
    let rc = unsafe { (r.vtab_config)(db, ffi::SQLITE_VTAB_INNOCUOUS) };
    if rc != ffi::SQLITE_OK {
        return rc;
    }
    let table = Box::new(Table {
        base: VTab {
            module: core::ptr::null(),
            n_ref: 0,
            err_msg: core::ptr::null_mut(),
        },
        blob,
    });
    // SAFETY: `vtab` is SQLite's out-parameter; the table starts with its `VTab`
    // (`repr(C)`), and SQLite fills in `module` itself.
    unsafe { *vtab = Box::into_raw(table).cast() };
    ffi::SQLITE_OK
}

unsafe extern "C" fn disconnect(vtab: *mut VTab) -> c_int {
    // SAFETY: `vtab` came from `Box::into_raw` in `connect`, and SQLite disconnects it
    // once. (SQLite frees an error message itself before this.)
    drop(unsafe { Box::from_raw(vtab.cast::<Table>()) });
    ffi::SQLITE_OK
}

/// Plans a scan: the argument `n` must be given (`= n`, which SQLite makes of
/// `scru128_series(n)`); the rows come in `id` order, so `ORDER BY id` costs nothing.
unsafe extern "C" fn best_index(vtab: *mut VTab, info: *mut IndexInfo) -> c_int {
    let Some(r) = ffi::routines() else {
        return ffi::SQLITE_ERROR;
    };
    // SAFETY: SQLite passes its live index info and this module's table; the arrays
    // hold `n_constraint` and `n_order_by` entries.
    unsafe {
        let info = &mut *info;
        let blob = (*vtab.cast::<Table>()).blob;
        let constraints = if info.n_constraint > 0 {
            core::slice::from_raw_parts(info.constraints, info.n_constraint as usize)
        } else {
            &[]
        };
        let mut argument = None;
        let mut unusable = false;
        for (i, c) in constraints.iter().enumerate() {
            if c.column == 1 && c.op == ffi::SQLITE_INDEX_CONSTRAINT_EQ {
                if c.usable != 0 {
                    argument = Some(i);
                } else {
                    unusable = true;
                }
            }
        }
        let Some(i) = argument else {
            if unusable {
                // A plan where `n` is not known yet (it comes from a table joined
                // later): SQLite tries another order.
                return ffi::SQLITE_CONSTRAINT;
            }
            return fail(
                r,
                vtab,
                // No argument, or one that no plan can read before the series (the
                // series itself, or a table on the left of a RIGHT or FULL JOIN): the
                // message fits both, since SQLite does not say which.
                &format!(
                    "{0}: no number of IDs that can be read before the series: call it as \
                     {0}(n), with n a value or a column of a table read before it (not of \
                     the series itself, nor of the left side of a RIGHT or FULL JOIN)",
                    name(blob)
                ),
            );
        };
        let usage = &mut *info.usage.add(i);
        usage.argv_index = 1;
        usage.omit = 1;
        info.idx_num = 1;
        info.estimated_cost = 1000.0;
        info.estimated_rows = 1000;
        if info.n_order_by == 1 {
            let order = &*info.order_by;
            if order.column == 0 && order.desc == 0 {
                info.order_by_consumed = 1;
            }
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn open(_vtab: *mut VTab, cursor: *mut *mut VTabCursor) -> c_int {
    let new = Box::new(Cursor {
        base: VTabCursor {
            vtab: core::ptr::null_mut(),
        },
        n: 0,
        row: 0,
        id: Scru128Id::MIN,
    });
    // SAFETY: SQLite's out-parameter; the cursor starts with its `VTabCursor`
    // (`repr(C)`), whose `vtab` SQLite fills in.
    unsafe { *cursor = Box::into_raw(new).cast() };
    ffi::SQLITE_OK
}

unsafe extern "C" fn close(cursor: *mut VTabCursor) -> c_int {
    // SAFETY: `cursor` came from `Box::into_raw` in `open`; SQLite closes it once.
    drop(unsafe { Box::from_raw(cursor.cast::<Cursor>()) });
    ffi::SQLITE_OK
}

/// The next ID of the scan, above `last` (if there is one).
///
/// # Errors
///
/// The generator's panic (clock outside the range, no entropy), or a reset.
fn next_id(last: Option<Scru128Id>) -> Result<Scru128Id, String> {
    let generated = catch_unwind(AssertUnwindSafe(|| {
        let mut id = scru128::scru128();
        if let Some(last) = last {
            let mut skips = 0;
            while id <= last && skips < SKIPS {
                id = scru128::scru128();
                skips += 1;
            }
        }
        id
    }));
    match generated {
        Ok(id) if last.is_none_or(|last| id > last) => Ok(id),
        Ok(_) => Err(
            "the generator was reset in the middle of the call (the clock stepped back more \
             than 10 s): its IDs would no longer increase"
                .to_owned(),
        ),
        Err(panic) => {
            let text = scru128::__private::panic_text(&*panic).unwrap_or("internal error");
            Err(text.strip_prefix("scru128: ").unwrap_or(text).to_owned())
        }
    }
}

/// The count argument: `n` IDs (0 to [`MAX_SERIES`]); NULL is 0.
///
/// # Safety
///
/// `value` is a live argument.
unsafe fn count(r: &Routines, value: *mut Value) -> Result<i64, String> {
    // SAFETY: `value` is live; its type is read before the matching accessor.
    let (kind, n) = unsafe {
        let kind = (r.value_type)(value);
        (
            kind,
            (kind == ffi::SQLITE_INTEGER).then(|| (r.value_int64)(value)),
        )
    };
    match (kind, n) {
        (_, Some(n)) if (0..=MAX_SERIES).contains(&n) => Ok(n),
        (_, Some(n)) if n < 0 => Err(format!("n = {n} is below 0")),
        (_, Some(n)) => Err(format!(
            "n = {n} is above the limit of {MAX_SERIES} IDs in one call (call it again for more)"
        )),
        (ffi::SQLITE_NULL, None) => Ok(0),
        (kind, None) => Err(format!(
            "expected the number of IDs as an INTEGER, found {}",
            match kind {
                ffi::SQLITE_FLOAT => "REAL (CAST it AS INTEGER)",
                ffi::SQLITE_TEXT => "TEXT",
                _ => "BLOB",
            }
        )),
    }
}

/// Starts a scan: reads `n` and makes the first ID.
unsafe extern "C" fn filter(
    cursor: *mut VTabCursor,
    idx_num: c_int,
    _idx_str: *const c_char,
    n_args: c_int,
    args: *mut *mut Value,
) -> c_int {
    let Some(r) = ffi::routines() else {
        return ffi::SQLITE_ERROR;
    };
    // SAFETY: SQLite passes a cursor of this module (opened by `open`, its `vtab` set)
    // and the `n_args` arguments the plan asked for.
    unsafe {
        let c = &mut *cursor.cast::<Cursor>();
        let vtab = c.base.vtab;
        let blob = (*vtab.cast::<Table>()).blob;
        if idx_num != 1 || n_args != 1 {
            return fail(r, vtab, &format!("{}: no argument", name(blob)));
        }
        c.row = 0;
        c.n = match count(r, *args) {
            Ok(n) => n,
            Err(err) => return fail(r, vtab, &format!("{}: {err}", name(blob))),
        };
        if c.n > 0 {
            match next_id(None) {
                Ok(id) => c.id = id,
                Err(err) => return fail(r, vtab, &format!("{}: {err}", name(blob))),
            }
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn next(cursor: *mut VTabCursor) -> c_int {
    let Some(r) = ffi::routines() else {
        return ffi::SQLITE_ERROR;
    };
    // SAFETY: a cursor of this module, filtered before SQLite steps it.
    unsafe {
        let c = &mut *cursor.cast::<Cursor>();
        c.row += 1;
        if c.row < c.n {
            match next_id(Some(c.id)) {
                Ok(id) => c.id = id,
                Err(err) => {
                    let vtab = c.base.vtab;
                    let blob = (*vtab.cast::<Table>()).blob;
                    return fail(r, vtab, &format!("{}: {err}", name(blob)));
                }
            }
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn eof(cursor: *mut VTabCursor) -> c_int {
    // SAFETY: a cursor of this module.
    let c = unsafe { &*cursor.cast::<Cursor>() };
    c_int::from(c.row >= c.n)
}

unsafe extern "C" fn column(cursor: *mut VTabCursor, ctx: *mut Context, i: c_int) -> c_int {
    let Some(r) = ffi::routines() else {
        return ffi::SQLITE_ERROR;
    };
    // SAFETY: a cursor of this module on a row; `ctx` is the context of this call;
    // SQLite copies the text or bytes (SQLITE_TRANSIENT) before the call returns.
    unsafe {
        let c = &*cursor.cast::<Cursor>();
        let blob = (*c.base.vtab.cast::<Table>()).blob;
        match (i, blob) {
            (0, false) => {
                let text = c.id.encode();
                (r.result_text)(ctx, text.as_bytes().as_ptr().cast(), 26, ffi::transient());
            }
            (0, true) => {
                let bytes = c.id.to_bytes();
                (r.result_blob)(ctx, bytes.as_ptr().cast(), 16, ffi::transient());
            }
            _ => (r.result_int64)(ctx, c.n),
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn rowid(cursor: *mut VTabCursor, rowid: *mut i64) -> c_int {
    // SAFETY: a cursor of this module; `rowid` is SQLite's out-parameter.
    unsafe { *rowid = (*cursor.cast::<Cursor>()).row + 1 };
    ffi::SQLITE_OK
}

/// The module of one of the two functions: eponymous only (no `xCreate`), read-only.
const fn module(connect: ffi::XConnect) -> Module {
    Module {
        version: 0,
        create: None,
        connect: Some(connect),
        best_index: Some(best_index),
        disconnect: Some(disconnect),
        destroy: Some(disconnect),
        open: Some(open),
        close: Some(close),
        filter: Some(filter),
        next: Some(next),
        eof: Some(eof),
        column: Some(column),
        rowid: Some(rowid),
        update: None,
        begin: None,
        sync: None,
        commit: None,
        rollback: None,
        find_function: None,
        rename: None,
    }
}

static TEXT_MODULE: Module = module(connect_as::<false>);
static BLOB_MODULE: Module = module(connect_as::<true>);

/// Registers both functions on `db`.
///
/// # Safety
///
/// `db` is the connection being loaded into.
pub unsafe fn register(r: &Routines, db: *mut Sqlite3) -> Result<(), String> {
    for (name, module) in [
        (c"scru128_series", &TEXT_MODULE),
        (c"scru128_series_blob", &BLOB_MODULE),
    ] {
        // SAFETY: `db` is the connection; the name is a C string and the module a
        // static, both living as long as the image (never unloaded).
        let rc = unsafe { (r.create_module)(db, name.as_ptr(), module, core::ptr::null_mut()) };
        if rc != ffi::SQLITE_OK {
            return Err(format!(
                "scru128: cannot register {}(): error code {rc}",
                name.to_string_lossy()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::next_id;

    #[test]
    fn each_id_is_above_the_last() {
        let mut last = next_id(None).unwrap();
        for _ in 0..10_000 {
            let id = next_id(Some(last)).unwrap();
            assert!(id > last);
            last = id;
        }
    }

    #[test]
    fn an_id_from_another_block_of_the_same_millisecond_is_skipped() {
        // Another thread's block, made after this thread's: above the IDs this thread
        // makes next in the same millisecond (when the millisecond holds).
        let ahead = std::thread::spawn(|| {
            let _ = scru128::scru128();
            scru128::scru128()
        })
        .join()
        .unwrap();
        let id = next_id(Some(ahead)).unwrap();
        assert!(id > ahead);
    }
}
