//! sqlx `Type`/`Encode`/`Decode` for PostgreSQL (feature `sqlx-postgres`) against a
//! real server: `SCRU128_PG_URL`, which scripts/test sets to a throwaway server it
//! starts. Each test works in temporary tables of its own connection.

mod common;

use scru128::{Scru128Id, StoredValueError};
use sqlx::{Column, Connection, PgConnection, Row};

/// A connection to the tests' server; `None` (skipped) without PostgreSQL.
async fn connect() -> Option<PgConnection> {
    let url = common::pg_url()?;
    Some(
        PgConnection::connect(&url)
            .await
            .unwrap_or_else(|err| panic!("cannot connect to {url}: {err}")),
    )
}

/// The `StoredValueError` inside a decode error.
fn stored_error(err: &sqlx::Error) -> Option<StoredValueError> {
    match err {
        sqlx::Error::ColumnDecode { source, .. } => source.downcast_ref().cloned(),
        _ => None,
    }
}

#[tokio::test]
async fn edge_ids_round_trip_through_uuid_bytea_and_text_columns() {
    let Some(mut db) = connect().await else {
        return;
    };
    sqlx::query("CREATE TEMP TABLE t (id uuid PRIMARY KEY, b bytea NOT NULL, t text NOT NULL)")
        .execute(&mut db)
        .await
        .unwrap();
    let ids = common::edge_ids();
    let mut tx = db.begin().await.unwrap();
    for id in &ids {
        sqlx::query("INSERT INTO t (id, b, t) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(id.as_bytes().as_slice())
            .bind(id.to_string())
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    let rows = sqlx::query("SELECT id, b, t, lower(t), id::text AS hex FROM t ORDER BY id")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(rows.len(), ids.len());
    for (row, &id) in rows.iter().zip(&ids) {
        for column in 0..4 {
            assert_eq!(row.get::<Scru128Id, _>(column), id, "column {column}");
        }
        assert_eq!(
            row.get::<String, _>(4).replace('-', ""),
            format!("{:032x}", id.as_u128())
        );
    }
    // lookups by the bound ID
    for &id in ids.iter().step_by(7) {
        let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM t WHERE id = $1")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(n, 1);
    }
}

#[tokio::test]
async fn text_wire_format_of_simple_queries_reads_too() {
    let Some(mut db) = connect().await else {
        return;
    };
    for id in common::edge_ids().into_iter().step_by(13) {
        let hex = format!("{:032x}", id.as_u128());
        // a simple query: the server sends every value in its text format
        let sql = format!(
            "SELECT '{hex}'::uuid, '\\x{hex}'::bytea, '{}'::text, '{}'::varchar",
            id,
            id.encode_lower()
        );
        let row = sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut db)
            .await
            .unwrap();
        for column in 0..4 {
            assert_eq!(row.get::<Scru128Id, _>(column), id, "column {column}");
        }
    }
    let row = sqlx::raw_sql("SELECT '\\x0102'::bytea")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let err = row.try_get::<Scru128Id, _>(0).unwrap_err();
    assert_eq!(
        stored_error(&err),
        Some(StoredValueError::PgTextFormat),
        "{err}"
    );
}

#[tokio::test]
async fn arrays_and_null() {
    let Some(mut db) = connect().await else {
        return;
    };
    let ids = common::edge_ids();
    let back: Vec<Scru128Id> = sqlx::query_scalar("SELECT $1::uuid[]")
        .bind(&ids)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(back, ids);
    let row = sqlx::query("SELECT NULL::uuid, $1")
        .bind(None::<Scru128Id>)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(row.get::<Option<Scru128Id>, _>(0), None);
    assert_eq!(row.get::<Option<Scru128Id>, _>(1), None);
    let err = row.try_get::<Scru128Id, _>(0).unwrap_err();
    assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err}");
}

#[tokio::test]
async fn order_by_uuid_is_the_library_order_for_100k_ids() {
    let Some(mut db) = connect().await else {
        return;
    };
    sqlx::query("CREATE TEMP TABLE t (id uuid PRIMARY KEY)")
        .execute(&mut db)
        .await
        .unwrap();
    let ids = common::shuffled_ids_for_order(100_000, 2);
    let mut tx = db.begin().await.unwrap();
    for batch in ids.chunks(10_000) {
        sqlx::query("INSERT INTO t SELECT unnest($1::uuid[])")
            .bind(batch)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    let mut expected = ids;
    expected.sort_unstable();
    let found: Vec<Scru128Id> = sqlx::query_scalar("SELECT id FROM t ORDER BY id")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(found.len(), expected.len());
    assert!(
        found == expected,
        "the database order differs from the library's"
    );
    let mid = expected[expected.len() / 3];
    let (below,): (i64,) = sqlx::query_as("SELECT count(*) FROM t WHERE id < $1")
        .bind(mid)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(below as usize, expected.len() / 3);
}

#[tokio::test]
async fn time_window_query_returns_exactly_the_rows_of_the_window() {
    let Some(mut db) = connect().await else {
        return;
    };
    sqlx::query("CREATE TEMP TABLE t (id uuid PRIMARY KEY, at_ms bigint NOT NULL)")
        .execute(&mut db)
        .await
        .unwrap();
    let timed = common::timed_ids();
    let ids: Vec<Scru128Id> = timed.rows.iter().map(|row| row.0).collect();
    let times: Vec<i64> = timed.rows.iter().map(|row| row.1 as i64).collect();
    sqlx::query("INSERT INTO t SELECT * FROM unnest($1::uuid[], $2::int8[])")
        .bind(&ids)
        .bind(&times)
        .execute(&mut db)
        .await
        .unwrap();

    let (lo, hi) = timed.bounds();
    let found: Vec<Scru128Id> =
        sqlx::query_scalar("SELECT id FROM t WHERE id BETWEEN $1 AND $2 ORDER BY id")
            .bind(lo)
            .bind(hi)
            .fetch_all(&mut db)
            .await
            .unwrap();
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4);
    assert_eq!(found, expected);
}

#[tokio::test]
async fn bad_stored_values_are_typed_errors() {
    let Some(mut db) = connect().await else {
        return;
    };
    let row = sqlx::query(
        "SELECT '\\x0102'::bytea, decode(repeat('ab', 15), 'hex'), decode(repeat('ab', 17), 'hex'),
                'hello'::text, '00PGHAJ3Q9VAJ7IU6PQBHBUAK!'::text, '80000000000000000000000000'::varchar,
                42::int4, now(), ''::text",
    )
    .fetch_one(&mut db)
    .await
    .unwrap();
    for (column, length) in [(0, 2), (1, 15), (2, 17)] {
        let err = row.try_get::<Scru128Id, _>(column).unwrap_err();
        assert_eq!(
            stored_error(&err),
            Some(StoredValueError::Length(length)),
            "{err}"
        );
    }
    for column in [3, 4, 5, 8] {
        let err = row.try_get::<Scru128Id, _>(column).unwrap_err();
        assert!(
            matches!(stored_error(&err), Some(StoredValueError::Text(_))),
            "column {column}: {err}"
        );
    }
    let err = row.try_get::<Scru128Id, _>(4).unwrap_err();
    assert!(
        err.to_string().contains("invalid digit '!' at position 25"),
        "{err}"
    );
    for column in [6, 7] {
        let err = row.try_get::<Scru128Id, _>(column).unwrap_err();
        assert!(
            matches!(err, sqlx::Error::ColumnDecode { .. }) && stored_error(&err).is_none(),
            "column {column}: {err}"
        );
        assert!(err.to_string().contains("mismatched types"), "{err}");
    }
    // binding an ID where the server wants another type is an error, not a panic
    let err = sqlx::query("SELECT $1 + 1")
        .bind(Scru128Id::MAX)
        .execute(&mut db)
        .await
        .unwrap_err();
    assert!(matches!(err, sqlx::Error::Database(_)), "{err}");
    let back: Scru128Id = sqlx::query_scalar("SELECT $1")
        .bind(Scru128Id::MAX)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(back, Scru128Id::MAX);
}

/// A connection with the extension (the native `scru128` type) in its database.
async fn connect_native() -> Option<PgConnection> {
    let mut db = connect().await?;
    match sqlx::raw_sql(common::CREATE_EXTENSION)
        .execute(&mut db)
        .await
    {
        Ok(_) => Some(db),
        Err(err) => {
            common::no_extension(&err);
            None
        }
    }
}

#[tokio::test]
async fn native_scru128_columns_read_in_both_formats_and_take_uuid_parameters() {
    let Some(mut db) = connect_native().await else {
        return;
    };
    sqlx::query("CREATE TEMP TABLE n (id scru128 PRIMARY KEY, k int NOT NULL)")
        .execute(&mut db)
        .await
        .unwrap();
    let ids = common::edge_ids();
    let mut tx = db.begin().await.unwrap();
    for (k, id) in ids.iter().enumerate() {
        // bound as uuid; stored into the scru128 column by the assignment cast
        sqlx::query("INSERT INTO n (id, k) VALUES ($1, $2)")
            .bind(id)
            .bind(k as i32)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    let mut sorted = ids.clone();
    sorted.sort_unstable();
    // binary format (prepared statements)
    let found: Vec<Scru128Id> = sqlx::query_scalar("SELECT id FROM n ORDER BY id")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(found, sorted);
    // text format (a simple query): the 26 digits
    let rows = sqlx::raw_sql("SELECT id FROM n ORDER BY id")
        .fetch_all(&mut db)
        .await
        .unwrap();
    let found: Vec<Scru128Id> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(found, sorted);

    // a uuid parameter compares with the scru128 column, through its index
    for (k, &id) in ids.iter().enumerate().step_by(9) {
        let (found,): (i32,) = sqlx::query_as("SELECT k FROM n WHERE id = $1")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(found as usize, k);
    }
    let (lo, hi) = (sorted[5], sorted[sorted.len() - 5]);
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM n WHERE id BETWEEN $1 AND $2")
        .bind(lo)
        .bind(hi)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(count as usize, sorted.len() - 9);
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM n WHERE id = ANY($1)")
        .bind(&ids[..100])
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(count, 100);
    sqlx::raw_sql("ANALYZE n; SET enable_seqscan = off")
        .execute(&mut db)
        .await
        .unwrap();
    let plan: Vec<String> = sqlx::query_scalar("EXPLAIN (COSTS OFF) SELECT k FROM n WHERE id = $1")
        .bind(ids[3])
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert!(plan.join("\n").contains("n_pkey"), "{plan:?}");

    // IDs minted by the server, read as native values
    let minted: Vec<Scru128Id> =
        sqlx::query_scalar("SELECT gen_scru128() FROM generate_series(1, 100)")
            .fetch_all(&mut db)
            .await
            .unwrap();
    assert!(minted.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test]
async fn native_type_in_a_schema_off_the_search_path_is_recognized() {
    // a database of its own, with the extension in schema ids
    let Some(url) = common::pg_url() else { return };
    let mut admin = PgConnection::connect(&url).await.unwrap();
    for sql in [
        "DROP DATABASE IF EXISTS scru128_sqlx_schema WITH (FORCE)",
        "CREATE DATABASE scru128_sqlx_schema",
    ] {
        sqlx::raw_sql(sql).execute(&mut admin).await.unwrap();
    }
    let base = url.rsplit_once('/').unwrap().0;
    let mut db = PgConnection::connect(&format!("{base}/scru128_sqlx_schema"))
        .await
        .unwrap();
    if let Err(err) = sqlx::raw_sql("CREATE SCHEMA ids; CREATE EXTENSION scru128 SCHEMA ids")
        .execute(&mut db)
        .await
    {
        common::no_extension(&err);
        return;
    }
    let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap();
    let row = sqlx::query("SELECT $1::uuid::ids.scru128, ids.gen_scru128()")
        .bind(id)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(
        sqlx::TypeInfo::name(row.column(0).type_info()),
        "ids.scru128"
    );
    assert_eq!(row.get::<Scru128Id, _>(0), id);
    assert!(row.get::<Scru128Id, _>(1) > id);
    drop(db);
    sqlx::raw_sql("DROP DATABASE scru128_sqlx_schema WITH (FORCE)")
        .execute(&mut admin)
        .await
        .unwrap();
}
