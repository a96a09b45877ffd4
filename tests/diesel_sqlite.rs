//! diesel with SQLite (feature `diesel-sqlite`) in real database files (temporary,
//! removed afterwards), on the system's libsqlite3.

mod common;
// Not in common/mod.rs: the other tests (and compare/) have no diesel features.
#[path = "common/diesel_errors.rs"]
mod diesel_errors;

use common::TempDb;
use diesel::connection::SimpleConnection;
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::result::{Error, UnexpectedNullError};
use diesel::sql_types::{BigInt, Binary, Text};
use diesel_errors::stored_error;
use scru128::{Scru128Id, StoredValueError};

diesel::table! {
    item (id) {
        id -> Binary,
        txt -> Text,
        maybe -> Nullable<Binary>,
    }
}

diesel::table! {
    keyed (id) {
        id -> Binary,
        txt -> Text,
        n -> BigInt,
    }
}

// Values of every storage class in one column.
diesel::table! {
    stored (k) {
        k -> BigInt,
        v -> Nullable<Binary>,
    }
}

/// A model with IDs as a `BLOB`, as text and as an optional `BLOB`.
#[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone, Copy)]
#[diesel(table_name = item, check_for_backend(diesel::sqlite::Sqlite))]
struct Item {
    id: Scru128Id,
    txt: Scru128Id,
    maybe: Option<Scru128Id>,
}

fn open(file: &TempDb) -> SqliteConnection {
    let path = file.0.to_str().expect("a UTF-8 temporary path");
    SqliteConnection::establish(path).unwrap_or_else(|err| panic!("cannot open {path}: {err}"))
}

#[test]
fn vectors_min_and_max_round_trip_as_blob_and_text() {
    let file = TempDb::new("diesel-vectors");
    let mut db = open(&file);
    db.batch_execute(
        "CREATE TABLE item (id BLOB PRIMARY KEY, txt TEXT NOT NULL, maybe BLOB) WITHOUT ROWID",
    )
    .unwrap();
    let ids = common::vectors_min_max();
    let rows: Vec<Item> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| Item {
            id,
            txt: id,
            maybe: (i % 2 == 0).then_some(id),
        })
        .collect();
    let inserted = diesel::insert_into(item::table)
        .values(&rows)
        .execute(&mut db)
        .unwrap();
    assert_eq!(inserted, rows.len());

    let found: Vec<Item> = item::table
        .select(Item::as_select())
        .order_by(item::id)
        .load(&mut db)
        .unwrap();
    assert_eq!(found, rows);

    // what the file holds: 16-byte BLOBs of the big-endian bytes, the canonical text
    let held: Vec<(String, i64, String, String)> = item::table
        .select((
            sql::<Text>("typeof(id)"),
            sql::<BigInt>("length(id)"),
            sql::<Text>("hex(id)"),
            sql::<Text>("txt"),
        ))
        .order_by(item::id)
        .load(&mut db)
        .unwrap();
    for ((kind, len, hex, txt), id) in held.into_iter().zip(&ids) {
        assert_eq!((kind.as_str(), len), ("blob", 16));
        assert_eq!(hex, format!("{:032X}", id.as_u128()));
        assert_eq!(txt, id.to_string());
    }

    // lookups by each column, and lists
    for &id in &ids {
        let n: i64 = item::table
            .filter(item::id.eq(id))
            .filter(item::txt.eq(id))
            .count()
            .get_result(&mut db)
            .unwrap();
        assert_eq!(n, 1, "{id}");
    }
    let some = &ids[3..13];
    let found: Vec<Scru128Id> = item::table
        .select(item::txt)
        .filter(item::id.eq_any(some))
        .order_by(item::id)
        .load(&mut db)
        .unwrap();
    assert_eq!(found, some);
}

/// Inserts `(id, n)` rows, the ID as a BLOB and as text, in one transaction.
fn insert_keyed(db: &mut SqliteConnection, rows: &[(Scru128Id, i64)]) {
    db.transaction(|db| {
        for batch in rows.chunks(5_000) {
            let values: Vec<_> = batch
                .iter()
                .map(|&(id, n)| (keyed::id.eq(id), keyed::txt.eq(id), keyed::n.eq(n)))
                .collect();
            diesel::insert_into(keyed::table)
                .values(&values)
                .execute(db)?;
        }
        QueryResult::Ok(())
    })
    .unwrap();
}

fn create_keyed(db: &mut SqliteConnection) {
    db.batch_execute(
        "CREATE TABLE keyed (id BLOB PRIMARY KEY, txt TEXT NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID",
    )
    .unwrap();
}

#[test]
fn order_by_is_the_library_order_for_100k_shuffled_ids() {
    let file = TempDb::new("diesel-order");
    let mut db = open(&file);
    create_keyed(&mut db);
    let ids = common::shuffled_ids_for_order(100_000, 15);
    let rows: Vec<(Scru128Id, i64)> = ids.iter().zip(0..).map(|(&id, n)| (id, n)).collect();
    insert_keyed(&mut db, &rows);

    let mut expected = ids;
    expected.sort_unstable();
    let by_key: Vec<Scru128Id> = keyed::table
        .select(keyed::id)
        .order_by(keyed::id)
        .load(&mut db)
        .unwrap();
    // through a sort of the values rather than the primary key
    let by_value: Vec<Scru128Id> = keyed::table
        .select(keyed::id)
        .order_by(sql::<Binary>("id || x''"))
        .load(&mut db)
        .unwrap();
    // the text, in SQLite's default (BINARY) collation
    let by_text: Vec<Scru128Id> = keyed::table
        .select(keyed::txt)
        .order_by(keyed::txt)
        .load(&mut db)
        .unwrap();
    for (name, found) in [("BLOB key", by_key), ("BLOB", by_value), ("TEXT", by_text)] {
        common::assert_library_order(name, &found, &expected);
    }
    let mid = expected[expected.len() / 3];
    let below: i64 = keyed::table
        .filter(keyed::id.lt(mid))
        .count()
        .get_result(&mut db)
        .unwrap();
    assert_eq!(below as usize, expected.len() / 3);
}

#[test]
fn bounds_query_returns_exactly_the_time_window() {
    let file = TempDb::new("diesel-window");
    let mut db = open(&file);
    create_keyed(&mut db);
    let timed = common::timed_ids();
    let rows: Vec<(Scru128Id, i64)> = timed.rows.iter().map(|&(id, ms)| (id, ms as i64)).collect();
    insert_keyed(&mut db, &rows);

    let (lo, hi) = timed.bounds();
    let window = keyed::table
        .select(keyed::id)
        .filter(keyed::id.between(lo, hi))
        .order_by(keyed::id);
    let found: Vec<Scru128Id> = window.load(&mut db).unwrap();
    let expected = timed.expected();
    assert_eq!(expected.len(), 30 * 20 + 4); // 30 full seconds + the 4 edge rows inside
    assert_eq!(found, expected);
    let by_time: i64 = keyed::table
        .filter(keyed::n.between(timed.start as i64, timed.end as i64))
        .count()
        .get_result(&mut db)
        .unwrap();
    assert_eq!(by_time as usize, found.len());
    // answered from the primary key
    let plan: Vec<PlanRow> =
        diesel::sql_query("EXPLAIN QUERY PLAN SELECT id FROM keyed WHERE id BETWEEN ? AND ?")
            .bind::<Binary, _>(lo)
            .bind::<Binary, _>(hi)
            .load(&mut db)
            .unwrap();
    assert!(
        plan.iter().any(|row| row.detail.contains("PRIMARY KEY")),
        "{:?}",
        plan.iter().map(|row| &row.detail).collect::<Vec<_>>()
    );
}

#[derive(QueryableByName)]
struct PlanRow {
    #[diesel(sql_type = Text)]
    detail: String,
}

#[test]
fn bad_stored_values_are_typed_errors() {
    let file = TempDb::new("diesel-bad");
    let mut db = open(&file);
    // an SQLite column takes a value of any storage class, whatever it was declared as
    db.batch_execute(
        "CREATE TABLE stored (k INTEGER PRIMARY KEY, v BLOB);
         INSERT INTO stored (k, v) VALUES
            (1, x'0102'), (2, zeroblob(15)), (3, zeroblob(17)), (4, x''),
            (5, 'hello'), (6, '00PGHAJ3Q9VAJ7IU6PQBHBUAK!'), (7, '80000000000000000000000000'), (8, ''),
            (9, 42), (10, 1.5), (11, NULL),
            (12, '00pghaj3q9vaj7iu6pqbhbuak4'), (13, x'00cc22a98f49faa67978d9d2e2bf2a84');",
    )
    .unwrap();
    let id: Scru128Id = "00PGHAJ3Q9VAJ7IU6PQBHBUAK4".parse().unwrap();
    // each value read as diesel's `Binary` and as its `Text`: the same answer
    for k in 1..=13 {
        let as_blob = stored::table
            .select(stored::v.assume_not_null())
            .filter(stored::k.eq(k))
            .first::<Scru128Id>(&mut db);
        let as_text = stored::table
            .select(sql::<Text>("v"))
            .filter(stored::k.eq(k))
            .first::<Scru128Id>(&mut db);
        let expected = match k {
            1 => Err(StoredValueError::Length(2)),
            2 => Err(StoredValueError::Length(15)),
            3 => Err(StoredValueError::Length(17)),
            4 => Err(StoredValueError::Length(0)),
            5..=8 => Err(StoredValueError::Text(
                Scru128Id::try_from_str(
                    [
                        "hello",
                        "00PGHAJ3Q9VAJ7IU6PQBHBUAK!",
                        "80000000000000000000000000",
                        "",
                    ][k as usize - 5],
                )
                .unwrap_err(),
            )),
            9 => Err(StoredValueError::NotBinaryOrText("INTEGER")),
            10 => Err(StoredValueError::NotBinaryOrText("REAL")),
            11 => {
                for read in [&as_blob, &as_text] {
                    assert!(
                        matches!(read, Err(Error::DeserializationError(cause)) if cause.is::<UnexpectedNullError>()),
                        "{read:?}"
                    );
                }
                continue;
            }
            _ => Ok(id),
        };
        for (column, read) in [("Binary", as_blob), ("Text", as_text)] {
            assert_eq!(
                read.as_ref().copied().map_err(stored_error),
                expected.clone().map_err(Some),
                "row {k}, column {column}: {read:?}"
            );
        }
    }
    // NULL is None for an Option
    let maybe: Option<Scru128Id> = stored::table
        .select(stored::v)
        .filter(stored::k.eq(11))
        .first(&mut db)
        .unwrap();
    assert_eq!(maybe, None);
    // the messages say what and where
    let err = stored::table
        .select(stored::v.assume_not_null())
        .filter(stored::k.eq(9))
        .first::<Scru128Id>(&mut db)
        .unwrap_err();
    let Error::DeserializationError(cause) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        std::error::Error::source(&**cause).unwrap().to_string(),
        "a stored SCRU128 ID must be a BLOB or TEXT value, found INTEGER"
    );
    // a bad row among good ones fails the load, and the connection goes on
    let all = stored::table
        .select(stored::v)
        .order_by(stored::k.desc())
        .load::<Option<Scru128Id>>(&mut db);
    assert!(stored_error(&all.unwrap_err()).is_some());
    let good: Scru128Id = stored::table
        .select(stored::v.assume_not_null())
        .filter(stored::k.eq(13))
        .first(&mut db)
        .unwrap();
    assert_eq!(good, id);
}
