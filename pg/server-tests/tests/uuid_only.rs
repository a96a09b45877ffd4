//! Installing the extension changes nothing for queries that involve no `scru128`: the
//! same queries on the same uuid-only schema give the same results, errors and plans
//! in a database without the extension, with it in `public`, and with it in a schema
//! of its own on the search path. Queries that mix `uuid` and `scru128` say which
//! they mean.

mod common;

use common::{describe, error_of, fresh_db_on};
use postgres::{Client, SimpleQueryMessage};

/// The uuid-only schema, the same in every database (deterministic data).
const SCHEMA: &str = "
    CREATE TABLE t (u uuid PRIMARY KEY, v uuid, n int NOT NULL);
    CREATE INDEX t_v ON t (v);
    CREATE INDEX t_v_hash ON t USING hash (v);
    CREATE TABLE s (u uuid, label text);
    INSERT INTO t SELECT md5(n::text)::uuid, CASE WHEN n % 10 <> 0 THEN md5((n * 7)::text)::uuid END, n
      FROM generate_series(1, 3000) n;
    INSERT INTO s SELECT md5(n::text)::uuid, 'l' || n FROM generate_series(1, 3000, 3) n;
    CREATE VIEW tv AS SELECT u, coalesce(v, u) AS w FROM t;
    ANALYZE t; ANALYZE s;";

/// Queries that name no scru128 object: results, errors and plans must not change.
const QUERIES: &[&str] = &[
    // PostgreSQL 15 has no min(uuid)/max(uuid); an implicit cast to scru128 made them
    "SELECT max(u), min(u) FROM t",
    "SELECT max(u) FROM t WHERE n < 10",
    "SELECT min(v) OVER (ORDER BY n) FROM t ORDER BY n LIMIT 3",
    "SELECT max(u::text), min(v::text) FROM t",
    "SELECT max(x) FROM (SELECT u AS x FROM t UNION ALL SELECT v FROM t) s",
    // UNION, COALESCE, CASE, GREATEST of uuid with uuid (and with NULL)
    "SELECT u FROM t WHERE n < 5 UNION SELECT v FROM t WHERE n < 5 ORDER BY 1",
    "SELECT u FROM t INTERSECT SELECT u FROM s ORDER BY 1 LIMIT 5",
    "SELECT v FROM t EXCEPT SELECT u FROM s ORDER BY 1 LIMIT 5",
    "SELECT coalesce(v, u), coalesce(NULL, v) FROM t ORDER BY n LIMIT 12",
    "SELECT CASE WHEN n % 2 = 0 THEN u ELSE v END FROM t ORDER BY n LIMIT 4",
    "SELECT CASE u WHEN v THEN 1 ELSE 0 END FROM t ORDER BY n LIMIT 4",
    "SELECT greatest(u, v), least(u, v) FROM t ORDER BY n LIMIT 4",
    "SELECT u = v, u < v, u >= v, u IS DISTINCT FROM v, row(u, n) < row(v, n) FROM t ORDER BY n LIMIT 4",
    "SELECT w FROM tv ORDER BY w LIMIT 3",
    // indexed lookups, ranges, IN, ANY, joins, grouping, sorting
    "SELECT n FROM t WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'",
    "SELECT n FROM t WHERE 'c4ca4238-a0b9-2382-0dcc-509a6f75849b' = u",
    "SELECT n FROM t WHERE v = '8f14e45f-ceea-167a-5a36-dedd4bea2543'",
    "SELECT n FROM t WHERE u IN ('c4ca4238-a0b9-2382-0dcc-509a6f75849b', 'c81e728d-9d4c-2f63-6f06-7f89cc14862c') ORDER BY n",
    "SELECT n FROM t WHERE u = ANY ('{c4ca4238-a0b9-2382-0dcc-509a6f75849b}') ORDER BY n",
    "SELECT count(*) FROM t WHERE u BETWEEN '10000000-0000-0000-0000-000000000000' AND '2fffffff-ffff-ffff-ffff-ffffffffffff'",
    "SELECT u FROM t WHERE u < '08000000-0000-0000-0000-000000000000' ORDER BY u DESC LIMIT 3",
    "SELECT n FROM t WHERE u = gen_random_uuid()",
    "SELECT count(*) FROM t JOIN s USING (u)",
    "SELECT count(*) FROM t JOIN s ON t.v = s.u",
    "SELECT count(*) FROM t NATURAL JOIN s",
    "SELECT count(*) FROM t WHERE u IN (SELECT u FROM s)",
    "SELECT count(*) FROM t WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.u = t.v)",
    "SELECT u, count(*) FROM (SELECT u FROM t UNION ALL SELECT u FROM s) x GROUP BY u ORDER BY 2 DESC, 1 LIMIT 3",
    "SELECT DISTINCT v FROM t ORDER BY v LIMIT 3",
    "SELECT u FROM t ORDER BY u USING > LIMIT 2",
    "SELECT array_agg(u ORDER BY u) FROM t WHERE n < 5",
    "SELECT jsonb_agg(u ORDER BY n) FROM t WHERE n < 3",
    "SELECT pg_typeof(u), pg_typeof(coalesce(u, NULL)) FROM t LIMIT 1",
    "SELECT u::text, u::varchar(36), length(u::text) FROM t ORDER BY n LIMIT 2",
    // casts and conversions that do not exist stay errors
    "SELECT u::bytea FROM t LIMIT 1",
    "SELECT length(u) FROM t LIMIT 1",
    "SELECT u + 1 FROM t LIMIT 1",
    // literals alone
    "SELECT 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'::uuid < 'c81e728d-9d4c-2f63-6f06-7f89cc14862c'",
    "SELECT max(x) FROM (VALUES ('a'), ('b')) v(x)",
    "SELECT '00PGHAJ3Q9VAJ7IU6PQBHBUAK4' = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'",
];

/// What a statement gives, as text: its rows (text protocol) or its error.
fn outcome(db: &mut Client, sql: &str) -> String {
    match db.simple_query(sql) {
        Ok(messages) => messages
            .iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).unwrap_or("NULL").to_owned())
                        .collect::<Vec<_>>()
                        .join(" | "),
                ),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(err) => format!("ERROR {}", describe(&err)),
    }
}

/// The databases compared: without the extension, with it in public, with it in a
/// schema of its own on the search path.
fn databases() -> Vec<(&'static str, Client)> {
    let (mut plain, _) = fresh_db_on(0, "uuid_only_plain", false);
    let (mut public, _) = fresh_db_on(0, "uuid_only_public", true);
    let (mut ids, _) = fresh_db_on(0, "uuid_only_ids", false);
    ids.batch_execute("CREATE SCHEMA ids; CREATE EXTENSION scru128 SCHEMA ids")
        .unwrap();
    for db in [&mut plain, &mut public, &mut ids] {
        db.batch_execute(SCHEMA).unwrap();
    }
    // the schema's own settings, so that a later ALTER DATABASE does not matter
    ids.batch_execute("SET search_path = public, ids").unwrap();
    vec![
        ("without the extension", plain),
        ("with it in public", public),
        ("with it in ids, on the search path", ids),
    ]
}

#[test]
fn queries_on_a_uuid_only_schema_give_the_same_results_errors_and_plans() {
    let mut dbs = databases();
    // the extension is there, and can be seen on the search path
    for (name, db) in &mut dbs[1..] {
        assert_eq!(
            outcome(db, "SELECT 'scru128'::regtype::text"),
            "scru128",
            "{name}"
        );
    }
    let mut errors = 0;
    for sql in QUERIES {
        let plans = [
            "EXPLAIN (COSTS OFF, VERBOSE) ",
            "SET enable_seqscan = off; EXPLAIN (COSTS OFF, VERBOSE) ",
        ];
        let mut seen = Vec::new();
        for (name, db) in &mut dbs {
            let mut got = vec![outcome(db, sql)];
            for prefix in plans {
                got.push(outcome(db, &format!("{prefix}{sql}")));
                db.batch_execute("RESET enable_seqscan").unwrap();
            }
            seen.push((*name, got));
        }
        let (first, expected) = &seen[0];
        for (name, got) in &seen[1..] {
            assert_eq!(
                got, expected,
                "{sql}\n{name} (left) differs from {first} (right)"
            );
        }
        errors += usize::from(expected[0].starts_with("ERROR"));
    }
    // the comparison covers both kinds: rows and errors (max(uuid) among them)
    assert_eq!(errors, 7, "expected 7 of the queries to be errors");

    // a statement's parameter is typed as it would be without the extension
    for (name, db) in &mut dbs {
        db.batch_execute(
            "PREPARE p1 AS SELECT n FROM t WHERE u = $1;
             PREPARE p2 AS SELECT coalesce($1, u) FROM t;
             PREPARE p3 AS SELECT n FROM t WHERE u IN ($1, $2)",
        )
        .unwrap();
        assert_eq!(
            outcome(
                db,
                "SELECT name, parameter_types::text FROM pg_prepared_statements ORDER BY name"
            ),
            "p1 | {uuid}\np2 | {uuid}\np3 | {uuid,uuid}",
            "{name}"
        );
    }
}

#[test]
fn mixing_uuid_and_scru128_needs_a_cast_or_uses_the_cross_type_operators() {
    let (mut db, _) = fresh_db_on(0, "uuid_only_mixed", true);
    db.batch_execute(
        "CREATE TABLE t (u uuid PRIMARY KEY, id scru128 NOT NULL);
         INSERT INTO t SELECT md5(n::text)::uuid, md5((n * 3)::text)::uuid::scru128
           FROM generate_series(1, 100) n;",
    )
    .unwrap();
    // no implicit cast either way: the reading is not guessed
    for (sql, expected) in [
        (
            "SELECT u FROM t UNION SELECT id FROM t",
            "42846: UNION could not convert type scru128 to uuid",
        ),
        (
            "SELECT coalesce(u, id) FROM t",
            "42846: COALESCE could not convert type scru128 to uuid",
        ),
        (
            "SELECT CASE WHEN true THEN u ELSE id END FROM t",
            "42846: CASE/WHEN could not convert type uuid to scru128",
        ),
        (
            "SELECT scru128_extract_timestamp(gen_random_uuid())",
            "42883: function scru128_extract_timestamp(uuid) does not exist",
        ),
        (
            "SELECT scru128_counter(u) FROM t",
            "42883: function scru128_counter(uuid) does not exist",
        ),
        (
            "SELECT max(u) FROM t",
            "42883: function max(uuid) does not exist",
        ),
    ] {
        assert_eq!(error_of(&mut db, sql), expected, "{sql}");
    }
    // written out, each works; comparisons need no cast at all
    for sql in [
        "SELECT count(*) = 200 FROM (SELECT u::scru128 FROM t UNION ALL SELECT id FROM t) s",
        "SELECT count(*) = 200 FROM (SELECT u FROM t UNION ALL SELECT id::uuid FROM t) s",
        "SELECT bool_and(coalesce(u::scru128, id) = u) FROM t",
        "SELECT scru128_extract_timestamp(gen_random_uuid()::scru128) > '2020-01-01'",
        "SELECT max(u::scru128) = max(u::scru128) FROM t",
        "SELECT count(*) = 100 FROM t WHERE id <> u",
        "SELECT count(*) = 1 FROM t WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'::uuid::scru128",
    ] {
        assert_eq!(outcome(&mut db, sql), "t", "{sql}");
    }
}
