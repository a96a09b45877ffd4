//! No allocation on any generate, encode or parse path (every text form): a counting global allocator
//! watches each path after its first use (first use may set up thread-local state).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use scru128::{Scru128Generator, Scru128Id};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the counter is a
// thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn generate_encode_and_parse_do_not_allocate() {
    let mut g = Scru128Generator::new();
    let mut ids = [Scru128Id::MIN; 4096];
    let _ = scru128::scru128(); // sets up the thread's block and random source
    let text = g.generate().encode();
    let (hex, uuid) = (g.generate().encode_hex(), g.generate().encode_uuid());

    let n = allocations_in(|| {
        for _ in 0..10_000 {
            black_box(scru128::scru128());
            black_box(g.generate());
            black_box(g.try_generate_at(1_700_000_000_000).ok());
        }
        g.fill(&mut ids);
        black_box(&ids);
        for id in ids {
            black_box(id.encode());
            black_box(id.encode_lower());
            black_box(id.encode_hex());
            black_box(id.encode_uuid());
        }
        for _ in 0..10_000 {
            black_box(text.parse::<Scru128Id>().ok());
            black_box(Scru128Id::try_from_str(&text).ok());
            black_box(Scru128Id::try_from_ascii(text.as_bytes()).ok());
            black_box("not an id".parse::<Scru128Id>().err());
            black_box(Scru128Id::try_from_hex(&hex).ok());
            black_box(Scru128Id::try_from_hex_ascii(hex.as_bytes()).ok());
            black_box(Scru128Id::try_from_uuid_str(&uuid).ok());
            black_box(Scru128Id::try_from_uuid_ascii(uuid.as_bytes()).ok());
            black_box(Scru128Id::try_from_hex("not an id, é").err());
            black_box(Scru128Id::try_from_uuid_str(&hex).err());
        }
    });
    assert_eq!(n, 0, "{n} allocations");
}

#[test]
fn the_counter_sees_allocations() {
    // The check above can fail: formatting into a `String` allocates.
    let n = allocations_in(|| {
        black_box(Scru128Id::MAX.to_string());
    });
    assert!(n >= 1);
}
