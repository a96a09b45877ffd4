//! `scru128 check`: tests a stream of IDs, in generation order, against the rules of
//! SPEC section 3, like a tester of random generators.
//!
//! The checks and how each is judged:
//!
//! - **parse**: every line is an ID in one of the forms `inspect` accepts. Unlike in
//!   `inspect`, an empty line is bad: a generator writes no empty lines. As there, the
//!   first line of 26 or 32 digits alone that reads as another ID in decimal gets a
//!   warning (no violation).
//! - **order as integer / as text**: each ID is greater than the one before; as text,
//!   the lines are compared byte by byte as given (a generator writes one form).
//! - **counter +1**: at an unchanged timestamp the counter is the previous one plus 1
//!   (so a counter at 2^28−1 must move to the next millisecond).
//! - **not reserved**: no timestamp is 0 or 2^44−1.
//! - **near clock**: the timestamp is within `--max-skew` ms of the system clock when
//!   the line is read (off with `--no-clock`, for saved streams).
//! - **`per_sec_random` renewal**: a generator renews `per_sec_random` at the first ID
//!   whose timestamp is ≥ 1000 ms past the last renewal. So a change is a violation
//!   at an unchanged timestamp, or less than 1000 ms after the last change seen (the
//!   renewal of the stream's first value is not seen, so the first change is only
//!   held to the first rule). A renewal can draw the same value by chance (2^-24),
//!   so a missing renewal is reported only when the value stays unchanged past two
//!   due points: at the first ID ≥ 1000 ms after the last change (or the first ID) a
//!   silent renewal is assumed, and the value must change by the first ID ≥ 1000 ms
//!   after that one; a correct generator fails this with probability 2^-48. This
//!   also accepts the "> 1000 ms" rule of scru128 1.0 and the Python generator. It
//!   is judged only where the stream covers that span.
//! - **bit balance**: each bit of `per_gen_random` (every ID), of the counter at each
//!   new timestamp (not the first ID: its counter may be mid-run), and of
//!   `per_sec_random` at the first ID and at each change, is one half ones. With n
//!   samples the count of ones of a fair bit stays within n/2 ± t with
//!   t = sqrt(n · ln(2/α) / 2) except with probability α (Hoeffding's inequality);
//!   α = 10^-6 / 84 for each of the 84 bits, so a correct generator fails this
//!   check in fewer than one run in a million. A bit is judged from 100 samples on
//!   (below that even a stuck bit could not be told from chance).
//!
//! After an order violation the counter and renewal rules restart from the later ID
//! (one swap would otherwise be reported many times over).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read, Write};
use std::time::SystemTime;

use scru128::{MAX_COUNTER, MAX_TIMESTAMP, Scru128Id};

use crate::args::{CheckArgs, InputForm};
use crate::forms::{InputError, MAX_FORM_LEN, ambiguous_digits, parse_id};
use crate::input::IN_BUFFER;
use crate::lines::{LineReader, quote};
use crate::output::{self, Failure, Status, report, write_failed};
use crate::time::iso_z;

/// Bits tested for balance: 32 of `per_gen_random`, 28 of the counter, 24 of
/// `per_sec_random`.
const BALANCE_BITS: f64 = 84.0;
/// Chance that a correct generator fails the balance check in one run.
const BALANCE_ALPHA: f64 = 1e-6;
/// Fewest samples for which a bit's balance is judged.
const MIN_SAMPLES: u64 = 100;
/// Interval of the `per_sec_random` renewal, in ms.
const RENEWAL_MS: u64 = 1000;

/// Names of the checks, in table order.
const NAMES: [&str; ROWS] = [
    "parse",
    "order as integer",
    "order as text",
    "counter +1 within a timestamp",
    "timestamp not reserved",
    "timestamp near clock",
    "per_sec_random renewal",
    "balance: per_gen_random bits",
    "balance: counter bits at new timestamp",
    "balance: per_sec_random bits at renewal",
];
/// Number of checks.
const ROWS: usize = 10;
/// Row index of each check in [`NAMES`].
const PARSE: usize = 0;
/// Row index.
const ORDER_INT: usize = 1;
/// Row index.
const ORDER_TEXT: usize = 2;
/// Row index.
const COUNTER: usize = 3;
/// Row index.
const RESERVED: usize = 4;
/// Row index.
const CLOCK: usize = 5;
/// Row index.
const RENEWAL: usize = 6;
/// Row index.
const BAL_PER_GEN: usize = 7;
/// Row index.
const BAL_COUNTER: usize = 8;
/// Row index.
const BAL_PER_SEC: usize = 9;

/// Runs `check` on the FILEs of `args` in order, or on standard input.
///
/// # Errors
///
/// [`Failure::Usage`] when a FILE cannot be opened (before anything is read); a read
/// error, or a write error other than a broken pipe.
pub fn run(args: &CheckArgs) -> Result<Status, Failure> {
    let clock = (!args.no_clock).then_some(args.max_skew);
    let mut checker = Checker::new(clock, args.show, args.from);
    let inputs = open_inputs(&args.files)?;
    if inputs.len() > 1 {
        checker.name_sources(inputs.iter().map(|(name, _)| name.clone()).collect());
    }
    for (i, (_, input)) in inputs.into_iter().enumerate() {
        checker.source = i;
        let mut lines = LineReader::with_capacity(IN_BUFFER, input);
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            if line.too_long {
                checker.bad_line(line.number, line.text, true, &InputError::TooLong);
            } else {
                checker.line(line.number, line.text, now_ms);
            }
        }
    }
    let summary = checker.finish();
    if summary.empty {
        // Nothing was checked: one line, no table of checks that saw nothing.
        report(format_args!(
            "scru128 check: no ID was read: the input is empty"
        ));
        return Ok(Status::BadData);
    }
    let mut out = output::stdout();
    let result = out
        .write_all(summary.table.as_bytes())
        .and_then(|()| out.flush())
        .map_err(write_failed);
    if let Some(why) = summary.no_id {
        report(format_args!("scru128 check: no ID was read: {why}"));
    }
    let status = if summary.violations > 0 || summary.no_id.is_some() {
        Status::BadData
    } else {
        Status::Success
    };
    output::end(status, result)
}

/// An input of `check` and its name in messages.
type Input = (String, Box<dyn Read>);

/// The inputs of `check`: each FILE opened (`-` is standard input), or standard input
/// alone; with the names used in messages.
///
/// # Errors
///
/// [`Failure::Usage`] naming the first FILE that cannot be opened or is a directory.
fn open_inputs(files: &[OsString]) -> Result<Vec<Input>, Failure> {
    if files.is_empty() {
        return Ok(vec![(
            "standard input".into(),
            Box::new(io::stdin().lock()),
        )]);
    }
    files
        .iter()
        .map(|file| {
            // Escaped like the quoted input, so that no control character reaches a
            // terminal.
            let name: String = file.to_string_lossy().escape_debug().collect();
            if file == "-" {
                // Not locked here: the handle locks for each read, so `-` may be
                // given more than once (the inputs are all open at the same time).
                return Ok((name, Box::new(io::stdin()) as Box<dyn Read>));
            }
            let opened = File::open(file).and_then(|f| {
                if f.metadata()?.is_dir() {
                    Err(io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "is a directory",
                    ))
                } else {
                    Ok(f)
                }
            });
            match opened {
                Ok(f) => Ok((name, Box::new(f) as Box<dyn Read>)),
                Err(err) => Err(Failure::Usage(format!("cannot open \"{name}\": {err}"))),
            }
        })
        .collect()
}

/// The system clock in Unix milliseconds (0 before 1970).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Where a line is: the input (an index into the file names) and the line number.
#[derive(Clone, Copy, Debug)]
struct Loc {
    source: usize,
    line: u64,
}

/// The last valid ID, its text as given and where it was.
struct Prev {
    id: Scru128Id,
    at: Loc,
    text: Vec<u8>,
}

/// Counts of ones per bit of a field.
struct Balance<const BITS: usize> {
    ones: [u64; BITS],
    samples: u64,
}

impl<const BITS: usize> Balance<BITS> {
    fn new() -> Self {
        Self {
            ones: [0; BITS],
            samples: 0,
        }
    }

    #[inline]
    fn add(&mut self, value: u32) {
        self.samples += 1;
        for (bit, ones) in self.ones.iter_mut().enumerate() {
            *ones += u64::from((value >> bit) & 1);
        }
    }
}

/// Largest distance from n/2 of the ones of a fair bit in `n` samples that a correct
/// generator exceeds with probability below α (Hoeffding's inequality).
#[allow(clippy::cast_precision_loss)]
pub fn balance_bound(n: u64) -> f64 {
    let alpha = BALANCE_ALPHA / BALANCE_BITS;
    (n as f64 * (2.0 / alpha).ln() / 2.0).sqrt()
}

/// Where the `per_sec_random` renewal rule stands.
struct Renewal {
    /// Timestamp of the last change seen, or of the first ID (an upper bound of its
    /// unseen renewal).
    reference: u64,
    /// Where `reference` is.
    at: Loc,
    /// Whether `reference` is a change seen (not just the first ID).
    seen: bool,
    /// Timestamp at which a silent renewal (an equal fresh draw) was assumed.
    silent: Option<u64>,
}

/// Result of a check run.
pub struct Summary {
    /// The table for standard output.
    pub table: String,
    /// Number of violations.
    pub violations: u64,
    /// Why no ID was read, if none was: an input without any ID fails.
    pub no_id: Option<&'static str>,
    /// Whether the input had no line at all (then the table is not written).
    pub empty: bool,
}

/// The state of a check run over a stream.
pub struct Checker {
    max_skew: Option<u64>,
    show: u64,
    form: InputForm,
    /// Whether the warning about digits alone was given (it is given once).
    warned: bool,
    /// Names of the inputs when there are several (messages then name them).
    sources: Vec<String>,
    /// The input being read: an index into `sources`.
    pub source: usize,
    checked: [u64; ROWS],
    failed: [u64; ROWS],
    violations: u64,
    ids: u64,
    prev: Option<Prev>,
    renewal: Option<Renewal>,
    renewals_seen: u64,
    per_gen: Balance<32>,
    counter: Balance<28>,
    per_sec: Balance<24>,
}

impl Checker {
    /// A checker that compares timestamps with the clock within `max_skew` ms (none:
    /// no clock check), reads IDs in `form` and quotes the first `show` violations on
    /// standard error.
    pub fn new(max_skew: Option<u64>, show: u64, form: InputForm) -> Self {
        Self {
            max_skew,
            show,
            form,
            warned: false,
            sources: Vec::new(),
            source: 0,
            checked: [0; ROWS],
            failed: [0; ROWS],
            violations: 0,
            ids: 0,
            prev: None,
            renewal: None,
            renewals_seen: 0,
            per_gen: Balance::new(),
            counter: Balance::new(),
            per_sec: Balance::new(),
        }
    }

    /// Names the inputs, when there are several, for the messages.
    pub fn name_sources(&mut self, names: Vec<String>) {
        self.sources = names;
    }

    /// Line `number` of the input being read.
    fn here(&self, number: u64) -> Loc {
        Loc {
            source: self.source,
            line: number,
        }
    }

    /// `at` for a message: `line 5`, or `line 5 of ids.txt` when there are several
    /// inputs.
    fn place(&self, at: Loc) -> String {
        match self.sources.get(at.source) {
            Some(name) => format!("line {} of {name}", at.line),
            None => format!("line {}", at.line),
        }
    }

    /// Counts a violation of `row` and quotes it if fewer than `show` were quoted.
    fn violation(&mut self, row: usize, at: Option<Loc>, detail: std::fmt::Arguments<'_>) {
        self.failed[row] += 1;
        self.violations += 1;
        if self.violations <= self.show {
            match at {
                Some(at) => report(format_args!(
                    "scru128 check: {}: {}: {detail}",
                    self.place(at),
                    NAMES[row]
                )),
                None => report(format_args!("scru128 check: {}: {detail}", NAMES[row])),
            }
        }
    }

    /// A line that is not an ID; `too_long` when it is longer than the reader keeps.
    pub fn bad_line(&mut self, number: u64, text: &[u8], too_long: bool, err: &InputError) {
        self.checked[PARSE] += 1;
        let quoted = quote(text, too_long);
        self.violation(
            PARSE,
            Some(self.here(number)),
            format_args!("{quoted}: {err}"),
        );
    }

    /// Checks one line; `now` reads the clock.
    pub fn line(&mut self, number: u64, text: &[u8], now: impl Fn() -> u64) {
        let id = match parse_id(text, self.form) {
            Ok(id) => id,
            Err(err) => return self.bad_line(number, text, false, &err),
        };
        if !self.warned {
            if let Some(warning) = ambiguous_digits(text, self.form, &id) {
                self.warned = true;
                report(format_args!(
                    "scru128 check: {}: {}: {warning}",
                    self.place(self.here(number)),
                    quote(text, false)
                ));
            }
        }
        self.checked[PARSE] += 1;
        self.ids += 1;
        let ts = id.timestamp();

        self.checked[RESERVED] += 1;
        if ts == 0 || ts == MAX_TIMESTAMP {
            self.violation(
                RESERVED,
                Some(self.here(number)),
                format_args!("timestamp {ts} is reserved"),
            );
        }

        if let Some(skew) = self.max_skew {
            self.checked[CLOCK] += 1;
            let (unix, now) = (id.unix_ts_ms(), now());
            if unix.abs_diff(now) > skew {
                let (dist, dir) = if unix > now {
                    (unix - now, "ahead of")
                } else {
                    (now - unix, "behind")
                };
                self.violation(
                    CLOCK,
                    Some(self.here(number)),
                    format_args!(
                        "timestamp {} is {dist} ms {dir} the clock (--max-skew {skew}; --no-clock for saved streams)",
                        iso_z(unix)
                    ),
                );
            }
        }

        self.per_gen.add(id.per_gen_random());

        let mut saved = match self.prev.take() {
            None => {
                // The first ID: its per_sec_random is a fresh draw (made at some renewal),
                // its counter may be mid-run.
                self.per_sec.add(id.per_sec_random());
                self.renewal = Some(Renewal {
                    reference: ts,
                    at: self.here(number),
                    seen: false,
                    silent: None,
                });
                Vec::with_capacity(MAX_FORM_LEN)
            }
            Some(prev) => {
                self.pair(&prev, &id, number, text);
                prev.text
            }
        };
        // The buffer is reused, so this allocates only for a longer line than before.
        saved.clear();
        saved.extend_from_slice(text);
        self.prev = Some(Prev {
            id,
            at: self.here(number),
            text: saved,
        });
    }

    /// The checks between consecutive IDs.
    fn pair(&mut self, prev: &Prev, id: &Scru128Id, number: u64, text: &[u8]) {
        let (ts, prev_ts) = (id.timestamp(), prev.id.timestamp());
        self.checked[ORDER_TEXT] += 1;
        if text <= prev.text.as_slice() {
            let (q, pq) = (quote(text, false), quote(&prev.text, false));
            self.violation(
                ORDER_TEXT,
                Some(self.here(number)),
                format_args!("{q} does not sort after {pq} of {}", self.place(prev.at)),
            );
        }
        self.checked[ORDER_INT] += 1;
        if *id <= prev.id {
            let q = quote(text, false);
            if *id == prev.id {
                self.violation(
                    ORDER_INT,
                    Some(self.here(number)),
                    format_args!("{q} repeats the ID of {}", self.place(prev.at)),
                );
            } else {
                let pq = quote(&prev.text, false);
                self.violation(
                    ORDER_INT,
                    Some(self.here(number)),
                    format_args!("{q} is smaller than {pq} of {}", self.place(prev.at)),
                );
            }
            // Restart the per-timestamp rules from this ID.
            self.renewal = Some(Renewal {
                reference: ts,
                at: self.here(number),
                seen: false,
                silent: None,
            });
            return;
        }

        if ts == prev_ts {
            self.checked[COUNTER] += 1;
            let (c, pc) = (id.counter(), prev.id.counter());
            if pc == MAX_COUNTER {
                self.violation(
                    COUNTER,
                    Some(self.here(number)),
                    format_args!(
                        "the counter passed 2^28-1 at {} without moving to the next millisecond",
                        self.place(prev.at)
                    ),
                );
            } else if c != pc + 1 {
                self.violation(
                    COUNTER,
                    Some(self.here(number)),
                    format_args!(
                        "counter {c} follows {pc} of {} at the same timestamp (expected {})",
                        self.place(prev.at),
                        pc + 1
                    ),
                );
            }
        } else {
            self.counter.add(id.counter());
        }

        self.renewal_rule(prev, id, number);
    }

    /// The `per_sec_random` renewal rule between consecutive, ordered IDs.
    fn renewal_rule(&mut self, prev: &Prev, id: &Scru128Id, number: u64) {
        let (ts, prev_ts) = (id.timestamp(), prev.id.timestamp());
        self.checked[RENEWAL] += 1;
        let per_sec = id.per_sec_random();
        let Some(mut renewal) = self.renewal.take() else {
            return;
        };
        if per_sec == prev.id.per_sec_random() {
            match renewal.silent {
                None if ts >= renewal.reference + RENEWAL_MS => renewal.silent = Some(ts),
                Some(silent) if ts >= silent + RENEWAL_MS => {
                    self.violation(
                        RENEWAL,
                        Some(self.here(number)),
                        format_args!(
                            "per_sec_random unchanged for {} ms since {} (renewal due every {RENEWAL_MS} ms)",
                            ts - renewal.reference,
                            self.place(renewal.at)
                        ),
                    );
                    renewal = Renewal {
                        reference: ts,
                        at: self.here(number),
                        seen: false,
                        silent: None,
                    };
                }
                _ => {}
            }
        } else {
            self.renewals_seen += 1;
            self.per_sec.add(per_sec);
            if ts == prev_ts {
                self.violation(
                    RENEWAL,
                    Some(self.here(number)),
                    format_args!(
                        "per_sec_random changed at the timestamp of {}",
                        self.place(prev.at)
                    ),
                );
            } else if renewal.seen && ts - renewal.reference < RENEWAL_MS {
                self.violation(
                    RENEWAL,
                    Some(self.here(number)),
                    format_args!(
                        "per_sec_random renewed {} ms after its change at {} (needs {RENEWAL_MS} ms)",
                        ts - renewal.reference,
                        self.place(renewal.at)
                    ),
                );
            }
            renewal = Renewal {
                reference: ts,
                at: self.here(number),
                seen: true,
                silent: None,
            };
        }
        self.renewal = Some(renewal);
    }

    /// Judges the bit balance and writes the summary table.
    pub fn finish(mut self) -> Summary {
        let mut notes: [String; ROWS] = Default::default();
        let fields = [
            (BAL_PER_GEN, judge(&self.per_gen.ones, self.per_gen.samples)),
            (BAL_COUNTER, judge(&self.counter.ones, self.counter.samples)),
            (BAL_PER_SEC, judge(&self.per_sec.ones, self.per_sec.samples)),
        ];
        self.checked[BAL_PER_GEN] = self.per_gen.samples;
        self.checked[BAL_COUNTER] = self.counter.samples;
        self.checked[BAL_PER_SEC] = self.per_sec.samples;
        for (row, verdict) in fields {
            match verdict {
                Verdict::TooFew(n) => {
                    notes[row] = format!("not judged ({n} of the {MIN_SAMPLES} samples needed)");
                }
                Verdict::Judged { worst, failing } => {
                    notes[row] = worst;
                    for msg in failing {
                        self.violation(row, None, format_args!("{msg}"));
                    }
                }
            }
        }
        notes[CLOCK] = match self.max_skew {
            None => "skipped (--no-clock)".into(),
            Some(skew) => format!("within {skew} ms"),
        };
        notes[RENEWAL] = match self.renewals_seen {
            1 => "1 change seen".into(),
            n => format!("{n} changes seen"),
        };
        // (An input without lines is reported by `run` alone, without the table.)
        let no_id = (self.ids == 0).then_some("no line is an ID");
        Summary {
            table: self.table(&notes, no_id.is_some()),
            violations: self.violations,
            no_id,
            empty: self.checked[PARSE] == 0,
        }
    }

    /// The summary table, with a note per row; `no_id` when no ID was read.
    fn table(&self, notes: &[String; ROWS], no_id: bool) -> String {
        let mut table = format!("{:<42} {:>12}  result\n", "check", "count");
        for row in 0..ROWS {
            let not_judged =
                (row == CLOCK && self.max_skew.is_none()) || notes[row].starts_with("not judged");
            let result = if self.failed[row] > 0 {
                "FAIL"
            } else if not_judged {
                "-"
            } else {
                "pass"
            };
            let _ = write!(
                table,
                "{:<42} {:>12}  {result}",
                NAMES[row], self.checked[row]
            );
            if self.failed[row] > 0 {
                let _ = write!(table, " ({})", violations(self.failed[row]));
            }
            if !notes[row].is_empty() {
                let _ = write!(table, "  {}", notes[row]);
            }
            table.push('\n');
        }
        if self.violations > self.show {
            let _ = writeln!(
                table,
                "{} not quoted (see --show)",
                violations(self.violations - self.show)
            );
        }
        let verdict = if self.violations == 0 && !no_id {
            "pass"
        } else {
            "FAIL"
        };
        let ids = match self.ids {
            0 => "no ID was read".into(),
            1 => "1 ID".into(),
            n => format!("{n} IDs"),
        };
        let _ = writeln!(
            table,
            "result: {verdict} ({ids}, {})",
            violations(self.violations)
        );
        table
    }
}

/// "1 violation", "2 violations".
fn violations(n: u64) -> String {
    if n == 1 {
        "1 violation".into()
    } else {
        format!("{n} violations")
    }
}

/// The balance judgement of one field.
enum Verdict {
    /// Too few samples to judge.
    TooFew(u64),
    /// Judged: a note on the worst bit, and a message per failing bit.
    Judged { worst: String, failing: Vec<String> },
}

/// Judges the ones of each bit of a field over `n` samples.
#[allow(clippy::cast_precision_loss)]
fn judge(ones: &[u64], n: u64) -> Verdict {
    if n < MIN_SAMPLES {
        return Verdict::TooFew(n);
    }
    let bound = balance_bound(n);
    let half = n as f64 / 2.0;
    let mut failing = Vec::new();
    let mut worst = (0, 0.0);
    for (bit, &k) in ones.iter().enumerate() {
        let dev = (k as f64 - half).abs();
        if dev > worst.1 {
            worst = (bit, dev);
        }
        if dev > bound {
            failing.push(format!(
                "bit {bit} (from the least significant) is one in {k} of {n} samples, outside {half} ± {bound:.1}"
            ));
        }
    }
    Verdict::Judged {
        worst: format!(
            "worst bit {}: {} ones, limit {half} ± {bound:.1}",
            worst.0, ones[worst.0]
        ),
        failing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scru128::{Scru128Generator, TIMESTAMP_BIAS};

    /// Runs a checker without clock over IDs given as fields.
    fn run_ids(ids: &[Scru128Id]) -> Checker {
        let mut c = Checker::new(None, 0, InputForm::Auto);
        for (i, id) in ids.iter().enumerate() {
            c.line(i as u64 + 1, id.encode().as_bytes(), || 0);
        }
        c
    }

    #[test]
    fn bound_is_about_three_sigma_per_root_n() {
        let b = balance_bound(1_000_000);
        assert!((3000.0..3200.0).contains(&b), "{b}");
        assert!(
            balance_bound(100) < 50.0,
            "a stuck bit must fail at 100 samples"
        );
    }

    #[test]
    fn good_generator_passes_with_many_timestamps() {
        let mut now = 1_700_000_000_000u64;
        let mut seed = 0x1234_5678u32;
        let mut g = Scru128Generator::with_rng_and_clock(
            move || {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed
            },
            move || {
                now += 7;
                now
            },
        );
        let ids: Vec<_> = (0..200_000).map(|_| g.generate()).collect();
        let c = run_ids(&ids);
        assert!(c.renewals_seen > 100);
        let summary = c.finish();
        assert_eq!(summary.violations, 0, "{}", summary.table);
    }

    #[test]
    fn renewal_rules() {
        let t = TIMESTAMP_BIAS + 1_000_000;
        let at = |ms: u64, ps: u32| Scru128Id::from_fields(ms - TIMESTAMP_BIAS, 5, ps, 9);
        // early renewal
        let c = run_ids(&[at(t, 1), at(t + 10, 2), at(t + 500, 3)]);
        assert_eq!(c.failed[RENEWAL], 1);
        // change at an unchanged timestamp
        let mut ids = vec![at(t, 1)];
        ids.push(Scru128Id::from_fields(t - TIMESTAMP_BIAS, 6, 2, 9));
        assert_eq!(run_ids(&ids).failed[RENEWAL], 1);
        // one silent renewal is fine, two are not
        let c = run_ids(&[at(t, 1), at(t + 1000, 1), at(t + 1500, 1)]);
        assert_eq!(c.failed[RENEWAL], 0);
        let c = run_ids(&[at(t, 1), at(t + 1000, 1), at(t + 2000, 1)]);
        assert_eq!(c.failed[RENEWAL], 1);
        // the "> 1000" rule of the Python generator passes
        let c = run_ids(&[
            at(t, 1),
            at(t + 1000, 1),
            at(t + 1001, 2),
            at(t + 2001, 2),
            at(t + 2002, 3),
        ]);
        assert_eq!(c.failed[RENEWAL], 0);
    }

    #[test]
    fn counter_rules() {
        let ts = 1_000_000;
        let c = run_ids(&[
            Scru128Id::from_fields(ts, 5, 1, 1),
            Scru128Id::from_fields(ts, 6, 1, 1),
            Scru128Id::from_fields(ts, 8, 1, 1),
        ]);
        assert_eq!(c.failed[COUNTER], 1);
        let c = run_ids(&[
            Scru128Id::from_fields(ts, MAX_COUNTER, 1, 1),
            Scru128Id::from_fields(ts + 1, 3, 1, 1),
        ]);
        assert_eq!(c.failed[COUNTER], 0);
    }

    #[test]
    fn stuck_bit_fails() {
        let ids: Vec<_> = (0..1000u32)
            .map(|i| Scru128Id::from_fields(1_000_000, i, 1, i.wrapping_mul(2_654_435_761) | 1))
            .collect();
        let summary = run_ids(&ids).finish();
        assert_eq!(summary.violations, 1, "{}", summary.table);
    }
}
