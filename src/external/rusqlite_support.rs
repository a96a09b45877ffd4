//! rusqlite `ToSql`/`FromSql` for [`Scru128Id`] (feature `rusqlite`).
//!
//! The ID is stored as a 16-byte `BLOB` of its big-endian bytes. SQLite compares BLOBs
//! with `memcmp`, so `ORDER BY id` and `WHERE id BETWEEN lo AND hi` follow the IDs'
//! order. Reading also accepts the 26-digit `TEXT` (either case); to store the text
//! instead, bind `id.encode().as_str()`.

use alloc::boxed::Box;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use super::stored;
use crate::Scru128Id;

/// Binds the 16 big-endian bytes as a `BLOB` (borrowed, no copy).
///
/// ```
/// use rusqlite::{Connection, params};
/// use scru128::Scru128Id;
///
/// let db = Connection::open_in_memory()?;
/// db.execute_batch("CREATE TABLE item (id BLOB PRIMARY KEY, name TEXT) WITHOUT ROWID")?;
/// let id = scru128::scru128();
/// db.execute("INSERT INTO item (id, name) VALUES (?1, ?2)", params![id, "first"])?;
///
/// let lo = Scru128Id::try_min_at_unix_ts_ms(id.unix_ts_ms() - 60_000)?;
/// let hi = Scru128Id::try_max_at_unix_ts_ms(id.unix_ts_ms())?;
/// let found: Scru128Id = db.query_row(
///     "SELECT id FROM item WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
///     params![lo, hi],
///     |row| row.get(0),
/// )?;
/// assert_eq!(found, id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ToSql for Scru128Id {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Blob(self.as_bytes())))
    }
}

/// Reads a 16-byte `BLOB`, or `TEXT` holding the 26 digits in either case.
///
/// Errors, never panics: a `BLOB` of another length is
/// `FromSqlError::InvalidBlobSize`, text that is not an ID is `FromSqlError::Other`
/// holding a [`StoredValueError`](crate::StoredValueError), and `INTEGER`, `REAL` or
/// `NULL` is `FromSqlError::InvalidType` (read an `Option<Scru128Id>` for a nullable
/// column).
///
/// ```
/// use rusqlite::{Connection, Error, types::FromSqlError};
/// use scru128::Scru128Id;
///
/// let db = Connection::open_in_memory()?;
/// let text: Scru128Id = db.query_row("SELECT '00pghaj3q9vaj7iu6pqbhbuak4'", [], |r| r.get(0))?;
/// assert_eq!(text.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
///
/// let short = db.query_row("SELECT x'0102'", [], |r| r.get::<_, Scru128Id>(0));
/// assert!(matches!(
///     short,
///     Err(Error::FromSqlConversionFailure(_, _, cause))
///         if matches!(cause.downcast_ref(), Some(FromSqlError::InvalidBlobSize { expected_size: 16, blob_size: 2 }))
/// ));
/// let number = db.query_row("SELECT 42", [], |r| r.get::<_, Scru128Id>(0));
/// assert!(matches!(number, Err(Error::InvalidColumnType(..))));
/// # Ok::<(), rusqlite::Error>(())
/// ```
impl FromSql for Scru128Id {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Blob(bytes) => <[u8; 16]>::try_from(bytes)
                .map(Scru128Id::from_bytes)
                .map_err(|_| FromSqlError::InvalidBlobSize {
                    expected_size: 16,
                    blob_size: bytes.len(),
                }),
            ValueRef::Text(text) => {
                stored::from_text(text).map_err(|err| FromSqlError::Other(Box::new(err)))
            }
            _ => Err(FromSqlError::InvalidType),
        }
    }
}
