//! Fork detection (feature `std`, Unix): a fork count that every generator and random
//! source compares with the count it saw last. It imports nothing of the crate, and
//! tells nobody of a fork: whatever holds state that a fork copies notices, at its next
//! use, that the count moved.
//!
//! The count lives on a page of its own that the kernel zeroes in a child
//! (`MADV_WIPEONFORK`, Linux 4.14 and later): a child sees it zero before any fork
//! handler runs, also after a fork by the raw system call, which runs no handlers, and
//! takes a count never used in its ancestry. The page is mapped when the library is
//! loaded, at the system's page size (4 KiB on x86-64, 16 or 64 KiB on many aarch64
//! and ppc64le kernels), since the kernel applies the advice to whole pages only.
//! Until then, and where the kernel cannot do that, the count lives in ordinary memory
//! and the child handler zeroes it.
//!
//! The handler is registered once, when the program or library is loaded (an ELF
//! `.init_array` or Mach-O `__mod_init_func` entry, before `main` or while `dlopen`
//! runs), not at first use: a lazy registration could race with a `fork()` on another
//! thread (the child would inherit it half done), and it would put our child handler
//! behind every handler registered earlier, which might already generate IDs. On
//! other Unix targets the registration happens at first use, without ever blocking.
//!
//! The crate has no lock: there is nothing to take across `fork()` or to take back in
//! a child (a prepare handler that took locks would deadlock a `fork()` made from a
//! signal handler, issue 18).
//!
//! A fork by the raw system call (`syscall(SYS_fork)`, or `SYS_clone` without
//! `CLONE_VM`) runs no handler. On Linux 4.14 and later the crate notices it all the
//! same, from the wiped page: generators and random sources act as after `fork()`,
//! and `tests/fork_handlers.rs` and `tests/fork_in_call.rs` fork so. Where
//! the page cannot be had (older kernels, other systems) such a child goes unnoticed
//! and may repeat its parent's IDs; so may a child made by `vfork()` or
//! `clone(CLONE_VM)`, which shares its parent's memory.

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

/// The count in ordinary memory, until the page is mapped (or where it cannot be).
static IN_MEMORY: AtomicU32 = AtomicU32::new(0);

/// Where the current fork count is (0 in a child until it takes one): `IN_MEMORY`,
/// or the wiped-on-fork page once it is mapped. Never null, never unmapped.
static COUNT: AtomicPtr<AtomicU32> = AtomicPtr::new((&raw const IN_MEMORY).cast_mut());

/// The counts handed out so far, in ordinary memory: a child inherits it, so the
/// count it takes is new to every state copied from its ancestors.
static COUNTS: AtomicU32 = AtomicU32::new(0);

/// The count's current place.
#[inline]
fn count() -> &'static AtomicU32 {
    // SAFETY: `COUNT` points to `IN_MEMORY` or to a page mapped read-write for the
    // life of the process (`map_wiped_page`), holding an `AtomicU32` at its start.
    unsafe { &*COUNT.load(Ordering::Acquire) }
}

/// This process's fork count: different from the count of every ancestor, so a state
/// or random source that was last used with another count was copied by `fork()`.
#[inline]
pub(crate) fn epoch() -> u32 {
    match count().load(Ordering::Relaxed) {
        0 | TAKING => take_count().0,
        epoch => epoch,
    }
}

/// On the count while a count is being taken: never a count.
const TAKING: u32 = u32::MAX;

/// What [`watch`] gives a state whose making a fork interrupted, in the child: never a
/// count, nor on the count, so such a state looks copied by a fork wherever it is used.
const UNKNOWN: u32 = u32::MAX - 1;

/// The fork count as stored: 0 in a child that has not taken its own yet. For a
/// comparison with a count that [`epoch`] gave (never 0), which it then fails, leaving
/// the taking to the caller's slow path.
#[inline]
pub(crate) fn count_now() -> u32 {
    count().load(Ordering::Relaxed)
}

/// First call in a process (or in a child): takes a new count. Threads that race here
/// (or a signal handler that interrupted this on its thread) agree on the one that is
/// stored first.
///
/// The count is marked [`TAKING`] before a number is drawn from `COUNTS`, and the
/// number is stored only over that mark: a `fork()` at any point after the mark (from
/// a signal handler) zeroes the count in the child, whose store then fails, and the
/// child draws again from its copy of `COUNTS`, past the parent's number. (Stored over
/// 0, a number drawn before the fork was the parent's and the child's alike, and so
/// was whatever the interrupted call stamped with it: the review of the redesign.)
/// Also returns whether this call was interrupted so, in the child.
#[cold]
#[inline(never)]
fn take_count() -> (u32, bool) {
    let count = count();
    let mut forked = false;
    loop {
        match count.compare_exchange(0, TAKING, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) | Err(TAKING) => {}
            Err(stored) => return (stored, forked),
        }
        let fresh = loop {
            let n = COUNTS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            if n != 0 && n < UNKNOWN {
                break n;
            }
        };
        match count.compare_exchange(TAKING, fresh, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => {
                // Whatever is stamped with the count is written after the draw from
                // `COUNTS`, for every observer, a `fork()` by another thread included
                // (x86-64 keeps stores in order anyway; arm64 does not): a child whose
                // copy holds a stamp holds the draw too, and takes a count past it.
                // Once in a process.
                core::sync::atomic::fence(Ordering::SeqCst);
                return (fresh, forked);
            }
            // Zeroed since the mark: this is a child, forked meanwhile.
            Err(0) => forked = true,
            Err(stored) => {
                core::sync::atomic::fence(Ordering::SeqCst);
                return (stored, forked);
            }
        }
    }
}

/// Moves the count to a page of its own that the kernel zeroes in every child, where
/// the kernel can do that; keeps the current count.
fn wipe_on_fork() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: `sysconf` only reads a value.
        let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let Ok(page_size) = usize::try_from(page_size) else {
            return;
        };
        if let Some(page) = map_wiped_page(page_size) {
            // The count goes with it, so that nothing sees it change (a state stamped
            // with the old count would look copied from a parent). It is
            // taken first: once it is not 0, nothing but a child handler writes it.
            let current = epoch();
            // SAFETY: `map_wiped_page` returned a fresh read-write mapping.
            let page = unsafe { &*page };
            page.store(current, Ordering::Relaxed);
            // Release: a thread that sees the page sees the count on it (a fresh
            // count taken there would look like another process's).
            COUNT.store(core::ptr::from_ref(page).cast_mut(), Ordering::Release);
        }
    }
}

/// Maps one page of `page_size` bytes that the kernel zeroes in a child; `None` if
/// the kernel refuses (before 4.14) or the size is not a page size.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn map_wiped_page(page_size: usize) -> Option<*const AtomicU32> {
    if page_size < core::mem::size_of::<AtomicU32>() || !page_size.is_power_of_two() {
        return None;
    }
    // SAFETY: an anonymous private read-write mapping of `page_size` bytes, at an
    // address the kernel picks (page-aligned): it overlaps nothing of ours. It is
    // never unmapped, so references to it live as long as the process.
    let addr = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            page_size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `addr` is the whole of the mapping just made, page-aligned, of one page;
    // the advice only sets how the kernel copies it at `fork()`. Exercised by
    // `tests/fork_handlers.rs` (a fork by the raw system call) and by this module's
    // tests at other page sizes.
    if unsafe { libc::madvise(addr, page_size, libc::MADV_WIPEONFORK) } != 0 {
        // SAFETY: the mapping made above, used by nothing.
        unsafe { libc::munmap(addr, page_size) };
        return None;
    }
    Some(addr.cast::<AtomicU32>().cast_const())
}

/// Makes sure forks are counted from now on; returns the count to stamp a new state
/// with: the current count, or, in a child whose taking of the count here was
/// interrupted by the `fork()` that made it (from a signal handler), a value no count
/// equals. That fork came while the state was being made, after its parts were: the
/// child's state is then treated as copied at its first use (a generator salts its
/// draws, `DefaultRng` reseeds), and the parent's keeps its own count. A state made
/// in a child that simply had not taken its count yet gets the child's count (a seeded
/// generator made there stays deterministic).
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
    match count_now() {
        0 | TAKING => match take_count() {
            (_, true) => UNKNOWN,
            (count, false) => count,
        },
        count => count,
    }
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
    // SAFETY: `pthread_atfork` only stores the function pointer. The handler is a
    // plain `extern "C"` function that cannot unwind: it stores to two atomics.
    // Exercised by every fork test (`tests/fork.rs`, `tests/fork_many.rs`,
    // `tests/fork_race.rs`).
    let rc = unsafe { libc::pthread_atfork(None, None, Some(child)) };
    if rc != 0 {
        REGISTRATION_FAILED.store(true, Ordering::Relaxed);
    }
    wipe_on_fork();
}

/// Registers the fork handlers when the program or library is loaded.
extern "C" fn register_at_load() {
    register();
    REGISTERED_AT_LOAD.store(true, Ordering::Relaxed);
}

crate::run_at_load!(REGISTER_AT_LOAD = register_at_load);

/// In the child (where the kernel did not zero the count already): the next
/// `epoch()` takes a new count.
extern "C" fn child() {
    IN_MEMORY.store(0, Ordering::Relaxed);
    count().store(0, Ordering::Relaxed);
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

    /// Issue 18, item 2: the count moved to its wiped page when the library was
    /// loaded, at this system's page size (it stayed in ordinary memory where the
    /// page size was not 4096, so that a fork by the raw system call went unnoticed).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_count_lives_on_a_page_wiped_in_a_child() {
        let page = super::COUNT.load(Ordering::Relaxed);
        assert_ne!(page.cast_const(), &raw const super::IN_MEMORY);
        // SAFETY: `sysconf` only reads a value.
        let page_size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
        assert_eq!(page as usize % page_size, 0, "not page-aligned");
        assert_eq!(zero_in_a_child(page), Some(true));
    }

    /// The mapping works at every page size Linux uses (4, 16 and 64 KiB; here made of
    /// as many pages of this system as it takes): a child sees it zeroed, the parent
    /// keeps its value.
    #[cfg(target_os = "linux")]
    #[test]
    fn pages_of_every_size_are_wiped_in_a_child() {
        for page_size in [4096, 16 * 1024, 64 * 1024] {
            let page = super::map_wiped_page(page_size).expect("the kernel wipes pages");
            assert_eq!(zero_in_a_child(page), Some(true), "{page_size}-byte page");
        }
        assert!(super::map_wiped_page(1000).is_none());
    }

    /// Stores a count on `page`, forks, and tells whether the child saw 0 there (and
    /// the parent still its own count).
    #[cfg(target_os = "linux")]
    fn zero_in_a_child(page: *const core::sync::atomic::AtomicU32) -> Option<bool> {
        // SAFETY: `page` is a live mapping holding an `AtomicU32` at its start.
        let count = unsafe { &*page };
        let saved = count.load(Ordering::Relaxed);
        let mine = saved.max(1);
        count.store(mine, Ordering::Relaxed);
        // SAFETY: the child only reads an atomic and leaves with `_exit`; the raw
        // system call runs no fork handlers, so only the kernel can zero the page.
        let pid = unsafe { libc::syscall(libc::SYS_fork) };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let code = i32::from(count.load(Ordering::Relaxed) != 0);
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(code) }
        }
        let mut status = 0;
        // SAFETY: waits for the child just made.
        let waited =
            unsafe { libc::waitpid(libc::pid_t::try_from(pid).unwrap(), &raw mut status, 0) };
        let kept = count.load(Ordering::Relaxed) == mine;
        count.store(saved, Ordering::Relaxed);
        (waited > 0 && libc::WIFEXITED(status) && kept).then(|| libc::WEXITSTATUS(status) == 0)
    }

    /// Reads from `fd` into `buf` until it is full, the writers are gone or `limit`
    /// has passed; returns how many bytes came.
    #[cfg(target_os = "linux")]
    fn read_within(fd: libc::c_int, buf: &mut [u8], limit: std::time::Duration) -> usize {
        let mut got = 0;
        let start = std::time::Instant::now();
        while got < buf.len() && start.elapsed() < limit {
            let mut poll = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: polls and reads a pipe of the caller's into `buf`'s free part.
            if unsafe { libc::poll(&raw mut poll, 1, 100) } > 0 {
                let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
                if n <= 0 {
                    break;
                }
                got += n.unsigned_abs();
            }
        }
        got
    }

    /// A seeded generator made in a child that had not taken its count yet is that
    /// child's own: its IDs are the seed's, as in any process (only a state whose
    /// making a fork interrupted is treated as copied).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_seeded_generator_made_in_a_child_keeps_its_ids() {
        fn ids() -> [u8; 64] {
            let mut n = 7_u32;
            let rng = move || {
                n = n.wrapping_mul(0x9e37_79b9).wrapping_add(1);
                n
            };
            let mut g = crate::Scru128Generator::with_rng_and_clock(rng, || 1_700_000_000_000u64);
            let mut out = [0u8; 64];
            for chunk in out.chunks_mut(16) {
                chunk.copy_from_slice(&g.generate().to_u128().to_be_bytes());
            }
            out
        }
        let here = ids();
        let mut fds = [0; 2];
        // SAFETY: a pipe for the child's IDs.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only makes IDs (no allocation), writes them and leaves.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let out = ids();
            // SAFETY: one write of less than PIPE_BUF bytes, then out.
            unsafe {
                libc::write(fds[1], out.as_ptr().cast(), out.len());
                libc::_exit(0)
            }
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        let mut child = [0u8; 64];
        let got = read_within(fds[0], &mut child, std::time::Duration::from_secs(20));
        // SAFETY: our pipe's read end, and our child, reaped.
        unsafe {
            libc::close(fds[0]);
            libc::waitpid(pid, core::ptr::null_mut(), 0);
        }
        assert_eq!(got, child.len(), "the child's IDs");
        assert_eq!(
            child, here,
            "a seeded generator made in a child gave other IDs"
        );
    }

    /// A `fork()` from a signal handler that interrupts `take_count` right after its
    /// draw from `COUNTS` (found by the redesign's review): before the fix, the child's
    /// page was zeroed but it went on with the number drawn and stored it, so parent
    /// and child had one count, and a generator made in that call
    /// (`Scru128Generator::with_rng_and_clock`, in a child that had not taken its
    /// count yet) was stamped alike in both: with a seeded source (no fork salt yet)
    /// they made the same IDs. Now the number is stored only over the mark the child
    /// finds zeroed (it draws again), and the child's generator, stamped with `watch`'s
    /// "unknown" (its taking of the count saw the fork), salts its draws.
    ///
    /// The fork is placed exactly by a hardware write watchpoint on `COUNTS`
    /// (`perf_event_open` with `sigtrap`: a synchronous SIGTRAP right after the
    /// `lock xadd`), whose handler forks; everything runs in a child process. Where
    /// `perf_event_open` is refused, the test says so and checks nothing.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn a_fork_inside_take_count_gives_parent_and_child_other_counts_and_ids() {
        use core::sync::atomic::{AtomicI32, AtomicI64};
        use std::time::Duration;

        static PERF_FD: AtomicI32 = AtomicI32::new(-1);
        static FORKED: AtomicI64 = AtomicI64::new(0);
        const RECORD: usize = 8 + 4 * 16;

        extern "C" fn on_trap(_: libc::c_int) {
            if FORKED.load(Ordering::Relaxed) != 0 {
                return;
            }
            // SAFETY: async-signal-safe system calls: stop the watchpoint, fork.
            unsafe { libc::ioctl(PERF_FD.load(Ordering::Relaxed), 0x2401, 0) }; // DISABLE
            let pid = unsafe { libc::fork() };
            FORKED.store(
                if pid == 0 { -1 } else { i64::from(pid) },
                Ordering::Relaxed,
            );
        }

        let mut fds = [0; 2];
        // SAFETY: a pipe for the records.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child T runs the scenario and leaves with `_exit`.
        let t = unsafe { libc::fork() };
        assert!(t >= 0);
        if t == 0 {
            // T: a child whose count is 0 until it takes one.
            // SAFETY: a handler that only makes system calls and stores atomics.
            unsafe {
                let mut action: libc::sigaction = core::mem::zeroed();
                action.sa_sigaction = on_trap as *const () as usize;
                libc::sigemptyset(&raw mut action.sa_mask);
                libc::sigaction(libc::SIGTRAP, &raw const action, core::ptr::null_mut());
            }
            let mut attr = [0u64; 16]; // perf_event_attr, PERF_ATTR_SIZE_VER7
            attr[0] = 5 | (128 << 32); // PERF_TYPE_BREAKPOINT, size
            attr[2] = 1; // sample_period
            attr[5] = (1 << 5) | (1 << 6) | (1 << 36) | (1 << 37); // excl. kernel, hv; remove_on_exec; sigtrap
            attr[6] = 2 << 32; // bp_type HW_BREAKPOINT_W
            attr[7] = (&raw const super::COUNTS) as u64; // bp_addr
            attr[8] = 4; // bp_len
            // SAFETY: a watchpoint on this thread only.
            let fd =
                unsafe { libc::syscall(libc::SYS_perf_event_open, attr.as_ptr(), 0, -1, -1, 8) };
            if fd < 0 {
                // SAFETY: ends T at once.
                unsafe { libc::_exit(3) }
            }
            PERF_FD.store(fd as i32, Ordering::Relaxed);
            let mut n = 0x2545_f491_u32;
            let rng = move || {
                n = n.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
                n
            };
            // The first count T takes: the watchpoint fires inside it.
            let mut g = crate::Scru128Generator::with_rng_and_clock(rng, || 1_700_000_000_000u64);
            let mut record = [0u8; RECORD];
            record[..4].copy_from_slice(&(FORKED.load(Ordering::Relaxed) as i32).to_le_bytes());
            record[4..8].copy_from_slice(&super::epoch().to_le_bytes());
            for i in 0..4 {
                let id = g.generate();
                record[8 + 16 * i..24 + 16 * i].copy_from_slice(&id.to_u128().to_be_bytes());
            }
            // SAFETY: one write of less than PIPE_BUF bytes (atomic), then out.
            unsafe {
                libc::write(fds[1], record.as_ptr().cast(), RECORD);
                let forked = FORKED.load(Ordering::Relaxed);
                if forked > 0 {
                    libc::waitpid(forked as i32, core::ptr::null_mut(), 0);
                }
                libc::_exit(if forked == 0 { 4 } else { 0 })
            }
        }
        // SAFETY: the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        let mut records = std::vec::Vec::new();
        let mut buf = [0u8; 2 * RECORD];
        let got = read_within(fds[0], &mut buf, Duration::from_secs(20));
        let mut status = 0;
        // SAFETY: our child T, killed if it hung, and reaped.
        unsafe {
            libc::kill(t, libc::SIGKILL);
            libc::waitpid(t, &raw mut status, 0);
            libc::close(fds[0]);
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 3 {
            std::eprintln!(
                "skipped: perf_event_open refused (kernel.perf_event_paranoid, seccomp); this test needs a hardware watchpoint"
            );
            return;
        }
        assert!(
            !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 4),
            "the watchpoint never fired"
        );
        assert_eq!(got, 2 * RECORD, "two records, from T and from its child");
        for r in buf.chunks(RECORD) {
            let epoch = u32::from_le_bytes(r[4..8].try_into().unwrap());
            let ids: std::vec::Vec<u128> = r[8..]
                .chunks(16)
                .map(|c| u128::from_be_bytes(c.try_into().unwrap()))
                .collect();
            records.push((epoch, ids));
        }
        assert_ne!(
            records[0].1, records[1].1,
            "parent and child made the same IDs"
        );
        assert_ne!(
            records[0].0, records[1].0,
            "parent and child have the same fork count"
        );
    }
}
