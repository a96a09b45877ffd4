//! `From` conversions between `Scru128Id` and `uuid::Uuid` (feature `uuid`): the same
//! 128 bits, both ways, in the same order, for edge, vector and random IDs; the
//! library's hex and UUID text forms read and write what `uuid` does.

mod common;

use scru128::{Scru128Generator, Scru128Id};
use uuid::Uuid;

#[test]
fn conversions_keep_the_bits_both_ways() {
    for id in common::edge_ids() {
        let uuid = Uuid::from(id);
        assert_eq!(uuid.as_u128(), id.as_u128());
        assert_eq!(uuid.as_bytes(), id.as_bytes());
        assert_eq!(Scru128Id::from(uuid), id);
    }
    assert_eq!(Uuid::from(Scru128Id::MIN), Uuid::nil());
    assert_eq!(Uuid::from(Scru128Id::MAX), Uuid::max());
    assert_eq!(Scru128Id::from(Uuid::max()), Scru128Id::MAX);
}

#[test]
fn any_uuid_converts_and_comes_back_unchanged() {
    for _ in 0..1000 {
        let v4 = Uuid::new_v4();
        assert_eq!(Uuid::from(Scru128Id::from(v4)), v4);
        let v7 = Uuid::now_v7();
        assert_eq!(Uuid::from(Scru128Id::from(v7)), v7);
    }
}

#[test]
fn order_is_the_same() {
    let mut ids = common::shuffled_ids_for_order(20_000, 11);
    ids.extend(common::edge_ids());
    let mut uuids: Vec<Uuid> = ids.iter().copied().map(Uuid::from).collect();
    ids.sort_unstable();
    uuids.sort_unstable();
    let back: Vec<Scru128Id> = uuids.into_iter().map(Scru128Id::from).collect();
    assert_eq!(back, ids);
}

#[test]
fn hyphenated_form_is_the_hex_of_the_id_in_groups() {
    for id in common::edge_ids() {
        let hex = format!("{:032x}", id.as_u128());
        assert_eq!(Uuid::from(id).to_string(), common::uuid_form(&hex));
        assert_eq!(Uuid::from(id).simple().to_string(), hex);
    }
}

#[test]
fn generated_ids_are_not_rfc_9562_uuids() {
    // The version and variant positions hold counter and random bits: across many IDs
    // they take many values, which a UUID of one version would not. The docs say so.
    // (A new millisecond per ID, so that the counter starts at a random value each time.)
    let mut now = 1_714_564_800_000u64;
    let mut g = Scru128Generator::with_rng_and_clock(scru128::DefaultRng::new(), move || {
        now += 1;
        now
    });
    let versions: std::collections::BTreeSet<usize> = (0..10_000)
        .map(|_| Uuid::from(g.generate()).get_version_num())
        .collect();
    assert_eq!(versions.len(), 16, "{versions:?}");
}

#[test]
fn the_text_forms_match_the_uuid_crate() {
    for id in common::edge_ids() {
        let uuid = Uuid::from(id);
        assert_eq!(id.encode_uuid(), uuid.hyphenated().to_string());
        assert_eq!(id.encode_hex(), uuid.simple().to_string());
        let upper = uuid
            .hyphenated()
            .encode_upper(&mut Uuid::encode_buffer())
            .to_owned();
        assert_eq!(Scru128Id::try_from_uuid_str(&upper), Ok(id));
        let simple_upper = uuid
            .simple()
            .encode_upper(&mut Uuid::encode_buffer())
            .to_owned();
        assert_eq!(Scru128Id::try_from_hex(&simple_upper), Ok(id));
        // And `uuid` reads what the library writes.
        assert_eq!(Uuid::try_parse(&id.encode_uuid()), Ok(uuid));
        assert_eq!(Uuid::try_parse_ascii(id.encode_hex().as_bytes()), Ok(uuid));
    }
}
