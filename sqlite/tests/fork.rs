//! A parent and forked children insert into one database file at the same time, each
//! with its own connection, keys by `DEFAULT (scru128_blob())`: no key conflict, and each
//! process's IDs strictly increase. The parent makes IDs right before it forks, so the
//! children start where the generator's state was warm (the case fork safety is for).
//!
//! Its own `main` (no test harness): `fork()` in a process with one thread.

mod common;

use std::time::Duration;

use common::{Scratch, open, series};
use rusqlite::Connection;

const CHILDREN: usize = 3;
const ROUNDS: usize = 100;
const ROWS_PER_ROUND: u64 = 1000;
const WARM: u64 = 1000;

/// One process's share: rounds of `ROWS_PER_ROUND` rows in their own transactions, so
/// that the processes take turns.
fn insert_rounds(conn: &Connection, process: i64) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(60))?;
    let mut insert = conn.prepare(&format!(
        "INSERT INTO t (process) {} SELECT ?1 FROM n",
        series(ROWS_PER_ROUND)
    ))?;
    for _ in 0..ROUNDS {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        insert.execute([process])?;
        conn.execute_batch("COMMIT")?;
        // Lets a waiting writer in (the busy handler sleeps, so the last writer would
        // otherwise take the lock again and again).
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

fn main() {
    if !cfg!(unix) {
        println!("skipped: fork() is Unix only");
        return;
    }
    let dir = Scratch::new("fork");
    let db = dir.path("fork.db");
    let conn = open(&db);
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE t (id BLOB PRIMARY KEY DEFAULT (scru128_blob()), process INTEGER NOT NULL);
         INSERT INTO t (process) {} SELECT 0 FROM n;",
        series(WARM)
    ))
    .unwrap();

    let mut children = Vec::new();
    for child in 1..=CHILDREN {
        // SAFETY: the process has one thread (no test harness); the child opens its own
        // connection, never uses the parent's, and leaves with _exit (no destructors of
        // the parent's objects run).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let result = std::panic::catch_unwind(|| {
                let conn = open(&db);
                insert_rounds(&conn, child as i64)
            });
            let code = match result {
                Ok(Ok(())) => 0,
                Ok(Err(err)) => {
                    eprintln!("child {child}: {err}");
                    1
                }
                Err(_) => 2,
            };
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(code) };
        }
        children.push(pid);
    }
    insert_rounds(&conn, 0).unwrap();
    for pid in children {
        let mut status = 0;
        // SAFETY: waits for a child of this process.
        let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        assert_eq!(waited, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child {pid} failed (status {status})"
        );
    }

    let total: i64 = conn
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    let expected = WARM + (CHILDREN as u64 + 1) * ROUNDS as u64 * ROWS_PER_ROUND;
    assert_eq!(total, expected as i64);
    let mut stmt = conn
        .prepare("SELECT process, id FROM t ORDER BY rowid")
        .unwrap();
    let rows = stmt
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)? as usize, row.get::<_, Vec<u8>>(1)?))
        })
        .unwrap();
    let mut last: Vec<Option<Vec<u8>>> = vec![None; CHILDREN + 1];
    let mut switches = 0;
    let mut previous = None;
    for row in rows {
        let (process, id) = row.unwrap();
        if let Some(last) = &last[process] {
            assert!(&id > last, "process {process}: IDs out of order");
        }
        last[process] = Some(id);
        switches += usize::from(previous.is_some_and(|p| p != process));
        previous = Some(process);
    }
    println!(
        "fork: {total} rows from a parent and {CHILDREN} forked children, no conflict; \
         the writers took turns {switches} times"
    );
    println!("test result: ok. 1 passed");
}
