//! A line reader with bounded memory, and the safe quoting of input in messages.
//!
//! Lines end with `\n`; one `\r` before it (or before the end of input) is dropped,
//! so files with CRLF line ends read the same. Nothing else is trimmed. A line longer
//! than [`MAX_LINE`] characters is read to its end without keeping more than
//! [`KEEP`] bytes and is handed out as [`Line::too_long`], so a huge input with no
//! newline costs no more memory than a short one. Input need not be UTF-8: a byte
//! that is not part of a UTF-8 character counts as one character.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, ErrorKind, Read};

/// Longest line read, in characters (without the line end). Any ID form is at most 39.
pub const MAX_LINE: usize = 4096;

/// Bytes kept of a line: [`MAX_LINE`] characters of up to 4 bytes each, and one more
/// so that a trailing `\r` can still be dropped. More bytes than `4 * MAX_LINE` are
/// more than `MAX_LINE` characters.
pub const KEEP: usize = 4 * MAX_LINE + 1;

/// One line of input.
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The line without its `\n` and one trailing `\r`; for a line that is too long,
    /// its first bytes (at most [`KEEP`]).
    pub text: &'a [u8],
    /// Whether the line is longer than [`MAX_LINE`] characters.
    pub too_long: bool,
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
            buf: Vec::with_capacity(KEEP),
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
            let room = KEEP.saturating_sub(self.buf.len());
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
        let kept = usize::try_from(total).map_or(KEEP, |t| t.min(KEEP));
        let text = &self.buf[..kept];
        // Characters are never more than bytes: count them only for a long line.
        let too_long =
            total > MAX_LINE as u64 && (total > 4 * MAX_LINE as u64 || char_count(text) > MAX_LINE);
        Ok(Some(Line {
            number: self.number,
            text,
            too_long,
        }))
    }
}

/// Number of characters in `bytes`: each UTF-8 character counts as one and so does
/// each byte that is not part of one (as the library counts them in its messages).
pub fn char_count(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
        .sum()
}

/// Longest part of an input quoted in a message, in characters.
const QUOTE_MAX: usize = 40;

/// Quotes `bytes` for a one-line message: in double quotes, control characters,
/// quotes and backslashes escaped as in Rust, bytes that are not UTF-8 as `\xNN`;
/// cut after 40 characters with `...` and the length in characters. `too_long` says
/// that `bytes` is only the start of a line longer than [`MAX_LINE`] characters.
pub fn quote(bytes: &[u8], too_long: bool) -> String {
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
    if too_long {
        let _ = write!(out, "... (more than {MAX_LINE} characters)");
    } else if cut {
        let _ = write!(out, "... ({} characters)", char_count(bytes));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(input: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
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
    fn caps_long_lines_in_characters() {
        let mut input = vec![b'x'; MAX_LINE];
        input.extend(b"\r\n");
        input.extend(vec![b'y'; MAX_LINE + 1]);
        input.extend(b"\r\n");
        input.extend(vec![b'z'; 100_000]);
        input.push(b'\n');
        // 4096 characters of 4 bytes each: not too long; one more is.
        input.extend("😀".repeat(MAX_LINE).as_bytes());
        input.extend(b"\r\n");
        input.extend("😀".repeat(MAX_LINE + 1).as_bytes());
        input.push(b'\n');
        // Bytes that are not UTF-8 count one each.
        input.extend(vec![0x80; MAX_LINE + 1]);
        let lines = all_lines(&input);
        assert_eq!(lines.len(), 6);
        assert_eq!((lines[0].1.len(), lines[0].2), (MAX_LINE, false));
        assert!(lines[1].2);
        assert_eq!(lines[1].1.len(), MAX_LINE + 1);
        assert!(lines[2].2);
        assert_eq!(lines[2].1.len(), KEEP);
        assert_eq!((lines[3].1.len(), lines[3].2), (4 * MAX_LINE, false));
        assert!(lines[4].2);
        assert!(lines[5].2);
    }

    #[test]
    fn counts_characters() {
        assert_eq!(char_count(b"abc"), 3);
        assert_eq!(char_count("é😀".as_bytes()), 2);
        assert_eq!(char_count(b"\xff\xfe"), 2);
        assert_eq!(char_count(b"\xe2\x82A"), 3);
    }

    #[test]
    fn quotes_safely() {
        assert_eq!(quote(b"abc", false), "\"abc\"");
        assert_eq!(quote(b"a\"b\\c\t'", false), "\"a\\\"b\\\\c\\t'\"");
        assert_eq!(quote(b"\xff\x00\xc3\xa9", false), "\"\\xff\\0\u{e9}\"");
        assert_eq!(quote(b"\x1b[31m", false), "\"\\u{1b}[31m\"");
        let long = quote(&[b'A'; 50], false);
        assert_eq!(long, format!("\"{}\"... (50 characters)", "A".repeat(40)));
        let long = quote("é".repeat(41).as_bytes(), false);
        assert_eq!(long, format!("\"{}\"... (41 characters)", "é".repeat(40)));
        assert_eq!(quote(b"AB", true), "\"AB\"... (more than 4096 characters)");
    }
}
