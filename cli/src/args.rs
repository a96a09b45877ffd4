//! Command-line arguments (clap derive), with the help texts and their examples.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};
use scru128::{MAX_TIMESTAMP, Scru128Id, TIMESTAMP_BIAS};

use crate::time::{iso_z, parse_time};

/// Examples shown by `scru128 --help`.
const MAIN_EXAMPLES: &str = "\
Examples:
  scru128                          one new ID
  scru128 -n 5 --format uuid       five IDs in UUID form
  scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 bounds 2024-05-01T00:00:00Z 2024-05-31T23:59:59.999Z
  scru128 -n 1000000 | scru128 check

Exit status: 0 success, 1 bad data (or a write error), 2 bad usage.";

/// Examples shown by `scru128 generate --help`.
const GENERATE_EXAMPLES: &str = "\
Examples:
  scru128 generate                         one ID, e.g. 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 -n 3 --format hex                three IDs as 32 hex digits
  scru128 -n 2 --format int                as decimal integers
  scru128 -n 5 --at 2024-05-01T12:00:00Z   backfill: IDs of that millisecond
  scru128 -n 5 --at 1714564800000          the same time in Unix milliseconds

Exit status: 0 success, 1 a write error (e.g. a full disk), 2 bad usage. A reader
that goes away early (`scru128 -n 100000000 | head -1`) ends the run quietly, 0.";

/// Examples shown by `scru128 inspect --help`.
const INSPECT_EXAMPLES: &str = "\
Examples:
  scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 inspect --pretty 0184f1d7-06ea-d8e6-7f0f-22cd8d2f0b2d
  scru128 -n 3 | scru128 inspect

Input: one ID per argument, or per line of standard input when no ID is given.
A trailing \"\\r\" is dropped from each line; empty lines of standard input are
skipped (as scru128-inspect does); nothing else is trimmed. Lines longer than
4096 bytes are reported as too long. Each bad input is reported on standard
error with its line (or argument) number and the reason; the others are still
shown, and the exit status is then 1 (2 for bad usage).";

/// Examples shown by `scru128 bounds --help`.
const BOUNDS_EXAMPLES: &str = "\
Examples:
  scru128 bounds 2024-05-01T00:00:00Z
  scru128 bounds 2024-05-01T00:00:00+02:00 2024-05-01T23:59:59.999+02:00
  scru128 bounds 1714521600000 1714607999999 --format uuid

Every ID generated from FROM to TO (both included, millisecond precision) is
between the two lines: `WHERE id BETWEEN first AND second`. Sub-millisecond
digits are cut (the time lies in that millisecond). Exit status 2 when FROM is
after TO or a time is not valid or outside 2020-01-01 to 2577-06-22.";

/// Examples shown by `scru128 check --help`.
const CHECK_EXAMPLES: &str = "\
Examples:
  scru128 -n 1000000 | scru128 check
  scru128 check --no-clock < ids-saved-last-year.txt
  my-generator | scru128 check --max-skew 60000

Checks (SPEC section 3), each counted in the summary table on standard output:
  parse            every line is an ID (canonical either case, hex or UUID form);
                   empty lines count as bad
  order            each ID is greater than the one before, as an integer and as
                   text (the lines compared byte by byte as given)
  counter +1       at an unchanged timestamp the counter rises by exactly one
  not reserved     no timestamp is 0 or 2^44-1
  near clock       timestamp within --max-skew ms of the clock when the line is
                   read (skip with --no-clock for saved streams)
  renewal          per_sec_random changes only at a new timestamp and only
                   1000 ms or more after the change before; it is reported as
                   not renewed only when it stays unchanged past two due points
                   (one equal fresh draw has probability 2^-24)
  bit balance      ones and zeros of each bit of per_gen_random (every ID), of
                   the counter at each new timestamp and of per_sec_random at
                   each change, judged from 100 samples on with a Hoeffding
                   bound that a correct generator exceeds in fewer than one run
                   in a million (all 84 bits together)
Violations are quoted on standard error with their line numbers (the first
--show of them); the exit status is 1 if there is any, 2 for bad usage.";

/// Generate, inspect, bound and check SCRU128 IDs (spec v1.0.2: 44-bit timestamp,
/// 26 base-32 digits).
#[derive(Parser, Debug)]
#[command(
    name = "scru128",
    version,
    about = "Generate, inspect, bound and check SCRU128 IDs (SCRU128 spec v1.0.2)",
    after_help = MAIN_EXAMPLES,
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// The command; none means `generate`.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `generate` given without the command name.
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate new IDs, one per line (the default command)
    #[command(after_help = GENERATE_EXAMPLES)]
    Generate(GenerateArgs),
    /// Show the fields of IDs as JSON, one object per line
    #[command(after_help = INSPECT_EXAMPLES)]
    Inspect(InspectArgs),
    /// Print the smallest ID at FROM and the largest ID at TO, for range queries
    #[command(after_help = BOUNDS_EXAMPLES)]
    Bounds(BoundsArgs),
    /// Test a stream of IDs (in generation order, from standard input) against the
    /// generator rules
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
}

/// Text form of the IDs written.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// 26 base-32 digits, uppercase (the SCRU128 text form)
    #[default]
    Canonical,
    /// 26 base-32 digits, lowercase
    Lower,
    /// 32 lowercase hex digits of the 128 bits
    Hex,
    /// the 128 bits as lowercase hex in 8-4-4-4-12 groups
    Uuid,
    /// the 128-bit value in decimal
    Int,
}

/// Options of `generate`.
#[derive(Args, Debug, Clone)]
pub struct GenerateArgs {
    /// Number of IDs to write
    #[arg(
        short = 'n',
        long = "count",
        value_name = "COUNT",
        default_value_t = 1,
        allow_negative_numbers = true,
        value_parser = parse_count
    )]
    pub count: u64,
    /// Text form of the IDs
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Canonical)]
    pub format: Format,
    /// Use this time (RFC 3339 or Unix milliseconds) instead of the clock; the IDs
    /// still increase (counter overflow moves to the next millisecond)
    #[arg(long, value_name = "TIME", value_parser = parse_generate_time)]
    pub at: Option<u64>,
}

/// Options of `inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// IDs to inspect: canonical text in either case, 32 hex digits, or UUID form;
    /// none: read one per line from standard input
    #[arg(value_name = "ID")]
    pub ids: Vec<OsString>,
    /// Write each object indented over several lines, exactly as scru128-inspect
    /// (Python, 1.0.1) does
    #[arg(long)]
    pub pretty: bool,
}

/// Options of `bounds`.
#[derive(Args, Debug)]
pub struct BoundsArgs {
    /// Start time (RFC 3339 or Unix milliseconds): the first line is the smallest ID
    /// of this millisecond
    #[arg(value_name = "FROM", allow_negative_numbers = true, value_parser = parse_bound_time)]
    pub from: u64,
    /// End time (default: FROM): the second line is the largest ID of this millisecond
    #[arg(value_name = "TO", allow_negative_numbers = true, value_parser = parse_bound_time)]
    pub to: Option<u64>,
    /// Text form of the IDs
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Canonical)]
    pub format: Format,
}

/// Options of `check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Do not compare timestamps with the clock (for streams saved earlier)
    #[arg(long)]
    pub no_clock: bool,
    /// Largest distance, in milliseconds, allowed between an ID's timestamp and the
    /// clock when the line is read
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 10_000,
        conflicts_with = "no_clock"
    )]
    pub max_skew: u64,
    /// How many violations to quote on standard error
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub show: u64,
}

/// Parses `-n COUNT`: a whole number from 0.
fn parse_count(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

/// Parses a time and checks that IDs can be generated at it.
fn parse_generate_time(text: &str) -> Result<u64, String> {
    let (first, last) = (TIMESTAMP_BIAS + 1, TIMESTAMP_BIAS + MAX_TIMESTAMP - 1);
    match u64::try_from(parse_time(text)?) {
        Ok(ms) if (first..=last).contains(&ms) => Ok(ms),
        _ => Err(format!(
            "outside the times IDs can be generated at: {} to {}",
            iso_z(first),
            iso_z(last)
        )),
    }
}

/// Parses a time and checks that SCRU128 can represent it.
fn parse_bound_time(text: &str) -> Result<u64, String> {
    match u64::try_from(parse_time(text)?) {
        Ok(ms) if Scru128Id::try_min_at_unix_ts_ms(ms).is_ok() => Ok(ms),
        _ => Err(format!(
            "outside the SCRU128 time range: {} to {}",
            iso_z(TIMESTAMP_BIAS),
            iso_z(TIMESTAMP_BIAS + MAX_TIMESTAMP)
        )),
    }
}
