//! sqlx `Type`/`Encode`/`Decode` for [`Scru128Id`] with PostgreSQL (feature
//! `sqlx-postgres`).
//!
//! The ID binds as a `uuid` (16 bytes, compared byte by byte, so the database order is
//! the IDs' order) and reads from the native `scru128` of this repository's PostgreSQL
//! extension (`pg/`; recognized by name, its OID differs per database), `uuid`, a
//! 16-byte `bytea` and the text types. A `uuid` parameter works with a `scru128` column
//! too: the extension has exact operators between `scru128` and `uuid` (the same 16
//! bytes, in the column's index families), so `WHERE id = $1` uses the column's
//! index, and its assignment cast stores a `uuid` in an `INSERT`. The ID is not an RFC 9562 UUID (no version or variant bits); PostgreSQL
//! never checks.

use sqlx_core::decode::Decode;
use sqlx_core::encode::{Encode, IsNull};
use sqlx_core::error::BoxDynError;
use sqlx_core::types::Type;
use sqlx_postgres::types::{Oid, PgHasArrayType};
use sqlx_postgres::{PgArgumentBuffer, PgTypeInfo, PgValueFormat, PgValueRef, Postgres};

use super::stored;
use crate::Scru128Id;

/// Built-in type OIDs, the same in every PostgreSQL installation.
const UUID: PgTypeInfo = PgTypeInfo::with_oid(Oid(2950));
const UUID_ARRAY: PgTypeInfo = PgTypeInfo::with_oid(Oid(2951));
const BYTEA: PgTypeInfo = PgTypeInfo::with_oid(Oid(17));

fn is_text(ty: &PgTypeInfo) -> bool {
    <&str as Type<Postgres>>::compatible(ty)
}

/// The extension's `scru128`: sqlx names a type found by OID as `oid::regtype`, which
/// is schema-qualified when the schema is not on the search path.
fn is_native(ty: &PgTypeInfo) -> bool {
    let name = sqlx_core::type_info::TypeInfo::name(ty);
    name == "scru128" || name.ends_with(".scru128")
}

/// A `uuid` parameter; reads native `scru128`, `uuid`, `bytea` and text columns
/// (`text`, `varchar`, `char(26)`, `name`).
///
/// ```no_run
/// use scru128::Scru128Id;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let url = std::env::var("SCRU128_PG_URL")?;
/// let pool = sqlx::PgPool::connect(&url).await?;
/// sqlx::query("CREATE TABLE IF NOT EXISTS item (id uuid PRIMARY KEY, name text)")
///     .execute(&pool)
///     .await?;
/// let id = scru128::scru128();
/// sqlx::query("INSERT INTO item (id, name) VALUES ($1, $2)")
///     .bind(id)
///     .bind("first")
///     .execute(&pool)
///     .await?;
///
/// let lo = Scru128Id::try_min_at_unix_ts_ms(id.unix_ts_ms() - 60_000)?;
/// let hi = Scru128Id::try_max_at_unix_ts_ms(id.unix_ts_ms())?;
/// let found: Vec<(Scru128Id, String)> =
///     sqlx::query_as("SELECT id, name FROM item WHERE id BETWEEN $1 AND $2 ORDER BY id")
///         .bind(lo)
///         .bind(hi)
///         .fetch_all(&pool)
///         .await?;
/// assert!(found.iter().any(|(found, _)| *found == id));
/// # Ok(())
/// # }
/// ```
impl Type<Postgres> for Scru128Id {
    fn type_info() -> PgTypeInfo {
        UUID
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        *ty == UUID || *ty == BYTEA || is_text(ty) || is_native(ty)
    }
}

/// `uuid[]`, so that a `Vec<Scru128Id>` binds as an array (e.g. `= ANY($1)`,
/// `unnest($1)`).
///
/// ```no_run
/// # async fn run(pool: sqlx::PgPool) -> Result<(), sqlx::Error> {
/// let ids: Vec<scru128::Scru128Id> = (0..1000).map(|_| scru128::scru128()).collect();
/// sqlx::query("INSERT INTO item (id, name) SELECT id, 'bulk' FROM unnest($1::uuid[]) AS t(id)")
///     .bind(&ids)
///     .execute(&pool)
///     .await?;
/// # Ok(())
/// # }
/// ```
impl PgHasArrayType for Scru128Id {
    fn array_type_info() -> PgTypeInfo {
        UUID_ARRAY
    }
}

/// Binds the 16 big-endian bytes as a `uuid`.
impl Encode<'_, Postgres> for Scru128Id {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        buf.extend_from_slice(self.as_bytes());
        Ok(IsNull::No)
    }

    fn size_hint(&self) -> usize {
        16
    }
}

/// Reads native `scru128` and `uuid` (16 bytes), `bytea` (16 bytes) and text (26
/// digits, either case), in the binary and the text wire formats. A bad value is an error whose source is a
/// [`StoredValueError`](crate::StoredValueError); another column type is refused by
/// sqlx (`Error::ColumnDecode`, mismatched types) before the value is read.
///
/// ```no_run
/// use sqlx::Row;
/// use scru128::{Scru128Id, StoredValueError};
///
/// # async fn run(pool: sqlx::PgPool) -> Result<(), Box<dyn std::error::Error>> {
/// let row = sqlx::query("SELECT '00pghaj3q9vaj7iu6pqbhbuak4'::text, '\\x0102'::bytea")
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
impl Decode<'_, Postgres> for Scru128Id {
    fn decode(value: PgValueRef<'_>) -> Result<Self, BoxDynError> {
        let ty = sqlx_core::value::ValueRef::type_info(&value);
        // The native type's text format is its 26 digits, like the text types'.
        let text = is_text(&ty) || (is_native(&ty) && value.format() == PgValueFormat::Text);
        let bytes = value.as_bytes()?;
        let read = match value.format() {
            _ if text => stored::from_text(bytes),
            PgValueFormat::Binary => stored::from_binary(bytes),
            PgValueFormat::Text => stored::from_pg_hex(bytes, *ty == UUID),
        };
        read.map_err(Into::into)
    }
}
