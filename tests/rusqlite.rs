//! rusqlite `ToSql`/`FromSql` (feature `rusqlite`) in real database files (temporary,
//! removed afterwards), on the system's libsqlite3.

mod common;

use common::TempDb;
use rusqlite::types::{FromSqlError, Type};
use rusqlite::{Connection, Error, params};
use scru128::{Scru128Id, StoredValueError};

fn open(db: &TempDb) -> Connection {
    Connection::open(&db.0).unwrap()
}

/// Inserts `(id, n)` rows in one transaction with a prepared statement.
fn insert_all(db: &mut Connection, table: &str, rows: &[(Scru128Id, i64)]) {
    let tx = db.transaction().unwrap();
    {
        let mut insert = tx
            .prepare(&format!("INSERT INTO {table} (id, n) VALUES (?1, ?2)"))
            .unwrap();
        for (id, n) in rows {
            insert.execute(params![id, n]).unwrap();
        }
    }
    tx.commit().unwrap();
}

fn column(db: &Connection, sql: &str, params: impl rusqlite::Params) -> Vec<Scru128Id> {
    let mut query = db.prepare(sql).unwrap();
    query
        .query_map(params, |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn edge_ids_round_trip_as_blob_and_read_from_text() {
    let file = TempDb::new("rusqlite-edge");
    let mut db = open(&file);
    db.execute_batch("CREATE TABLE t (id BLOB PRIMARY KEY, t TEXT NOT NULL) WITHOUT ROWID")
        .unwrap();
    let ids = common::edge_ids();
    let tx = db.transaction().unwrap();
    for id in &ids {
        tx.execute(
            "INSERT INTO t (id, t) VALUES (?1, ?2)",
            params![id, id.encode().as_str()],
        )
        .unwrap();
    }
    tx.commit().unwrap();

    let mut query = db
        .prepare("SELECT id, t, lower(t), typeof(id), length(id), hex(id) FROM t ORDER BY id")
        .unwrap();
    let mut rows = query.query([]).unwrap();
    let mut expected = ids.iter();
    while let Some(row) = rows.next().unwrap() {
        let id = *expected.next().expect("no more rows than IDs");
        for column in 0..3 {
            assert_eq!(
                row.get::<_, Scru128Id>(column).unwrap(),
                id,
                "column {column}"
            );
        }
        assert_eq!(row.get::<_, String>(3).unwrap(), "blob");
        assert_eq!(row.get::<_, i64>(4).unwrap(), 16);
        assert_eq!(
            row.get::<_, String>(5).unwrap(),
            format!("{:032X}", id.as_u128())
        );
    }
    assert!(expected.next().is_none(), "fewer rows than IDs");
    drop(rows);
    drop(query);
    for &id in ids.iter().step_by(7) {
        let n: i64 = db
            .query_row("SELECT count(*) FROM t WHERE id = ?1", [id], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(n, 1);
    }
    let none: Option<Scru128Id> = db
        .query_row("SELECT ?1", [None::<Scru128Id>], |row| row.get(0))
        .unwrap();
    assert_eq!(none, None);
}

#[test]
fn order_by_blob_is_the_library_order_for_100k_ids() {
    let file = TempDb::new("rusqlite-order");
    let mut db = open(&file);
    db.execute_batch("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        .unwrap();
    let ids = common::shuffled_ids_for_order(100_000, 4);
    let rows: Vec<(Scru128Id, i64)> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| (*id, n as i64))
        .collect();
    insert_all(&mut db, "t", &rows);

    let mut expected = ids;
    expected.sort_unstable();
    for sql in [
        "SELECT id FROM t ORDER BY id",
        "SELECT id FROM t ORDER BY id || x''",
    ] {
        let found = column(&db, sql, []);
        assert_eq!(found.len(), expected.len());
        assert!(
            found == expected,
            "{sql}: the database order differs from the library's"
        );
    }
    let mid = expected[expected.len() / 3];
    let below: i64 = db
        .query_row("SELECT count(*) FROM t WHERE id < ?1", [mid], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(below as usize, expected.len() / 3);
}

#[test]
fn time_window_query_returns_exactly_the_rows_of_the_window() {
    let file = TempDb::new("rusqlite-window");
    let mut db = open(&file);
    db.execute_batch("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        .unwrap();
    let timed = common::timed_ids();
    let rows: Vec<(Scru128Id, i64)> = timed
        .rows
        .iter()
        .map(|(id, ms)| (*id, *ms as i64))
        .collect();
    insert_all(&mut db, "t", &rows);

    let (lo, hi) = timed.bounds();
    let found = column(
        &db,
        "SELECT id FROM t WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
        [lo, hi],
    );
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4);
    assert_eq!(found, expected);
    // answered from the primary key
    let plan: String = db
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id FROM t WHERE id BETWEEN ?1 AND ?2",
            [lo, hi],
            |row| row.get(3),
        )
        .unwrap();
    assert!(plan.contains("PRIMARY KEY"), "{plan}");
}

#[test]
fn bad_stored_values_are_typed_errors() {
    let file = TempDb::new("rusqlite-bad");
    let db = open(&file);
    db.execute_batch(
        "CREATE TABLE t (k INTEGER PRIMARY KEY, id BLOB);
         INSERT INTO t (k, id) VALUES
            (1, x'0102'), (2, zeroblob(15)), (3, zeroblob(17)), (4, x''),
            (5, 'hello'), (6, '00PGHAJ3Q9VAJ7IU6PQBHBUAK!'), (7, '80000000000000000000000000'), (8, ''),
            (9, 42), (10, 1.5), (11, NULL);",
    )
    .unwrap();
    let get = |k: i64| {
        db.query_row("SELECT id FROM t WHERE k = ?1", [k], |row| {
            row.get::<_, Scru128Id>(0)
        })
        .unwrap_err()
    };
    for (k, length) in [(1, 2), (2, 15), (3, 17), (4, 0)] {
        match get(k) {
            Error::FromSqlConversionFailure(0, Type::Blob, cause) => assert!(
                matches!(
                    cause.downcast_ref(),
                    Some(FromSqlError::InvalidBlobSize { expected_size: 16, blob_size }) if *blob_size == length
                ),
                "row {k}: {cause}"
            ),
            other => panic!("row {k}: {other:?}"),
        }
    }
    for k in 5..=8 {
        match get(k) {
            Error::FromSqlConversionFailure(0, Type::Text, cause) => assert!(
                matches!(cause.downcast_ref(), Some(StoredValueError::Text(_))),
                "row {k}: {cause}"
            ),
            other => panic!("row {k}: {other:?}"),
        }
    }
    assert!(
        get(6)
            .to_string()
            .contains("invalid digit '!' at position 25"),
        "{}",
        get(6)
    );
    for (k, ty) in [(9, Type::Integer), (10, Type::Real), (11, Type::Null)] {
        match get(k) {
            Error::InvalidColumnType(0, _, found) => assert_eq!(found, ty, "row {k}"),
            other => panic!("row {k}: {other:?}"),
        }
    }
    let none: Option<Scru128Id> = db
        .query_row("SELECT id FROM t WHERE k = 11", [], |row| row.get(0))
        .unwrap();
    assert_eq!(none, None);
}
