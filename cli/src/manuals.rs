//! `scru128 completions SHELL` and `scru128 man [COMMAND]`: shell completion scripts
//! (`clap_complete`) and man pages (`clap_mangen`) made from the same clap definition
//! as the parser, so they always list what the tool takes.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::output::{self, Failure, Status, write_failed};

/// Runs `completions`: the script for `shell` on standard output.
///
/// # Errors
///
/// A write error other than a broken pipe.
pub fn completions(shell: Shell) -> Result<Status, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "scru128", &mut script);
    write_out(&script)
}

/// Runs `man`: the page of the tool, or of `command`, as roff on standard output.
///
/// # Errors
///
/// [`Failure::Usage`] for a name that is no command; a write error other than a
/// broken pipe.
pub fn man(command: Option<&str>) -> Result<Status, Failure> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    // Gives each command its full name (`scru128-inspect`, `scru128 inspect`).
    cmd.build();
    let page = match command {
        None => cmd,
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
                return Err(Failure::Usage(format!(
                    "no command {name:?}; the commands are {}",
                    names.join(", ")
                )));
            };
            sub.clone()
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .source(concat!("scru128 ", env!("CARGO_PKG_VERSION")))
        .manual("User Commands")
        .render(&mut roff)
        .map_err(write_failed)?;
    write_out(&roff)
}

/// Writes `bytes` to standard output.
fn write_out(bytes: &[u8]) -> Result<Status, Failure> {
    let mut out = output::stdout();
    let result = out
        .write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(write_failed);
    output::end(Status::Success, result)
}
