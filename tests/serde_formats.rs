//! The serde support with real formats: serde_json (human-readable), bincode 2 and
//! postcard (binary, not self-describing) and CBOR through ciborium (binary,
//! self-describing). What each reads is the table in the `scru128::serde` docs; every
//! cell of it is checked here. (That data written by scru128 1.0.0 reads back is
//! checked against the real 1.0.0 in `compare/tests/serde_1_0.rs`.)

mod common;

use common::formats::{
    bincode, cbor, cbor_map_id, from_bincode, from_cbor, from_json, from_postcard, json, postcard,
};

use scru128::Scru128Id;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

const TEXT: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
const VALUE: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;

// ---- the four formats, each as bytes in and out --------------------------------------

/// Runs `$body` once per format, with `$name` its name and `$ser`/`$de` its generic
/// writer and reader.
macro_rules! each_format {
    (|$name:ident, $ser:ident, $de:ident| $body:block) => {{
        each_format!(@one json from_json, $name, $ser, $de, $body);
        each_format!(@one bincode from_bincode, $name, $ser, $de, $body);
        each_format!(@one postcard from_postcard, $name, $ser, $de, $body);
        each_format!(@one cbor from_cbor, $name, $ser, $de, $body);
    }};
    (@one $w:ident $r:ident, $name:ident, $ser:ident, $de:ident, $body:block) => {{
        #[allow(unused_variables)]
        let $name = stringify!($w);
        #[allow(dead_code)]
        fn $ser<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
            $w(value)
        }
        #[allow(dead_code)]
        fn $de<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
            $r(bytes)
        }
        $body
    }};
}

/// Forced forms and the `any` reader, in a struct (as users write them).
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Forced {
    #[serde(with = "scru128::serde::string")]
    text: Scru128Id,
    #[serde(with = "scru128::serde::bytes")]
    bytes: Scru128Id,
    plain: Scru128Id,
    maybe: Option<Scru128Id>,
    list: Vec<Scru128Id>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct AnyForm {
    #[serde(with = "scru128::serde::any")]
    id: Scru128Id,
}

// ---- what is written -----------------------------------------------------------------

#[test]
fn written_forms_are_the_canonical_string_in_every_format_as_scru128_1_0_0_writes() {
    let id = Scru128Id::from_u128(VALUE);
    assert_eq!(json(&id), format!("\"{TEXT}\"").into_bytes());
    // bincode 2 and postcard: varint length 26, then the ASCII digits
    assert_eq!(bincode(&id), [&[26u8][..], TEXT.as_bytes()].concat());
    assert_eq!(postcard(&id), [&[26u8][..], TEXT.as_bytes()].concat());
    // CBOR: major type 3 (text string), length 26 in the next byte
    assert_eq!(cbor(&id), [&[0x78u8, 26][..], TEXT.as_bytes()].concat());
    // exactly what a `String` writes, which is what 1.0.0's `into = "String"` does
    each_format!(|name, ser, de| {
        assert_eq!(ser(&id), ser(&TEXT.to_string()), "{name}");
    });
}

#[test]
fn the_bytes_form_is_opt_in_and_writes_sixteen_bytes() {
    #[derive(Serialize)]
    struct OnlyBytes(#[serde(with = "scru128::serde::bytes")] Scru128Id);
    let bytes = VALUE.to_be_bytes();
    let id = OnlyBytes(Scru128Id::from_u128(VALUE));
    assert_eq!(bincode(&id), [&[16u8][..], &bytes].concat());
    assert_eq!(postcard(&id), [&[16u8][..], &bytes].concat());
    // CBOR: major type 2 (byte string) of length 16 = 0x50
    assert_eq!(cbor(&id), [&[0x50u8][..], &bytes].concat());
}

// ---- round trips ---------------------------------------------------------------------

#[test]
fn edge_and_random_ids_round_trip_in_every_format() {
    let ids = common::edge_ids();
    assert!(ids.len() > 1000);
    each_format!(|name, ser, de| {
        for &id in &ids {
            let written = ser(&id);
            assert_eq!(de(&written), Ok(id), "{name}: {id}");
        }
        // all of them at once, inside a container
        let written = ser(&ids);
        assert_eq!(de(&written), Ok(ids.clone()), "{name}: Vec");
    });
}

#[test]
fn forced_forms_round_trip_in_every_format() {
    let ids = common::edge_ids();
    each_format!(|name, ser, de| {
        for pair in ids.chunks(3) {
            let row = Forced {
                text: pair[0],
                bytes: *pair.last().unwrap(),
                plain: pair[pair.len() / 2],
                maybe: (pair.len() > 1).then(|| pair[1]),
                list: pair.to_vec(),
            };
            assert_eq!(de(&ser(&row)), Ok(row), "{name}");
        }
    });
}

#[test]
fn forced_forms_write_what_they_say() {
    let id = Scru128Id::from_u128(VALUE);
    let row = Forced {
        text: id,
        bytes: id,
        plain: id,
        maybe: None,
        list: vec![],
    };
    let text = json(&row);
    let expected_bytes = format!("{:?}", VALUE.to_be_bytes()).replace(' ', "");
    assert_eq!(
        String::from_utf8(text).unwrap(),
        format!(
            r#"{{"text":"{TEXT}","bytes":{expected_bytes},"plain":"{TEXT}","maybe":null,"list":[]}}"#
        )
    );
    // `string` in a binary format: length 26, then the ASCII digits
    #[derive(Serialize)]
    struct OnlyText(#[serde(with = "scru128::serde::string")] Scru128Id);
    assert_eq!(
        bincode(&OnlyText(id)),
        [&[26u8][..], TEXT.as_bytes()].concat()
    );
    assert_eq!(
        cbor(&OnlyText(id)),
        [&[0x78u8, 26][..], TEXT.as_bytes()].concat()
    );
}

#[test]
fn any_reads_every_form_of_a_self_describing_format() {
    let id = Scru128Id::from_u128(VALUE);
    let big = Scru128Id::MAX;
    // (format, written value) pairs: the value is what some writer stored
    let cases: Vec<(&str, Vec<u8>, Scru128Id)> = vec![
        ("cbor text", cbor(&TEXT), id),
        ("cbor lower text", cbor(&TEXT.to_lowercase()), id),
        (
            "cbor bytes",
            cbor(&serde_bytes_like(&VALUE.to_be_bytes())),
            id,
        ),
        ("cbor array", cbor(&VALUE.to_be_bytes()), id),
        ("cbor u64", cbor(&42u64), Scru128Id::from_u128(42)),
        ("cbor u128 bignum", cbor(&u128::MAX), big),
        ("cbor u128", cbor(&VALUE), id),
        ("cbor ours", cbor(&id), id),
    ];
    for (what, written, expected) in cases {
        let wrapped = cbor_map_id(&written);
        assert_eq!(
            from_cbor::<AnyForm>(&wrapped).map(|f| f.id),
            Ok(expected),
            "{what}"
        );
    }
    // JSON too (any is what the default impl does in human-readable formats)
    assert_eq!(
        from_json::<AnyForm>(format!(r#"{{"id":"{TEXT}"}}"#).as_bytes()).map(|f| f.id),
        Ok(id)
    );
    // and it writes like the default impl
    assert_eq!(cbor(&AnyForm { id }), cbor_map_id(&cbor(&id)));
    assert_eq!(
        json(&AnyForm { id }),
        format!(r#"{{"id":"{TEXT}"}}"#).into_bytes()
    );
}

#[test]
fn any_is_refused_with_an_error_by_formats_that_are_not_self_describing() {
    let id = Scru128Id::from_u128(VALUE);
    let written = bincode(&AnyForm { id });
    assert!(from_bincode::<AnyForm>(&written).is_err());
    let written = postcard(&AnyForm { id });
    assert!(from_postcard::<AnyForm>(&written).is_err());
}

/// Serializes as a byte string (what `serde_bytes` does), without the dependency.
fn serde_bytes_like(bytes: &[u8]) -> impl Serialize + '_ {
    struct B<'a>(&'a [u8]);
    impl Serialize for B<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(self.0)
        }
    }
    B(bytes)
}

// ---- what each format reads besides its own output -----------------------------------

#[test]
fn strings_in_either_case_read_in_every_format() {
    let id = Scru128Id::from_u128(VALUE);
    for text in [
        TEXT.to_string(),
        TEXT.to_lowercase(),
        "00pGhAj3Q9vAj7Iu6pQbHbUaK4".into(),
    ] {
        each_format!(|name, ser, de| {
            assert_eq!(de(&ser(&text)), Ok(id), "{name} {text}");
            assert_eq!(
                de(&ser(&vec![text.clone(), text.clone()])),
                Ok(vec![id, id]),
                "{name} {text} in a list"
            );
        });
        assert_eq!(
            from_cbor::<AnyForm>(&cbor_map_id(&cbor(&text))).map(|f| f.id),
            Ok(id)
        );
    }
}

#[test]
fn sixteen_bytes_read_in_every_format_also_as_a_sequence() {
    let id = Scru128Id::from_u128(VALUE);
    let array = VALUE.to_be_bytes();
    // JSON: an array of 16 numbers
    assert_eq!(from_json(&json(&array)), Ok(id));
    // CBOR: a byte string and an array
    assert_eq!(from_cbor(&cbor(&serde_bytes_like(&array))), Ok(id));
    assert_eq!(from_cbor(&cbor(&array.to_vec())), Ok(id));
    // bincode / postcard: their byte layout is the length then the bytes
    assert_eq!(from_bincode(&bincode(&serde_bytes_like(&array))), Ok(id));
    assert_eq!(from_postcard(&postcard(&serde_bytes_like(&array))), Ok(id));
}

#[test]
fn integers_read_where_the_format_can_say_it_holds_one() {
    let small = Scru128Id::from_u128(42);
    // JSON: up to u64::MAX; larger numbers are floats to serde_json (an error)
    assert_eq!(from_json(b"42"), Ok(small));
    assert_eq!(
        from_json(u64::MAX.to_string().as_bytes()),
        Ok(Scru128Id::from_u128(u128::from(u64::MAX)))
    );
    let err = from_json::<Scru128Id>(VALUE.to_string().as_bytes()).unwrap_err();
    assert!(err.contains("floating point"), "{err}");
    assert!(from_json::<Scru128Id>(b"-1").is_err());
    // CBOR says what it holds: every integer up to 128 bits (a bignum past u64)
    assert_eq!(from_cbor(&cbor(&42u64)), Ok(small));
    assert_eq!(from_cbor(&cbor(&VALUE)), Ok(Scru128Id::from_u128(VALUE)));
    assert_eq!(from_cbor(&cbor(&u128::MAX)), Ok(Scru128Id::MAX));
    assert!(from_cbor::<Scru128Id>(&cbor(&-1i64)).is_err());
    // bincode / postcard cannot tell an integer from a length prefix: a u128 is
    // refused or misread, never a panic (the documented limit of these formats)
    for value in [VALUE, 42, u128::MAX] {
        let want = Scru128Id::from_u128(value);
        assert_ne!(from_bincode::<Scru128Id>(&bincode(&value)), Ok(want));
        assert_ne!(from_postcard::<Scru128Id>(&postcard(&value)), Ok(want));
    }
}

// ---- bad input: errors, never panics -------------------------------------------------

#[test]
fn bad_inputs_are_errors_in_every_format() {
    let bad_blobs: [&[u8]; 4] = [&[0; 15], &[0; 17], &[], &[0xff; 25]];
    each_format!(|name, ser, de| {
        for blob in bad_blobs {
            let written = ser(&serde_bytes_like(blob));
            let err = de::<Scru128Id>(&written).unwrap_err();
            // serde_json says "invalid length" for its arrays differently, postcard
            // keeps no message ("Serde Deserialization Error"): both are still errors
            if name == "bincode" || name == "cbor" {
                assert!(
                    err.contains(&format!("invalid length {}", blob.len())),
                    "{name}: {err}"
                );
            }
        }
        for text in [
            "80000000000000000000000000",  // out of range
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK!",  // bad digit
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK",   // 25 digits
            " 00PGHAJ3Q9VAJ7IU6PQBHBUAK4", // 27 bytes
            "00PGHAJ3Q9VAJ7IU6PQBHBUAKW",  // W is not a digit
            "",
        ] {
            let written = ser(&text);
            assert!(de::<Scru128Id>(&written).is_err(), "{name}: {text:?}");
        }
        // truncated and empty input
        let good = ser(&Scru128Id::from_u128(VALUE));
        for cut in 0..good.len() {
            assert!(
                de::<Scru128Id>(&good[..cut]).is_err(),
                "{name}: cut at {cut}"
            );
        }
    });
    // wrong JSON shapes
    for input in [
        "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
        "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
        "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,256]",
        "-5",
        "1.5",
        "true",
        "null",
        "{}",
    ] {
        assert!(from_json::<Scru128Id>(input.as_bytes()).is_err(), "{input}");
    }
    // the error says why
    let err = from_json::<Scru128Id>(br#""80000000000000000000000000""#).unwrap_err();
    assert!(err.contains("out of range"), "{err}");
    let err = from_bincode::<Scru128Id>(&bincode(&serde_bytes_like(&[0; 15]))).unwrap_err();
    assert!(
        err.contains("invalid length 15, expected 16 bytes or 26 digits"),
        "{err}"
    );
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = common::SplitMix64(7);
    for _ in 0..20_000 {
        let len = rng.below(40) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let _ = from_json::<Scru128Id>(&bytes);
        let _ = from_bincode::<Scru128Id>(&bytes);
        let _ = from_postcard::<Scru128Id>(&bytes);
        let _ = from_cbor::<Scru128Id>(&bytes);
        let _ = from_cbor::<AnyForm>(&bytes);
    }
}
