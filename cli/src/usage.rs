//! Usage errors in one style, clap's and the tool's own alike: one line on standard
//! error, `scru128 COMMAND: error: MESSAGE` (`scru128: error: MESSAGE` when no command
//! was named), then exit status 2.

use std::ffi::OsString;

use clap::CommandFactory;
use clap::error::ErrorKind;

use crate::args::Cli;

/// The one-line form of a clap error: its message with the details clap puts on the
/// following lines (possible values, the missing arguments) folded in, then a hint in
/// parentheses: clap's tip where it has one (a similar command, option or value);
/// for an unknown command, the commands; for any other mistake in the words of the
/// command line, the command's usage line. A bad value needs no hint: its message
/// gives the possible values or the forms taken. Without clap's "For more
/// information" line.
pub fn clap_error_line(err: &clap::Error, command_line: &[OsString]) -> String {
    let rendered = err.render().to_string();
    let mut paragraphs = rendered.split("\n\n");
    let first = paragraphs.next().unwrap_or_default();
    let mut message = String::new();
    for line in first.lines() {
        let line = line.trim();
        let line = line.strip_prefix("error: ").unwrap_or(line);
        if !message.is_empty() && !line.is_empty() {
            message.push(' ');
        }
        message.push_str(line);
    }
    let (mut tip, mut usage) = (None, None);
    for paragraph in paragraphs {
        let paragraph = paragraph.trim();
        if let Some(text) = paragraph.strip_prefix("tip: ") {
            tip = Some(text.to_owned());
        } else if let Some(text) = paragraph.strip_prefix("Usage: ") {
            // The tool's own usage is two lines: `scru128 [OPTIONS]` and `scru128
            // <COMMAND>`.
            usage = Some(text.lines().map(str::trim).collect::<Vec<_>>().join(" or "));
        }
    }
    let hint = match (tip, usage) {
        (Some(tip), _) => Some(format!("tip: {tip}")),
        (None, _) if err.kind() == ErrorKind::InvalidSubcommand => {
            let mut cmd = Cli::command();
            cmd.build();
            Some(format!(
                "the commands are {}; see 'scru128 --help'",
                command_list(&cmd)
            ))
        }
        (None, Some(usage)) if about_the_words(err.kind()) => Some(format!("usage: {usage}")),
        (None, _) => None,
    };
    if let Some(hint) = hint {
        message.push_str(" (");
        message.push_str(&hint);
        message.push(')');
    }
    format!("{}: error: {message}", command_path(command_line))
}

/// Whether an error of this kind is a mistake in the words of the command line (an
/// argument unknown, missing, repeated or in conflict), which the usage line answers;
/// not a bad value (its message says what is taken).
fn about_the_words(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::UnknownArgument
            | ErrorKind::MissingRequiredArgument
            | ErrorKind::MissingSubcommand
            | ErrorKind::ArgumentConflict
            | ErrorKind::NoEquals
            | ErrorKind::TooManyValues
            | ErrorKind::TooFewValues
            | ErrorKind::WrongNumberOfValues
    )
}

/// The names of the commands of `cmd` (built, so that clap's `help` is among them
/// where it is on), joined by commas.
pub fn command_list(cmd: &clap::Command) -> String {
    let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
    names.join(", ")
}

/// `scru128 COMMAND` for the command named on `command_line` (the program
/// name first), or `scru128` when none is: the first argument that is not an option
/// or the value of one, if it names a command.
pub fn command_path(command_line: &[OsString]) -> String {
    match command_index(command_line) {
        Some(i) => format!("scru128 {}", command_line[i].to_string_lossy()),
        None => "scru128".into(),
    }
}

/// Where on `command_line` (the program name first) the command is named: the first
/// argument that is not an option or the value of one, if it names a command.
fn command_index(command_line: &[OsString]) -> Option<usize> {
    let cmd = Cli::command();
    let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
    let long_with_value = |name: &str| {
        cmd.get_arguments()
            .any(|a| takes_value(a) && a.get_long() == Some(name))
    };
    let short_with_value = |c: char| {
        cmd.get_arguments()
            .any(|a| takes_value(a) && a.get_short() == Some(c))
    };
    let mut args = command_line.iter().enumerate().skip(1);
    while let Some((i, arg)) = args.next() {
        let arg = arg.to_str()?;
        if arg == "--" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && long_with_value(long) {
                args.next();
            }
            continue;
        }
        if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-n5` carries its value, `-n` takes the next argument.
            let mut chars = shorts.chars();
            if chars.next().is_some_and(short_with_value) && chars.next().is_none() {
                args.next();
            }
            continue;
        }
        let named = cmd.get_subcommands().any(|s| s.get_name() == arg) || arg == "help";
        return named.then_some(i);
    }
    None
}

/// `command_line` with `-h` and `--help` after the command `help` taken as asking for
/// that help: `scru128 help --help` is `scru128 help help`, and `scru128 help
/// COMMAND --help` is `scru128 help COMMAND` (clap's `help` command takes no
/// options and would refuse them as unknown commands).
pub fn help_of_help(command_line: Vec<OsString>) -> Vec<OsString> {
    let Some(at) = command_index(&command_line).filter(|&i| command_line[i] == "help") else {
        return command_line;
    };
    let (head, tail) = command_line.split_at(at + 1);
    // The names of commands end at `--`.
    let names = tail.iter().position(|a| a == "--").unwrap_or(tail.len());
    let is_help = |a: &&OsString| *a == "-h" || *a == "--help";
    if !tail[..names].iter().any(|a| is_help(&a)) {
        return command_line;
    }
    let mut rewritten = head.to_vec();
    rewritten.extend(tail[..names].iter().filter(|a| !is_help(a)).cloned());
    rewritten.extend_from_slice(&tail[names..]);
    if rewritten.len() == head.len() {
        rewritten.push("help".into());
    }
    rewritten
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// The command line of `scru128` with `words`.
    fn command_line(words: &[&str]) -> Vec<OsString> {
        std::iter::once("scru128")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    fn path(words: &[&str]) -> String {
        command_path(&command_line(words))
    }

    #[test]
    fn finds_the_command_named() {
        assert_eq!(path(&[]), "scru128");
        assert_eq!(path(&["-n", "5"]), "scru128");
        assert_eq!(path(&["bounds", "x"]), "scru128 bounds");
        assert_eq!(path(&["--format", "check"]), "scru128");
        assert_eq!(path(&["--format=hex", "check"]), "scru128 check");
        assert_eq!(path(&["-n", "inspect"]), "scru128");
        assert_eq!(path(&["-n5", "inspect"]), "scru128 inspect");
        assert_eq!(path(&["help", "inspect"]), "scru128 help");
        assert_eq!(path(&["nonsense", "inspect"]), "scru128");
        assert_eq!(path(&["--", "inspect"]), "scru128");
    }

    #[test]
    fn help_flags_after_help_ask_for_that_help() {
        let rewrite = |words: &[&str]| -> Vec<String> {
            help_of_help(command_line(words))
                .iter()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(rewrite(&["help", "--help"]), ["help", "help"]);
        assert_eq!(rewrite(&["help", "-h"]), ["help", "help"]);
        assert_eq!(rewrite(&["help", "inspect", "--help"]), ["help", "inspect"]);
        assert_eq!(rewrite(&["help", "-h", "check"]), ["help", "check"]);
        // Nothing else changes.
        assert_eq!(rewrite(&["help", "check"]), ["help", "check"]);
        assert_eq!(rewrite(&["inspect", "--help"]), ["inspect", "--help"]);
        assert_eq!(rewrite(&["check", "help", "-h"]), ["check", "help", "-h"]);
        assert_eq!(rewrite(&["--", "help", "-h"]), ["--", "help", "-h"]);
        assert_eq!(rewrite(&["help", "--", "-h"]), ["help", "--", "-h"]);
    }

    fn line_of(words: &[&str]) -> String {
        let line = command_line(words);
        let err = Cli::try_parse_from(&line).unwrap_err();
        clap_error_line(&err, &line)
    }

    #[test]
    fn folds_clap_errors_into_one_line() {
        assert_eq!(
            line_of(&["--format", "x"]),
            "scru128: error: invalid value 'x' for '--format <FORMAT>' \
             [possible values: canonical, lower, hex, uuid, int]"
        );
        assert_eq!(
            line_of(&["bounds"]),
            "scru128 bounds: error: the following required arguments were not provided: <FROM> \
             (usage: scru128 bounds <FROM> [TO])"
        );
        assert_eq!(
            line_of(&["--bogus"]),
            "scru128: error: unexpected argument '--bogus' found \
             (usage: scru128 [OPTIONS] or scru128 <COMMAND>)"
        );
        assert_eq!(
            line_of(&["check", "--no-clock", "--max-skew", "5"]),
            "scru128 check: error: the argument '--no-clock' cannot be used with '--max-skew <MS>' \
             (usage: scru128 check --no-clock [FILE]...)"
        );
        assert_eq!(
            line_of(&["frobnicate"]),
            "scru128: error: unrecognized subcommand 'frobnicate' (the commands are generate, \
             inspect, convert, bounds, check, completions, man, help; see 'scru128 --help')"
        );
    }
}
