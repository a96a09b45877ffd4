//! Fork detection (feature `std`, Unix): a fork count that every generator and random
//! source compares with the count it saw last, and the fork handlers that keep the
//! crate's process-wide locks usable in a child.
//!
//! The count lives on a page of its own that the kernel zeroes in a child
//! (`MADV_WIPEONFORK`, Linux 4.14 and later): a child sees it zero before any fork
//! handler runs, also after a fork by the raw system call, which runs no handlers, and
//! takes a count never used in its ancestry. Where the kernel cannot do that, the child
//! handler zeroes it.
//!
//! The handlers are registered once, when the program or library is loaded (an ELF
//! `.init_array` or Mach-O `__mod_init_func` entry, before `main` or while `dlopen`
//! runs), not at first use: a lazy registration could race with a `fork()` on another
//! thread (the child would inherit it half done), and it would put our child handler
//! behind every handler registered earlier, which might already generate IDs. On
//! other Unix targets the registration happens at first use, without ever blocking.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// The current fork count on a page of its own (0 in a child until it takes one).
#[repr(C, align(4096))]
struct EpochPage {
    epoch: AtomicU32,
    _rest: [u8; 4092],
}

// Zero-initialised, so in `.bss`: an anonymous private page, which `MADV_WIPEONFORK`
// accepts.
static PAGE: EpochPage = EpochPage {
    epoch: AtomicU32::new(0),
    _rest: [0; 4092],
};

/// The counts handed out so far, in ordinary memory: a child inherits it, so the
/// count it takes is new to every state copied from its ancestors.
static COUNTS: AtomicU32 = AtomicU32::new(0);

/// This process's fork count: different from the count of every ancestor, so a state
/// or random source that was last used with another count was copied by `fork()`.
#[inline]
pub(crate) fn epoch() -> u32 {
    match PAGE.epoch.load(Ordering::Relaxed) {
        0 => take_count(),
        epoch => epoch,
    }
}

/// First call in a process (or in a child): takes a new count. Threads that race here
/// agree on the one that is stored first.
#[cold]
fn take_count() -> u32 {
    let mut fresh = COUNTS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    if fresh == 0 {
        fresh = COUNTS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    }
    match PAGE
        .epoch
        .compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed)
    {
        Ok(_) => fresh,
        Err(stored) => stored,
    }
}

/// Asks the kernel to zero the count's page in every child.
fn wipe_on_fork() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: `sysconf` only reads a value.
        if unsafe { libc::sysconf(libc::_SC_PAGESIZE) } != 4096 {
            return;
        }
        // SAFETY: `PAGE` is page-aligned and exactly one 4096-byte page, holding
        // nothing but the count (whose zero in a child is what this is for); the
        // call only sets how the kernel copies that page at `fork()`. If the kernel
        // refuses (before 4.14, or a page that is not anonymous), nothing changes and
        // the child handler zeroes the count instead. Exercised by
        // `tests/fork_handlers.rs` (a fork by the raw system call).
        unsafe {
            libc::madvise(
                core::ptr::addr_of!(PAGE).cast_mut().cast(),
                4096,
                libc::MADV_WIPEONFORK,
            );
        }
    }
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
    wipe_on_fork();
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
    // Where the kernel did not zero it already: the next `epoch()` takes a new count.
    PAGE.epoch.store(0, Ordering::Relaxed);
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
