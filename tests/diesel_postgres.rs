//! diesel with PostgreSQL (feature `diesel-postgres`) against a real server:
//! `SCRU128_PG_URL`, which scripts/test sets to a throwaway server it starts, with this
//! repository's extension installed (scripts/test-pg) for the native `scru128` columns.
//! Each test works in temporary tables of its own connection.

mod common;
// Not in common/mod.rs: the other tests (and compare/) have no diesel features.
#[path = "common/diesel_errors.rs"]
mod diesel_errors;

use diesel::connection::SimpleConnection;
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::result::Error;
use diesel::sql_types::{Binary, Integer, Nullable, SingleValue, Text, Uuid};
use diesel_errors::stored_error;
use scru128::diesel::sql_types::Scru128;
use scru128::{Scru128Id, StoredValueError};

diesel::table! {
    use diesel::sql_types::*;
    use scru128::diesel::sql_types::Scru128;

    every_type (id) {
        id -> Uuid,
        native -> Scru128,
        bin -> Binary,
        txt -> Text,
        maybe -> Nullable<Scru128>,
    }
}

diesel::table! {
    by_uuid (id) {
        id -> Uuid,
        at_ms -> BigInt,
    }
}

diesel::table! {
    use diesel::sql_types::*;
    use scru128::diesel::sql_types::Scru128;

    by_native (id) {
        id -> Scru128,
        at_ms -> BigInt,
    }
}

/// A model with an ID in each column type.
#[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone, Copy)]
#[diesel(table_name = every_type, check_for_backend(diesel::pg::Pg))]
struct EveryType {
    id: Scru128Id,
    native: Scru128Id,
    bin: Scru128Id,
    txt: Scru128Id,
    maybe: Option<Scru128Id>,
}

/// A connection to the tests' server; `None` (skipped) without PostgreSQL.
fn connect() -> Option<PgConnection> {
    let url = common::pg_url()?;
    Some(
        PgConnection::establish(&url)
            .unwrap_or_else(|err| panic!("cannot connect to {url}: {err}")),
    )
}

/// A connection with the extension (the native `scru128` type) in its database.
fn connect_native() -> Option<PgConnection> {
    let mut db = connect()?;
    match db.batch_execute(common::CREATE_EXTENSION) {
        Ok(()) => Some(db),
        Err(err) => {
            common::no_extension(&err);
            None
        }
    }
}

/// `SELECT expr`, read as an ID of the SQL type `ST`.
fn select_as<ST>(db: &mut PgConnection, expr: &str) -> QueryResult<Scru128Id>
where
    ST: SingleValue + diesel::expression::TypedExpressionType + 'static,
    diesel::pg::Pg: diesel::sql_types::HasSqlType<ST>,
    Scru128Id: diesel::deserialize::FromSqlRow<ST, diesel::pg::Pg>,
{
    diesel::select(sql::<ST>(expr)).get_result(db)
}

#[test]
fn vectors_min_and_max_round_trip_through_every_column_type() {
    let Some(mut db) = connect_native() else {
        return;
    };
    diesel::sql_query(
        "CREATE TEMP TABLE every_type (id uuid PRIMARY KEY, native scru128 NOT NULL,
         bin bytea NOT NULL, txt text NOT NULL, maybe scru128)",
    )
    .execute(&mut db)
    .unwrap();
    let ids = common::vectors_min_max();
    let rows: Vec<EveryType> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| EveryType {
            id,
            native: id,
            bin: id,
            txt: id,
            maybe: (i % 2 == 0).then_some(id),
        })
        .collect();
    let inserted = diesel::insert_into(every_type::table)
        .values(&rows)
        .execute(&mut db)
        .unwrap();
    assert_eq!(inserted, rows.len());

    let mut expected = rows.clone();
    expected.sort_unstable_by_key(|row| row.id);
    let found: Vec<EveryType> = every_type::table
        .select(EveryType::as_select())
        .order_by(every_type::id)
        .load(&mut db)
        .unwrap();
    assert_eq!(found, expected);

    // what the server holds: the same 128 bits as a uuid and as a scru128, 16 bytes,
    // the canonical text
    let held: Vec<(Scru128Id, String, String, i32, String)> = every_type::table
        .select((
            every_type::id,
            sql::<Text>("id::text"),
            sql::<Text>("native::text"),
            sql::<Integer>("length(bin)"),
            sql::<Text>("txt"),
        ))
        .order_by(every_type::id)
        .load(&mut db)
        .unwrap();
    assert_eq!(held.len(), ids.len());
    for (id, uuid_text, native_text, len, txt) in held {
        assert_eq!(uuid_text, id.encode_uuid().as_str());
        assert_eq!(native_text, id.to_string());
        assert_eq!(len, 16);
        assert_eq!(txt, id.to_string());
    }

    // lookups through each column type, and lists (`= ANY`)
    for &id in &ids {
        let n: i64 = every_type::table
            .filter(every_type::id.eq(id))
            .filter(every_type::native.eq(id))
            .filter(every_type::bin.eq(id))
            .filter(every_type::txt.eq(id))
            .count()
            .get_result(&mut db)
            .unwrap();
        assert_eq!(n, 1, "{id}");
    }
    let some = &ids[..10];
    for query in [
        every_type::table
            .select(every_type::id)
            .filter(every_type::id.eq_any(some))
            .into_boxed(),
        every_type::table
            .select(every_type::id)
            .filter(every_type::native.eq_any(some))
            .into_boxed(),
    ] {
        let mut found: Vec<Scru128Id> = query.load(&mut db).unwrap();
        found.sort_unstable();
        let mut want = some.to_vec();
        want.sort_unstable();
        assert_eq!(found, want);
    }
}

#[test]
fn parameters_have_the_declared_types() {
    let Some(mut db) = connect_native() else {
        return;
    };
    let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap();
    // each SQL type binds as itself: no cast on the server
    let types: (String, String, String, String) = diesel::select((
        sql::<Text>("pg_typeof(").bind::<Uuid, _>(id).sql(")::text"),
        sql::<Text>("pg_typeof(")
            .bind::<Scru128, _>(id)
            .sql(")::text"),
        sql::<Text>("pg_typeof(")
            .bind::<Binary, _>(id)
            .sql(")::text"),
        sql::<Text>("pg_typeof(").bind::<Text, _>(id).sql(")::text"),
    ))
    .get_result(&mut db)
    .unwrap();
    assert_eq!(
        types,
        (
            "uuid".into(),
            "scru128".into(),
            "bytea".into(),
            "text".into()
        )
    );
    // and holds the same value
    let texts: (String, String, String, String) = diesel::select((
        sql::<Text>("").bind::<Uuid, _>(id).sql("::text"),
        sql::<Text>("").bind::<Scru128, _>(id).sql("::text"),
        sql::<Text>("encode(").bind::<Binary, _>(id).sql(", 'hex')"),
        sql::<Text>("").bind::<Text, _>(id).sql("::text"),
    ))
    .get_result(&mut db)
    .unwrap();
    assert_eq!(
        texts,
        (
            "00cc22a9-8f49-faa6-7978-d9d2e2bf2a84".into(),
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".into(),
            "00cc22a98f49faa67978d9d2e2bf2a84".into(),
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".into(),
        )
    );
    // lowercase text reads; NULL reads as None and is an error for a plain ID
    assert_eq!(
        select_as::<Text>(&mut db, "'00pghaj3q9vaj7iu6pqbhbuak4'"),
        Ok(id)
    );
    let none: Option<Scru128Id> = diesel::select(sql::<Nullable<Scru128>>("NULL::scru128"))
        .get_result(&mut db)
        .unwrap();
    assert_eq!(none, None);
    let null = select_as::<Uuid>(&mut db, "NULL::uuid").unwrap_err();
    assert!(
        matches!(&null, Error::DeserializationError(cause)
            if cause.is::<diesel::result::UnexpectedNullError>()),
        "{null:?}"
    );
    // IDs minted by the server, read as native values
    let minted: Vec<Scru128Id> =
        diesel::sql_query("SELECT gen_scru128() AS v FROM generate_series(1, 100)")
            .load::<NativeRow>(&mut db)
            .unwrap()
            .into_iter()
            .map(|row| row.v)
            .collect();
    assert_eq!(minted.len(), 100);
    assert!(minted.windows(2).all(|w| w[0] < w[1]));
    let now = scru128::scru128().unix_ts_ms();
    assert!(
        minted
            .iter()
            .all(|id| id.unix_ts_ms().abs_diff(now) < 60_000)
    );
}

/// Inserts `rows` in batches of 10 000 in one transaction.
fn insert_uuid_rows(db: &mut PgConnection, rows: &[(Scru128Id, i64)]) {
    db.transaction(|db| {
        for batch in rows.chunks(10_000) {
            let values: Vec<_> = batch
                .iter()
                .map(|&(id, ms)| (by_uuid::id.eq(id), by_uuid::at_ms.eq(ms)))
                .collect();
            diesel::insert_into(by_uuid::table)
                .values(&values)
                .execute(db)?;
            let values: Vec<_> = batch
                .iter()
                .map(|&(id, ms)| (by_native::id.eq(id), by_native::at_ms.eq(ms)))
                .collect();
            diesel::insert_into(by_native::table)
                .values(&values)
                .execute(db)?;
        }
        QueryResult::Ok(())
    })
    .unwrap();
}

fn create_keyed_tables(db: &mut PgConnection) {
    db.batch_execute(
        "CREATE TEMP TABLE by_uuid (id uuid PRIMARY KEY, at_ms bigint NOT NULL);
         CREATE TEMP TABLE by_native (id scru128 PRIMARY KEY, at_ms bigint NOT NULL)",
    )
    .unwrap();
}

#[test]
fn order_by_is_the_library_order_for_100k_shuffled_ids() {
    let Some(mut db) = connect_native() else {
        return;
    };
    create_keyed_tables(&mut db);
    let ids = common::shuffled_ids_for_order(100_000, 14);
    let rows: Vec<(Scru128Id, i64)> = ids.iter().zip(0..).map(|(&id, n)| (id, n)).collect();
    insert_uuid_rows(&mut db, &rows);

    let mut expected = ids;
    expected.sort_unstable();
    let by_uuid: Vec<Scru128Id> = by_uuid::table
        .select(by_uuid::id)
        .order_by(by_uuid::id)
        .load(&mut db)
        .unwrap();
    let by_native: Vec<Scru128Id> = by_native::table
        .select(by_native::id)
        .order_by(by_native::id)
        .load(&mut db)
        .unwrap();
    // and through a sort of the values rather than the index
    let sorted: Vec<Scru128Id> = by_native::table
        .select(by_native::id)
        .order_by(sql::<Scru128>("id::text::scru128"))
        .load(&mut db)
        .unwrap();
    for (name, found) in [
        ("uuid", by_uuid),
        ("scru128", by_native),
        ("scru128, sorted", sorted),
    ] {
        common::assert_library_order(name, &found, &expected);
    }
    // comparisons with bound IDs agree too
    let mid = expected[expected.len() / 3];
    let below_uuid: i64 = by_uuid::table
        .filter(by_uuid::id.lt(mid))
        .count()
        .get_result(&mut db)
        .unwrap();
    let above_native: i64 = by_native::table
        .filter(by_native::id.gt(mid))
        .count()
        .get_result(&mut db)
        .unwrap();
    assert_eq!(below_uuid as usize, expected.len() / 3);
    assert_eq!(
        above_native as usize,
        expected.len() - expected.len() / 3 - 1
    );
}

#[test]
fn bounds_query_returns_exactly_the_time_window() {
    let Some(mut db) = connect_native() else {
        return;
    };
    create_keyed_tables(&mut db);
    let timed = common::timed_ids();
    let rows: Vec<(Scru128Id, i64)> = timed.rows.iter().map(|&(id, ms)| (id, ms as i64)).collect();
    insert_uuid_rows(&mut db, &rows);

    let (lo, hi) = timed.bounds();
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4); // 30 full seconds + the 4 edge rows inside
    let from_uuid: Vec<Scru128Id> = by_uuid::table
        .select(by_uuid::id)
        .filter(by_uuid::id.between(lo, hi))
        .order_by(by_uuid::id)
        .load(&mut db)
        .unwrap();
    let from_native: Vec<Scru128Id> = by_native::table
        .select(by_native::id)
        .filter(by_native::id.ge(lo).and(by_native::id.le(hi)))
        .order_by(by_native::id)
        .load(&mut db)
        .unwrap();
    assert_eq!(from_uuid, expected);
    assert_eq!(from_native, expected);
    // the same rows as the stored times say
    let by_time: i64 = by_uuid::table
        .filter(by_uuid::at_ms.between(timed.start as i64, timed.end as i64))
        .count()
        .get_result(&mut db)
        .unwrap();
    assert_eq!(by_time as usize, expected.len());
}

/// `select_as` for one SQL type.
type ReadAs = fn(&mut PgConnection, &str) -> QueryResult<Scru128Id>;

#[test]
fn bad_stored_values_are_typed_errors() {
    let Some(mut db) = connect() else { return };
    let cases: [(&str, ReadAs, usize); 6] = [
        ("'\\x0102'::bytea", select_as::<Binary>, 2),
        ("decode(repeat('ab', 15), 'hex')", select_as::<Binary>, 15),
        ("decode(repeat('ab', 17), 'hex')", select_as::<Binary>, 17),
        ("''::bytea", select_as::<Binary>, 0),
        // diesel trusts the schema: a column declared `Uuid` holding text or an int4
        // reaches the ID as its bytes
        ("'hello'::text", select_as::<Uuid>, 5),
        ("42::int4", select_as::<Uuid>, 4),
    ];
    for (expr, read, length) in cases {
        let err = read(&mut db, expr).unwrap_err();
        assert_eq!(
            stored_error(&err),
            Some(StoredValueError::Length(length)),
            "{expr}: {err}"
        );
    }
    for expr in [
        "'hello'",
        "'00PGHAJ3Q9VAJ7IU6PQBHBUAK!'",
        "'80000000000000000000000000'::varchar",
        "''",
        "'00PGHAJ3Q9VAJ7IU6PQBHBUAK4 '::char(27)",
    ] {
        let err = select_as::<Text>(&mut db, expr).unwrap_err();
        assert!(
            matches!(stored_error(&err), Some(StoredValueError::Text(_))),
            "{expr}: {err}"
        );
    }
    let err = select_as::<Text>(&mut db, "'00PGHAJ3Q9VAJ7IU6PQBHBUAK!'").unwrap_err();
    let Error::DeserializationError(cause) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        std::error::Error::source(&**cause).unwrap().to_string(),
        "stored text is not a SCRU128 ID: invalid digit '!' at position 25: expected 0-9 or A-V in either case"
    );
    // a bad row among good ones fails the load, not the process
    let mixed: QueryResult<Vec<Scru128Id>> = diesel::sql_query(
        "SELECT v FROM (VALUES (decode(repeat('01', 16), 'hex')), ('\\x01'::bytea)) AS t(v)",
    )
    .load::<BinaryRow>(&mut db)
    .map(|rows| rows.into_iter().map(|row| row.v).collect());
    assert_eq!(
        mixed.as_ref().map_err(stored_error),
        Err(Some(StoredValueError::Length(1)))
    );
    // and the connection is still fine
    assert_eq!(
        select_as::<Uuid>(&mut db, "'00cc22a9-8f49-faa6-7978-d9d2e2bf2a84'::uuid"),
        Ok("00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap())
    );
}

#[derive(QueryableByName)]
struct BinaryRow {
    #[diesel(sql_type = Binary)]
    v: Scru128Id,
}

#[derive(QueryableByName)]
struct NativeRow {
    #[diesel(sql_type = Scru128)]
    v: Scru128Id,
}

#[test]
fn native_type_is_found_through_the_search_path() {
    // a database of its own, with the extension in schema ids
    let Some(url) = common::pg_url() else { return };
    let Some(mut admin) = connect() else { return };
    // (one statement per call: neither runs inside the implicit transaction of a batch)
    for statement in [
        "DROP DATABASE IF EXISTS scru128_diesel_schema WITH (FORCE)",
        "CREATE DATABASE scru128_diesel_schema",
    ] {
        admin.batch_execute(statement).unwrap();
    }
    let base = url.rsplit_once('/').unwrap().0;
    let mut db = PgConnection::establish(&format!("{base}/scru128_diesel_schema")).unwrap();
    if let Err(err) = db.batch_execute("CREATE SCHEMA ids; CREATE EXTENSION scru128 SCHEMA ids") {
        common::no_extension(&err);
        return;
    }
    let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap();
    let typed = || {
        diesel::select(
            sql::<Text>("pg_typeof(")
                .bind::<Scru128, _>(id)
                .sql(")::text"),
        )
    };

    // off the path, the type is not found: an error, not a panic
    let err = typed().get_result::<String>(&mut db).unwrap_err();
    assert!(err.to_string().contains("scru128"), "{err}");
    // on the path it is (the same connection: a failed lookup is not cached)
    db.batch_execute("SET search_path = public, ids").unwrap();
    assert_eq!(typed().get_result::<String>(&mut db).unwrap(), "scru128");
    let minted: Scru128Id = diesel::select(sql::<Scru128>("ids.gen_scru128()"))
        .get_result(&mut db)
        .unwrap();
    assert!(minted > id);
    drop(db);
    admin
        .batch_execute("DROP DATABASE scru128_diesel_schema WITH (FORCE)")
        .unwrap();
}
