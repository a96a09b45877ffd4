//! `Serialize`/`Deserialize` for [`Scru128Id`] (feature `serde`).
//!
//! Written as scru128 1.0.0 writes it: the canonical 26-digit string, in every format,
//! human-readable (JSON, TOML, YAML…) or binary (bincode, postcard, CBOR…). So data
//! this crate writes by default reads back in services still on 1.0.0, and the other
//! way round. Reading accepts, as far as the format lets a reader see what it holds,
//! the string in either case, 16 bytes, 26 bytes of text (how a string looks to a
//! binary format that does not tell them apart) and an integer.
//!
//! Use [`bytes`] with `#[serde(with = "scru128::serde::bytes")]` to write the 16
//! big-endian bytes instead (10 bytes less per ID in a binary format, but unreadable
//! by 1.0.0), [`string`] to say "the string" explicitly, and [`any`] to read every form
//! from a self-describing format.
//!
//! What each kind of format reads by default (`tests/serde_formats.rs` checks every
//! cell with `serde_json`, bincode 2, postcard and ciborium; `compare/tests/serde_1_0.rs`
//! checks it against the real 1.0.0):
//!
//! | stored as | JSON (human-readable) | bincode, postcard | CBOR (ciborium) |
//! | --- | --- | --- | --- |
//! | string, any case (written by default, and by 1.0.0) | yes | yes | yes |
//! | 16 bytes ([`bytes`]) | yes (array of numbers) | yes | yes |
//! | integer | up to `u64::MAX`[^json] | **no**[^layout] | yes, all 128 bits |
//!
//! [^json]: `serde_json` (without its `arbitrary_precision` feature) reads larger
//!     numbers as floating point, which is refused.
//! [^layout]: A non-self-describing format cannot tell a reader what it holds, so the
//!     reader asks for bytes (text and bytes share one layout there), and a `u128`
//!     written in their place is misread or refused (an error, never a panic). Store a
//!     `u128` field and convert, if you must.
//!
//! How a format is read: serde gives a type no way to ask whether a format is
//! self-describing. A human-readable format is (JSON, TOML, YAML…), so the reader asks
//! it what the data holds. Bincode and postcard are not, and refuse to be asked, so in
//! a binary format the reader asks for bytes (which also reads their strings). Two
//! kinds of deserializer, recognised by their type's name, are asked what they hold
//! without more: those of the CBOR crates `ciborium` and `serde_cbor` (which refuse a
//! text string where bytes are asked for, so 1.0.0's CBOR needs it), and those of
//! `serde_test` (self-describing too, and they panic when asked whether they are
//! human-readable unless the test says: 1.0.0's own serde test, and users' tests
//! written for 1.0.0, never say, since 1.0.0 never asked). For another self-describing
//! binary format that refuses text as bytes, read with [`any`].

use core::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::Scru128Id;

impl Serialize for Scru128Id {
    /// The canonical 26-digit string, in every format (as scru128 1.0.0).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.encode())
    }
}

impl<'de> serde::Deserialize<'de> for Scru128Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if describes_itself::<D>() || deserializer.is_human_readable() {
            deserializer.deserialize_any(IdVisitor)
        } else {
            // Non-self-describing formats need a hint; text and bytes share one layout
            // in bincode and postcard, so strings (1.0.0's and ours) arrive here too.
            deserializer.deserialize_bytes(IdVisitor)
        }
    }
}

/// Whether `D` is one of the deserializers that are asked what they hold without being
/// asked whether they are human-readable (see the module docs). `type_name` is a
/// `&'static str` of the monomorphised type, so this costs a few byte comparisons; a
/// wrapper around such a deserializer names it too.
fn describes_itself<D>() -> bool {
    let name = core::any::type_name::<D>();
    ["ciborium::", "serde_cbor::", "serde_test::"]
        .iter()
        .any(|krate| name.contains(krate))
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

/// `#[serde(with = "scru128::serde::string")]`: the canonical 26-digit string, as the
/// default impl writes it, but read only as a string (in either case).
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

/// `#[serde(with = "scru128::serde::bytes")]`: the 16 big-endian bytes, in every format
/// (in a human-readable one they may appear as an array of numbers). Opt-in: scru128
/// 1.0.0 cannot read this form.
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

/// `#[serde(with = "scru128::serde::any")]`: writes like the default impl (the string)
/// and reads every form a **self-describing** format can hold: the string in either
/// case, 16 bytes, 26 bytes of text, an integer up to 128 bits (a CBOR bignum too) and a
/// sequence of 16 numbers, whatever the format's type is called.
///
/// The default impl does the same for JSON and the CBOR crates it recognises; use this
/// for another self-describing binary format (or a wrapper around one) that refuses
/// text where bytes are asked for. Not for bincode or postcard: they cannot say what
/// they hold and refuse (with an error) to be asked.
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
    fn binary_is_the_canonical_string_and_reads_sixteen_bytes() {
        let id = Scru128Id::from_u128(VALUE);
        assert_tokens(&id.compact(), &[Token::Str(TEXT)]);
        assert_de_tokens(&id.compact(), &[Token::Bytes(&BYTES)]);
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
