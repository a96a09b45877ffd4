//! The native engine of the npm package `scru128-v1` (a drop-in for npm `scru128`
//! 1.0.1): a Node-API addon over the `scru128` crate's codec and process-wide
//! generator and the npm API's own rules (`scru128-js-api`, shared with the
//! WebAssembly engine in `wasm/`). `lib/native.js` adapts it to the engine interface
//! that `lib/api.js` uses.
//!
//! An ID crosses as its four field values, written into a block of numbers that the
//! addon makes over memory of its own (`newIo`), and text as JavaScript strings, so that
//! no object is made through Node-API. The addon throws `TypeError` and `RangeError`
//! itself; where 1.0.1 threw a `SyntaxError` (which N-API 6 cannot throw) it returns
//! the message and the JavaScript side throws.
//!
//! The functions check the types of their arguments and throw for anything else
//! (`TypeError`, or napi-rs's argument errors), so that no JavaScript value can crash
//! the process (test/hostile.test.js calls them directly).

#![deny(unsafe_op_in_unsafe_fn)]

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use napi::{
    Env, Error, JsFunction, JsObject, JsString, JsUnknown, NapiRaw, NapiValue, Result, Status,
    ValueType, sys,
};
use napi_derive::napi;
use scru128::__private::quiet_library_panics;
use scru128::{Clock, DefaultRng, Scru128Generator, Scru128Id, SystemClock};
use scru128_js_api::{self as api, HexReader, Message, STATE_LEN, UserRandom};

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

/// A generator's error as JavaScript sees it (a `RangeError`, as 1.0.1's `fromFields`
/// threw for a clock outside the SCRU128 range).
fn generate_error(env: &Env, err: &scru128::GenerateError) -> Error {
    let mut message = Message::new();
    api::generate_message(err, &mut message);
    range_error(env, message.as_str())
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
        Err(err) => generate_error(env, &err),
        Ok(_) => plain_error(env, &panic_message(payload)),
    }
}

// ---- the number blocks ------------------------------------------------------------------

/// The block an ID crosses in: `numbers[0..4]` an ID's fields, `numbers[4..9]` a
/// generator's state, `numbers[9]` the logger event of the last `step`; `bytes` an
/// ID's 16 bytes. The same layout as the WebAssembly engine's (`wasm/src/lib.rs`).
#[repr(C)]
struct Io {
    numbers: [f64; 16],
    bytes: [u8; 16],
}

/// Bytes of an [`Io`].
const IO_SIZE: usize = std::mem::size_of::<Io>();

std::thread_local! {
    /// The blocks made by loads of the package on this thread (each worker thread has
    /// its own list).
    static BLOCKS: RefCell<Vec<*mut Io>> = const { RefCell::new(Vec::new()) };
}

/// `newIo()`: a new block, `[slot, buffer]`, `buffer` an `ArrayBuffer` over [`Io`] in
/// the addon's own memory, never freed (144 bytes per load of the package in each
/// thread), so that whatever JavaScript does with the buffer (transfer it, let it be
/// collected) the addon only ever writes and reads memory that exists. (A review found
/// that an array handed in by JavaScript could have its memory moved or shrunk away
/// under the addon, and crash the process.)
#[napi(js_name = "newIo")]
pub fn new_io(env: Env) -> Result<JsObject> {
    // 1.0.1 kept its last timestamp through any clock step back: so does this copy of
    // the library's process-wide generator (test/clock.test.js).
    scru128::__private::set_process_rollback_allowance(api::ROLLBACK_ALLOWANCE);
    let data: *mut Io = Box::leak(Box::new(Io {
        numbers: [0.0; 16],
        bytes: [0; 16],
    }));
    let mut buffer = ptr::null_mut();
    // SAFETY: `data` is leaked memory of IO_SIZE bytes, valid for the life of the
    // process, which the buffer only views (no finalizer: nothing is freed); the
    // out-pointer is valid.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            env.raw(),
            data.cast(),
            IO_SIZE,
            None,
            ptr::null_mut(),
            &mut buffer,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(Error::from_status(Status::from(status)));
    }
    let slot = BLOCKS.with(|blocks| {
        let mut blocks = blocks.borrow_mut();
        blocks.push(data);
        (blocks.len() - 1) as u32
    });
    let mut pair = env.create_array_with_length(2)?;
    pair.set_element(0, env.create_uint32(slot)?)?;
    // SAFETY: `buffer` is the live array buffer just made in this environment.
    pair.set_element(1, unsafe {
        JsUnknown::from_raw_unchecked(env.raw(), buffer)
    })?;
    Ok(pair)
}

/// Runs `f` on the block of `slot`.
#[inline]
fn with_io<T>(env: &Env, slot: u32, f: impl FnOnce(&mut Io) -> T) -> Result<T> {
    let block = BLOCKS
        .with(|blocks| blocks.borrow().get(slot as usize).copied())
        .ok_or_else(|| type_error(env, "no such block"))?;
    // SAFETY: `block` is memory `newIo` leaked for the life of the process; only this
    // thread uses it (the list is per thread), JavaScript only between calls, and `f`
    // calls no JavaScript, so no other reference to it exists meanwhile.
    Ok(f(unsafe { &mut *block }))
}

/// The ID whose fields are in the block of `slot`; a `RangeError` if they are not an
/// ID's (a user changed them).
#[inline]
fn id_in(env: &Env, slot: u32) -> Result<Scru128Id> {
    let fields = with_io(env, slot, |io| {
        [io.numbers[0], io.numbers[1], io.numbers[2], io.numbers[3]]
    })?;
    let mut message = Message::new();
    api::from_fields(fields[0], fields[1], fields[2], fields[3], &mut message)
        .ok_or_else(|| range_error(env, message.as_str()))
}

#[inline]
fn put_fields(env: &Env, slot: u32, id: Scru128Id) -> Result<()> {
    with_io(env, slot, |io| {
        io.numbers[..4].copy_from_slice(&api::fields_of(id))
    })
}

// ---- the process-wide generator -----------------------------------------------------------

/// `scru128()`: a new ID from the library's process-wide generator (every thread's IDs
/// increase; no two threads of the process repeat each other), into the block.
#[napi(js_name = "newId")]
pub fn new_id(env: Env, slot: u32) -> Result<()> {
    match catch_unwind(scru128::scru128) {
        Ok(id) => put_fields(&env, slot, id),
        Err(payload) => Err(global_failure(&env, &*payload)),
    }
}

/// `scru128String()`: a new ID from the process-wide generator, as its string.
#[napi(js_name = "newString")]
pub fn new_string(env: Env) -> Result<JsString> {
    match catch_unwind(scru128::scru128) {
        Ok(id) => id_string(&env, id),
        Err(payload) => Err(global_failure(&env, &*payload)),
    }
}

// ---- the codec ----------------------------------------------------------------------------

/// `toString()`: the canonical string of the ID in the block.
#[napi(js_name = "encode")]
pub fn encode(env: Env, slot: u32) -> Result<JsString> {
    id_string(&env, id_in(&env, slot)?)
}

/// Reads a JavaScript string of exactly 26 UTF-16 code units; `None` if `value` is not
/// a string or has another length.
fn read_26(env: &Env, value: &JsUnknown) -> Result<Option<[u16; 26]>> {
    if value.get_type()? != ValueType::String {
        return Ok(None);
    }
    let mut units = [0u16; 27];
    // At most 26 units and a NUL are written.
    let len = copy_utf16(env, value, &mut units)?;
    // A longer string is cut at 26 units: its length must be asked separately.
    if len != 26 || utf16_len(env, value)? != 26 {
        return Ok(None);
    }
    let mut out = [0u16; 26];
    out.copy_from_slice(&units[..26]);
    Ok(Some(out))
}

/// Copies the UTF-16 code units of `value`, a string of `env` (the caller checked), into
/// `units`, as many as fit with a NUL after them; returns how many were copied.
fn copy_utf16(env: &Env, value: &JsUnknown, units: &mut [u16]) -> Result<usize> {
    let mut len = 0usize;
    // SAFETY: `value` is a string of `env`; `units` is valid for `units.len()` code
    // units, the size passed.
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
    Ok(len)
}

/// The length of a JavaScript string in UTF-16 code units (no copy).
fn utf16_len(env: &Env, value: &JsUnknown) -> Result<usize> {
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

/// `Scru128Id.fromString` of a string of 26 code units: the fields into the block; 0
/// if the string is the canonical text already, 1 if not, -1 if it is not a valid ID
/// (or not a string of 26 code units), and `parseMessage` says why.
#[napi(js_name = "parse")]
pub fn parse(env: Env, value: JsUnknown, slot: u32) -> Result<i32> {
    let Some(units) = read_26(&env, &value)? else {
        return Ok(-1);
    };
    match api::parse_units(&units) {
        Some((id, canonical)) => {
            put_fields(&env, slot, id)?;
            Ok(if canonical { 0 } else { 1 })
        }
        None => Ok(-1),
    }
}

/// Why `parse` refused a string of 26 code units.
#[napi(js_name = "parseMessage")]
pub fn parse_message(env: Env, value: JsUnknown) -> Result<String> {
    let Some(units) = read_26(&env, &value)? else {
        return Err(type_error(&env, "expected a string of 26 characters"));
    };
    let mut message = Message::new();
    api::parse_message(&units, &mut message);
    Ok(message.as_str().to_owned())
}

/// `Scru128Id.fromFields` of four integers: `null`, or the message that names the
/// field out of its range.
#[napi(js_name = "checkFields")]
pub fn check_fields(
    timestamp: f64,
    counter: f64,
    per_sec_random: f64,
    per_gen_random: f64,
) -> Option<String> {
    let mut message = Message::new();
    match api::from_fields(
        timestamp,
        counter,
        per_sec_random,
        per_gen_random,
        &mut message,
    ) {
        Some(_) => None,
        None => Some(message.as_str().to_owned()),
    }
}

/// `Scru128Id.fromArrayBuffer`: the fields of the 16 bytes in the block.
#[napi(js_name = "fromBytes")]
pub fn from_bytes(env: Env, slot: u32) -> Result<()> {
    let bytes = with_io(&env, slot, |io| io.bytes)?;
    put_fields(&env, slot, Scru128Id::from_bytes(bytes))
}

/// `toArrayBuffer()`: the 16 bytes of the ID in the block, into the block.
#[napi(js_name = "toBytes")]
pub fn to_bytes(env: Env, slot: u32) -> Result<()> {
    let id = id_in(&env, slot)?;
    with_io(&env, slot, |io| io.bytes = id.to_bytes())
}

/// `toHex()`: `"0x"` and 32 lowercase hex digits of the ID in the block.
#[napi(js_name = "toHex")]
pub fn to_hex(env: Env, slot: u32) -> Result<JsString> {
    let id = id_in(&env, slot)?;
    env.create_string_latin1(&api::to_hex(id))
}

/// `Scru128Id.fromHex`: `null` with the ID's fields in the block, or the message.
#[napi(js_name = "fromHex")]
pub fn from_hex(env: Env, value: JsUnknown, slot: u32) -> Result<Option<String>> {
    if value.get_type()? != ValueType::String {
        return Err(type_error(&env, "expected a string"));
    }
    let len = utf16_len(&env, &value)?;
    // A hex form is at most 34 units unless it has leading zeros: those fit on the
    // stack; a longer text is copied to the heap whole.
    let mut short = [0u16; 64];
    let mut long = Vec::new();
    let units: &mut [u16] = if len < short.len() {
        &mut short
    } else {
        long.resize(len + 1, 0);
        &mut long
    };
    let written = copy_utf16(&env, &value, units)?;
    let mut reader = HexReader::new();
    reader.feed(&units[..written]);
    let mut message = Message::new();
    match reader.finish(&mut message) {
        Some(id) => put_fields(&env, slot, id).map(|()| None),
        None => Ok(Some(message.as_str().to_owned())),
    }
}

// ---- generator objects --------------------------------------------------------------------

/// The JavaScript function a user generator draws from during one `step` call: the
/// environment and the function's value (valid during that call only), and whether a
/// draw has thrown (then the rest of the call draws nothing).
#[derive(Clone, Copy)]
struct Draw {
    env: sys::napi_env,
    function: sys::napi_value,
    failed: bool,
}

std::thread_local! {
    /// The draw of the `step` call running on this thread (each worker thread has its
    /// own), if any. A draw function that calls another user generator sets this anew,
    /// and the inner call puts the outer one back.
    static DRAW: Cell<Option<Draw>> = const { Cell::new(None) };

    /// The random source of `new Scru128Generator()` objects on this thread: the
    /// library's OS-seeded ChaCha12, shared by all of them (a generator's state is
    /// kept in its JavaScript object, so that it is collected like any object).
    static RNG: RefCell<Option<DefaultRng>> = const { RefCell::new(None) };
}

/// `draw(bits)` of the current [`Draw`]: the number it returns (see
/// `scru128_js_api::UserRandom`), or `NaN` if there is none or it threw (the exception
/// is pending, and the draw is marked failed).
fn call_draw(bits: u32) -> f64 {
    let Some(mut draw) = DRAW.with(Cell::get) else {
        return f64::NAN;
    };
    if draw.failed {
        return f64::NAN;
    }
    let mut result = ptr::null_mut();
    let mut undefined = ptr::null_mut();
    let mut arg = ptr::null_mut();
    let mut number = f64::NAN;
    let mut kind = 0;
    // SAFETY: `draw` was set by `step` from its own arguments and is reset before it
    // returns, so `env` and `function` are live values of the call on this thread; the
    // out-pointers are valid; the number is read only from a number.
    let ok = unsafe {
        sys::napi_get_undefined(draw.env, &mut undefined) == sys::Status::napi_ok
            && sys::napi_create_uint32(draw.env, bits, &mut arg) == sys::Status::napi_ok
            && sys::napi_call_function(draw.env, undefined, draw.function, 1, &arg, &mut result)
                == sys::Status::napi_ok
            && sys::napi_typeof(draw.env, result, &mut kind) == sys::Status::napi_ok
            && (kind != sys::ValueType::napi_number
                || sys::napi_get_value_double(draw.env, result, &mut number)
                    == sys::Status::napi_ok)
    };
    if !ok {
        draw.failed = true;
        DRAW.with(|d| d.set(Some(draw)));
    }
    number
}

/// `step(slot, now, draw)`: one `generate()` at `now` (`Date.now()`, as 1.0.1 read the
/// clock) of a `Scru128Generator` whose state is in the block (`numbers[4..9]`): the ID,
/// the new state and the logger event go back into it. Draws from the thread's OS-seeded source, or, if `draw` is a function, from it
/// (`draw(bits)` calls `rng.nextUint32()`). If `draw` throws, the exception reaches the
/// caller and the block keeps the old state; a value 1.0.1 refused is a `RangeError`.
#[napi]
pub fn step(env: Env, slot: u32, now: f64, draw: Option<JsUnknown>) -> Result<()> {
    quiet_library_panics();
    // napi-rs does not check the type of an optional function argument: a value that
    // is not a function made `napi_call_function` fail without an exception, and the
    // call return nothing, silently (found by a review).
    let draw = match draw {
        Some(value) if value.get_type()? == ValueType::Function => {
            // SAFETY: a function, as just checked.
            Some(unsafe { value.cast::<JsFunction>() })
        }
        Some(value) if value.get_type()? == ValueType::Undefined => None,
        Some(_) => return Err(type_error(&env, "the draw function is not a function")),
        None => None,
    };
    // The state is read before anything is drawn: the draw function may make IDs,
    // through this same block, before this call writes its results.
    let mut state = [0.0; STATE_LEN];
    with_io(&env, slot, |io| {
        state.copy_from_slice(&io.numbers[4..4 + STATE_LEN])
    })?;
    // `Date.now()`, as 1.0.1 read it (`as` saturates: NaN and negatives are 0, which
    // the generator refuses as before 2020).
    let now = now as u64;
    let (id, event) = match draw {
        None => {
            let outcome = RNG.with(|rng| {
                let Ok(mut rng) = rng.try_borrow_mut() else {
                    // Only a panic inside the draw could leave it borrowed.
                    return Err(plain_error(&env, "scru128: the random source is busy"));
                };
                let rng = match &mut *rng {
                    Some(rng) => rng,
                    empty => empty.insert(
                        catch_unwind(DefaultRng::new)
                            .map_err(|payload| plain_error(&env, &panic_message(&*payload)))?,
                    ),
                };
                catch_unwind(AssertUnwindSafe(|| api::step(&mut state, now, rng)))
                    .map_err(|payload| plain_error(&env, &panic_message(&*payload)))
            })?;
            outcome.map_err(|err| generate_error(&env, &err))?
        }
        Some(draw) => {
            // SAFETY: `draw` is an argument of this call: its raw value is live until
            // the call returns, and DRAW is reset before that.
            let function = unsafe { draw.raw() };
            let outer = DRAW.with(|d| {
                d.replace(Some(Draw {
                    env: env.raw(),
                    function,
                    failed: false,
                }))
            });
            let mut rng = UserRandom::new(call_draw);
            let outcome = catch_unwind(AssertUnwindSafe(|| api::step(&mut state, now, &mut rng)));
            let failed = DRAW.with(|d| d.replace(outer)).is_some_and(|d| d.failed);
            match outcome {
                _ if failed => return Err(Error::from_status(Status::PendingException)),
                _ if rng.refused => return Err(range_error(&env, api::REFUSED_MESSAGE)),
                Ok(Ok(done)) => done,
                Ok(Err(err)) => return Err(generate_error(&env, &err)),
                Err(payload) => return Err(plain_error(&env, &panic_message(&*payload))),
            }
        }
    };
    with_io(&env, slot, |io| {
        io.numbers[..4].copy_from_slice(&api::fields_of(id));
        io.numbers[4..4 + STATE_LEN].copy_from_slice(&state);
        io.numbers[9] = f64::from(event);
    })
}
