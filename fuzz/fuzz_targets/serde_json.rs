//! `Scru128Id` deserialized from any JSON text, alone, in a struct (with the
//! `string`, `bytes` and `any` field modules) and in a sequence: an error or an ID,
//! never a panic; an ID serializes back to JSON that reads as the same ID; a JSON
//! string gives exactly what the text parser gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scru128::Scru128Id;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Row {
    plain: Scru128Id,
    #[serde(with = "scru128::serde::string")]
    string: Scru128Id,
    #[serde(with = "scru128::serde::bytes")]
    bytes: Scru128Id,
    #[serde(with = "scru128::serde::any")]
    any: Scru128Id,
    optional: Option<Scru128Id>,
}

fuzz_target!(|data: &[u8]| {
    let one = serde_json::from_slice::<Scru128Id>(data);
    if let Ok(id) = &one {
        let json = serde_json::to_string(id).unwrap();
        assert_eq!(json, format!("\"{id}\""));
        assert_eq!(serde_json::from_str::<Scru128Id>(&json).unwrap(), *id);
    }
    // A JSON string: the same outcome as the text parser.
    if let Ok(text) = serde_json::from_slice::<String>(data) {
        assert_eq!(one.ok(), Scru128Id::try_from_str(&text).ok(), "{text:?}");
    }
    if let Ok(row) = serde_json::from_slice::<Row>(data) {
        let json = serde_json::to_vec(&row).unwrap();
        assert_eq!(serde_json::from_slice::<Row>(&json).unwrap(), row);
    }
    if let Ok(ids) = serde_json::from_slice::<Vec<Scru128Id>>(data) {
        let json = serde_json::to_vec(&ids).unwrap();
        assert_eq!(
            serde_json::from_slice::<Vec<Scru128Id>>(&json).unwrap(),
            ids
        );
    }
});
