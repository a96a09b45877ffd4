//! Tables keyed by SCRU128 IDs with diesel (feature `diesel`): a model with a
//! `Scru128Id` field, an hour of events in SQLite (a temporary file) and, when
//! `SCRU128_PG_URL` is set, in PostgreSQL, then the events of the last 15 minutes
//! through the primary key with the library's range bounds.
//!
//! ```sh
//! cargo run --example diesel --features diesel   # SQLite only
//! scripts/pg-server run cargo run --example diesel --features diesel
//! ```
//!
//! (The example's diesel has its `postgres` and `sqlite` connections on: libpq and
//! libsqlite3. The library's features need neither libpq nor a connection.)

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use scru128::{Scru128Generator, Scru128Id};

type Error = Box<dyn std::error::Error>;

/// PostgreSQL: the ID in a `uuid` (16 bytes, compared byte by byte: ID order). With
/// the extension of pg/ installed, `id -> scru128::diesel::sql_types::Scru128` and a
/// `scru128` column work the same way.
mod pg {
    diesel::table! {
        event (id) {
            id -> Uuid,
            kind -> Text,
            amount -> Integer,
        }
    }
}

/// SQLite: the ID in a 16-byte `BLOB`, which SQLite compares with `memcmp`.
mod sqlite {
    diesel::table! {
        event (id) {
            id -> Binary,
            kind -> Text,
            amount -> Integer,
        }
    }
}

/// The model: a `Scru128Id` field like any other.
#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = pg::event, check_for_backend(diesel::pg::Pg))]
struct Event {
    id: Scru128Id,
    kind: String,
    amount: i32,
}

fn main() -> ExitCode {
    let path =
        std::env::temp_dir().join(format!("scru128-diesel-example-{}.db", std::process::id()));
    let result = in_sqlite(&path);
    let _ = std::fs::remove_file(&path);
    if let Err(err) = result {
        eprintln!("diesel example (SQLite): {err}");
        return ExitCode::FAILURE;
    }
    match std::env::var("SCRU128_PG_URL") {
        Ok(url) => {
            if let Err(err) = in_postgres(&url) {
                eprintln!("diesel example (PostgreSQL): {err}");
                return ExitCode::FAILURE;
            }
        }
        Err(_) => println!("\nPostgreSQL: skipped, SCRU128_PG_URL is not set"),
    }
    ExitCode::SUCCESS
}

/// An hour of events, one every 2 minutes, with IDs made at those times.
fn events(now_ms: u64) -> Result<Vec<Event>, Error> {
    let mut generator = Scru128Generator::new();
    let mut rows = Vec::new();
    for (i, minutes_ago) in (0..60u64).rev().step_by(2).enumerate() {
        rows.push(Event {
            id: generator.try_generate_at(now_ms - minutes_ago * 60_000)?,
            kind: ["signup", "order", "refund"][i % 3].to_owned(),
            amount: i32::try_from(i * 10)?,
        });
    }
    Ok(rows)
}

/// The last 15 minutes: every ID made in that span lies between these two.
fn last_15_minutes(now: SystemTime) -> Result<(Scru128Id, Scru128Id), Error> {
    let lo = Scru128Id::try_min_at_system_time(now - Duration::from_secs(15 * 60))?;
    let hi = Scru128Id::try_max_at_system_time(now)?;
    println!("events of the last 15 minutes: id BETWEEN {lo} AND {hi}");
    Ok((lo, hi))
}

fn print(now_ms: u64, found: &[Event], total: i64) {
    for Event { id, kind, amount } in found {
        let ago = now_ms.saturating_sub(id.unix_ts_ms()) / 60_000;
        println!("  {id}  {ago:>2} min ago  {kind:<6}  {amount:>4}");
    }
    println!("{} of {total} events", found.len());
}

fn in_sqlite(path: &std::path::Path) -> Result<(), Error> {
    use sqlite::event;

    println!("SQLite ({}):", path.display());
    let mut conn = SqliteConnection::establish(path.to_str().ok_or("non-UTF-8 temp path")?)?;
    conn.batch_execute(
        "CREATE TABLE event (id BLOB PRIMARY KEY, kind TEXT NOT NULL, amount INTEGER NOT NULL) \
         WITHOUT ROWID",
    )?;
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    let rows: Vec<_> = events(now_ms)?
        .into_iter()
        .map(|e| {
            (
                event::id.eq(e.id),
                event::kind.eq(e.kind),
                event::amount.eq(e.amount),
            )
        })
        .collect();
    diesel::insert_into(event::table)
        .values(&rows)
        .execute(&mut conn)?;

    let (lo, hi) = last_15_minutes(now)?;
    let found: Vec<Event> = event::table
        .select((event::id, event::kind, event::amount))
        .filter(event::id.between(lo, hi))
        .order_by(event::id)
        .load(&mut conn)?;
    let total: i64 = event::table.count().get_result(&mut conn)?;
    print(now_ms, &found, total);
    Ok(())
}

fn in_postgres(url: &str) -> Result<(), Error> {
    use pg::event;

    println!("\nPostgreSQL:");
    let mut conn = PgConnection::establish(url)?;
    // A temporary table: gone when the connection closes.
    conn.batch_execute(
        "CREATE TEMP TABLE event (id uuid PRIMARY KEY, kind text NOT NULL, amount int NOT NULL)",
    )?;
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    diesel::insert_into(event::table)
        .values(&events(now_ms)?)
        .execute(&mut conn)?;

    let (lo, hi) = last_15_minutes(now)?;
    let found: Vec<Event> = event::table
        .select(Event::as_select())
        .filter(event::id.between(lo, hi))
        .order_by(event::id)
        .load(&mut conn)?;
    let total: i64 = event::table.count().get_result(&mut conn)?;
    print(now_ms, &found, total);
    Ok(())
}

fn unix_ms(time: SystemTime) -> u64 {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
