//! Shared by the extension's tests: the servers, a fresh database per test, the native
//! type on the client side, the test vectors and a seeded random source.
// Each test binary uses a different part of this module.
#![allow(dead_code, unused_imports)]

use std::error::Error;

use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, NoTls};
use scru128::Scru128Id;

/// The URLs of the servers that `scripts/pg-server` started (`SCRU128_PG_URLS`, or the
/// one `SCRU128_PG_URL`).
pub fn server_urls() -> Vec<String> {
    if let Ok(urls) = std::env::var("SCRU128_PG_URLS") {
        return urls.split_whitespace().map(String::from).collect();
    }
    match std::env::var("SCRU128_PG_URL") {
        Ok(url) => vec![url],
        Err(_) => panic!(
            "SCRU128_PG_URL is not set: the extension's tests need a real PostgreSQL server \
             with the extension installed. Run scripts/test-pg, which installs the extension \
             and starts throwaway servers."
        ),
    }
}

pub fn connect(url: &str) -> Client {
    Client::connect(url, NoTls).unwrap_or_else(|err| panic!("cannot connect to {url}: {err}"))
}

/// The URL of database `name` on the server at `server_url`.
pub fn db_url(server_url: &str, name: &str) -> String {
    let base = server_url
        .rsplit_once('/')
        .expect("a URL with a database")
        .0;
    format!("{base}/{name}")
}

/// A new, empty database `name` on server `server` (index into `server_urls`), with the
/// extension created in `public` if `with_extension`; returns a client and its URL.
pub fn fresh_db_on(server: usize, name: &str, with_extension: bool) -> (Client, String) {
    // CREATE DATABASE copies template1 and fails while another session uses it: one at
    // a time within this test binary.
    static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let server_url = &server_urls()[server];
    {
        let _one_at_a_time = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        let mut admin = connect(server_url);
        for sql in [
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            format!("CREATE DATABASE {name}"),
        ] {
            admin
                .batch_execute(&sql)
                .unwrap_or_else(|err| panic!("{sql}: {}", describe(&err)));
        }
    }
    let url = db_url(server_url, name);
    let mut client = connect(&url);
    if with_extension {
        client
            .batch_execute("CREATE EXTENSION scru128")
            .unwrap_or_else(|err| {
                panic!(
                    "CREATE EXTENSION scru128 failed ({}): is the extension installed? \
                 scripts/test-pg installs it",
                    describe(&err)
                )
            });
    }
    (client, url)
}

pub fn fresh_db(name: &str) -> Client {
    fresh_db_on(0, name, true).0
}

/// SQLSTATE and message of a server error, e.g. "22P02: invalid input syntax ...".
pub fn describe(err: &postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => err.to_string(),
    }
}

/// The SQLSTATE and message of a statement that must fail.
pub fn error_of(client: &mut Client, sql: &str) -> String {
    match client.batch_execute(sql) {
        Ok(()) => panic!("expected an error from {sql}"),
        Err(err) => describe(&err),
    }
}

/// The native type on the client side, independent of the crate's own `postgres`
/// integration: the 16 bytes of the binary protocol, for a type named `scru128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Native(pub Scru128Id);

impl ToSql for Native {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "scru128"
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Native {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let bytes: [u8; 16] = raw
            .try_into()
            .map_err(|_| format!("the server sent {} bytes for a scru128", raw.len()))?;
        Ok(Self(Scru128Id::from_bytes(bytes)))
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "scru128"
    }
}

/// Raw bytes of a `uuid` or `bytea` column.
pub struct Bytes16(pub [u8; 16]);

impl<'a> FromSql<'a> for Bytes16 {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        Ok(Self(raw.try_into().map_err(|_| "not 16 bytes")?))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::UUID || *ty == Type::BYTEA
    }
}

const VECTORS_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/test-vectors.json"
);

/// One test vector: the ID, its text and its fields.
pub struct Vector {
    pub id: Scru128Id,
    pub text: String,
    pub fields: (u64, u32, u32, u32),
}

/// The 50 test vectors of the repository.
pub fn vectors() -> Vec<Vector> {
    let json = std::fs::read_to_string(VECTORS_PATH)
        .unwrap_or_else(|err| panic!("cannot read {VECTORS_PATH}: {err}"));
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let field = |v: &serde_json::Value, name: &str| v[name].as_u64().expect("a number");
    let vectors: Vec<Vector> = parsed
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| Vector {
            id: Scru128Id::from_u128(
                u128::from_str_radix(v["u128_hex"].as_str().unwrap(), 16).unwrap(),
            ),
            text: v["text"].as_str().unwrap().to_owned(),
            fields: (
                field(v, "timestamp"),
                field(v, "counter") as u32,
                field(v, "per_sec_random") as u32,
                field(v, "per_gen_random") as u32,
            ),
        })
        .collect();
    assert_eq!(vectors.len(), 50);
    vectors
}

// The repository's seeded generator of test data.
#[path = "../../../../tests/common/split_mix.rs"]
mod split_mix;
pub use split_mix::SplitMix64;

/// The plan of a query, one line per row of EXPLAIN.
pub fn explain(client: &mut Client, sql: &str) -> String {
    client
        .query(&format!("EXPLAIN (COSTS OFF) {sql}"), &[])
        .unwrap_or_else(|err| panic!("EXPLAIN {sql}: {}", describe(&err)))
        .iter()
        .map(|row| row.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}
