//! Tests of the shared rules, against models written from 1.0.1's source as its
//! README and type declarations describe it.

extern crate std;

use std::string::{String, ToString};
use std::vec::Vec;

use super::*;

/// 1.0.1's hex rule, `/^(?:0x)?0*(0|[1-9a-f][0-9a-f]*)$/i` with at most 32 digits in
/// the group, written out: the value, or `None`.
fn hex_model(text: &str) -> Option<u128> {
    let body = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let significant = body.trim_start_matches('0');
    if significant.len() > 32 {
        return None;
    }
    Some(
        u128::from_str_radix(
            if significant.is_empty() {
                "0"
            } else {
                significant
            },
            16,
        )
        .unwrap(),
    )
}

fn read_hex(units: &[u16], pieces: usize) -> (Option<Scru128Id>, String) {
    let mut reader = HexReader::new();
    let size = (units.len() / pieces.max(1)).max(1);
    for chunk in units.chunks(size) {
        reader.feed(chunk);
    }
    let mut out = Message::new();
    let id = reader.finish(&mut out);
    (id, out.as_str().to_string())
}

/// A small deterministic generator for the random cases.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn hex_reader_agrees_with_the_rule_of_1_0_1() {
    let alphabet: Vec<char> = "000000xX0123456789abcdefABCDEFgG -é😀".chars().collect();
    let mut rng = Lcg(7);
    let mut accepted = 0;
    for case in 0..200_000 {
        let len = (rng.next() % 40) as usize;
        let mut text: String = (0..len)
            .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
            .collect();
        if case % 3 == 0 {
            text.insert_str(0, "0x");
        }
        let units: Vec<u16> = text.encode_utf16().collect();
        let pieces = 1 + (rng.next() % 5) as usize;
        let (id, message) = read_hex(&units, pieces);
        let expected = hex_model(&text);
        assert_eq!(id.map(Scru128Id::to_u128), expected, "{text:?}: {message}");
        if expected.is_some() {
            accepted += 1;
        } else {
            assert!(
                message.starts_with("invalid hexadecimal integer representation: "),
                "{message}"
            );
        }
    }
    // Both sides of the rule were reached often.
    assert!(accepted > 10_000 && accepted < 190_000, "{accepted}");
}

#[test]
fn hex_reader_takes_the_edges_of_the_rule() {
    let ok = |text: &str| read_hex(&text.encode_utf16().collect::<Vec<_>>(), 1).0;
    assert_eq!(ok("0").map(Scru128Id::to_u128), Some(0));
    assert_eq!(ok("0x0").map(Scru128Id::to_u128), Some(0));
    assert_eq!(ok("0X00ff").map(Scru128Id::to_u128), Some(255));
    assert_eq!(ok("00ff").map(Scru128Id::to_u128), Some(255));
    let max = "f".repeat(32);
    assert_eq!(ok(&max).map(Scru128Id::to_u128), Some(u128::MAX));
    // Any number of leading zeros, even a million.
    let zeros = std::format!("0x{}1", "0".repeat(1_000_000));
    assert_eq!(ok(&zeros).map(Scru128Id::to_u128), Some(1));
    for bad in ["", "0x", "x0", "0xx0", "00x1", "0x-1", " 1", "1 ", "+1"] {
        assert_eq!(ok(bad), None, "{bad:?}");
    }
    assert_eq!(ok(&std::format!("1{max}")), None);
}

#[test]
fn hex_messages_say_what_and_where_in_characters() {
    let message = |text: &str| read_hex(&text.encode_utf16().collect::<Vec<_>>(), 1).1;
    let head = "invalid hexadecimal integer representation";
    assert_eq!(message(""), std::format!("{head}: no hex digits"));
    assert_eq!(message("0x"), std::format!("{head}: no hex digits"));
    assert_eq!(
        message("0x12g4"),
        std::format!(
            "{head}: invalid hex digit 'g' at position 4: expected 0-9 or a-f in either case"
        )
    );
    // A surrogate pair before it counts as one character, and is shown whole.
    assert_eq!(
        message("😀"),
        std::format!(
            "{head}: invalid hex digit '😀' at position 0: expected 0-9 or a-f in either case"
        )
    );
    assert_eq!(
        message("1é😀"),
        std::format!(
            "{head}: invalid hex digit 'é' at position 1: expected 0-9 or a-f in either case"
        )
    );
    // A lone surrogate shows as U+FFFD.
    let units = [u16::from(b'1'), 0xd800, u16::from(b'2')];
    assert_eq!(
        read_hex(&units, 1).1,
        std::format!(
            "{head}: invalid hex digit '\u{fffd}' at position 1: expected 0-9 or a-f in either case"
        )
    );
    // The pair split across two pieces is still one character.
    let units: Vec<u16> = "ab😀".encode_utf16().collect();
    assert_eq!(read_hex(&units, 3).1, message("ab😀"));
    assert!(message("ab😀").contains("'😀' at position 2"));
    assert_eq!(
        message(&"1".repeat(33)),
        std::format!("{head}: 33 significant hex digits, more than 32 (128 bits)")
    );
    // An invalid character is reported before too many digits.
    assert!(message(&std::format!("{}g", "1".repeat(40))).contains("'g' at position 40"));
}

#[test]
fn to_uint32_is_ecmascript_s() {
    let two32 = 4_294_967_296.0f64;
    let cases: &[(f64, u32)] = &[
        (0.0, 0),
        (-0.0, 0),
        (1.9, 1),
        (-1.9, u32::MAX),
        (-1.0, u32::MAX),
        (two32, 0),
        (two32 + 5.0, 5),
        (-two32 - 5.0, u32::MAX - 4),
        (f64::NAN, 0),
        (f64::INFINITY, 0),
        (f64::NEG_INFINITY, 0),
        (9_007_199_254_740_994.0, 2),         // 2^53 + 2
        (18_446_744_073_709_555_712.0, 4096), // 2^64 + 2^12
        (1.0e300, 0),
    ];
    for &(number, expected) in cases {
        assert_eq!(to_uint32(number), expected, "{number}");
    }
}

#[test]
fn a_user_source_is_used_as_1_0_1_used_it() {
    let mut values = [0xffff_ffffu32 as f64, 0x1234_5678 as f64, 7.0].into_iter();
    let asked = core::cell::RefCell::new(Vec::new());
    let mut rng = UserRandom::new(|bits| {
        asked.borrow_mut().push(bits);
        values.next().unwrap_or(0.0)
    });
    // The high bits: `>>> 4` and `>>> 8`.
    assert_eq!(rng.next_bits(28), 0x0fff_ffff);
    assert_eq!(rng.next_bits(24), 0x12_3456);
    assert_eq!(rng.next_u32(), 7);
    assert!(!rng.refused);
    assert_eq!(*asked.borrow(), [28, 24, 32]);
    for refused in [-1.0, 1.5, 4_294_967_296.0, f64::NAN] {
        let mut rng = UserRandom::new(|_| refused);
        assert_eq!(rng.next_u32(), 0);
        assert!(rng.refused, "{refused}");
    }
}

/// npm scru128 1.0.1's generator, as its source reads (`generate()`), for a source whose
/// counters never overflow (there 1.0.1 waited for the clock, and this package takes
/// the next millisecond: a deliberate difference).
struct Model101 {
    ts_last_gen: u64,
    counter: u32,
    ts_last_sec: u64,
    per_sec_random: u32,
}

impl Model101 {
    fn generate(&mut self, now: u64, next: &mut impl FnMut() -> u32) -> (u64, u32, u32, u32) {
        if now > self.ts_last_gen {
            self.ts_last_gen = now;
            self.counter = next() >> 4;
        } else {
            self.counter += 1;
            assert!(self.counter <= MAX_COUNTER, "the model has no overflow");
        }
        if self.ts_last_gen - self.ts_last_sec > 1000 {
            self.ts_last_sec = self.ts_last_gen;
            self.per_sec_random = next() >> 8;
        }
        (
            self.ts_last_gen - TIMESTAMP_BIAS,
            self.counter,
            self.per_sec_random,
            next(),
        )
    }
}

#[test]
fn steps_with_a_seeded_source_give_1_0_1_s_ids() {
    let seeded = || {
        let mut x = 0x9e37_79b9u32;
        move || {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x
        }
    };
    let mut model_draw = seeded();
    let mut ours_draw = seeded();
    let mut model = Model101 {
        ts_last_gen: 0,
        counter: 0,
        ts_last_sec: 0,
        per_sec_random: 0,
    };
    let mut state = [0.0; STATE_LEN];
    let base = 1_700_000_000_000u64;
    // The same millisecond, new ones, steps back of up to a minute, and renewals due
    // at 999, 1000, 1001 and more milliseconds after the last.
    let mut now = base;
    for i in 0..20_000u64 {
        now = match i % 100 {
            0..=49 => now + (i % 3),
            50..=52 => now.saturating_sub(30_000),
            // Past the steps back, a renewal, then IDs exactly 1000 ms and 1001 ms
            // after it.
            60 | 70 => now + 200_000,
            61 => now + 1_000,
            62 => now + 1,
            71 => now + 999,
            72 | 73 => now + 1,
            _ => now + 7,
        };
        let mut draw = |bits: u32| f64::from(ours_draw()) + f64::from(bits) * 0.0;
        let mut rng = UserRandom::new(&mut draw);
        let (id, _) = step(&mut state, now, &mut rng).unwrap();
        let (t, c, p, g) = model.generate(now.max(model.ts_last_gen), &mut model_draw);
        // (1.0.1 read the clock and kept the last timestamp when it was behind; the
        // `max` is its branch taken by hand, as the model has no rollback of its own.)
        assert_eq!(
            (
                id.timestamp(),
                id.counter(),
                id.per_sec_random(),
                id.per_gen_random()
            ),
            (t, c, p, g),
            "ID {i}"
        );
    }
}

#[test]
fn steps_stay_in_order_through_any_step_back_and_tell_the_counter_limit() {
    let mut state = [0.0; STATE_LEN];
    let mut last = None;
    let mut events = Vec::new();
    let readings = [
        1_700_000_100_000u64,
        1_700_000_100_000,
        1_600_000_000_000, // back 27 hours
        1_650_000_000_000,
        1_700_000_200_000, // a new millisecond
    ];
    for (i, now) in readings.into_iter().enumerate() {
        // Every counter drawn is the largest: each ID at the last timestamp overflows.
        let (id, event) = step(&mut state, now, &mut || 0x0fff_ffffu32).unwrap();
        assert!(
            last.is_none_or(|last| id > last),
            "ID {i} is not above the one before"
        );
        last = Some(id);
        events.push(event);
    }
    let limit = EVENT_COUNTER_LIMIT;
    assert_eq!(events, [EVENT_NONE, limit, limit, limit, EVENT_NONE]);
}

#[test]
fn a_failed_step_leaves_the_state() {
    let mut state = [0.0; STATE_LEN];
    step(&mut state, 1_700_000_000_000, &mut || 5u32).unwrap();
    let before = state;
    let err = step(&mut state, 1_000, &mut || 5u32).unwrap_err();
    assert_eq!(state, before);
    let mut out = Message::new();
    generate_message(&err, &mut out);
    assert!(
        out.as_str()
            .starts_with("invalid field value: the clock reads unix time 1000 ms"),
        "{}",
        out.as_str()
    );
}

#[test]
fn fields_are_checked_with_messages_that_name_the_field() {
    let check = |t: f64, c: f64, p: f64, g: f64| -> Result<Scru128Id, String> {
        let mut out = Message::new();
        match from_fields(t, c, p, g, &mut out) {
            Some(id) => Ok(id),
            None => Err(out.as_str().to_string()),
        }
    };
    assert_eq!(check(1.0, 2.0, 3.0, 4.0).map(|id| id.counter()), Ok(2));
    assert_eq!(
        check(1.0, 268_435_456.0, 3.0, 4.0),
        Err(
            "invalid field value: counter 268435456 is out of range (maximum 268435455)"
                .to_string()
        )
    );
    assert_eq!(
        check(-5.0, 0.0, 0.0, 0.0),
        Err("invalid field value: timestamp -5 is negative".to_string())
    );
    assert_eq!(
        check(0.0, 0.0, 0.0, 1.0e300),
        Err("invalid field value: perGenRandom is out of range (maximum 4294967295)".to_string())
    );
    assert_eq!(
        check(0.0, 0.0, 0.5, 0.0),
        Err("invalid field value: perSecRandom is not an integer".to_string())
    );
    assert_eq!(check(-0.0, 0.0, 0.0, 0.0).map(|id| id.to_u128()), Ok(0));
    let id = Scru128Id::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    assert_eq!(id_of_fields(fields_of(id)), Some(id));
}

#[test]
fn parsing_says_whether_the_text_was_canonical() {
    let units = |text: &str| -> [u16; 26] {
        let v: Vec<u16> = text.encode_utf16().collect();
        v.try_into().unwrap()
    };
    let (id, canonical) = parse_units(&units("00PGHAJ3Q9VAJ7IU6PQBHBUAK4")).unwrap();
    assert!(canonical);
    assert_eq!(id.to_u128(), 0x00cc22a98f49faa67978d9d2e2bf2a84);
    assert_eq!(
        parse_units(&units("00pghaj3q9vaj7iu6pqbhbuak4")),
        Some((id, false))
    );
    let mut out = Message::new();
    let bad = units("00PGHAJ3Q9VAJ7IU6PQBHBUAKé");
    assert_eq!(parse_units(&bad), None);
    parse_message(&bad, &mut out);
    assert_eq!(
        out.as_str(),
        "invalid string representation: invalid digit 'é' at position 25: expected 0-9 or A-V in either case"
    );
}

#[test]
fn a_message_is_cut_at_a_character_boundary() {
    let mut out = Message::new();
    for _ in 0..200 {
        out.push_str("é");
    }
    assert_eq!(out.as_str().len(), Message::CAPACITY);
    out.push_str("x");
    assert_eq!(out.as_str().chars().count(), Message::CAPACITY / 2);
}

#[test]
fn messages_write_numbers_and_characters() {
    let mut out = Message::new();
    out.push_u64(0)
        .push_str(" ")
        .push_u64(u64::MAX)
        .push_str(" ");
    out.push_quoted('W')
        .push_quoted('é')
        .push_quoted('\u{1b}')
        .push_quoted('\0')
        .push_quoted('\u{9f}');
    assert_eq!(
        out.as_str(),
        "0 18446744073709551615 'W''é''\\u{1b}''\\u{0}''\\u{9f}'"
    );
}

#[test]
fn parse_messages_are_the_library_s_for_every_ascii_input() {
    // Every printable ASCII character at every position of a valid ID, and the first
    // digit above 7: the message is the library's own (its `ParseError`), after
    // 1.0.1's words.
    let valid = *b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
    let mut checked = 0;
    for pos in 0..26 {
        for byte in 0x20u8..0x7f {
            let mut text = valid;
            text[pos] = byte;
            let units: [u16; 26] = core::array::from_fn(|i| u16::from(text[i]));
            let library = Scru128Id::try_from_ascii(&text);
            assert_eq!(parse_units(&units).map(|(id, _)| id), library.clone().ok());
            if let Err(err) = library {
                let mut out = Message::new();
                parse_message(&units, &mut out);
                assert_eq!(
                    out.as_str(),
                    std::format!("invalid string representation: {err}")
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
