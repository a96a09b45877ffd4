//! `scru128 completions SHELL` and `scru128 man [COMMAND]`: each is produced from the
//! same definition as the parser and mentions every command and its options.

mod common;

use common::{COMMANDS, scru128, stdout_of};
use predicates::str::contains;

/// The commands `scru128 help` lists.
fn listed_commands() -> Vec<String> {
    let help = stdout_of(&["help"]);
    let list = help
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a Commands section");
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_command_list_is_complete() {
    assert_eq!(listed_commands(), COMMANDS);
}

#[test]
fn every_shell_gets_a_script_that_knows_every_command_and_option() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        for command in COMMANDS {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        for option in [
            "format", "count", "from", "pretty", "max-skew", "no-clock", "show",
        ] {
            assert!(script.contains(option), "{shell} lacks --{option}");
        }
        // The choices of --format and --from are offered too (clap_complete completes
        // option values for these three).
        if ["bash", "zsh", "fish"].contains(&shell) {
            for value in ["canonical", "uuid", "int", "auto"] {
                assert!(script.contains(value), "{shell} lacks {value}");
            }
        }
    }
    assert!(stdout_of(&["completions", "bash"]).starts_with("_scru128() {"));
    assert!(stdout_of(&["completions", "zsh"]).starts_with("#compdef scru128"));
    scru128(&["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(contains(
            "possible values: bash, elvish, fish, powershell, zsh",
        ));
}

#[cfg(target_os = "linux")]
#[test]
fn the_bash_script_is_valid_bash() {
    use std::io::Write;
    let script = stdout_of(&["completions", "bash"]);
    let mut bash = std::process::Command::new("bash")
        .arg("-n")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("bash, to check the completion script");
    bash.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    assert!(bash.wait().unwrap().success());
}

#[test]
fn the_man_page_lists_every_command() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH scru128 1"), "{}", &page[..200]);
    assert!(page.contains(concat!("scru128 ", env!("CARGO_PKG_VERSION"))));
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH EXTRA",
    ] {
        assert!(page.contains(section), "{section}");
    }
    for command in COMMANDS {
        assert!(
            page.contains(&format!("scru128\\-{command}(1)")),
            "the page lacks {command}"
        );
    }
    // `help` is a command of the parser, not a page.
    assert!(!page.contains("scru128\\-help"));
}

#[test]
fn every_command_has_its_own_page() {
    let options: [(&str, &[&str]); 7] = [
        ("generate", &["\\-\\-count", "\\-\\-format", "\\-\\-at"]),
        ("inspect", &["\\-\\-pretty", "\\-\\-from", "ID"]),
        ("convert", &["\\-\\-format", "\\-\\-from", "ID"]),
        ("bounds", &["FROM", "TO", "\\-\\-format"]),
        (
            "check",
            &["FILE", "\\-\\-no\\-clock", "\\-\\-max\\-skew", "\\-\\-show"],
        ),
        ("completions", &["SHELL", "zsh"]),
        ("man", &["COMMAND"]),
    ];
    for (command, wanted) in options {
        let page = stdout_of(&["man", command]);
        assert!(
            page.contains(&format!(".TH scru128-{command} 1")),
            "{command}"
        );
        assert!(page.contains(&format!("scru128 {command}")), "{command}");
        for option in wanted {
            assert!(page.contains(option), "{command} lacks {option}");
        }
        // The examples of the command's help are in the page.
        assert!(page.contains("Examples:"), "{command}");
    }
    scru128(&["man", "help"])
        .assert()
        .code(2)
        .stderr(contains("scru128 man: error: no command \"help\""));
}
