//! `Scru128Id` deserialized from any bytes by three binary formats (postcard,
//! bincode 2 through serde, CBOR through ciborium), alone and in a struct with the
//! field modules: an error or an ID, never a panic; an ID written back reads as the
//! same ID.
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
    optional: Option<Scru128Id>,
    n: u32,
}

/// CBOR can tell a reader what it holds, so `any` is meaningful there.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct CborRow {
    #[serde(with = "scru128::serde::any")]
    any: Scru128Id,
    plain: Scru128Id,
}

fuzz_target!(|data: &[u8]| {
    // postcard
    if let Ok(id) = postcard::from_bytes::<Scru128Id>(data) {
        let bytes = postcard::to_allocvec(&id).unwrap();
        assert_eq!(postcard::from_bytes::<Scru128Id>(&bytes).unwrap(), id);
    }
    if let Ok(row) = postcard::from_bytes::<Row>(data) {
        let bytes = postcard::to_allocvec(&row).unwrap();
        assert_eq!(postcard::from_bytes::<Row>(&bytes).unwrap(), row);
    }
    // bincode 2
    let config = bincode::config::standard();
    if let Ok((id, _)) = bincode::serde::decode_from_slice::<Scru128Id, _>(data, config) {
        let bytes = bincode::serde::encode_to_vec(id, config).unwrap();
        let (back, _) = bincode::serde::decode_from_slice::<Scru128Id, _>(&bytes, config).unwrap();
        assert_eq!(back, id);
    }
    if let Ok((row, _)) = bincode::serde::decode_from_slice::<Row, _>(data, config) {
        let bytes = bincode::serde::encode_to_vec(&row, config).unwrap();
        let (back, _) = bincode::serde::decode_from_slice::<Row, _>(&bytes, config).unwrap();
        assert_eq!(back, row);
    }
    // CBOR
    if let Ok(id) = ciborium::from_reader::<Scru128Id, _>(data) {
        let mut bytes = Vec::new();
        ciborium::into_writer(&id, &mut bytes).unwrap();
        assert_eq!(
            ciborium::from_reader::<Scru128Id, _>(&bytes[..]).unwrap(),
            id
        );
    }
    if let Ok(row) = ciborium::from_reader::<CborRow, _>(data) {
        let mut bytes = Vec::new();
        ciborium::into_writer(&row, &mut bytes).unwrap();
        assert_eq!(
            ciborium::from_reader::<CborRow, _>(&bytes[..]).unwrap(),
            row
        );
    }
});
