//! For the tests that fork (Unix): a pipe, writing to and reading from its ends, the
//! IDs a child sends through it, waiting for a child (with or without a time limit),
//! and the lock under which a test binary's tests fork one at a time.
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
