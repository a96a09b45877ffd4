//! A 1 GB `zeroblob` given to the functions that take a 16-byte BLOB, under a 100 MB
//! heap limit: each answers from the length alone (the error, or 0 from
//! `scru128_is_valid`), without SQLite making the gigabyte of zeros. A control shows
//! the limit refuses to make it.
//!
//! Its own test binary: `PRAGMA hard_heap_limit` is process-wide.

mod common;

use common::open;

const GIGABYTE: &str = "zeroblob(1000000000)";

fn message(err: rusqlite::Error) -> String {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message,
        other => other.to_string(),
    }
}

#[test]
fn a_gigabyte_zeroblob_is_refused_by_its_length() {
    let conn = open(":memory:");
    let limit: i64 = conn
        .query_row("PRAGMA hard_heap_limit = 100000000", [], |row| row.get(0))
        .unwrap();
    assert_eq!(limit, 100_000_000);
    let query = |sql: &str| {
        conn.query_row(sql, [], |row| row.get::<_, rusqlite::types::Value>(0))
            .map_err(message)
    };

    // Control: making the zeros is refused under the limit.
    let made = query(&format!("SELECT length({GIGABYTE} || x'00')"));
    assert_eq!(made, Err("out of memory".to_owned()), "the limit holds");
    // ... while the zeroblob itself is only a length.
    assert_eq!(
        query(&format!("SELECT length({GIGABYTE})")),
        Ok(rusqlite::types::Value::Integer(1_000_000_000))
    );

    for name in [
        "scru128_text",
        "scru128_to_blob",
        "scru128_uuid",
        "scru128_timestamp_ms",
        "scru128_datetime",
    ] {
        assert_eq!(
            query(&format!("SELECT {name}({GIGABYTE})")),
            Err(format!(
                "{name}: expected a 16-byte BLOB, found 1000000000 bytes"
            )),
        );
    }
    assert_eq!(
        query(&format!("SELECT scru128_is_valid({GIGABYTE})")),
        Ok(rusqlite::types::Value::Integer(0))
    );
    for name in ["scru128_min", "scru128_max"] {
        assert_eq!(
            query(&format!("SELECT {name}({GIGABYTE})")),
            Err(format!(
                "{name}: expected unix milliseconds as INTEGER or a time string as TEXT, \
                 found BLOB"
            )),
        );
    }
    // A 16-byte zeroblob is still read as the ID it is.
    assert_eq!(
        query("SELECT scru128_text(zeroblob(16))"),
        Ok(rusqlite::types::Value::Text(
            "00000000000000000000000000".to_owned()
        ))
    );
    println!("a 1 GB zeroblob under a 100 MB heap limit: refused by its length in 8 functions");
}
