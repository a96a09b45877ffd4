//! The extension in a schema, on database files: keys made by `DEFAULT (scru128())` and
//! `DEFAULT (scru128_blob())` (1 000 000 rows each, strictly increasing in insertion
//! order), time-range queries answered by the index, expression indexes, generated
//! columns and CHECK constraints, also under `PRAGMA trusted_schema=OFF`.

mod common;

use common::{Scratch, open, series, shell, shell_ok};
use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;

const ROWS: u64 = 1_000_000;

/// The first millisecond of 2026, Unix ms.
const T2026: i64 = 1_767_225_600_000;

/// Rows whose key (as stored, and as text) is not above the key of the row inserted
/// just before (by rowid: one pass, no sort).
const OUT_OF_ORDER: &str = "SELECT count(*) FROM t AS a JOIN t AS b ON b.rowid = a.rowid + 1 \
     WHERE b.id <= a.id OR scru128_text(b.id) <= scru128_text(a.id)";

fn one(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |row| row.get(0))
        .unwrap_or_else(|err| panic!("{sql}: {err}"))
}

fn keys_in_insertion_order(key: &str, generator: &str) {
    let dir = Scratch::new("default-key");
    let conn = open(dir.path("keys.db"));
    conn.execute_batch(&format!(
        "CREATE TABLE t (id {key} PRIMARY KEY DEFAULT ({generator}), n INTEGER NOT NULL);
         INSERT INTO t (n) {} SELECT x FROM n;",
        series(ROWS)
    ))
    .unwrap();
    let kind = key.to_ascii_lowercase();
    let size = if key == "TEXT" { 26 } else { 16 };
    assert_eq!(
        one(
            &conn,
            &format!(
                "SELECT count(*) FROM t WHERE typeof(id) = '{kind}' AND length(id) = {size} \
                 AND n = rowid"
            )
        ),
        ROWS as i64
    );
    assert_eq!(one(&conn, OUT_OF_ORDER), 0);
}

/// The control: the order check finds keys that are not in insertion order.
#[test]
fn the_order_check_sees_random_keys() {
    let conn = open(":memory:");
    conn.execute_batch(&format!(
        "CREATE TABLE t (id BLOB PRIMARY KEY DEFAULT (randomblob(16)), n INTEGER NOT NULL);
         INSERT INTO t (n) {} SELECT x FROM n;",
        series(1000)
    ))
    .unwrap();
    assert!(one(&conn, OUT_OF_ORDER) > 100);
}

#[test]
fn text_key_by_default_one_million_rows_in_order() {
    keys_in_insertion_order("TEXT", "scru128()");
}

#[test]
fn blob_key_by_default_one_million_rows_in_order() {
    keys_in_insertion_order("BLOB", "scru128_blob()");
}

/// The same two tables through the `sqlite3` shell.
#[test]
fn keys_by_default_through_the_shell() {
    let Some(shell) = shell() else { return };
    let dir = Scratch::new("default-key-shell");
    for (key, generator) in [("TEXT", "scru128()"), ("BLOB", "scru128_blob()")] {
        let db = dir.path(&format!("{key}.db"));
        let out = shell_ok(
            &shell,
            &db,
            &format!(
                "CREATE TABLE t (id {key} PRIMARY KEY DEFAULT ({generator}), n INTEGER NOT NULL);
                 INSERT INTO t (n) {} SELECT x FROM n;
                 SELECT count(*), min(typeof(id)), max(typeof(id)) FROM t;
                 {OUT_OF_ORDER};\n",
                series(ROWS)
            ),
        );
        let kind = key.to_ascii_lowercase();
        assert_eq!(out, format!("{ROWS}|{kind}|{kind}\n0\n"), "{key}");
    }
}

/// An ID at the timestamp `T2026 + (x - 1) * 1000` ms with random lower bits: the first
/// 10 digits of `scru128_min` (the 44-bit timestamp and 6 zero counter bits), then the
/// last 16 digits of a new ID.
const SPREAD_ID: &str =
    "substr(scru128_min(1767225600000 + (x - 1) * 1000), 1, 10) || substr(scru128(), 11)";

fn plan(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    // The plan does not depend on the values: NULL for every parameter.
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    let rows = stmt
        .query_map(rusqlite::params_from_iter(nulls), |row| {
            row.get::<_, String>(3)
        })
        .unwrap();
    rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
}

#[test]
fn time_range_queries_are_answered_by_the_index() {
    let dir = Scratch::new("range");
    let conn = open(dir.path("range.db"));
    conn.execute_batch(&format!(
        "CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT);
         INSERT INTO t (id, note) {} SELECT {SPREAD_ID}, 'row ' || x FROM n;
         CREATE TABLE b (id BLOB PRIMARY KEY, note TEXT) WITHOUT ROWID;
         INSERT INTO b (id, note) SELECT scru128_to_blob(id), note FROM t;
         ANALYZE;",
        series(100_000)
    ))
    .unwrap();

    // Text keys: the bounds are TEXT.
    let text_query = "SELECT count(*), min(note) FROM t \
                      WHERE id BETWEEN scru128_min(?1) AND scru128_max(?2)";
    let detail = plan(&conn, text_query);
    assert!(
        detail.starts_with("SEARCH t USING") && detail.contains("(id>? AND id<?)"),
        "{detail}"
    );
    // Blob keys: the bounds as BLOBs (a TEXT bound never equals a BLOB).
    let blob_query = "SELECT count(*), min(note) FROM b WHERE id BETWEEN \
                      scru128_to_blob(scru128_min(?1)) AND scru128_to_blob(scru128_max(?2))";
    let detail = plan(&conn, blob_query);
    assert!(
        detail.starts_with("SEARCH b USING PRIMARY KEY (id>? AND id<?)"),
        "{detail}"
    );

    // The same answers as a full scan of the timestamps, for text and integer times.
    for (from, to) in [
        ("2026-01-01 00:00:10", "2026-01-01 00:01:09.999"),
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("2026-01-01 10:00", "2026-01-02 10:00"),
        ("2025-12-31", "2026-01-01 00:00:00.001"),
    ] {
        let scan: i64 = conn
            .query_row(
                "SELECT count(*) FROM t WHERE scru128_timestamp_ms(id) \
                 BETWEEN scru128_timestamp_ms(scru128_min(?1)) AND scru128_timestamp_ms(scru128_max(?2))",
                [from, to],
                |row| row.get(0),
            )
            .unwrap();
        for query in [text_query, blob_query] {
            let found: i64 = conn.query_row(query, [from, to], |row| row.get(0)).unwrap();
            assert_eq!(found, scan, "{from} .. {to}: {query}");
        }
    }
    let minute: i64 = conn
        .query_row(text_query, [T2026 + 10_000, T2026 + 69_999], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(minute, 60);
    assert_eq!(one(&conn, "SELECT count(*) FROM t"), 100_000);
}

/// The schema objects that use the extension: a DEFAULT, a CHECK constraint, a
/// generated column (virtual and stored), expression indexes, a partial index, a view
/// and a trigger.
const SCHEMA: &str = "
    CREATE TABLE event (
        id TEXT PRIMARY KEY DEFAULT (scru128()) CHECK (scru128_is_valid(id)),
        raw BLOB NOT NULL DEFAULT (scru128_blob()) CHECK (length(raw) = 16),
        at TEXT GENERATED ALWAYS AS (scru128_datetime(id)) VIRTUAL,
        ms INTEGER GENERATED ALWAYS AS (scru128_timestamp_ms(id)) STORED,
        kind TEXT NOT NULL
    );
    CREATE INDEX event_ms ON event (ms);
    CREATE INDEX event_raw_ms ON event (scru128_timestamp_ms(raw));
    CREATE INDEX event_uuid ON event (scru128_uuid(id));
    CREATE INDEX event_late ON event (kind) WHERE scru128_timestamp_ms(id) > 1767225600000;
    CREATE VIEW event_day AS SELECT substr(scru128_datetime(id), 1, 10) AS day, kind FROM event;
    CREATE TABLE tag (id TEXT CHECK (scru128_is_valid(id)), name TEXT);
    CREATE TABLE audit (event TEXT, raw_text TEXT);
    CREATE TRIGGER event_audit AFTER INSERT ON event BEGIN
        INSERT INTO audit VALUES (new.id, scru128_text(new.raw));
    END;
";

fn use_schema(conn: &Connection) {
    conn.execute_batch(&format!(
        "INSERT INTO event (kind) {} SELECT 'k' || (x % 3) FROM n;",
        series(1000)
    ))
    .unwrap();
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM event WHERE ms = scru128_timestamp_ms(id)"
        ),
        1000
    );
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM event WHERE at = scru128_datetime(id) AND length(at) = 23"
        ),
        1000
    );
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM audit JOIN event ON audit.event = event.id"
        ),
        1000
    );
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM event_day WHERE day >= '2020-01-01'"
        ),
        1000
    );
    conn.execute("INSERT INTO tag SELECT id, kind FROM event", [])
        .unwrap();
    let bad = conn.execute("INSERT INTO tag VALUES ('not an id', 'x')", []);
    let err = bad.unwrap_err().to_string();
    assert!(err.contains("CHECK constraint failed"), "{err}");
    // In `event` the generated columns see the bad key first, and say what is wrong.
    let bad = conn.execute("INSERT INTO event (id, kind) VALUES ('not an id', 'x')", []);
    let err = bad.unwrap_err().to_string();
    assert!(
        err.contains("invalid length: expected 26 characters"),
        "{err}"
    );
    for (query, index) in [
        (
            "SELECT count(*) FROM event WHERE ms BETWEEN 0 AND ?1",
            "event_ms",
        ),
        (
            "SELECT count(*) FROM event WHERE scru128_timestamp_ms(raw) BETWEEN 0 AND ?1",
            "event_raw_ms",
        ),
        (
            "SELECT count(*) FROM event WHERE scru128_uuid(id) = '00000000-0000-0000-0000-000000000000' AND ?1",
            "event_uuid",
        ),
    ] {
        let detail = plan(conn, query);
        assert!(
            detail.starts_with("SEARCH event USING") && detail.contains(&format!("INDEX {index} ")),
            "{query}: {detail}"
        );
        let _: i64 = conn.query_row(query, [i64::MAX], |row| row.get(0)).unwrap();
    }
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn defaults_checks_generated_columns_indexes_views_and_triggers() {
    let dir = Scratch::new("schema");
    let conn = open(dir.path("schema.db"));
    conn.execute_batch(SCHEMA).unwrap();
    use_schema(&conn);
}

#[test]
fn the_schema_works_with_trusted_schema_off() {
    let dir = Scratch::new("untrusted");
    let db = dir.path("schema.db");
    open(&db).execute_batch(SCHEMA).unwrap();

    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA trusted_schema = OFF").unwrap();
    assert_eq!(one(&conn, "PRAGMA trusted_schema"), 0);
    common::load(&conn).unwrap();
    use_schema(&conn);
}

/// The control: a function that is not innocuous fails in the same places, so the test
/// above would notice a missing flag.
#[test]
fn a_function_that_is_not_innocuous_is_refused_there() {
    let dir = Scratch::new("untrusted-control");
    let db = dir.path("control.db");
    let register = |conn: &Connection| {
        conn.create_scalar_function("plain_id", 0, FunctionFlags::SQLITE_UTF8, |_| {
            Ok(String::from("00PGHAJ3Q9VAJ7IU6PQBHBUAK4"))
        })
        .unwrap();
    };
    let conn = open(&db);
    register(&conn);
    conn.execute_batch("CREATE TABLE t (id TEXT PRIMARY KEY DEFAULT (plain_id()), n INTEGER)")
        .unwrap();
    conn.execute("INSERT INTO t (n) VALUES (1)", []).unwrap();
    drop(conn);

    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA trusted_schema = OFF").unwrap();
    register(&conn);
    let err = conn
        .execute("INSERT INTO t (n) VALUES (2)", [])
        .unwrap_err()
        .to_string();
    assert!(err.contains("unsafe use of plain_id()"), "{err}");
}

#[test]
fn flags_as_sqlite_sees_them() {
    const DETERMINISTIC: i64 = 0x800;
    const INNOCUOUS: i64 = 0x20_0000;
    let conn = open(":memory:");
    let mut stmt = conn
        .prepare(
            "SELECT name, flags FROM pragma_function_list WHERE name LIKE 'scru128%' ORDER BY name",
        )
        .unwrap();
    let functions: Vec<(String, i64)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let names: Vec<&str> = functions.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "scru128",
            "scru128_blob",
            "scru128_datetime",
            "scru128_is_valid",
            "scru128_max",
            "scru128_min",
            "scru128_text",
            "scru128_timestamp_ms",
            "scru128_to_blob",
            "scru128_uuid"
        ]
    );
    for (name, flags) in functions {
        assert_ne!(flags & INNOCUOUS, 0, "{name} is innocuous");
        let generates = name == "scru128" || name == "scru128_blob";
        assert_eq!(
            flags & DETERMINISTIC != 0,
            !generates,
            "{name}: deterministic iff it reads"
        );
    }
    // And SQLite acts on them: the generators are kept out of indexes and generated columns.
    for sql in [
        "CREATE TABLE g (a, b GENERATED ALWAYS AS (scru128()))",
        "CREATE TABLE i (a); CREATE INDEX i_a ON i (scru128_blob() || a)",
    ] {
        let err = conn.execute_batch(sql).unwrap_err().to_string();
        assert!(
            err.contains("non-deterministic functions prohibited"),
            "{sql}: {err}"
        );
    }
}

/// The README's key column: only the canonical text (26 digits, upper case) gets in.
/// `scru128_is_valid` would admit lower case, hex, the UUID form and BLOBs, which sort
/// apart from canonical text, so a range query on the key would miss them.
const CANONICAL_KEY: &str =
    "id TEXT PRIMARY KEY NOT NULL DEFAULT (scru128()) CHECK (id = scru128_text(id))";

/// Every other form of one ID, and values that are no ID at all (SQL expressions).
const NOT_CANONICAL: &[&str] = &[
    "lower(?1)",
    "lower(substr(?1, 1, 13)) || substr(?1, 14)",
    "substr(?1, 1, 25) || 'a'",
    "replace(scru128_uuid(?1), '-', '')",
    "upper(replace(scru128_uuid(?1), '-', ''))",
    "scru128_uuid(?1)",
    "upper(scru128_uuid(?1))",
    "scru128_to_blob(?1)",
    "CAST(?1 AS BLOB)",
    "' ' || ?1",
    "?1 || ' '",
    "?1 || char(0)",
    "substr(?1, 1, 25)",
    "NULL",
    "1767225600000",
    "1.5",
    "'7vvvvvvvvvvvvvvvvvvvvvvvvv'",
    "'not an id'",
];

#[test]
fn the_readmes_key_admits_only_canonical_text() {
    let readme = include_str!("../README.md");
    let words: Vec<&str> = readme.split_whitespace().collect();
    assert!(
        words.join(" ").contains(CANONICAL_KEY),
        "README.md's example has the key column {CANONICAL_KEY:?}"
    );
    let dir = Scratch::new("canonical");
    let conn = open(dir.path("canonical.db"));
    conn.execute_batch(&format!(
        "PRAGMA synchronous = OFF;
         CREATE TABLE event ({CANONICAL_KEY}, at INTEGER);
         CREATE TABLE loose (id TEXT PRIMARY KEY CHECK (scru128_is_valid(id)), at INTEGER);"
    ))
    .unwrap();

    // 300 IDs, one a second from 2026-01-01, each offered in a form chosen in turn:
    // canonical, or one of the others.
    let (mut taken, mut refused, mut loose_taken) = (0, 0, 0);
    for k in 0..300_i64 {
        let at = T2026 + k * 1000;
        let id: String = conn
            .query_row(
                "SELECT substr(scru128_min(?1), 1, 10) || substr(scru128(), 11)",
                [at],
                |row| row.get(0),
            )
            .unwrap();
        let form = if k % 3 == 0 {
            "?1"
        } else {
            NOT_CANONICAL[(k as usize) % NOT_CANONICAL.len()]
        };
        let strict = conn.execute(
            &format!("INSERT INTO event (id, at) VALUES ({form}, ?2)"),
            (&id, at),
        );
        match (form, strict) {
            ("?1", Ok(1)) => taken += 1,
            ("?1", other) => panic!("canonical {id} refused: {other:?}"),
            (_, Ok(_)) => panic!("{form} of {id} admitted"),
            (_, Err(_)) => refused += 1,
        }
        // The loose CHECK of the first README, as a control.
        if conn
            .execute(
                &format!("INSERT INTO loose (id, at) VALUES ({form}, ?2)"),
                (&id, at),
            )
            .is_ok()
        {
            loose_taken += 1;
        }
    }
    assert_eq!((taken, refused), (100, 200));
    // Every form, each on its own, is refused.
    let id: String = conn
        .query_row("SELECT scru128()", [], |r| r.get(0))
        .unwrap();
    for form in NOT_CANONICAL {
        let got = conn.execute(&format!("INSERT INTO event (id) VALUES ({form})"), [&id]);
        assert!(got.is_err(), "{form} of {id} admitted: {got:?}");
    }

    // A range query on the key gives the rows a full scan finds.
    let (lo, hi) = (T2026 + 50_000, T2026 + 249_999);
    let by_key = |table: &str| -> Vec<String> {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT quote(id) FROM {table} WHERE id BETWEEN scru128_min(?1) AND scru128_max(?2) \
                 ORDER BY id"
            ))
            .unwrap();
        stmt.query_map((lo, hi), |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let by_scan = |table: &str| -> Vec<String> {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT quote(id) FROM {table} NOT INDEXED WHERE at BETWEEN ?1 AND ?2 ORDER BY id"
            ))
            .unwrap();
        stmt.query_map((lo, hi), |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(by_key("event"), by_scan("event"));
    assert!(by_key("event").len() > 60);
    // The control: the loose CHECK admits forms a range query misses.
    assert!(loose_taken > 150, "{loose_taken}");
    assert_ne!(by_key("loose"), by_scan("loose"));
    println!(
        "canonical key: 100 admitted, 200 other forms refused ({} forms each alone); \
         the range query equals the scan (with scru128_is_valid: {} rows against {})",
        NOT_CANONICAL.len(),
        by_key("loose").len(),
        by_scan("loose").len()
    );
}
