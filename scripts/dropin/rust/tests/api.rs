//! scru128 1.0.0's API as code written for it uses it; the same file must build and
//! pass against 1.0.0 and against scru128-v1.

use std::collections::HashSet;
use std::convert::TryFrom;
use std::str::FromStr;

use dropin::Event;
use scru128::{scru128, scru128_string, Scru128Generator, Scru128Id, TIMESTAMP_BIAS};

#[test]
fn the_process_wide_generator() {
    let ids: Vec<Scru128Id> = (0..10_000).map(|_| scru128()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "IDs of one thread increase");
    let text = scru128_string();
    assert_eq!(text.len(), 26);
    assert!(Scru128Id::from_str(&text).unwrap() > ids[ids.len() - 1]);
}

#[test]
fn text_fields_and_integers() {
    // The spec's example: 2021-09-26T05:26:19.124Z.
    let x = Scru128Id::from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK4").unwrap();
    assert_eq!(x.timestamp() + TIMESTAMP_BIAS, 1_632_633_979_124);
    assert_eq!(TIMESTAMP_BIAS, 1_577_836_800_000);
    let y = Scru128Id::from_fields(x.timestamp(), x.counter(), x.per_sec_random(), x.per_gen_random());
    assert_eq!(x, y);
    assert_eq!(x.to_string(), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    assert_eq!("00pghaj3q9vaj7iu6pqbhbuak4".parse::<Scru128Id>().unwrap(), x);
    assert_eq!(Scru128Id::from_u128(x.as_u128()), x);
    assert_eq!(Scru128Id::from(u128::from(x)), x);
    assert_eq!(Scru128Id::try_from(String::from(x)).unwrap(), x);
    let max = Scru128Id::from_str("7VVVVVVVVVVVVVVVVVVVVVVVVV").unwrap();
    assert_eq!(max.as_u128(), u128::MAX);
    for bad in ["", "00PGHAJ3Q9VAJ7IU6PQBHBUAK", "00PGHAJ3Q9-AJ7IU6PQBHBUAK4", "80000000000000000000000000"] {
        assert!(Scru128Id::from_str(bad).is_err(), "{bad:?} parsed");
    }
}

#[test]
fn generators_of_ones_own() {
    let mut g = Scru128Generator::new();
    let mut d = Scru128Generator::default();
    let mut seen = HashSet::new();
    let mut prev = g.generate();
    for _ in 0..10_000 {
        let id = g.generate();
        assert!(prev < id);
        assert!(seen.insert(id) && seen.insert(d.generate()));
        prev = id;
    }
}

#[test]
fn serde_as_text() {
    let e = Event { id: Scru128Id::from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK4").unwrap(), kind: "a".into() };
    let json = serde_json::to_string(&e).unwrap();
    assert_eq!(json, r#"{"id":"00PGHAJ3Q9VAJ7IU6PQBHBUAK4","kind":"a"}"#);
    assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
    assert!(serde_json::from_str::<Event>(r#"{"id":"00PGHAJ3Q9","kind":"a"}"#).is_err());
}
