//! Command-line arguments (clap derive), with the help texts and their examples.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use scru128::{MAX_TIMESTAMP, TIMESTAMP_BIAS};

use crate::docs;
use crate::time::{TimeSpan, iso_z, now_ms, parse_time};

/// Generate, inspect, convert, bound and check SCRU128 IDs (spec v1.0.2: 44-bit
/// timestamp, 26 base-32 digits).
#[derive(Parser, Debug)]
#[command(
    name = "scru128",
    version,
    about = "Generate, inspect, convert, bound and check SCRU128 IDs (SCRU128 spec v1.0.2)",
    after_help = docs::MAIN.help(),
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
    #[command(after_help = docs::GENERATE.help())]
    Generate(GenerateArgs),
    /// Show the fields of IDs as JSON, one object per line
    #[command(after_help = docs::INSPECT.help())]
    Inspect(InspectArgs),
    /// Write IDs given in any form in the form of --format, one per line
    #[command(after_help = docs::CONVERT.help())]
    Convert(ConvertArgs),
    /// Print the smallest ID at FROM and the largest ID at TO, for range queries
    #[command(after_help = docs::BOUNDS.help())]
    Bounds(BoundsArgs),
    /// Test a stream of IDs (in generation order) against the generator rules
    #[command(after_help = docs::CHECK.help())]
    Check(CheckArgs),
    /// Print a shell completion script
    #[command(after_help = docs::COMPLETIONS.help())]
    Completions(CompletionsArgs),
    /// Print the man page of the tool or of one command (roff)
    #[command(after_help = docs::MAN.help())]
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
    /// integer; `-` reads standard input there, one ID per line; none: read standard
    /// input
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

/// Parses a time of `bounds` and checks that SCRU128 can represent it: a millisecond
/// inside the range, or a date whose day starts inside it (the last day, 2577-06-22,
/// ends with the range).
fn parse_bound_time(text: &str) -> Result<BoundTime, String> {
    let (lo, hi) = (TIMESTAMP_BIAS, TIMESTAMP_BIAS + MAX_TIMESTAMP);
    let span = parse_time(text, now_ms)?;
    match (u64::try_from(span.first), u64::try_from(span.last)) {
        (Ok(first), Ok(last)) if (lo..=hi).contains(&first) => Ok(BoundTime {
            first,
            last: last.min(hi),
        }),
        _ if span.first != span.last => Err(out_of_range(
            text,
            span,
            "the day starts outside the SCRU128 time range",
            lo,
            hi,
        )),
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
