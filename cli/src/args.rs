//! Command-line arguments (clap derive), with the help texts and their examples.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use scru128::{MAX_TIMESTAMP, TIMESTAMP_BIAS};

use crate::time::{TimeSpan, iso_z, now_ms, parse_time};

/// Examples shown by `scru128 --help`.
const MAIN_EXAMPLES: &str = "\
Examples:
  scru128                          one new ID
  scru128 -n 5 --format uuid       five IDs in UUID form
  scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 convert --format uuid 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 bounds 2024-05-01                the whole UTC day
  scru128 -n 1000000 | scru128 check
  scru128 help check                       the help of a command

Exit status: 0 success, 1 bad data (or a write error), 2 bad usage.";

/// The forms of TIME, for the help of `generate` and `bounds`.
macro_rules! time_forms {
    () => {
        "
TIME: `now`; a date alone, 2024-05-01 (UTC); RFC 3339, 2024-05-01T12:00:00Z or
2024-05-01T14:00:00.250+02:00 (`t` or a space for `T`, `z` for `Z`, the offset
required, digits past milliseconds cut); Unix time in seconds, 1714521600s, or
in milliseconds, 1714521600000ms or the digits alone."
    };
}

/// Examples shown by `scru128 generate --help`.
const GENERATE_EXAMPLES: &str = concat!(
    "\
Examples:
  scru128 generate                         one ID, e.g. 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 -n 3 --format hex                three IDs as 32 hex digits
  scru128 -n 2 --format int                as decimal integers
  scru128 -n 5 --at 2024-05-01T12:00:00Z   backfill: IDs of that millisecond
  scru128 -n 5 --at 1714564800s            the same time in Unix seconds
  scru128 -n 5 --at 2024-05-01             the start of that UTC day

With --at, a date alone is its first millisecond; IDs can be generated from
2020-01-01T00:00:00.001Z to 2577-06-22T06:20:44.414Z.
",
    time_forms!(),
    "

Exit status: 0 success, 1 a write error (e.g. a full disk), 2 bad usage. A reader
that goes away early (`scru128 -n 100000000 | head -1`) ends the run quietly, 0."
);

/// How `inspect` and `convert` read their input, for their help.
macro_rules! input_rules {
    () => {
        "
Input: one ID per argument, or per line of standard input when no ID is given:
canonical text in either case, 32 hex digits, the UUID form 8-4-4-4-12, or the
decimal integer of `--format int`, told apart by length (26 or 32 decimal
digits are read as canonical or hex: use --from int for IDs of the first hours
of 2020 written in decimal). A trailing \"\\r\" is dropped from each line; empty
lines of standard input are skipped; nothing else is trimmed. Lines longer than
4096 characters are reported as too long. Each bad input is reported on
standard error with its line (or argument) number and the reason; the others are
still processed, and the exit status is then 1 (2 for bad usage)."
    };
}

/// Examples shown by `scru128 inspect --help`.
const INSPECT_EXAMPLES: &str = concat!(
    "\
Examples:
  scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 inspect --pretty 0184f1d7-06ea-d8e6-7f0f-22cd8d2f0b2d
  scru128 -n 3 | scru128 inspect
  scru128 -n 1 --format int | scru128 inspect
",
    input_rules!()
);

/// Examples shown by `scru128 bounds --help`.
const BOUNDS_EXAMPLES: &str = concat!(
    "\
Examples:
  scru128 bounds 2024-05-01                          that whole UTC day
  scru128 bounds 2024-05-01 2024-05-31               the whole of May
  scru128 bounds 2024-05-01T00:00:00+02:00 2024-05-01T23:59:59.999+02:00
  scru128 bounds 1714521600s now --format uuid

Every ID generated from FROM to TO (both included, millisecond precision) is
between the two lines: `WHERE id BETWEEN first AND second`. A date alone covers
its whole UTC day; other times are one millisecond (sub-millisecond digits are
cut). Exit status 2 when FROM is after TO or a time is not valid or outside
2020-01-01 to 2577-06-22.
",
    time_forms!()
);

/// Examples shown by `scru128 convert --help`.
const CONVERT_EXAMPLES: &str = concat!(
    "\
Examples:
  scru128 convert --format uuid 037MAEGI8KVFL3FTP70ISOLQHV
  scru128 convert --format int 0184f1d7-06ea-d8e6-7f0f-22cd8d2f0b2d
  scru128 -n 3 --format int | scru128 convert
  scru128 convert --format hex < ids.txt > ids-hex.txt
",
    input_rules!()
);

/// Examples shown by `scru128 check --help`.
const CHECK_EXAMPLES: &str = "\
Examples:
  scru128 -n 1000000 | scru128 check
  scru128 check --no-clock ids-2024-04.txt ids-2024-05.txt
  my-generator | scru128 check --max-skew 60000

Input: the lines of the FILEs in order as one stream (`-` is standard input),
or standard input when no FILE is given. An input without any ID fails.

Checks (SPEC section 3), each counted in the summary table on standard output:
  parse            every line is an ID (canonical either case, hex, UUID or
                   decimal form, as for inspect); empty lines count as bad
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
--show of them); the exit status is 1 if there is any, 2 for bad usage (a FILE
that cannot be opened included).";

/// Shown by `scru128 completions --help`.
const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  scru128 completions bash > ~/.local/share/bash-completion/completions/scru128
  scru128 completions zsh > ~/.zfunc/_scru128      (with fpath+=~/.zfunc)
  scru128 completions fish > ~/.config/fish/completions/scru128.fish";

/// Shown by `scru128 man --help`.
const MAN_EXAMPLES: &str = "\
Examples:
  scru128 man > scru128.1 && man ./scru128.1
  scru128 man check > scru128-check.1
  scru128 man | sudo tee /usr/local/share/man/man1/scru128.1 > /dev/null";

/// Generate, inspect, convert, bound and check SCRU128 IDs (spec v1.0.2: 44-bit
/// timestamp, 26 base-32 digits).
#[derive(Parser, Debug)]
#[command(
    name = "scru128",
    version,
    about = "Generate, inspect, convert, bound and check SCRU128 IDs (SCRU128 spec v1.0.2)",
    after_help = MAIN_EXAMPLES,
    args_conflicts_with_subcommands = true
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
    /// Write IDs given in any form in the form of --format, one per line
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Print the smallest ID at FROM and the largest ID at TO, for range queries
    #[command(after_help = BOUNDS_EXAMPLES)]
    Bounds(BoundsArgs),
    /// Test a stream of IDs (in generation order) against the generator rules
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Print a shell completion script
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the man page of the tool or of one command (roff)
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),
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

/// Text form of the IDs read.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputForm {
    /// any form, told apart by length
    #[default]
    Auto,
    /// 26 base-32 digits in either case
    #[value(alias = "lower")]
    Canonical,
    /// 32 hex digits in either case
    Hex,
    /// 8-4-4-4-12 hex digits in either case
    Uuid,
    /// the 128-bit value in decimal digits
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
        value_parser = parse_whole_number
    )]
    pub count: u64,
    /// Text form of the IDs (any case)
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT", default_value_t = Format::Canonical)]
    pub format: Format,
    /// Use this time (see TIME below) instead of the clock; the IDs still increase (a
    /// counter overflow moves to the next millisecond)
    #[arg(long, value_name = "TIME", allow_negative_numbers = true, value_parser = parse_generate_time)]
    pub at: Option<u64>,
}

/// Where `inspect` and `convert` read IDs: the arguments, or standard input.
#[derive(Args, Debug)]
pub struct IdInput {
    /// IDs: canonical text in either case, 32 hex digits, the UUID form, or a decimal
    /// integer; none: read one per line from standard input
    #[arg(value_name = "ID")]
    pub ids: Vec<OsString>,
    /// Read only this form (any case) instead of telling the forms apart by length
    #[arg(long, value_enum, ignore_case = true, value_name = "FORM", default_value_t = InputForm::Auto)]
    pub from: InputForm,
}

/// Options of `inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The IDs to inspect.
    #[command(flatten)]
    pub input: IdInput,
    /// Write each object indented over several lines, exactly as scru128-inspect
    /// (Python, 1.0.1) does
    #[arg(long)]
    pub pretty: bool,
}

/// Options of `convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The IDs to convert.
    #[command(flatten)]
    pub input: IdInput,
    /// Text form of the IDs written (any case)
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT", default_value_t = Format::Canonical)]
    pub format: Format,
}

/// A time of `bounds`: the first and last Unix millisecond it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundTime {
    /// The first millisecond.
    pub first: u64,
    /// The last millisecond (the end of the day for a date alone).
    pub last: u64,
}

/// Options of `bounds`.
#[derive(Args, Debug)]
pub struct BoundsArgs {
    /// Start time (see TIME below): the first line is the smallest ID of its first
    /// millisecond
    #[arg(value_name = "FROM", allow_negative_numbers = true, value_parser = parse_bound_time)]
    pub from: BoundTime,
    /// End time (default: FROM): the second line is the largest ID of its last
    /// millisecond (of the whole day for a date alone)
    #[arg(value_name = "TO", allow_negative_numbers = true, value_parser = parse_bound_time)]
    pub to: Option<BoundTime>,
    /// Text form of the IDs (any case)
    #[arg(long, value_enum, ignore_case = true, value_name = "FORMAT", default_value_t = Format::Canonical)]
    pub format: Format,
}

/// Options of `check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files to read as one stream, in order (`-`: standard input); none: standard
    /// input
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,
    /// Do not compare timestamps with the clock (for streams saved earlier)
    #[arg(long)]
    pub no_clock: bool,
    /// Largest distance, in milliseconds, allowed between an ID's timestamp and the
    /// clock when the line is read
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 10_000,
        conflicts_with = "no_clock",
        allow_negative_numbers = true,
        value_parser = parse_whole_number
    )]
    pub max_skew: u64,
    /// How many violations to quote on standard error
    #[arg(long, value_name = "N", default_value_t = 10, allow_negative_numbers = true, value_parser = parse_whole_number)]
    pub show: u64,
    /// Read only this form (any case) instead of telling the forms apart by length
    #[arg(long, value_enum, ignore_case = true, value_name = "FORM", default_value_t = InputForm::Auto)]
    pub from: InputForm,
}

/// Options of `completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell (any case)
    #[arg(value_enum, ignore_case = true, value_name = "SHELL")]
    pub shell: Shell,
}

/// Options of `man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// The command whose page to print (default: the page of the tool, which lists
    /// every command)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Parses a whole number from 0 (`-n`, `--max-skew`, `--show`).
fn parse_whole_number(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

/// Parses a time of `--at` and checks that IDs can be generated at it.
fn parse_generate_time(text: &str) -> Result<u64, String> {
    let (first, last) = (TIMESTAMP_BIAS + 1, TIMESTAMP_BIAS + MAX_TIMESTAMP - 1);
    let span = parse_time(text, now_ms)?;
    match u64::try_from(span.first) {
        Ok(ms) if (first..=last).contains(&ms) => Ok(ms),
        _ => Err(out_of_range(
            text,
            span,
            "outside the times IDs can be generated at",
            first,
            last,
        )),
    }
}

/// Parses a time of `bounds` and checks that SCRU128 can represent it.
fn parse_bound_time(text: &str) -> Result<BoundTime, String> {
    let (lo, hi) = (TIMESTAMP_BIAS, TIMESTAMP_BIAS + MAX_TIMESTAMP);
    let span = parse_time(text, now_ms)?;
    match (u64::try_from(span.first), u64::try_from(span.last)) {
        (Ok(first), Ok(last)) if first >= lo && last <= hi => Ok(BoundTime { first, last }),
        _ => Err(out_of_range(
            text,
            span,
            "outside the SCRU128 time range",
            lo,
            hi,
        )),
    }
}

/// The message for a time outside `lo..=hi`: the range, or, for digits alone that
/// fall before 2020 as milliseconds but fit as seconds, the fix.
fn out_of_range(text: &str, span: TimeSpan, what: &str, lo: u64, hi: u64) -> String {
    let digits_alone = text.bytes().all(|b| b.is_ascii_digit());
    let as_seconds = u64::try_from(span.first)
        .ok()
        .filter(|&ms| digits_alone && ms < TIMESTAMP_BIAS)
        .and_then(|ms| Some((ms, ms.checked_mul(1000)?)))
        .filter(|&(_, secs_ms)| (lo..=hi).contains(&secs_ms));
    match as_seconds {
        Some((ms, secs_ms)) => format!(
            "{text} is Unix milliseconds, {} (before 2020); as Unix seconds it is {}: write {text}s",
            iso_z(ms),
            iso_z(secs_ms)
        ),
        None => format!("{what}: {} to {}", iso_z(lo), iso_z(hi)),
    }
}
