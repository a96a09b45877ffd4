//! What the database integrations share: reading an ID from a stored binary or text
//! value, and [`StoredValueError`], the error for a value that is not an ID.

use core::fmt;

use crate::{ParseError, Scru128Id};

/// A stored database value that is not a SCRU128 ID (features `postgres`,
/// `sqlx-postgres`, `sqlx-sqlite`, `rusqlite`, `diesel-postgres`, `diesel-sqlite`).
///
/// The database integrations return it, boxed, as the source of the client's decode
/// error, so it can be found with `downcast_ref`. (rusqlite reports a binary value of
/// the wrong length with its own `FromSqlError::InvalidBlobSize` instead; diesel puts
/// it in `Error::DeserializationError`.) A value of a type that cannot hold an ID at
/// all (an integer, a date…) is refused by the client's own type check before it gets
/// here, except with diesel's SQLite backend, which leaves that to the type:
/// [`NotBinaryOrText`](Self::NotBinaryOrText).
///
/// ```
/// use scru128::{Scru128Id, StoredValueError};
///
/// let err = StoredValueError::Length(15);
/// assert_eq!(err.to_string(), "a stored SCRU128 ID must be 16 bytes, found 15");
///
/// let bad_text = Scru128Id::try_from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK!").unwrap_err();
/// let err = StoredValueError::Text(bad_text);
/// assert!(err.to_string().starts_with("stored text is not a SCRU128 ID: invalid digit '!'"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoredValueError {
    /// A binary value (`uuid`, `bytea`, `BLOB`) whose length, given here, is not 16.
    Length(usize),
    /// A text value that is not the 26-digit text of an ID; the reason is inside.
    Text(ParseError),
    /// A value in PostgreSQL's text wire format (used by simple queries) that is not
    /// what the server writes for 16 bytes: `uuid` as 8-4-4-4-12 hex digits, `bytea` as
    /// `\x` and 32 hex digits.
    PgTextFormat,
    /// An SQLite value of a storage class that cannot hold an ID (`INTEGER`, `REAL`),
    /// given here, where a `BLOB` or `TEXT` was expected (diesel's SQLite backend, whose
    /// columns take a value of any class whatever their declared type).
    NotBinaryOrText(&'static str),
}

impl fmt::Display for StoredValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length(found) => {
                write!(f, "a stored SCRU128 ID must be 16 bytes, found {found}")
            }
            Self::Text(err) => write!(f, "stored text is not a SCRU128 ID: {err}"),
            Self::PgTextFormat => f.write_str(
                "a PostgreSQL uuid or bytea value in text format is not 16 bytes in hex",
            ),
            Self::NotBinaryOrText(found) => write!(
                f,
                "a stored SCRU128 ID must be a BLOB or TEXT value, found {found}"
            ),
        }
    }
}

impl core::error::Error for StoredValueError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Text(err) => Some(err),
            _ => None,
        }
    }
}

/// 16 big-endian bytes, as stored in `uuid`, `bytea` and `BLOB` values.
#[allow(dead_code)] // not every database feature reads binary values the same way
pub(crate) fn from_binary(bytes: &[u8]) -> Result<Scru128Id, StoredValueError> {
    <[u8; 16]>::try_from(bytes)
        .map(Scru128Id::from_bytes)
        .map_err(|_| StoredValueError::Length(bytes.len()))
}

/// The 26-digit text, in either case.
pub(crate) fn from_text(text: &[u8]) -> Result<Scru128Id, StoredValueError> {
    Scru128Id::try_from_ascii(text).map_err(StoredValueError::Text)
}

/// PostgreSQL's text output of a `uuid` (`8-4-4-4-12` hex, either case) or a `bytea`
/// (`\x` and hex) holding 16 bytes.
#[cfg(feature = "sqlx-postgres")]
pub(crate) fn from_pg_hex(text: &[u8], uuid: bool) -> Result<Scru128Id, StoredValueError> {
    let digits = if uuid {
        if text.len() != 36 || [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
            return Err(StoredValueError::PgTextFormat);
        }
        text
    } else {
        text.strip_prefix(b"\\x")
            .filter(|hex| hex.len() == 32)
            .ok_or(StoredValueError::PgTextFormat)?
    };
    let mut value: u128 = 0;
    for &b in digits.iter().filter(|&&b| !(uuid && b == b'-')) {
        let nibble = (b as char)
            .to_digit(16)
            .ok_or(StoredValueError::PgTextFormat)?;
        value = (value << 4) | u128::from(nibble);
    }
    Ok(Scru128Id::from_u128(value))
}

#[cfg(all(test, feature = "sqlx-postgres"))]
mod tests {
    use super::{StoredValueError, from_pg_hex};

    #[test]
    fn reads_postgres_hex_text() {
        let id = crate::Scru128Id::from_u128(0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84);
        assert_eq!(
            from_pg_hex(b"00cc22a9-8f49-faa6-7978-d9D2E2BF2A84", true),
            Ok(id)
        );
        assert_eq!(
            from_pg_hex(b"\\x00cc22a98f49faa67978d9d2e2bf2a84", false),
            Ok(id)
        );
        for (bad, uuid) in [
            (&b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a8"[..], true),
            (b"00cc22a9+8f49-faa6-7978-d9d2e2bf2a84", true),
            (b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a8g", true),
            (b"00cc22a98f49faa67978d9d2e2bf2a84", false),
            (b"\\x00cc22a98f49faa67978d9d2e2bf2a", false),
        ] {
            assert_eq!(
                from_pg_hex(bad, uuid),
                Err(StoredValueError::PgTextFormat),
                "{bad:?}"
            );
        }
    }
}
