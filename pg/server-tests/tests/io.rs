//! The type's text and binary forms, its casts and functions, bad input, binary COPY,
//! and pg_dump/restore, against a real server with the extension installed.

mod common;

use std::io::{Read, Write};

use common::{Bytes16, Native, SplitMix64, describe, error_of, fresh_db, vectors};
use scru128::Scru128Id;

#[test]
fn vectors_through_text_and_binary_io_casts_and_fields() {
    let mut db = fresh_db("io_vectors");
    for v in vectors() {
        let lower = v.text.to_lowercase();
        // text in (either case) and out; binary out (the client reads the 16 bytes)
        let row = db
            .query_one(
                "SELECT $1::text::scru128::text, $2::text::scru128, $1::text::scru128",
                &[&v.text, &lower],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), v.text);
        assert_eq!(row.get::<_, Native>(1).0, v.id);
        assert_eq!(row.get::<_, Native>(2).0, v.id);
        // the hex and UUID forms (as the CLI and the Python package write them), in
        // either case, as a literal and through the cast from text
        let hex = format!("{:032x}", v.id.as_u128());
        let uuid = v.id.encode_uuid().to_string();
        for form in [
            hex.clone(),
            hex.to_uppercase(),
            uuid.clone(),
            uuid.to_uppercase(),
        ] {
            let row = db
                .query_one(
                    &format!("SELECT '{form}'::scru128, $1::text::scru128"),
                    &[&form],
                )
                .unwrap_or_else(|err| panic!("{form}: {}", describe(&err)));
            assert_eq!(row.get::<_, Native>(0).0, v.id, "{form}");
            assert_eq!(row.get::<_, Native>(1).0, v.id, "{form}");
        }

        // binary in (a native parameter), then every cast and function
        let row = db
            .query_one(
                "SELECT $1::scru128::text, $1::scru128::uuid::text, $1::scru128::uuid,
                        $1::scru128::bytea, ($1::scru128::uuid)::scru128, ($1::scru128::bytea)::scru128,
                        scru128_timestamp($1), scru128_counter($1), scru128_per_sec_random($1),
                        scru128_per_gen_random($1),
                        scru128_from_fields(scru128_timestamp($1), scru128_counter($1),
                                            scru128_per_sec_random($1), scru128_per_gen_random($1)),
                        pg_column_size($1::scru128), $1 = $2::text::scru128",
                &[&Native(v.id), &v.text],
            )
            .unwrap();
        assert_eq!(row.get::<_, String>(0), v.text);
        assert_eq!(
            row.get::<_, String>(1).replace('-', ""),
            format!("{:032x}", v.id.as_u128())
        );
        assert_eq!(row.get::<_, Bytes16>(2).0, v.id.to_bytes());
        assert_eq!(row.get::<_, Bytes16>(3).0, v.id.to_bytes());
        assert_eq!(row.get::<_, Native>(4).0, v.id);
        assert_eq!(row.get::<_, Native>(5).0, v.id);
        let (timestamp, counter, per_sec, per_gen) = v.fields;
        assert_eq!(row.get::<_, i64>(6), timestamp as i64);
        assert_eq!(row.get::<_, i32>(7), counter as i32);
        assert_eq!(row.get::<_, i32>(8), per_sec as i32);
        assert_eq!(row.get::<_, i64>(9), i64::from(per_gen));
        assert_eq!(row.get::<_, Native>(10).0, v.id);
        assert_eq!(row.get::<_, i32>(11), 16);
        assert!(row.get::<_, bool>(12));

        // the creation time, to the millisecond, and the bounds of that millisecond
        let row = db
            .query_one(
                "SELECT (extract(epoch FROM $1::scru128::timestamptz) * 1000)::bigint,
                        scru128_extract_timestamp($1) = $1::scru128::timestamptz",
                &[&Native(v.id)],
            )
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), v.id.unix_ts_ms() as i64);
        assert!(row.get::<_, bool>(1));
        // timestamps 0 and 2^44-1 are reserved: bounds exist for them too
        let row = db
            .query_one(
                "SELECT scru128_min(scru128_extract_timestamp($1) + interval '0.9 ms'),
                        scru128_max(scru128_extract_timestamp($1))",
                &[&Native(v.id)],
            )
            .unwrap();
        let ms = v.id.unix_ts_ms();
        assert_eq!(
            row.get::<_, Native>(0).0,
            Scru128Id::try_min_at_unix_ts_ms(ms).unwrap()
        );
        assert_eq!(
            row.get::<_, Native>(1).0,
            Scru128Id::try_max_at_unix_ts_ms(ms).unwrap()
        );
    }
}

#[test]
fn bad_input_is_an_error_with_sqlstate_and_the_librarys_message() {
    let mut db = fresh_db("io_bad_input");
    let backend: i32 = db.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let started: String = db
        .query_one("SELECT pg_postmaster_start_time()::text", &[])
        .unwrap()
        .get(0);
    let digits = "expected 0-9 or A-V in either case";
    let hex = "expected 0-9 or a-f in either case";
    let hyphen = "expected '-' (UUID form 8-4-4-4-12)";
    let other_forms = "(32 hex digits and the 36-character UUID form are also accepted)";
    // (input, the library's reason, the reason in SQL: positions count from 1)
    for (input, library, expected) in [
        (
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK!",
            format!("invalid digit '!' at position 25: {digits}"),
            format!("invalid digit '!' at position 26: {digits}"),
        ),
        (
            "",
            "invalid length: expected 26 characters, found 0".into(),
            format!("invalid length: expected 26 characters, found 0 {other_forms}"),
        ),
        (
            "00PGHAJ3Q9VAJ7IU6PQBHBUAK",
            "invalid length: expected 26 characters, found 25".into(),
            format!("invalid length: expected 26 characters, found 25 {other_forms}"),
        ),
        (
            "80000000000000000000000000",
            "out of range: the first digit is '8', above the largest allowed '7'".into(),
            "out of range: the first digit is '8', above the largest allowed '7'".into(),
        ),
        (
            "00PGHAJ3Q9VAJ7IU6PQBHBUAKW",
            format!("invalid digit 'W' at position 25: {digits}"),
            format!("invalid digit 'W' at position 26: {digits}"),
        ),
        (
            "00PGHAJ3Q9VAJ7IU6PQBHBUAKé",
            format!("invalid digit 'é' at position 25: {digits}"),
            format!("invalid digit 'é' at position 26: {digits}"),
        ),
        (
            " 0PGHAJ3Q9VAJ7IU6PQBHBUAK4",
            format!("invalid digit ' ' at position 0: {digits}"),
            format!("invalid digit ' ' at position 1: {digits}"),
        ),
        // the hex and UUID forms, told apart by their length
        (
            "0x0c22a98f49faa67978d9d2e2bf2a84",
            format!("invalid hex digit 'x' at position 1: {hex}"),
            format!("invalid hex digit 'x' at position 2: {hex}"),
        ),
        (
            "00cc22a98f49faa67978d9d2e2bf2a8g",
            format!("invalid hex digit 'g' at position 31: {hex}"),
            format!("invalid hex digit 'g' at position 32: {hex}"),
        ),
        (
            "00cc22a9_8f49-faa6-7978-d9d2e2bf2a84",
            format!("invalid character '_' at position 8: {hyphen}"),
            format!("invalid character '_' at position 9: {hyphen}"),
        ),
        (
            "00cc22a9-8f49-faa6-7978-d9d2e2bf2a8é",
            format!("invalid hex digit 'é' at position 35: {hex}"),
            format!("invalid hex digit 'é' at position 36: {hex}"),
        ),
        (
            "00cc22a98-f49-faa6-7978-d9d2e2bf2a84",
            format!("invalid character '8' at position 8: {hyphen}"),
            format!("invalid character '8' at position 9: {hyphen}"),
        ),
        // braces, a prefix, spaces: no form has their length
        (
            "{00cc22a9-8f49-faa6-7978-d9d2e2bf2a84}",
            "invalid length: expected 26 characters, found 38".into(),
            format!("invalid length: expected 26 characters, found 38 {other_forms}"),
        ),
        (
            "urn:uuid:00cc22a9-8f49-faa6-7978-d9d2e2bf2a84",
            "invalid length: expected 26 characters, found 45".into(),
            format!("invalid length: expected 26 characters, found 45 {other_forms}"),
        ),
    ] {
        // the library's own reason, word for word (its parser for the input's length)
        let parsed = match input.chars().count() {
            32 => Scru128Id::try_from_hex(input),
            36 => Scru128Id::try_from_uuid_str(input),
            _ => input.parse::<Scru128Id>(),
        };
        assert_eq!(parsed.unwrap_err().to_string(), library, "{input}");
        let quoted = input.replace('\'', "''");
        let want = format!("22P02: invalid input syntax for type scru128: \"{input}\": {expected}");
        // a literal (the input function) and a cast from text
        assert_eq!(
            error_of(&mut db, &format!("SELECT '{quoted}'::scru128")),
            want
        );
        assert_eq!(
            error_of(&mut db, &format!("SELECT '{quoted}'::text::scru128")),
            want
        );
    }
    for (sql, expected) in [
        (
            "SELECT '\\x0102'::bytea::scru128",
            "22P03: invalid length for type scru128: expected 16 bytes, found 2",
        ),
        (
            "SELECT scru128_from_fields(17592186044416, 0, 0, 0)",
            "22003: timestamp 17592186044416 is out of range (maximum 17592186044415)",
        ),
        (
            "SELECT scru128_from_fields(0, 268435456, 0, 0)",
            "22003: counter 268435456 is out of range (maximum 268435455)",
        ),
        (
            "SELECT scru128_from_fields(0, 0, 16777216, 0)",
            "22003: per_sec_random 16777216 is out of range (maximum 16777215)",
        ),
        (
            "SELECT scru128_from_fields(0, 0, 0, 4294967296)",
            "22003: per_gen_random 4294967296 is out of range (maximum 4294967295)",
        ),
        (
            "SELECT scru128_from_fields(-1, 0, 0, 0)",
            "22003: timestamp -1 is out of range (minimum 0)",
        ),
        (
            "SELECT scru128_from_fields(0, 0, 0, -1)",
            "22003: per_gen_random -1 is out of range (minimum 0)",
        ),
        (
            "SELECT scru128_min('2019-12-31 23:59:59.999Z')",
            "22008: timestamp out of range for scru128: unix time 1577836799999 ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)",
        ),
        (
            "SELECT scru128_max('2600-01-01Z')",
            "22008: timestamp out of range for scru128: unix time 19880899200000 ms is outside the SCRU128 range (2020-01-01T00:00:00Z plus 2^44-1 ms)",
        ),
        (
            "SELECT scru128_min('infinity')",
            "22008: timestamp out of range for scru128: infinity",
        ),
        (
            "SELECT scru128_max('-infinity')",
            "22008: timestamp out of range for scru128: -infinity",
        ),
        (
            "SELECT scru128_min('1960-01-01Z')",
            "22008: timestamp out of range for scru128: before the unix epoch",
        ),
    ] {
        assert_eq!(error_of(&mut db, sql), expected, "{sql}");
    }
    // binary input of the wrong length, through a bytea parameter sent as the type
    let short = db
        .query_one("SELECT $1::scru128", &[&RawParam(vec![1; 15])])
        .unwrap_err();
    assert_eq!(describe(&short), "08P01: insufficient data left in message");
    let long = db
        .query_one("SELECT $1::scru128", &[&RawParam(vec![1; 17])])
        .unwrap_err();
    assert_eq!(
        describe(&long),
        "22P03: incorrect binary data format in bind parameter 1"
    );
    // the first millisecond of 2020 is the first bound
    let first: Native = db
        .query_one("SELECT scru128_min('2020-01-01Z')", &[])
        .unwrap()
        .get(0);
    assert_eq!(first.0, Scru128Id::MIN);

    // every error was an ordinary ERROR: same backend, no server restart
    let row = db
        .query_one(
            "SELECT pg_backend_pid(), pg_postmaster_start_time()::text",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), backend);
    assert_eq!(row.get::<_, String>(1), started);
}

/// Arbitrary bytes sent as a binary `scru128` parameter.
#[derive(Debug)]
struct RawParam(Vec<u8>);

impl postgres::types::ToSql for RawParam {
    fn to_sql(
        &self,
        _: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(postgres::types::IsNull::No)
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        ty.name() == "scru128"
    }

    postgres::types::to_sql_checked!();
}

/// `COPY ... (FORMAT binary)` data of a one-column table of IDs: the header, one tuple
/// (one 16-byte field) per ID, the trailer.
fn copy_binary(ids: &[Scru128Id]) -> Vec<u8> {
    let mut data = b"PGCOPY\n\xff\r\n\0".to_vec();
    data.extend_from_slice(&[0; 8]); // flags, header extension length
    for id in ids {
        data.extend_from_slice(&1i16.to_be_bytes());
        data.extend_from_slice(&16i32.to_be_bytes());
        data.extend_from_slice(id.as_bytes());
    }
    data.extend_from_slice(&(-1i16).to_be_bytes());
    data
}

#[test]
fn copy_binary_out_and_in_carries_the_16_bytes() {
    let mut db = fresh_db("io_copy_binary");
    db.batch_execute("CREATE TABLE t (id scru128 PRIMARY KEY); CREATE TABLE u (id scru128)")
        .unwrap();
    let mut rng = SplitMix64(7);
    let mut ids: Vec<Scru128Id> = (0..1000)
        .map(|_| Scru128Id::from_u128(rng.next_u128()))
        .collect();
    ids.extend([Scru128Id::MIN, Scru128Id::MAX]);
    let mut writer = db.copy_in("COPY t FROM STDIN (FORMAT binary)").unwrap();
    writer.write_all(&copy_binary(&ids)).unwrap();
    writer.finish().unwrap();

    let texts: Vec<String> = db
        .query("SELECT id::text FROM t ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(
        texts,
        sorted.iter().map(|id| id.to_string()).collect::<Vec<_>>()
    );

    // COPY TO STDOUT (FORMAT binary) gives back the same bytes, and COPY FROM takes them
    let mut out = Vec::new();
    db.copy_out("COPY (SELECT id FROM t ORDER BY id) TO STDOUT (FORMAT binary)")
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    assert!(out == copy_binary(&sorted), "binary COPY output differs");
    let mut writer = db.copy_in("COPY u FROM STDIN (FORMAT binary)").unwrap();
    writer.write_all(&out).unwrap();
    writer.finish().unwrap();
    let same: bool = db
        .query_one(
            "SELECT (SELECT array_agg(id ORDER BY id) FROM t) = (SELECT array_agg(id ORDER BY id) FROM u)",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(same);
}

#[test]
fn casts_have_the_documented_contexts_and_uuid_columns_convert_in_place() {
    let mut db = fresh_db("io_casts");
    let contexts: Vec<(String, String, String, String)> = db
        .query(
            "SELECT format_type(castsource, NULL), format_type(casttarget, NULL), castcontext::text, castmethod::text
               FROM pg_cast
              WHERE castsource = 'scru128'::regtype OR casttarget = 'scru128'::regtype
              ORDER BY 1, 2",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let expect = |s: &str, t: &str, c: &str, m: &str| (s.into(), t.into(), c.into(), m.into());
    assert_eq!(
        contexts,
        vec![
            expect("bytea", "scru128", "e", "f"),
            expect("scru128", "bytea", "a", "f"),
            expect("scru128", "text", "a", "f"),
            expect("scru128", "timestamp with time zone", "e", "f"),
            expect("scru128", "uuid", "a", "b"),
            expect("text", "scru128", "e", "f"),
            expect("uuid", "scru128", "a", "b"),
        ]
    );

    // a uuid column written by this crate converts in place: no USING, no rewrite
    db.batch_execute("CREATE TABLE t (id uuid PRIMARY KEY, n int)")
        .unwrap();
    let ids: Vec<Scru128Id> = (0..1000).map(|_| scru128::scru128()).collect();
    for (n, id) in ids.iter().enumerate() {
        db.execute(
            "INSERT INTO t VALUES ($1::text::uuid, $2)",
            &[&format!("{:032x}", id.as_u128()), &(n as i32)],
        )
        .unwrap();
    }
    let before: i64 = db
        .query_one("SELECT pg_relation_filenode('t')::bigint", &[])
        .unwrap()
        .get(0);
    db.batch_execute("ALTER TABLE t ALTER COLUMN id TYPE scru128")
        .unwrap();
    let after: i64 = db
        .query_one("SELECT pg_relation_filenode('t')::bigint", &[])
        .unwrap()
        .get(0);
    assert_eq!(before, after, "the table was rewritten");
    let texts: Vec<String> = db
        .query("SELECT id::text FROM t ORDER BY n", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        texts,
        ids.iter().map(|id| id.to_string()).collect::<Vec<_>>()
    );
    // the new primary key index is a scru128 btree and finds the rows
    let opclass: String = db
        .query_one(
            "SELECT opcname::text FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
              WHERE indrelid = 't'::regclass",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(opclass, "scru128_ops");

    // assignment: a scru128 into uuid, text and bytea columns; uuid into scru128
    db.batch_execute(
        "CREATE TABLE w (u uuid, t text, b bytea, s scru128);
         INSERT INTO w SELECT id, id, id, id::uuid FROM t",
    )
    .unwrap();
    let all_equal: bool = db
        .query_one(
            "SELECT bool_and(u::scru128 = s AND t::scru128 = s AND b::scru128 = s) AND count(*) = 1000 FROM w",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(all_equal);
    // a uuid parameter (what a client that only knows uuid sends) compares with a
    // scru128 column, and uses its index
    let id = ids[500];
    let n: i32 = db
        .query_one(
            "SELECT n FROM t WHERE id = $1::text::uuid",
            &[&format!("{:032x}", id.as_u128())],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 500);
    db.batch_execute("SET enable_seqscan = off").unwrap();
    let plan = common::explain(
        &mut db,
        "SELECT n FROM t WHERE id = 'ab1d2f34-0000-0000-0000-000000000000'::uuid",
    );
    assert!(plan.contains("Index Scan using t_pkey"), "{plan}");
    // no implicit cast either way: a scru128 is not silently a uuid, nor text, and a
    // uuid not a scru128
    assert!(
        error_of(&mut db, "SELECT length(gen_scru128())")
            .starts_with("42883: function length(scru128) does not exist"),
    );
    assert!(
        error_of(&mut db, "SELECT scru128_counter(gen_random_uuid())")
            .starts_with("42883: function scru128_counter(uuid) does not exist"),
    );
    // a text COPY reads every form
    db.batch_execute("CREATE TABLE c (id scru128)").unwrap();
    let mut writer = db.copy_in("COPY c FROM STDIN").unwrap();
    writer
        .write_all(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK4\n00cc22a98f49faa67978d9d2e2bf2a84\n00cc22a9-8f49-faa6-7978-d9d2e2bf2a84\n")
        .unwrap();
    writer.finish().unwrap();
    let distinct: i64 = db
        .query_one("SELECT count(DISTINCT id) FROM c", &[])
        .unwrap()
        .get(0);
    assert_eq!(distinct, 1);
}

#[test]
fn pg_dump_and_restore_round_trip_a_table_keyed_by_scru128() {
    let bindir = std::env::var("SCRU128_PG_BINDIR")
        .expect("SCRU128_PG_BINDIR (set by scripts/pg-server) names the PostgreSQL programs");
    let (mut db, url) = common::fresh_db_on(0, "io_dump_source", true);
    db.batch_execute(
        "CREATE TABLE item (id scru128 PRIMARY KEY DEFAULT gen_scru128(), name text NOT NULL, parent scru128 REFERENCES item);
         CREATE INDEX item_brin ON item USING brin (id);
         INSERT INTO item (name) SELECT 'n' || n FROM generate_series(1, 10000) n;
         UPDATE item SET parent = (SELECT min(id) FROM item) WHERE name LIKE '%7';",
    )
    .unwrap();
    let fingerprint = "SELECT md5(string_agg(id::text || ':' || name || ':' || coalesce(parent::text, '-'), ',' ORDER BY id)), count(*) FROM item";
    let before = db.query_one(fingerprint, &[]).unwrap();
    let (sum, count): (String, i64) = (before.get(0), before.get(1));
    assert_eq!(count, 10000);

    let dump = std::env::temp_dir().join(format!("scru128-dump-{}.pgdump", std::process::id()));
    let status = std::process::Command::new(format!("{bindir}/pg_dump"))
        .args(["--format=custom", "--file"])
        .arg(&dump)
        .arg(&url)
        .status()
        .expect("pg_dump runs");
    assert!(status.success(), "pg_dump failed");
    let (mut target, target_url) = common::fresh_db_on(0, "io_dump_target", false);
    let status = std::process::Command::new(format!("{bindir}/pg_restore"))
        .args(["--exit-on-error", "--dbname", &target_url])
        .arg(&dump)
        .status()
        .expect("pg_restore runs");
    std::fs::remove_file(&dump).ok();
    assert!(status.success(), "pg_restore failed");

    let after = target.query_one(fingerprint, &[]).unwrap();
    assert_eq!(
        (after.get::<_, String>(0), after.get::<_, i64>(1)),
        (sum, count)
    );
    // the restored key, indexes and default work
    target
        .batch_execute("INSERT INTO item (name) VALUES ('after restore')")
        .unwrap();
    let err = error_of(
        &mut target,
        "INSERT INTO item (id, name) SELECT id, 'dup' FROM item LIMIT 1",
    );
    assert!(err.starts_with("23505:"), "{err}");
    let indexes: i64 = target
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'item' AND indexname IN ('item_pkey', 'item_brin')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(indexes, 2);
}
