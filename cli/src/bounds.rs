//! `scru128 bounds`: the smallest ID at FROM and the largest ID at TO.

use std::io::Write;

use scru128::Scru128Id;

use crate::args::BoundsArgs;
use crate::forms::{MAX_FORM_LEN, write_id};
use crate::output::{self, Failure, Status, write_failed};
use crate::time::iso_z;

/// Runs `bounds`.
///
/// # Errors
///
/// [`Failure::Usage`] when FROM is after TO (FROM's first millisecond after TO's last);
/// a write error other than a broken pipe.
pub fn run(args: &BoundsArgs) -> Result<Status, Failure> {
    // FROM's first millisecond to TO's last: a date alone covers its whole day.
    let (from, to) = (args.from.first, args.to.unwrap_or(args.from).last);
    if from > to {
        return Err(Failure::Usage(format!(
            "FROM ({}) is after TO ({}); give the earlier time first",
            iso_z(from),
            iso_z(to)
        )));
    }
    // The argument parser has checked both times against the SCRU128 range.
    let (lo, hi) = match (
        Scru128Id::try_min_at_unix_ts_ms(from),
        Scru128Id::try_max_at_unix_ts_ms(to),
    ) {
        (Ok(lo), Ok(hi)) => (lo, hi),
        (Err(err), _) | (_, Err(err)) => return Err(Failure::Usage(err.to_string())),
    };
    let mut out = output::stdout();
    let mut line = [0u8; MAX_FORM_LEN + 1];
    let mut result = Ok(());
    for id in [lo, hi] {
        let len = write_id(&id, args.format, &mut line);
        line[len] = b'\n';
        result = result.and_then(|()| out.write_all(&line[..=len]).map_err(write_failed));
    }
    let result = result.and_then(|()| out.flush().map_err(write_failed));
    output::end(Status::Success, result)
}
