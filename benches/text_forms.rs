//! Writing and reading each text form of an ID: the 26-digit base-32 form, the
//! 32-digit hex form and the UUID form, with the `uuid` crate's hyphenated and simple
//! forms of the same 128 bits for context.
//!
//! `cargo bench --bench text_forms`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use scru128::Scru128Id;
use uuid::Uuid;

const VALUE: u128 = 0x00cc_22a9_8f49_faa6_7978_d9d2_e2bf_2a84;

fn write(c: &mut Criterion) {
    let id = Scru128Id::from_u128(VALUE);
    let uuid = Uuid::from_u128(VALUE);
    let mut g = c.benchmark_group("write");
    g.bench_function("encode (base-32)", |b| b.iter(|| black_box(&id).encode()));
    g.bench_function("encode_hex", |b| b.iter(|| black_box(&id).encode_hex()));
    g.bench_function("encode_uuid", |b| b.iter(|| black_box(&id).encode_uuid()));
    g.bench_function("uuid: simple().encode_lower", |b| {
        let mut buf = Uuid::encode_buffer();
        b.iter(|| black_box(black_box(&uuid).simple().encode_lower(&mut buf)).len());
    });
    g.bench_function("uuid: hyphenated().encode_lower", |b| {
        let mut buf = Uuid::encode_buffer();
        b.iter(|| black_box(black_box(&uuid).hyphenated().encode_lower(&mut buf)).len());
    });
    g.finish();
}

fn read(c: &mut Criterion) {
    let id = Scru128Id::from_u128(VALUE);
    let (text, hex, hyphenated) = (id.encode(), id.encode_hex(), id.encode_uuid());
    let mut g = c.benchmark_group("read");
    g.bench_function("parse (base-32)", |b| {
        b.iter(|| black_box(text.as_str()).parse::<Scru128Id>())
    });
    g.bench_function("try_from_hex", |b| {
        b.iter(|| Scru128Id::try_from_hex(black_box(&hex)))
    });
    g.bench_function("try_from_uuid_str", |b| {
        b.iter(|| Scru128Id::try_from_uuid_str(black_box(&hyphenated)))
    });
    g.bench_function("uuid: try_parse (simple)", |b| {
        b.iter(|| Uuid::try_parse(black_box(&hex)))
    });
    g.bench_function("uuid: try_parse (hyphenated)", |b| {
        b.iter(|| Uuid::try_parse(black_box(&hyphenated)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    // Short runs: the machine is shared, and these paths are a few nanoseconds.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = write, read
}
criterion_main!(benches);
