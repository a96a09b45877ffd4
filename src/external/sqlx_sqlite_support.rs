//! sqlx `Type`/`Encode`/`Decode` for [`Scru128Id`] with SQLite (feature
//! `sqlx-sqlite`).
//!
//! The ID binds as a 16-byte `BLOB` of its big-endian bytes. SQLite compares BLOBs
//! with `memcmp`, so `ORDER BY id` and `WHERE id BETWEEN lo AND hi` follow the IDs'
//! order. Reading also accepts the 26-digit `TEXT` (either case), for tables that
//! stored the text.

use sqlx_core::decode::Decode;
use sqlx_core::encode::{Encode, IsNull};
use sqlx_core::error::{BoxDynError, UnexpectedNullError};
use sqlx_core::types::Type;
use sqlx_core::value::ValueRef;
use sqlx_sqlite::{Sqlite, SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};

use super::stored;
use crate::Scru128Id;

/// A `BLOB` parameter; reads `BLOB` and `TEXT` values.
///
/// ```no_run
/// use scru128::Scru128Id;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let pool = sqlx_sqlite::SqlitePool::connect("sqlite://items.db?mode=rwc").await?;
/// sqlx::query("CREATE TABLE IF NOT EXISTS item (id BLOB PRIMARY KEY, name TEXT)")
///     .execute(&pool)
///     .await?;
/// let id = scru128::scru128();
/// sqlx::query("INSERT INTO item (id, name) VALUES (?, ?)")
///     .bind(id)
///     .bind("first")
///     .execute(&pool)
///     .await?;
///
/// let lo = Scru128Id::try_min_at_unix_ts_ms(id.unix_ts_ms() - 60_000)?;
/// let hi = Scru128Id::try_max_at_unix_ts_ms(id.unix_ts_ms())?;
/// let found: Vec<(Scru128Id, String)> =
///     sqlx::query_as("SELECT id, name FROM item WHERE id BETWEEN ? AND ? ORDER BY id")
///         .bind(lo)
///         .bind(hi)
///         .fetch_all(&pool)
///         .await?;
/// assert!(found.iter().any(|(found, _)| *found == id));
/// # Ok(())
/// # }
/// ```
impl Type<Sqlite> for Scru128Id {
    fn type_info() -> SqliteTypeInfo {
        <[u8] as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        // BLOB or TEXT
        <[u8] as Type<Sqlite>>::compatible(ty)
    }
}

/// Binds the 16 big-endian bytes as a `BLOB`.
impl Encode<'_, Sqlite> for Scru128Id {
    fn encode_by_ref(&self, args: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
        <alloc::vec::Vec<u8> as Encode<'_, Sqlite>>::encode(self.as_bytes().to_vec(), args)
    }

    fn size_hint(&self) -> usize {
        16
    }
}

/// Reads a 16-byte `BLOB`, or `TEXT` holding the 26 digits in either case. A bad value
/// is an error whose source is a [`StoredValueError`](crate::StoredValueError); an
/// `INTEGER` or `REAL` is refused by sqlx (`Error::ColumnDecode`, mismatched types)
/// before the value is read, and `NULL` is `UnexpectedNullError` (read an
/// `Option<Scru128Id>` for a nullable column).
///
/// ```no_run
/// use sqlx::Row;
/// use scru128::{Scru128Id, StoredValueError};
///
/// # async fn run(pool: sqlx_sqlite::SqlitePool) -> Result<(), Box<dyn std::error::Error>> {
/// let row = sqlx::query("SELECT '00pghaj3q9vaj7iu6pqbhbuak4', x'0102'")
///     .fetch_one(&pool)
///     .await?;
/// assert_eq!(row.try_get::<Scru128Id, _>(0)?.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
/// match row.try_get::<Scru128Id, _>(1) {
///     Err(sqlx::Error::ColumnDecode { source, .. }) => {
///         assert_eq!(source.downcast_ref(), Some(&StoredValueError::Length(2)));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok(())
/// # }
/// ```
impl<'r> Decode<'r, Sqlite> for Scru128Id {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        // sqlx leaves NULL to the type (SQLite's own readers give empty values for it)
        if value.is_null() {
            return Err(alloc::boxed::Box::new(UnexpectedNullError));
        }
        let is_text = *value.type_info() == <str as Type<Sqlite>>::type_info();
        let read = if is_text {
            stored::from_text(<&str as Decode<'r, Sqlite>>::decode(value)?.as_bytes())
        } else {
            stored::from_binary(<&[u8] as Decode<'r, Sqlite>>::decode(value)?)
        };
        read.map_err(Into::into)
    }
}
