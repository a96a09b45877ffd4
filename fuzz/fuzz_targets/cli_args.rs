//! The command-line tool's argument handling on any arguments: clap's parser over
//! the tool's definition (`cli/src/args.rs`, with its value parsers for counts and
//! times), and the RFC 3339 / Unix-milliseconds time parser (`cli/src/time.rs`).
//! The input is split at NUL bytes into arguments (not necessarily UTF-8). A time
//! that parses writes back (`iso_z`) to text that parses to the same millisecond;
//! its span does not end before it starts.
//!
//! The CLI's modules are compiled into this target by path, as in `cli_lines`.
#![no_main]
#![allow(dead_code, unused_imports)]

// The CLI is a binary crate: its modules (all but `main.rs`) are compiled in here.
include!("cli_modules.rs");

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use clap::Parser;
use libfuzzer_sys::fuzz_target;

/// Unix milliseconds of 10000-01-01T00:00:00Z, past the four-digit years.
const YEAR_10000: i64 = 253_402_300_800_000;

fuzz_target!(|data: &[u8]| {
    let words: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let argv = std::iter::once(OsString::from("scru128"))
        .chain(words.iter().map(|w| OsString::from_vec(w.to_vec())));
    match args::Cli::try_parse_from(argv) {
        Ok(cli) => {
            let _ = format!("{cli:?}");
        }
        Err(err) => {
            let text = err.to_string();
            assert!(!text.is_empty());
        }
    }
    for word in &words {
        let Ok(text) = std::str::from_utf8(word) else {
            continue;
        };
        match time::parse_time(text, || 1_714_521_600_000) {
            Ok(span) => {
                let ms = span.first;
                assert!(ms <= span.last, "{text:?}");
                if text.bytes().all(|b| b.is_ascii_digit()) {
                    assert_eq!(Ok(ms), text.parse::<i64>());
                }
                if (0..YEAR_10000).contains(&ms) {
                    let iso = time::iso_z(ms as u64);
                    let back = time::parse_time(&iso, || 0).map(|s| (s.first, s.last));
                    assert_eq!(back, Ok((ms, ms)), "{text:?} -> {iso}");
                }
            }
            Err(why) => assert_eq!(why.lines().count(), 1, "{why:?}"),
        }
    }
});
