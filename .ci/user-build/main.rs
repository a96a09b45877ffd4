//! A user's program of the library with every feature on: scripts/check-user-builds
//! builds it from a scratch project with no lockfile, once with the newest and once
//! with the oldest versions the library's manifest allows, and runs it. Each
//! integration is used as a user's code meets it (a diesel `table!`, rusqlite
//! parameters, the client traits), so that a trait impl that fails to build or to
//! apply for those versions shows here, and each round trip is checked on a real
//! SQLite database in memory or a real encoder. The program's own dependencies take
//! the library's version requirements (the script writes them from `cargo metadata`).

use diesel::prelude::*;
use scru128::Scru128Id;

diesel::table! {
    items (id) {
        id -> Binary,
        code -> Text,
    }
}

diesel::table! {
    pg_items (id) {
        id -> Uuid,
        native -> scru128::diesel::sql_types::Scru128,
    }
}

fn main() {
    let id = scru128::scru128();
    let other = scru128::scru128();
    assert_ne!(id, other);

    // rusqlite: a 16-byte BLOB parameter, read back; the TEXT form read too.
    let db = rusqlite::Connection::open_in_memory().expect("rusqlite: open :memory:");
    db.execute(
        "CREATE TABLE t (id BLOB PRIMARY KEY, code TEXT NOT NULL)",
        [],
    )
    .expect("rusqlite: CREATE TABLE");
    db.execute(
        "INSERT INTO t VALUES (?1, ?2)",
        rusqlite::params![id, id.to_string()],
    )
    .expect("rusqlite: INSERT");
    let (blob, text): (Scru128Id, Scru128Id) = db
        .query_row("SELECT id, code FROM t WHERE id = ?1", [id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .expect("rusqlite: SELECT");
    assert_eq!((blob, text), (id, id), "rusqlite round trip");
    let stored: Vec<u8> = db
        .query_row("SELECT id FROM t", [], |row| row.get(0))
        .expect("rusqlite: SELECT as bytes");
    assert_eq!(stored, id.as_bytes(), "rusqlite stores the 16 bytes");

    // diesel on SQLite: insert, filter by value and by reference, eq_any, load.
    let mut conn = SqliteConnection::establish(":memory:").expect("diesel: open :memory:");
    diesel::sql_query("CREATE TABLE items (id BLOB PRIMARY KEY, code TEXT NOT NULL)")
        .execute(&mut conn)
        .expect("diesel: CREATE TABLE");
    diesel::insert_into(items::table)
        .values(&vec![
            (items::id.eq(id), items::code.eq(id)),
            (items::id.eq(other), items::code.eq(other)),
        ])
        .execute(&mut conn)
        .expect("diesel: INSERT");
    let found: (Scru128Id, Scru128Id) = items::table
        .filter(items::id.eq(&id))
        .first(&mut conn)
        .expect("diesel: SELECT by id");
    assert_eq!(found, (id, id), "diesel round trip (Binary, Text)");
    let by_code: Vec<Scru128Id> = items::table
        .select(items::id)
        .filter(items::code.eq_any([other]))
        .load(&mut conn)
        .expect("diesel: SELECT by code");
    assert_eq!(by_code, [other], "diesel eq_any on Text");
    let none: Option<Scru128Id> = items::table
        .select(items::id)
        .filter(items::id.eq(Scru128Id::MAX))
        .first(&mut conn)
        .optional()
        .expect("diesel: SELECT of no row");
    assert_eq!(none, None);

    // diesel's PostgreSQL backend (no server: the query as diesel writes it, which
    // needs the `ToSql` of `Uuid` and of the native type for the binds).
    let query = diesel::debug_query::<diesel::pg::Pg, _>(
        &pg_items::table.filter(pg_items::id.eq(id).and(pg_items::native.eq(other))),
    )
    .to_string();
    assert!(
        query.contains(&format!("{id:?}")) && query.contains(&format!("{other:?}")),
        "diesel on PostgreSQL: {query}"
    );

    // postgres-types: the binary form of a `uuid` is the 16 bytes, and back.
    {
        use postgres_types::{FromSql, ToSql, Type};
        let mut buf = bytes::BytesMut::new();
        id.to_sql(&Type::UUID, &mut buf)
            .expect("postgres-types: to_sql");
        assert_eq!(
            &buf[..],
            id.as_bytes(),
            "postgres-types writes the 16 bytes"
        );
        let back = Scru128Id::from_sql(&Type::UUID, &buf).expect("postgres-types: from_sql");
        assert_eq!(back, id, "postgres-types round trip");
    }

    // sqlx: the impls for both drivers, and the SQL types they bind.
    sqlx_types::<sqlx_sqlite::Sqlite>();
    sqlx_types::<sqlx_postgres::Postgres>();
    use sqlx_core::type_info::TypeInfo;
    let pg_type = <Scru128Id as sqlx_core::types::Type<sqlx_postgres::Postgres>>::type_info();
    let uuid_oid = sqlx_postgres::types::Oid(2950); // PostgreSQL's `uuid`
    assert!(
        pg_type == sqlx_postgres::PgTypeInfo::with_oid(uuid_oid),
        "sqlx binds a uuid on PostgreSQL"
    );
    let sqlite_type = <Scru128Id as sqlx_core::types::Type<sqlx_sqlite::Sqlite>>::type_info();
    assert_eq!(sqlite_type.name(), "BLOB", "sqlx binds a BLOB on SQLite");

    // uuid: the same 128 bits both ways.
    let u = uuid::Uuid::from(id);
    assert_eq!(u.as_bytes(), id.as_bytes());
    assert_eq!(Scru128Id::from(u), id);

    println!("ok: rusqlite, diesel (SQLite, PostgreSQL), postgres-types, sqlx, uuid with {id}");
}

/// Builds only if the ID is a `Type`, `Encode` and `Decode` of the driver.
fn sqlx_types<DB: sqlx_core::database::Database>()
where
    Scru128Id: sqlx_core::types::Type<DB>
        + for<'q> sqlx_core::encode::Encode<'q, DB>
        + for<'r> sqlx_core::decode::Decode<'r, DB>,
{
}
