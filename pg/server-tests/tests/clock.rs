//! A clock outside the range SCRU128 can represent is an ordinary ERROR, not a crash.
//!
//! Ignored by default: it needs a server whose clock libfaketime sets to 2019.
//! `scripts/test-pg` starts one and runs it with `--ignored`.

mod common;

use common::{error_of, fresh_db};

#[test]
#[ignore = "needs a server whose clock is set to 2019 (scripts/test-pg runs it)"]
fn gen_scru128_with_the_clock_in_2019_is_an_error_and_the_backend_lives_on() {
    let mut db = fresh_db("clock_2019");
    let year: f64 = db
        .query_one("SELECT extract(year FROM clock_timestamp())::float8", &[])
        .unwrap()
        .get(0);
    assert_eq!(year, 2019.0, "the server's clock is not set to 2019");
    let pid: i32 = db.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    for _ in 0..3 {
        let err = error_of(&mut db, "SELECT gen_scru128()");
        assert!(
            err.starts_with("58000: gen_scru128: clock reads unix time 15"),
            "{err}"
        );
        assert!(err.ends_with("outside the range SCRU128 can generate (after 2020-01-01T00:00:00Z, before 2020-01-01T00:00:00Z plus 2^44-1 ms)"), "{err}");
    }
    let err = error_of(
        &mut db,
        "CREATE TABLE t (id scru128 PRIMARY KEY DEFAULT gen_scru128()); INSERT INTO t DEFAULT VALUES",
    );
    assert!(err.starts_with("58000: gen_scru128: clock reads"), "{err}");
    // the same backend, still working
    let row = db
        .query_one(
            "SELECT pg_backend_pid(), scru128_from_fields(1, 2, 3, 4)::text",
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), pid);
    assert_eq!(row.get::<_, String>(1), "000000000G000040000C000004");
}
