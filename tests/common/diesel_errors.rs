//! What the diesel tests share: finding the library's error inside diesel's.

use diesel::result::{DeserializeFieldError, Error};
use scru128::StoredValueError;

/// The `StoredValueError` of a failed read: diesel's deserialization error, or the
/// source of the error diesel gives for one field of a row.
pub fn stored_error(err: &Error) -> Option<StoredValueError> {
    let Error::DeserializationError(cause) = err else {
        return None;
    };
    match cause.downcast_ref::<DeserializeFieldError>() {
        Some(field) => field.error.downcast_ref().cloned(),
        None => cause.downcast_ref().cloned(),
    }
}
