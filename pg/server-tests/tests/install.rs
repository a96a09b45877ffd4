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
    // an unqualified operator (also in BETWEEN, IN and JOIN USING) does not resolve:
    // PostgreSQL looks operators up by name on the search path, as for any type; once
    // ids is on it, nothing is ambiguous
    for sql in [
        "SELECT count(*) FROM item WHERE id < ids.gen_scru128()",
        "SELECT count(*) FROM item JOIN other USING (id)",
    ] {
        let err = error_of(&mut db, sql);
        assert!(
            err.starts_with("42883: operator does not exist: ids.scru128 "),
            "{err}"
        );
    }
    db.batch_execute("SET search_path = public, ids").unwrap();
    for sql in [
        "SELECT count(*) = 5000 FROM item WHERE id < gen_scru128()",
        "SELECT count(*) = 5000 FROM item WHERE id BETWEEN scru128_min(now() - interval '1 hour') AND scru128_max(now())",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id = other.id",
        "SELECT count(*) = 2500 FROM item JOIN other USING (id)",
        "SELECT count(*) = 2500 FROM item WHERE id IN (SELECT id FROM other)",
        "SELECT count(*) = 2500 FROM item JOIN other ON item.id = other.u",
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
    db.batch_execute("CREATE EXTENSION scru128").unwrap();
    let fresh = members(&mut db);

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
    // ... unless the column goes too (CASCADE); then nothing of it is left
    db.batch_execute("DROP EXTENSION scru128 CASCADE").unwrap();
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
