//! `Serialize`/`Deserialize` for [`Scru128Id`] (feature `serde`).
//!
//! Human-readable formats (JSON, TOML, YAML…) get the canonical 26-digit string, as
//! scru128 1.0 wrote; binary formats (bincode, postcard, CBOR…) get the 16 big-endian
//! bytes. Reading accepts, as far as the format lets a reader see what it holds, the
//! string in either case, 16 bytes, 26 bytes of text (how 1.0 strings look to a binary
//! format) and an integer.
//!
//! Use [`string`] or [`bytes`] with `#[serde(with = "...")]` to force one form, and
//! [`any`] to read every form from a self-describing binary format such as CBOR.
//!
//! What each kind of format can read (`tests/serde_formats.rs` checks every cell with
//! `serde_json`, bincode 2, postcard and ciborium):
//!
//! | stored as | JSON (human-readable) | bincode, postcard | CBOR (ciborium) | CBOR with [`any`] |
//! | --- | --- | --- | --- | --- |
//! | string, any case (scru128 1.0 wrote this) | yes | yes (same layout as bytes) | **no** | yes |
//! | 16 bytes (written by default in binary formats) | yes (array of numbers) | yes | yes | yes |
//! | integer | up to `u64::MAX`[^json] | **no**[^layout] | **no** | yes, all 128 bits |
//!
//! [^json]: `serde_json` (without its `arbitrary_precision` feature) reads larger
//!     numbers as floating point, which is refused.
//! [^layout]: A non-self-describing format cannot tell a reader what it holds, so the
//!     reader asks for bytes and a `u128` written in their place is misread or refused
//!     (an error, never a panic). Store a `u128` field and convert, if you must.
//!
//! CBOR through ciborium is the one binary format where the default reading is not
//! enough for scru128 1.0 data: serde gives a type no way to know whether the format is
//! self-describing, so the default impl asks for bytes (what bincode and postcard
//! need), and ciborium then refuses a text string. [`any`] asks the format what it
//! holds instead, which CBOR, MessagePack and JSON can answer and bincode and postcard
//! cannot.

use core::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::Scru128Id;

impl Serialize for Scru128Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(&self.encode())
        } else {
            serializer.serialize_bytes(self.as_bytes())
        }
    }
}

impl<'de> serde::Deserialize<'de> for Scru128Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(IdVisitor)
        } else {
            // Non-self-describing formats need a hint; text and bytes share one layout
            // in bincode and postcard, so strings written by 1.0 still arrive here.
            deserializer.deserialize_bytes(IdVisitor)
        }
    }
}

/// Accepts every form a SCRU128 ID may have been stored in.
struct IdVisitor;

impl<'de> Visitor<'de> for IdVisitor {
    type Value = Scru128Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a SCRU128 ID: 26-digit string, 16 bytes or 128-bit integer")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Scru128Id, E> {
        Scru128Id::try_from_str(text).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Scru128Id, E> {
        match <[u8; 16]>::try_from(bytes) {
            Ok(array) => Ok(Scru128Id::from_bytes(array)),
            Err(_) if bytes.len() == 26 => Scru128Id::try_from_ascii(bytes).map_err(E::custom),
            Err(_) => Err(E::invalid_length(bytes.len(), &"16 bytes or 26 digits")),
        }
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Scru128Id, E> {
        Ok(Scru128Id::from_u128(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Scru128Id, E> {
        Ok(Scru128Id::from_u128(u128::from(value)))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Scru128Id, E> {
        u128::try_from(value)
            .map(Scru128Id::from_u128)
            .map_err(|_| E::invalid_value(de::Unexpected::Other("negative integer"), &self))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Scru128Id, E> {
        self.visit_i128(i128::from(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scru128Id, A::Error> {
        let mut bytes = [0u8; 16];
        for (i, slot) in bytes.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &"16 bytes"))?;
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(17, &"16 bytes"));
        }
        Ok(Scru128Id::from_bytes(bytes))
    }
}

/// `#[serde(with = "scru128::serde::string")]`: always the canonical 26-digit string,
/// also in binary formats. Reads the string in either case.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row {
///     #[serde(with = "scru128::serde::string")]
///     id: scru128::Scru128Id,
/// }
/// let row = Row { id: scru128::Scru128Id::from_u128(1) };
/// assert_eq!(serde_json::to_string(&row)?, r#"{"id":"00000000000000000000000001"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod string {
    use serde::{Deserializer, Serializer};

    use crate::Scru128Id;

    /// Serializes `id` as its canonical string.
    ///
    /// # Errors
    ///
    /// Only the serializer's own errors.
    pub fn serialize<S: Serializer>(id: &Scru128Id, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&id.encode())
    }

    /// Deserializes an ID from its string form.
    ///
    /// # Errors
    ///
    /// The deserializer's errors, and the [`ParseError`](crate::ParseError) message of
    /// an invalid string.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Scru128Id, D::Error> {
        deserializer.deserialize_str(super::IdVisitor)
    }
}

/// `#[serde(with = "scru128::serde::bytes")]`: always the 16 big-endian bytes, also in
/// human-readable formats (where they may appear as an array of numbers).
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row {
///     #[serde(with = "scru128::serde::bytes")]
///     id: scru128::Scru128Id,
/// }
/// let row = Row { id: scru128::Scru128Id::from_u128(1) };
/// let json = serde_json::to_string(&row)?;
/// assert_eq!(json, r#"{"id":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}"#);
/// assert_eq!(serde_json::from_str::<Row>(&json)?.id, row.id);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod bytes {
    use serde::{Deserializer, Serializer};

    use crate::Scru128Id;

    /// Serializes `id` as 16 big-endian bytes.
    ///
    /// # Errors
    ///
    /// Only the serializer's own errors.
    pub fn serialize<S: Serializer>(id: &Scru128Id, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(id.as_bytes())
    }

    /// Deserializes an ID from 16 bytes.
    ///
    /// # Errors
    ///
    /// The deserializer's errors, and a length error for other than 16 bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Scru128Id, D::Error> {
        deserializer.deserialize_bytes(super::IdVisitor)
    }
}

/// `#[serde(with = "scru128::serde::any")]`: writes like the default impl (the string in
/// human-readable formats, 16 bytes in binary ones) and reads every form a
/// **self-describing** format can hold: the string in either case, 16 bytes, 26 bytes
/// of text, an integer up to 128 bits (a CBOR bignum too) and a sequence of 16 numbers.
///
/// Use it to read CBOR (ciborium) or MessagePack written by scru128 1.0, which stored
/// the string. Not for bincode or postcard: they cannot say what they hold and refuse
/// (with an error) to be asked.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row {
///     #[serde(with = "scru128::serde::any")]
///     id: scru128::Scru128Id,
/// }
///
/// // CBOR of `{"id": "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"}`, as scru128 1.0 wrote it
/// let mut cbor = Vec::new();
/// ciborium::into_writer(&serde_json::json!({"id": "00PGHAJ3Q9VAJ7IU6PQBHBUAK4"}), &mut cbor)?;
/// let row: Row = ciborium::from_reader(cbor.as_slice())?;
/// assert_eq!(row.id.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub mod any {
    use serde::{Deserializer, Serialize, Serializer};

    use crate::Scru128Id;

    /// Serializes `id` as the default impl does.
    ///
    /// # Errors
    ///
    /// Only the serializer's own errors.
    pub fn serialize<S: Serializer>(id: &Scru128Id, serializer: S) -> Result<S::Ok, S::Error> {
        id.serialize(serializer)
    }

    /// Deserializes an ID from whatever form the format says it holds.
    ///
    /// # Errors
    ///
    /// The deserializer's errors (including "not supported" from a format that is not
    /// self-describing), and an error for a value that is not an ID.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Scru128Id, D::Error> {
        deserializer.deserialize_any(super::IdVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_test::{Configure, Token, assert_de_tokens, assert_de_tokens_error, assert_tokens};

    use crate::Scru128Id;

    const TEXT: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    const VALUE: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;
    const BYTES: [u8; 16] = VALUE.to_be_bytes();

    #[test]
    fn human_readable_is_the_canonical_string() {
        let id = Scru128Id::from_u128(VALUE);
        assert_tokens(&id.readable(), &[Token::Str(TEXT)]);
        assert_de_tokens(&id.readable(), &[Token::Str("00pghaj3q9vaj7iu6pqbhbuak4")]);
    }

    #[test]
    fn binary_is_sixteen_bytes_and_reads_old_strings() {
        let id = Scru128Id::from_u128(VALUE);
        assert_tokens(&id.compact(), &[Token::Bytes(&BYTES)]);
        assert_de_tokens(&id.compact(), &[Token::Bytes(TEXT.as_bytes())]);
        assert_de_tokens(&id.compact(), &[Token::Str(TEXT)]);
        assert_de_tokens(&Scru128Id::from_u128(42).compact(), &[Token::U64(42)]);
    }

    #[test]
    fn bad_values_are_errors() {
        assert_de_tokens_error::<serde_test::Readable<Scru128Id>>(
            &[Token::Str("80000000000000000000000000")],
            "out of range: the first digit is '8', above the largest allowed '7'",
        );
        assert_de_tokens_error::<serde_test::Compact<Scru128Id>>(
            &[Token::Bytes(&[0; 15])],
            "invalid length 15, expected 16 bytes or 26 digits",
        );
        assert_de_tokens_error::<serde_test::Readable<Scru128Id>>(
            &[Token::I64(-1)],
            "invalid value: negative integer, expected a SCRU128 ID: 26-digit string, 16 bytes or 128-bit integer",
        );
    }
}
