//! `scru128 convert`: IDs read in any accepted form, written in the chosen `--format`,
//! one per line and streamed, in input order; bad inputs are reported as in `inspect`.

use std::io::Write;

use crate::args::ConvertArgs;
use crate::forms::{MAX_FORM_LEN, write_id};
use crate::input;
use crate::output::{Failure, Status, write_failed};

/// Runs `convert`.
///
/// # Errors
///
/// A read error, or a write error other than a broken pipe.
pub fn run(args: &ConvertArgs) -> Result<Status, Failure> {
    let mut line = [0u8; MAX_FORM_LEN + 1];
    input::each_id("convert", &args.input, |_, id, out| {
        let len = write_id(id, args.format, &mut line);
        line[len] = b'\n';
        out.write_all(&line[..=len]).map_err(write_failed)
    })
}
