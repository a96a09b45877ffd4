//! Installing into another schema, updating and dropping the extension.

mod common;

use common::{Native, error_of, explain, fresh_db_on};
use postgres::Client;

/// `pg_describe_object` of every member of the extension, sorted.
fn members(db: &mut Client) -> Vec<String> {
    db.query(
        "SELECT pg_describe_object(classid, objid, objsubid) FROM pg_depend
          WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
            AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'scru128')
          ORDER BY 1",
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// The number of members (operators and support functions) of PostgreSQL's uuid
/// operator families.
fn uuid_families(db: &mut Client) -> i64 {
    db.query_one(
        "SELECT (SELECT count(*) FROM pg_amop WHERE amopfamily IN (SELECT oid FROM pg_opfamily WHERE opfname = 'uuid_ops'))
              + (SELECT count(*) FROM pg_amproc WHERE amprocfamily IN (SELECT oid FROM pg_opfamily WHERE opfname = 'uuid_ops'))",
        &[],
    )
    .unwrap()
    .get(0)
}

#[test]
fn functions_have_the_labels_of_postgresqls_uuid_functions() {
    let (mut db, _) = fresh_db_on(0, "install_labels", true);
    // (function, PostgreSQL's uuid function): those declared with a uuid function's
    // code, and the type's own input and output
    let pairs: Vec<(String, String)> = db
        .query(
            "SELECT p.oid::regprocedure::text, u.oid::regprocedure::text
               FROM pg_proc p JOIN pg_proc u ON u.pronamespace = 'pg_catalog'::regnamespace
                AND u.proname = CASE p.proname WHEN 'scru128_in' THEN 'uuid_in' WHEN 'scru128_out' THEN 'uuid_out'
                                               ELSE p.prosrc END
                AND u.prolang = (SELECT oid FROM pg_language WHERE lanname = 'internal')
              WHERE p.pronamespace = 'public'::regnamespace
                AND (p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'internal')
                     OR p.proname IN ('scru128_in', 'scru128_out'))
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(pairs.len(), 28, "{pairs:?}");
    let labels = |db: &mut Client, f: &str| -> String {
        db.query_one(
            "SELECT concat_ws(' ', provolatile, proisstrict, proparallel, proleakproof)
               FROM pg_proc WHERE oid = $1::text::regprocedure",
            &[&f],
        )
        .unwrap()
        .get(0)
    };
    for (ours, theirs) in &pairs {
        assert_eq!(
            labels(&mut db, ours),
            labels(&mut db, theirs),
            "{ours} and {theirs}"
        );
    }
    // the generator is PARALLEL RESTRICTED where gen_random_uuid() is PARALLEL SAFE, on
    // purpose (README: its IDs are in call order within a statement); otherwise alike
    // (both LEAKPROOF: no arguments to leak)
    assert_eq!(labels(&mut db, "gen_scru128()"), "v t r t");
    assert_eq!(labels(&mut db, "gen_random_uuid()"), "v t s t");
}

#[test]
fn installed_in_another_schema_everything_resolves() {
    let (mut db, _) = fresh_db_on(0, "install_schema", false);
    db.batch_execute(
        "CREATE SCHEMA ids;
         SET search_path = public;
         CREATE EXTENSION scru128 SCHEMA ids;",
    )
    .unwrap();
    // every member that lives in a schema lives in ids (casts have no schema)
    let outside: Vec<String> = db
        .query(
            "SELECT pg_describe_object(d.classid, d.objid, 0) FROM pg_depend d
               LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
               LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
               LEFT JOIN pg_operator o ON d.classid = 'pg_operator'::regclass AND o.oid = d.objid
               LEFT JOIN pg_opclass c ON d.classid = 'pg_opclass'::regclass AND c.oid = d.objid
               LEFT JOIN pg_opfamily f ON d.classid = 'pg_opfamily'::regclass AND f.oid = d.objid
              WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'scru128') AND d.deptype = 'e'
                AND d.classid <> 'pg_cast'::regclass
                AND coalesce(p.pronamespace, t.typnamespace, o.oprnamespace, c.opcnamespace, f.opfnamespace)
                    IS DISTINCT FROM 'ids'::regnamespace",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(outside.is_empty(), "members outside ids: {outside:?}");
    let count = members(&mut db).len();
    assert!(count > 40, "only {count} members");

    // with ids off the search path, qualified names and everything that the type's
    // operator classes provide (keys, sorting, grouping, joins, indexes, casts) work
    db.batch_execute(
        "CREATE TABLE public.item (id ids.scru128 PRIMARY KEY DEFAULT ids.gen_scru128(), n int);
         CREATE TABLE public.other (id ids.scru128, u uuid);
         CREATE INDEX item_brin ON item USING brin (id);
         CREATE INDEX item_hash ON item USING hash (id);
         INSERT INTO item (n) SELECT n FROM generate_series(1, 5000) n;
         INSERT INTO other SELECT id, id::uuid FROM item WHERE n % 2 = 0;
         ANALYZE item; ANALYZE other;",
    )
    .unwrap();
    let checks = [
        "SELECT count(*) = 5000 FROM (SELECT id FROM item ORDER BY id) s",
        "SELECT array_agg(n ORDER BY id) = array_agg(n ORDER BY n) FROM item",
        "SELECT count(*) = 5000 FROM (SELECT DISTINCT id FROM item) s",
        "SELECT count(*) = 5000 FROM (SELECT id FROM item GROUP BY id) s",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id OPERATOR(ids.=) other.id",
        "SELECT count(*) = 2500 FROM item WHERE id OPERATOR(ids.=) ANY (SELECT id FROM other)",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id OPERATOR(ids.=) other.u",
        "SELECT ids.max(id) OPERATOR(ids.=) (SELECT id FROM item ORDER BY id DESC LIMIT 1) FROM item",
        "SELECT ids.min(id) OPERATOR(ids.<) ids.max(id) FROM item",
        "SELECT '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'::ids.scru128::text = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'",
        "SELECT ('00cc22a9-8f49-faa6-7978-d9d2e2bf2a84'::uuid::ids.scru128)::text = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'",
        "SELECT ids.scru128_extract_timestamp(ids.gen_scru128()) > now() - interval '1 minute'",
        "SELECT count(*) > 0 FROM item WHERE id OPERATOR(ids.>=) ids.scru128_min(now() - interval '1 hour')",
    ];
    for sql in checks {
        let ok: bool = db
            .query_one(sql, &[])
            .unwrap_or_else(|err| panic!("{sql}: {}", common::describe(&err)))
            .get(0);
        assert!(ok, "{sql}");
    }
    let err = error_of(&mut db, "INSERT INTO item SELECT id, 0 FROM item LIMIT 1");
    assert!(err.starts_with("23505:"), "{err}");
    db.batch_execute("SET enable_seqscan = off").unwrap();
    let plan = explain(
        &mut db,
        "SELECT n FROM item WHERE id OPERATOR(ids.=) '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'",
    );
    assert!(
        plan.contains("item_pkey") || plan.contains("item_hash"),
        "{plan}"
    );
    // what resolves through the type's default operator classes works unqualified
    // (above, and here: UNION, INTERSECT, foreign keys, window ordering, merge and
    // hash joins written with the qualified operator) ...
    db.batch_execute(
        "CREATE TABLE public.child (parent ids.scru128 REFERENCES item);
         INSERT INTO child SELECT id FROM other;",
    )
    .unwrap();
    for sql in [
        "SELECT count(*) = 5000 FROM (SELECT id FROM item UNION SELECT id FROM other) s",
        "SELECT count(*) = 2500 FROM (SELECT id FROM item INTERSECT SELECT id FROM other) s",
        "SELECT count(*) = 2500 FROM (SELECT id FROM item EXCEPT SELECT id FROM other) s",
        "SELECT bool_and(r = n) FROM (SELECT n, row_number() OVER (ORDER BY id) AS r FROM item) s",
        "SELECT count(*) = 5000 FROM (SELECT id FROM item ORDER BY id USING OPERATOR(ids.>)) s",
    ] {
        let ok: bool = db
            .query_one(sql, &[])
            .unwrap_or_else(|err| panic!("{sql}: {}", common::describe(&err)))
            .get(0);
        assert!(ok, "{sql}");
    }
    let err = error_of(
        &mut db,
        "INSERT INTO child VALUES ('00PGHAJ3Q9VAJ7IU6PQBHBUAK4')",
    );
    assert!(err.starts_with("23503:"), "{err}");
    for (settings, node) in [
        (
            "SET enable_hashjoin = off; SET enable_nestloop = off",
            "Merge Join",
        ),
        (
            "SET enable_mergejoin = off; SET enable_nestloop = off",
            "Hash Join",
        ),
    ] {
        db.batch_execute(settings).unwrap();
        let sql = "SELECT count(*) FROM item JOIN other ON item.id OPERATOR(ids.=) other.id";
        let plan = explain(&mut db, sql);
        assert!(plan.contains(node), "{plan}");
        let count: i64 = db.query_one(sql, &[]).unwrap().get(0);
        assert_eq!(count, 2500);
        db.batch_execute("RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop")
            .unwrap();
    }
    // ... but an operator written unqualified, also one that SQL's syntax implies (in
    // BETWEEN, IN, JOIN USING, NATURAL JOIN, CASE, IS DISTINCT FROM), does not resolve:
    // PostgreSQL looks operators up by name on the search path, as for any type; once
    // ids is on it, nothing is ambiguous
    for sql in [
        "SELECT count(*) FROM item WHERE id < ids.gen_scru128()",
        "SELECT count(*) FROM item WHERE id BETWEEN ids.scru128_min(now()) AND ids.scru128_max(now())",
        "SELECT count(*) FROM item WHERE id IN (SELECT id FROM other)",
        "SELECT count(*) FROM item JOIN other USING (id)",
        "SELECT count(*) FROM item NATURAL JOIN other",
        "SELECT count(*) FROM item JOIN other ON item.id = other.u",
        "SELECT CASE id WHEN id THEN 1 END FROM item",
        "SELECT id IS DISTINCT FROM id FROM item",
    ] {
        let err = error_of(&mut db, sql);
        assert!(
            err.starts_with("42883: operator does not exist: ids.scru128 "),
            "{sql}: {err}"
        );
    }
    for sql in ["SELECT max(id) FROM item", "SELECT gen_scru128()"] {
        let err = error_of(&mut db, sql);
        assert!(err.starts_with("42883: function "), "{sql}: {err}");
    }
    db.batch_execute("SET search_path = public, ids").unwrap();
    for sql in [
        "SELECT count(*) = 5000 FROM item WHERE id < gen_scru128()",
        "SELECT count(*) = 5000 FROM item WHERE id BETWEEN scru128_min(now() - interval '1 hour') AND scru128_max(now())",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id = other.id",
        "SELECT count(*) = 2500 FROM item JOIN other USING (id)",
        "SELECT count(*) = 2500 FROM item NATURAL JOIN other",
        "SELECT count(*) = 2500 FROM item WHERE id IN (SELECT id FROM other)",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id = other.u",
        "SELECT count(*) = 2500 FROM item JOIN other ON other.u = item.id",
        "SELECT bool_and(CASE id WHEN id THEN true END) FROM item",
        "SELECT NOT bool_or(id IS DISTINCT FROM id) FROM item",
        "SELECT max(id) > min(id) FROM item",
    ] {
        let ok: bool = db
            .query_one(sql, &[])
            .unwrap_or_else(|err| panic!("{sql}: {}", common::describe(&err)))
            .get(0);
        assert!(ok, "{sql}");
    }
}

#[test]
fn update_and_drop() {
    let (mut db, _) = fresh_db_on(0, "install_update_drop", false);
    let default_version: String = db
        .query_one(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'scru128'",
            &[],
        )
        .unwrap()
        .get(0);
    let uuid_families_before = uuid_families(&mut db);
    db.batch_execute("CREATE EXTENSION scru128").unwrap();
    let fresh = members(&mut db);
    assert!(uuid_families(&mut db) > uuid_families_before);

    // every older version that has an update path to the default one ends with the
    // same objects as a fresh install (none yet: this is the first version)
    let older: Vec<String> = db
        .query(
            "SELECT version FROM pg_available_extension_versions WHERE name = 'scru128' AND version <> $1",
            &[&default_version],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for version in &older {
        db.batch_execute(&format!(
            "DROP EXTENSION scru128; CREATE EXTENSION scru128 VERSION '{version}'; ALTER EXTENSION scru128 UPDATE"
        ))
        .unwrap();
        assert_eq!(members(&mut db), fresh, "after updating from {version}");
    }

    // updating to the installed version changes nothing and keeps the data
    db.batch_execute(
        "CREATE TABLE item (id scru128 PRIMARY KEY DEFAULT gen_scru128(), n int);
         INSERT INTO item (n) SELECT generate_series(1, 100);
         ALTER EXTENSION scru128 UPDATE;",
    )
    .unwrap();
    let version: String = db
        .query_one(
            "SELECT extversion FROM pg_extension WHERE extname = 'scru128'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(version, default_version);
    assert_eq!(members(&mut db), fresh);
    let count: i64 = db
        .query_one("SELECT count(*) FROM item", &[])
        .unwrap()
        .get(0);
    assert_eq!(count, 100);

    // the extension cannot be dropped from under a table that uses the type ...
    let err = error_of(&mut db, "DROP EXTENSION scru128");
    assert!(
        err.starts_with("2BP01: cannot drop extension scru128"),
        "{err}"
    );
    // ... unless the column goes too (CASCADE); then nothing of it is left, also in
    // PostgreSQL's uuid operator families
    db.batch_execute("DROP EXTENSION scru128 CASCADE").unwrap();
    assert_eq!(uuid_families(&mut db), uuid_families_before);
    let left: i64 = db
        .query_one(
            "SELECT (SELECT count(*) FROM pg_type WHERE typname IN ('scru128', '_scru128'))
                  + (SELECT count(*) FROM pg_proc WHERE proname LIKE '%scru128%')
                  + (SELECT count(*) FROM pg_opclass WHERE opcname LIKE 'scru128%')
                  + (SELECT count(*) FROM pg_opfamily WHERE opfname LIKE 'scru128%')
                  + (SELECT count(*) FROM pg_cast WHERE castsource::regtype::text LIKE '%scru128%'
                                                     OR casttarget::regtype::text LIKE '%scru128%')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    let columns: Vec<String> = db
        .query(
            "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'item'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(columns, ["n"]);
    // and it installs again
    db.batch_execute("CREATE EXTENSION scru128").unwrap();
    assert_eq!(members(&mut db), fresh);
    let id: Native = db.query_one("SELECT gen_scru128()", &[]).unwrap().get(0);
    assert!(id.0.unix_ts_ms() > 1_700_000_000_000);
}
