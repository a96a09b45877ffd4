//! The 50 test vectors of `tests/data/test-vectors.json` (made by an independent
//! implementation) in both directions and both letter cases.

use scru128::Scru128Id;
use serde_json::Value;

const VECTORS_JSON: &str = include_str!("data/test-vectors.json");

/// One vector: the four fields, the 128-bit value and the canonical text.
struct Vector {
    timestamp: u64,
    counter: u32,
    per_sec_random: u32,
    per_gen_random: u32,
    value: u128,
    text: String,
}

fn load() -> Vec<Vector> {
    let parsed: Value =
        serde_json::from_str(VECTORS_JSON).expect("test-vectors.json is not valid JSON");
    let list = parsed
        .as_array()
        .expect("test-vectors.json is not an array");
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let num = |key: &str| {
                v[key]
                    .as_u64()
                    .unwrap_or_else(|| panic!("vector {i}: `{key}` is not an unsigned integer"))
            };
            let text_of = |key: &str| {
                v[key]
                    .as_str()
                    .unwrap_or_else(|| panic!("vector {i}: `{key}` is not a string"))
                    .to_owned()
            };
            let narrow = |key: &str| {
                u32::try_from(num(key)).unwrap_or_else(|_| panic!("vector {i}: `{key}` > u32"))
            };
            Vector {
                timestamp: num("timestamp"),
                counter: narrow("counter"),
                per_sec_random: narrow("per_sec_random"),
                per_gen_random: narrow("per_gen_random"),
                value: u128::from_str_radix(&text_of("u128_hex"), 16)
                    .unwrap_or_else(|err| panic!("vector {i}: bad u128_hex ({err})")),
                text: text_of("text"),
            }
        })
        .collect()
}

fn fields(id: Scru128Id) -> (u64, u32, u32, u32) {
    (
        id.timestamp(),
        id.counter(),
        id.per_sec_random(),
        id.per_gen_random(),
    )
}

#[test]
fn there_are_exactly_50_vectors() {
    assert_eq!(load().len(), 50);
}

#[test]
fn the_vectors_are_canonical_uppercase_text() {
    // Guards the other tests: they derive the lowercase form from this one.
    for v in load() {
        assert_eq!(v.text.len(), 26, "{}", v.text);
        assert!(
            v.text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'V').contains(&b)),
            "{}",
            v.text
        );
    }
}

#[test]
fn fields_to_id_to_text_and_integer() {
    for v in load() {
        let id = Scru128Id::from_fields(v.timestamp, v.counter, v.per_sec_random, v.per_gen_random);
        let checked =
            Scru128Id::try_from_fields(v.timestamp, v.counter, v.per_sec_random, v.per_gen_random)
                .expect("vector fields are in range");
        assert_eq!(id, checked, "{}", v.text);
        assert_eq!(id.as_u128(), v.value, "{}", v.text);
        assert_eq!(id.to_u128(), v.value, "{}", v.text);
        assert_eq!(u128::from(id), v.value, "{}", v.text);
        assert_eq!(id.to_bytes(), v.value.to_be_bytes(), "{}", v.text);
        assert_eq!(id.to_string(), v.text);
        assert_eq!(id.encode(), v.text.as_str());
        assert_eq!(String::from(id), v.text);
        assert_eq!(id.encode_lower(), v.text.to_ascii_lowercase().as_str());
    }
}

#[test]
fn integer_to_id_to_fields_and_text() {
    for v in load() {
        let id = Scru128Id::from_u128(v.value);
        assert_eq!(Scru128Id::from(v.value), id);
        assert_eq!(Scru128Id::from_bytes(v.value.to_be_bytes()), id);
        assert_eq!(
            fields(id),
            (v.timestamp, v.counter, v.per_sec_random, v.per_gen_random),
            "{}",
            v.text
        );
        assert_eq!(id.encode(), v.text.as_str());
    }
}

#[test]
fn uppercase_text_to_id_to_fields() {
    for v in load() {
        let id: Scru128Id = v.text.parse().unwrap_or_else(|e| panic!("{}: {e}", v.text));
        assert_eq!(Scru128Id::try_from_str(&v.text), Ok(id));
        assert_eq!(Scru128Id::try_from_ascii(v.text.as_bytes()), Ok(id));
        assert_eq!(Scru128Id::try_from(v.text.as_str()), Ok(id));
        assert_eq!(Scru128Id::try_from(v.text.clone()), Ok(id));
        assert_eq!(id.as_u128(), v.value, "{}", v.text);
        assert_eq!(
            fields(id),
            (v.timestamp, v.counter, v.per_sec_random, v.per_gen_random),
            "{}",
            v.text
        );
        // Output is uppercase from `encode`/`to_string`, lowercase from `encode_lower`.
        assert_eq!(id.to_string(), v.text);
        assert_eq!(id.encode_lower(), v.text.to_ascii_lowercase().as_str());
    }
}

#[test]
fn lowercase_text_to_id_to_fields() {
    for v in load() {
        let lower = v.text.to_ascii_lowercase();
        let id: Scru128Id = lower.parse().unwrap_or_else(|e| panic!("{lower}: {e}"));
        assert_eq!(Scru128Id::try_from_str(&lower), Ok(id));
        assert_eq!(Scru128Id::try_from_ascii(lower.as_bytes()), Ok(id));
        assert_eq!(Scru128Id::try_from(lower.clone()), Ok(id));
        assert_eq!(id.as_u128(), v.value, "{lower}");
        assert_eq!(
            fields(id),
            (v.timestamp, v.counter, v.per_sec_random, v.per_gen_random),
            "{lower}"
        );
        // Lowercase input still gives canonical uppercase output.
        assert_eq!(id.to_string(), v.text);
        assert_eq!(id.encode(), v.text.as_str());
        assert_eq!(id.encode_lower(), lower.as_str());
    }
}

#[test]
fn vectors_sort_alike_as_integers_bytes_and_text() {
    let mut vectors = load();
    vectors.sort_by_key(|v| v.value);
    for w in vectors.windows(2) {
        let (a, b) = (
            Scru128Id::from_u128(w[0].value),
            Scru128Id::from_u128(w[1].value),
        );
        assert_eq!(w[0].value.cmp(&w[1].value), a.cmp(&b));
        assert_eq!(w[0].value.cmp(&w[1].value), w[0].text.cmp(&w[1].text));
        assert_eq!(w[0].value.cmp(&w[1].value), a.as_bytes().cmp(b.as_bytes()));
    }
}
