//! Comparisons of `scru128` with `uuid`, both ways round: exact operators, with uuid's
//! byte order, in the btree and hash families that the two types share (PostgreSQL's
//! uuid_ops); either type's index serves them, also with arrays of the other type; an
//! operator another role creates cannot take their place.

mod common;

use common::{Native, SplitMix64, connect, describe, error_of, explain, fresh_db_on};
use postgres::Client;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use scru128::Scru128Id;

/// A `uuid` parameter: the 16 bytes.
#[derive(Debug, Clone, Copy)]
struct Uuid(Scru128Id);

impl ToSql for Uuid {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::UUID
    }

    to_sql_checked!();
}

const OPERATORS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];

#[test]
fn the_operators_exist_exactly_in_both_orders_on_the_uuid_functions() {
    let (mut db, _) = fresh_db_on(0, "cross_catalog", true);
    for (left, right) in [("scru128", "uuid"), ("uuid", "scru128")] {
        for op in OPERATORS {
            let row = db
                .query_one(
                    "SELECT o.oprnamespace::regnamespace::text, p.prosrc, p.prolang::regproc::text,
                            o.oprcom <> 0, o.oprnegate <> 0
                       FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
                      WHERE o.oid = ($1 || '(' || $2 || ',' || $3 || ')')::regoperator",
                    &[&op, &left, &right],
                )
                .unwrap_or_else(|err| panic!("{op}({left}, {right}): {}", describe(&err)));
            let name = match op {
                "=" => "eq",
                "<>" => "ne",
                "<" => "lt",
                "<=" => "le",
                ">" => "gt",
                _ => "ge",
            };
            assert_eq!(row.get::<_, String>(0), "public");
            assert_eq!(row.get::<_, String>(1), format!("uuid_{name}"));
            assert!(row.get::<_, bool>(3) && row.get::<_, bool>(4), "{op}");
        }
    }
    // one btree and one hash family, PostgreSQL's uuid_ops, holds both types' classes
    // and the cross-type operators (5 + 1 per order), complete: amvalidate passes
    let members: Vec<(String, String, String, i64)> = db
        .query(
            "SELECT f.opfname::text || ' ' || a.amname, format_type(o.amoplefttype, NULL),
                    format_type(o.amoprighttype, NULL), count(*)
               FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
              WHERE 'scru128'::regtype IN (o.amoplefttype, o.amoprighttype) AND a.amname <> 'brin'
              GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let m = |f: &str, l: &str, r: &str, n: i64| (f.to_owned(), l.to_owned(), r.to_owned(), n);
    assert_eq!(
        members,
        [
            m("uuid_ops btree", "scru128", "scru128", 5),
            m("uuid_ops btree", "scru128", "uuid", 5),
            m("uuid_ops btree", "uuid", "scru128", 5),
            m("uuid_ops hash", "scru128", "scru128", 1),
            m("uuid_ops hash", "scru128", "uuid", 1),
            m("uuid_ops hash", "uuid", "scru128", 1),
        ]
    );
    let invalid: Vec<String> = db
        .query(
            "SELECT c.opcname || ' ' || a.amname FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
              WHERE c.opcname IN ('uuid_ops', 'scru128_ops', 'scru128_minmax_ops') AND NOT amvalidate(c.oid)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(invalid.is_empty(), "amvalidate fails for {invalid:?}");
}

#[test]
fn comparisons_with_uuid_follow_the_byte_order_both_ways() {
    let (mut db, _) = fresh_db_on(0, "cross_order", true);
    let mut rng = SplitMix64(21);
    let mut values: Vec<Scru128Id> = (0..400)
        .map(|_| Scru128Id::from_u128(rng.next_u128()))
        .collect();
    // byte boundaries, where a signed or little-endian comparison would differ, and
    // values that differ in one byte only
    for byte in [0x00u8, 0x01, 0x7f, 0x80, 0xfe, 0xff] {
        for pos in [0, 3, 8, 15] {
            let mut bytes = [0x80u8; 16];
            bytes[pos] = byte;
            values.push(Scru128Id::from_bytes(bytes));
        }
    }
    values.extend([Scru128Id::MIN, Scru128Id::MAX]);
    let natives: Vec<Native> = values.iter().copied().map(Native).collect();
    db.execute(
        "CREATE TABLE v AS SELECT a.id AS s, b.id::uuid AS u
           FROM unnest($1::scru128[]) a(id), unnest($1::scru128[]) b(id)
          WHERE (hashtext(a.id::text || b.id::text) & 7) = 0 OR a.id = b.id",
        &[&natives],
    )
    .unwrap();
    let rows = db
        .query(
            "SELECT s, u::scru128,
                    s = u, s <> u, s < u, s <= u, s > u, s >= u,
                    u = s, u <> s, u < s, u <= s, u > s, u >= s,
                    scru128_cmp_uuid(s, u), uuid_cmp_scru128(u, s)
               FROM v",
            &[],
        )
        .unwrap();
    assert!(rows.len() > 20_000, "only {} pairs", rows.len());
    for row in &rows {
        let (a, b) = (row.get::<_, Native>(0).0, row.get::<_, Native>(1).0);
        let expected = [a == b, a != b, a < b, a <= b, a > b, a >= b];
        let mirrored = [b == a, b != a, b < a, b <= a, b > a, b >= a];
        let got: Vec<bool> = (2..14).map(|i| row.get(i)).collect();
        assert_eq!(got[..6], expected, "{a} op {b}");
        assert_eq!(got[6..], mirrored, "{b} op {a}");
        let cmp = a.cmp(&b) as i32;
        assert_eq!(row.get::<_, i32>(14).signum(), cmp, "cmp({a}, {b})");
        assert_eq!(row.get::<_, i32>(15).signum(), -cmp, "cmp({b}, {a})");
    }
}

#[test]
fn either_index_serves_a_comparison_with_the_other_type() {
    let (mut db, _) = fresh_db_on(0, "cross_index", true);
    db.batch_execute(
        "CREATE TABLE s (id scru128 PRIMARY KEY, n int NOT NULL);
         CREATE TABLE u (u uuid PRIMARY KEY, n int NOT NULL);
         CREATE INDEX s_hash ON s USING hash (id);
         CREATE INDEX u_hash ON u USING hash (u);
         INSERT INTO s SELECT md5(n::text)::uuid::scru128, n FROM generate_series(1, 20000) n;
         INSERT INTO u SELECT md5(n::text)::uuid, n FROM generate_series(1, 20000) n;
         ANALYZE s; ANALYZE u;
         SET enable_seqscan = off; SET enable_bitmapscan = off;",
    )
    .unwrap();
    let key = "c4ca4238-a0b9-2382-0dcc-509a6f75849b"; // md5('1')
    for (sql, index) in [
        // a scru128 index, uuid values on either side
        (format!("SELECT n FROM s WHERE id = '{key}'::uuid"), "s_"),
        (format!("SELECT n FROM s WHERE '{key}'::uuid = id"), "s_"),
        (
            format!(
                "SELECT n FROM s WHERE id >= '{key}'::uuid AND id < 'd0000000-0000-0000-0000-000000000000'::uuid"
            ),
            "s_pkey",
        ),
        (
            format!(
                "SELECT n FROM s WHERE id = ANY (ARRAY['{key}'::uuid, 'c81e728d-9d4c-2f63-6f06-7f89cc14862c'])"
            ),
            "s_pkey",
        ),
        // a uuid index, scru128 values on either side
        (
            format!("SELECT n FROM u WHERE u = '{key}'::uuid::scru128"),
            "u_",
        ),
        (
            format!("SELECT n FROM u WHERE '{key}'::uuid::scru128 = u"),
            "u_",
        ),
        (
            format!(
                "SELECT n FROM u WHERE u BETWEEN '{key}'::uuid::scru128 AND scru128_max(now())"
            ),
            "u_pkey",
        ),
        (
            "SELECT n FROM u WHERE u = ANY (ARRAY[scru128_min(now()), scru128_max(now())])".into(),
            "u_pkey",
        ),
    ] {
        let plan = explain(&mut db, &sql);
        assert!(
            plan.contains("Index Scan using ") && plan.contains(index),
            "{sql}\n{plan}"
        );
        assert!(
            !plan.contains("::scru128 ="),
            "a cast in the plan: {sql}\n{plan}"
        );
    }
    // arrays of the other type (sqlx binds a Vec of IDs as uuid[]), = and inequalities
    let keys = "'{c4ca4238-a0b9-2382-0dcc-509a6f75849b,c81e728d-9d4c-2f63-6f06-7f89cc14862c}'";
    for (sql, index, count) in [
        (
            format!("SELECT count(*) FROM s WHERE id = ANY ({keys}::uuid[])"),
            "s_pkey",
            2,
        ),
        (
            format!("SELECT count(*) FROM s WHERE id < ANY ({keys}::uuid[])"),
            "s_pkey",
            -1,
        ),
        (
            format!("SELECT count(*) FROM s WHERE id > ALL ({keys}::uuid[])"),
            "s_pkey",
            -1,
        ),
        (
            format!("SELECT count(*) FROM u WHERE u = ANY ({keys}::uuid[]::scru128[])"),
            "u_pkey",
            2,
        ),
        (
            format!("SELECT count(*) FROM u WHERE u >= ANY ({keys}::uuid[]::scru128[])"),
            "u_pkey",
            -1,
        ),
    ] {
        let plan = explain(&mut db, &sql);
        assert!(
            plan.contains(&format!("Scan using {index}")),
            "{sql}\n{plan}"
        );
        let got: i64 = db
            .query_one(&sql, &[])
            .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)))
            .get(0);
        // the same count through uuid's own operators
        let reference = sql
            .replace("FROM s WHERE id", "FROM s WHERE id::uuid")
            .replace("::uuid[]::scru128[]", "::uuid[]");
        db.batch_execute("SET enable_seqscan = on").unwrap();
        let want: i64 = db.query_one(&reference, &[]).unwrap().get(0);
        db.batch_execute("SET enable_seqscan = off").unwrap();
        assert_eq!(got, want, "{sql}");
        if count >= 0 {
            assert_eq!(got, count, "{sql}");
        }
    }
    // the hash indexes alone
    db.batch_execute("ALTER TABLE s DROP CONSTRAINT s_pkey; ALTER TABLE u DROP CONSTRAINT u_pkey")
        .unwrap();
    for sql in [
        format!("SELECT n FROM s WHERE id = '{key}'::uuid"),
        format!("SELECT n FROM u WHERE u = '{key}'::uuid::scru128"),
    ] {
        let plan = explain(&mut db, &sql);
        assert!(
            plan.contains("Index Scan using ") && plan.contains("_hash"),
            "{sql}\n{plan}"
        );
        let n: i32 = db.query_one(&sql, &[]).unwrap().get(0);
        assert_eq!(n, 1, "{sql}");
    }
    // with parameters typed by the client, as sqlx sends IDs (uuid) and the postgres
    // client sends the native type
    db.batch_execute("RESET enable_seqscan; RESET enable_bitmapscan")
        .unwrap();
    let id = Scru128Id::try_from_uuid_str(key).unwrap();
    let statement = db
        .prepare_typed("SELECT n FROM s WHERE id = $1", &[Type::UUID])
        .unwrap();
    let n: i32 = db.query_one(&statement, &[&Uuid(id)]).unwrap().get(0);
    assert_eq!(n, 1);
    let n: i32 = db
        .query_one("SELECT n FROM u WHERE u = $1::scru128", &[&Native(id)])
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
}

#[test]
fn hash_merge_and_nested_loop_joins_between_the_types_agree() {
    let (mut db, _) = fresh_db_on(0, "cross_joins", true);
    db.batch_execute(
        "CREATE TABLE s (id scru128 NOT NULL);
         CREATE TABLE u (u uuid NOT NULL);
         INSERT INTO s SELECT md5(n::text)::uuid::scru128 FROM generate_series(1, 3000) n;
         INSERT INTO u SELECT md5(n::text)::uuid FROM generate_series(2001, 5000) n;
         ANALYZE s; ANALYZE u;",
    )
    .unwrap();
    for (settings, node) in [
        (
            "SET enable_mergejoin = off; SET enable_nestloop = off",
            "Hash Join",
        ),
        (
            "SET enable_hashjoin = off; SET enable_nestloop = off",
            "Merge Join",
        ),
        (
            "SET enable_hashjoin = off; SET enable_mergejoin = off",
            "Nested Loop",
        ),
    ] {
        db.batch_execute(settings).unwrap();
        for sql in [
            "SELECT count(*) FROM s JOIN u ON s.id = u.u",
            "SELECT count(*) FROM s JOIN u ON u.u = s.id",
        ] {
            let plan = explain(&mut db, sql);
            assert!(plan.contains(node), "{settings}: {sql}\n{plan}");
            let count: i64 = db.query_one(sql, &[]).unwrap().get(0);
            assert_eq!(count, 1_000, "{settings}: {sql}");
        }
        db.batch_execute("RESET ALL").unwrap();
    }
}

/// A role that may create in `public`, as on clusters upgraded from PostgreSQL 14 or
/// older (where every role may).
fn untrusted_role(admin: &mut Client, role: &str) {
    admin
        .batch_execute(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
             GRANT CREATE ON SCHEMA public TO {role};"
        ))
        .unwrap();
}

/// The hostile operator's function: it raises, so that a call shows.
fn hostile_function(role_db: &mut Client, left: &str, right: &str) {
    role_db
        .batch_execute(&format!(
            "CREATE FUNCTION public.hostile({left}, {right}) RETURNS boolean LANGUAGE plpgsql
               AS $$ BEGIN RAISE EXCEPTION 'hostile operator called by %', current_user; END $$"
        ))
        .unwrap();
}

#[test]
fn an_operator_another_role_creates_is_not_picked() {
    // the extension in public: the exact operators are there, another role cannot
    // create them again
    let (mut db, url) = fresh_db_on(0, "cross_hijack_public", true);
    untrusted_role(&mut db, "mallory_public");
    let mut mallory = connect(&url.replace("scru128@", "mallory_public@"));
    for (left, right) in [("scru128", "uuid"), ("uuid", "scru128")] {
        hostile_function(&mut mallory, left, right);
        for op in OPERATORS {
            let err = error_of(
                &mut mallory,
                &format!(
                    "CREATE OPERATOR public.{op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = public.hostile)"
                ),
            );
            assert_eq!(
                err,
                format!("42723: operator {op} already exists"),
                "{op}({left}, {right})"
            );
        }
        mallory
            .batch_execute(&format!("DROP FUNCTION public.hostile({left}, {right})"))
            .unwrap();
    }

    // the extension in its own schema, first on the search path (as the README says
    // to put it): an exact operator of another role later on the path loses
    let (mut db, url) = fresh_db_on(0, "cross_hijack_ids", false);
    db.batch_execute("CREATE SCHEMA ids; CREATE EXTENSION scru128 SCHEMA ids")
        .unwrap();
    untrusted_role(&mut db, "mallory_ids");
    // users of the type need it: without it the role could not name the type at all
    db.batch_execute("GRANT USAGE ON SCHEMA ids TO mallory_ids")
        .unwrap();
    let mut mallory = connect(&url.replace("scru128@", "mallory_ids@"));
    for (left, right) in [("ids.scru128", "uuid"), ("uuid", "ids.scru128")] {
        hostile_function(&mut mallory, left, right);
        for op in OPERATORS {
            mallory
                .batch_execute(&format!(
                    "CREATE OPERATOR public.{op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = public.hostile)"
                ))
                .unwrap();
        }
    }
    db.batch_execute(
        "SET search_path = ids, public;
         CREATE TABLE item (id scru128 PRIMARY KEY, u uuid NOT NULL);
         INSERT INTO item SELECT g, g::uuid FROM (SELECT gen_scru128() g FROM generate_series(1, 100)) s;",
    )
    .unwrap();
    let probe = db
        .query_one("SELECT id FROM item ORDER BY id OFFSET 50 LIMIT 1", &[])
        .unwrap()
        .get::<_, Native>(0)
        .0;
    for op in OPERATORS {
        for sql in [
            format!("SELECT count(*) FROM item WHERE id {op} $1"),
            format!("SELECT count(*) FROM item WHERE $1 {op} id"),
            format!("SELECT count(*) FROM item WHERE id {op} u"),
            format!("SELECT count(*) FROM item WHERE u {op} id"),
        ] {
            // a parameter typed uuid by the client, as sqlx sends IDs
            let (types, params): (&[Type], &[&(dyn ToSql + Sync)]) = if sql.contains("$1") {
                (&[Type::UUID], &[&Uuid(probe)])
            } else {
                (&[], &[])
            };
            let count: i64 = db
                .prepare_typed(&sql, types)
                .and_then(|statement| db.query_one(&statement, params))
                .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)))
                .get(0);
            let want = match (op, sql.contains("$1"), sql.contains("WHERE $1")) {
                (_, false, _) => i64::from(matches!(op, "=" | "<=" | ">=")) * 100,
                ("=", ..) => 1,
                ("<>", ..) => 99,
                ("<", _, false) | (">", _, true) => 50,
                ("<=", _, false) | (">=", _, true) => 51,
                (">", _, false) | ("<", _, true) => 49,
                _ => 50, // ">=" with the column left, "<=" with it right
            };
            assert_eq!(count, want, "{sql}");
        }
    }
}
