//! Real wall-clock steps for one child process: the test binary again, under
//! libfaketime, whose offset file the child rewrites to step its clock. libfaketime
//! fakes `CLOCK_REALTIME` only (`FAKETIME_DONT_FAKE_MONOTONIC=1`) and reads the file
//! on every call (`FAKETIME_NO_CACHE=1`).
//!
//! The parent needs the path of libfaketime (`libfaketime.so.1`, Debian package
//! `libfaketime`) in `SCRU128_FAKETIME`, as `scripts/test` sets it.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable that names the offset file for the worker.
const OFFSET_FILE_ENV: &str = "SCRU128_FAKETIME_OFFSET_FILE";

/// Why a test that needs libfaketime is skipped, and how to run it.
pub const MISSING: &str = "libfaketime is not installed (Debian: apt-get install libfaketime; \
                           or set SCRU128_FAKETIME to its libfaketime.so.1), or run scripts/test";

/// The path of libfaketime: `SCRU128_FAKETIME`, or else Debian's
/// `/usr/lib/<triplet>/faketime/libfaketime.so.1` where it is installed; `None` where
/// neither is.
pub fn library() -> Option<OsString> {
    if let Some(lib) = std::env::var_os("SCRU128_FAKETIME") {
        return Some(lib);
    }
    std::fs::read_dir("/usr/lib")
        .ok()?
        .filter_map(Result::ok)
        .map(|dir| dir.path().join("faketime/libfaketime.so.1"))
        .find(|lib| lib.is_file())
        .map(PathBuf::into_os_string)
}

/// The thread-safe build of libfaketime (`libfaketimeMT.so.1`, in the same Debian
/// package) beside [`library`]; `None` where there is none. Use it where several
/// threads read the fake clock at once: the plain build, which parses the offset file
/// at every call into state shared by all threads (`FAKETIME_NO_CACHE=1`), then now
/// and then returns the real time (offset 0) while the file says otherwise: hundreds
/// of times in 0.8 s with 2 to 16 threads reading `SystemTime::now` and the offset
/// stepped 7 times (none with the MT build). The crate's clock takes no lock, so its
/// reads of the system clock from several threads meet that too (tests/clock_jitter.rs
/// saw a reading of the real time, 5 h behind the fake one, after the redesign of
/// issue 38; the old clock read it under a lock, one thread at a time).
pub fn library_mt() -> Option<OsString> {
    let plain = PathBuf::from(library()?);
    let mt = plain.with_file_name("libfaketimeMT.so.1");
    mt.is_file().then(|| mt.into_os_string())
}

/// A fake clock for child processes: a temporary folder with its offset file (at
/// offset 0), removed on drop.
pub struct FakeClock {
    library: OsString,
    dir: PathBuf,
    offset_file: PathBuf,
}

impl FakeClock {
    pub fn new(library: &OsStr) -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("scru128-faketime-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let offset_file = dir.join("faketimerc");
        std::fs::write(&offset_file, "+0\n").unwrap();
        Self {
            library: library.to_owned(),
            dir,
            offset_file,
        }
    }

    /// Puts `command` under this clock: libfaketime preloaded, with the offset file,
    /// and the worker told where that file is (`offset_file`).
    pub fn preload<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        command
            .env(OFFSET_FILE_ENV, &self.offset_file)
            .env("LD_PRELOAD", &self.library)
            .env("FAKETIME_TIMESTAMP_FILE", &self.offset_file)
            .env("FAKETIME_NO_CACHE", "1")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .env_remove("FAKETIME")
    }

    /// As [`command`](Self::command), with `CLOCK_MONOTONIC` faked too (libfaketime's
    /// default): a rate in the offset file ("+0 x1.5") then makes both clocks run
    /// faster than the CPU's counter, which is what a counter that slowed down looks
    /// like from inside.
    pub fn command_faking_monotonic(&self) -> Command {
        let mut command = self.command();
        command.env_remove("FAKETIME_DONT_FAKE_MONOTONIC");
        command
    }

    /// This test binary under this clock, with no arguments (for a `harness = false`
    /// binary; for one test of a harness binary, `preload(&mut worker::command(..))`).
    pub fn command(&self) -> Command {
        let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
        self.preload(&mut command);
        command
    }
}

impl Drop for FakeClock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// In the worker: the offset file of its clock, named by the parent.
pub fn offset_file() -> PathBuf {
    std::env::var_os(OFFSET_FILE_ENV)
        .unwrap_or_else(|| panic!("{OFFSET_FILE_ENV} is not set: not a worker of FakeClock"))
        .into()
}

/// In the worker: sets the clock's offset from the real one, as libfaketime reads it
/// (seconds, signed, possibly fractional: "+3600", "-60", "-0.250000"). The file is
/// replaced in one step (rename), so that a reader never sees it empty.
pub fn set_offset(offset: &str) {
    let path = offset_file();
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).unwrap();
    writeln!(f, "{offset}").unwrap();
    drop(f);
    std::fs::rename(&tmp, &path).unwrap();
}

/// In the worker: asserts that libfaketime is in force (the clock follows the offset
/// file), and leaves the offset at 0.
pub fn assert_in_force() {
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    set_offset("+10000");
    let moved = now();
    set_offset("+0");
    let back = now();
    assert!(
        moved >= back + 9_990,
        "libfaketime is not in force ({moved} vs {back})"
    );
}
