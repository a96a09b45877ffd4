//! Compatibility with the seed-era reference, crates.io `scru128` 1.0.0 (here
//! `scru128_ref`): the same values and strings must give the same results, each
//! crate's IDs must be accepted by the other, and a program written for 1.0.0 must
//! compile against this crate unchanged (SPEC section 4).

use std::panic::{AssertUnwindSafe, catch_unwind};

use scru128::Scru128Id;
use scru128_ref::Scru128Id as RefId;

#[path = "../../tests/common/split_mix.rs"]
#[allow(dead_code)] // shared with the library's tests, which use all of it
mod split_mix;

use split_mix::SplitMix64;

/// Values that exercise every field's edges plus random ones.
fn sample_values() -> Vec<u128> {
    let mut values = vec![
        0,
        1,
        u128::MAX,
        u128::MAX - 1,
        1 << 127,
        (1 << 127) - 1,
        (1 << 84) - 1,
        1 << 84,
        (1 << 56) - 1,
        1 << 56,
        (1 << 32) - 1,
        1 << 32,
        0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84,
    ];
    let mut rng = SplitMix64(1);
    for _ in 0..10_000 {
        values.push(rng.next_u128());
        // Small values and values with few high bits too.
        values.push(rng.next_u128() >> rng.below(128));
    }
    values
}

fn ref_fields(id: RefId) -> (u64, u32, u32, u32) {
    (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    )
}

fn fields(id: Scru128Id) -> (u64, u32, u32, u32) {
    (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    )
}

/// Parses `text` with both crates; they must agree on acceptance and on the value.
fn assert_same_parse(text: &str) -> bool {
    let ours = text.parse::<Scru128Id>();
    let theirs = text.parse::<RefId>();
    assert_eq!(
        ours.is_ok(),
        theirs.is_ok(),
        "{text:?}: ours {ours:?}, reference {theirs:?}"
    );
    if let (Ok(a), Ok(b)) = (&ours, &theirs) {
        assert_eq!(a.as_u128(), b.as_u128(), "{text:?}");
    }
    // The `String` entry point agrees with `FromStr` in both crates.
    assert_eq!(
        Scru128Id::try_from(text.to_owned()).is_ok(),
        RefId::try_from(text.to_owned()).is_ok(),
        "{text:?}"
    );
    ours.is_ok()
}

#[test]
fn integer_conversions_match() {
    for v in sample_values() {
        let (ours, theirs) = (Scru128Id::from_u128(v), RefId::from_u128(v));
        assert_eq!(ours.as_u128(), theirs.as_u128());
        assert_eq!(u128::from(ours), u128::from(theirs));
        assert_eq!(Scru128Id::from(v).as_u128(), RefId::from(v).as_u128());
    }
}

#[test]
fn field_getters_and_from_fields_match() {
    for v in sample_values() {
        let (ours, theirs) = (Scru128Id::from_u128(v), RefId::from_u128(v));
        assert_eq!(fields(ours), ref_fields(theirs), "{v:#x}");
        let (t, c, s, g) = ref_fields(theirs);
        assert_eq!(
            Scru128Id::from_fields(t, c, s, g).as_u128(),
            RefId::from_fields(t, c, s, g).as_u128()
        );
    }
}

#[test]
fn from_fields_panics_on_the_same_inputs() {
    let cases = [
        (1u64 << 44, 0u32, 0u32, 0u32),
        (u64::MAX, 0, 0, 0),
        (0, 1 << 28, 0, 0),
        (0, u32::MAX, 0, 0),
        (0, 0, 1 << 24, 0),
        (0, 0, u32::MAX, 0),
        ((1 << 44) - 1, (1 << 28) - 1, (1 << 24) - 1, u32::MAX),
        (0, 0, 0, u32::MAX),
    ];
    // Keep the expected panics quiet.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let results: Vec<(bool, bool)> = cases
        .iter()
        .map(|&(t, c, s, g)| {
            let ours = catch_unwind(AssertUnwindSafe(|| Scru128Id::from_fields(t, c, s, g)));
            let theirs = catch_unwind(AssertUnwindSafe(|| RefId::from_fields(t, c, s, g)));
            (ours.is_err(), theirs.is_err())
        })
        .collect();
    std::panic::set_hook(hook);
    for (case, (ours, theirs)) in cases.iter().zip(results) {
        assert_eq!(
            ours, theirs,
            "{case:?}: ours panicked {ours}, reference {theirs}"
        );
    }
}

#[test]
fn display_and_string_conversion_match() {
    for v in sample_values() {
        let (ours, theirs) = (Scru128Id::from_u128(v), RefId::from_u128(v));
        let text = theirs.to_string();
        assert_eq!(ours.to_string(), text);
        assert_eq!(format!("{ours}"), format!("{theirs}"));
        assert_eq!(String::from(ours), String::from(theirs));
        assert_eq!(ours.encode(), text.as_str());
    }
}

#[test]
fn valid_strings_parse_alike_in_every_case() {
    let mut rng = SplitMix64(2);
    for v in sample_values() {
        let text = RefId::from_u128(v).to_string();
        assert!(assert_same_parse(&text), "{text}");
        assert!(assert_same_parse(&text.to_ascii_lowercase()), "{text}");
        let mixed: String = text
            .chars()
            .map(|c| {
                if rng.below(2) == 0 {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect();
        assert!(assert_same_parse(&mixed), "{mixed}");
    }
}

#[test]
fn random_digit_strings_parse_alike() {
    // 26 digits in either case, with any first digit, so some are out of range.
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv";
    let mut rng = SplitMix64(3);
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..20_000 {
        let text: String = (0..26).map(|_| char::from(rng.pick(DIGITS))).collect();
        if assert_same_parse(&text) {
            accepted += 1;
        } else {
            rejected += 1;
        }
    }
    // Both outcomes were exercised.
    assert!(accepted > 1000 && rejected > 1000, "{accepted} {rejected}");
}

#[test]
fn invalid_strings_are_rejected_alike() {
    let fixed = [
        "",
        " 00SCT4FL89GQPRHN44C4LFM0OV",
        "00SCT4FL89GQPRJN44C7SQO381 ",
        " 00SCT4FL89GQPRLN44C4BGCIIO ",
        "+00SCT4FL89GQPRNN44C4F3QD24",
        "-00SCT4FL89GQPRPN44C7H4E5RC",
        "+0SCT4FL89GQPRRN44C55Q7RVC",
        "-0SCT4FL89GQPRTN44C6PN0A2R",
        "00SCT4FL89WQPRVN44C41RGVMM",
        "00SCT4FL89GQPS1N4_C54QDC5O",
        "00SCT4-L89GQPS3N44C602O0K8",
        "00SCT4FL89GQPS N44C7VHS5QJ",
        "80000000000000000000000000",
        "VVVVVVVVVVVVVVVVVVVVVVVVVV",
        "vvvvvvvvvvvvvvvvvvvvvvvvvv",
        "0000000000000000000000000é",
        "000000000000000000000000é",
        "0000000000000€0000000000",
        "0000000000000000000000😀",
        "00000000000000000000000000\0",
        "0000000000000000000000000\0",
    ];
    for text in fixed {
        assert!(!assert_same_parse(text), "{text:?} should be rejected");
    }
}

#[test]
fn random_garbage_strings_are_judged_alike() {
    // Mostly digits, so that many strings are 26 bytes long and nearly valid, mixed
    // with letters past V, punctuation, whitespace and multi-byte characters.
    const DIGITS: &[char] = &[
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'K', 'O', 'U', 'V', 'a', 'k',
        'o', 'u', 'v',
    ];
    const GARBAGE: &[char] = &[
        'W', 'X', 'Y', 'Z', 'w', 'x', 'y', 'z', ' ', '\t', '\n', '\0', '-', '+', '_', '.', ':',
        '/', '@', '`', '[', '{', '~', '\u{7f}', 'é', 'ß', '€', '０', '😀', '\u{301}', '\u{feff}',
    ];
    let mut rng = SplitMix64(4);
    let mut accepted = 0;
    let mut lengths_26 = 0;
    for _ in 0..50_000 {
        let len = if rng.below(2) == 0 { 26 } else { rng.index(40) };
        let text: String = (0..len)
            .map(|_| {
                if rng.below(40) == 0 {
                    rng.pick(GARBAGE)
                } else {
                    rng.pick(DIGITS)
                }
            })
            .collect();
        lengths_26 += usize::from(text.len() == 26);
        if assert_same_parse(&text) {
            accepted += 1;
        }
    }
    assert!(
        accepted > 1000 && lengths_26 > 10_000,
        "{accepted} {lengths_26}"
    );
}

#[test]
fn try_from_string_matches() {
    for v in sample_values().into_iter().take(2000) {
        let text = RefId::from_u128(v).to_string();
        let ours = Scru128Id::try_from(text.clone()).unwrap();
        let theirs = RefId::try_from(text).unwrap();
        assert_eq!(ours.as_u128(), theirs.as_u128());
    }
    assert!(Scru128Id::try_from(String::from("x")).is_err());
    assert!(RefId::try_from(String::from("x")).is_err());
}

#[test]
fn default_matches() {
    assert_eq!(Scru128Id::default().as_u128(), RefId::default().as_u128());
    assert_eq!(
        Scru128Id::default().to_string(),
        RefId::default().to_string()
    );
}

#[test]
fn order_and_equality_match_on_pairs() {
    let values = sample_values();
    let mut rng = SplitMix64(5);
    for _ in 0..20_000 {
        let a = values[rng.index(values.len())];
        // Often equal or adjacent, to exercise ties and the last bits.
        let b = match rng.below(4) {
            0 => a,
            1 => a.wrapping_add(1),
            2 => a ^ (1 << rng.below(128)),
            _ => values[rng.index(values.len())],
        };
        let (x, y) = (Scru128Id::from_u128(a), Scru128Id::from_u128(b));
        let (p, q) = (RefId::from_u128(a), RefId::from_u128(b));
        assert_eq!(x.cmp(&y), p.cmp(&q), "{a:#x} {b:#x}");
        assert_eq!(x.partial_cmp(&y), p.partial_cmp(&q));
        assert_eq!(x == y, p == q);
        assert_eq!(x < y, p < q);
        assert_eq!(x.max(y).as_u128(), p.max(q).as_u128());
    }
}

#[test]
fn timestamp_bias_matches() {
    assert_eq!(scru128::TIMESTAMP_BIAS, scru128_ref::TIMESTAMP_BIAS);
    assert_eq!(scru128::TIMESTAMP_BIAS, 1_577_836_800_000);
}

#[test]
fn reference_generated_ids_parse_here_and_ours_parse_there() {
    let mut theirs = scru128_ref::Scru128Generator::new();
    let mut ours = scru128::Scru128Generator::new();
    for _ in 0..10_000 {
        let id = theirs.generate();
        let text = id.to_string();
        let parsed: Scru128Id = text.parse().expect(&text);
        assert_eq!(parsed.as_u128(), id.as_u128());
        assert_eq!(fields(parsed), ref_fields(id));
        assert_eq!(parsed.to_string(), text);

        let id = ours.generate();
        let text = id.to_string();
        let parsed: RefId = text.parse().expect(&text);
        assert_eq!(parsed.as_u128(), id.as_u128());
        assert_eq!(ref_fields(parsed), fields(id));
        assert_eq!(parsed.to_string(), text);
    }
    for _ in 0..1000 {
        let text = scru128_ref::scru128_string();
        assert_eq!(
            text.parse::<Scru128Id>().unwrap().as_u128(),
            text.parse::<RefId>().unwrap().as_u128()
        );
        let text = scru128::scru128_string();
        assert_eq!(
            text.parse::<RefId>().unwrap().as_u128(),
            text.parse::<Scru128Id>().unwrap().as_u128()
        );
        let id = scru128_ref::scru128();
        assert_eq!(
            Scru128Id::from_u128(id.as_u128()).to_string(),
            id.to_string()
        );
        let id = scru128::scru128();
        assert_eq!(RefId::from_u128(id.as_u128()).to_string(), id.to_string());
    }
}

#[test]
fn both_generators_stamp_the_same_clock() {
    // The two crates agree on the timestamp: IDs made around the same time by both
    // fall into the same bounds (taken before and after, so no timing assertion).
    let before = std::time::SystemTime::now();
    let theirs = scru128_ref::scru128();
    let ours = scru128::scru128();
    let after = std::time::SystemTime::now();
    let lo = Scru128Id::try_min_at_system_time(before).unwrap();
    // The reference may count ahead of the clock by at most its counter overflow,
    // which 2 IDs cannot cause.
    let hi = Scru128Id::try_max_at_system_time(after).unwrap();
    let theirs = Scru128Id::from_u128(theirs.as_u128());
    assert!(lo <= theirs && theirs <= hi, "{theirs}");
    assert!(lo <= ours && ours <= hi, "{ours}");
}

/// A program written against the 1.0.0 API. The same body is compiled against both
/// crates: against `scru128_ref` to prove it uses only the 1.0.0 surface, against
/// `scru128` to prove this crate accepts it unchanged.
macro_rules! program_written_for_1_0 {
    ($module:ident, $krate:ident) => {
        pub mod $module {
            use std::collections::{BTreeSet, HashSet};
            use std::convert::TryFrom;
            use std::error::Error;

            use ::$krate::{
                ParseError, Scru128Generator, Scru128Id, TIMESTAMP_BIAS, scru128, scru128_string,
            };

            fn takes_std_error<E: Error + Clone + Eq + std::hash::Hash + std::fmt::Debug>(
                e: &E,
            ) -> String {
                e.to_string()
            }

            pub fn run() -> Result<Vec<u128>, Box<dyn Error>> {
                let a: Scru128Id = scru128();
                let b: Scru128Id = scru128_string().parse()?;
                assert!(a < b);

                let mut g: Scru128Generator = Scru128Generator::new();
                let c = g.generate();
                let mut g2 = Scru128Generator::default();
                let d = g2.generate();
                assert!(c.timestamp() + TIMESTAMP_BIAS > TIMESTAMP_BIAS);

                let e = Scru128Id::from_fields(
                    d.timestamp(),
                    d.counter(),
                    d.per_sec_random(),
                    d.per_gen_random(),
                );
                assert_eq!(e, d);
                let f = Scru128Id::from_u128(e.as_u128());
                let h: Scru128Id = u128::from(f).into();
                let s: String = h.into();
                let i = Scru128Id::try_from(s.clone())?;
                assert_eq!(i.to_string(), s);
                let j = Scru128Id::default();
                assert_eq!(j.as_u128(), 0);

                // Derives: Copy, Clone, Eq, Ord, Hash, Debug.
                let copy = i;
                #[allow(clippy::clone_on_copy)]
                let cloned = i.clone();
                let mut set = HashSet::new();
                set.insert(copy);
                set.insert(cloned);
                assert_eq!(set.len(), 1);
                let sorted: BTreeSet<Scru128Id> = [a, b, c, d].iter().copied().collect();
                let _ = format!("{:?}", sorted);

                let err: ParseError = "not an id".parse::<Scru128Id>().unwrap_err();
                let err2 = err.clone();
                assert_eq!(err, err2);
                let _ = takes_std_error(&err);
                let boxed: Box<dyn Error> = Box::new(err);
                assert!(!boxed.to_string().is_empty());
                let result: Result<Scru128Id, ParseError> = "".parse();
                assert!(result.is_err());

                Ok(sorted.iter().map(Scru128Id::as_u128).collect())
            }
        }
    };
}

mod for_1_0 {
    program_written_for_1_0!(this_crate, scru128);
    program_written_for_1_0!(reference, scru128_ref);
}

#[test]
fn a_program_written_for_1_0_compiles_and_runs_here() {
    let ours = for_1_0::this_crate::run().expect("runs against this crate");
    let theirs = for_1_0::reference::run().expect("runs against the reference");
    assert_eq!(ours.len(), 4);
    assert_eq!(theirs.len(), 4);
    assert!(ours.windows(2).all(|w| w[0] < w[1]));
}

/// `tests/scru128_1_0_0` runs 1.0.0's own unit tests against this crate: its three
/// files must be the `#[cfg(test)]` modules of the 1.0.0 sources, byte for byte (as
/// cargo unpacked them to build `scru128_ref`).
#[test]
fn the_copied_unit_tests_of_1_0_0_are_unchanged() {
    // Where cargo unpacks registry crates: $CARGO_HOME/registry/src/<index>/.
    let cargo_home = std::env::var_os("CARGO_HOME").map_or_else(
        || std::path::Path::new(&std::env::var_os("HOME").expect("HOME")).join(".cargo"),
        std::path::PathBuf::from,
    );
    let src = std::fs::read_dir(cargo_home.join("registry/src"))
        .expect("cargo's registry sources")
        .map(|index| index.unwrap().path().join("scru128-1.0.0/src"))
        .find(|src| src.is_dir())
        .expect("scru128 1.0.0 unpacked in cargo's registry");
    let copies = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/scru128_1_0_0");
    for (source, copy) in [
        ("identifier.rs", "identifier_tests.rs"),
        ("default_gen.rs", "default_gen_tests.rs"),
        ("lib.rs", "lib_tests.rs"),
    ] {
        let source = std::fs::read_to_string(src.join(source)).unwrap();
        let tests = &source[source.find("#[cfg(test)]").expect("a test module")..];
        let copy = std::fs::read_to_string(format!("{copies}/{copy}")).unwrap();
        assert_eq!(copy, tests, "{copy} differs from 1.0.0's tests");
    }
}
