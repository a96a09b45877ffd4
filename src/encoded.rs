//! [`EncodedText`], the stack-held text of an ID in one of its forms, and its names
//! per form: [`EncodedId`] (26 base-32 digits), [`EncodedHex`] (32 hex digits) and
//! [`EncodedUuid`] (8-4-4-4-12).

use core::fmt;

/// The text of a [`Scru128Id`](crate::Scru128Id) in one of its forms, `N` ASCII
/// characters held on the stack (no allocation).
///
/// Each form has its own name: [`EncodedId`] (26 base-32 digits, from
/// [`encode`](crate::Scru128Id::encode) and
/// [`encode_lower`](crate::Scru128Id::encode_lower)), [`EncodedHex`] (32 hex digits,
/// from [`encode_hex`](crate::Scru128Id::encode_hex)) and [`EncodedUuid`] (the
/// 8-4-4-4-12 form, from [`encode_uuid`](crate::Scru128Id::encode_uuid)). It derefs to
/// `str`, so every `&str` method works on it, and compares with `str`, `&str` and
/// `String`. Only this crate's encoders make one, so its bytes are always ASCII.
///
/// ```
/// let id = scru128::Scru128Id::MAX;
/// let text = id.encode();
/// assert_eq!(text, "7VVVVVVVVVVVVVVVVVVVVVVVVV");
/// assert!(text.starts_with('7'));
/// assert_eq!(id.encode_hex().len(), 32);
/// println!("{text} {}", id.encode_uuid());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EncodedText<const N: usize>(pub(crate) [u8; N]);

/// The 26-digit base-32 text of a [`Scru128Id`](crate::Scru128Id), held on the stack
/// (26 bytes, no allocation).
///
/// Returned by [`Scru128Id::encode`](crate::Scru128Id::encode) and
/// [`Scru128Id::encode_lower`](crate::Scru128Id::encode_lower). It derefs to `str`,
/// so every `&str` method works on it, and compares with `str`, `&str` and `String`.
///
/// ```
/// let text = scru128::Scru128Id::MAX.encode();
/// assert_eq!(text, "7VVVVVVVVVVVVVVVVVVVVVVVVV");
/// assert!(text.starts_with('7'));
/// println!("{text}");
/// ```
pub type EncodedId = EncodedText<26>;

/// The 32 lowercase hex digits of a [`Scru128Id`](crate::Scru128Id), held on the
/// stack. Returned by [`Scru128Id::encode_hex`](crate::Scru128Id::encode_hex).
///
/// ```
/// let text = scru128::Scru128Id::from_u128(0xff).encode_hex();
/// assert_eq!(text, "000000000000000000000000000000ff");
/// ```
pub type EncodedHex = EncodedText<32>;

/// The 36-character UUID form (8-4-4-4-12 lowercase hex digits) of a
/// [`Scru128Id`](crate::Scru128Id), held on the stack. Returned by
/// [`Scru128Id::encode_uuid`](crate::Scru128Id::encode_uuid).
///
/// ```
/// let text = scru128::Scru128Id::from_u128(0xff).encode_uuid();
/// assert_eq!(text, "00000000-0000-0000-0000-0000000000ff");
/// ```
pub type EncodedUuid = EncodedText<36>;

impl<const N: usize> EncodedText<N> {
    /// The text as `&str`.
    ///
    /// ```
    /// let text = scru128::Scru128Id::MIN.encode();
    /// assert_eq!(text.as_str(), "00000000000000000000000000");
    /// ```
    #[inline]
    pub const fn as_str(&self) -> &str {
        // SAFETY: an `EncodedText` is only made by this crate's encoders (`encode`,
        // `encode_lower`, `encode_hex`, `encode_uuid`), which write ASCII digits,
        // letters and hyphens, so the bytes are valid UTF-8. Skipping the check saves
        // ~90 instructions per `to_string` (compare/benches/compare.rs, `to_string()`). Tested
        // by `encoded_text_is_always_ascii` (src/id.rs) and
        // `hex_and_uuid_text_is_always_ascii` (src/hex.rs).
        unsafe { core::str::from_utf8_unchecked(&self.0) }
    }

    /// The text as `N` ASCII bytes.
    ///
    /// ```
    /// let text = scru128::Scru128Id::MIN.encode();
    /// assert_eq!(text.as_bytes(), &[b'0'; 26]);
    /// ```
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> core::ops::Deref for EncodedText<N> {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> AsRef<str> for EncodedText<N> {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> AsRef<[u8]> for EncodedText<N> {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> core::borrow::Borrow<str> for EncodedText<N> {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> fmt::Display for EncodedText<N> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl<const N: usize> fmt::Debug for EncodedText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> PartialEq<str> for EncodedText<N> {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl<const N: usize> PartialEq<&str> for EncodedText<N> {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<const N: usize> PartialEq<EncodedText<N>> for str {
    #[inline]
    fn eq(&self, other: &EncodedText<N>) -> bool {
        self == other.as_str()
    }
}

impl<const N: usize> PartialEq<EncodedText<N>> for &str {
    #[inline]
    fn eq(&self, other: &EncodedText<N>) -> bool {
        *self == other.as_str()
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> PartialEq<alloc::string::String> for EncodedText<N> {
    #[inline]
    fn eq(&self, other: &alloc::string::String) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> PartialEq<EncodedText<N>> for alloc::string::String {
    #[inline]
    fn eq(&self, other: &EncodedText<N>) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(feature = "alloc")]
impl<const N: usize> From<EncodedText<N>> for alloc::string::String {
    #[inline]
    fn from(text: EncodedText<N>) -> Self {
        Self::from(text.as_str())
    }
}
