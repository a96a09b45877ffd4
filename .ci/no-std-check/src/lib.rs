//! Uses the ID type, the codecs (base-32, hex, UUID form) and a generator with its own
//! sources, without `std` or `alloc`.
#![no_std]

use scru128::{Scru128Generator, Scru128Id};

/// Generates an ID from a caller's clock and seed and writes its text to `out`.
#[unsafe(no_mangle)]
pub extern "C" fn scru128_demo(unix_ts_ms: u64, seed: u32, out: &mut [u8; 26]) -> bool {
    let mut state = seed | 1;
    let rng = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let mut g = Scru128Generator::with_rng_and_clock(rng, move || unix_ts_ms);
    let Ok(id) = g.try_generate() else {
        return false;
    };
    out.copy_from_slice(id.encode().as_bytes());
    Scru128Id::try_from_ascii(out).is_ok_and(|parsed| parsed == id)
}

/// Writes the UUID form of an ID's 128-bit value and reads it back, also as hex.
#[unsafe(no_mangle)]
pub extern "C" fn scru128_uuid_demo(value: &[u8; 16], out: &mut [u8; 36]) -> bool {
    let id = Scru128Id::from_bytes(*value);
    out.copy_from_slice(id.encode_uuid().as_bytes());
    let hex = id.encode_hex();
    Scru128Id::try_from_uuid_ascii(out).is_ok_and(|parsed| parsed == id)
        && Scru128Id::try_from_hex(&hex).is_ok_and(|parsed| parsed == id)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
