//! Tables keyed by SCRU128 IDs with sqlx (features `sqlx-sqlite`, `sqlx-postgres`):
//! the same events as the `sqlite` and `postgres` examples, in SQLite (a temporary
//! file) and, when `SCRU128_PG_URL` is set, in PostgreSQL, then the events of the last
//! 15 minutes through the primary key with the library's range bounds.
//!
//! ```sh
//! cargo run --example sqlx --features sqlx-postgres,sqlx-sqlite   # SQLite only
//! scripts/pg-server run cargo run --example sqlx --features sqlx-postgres,sqlx-sqlite
//! ```

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use scru128::{Scru128Generator, Scru128Id};

type Error = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let path = std::env::temp_dir().join(format!("scru128-sqlx-example-{}.db", std::process::id()));
    let result = sqlite(&path).await;
    let _ = std::fs::remove_file(&path);
    if let Err(err) = result {
        eprintln!("sqlx example (SQLite): {err}");
        return ExitCode::FAILURE;
    }
    match std::env::var("SCRU128_PG_URL") {
        Ok(url) => {
            if let Err(err) = postgres(&url).await {
                eprintln!("sqlx example (PostgreSQL): {err}");
                return ExitCode::FAILURE;
            }
        }
        Err(_) => println!("\nPostgreSQL: skipped, SCRU128_PG_URL is not set"),
    }
    ExitCode::SUCCESS
}

/// An hour of events, one every 2 minutes, with IDs made at those times.
fn events(now_ms: u64) -> Result<Vec<(Scru128Id, &'static str, i32)>, Error> {
    let mut generator = Scru128Generator::new();
    let mut rows = Vec::new();
    for (i, minutes_ago) in (0..60u64).rev().step_by(2).enumerate() {
        let id = generator.try_generate_at(now_ms - minutes_ago * 60_000)?;
        rows.push((
            id,
            ["signup", "order", "refund"][i % 3],
            i32::try_from(i * 10)?,
        ));
    }
    Ok(rows)
}

/// The last 15 minutes: every ID made in that span lies between these two.
fn last_15_minutes(now: SystemTime) -> Result<(Scru128Id, Scru128Id), Error> {
    let lo = Scru128Id::try_min_at_system_time(now - Duration::from_secs(15 * 60))?;
    let hi = Scru128Id::try_max_at_system_time(now)?;
    println!("events of the last 15 minutes: WHERE id BETWEEN {lo} AND {hi}");
    Ok((lo, hi))
}

fn print(now_ms: u64, found: &[(Scru128Id, String, i32)], total: i64) {
    for (id, kind, amount) in found {
        let ago = now_ms.saturating_sub(id.unix_ts_ms()) / 60_000;
        println!("  {id}  {ago:>2} min ago  {kind:<6}  {amount:>4}");
    }
    println!("{} of {total} events", found.len());
}

async fn sqlite(path: &std::path::Path) -> Result<(), Error> {
    use sqlx_sqlite::{SqliteConnectOptions, SqlitePool};

    println!("SQLite ({}):", path.display());
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    let pool = SqlitePool::connect_with(options).await?;
    // A 16-byte BLOB key, which SQLite compares with memcmp: ID order.
    sqlx::query(
        "CREATE TABLE event (id BLOB PRIMARY KEY, kind TEXT NOT NULL, amount INTEGER NOT NULL) \
         WITHOUT ROWID",
    )
    .execute(&pool)
    .await?;
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    let mut tx = pool.begin().await?;
    for (id, kind, amount) in events(now_ms)? {
        sqlx::query("INSERT INTO event (id, kind, amount) VALUES (?, ?, ?)")
            .bind(id)
            .bind(kind)
            .bind(amount)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;

    let (lo, hi) = last_15_minutes(now)?;
    let found: Vec<(Scru128Id, String, i32)> =
        sqlx::query_as("SELECT id, kind, amount FROM event WHERE id BETWEEN ? AND ? ORDER BY id")
            .bind(lo)
            .bind(hi)
            .fetch_all(&pool)
            .await?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM event")
        .fetch_one(&pool)
        .await?;
    print(now_ms, &found, total);
    pool.close().await;
    Ok(())
}

async fn postgres(url: &str) -> Result<(), Error> {
    println!("\nPostgreSQL:");
    // One connection, so that the temporary table stays visible.
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(url).await?;
    // `uuid` holds the 16 bytes and compares them byte by byte: ID order.
    sqlx::query(
        "CREATE TEMP TABLE event (id uuid PRIMARY KEY, kind text NOT NULL, amount int NOT NULL)",
    )
    .execute(&mut conn)
    .await?;
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    let rows = events(now_ms)?;
    // All rows in one statement: the IDs as a `uuid[]`, unnested beside the other
    // columns.
    let ids: Vec<Scru128Id> = rows.iter().map(|row| row.0).collect();
    let kinds: Vec<&str> = rows.iter().map(|row| row.1).collect();
    let amounts: Vec<i32> = rows.iter().map(|row| row.2).collect();
    sqlx::query("INSERT INTO event (id, kind, amount) SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[])")
        .bind(&ids)
        .bind(&kinds)
        .bind(&amounts)
        .execute(&mut conn)
        .await?;

    let (lo, hi) = last_15_minutes(now)?;
    let found: Vec<(Scru128Id, String, i32)> =
        sqlx::query_as("SELECT id, kind, amount FROM event WHERE id BETWEEN $1 AND $2 ORDER BY id")
            .bind(lo)
            .bind(hi)
            .fetch_all(&mut conn)
            .await?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM event")
        .fetch_one(&mut conn)
        .await?;
    print(now_ms, &found, total);
    Ok(())
}

fn unix_ms(time: SystemTime) -> u64 {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
