//! `arbitrary::Arbitrary` for [`Scru128Id`] (feature `arbitrary`), for fuzz targets and
//! property tests whose inputs hold IDs.

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::Scru128Id;

/// Any 128-bit value, reserved timestamps (0 and 2^44−1), `MIN` and `MAX` included:
/// the next 16 bytes of the input are the ID's big-endian bytes, so a fuzzer's byte
/// mutations map straight onto the fields (the first bytes are the timestamp). Like
/// the integers' `Arbitrary`, an input that runs out gives zero bytes, not an error.
///
/// ```
/// use arbitrary::{Arbitrary, Unstructured};
/// use scru128::Scru128Id;
///
/// let bytes = [0xff; 16];
/// let id = Scru128Id::arbitrary(&mut Unstructured::new(&bytes))?;
/// assert_eq!(id, Scru128Id::MAX);
/// assert_eq!(id.timestamp(), scru128::MAX_TIMESTAMP); // reserved, but a value all the same
/// # Ok::<(), arbitrary::Error>(())
/// ```
impl<'a> Arbitrary<'a> for Scru128Id {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        <[u8; 16]>::arbitrary(u).map(Self::from_bytes)
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (16, Some(16))
    }
}
