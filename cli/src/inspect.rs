//! `scru128 inspect`: the fields of IDs as JSON, with the keys and value formats of
//! the Python `scru128-inspect` tool (Python package `scru128` 1.0.1).
//!
//! `scru128-inspect` prints each object over ten lines with aligned values; that is
//! `--pretty` here, byte for byte. The default writes the same object on one line
//! without spaces (`{"input":"…",…,"fieldsHex":["…","…","…","…"]}`), so that each
//! line is one JSON document. Differences from the Python tool, on purpose:
//! - Bad input is reported with its line number and reason, and the exit status is
//!   then 1 (Python warns without a line number and exits 0).
//! - Only one trailing `\r` is dropped and empty lines are skipped; other whitespace
//!   is not trimmed (Python strips it) but reported, as the library trims nothing.
//! - The 32-digit hex, UUID and decimal forms are accepted too (`input` shows them as
//!   given).
//! - `timestampIso` is exact for every timestamp; Python's float arithmetic can make
//!   it 1 ms early for times after about 2242.

use std::io::Write;

use scru128::{Scru128Id, TIMESTAMP_BIAS};

use crate::args::InspectArgs;
use crate::input;
use crate::output::{Failure, Status, write_failed};
use crate::time::{ISO_LEN, write_iso};

/// Runs `inspect`.
///
/// # Errors
///
/// A read error, or a write error other than a broken pipe.
pub fn run(args: &InspectArgs) -> Result<Status, Failure> {
    let mut json = Json::new(args.pretty);
    input::each_id("inspect", &args.input, |text, id, out| {
        json.write(text, id, out)
    })
}

/// Writes the JSON object of one ID, compact or pretty.
pub struct Json {
    pretty: bool,
    buf: Vec<u8>,
    num: itoa::Buffer,
}

impl Json {
    /// A writer of one-line (`pretty == false`) or indented objects.
    pub fn new(pretty: bool) -> Self {
        Self {
            pretty,
            buf: Vec::with_capacity(512),
            num: itoa::Buffer::new(),
        }
    }

    /// Writes the object for `id`, read from the text `input`, and a newline.
    ///
    /// `input` must be one of the accepted forms (ASCII letters, digits and `-`), so
    /// it needs no JSON escaping.
    pub fn write(
        &mut self,
        input: &[u8],
        id: &Scru128Id,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        debug_assert!(
            input
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        );
        let mut iso = [0u8; ISO_LEN];
        write_iso(id.timestamp() + TIMESTAMP_BIAS, &mut iso);
        let (timestamp, counter) = (id.timestamp(), id.counter());
        let (per_sec, per_gen) = (id.per_sec_random(), id.per_gen_random());
        self.buf.clear();
        let buf = &mut self.buf;
        let num = &mut self.num;
        let layout = if self.pretty { &PRETTY } else { &COMPACT };
        buf.extend_from_slice(layout.input);
        buf.extend_from_slice(input);
        buf.extend_from_slice(layout.canonical);
        buf.extend_from_slice(id.encode().as_bytes());
        buf.extend_from_slice(layout.timestamp_iso);
        buf.extend_from_slice(&iso);
        buf.extend_from_slice(layout.timestamp);
        buf.extend_from_slice(num.format(timestamp).as_bytes());
        buf.extend_from_slice(layout.counter);
        buf.extend_from_slice(num.format(counter).as_bytes());
        buf.extend_from_slice(layout.per_sec_random);
        buf.extend_from_slice(num.format(per_sec).as_bytes());
        buf.extend_from_slice(layout.per_gen_random);
        buf.extend_from_slice(num.format(per_gen).as_bytes());
        buf.extend_from_slice(layout.fields_hex);
        push_hex(buf, timestamp, 11);
        buf.extend_from_slice(layout.between_hex);
        push_hex(buf, u64::from(counter), 7);
        buf.extend_from_slice(layout.between_hex);
        push_hex(buf, u64::from(per_sec), 6);
        buf.extend_from_slice(layout.between_hex);
        push_hex(buf, u64::from(per_gen), 8);
        buf.extend_from_slice(layout.end);
        out.write_all(buf).map_err(write_failed)
    }
}

/// Appends the low `digits` hex digits of `value`, lowercase and zero-padded.
fn push_hex(buf: &mut Vec<u8>, value: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        // The mask keeps 4 bits, so the cast cannot truncate.
        buf.push(HEX[((value >> (4 * i)) & 15) as usize]);
    }
}

/// The text around each value of one JSON object: what comes before it.
struct Layout {
    input: &'static [u8],
    canonical: &'static [u8],
    timestamp_iso: &'static [u8],
    timestamp: &'static [u8],
    counter: &'static [u8],
    per_sec_random: &'static [u8],
    per_gen_random: &'static [u8],
    fields_hex: &'static [u8],
    between_hex: &'static [u8],
    end: &'static [u8],
}

/// `scru128-inspect` 1.0.1's own layout, byte for byte.
const PRETTY: Layout = Layout {
    input: b"{\n  \"input\":        \"",
    canonical: b"\",\n  \"canonical\":    \"",
    timestamp_iso: b"\",\n  \"timestampIso\": \"",
    timestamp: b"\",\n  \"timestamp\":    \"",
    counter: b"\",\n  \"counter\":      \"",
    per_sec_random: b"\",\n  \"perSecRandom\": \"",
    per_gen_random: b"\",\n  \"perGenRandom\": \"",
    fields_hex: b"\",\n  \"fieldsHex\":    [\"",
    between_hex: b"\", \"",
    end: b"\"]\n}\n",
};

/// The same object on one line, without spaces.
const COMPACT: Layout = Layout {
    input: b"{\"input\":\"",
    canonical: b"\",\"canonical\":\"",
    timestamp_iso: b"\",\"timestampIso\":\"",
    timestamp: b"\",\"timestamp\":\"",
    counter: b"\",\"counter\":\"",
    per_sec_random: b"\",\"perSecRandom\":\"",
    per_gen_random: b"\",\"perGenRandom\":\"",
    fields_hex: b"\",\"fieldsHex\":[\"",
    between_hex: b"\",\"",
    end: b"\"]}\n",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::InputForm;
    use crate::forms::parse_id;

    fn object(pretty: bool, text: &str) -> String {
        let id = parse_id(text.as_bytes(), InputForm::Auto).unwrap();
        let mut out = Vec::new();
        Json::new(pretty)
            .write(text.as_bytes(), &id, &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn pretty_matches_python() {
        let expected = r#"{
  "input":        "00pghaj3q9vaj7iu6pqbhbuak4",
  "canonical":    "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
  "timestampIso": "2021-09-26T05:26:19.124+00:00",
  "timestamp":    "54797179124",
  "counter":      "167421561",
  "perSecRandom": "7920082",
  "perGenRandom": "3804179076",
  "fieldsHex":    ["00cc22a98f4", "9faa679", "78d9d2", "e2bf2a84"]
}
"#;
        assert_eq!(object(true, "00pghaj3q9vaj7iu6pqbhbuak4"), expected);
    }

    #[test]
    fn compact_is_one_line() {
        assert_eq!(
            object(false, "00000000000000000000000000"),
            "{\"input\":\"00000000000000000000000000\",\"canonical\":\"00000000000000000000000000\",\
             \"timestampIso\":\"2020-01-01T00:00:00.000+00:00\",\"timestamp\":\"0\",\"counter\":\"0\",\
             \"perSecRandom\":\"0\",\"perGenRandom\":\"0\",\
             \"fieldsHex\":[\"00000000000\",\"0000000\",\"000000\",\"00000000\"]}\n"
        );
    }
}
