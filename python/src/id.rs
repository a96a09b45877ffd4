//! `scru128.Scru128Id`: 1.0.1's class on the library's `Scru128Id`, with additions
//! (bytes, `uuid.UUID`, `datetime`, the bounds of a time).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::type_object::PyTypeInfo;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyString, PyTuple, PyType};
use scru128::{MAX_COUNTER, MAX_PER_SEC_RANDOM, MAX_TIMESTAMP, Scru128Id};

use crate::ints::{Checked, check_range, index_value, int_in_range};

/// 1.0.1's messages, kept so that code matching them still works.
const NOT_128_BIT: &str = "not a 128-bit unsigned integer";
const INVALID_FIELD: &str = "invalid field value";
const INVALID_STRING: &str = "invalid string representation";

/// Python's hash of a non-negative `int` is its value modulo this prime
/// (`sys.hash_info.modulus`), so `hash(id) == hash(int(id))` without making the `int`.
#[cfg(target_pointer_width = "64")]
const HASH_MODULUS: u128 = (1 << 61) - 1;
#[cfg(not(target_pointer_width = "64"))]
const HASH_MODULUS: u128 = (1 << 31) - 1;

/// Represents a SCRU128 ID and provides converters and comparison operators.
///
/// `Scru128Id(int_value)` takes a 128-bit unsigned integer (`ValueError` outside that
/// range); `from_fields`, `from_str` and `from_bytes` build one from its parts, its
/// text or its 16 big-endian bytes.
#[pyclass(module = "scru128", name = "Scru128Id", frozen, subclass)]
pub struct PyScru128Id {
    value: SetOnce,
}

/// A 128-bit value set at most once: by the constructor, or by `__init__` or
/// `__setstate__` on an object made empty by `Scru128Id.__new__` (unpickling a pickle
/// written by 1.0.1 makes one, then sets its `_value` slot). Atomics rather than a
/// `OnceLock`, whose construction in the set state costs a `call_once` (about 80
/// instructions per new ID); loads are plain moves on x86-64.
struct SetOnce {
    state: AtomicU8,
    high: AtomicU64,
    low: AtomicU64,
}

const EMPTY: u8 = 0;
const SETTING: u8 = 1;
const SET: u8 = 2;

impl SetOnce {
    const fn new(v: u128) -> Self {
        Self {
            state: AtomicU8::new(SET),
            high: AtomicU64::new((v >> 64) as u64),
            low: AtomicU64::new(v as u64),
        }
    }

    const fn empty() -> Self {
        Self {
            state: AtomicU8::new(EMPTY),
            high: AtomicU64::new(0),
            low: AtomicU64::new(0),
        }
    }

    #[inline]
    fn get(&self) -> Option<u128> {
        if self.state.load(Ordering::Acquire) == SET {
            let high = self.high.load(Ordering::Relaxed);
            let low = self.low.load(Ordering::Relaxed);
            Some(((high as u128) << 64) | low as u128)
        } else {
            None
        }
    }

    /// Sets the value if it is not set yet; `false` if it was (or is being) set.
    fn set(&self, v: u128) -> bool {
        if self
            .state
            .compare_exchange(EMPTY, SETTING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.high.store((v >> 64) as u64, Ordering::Relaxed);
        self.low.store(v as u64, Ordering::Relaxed);
        self.state.store(SET, Ordering::Release);
        true
    }
}

impl PyScru128Id {
    pub fn from_id(id: Scru128Id) -> Self {
        Self {
            value: SetOnce::new(id.to_u128()),
        }
    }

    #[inline]
    fn value(&self) -> PyResult<u128> {
        match self.value.get() {
            Some(v) => Ok(v),
            // 1.0.1's error for an object whose `_value` slot was never set.
            None => Err(PyAttributeError::new_err(
                "'Scru128Id' object has no attribute '_value'",
            )),
        }
    }

    #[inline]
    fn id(&self) -> PyResult<Scru128Id> {
        self.value().map(Scru128Id::from_u128)
    }

    /// Sets the value of an object made empty; an ID never changes once set.
    fn set(&self, v: u128) -> PyResult<()> {
        if self.value.set(v) || self.value.get() == Some(v) {
            Ok(())
        } else {
            Err(PyTypeError::new_err("a Scru128Id cannot be changed"))
        }
    }
}

/// Whether `cls` is `Scru128Id` itself (a pointer comparison, without the reference
/// counting of `py.get_type`).
#[inline]
fn is_base(cls: &Bound<'_, PyType>) -> bool {
    cls.as_ptr() == PyScru128Id::type_object_raw(cls.py()).cast()
}

/// An object of class `cls` (`Scru128Id` or a subclass) holding `id`. A subclass is
/// called with the integer, as 1.0.1's class methods did (`cls(int_value)`).
pub fn new_of_class<'py>(cls: &Bound<'py, PyType>, id: Scru128Id) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    if is_base(cls) {
        Ok(Bound::new(py, PyScru128Id::from_id(id))?.into_any())
    } else {
        cls.call1((id.to_u128(),))
    }
}

fn to_int_value(value: &Bound<'_, PyAny>) -> PyResult<u128> {
    int_in_range(value, u128::MAX, NOT_128_BIT)
}

/// The text of a `str` (a `TypeError` for anything else, as 1.0.1's `re.match`), or
/// `None` for one that cannot be UTF-8 (lone surrogates), which is never an ID. On
/// CPython 3.10 and later (the `abi3-py310` wheel) it borrows the string's own UTF-8
/// copy, which CPython keeps for ASCII strings; before, it is encoded into `bytes`.
fn str_text(value: &Bound<'_, PyAny>) -> PyResult<Option<PyBackedStr>> {
    let text = value.cast::<PyString>().map_err(|_| {
        let type_name = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("expected a str, got '{type_name}'"))
    })?;
    Ok(PyBackedStr::try_from(text.clone()).ok())
}

/// 1.0.1's `Scru128Id.from_str`: the text of `value`, parsed.
fn parse_str(value: &Bound<'_, PyAny>) -> PyResult<Scru128Id> {
    match str_text(value)? {
        Some(text) => parse(&text),
        None => Err(PyValueError::new_err(INVALID_STRING)),
    }
}

/// The class method `from_str` as defined, for subclasses (see [`finish_class`]).
static FROM_STR_OF_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Finishes the class once it is made:
///
/// - `Scru128Id.from_str` becomes the class method bound to `Scru128Id`, made once,
///   rather than the class method itself, which makes a bound method at each lookup
///   (about 520 instructions, 30% of `Scru128Id.from_str(s)`). It is what 1.0.1's
///   `Scru128Id.from_str` gave too, a method bound to the class (it pickles the same
///   way). Subclasses get the class method itself (`__init_subclass__`), so that their
///   `from_str` makes their objects.
/// - `__slots__ = "_value"`, as 1.0.1's class had, with a `_value` property: the
///   standard library reads an object's slots from it (`copyreg._slotnames`), so that
///   `object.__getstate__` gives 1.0.1's state, `(None, {'_value': int})`, and a
///   subclass's own slots are pickled and copied with it.
pub fn finish_class(cls: &Bound<'_, PyType>) -> PyResult<()> {
    let py = cls.py();
    let descriptor = FROM_STR_OF_CLASS.get_or_try_init(py, || {
        Ok::<_, PyErr>(cls.getattr("__dict__")?.get_item("from_str")?.unbind())
    })?;
    let bound = descriptor
        .bind(py)
        .call_method1("__get__", (py.None(), cls))?;
    cls.setattr("from_str", bound)?;
    cls.setattr("__slots__", "_value")
}

/// `object.__getstate__()` of CPython 3.11 for an object of this class or a subclass
/// (on earlier versions, which have none): its `__dict__` (`None` if empty), and with
/// it, if any slot of its class is set, those slots by name.
fn default_state<'py>(
    slf: &Bound<'py, PyScru128Id>,
    copyreg: &Bound<'py, PyModule>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    let dict = match slf.getattr_opt("__dict__")? {
        Some(dict) if dict.is_truthy()? => dict,
        _ => py.None().into_bound(py),
    };
    let slots = PyDict::new(py);
    for name in copyreg
        .call_method1("_slotnames", (slf.get_type(),))?
        .try_iter()?
    {
        let name = name?;
        if let Some(value) = slf.getattr_opt(name.cast::<PyString>()?)? {
            slots.set_item(name, value)?;
        }
    }
    if slots.is_empty() {
        Ok(dict)
    } else {
        Ok(PyTuple::new(py, [dict, slots.into_any()])?.into_any())
    }
}

fn parse(text: &str) -> PyResult<Scru128Id> {
    // 1.0.1 matched `^[0-7][0-9A-Va-v]{25}$`, and `$` also matches before a final
    // newline: it accepted one trailing "\n".
    let digits = match text.strip_suffix('\n') {
        Some(digits) if digits.len() == 26 => digits,
        _ => text,
    };
    digits
        .parse::<Scru128Id>()
        .map_err(|err| PyValueError::new_err(format!("{INVALID_STRING}: {err}")))
}

/// Unix milliseconds of an aware `datetime`, rounded down.
fn unix_ts_ms(time: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = time.py();
    let datetime_class = DATETIME.import(py, "datetime", "datetime")?;
    if !time.is_instance(datetime_class)? {
        return Err(PyTypeError::new_err("expected a datetime.datetime"));
    }
    if time.call_method0("utcoffset")?.is_none() {
        return Err(PyValueError::new_err(
            "naive datetime: give it a time zone (for example tzinfo=datetime.timezone.utc)",
        ));
    }
    let delta = time.sub(epoch(py)?)?;
    let days: i64 = delta.getattr("days")?.extract()?;
    let seconds: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    // `seconds` and `microseconds` are never negative: this rounds down before 1970 too.
    let ms = days * 86_400_000 + seconds * 1000 + micros / 1000;
    u64::try_from(ms).map_err(|_| PyValueError::new_err(format!("{time} is before 2020")))
}

static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static UUID: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// 1970-01-01T00:00:00+00:00.
fn epoch(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    EPOCH
        .get_or_try_init(py, || {
            let utc = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("tzinfo", utc)?;
            let epoch = DATETIME
                .import(py, "datetime", "datetime")?
                .call((1970, 1, 1), Some(&kwargs))?;
            Ok(epoch.unbind())
        })
        .map(|epoch| epoch.bind(py))
}

#[pymethods]
impl PyScru128Id {
    /// Accepts any arguments so that `Scru128Id.__new__(Scru128Id)`, which unpickling
    /// 1.0.1's pickles calls, works; `__init__` checks them.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs), text_signature = "(int_value)")]
    fn __new__(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        Self {
            value: SetOnce::empty(),
        }
    }

    /// Creates an object from a 128-bit unsigned integer.
    fn __init__(&self, int_value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(to_int_value(int_value)?)
    }

    /// Creates an object from field values (`ValueError` on a field out of range).
    #[classmethod]
    fn from_fields<'py>(
        cls: &Bound<'py, PyType>,
        timestamp: &Bound<'py, PyAny>,
        counter: &Bound<'py, PyAny>,
        per_sec_random: &Bound<'py, PyAny>,
        per_gen_random: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fields = [
            (timestamp, MAX_TIMESTAMP as u128),
            (counter, MAX_COUNTER as u128),
            (per_sec_random, MAX_PER_SEC_RANDOM as u128),
            (per_gen_random, u32::MAX as u128),
        ];
        // 1.0.1 checked every range first (in order, stopping at the first that
        // fails), then combined the values, where a non-integer failed.
        let mut values = [0u128; 4];
        let mut not_int = [false; 4];
        for (i, &(field, max)) in fields.iter().enumerate() {
            match check_range(field, max, INVALID_FIELD)? {
                Checked::Int(v) => values[i] = v,
                Checked::NotInt => not_int[i] = true,
            }
        }
        for (i, &(field, max)) in fields.iter().enumerate() {
            if not_int[i] {
                values[i] = index_value(field, max, INVALID_FIELD)?;
            }
        }
        let id = Scru128Id::try_from_fields(
            values[0] as u64,
            values[1] as u32,
            values[2] as u32,
            values[3] as u32,
        )
        .map_err(|err| PyValueError::new_err(format!("{INVALID_FIELD}: {err}")))?;
        new_of_class(cls, id)
    }

    /// Creates an object from a 26-digit string representation, in either case
    /// (`ValueError` on an invalid one).
    #[classmethod]
    fn from_str<'py>(
        cls: &Bound<'py, PyType>,
        str_value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        new_of_class(cls, parse_str(str_value)?)
    }

    /// Gives a subclass the class method `from_str` that `Scru128Id` itself has bound
    /// (see [`finish_class`]), so that `Subclass.from_str` makes a `Subclass`.
    #[classmethod]
    #[pyo3(signature = (**kwargs))]
    fn __init_subclass__(
        cls: &Bound<'_, PyType>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let py = cls.py();
        let base = py.get_type::<Self>();
        // What `object.__init_subclass__` would do: no arguments.
        if kwargs.is_some_and(|k| !k.is_empty()) {
            return Err(PyTypeError::new_err(format!(
                "{}.__init_subclass__() takes no keyword arguments",
                cls.name()?
            )));
        }
        let own = cls.getattr("__dict__")?;
        if !own.contains("from_str")? {
            if let Some(descriptor) = FROM_STR_OF_CLASS.get(py) {
                cls.setattr("from_str", descriptor.bind(py))?;
            }
        }
        // Before CPython 3.10 the package gives `Scru128Id` a `__signature__`
        // (`scru128/__init__.py`); a subclass has its own `__init__` or `__new__` to be
        // read from, so it must not inherit it (`None`: inspect reads the class).
        let base_has_signature = base.getattr("__dict__")?.contains("__signature__")?;
        if base_has_signature && !own.contains("__signature__")? {
            cls.setattr("__signature__", py.None())?;
        }
        Ok(())
    }

    /// Creates an object from its 16-byte big-endian representation (`bytes`,
    /// `bytearray` or `memoryview`).
    #[classmethod]
    fn from_bytes<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes: Vec<u8> = if let Ok(b) = data.cast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else if let Ok(b) = data.cast::<PyByteArray>() {
            b.to_vec()
        } else if data.is_instance(&data.py().get_type::<pyo3::types::PyMemoryView>())? {
            data.call_method0("tobytes")?
                .cast::<PyBytes>()?
                .as_bytes()
                .to_vec()
        } else {
            return Err(PyTypeError::new_err(
                "expected bytes, bytearray or memoryview",
            ));
        };
        let bytes: [u8; 16] = bytes.as_slice().try_into().map_err(|_| {
            PyValueError::new_err(format!("expected 16 bytes, got {}", bytes.len()))
        })?;
        new_of_class(cls, Scru128Id::from_bytes(bytes))
    }

    /// Creates an object from the 32-digit hex form or the 8-4-4-4-12 UUID form of
    /// its 128 bits, in either case (`ValueError` on anything else).
    #[classmethod]
    fn from_hex<'py>(
        cls: &Bound<'py, PyType>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Ok(text) = text.cast::<PyString>() else {
            return Err(PyTypeError::new_err("expected a str"));
        };
        let text = text.to_cow()?;
        let id = if text.len() == 36 {
            Scru128Id::try_from_uuid_str(&text)
        } else {
            Scru128Id::try_from_hex(&text)
        };
        new_of_class(
            cls,
            id.map_err(|err| PyValueError::new_err(err.to_string()))?,
        )
    }

    /// Creates an object from a `uuid.UUID` holding the same 128 bits.
    #[classmethod]
    fn from_uuid<'py>(
        cls: &Bound<'py, PyType>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !value.is_instance(UUID.import(cls.py(), "uuid", "UUID")?)? {
            return Err(PyTypeError::new_err("expected a uuid.UUID"));
        }
        let int = to_int_value(&value.getattr("int")?)?;
        new_of_class(cls, Scru128Id::from_u128(int))
    }

    /// The smallest ID of the millisecond of `time` (an aware `datetime`): IDs made
    /// at or after `time` are `>=` it. With `max_at`, for range queries.
    #[classmethod]
    fn min_at<'py>(
        cls: &Bound<'py, PyType>,
        time: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = Scru128Id::try_min_at_unix_ts_ms(unix_ts_ms(time)?)
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        new_of_class(cls, id)
    }

    /// The largest ID of the millisecond of `time` (an aware `datetime`): IDs made
    /// at or before `time` are `<=` it.
    #[classmethod]
    fn max_at<'py>(
        cls: &Bound<'py, PyType>,
        time: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = Scru128Id::try_max_at_unix_ts_ms(unix_ts_ms(time)?)
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        new_of_class(cls, id)
    }

    /// Returns the 128-bit unsigned integer representation.
    fn __int__(&self) -> PyResult<u128> {
        self.value()
    }

    /// 1.0.1's slot: the 128-bit unsigned integer (set once, on an object made empty
    /// by `Scru128Id.__new__`).
    #[getter(_value)]
    fn get_value(&self) -> PyResult<u128> {
        self.value()
    }

    #[setter(_value)]
    fn set_value(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(to_int_value(value)?)
    }

    /// Returns the 44-bit millisecond timestamp field value.
    #[getter]
    fn timestamp(&self) -> PyResult<u64> {
        Ok(self.id()?.timestamp())
    }

    /// Returns the 28-bit per-timestamp monotonic counter field value.
    #[getter]
    fn counter(&self) -> PyResult<u32> {
        Ok(self.id()?.counter())
    }

    /// Returns the 24-bit per-second randomness field value.
    #[getter]
    fn per_sec_random(&self) -> PyResult<u32> {
        Ok(self.id()?.per_sec_random())
    }

    /// Returns the 32-bit per-generation randomness field value.
    #[getter]
    fn per_gen_random(&self) -> PyResult<u32> {
        Ok(self.id()?.per_gen_random())
    }

    /// The Unix time of the ID in milliseconds (`timestamp + TIMESTAMP_BIAS`).
    #[getter]
    fn unix_ts_ms(&self) -> PyResult<u64> {
        Ok(self.id()?.unix_ts_ms())
    }

    /// The time of the ID as an aware `datetime` in UTC, exact to the millisecond.
    fn to_datetime<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ms = self.id()?.unix_ts_ms();
        let delta = TIMEDELTA.import(py, "datetime", "timedelta")?.call1((
            ms / 86_400_000,
            ms / 1000 % 86_400,
            ms % 1000 * 1000,
        ))?;
        epoch(py)?.add(delta)
    }

    /// Returns the 16-byte big-endian representation.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.id()?.to_bytes()))
    }

    /// Returns the 32-digit lowercase hex form of the 128 bits.
    fn to_hex<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        Ok(PyString::new(py, self.id()?.encode_hex().as_str()))
    }

    /// Returns a `uuid.UUID` holding the same 128 bits (not an RFC 9562 version or
    /// variant: a database `uuid` column stores and orders it fine).
    fn to_uuid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("int", self.value()?)?;
        UUID.import(py, "uuid", "UUID")?.call((), Some(&kwargs))
    }

    /// Returns the 26-digit canonical string representation.
    fn __str__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        Ok(PyString::new(py, self.id()?.encode().as_str()))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let value = slf.get().value()?;
        let class = slf.get_type();
        if is_base(&class) {
            Ok(format!("Scru128Id(0x{value:032X})"))
        } else {
            Ok(format!("{}(0x{value:032X})", class.name()?))
        }
    }

    fn __hash__(&self) -> PyResult<isize> {
        Ok((self.value()? % HASH_MODULUS) as isize)
    }

    /// Compares with another ID (of this class, as in 1.0.1); `NotImplemented` for
    /// anything else.
    fn __richcmp__<'py>(
        slf: &Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
        op: CompareOp,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let Ok(other) = other.cast::<Self>() else {
            return Ok(py.NotImplemented().into_bound(py));
        };
        let class = slf.get_type();
        if !is_base(&class) && !other.is_instance(&class)? {
            return Ok(py.NotImplemented().into_bound(py));
        }
        let (a, b) = (slf.get().value()?, other.get().value()?);
        Ok(PyBool::new(py, op.matches(a.cmp(&b))).to_owned().into_any())
    }

    /// `Scru128Id(int)` for an ID of this class. An object made empty by `__new__`
    /// and objects of subclasses are pickled and copied as `object.__reduce_ex__` did
    /// with 1.0.1's: `copyreg.__newobj__` with the arguments of `__getnewargs_ex__` or
    /// `__getnewargs__` if the class has one, and the state of `__getstate__` (the
    /// subclass's own, or `object`'s from CPython 3.11: the `__dict__` and every slot,
    /// `_value` included), else the same state made here.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let class = slf.get_type();
        let exact = is_base(&class);
        if let (true, Some(value)) = (exact, slf.get().value.get()) {
            return PyTuple::new(
                py,
                [class.into_any(), PyTuple::new(py, [value])?.into_any()],
            );
        }
        let copyreg = py.import("copyreg")?;
        let (constructor, args) = if let Some(f) = slf.getattr_opt("__getnewargs_ex__")? {
            let (args, kwargs): (Bound<'py, PyTuple>, Bound<'py, PyDict>) = f.call0()?.extract()?;
            let args = PyTuple::new(py, [class.into_any(), args.into_any(), kwargs.into_any()])?;
            (copyreg.getattr("__newobj_ex__")?, args)
        } else {
            let mut args = vec![class.clone().into_any()];
            if let Some(f) = slf.getattr_opt("__getnewargs__")? {
                args.extend(f.call0()?.cast_into::<PyTuple>()?.iter());
            }
            (copyreg.getattr("__newobj__")?, PyTuple::new(py, args)?)
        };
        let state = match slf.getattr_opt("__getstate__")? {
            Some(getstate) => getstate.call0()?,
            None => default_state(slf, &copyreg)?,
        };
        PyTuple::new(py, [constructor, args.into_any(), state])
    }

    /// Loads the state of a pickle written by 1.0.1, `(None, {'_value': int})`, or
    /// of a subclass (with its `__dict__`).
    fn __setstate__(slf: &Bound<'_, Self>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let (dict, slots) = match state.cast::<PyTuple>() {
            Ok(pair) if pair.len() == 2 => (pair.get_item(0)?, Some(pair.get_item(1)?)),
            _ => (state.clone(), None),
        };
        for part in [Some(dict), slots].into_iter().flatten() {
            if part.is_none() {
                continue;
            }
            let part = part
                .cast::<PyDict>()
                .map_err(|_| PyTypeError::new_err("invalid Scru128Id state"))?;
            for (key, value) in part.iter() {
                if key.eq("_value")? {
                    slf.get().set(to_int_value(&value)?)?;
                } else {
                    slf.setattr(key.cast::<PyString>()?, value)?;
                }
            }
        }
        Ok(())
    }
}
