//! Four threads, each with its own connection to one database file, make 250 000 IDs
//! each into one table: no key conflict, each thread's IDs strictly increase, and no two
//! IDs share `(timestamp, counter)` (the process-wide generator is shared by every
//! connection).

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::{Scratch, open, series};

const THREADS: usize = 4;
const PER_THREAD: usize = 250_000;
/// IDs per round: half made by `SELECT scru128()` outside any transaction (so the
/// threads generate at the same time), half by the column's DEFAULT.
const ROUND: usize = 1000;

#[test]
fn four_threads_with_a_connection_each() {
    let dir = Scratch::new("threads");
    let db = dir.path("threads.db");
    open(&db)
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE t (id TEXT PRIMARY KEY DEFAULT (scru128()), thread INTEGER NOT NULL);",
        )
        .unwrap();

    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let db = &db;
            scope.spawn(move || {
                let conn = open(db);
                conn.busy_timeout(Duration::from_secs(60)).unwrap();
                let mut generate = conn
                    .prepare(&format!(
                        "{} SELECT scru128() FROM n",
                        series((ROUND / 2) as u64)
                    ))
                    .unwrap();
                let mut given = conn
                    .prepare("INSERT INTO t (id, thread) VALUES (?1, ?2)")
                    .unwrap();
                let mut by_default = conn.prepare("INSERT INTO t (thread) VALUES (?1)").unwrap();
                for _ in 0..PER_THREAD / ROUND {
                    let ids: Vec<String> = generate
                        .query_map([], |row| row.get(0))
                        .unwrap()
                        .map(Result::unwrap)
                        .collect();
                    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
                    for id in &ids {
                        given.execute((id, thread as i64)).unwrap();
                    }
                    for _ in 0..ROUND / 2 {
                        by_default.execute([thread as i64]).unwrap();
                    }
                    conn.execute_batch("COMMIT").unwrap();
                }
            });
        }
    });

    let conn = open(&db);
    let mut stmt = conn
        .prepare("SELECT thread, id FROM t ORDER BY rowid")
        .unwrap();
    let rows = stmt
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)? as usize, row.get::<_, String>(1)?))
        })
        .unwrap();
    let mut last: Vec<Option<scru128::Scru128Id>> = vec![None; THREADS];
    let mut count = vec![0; THREADS];
    let mut slots = HashSet::with_capacity(THREADS * PER_THREAD);
    let mut switches = 0;
    let mut previous_thread = None;
    for row in rows {
        let (thread, text) = row.unwrap();
        let id: scru128::Scru128Id = text.parse().unwrap();
        if let Some(last) = last[thread] {
            assert!(id > last, "thread {thread}: {id} after {last}");
        }
        last[thread] = Some(id);
        count[thread] += 1;
        assert!(
            slots.insert((id.timestamp(), id.counter())),
            "(timestamp, counter) of {id} repeats"
        );
        switches += usize::from(previous_thread.is_some_and(|p| p != thread));
        previous_thread = Some(thread);
    }
    assert_eq!(count, vec![PER_THREAD; THREADS]);
    println!(
        "{} IDs from {THREADS} threads, no conflict; the writers took turns {switches} times",
        THREADS * PER_THREAD
    );
}
