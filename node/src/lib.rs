//! The native part of the npm package `scru128-v1` (a drop-in for npm `scru128`
//! 1.0.1) on the codec and generators of the `scru128` crate. `index.js` wraps it: an
//! ID crosses as four 32-bit words written into a `Uint32Array` that the addon makes
//! over memory of its own (`newWords`), and text as JavaScript strings, so that no
//! object is made through Node-API; the JavaScript layer throws the error classes of 1.0.1
//! (N-API 6 has no call for a `SyntaxError`) with the messages made here.
//!
//! The JavaScript layer checks the types (a string, integer numbers) before calling
//! these functions; they check again and throw for anything else (`TypeError`, or
//! napi-rs's argument errors), so no JavaScript value can crash the process
//! (test/hostile.test.js calls them directly).

#![deny(unsafe_op_in_unsafe_fn)]

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::rc::Rc;

use napi::{
    Env, Error, JsFunction, JsObject, JsString, JsUnknown, NapiRaw, NapiValue, Result, Status,
    ValueType, sys,
};
use napi_derive::napi;
use scru128::__private::quiet_library_panics;
use scru128::{
    Clock, DefaultRng, GenerateError, MAX_COUNTER, RandomSource, Scru128Generator, Scru128Id,
    SystemClock, TIMESTAMP_BIAS,
};

/// A JavaScript `TypeError` with `message`, thrown now; the `Err` tells napi-rs that
/// an exception is pending.
fn type_error(env: &Env, message: &str) -> Error {
    match env.throw_type_error(message, None) {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(err) => err,
    }
}

/// A JavaScript `RangeError` with `message`, thrown now.
fn range_error(env: &Env, message: &str) -> Error {
    match env.throw_range_error(message, None) {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(err) => err,
    }
}

/// A JavaScript `Error` with `message`, thrown now.
fn plain_error(env: &Env, message: &str) -> Error {
    match env.throw_error(message, None) {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(err) => err,
    }
}

/// The canonical string of `id`, as a JavaScript string (Latin-1: no UTF-8 decoding).
#[inline]
fn id_string(env: &Env, id: Scru128Id) -> Result<JsString> {
    env.create_string_latin1(id.encode().as_bytes())
}

/// The message of a panic caught at the boundary.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    scru128::__private::panic_text(payload)
        .unwrap_or("scru128: internal error")
        .to_owned()
}

/// A generator's error as JavaScript sees it: 1.0.1 threw `RangeError` ("invalid field
/// value", from `fromFields`) for a clock outside the SCRU128 range.
fn generate_error(env: &Env, err: GenerateError) -> Error {
    range_error(env, &format!("invalid field value: {err}"))
}

/// The process-wide generator has no fallible form: it panics when the clock is
/// outside the SCRU128 range. Tell that case (a `RangeError`, as with the other
/// generators) from any other panic by asking a throwaway generator about the same
/// clock reading.
#[cold]
fn global_failure(env: &Env, payload: &(dyn std::any::Any + Send)) -> Error {
    let now = SystemClock.unix_ts_ms();
    let mut probe = Scru128Generator::with_rng_and_clock(|| 0u32, move || now);
    match probe.try_generate() {
        Err(err) => generate_error(env, err),
        Ok(_) => plain_error(env, &panic_message(payload)),
    }
}

// ---- the word buffers ----------------------------------------------------------------

std::thread_local! {
    /// The data of each `Uint32Array(4)` registered by a load of index.js on this thread
    /// (each worker thread has its own list): an ID crosses as four 32-bit words written
    /// there, most significant first, rather than as an object made through Node-API.
    static SLOTS: RefCell<Vec<*mut u32>> = const { RefCell::new(Vec::new()) };
}

/// `newWords()`: a new word buffer, `[slot, words]`: `words` a `Uint32Array` of 4
/// elements over 16 bytes of the addon's own memory, never freed (16 bytes per load of
/// index.js in each thread), so that whatever JavaScript does with the array or its
/// buffer (transfer it, let it be collected) the addon only ever writes and reads
/// memory that exists. (A review found that an array handed in by JavaScript could
/// have its memory moved or shrunk away under the addon, and crash the process.)
#[napi(js_name = "newWords")]
pub fn new_words(env: Env) -> Result<JsObject> {
    let data: *mut u32 = Box::leak(Box::new([0u32; 4])).as_mut_ptr();
    let mut buffer = ptr::null_mut();
    let mut array = ptr::null_mut();
    // SAFETY: `data` is 16 bytes of leaked memory, valid for the life of the process,
    // which the buffer only views (no finalizer: nothing is freed); the out-pointers
    // are valid; the typed array covers the whole buffer.
    let status = unsafe {
        let s = sys::napi_create_external_arraybuffer(
            env.raw(),
            data.cast(),
            16,
            None,
            ptr::null_mut(),
            &mut buffer,
        );
        if s == sys::Status::napi_ok {
            sys::napi_create_typedarray(
                env.raw(),
                sys::TypedarrayType::uint32_array,
                4,
                buffer,
                0,
                &mut array,
            )
        } else {
            s
        }
    };
    if status != sys::Status::napi_ok {
        return Err(Error::from_status(Status::from(status)));
    }
    let slot = SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        slots.push(data);
        (slots.len() - 1) as u32
    });
    let mut pair = env.create_array_with_length(2)?;
    pair.set_element(0, env.create_uint32(slot)?)?;
    // SAFETY: `array` is the live typed array just made in this environment.
    pair.set_element(1, unsafe {
        JsUnknown::from_raw_unchecked(env.raw(), array)
    })?;
    Ok(pair)
}

fn slot_words(env: &Env, slot: u32) -> Result<*mut u32> {
    SLOTS
        .with(|slots| slots.borrow().get(slot as usize).copied())
        .ok_or_else(|| type_error(env, "no such word buffer"))
}

/// Writes `id` to the words of `slot`.
#[inline]
fn write_words(env: &Env, slot: u32, id: Scru128Id) -> Result<()> {
    let words = slot_words(env, slot)?;
    let v = id.to_u128();
    // SAFETY: `words` is 16 bytes of memory `newWords` leaked for the life of the
    // process, aligned for `u32`; JavaScript runs on this thread only between calls,
    // so nothing reads or writes it meanwhile.
    unsafe {
        words.write((v >> 96) as u32);
        words.add(1).write((v >> 64) as u32);
        words.add(2).write((v >> 32) as u32);
        words.add(3).write(v as u32);
    }
    Ok(())
}

/// Reads the ID in the words of `slot`.
#[inline]
fn read_words(env: &Env, slot: u32) -> Result<Scru128Id> {
    let words = slot_words(env, slot)?;
    // SAFETY: as in `write_words`.
    let w = unsafe {
        [
            words.read(),
            words.add(1).read(),
            words.add(2).read(),
            words.add(3).read(),
        ]
    };
    Ok(Scru128Id::from_u128(
        (u128::from(w[0]) << 96)
            | (u128::from(w[1]) << 64)
            | (u128::from(w[2]) << 32)
            | u128::from(w[3]),
    ))
}

/// `scru128()`: a new ID from the process-wide generator, into the words of `slot`.
#[napi(js_name = "generateWords")]
pub fn generate_words(env: Env, slot: u32) -> Result<()> {
    match catch_unwind(scru128::scru128) {
        Ok(id) => write_words(&env, slot, id),
        Err(payload) => Err(global_failure(&env, &*payload)),
    }
}

/// `toString()`: the canonical string of the ID in the words of `slot`.
#[napi(js_name = "encodeWords")]
pub fn encode_words(env: Env, slot: u32) -> Result<JsString> {
    id_string(&env, read_words(&env, slot)?)
}

/// `scru128String()`: a new ID from the library's process-wide generator (every
/// thread's IDs increase; no two threads of the process repeat each other).
#[napi(js_name = "generate")]
pub fn generate(env: Env) -> Result<JsString> {
    match catch_unwind(scru128::scru128) {
        Ok(id) => id_string(&env, id),
        Err(payload) => Err(global_failure(&env, &*payload)),
    }
}

/// Reads a JavaScript string of exactly 26 UTF-16 code units into `units`; `None` if
/// `value` is not a string or has another length.
fn read_26(env: &Env, value: &JsUnknown, units: &mut [u16; 27]) -> Result<Option<()>> {
    if value.get_type()? != ValueType::String {
        return Ok(None);
    }
    let mut len = 0usize;
    // SAFETY: `value` is a string of `env` (checked above); `units` has room for 27 code
    // units, which is the size passed, so at most 26 units and a NUL are written.
    let status = unsafe {
        sys::napi_get_value_string_utf16(
            env.raw(),
            value.raw(),
            units.as_mut_ptr(),
            units.len(),
            &mut len,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(Error::from_status(Status::from(status)));
    }
    // A longer string is cut at 26 units: its length must be asked separately.
    if len != 26 || value_utf16_len(env, value)? != 26 {
        return Ok(None);
    }
    Ok(Some(()))
}

/// The length of a JavaScript string in UTF-16 code units (no copy).
fn value_utf16_len(env: &Env, value: &JsUnknown) -> Result<usize> {
    let mut len = 0usize;
    // SAFETY: `value` is a string of `env` (the caller checked); with a null buffer
    // Node-API only stores the length.
    let status = unsafe {
        sys::napi_get_value_string_utf16(env.raw(), value.raw(), ptr::null_mut(), 0, &mut len)
    };
    if status != sys::Status::napi_ok {
        return Err(Error::from_status(Status::from(status)));
    }
    Ok(len)
}

/// Parses 26 ASCII code units; `None` if one is not ASCII or the digits are invalid.
#[inline]
fn parse_units(units: &[u16; 27]) -> Option<Scru128Id> {
    let mut ascii = [0u8; 26];
    for (byte, &unit) in ascii.iter_mut().zip(units.iter()) {
        if unit > 0x7f {
            return None;
        }
        *byte = unit as u8;
    }
    Scru128Id::try_from_ascii(&ascii).ok()
}

/// `Scru128Id.fromString`: the canonical string of a valid 26-digit string (the same
/// JavaScript string if it is canonical already), with the ID in the words of `slot`;
/// or `null`, and `parseError` says why. Anything but a string of 26 code units is
/// `null` too.
#[napi(js_name = "parse")]
pub fn parse(env: Env, value: JsUnknown, slot: u32) -> Result<Option<JsUnknown>> {
    let mut units = [0u16; 27];
    if read_26(&env, &value, &mut units)?.is_none() {
        return Ok(None);
    }
    let Some(id) = parse_units(&units) else {
        return Ok(None);
    };
    write_words(&env, slot, id)?;
    let canonical = id.encode();
    if canonical
        .as_bytes()
        .iter()
        .zip(units.iter())
        .all(|(&b, &u)| u16::from(b) == u)
    {
        Ok(Some(value))
    } else {
        Ok(Some(id_string(&env, id)?.into_unknown()))
    }
}

/// Why `parse` gave `null` for a string of 26 code units: the library's message
/// ("invalid digit 'W' at position 5: expected 0-9 or A-V in either case", or the
/// first digit out of range). Positions count characters; a lone surrogate shows as
/// U+FFFD.
#[napi(js_name = "parseError")]
pub fn parse_error(env: Env, value: JsUnknown) -> Result<String> {
    let mut units = [0u16; 27];
    if read_26(&env, &value, &mut units)?.is_none() {
        return Err(type_error(&env, "expected a string of 26 characters"));
    }
    let text: String = char::decode_utf16(units[..26].iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    Ok(match Scru128Id::try_from_str(&text) {
        Ok(_) => "no error".to_owned(),
        Err(err) => err.to_string(),
    })
}

/// A field value given as a JavaScript number: an integer from 0 to `max`.
fn field_value(value: f64, max: u64) -> Option<u64> {
    (value.fract() == 0.0 && (0.0..=max as f64).contains(&value)).then_some(value as u64)
}

/// `Scru128Id.fromFields`: the ID into the words of `slot`, or a `RangeError` that
/// names the field (1.0.1's "invalid field value", then what and where).
#[napi(js_name = "fromFields")]
pub fn from_fields(
    env: Env,
    timestamp: f64,
    counter: f64,
    per_sec_random: f64,
    per_gen_random: f64,
    slot: u32,
) -> Result<()> {
    let args = [
        ("timestamp", timestamp),
        ("counter", counter),
        ("perSecRandom", per_sec_random),
        ("perGenRandom", per_gen_random),
    ];
    let mut values = [0u64; 4];
    for (slot, (name, value)) in values.iter_mut().zip(args) {
        // Anything above u32::MAX (44 bits for the timestamp) is out of every range:
        // the library names the field and its maximum.
        let max = if name == "timestamp" {
            (1u64 << 44) - 1
        } else {
            u64::from(u32::MAX)
        };
        match field_value(value, max) {
            Some(v) => *slot = v,
            None if value.fract() == 0.0 && value > max as f64 => {
                return Err(range_error(
                    &env,
                    &format!("invalid field value: {name} {value} is out of range (maximum {max})"),
                ));
            }
            None => {
                return Err(range_error(
                    &env,
                    &format!("invalid field value: {name} {value} is not an integer from 0"),
                ));
            }
        }
    }
    match Scru128Id::try_from_fields(
        values[0],
        values[1] as u32,
        values[2] as u32,
        values[3] as u32,
    ) {
        Ok(id) => write_words(&env, slot, id),
        Err(err) => {
            // The library's names are the crate's; say the JavaScript ones.
            let message = err
                .to_string()
                .replace("per_sec_random", "perSecRandom")
                .replace("per_gen_random", "perGenRandom");
            Err(range_error(
                &env,
                &format!("invalid field value: {message}"),
            ))
        }
    }
}

/// `toHex()`: `"0x"` and 32 lowercase hex digits of the ID in the words of `slot`.
#[napi(js_name = "toHex")]
pub fn to_hex(env: Env, slot: u32) -> Result<JsString> {
    let id = read_words(&env, slot)?;
    let mut text = [0u8; 34];
    text[..2].copy_from_slice(b"0x");
    text[2..].copy_from_slice(id.encode_hex().as_bytes());
    env.create_string_latin1(&text)
}

/// 1.0.1's hex rule: an optional `0x` (either case), then leading zeros, then at most
/// 32 significant hex digits, any case; returns the 32 digits the library's codec
/// reads, or why not. The string may be very long: nothing is copied but what the
/// rule keeps.
fn hex_digits(text: &str) -> std::result::Result<[u8; 32], String> {
    let body = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if body.is_empty() {
        return Err("no hex digits".to_owned());
    }
    let significant = body.trim_start_matches('0');
    let significant = if significant.is_empty() {
        "0"
    } else {
        significant
    };
    if significant.len() > 32 {
        if let Some((pos, ch)) = significant
            .char_indices()
            .find(|(_, c)| !c.is_ascii_hexdigit())
        {
            let pos = text.len() - significant.len() + pos;
            return Err(format!("invalid hex digit {ch:?} at position {pos}"));
        }
        return Err(format!(
            "{} significant hex digits, more than 32 (128 bits)",
            significant.len()
        ));
    }
    let mut digits = [b'0'; 32];
    digits[32 - significant.len()..].copy_from_slice(significant.as_bytes());
    match Scru128Id::try_from_hex_ascii(&digits) {
        Ok(_) => Ok(digits),
        Err(_) => {
            let (pos, ch) = significant
                .char_indices()
                .find(|(_, c)| !c.is_ascii_hexdigit())
                .unwrap_or((0, '?'));
            let pos = text.len() - significant.len() + pos;
            // Positions in characters, as the other messages.
            let pos = text[..pos].chars().count();
            Err(format!(
                "invalid hex digit {ch:?} at position {pos}: expected 0-9 or a-f in either case"
            ))
        }
    }
}

/// `Scru128Id.fromHex`: true with the ID in the words of `slot`, or false, and
/// `hexError` says why.
#[napi(js_name = "fromHex")]
pub fn from_hex(env: Env, value: String, slot: u32) -> Result<bool> {
    match hex_digits(&value).map(|digits| Scru128Id::try_from_hex_ascii(&digits)) {
        Ok(Ok(id)) => write_words(&env, slot, id).map(|()| true),
        _ => Ok(false),
    }
}

/// Why `fromHex` gave `null`.
#[napi(js_name = "hexError")]
pub fn hex_error(value: String) -> String {
    match hex_digits(&value) {
        Ok(_) => "no error".to_owned(),
        Err(message) => message,
    }
}

// ---- generators ---------------------------------------------------------------------

/// The system clock, keeping its last reading for the logger's events.
#[derive(Clone)]
struct RecordingClock(Rc<Cell<u64>>);

impl Clock for RecordingClock {
    fn unix_ts_ms(&mut self) -> u64 {
        let now = SystemClock.unix_ts_ms();
        self.0.set(now);
        now
    }
}

/// The JavaScript function a user generator draws from during one `generate` call:
/// the environment and the function's value (valid during that call only), and
/// whether a draw has thrown (then the rest of the call draws nothing).
#[derive(Clone, Copy)]
struct Draw {
    env: sys::napi_env,
    function: sys::napi_value,
    failed: bool,
}

std::thread_local! {
    /// The draw of the `generate` call running on this thread (each worker thread has
    /// its own), if any. A draw function that calls another user generator sets this
    /// anew, and the inner call puts the outer one back.
    static DRAW: Cell<Option<Draw>> = const { Cell::new(None) };
}

/// A random source that calls the JavaScript function of the current [`Draw`]:
/// `rng.nextUint32()`, used as 1.0.1 used it.
#[derive(Clone, Copy)]
struct JsRandom;

impl JsRandom {
    /// Calls the function; `None` if there is none or it threw (the exception is
    /// pending, and the draw is marked failed).
    fn call() -> Option<(sys::napi_env, sys::napi_value)> {
        let mut draw = DRAW.with(Cell::get)?;
        if draw.failed {
            return None;
        }
        let mut result = ptr::null_mut();
        let mut undefined = ptr::null_mut();
        // SAFETY: `draw` was set by `NativeGenerator::generate` from its own arguments
        // and is cleared before it returns, so `env` and `function` are live values of
        // the call on this thread; `result` and `undefined` are valid out-pointers.
        let status = unsafe {
            let s = sys::napi_get_undefined(draw.env, &mut undefined);
            if s == sys::Status::napi_ok {
                sys::napi_call_function(
                    draw.env,
                    undefined,
                    draw.function,
                    0,
                    ptr::null(),
                    &mut result,
                )
            } else {
                s
            }
        };
        if status != sys::Status::napi_ok {
            draw.failed = true;
            DRAW.with(|d| d.set(Some(draw)));
            return None;
        }
        Some((draw.env, result))
    }

    /// Marks the current draw failed after an exception thrown here.
    fn fail() {
        DRAW.with(|d| {
            if let Some(mut draw) = d.get() {
                draw.failed = true;
                d.set(Some(draw));
            }
        });
    }
}

impl RandomSource for JsRandom {
    /// `per_gen_random`: 1.0.1 passed `nextUint32()` to `fromFields` as it was, so
    /// anything but an integer number from 0 to 2^32−1 is a `RangeError`.
    fn next_u32(&mut self) -> u32 {
        let Some((env, value)) = Self::call() else {
            return 0;
        };
        let mut kind = 0;
        let mut number = f64::NAN;
        // SAFETY: `env` and `value` are live values of the current call (see `call`);
        // the out-pointers are valid. The number is read only from a number.
        let ok = unsafe {
            sys::napi_typeof(env, value, &mut kind) == sys::Status::napi_ok
                && kind == sys::ValueType::napi_number
                && sys::napi_get_value_double(env, value, &mut number) == sys::Status::napi_ok
        };
        if ok && number.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&number) {
            return number as u32;
        }
        let message = c"invalid field value: nextUint32() returned a value that is not an integer from 0 to 4294967295";
        // SAFETY: `env` is live (see `call`); `message` is a NUL-terminated string.
        unsafe { sys::napi_throw_range_error(env, ptr::null(), message.as_ptr()) };
        Self::fail();
        0
    }

    /// `counter` and `perSecRandom`: 1.0.1 took `nextUint32() & mask`, so the value
    /// goes through JavaScript's `ToInt32` (a string of digits works, `NaN` is 0, a
    /// `BigInt` or `Symbol` is a `TypeError`); the library keeps the low `bits` bits.
    fn next_bits(&mut self, _bits: u32) -> u32 {
        let Some((env, value)) = Self::call() else {
            return 0;
        };
        let mut number = ptr::null_mut();
        let mut int = 0i32;
        // SAFETY: `env` and `value` are live values of the current call (see `call`);
        // the out-pointers are valid. `napi_coerce_to_number` runs `valueOf` and the
        // like, which may throw: then the status is not ok and the exception pending.
        let ok = unsafe {
            sys::napi_coerce_to_number(env, value, &mut number) == sys::Status::napi_ok
                && sys::napi_get_value_int32(env, number, &mut int) == sys::Status::napi_ok
        };
        if !ok {
            Self::fail();
            return 0;
        }
        int as u32
    }
}

/// What a generator's last ID told the logger (1.0.1's events).
const EVENT_NONE: u32 = 0;
/// The counter passed its maximum within one millisecond.
const EVENT_COUNTER_LIMIT: u32 = 1;
/// The clock went back beyond the rollback allowance: the generator started over.
const EVENT_RESET: u32 = 2;

enum Kind {
    /// `new Scru128Generator()`: the library's generator with its OS-seeded ChaCha12.
    Own(Box<Scru128Generator<DefaultRng, RecordingClock>>),
    /// `new Scru128Generator(rng)`: draws from `rng.nextUint32()`.
    User(Box<Scru128Generator<JsRandom, RecordingClock>>),
}

/// The native side of `Scru128Generator`.
#[napi]
pub struct NativeGenerator {
    kind: RefCell<Kind>,
    clock: Rc<Cell<u64>>,
    last: Cell<Option<Scru128Id>>,
    event: Cell<u32>,
}

#[napi]
impl NativeGenerator {
    /// A generator over the OS-seeded random source (`user` false) or over the draw
    /// function passed to each `generate` call (`user` true).
    #[napi(constructor)]
    pub fn new(env: Env, user: bool) -> Result<Self> {
        quiet_library_panics();
        let clock = Rc::new(Cell::new(0));
        let recording = RecordingClock(Rc::clone(&clock));
        let kind = if user {
            Kind::User(Box::new(Scru128Generator::with_rng_and_clock(
                JsRandom, recording,
            )))
        } else {
            let rng = catch_unwind(DefaultRng::new)
                .map_err(|payload| plain_error(&env, &panic_message(&*payload)))?;
            Kind::Own(Box::new(Scru128Generator::with_rng_and_clock(
                rng, recording,
            )))
        };
        Ok(Self {
            kind: RefCell::new(kind),
            clock,
            last: Cell::new(None),
            event: Cell::new(EVENT_NONE),
        })
    }

    /// The next ID. A user generator calls `draw` (which calls
    /// `rng.nextUint32()`) for each random number; if it throws, or returns a value
    /// 1.0.1 refused, the exception reaches the caller and the generator is left as
    /// it was before the call.
    ///
    /// The ID goes into the words of `slot`, written after the last draw (a draw
    /// function may itself make IDs through the same words).
    #[napi]
    pub fn generate(&self, env: Env, slot: u32, draw: Option<JsUnknown>) -> Result<()> {
        // napi-rs does not check the type of an optional function argument: a value
        // that is not a function made `napi_call_function` fail without an exception,
        // and the call return nothing, silently (found by a review).
        let draw = match draw {
            Some(value) if value.get_type()? == ValueType::Function => {
                // SAFETY: a function, as just checked.
                Some(unsafe { value.cast::<JsFunction>() })
            }
            Some(_) => {
                return Err(type_error(&env, "the draw function is not a function"));
            }
            None => None,
        };
        let Ok(mut kind) = self.kind.try_borrow_mut() else {
            return Err(plain_error(
                &env,
                "Scru128Generator called from its own random source",
            ));
        };
        let id = match &mut *kind {
            Kind::Own(generator) => catch_unwind(AssertUnwindSafe(|| generator.try_generate()))
                .map_err(|payload| plain_error(&env, &panic_message(&*payload)))?
                .map_err(|err| generate_error(&env, err))?,
            Kind::User(generator) => {
                let Some(draw) = draw else {
                    return Err(type_error(&env, "a user generator needs its draw function"));
                };
                let before = generator.clone();
                // SAFETY: `draw` is an argument of this call: its raw value is live
                // until the call returns, and DRAW is reset before that.
                let function = unsafe { draw.raw() };
                let outer = DRAW.with(|d| {
                    d.replace(Some(Draw {
                        env: env.raw(),
                        function,
                        failed: false,
                    }))
                });
                let outcome = catch_unwind(AssertUnwindSafe(|| generator.try_generate()));
                let failed = DRAW.with(|d| d.replace(outer)).is_some_and(|d| d.failed);
                match outcome {
                    _ if failed => {
                        **generator = *before;
                        return Err(Error::from_status(Status::PendingException));
                    }
                    Ok(Ok(id)) => id,
                    Ok(Err(err)) => return Err(generate_error(&env, err)),
                    Err(payload) => {
                        **generator = *before;
                        return Err(plain_error(&env, &panic_message(&*payload)));
                    }
                }
            }
        };
        drop(kind);
        self.event.set(self.event_of(id));
        self.last.set(Some(id));
        write_words(&env, slot, id)
    }

    /// What the last `generate` told the logger: 0 nothing, 1 the counter limit
    /// (1.0.1's info), 2 a reset after the clock went back (1.0.1's warning).
    #[napi(js_name = "lastEvent")]
    pub fn last_event(&self) -> u32 {
        self.event.get()
    }
}

impl NativeGenerator {
    fn event_of(&self, id: Scru128Id) -> u32 {
        let Some(last) = self.last.get() else {
            return EVENT_NONE;
        };
        let now = self.clock.get().saturating_sub(TIMESTAMP_BIAS);
        if id <= last {
            EVENT_RESET
        } else if last.counter() == MAX_COUNTER
            && now <= last.timestamp()
            && id.timestamp() == last.timestamp() + 1
        {
            EVENT_COUNTER_LIMIT
        } else {
            EVENT_NONE
        }
    }
}
