//! The command-line tool's input handling on any standard input: its line reader
//! (`cli/src/lines.rs`), the parser of the ID forms `inspect` and `check` accept
//! (`cli/src/forms.rs`), the quoting of bad input in messages, the JSON writer of
//! `inspect` (its output must parse as JSON) and the whole `check` state machine.
//!
//! The CLI is a binary crate, so its modules are compiled into this target by path
//! (all of them but `main.rs`; they only refer to each other through `crate::`).
//! The reader gets the input in chunks whose sizes come from the input itself, with
//! `Interrupted` errors in between, through a buffer of 1 to 64 bytes or of the
//! CLI's size, and its lines are compared with a naive split of the whole input.
#![no_main]
#![allow(dead_code, unused_imports)]

// The CLI is a binary crate: its modules (all but `main.rs`) are compiled in here.
include!("cli_modules.rs");

use std::io::{self, ErrorKind, Read};

use libfuzzer_sys::fuzz_target;

use crate::args::{Format, InputForm};
use crate::forms::{InputError, MAX_FORM_LEN, parse_id, write_id};
use crate::lines::{KEEP, LineReader, MAX_LINE, char_count, quote};

/// Hands out `data` in chunks of the sizes in `sizes` (cycled), with an
/// `Interrupted` error before every third chunk.
struct Choppy<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    calls: usize,
}

impl Read for Choppy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(3) {
            return Err(io::Error::from(ErrorKind::Interrupted));
        }
        let size = self
            .sizes
            .get(self.calls % self.sizes.len().max(1))
            .map_or(4096, |&s| usize::from(s) + 1);
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The lines of `input` as the reader must see them: split at `\n`, no line after a
/// final `\n`, one trailing `\r` dropped from each.
fn naive_lines(input: &[u8]) -> Vec<&[u8]> {
    if input.is_empty() {
        return Vec::new();
    }
    let body = input.strip_suffix(b"\n").unwrap_or(input);
    body.split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect()
}

/// Lines per input whose quoting is checked (quoting is the slow part of a run, and
/// `check` quotes every bad line anyway).
const QUOTES_CHECKED: usize = 16;

fn assert_quote_is_safe(text: &[u8], too_long: bool) {
    let q = quote(text, too_long);
    assert!(q.starts_with('"'));
    assert!(!q.chars().any(char::is_control), "{q:?}");
    // At most 40 shown characters, each escaped to at most 10 bytes (\u{10ffff}).
    assert!(q.len() <= 2 + 40 * 10 + 32, "{}", q.len());
}

fuzz_target!(|data: &[u8]| {
    // Two header bytes: the reader's buffer size and how the input is chunked.
    let (&[cap, split], rest) = data
        .split_first_chunk::<2>()
        .map_or((&[1, 0], data), |(head, rest)| (head, rest));
    // Chunk sizes from the second header byte's worth of the input's tail.
    let sizes = &rest[rest.len().saturating_sub(usize::from(split % 8))..];
    let input = rest;
    let reader = Choppy {
        data: input,
        sizes,
        calls: 0,
    };
    // Tiny buffers (1 to 64 bytes) for a quarter of the inputs, the CLI's own size
    // (64 KiB) for the rest.
    let capacity = if cap < 64 {
        usize::from(cap) + 1
    } else {
        input::IN_BUFFER
    };
    let mut lines = LineReader::with_capacity(capacity, reader);
    let expected = naive_lines(input);
    let mut checker = check::Checker::new(Some(10_000), 0, InputForm::Auto);
    let mut json = inspect::Json::new(split & 1 == 1);
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(line) = lines
        .next_line()
        .expect("no error but Interrupted, which is retried")
    {
        let want = expected[k];
        k += 1;
        assert_eq!(line.number, k as u64);
        if char_count(want) > MAX_LINE {
            assert!(line.too_long);
            assert!(want.starts_with(line.text) && line.text.len() <= KEEP);
            if k <= QUOTES_CHECKED {
                assert_quote_is_safe(line.text, true);
            }
            checker.bad_line(line.number, line.text, true, &InputError::TooLong);
            continue;
        }
        assert!(!line.too_long);
        assert_eq!(line.text, want);
        if k <= QUOTES_CHECKED {
            assert_quote_is_safe(line.text, false);
        }
        match parse_id(line.text, InputForm::Auto) {
            Ok(id) => {
                // The line is one of the forms, and writing the ID in that form gives
                // the line back, up to case (and, in decimal, leading zeros).
                let decimal = line.text.iter().all(u8::is_ascii_digit);
                let format = match line.text.len() {
                    26 => Format::Canonical,
                    32 => Format::Hex,
                    _ if decimal => Format::Int,
                    36 => Format::Uuid,
                    n => panic!("accepted a line of {n} bytes"),
                };
                let mut buf = [0u8; MAX_FORM_LEN + 1];
                let n = write_id(&id, format, &mut buf);
                if format == Format::Int {
                    let digits = line.text.iter().position(|&b| b != b'0');
                    let expected = digits.map_or(&b"0"[..], |at| &line.text[at..]);
                    assert_eq!(&buf[..n], expected);
                } else {
                    assert!(buf[..n].eq_ignore_ascii_case(line.text));
                }
                // inspect's object is valid JSON with the ID's fields.
                out.clear();
                json.write(line.text, &id, &mut out).unwrap();
                assert!(out.ends_with(b"\n"));
                let object: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert_eq!(object["canonical"], id.encode().as_str());
                assert_eq!(object["counter"], id.counter().to_string());
                assert_eq!(object["input"].as_str().map(str::as_bytes), Some(line.text));
            }
            Err(err) => {
                let msg = err.to_string();
                assert_eq!(msg.lines().count(), 1);
            }
        }
        checker.line(line.number, line.text, || 1_700_000_000_000);
    }
    assert_eq!(k, expected.len(), "lines missing");
    let summary = checker.finish();
    assert!(summary.table.ends_with(")\n"), "{}", summary.table);
});
