//! The text of each help page after its options: examples, paragraphs about the
//! command, sections (TIME, input, checks) and the exit statuses. Written once and
//! rendered twice: as plain text wrapped at 80 columns for `--help`
//! ([`Page::help`]), and as roff sections for the man pages ([`Page::roff`]), where the
//! examples are kept verbatim (no filling) under EXAMPLES.

use roff::{Roff, bold, roman};

/// Width of the text `--help` writes after the options.
pub const HELP_WIDTH: usize = 80;

/// Terms longer than this put their description on the next line in `--help`.
const MAX_TERM: usize = 16;

/// What a help page says after its options.
pub struct Page {
    /// Examples, shown first.
    pub examples: &'static [Example],
    /// Paragraphs about the command (in the man page, part of DESCRIPTION).
    pub about: &'static [&'static str],
    /// Titled sections.
    pub sections: &'static [&'static Section],
    /// Each exit status and when the command ends with it.
    pub exit_status: &'static [(&'static str, &'static str)],
}

/// One example command line.
pub struct Example {
    /// The command as typed; a long one is continued on further lines (`\` at the end
    /// of each line but the last), each shown as written.
    pub command: &'static str,
    /// What it does (empty: nothing to add).
    pub note: &'static str,
}

/// A titled section.
pub struct Section {
    /// The title: in `--help` as written with a colon, in the man page in uppercase.
    pub title: &'static str,
    /// Its content, in order.
    pub blocks: &'static [Block],
}

/// A part of a section.
pub enum Block {
    /// A paragraph (one line here; wrapped when rendered).
    Text(&'static str),
    /// Terms with their descriptions.
    Items(&'static [(&'static str, &'static str)]),
}

/// Shorthand for an example.
const fn ex(command: &'static str, note: &'static str) -> Example {
    Example { command, note }
}

/// The forms of TIME, of `--at` and of `bounds`.
pub const TIME: Section = Section {
    title: "TIME",
    blocks: &[
        Block::Text("TIME, of --at and of bounds, is one of:"),
        Block::Items(&[
            ("now", "the clock (in any case), read once per command line"),
            (
                "2024-05-01",
                "a date alone, in UTC: in bounds the whole day (the last one, \
                 2577-06-22, up to the end of the range), in --at its first millisecond",
            ),
            (
                "2024-05-01T12:00:00Z",
                "RFC 3339: `t` or a space may stand for `T`, `z` for `Z`; the offset is \
                 required; digits past milliseconds are cut; a leap second (:60) is refused",
            ),
            (
                "2024-05-01T14:00:00.250+02:00",
                "RFC 3339 with milliseconds and an offset",
            ),
            (
                "1714521600s",
                "Unix time in seconds (the start of that second)",
            ),
            ("1714521600000ms", "Unix time in milliseconds"),
            (
                "1714521600000",
                "digits alone are Unix milliseconds (digits that would be before 2020 so, \
                 but a time in range as seconds, are refused with the fix)",
            ),
        ]),
        Block::Text("The times taken:"),
        Block::Items(&[
            (
                "bounds",
                "2020-01-01T00:00:00.000Z to 2577-06-22T06:20:44.415Z, the SCRU128 time \
                 range",
            ),
            (
                "--at",
                "2020-01-01T00:00:00.001Z to 2577-06-22T06:20:44.414Z (the two reserved \
                 timestamps excepted)",
            ),
        ]),
    ],
};

/// The forms an ID is read in (`inspect`, `convert`, `check`).
const FORMS: Block = Block::Items(&[
    ("26 characters", "canonical base-32 text, in either case"),
    (
        "32 characters",
        "the 128 bits as hex digits, in either case",
    ),
    ("36 characters", "the UUID form 8-4-4-4-12, in either case"),
    (
        "other lengths",
        "decimal digits, the 128-bit value as --format int writes it (leading zeros \
         allowed)",
    ),
]);

/// Digits alone of 26 or 32 characters.
const AMBIGUOUS: Block = Block::Text(
    "26 or 32 digits alone are canonical or hex and also a decimal integer (of an ID of \
     the first 6 ms of 2020, or of 2020-01-01 before 01:26:10Z): they are read as \
     canonical or hex, and the first of them that reads differently as an integer gets \
     a warning on standard error (the exit status stays 0). --from FORM reads that one \
     form only, without the warning.",
);

/// How `inspect` and `convert` read their input.
const INPUT: Section = Section {
    title: "Input",
    blocks: &[
        Block::Text(
            "Each ID argument is an ID, and an argument `-` stands for the lines of \
             standard input, one ID per line, read there (`A - B`: A, then standard \
             input, then B); with no ID argument, standard input is read. An ID is in one \
             of these forms, told apart by length:",
        ),
        FORMS,
        AMBIGUOUS,
        Block::Text(
            "One trailing \\r is dropped from each line; empty lines of standard input \
             are skipped; nothing else is trimmed. A line longer than 4096 characters is \
             reported as too long. Each bad input is reported on standard error with its \
             line (or argument) number and the reason; the other inputs are still \
             processed.",
        ),
    ],
};

/// Exit status 0 of every command.
const SUCCESS: (&str, &str) = (
    "0",
    "success; also --help, and a reader of the output that goes away early (the \
     command ends at once, quietly)",
);

/// Exit status 1 of the commands that only write.
const WRITE_ERROR: (&str, &str) = (
    "1",
    "a write error other than a broken pipe (e.g. a full disk)",
);

/// Exit statuses of `inspect` and `convert`.
const INPUT_EXIT: &[(&str, &str)] = &[
    (
        "0",
        "every input was an ID (a warning about digits alone does not change this); also \
         --help, and a reader of the output that goes away early",
    ),
    (
        "1",
        "a bad input (the others are still processed), a read error, or a write error \
         other than a broken pipe",
    ),
    ("2", "bad usage: an unknown option or a bad value of one"),
];

/// `scru128 --help`.
pub const MAIN: Page = Page {
    examples: &[
        ex("scru128", "one new ID"),
        ex("scru128 -n 5 --format uuid", "five IDs in UUID form"),
        ex("scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV", ""),
        ex(
            "scru128 convert --format uuid 037MAEGI8KVFL3FTP70ISOLQHV",
            "",
        ),
        ex("scru128 bounds 2024-05-01", "the whole UTC day"),
        ex("scru128 -n 1000000 | scru128 check", ""),
        ex("scru128 help check", "the help of a command"),
    ],
    about: &[],
    sections: &[&TIME],
    exit_status: &[
        (
            "0",
            "success; also --help, --version, and a reader of the output that goes away \
             early (`scru128 -n 100000000 | head -1` ends at once, quietly)",
        ),
        (
            "1",
            "bad data: a bad input (inspect, convert, check), a failed check, no ID read \
             by check; IDs that cannot be made (the clock outside the SCRU128 time range, \
             or the timestamps after --at used up); a read error, or a write error other \
             than a broken pipe (e.g. a full disk)",
        ),
        (
            "2",
            "bad usage: an unknown command or option, a bad value (-n -1, a bad --format, \
             a time not valid or out of range), FROM after TO, a FILE of check that \
             cannot be opened",
        ),
    ],
};

/// `scru128 generate --help`.
pub const GENERATE: Page = Page {
    examples: &[
        ex("scru128 generate", "one ID"),
        ex("scru128 -n 3 --format hex", "three IDs as 32 hex digits"),
        ex("scru128 -n 2 --format int", "as decimal integers"),
        ex(
            "scru128 -n 5 --at 2024-05-01T12:00:00Z",
            "backfill: IDs of that millisecond",
        ),
        ex(
            "scru128 -n 5 --at 1714564800s",
            "the same time in Unix seconds",
        ),
        ex("scru128 -n 5 --at 2024-05-01", "the start of that UTC day"),
    ],
    about: &[
        "With --at, the IDs are those of that millisecond (a date alone is its first); \
         they still increase, the counter stepping by one, and a counter overflow moves \
         to the next millisecond.",
    ],
    sections: &[&TIME],
    exit_status: &[
        (
            "0",
            "success; also --help, and a reader of the output that goes away early \
             (`scru128 -n 100000000 | head -1` ends at once, quietly)",
        ),
        (
            "1",
            "the IDs cannot all be made: the clock is outside the SCRU128 time range, or \
             the timestamps run out (with --at near the end of the range, the counter \
             overflows past the last one, 2577-06-22T06:20:44.414Z); the IDs made before \
             are written. Also a write error other than a broken pipe (e.g. a full disk)",
        ),
        (
            "2",
            "bad usage: an unknown option, a bad COUNT, FORMAT or TIME",
        ),
    ],
};

/// `scru128 inspect --help`.
pub const INSPECT: Page = Page {
    examples: &[
        ex("scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV", ""),
        ex(
            "scru128 inspect --pretty 0184f1d7-06ea-d8e6-7f0f-22cd8d2f0b2d",
            "",
        ),
        ex("scru128 -n 3 | scru128 inspect", ""),
        ex("scru128 -n 1 --format int | scru128 inspect", ""),
        ex(
            "scru128 inspect 037MAEGI8KVFL3FTP70ISOLQHV - < more-ids.txt",
            "",
        ),
    ],
    about: &[],
    sections: &[&INPUT],
    exit_status: INPUT_EXIT,
};

/// `scru128 convert --help`.
pub const CONVERT: Page = Page {
    examples: &[
        ex(
            "scru128 convert --format uuid 037MAEGI8KVFL3FTP70ISOLQHV",
            "",
        ),
        ex(
            "scru128 convert --format int 0184f1d7-06ea-d8e6-7f0f-22cd8d2f0b2d",
            "",
        ),
        ex("scru128 -n 3 --format int | scru128 convert", ""),
        ex("scru128 convert --format hex < ids.txt > ids-hex.txt", ""),
        ex(
            "scru128 convert --from int 12345678901234567890123456",
            "as a decimal integer",
        ),
    ],
    about: &[],
    sections: &[&INPUT],
    exit_status: INPUT_EXIT,
};

/// `scru128 bounds --help`.
pub const BOUNDS: Page = Page {
    examples: &[
        ex("scru128 bounds 2024-05-01", "that whole UTC day"),
        ex("scru128 bounds 2024-05-01 2024-05-31", "the whole of May"),
        ex(
            "scru128 bounds 2024-05-01T00:00:00+02:00 2024-05-01T23:59:59.999+02:00",
            "",
        ),
        ex("scru128 bounds 1714521600s now --format uuid", ""),
    ],
    about: &[
        "Every ID generated from FROM to TO (both included, millisecond precision) is \
         between the two lines: `WHERE id BETWEEN first AND second`. A date alone covers \
         its whole UTC day; other times are one millisecond (sub-millisecond digits are \
         cut).",
    ],
    sections: &[&TIME],
    exit_status: &[
        SUCCESS,
        WRITE_ERROR,
        (
            "2",
            "bad usage: a time that is not valid or outside the SCRU128 time range, FROM \
             after TO, an unknown option",
        ),
    ],
};

/// `scru128 check --help`.
pub const CHECK: Page = Page {
    examples: &[
        ex("scru128 -n 1000000 | scru128 check", ""),
        ex(
            "scru128 check --no-clock ids-2024-04.txt ids-2024-05.txt",
            "",
        ),
        ex("my-generator | scru128 check --max-skew 60000", ""),
    ],
    about: &[],
    sections: &[
        &Section {
            title: "Input",
            blocks: &[
                Block::Text(
                    "The lines of the FILEs in order, as one stream (`-` is standard \
                     input), or of standard input when no FILE is given. Each line is an \
                     ID in one of the forms inspect reads, told apart by length:",
                ),
                FORMS,
                AMBIGUOUS,
                Block::Text(
                    "One trailing \\r is dropped from each line; an empty line counts as \
                     bad here (a generator writes none). An input without any ID fails; \
                     one without any line gets one line on standard error and no table.",
                ),
            ],
        },
        &Section {
            title: "Checks",
            blocks: &[
                Block::Text(
                    "The rules of the generator (SPEC section 3), each counted in the \
                     summary table on standard output:",
                ),
                Block::Items(&[
                    (
                        "parse",
                        "every line is an ID (canonical in either case, hex, UUID or \
                         decimal form, as for inspect); empty lines count as bad",
                    ),
                    (
                        "order",
                        "each ID is greater than the one before, as an integer and as \
                         text (the lines compared byte by byte as given)",
                    ),
                    (
                        "counter +1",
                        "at an unchanged timestamp the counter rises by exactly one",
                    ),
                    ("not reserved", "no timestamp is 0 or 2^44-1"),
                    (
                        "near clock",
                        "timestamp within --max-skew ms of the clock when the line is \
                         read (skip with --no-clock for saved streams)",
                    ),
                    (
                        "renewal",
                        "per_sec_random changes only at a new timestamp and only 1000 ms \
                         or more after the change before; it is reported as not renewed \
                         only when it stays unchanged past two due points (one equal \
                         fresh draw has probability 2^-24)",
                    ),
                    (
                        "bit balance",
                        "ones and zeros of each bit of per_gen_random (every ID), of the \
                         counter at each new timestamp and of per_sec_random at each \
                         change, judged from 100 samples on with a Hoeffding bound that \
                         a correct generator exceeds in fewer than one run in a million \
                         (all 84 bits together)",
                    ),
                ]),
                Block::Text(
                    "Violations are quoted on standard error with their line numbers \
                     (the first --show of them).",
                ),
            ],
        },
    ],
    exit_status: &[
        (
            "0",
            "every check passed; also --help, and a reader of the output that goes away \
             early",
        ),
        (
            "1",
            "a violation (a bad line included), no ID read at all, a read error, or a \
             write error other than a broken pipe",
        ),
        (
            "2",
            "bad usage: an unknown option or a bad value of one, a FILE that cannot be \
             opened (before anything is read)",
        ),
    ],
};

/// `scru128 completions --help`.
pub const COMPLETIONS: Page = Page {
    examples: &[
        ex(
            "scru128 completions bash \\\n  > ~/.local/share/bash-completion/completions/scru128",
            "",
        ),
        ex(
            "scru128 completions zsh > ~/.zfunc/_scru128",
            "with fpath+=~/.zfunc",
        ),
        ex(
            "scru128 completions fish > ~/.config/fish/completions/scru128.fish",
            "",
        ),
    ],
    about: &[],
    sections: &[],
    exit_status: &[SUCCESS, WRITE_ERROR, ("2", "bad usage: an unknown shell")],
};

/// `scru128 man --help`.
pub const MAN: Page = Page {
    examples: &[
        ex("scru128 man > scru128.1 && man ./scru128.1", ""),
        ex("scru128 man check > scru128-check.1", ""),
        ex(
            "scru128 man | sudo tee /usr/local/share/man/man1/scru128.1 > /dev/null",
            "",
        ),
    ],
    about: &[],
    sections: &[],
    exit_status: &[SUCCESS, WRITE_ERROR, ("2", "bad usage: no such command")],
};

/// The page of the tool (`None`) or of a command, by name.
pub fn page(command: Option<&str>) -> Option<&'static Page> {
    Some(match command {
        None => &MAIN,
        Some("generate") => &GENERATE,
        Some("inspect") => &INSPECT,
        Some("convert") => &CONVERT,
        Some("bounds") => &BOUNDS,
        Some("check") => &CHECK,
        Some("completions") => &COMPLETIONS,
        Some("man") => &MAN,
        Some(_) => return None,
    })
}

impl Page {
    /// The text for `--help`, after the options: Examples, the paragraphs about the
    /// command, the sections and the exit statuses, each line at most [`HELP_WIDTH`]
    /// columns (but for a word longer than that).
    pub fn help(&self) -> String {
        let mut out = String::from("Examples:\n");
        examples(&mut out, self.examples);
        for paragraph in self.about {
            out.push('\n');
            wrap(&mut out, paragraph, 0, 0);
        }
        for section in self.sections {
            out.push('\n');
            out.push_str(section.title);
            out.push_str(":\n");
            for (i, block) in section.blocks.iter().enumerate() {
                if i > 0 && matches!(block, Block::Text(_)) {
                    out.push('\n');
                }
                match block {
                    Block::Text(text) => wrap(&mut out, text, 2, 0),
                    Block::Items(list) => items(&mut out, list),
                }
            }
        }
        out.push_str("\nExit status:\n");
        items(&mut out, self.exit_status);
        // clap adds the final newline.
        out.truncate(out.trim_end().len());
        out
    }

    /// Roff for the paragraphs about the command, to follow DESCRIPTION.
    pub fn roff_about(&self) -> Roff {
        let mut roff = Roff::new();
        for paragraph in self.about {
            roff.control("PP", []).text([roman(*paragraph)]);
        }
        roff
    }

    /// Roff for the sections of the man page after the options: each section, EXIT
    /// STATUS and EXAMPLES (verbatim: no filling, no hyphenation).
    pub fn roff(&self) -> Roff {
        let mut roff = Roff::new();
        for section in self.sections {
            roff.control("SH", [section.title.to_uppercase().as_str()]);
            for (i, block) in section.blocks.iter().enumerate() {
                match block {
                    Block::Text(text) => {
                        if i > 0 {
                            roff.control("PP", []);
                        }
                        roff.text([roman(*text)]);
                    }
                    Block::Items(list) => roff_items(&mut roff, list),
                }
            }
        }
        roff.control("SH", ["EXIT STATUS"]);
        roff_items(&mut roff, self.exit_status);
        roff.control("SH", ["EXAMPLES"]);
        for (i, example) in self.examples.iter().enumerate() {
            if i > 0 {
                roff.control("PP", []);
            }
            roff.control("nf", []);
            for line in example.command.lines() {
                roff.text([roman(line)]);
            }
            roff.control("fi", []);
            if !example.note.is_empty() {
                roff.control("RS", ["4"]);
                roff.text([roman(example.note)]);
                roff.control("RE", []);
            }
        }
        roff
    }
}

/// Items as `.TP` paragraphs: the term in bold, its description below or beside it.
fn roff_items(roff: &mut Roff, list: &[(&str, &str)]) {
    for (term, description) in list {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*description)]);
    }
}

/// Examples in two columns: the command, and its note aligned after the longest
/// command that has one (the notes are short enough to fit: a unit test checks).
fn examples(out: &mut String, list: &[Example]) {
    let last_line = |e: &Example| e.command.lines().last().unwrap_or_default().len();
    let column = list
        .iter()
        .filter(|e| !e.note.is_empty())
        .map(|e| 2 + last_line(e) + 3)
        .max()
        .unwrap_or(0);
    for example in list {
        for (i, line) in example.command.lines().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("  ");
            out.push_str(line);
        }
        if !example.note.is_empty() {
            out.push_str(&" ".repeat(column - 2 - last_line(example)));
            out.push_str(example.note);
        }
        out.push('\n');
    }
}

/// Terms and descriptions in two columns, the descriptions wrapped under themselves.
fn items(out: &mut String, list: &[(&str, &str)]) {
    let width = list
        .iter()
        .map(|(term, _)| term.len())
        .filter(|&len| len <= MAX_TERM)
        .max()
        .unwrap_or(0);
    let column = 2 + width + 2;
    for (term, description) in list {
        out.push_str("  ");
        out.push_str(term);
        let start = if term.len() <= width {
            out.push_str(&" ".repeat(column - 2 - term.len()));
            column
        } else {
            out.push('\n');
            0
        };
        wrap(out, description, column, start);
    }
}

/// Appends `text` wrapped at [`HELP_WIDTH`] columns and a newline: lines indented by
/// `indent`, the first of which is already written up to column `start` (0: not
/// begun).
fn wrap(out: &mut String, text: &str, indent: usize, start: usize) {
    let mut col = start;
    // Whether no word of `text` is on the current line yet.
    let mut fresh = true;
    for word in text.split_whitespace() {
        if !fresh && col + 1 + word.len() > HELP_WIDTH {
            out.push('\n');
            col = 0;
            fresh = true;
        }
        if fresh {
            out.push_str(&" ".repeat(indent.saturating_sub(col)));
            col = col.max(indent);
            fresh = false;
        } else {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [&Page; 8] = [
        &MAIN,
        &GENERATE,
        &INSPECT,
        &CONVERT,
        &BOUNDS,
        &CHECK,
        &COMPLETIONS,
        &MAN,
    ];

    #[test]
    fn wraps_at_the_width_with_hanging_indents() {
        let mut out = String::new();
        wrap(&mut out, &"word ".repeat(40), 4, 0);
        assert!(
            out.lines()
                .all(|l| l.len() <= HELP_WIDTH && l.starts_with("    "))
        );
        assert_eq!(out.split_whitespace().count(), 40);
        let mut out = String::from("  term  ");
        wrap(&mut out, "a b", 8, 8);
        assert_eq!(out, "  term  a b\n");
        let mut out = String::new();
        items(&mut out, &[("0", "zero"), ("12", &"x ".repeat(50))]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "  0   zero");
        assert!(lines[1].starts_with("  12  x x"));
        assert!(lines[2].starts_with("      x"));
        let mut out = String::new();
        items(&mut out, &[("a", "one"), ("a-term-longer-than-16", "two")]);
        assert_eq!(out, "  a  one\n  a-term-longer-than-16\n     two\n");
    }

    #[test]
    fn every_help_text_fits_80_columns() {
        for page in ALL {
            let help = page.help();
            for line in help.lines() {
                assert!(line.len() <= HELP_WIDTH, "{line:?}");
                assert!(!line.ends_with(' '), "{line:?}");
            }
            for example in page.examples {
                for line in example.command.lines() {
                    assert!(help.contains(&format!("  {line}")), "{line}");
                }
            }
            assert!(help.contains("\nExit status:\n  0  "), "{help}");
        }
    }
}
