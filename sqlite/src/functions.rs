//! The SQL functions, on SQLite values already read: what each returns, and the error
//! text for every input it refuses. No FFI here (`lib.rs` reads the arguments and sets
//! the results), so all of it runs in unit tests.

use scru128::{EncodedId, EncodedUuid, RangeError, Scru128Id};

use crate::time;

/// An argument as SQLite holds it.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Null,
    Integer(i64),
    Real,
    Text(&'a [u8]),
    Blob(&'a [u8]),
    /// A BLOB not read, of this many bytes (not 16: not an ID).
    BlobOfLength(usize),
}

impl Arg<'_> {
    /// The storage class, as `typeof()` writes it.
    fn type_name(&self) -> &'static str {
        match self {
            Self::Null => "NULL",
            Self::Integer(_) => "INTEGER",
            Self::Real => "REAL",
            Self::Text(_) => "TEXT",
            Self::Blob(_) | Self::BlobOfLength(_) => "BLOB",
        }
    }
}

/// A result, kept on the stack until SQLite copies it.
#[derive(Debug, PartialEq, Eq)]
pub enum Out {
    Null,
    Integer(i64),
    Text(EncodedId),
    Uuid(EncodedUuid),
    DateTime([u8; 23]),
    Blob([u8; 16]),
}

/// What went wrong, for the error message (the caller puts the function's name first).
pub type Fail = String;

/// The ID in a TEXT (26 base-32 digits, 32 hex digits or the UUID form, either case) or
/// a 16-byte BLOB; `None` for NULL.
///
/// # Errors
///
/// Another type, a BLOB of another length, or text that is none of the forms: the
/// message says which, and for text the library's reason (length, or the character
/// and its position).
pub fn id_arg(arg: Arg<'_>) -> Result<Option<Scru128Id>, Fail> {
    match arg {
        Arg::Null => Ok(None),
        Arg::Text(text) => id_from_text(text).map(Some),
        Arg::Blob(bytes) => match <[u8; 16]>::try_from(bytes) {
            Ok(bytes) => Ok(Some(Scru128Id::from_bytes(bytes))),
            Err(_) => Err(blob_length(bytes.len())),
        },
        Arg::BlobOfLength(len) => Err(blob_length(len)),
        Arg::Integer(_) | Arg::Real => Err(format!(
            "expected an ID as TEXT or a 16-byte BLOB, found {}",
            arg.type_name()
        )),
    }
}

fn blob_length(len: usize) -> Fail {
    format!(
        "expected a 16-byte BLOB, found {len} byte{}",
        if len == 1 { "" } else { "s" }
    )
}

/// Parses the three text forms, fast on the lengths that can be right; the error path
/// counts characters (as the library's messages do) to pick the form to blame.
fn id_from_text(text: &[u8]) -> Result<Scru128Id, Fail> {
    let fast = match text.len() {
        26 => Scru128Id::try_from_ascii(text).ok(),
        32 => Scru128Id::try_from_hex_ascii(text).ok(),
        36 => Scru128Id::try_from_uuid_ascii(text).ok(),
        _ => None,
    };
    if let Some(id) = fast {
        return Ok(id);
    }
    // Characters, counting each byte that is not part of a UTF-8 character as one.
    let chars: usize = text
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
        .sum();
    let err = match (core::str::from_utf8(text), chars) {
        (Ok(s), 26) => Scru128Id::try_from_str(s).unwrap_err(),
        (Ok(s), 32) => Scru128Id::try_from_hex(s).unwrap_err(),
        (Ok(s), 36) => Scru128Id::try_from_uuid_str(s).unwrap_err(),
        (Err(_), 26) => Scru128Id::try_from_ascii(text).unwrap_err(),
        (Err(_), 32) => Scru128Id::try_from_hex_ascii(text).unwrap_err(),
        (Err(_), 36) => Scru128Id::try_from_uuid_ascii(text).unwrap_err(),
        _ => {
            return Err(format!(
                "invalid length: expected 26 characters (or 32 hex digits, or 36 in the \
                 UUID form), found {chars}"
            ));
        }
    };
    Err(err.to_string())
}

/// `scru128_text(x)`: the canonical 26 digits.
pub fn text(arg: Arg<'_>) -> Result<Out, Fail> {
    Ok(id_arg(arg)?.map_or(Out::Null, |id| Out::Text(id.encode())))
}

/// `scru128_to_blob(x)`: the 16 bytes, big-endian.
pub fn to_blob(arg: Arg<'_>) -> Result<Out, Fail> {
    Ok(id_arg(arg)?.map_or(Out::Null, |id| Out::Blob(id.to_bytes())))
}

/// `scru128_uuid(x)`: the 8-4-4-4-12 hex form, lowercase.
pub fn uuid(arg: Arg<'_>) -> Result<Out, Fail> {
    Ok(id_arg(arg)?.map_or(Out::Null, |id| Out::Uuid(id.encode_uuid())))
}

/// `scru128_timestamp_ms(x)`: Unix milliseconds.
pub fn timestamp_ms(arg: Arg<'_>) -> Result<Out, Fail> {
    // At most 2^44 - 1 + TIMESTAMP_BIAS: far inside i64.
    Ok(id_arg(arg)?.map_or(Out::Null, |id| Out::Integer(id.unix_ts_ms() as i64)))
}

/// `scru128_datetime(x)`: `YYYY-MM-DD HH:MM:SS.SSS`, UTC.
pub fn datetime(arg: Arg<'_>) -> Result<Out, Fail> {
    Ok(id_arg(arg)?.map_or(Out::Null, |id| {
        Out::DateTime(time::format_datetime(id.unix_ts_ms()))
    }))
}

/// `scru128_is_valid(x)`: 1 for an ID in any accepted form, 0 for anything else, NULL
/// for NULL.
#[allow(clippy::unnecessary_wraps)] // the signature every one-argument function has
pub fn is_valid(arg: Arg<'_>) -> Result<Out, Fail> {
    Ok(match arg {
        Arg::Null => Out::Null,
        arg => Out::Integer(i64::from(id_arg(arg).is_ok())),
    })
}

/// `scru128_min(t)`: the smallest ID of the millisecond of `t`.
pub fn min(arg: Arg<'_>) -> Result<Out, Fail> {
    bound(arg, Scru128Id::try_min_at_unix_ts_ms)
}

/// `scru128_max(t)`: the largest ID of the millisecond of `t`.
pub fn max(arg: Arg<'_>) -> Result<Out, Fail> {
    bound(arg, Scru128Id::try_max_at_unix_ts_ms)
}

fn bound(arg: Arg<'_>, at: fn(u64) -> Result<Scru128Id, RangeError>) -> Result<Out, Fail> {
    let unix_ms = match arg {
        Arg::Null => return Ok(Out::Null),
        Arg::Integer(ms) => ms,
        Arg::Text(text) => {
            time::parse_time(text).map_err(|err| format!("{} {err}", quoted(text)))?
        }
        Arg::Real | Arg::Blob(_) | Arg::BlobOfLength(_) => {
            return Err(format!(
                "expected unix milliseconds as INTEGER or a time string as TEXT, found {}{}",
                arg.type_name(),
                if matches!(arg, Arg::Real) {
                    " (CAST it AS INTEGER for unix milliseconds)"
                } else {
                    ""
                }
            ));
        }
    };
    let result = match u64::try_from(unix_ms) {
        Ok(ms) => at(ms).map_err(|err| err.to_string()),
        Err(_) => Err(format!(
            "unix time {unix_ms} ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus \
             2^44-1 ms)"
        )),
    };
    match (result, arg) {
        (Ok(id), _) => Ok(Out::Text(id.encode())),
        (Err(err), Arg::Text(text)) => Err(format!("{}: {err}", quoted(text))),
        (Err(err), _) => Err(err),
    }
}

/// `text` in single quotes for a message, cut after 40 characters.
fn quoted(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(40).collect();
    let more = if chars.next().is_some() { "..." } else { "" };
    format!("'{}{more}'", head.escape_debug())
}

/// `scru128()`: a new ID from the process-wide generator, as text.
pub fn generate_text() -> Out {
    Out::Text(scru128::scru128().encode())
}

/// `scru128_blob()`: a new ID from the process-wide generator, as 16 bytes.
pub fn generate_blob() -> Out {
    Out::Blob(scru128::scru128().to_bytes())
}

#[cfg(test)]
mod tests {
    use scru128::Scru128Id;

    use super::{Arg, Out, id_arg, is_valid, max, min, text, timestamp_ms, uuid};

    const ID: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";

    fn id() -> Scru128Id {
        ID.parse().unwrap()
    }

    fn err(result: Result<impl core::fmt::Debug, String>) -> String {
        result.unwrap_err()
    }

    #[test]
    fn the_three_text_forms_and_the_blob() {
        let hex = id().encode_hex();
        let uuid_text = id().encode_uuid();
        for form in [
            ID.as_bytes(),
            ID.to_ascii_lowercase().as_bytes(),
            hex.as_bytes(),
            hex.to_ascii_uppercase().as_bytes(),
            uuid_text.as_bytes(),
            &id().to_bytes()[..],
        ] {
            let arg = if form.len() == 16 {
                Arg::Blob(form)
            } else {
                Arg::Text(form)
            };
            assert_eq!(id_arg(arg), Ok(Some(id())));
            assert_eq!(text(arg), Ok(Out::Text(id().encode())));
            assert_eq!(uuid(arg), Ok(Out::Uuid(id().encode_uuid())));
            assert_eq!(is_valid(arg), Ok(Out::Integer(1)));
        }
        assert_eq!(text(Arg::Null), Ok(Out::Null));
        assert_eq!(is_valid(Arg::Null), Ok(Out::Null));
        assert_eq!(
            timestamp_ms(Arg::Text(ID.as_bytes())),
            Ok(Out::Integer(1_632_633_979_124))
        );
    }

    #[test]
    fn messages_name_what_is_wrong() {
        let cases: &[(Arg<'_>, &str)] = &[
            (
                Arg::Integer(5),
                "expected an ID as TEXT or a 16-byte BLOB, found INTEGER",
            ),
            (
                Arg::Real,
                "expected an ID as TEXT or a 16-byte BLOB, found REAL",
            ),
            (
                Arg::Blob(&[0; 15]),
                "expected a 16-byte BLOB, found 15 bytes",
            ),
            (Arg::Blob(&[0]), "expected a 16-byte BLOB, found 1 byte"),
            (
                Arg::BlobOfLength(1_000_000_000),
                "expected a 16-byte BLOB, found 1000000000 bytes",
            ),
            (
                Arg::BlobOfLength(0),
                "expected a 16-byte BLOB, found 0 bytes",
            ),
            (
                Arg::Text(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK"),
                "invalid length: expected 26 characters (or 32 hex digits, or 36 in the UUID \
                 form), found 25",
            ),
            (
                Arg::Text(b""),
                "invalid length: expected 26 characters (or 32 hex digits, or 36 in the UUID \
                 form), found 0",
            ),
            (
                Arg::Text(b"00PGHAJ3Q9-AJ7IU6PQBHBUAK4"),
                "invalid digit '-' at position 10: expected 0-9 or A-V in either case",
            ),
            (
                Arg::Text("00PGHAJ3Q9VAJ7IU6PQBHBUAKé".as_bytes()),
                "invalid digit 'é' at position 25: expected 0-9 or A-V in either case",
            ),
            (
                Arg::Text(b"00PGHAJ3Q9VAJ7IU6PQBHBUA\xff4"),
                "invalid byte 0xff at position 24: expected 0-9 or A-V in either case",
            ),
            (
                Arg::Text(b"80000000000000000000000000"),
                "out of range: the first digit is '8', above the largest allowed '7'",
            ),
        ];
        for (arg, message) in cases {
            assert_eq!(&err(text(*arg)), message, "{arg:?}");
            assert_eq!(is_valid(*arg), Ok(Out::Integer(0)), "{arg:?}");
        }
        let hex = err(text(Arg::Text(b"00cc22a98f49faa67978d9d2e2bf2a8g")));
        assert!(hex.contains("'g' at position 31"), "{hex}");
        let uuid = err(text(Arg::Text(b"00cc22a9-8f49-faa6-7978xd9d2e2bf2a84")));
        assert!(uuid.contains("position 23"), "{uuid}");
    }

    #[test]
    fn bounds_of_a_millisecond() {
        let lo = Scru128Id::try_min_at_unix_ts_ms(1_767_225_600_000).unwrap();
        let hi = Scru128Id::try_max_at_unix_ts_ms(1_767_225_600_000).unwrap();
        assert_eq!(
            min(Arg::Integer(1_767_225_600_000)),
            Ok(Out::Text(lo.encode()))
        );
        assert_eq!(min(Arg::Text(b"2026-01-01")), Ok(Out::Text(lo.encode())));
        assert_eq!(
            max(Arg::Text(b"2026-01-01T00:00:00.000Z")),
            Ok(Out::Text(hi.encode()))
        );
        assert_eq!(min(Arg::Null), Ok(Out::Null));
        let range = "is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)";
        assert_eq!(err(min(Arg::Integer(0))), format!("unix time 0 ms {range}"));
        assert_eq!(
            err(min(Arg::Integer(-5))),
            format!("unix time -5 ms {range}")
        );
        assert_eq!(
            err(max(Arg::Text(b"2019-12-31 23:59:59.999"))),
            format!("'2019-12-31 23:59:59.999': unix time 1577836799999 ms {range}")
        );
        assert_eq!(
            err(min(Arg::Real)),
            "expected unix milliseconds as INTEGER or a time string as TEXT, found REAL \
             (CAST it AS INTEGER for unix milliseconds)"
        );
        assert!(err(min(Arg::Blob(b"x"))).ends_with("found BLOB"));
        assert!(err(max(Arg::BlobOfLength(17))).ends_with("found BLOB"));
        assert!(err(min(Arg::Text(b"now"))).starts_with("'now' is not a fixed time"));
        assert!(
            err(min(Arg::Text(b"1714521600000"))).contains("pass unix milliseconds as INTEGER")
        );
        let long = err(min(Arg::Text(&[b'x'; 100])));
        assert!(
            long.starts_with(&format!("'{}...' is not a time", "x".repeat(40))),
            "{long}"
        );
    }
}
