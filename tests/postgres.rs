//! `ToSql`/`FromSql` of postgres-types (feature `postgres`) against a real PostgreSQL
//! server: `SCRU128_PG_URL`, which scripts/test sets to a throwaway server it starts.
//! Each test works in temporary tables of its own connection.

mod common;

use std::error::Error as _;

use postgres::types::{Type, WrongType};
use postgres::{Client, NoTls};
use scru128::{Scru128Id, StoredValueError};

/// A connection to the tests' server; `None` (skipped) without PostgreSQL.
fn connect() -> Option<Client> {
    let url = common::pg_url()?;
    Some(
        Client::connect(&url, NoTls).unwrap_or_else(|err| panic!("cannot connect to {url}: {err}")),
    )
}

/// The error of a failed `try_get`, as the `StoredValueError` inside it.
fn stored_error(err: &postgres::Error) -> Option<StoredValueError> {
    err.source()?.downcast_ref::<StoredValueError>().cloned()
}

#[test]
fn edge_ids_round_trip_through_uuid_bytea_and_text_columns() {
    let Some(mut db) = connect() else { return };
    db.batch_execute(
        "CREATE TEMP TABLE t (id uuid PRIMARY KEY, b bytea NOT NULL, t text NOT NULL, c char(26) NOT NULL, v varchar(26) NOT NULL)",
    )
    .unwrap();
    let ids = common::edge_ids();
    let insert = db
        .prepare("INSERT INTO t (id, b, t, c, v) VALUES ($1, $2, $3, $4, $5)")
        .unwrap();
    let mut tx = db.transaction().unwrap();
    for id in &ids {
        tx.execute(&insert, &[id, id, id, id, id]).unwrap();
    }
    tx.commit().unwrap();

    let rows = db
        .query(
            "SELECT id, b, t, c, v, id::text AS hex, length(b), t = upper(t) FROM t ORDER BY id",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), ids.len());
    for (row, &id) in rows.iter().zip(&ids) {
        for column in 0..5 {
            assert_eq!(row.get::<_, Scru128Id>(column), id, "column {column}");
        }
        // what the server holds: the same 128 bits as a uuid, 16 bytes, canonical text
        assert_eq!(row.get::<_, String>(5), id.encode_uuid());
        assert_eq!(row.get::<_, i32>(6), 16);
        assert_eq!(row.get::<_, String>(2), id.to_string());
        assert!(row.get::<_, bool>(7));
    }

    // and lookups by each form
    for &id in ids.iter().step_by(7) {
        let row = db
            .query_one(
                "SELECT count(*) FROM t WHERE id = $1 AND b = $2 AND t = $3",
                &[&id, &id, &id],
            )
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), 1);
    }
}

#[test]
fn parameters_and_arrays() {
    let Some(mut db) = connect() else { return };
    let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap();
    // a text parameter gets the canonical text
    let row = db
        .query_one("SELECT $1::text, $2::uuid::text", &[&id, &id])
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "00PGHAJ3Q9VAJ7IU6PQBHBUAK4");
    assert_eq!(
        row.get::<_, String>(1),
        "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84"
    );
    // lowercase text reads
    let row = db
        .query_one("SELECT lower($1::text)::text", &[&id])
        .unwrap();
    assert_eq!(row.get::<_, Scru128Id>(0), id);
    // uuid[] both ways
    let ids = common::edge_ids();
    let row = db.query_one("SELECT $1::uuid[]", &[&ids]).unwrap();
    assert_eq!(row.get::<_, Vec<Scru128Id>>(0), ids);
    // NULL and Option
    let row = db
        .query_one("SELECT NULL::uuid, $1::uuid", &[&None::<Scru128Id>])
        .unwrap();
    assert_eq!(row.get::<_, Option<Scru128Id>>(0), None);
    assert_eq!(row.get::<_, Option<Scru128Id>>(1), None);
    assert!(row.try_get::<_, Scru128Id>(0).is_err());
}

#[test]
fn order_by_uuid_is_the_library_order_for_100k_ids() {
    let Some(mut db) = connect() else { return };
    db.batch_execute("CREATE TEMP TABLE t (id uuid PRIMARY KEY)")
        .unwrap();
    let ids = common::shuffled_ids_for_order(100_000, 1);
    let mut tx = db.transaction().unwrap();
    for batch in ids.chunks(10_000) {
        tx.execute("INSERT INTO t SELECT unnest($1::uuid[])", &[&batch])
            .unwrap();
    }
    tx.commit().unwrap();

    let mut expected = ids;
    expected.sort_unstable();
    // through the primary key index and through a sort
    for sql in [
        "SELECT id FROM t ORDER BY id",
        "SELECT id FROM (SELECT id FROM t OFFSET 0) s ORDER BY id::uuid",
    ] {
        let found: Vec<Scru128Id> = db
            .query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(found.len(), expected.len());
        assert!(
            found == expected,
            "{sql}: the database order differs from the library's"
        );
    }
    // comparisons agree too
    let mid = expected[expected.len() / 3];
    let below: i64 = db
        .query_one("SELECT count(*) FROM t WHERE id < $1", &[&mid])
        .unwrap()
        .get(0);
    assert_eq!(below as usize, expected.len() / 3);
}

#[test]
fn time_window_query_returns_exactly_the_rows_of_the_window() {
    let Some(mut db) = connect() else { return };
    db.batch_execute("CREATE TEMP TABLE t (id uuid PRIMARY KEY, at_ms bigint NOT NULL)")
        .unwrap();
    let timed = common::timed_ids();
    let insert = db.prepare("INSERT INTO t VALUES ($1, $2)").unwrap();
    let mut tx = db.transaction().unwrap();
    for (id, ms) in &timed.rows {
        tx.execute(&insert, &[id, &(*ms as i64)]).unwrap();
    }
    tx.commit().unwrap();

    let (lo, hi) = timed.bounds();
    let found: Vec<Scru128Id> = db
        .query(
            "SELECT id FROM t WHERE id BETWEEN $1 AND $2 ORDER BY id",
            &[&lo, &hi],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4); // 30 full seconds + the 4 edge rows inside
    assert_eq!(found, expected);
    // the same rows as the timestamps say
    let by_time: i64 = db
        .query_one(
            "SELECT count(*) FROM t WHERE at_ms BETWEEN $1 AND $2",
            &[&(timed.start as i64), &(timed.end as i64)],
        )
        .unwrap()
        .get(0);
    assert_eq!(by_time as usize, found.len());
}

#[test]
fn bad_stored_values_are_typed_errors() {
    let Some(mut db) = connect() else { return };
    let row = db
        .query_one(
            "SELECT '\\x0102'::bytea, decode(repeat('ab', 15), 'hex'), decode(repeat('ab', 17), 'hex'),
                    'hello'::text, '00PGHAJ3Q9VAJ7IU6PQBHBUAK!'::text, '80000000000000000000000000'::varchar,
                    42::int4, now(), ''::text",
            &[],
        )
        .unwrap();
    for (column, length) in [(0, 2), (1, 15), (2, 17)] {
        let err = row.try_get::<_, Scru128Id>(column).unwrap_err();
        assert_eq!(
            stored_error(&err),
            Some(StoredValueError::Length(length)),
            "{err}"
        );
    }
    for column in [3, 4, 5, 8] {
        let err = row.try_get::<_, Scru128Id>(column).unwrap_err();
        assert!(
            matches!(stored_error(&err), Some(StoredValueError::Text(_))),
            "column {column}: {err}"
        );
    }
    let err = row.try_get::<_, Scru128Id>(4).unwrap_err();
    let cause = err
        .source()
        .expect("the decode error is the source")
        .to_string();
    assert_eq!(
        cause,
        "stored text is not a SCRU128 ID: invalid digit '!' at position 25: expected 0-9 or A-V in either case"
    );
    for column in [6, 7] {
        let err = row.try_get::<_, Scru128Id>(column).unwrap_err();
        assert!(
            err.source()
                .and_then(|e| e.downcast_ref::<WrongType>())
                .is_some(),
            "column {column}: {err}"
        );
    }
    // binding an ID where the server wants another type is an error, not a panic
    let id = Scru128Id::MAX;
    let err = db.query_one("SELECT $1::int4", &[&id]).unwrap_err();
    assert!(
        err.source()
            .and_then(|e| e.downcast_ref::<WrongType>())
            .is_some(),
        "{err}"
    );
    // and the connection is still fine
    assert!(<Scru128Id as postgres::types::ToSql>::accepts(&Type::UUID));
    let back: Scru128Id = db.query_one("SELECT $1::uuid", &[&id]).unwrap().get(0);
    assert_eq!(back, id);
}

/// A client with the extension (the native `scru128` type) in its database.
/// A connection with the extension in its database; `None` (skipped) without it.
fn connect_native() -> Option<Client> {
    let mut db = connect()?;
    match db.batch_execute(common::CREATE_EXTENSION) {
        Ok(()) => Some(db),
        Err(err) => {
            common::no_extension(&err);
            None
        }
    }
}

#[test]
fn native_scru128_columns_read_and_write_in_binary() {
    let Some(mut db) = connect_native() else {
        return;
    };
    db.batch_execute("CREATE TEMP TABLE n (id scru128 PRIMARY KEY, u uuid NOT NULL)")
        .unwrap();
    // the type the server reports: found by name, its OID is this database's own
    let ty = db.prepare("SELECT id FROM n").unwrap().columns()[0]
        .type_()
        .clone();
    assert_eq!(ty.name(), "scru128");
    assert!(ty.oid() >= 16384, "not a built-in type: {}", ty.oid());
    assert!(<Scru128Id as postgres::types::FromSql>::accepts(&ty));
    assert!(<Scru128Id as postgres::types::ToSql>::accepts(&ty));

    let ids = common::edge_ids();
    let insert = db.prepare("INSERT INTO n VALUES ($1, $2)").unwrap();
    assert_eq!(insert.params()[0].name(), "scru128");
    let mut tx = db.transaction().unwrap();
    for id in &ids {
        tx.execute(&insert, &[id, id]).unwrap();
    }
    tx.commit().unwrap();

    let mut sorted = ids.clone();
    sorted.sort_unstable();
    let rows = db
        .query(
            "SELECT id, id::text AS text, u::scru128 = id AS same FROM n ORDER BY id",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), sorted.len());
    for (row, &id) in rows.iter().zip(&sorted) {
        assert_eq!(row.get::<_, Scru128Id>(0), id);
        assert_eq!(row.get::<_, String>(1), id.to_string());
        assert!(row.get::<_, bool>(2));
    }
    // lookups and ranges with native parameters, arrays both ways
    for &id in ids.iter().step_by(11) {
        let found: Scru128Id = db
            .query_one("SELECT id FROM n WHERE id = $1", &[&id])
            .unwrap()
            .get(0);
        assert_eq!(found, id);
    }
    let (lo, hi) = (sorted[10], sorted[sorted.len() - 10]);
    let count: i64 = db
        .query_one(
            "SELECT count(*) FROM n WHERE id BETWEEN $1 AND $2",
            &[&lo, &hi],
        )
        .unwrap()
        .get(0);
    assert_eq!(count as usize, sorted.len() - 19);
    let back: Vec<Scru128Id> = db
        .query_one(
            "SELECT array_agg(id ORDER BY id) FROM n WHERE id = ANY($1)",
            &[&ids],
        )
        .unwrap()
        .get(0);
    assert_eq!(back, sorted);
    // IDs minted by the server
    let minted: Vec<Scru128Id> = db
        .query("SELECT gen_scru128() FROM generate_series(1, 100)", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(minted.windows(2).all(|w| w[0] < w[1]));
    let now = scru128::scru128().unix_ts_ms();
    assert!(
        minted
            .iter()
            .all(|id| id.unix_ts_ms().abs_diff(now) < 60_000)
    );
}
