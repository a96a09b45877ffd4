//! `scru128.Scru128Generator`: 1.0.1's class on the library's generators.
//!
//! Three kinds behind one class:
//! - `default_generator` hands out the process-wide generator's IDs (`scru128()`), so
//!   that mixing `scru128()` and `default_generator.generate()` keeps each thread's
//!   IDs increasing, as it did in 1.0.1, where they were the same generator;
//! - `Scru128Generator()` owns a library generator with its OS-seeded `DefaultRng`;
//! - `Scru128Generator(rng=obj)` draws from `obj.getrandbits(k)`, Python calls with
//!   the `k` of 1.0.1.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::PyTraverseError;
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyList;
use scru128::{GenerateError, RandomSource, Scru128Generator, Scru128Id};

use crate::failures::{generate_error, global_id, global_ids, guard, panic_error, vec_for};
use crate::id::PyScru128Id;
use crate::ints::int_in_range;

/// Represents a SCRU128 ID generator that encapsulates the monotonic counter and
/// other internal states.
///
/// `Scru128Generator()` uses an OS-seeded ChaCha12 random source;
/// `Scru128Generator(rng=obj)` any object with `getrandbits(k)`, such as
/// `random.Random` or `random.SystemRandom`. Thread safe: its IDs increase in the
/// order of the calls, whatever thread makes them.
#[pyclass(module = "scru128", name = "Scru128Generator", frozen, subclass)]
pub struct PyScru128Generator {
    kind: Kind,
}

enum Kind {
    ProcessWide,
    /// Boxed: the generator and its random source's buffer are 380 bytes.
    Own(Box<Mutex<Scru128Generator>>),
    User(UserGenerator),
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic is caught while a generator is locked (see `guard`); the library keeps
    // its state valid across one, so go on with it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl PyScru128Generator {
    /// `default_generator`.
    pub fn process_wide(py: Python<'_>) -> PyResult<Bound<'_, Self>> {
        Bound::new(
            py,
            Self {
                kind: Kind::ProcessWide,
            },
        )
    }

    fn next_id(&self, py: Python<'_>) -> PyResult<Scru128Id> {
        match &self.kind {
            Kind::ProcessWide => global_id(),
            Kind::Own(generator) => {
                guard(|| lock(generator).try_generate())?.map_err(generate_error)
            }
            Kind::User(user) => user.run(py, Scru128Generator::try_generate, |&id| Some(id)),
        }
    }

    fn next_ids(&self, py: Python<'_>, n: usize) -> PyResult<Vec<Scru128Id>> {
        match &self.kind {
            Kind::ProcessWide => global_ids(n),
            Kind::Own(generator) => {
                let mut ids = vec_for(n)?;
                ids.resize(n, Scru128Id::MIN);
                guard(|| lock(generator).try_fill(&mut ids))?.map_err(generate_error)?;
                Ok(ids)
            }
            Kind::User(user) => {
                let mut ids = vec_for(n)?;
                ids.resize(n, Scru128Id::MIN);
                user.run(
                    py,
                    |generator| generator.try_fill(&mut ids).map(|()| ids),
                    |ids| ids.last().copied(),
                )
            }
        }
    }
}

#[pymethods]
impl PyScru128Generator {
    /// Shows the garbage collector the random source, so that a cycle through it
    /// (a source that keeps its generator) is collected. The reference never
    /// changes, so there is nothing to clear: the cycle is broken elsewhere.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Kind::User(user) = &self.kind {
            visit.call(&user.source.rng)?;
        }
        Ok(())
    }

    /// Creates a generator object with the default random number generator, or with
    /// the specified one: any object with a `getrandbits(k: int) -> int` method, as
    /// `random.Random` and `random.SystemRandom`. It should be cryptographically
    /// strong and securely seeded.
    #[new]
    #[pyo3(signature = (*, rng = None))]
    fn new(py: Python<'_>, rng: Option<Bound<'_, PyAny>>) -> PyResult<Self> {
        let kind = match rng {
            None => Kind::Own(Box::new(Mutex::new(guard(Scru128Generator::new)?))),
            Some(rng) => {
                let callable = match rng.getattr("getrandbits") {
                    Ok(method) => method.is_callable(),
                    Err(err) if err.is_instance_of::<PyAttributeError>(py) => false,
                    Err(err) => return Err(err),
                };
                if !callable {
                    return Err(PyTypeError::new_err("rng does not implement getrandbits()"));
                }
                Kind::User(UserGenerator::new(rng.unbind()))
            }
        };
        Ok(Self { kind })
    }

    /// Generates a new SCRU128 ID object.
    ///
    /// This method is thread safe; multiple threads can call it concurrently.
    fn generate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyScru128Id>> {
        Bound::new(py, PyScru128Id::from_id(self.next_id(py)?))
    }

    /// Generates `n` new IDs at once, in increasing order: much faster per ID than
    /// calling `generate()` `n` times.
    fn generate_many<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let ids = self.next_ids(py, crate::ints::count(n)?)?;
        PyList::new(py, ids.into_iter().map(PyScru128Id::from_id))
    }
}

/// A generator over a Python random source.
///
/// Drawing calls Python, which may let another thread run, so the generator is not
/// used under a lock: a call takes it out of its slot, uses it and puts it back, and
/// a thread that finds the slot empty waits without holding the GIL. The slot's own
/// lock is only held for the moves, never across a Python call.
struct UserGenerator {
    source: Arc<PySource>,
    slot: Mutex<Slot>,
}

struct Slot {
    /// `None` while a call has the generator out.
    generator: Option<Scru128Generator<PyRandom>>,
    /// The thread that last took the generator out.
    holder: Holder,
    /// The last ID handed out, to go on from if the generator is lost (below).
    last: Option<Scru128Id>,
}

/// A thread of a process.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Holder {
    pid: u32,
    thread: u64,
}

impl Holder {
    fn current() -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        std::thread_local! {
            static THREAD: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
        }
        Self {
            pid: std::process::id(),
            thread: THREAD.with(|t| *t),
        }
    }
}

impl UserGenerator {
    fn new(rng: Py<PyAny>) -> Self {
        let source = Arc::new(PySource {
            rng,
            error: Mutex::new(None),
        });
        let generator = Scru128Generator::with_rng(PyRandom(Arc::clone(&source)));
        Self {
            source,
            slot: Mutex::new(Slot {
                generator: Some(generator),
                holder: Holder::current(),
                last: None,
            }),
        }
    }

    /// Runs `f` on the generator. If the random source raised, the generator is put
    /// back as it was before the call and the exception raised here: the ID made
    /// from the numbers drawn so far is never handed out.
    fn run<T>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Scru128Generator<PyRandom>) -> Result<T, GenerateError>,
        last_of: impl Fn(&T) -> Option<Scru128Id>,
    ) -> PyResult<T> {
        let mut generator = self.take_out(py)?;
        let before = generator.clone();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut generator)));
        let source_error = lock(&self.source.error).take();
        let (kept, result) = match (outcome, source_error) {
            (_, Some(err)) => (before, Err(err)),
            (Ok(Ok(value)), None) => (generator, Ok(value)),
            (Ok(Err(err)), None) => (generator, Err(generate_error(err))),
            (Err(payload), None) => (before, Err(panic_error(&*payload))),
        };
        let last = result.as_ref().ok().and_then(last_of);
        let mut slot = lock(&self.slot);
        slot.generator = Some(kept);
        slot.last = last.or(slot.last);
        drop(slot);
        result
    }

    fn take_out(&self, py: Python<'_>) -> PyResult<Scru128Generator<PyRandom>> {
        loop {
            {
                let mut slot = lock(&self.slot);
                let me = Holder::current();
                if let Some(generator) = slot.generator.take() {
                    slot.holder = me;
                    return Ok(generator);
                }
                if slot.holder.thread == me.thread {
                    return Err(PyRuntimeError::new_err(
                        "Scru128Generator called from its own random source",
                    ));
                }
                if slot.holder.pid != me.pid {
                    // The thread that had the generator out was not copied by fork():
                    // go on after the last ID it handed out, with a new generator.
                    let mut generator =
                        Scru128Generator::with_rng(PyRandom(Arc::clone(&self.source)));
                    if let Some(last) = slot.last {
                        generator.resume_after(last);
                    }
                    slot.holder = me;
                    return Ok(generator);
                }
            }
            // Another thread has it, inside a Python call: let it run (and let Ctrl-C
            // reach this one).
            py.detach(std::thread::yield_now);
            py.check_signals()?;
        }
    }
}

/// The Python random source and the first exception it raised during a call.
struct PySource {
    rng: Py<PyAny>,
    error: Mutex<Option<PyErr>>,
}

/// The library's view of a [`PySource`]: each number is `rng.getrandbits(k)`, with
/// the `k` of 1.0.1: 28 for a counter, 24 for `per_sec_random`, 32 for
/// `per_gen_random`, asked in the same order, so that a seeded source gives the same
/// fields as there.
#[derive(Clone)]
struct PyRandom(Arc<PySource>);

impl PyRandom {
    /// `rng.getrandbits(bits)`; a number of more bits than that is a `ValueError`, as
    /// in 1.0.1 (where it reached `from_fields`). After the first exception, the
    /// numbers are 0 and the exception waits for the end of the call.
    fn getrandbits(&self, bits: u32) -> u32 {
        let source = &*self.0;
        if lock(&source.error).is_some() {
            return 0;
        }
        Python::attach(|py| {
            let max = (1u128 << bits) - 1;
            let drawn = source
                .rng
                .bind(py)
                .call_method1(pyo3::intern!(py, "getrandbits"), (bits,))
                .and_then(|value| int_in_range(&value, max, "invalid field value"));
            match drawn {
                // in range: at most `bits` (<= 32) bits
                Ok(value) => value as u32,
                Err(err) => {
                    *lock(&source.error) = Some(err);
                    0
                }
            }
        })
    }
}

impl RandomSource for PyRandom {
    fn next_u32(&mut self) -> u32 {
        self.getrandbits(32)
    }

    fn next_bits(&mut self, bits: u32) -> u32 {
        self.getrandbits(bits.min(32))
    }
}
