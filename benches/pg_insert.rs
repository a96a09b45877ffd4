//! Why time-ordered keys: inserts into a real PostgreSQL table keyed by SCRU128 IDs,
//! versus random UUIDv4 keys (and UUIDv7, also time-ordered, for context).
//!
//! Same table for each (`id uuid PRIMARY KEY, payload int4`), same load: 1 000 000
//! rows as `COPY ... (FORMAT binary)` statements of 1000 rows, each its own
//! transaction, keys made beforehand (not timed) and bound through the same `ToSql`
//! (a UUID key is converted with the `uuid` feature). Reported per key type: rows per
//! second (median of the rounds), the primary-key index size (`pg_relation_size`), its
//! leaf density (`pgstattuple`, if the extension is there) and the WAL written.
//!
//! Run with `scripts/bench-pg`, which starts a throwaway server (scripts/pg-server).
//! Environment: `SCRU128_PG_URL` (required), `SCRU128_BENCH_ROWS` (default 1000000),
//! `SCRU128_BENCH_ROUNDS` (default 3).

use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Client, NoTls};
use scru128::Scru128Id;

const BATCH: usize = 1000;

#[derive(Clone, Copy, PartialEq)]
enum Key {
    Scru128,
    UuidV4,
    UuidV7,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Scru128 => "SCRU128 (scru128())",
            Key::UuidV4 => "UUIDv4 (random)",
            Key::UuidV7 => "UUIDv7 (time-ordered)",
        }
    }

    fn make(self, n: usize) -> Vec<Scru128Id> {
        match self {
            Key::Scru128 => (0..n).map(|_| scru128::scru128()).collect(),
            Key::UuidV4 => (0..n).map(|_| uuid::Uuid::new_v4().into()).collect(),
            Key::UuidV7 => (0..n).map(|_| uuid::Uuid::now_v7().into()).collect(),
        }
    }
}

struct Run {
    elapsed: Duration,
    index_bytes: i64,
    table_bytes: i64,
    wal_bytes: f64,
    leaf_density: Option<f64>,
}

fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, not {text:?}")),
        Err(_) => default,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("SCRU128_PG_URL") else {
        eprintln!("pg_insert: skipped, SCRU128_PG_URL is not set; run scripts/bench-pg");
        return Ok(());
    };
    let rows = env_number("SCRU128_BENCH_ROWS", 1_000_000);
    let rounds = env_number("SCRU128_BENCH_ROUNDS", 3);
    let mut db = Client::connect(&url, NoTls)?;
    let pgstattuple = db
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        .is_ok();
    let version: String = db.query_one("SHOW server_version", &[])?.get(0);
    let settings: Vec<String> = db
        .query(
            "SELECT name || '=' || current_setting(name) FROM pg_settings
             WHERE name IN ('shared_buffers', 'fsync', 'synchronous_commit', 'full_page_writes', 'max_wal_size')
             ORDER BY name",
            &[],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    println!(
        "PostgreSQL {version} ({}); {rows} rows per run, COPY BINARY of {BATCH} rows per statement, {rounds} rounds",
        settings.join(", ")
    );

    let keys = [Key::Scru128, Key::UuidV4, Key::UuidV7];
    let mut results: Vec<(Key, Vec<Run>)> = keys.iter().map(|&k| (k, Vec::new())).collect();
    for round in 0..rounds {
        // rotate the order so that no key type always runs first (or last)
        for i in 0..keys.len() {
            let key = keys[(i + round) % keys.len()];
            let run = insert_run(&mut db, key, rows, pgstattuple)?;
            println!(
                "  round {}: {:<22} {:>9.0} rows/s",
                round + 1,
                key.name(),
                rows as f64 / run.elapsed.as_secs_f64()
            );
            results
                .iter_mut()
                .find(|(k, _)| *k == key)
                .unwrap()
                .1
                .push(run);
        }
    }
    db.batch_execute("DROP TABLE IF EXISTS scru128_bench")?;

    println!();
    println!(
        "{:<22} {:>12} {:>10} {:>12} {:>10} {:>10}",
        "key", "rows/s", "pkey MiB", "leaf dens.", "table MiB", "WAL MiB"
    );
    let mib = |bytes: f64| bytes / 1024.0 / 1024.0;
    for (key, runs) in &results {
        let mut rates: Vec<f64> = runs
            .iter()
            .map(|run| rows as f64 / run.elapsed.as_secs_f64())
            .collect();
        rates.sort_by(f64::total_cmp);
        let median = rates[rates.len() / 2];
        let last = runs.last().expect("at least one round");
        let density = last
            .leaf_density
            .map_or_else(|| "-".to_string(), |d| format!("{d:.1} %"));
        println!(
            "{:<22} {:>12.0} {:>10.1} {:>12} {:>10.1} {:>10.1}",
            key.name(),
            median,
            mib(last.index_bytes as f64),
            density,
            mib(last.table_bytes as f64),
            mib(last.wal_bytes),
        );
    }
    Ok(())
}

fn insert_run(
    db: &mut Client,
    key: Key,
    rows: usize,
    pgstattuple: bool,
) -> Result<Run, Box<dyn std::error::Error>> {
    db.batch_execute(
        "DROP TABLE IF EXISTS scru128_bench;
         CREATE TABLE scru128_bench (id uuid PRIMARY KEY, payload int4 NOT NULL);
         CHECKPOINT;",
    )?;
    let ids = key.make(rows);
    let wal_start: String = db
        .query_one("SELECT pg_current_wal_lsn()::text", &[])?
        .get(0);

    let start = Instant::now();
    for (b, batch) in ids.chunks(BATCH).enumerate() {
        let sink = db.copy_in("COPY scru128_bench (id, payload) FROM STDIN (FORMAT binary)")?;
        let mut writer = BinaryCopyInWriter::new(sink, &[Type::UUID, Type::INT4]);
        for (i, id) in batch.iter().enumerate() {
            let payload = i32::try_from(b * BATCH + i)?;
            writer.write(&[id, &payload])?;
        }
        writer.finish()?;
    }
    let elapsed = start.elapsed();

    let row = db.query_one(
        "SELECT pg_relation_size('scru128_bench_pkey'), pg_relation_size('scru128_bench'),
                pg_wal_lsn_diff(pg_current_wal_lsn(), $1::text::pg_lsn)::float8",
        &[&wal_start],
    )?;
    let leaf_density = if pgstattuple {
        Some(
            db.query_one(
                "SELECT avg_leaf_density FROM pgstatindex('scru128_bench_pkey')",
                &[],
            )?
            .get(0),
        )
    } else {
        None
    };
    let count: i64 = db
        .query_one("SELECT count(*) FROM scru128_bench", &[])?
        .get(0);
    assert_eq!(count as usize, rows, "every row must be in the table");
    Ok(Run {
        elapsed,
        index_bytes: row.get(0),
        table_bytes: row.get(1),
        wal_bytes: row.get(2),
        leaf_density,
    })
}
