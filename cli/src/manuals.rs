//! `scru128 completions SHELL` and `scru128 man [COMMAND]`: shell completion scripts
//! (`clap_complete`) and man pages (`clap_mangen`) made from the same clap definition
//! as the parser, so they always list what the tool takes.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::docs::{self, Page};
use crate::output::{self, Failure, Status, write_failed};
use crate::usage;

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
    let (page, docs) = match command.map(|name| (name, cmd.find_subcommand(name))) {
        None => (cmd.clone(), docs::page(None)),
        Some((name, Some(sub))) => (sub.clone(), docs::page(Some(name))),
        Some((name, None)) => {
            return Err(Failure::Usage(format!(
                "no command {name:?}; the commands are {}",
                usage::command_list(&cmd)
            )));
        }
    };
    let Some(docs) = docs else {
        return Err(Failure::Usage(format!("no page for {:?}", page.get_name())));
    };
    let roff = render_page(page, docs).map_err(write_failed)?;
    write_out(&roff)
}

/// The man page of `cmd`: `clap_mangen`'s sections (NAME, SYNOPSIS, DESCRIPTION,
/// OPTIONS, SUBCOMMANDS, VERSION) around the page's own ones from `docs`, instead
/// of `clap_mangen`'s EXTRA section, which would fill the examples like prose.
fn render_page(cmd: clap::Command, docs: &Page) -> io::Result<Vec<u8>> {
    let has_options = cmd.get_arguments().any(|a| !a.is_hide_set());
    let has_commands = cmd.get_subcommands().any(|s| !s.is_hide_set());
    let has_version = cmd.get_version().is_some();
    let man = clap_mangen::Man::new(cmd)
        .source(concat!("scru128 ", env!("CARGO_PKG_VERSION")))
        .manual("User Commands");
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut part = |render: &dyn Fn(&mut Vec<u8>) -> io::Result<()>| {
        let mut buf = Vec::new();
        render(&mut buf).map(|()| parts.push(buf))
    };
    part(&|w| man.render_title(w))?;
    part(&|w| man.render_name_section(w))?;
    part(&|w| man.render_synopsis_section(w))?;
    part(&|w| man.render_description_section(w))?;
    part(&|w| docs.roff_about().to_writer(w))?;
    if has_options {
        part(&|w| man.render_options_section(w))?;
    }
    if has_commands {
        part(&|w| man.render_subcommands_section(w))?;
    }
    part(&|w| docs.roff().to_writer(w))?;
    if has_version {
        part(&|w| man.render_version_section(w))?;
    }
    // Each part starts with the same preamble (the apostrophe string); once is enough.
    let mut page = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let body = if i == 0 {
            part.as_slice()
        } else {
            part.strip_prefix(PREAMBLE.as_bytes()).unwrap_or(part)
        };
        page.extend_from_slice(body);
    }
    Ok(page)
}

/// What the roff crate writes at the start of every document it renders.
const PREAMBLE: &str = r".ie \n(.g .ds Aq \(aq
.el .ds Aq '
";

/// Writes `bytes` to standard output.
fn write_out(bytes: &[u8]) -> Result<Status, Failure> {
    let mut out = output::stdout();
    let result = out
        .write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(write_failed);
    output::end(Status::Success, result)
}
