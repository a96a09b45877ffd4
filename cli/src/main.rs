//! `scru128`: generate, inspect, bound and check SCRU128 IDs from the command line.
//!
//! Exit status: 0 success, 1 bad data (bad input lines, failed checks, a write error
//! such as a full disk, or a read error), 2 bad usage (clap's errors included).
//! `--help` and `--version` exit 0. When the reader of standard output goes away
//! (`scru128 -n 100000000 | head -1`), the command ends at once and quietly, with the
//! status it had reached (0 unless bad data was already seen).
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::pedantic)]

mod args;
mod bounds;
mod check;
mod forms;
mod generate;
mod inspect;
mod lines;
mod output;
mod time;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::args::{Cli, Command};
use crate::output::{Failure, Status, report};

/// Exit status of bad usage.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version go to stdout and exit 0; errors go to stderr and exit 2.
            // A failed print (closed stdout or stderr) changes neither.
            let _ = err.print();
            return match err.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => ExitCode::SUCCESS,
                _ => ExitCode::from(USAGE),
            };
        }
    };
    let (name, result) = match &cli.command {
        None => ("generate", generate::run(&cli.generate)),
        Some(Command::Generate(args)) => ("generate", generate::run(args)),
        Some(Command::Inspect(args)) => ("inspect", inspect::run(args)),
        Some(Command::Bounds(args)) => ("bounds", bounds::run(args)),
        Some(Command::Check(args)) => ("check", check::run(args)),
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
