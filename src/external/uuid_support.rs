//! `From` conversions between [`Scru128Id`] and [`uuid::Uuid`] (feature `uuid`).
//!
//! Both are 128 bits stored as 16 big-endian bytes, so the conversion copies the bytes:
//! lossless both ways, and the order of the IDs is the order of the UUIDs (`Uuid`'s
//! `Ord` compares the bytes). The result is **not** an RFC 9562 UUID: a SCRU128 ID has
//! no version or variant bits (those positions hold timestamp, counter and random
//! bits), so `Uuid::get_version()` of a converted ID is meaningless. It is a 128-bit
//! value in a UUID container, which is what a database `uuid` column stores: PostgreSQL
//! keeps the 16 bytes as they are, never checks version or variant, and compares `uuid`
//! values byte by byte (`memcmp`), so `ORDER BY` and range queries on a `uuid` column
//! holding SCRU128 IDs follow the IDs' order.

use crate::Scru128Id;

/// The same 128 bits as a [`uuid::Uuid`]: lossless and order-preserving.
///
/// The result has no meaningful RFC 9562 version or variant; see the
/// [crate docs](crate#features). Its hyphenated form is the 32 hex digits of the ID.
///
/// ```
/// use scru128::Scru128Id;
///
/// let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse()?;
/// let uuid = uuid::Uuid::from(id);
/// assert_eq!(uuid.to_string(), "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84");
/// assert_eq!(uuid.as_bytes(), id.as_bytes());
/// assert_eq!(Scru128Id::from(uuid), id);
///
/// let later = Scru128Id::from_u128(id.as_u128() + 1);
/// assert!(uuid::Uuid::from(later) > uuid); // same order
/// # Ok::<(), scru128::ParseError>(())
/// ```
impl From<Scru128Id> for uuid::Uuid {
    #[inline]
    fn from(id: Scru128Id) -> Self {
        uuid::Uuid::from_bytes(id.to_bytes())
    }
}

/// The same 128 bits as a [`Scru128Id`], whatever the UUID's version: lossless.
///
/// Meant for reading back IDs that were stored as UUIDs. A UUID that was not made from
/// a SCRU128 ID converts too, but its "fields" are whatever its bits happen to be.
///
/// ```
/// use scru128::Scru128Id;
///
/// let uuid = uuid::Uuid::parse_str("00cc22a9-8f49-faa6-7978-d9d2e2bf2a84")?;
/// let id = Scru128Id::from(uuid);
/// assert_eq!(id.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
/// assert_eq!(id.as_u128(), uuid.as_u128());
/// # Ok::<(), uuid::Error>(())
/// ```
impl From<uuid::Uuid> for Scru128Id {
    #[inline]
    fn from(uuid: uuid::Uuid) -> Self {
        Scru128Id::from_bytes(uuid.into_bytes())
    }
}
