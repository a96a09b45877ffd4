//! A line reader with bounded memory, and the safe quoting of input in messages.
//!
//! Lines end with `\n`; one `\r` before it (or before the end of input) is dropped,
//! so files with CRLF line ends read the same. Nothing else is trimmed. A line longer
//! than [`MAX_LINE`] bytes is read to its end without keeping more than the cap and is
//! handed out as [`Line::too_long`], so a huge input with no newline costs no more
//! memory than a short one. Input need not be UTF-8.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, ErrorKind, Read};

/// Longest line kept, in bytes (without the line end). Any ID form is at most 36.
pub const MAX_LINE: usize = 4096;

/// One line of input.
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The line without its `\n` and one trailing `\r`; for a line that is too long,
    /// its first [`MAX_LINE`] bytes or so.
    pub text: &'a [u8],
    /// `Some(length in bytes)` when the line is longer than [`MAX_LINE`].
    pub too_long: Option<u64>,
}

/// Reads lines from a [`Read`] through a buffer, with a cap on the memory per line.
pub struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    number: u64,
}

impl<R: Read> LineReader<R> {
    /// Reads from `inner` through a buffer of `capacity` bytes.
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        Self {
            inner: BufReader::with_capacity(capacity, inner),
            buf: Vec::with_capacity(MAX_LINE + 2),
            number: 0,
        }
    }

    /// Whether no input is buffered, so that the next line needs a read that may
    /// wait for the producer.
    pub fn buffer_is_empty(&self) -> bool {
        self.inner.buffer().is_empty()
    }

    /// The next line, or `None` at the end of input.
    ///
    /// # Errors
    ///
    /// A read error of the underlying reader (`Interrupted` is retried).
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        // Bytes of the line seen so far (without `\n`), including those not kept.
        let mut total: u64 = 0;
        let mut last_byte = 0u8;
        let mut seen_any = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(avail) => avail,
                Err(err) if err.kind() == ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if avail.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let newline = avail.iter().position(|&b| b == b'\n');
            let chunk = &avail[..newline.unwrap_or(avail.len())];
            // Keep one byte past the cap so that a trailing `\r` can still be dropped.
            let room = (MAX_LINE + 1).saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..room.min(chunk.len())]);
            if let Some(&b) = chunk.last() {
                last_byte = b;
            }
            total += chunk.len() as u64;
            let used = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(used);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        if last_byte == b'\r' && total > 0 {
            total -= 1;
        }
        let too_long = (total > MAX_LINE as u64).then_some(total);
        let kept = usize::try_from(total).map_or(MAX_LINE, |t| t.min(MAX_LINE));
        Ok(Some(Line {
            number: self.number,
            text: &self.buf[..kept],
            too_long,
        }))
    }
}

/// Longest part of an input quoted in a message, in characters.
const QUOTE_MAX: usize = 40;

/// Quotes `bytes` for a one-line message: in double quotes, control characters,
/// quotes and backslashes escaped as in Rust, bytes that are not UTF-8 as `\xNN`;
/// cut after 40 characters with `...` and the full length in bytes.
/// `full_len` is the length of the whole input when `bytes` is only its start.
pub fn quote(bytes: &[u8], full_len: Option<u64>) -> String {
    let mut out = String::from("\"");
    let mut shown = 0;
    let mut cut = false;
    'outer: for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if shown == QUOTE_MAX {
                cut = true;
                break 'outer;
            }
            if ch == '\'' {
                out.push(ch);
            } else {
                out.extend(ch.escape_debug());
            }
            shown += 1;
        }
        for &b in chunk.invalid() {
            if shown == QUOTE_MAX {
                cut = true;
                break 'outer;
            }
            let _ = write!(out, "\\x{b:02x}");
            shown += 1;
        }
    }
    out.push('"');
    let len = full_len.unwrap_or(bytes.len() as u64);
    if cut || full_len.is_some() {
        let _ = write!(out, "... ({len} bytes)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(input: &[u8]) -> Vec<(u64, Vec<u8>, Option<u64>)> {
        let mut reader = LineReader::with_capacity(16, input);
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            lines.push((line.number, line.text.to_vec(), line.too_long));
        }
        lines
    }

    #[test]
    fn splits_and_strips_one_cr() {
        let lines = all_lines(b"a\r\nbb\n\n\r\r\nlast");
        let texts: Vec<&[u8]> = lines.iter().map(|l| l.1.as_slice()).collect();
        assert_eq!(texts, [&b"a"[..], b"bb", b"", b"\r", b"last"]);
        assert_eq!(lines.last().unwrap().0, 5);
        assert!(all_lines(b"").is_empty());
        assert_eq!(all_lines(b"\n").len(), 1);
        assert_eq!(all_lines(b"x\r")[0].1, b"x");
    }

    #[test]
    fn caps_long_lines() {
        let mut input = vec![b'x'; MAX_LINE];
        input.push(b'\n');
        input.extend(vec![b'y'; MAX_LINE + 1]);
        input.extend(b"\r\n");
        input.extend(vec![b'z'; 100_000]);
        let lines = all_lines(&input);
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0].1.len(), lines[0].2), (MAX_LINE, None));
        assert_eq!(lines[1].2, Some(MAX_LINE as u64 + 1));
        assert_eq!(lines[1].1.len(), MAX_LINE);
        assert_eq!(lines[2].2, Some(100_000));
    }

    #[test]
    fn quotes_safely() {
        assert_eq!(quote(b"abc", None), "\"abc\"");
        assert_eq!(quote(b"a\"b\\c\t'", None), "\"a\\\"b\\\\c\\t'\"");
        assert_eq!(quote(b"\xff\x00\xc3\xa9", None), "\"\\xff\\0\u{e9}\"");
        assert_eq!(quote(b"\x1b[31m", None), "\"\\u{1b}[31m\"");
        let long = quote(&[b'A'; 50], None);
        assert_eq!(long, format!("\"{}\"... (50 bytes)", "A".repeat(40)));
        assert_eq!(quote(b"AB", Some(9000)), "\"AB\"... (9000 bytes)");
    }
}
