//! diesel support for [`Scru128Id`](crate::Scru128Id) (features `diesel-postgres` and
//! `diesel-sqlite`; `diesel` turns on both): `AsExpression`, `FromSqlRow`, `ToSql` and
//! `FromSql`, so that a `Scru128Id` field works in a diesel model, in `filter`,
//! `insert_into`, `load` and `eq_any`, with any of these column types:
//!
//! | diesel SQL type | PostgreSQL | SQLite |
//! | --- | --- | --- |
//! | `diesel::sql_types::Uuid` | `uuid` | — |
//! | [`sql_types::Scru128`] | the native `scru128` of the extension in `pg/` | — |
//! | `diesel::sql_types::Binary` | `bytea` (16 bytes) | `BLOB` (16 bytes) |
//! | `diesel::sql_types::Text` | `text`, `varchar`, `char(26)` | `TEXT` |
//!
//! The binary columns hold the 16 big-endian bytes, which both databases compare byte
//! by byte: `ORDER BY id` is the IDs' order, and `id.between(lo, hi)` with the
//! library's range bounds selects exactly a time window, through the index. In a
//! `uuid` the ID is not an RFC 9562 UUID (no version or variant bits), which
//! PostgreSQL never checks. The text columns get the canonical 26 uppercase digits
//! and are read in either case; their order is their collation's (in PostgreSQL only
//! `COLLATE "C"` sorts them like the IDs; SQLite's default `BINARY` does).
//!
//! A stored value that is not an ID is `diesel::result::Error::DeserializationError`
//! holding a [`StoredValueError`](crate::StoredValueError), never a panic: as the
//! `error` (the source) of diesel's `DeserializeFieldError` where diesel reads a field
//! of a row (`load`, `first`, `get_result`), directly in `QueryableByName` rows. (diesel
//! trusts the schema's column types, so a column declared `Uuid` that holds something
//! else reaches the ID as its bytes: a length error.) A `NULL` in a column read as
//! `Scru128Id` is diesel's own `UnexpectedNullError`; read `Option<Scru128Id>` from a
//! nullable column.
//!
//! With `diesel print-schema`, a `uuid` column is `Uuid` and a `bytea` one `Binary`,
//! which work as they are. For a native `scru128` column the CLI would define a
//! `Scru128` SQL type of its own, which this crate knows nothing of; import this one
//! instead, in `diesel.toml`:
//!
//! ```toml
//! [print_schema]
//! import_types = ["diesel::sql_types::*", "scru128::diesel::sql_types::*"]
//! generate_missing_sql_type_definitions = false
//! ```

use alloc::boxed::Box;

use diesel::deserialize;

use super::stored;
use crate::Scru128Id;

/// diesel SQL types this crate adds (feature `diesel-postgres`).
#[cfg(feature = "diesel-postgres")]
pub mod sql_types;

// `AsExpression` and `FromSqlRow` are derived on `Scru128Id` itself (src/id.rs), for
// `Binary`, `Text` and, with `diesel-postgres`, `Uuid` and `sql_types::Scru128`.

/// What the error of a bad stored value looks like to diesel.
fn decoded(read: Result<Scru128Id, stored::StoredValueError>) -> deserialize::Result<Scru128Id> {
    read.map_err(|err| Box::new(err) as _)
}

#[cfg(feature = "diesel-postgres")]
mod pg {
    // `io::Write` for diesel's output buffer (diesel needs `std` anyway; this crate may
    // be built without its `std` feature).
    extern crate std;

    use std::io::Write;

    use diesel::deserialize::{self, FromSql};
    use diesel::pg::{Pg, PgValue};
    use diesel::serialize::{self, IsNull, Output, ToSql};
    use diesel::sql_types::{Binary, Text, Uuid};

    use super::{decoded, sql_types::Scru128, stored};
    use crate::Scru128Id;

    /// The 16 big-endian bytes: the binary form of `uuid`, `bytea` and `scru128` alike.
    fn write_bytes(id: &Scru128Id, out: &mut Output<'_, '_, Pg>) -> serialize::Result {
        out.write_all(id.as_bytes())?;
        Ok(IsNull::No)
    }

    /// `ToSql`/`FromSql` for the SQL types whose binary form is the 16 bytes.
    macro_rules! binary_types {
        ($($sql_type:ty),*) => {$(
            impl ToSql<$sql_type, Pg> for Scru128Id {
                fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                    write_bytes(self, out)
                }
            }

            impl FromSql<$sql_type, Pg> for Scru128Id {
                fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
                    decoded(stored::from_binary(value.as_bytes()))
                }
            }
        )*};
    }

    binary_types!(Uuid, Scru128, Binary);

    /// The canonical 26-digit text.
    impl ToSql<Text, Pg> for Scru128Id {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
            out.write_all(self.encode().as_bytes())?;
            Ok(IsNull::No)
        }
    }

    /// The 26 digits in either case.
    impl FromSql<Text, Pg> for Scru128Id {
        fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
            decoded(stored::from_text(value.as_bytes()))
        }
    }
}

#[cfg(feature = "diesel-sqlite")]
mod sqlite {
    use diesel::deserialize::{self, FromSql};
    use diesel::serialize::{self, IsNull, Output, ToSql};
    use diesel::sql_types::{Binary, Text};
    use diesel::sqlite::{Sqlite, SqliteType, SqliteValue};

    use super::{decoded, stored};
    use crate::Scru128Id;

    /// Binds the 16 big-endian bytes as a `BLOB` (borrowed, no copy).
    impl ToSql<Binary, Sqlite> for Scru128Id {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
            out.set_value(self.as_bytes().as_slice());
            Ok(IsNull::No)
        }
    }

    /// Binds the canonical 26-digit text.
    impl ToSql<Text, Sqlite> for Scru128Id {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
            out.set_value(self.to_string());
            Ok(IsNull::No)
        }
    }

    /// An SQLite column holds whatever was stored in it, whatever it was declared as: a
    /// `BLOB` is read as the 16 bytes, `TEXT` as the 26 digits in either case, and a
    /// number is an error (SQLite would turn it into the bytes of its decimal text).
    fn read(mut value: SqliteValue<'_, '_, '_>) -> deserialize::Result<Scru128Id> {
        decoded(match value.value_type() {
            Some(SqliteType::Binary) => stored::from_binary(value.read_blob()),
            Some(SqliteType::Text) => stored::from_text(value.read_text().as_bytes()),
            Some(SqliteType::Double | SqliteType::Float) => {
                Err(stored::StoredValueError::NotBinaryOrText("REAL"))
            }
            Some(_) => Err(stored::StoredValueError::NotBinaryOrText("INTEGER")),
            None => Err(stored::StoredValueError::NotBinaryOrText("NULL")),
        })
    }

    /// Reads a `BLOB` of 16 bytes or the 26-digit `TEXT`.
    impl FromSql<Binary, Sqlite> for Scru128Id {
        fn from_sql(value: SqliteValue<'_, '_, '_>) -> deserialize::Result<Self> {
            read(value)
        }
    }

    /// Reads the 26-digit `TEXT` or a `BLOB` of 16 bytes.
    impl FromSql<Text, Sqlite> for Scru128Id {
        fn from_sql(value: SqliteValue<'_, '_, '_>) -> deserialize::Result<Self> {
            read(value)
        }
    }
}
