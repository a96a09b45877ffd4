//! `ToSql`/`FromSql` of `postgres-types` for [`Scru128Id`] (feature `postgres`), for
//! the `postgres` and `tokio-postgres` clients.
//!
//! The column type is the native `scru128` of this repository's PostgreSQL extension
//! (`pg/`), or `uuid` where the extension is not installed: both are 16 bytes that
//! PostgreSQL compares byte by byte, so `ORDER BY id` and `WHERE id BETWEEN lo AND hi`
//! follow the IDs' order, and the 16-byte key is half the size of the text. The native
//! type is recognized by its name (its OID differs per database). In a `uuid` the ID is
//! not an RFC 9562 UUID (no version or variant bits), which PostgreSQL never checks.

use alloc::boxed::Box;
use core::error::Error;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, Kind, ToSql, Type, WrongType};

use super::stored;
use crate::Scru128Id;

type BoxError = Box<dyn Error + Sync + Send>;

/// The native type of the extension, `scru128`, in whatever schema it is installed.
fn is_native(ty: &Type) -> bool {
    ty.name() == "scru128" && matches!(ty.kind(), Kind::Simple)
}

/// The types an ID is read from and written to: the native one, `uuid`, `bytea`, text.
fn accepts(ty: &Type) -> bool {
    is_native(ty) || *ty == Type::UUID || *ty == Type::BYTEA || is_text(ty)
}

/// The text types an ID may be read from or written to as its 26-digit text.
fn is_text(ty: &Type) -> bool {
    *ty == Type::TEXT
        || *ty == Type::VARCHAR
        || *ty == Type::BPCHAR
        || *ty == Type::NAME
        || *ty == Type::UNKNOWN
}

/// Writes the ID as a native `scru128`, a `uuid` or a `bytea` (16 big-endian bytes), or
/// as its canonical 26-digit text for a text parameter (`text`, `varchar`, `char(26)`).
/// The server tells the client each parameter's type, so `WHERE id = $1` binds a
/// `scru128` to a `scru128` column and a `uuid` to a `uuid` column.
///
/// Also works as an element of `&[Scru128Id]` / `Vec<Scru128Id>` for a `scru128[]` or
/// `uuid[]` parameter, e.g. `INSERT ... SELECT * FROM unnest($1::uuid[])`.
///
/// ```no_run
/// use scru128::Scru128Id;
///
/// let url = std::env::var("SCRU128_PG_URL")?;
/// let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
/// client.batch_execute("CREATE TEMP TABLE item (id uuid PRIMARY KEY, name text)")?;
/// let id = scru128::scru128();
/// client.execute("INSERT INTO item (id, name) VALUES ($1, $2)", &[&id, &"first"])?;
///
/// let lo = Scru128Id::try_min_at_unix_ts_ms(id.unix_ts_ms() - 60_000)?;
/// let hi = Scru128Id::try_max_at_unix_ts_ms(id.unix_ts_ms())?;
/// let rows = client.query("SELECT id FROM item WHERE id BETWEEN $1 AND $2 ORDER BY id", &[&lo, &hi])?;
/// let found: Scru128Id = rows[0].get(0);
/// assert_eq!(found, id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ToSql for Scru128Id {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        if is_text(ty) {
            out.extend_from_slice(self.encode().as_bytes());
        } else {
            out.extend_from_slice(self.as_bytes());
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        accepts(ty)
    }

    // What `postgres_types::to_sql_checked!()` expands to, without its `::std` paths
    // (this crate is `no_std` unless its `std` feature is on).
    fn to_sql_checked(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        if !<Self as ToSql>::accepts(ty) {
            return Err(Box::new(WrongType::new::<Self>(ty.clone())));
        }
        self.to_sql(ty, out)
    }
}

/// Reads a native `scru128`, a `uuid` or a 16-byte `bytea` as the 16 big-endian bytes,
/// or a text value (`text`, `varchar`, `char(26)`, `name`) as the 26-digit text in
/// either case.
///
/// A value of another length, or text that is not an ID, is an error whose source is a
/// [`StoredValueError`](crate::StoredValueError) (with `Row::try_get`; `Row::get`
/// panics on any error, as for every type). Another column type is refused with
/// `postgres_types::WrongType` before the value is read.
///
/// ```no_run
/// use scru128::{Scru128Id, StoredValueError};
///
/// let url = std::env::var("SCRU128_PG_URL")?;
/// let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
/// let row = client.query_one("SELECT '00pghaj3q9vaj7iu6pqbhbuak4'::text, '\\x0102'::bytea", &[])?;
/// let id: Scru128Id = row.try_get(0)?;
/// assert_eq!(id.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
///
/// let err = row.try_get::<_, Scru128Id>(1).unwrap_err();
/// let cause = std::error::Error::source(&err).and_then(|e| e.downcast_ref::<StoredValueError>());
/// assert_eq!(cause, Some(&StoredValueError::Length(2)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'a> FromSql<'a> for Scru128Id {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        let read = if is_text(ty) {
            stored::from_text(raw)
        } else {
            stored::from_binary(raw)
        };
        read.map_err(Into::into)
    }

    fn accepts(ty: &Type) -> bool {
        accepts(ty)
    }
}
