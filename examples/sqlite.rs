//! An SQLite table keyed by SCRU128 IDs, with rusqlite (feature `rusqlite`): creates
//! the table, inserts an hour of events and asks for those of the last 15 minutes with
//! the library's range bounds, through the primary key.
//!
//! ```sh
//! cargo run --example sqlite --features rusqlite            # a temporary file
//! cargo run --example sqlite --features rusqlite -- app.db  # a file of yours
//! ```

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, params};
use scru128::{Scru128Generator, Scru128Id};

fn main() -> ExitCode {
    let (path, temporary) = match std::env::args_os().nth(1) {
        Some(path) => (std::path::PathBuf::from(path), false),
        None => (
            std::env::temp_dir().join(format!("scru128-example-{}.db", std::process::id())),
            true,
        ),
    };
    let result = run(&path);
    if temporary {
        let _ = std::fs::remove_file(&path);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("sqlite example: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut db = Connection::open(path)?;
    // A 16-byte BLOB key: SQLite compares BLOBs with memcmp, so the primary key is in
    // ID order, which is creation-time order. WITHOUT ROWID keeps the rows in that
    // B-tree itself.
    db.execute_batch(
        "CREATE TABLE IF NOT EXISTS event (
             id BLOB PRIMARY KEY CHECK (length(id) = 16),
             kind TEXT NOT NULL,
             amount INTEGER NOT NULL
         ) WITHOUT ROWID",
    )?;

    // An hour of events, one every 2 minutes, with IDs made at those times.
    let now = SystemTime::now();
    let now_ms = unix_ms(now);
    let mut generator = Scru128Generator::new();
    let tx = db.transaction()?;
    {
        let mut insert = tx.prepare("INSERT INTO event (id, kind, amount) VALUES (?1, ?2, ?3)")?;
        for (i, minutes_ago) in (0..60u64).rev().step_by(2).enumerate() {
            let id = generator.try_generate_at(now_ms - minutes_ago * 60_000)?;
            let kind = ["signup", "order", "refund"][i % 3];
            insert.execute(params![id, kind, i64::try_from(i * 10)?])?;
        }
    }
    tx.commit()?;

    // The last 15 minutes: every ID made in that span lies between these two.
    let lo = Scru128Id::try_min_at_system_time(now - Duration::from_secs(15 * 60))?;
    let hi = Scru128Id::try_max_at_system_time(now)?;
    println!("events of the last 15 minutes: WHERE id BETWEEN {lo} AND {hi}");
    let mut query =
        db.prepare("SELECT id, kind, amount FROM event WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
    let rows = query.query_map(params![lo, hi], |row| {
        Ok((
            row.get::<_, Scru128Id>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, i64>(2)?,
        ))
    })?;
    let mut found = 0;
    for row in rows {
        let (id, kind, amount) = row?;
        let ago = now_ms.saturating_sub(id.unix_ts_ms()) / 60_000;
        println!("  {id}  {ago:>2} min ago  {kind:<6}  {amount:>4}");
        found += 1;
    }
    let total: i64 = db.query_row("SELECT count(*) FROM event", [], |row| row.get(0))?;
    println!("{found} of {total} events in {}", path.display());

    let plan: String = db.query_row(
        "EXPLAIN QUERY PLAN SELECT id FROM event WHERE id BETWEEN ?1 AND ?2",
        params![lo, hi],
        |row| row.get(3),
    )?;
    println!("plan: {plan}");
    Ok(())
}

fn unix_ms(time: SystemTime) -> u64 {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
