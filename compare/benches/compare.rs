//! This crate against the seed-era reference `scru128` 1.0.0 (same format), with
//! `ulid` and `uuid` for context and `SystemTime::now()` as the floor.
//!
//! `cargo bench --bench compare`; `scripts/bench-summary` prints the table.

use std::hint::black_box;
use std::str::FromStr;
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const TEXT: &str = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4";
const BATCH: usize = 1024;

fn floor(c: &mut Criterion) {
    c.bench_function("floor/SystemTime::now", |b| b.iter(SystemTime::now));
}

fn process_wide(c: &mut Criterion) {
    let mut g = c.benchmark_group("scru128()");
    g.bench_function("ours", |b| b.iter(scru128::scru128));
    g.bench_function("reference", |b| b.iter(scru128_ref::scru128));
    g.finish();

    let mut g = c.benchmark_group("scru128_string()");
    g.bench_function("ours", |b| b.iter(scru128::scru128_string));
    g.bench_function("reference", |b| b.iter(scru128_ref::scru128_string));
    g.finish();

    let mut g = c.benchmark_group("two threads scru128()");
    g.bench_function("ours", |b| {
        b.iter_custom(|n| two_threads(n, scru128::scru128))
    });
    g.bench_function("reference", |b| {
        b.iter_custom(|n| two_threads(n, scru128_ref::scru128));
    });
    g.finish();
}

/// Wall time for two threads to make `n` IDs between them (time per ID in total).
fn two_threads<T>(n: u64, generate: fn() -> T) -> Duration {
    let half = n.div_ceil(2);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..half {
                    black_box(generate());
                }
            });
        }
    });
    start.elapsed()
}

fn one_generator(c: &mut Criterion) {
    let mut g = c.benchmark_group("generator.generate()");
    let mut ours = scru128::Scru128Generator::new();
    g.bench_function("ours", |b| b.iter(|| ours.generate()));
    let mut reference = scru128_ref::Scru128Generator::new();
    g.bench_function("reference", |b| b.iter(|| reference.generate()));
    let mut ulid_gen = ulid::Generator::new();
    g.bench_function("ulid monotonic", |b| {
        b.iter(|| ulid_gen.generate().unwrap())
    });
    g.bench_function("uuid now_v7", |b| b.iter(uuid::Uuid::now_v7));
    g.finish();

    let mut g = c.benchmark_group("fill 1024, per ID");
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut ids = vec![scru128::Scru128Id::MIN; BATCH];
    g.bench_function("ours", |b| b.iter(|| ours.fill(black_box(&mut ids))));
    g.bench_function("reference generate() x1024", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(reference.generate());
            }
        });
    });
    g.finish();
}

fn text(c: &mut Criterion) {
    let ours = scru128::Scru128Id::from_str(TEXT).unwrap();
    let reference = scru128_ref::Scru128Id::from_str(TEXT).unwrap();
    let uuid = uuid::Uuid::from_u128(ours.to_u128());

    let mut g = c.benchmark_group("to_string()");
    g.bench_function("ours", |b| b.iter(|| black_box(ours).to_string()));
    g.bench_function("reference", |b| b.iter(|| black_box(reference).to_string()));
    // The blanket `ToString` (what generic code and `format!` get): through `Display`.
    g.bench_function("ours via Display", |b| {
        b.iter(|| ToString::to_string(&black_box(ours)))
    });
    g.finish();

    let mut g = c.benchmark_group("encode to the stack");
    g.bench_function("ours encode()", |b| b.iter(|| black_box(ours).encode()));
    g.bench_function("uuid encode_lower", |b| {
        b.iter(|| {
            let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
            black_box(black_box(uuid).hyphenated().encode_lower(&mut buf).len());
            buf
        });
    });
    g.finish();

    let mut g = c.benchmark_group("parse");
    g.bench_function("ours", |b| {
        b.iter(|| scru128::Scru128Id::from_str(black_box(TEXT)));
    });
    g.bench_function("reference", |b| {
        b.iter(|| scru128_ref::Scru128Id::from_str(black_box(TEXT)));
    });
    g.finish();

    // As users parse: many different IDs (one text over and over lets the branch
    // predictor learn it). 1024 fresh IDs, as text, each parsed through `FromStr`.
    let texts: Vec<String> = (0..BATCH).map(|_| scru128::scru128_string()).collect();
    let mut g = c.benchmark_group("parse 1024 different, per ID");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("ours", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(scru128::Scru128Id::from_str(black_box(text)).unwrap());
            }
        });
    });
    // The portable path (the `const fn`, and what other CPUs run) beside the SSE2 one.
    g.bench_function("ours portable (try_from_str)", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(scru128::Scru128Id::try_from_str(black_box(text)).unwrap());
            }
        });
    });
    g.bench_function("reference", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(scru128_ref::Scru128Id::from_str(black_box(text)).unwrap());
            }
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = floor, process_wide, one_generator, text
}
criterion_main!(benches);
