//! `scru128 completions SHELL` and `scru128 man [COMMAND]`: each is produced from the
//! same definition as the parser and mentions every command and its options.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{COMMANDS, scru128, skip, stdout_of};
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
        ".SH TIME",
        ".SH \"EXIT STATUS\"",
        ".SH EXAMPLES",
    ] {
        assert!(page.contains(section), "{section}");
    }
    // clap_mangen's EXTRA section would fill the examples like prose.
    assert!(!page.contains(".SH EXTRA"));
    // One preamble, not one per part of the page.
    assert_eq!(page.matches(".ds Aq").count(), 2);
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
        // The examples of the command's help are in the page, in no-fill blocks.
        assert!(page.contains(".SH EXAMPLES\n.nf\n"), "{command}");
        assert!(!page.contains(".SH EXTRA"), "{command}");
        for example in help_examples(&stdout_of(&[command, "--help"])) {
            let line = example.replace('\\', "\\\\").replace('-', "\\-");
            assert!(
                page.contains(&format!("\n{line}\n")),
                "{command}: {example}"
            );
        }
    }
    scru128(&["man", "help"])
        .assert()
        .code(2)
        .stderr(contains("scru128 man: error: no command \"help\""));
}

/// The example command lines of a `--help` text, as typed (a continued line is one
/// line each), without their notes.
fn help_examples(help: &str) -> Vec<String> {
    let section = help
        .split("\nExamples:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("an Examples section");
    section
        .lines()
        .map(|line| {
            let line = line.strip_prefix("  ").expect("indented by two");
            // Notes stand three spaces or more after the command.
            line.split("   ").next().unwrap().trim_end().to_owned()
        })
        .collect()
}

/// The notes of the examples of a `--help` text.
fn help_notes(help: &str) -> Vec<String> {
    let section = help.split("\nExamples:\n").nth(1).unwrap();
    let section = section.split("\n\n").next().unwrap();
    section
        .lines()
        .filter_map(|line| line.trim_start().split_once("   "))
        .map(|(_, note)| note.trim().to_owned())
        .collect()
}

/// The pages: the tool's (`None`) and each command's.
fn pages() -> impl Iterator<Item = Option<&'static str>> {
    std::iter::once(None).chain(COMMANDS.into_iter().map(Some))
}

/// `man` renders `roff` (saved as `file`) as a reader sees it at 80 columns, with
/// nothing on standard error; `None` when there is no `man` here.
fn render(roff: &str, file: &Path) -> Option<String> {
    std::fs::write(file, roff).unwrap();
    let out = match Command::new("man")
        .arg("-l")
        .arg(file)
        .env("MANWIDTH", "80")
        .env("LC_ALL", "C.UTF-8")
        .env_remove("MAN_KEEP_FORMATTING")
        .env_remove("MANOPT")
        .output()
    {
        Ok(out) => out,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
        Err(err) => panic!("man: {err}"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "man -l {file:?}: {err}"
    );
    let text = String::from_utf8(out.stdout).expect("man writes UTF-8");
    // Overstruck bold or underline would mean formatting was kept.
    assert!(!text.contains('\u{8}'), "{file:?}");
    // groff may write a minus sign for `\-` where the system does not map it to `-`.
    Some(text.replace('\u{2212}', "-"))
}

/// The lines of the section `title` of a rendered page (headings are the lines that
/// start in the first column).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != title);
    assert!(lines.next().is_some(), "no section {title}:\n{text}");
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

#[test]
fn the_man_pages_read_well_at_80_columns() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("man");
    std::fs::create_dir_all(&dir).unwrap();
    for page in pages() {
        let name = page.map_or("scru128".into(), |c| format!("scru128-{c}"));
        let roff = stdout_of(&["man"].into_iter().chain(page).collect::<Vec<_>>());
        let Some(text) = render(&roff, &dir.join(format!("{name}.1"))) else {
            skip(
                "the_man_pages_read_well_at_80_columns",
                "no `man` to render the pages; install man-db and groff (Debian: \
                 apt-get install man-db groff-base) and run `cargo test -p scru128-v1-cli \
                 --test manuals`",
            );
            return;
        };
        // Kept for a look: target/tmp/man/*.txt.
        std::fs::write(dir.join(format!("{name}.txt")), &text).unwrap();
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{name}: a line of {} columns: {line:?}",
                line.chars().count()
            );
        }
        let headings: Vec<&str> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with(' '))
            .collect();
        let (first, last) = (headings[0], headings[headings.len() - 1]);
        assert!(first.starts_with(&format!("{name}(1)")), "{first}");
        assert!(last.ends_with(&format!("{name}(1)")), "{last}");
        let titles = &headings[1..headings.len() - 1];
        assert!(titles.starts_with(&["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS"]));
        assert!(!titles.contains(&"EXTRA"), "{name}: {titles:?}");
        assert!(titles.contains(&"EXIT STATUS"), "{name}: {titles:?}");
        assert_eq!(titles.iter().filter(|t| **t == "EXAMPLES").count(), 1);

        // Every example of the help stands whole on a line of its own, in the order
        // of the help, under EXAMPLES; every note too.
        let help_args: Vec<&str> = page.into_iter().chain(["--help"]).collect();
        let help = stdout_of(&help_args);
        let examples = section(&text, "EXAMPLES");
        let shown: Vec<&str> = examples
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let mut at = 0;
        for example in help_examples(&help) {
            let found = shown[at..].iter().position(|l| *l == example.trim());
            let Some(found) = found else {
                panic!("{name}: example {example:?} is not whole under EXAMPLES: {examples:#?}")
            };
            at += found + 1;
        }
        for note in help_notes(&help) {
            assert!(shown.contains(&note.as_str()), "{name}: note {note:?}");
        }

        // Each "see X below" of the page has a section X below it (and so has the
        // help).
        // (Words of filled text may stand more than one space apart.)
        let mut references = 0;
        for (i, _) in text.match_indices("(see") {
            let rest = &text[i..];
            let words: Vec<&str> = rest.split_whitespace().take(3).collect();
            let [_, what, below] = words[..] else {
                continue;
            };
            if !below.starts_with("below)") {
                continue;
            }
            assert!(
                rest.lines().any(|l| l == what),
                "{name}: \"see {what} below\" but no section {what} below"
            );
            assert!(
                help.contains(&format!("\n{what}:\n")),
                "{name} --help lacks {what}"
            );
            references += 1;
        }
        if [None, Some("generate"), Some("bounds")].contains(&page) {
            assert!(references > 0, "{name}: no (see TIME below)");
        }

        // The same exit statuses as the help, each with its text.
        let statuses = section(&text, "EXIT STATUS");
        let codes: Vec<&str> = statuses
            .iter()
            .filter_map(|l| l.trim_start().split_once(' ').map(|(code, _)| code))
            .filter(|c| c.parse::<u8>().is_ok())
            .collect();
        let help_statuses = help.split("\nExit status:\n").nth(1).expect("Exit status");
        let help_codes: Vec<&str> = help_statuses
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter_map(|l| l.split_once("  ").map(|(code, _)| code))
            .filter(|c| c.parse::<u8>().is_ok())
            .collect();
        assert_eq!(codes, help_codes, "{name}");
        assert_eq!(codes, ["0", "1", "2"], "{name}");
    }
}

#[test]
fn the_main_help_and_page_say_what_time_is() {
    // `--at <TIME> ... (see TIME below)`: the section is there, with the forms.
    for args in [
        &["--help"][..],
        &["generate", "--help"],
        &["bounds", "--help"],
    ] {
        let help = stdout_of(args);
        let (_, below) = help.split_once("(see TIME below)").expect("the reference");
        let (_, time) = below.split_once("\nTIME:\n").expect("a TIME section below");
        for form in [
            "now",
            "2024-05-01",
            "2024-05-01T12:00:00Z",
            "1714521600s",
            "1714521600000ms",
        ] {
            // The form, then its description beside it or on the next line.
            let listed = time.lines().any(|l| {
                l.strip_prefix("  ")
                    .and_then(|l| l.strip_prefix(form))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            });
            assert!(listed, "{args:?}: {form}");
        }
    }
    for args in [&["man"][..], &["man", "generate"], &["man", "bounds"]] {
        let page = stdout_of(args);
        let (_, below) = page.split_once("(see TIME below)").expect("the reference");
        assert!(below.contains("\n.SH TIME\n"), "{args:?}");
        assert!(below.contains("\n.TP\n\\fB1714521600s\\fR\n"), "{args:?}");
    }
}
