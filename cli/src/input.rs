//! The input of `inspect` and `convert`: IDs from the arguments, where an argument `-`
//! reads one per line of standard input (as `check` reads a FILE `-`), or, when no
//! argument is given, standard input. Each bad input is reported on standard error
//! with its argument or line number and the reason; the others are still processed,
//! and the status is then [`Status::BadData`]. The first input of digits alone that
//! the length reads as canonical or hex, though it is also a decimal integer of
//! another ID, gets a warning ([`ambiguous_digits`]).

use std::io::{self, Read, Write};

use scru128::Scru128Id;

use crate::args::IdInput;
use crate::forms::{InputError, ambiguous_digits, parse_id};
use crate::lines::{LineReader, quote};
use crate::output::{self, Failure, Out, Status, report, write_failed};

/// Size of the read buffer in front of standard input.
pub const IN_BUFFER: usize = 64 * 1024;

/// Reads the IDs of `input` and hands each, with its text as given, to `write`, which
/// writes to standard output. `command` names the command in reports.
///
/// # Errors
///
/// A read error, or a write error other than a broken pipe.
pub fn each_id(
    command: &str,
    input: &IdInput,
    mut write: impl FnMut(&[u8], &Scru128Id, &mut Out) -> Result<(), Failure>,
) -> Result<Status, Failure> {
    let mut out = output::stdout();
    let mut reader = Reader {
        command,
        input,
        bad: 0,
        warned: false,
    };
    let result = if input.ids.is_empty() {
        let stdin = LineReader::with_capacity(IN_BUFFER, io::stdin().lock());
        reader.lines(stdin, &mut out, &mut write)
    } else {
        reader.args(&mut out, &mut write)
    };
    let result = result.and_then(|()| out.flush().map_err(write_failed));
    let status = if reader.bad > 0 {
        Status::BadData
    } else {
        Status::Success
    };
    output::end(status, result)
}

/// The state of one run over the input.
struct Reader<'a> {
    command: &'a str,
    input: &'a IdInput,
    bad: u64,
    /// Whether the warning about digits alone was given (it is given once).
    warned: bool,
}

impl Reader<'_> {
    /// The IDs given as arguments; `-` reads standard input there.
    fn args<W: Write>(
        &mut self,
        out: &mut W,
        write: &mut impl FnMut(&[u8], &Scru128Id, &mut W) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        for (i, arg) in self.input.ids.iter().enumerate() {
            if arg == "-" {
                let stdin = LineReader::with_capacity(IN_BUFFER, io::stdin().lock());
                self.lines(stdin, out, write)?;
            } else {
                self.one("argument", i as u64 + 1, arg.as_encoded_bytes(), out, write)?;
            }
        }
        Ok(())
    }

    /// One input, `what` `number` in reports.
    fn one<W: Write>(
        &mut self,
        what: &str,
        number: u64,
        text: &[u8],
        out: &mut W,
        write: &mut impl FnMut(&[u8], &Scru128Id, &mut W) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        match parse_id(text, self.input.from) {
            Ok(id) => {
                let warning = (!self.warned)
                    .then(|| ambiguous_digits(text, self.input.from, &id))
                    .flatten();
                if let Some(warning) = warning {
                    self.warned = true;
                    report(format_args!(
                        "scru128 {}: {what} {number}: {}: {warning}",
                        self.command,
                        quote(text, false)
                    ));
                }
                write(text, &id, out)
            }
            Err(err) => {
                self.bad(what, number, text, false, &err);
                Ok(())
            }
        }
    }

    /// One ID per line of `lines`, skipping empty lines.
    fn lines<W: Write>(
        &mut self,
        mut lines: LineReader<impl Read>,
        out: &mut W,
        write: &mut impl FnMut(&[u8], &Scru128Id, &mut W) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        loop {
            if lines.buffer_is_empty() {
                // The next read may wait (a terminal, a slow producer): show what is done.
                out.flush().map_err(write_failed)?;
            }
            let Some(line) = lines.next_line().map_err(Failure::Read)? else {
                return Ok(());
            };
            if line.too_long {
                self.bad("line", line.number, line.text, true, &InputError::TooLong);
                continue;
            }
            if line.text.is_empty() {
                continue;
            }
            self.one("line", line.number, line.text, out, write)?;
        }
    }

    /// Reports one bad input on standard error.
    fn bad(&mut self, what: &str, number: u64, text: &[u8], too_long: bool, err: &InputError) {
        self.bad += 1;
        report(format_args!(
            "scru128 {}: {what} {number}: {}: {err}",
            self.command,
            quote(text, too_long)
        ));
    }
}
