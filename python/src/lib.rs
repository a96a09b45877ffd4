//! `scru128._scru128`: the native part of the Python package `scru128`, a drop-in
//! replacement of PyPI `scru128` 1.0.1 on the codec and generators of the `scru128`
//! crate. `scru128/__init__.py` re-exports it; the types say they live in `scru128`,
//! so that pickles name `scru128.Scru128Id` as 1.0.1's do.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

mod failures;
mod generator;
mod id;
mod ints;

use generator::PyScru128Generator;
use id::PyScru128Id;

/// Generates a new SCRU128 ID object.
///
/// Thread safe: each thread's IDs increase; parent and child never repeat each
/// other's IDs after `os.fork()`.
#[pyfunction(name = "scru128")]
fn generate_id(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    match default_generator::replacement(py)? {
        None => Ok(Bound::new(py, PyScru128Id::from_id(failures::global_id()?))?.into_any()),
        Some(generator) => generator.call_method0(pyo3::intern!(py, "generate")),
    }
}

/// Generates a new SCRU128 ID encoded in the 26-digit canonical string
/// representation.
#[pyfunction(name = "scru128_string")]
fn generate_string(py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
    match default_generator::replacement(py)? {
        None => Ok(PyString::new(py, failures::global_id()?.encode().as_str())),
        Some(generator) => generator.call_method0(pyo3::intern!(py, "generate"))?.str(),
    }
}

/// Generates `n` new IDs as a list of 26-digit strings, in increasing order: much
/// faster per ID than calling `scru128_string()` `n` times.
#[pyfunction(name = "scru128_strings")]
fn generate_strings<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let n = ints::count(n)?;
    match default_generator::replacement(py)? {
        None => {
            let ids = failures::global_ids(n)?;
            PyList::new(
                py,
                ids.iter().map(|id| PyString::new(py, id.encode().as_str())),
            )
        }
        Some(generator) => {
            let list = PyList::empty(py);
            for _ in 0..n {
                list.append(
                    generator
                        .call_method0(pyo3::intern!(py, "generate"))?
                        .str()?,
                )?;
            }
            Ok(list)
        }
    }
}

/// In 1.0.1, `scru128()` called `scru128.default_generator.generate()`, looking the
/// name up at each call, so assigning another generator to it (a test's fixed random
/// source, say) changed what `scru128()` returned. The same here: the package's module
/// tells [`set`] of each assignment to `default_generator` (its `__setattr__`), and
/// the functions above check one flag per call.
mod default_generator {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    use pyo3::exceptions::PyNameError;
    use pyo3::prelude::*;
    use pyo3::sync::PyOnceLock;

    use crate::generator::PyScru128Generator;

    /// The process-wide generator's object, the original `default_generator`.
    static ORIGINAL: PyOnceLock<Py<PyScru128Generator>> = PyOnceLock::new();
    /// Whether `default_generator` is something else now (or was deleted).
    static REPLACED: AtomicBool = AtomicBool::new(false);
    /// What it is then; `None` once deleted.
    static CURRENT: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

    pub fn set_original(generator: &Bound<'_, PyScru128Generator>) {
        let _ = ORIGINAL.set(generator.py(), generator.clone().unbind());
    }

    /// Records an assignment to `scru128.default_generator` (`None`: a deletion).
    #[pyfunction]
    #[pyo3(name = "_set_default_generator")]
    pub fn set(py: Python<'_>, value: Option<Bound<'_, PyAny>>) {
        let original = ORIGINAL
            .get(py)
            .is_some_and(|o| value.as_ref().is_some_and(|v| v.is(o)));
        let mut current = CURRENT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *current = if original {
            None
        } else {
            value.map(Bound::unbind)
        };
        REPLACED.store(!original, Ordering::Release);
    }

    /// `None` while `scru128.default_generator` is the original; else what it is now.
    #[inline]
    pub fn replacement(py: Python<'_>) -> PyResult<Option<Bound<'_, PyAny>>> {
        if !REPLACED.load(Ordering::Acquire) {
            return Ok(None);
        }
        let current = CURRENT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*current {
            Some(generator) => Ok(Some(generator.bind(py).clone())),
            None => Err(PyNameError::new_err(
                "name 'default_generator' is not defined",
            )),
        }
    }
}

#[pymodule]
fn _scru128(m: &Bound<'_, PyModule>) -> PyResult<()> {
    failures::quiet_library_panics();
    m.add("TIMESTAMP_BIAS", ::scru128::TIMESTAMP_BIAS)?;
    m.add("MAX_COUNTER", ::scru128::MAX_COUNTER)?;
    m.add_class::<PyScru128Id>()?;
    // A plain function rather than a class method on the class itself (see
    // `id::from_str`). Also an attribute of this module (not in its `__all__`), where
    // pickle finds a function by its name: `pickle.dumps(Scru128Id.from_str)` works,
    // as with 1.0.1 (`multiprocessing` pickles the functions it maps).
    let id_class = m.py().get_type::<PyScru128Id>();
    let from_str = wrap_pyfunction!(id::from_str, m)?;
    id_class.setattr("from_str", &from_str)?;
    m.setattr("from_str", from_str)?;
    m.add_class::<PyScru128Generator>()?;
    let process_wide = PyScru128Generator::process_wide(m.py())?;
    default_generator::set_original(&process_wide);
    m.add("default_generator", process_wide)?;
    m.add_function(wrap_pyfunction!(generate_id, m)?)?;
    m.add_function(wrap_pyfunction!(generate_string, m)?)?;
    m.add_function(wrap_pyfunction!(generate_strings, m)?)?;
    m.add_function(wrap_pyfunction!(default_generator::set, m)?)?;
    Ok(())
}
