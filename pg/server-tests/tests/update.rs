//! Updating from 0.1.0 (the frozen install script pg/sql/scru128--0.1.0.sql) with
//! `ALTER EXTENSION scru128 UPDATE`: the new library serves the 0.1.0 SQL while the
//! database is at 0.1.0, the data and its indexes survive the update, and the updated
//! catalog is that of a fresh install of the new version.

mod common;

use common::{Native, describe, explain, fresh_db_on};
use postgres::Client;

/// A description of everything the extension defines (and adds to PostgreSQL's uuid
/// operator families), by names rather than OIDs, so that two databases compare:
/// functions with their labels, operators, casts, operator classes and families with
/// their members, the type, the aggregates, the comments, the extension's members.
pub fn catalog(db: &mut Client) -> Vec<String> {
    let queries = [
        // members
        "SELECT 'member ' || pg_describe_object(classid, objid, objsubid) FROM pg_depend
          WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
            AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'scru128')",
        // functions
        "SELECT concat_ws(' ', 'function', p.oid::regprocedure, pg_get_function_arguments(p.oid),
                 pg_get_function_result(p.oid), l.lanname, p.provolatile, p.proisstrict,
                 p.proparallel, p.proleakproof, p.prosecdef, p.procost, p.prorows, p.prokind,
                 p.prosrc, p.probin, p.proconfig, p.proacl)
           FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'scru128')",
        // operators
        "SELECT concat_ws(' ', 'operator', o.oid::regoperator, o.oprresult::regtype, o.oprcode::regprocedure,
                 o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin,
                 o.oprcanmerge, o.oprcanhash, o.oprkind)
           FROM pg_operator o
          WHERE o.oprnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'scru128')",
        // casts
        "SELECT concat_ws(' ', 'cast', c.castsource::regtype, c.casttarget::regtype,
                 c.castfunc::regprocedure, c.castcontext, c.castmethod)
           FROM pg_cast c
          WHERE 'scru128'::regtype IN (c.castsource, c.casttarget)",
        // operator families and classes
        "SELECT concat_ws(' ', 'family', f.opfname, a.amname, f.opfnamespace::regnamespace)
           FROM pg_opfamily f JOIN pg_am a ON a.oid = f.opfmethod
          WHERE f.opfname LIKE 'scru128%'",
        "SELECT concat_ws(' ', 'class', c.opcname, a.amname, c.opcintype::regtype, f.opfname,
                 c.opcdefault, c.opckeytype::regtype)
           FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
          WHERE c.opcintype = 'scru128'::regtype",
        // members of the families of scru128 and uuid (those of uuid that PostgreSQL
        // has are the same everywhere; the extension adds to them)
        "SELECT concat_ws(' ', 'amop', f.opfname, a.amname, o.amoplefttype::regtype,
                 o.amoprighttype::regtype, o.amopstrategy, o.amopopr::regoperator, o.amoppurpose,
                 o.amopsortfamily)
           FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
          WHERE f.opfname LIKE 'scru128%' OR f.opfname = 'uuid_ops'",
        "SELECT concat_ws(' ', 'amproc', f.opfname, a.amname, p.amproclefttype::regtype,
                 p.amprocrighttype::regtype, p.amprocnum, p.amproc::regprocedure)
           FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
          WHERE f.opfname LIKE 'scru128%' OR f.opfname = 'uuid_ops'",
        // the dependencies of the classes and of the families' members (a moved class
        // must depend on what a created one does)
        "SELECT concat_ws(' ', 'depend', pg_describe_object(d.classid, d.objid, d.objsubid),
                 pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid), d.deptype)
           FROM pg_depend d
          WHERE (d.classid = 'pg_opclass'::regclass
                 AND d.objid IN (SELECT oid FROM pg_opclass WHERE opcintype = 'scru128'::regtype))
             OR (d.classid = 'pg_amop'::regclass AND d.objid IN (
                   SELECT o.oid FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
                    WHERE f.opfname LIKE 'scru128%' OR f.opfname = 'uuid_ops'))
             OR (d.classid = 'pg_amproc'::regclass AND d.objid IN (
                   SELECT p.oid FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
                    WHERE f.opfname LIKE 'scru128%' OR f.opfname = 'uuid_ops'))",
        // the type and its array type
        "SELECT concat_ws(' ', 'type', t.oid::regtype, t.typlen, t.typbyval, t.typtype, t.typcategory,
                 t.typispreferred, t.typinput::regproc, t.typoutput::regproc, t.typreceive::regproc,
                 t.typsend::regproc, t.typanalyze::regproc, t.typalign, t.typstorage, t.typarray::regtype,
                 t.typelem::regtype, t.typsubscript::regproc)
           FROM pg_type t
          WHERE t.oid IN ('scru128'::regtype, 'scru128[]'::regtype)",
        // aggregates
        "SELECT concat_ws(' ', 'aggregate', a.aggfnoid::regprocedure, a.aggtransfn::regproc,
                 a.aggcombinefn::regproc, a.aggsortop::regoperator, a.aggtranstype::regtype,
                 a.aggkind, a.agginitval)
           FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
          WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'scru128')",
        // comments
        "SELECT concat_ws(' ', 'comment', pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description)
           FROM pg_description d JOIN pg_depend e ON e.classid = d.classoid AND e.objid = d.objoid
          WHERE e.deptype = 'e'
            AND e.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'scru128')",
        // the extension
        "SELECT concat_ws(' ', 'extension', extname, extversion, extrelocatable,
                 extnamespace::regnamespace, extconfig, extcondition)
           FROM pg_extension WHERE extname = 'scru128'",
    ];
    let mut lines: Vec<String> = Vec::new();
    for sql in queries {
        let rows = db
            .query(sql, &[])
            .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)));
        lines.extend(rows.iter().map(|r| r.get::<_, String>(0)));
    }
    lines.sort();
    lines
}

/// A table with data in a database at `version`, and its fingerprint query.
const DATA: &str = "
    CREATE TABLE item (id scru128 PRIMARY KEY DEFAULT gen_scru128(), u uuid NOT NULL, n int NOT NULL);
    CREATE INDEX item_hash ON item USING hash (id);
    CREATE INDEX item_brin ON item USING brin (id);
    CREATE INDEX item_u ON item (u);
    INSERT INTO item (u, n) SELECT gen_random_uuid(), n FROM generate_series(1, 20000) n;
    UPDATE item SET u = id::uuid WHERE n % 2 = 0;
    -- partition keys use the classes too (hash and range)
    CREATE TABLE by_hash (id scru128 NOT NULL, n int) PARTITION BY HASH (id);
    CREATE TABLE by_hash_0 PARTITION OF by_hash FOR VALUES WITH (MODULUS 2, REMAINDER 0);
    CREATE TABLE by_hash_1 PARTITION OF by_hash FOR VALUES WITH (MODULUS 2, REMAINDER 1);
    CREATE TABLE by_range (id scru128 NOT NULL, n int) PARTITION BY RANGE (id);
    CREATE TABLE by_range_0 PARTITION OF by_range FOR VALUES FROM (MINVALUE) TO ('40000000000000000000000000');
    CREATE TABLE by_range_1 PARTITION OF by_range FOR VALUES FROM ('40000000000000000000000000') TO (MAXVALUE);
    INSERT INTO by_hash SELECT id, n FROM item;
    INSERT INTO by_range SELECT u::scru128, n FROM item;
    -- expressions stored at 0.1.0 that use the implicit uuid -> scru128 cast
    CREATE VIEW same AS SELECT n FROM item WHERE id = u;
    ALTER TABLE item ADD CONSTRAINT item_same CHECK (n % 2 = 1 OR id = u);
    ANALYZE item;";
const FINGERPRINT: &str =
    "SELECT md5(string_agg(id::text || u::text || n, ',' ORDER BY id)), count(*),
                                  (SELECT count(*) FROM same) FROM item";
/// Where the partitioned rows are: (partition, rows, their checksum), which the update
/// must not change (the same hash and order route the same rows).
const PARTITIONS: &str = "SELECT tableoid::regclass::text, count(*), sum(n)::bigint FROM by_hash GROUP BY 1
                          UNION ALL
                          SELECT tableoid::regclass::text, count(*), sum(n)::bigint FROM by_range GROUP BY 1
                          ORDER BY 1";

fn partitions(db: &mut Client) -> Vec<(String, i64, i64)> {
    db.query(PARTITIONS, &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

fn fingerprint(db: &mut Client) -> (String, i64, i64) {
    let row = db.query_one(FINGERPRINT, &[]).unwrap();
    (row.get(0), row.get(1), row.get(2))
}

fn version(db: &mut Client) -> String {
    db.query_one(
        "SELECT extversion FROM pg_extension WHERE extname = 'scru128'",
        &[],
    )
    .unwrap()
    .get(0)
}

/// Creates the extension at 0.1.0 (in `schema`, if any), checks that the library serves
/// every C function of that SQL, loads data, updates, and checks the data and the
/// catalog against a fresh install of the default version in `fresh`.
fn update_from_0_1_0(db: &mut Client, url: &str, fresh: &mut Client, schema: Option<&str>) {
    let create = |db: &mut Client, version: &str| {
        let sql = match schema {
            Some(s) => format!(
                "CREATE SCHEMA {s}; CREATE EXTENSION scru128 SCHEMA {s} {version}; SET search_path = public, {s}"
            ),
            None => format!("CREATE EXTENSION scru128 {version}"),
        };
        db.batch_execute(&sql)
            .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)));
    };
    create(db, "VERSION '0.1.0'");
    assert_eq!(version(db), "0.1.0");
    create(fresh, "");
    let default_version = version(fresh);
    assert_ne!(default_version, "0.1.0");

    // the library has every C symbol that the 0.1.0 SQL names (the validator looks
    // each up, with its info function), and they work
    let c_functions: Vec<String> = db
        .query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
              WHERE d.deptype = 'e' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'scru128')
                AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(c_functions.len(), 17, "{c_functions:?}");
    for function in &c_functions {
        db.execute(
            "SELECT fmgr_c_validator($1::text::regprocedure)",
            &[function],
        )
        .unwrap_or_else(|err| panic!("{function}: {}", describe(&err)));
    }
    db.batch_execute(DATA).unwrap();
    let ok: bool = db
        .query_one(
            "SELECT '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'::scru128::text = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'
                AND '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'::text::scru128 = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'
                AND scru128_from_fields(1, 2, 3, 4)::bytea::scru128 = scru128_from_fields(1, 2, 3, 4)
                AND scru128_counter(scru128_from_fields(1, 2, 3, 4)) = 2
                AND scru128_per_sec_random(scru128_from_fields(1, 2, 3, 4)) = 3
                AND scru128_per_gen_random(scru128_from_fields(1, 2, 3, 4)) = 4
                AND scru128_timestamp(scru128_from_fields(1, 2, 3, 4)) = 1
                AND scru128_extract_timestamp(scru128_min('2024-01-01Z')) = '2024-01-01Z'
                AND scru128_max('2024-01-01Z') > scru128_min('2024-01-01Z')
                AND (SELECT max(id) > min(id) FROM item)",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(ok);
    let before = fingerprint(db);
    assert_eq!((before.1, before.2), (20_000, 10_000));
    let partitioned = partitions(db);
    assert_eq!(partitioned.len(), 4);

    // another session that has used the indexes (and cached their descriptions) goes
    // on using them after the update
    let mut other = common::connect(url);
    other
        .batch_execute(
            "SET search_path = public, ids; SET enable_seqscan = off;
             SELECT count(*) FROM item WHERE id > scru128_min('2020-01-02Z');
             SELECT count(*) FROM item WHERE id = ANY (ARRAY(SELECT id FROM item LIMIT 3))",
        )
        .unwrap();
    db.batch_execute("ALTER EXTENSION scru128 UPDATE").unwrap();
    assert_eq!(version(db), default_version);
    assert_eq!(fingerprint(db), before);
    assert_eq!(partitions(db), partitioned);
    // new rows are routed as before: each key goes where the same key went
    db.batch_execute(
        "CREATE TEMP TABLE again AS SELECT id, n FROM by_hash;
         DELETE FROM by_hash; INSERT INTO by_hash SELECT * FROM again;
         CREATE TEMP TABLE again2 AS SELECT id, n FROM by_range;
         DELETE FROM by_range; INSERT INTO by_range SELECT * FROM again2;",
    )
    .unwrap();
    assert_eq!(partitions(db), partitioned);
    for (sql, partition) in [
        (
            "SELECT count(*) FROM by_range WHERE id < '10000000000000000000000000'",
            "by_range_0",
        ),
        (
            "SELECT count(*) FROM by_hash WHERE id = '00PGHAJ3Q9VAJ7IU6PQBHBUAK4'",
            "by_hash_",
        ),
    ] {
        let plan = explain(db, sql);
        assert!(
            plan.contains(partition) && plan.matches("Scan on").count() == 1,
            "pruning: {sql}\n{plan}"
        );
    }
    // the indexes are intact and used; the new operators work on the old data
    db.batch_execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        .unwrap();
    for index in ["item_pkey", "item_u"] {
        db.execute(
            "SELECT bt_index_parent_check($1::text::regclass, true)",
            &[&index],
        )
        .unwrap_or_else(|err| panic!("{index}: {}", describe(&err)));
    }
    db.batch_execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
        .unwrap();
    let some: Native = db
        .query_one("SELECT id FROM item WHERE n = 4242", &[])
        .unwrap()
        .get(0);
    for (sql, index) in [
        (
            "SELECT n FROM item WHERE id = $1::scru128::uuid",
            "item_", // the primary key or the hash index
        ),
        ("SELECT n FROM item WHERE u = $1::scru128", "item_u"),
    ] {
        let plan = explain(db, &sql.replace("$1", &format!("'{}'", some.0)));
        assert!(
            plan.contains(&format!("Index Scan using {index}")),
            "{sql}\n{plan}"
        );
        let n: i32 = db.query_one(sql, &[&some]).unwrap().get(0);
        assert_eq!(n, 4242, "{sql}");
    }
    // arrays of uuid on the old scru128 index, of scru128 on the uuid index (which need
    // the shared family), in this session and in the other one
    for client in [&mut *db, &mut other] {
        for (sql, index) in [
            (
                "SELECT count(*) FROM item WHERE id = ANY (ARRAY(SELECT u FROM item WHERE n % 2 = 0 AND n < 200))",
                "item_pkey",
            ),
            (
                "SELECT count(*) FROM item WHERE id < ANY (ARRAY(SELECT u FROM item WHERE n % 2 = 0 AND n < 200))",
                "item_pkey",
            ),
            (
                "SELECT count(*) FROM item WHERE u = ANY (ARRAY(SELECT id FROM item WHERE n % 2 = 0 AND n < 200))",
                "item_u",
            ),
        ] {
            client
                .batch_execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
                .unwrap();
            let plan = explain(client, sql);
            assert!(
                plan.contains(&format!("Scan using {index}")),
                "{sql}\n{plan}"
            );
            let count: i64 = client
                .query_one(sql, &[])
                .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)))
                .get(0);
            assert!(count >= 99, "{sql}: {count}");
        }
    }
    let valid: bool = db
        .query_one(
            "SELECT bool_and(amvalidate(oid)) FROM pg_opclass WHERE opcintype IN ('scru128'::regtype, 'uuid'::regtype)",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(valid, "amvalidate fails after the update");
    db.batch_execute("RESET enable_seqscan; RESET enable_bitmapscan; DROP EXTENSION amcheck")
        .unwrap();
    // inserts go on, with the stored view and check constraint
    db.batch_execute("INSERT INTO item (u, n) SELECT gen_random_uuid(), 20001")
        .unwrap();
    let (_, count, same) = fingerprint(db);
    assert_eq!((count, same), (20_001, 10_000));

    // the catalog is that of a fresh install
    let (updated, installed) = (catalog(db), catalog(fresh));
    let missing: Vec<&String> = installed.iter().filter(|l| !updated.contains(l)).collect();
    let extra: Vec<&String> = updated.iter().filter(|l| !installed.contains(l)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "after the update, missing: {missing:#?}\nextra: {extra:#?}"
    );
    assert!(updated.len() > 150, "only {} catalog lines", updated.len());
}

#[test]
fn update_from_0_1_0_keeps_the_data_and_ends_as_a_fresh_install() {
    let (mut db, url) = fresh_db_on(0, "update_from_010", false);
    let (mut fresh, _) = fresh_db_on(0, "update_fresh", false);
    update_from_0_1_0(&mut db, &url, &mut fresh, None);
}

#[test]
fn update_from_0_1_0_in_a_schema_of_its_own() {
    let (mut db, url) = fresh_db_on(0, "update_from_010_ids", false);
    let (mut fresh, _) = fresh_db_on(0, "update_fresh_ids", false);
    update_from_0_1_0(&mut db, &url, &mut fresh, Some("ids"));
}
