//! `scru128_series(n)` and `scru128_series_blob(n)` on database files: `INSERT ... SELECT
//! ... FROM scru128_series(100000)` into a keyed table, the IDs strictly increasing and
//! above the thread's earlier IDs, `ORDER BY id` without a sort, the limit itself, a
//! count from a joined table. (The errors are cases of tests/data/functions.txt; a
//! statement stepped by two threads is in tests/python.)

mod common;

use common::{Scratch, open};
use rusqlite::Connection;
use scru128::Scru128Id;

fn ids(conn: &Connection, sql: &str) -> Vec<Scru128Id> {
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |row| {
        let value = row.get_ref(0)?;
        Ok(match value {
            rusqlite::types::ValueRef::Text(text) => {
                std::str::from_utf8(text).unwrap().parse().unwrap()
            }
            rusqlite::types::ValueRef::Blob(bytes) => {
                Scru128Id::from_bytes(bytes.try_into().unwrap())
            }
            other => panic!("{sql}: {other:?}"),
        })
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn one(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |row| row.get(0))
        .unwrap_or_else(|err| panic!("{sql}: {err}"))
}

fn strictly_increasing(ids: &[Scru128Id]) -> bool {
    ids.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn insert_select_from_the_series_into_a_keyed_table() {
    let dir = Scratch::new("series-insert");
    let conn = open(dir.path("series.db"));
    for (key, function, kind) in [
        ("TEXT", "scru128_series", "text"),
        ("BLOB", "scru128_series_blob", "blob"),
    ] {
        conn.execute_batch(&format!(
            "DROP TABLE IF EXISTS t;
             CREATE TABLE t (id {key} PRIMARY KEY, k INTEGER NOT NULL, note TEXT);
             INSERT INTO t (id, k, note) SELECT id, rowid, 'row ' || rowid FROM {function}(100000);"
        ))
        .unwrap();
        assert_eq!(
            one(
                &conn,
                &format!(
                    "SELECT count(*) FROM t WHERE typeof(id) = '{kind}' AND k = rowid \
                     AND note = 'row ' || k"
                )
            ),
            100_000
        );
        let stored = ids(&conn, "SELECT id FROM t ORDER BY rowid");
        assert_eq!(stored.len(), 100_000);
        assert!(strictly_increasing(&stored), "{function}");
    }
    println!("series: 100 000 rows by INSERT ... SELECT from each function, increasing");
}

#[test]
fn the_series_follows_the_threads_earlier_ids_and_precedes_its_later_ones() {
    let conn = open(":memory:");
    let mut all = Vec::new();
    for _ in 0..200 {
        all.extend(ids(&conn, "SELECT scru128()"));
        all.extend(ids(&conn, "SELECT id FROM scru128_series(100)"));
        all.extend(ids(&conn, "SELECT scru128_blob()"));
        all.extend(ids(&conn, "SELECT id FROM scru128_series_blob(50)"));
    }
    assert_eq!(all.len(), 200 * 152);
    assert!(strictly_increasing(&all));
    println!("series: one thread's scru128(), series and scru128_blob() calls in turn, increasing");
}

#[test]
fn order_by_id_needs_no_sort() {
    let conn = open(":memory:");
    for function in ["scru128_series", "scru128_series_blob"] {
        let plan: Vec<String> = conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT id FROM {function}(10) ORDER BY id"
            ))
            .unwrap()
            .query_map([], |row| row.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(plan, [format!("SCAN {function} VIRTUAL TABLE INDEX 1:")]);
        // The control: a descending order is sorted.
        let plan: Vec<String> = conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT id FROM {function}(10) ORDER BY id DESC"
            ))
            .unwrap()
            .query_map([], |row| row.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            plan.iter().any(|line| line.contains("TEMP B-TREE")),
            "{plan:?}"
        );
        let ordered = ids(
            &conn,
            &format!("SELECT id FROM {function}(1000) ORDER BY id"),
        );
        assert_eq!(ordered.len(), 1000);
        assert!(strictly_increasing(&ordered));
    }
}

#[test]
fn the_limit_itself_and_a_count_from_a_joined_table() {
    let conn = open(":memory:");
    assert_eq!(
        one(&conn, "SELECT count(*) FROM scru128_series_blob(10000000)"),
        10_000_000
    );
    conn.execute_batch(
        "CREATE TABLE batch (b INTEGER PRIMARY KEY, size INTEGER);
         INSERT INTO batch VALUES (1, 3), (2, 0), (3, 5), (4, NULL);",
    )
    .unwrap();
    let mut stmt = conn
        .prepare("SELECT b, count(id) FROM batch, scru128_series(batch.size) GROUP BY b")
        .unwrap();
    let counts: Vec<(i64, i64)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(counts, [(1, 3), (3, 5)]);
}

/// Innocuous, like the functions: a view and a trigger that use the series work under
/// `PRAGMA trusted_schema=OFF` (without `SQLITE_VTAB_INNOCUOUS` SQLite refuses them:
/// "unsafe use of virtual table").
#[test]
fn in_a_view_and_a_trigger_with_trusted_schema_off() {
    let dir = Scratch::new("series-untrusted");
    let db = dir.path("untrusted.db");
    open(&db)
        .execute_batch(
            "CREATE TABLE batch (b INTEGER PRIMARY KEY, size INTEGER NOT NULL);
             CREATE TABLE item (id BLOB PRIMARY KEY, b INTEGER NOT NULL) WITHOUT ROWID;
             CREATE TRIGGER fill AFTER INSERT ON batch BEGIN
                 INSERT INTO item (id, b) SELECT id, new.b FROM scru128_series_blob(new.size);
             END;
             CREATE VIEW three AS SELECT id FROM scru128_series(3);",
        )
        .unwrap();
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA trusted_schema = OFF").unwrap();
    common::load(&conn).unwrap();
    conn.execute_batch("INSERT INTO batch VALUES (1, 40), (2, 2)")
        .unwrap();
    assert_eq!(one(&conn, "SELECT count(*) FROM item WHERE b = 1"), 40);
    assert_eq!(one(&conn, "SELECT count(*) FROM item"), 42);
    assert_eq!(one(&conn, "SELECT count(DISTINCT id) FROM three"), 3);
}
