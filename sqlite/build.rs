//! Marks the shared object "never unload" on ELF systems (`-z nodelete`).
//!
//! SQLite `dlclose`s an extension when the connection that loaded it closes. Unloading
//! would throw away the process-wide generator's state (a reload in the same
//! millisecond could then go below IDs already handed out) and leave the library's
//! `pthread_atfork` handlers pointing into unmapped memory. With `nodelete` the first
//! load stays for the life of the process and every later load reuses it.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    // ELF linkers (GNU ld, gold, lld) on Linux and the BSDs; Apple's ld has no such flag.
    if family == "unix" && !matches!(os.as_str(), "macos" | "ios") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
