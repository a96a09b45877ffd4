//! A crate written for scru128 1.0.0 (its API is in tests/api.rs).

use scru128::Scru128Id;
use serde::{Deserialize, Serialize};

/// A record keyed by an ID, serialized with serde as 1.0.0 does (the ID as its text).
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq)]
pub struct Event {
    pub id: Scru128Id,
    pub kind: String,
}
