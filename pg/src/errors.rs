//! Library errors as PostgreSQL `ERROR`s with a SQLSTATE (never a panic that would
//! surface as an internal error).

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// Raises an `ERROR` with `code` and `message`; does not return.
#[track_caller]
pub fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ErrorReport::new(code, message, "scru128").report(PgLogLevel::ERROR);
    unreachable!("an ERROR report does not return")
}
