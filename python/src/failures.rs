//! How the library's failures reach Python: as ordinary exceptions, never as a Rust
//! panic (PyO3 would raise `PanicException`, a `BaseException` that `except Exception`
//! does not catch).

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::PyErr;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use scru128::{Clock, GenerateError, Scru128Generator, Scru128Id, SystemClock};

/// A generator's error: the clock outside the SCRU128 range, or the last timestamp
/// used up. 1.0.1 raised `ValueError` for these (from `Scru128Id.from_fields`).
pub fn generate_error(err: GenerateError) -> PyErr {
    PyValueError::new_err(err.to_string())
}

pub use scru128::__private::quiet_library_panics;

/// Runs `f`, turning a panic into a `RuntimeError` with the panic's message.
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, PyErr> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_error(&*payload))
}

pub fn panic_error(payload: &(dyn Any + Send)) -> PyErr {
    let message = scru128::__private::panic_text(payload).unwrap_or("scru128: internal error");
    PyRuntimeError::new_err(message.to_owned())
}

/// A new ID from the process-wide generator.
#[inline]
pub fn global_id() -> Result<Scru128Id, PyErr> {
    catch_unwind(scru128::scru128).map_err(|payload| global_failure(&*payload))
}

/// Fills `ids` with new IDs from the process-wide generator, in increasing order.
pub fn global_fill(ids: &mut [Scru128Id]) -> Result<(), PyErr> {
    catch_unwind(AssertUnwindSafe(|| {
        for id in ids {
            *id = scru128::scru128();
        }
    }))
    .map_err(|payload| global_failure(&*payload))
}

/// The process-wide generator has no fallible form: it panics when the clock is
/// outside the SCRU128 range. Tell that case (a `ValueError`, as with the other
/// generators) from any other panic by asking a throwaway generator about the same
/// clock reading.
#[cold]
fn global_failure(payload: &(dyn Any + Send)) -> PyErr {
    let now = SystemClock.unix_ts_ms();
    let mut probe = Scru128Generator::with_rng_and_clock(|| 0u32, move || now);
    match probe.try_generate() {
        Err(err) => generate_error(err),
        Ok(_) => panic_error(payload),
    }
}
