//! The serde formats of the tests, each as bytes in and out: serde_json
//! (human-readable), bincode 2 and postcard (binary, not self-describing) and CBOR
//! through ciborium (binary, self-describing). Also used by `compare/`.

use serde::{Serialize, de::DeserializeOwned};

pub fn json<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("serde_json serializes")
}
pub fn from_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

pub fn bincode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, bincode::config::standard()).expect("bincode encodes")
}
pub fn from_bincode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, read) = bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map_err(|e| e.to_string())?;
    if read == bytes.len() {
        Ok(value)
    } else {
        Err(format!("{} trailing bytes", bytes.len() - read))
    }
}

pub fn postcard<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("postcard serializes")
}
pub fn from_postcard<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| e.to_string())
}

pub fn cbor<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::into_writer(value, &mut out).expect("ciborium serializes");
    out
}
pub fn from_cbor<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    ciborium::from_reader(bytes).map_err(|e| e.to_string())
}

/// A CBOR map `{"id": <value>}` around an already encoded value.
pub fn cbor_map_id(value: &[u8]) -> Vec<u8> {
    [&[0xa1u8, 0x62, b'i', b'd'][..], value].concat()
}
