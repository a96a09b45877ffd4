//! Integer arguments checked the way 1.0.1 checked them, so that the same inputs give
//! the same exception types.
//!
//! 1.0.1 tested a value with the chained comparison `0 <= value <= max` (a
//! `TypeError` for values that do not compare with `int`, a `ValueError` when it is
//! false) and only then used it as an integer (a `TypeError` for a float or a
//! `Decimal` that passed the comparison).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// The outcome of 1.0.1's range test for one value.
pub enum Checked {
    /// An `int` (or an `int` subclass such as `bool`) in range.
    Int(u128),
    /// Not an `int`, but `0 <= value <= max` held: 1.0.1 failed later, when it used
    /// it as an integer, unless it has `__index__` (a NumPy integer).
    NotInt,
}

/// 1.0.1's `0 <= value <= max`; `message` is the `ValueError`'s when it is false.
pub fn check_range(
    value: &Bound<'_, PyAny>,
    max: u128,
    message: &'static str,
) -> PyResult<Checked> {
    if let Ok(int) = value.cast::<PyInt>() {
        return match int.extract::<u128>() {
            Ok(v) if v <= max => Ok(Checked::Int(v)),
            _ => Err(PyValueError::new_err(message)),
        };
    }
    // In 1.0.1's order, for the same error messages: `0 <= value`, then `value <= max`.
    let zero = 0u8.into_pyobject(value.py())?;
    if zero.le(value)? && value.le(max)? {
        Ok(Checked::NotInt)
    } else {
        Err(PyValueError::new_err(message))
    }
}

/// The integer value of something that passed [`check_range`] without being an
/// `int`: its `__index__`, or a `TypeError`.
pub fn index_value(value: &Bound<'_, PyAny>, max: u128, message: &'static str) -> PyResult<u128> {
    let not_int = || {
        let type_name = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("an integer is required, not '{type_name}'"))
    };
    let py = value.py();
    let index = PyModule::import(py, "operator")?
        .getattr("index")?
        .call1((value,))
        .map_err(|_| not_int())?;
    match index.cast::<PyInt>() {
        Ok(int) => match int.extract::<u128>() {
            Ok(v) if v <= max => Ok(v),
            _ => Err(PyValueError::new_err(message)),
        },
        Err(_) => Err(not_int()),
    }
}

/// A value in `0..=max` checked as 1.0.1 did: [`check_range`], then [`index_value`].
pub fn int_in_range(value: &Bound<'_, PyAny>, max: u128, message: &'static str) -> PyResult<u128> {
    match check_range(value, max, message)? {
        Checked::Int(v) => Ok(v),
        Checked::NotInt => index_value(value, max, message),
    }
}

/// The `n` of a batch: a non-negative integer.
pub fn count(n: &Bound<'_, PyAny>) -> PyResult<usize> {
    let int = n
        .cast::<PyInt>()
        .map_err(|_| PyTypeError::new_err("the number of IDs must be an int"))?;
    if int.lt(0)? {
        return Err(PyValueError::new_err(
            "the number of IDs must not be negative",
        ));
    }
    int.extract::<usize>()
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("too many IDs"))
}
