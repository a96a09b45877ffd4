//! The WebAssembly engine of the npm package `scru128-v1`: the library's codec and
//! generator, and the npm API's own rules (`scru128-js-api`, shared with the
//! Node-API addon), built for `wasm32-unknown-unknown` without wasm-bindgen. Loaded by
//! `node/lib/wasm.js` where no native addon is (browsers, Deno, other platforms).
//!
//! The boundary: JavaScript and this module share one block of the module's memory,
//! [`Io`] (its address from [`io`]): numbers (an ID's four fields, a generator's
//! state), an ID's 16 bytes, text (ASCII, or a message in UTF-8) and UTF-16 code units
//! from JavaScript strings. The exports read their inputs from it and write their
//! results to it; a negative return value is the length of an error message in
//! `text`. The module imports one function, `draw(bits)` from `scru128` (the current
//! user random source's `nextUint32()`, see `scru128_js_api::UserRandom`). The time
//! comes as an argument: `Date.now()`, read by the caller once per ID. The random
//! bytes of `scru128()` and of `new Scru128Generator()` come from a pool that the
//! caller fills with `crypto.getRandomValues` between calls, when a call says it is
//! low ([`REFILL`]): so no JavaScript runs while the process-wide generator makes an
//! ID, and nothing can call back into it.
//!
//! The module has no allocator and never grows its memory. It runs on one thread
//! (each worker has its own instance). An import may run JavaScript that calls back
//! into the module (a user's `nextUint32()` may make IDs): so no Rust reference to a
//! static is held across an import call; the statics are read into locals, and
//! written back, through raw pointers.

#![cfg_attr(target_arch = "wasm32", no_std)]

use core::ptr::addr_of_mut;

use scru128::{Clock, RandomSource, Scru128Generator, Scru128Id};
use scru128_js_api::{self as api, HexReader, Message, STATE_LEN, UserRandom};

/// Code units [`Io::units`] holds: a piece of a hex text (see [`hex_feed`]).
pub const UNITS: usize = 4096;

/// The block of memory JavaScript and the module share.
#[repr(C)]
pub struct Io {
    /// `0..4`: an ID's fields (timestamp, counter, perSecRandom, perGenRandom);
    /// `4..9`: a generator's state; `9`: the logger event of the last [`step`].
    pub numbers: [f64; 16],
    /// An ID's 16 bytes, big-endian.
    pub bytes: [u8; 16],
    /// An ID's 26 characters, a hex form's 34, or a message (UTF-8).
    pub text: [u8; 256],
    /// UTF-16 code units from a JavaScript string.
    pub units: [u16; UNITS],
}

static mut IO: Io = Io {
    numbers: [0.0; 16],
    bytes: [0; 16],
    text: [0; 256],
    units: [0; UNITS],
};

/// Runs `f` on [`Io`]. `f` must call no import: the import's JavaScript could call an
/// export, which would use `Io` too while `f` holds it.
#[inline]
fn with_io<T>(f: impl FnOnce(&mut Io) -> T) -> T {
    // SAFETY: the module runs on one thread, and no other reference to `IO` exists
    // while `f` runs: every use goes through this function, and `f` calls nothing that
    // could come back into the module.
    unsafe { f(&mut *addr_of_mut!(IO)) }
}

/// The address of [`Io`].
#[unsafe(no_mangle)]
pub extern "C" fn io() -> *mut Io {
    addr_of_mut!(IO)
}

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "scru128")]
unsafe extern "C" {
    /// The current user random source's next value (see `UserRandom`).
    fn draw(bits: u32) -> f64;
}

// Not called on other targets (nothing loads this crate there); they let the crate be
// checked and linted on the host.
#[cfg(not(target_arch = "wasm32"))]
unsafe fn draw(_bits: u32) -> f64 {
    unreachable!("the WebAssembly engine runs only as WebAssembly")
}

#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // Nothing here panics on any input (the JavaScript tests give every kind); if it
    // did, the call traps and JavaScript sees a `WebAssembly.RuntimeError`.
    core::arch::wasm32::unreachable()
}

// ---- randomness ---------------------------------------------------------------------------

/// Words of `crypto.getRandomValues` output not handed out yet: `POOL[NEXT..]`.
const POOL_WORDS: usize = 256;
static mut POOL: [u32; POOL_WORDS] = [0; POOL_WORDS];
static mut NEXT: usize = POOL_WORDS;
/// The most words one ID draws: a counter, a `perSecRandom` and a `perGenRandom`.
const WORDS_PER_ID: usize = 3;

/// What a call returns when the pool may not last for one more ID: the caller fills it
/// ([`pool`], [`pool_filled`]) and calls again. Positive, so no message length.
pub const REFILL: i32 = 0x7fff_ffff;

/// Whether the pool has the words of one more ID.
#[inline]
fn pool_ready() -> bool {
    // SAFETY: one thread; a plain read.
    unsafe { addr_of_mut!(NEXT).read() + WORDS_PER_ID <= POOL_WORDS }
}

/// The address of the pool, for the caller to fill with `crypto.getRandomValues`
/// (`4 * 256` bytes), then to call [`pool_filled`].
#[unsafe(no_mangle)]
pub extern "C" fn pool() -> *mut u32 {
    addr_of_mut!(POOL).cast()
}

/// The pool was filled: its words are all unread.
#[unsafe(no_mangle)]
pub extern "C" fn pool_filled() {
    // SAFETY: one thread; a plain store.
    unsafe { addr_of_mut!(NEXT).write(0) };
}

/// The random source of `scru128()` and of `new Scru128Generator()`: the pool's words.
/// Each call that draws from it first checks that it holds the words of one ID
/// ([`pool_ready`]).
struct Pool;

impl RandomSource for Pool {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        // SAFETY: the module runs on one thread; the statics are read and written here
        // by value through raw pointers, and nothing runs while a call draws (no
        // import is called in between).
        unsafe {
            let next = addr_of_mut!(NEXT);
            let i = next.read();
            if i >= POOL_WORDS {
                // Every call checks `pool_ready` first: never a word that is not
                // random.
                #[cfg(target_arch = "wasm32")]
                core::arch::wasm32::unreachable();
                #[cfg(not(target_arch = "wasm32"))]
                unreachable!("the pool ran out");
            }
            next.write(i + 1);
            addr_of_mut!(POOL).cast::<u32>().add(i).read()
        }
    }
}

/// The random source of a generator object: the pool, or the user's `nextUint32()`
/// (one type for both, so that the generator's code is in the module once).
struct Draws<F> {
    user: bool,
    from_user: UserRandom<F>,
}

impl<F: FnMut(u32) -> f64> RandomSource for Draws<F> {
    fn next_u32(&mut self) -> u32 {
        if self.user {
            self.from_user.next_u32()
        } else {
            Pool.next_u32()
        }
    }

    fn next_bits(&mut self, bits: u32) -> u32 {
        if self.user {
            self.from_user.next_bits(bits)
        } else {
            Pool.next_bits(bits)
        }
    }
}

/// A clock the generators never read: the time is each call's argument.
struct GivenTime;

impl Clock for GivenTime {
    fn unix_ts_ms(&mut self) -> u64 {
        0
    }
}

/// `Date.now()` as the library takes it (`as` saturates: NaN and negatives are 0,
/// which the generator refuses as before 2020).
#[inline]
fn ms(now: f64) -> u64 {
    now as u64
}

// ---- results ------------------------------------------------------------------------------

/// Puts `message` into `text`; returns minus its length.
fn fail(message: &Message) -> i32 {
    let bytes = message.as_str().as_bytes();
    // A message is at most 240 bytes, `text` 256.
    with_io(|io| io.text[..bytes.len()].copy_from_slice(bytes));
    -(bytes.len() as i32)
}

fn fail_with(write: impl FnOnce(&mut Message)) -> i32 {
    let mut message = Message::new();
    write(&mut message);
    fail(&message)
}

#[inline]
fn put_fields(id: Scru128Id) {
    with_io(|io| io.numbers[..4].copy_from_slice(&api::fields_of(id)));
}

#[inline]
fn put_text(text: &[u8]) {
    with_io(|io| io.text[..text.len()].copy_from_slice(text));
}

/// The ID whose fields are in `numbers[0..4]`, or minus the length of the message.
#[inline]
fn id_in_io() -> Result<Scru128Id, i32> {
    let fields = with_io(|io| [io.numbers[0], io.numbers[1], io.numbers[2], io.numbers[3]]);
    let mut message = Message::new();
    api::from_fields(fields[0], fields[1], fields[2], fields[3], &mut message)
        .ok_or_else(|| fail(&message))
}

// ---- the process-wide generator -------------------------------------------------------------

/// `scru128()`'s generator, made at the first call.
static mut GLOBAL: Option<Scru128Generator<Pool, GivenTime>> = None;

/// The next ID of the process-wide generator, or the code to return: [`REFILL`], or
/// minus the length of a message.
fn global_id(now: f64) -> Result<Scru128Id, i32> {
    if !pool_ready() {
        return Err(REFILL);
    }
    // SAFETY: one thread, and no JavaScript runs while the reference is held (the
    // pool needs no refill, and nothing else calls an import), so it is the only one.
    let global = unsafe { &mut *addr_of_mut!(GLOBAL) };
    let generator = global.get_or_insert_with(|| {
        let mut g = Scru128Generator::with_rng_and_clock(Pool, GivenTime);
        g.set_rollback_allowance(api::ROLLBACK_ALLOWANCE);
        g
    });
    generator
        .try_generate_at(ms(now))
        .map_err(|err| fail_with(|m| api::generate_message(&err, m)))
}

/// `scru128()`: a new ID's fields into `numbers[0..4]`; 0, or minus the length of a
/// message (a clock outside the SCRU128 range).
#[unsafe(no_mangle)]
pub extern "C" fn scru128(now: f64) -> i32 {
    match global_id(now) {
        Ok(id) => {
            put_fields(id);
            0
        }
        Err(code) => code,
    }
}

/// `scru128String()`: a new ID's 26 characters into `text[0..26]`.
#[unsafe(no_mangle)]
pub extern "C" fn scru128_string(now: f64) -> i32 {
    match global_id(now) {
        Ok(id) => {
            put_text(id.encode().as_bytes());
            0
        }
        Err(code) => code,
    }
}

// ---- generator objects ----------------------------------------------------------------------

/// One `generate()` of a `Scru128Generator` whose state is in `numbers[4..9]`: the ID
/// into `numbers[0..4]`, the new state into `numbers[4..9]`, the logger event into
/// `numbers[9]`. Draws from the pool (`user` 0; [`REFILL`] if it is low) or from the
/// import `draw` (`user` 1). 0, or minus the length of a message.
#[unsafe(no_mangle)]
pub extern "C" fn step(now: f64, user: i32) -> i32 {
    if user == 0 && !pool_ready() {
        return REFILL;
    }
    // The inputs are read before anything is drawn: a user's `nextUint32()` may make
    // IDs, through this same block, before this call writes its results.
    let mut state = [0.0; STATE_LEN];
    with_io(|io| state.copy_from_slice(&io.numbers[4..4 + STATE_LEN]));
    let mut rng = Draws {
        user: user != 0,
        // SAFETY: `draw` is the JavaScript import; it catches whatever the user's code
        // throws and returns a number.
        from_user: UserRandom::new(|bits| unsafe { draw(bits) }),
    };
    let outcome = api::step(&mut state, ms(now), &mut rng);
    if rng.from_user.refused {
        return fail_with(|m| {
            m.push_str(api::REFUSED_MESSAGE);
        });
    }
    match outcome {
        Ok((id, event)) => {
            with_io(|io| {
                io.numbers[..4].copy_from_slice(&api::fields_of(id));
                io.numbers[4..4 + STATE_LEN].copy_from_slice(&state);
                io.numbers[9] = f64::from(event);
            });
            0
        }
        Err(err) => fail_with(|m| api::generate_message(&err, m)),
    }
}

// ---- the codec -------------------------------------------------------------------------------

/// `toString()`: the 26 characters of the ID whose fields are in `numbers[0..4]`, into
/// `text[0..26]`; 0, or minus the length of a message (fields no ID has).
#[unsafe(no_mangle)]
pub extern "C" fn encode() -> i32 {
    match id_in_io() {
        Ok(id) => {
            put_text(id.encode().as_bytes());
            0
        }
        Err(code) => code,
    }
}

/// `Scru128Id.fromString` of the 26 code units in `units[0..26]`: the fields into
/// `numbers[0..4]`; 0 if the units are the canonical text already, 1 if not (then
/// the canonical text is in `text[0..26]`), or minus the length of a message.
#[unsafe(no_mangle)]
pub extern "C" fn parse() -> i32 {
    let mut units = [0u16; 26];
    with_io(|io| units.copy_from_slice(&io.units[..26]));
    match api::parse_units(&units) {
        Some((id, canonical)) => {
            put_fields(id);
            if canonical {
                0
            } else {
                put_text(id.encode().as_bytes());
                1
            }
        }
        None => fail_with(|m| api::parse_message(&units, m)),
    }
}

/// [`parse`] of 26 code units that are each below 256, handed in as arguments, four to
/// an argument (the first in the low byte; `g` holds the last two): no copy through
/// memory. Returns as [`parse`], -1 for text that is not an ID (its message comes
/// from [`parse`]).
#[unsafe(no_mangle)]
pub extern "C" fn parse_packed(a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32) -> i32 {
    let mut bytes = [0u8; 26];
    for (chunk, word) in bytes.chunks_mut(4).zip([a, b, c, d, e, f, g]) {
        chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
    }
    match api::parse_bytes(&bytes) {
        Some((id, canonical)) => {
            put_fields(id);
            i32::from(!canonical)
        }
        None => -1,
    }
}

/// `Scru128Id.fromFields` of four integers: their check; 0, or minus the length of
/// the message that names the field out of range.
#[unsafe(no_mangle)]
pub extern "C" fn check_fields(timestamp: f64, counter: f64, per_sec: f64, per_gen: f64) -> i32 {
    let mut message = Message::new();
    match api::from_fields(timestamp, counter, per_sec, per_gen, &mut message) {
        Some(_) => 0,
        None => fail(&message),
    }
}

/// `Scru128Id.fromArrayBuffer`: the fields of the 16 bytes in `bytes` into
/// `numbers[0..4]`.
#[unsafe(no_mangle)]
pub extern "C" fn from_bytes() {
    let bytes = with_io(|io| io.bytes);
    put_fields(Scru128Id::from_bytes(bytes));
}

/// `toArrayBuffer()`: the 16 bytes of the ID whose fields are in `numbers[0..4]`,
/// into `bytes`; 0, or minus the length of a message.
#[unsafe(no_mangle)]
pub extern "C" fn to_bytes() -> i32 {
    match id_in_io() {
        Ok(id) => {
            with_io(|io| io.bytes = id.to_bytes());
            0
        }
        Err(code) => code,
    }
}

/// `toHex()`: `"0x"` and 32 lowercase hex digits into `text[0..34]`; 0, or minus the
/// length of a message.
#[unsafe(no_mangle)]
pub extern "C" fn to_hex() -> i32 {
    match id_in_io() {
        Ok(id) => {
            put_text(&api::to_hex(id));
            0
        }
        Err(code) => code,
    }
}

/// The hex text being read by [`hex_feed`].
static mut HEX: HexReader = HexReader::new();

/// `Scru128Id.fromHex`, first call: starts reading a text.
#[unsafe(no_mangle)]
pub extern "C" fn hex_start() {
    // SAFETY: as in `hex_feed`.
    unsafe { *addr_of_mut!(HEX) = HexReader::new() };
}

/// Reads the next `len` code units of the text, from `units[0..len]`.
#[unsafe(no_mangle)]
pub extern "C" fn hex_feed(len: usize) {
    let len = len.min(UNITS);
    // SAFETY: one thread, and `feed` calls nothing that could come back into the module.
    let hex = unsafe { &mut *addr_of_mut!(HEX) };
    with_io(|io| hex.feed(&io.units[..len]));
}

/// The end of the text: the ID's fields into `numbers[0..4]`; 0, or minus the length
/// of the message.
#[unsafe(no_mangle)]
pub extern "C" fn hex_finish() -> i32 {
    let mut message = Message::new();
    // SAFETY: as in `hex_feed`.
    let id = unsafe { (*addr_of_mut!(HEX)).finish(&mut message) };
    match id {
        Some(id) => {
            put_fields(id);
            0
        }
        None => fail(&message),
    }
}
