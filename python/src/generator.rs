//! `scru128.Scru128Generator`: 1.0.1's class on the library's generators.
//!
//! This is the native base of the package's `Scru128Generator` (`scru128/__init__.py`),
//! a Python class so that its objects have a `__dict__` and weak references, as 1.0.1's
//! had (tests patch `generate` on them). Objects are made empty by `__new__` and set up
//! by `__init__(*, rng=None)`, as 1.0.1's, so that a subclass's own `__init__` can call
//! `super().__init__(rng=rng)`.
//!
//! Three kinds behind one class:
//! - `default_generator` hands out the process-wide generator's IDs (`scru128()`), so
//!   that mixing `scru128()` and `default_generator.generate()` keeps each thread's
//!   IDs increasing, as it did in 1.0.1, where they were the same generator;
//! - `Scru128Generator()` owns a library generator with its OS-seeded `DefaultRng`;
//! - `Scru128Generator(rng=obj)` draws from `obj.getrandbits(k)`, Python calls with
//!   the `k` of 1.0.1.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use pyo3::PyTraverseError;
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use scru128::{GenerateError, RandomSource, Scru128Generator, Scru128Id};

use crate::failures::{generate_error, global_fill, global_id, guard, panic_error};
use crate::id::PyScru128Id;
use crate::ints::int_in_range;

/// Represents a SCRU128 ID generator that encapsulates the monotonic counter and
/// other internal states.
///
/// `Scru128Generator()` uses an OS-seeded ChaCha12 random source;
/// `Scru128Generator(rng=obj)` any object with `getrandbits(k)`, such as
/// `random.Random` or `random.SystemRandom`. Thread safe: its IDs increase in the
/// order of the calls, whatever thread makes them.
#[pyclass(
    module = "scru128._scru128",
    name = "Scru128Generator",
    frozen,
    subclass
)]
pub struct PyScru128Generator {
    /// Set once, by `__init__` (or for `default_generator`, by the package).
    kind: OnceLock<Kind>,
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

/// IDs made per step of a batch: between steps a batch checks for signals (Ctrl-C)
/// and, for the library's generators, lets other threads run while it generates.
/// About 0.2 ms of generating and 0.6 ms of making objects on a 2020s core.
pub const CHUNK: usize = 16 * 1024;

/// A list of `n` objects made by `make` from IDs drawn by `fill`, `CHUNK` at a time,
/// checking for signals between chunks.
pub fn batch<'py>(
    py: Python<'py>,
    n: usize,
    mut fill: impl FnMut(Python<'py>, &mut [Scru128Id]) -> PyResult<()>,
    mut make: impl FnMut(Scru128Id) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut objects = Vec::new();
    objects
        .try_reserve_exact(n)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err(format!("no memory for {n} IDs")))?;
    let mut ids = vec![Scru128Id::MIN; n.min(CHUNK)];
    let mut left = n;
    while left > 0 {
        let chunk = &mut ids[..left.min(CHUNK)];
        fill(py, chunk)?;
        for &id in chunk.iter() {
            objects.push(make(id)?);
        }
        left -= chunk.len();
        if left > 0 {
            py.check_signals()?;
        }
    }
    PyList::new(py, objects)
}

/// Runs `f` without the GIL when the batch is large enough for other threads to
/// notice (a small one would pay more for the switch than it lets them run).
pub fn detached_if_large<T: Send>(py: Python<'_>, n: usize, f: impl FnOnce() -> T + Send) -> T {
    if n > CHUNK { py.detach(f) } else { f() }
}

impl PyScru128Generator {
    fn kind(&self) -> PyResult<&Kind> {
        self.kind.get().ok_or_else(|| {
            // 1.0.1 raised AttributeError too (its `_lock` was never set).
            PyAttributeError::new_err(
                "this Scru128Generator was never initialized: its class's __init__ did not call Scru128Generator.__init__",
            )
        })
    }

    /// Makes `generator`, an empty object, `default_generator`.
    pub fn make_process_wide(generator: &Bound<'_, Self>) -> PyResult<()> {
        generator
            .get()
            .kind
            .set(Kind::ProcessWide)
            .map_err(|_| PyTypeError::new_err("this generator is already initialized"))
    }

    fn next_id(&self, py: Python<'_>) -> PyResult<Scru128Id> {
        match self.kind()? {
            Kind::ProcessWide => global_id(),
            Kind::Own(generator) => {
                guard(|| lock(generator).try_generate())?.map_err(generate_error)
            }
            Kind::User(user) => user.run(py, Scru128Generator::try_generate, |&id| Some(id)),
        }
    }

    /// Fills one chunk of a batch of `n` IDs.
    fn fill(&self, py: Python<'_>, n: usize, ids: &mut [Scru128Id]) -> PyResult<()> {
        match self.kind()? {
            Kind::ProcessWide => detached_if_large(py, n, || global_fill(ids)),
            Kind::Own(generator) => detached_if_large(py, n, || {
                guard(|| lock(generator).try_fill(ids))?.map_err(generate_error)
            }),
            Kind::User(user) => user
                .run(
                    py,
                    |generator| {
                        generator.try_fill(ids)?;
                        Ok(ids.last().copied())
                    },
                    |last| *last,
                )
                .map(drop),
        }
    }
}

#[pymethods]
impl PyScru128Generator {
    /// Shows the garbage collector the random source, so that a cycle through it
    /// (a source that keeps its generator) is collected. The reference never
    /// changes, so there is nothing to clear: the cycle is broken elsewhere.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(Kind::User(user)) = self.kind.get() {
            visit.call(&user.source.rng)?;
        }
        Ok(())
    }

    /// An empty generator, whatever the arguments (a subclass's `__init__` may take
    /// others); `__init__` sets it up.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs), text_signature = "(*, rng=None)")]
    fn __new__(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        Self {
            kind: OnceLock::new(),
        }
    }

    /// Creates a generator object with the default random number generator, or with
    /// the specified one: any object with a `getrandbits(k: int) -> int` method, as
    /// `random.Random` and `random.SystemRandom`. It should be cryptographically
    /// strong and securely seeded.
    #[pyo3(signature = (*, rng = None))]
    fn __init__(&self, py: Python<'_>, rng: Option<Bound<'_, PyAny>>) -> PyResult<()> {
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
        // 1.0.1 started the generator over; one that has handed out IDs is kept here
        // (two states of one generator could repeat IDs).
        self.kind.set(kind).map_err(|_| {
            PyTypeError::new_err("Scru128Generator.__init__() called twice on one generator")
        })
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
        let n = crate::ints::count(n)?;
        self.kind()?;
        batch(
            py,
            n,
            |py, ids| self.fill(py, n, ids),
            |id| Ok(Bound::new(py, PyScru128Id::from_id(id))?.into_any()),
        )
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
