//! Standard output in large blocks, standard error for one-line reports, and the
//! failures that end a command.

use std::fmt;
use std::io::{self, BufWriter, ErrorKind, StdoutLock, Write};

use scru128::GenerateError;

/// Size of the block buffer in front of standard output.
pub const OUT_BUFFER: usize = 128 * 1024;

/// Buffered, locked standard output.
pub type Out = BufWriter<StdoutLock<'static>>;

/// Opens standard output with a [`OUT_BUFFER`]-byte buffer.
pub fn stdout() -> Out {
    BufWriter::with_capacity(OUT_BUFFER, io::stdout().lock())
}

/// How a command ended when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything was fine: exit status 0.
    Success,
    /// Some input was bad or a check failed (already reported): exit status 1.
    BadData,
}

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage found after argument parsing: exit status 2.
    Usage(String),
    /// Writing standard output failed. A broken pipe (the reader went away) is a
    /// normal end; any other error is reported: exit status 1.
    Write(io::Error),
    /// Reading standard input failed: exit status 1.
    Read(io::Error),
    /// The generator cannot go on: exit status 1.
    Generate(GenerateError),
}

impl Failure {
    /// Whether this is standard output's reader going away.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Write(err) if err.kind() == ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(msg) => f.write_str(msg),
            Self::Write(err) => write!(f, "cannot write to standard output: {err}"),
            Self::Read(err) => write!(f, "cannot read standard input: {err}"),
            Self::Generate(err) => write!(f, "cannot generate: {err}"),
        }
    }
}

/// Turns a write error into a [`Failure`].
pub fn write_failed(err: io::Error) -> Failure {
    Failure::Write(err)
}

/// Ends a command whose output may have been cut by its reader: a broken pipe is a
/// normal end with the status reached so far.
///
/// # Errors
///
/// Any other failure.
pub fn end(status: Status, result: Result<(), Failure>) -> Result<Status, Failure> {
    match result {
        Ok(()) => Ok(status),
        Err(failure) if failure.is_broken_pipe() => Ok(status),
        Err(failure) => Err(failure),
    }
}

/// Writes one line to standard error. Errors are ignored: there is nowhere left to
/// report them, and a closed or full standard error must not stop the command.
pub fn report(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.write_all(b"\n");
}
