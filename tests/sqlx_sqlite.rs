//! sqlx `Type`/`Encode`/`Decode` for SQLite (feature `sqlx-sqlite`) in real database
//! files (temporary, removed afterwards), on the system's libsqlite3.

mod common;

use common::TempDb;
use scru128::{Scru128Id, StoredValueError};
use sqlx::{QueryBuilder, Row};
use sqlx_sqlite::{Sqlite, SqliteConnectOptions, SqlitePool};

async fn open(db: &TempDb) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(&db.0)
        .create_if_missing(true);
    SqlitePool::connect_with(options).await.unwrap()
}

/// The `StoredValueError` inside a decode error.
fn stored_error(err: &sqlx::Error) -> Option<StoredValueError> {
    match err {
        sqlx::Error::ColumnDecode { source, .. } => source.downcast_ref().cloned(),
        _ => None,
    }
}

/// Inserts `ids` (with their position as `n`) in one transaction, 500 rows per
/// statement.
async fn insert_all(pool: &SqlitePool, table: &str, rows: &[(Scru128Id, i64)]) {
    let mut tx = pool.begin().await.unwrap();
    for batch in rows.chunks(500) {
        let mut insert = QueryBuilder::<Sqlite>::new(format!("INSERT INTO {table} (id, n) "));
        insert.push_values(batch, |mut row, (id, n)| {
            row.push_bind(*id).push_bind(*n);
        });
        insert.build().execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn edge_ids_round_trip_as_blob_and_read_from_text() {
    let file = TempDb::new("sqlx-edge");
    let pool = open(&file).await;
    sqlx::query("CREATE TABLE t (id BLOB PRIMARY KEY, t TEXT NOT NULL) WITHOUT ROWID")
        .execute(&pool)
        .await
        .unwrap();
    let ids = common::edge_ids();
    let mut tx = pool.begin().await.unwrap();
    for id in &ids {
        sqlx::query("INSERT INTO t (id, t) VALUES (?, ?)")
            .bind(id)
            .bind(id.to_string())
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    let rows =
        sqlx::query("SELECT id, t, lower(t), typeof(id), length(id), hex(id) FROM t ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(rows.len(), ids.len());
    for (row, &id) in rows.iter().zip(&ids) {
        for column in 0..3 {
            assert_eq!(row.get::<Scru128Id, _>(column), id, "column {column}");
        }
        // what the file holds: a 16-byte BLOB of the big-endian bytes
        assert_eq!(row.get::<String, _>(3), "blob");
        assert_eq!(row.get::<i64, _>(4), 16);
        assert_eq!(row.get::<String, _>(5), format!("{:032X}", id.as_u128()));
    }
    for &id in ids.iter().step_by(7) {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM t WHERE id = ?")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(n, 1);
    }
    // NULL and Option
    let row = sqlx::query("SELECT NULL, ?")
        .bind(None::<Scru128Id>)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(row.get::<Option<Scru128Id>, _>(0), None);
    assert_eq!(row.get::<Option<Scru128Id>, _>(1), None);
    pool.close().await;
}

#[tokio::test]
async fn order_by_blob_is_the_library_order_for_100k_ids() {
    let file = TempDb::new("sqlx-order");
    let pool = open(&file).await;
    sqlx::query("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        .execute(&pool)
        .await
        .unwrap();
    let ids = common::shuffled_ids_for_order(100_000, 3);
    let rows: Vec<(Scru128Id, i64)> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| (*id, n as i64))
        .collect();
    insert_all(&pool, "t", &rows).await;

    let mut expected = ids;
    expected.sort_unstable();
    // through the primary key and through a sort of the expression
    for sql in [
        "SELECT id FROM t ORDER BY id",
        "SELECT id FROM t ORDER BY id || x''",
    ] {
        let found: Vec<Scru128Id> = sqlx::query_scalar(sql).fetch_all(&pool).await.unwrap();
        assert_eq!(found.len(), expected.len());
        assert!(
            found == expected,
            "{sql}: the database order differs from the library's"
        );
    }
    let mid = expected[expected.len() / 3];
    let below: i64 = sqlx::query_scalar("SELECT count(*) FROM t WHERE id < ?")
        .bind(mid)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(below as usize, expected.len() / 3);
    pool.close().await;
}

#[tokio::test]
async fn time_window_query_returns_exactly_the_rows_of_the_window() {
    let file = TempDb::new("sqlx-window");
    let pool = open(&file).await;
    sqlx::query("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        .execute(&pool)
        .await
        .unwrap();
    let timed = common::timed_ids();
    let rows: Vec<(Scru128Id, i64)> = timed
        .rows
        .iter()
        .map(|(id, ms)| (*id, *ms as i64))
        .collect();
    insert_all(&pool, "t", &rows).await;

    let (lo, hi) = timed.bounds();
    let found: Vec<Scru128Id> =
        sqlx::query_scalar("SELECT id FROM t WHERE id BETWEEN ? AND ? ORDER BY id")
            .bind(lo)
            .bind(hi)
            .fetch_all(&pool)
            .await
            .unwrap();
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4);
    assert_eq!(found, expected);
    let by_time: i64 = sqlx::query_scalar("SELECT count(*) FROM t WHERE n BETWEEN ? AND ?")
        .bind(timed.start as i64)
        .bind(timed.end as i64)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(by_time as usize, found.len());
    pool.close().await;
}

#[tokio::test]
async fn bad_stored_values_are_typed_errors() {
    let file = TempDb::new("sqlx-bad");
    let pool = open(&file).await;
    sqlx::query("CREATE TABLE t (k INTEGER PRIMARY KEY, id BLOB)")
        .execute(&pool)
        .await
        .unwrap();
    // what a careless writer could have stored in the column
    sqlx::query(
        "INSERT INTO t (k, id) VALUES
            (1, x'0102'), (2, zeroblob(15)), (3, zeroblob(17)), (4, x''),
            (5, 'hello'), (6, '00PGHAJ3Q9VAJ7IU6PQBHBUAK!'), (7, '80000000000000000000000000'), (8, ''),
            (9, 42), (10, 1.5), (11, NULL)",
    )
    .execute(&pool)
    .await
    .unwrap();
    let rows = sqlx::query("SELECT id FROM t ORDER BY k")
        .fetch_all(&pool)
        .await
        .unwrap();
    let get = |k: usize| rows[k - 1].try_get::<Scru128Id, _>(0).unwrap_err();
    for (k, length) in [(1, 2), (2, 15), (3, 17), (4, 0)] {
        let err = get(k);
        assert_eq!(
            stored_error(&err),
            Some(StoredValueError::Length(length)),
            "{err}"
        );
    }
    for k in 5..=8 {
        let err = get(k);
        assert!(
            matches!(stored_error(&err), Some(StoredValueError::Text(_))),
            "row {k}: {err}"
        );
    }
    assert!(
        get(6)
            .to_string()
            .contains("invalid digit '!' at position 25")
    );
    for k in 9..=11 {
        let err = get(k);
        assert!(
            matches!(err, sqlx::Error::ColumnDecode { .. }) && stored_error(&err).is_none(),
            "row {k}: {err}"
        );
    }
    assert!(
        get(9).to_string().contains("mismatched types"),
        "{}",
        get(9)
    );
    assert!(
        matches!(&get(11), sqlx::Error::ColumnDecode { source, .. } if source.is::<sqlx::error::UnexpectedNullError>()),
        "{}",
        get(11)
    );
    assert_eq!(rows[10].get::<Option<Scru128Id>, _>(0), None);
    pool.close().await;
}
