//! For the tests that fork (Unix): a pipe, writing to and reading from its ends, the
//! IDs a child sends through it, waiting for a child (with or without a time limit),
//! the lock under which a test binary's tests fork one at a time, and the installing
//! of a SIGUSR1 handler for the tests that fork or read clocks from one.
//!
//! Between `fork()` and `_exit` a child of a process with other threads may only do
//! what needs no lock another thread may have held at the fork, the allocator's
//! included. Of these helpers, only `write_all` is for a child: it allocates nothing
//! and cannot panic. The others are for the parent.

use std::fs::File;
use std::io::{self, Read as _};
use std::os::fd::FromRawFd as _;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use scru128::Scru128Id;

/// Held by each test of a binary across its forks, so that no two tests fork at once
/// and no other test's thread is inside a generator (or holds its lock) at the moment
/// of a fork. A test that failed while holding it does not stop the others.
pub fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A new pipe: `(read end, write end)`.
///
/// # Panics
///
/// If the system refuses one.
pub fn pipe() -> (libc::c_int, libc::c_int) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two ints for `pipe` to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe failed");
    (fds[0], fds[1])
}

/// Writes all of `bytes` to `fd` (again after an interrupted write); false on an
/// error or a write that makes no progress. Allocates nothing and does not panic, so a
/// child may call it after `fork()`.
pub fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid readable buffer of `bytes.len()` bytes.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        match usize::try_from(written) {
            Ok(n) if n > 0 => bytes = &bytes[n.min(bytes.len())..],
            _ => return false,
        }
    }
    true
}

/// Reads the pipe end `fd` to its end of file, appending to `buf` (as
/// `Read::read_to_end`), and closes it: `fd` must be an open descriptor of the
/// caller's that nothing else uses or closes.
pub fn read_to_end(fd: libc::c_int, buf: &mut Vec<u8>) -> io::Result<usize> {
    // SAFETY: the caller hands over `fd`, open and used by nothing else; `File` closes
    // it once.
    unsafe { File::from_raw_fd(fd) }.read_to_end(buf)
}

/// Reads the pipe end `fd` to its end of file as UTF-8 text and closes it, as
/// `read_to_end`.
pub fn read_to_string(fd: libc::c_int) -> io::Result<String> {
    let mut text = String::new();
    // SAFETY: as in `read_to_end`.
    unsafe { File::from_raw_fd(fd) }.read_to_string(&mut text)?;
    Ok(text)
}

/// The IDs a child sent as 16-byte values (`Scru128Id::to_bytes`); an incomplete
/// value at the end is left out.
pub fn ids_from_bytes(bytes: &[u8]) -> Vec<Scru128Id> {
    bytes
        .chunks_exact(16)
        .map(|c| Scru128Id::from_bytes(c.try_into().unwrap()))
        .collect()
}

/// Waits for the child `pid` to end and returns its status (for `libc::WIFEXITED`
/// and the like).
///
/// # Panics
///
/// If `waitpid` fails, e.g. because `pid` is not a child of this process.
pub fn wait(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    // SAFETY: `status` is a valid out-pointer; `waitpid` checks `pid`.
    let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
    assert_eq!(waited, pid, "waitpid failed");
    status
}

/// Waits for the child `pid` (a child of this process, not reaped yet) for at most
/// `limit`, looking every 100 µs, and returns its status; `None` if it has not ended
/// by then, in which case it is killed (`SIGKILL`) and reaped.
pub fn wait_with_timeout(pid: libc::pid_t, limit: Duration) -> Option<libc::c_int> {
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: `status` is a valid out-pointer; `waitpid` checks `pid`.
        if unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) } == pid {
            return Some(status);
        }
        if start.elapsed() > limit {
            // SAFETY: `pid` is our child, not reaped yet (so the signal reaches no other
            // process); `status` is a valid out-pointer.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &raw mut status, 0);
            }
            return None;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// Forks; parent and child each call `make` `n` times right after the fork. The child
/// sends its IDs back through a pipe as 16-byte values. Returns (parent, child) IDs.
pub fn fork_and_generate(
    n: usize,
    mut make: impl FnMut() -> Scru128Id,
) -> (Vec<Scru128Id>, Vec<Scru128Id>) {
    // Held across the fork.
    let _serial = serial();
    // Everything either side needs is allocated before the fork.
    let mut parent_ids: Vec<Scru128Id> = Vec::with_capacity(n);
    let mut child_buf: Vec<[u8; 16]> = vec![[0u8; 16]; n];
    let mut received: Vec<u8> = Vec::with_capacity(n * 16 + 1);

    let (read_fd, write_fd) = pipe();

    // SAFETY: the child only generates IDs into memory allocated before the fork,
    // writes them to a pipe and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // Child. Never unwind or return into the harness.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for slot in child_buf.iter_mut() {
                *slot = make().to_bytes();
            }
        }));
        let code = if outcome.is_err() {
            101
        } else {
            i32::from(!write_all(write_fd, child_buf.as_flattened()))
        };
        // SAFETY: ends the child at once, without running the parent's destructors
        // or atexit handlers.
        unsafe { libc::_exit(code) }
    }

    // Parent.
    // SAFETY: `write_fd` is our open end of the pipe, closed once.
    unsafe { libc::close(write_fd) };
    for _ in 0..n {
        parent_ids.push(make());
    }
    let read_result = read_to_end(read_fd, &mut received);
    let status = wait(pid);
    assert!(
        libc::WIFEXITED(status),
        "the child did not exit normally (status {status:#x})"
    );
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "the child failed (101: panic, 1: write error)"
    );
    read_result.expect("reading the child's IDs");
    assert_eq!(
        received.len(),
        n * 16,
        "the child sent {} bytes",
        received.len()
    );
    (parent_ids, ids_from_bytes(&received))
}

/// Installs `handler` for SIGUSR1 (`SA_RESTART`, nothing masked). The handler must do
/// only what a signal handler may (each test says what its handler does).
pub fn on_sigusr1(handler: extern "C" fn(libc::c_int)) {
    // SAFETY: a zeroed `sigaction` is a valid value to fill in; the handler is an
    // `extern "C" fn(c_int)`, the type `sa_sigaction` takes without `SA_SIGINFO`.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&raw mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGUSR1, &raw const action, std::ptr::null_mut()),
            0
        );
    }
}
