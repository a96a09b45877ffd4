//! `gen_scru128()` on real servers: strictly increasing within a backend, unique across
//! concurrent backends (each forked from the postmaster, none sharing a random stream)
//! and across two servers with no coordination.
//!
//! `scripts/test-pg` runs this file twice: on servers started plainly, and on a server
//! with `shared_preload_libraries = scru128` (`SCRU128_PG_PRELOAD=1`), where the library
//! is loaded into the postmaster before it forks the backends.

mod common;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::sync::{Arc, Barrier};

use common::{connect, fresh_db, fresh_db_on, server_urls};

/// Whether this run's server must have the library preloaded; checked, so that the
/// preload run cannot silently test the plain setup.
fn check_preload(db: &mut postgres::Client) {
    let preload: String = db
        .query_one("SHOW shared_preload_libraries", &[])
        .unwrap()
        .get(0);
    let expected = std::env::var("SCRU128_PG_PRELOAD").is_ok_and(|v| v == "1");
    assert_eq!(
        preload.split(',').any(|lib| lib.trim() == "scru128"),
        expected,
        "shared_preload_libraries = '{preload}', SCRU128_PG_PRELOAD={expected}"
    );
}

#[test]
fn one_backend_makes_1m_strictly_increasing_ids() {
    let mut db = fresh_db("gen_one_backend");
    check_preload(&mut db);
    let row = db
        .query_one(
            "WITH g AS MATERIALIZED (
                 SELECT n, gen_scru128() AS id FROM generate_series(1, 1000000) n),
             pairs AS (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM g)
             SELECT count(*), count(*) FILTER (WHERE id <= prev), count(DISTINCT id),
                    min(scru128_extract_timestamp(id)) >= now() - interval '1 second',
                    max(scru128_extract_timestamp(id)) <= clock_timestamp() + interval '1 second'
               FROM pairs",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 1_000_000);
    assert_eq!(row.get::<_, i64>(1), 0, "IDs that do not increase");
    assert_eq!(row.get::<_, i64>(2), 1_000_000);
    assert!(
        row.get::<_, bool>(3) && row.get::<_, bool>(4),
        "timestamps off the clock"
    );
    // and on into the following statements of the same backend
    let mut last = scru128::Scru128Id::MIN;
    for _ in 0..100 {
        let next = db
            .query_one("SELECT gen_scru128()", &[])
            .unwrap()
            .get::<_, common::Native>(0)
            .0;
        assert!(next > last);
        last = next;
    }
}

#[test]
fn eight_concurrent_backends_make_1m_ids_with_no_duplicate_and_no_shared_stream() {
    const BACKENDS: usize = 8;
    const EACH: i32 = 125_000;
    let (mut db, url) = fresh_db_on(0, "gen_concurrent", true);
    check_preload(&mut db);
    db.batch_execute("CREATE UNLOGGED TABLE ids (backend int, n int, id scru128)")
        .unwrap();
    let barrier = Arc::new(Barrier::new(BACKENDS));
    let workers: Vec<_> = (0..BACKENDS as i32)
        .map(|backend| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                // a new connection: a backend forked from the postmaster for this thread
                let mut db = connect(&url);
                barrier.wait();
                db.execute(
                    "INSERT INTO ids SELECT $1, n, gen_scru128() FROM generate_series(1, $2) n",
                    &[&backend, &EACH],
                )
                .unwrap();
                db.query_one("SELECT pg_backend_pid()", &[])
                    .unwrap()
                    .get::<_, i32>(0)
            })
        })
        .collect();
    let pids: HashSet<i32> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(pids.len(), BACKENDS, "each thread had a backend of its own");

    let row = db
        .query_one(
            "SELECT count(*), count(DISTINCT id),
                    min(scru128_extract_timestamp(id)), max(scru128_extract_timestamp(id))
               FROM ids",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 1_000_000);
    assert_eq!(row.get::<_, i64>(1), 1_000_000, "duplicate IDs");
    // each backend's IDs strictly increase in its order of generation
    let not_increasing: i64 = db
        .query_one(
            "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY backend ORDER BY n) prev FROM ids) s
              WHERE id <= prev",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(not_increasing, 0);
    // the backends ran at the same time: their millisecond ranges overlap
    let overlapping: bool = db
        .query_one(
            "SELECT max(lo) < min(hi) FROM (
                 SELECT backend, min(scru128_timestamp(id)) lo, max(scru128_timestamp(id)) hi
                   FROM ids GROUP BY backend) s",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(overlapping, "the backends did not run concurrently");

    // no two backends share a random stream: their first per_sec_random values differ,
    // and their per_gen_random values have no more coincidences than chance (two
    // streams in step would share all 125 000)
    let per_sec: Vec<i32> = db
        .query(
            "SELECT scru128_per_sec_random(id) FROM ids WHERE n = 1 ORDER BY backend",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        per_sec.iter().collect::<HashSet<_>>().len(),
        BACKENDS,
        "{per_sec:?}"
    );
    let shared: i64 = db
        .query_one(
            "SELECT count(*) FROM (
                 SELECT scru128_per_gen_random(id) r FROM ids
                  GROUP BY 1 HAVING count(DISTINCT backend) > 1) s",
            &[],
        )
        .unwrap()
        .get(0);
    // 10^6 values of 32 bits: about 116 coincidences by chance (n^2 / 2^33)
    assert!(
        shared < 250,
        "{shared} per_gen_random values are in more than one backend"
    );
    let first_eight: HashSet<Vec<i64>> = db
        .query(
            "SELECT array_agg(scru128_per_gen_random(id) ORDER BY n) FROM ids WHERE n <= 8 GROUP BY backend",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(first_eight.len(), BACKENDS);
}

#[test]
fn sibling_backends_started_one_after_another_never_repeat_a_stream() {
    // Many short-lived backends, each forked from the postmaster in turn: each draws
    // its own first per_sec_random and per_gen_random values.
    let (mut db, url) = fresh_db_on(0, "gen_siblings", true);
    check_preload(&mut db);
    let mut firsts = HashSet::new();
    let mut pids = HashSet::new();
    for _ in 0..50 {
        let mut backend = connect(&url);
        let row = backend
            .query_one(
                "SELECT pg_backend_pid(), array_agg(scru128_per_gen_random(id) ORDER BY n),
                        min(scru128_per_sec_random(id))
                   FROM (SELECT n, gen_scru128() id FROM generate_series(1, 4) n) s",
                &[],
            )
            .unwrap();
        pids.insert(row.get::<_, i32>(0));
        let stream: Vec<i64> = row.get(1);
        let per_sec: i32 = row.get(2);
        assert!(
            firsts.insert((stream.clone(), per_sec)),
            "a backend repeated {stream:?}"
        );
    }
    assert!(pids.len() > 1);
}

#[test]
fn two_servers_mint_1m_keys_each_at_once_and_merge_without_conflict() {
    let urls = server_urls();
    assert!(
        urls.len() >= 2,
        "this test needs two servers: run with SCRU128_PG_SERVERS=2 (scripts/test-pg does)"
    );
    const ROWS: i32 = 1_000_000;
    let dbs: Vec<String> = (0..2)
        .map(|server| {
            let (mut db, url) = fresh_db_on(server, "gen_two_servers", true);
            check_preload(&mut db);
            // The defaults run in column order: the clock just before and just after
            // the key is made bracket its creation time.
            db.batch_execute(
                "CREATE TABLE item (before timestamptz NOT NULL DEFAULT clock_timestamp(),
                                    id scru128 PRIMARY KEY DEFAULT gen_scru128(),
                                    after timestamptz NOT NULL DEFAULT clock_timestamp(),
                                    server int NOT NULL, n int NOT NULL)",
            )
            .unwrap();
            url
        })
        .collect();
    let barrier = Arc::new(Barrier::new(2));
    let workers: Vec<_> = dbs
        .iter()
        .enumerate()
        .map(|(server, url)| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut db = connect(&url);
                barrier.wait();
                db.execute(
                    "INSERT INTO item (server, n) SELECT $1, n FROM generate_series(1, $2) n",
                    &[&(server as i32), &ROWS],
                )
                .unwrap();
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }

    // merge server 2's rows into server 1's table with binary COPY: the primary key
    // would reject any conflicting key
    let mut first = connect(&dbs[0]);
    let mut second = connect(&dbs[1]);
    let mut rows = Vec::new();
    second
        .copy_out("COPY item TO STDOUT (FORMAT binary)")
        .unwrap()
        .read_to_end(&mut rows)
        .unwrap();
    let mut writer = first
        .copy_in("COPY item FROM STDIN (FORMAT binary)")
        .unwrap();
    writer.write_all(&rows).unwrap();
    writer.finish().unwrap();

    let row = first
        .query_one(
            "SELECT count(*), count(DISTINCT id), count(DISTINCT server) FROM item",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 2 * i64::from(ROWS));
    assert_eq!(row.get::<_, i64>(1), 2 * i64::from(ROWS));
    assert_eq!(row.get::<_, i64>(2), 2);
    // the two servers worked at the same time
    let overlap_ms: f64 = first
        .query_one(
            "SELECT (extract(epoch FROM min(hi) - max(lo)) * 1000)::float8 FROM (
                 SELECT server, min(before) lo, max(after) hi FROM item GROUP BY server) s",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        overlap_ms > 0.0,
        "the servers did not mint at the same time"
    );
    // ORDER BY id orders the merged rows by creation time to the millisecond: each key
    // carries the millisecond in which it was made (between the clock readings just
    // before and after it), so in key order no row was made in a millisecond before
    // that of the row ahead of it
    let row = first
        .query_one(
            "SELECT count(*) FILTER (WHERE made < date_trunc('milliseconds', before) OR made > after),
                    count(*) FILTER (WHERE after < date_trunc('milliseconds', prev_before)),
                    count(*) FILTER (WHERE server <> prev_server)
               FROM (SELECT scru128_extract_timestamp(id) made, before, after, server,
                            lag(before) OVER (ORDER BY id) prev_before,
                            lag(server) OVER (ORDER BY id) prev_server
                       FROM item) s",
            &[],
        )
        .unwrap();
    assert_eq!(
        row.get::<_, i64>(0),
        0,
        "keys whose millisecond is not their row's"
    );
    assert_eq!(row.get::<_, i64>(1), 0, "rows out of creation order");
    assert!(
        row.get::<_, i64>(2) > 100,
        "the servers' rows do not interleave"
    );
}
