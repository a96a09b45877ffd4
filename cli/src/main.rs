//! `scru128`: generate, inspect, convert, bound and check SCRU128 IDs from the command
//! line.
//!
//! Exit status: 0 success, 1 bad data (bad input lines, failed checks, IDs that cannot
//! be made because the clock is outside the SCRU128 range or the timestamps after
//! `--at` are used up, a write error such as a full disk, or a read error), 2 bad
//! usage (clap's errors included). Each command's help and man page list its own
//! ([`docs`]; `tests/robustness.rs` runs every status each page lists).
//! `--help` and `--version` exit 0. When the reader of standard output goes away
//! (`scru128 -n 100000000 | head -1`), the command ends at once and quietly, with the
//! status it had reached (0 unless bad data was already seen). Usage errors are one
//! line, `scru128 COMMAND: error: ...`, for clap's errors too ([`usage`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::pedantic)]

mod args;
mod bounds;
mod check;
mod convert;
mod docs;
mod forms;
mod generate;
mod input;
mod inspect;
mod lines;
mod manuals;
mod output;
mod time;
mod usage;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::args::{Cli, Command};
use crate::output::{Failure, Status, report};

/// Exit status of bad usage.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let command_line = usage::help_of_help(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&command_line) {
        Ok(cli) => cli,
        Err(err) => {
            return match err.kind() {
                // Help and version go to stdout and exit 0. A failed print (closed
                // stdout) does not change that.
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = err.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    report(format_args!(
                        "{}",
                        usage::clap_error_line(&err, &command_line)
                    ));
                    ExitCode::from(USAGE)
                }
            };
        }
    };
    let (name, result) = match &cli.command {
        None => ("generate", generate::run(&cli.generate)),
        Some(Command::Generate(args)) => ("generate", generate::run(args)),
        Some(Command::Inspect(args)) => ("inspect", inspect::run(args)),
        Some(Command::Convert(args)) => ("convert", convert::run(args)),
        Some(Command::Bounds(args)) => ("bounds", bounds::run(args)),
        Some(Command::Check(args)) => ("check", check::run(args)),
        Some(Command::Completions(args)) => ("completions", manuals::completions(args.shell)),
        Some(Command::Man(args)) => ("man", manuals::man(args.command.as_deref())),
    };
    match result {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::BadData) => ExitCode::from(1),
        Err(failure @ Failure::Usage(_)) => {
            report(format_args!("scru128 {name}: error: {failure}"));
            ExitCode::from(USAGE)
        }
        Err(failure) => {
            report(format_args!("scru128 {name}: error: {failure}"));
            ExitCode::from(1)
        }
    }
}
