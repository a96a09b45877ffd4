//! [`Scru128`], the Rust side of the SQL type `scru128`: 16 bytes, big-endian, passed by
//! reference (`INTERNALLENGTH = 16`, `ALIGNMENT = char`), the layout of `uuid`.

use pgrx::callconv::{Arg, ArgAbi, BoxRet, FcInfo};
use pgrx::datum::Datum;
use pgrx::{FromDatum, IntoDatum, pg_sys};
use scru128::Scru128Id;

/// A `scru128` datum: the ID's 16 bytes as PostgreSQL stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Scru128(pub Scru128Id);

/// Length of a `scru128` value in bytes.
pub const LEN: usize = 16;

impl FromDatum for Scru128 {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _typoid: pg_sys::Oid,
    ) -> Option<Self> {
        let ptr = datum.cast_mut_ptr::<[u8; LEN]>();
        if is_null || ptr.is_null() {
            return None;
        }
        // SAFETY: a non-null datum of type `scru128` points at its 16 bytes (a fixed-length
        // type passed by reference); `[u8; 16]` has alignment 1, as `ALIGNMENT = char`
        // promises nothing more. Exercised by every function that takes a `scru128`.
        let bytes = unsafe { ptr.read() };
        Some(Self(Scru128Id::from_bytes(bytes)))
    }
}

impl IntoDatum for Scru128 {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        // SAFETY: `palloc` allocates in the current memory context, which is valid
        // during a function call; it returns LEN writable bytes or raises an ERROR.
        // Exercised by every function that returns a `scru128`.
        let ptr = unsafe { pg_sys::palloc(LEN) }.cast::<[u8; LEN]>();
        // SAFETY: `ptr` is valid for LEN bytes, alignment 1.
        unsafe { ptr.write(self.0.to_bytes()) };
        Some(pg_sys::Datum::from(ptr))
    }

    /// The OID differs per database and nothing in this extension needs it (it builds no
    /// arrays or SPI arguments of the type), so none is given.
    fn type_oid() -> pg_sys::Oid {
        pg_sys::InvalidOid
    }
}

// SAFETY: the SQL declarations (src/scru128.sql) give every function that takes a
// `scru128` that type, so the datum is a pointer to 16 bytes.
unsafe impl<'fcx> ArgAbi<'fcx> for Scru128 {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: as above.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the returned datum is a palloc'd 16-byte value, what `scru128` is.
unsafe impl BoxRet for Scru128 {
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> Datum<'fcx> {
        match self.into_datum() {
            // SAFETY: the datum is the function's result, of the declared type.
            Some(datum) => unsafe { fcinfo.return_raw_datum(datum) },
            None => fcinfo.return_null(),
        }
    }
}

pgrx::impl_sql_translatable!(Scru128, "scru128");

/// A `cstring` result: the 26 digits and a NUL, written straight into palloc'd memory
/// (the type's output function runs once per row sent as text).
pub struct CText(pub scru128::EncodedId);

// SAFETY: the returned datum points at a NUL-terminated palloc'd string.
unsafe impl BoxRet for CText {
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> Datum<'fcx> {
        let digits = self.0.as_bytes();
        // SAFETY: palloc as in `into_datum`; 27 bytes: 26 digits and the NUL.
        let ptr = unsafe { pg_sys::palloc(digits.len() + 1) }.cast::<u8>();
        // SAFETY: `ptr` is valid for 27 bytes and does not overlap `digits`.
        unsafe {
            ptr.copy_from_nonoverlapping(digits.as_ptr(), digits.len());
            ptr.add(digits.len()).write(0);
            fcinfo.return_raw_datum(pg_sys::Datum::from(ptr))
        }
    }
}

pgrx::impl_sql_translatable!(CText, "cstring");
