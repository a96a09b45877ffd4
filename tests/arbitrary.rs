//! `Arbitrary` for `Scru128Id` (feature `arbitrary`): the 16 input bytes are the ID's
//! bytes, so every 128-bit value comes out, reserved timestamps included, and the
//! derive works on structs that hold IDs.

mod common;

use arbitrary::{Arbitrary, Unstructured};
use common::SplitMix64;
use scru128::{MAX_TIMESTAMP, Scru128Id};

#[test]
fn the_next_16_bytes_are_the_id() {
    let mut rng = SplitMix64(0xa7b1_7a41);
    for _ in 0..10_000 {
        let mut data = [0u8; 20];
        data[..16].copy_from_slice(&rng.next_u128().to_be_bytes());
        data[16..].copy_from_slice(&[1, 2, 3, 4]);
        let mut u = Unstructured::new(&data);
        let id = Scru128Id::arbitrary(&mut u).unwrap();
        assert_eq!(id.to_bytes()[..], data[..16]);
        // 16 bytes taken, the rest left for the next field
        assert_eq!(u.len(), 4);
    }
    assert_eq!(<Scru128Id as Arbitrary>::size_hint(0), (16, Some(16)));
}

#[test]
fn every_value_comes_out_reserved_timestamps_min_and_max_included() {
    let wanted = [
        Scru128Id::MIN,
        Scru128Id::MAX,
        Scru128Id::from_fields(0, 1, 2, 3), // reserved timestamp 0
        Scru128Id::from_fields(MAX_TIMESTAMP, 0, 0, 0), // reserved timestamp 2^44-1
        Scru128Id::from_u128(1),
        Scru128Id::from_u128(u128::MAX - 1),
        "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap(),
    ];
    for id in wanted.into_iter().chain(common::vectors()) {
        let bytes = id.to_bytes();
        assert_eq!(Scru128Id::arbitrary(&mut Unstructured::new(&bytes)), Ok(id));
        assert_eq!(
            Scru128Id::arbitrary_take_rest(Unstructured::new(&bytes)),
            Ok(id)
        );
    }
    assert_eq!(
        Scru128Id::from_fields(0, 1, 2, 3).timestamp(),
        0,
        "the reserved timestamp is really there"
    );
}

#[test]
fn short_input_is_padded_with_zeros_not_an_error() {
    assert_eq!(
        Scru128Id::arbitrary(&mut Unstructured::new(&[])),
        Ok(Scru128Id::MIN)
    );
    let id = Scru128Id::arbitrary(&mut Unstructured::new(&[0xff, 0x01])).unwrap();
    assert_eq!(id.to_u128(), 0xff01 << 112);
}

/// A struct of the kind fuzz targets take.
#[derive(Arbitrary, Debug)]
struct Row {
    id: Scru128Id,
    parent: Option<Scru128Id>,
    children: Vec<Scru128Id>,
    n: u8,
}

#[test]
fn derive_on_a_struct_of_ids() {
    let mut rng = SplitMix64(0x5eed);
    let mut children = 0;
    let mut top_bytes = [false; 256];
    for _ in 0..2_000 {
        let data: Vec<u8> = (0..200).map(|_| rng.next_u64() as u8).collect();
        let row = Row::arbitrary_take_rest(Unstructured::new(&data)).unwrap();
        // the first field is the first 16 bytes
        assert_eq!(row.id.to_bytes()[..], data[..16]);
        top_bytes[usize::from(row.id.to_bytes()[0])] = true;
        children += row.children.len();
        let _ = (row.parent, row.n);
    }
    assert!(children > 0, "no Vec<Scru128Id> was ever filled");
    // the timestamp's top byte takes every value: no range is left out
    assert!(top_bytes.iter().all(|&seen| seen));
}
