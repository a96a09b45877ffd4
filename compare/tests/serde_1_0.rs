//! Data that the seed-era reference `scru128` 1.0.0 serialized with serde reads back
//! here, through real formats, and 1.0.0 reads what this crate writes by default (SPEC
//! section 4: the canonical string in every format, exactly as 1.0.0 writes it; data
//! 1.0.0 serialized must still deserialize).

#[path = "../../tests/common/mod.rs"]
mod common;

use common::formats::{
    bincode, cbor, cbor_map_id, from_bincode, from_cbor, from_json, from_postcard, json, postcard,
};
use scru128::Scru128Id;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct AnyForm {
    #[serde(with = "scru128::serde::any")]
    id: Scru128Id,
}

#[test]
fn data_written_by_scru128_1_0_reads_back_and_the_default_writes_what_1_0_writes() {
    let ids = common::edge_ids();
    for id in ids {
        let old = scru128_ref::Scru128Id::from_u128(id.as_u128());
        // 1.0 always wrote the string; the default impl here writes the same bytes
        assert_eq!(json(&old), json(&id), "JSON {id}");
        assert_eq!(bincode(&old), bincode(&id), "bincode {id}");
        assert_eq!(postcard(&old), postcard(&id), "postcard {id}");
        assert_eq!(cbor(&old), cbor(&id), "CBOR {id}");
        // what 1.0 wrote reads back by default, in every format
        assert_eq!(from_json(&json(&old)), Ok(id));
        assert_eq!(from_bincode(&bincode(&old)), Ok(id));
        assert_eq!(from_postcard(&postcard(&old)), Ok(id));
        assert_eq!(from_cbor(&cbor(&old)), Ok(id));
        // also through `any`
        let row = cbor_map_id(&cbor(&old));
        assert_eq!(from_cbor::<AnyForm>(&row).map(|f| f.id), Ok(id));
        // and 1.0 reads what the default impl and `string` write, in every format
        #[derive(Serialize)]
        struct OnlyText(#[serde(with = "scru128::serde::string")] Scru128Id);
        let old_read = |r: Result<scru128_ref::Scru128Id, String>| r.map(|old| old.as_u128()).ok();
        let want = Some(id.as_u128());
        assert_eq!(old_read(from_json(&json(&id))), want);
        assert_eq!(old_read(from_bincode(&bincode(&id))), want);
        assert_eq!(old_read(from_postcard(&postcard(&id))), want);
        assert_eq!(old_read(from_cbor(&cbor(&id))), want);
        let ours = OnlyText(id);
        assert_eq!(old_read(from_json(&json(&ours))), want);
        assert_eq!(old_read(from_bincode(&bincode(&ours))), want);
        assert_eq!(old_read(from_postcard(&postcard(&ours))), want);
        assert_eq!(old_read(from_cbor(&cbor(&ours))), want);
    }
}

#[test]
fn structs_written_by_scru128_1_0_read_back() {
    #[derive(Serialize)]
    struct Old {
        id: scru128_ref::Scru128Id,
        name: String,
        ids: Vec<scru128_ref::Scru128Id>,
    }
    #[derive(Deserialize, Debug, PartialEq, Clone)]
    struct New {
        id: Scru128Id,
        name: String,
        ids: Vec<Scru128Id>,
    }
    let g = scru128_ref::scru128();
    let old = Old {
        id: g,
        name: "row".into(),
        ids: (0..5).map(|_| scru128_ref::scru128()).collect(),
    };
    let new = New {
        id: Scru128Id::from_u128(old.id.as_u128()),
        name: "row".into(),
        ids: old
            .ids
            .iter()
            .map(|id| Scru128Id::from_u128(id.as_u128()))
            .collect(),
    };
    assert_eq!(from_json(&json(&old)), Ok(new.clone()));
    assert_eq!(from_bincode(&bincode(&old)), Ok(new.clone()));
    assert_eq!(from_postcard(&postcard(&old)), Ok(new.clone()));
    assert_eq!(from_cbor(&cbor(&old)), Ok(new));
}
