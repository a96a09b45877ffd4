//! The part of SQLite's C API the extension uses, reached through the host's routine
//! table (`sqlite3_api_routines` of `sqlite3ext.h`), never through linked symbols: the
//! extension carries no SQLite of its own and calls the one that loaded it.
//!
//! SQLite only ever appends to that table, so a prefix of it has the same layout in
//! every version. [`Api`] declares the first 178 entries (up to `vtab_config`, SQLite
//! 3.7.7) in the header's order; a unit test checks the names and order against the
//! system's `sqlite3ext.h`.

use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicPtr, Ordering};

/// `sqlite3` (a connection), opaque.
#[repr(C)]
pub struct Sqlite3 {
    _private: [u8; 0],
}

/// `sqlite3_context`, opaque.
#[repr(C)]
pub struct Context {
    _private: [u8; 0],
}

/// `sqlite3_value`, opaque.
#[repr(C)]
pub struct Value {
    _private: [u8; 0],
}

pub const SQLITE_OK: c_int = 0;
pub const SQLITE_ERROR: c_int = 1;

pub const SQLITE_INTEGER: c_int = 1;
pub const SQLITE_FLOAT: c_int = 2;
pub const SQLITE_TEXT: c_int = 3;
pub const SQLITE_BLOB: c_int = 4;
pub const SQLITE_NULL: c_int = 5;

pub const SQLITE_UTF8: c_int = 1;
/// Same arguments, same result, within one statement: usable in indexes, CHECK
/// constraints and generated columns (SQLite 3.8.3).
pub const SQLITE_DETERMINISTIC: c_int = 0x800;
/// No side effects worth guarding against: usable in the schema under
/// `PRAGMA trusted_schema=OFF` (SQLite 3.31.0).
pub const SQLITE_INNOCUOUS: c_int = 0x20_0000;

/// `sqlite3_destructor_type`: `SQLITE_TRANSIENT` (-1) makes SQLite copy the bytes.
pub type Destructor = Option<unsafe extern "C" fn(*mut c_void)>;

/// `SQLITE_TRANSIENT`, the destructor value -1.
pub fn transient() -> Destructor {
    // SAFETY: SQLite compares the destructor with -1 and never calls it then; this is
    // how sqlite3.h itself defines SQLITE_TRANSIENT (`(sqlite3_destructor_type)-1`).
    // An all-ones pointer is a valid, non-null bit pattern for an `Option<fn>`.
    unsafe { core::mem::transmute::<isize, Destructor>(-1) }
}

pub const SQLITE_CONSTRAINT: c_int = 19;
/// `sqlite3_vtab_config` option: the virtual table is safe in the schema (views,
/// triggers) under `PRAGMA trusted_schema=OFF` (SQLite 3.31.0).
pub const SQLITE_VTAB_INNOCUOUS: c_int = 2;
/// `sqlite3_index_constraint.op` for `=`.
pub const SQLITE_INDEX_CONSTRAINT_EQ: u8 = 2;

/// `sqlite3_vtab`: the base of a virtual table's struct.
#[repr(C)]
pub struct VTab {
    pub module: *const Module,
    pub n_ref: c_int,
    /// An error message from `sqlite3_malloc`, which SQLite frees.
    pub err_msg: *mut c_char,
}

/// `sqlite3_vtab_cursor`: the base of a cursor's struct.
#[repr(C)]
pub struct VTabCursor {
    pub vtab: *mut VTab,
}

/// `struct sqlite3_index_constraint`.
#[repr(C)]
pub struct IndexConstraint {
    pub column: c_int,
    pub op: u8,
    pub usable: u8,
    pub term_offset: c_int,
}

/// `struct sqlite3_index_orderby`.
#[repr(C)]
pub struct IndexOrderBy {
    pub column: c_int,
    pub desc: u8,
}

/// `struct sqlite3_index_constraint_usage`.
#[repr(C)]
pub struct IndexConstraintUsage {
    pub argv_index: c_int,
    pub omit: u8,
}

/// `sqlite3_index_info`, up to `estimatedRows` (SQLite 3.8.2; the fields after it are
/// not touched).
#[repr(C)]
pub struct IndexInfo {
    pub n_constraint: c_int,
    pub constraints: *const IndexConstraint,
    pub n_order_by: c_int,
    pub order_by: *const IndexOrderBy,
    pub usage: *mut IndexConstraintUsage,
    pub idx_num: c_int,
    pub idx_str: *mut c_char,
    pub need_to_free_idx_str: c_int,
    pub order_by_consumed: c_int,
    pub estimated_cost: f64,
    pub estimated_rows: i64,
}

/// `int (*xConnect)(sqlite3*, void *pAux, int argc, const char *const *argv,
/// sqlite3_vtab **ppVTab, char **pzErr)`.
pub type XConnect = unsafe extern "C" fn(
    *mut Sqlite3,
    *mut c_void,
    c_int,
    *const *const c_char,
    *mut *mut VTab,
    *mut *mut c_char,
) -> c_int;

/// `sqlite3_module`, version 0 (the first 19 methods); `None` where unused.
#[repr(C)]
pub struct Module {
    pub version: c_int,
    pub create: Option<XConnect>,
    pub connect: Option<XConnect>,
    pub best_index: Option<unsafe extern "C" fn(*mut VTab, *mut IndexInfo) -> c_int>,
    pub disconnect: Option<unsafe extern "C" fn(*mut VTab) -> c_int>,
    pub destroy: Option<unsafe extern "C" fn(*mut VTab) -> c_int>,
    pub open: Option<unsafe extern "C" fn(*mut VTab, *mut *mut VTabCursor) -> c_int>,
    pub close: Option<unsafe extern "C" fn(*mut VTabCursor) -> c_int>,
    pub filter: Option<
        unsafe extern "C" fn(
            *mut VTabCursor,
            c_int,
            *const c_char,
            c_int,
            *mut *mut Value,
        ) -> c_int,
    >,
    pub next: Option<unsafe extern "C" fn(*mut VTabCursor) -> c_int>,
    pub eof: Option<unsafe extern "C" fn(*mut VTabCursor) -> c_int>,
    pub column: Option<unsafe extern "C" fn(*mut VTabCursor, *mut Context, c_int) -> c_int>,
    pub rowid: Option<unsafe extern "C" fn(*mut VTabCursor, *mut i64) -> c_int>,
    pub update: Unused,
    pub begin: Unused,
    pub sync: Unused,
    pub commit: Unused,
    pub rollback: Unused,
    pub find_function: Unused,
    pub rename: Unused,
}

// SAFETY: a `Module` is a table of function pointers and an int, never written after
// it is made; SQLite reads it from any thread.
unsafe impl Sync for Module {}

/// `void (*xFunc)(sqlite3_context*, int, sqlite3_value**)`.
pub type XFunc = unsafe extern "C" fn(*mut Context, c_int, *mut *mut Value);

/// An entry of the table the extension does not call (any entry is one pointer wide).
pub type Unused = Option<unsafe extern "C" fn()>;

macro_rules! routines {
    ($($name:ident $(: $ty:ty)?),* $(,)?) => {
        /// The first entries of `sqlite3_api_routines`, in the header's order.
        #[repr(C)]
        pub struct Api {
            $(pub $name: routines!(@field $($ty)?),)*
        }

        /// The entry names, in order, for the check against `sqlite3ext.h`.
        #[cfg(test)]
        pub const API_FIELDS: &[&str] = &[$(stringify!($name)),*];
    };
    (@field) => { Unused };
    (@field $ty:ty) => { Option<$ty> };
}

routines! {
    aggregate_context, aggregate_count, bind_blob, bind_double, bind_int, bind_int64,
    bind_null, bind_parameter_count, bind_parameter_index, bind_parameter_name, bind_text,
    bind_text16, bind_value, busy_handler, busy_timeout, changes, close, collation_needed,
    collation_needed16, column_blob, column_bytes, column_bytes16, column_count,
    column_database_name, column_database_name16, column_decltype, column_decltype16,
    column_double, column_int, column_int64, column_name, column_name16, column_origin_name,
    column_origin_name16, column_table_name, column_table_name16, column_text, column_text16,
    column_type, column_value, commit_hook, complete, complete16, create_collation,
    create_collation16,
    create_function: unsafe extern "C" fn(
        *mut Sqlite3,
        *const c_char,
        c_int,
        c_int,
        *mut c_void,
        Option<XFunc>,
        Option<XFunc>,
        Option<unsafe extern "C" fn(*mut Context)>,
    ) -> c_int,
    create_function16,
    create_module: unsafe extern "C" fn(*mut Sqlite3, *const c_char, *const Module, *mut c_void) -> c_int,
    data_count, db_handle,
    declare_vtab: unsafe extern "C" fn(*mut Sqlite3, *const c_char) -> c_int,
    enable_shared_cache, errcode,
    errmsg: unsafe extern "C" fn(*mut Sqlite3) -> *const c_char,
    errmsg16, exec, expired, finalize,
    free: unsafe extern "C" fn(*mut c_void),
    free_table, get_autocommit, get_auxdata,
    get_table, global_recover, interruptx, last_insert_rowid, libversion,
    libversion_number: unsafe extern "C" fn() -> c_int,
    malloc: unsafe extern "C" fn(c_int) -> *mut c_void,
    mprintf, open, open16, prepare, prepare16, profile, progress_handler, realloc, reset,
    result_blob: unsafe extern "C" fn(*mut Context, *const c_void, c_int, Destructor),
    result_double,
    result_error: unsafe extern "C" fn(*mut Context, *const c_char, c_int),
    result_error16,
    result_int,
    result_int64: unsafe extern "C" fn(*mut Context, i64),
    result_null: unsafe extern "C" fn(*mut Context),
    result_text: unsafe extern "C" fn(*mut Context, *const c_char, c_int, Destructor),
    result_text16, result_text16be, result_text16le, result_value, rollback_hook,
    set_authorizer, set_auxdata, xsnprintf, step, table_column_metadata, thread_cleanup,
    total_changes, trace, transfer_bindings, update_hook, user_data,
    value_blob: unsafe extern "C" fn(*mut Value) -> *const c_void,
    value_bytes: unsafe extern "C" fn(*mut Value) -> c_int,
    value_bytes16,
    value_double,
    value_int,
    value_int64: unsafe extern "C" fn(*mut Value) -> i64,
    value_numeric_type,
    value_text: unsafe extern "C" fn(*mut Value) -> *const u8,
    value_text16, value_text16be, value_text16le,
    value_type: unsafe extern "C" fn(*mut Value) -> c_int,
    vmprintf, overload_function, prepare_v2, prepare16_v2, clear_bindings, create_module_v2,
    bind_zeroblob, blob_bytes, blob_close, blob_open, blob_read, blob_write,
    create_collation_v2, file_control, memory_highwater, memory_used, mutex_alloc,
    mutex_enter, mutex_free, mutex_leave, mutex_try, open_v2, release_memory,
    result_error_nomem: unsafe extern "C" fn(*mut Context),
    result_error_toobig, sleep, soft_heap_limit, vfs_find, vfs_register, vfs_unregister,
    xthreadsafe, result_zeroblob, result_error_code, test_control, randomness,
    context_db_handle, extended_result_codes, limit, next_stmt, sql, status, backup_finish,
    backup_init, backup_pagecount, backup_remaining, backup_step, compileoption_get,
    compileoption_used, create_function_v2, db_config, db_mutex, db_status,
    extended_errcode, log, soft_heap_limit64, sourceid, stmt_status, strnicmp,
    unlock_notify, wal_autocheckpoint, wal_checkpoint, wal_hook, blob_reopen,
    vtab_config: unsafe extern "C" fn(*mut Sqlite3, c_int, ...) -> c_int,
}

/// The routines the extension calls, with nothing left to check at a call.
#[derive(Clone, Copy)]
pub struct Routines {
    pub create_function: unsafe extern "C" fn(
        *mut Sqlite3,
        *const c_char,
        c_int,
        c_int,
        *mut c_void,
        Option<XFunc>,
        Option<XFunc>,
        Option<unsafe extern "C" fn(*mut Context)>,
    ) -> c_int,
    pub create_module:
        unsafe extern "C" fn(*mut Sqlite3, *const c_char, *const Module, *mut c_void) -> c_int,
    pub declare_vtab: unsafe extern "C" fn(*mut Sqlite3, *const c_char) -> c_int,
    pub errmsg: unsafe extern "C" fn(*mut Sqlite3) -> *const c_char,
    pub free: unsafe extern "C" fn(*mut c_void),
    pub malloc: unsafe extern "C" fn(c_int) -> *mut c_void,
    pub result_blob: unsafe extern "C" fn(*mut Context, *const c_void, c_int, Destructor),
    pub result_error: unsafe extern "C" fn(*mut Context, *const c_char, c_int),
    pub result_error_nomem: unsafe extern "C" fn(*mut Context),
    pub result_int64: unsafe extern "C" fn(*mut Context, i64),
    pub result_null: unsafe extern "C" fn(*mut Context),
    pub result_text: unsafe extern "C" fn(*mut Context, *const c_char, c_int, Destructor),
    pub value_blob: unsafe extern "C" fn(*mut Value) -> *const c_void,
    pub value_bytes: unsafe extern "C" fn(*mut Value) -> c_int,
    pub value_int64: unsafe extern "C" fn(*mut Value) -> i64,
    pub value_text: unsafe extern "C" fn(*mut Value) -> *const u8,
    pub value_type: unsafe extern "C" fn(*mut Value) -> c_int,
    pub vtab_config: unsafe extern "C" fn(*mut Sqlite3, c_int, ...) -> c_int,
}

impl Routines {
    /// The routines of `api`, or the name of the first one the host left out.
    pub fn from_api(api: &Api) -> Result<Self, &'static str> {
        macro_rules! take {
            ($($name:ident),*) => {
                Ok(Self { $($name: api.$name.ok_or(stringify!($name))?,)* })
            };
        }
        take!(
            create_function,
            create_module,
            declare_vtab,
            errmsg,
            free,
            malloc,
            result_blob,
            result_error,
            result_error_nomem,
            result_int64,
            result_null,
            result_text,
            value_blob,
            value_bytes,
            value_int64,
            value_text,
            value_type,
            vtab_config
        )
    }
}

/// The host's routine table, set by the first load (see `lib.rs`).
static API: AtomicPtr<Api> = AtomicPtr::new(core::ptr::null_mut());
/// The routines taken from it, leaked once: the host's table lives as long as the
/// process (it is a static of the SQLite library) and so does this image (`nodelete`).
static ROUTINES: AtomicPtr<Routines> = AtomicPtr::new(core::ptr::null_mut());

/// Why a load cannot use the routine table it was given.
pub enum InstallError {
    /// A second SQLite library in the process loaded this image.
    OtherHost,
    /// The host's table lacks a routine.
    Missing(&'static str),
}

/// Remembers `api` as the routine table of the process.
///
/// # Safety
///
/// `api` must be the table SQLite passed to the entry point, valid for the life of the
/// process.
///
/// # Errors
///
/// [`InstallError::OtherHost`] if an earlier load came from another SQLite library
/// (another table): the functions of that library's connections would call into this
/// one; [`InstallError::Missing`] if a routine is absent.
pub unsafe fn install(api: *mut Api) -> Result<Routines, InstallError> {
    match API.compare_exchange(
        core::ptr::null_mut(),
        api,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        Ok(_) => {}
        Err(first) if first == api => {}
        Err(_) => return Err(InstallError::OtherHost),
    }
    if let Some(routines) = routines() {
        return Ok(*routines);
    }
    // SAFETY: the caller passes SQLite's table; `Api` is a prefix of its layout.
    let routines = Routines::from_api(unsafe { &*api }).map_err(InstallError::Missing)?;
    let leaked = Box::into_raw(Box::new(routines));
    if let Err(other) = ROUTINES.compare_exchange(
        core::ptr::null_mut(),
        leaked,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        // Another thread installed the same table first: keep one copy.
        // SAFETY: `leaked` came from `Box::into_raw` just above and was never shared.
        drop(unsafe { Box::from_raw(leaked) });
        // SAFETY: set once, never freed.
        return Ok(unsafe { *other });
    }
    Ok(routines)
}

/// The installed routines, once a load has succeeded.
#[inline]
pub fn routines() -> Option<&'static Routines> {
    // SAFETY: the pointer is null or a leaked `Box` that is never freed.
    unsafe { ROUTINES.load(Ordering::Acquire).as_ref() }
}

/// The version number of the host (`sqlite3_libversion_number`), if it has the routine.
///
/// # Safety
///
/// As [`install`].
pub unsafe fn libversion_number(api: *mut Api) -> Option<c_int> {
    // SAFETY: the caller passes SQLite's table.
    let f = unsafe { (*api).libversion_number }?;
    // SAFETY: a routine of the host, no arguments.
    Some(unsafe { f() })
}

#[cfg(test)]
mod tests {
    use super::{API_FIELDS, Api};

    /// The entry names of `struct sqlite3_api_routines` in a `sqlite3ext.h`, in order.
    fn header_fields(header: &str) -> Vec<String> {
        let start = header
            .find("struct sqlite3_api_routines {")
            .expect("the header declares struct sqlite3_api_routines");
        let body = &header[start..];
        let body = &body[..body.find("\n};").expect("the struct ends")];
        // Drop comments, then split into declarations; each declares `(*name)`.
        let mut text = String::new();
        let mut rest = body;
        while let Some(open) = rest.find("/*") {
            text.push_str(&rest[..open]);
            let close = rest[open..].find("*/").expect("comments close") + open + 2;
            rest = &rest[close..];
        }
        text.push_str(rest);
        let text = &text[text.find('{').unwrap() + 1..];
        text.split(';')
            .filter_map(|decl| {
                let star = decl.find("(*")?;
                let name: String = decl[star + 2..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                Some(name)
            })
            .collect()
    }

    #[test]
    fn the_table_prefix_matches_the_system_header() {
        let path = std::env::var("SCRU128_SQLITE3EXT_H")
            .unwrap_or_else(|_| "/usr/include/sqlite3ext.h".to_owned());
        let header = match std::fs::read_to_string(&path) {
            Ok(header) => header,
            Err(err) => {
                assert!(
                    std::env::var_os("SCRU128_TEST_REQUIRE_ALL").is_none(),
                    "{path}: {err}"
                );
                eprintln!(
                    "skipped: no {path} ({err}); install libsqlite3-dev or set \
                     SCRU128_SQLITE3EXT_H to a sqlite3ext.h"
                );
                return;
            }
        };
        let fields = header_fields(&header);
        assert!(
            fields.len() > API_FIELDS.len(),
            "{} entries in {path}",
            fields.len()
        );
        assert_eq!(&fields[..API_FIELDS.len()], API_FIELDS);
        assert_eq!(
            core::mem::size_of::<Api>(),
            API_FIELDS.len() * core::mem::size_of::<usize>()
        );
    }

    #[test]
    fn transient_is_minus_one() {
        // SAFETY: an `Option<fn>` is one pointer wide; any bit pattern is an isize.
        let raw: isize = unsafe { core::mem::transmute(super::transient()) };
        assert_eq!(raw, -1);
    }
}
