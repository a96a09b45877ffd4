//! Fork detection (feature `std`, Unix): a count of the `fork()`s in this process's
//! ancestry, which every generator and random source compares with the count it saw
//! last, and the fork handlers that keep the crate's process-wide locks usable in a
//! child.
//!
//! The handlers are registered once, when the program or library is loaded (an ELF
//! `.init_array` or Mach-O `__mod_init_func` entry, before `main` or while `dlopen`
//! runs), not at first use: a lazy registration could race with a `fork()` on another
//! thread (the child would inherit it half done), and it would put our child handler
//! behind every handler registered earlier, which might already generate IDs. On
//! other Unix targets the registration happens at first use, without ever blocking.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static EPOCH: AtomicU32 = AtomicU32::new(0);

/// Number of forks in this process's ancestry since the handlers were registered.
#[inline]
pub(crate) fn epoch() -> u32 {
    // In a child the handler ran on this very thread before `fork` returned.
    EPOCH.load(Ordering::Relaxed)
}

/// Makes sure forks are counted from now on; returns the current count.
///
/// # Panics
///
/// Panics if `pthread_atfork` failed (out of memory), so that nothing relies on a
/// fork detection that is not there.
pub(crate) fn watch() -> u32 {
    register();
    assert!(
        !REGISTRATION_FAILED.load(Ordering::Relaxed),
        "scru128: pthread_atfork failed; cannot detect fork()"
    );
    epoch()
}

static REGISTERED: AtomicBool = AtomicBool::new(false);
static REGISTRATION_FAILED: AtomicBool = AtomicBool::new(false);
/// Set by the load-time constructor, to tell in tests that it ran.
static REGISTERED_AT_LOAD: AtomicBool = AtomicBool::new(false);

/// Registers the fork handlers once. Never blocks and never unwinds (it runs as a
/// load-time constructor, where a panic would abort the process).
fn register() {
    if REGISTERED.load(Ordering::Acquire) || REGISTERED.swap(true, Ordering::AcqRel) {
        return;
    }
    // SAFETY: `pthread_atfork` only stores the three function pointers. The handlers
    // are plain `extern "C"` functions that cannot unwind: they take or release the
    // crate's own locks and bump an atomic counter. Exercised by every fork test
    // (`tests/fork.rs`, `tests/fork_many.rs`, `tests/fork_race.rs`).
    let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    if rc != 0 {
        REGISTRATION_FAILED.store(true, Ordering::Relaxed);
    }
}

/// What the crate does when the program or library is loaded: registers the fork
/// handlers, and finds out whether the clock may use the TSC (it reads `/sys`, which a
/// sandbox set up later in `main` might forbid; no ID call ever does after this).
extern "C" fn register_at_load() {
    register();
    REGISTERED_AT_LOAD.store(true, Ordering::Relaxed);
    crate::process_clock::detect_at_load();
}

// Load-time registration. `#[used]` keeps the entry even though nothing refers to it;
// the loader calls every function in these sections before `main` (or inside
// `dlopen`, for a library).
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "dragonfly",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "illumos",
    target_os = "solaris"
))]
#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER_AT_LOAD: extern "C" fn() = register_at_load;

#[cfg(target_vendor = "apple")]
#[used]
#[unsafe(link_section = "__DATA,__mod_init_func")]
static REGISTER_AT_LOAD: extern "C" fn() = register_at_load;

/// Before `fork()`, on the forking thread: take the locks, in the order the crate
/// itself takes them (the process-wide generator's state, then the clock's), so that
/// the child never starts with a lock held by a thread it does not have.
extern "C" fn prepare() {
    crate::global_gen::hold_lock_across_fork();
    crate::process_clock::hold_lock_across_fork();
}

extern "C" fn parent() {
    crate::process_clock::release_lock_after_fork();
    crate::global_gen::release_lock_after_fork();
}

extern "C" fn child() {
    // Only an atomic add before the locks are released: nothing in the child can
    // generate before it is counted.
    EPOCH.fetch_add(1, Ordering::Relaxed);
    crate::process_clock::release_lock_after_fork();
    crate::global_gen::release_lock_after_fork();
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::Ordering;

    #[test]
    fn the_handlers_are_registered_at_load_time() {
        // By the loader, before the test harness started (other tests' first uses
        // would register lazily, but would not set this flag).
        #[cfg(any(target_os = "linux", target_vendor = "apple"))]
        assert!(super::REGISTERED_AT_LOAD.load(Ordering::Relaxed));
        assert!(super::REGISTERED.load(Ordering::Relaxed));
        assert_eq!(super::watch(), super::epoch());
    }
}
