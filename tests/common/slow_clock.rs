//! The slow system clock of `slow_clock.c`, built with the system's C compiler: loaded
//! with `LD_PRELOAD` and `SCRU128_SLOW_CLOCK_NS`, every read of `CLOCK_REALTIME` spins
//! that long first (as libfaketime's reads do).

use std::process::Command;

/// The shim's path once built; `Err` (with the reason) where there is no C compiler.
pub fn library() -> Result<std::path::PathBuf, String> {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/common/slow_clock.c");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("libscru128_slow_clock.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&out)
        .arg(source)
        .arg("-ldl")
        .output();
    match built {
        Ok(output) if output.status.success() => Ok(out),
        Ok(output) => Err(format!(
            "cc could not build the slow clock: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(err) => Err(format!(
            "no C compiler to build the slow clock ({err}; Debian: apt-get install gcc)"
        )),
    }
}
