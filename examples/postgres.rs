//! A PostgreSQL table keyed by SCRU128 IDs, with the `postgres` client (feature
//! `postgres`): creates the table, inserts an hour of events and asks for those of
//! the last 15 minutes with the library's range bounds, through the primary key.
//!
//! The connection string comes from `SCRU128_PG_URL`, e.g.
//! `postgres://user:password@127.0.0.1:5432/db`. Against a throwaway server:
//!
//! ```sh
//! scripts/pg-server run cargo run --example postgres --features postgres
//! ```

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use scru128::{Scru128Generator, Scru128Id};

fn main() -> ExitCode {
    let Ok(url) = std::env::var("SCRU128_PG_URL") else {
        eprintln!(
            "postgres example: set SCRU128_PG_URL to a connection string \
             (e.g. postgres://user@127.0.0.1:5432/db), or run it with \
             `scripts/pg-server run cargo run --example postgres --features postgres`"
        );
        return ExitCode::from(2);
    };
    match run(&url) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("postgres example: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut client = postgres::Client::connect(url, postgres::NoTls)?;
    // A temporary table: gone when the connection closes. `uuid` holds the 16 bytes
    // of the ID and compares them byte by byte, so the primary key is in ID order,
    // which is creation-time order.
    client.batch_execute(
        "CREATE TEMP TABLE event (id uuid PRIMARY KEY, kind text NOT NULL, amount int NOT NULL)",
    )?;

    // An hour of events, one every 2 minutes, with IDs made at those times (as if
    // each had been inserted when it happened).
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    let mut generator = Scru128Generator::new();
    let mut tx = client.transaction()?;
    let insert = tx.prepare("INSERT INTO event (id, kind, amount) VALUES ($1, $2, $3)")?;
    for (i, minutes_ago) in (0..60u64).rev().step_by(2).enumerate() {
        let id = generator.try_generate_at(now_ms - minutes_ago * 60_000)?;
        let kind = ["signup", "order", "refund"][i % 3];
        let amount = i32::try_from(i * 10)?;
        tx.execute(&insert, &[&id, &kind, &amount])?;
    }
    tx.commit()?;

    // The last 15 minutes: every ID made in that span lies between these two.
    let lo = Scru128Id::try_min_at_system_time(now - Duration::from_secs(15 * 60))?;
    let hi = Scru128Id::try_max_at_system_time(now)?;
    println!("events of the last 15 minutes: WHERE id BETWEEN {lo} AND {hi}");
    let rows = client.query(
        "SELECT id, kind, amount FROM event WHERE id BETWEEN $1 AND $2 ORDER BY id",
        &[&lo, &hi],
    )?;
    for row in &rows {
        let id: Scru128Id = row.get(0);
        let kind: &str = row.get(1);
        let amount: i32 = row.get(2);
        let ago = (now_ms - id.unix_ts_ms()) / 60_000;
        println!("  {id}  {ago:>2} min ago  {kind:<6}  {amount:>4}");
    }
    let total: i64 = client.query_one("SELECT count(*) FROM event", &[])?.get(0);
    println!("{} of {total} events", rows.len());

    let plan: Vec<String> = client
        .query(
            "EXPLAIN (COSTS OFF) SELECT id FROM event WHERE id BETWEEN $1 AND $2",
            &[&lo, &hi],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    println!("plan:");
    for line in plan {
        println!("  {line}");
    }
    Ok(())
}

fn unix_ms(time: SystemTime) -> u64 {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
