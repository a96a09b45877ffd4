//! `scru128._scru128`: the native part of the Python package `scru128`, a drop-in
//! replacement of PyPI `scru128` 1.0.1 on the codec and generators of the `scru128`
//! crate. `scru128/__init__.py` re-exports it; the types say they live in `scru128`,
//! so that pickles name `scru128.Scru128Id` as 1.0.1's do.

use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyType};

mod failures;
mod generator;
mod id;
mod ints;

use generator::{PyScru128Generator, batch, detached_if_large};
use id::PyScru128Id;

/// Generates a new SCRU128 ID object.
///
/// Thread safe: each thread's IDs increase; parent and child never repeat each
/// other's IDs after `os.fork()`.
#[pyfunction(name = "scru128")]
fn generate_id(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    if default_generator::is_original(py) {
        Ok(Bound::new(py, PyScru128Id::from_id(failures::global_id()?))?.into_any())
    } else {
        default_generator::generate(py)
    }
}

/// Generates a new SCRU128 ID encoded in the 26-digit canonical string
/// representation.
#[pyfunction(name = "scru128_string")]
fn generate_string(py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
    if default_generator::is_original(py) {
        Ok(PyString::new(py, failures::global_id()?.encode().as_str()))
    } else {
        default_generator::generate(py)?.str()
    }
}

/// Generates `n` new IDs as a list of 26-digit strings, in increasing order: much
/// faster per ID than calling `scru128_string()` `n` times.
#[pyfunction(name = "scru128_strings")]
fn generate_strings<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let n = ints::count(n)?;
    if default_generator::is_original(py) {
        batch(
            py,
            n,
            |py, ids| detached_if_large(py, n, || failures::global_fill(ids)),
            |id| Ok(PyString::new(py, id.encode().as_str()).into_any()),
        )
    } else {
        let generator = default_generator::current(py)?;
        let generate = pyo3::intern!(py, "generate");
        batch(
            py,
            n,
            |_, _| Ok(()),
            |_| Ok(generator.call_method0(generate)?.str()?.into_any()),
        )
    }
}

/// In 1.0.1, `scru128()` was `default_generator.generate()`, with both names looked
/// up at each call: assigning another generator to `scru128.default_generator`, or
/// patching `generate` on it or on `Scru128Generator` (as tests do with
/// `unittest.mock`), changed what `scru128()` returned. The same here: the functions
/// above call the library's process-wide generator directly only while
/// `default_generator` is still the package's own, of its own class, with no
/// attribute of its own and no attribute added to the class; otherwise they call
/// `scru128.default_generator.generate()` as 1.0.1 did.
///
/// The package's module tells [`changed`] of each assignment to or deletion of
/// `default_generator` (its module's `__setattr__`), which sets one flag; the rest is
/// checked at each call (the sizes of two dicts), since nothing tells of a patch.
/// No lock is held while Python code runs (dropping an object can call `scru128()`
/// again from its `__del__`).
mod default_generator {
    use std::sync::atomic::{AtomicBool, Ordering};

    use pyo3::exceptions::{PyImportError, PyNameError, PyTypeError};
    use pyo3::prelude::*;
    use pyo3::sync::PyOnceLock;
    use pyo3::types::{PyDict, PyModule, PyType};

    use crate::generator::PyScru128Generator;

    struct State {
        /// The package's module `scru128`, where 1.0.1's functions looked the name up.
        module_dict: Py<PyDict>,
        /// The package's `Scru128Generator` (the Python class).
        class: Py<PyType>,
        /// Its `__dict__` (a mapping proxy), where a patched `generate` lands, and how
        /// many attributes it had.
        class_dict: Py<PyAny>,
        class_dict_len: usize,
        /// The original `default_generator`, the process-wide generator.
        original: Py<PyScru128Generator>,
        /// Its `__dict__`, where a patched `generate` lands (normally empty).
        original_dict: Py<PyDict>,
    }

    static STATE: PyOnceLock<State> = PyOnceLock::new();
    /// Whether `scru128.default_generator` is something else than the original now
    /// (or was deleted).
    static REPLACED: AtomicBool = AtomicBool::new(true);

    /// Called once by the package: makes its `default_generator`, an object of its
    /// `Scru128Generator` class `cls`, and keeps what [`is_original`] checks.
    #[pyfunction]
    #[pyo3(name = "_setup")]
    pub fn setup<'py>(
        module: &Bound<'py, PyModule>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<Bound<'py, PyScru128Generator>> {
        let py = module.py();
        if let Some(state) = STATE.get(py) {
            // A reload of the package runs its code again with the same class.
            if state.class.bind(py).is(cls) {
                return Ok(state.original.bind(py).clone());
            }
            return Err(PyImportError::new_err(
                "scru128 was set up with another Scru128Generator class",
            ));
        }
        if !cls.is_subclass_of::<PyScru128Generator>()? {
            return Err(PyTypeError::new_err("expected a Scru128Generator class"));
        }
        let original = cls
            .call_method1(pyo3::intern!(py, "__new__"), (cls,))?
            .cast_into::<PyScru128Generator>()?;
        PyScru128Generator::make_process_wide(&original)?;
        let original_dict = original.getattr("__dict__")?.cast_into::<PyDict>()?;
        let class_dict = cls.getattr("__dict__")?;
        let state = State {
            module_dict: module.dict().unbind(),
            class: cls.clone().unbind(),
            class_dict_len: class_dict.len()?,
            class_dict: class_dict.unbind(),
            original: original.clone().unbind(),
            original_dict: original_dict.unbind(),
        };
        let _ = STATE.set(py, state);
        Ok(original)
    }

    /// Called by the package after each assignment to or deletion of
    /// `scru128.default_generator`.
    #[pyfunction]
    #[pyo3(name = "_default_generator_changed")]
    pub fn changed(py: Python<'_>) -> PyResult<()> {
        let original = match STATE.get(py) {
            Some(state) => state
                .module_dict
                .bind(py)
                .get_item(pyo3::intern!(py, "default_generator"))?
                .is_some_and(|current| current.is(&state.original)),
            None => false,
        };
        REPLACED.store(!original, Ordering::Release);
        Ok(())
    }

    /// Whether `scru128()` may call the process-wide generator directly: nothing
    /// replaced or patched (see the module's comment).
    #[inline]
    pub fn is_original(py: Python<'_>) -> bool {
        if REPLACED.load(Ordering::Acquire) {
            return false;
        }
        let Some(state) = STATE.get(py) else {
            return false;
        };
        // Sizes, not lookups of `generate`: reading a size takes about 20 instructions,
        // looking a missing key up in the class's dict 140 (a tenth of `scru128()`).
        // Any attribute set on the object (normally none) or added to the class takes
        // the slow path; only adding `generate` to the class while deleting another of
        // its attributes would go unseen.
        state.original.bind(py).get_type_ptr() == state.class.as_ptr().cast()
            && state.original_dict.bind(py).is_empty()
            && state.class_dict.bind(py).len().ok() == Some(state.class_dict_len)
    }

    /// What `scru128.default_generator` is now (1.0.1's `NameError` once deleted).
    pub fn current(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let state = STATE
            .get(py)
            .ok_or_else(|| PyImportError::new_err("scru128 is not set up"))?;
        state
            .module_dict
            .bind(py)
            .get_item(pyo3::intern!(py, "default_generator"))?
            .ok_or_else(|| PyNameError::new_err("name 'default_generator' is not defined"))
    }

    /// `scru128.default_generator.generate()`, looked up now.
    pub fn generate(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        current(py)?.call_method0(pyo3::intern!(py, "generate"))
    }
}

/// This module's objects (its classes, `default_generator`) live in statics, one set
/// for the process, where every interpreter of the process would see them: an object
/// of a sub-interpreter destroyed since would be called from another one. So only the
/// main interpreter imports it (CPython 3.12 and later refuse isolated
/// sub-interpreters by themselves; this also covers the legacy ones of every version,
/// as mod_wsgi makes). The standard library's module for sub-interpreters tells which
/// one this is (`_xxsubinterpreters` on 3.8 to 3.12, `_interpreters` from 3.13); where
/// neither is built, the import goes ahead.
fn refuse_sub_interpreters(py: Python<'_>) -> PyResult<()> {
    let Ok(interpreters) = py
        .import("_interpreters")
        .or_else(|_| py.import("_xxsubinterpreters"))
    else {
        return Ok(());
    };
    let current = interpreters.call_method0("get_current")?;
    let main = interpreters.call_method0("get_main")?;
    if current.eq(main)? {
        return Ok(());
    }
    Err(PyImportError::new_err(
        "scru128 can only be imported in the main interpreter, not in a sub-interpreter: \
         its native module keeps one default generator for the whole process \
         (with mod_wsgi, run the application with WSGIApplicationGroup %{GLOBAL})",
    ))
}

/// CPython names an extension type in its own messages (`'X' object has no attribute
/// 'y'`) by the type's full name, `scru128.Scru128Id`, where 1.0.1's Python class was
/// plain `Scru128Id`. Setting `__name__` again makes that name the short one;
/// `__module__` (pickles) and `__qualname__` stay as they are.
fn use_short_name(cls: &Bound<'_, PyType>) -> PyResult<()> {
    cls.setattr("__name__", cls.name()?)
}

#[pymodule]
fn _scru128(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    refuse_sub_interpreters(py)?;
    failures::quiet_library_panics();
    m.add("TIMESTAMP_BIAS", ::scru128::TIMESTAMP_BIAS)?;
    m.add("MAX_COUNTER", ::scru128::MAX_COUNTER)?;
    m.add_class::<PyScru128Id>()?;
    let id_class = py.get_type::<PyScru128Id>();
    use_short_name(&id_class)?;
    id::finish_class(&id_class)?;
    m.add_class::<PyScru128Generator>()?;
    use_short_name(&py.get_type::<PyScru128Generator>())?;
    m.add_function(wrap_pyfunction!(generate_id, m)?)?;
    m.add_function(wrap_pyfunction!(generate_string, m)?)?;
    m.add_function(wrap_pyfunction!(generate_strings, m)?)?;
    m.add_function(wrap_pyfunction!(default_generator::setup, m)?)?;
    m.add_function(wrap_pyfunction!(default_generator::changed, m)?)?;
    Ok(())
}
