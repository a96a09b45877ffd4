//! Order, operators, index scans, joins and BRIN on a real server.

mod common;

use common::{Native, SplitMix64, explain, fresh_db};
use postgres::Client;
use scru128::Scru128Id;

/// Loads `ids` into `table` (a one-column `id scru128` table) with a binary parameter
/// array per batch.
fn load(db: &mut Client, table: &str, ids: &[Scru128Id]) {
    let natives: Vec<Native> = ids.iter().copied().map(Native).collect();
    let mut tx = db.transaction().unwrap();
    for batch in natives.chunks(10_000) {
        tx.execute(
            &format!("INSERT INTO {table} (id) SELECT unnest($1::scru128[])"),
            &[&batch],
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

#[test]
fn order_by_of_100k_random_values_is_the_librarys_order() {
    let mut db = fresh_db("idx_order");
    db.batch_execute("CREATE TABLE t (id scru128 NOT NULL)")
        .unwrap();
    let mut rng = SplitMix64(12);
    let mut ids: Vec<Scru128Id> = (0..100_000)
        .map(|_| Scru128Id::from_u128(rng.next_u128()))
        .collect();
    // values at byte boundaries, where a signed or little-endian comparison would differ
    for byte in [0x00u8, 0x7f, 0x80, 0xff] {
        for pos in [0, 7, 8, 15] {
            let mut bytes = [0x55u8; 16];
            bytes[pos] = byte;
            ids.push(Scru128Id::from_bytes(bytes));
        }
    }
    ids.extend([Scru128Id::MIN, Scru128Id::MAX]);
    load(&mut db, "t", &ids);
    let mut expected = ids.clone();
    expected.sort_unstable();

    let fetch = |db: &mut Client, sql: &str| -> Vec<Scru128Id> {
        db.query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| r.get::<_, Native>(0).0)
            .collect()
    };
    // a sort (with uuid's abbreviated keys) ...
    let sorted = fetch(&mut db, "SELECT id FROM t ORDER BY id");
    assert!(
        sorted == expected,
        "ORDER BY differs from the library's order"
    );
    let descending = fetch(&mut db, "SELECT id FROM t ORDER BY id DESC");
    assert!(descending.iter().rev().eq(expected.iter()));
    // ... and a btree index built on the values
    db.batch_execute(
        "CREATE INDEX t_id ON t (id); ANALYZE t; SET enable_seqscan = off; SET enable_sort = off",
    )
    .unwrap();
    let plan = explain(&mut db, "SELECT id FROM t ORDER BY id");
    assert!(plan.contains("Index Only Scan using t_id"), "{plan}");
    let indexed = fetch(&mut db, "SELECT id FROM t ORDER BY id");
    assert!(
        indexed == expected,
        "the index order differs from the library's order"
    );

    // every operator agrees with the library at a few pivots
    db.batch_execute("RESET enable_seqscan; RESET enable_sort")
        .unwrap();
    for &pivot in expected.iter().step_by(20_011) {
        let row = db
            .query_one(
                "SELECT count(*) FILTER (WHERE id < $1), count(*) FILTER (WHERE id <= $1),
                        count(*) FILTER (WHERE id = $1), count(*) FILTER (WHERE id <> $1),
                        count(*) FILTER (WHERE id >= $1), count(*) FILTER (WHERE id > $1),
                        count(*) FILTER (WHERE $1 > id), min(id), max(id) FROM t",
                &[&Native(pivot)],
            )
            .unwrap();
        let below = expected.iter().filter(|&&id| id < pivot).count() as i64;
        let equal = expected.iter().filter(|&&id| id == pivot).count() as i64;
        let total = expected.len() as i64;
        let counts: Vec<i64> = (0..7).map(|i| row.get(i)).collect();
        assert_eq!(
            counts,
            [
                below,
                below + equal,
                equal,
                total - equal,
                total - below,
                total - below - equal,
                below
            ]
        );
        assert_eq!(row.get::<_, Native>(7).0, Scru128Id::MIN);
        assert_eq!(row.get::<_, Native>(8).0, Scru128Id::MAX);
    }
}

#[test]
fn a_time_range_query_with_scru128_min_and_max_uses_the_index() {
    let mut db = fresh_db("idx_bounds");
    db.batch_execute(
        "CREATE TABLE event (id scru128 PRIMARY KEY, at timestamptz NOT NULL);
         -- 30 days, one row a minute, each ID made at its row's time
         INSERT INTO event
         SELECT scru128_from_fields(
                    scru128_timestamp(scru128_min(at)), (n % 1000)::int, 12345, n), at
           FROM (SELECT n, timestamptz '2024-03-01Z' + n * interval '1 minute' AS at
                   FROM generate_series(0, 30 * 1440 - 1) n) s;
         ANALYZE event;",
    )
    .unwrap();
    let query = "SELECT count(*) FROM event
                  WHERE id BETWEEN scru128_min('2024-03-10 12:00Z') AND scru128_max('2024-03-10 12:59:59.999Z')";
    let plan = explain(&mut db, query);
    assert!(
        plan.contains("Index Only Scan using event_pkey")
            || plan.contains("Index Scan using event_pkey"),
        "{plan}"
    );
    let count: i64 = db.query_one(query, &[]).unwrap().get(0);
    assert_eq!(count, 60);
    let by_time: i64 = db
        .query_one(
            "SELECT count(*) FROM event WHERE at >= '2024-03-10 12:00Z' AND at < '2024-03-10 13:00Z'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(by_time, count);
    // a bound is inclusive to the millisecond: the row at 12:00 exactly is in, 13:00 is not
    let edges: i64 = db
        .query_one(
            "SELECT count(*) FROM event WHERE id BETWEEN scru128_min('2024-03-10 13:00Z') AND scru128_max('2024-03-10 13:00Z')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(edges, 1);
}

#[test]
fn hash_join_merge_join_hash_index_and_brin_work() {
    let mut db = fresh_db("idx_joins");
    db.batch_execute(
        "CREATE TABLE a (id scru128 NOT NULL, n int);
         CREATE TABLE b (id scru128 NOT NULL, n int);
         INSERT INTO a SELECT gen_scru128(), n FROM generate_series(1, 20000) n;
         -- every third row of a, in b too, plus rows of its own
         INSERT INTO b SELECT id, n FROM a WHERE n % 3 = 0;
         INSERT INTO b SELECT gen_scru128(), -n FROM generate_series(1, 5000) n;
         ANALYZE a; ANALYZE b;",
    )
    .unwrap();
    let join = "SELECT count(*), sum(a.n) FROM a JOIN b ON a.id = b.id";
    let expected_count = 20000 / 3;
    let expected_sum: i64 = (1..=20000).filter(|n| n % 3 == 0).sum();
    for (settings, node) in [
        (
            "SET enable_mergejoin = off; SET enable_nestloop = off; SET enable_hashjoin = on",
            "Hash Join",
        ),
        (
            "SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_mergejoin = on",
            "Merge Join",
        ),
    ] {
        db.batch_execute(settings).unwrap();
        let plan = explain(&mut db, join);
        assert!(plan.contains(node), "{settings}: {plan}");
        let row = db.query_one(join, &[]).unwrap();
        assert_eq!(
            (row.get::<_, i64>(0), row.get::<_, i64>(1)),
            (expected_count, expected_sum),
            "{node}"
        );
    }
    // the commutator: the same join written the other way round
    let plan = explain(&mut db, "SELECT count(*) FROM a JOIN b ON b.id = a.id");
    assert!(plan.contains("Merge Join"), "{plan}");
    db.batch_execute("RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop")
        .unwrap();
    // hashed grouping and DISTINCT use the hash operator class
    db.batch_execute("SET enable_sort = off").unwrap();
    let plan = explain(&mut db, "SELECT id, count(*) FROM b GROUP BY id");
    assert!(plan.contains("HashAggregate"), "{plan}");
    let groups: i64 = db
        .query_one("SELECT count(*) FROM (SELECT id FROM b GROUP BY id) g", &[])
        .unwrap()
        .get(0);
    assert_eq!(groups, expected_count + 5000);
    db.batch_execute("RESET enable_sort").unwrap();

    // a hash index and a BRIN index answer lookups and ranges
    db.batch_execute(
        "CREATE INDEX a_hash ON a USING hash (id);
         CREATE INDEX a_brin ON a USING brin (id) WITH (pages_per_range = 4);
         ANALYZE a; SET enable_seqscan = off;",
    )
    .unwrap();
    let probe: Native = db
        .query_one("SELECT id FROM a WHERE n = 777", &[])
        .unwrap()
        .get(0);
    db.batch_execute("SET enable_bitmapscan = off").unwrap();
    let plan = explain(
        &mut db,
        &format!("SELECT n FROM a WHERE id = '{}'", probe.0),
    );
    assert!(plan.contains("Index Scan using a_hash"), "{plan}");
    let n: i32 = db
        .query_one("SELECT n FROM a WHERE id = $1", &[&probe])
        .unwrap()
        .get(0);
    assert_eq!(n, 777);
    db.batch_execute("RESET enable_bitmapscan; DROP INDEX a_hash")
        .unwrap();
    let range = "SELECT count(*) FROM a WHERE id >= (SELECT id FROM a WHERE n = 5000) AND id <= (SELECT id FROM a WHERE n = 5999)";
    let plan = explain(&mut db, range);
    assert!(plan.contains("Bitmap Index Scan on a_brin"), "{plan}");
    let count: i64 = db.query_one(range, &[]).unwrap().get(0);
    assert_eq!(count, 1000);
    // the BRIN summary is narrow: the range touches few of the table's blocks
    let rows = db
        .query(
            &format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) {range}"),
            &[],
        )
        .unwrap();
    let text: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    let removed = text
        .iter()
        .find_map(|l| l.trim().strip_prefix("Rows Removed by Index Recheck: "))
        .map_or(0, |v| v.parse::<i64>().unwrap());
    assert!(
        removed < 2000,
        "BRIN recheck removed {removed} rows:\n{}",
        text.join("\n")
    );
}
