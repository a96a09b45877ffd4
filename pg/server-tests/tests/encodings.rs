//! Text input in databases that are not UTF-8 (`SQL_ASCII`, `LATIN1`, `EUC_JP`): the
//! input is read as bytes in the server's encoding, a bad one is SQLSTATE 22P02 with
//! the library's reason and the input echoed as given (also to a UTF-8 client), no
//! DETAIL and nothing of Rust in the server's log (the servers of scripts/test-pg run
//! with RUST_BACKTRACE=1, so a panic would show a backtrace).

mod common;

use common::{Native, connect, db_url, describe, error_of, server_urls};
use postgres::Client;
use scru128::Scru128Id;

/// A new database `name` of `encoding` (from template0, locale C), with the extension
/// and a function that runs a text input three ways and returns its error: SQLSTATE,
/// message (the bytes, in the database's encoding) and DETAIL.
fn database(name: &str, encoding: &str) -> (Client, String) {
    let server = &server_urls()[0];
    let mut admin = connect(server);
    for sql in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!(
            "CREATE DATABASE {name} ENCODING '{encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
        ),
    ] {
        admin.batch_execute(&sql).unwrap();
    }
    let url = db_url(server, name);
    let mut db = connect(&url);
    db.batch_execute(
        "CREATE EXTENSION scru128;
         CREATE FUNCTION input_error(input bytea, how text, OUT state text, OUT message bytea, OUT detail text)
           LANGUAGE plpgsql AS $$
         DECLARE
           t text := convert_from(input, current_setting('server_encoding'));
           m text;
         BEGIN
           IF how = 'literal' THEN
             EXECUTE format('SELECT %L::scru128', t);     -- the type's input function
           ELSIF how = 'cast' THEN
             EXECUTE 'SELECT $1::scru128' USING t;        -- the cast from text
           ELSE
             EXECUTE 'SELECT scru128_in($1::cstring)' USING t;
           END IF;
         EXCEPTION WHEN others THEN
           GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
           state := SQLSTATE;
           message := convert_to(m, current_setting('server_encoding'));
         END $$;",
    )
    .unwrap();
    let got: String = db.query_one("SHOW server_encoding", &[]).unwrap().get(0);
    assert_eq!(got, encoding);
    (db, url)
}

/// An input: text that the server converts from the client's UTF-8, or raw bytes.
#[derive(Clone, Copy)]
enum Input<'a> {
    Text(&'a str),
    Raw(&'a [u8]),
}

/// The bytes of `input` in the database's encoding.
fn server_bytes(db: &mut Client, input: Input) -> Vec<u8> {
    match input {
        Input::Raw(bytes) => bytes.to_vec(),
        Input::Text(text) => db
            .query_one(
                "SELECT convert_to($1, current_setting('server_encoding'))",
                &[&text],
            )
            .unwrap()
            .get(0),
    }
}

/// Checks a bad input three ways: SQLSTATE 22P02, the message (the input as it came,
/// then `reason`, both in the database's encoding), no DETAIL; and, when it is text,
/// the message a UTF-8 client sees. Returns the message's bytes, which the server has
/// then logged.
fn check_bad(db: &mut Client, url: &str, input: Input, reason: &str) -> Vec<u8> {
    let bytes = server_bytes(db, input);
    let mut expected = b"invalid input syntax for type scru128: \"".to_vec();
    expected.extend_from_slice(&bytes);
    expected.extend_from_slice(b"\": ");
    expected.extend_from_slice(&server_bytes(db, Input::Text(reason)));
    for how in ["literal", "cast", "cstring"] {
        let row = db
            .query_one("SELECT * FROM input_error($1, $2)", &[&bytes, &how])
            .unwrap();
        let shown = String::from_utf8_lossy(&bytes).into_owned();
        assert_eq!(
            row.get::<_, Option<String>>(0).as_deref(),
            Some("22P02"),
            "{how} {shown:?}"
        );
        let message: Vec<u8> = row.get(1);
        assert!(
            message == expected,
            "{how} {shown:?}: {:?}, expected {:?}",
            String::from_utf8_lossy(&message),
            String::from_utf8_lossy(&expected)
        );
        let detail = row.get::<_, Option<String>>(2).unwrap_or_default();
        assert!(detail.is_empty(), "{how} {shown:?}: DETAIL {detail:?}");
    }
    if let Input::Raw(raw) = input {
        // uncaught, so that the server logs it, to a client that takes bytes of no
        // encoding (PostgreSQL refuses to send them to a UTF-8 client: 22021)
        let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let bindir =
            std::env::var("SCRU128_PG_BINDIR").expect("SCRU128_PG_BINDIR (scripts/pg-server)");
        let out = std::process::Command::new(format!("{bindir}/psql"))
            .args(["-X", "-q", "-v", "VERBOSITY=verbose", url, "-c"])
            .arg(format!(
                "SELECT convert_from('\\x{hex}'::bytea, current_setting('server_encoding'))::scru128"
            ))
            .env("PGCLIENTENCODING", "SQL_ASCII")
            .output()
            .expect("psql runs");
        let mut line = b"ERROR:  22P02: ".to_vec();
        line.extend_from_slice(&expected);
        assert!(
            out.stderr.windows(line.len()).any(|w| w == line),
            "psql: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if let Input::Text(text) = input {
        let quoted = text.replace('\'', "''");
        for sql in [
            format!("SELECT '{quoted}'::scru128"),
            format!("SELECT '{quoted}'::text::scru128"),
        ] {
            assert_eq!(
                error_of(db, &sql),
                format!("22P02: invalid input syntax for type scru128: \"{text}\": {reason}"),
                "{sql}"
            );
        }
    }
    expected
}

/// The three text forms of one ID read the same in the database.
fn check_good(db: &mut Client) {
    let id = Scru128Id::try_from_str("00PGHAJ3Q9VAJ7IU6PQBHBUAK4").unwrap();
    for text in [
        "00PGHAJ3Q9VAJ7IU6PQBHBUAK4",
        "00pghaj3q9vaj7iu6pqbhbuak4",
        "00cc22a98f49faa67978d9d2e2bf2a84",
        "00CC22A9-8F49-FAA6-7978-D9D2E2BF2A84",
    ] {
        let row = db
            .query_one(
                &format!("SELECT '{text}'::scru128, $1::text::scru128"),
                &[&text],
            )
            .unwrap_or_else(|err| panic!("{text}: {}", describe(&err)));
        assert_eq!(row.get::<_, Native>(0).0, id, "{text}");
        assert_eq!(row.get::<_, Native>(1).0, id, "{text}");
    }
}

const DIGITS: &str = "expected 0-9 or A-V in either case";
const OTHER_FORMS: &str = "(32 hex digits and the 36-character UUID form are also accepted)";

#[test]
fn text_input_in_every_server_encoding_is_22p02_with_the_input_echoed() {
    let mut messages: Vec<Vec<u8>> = Vec::new();

    // SQL_ASCII: bytes without an encoding; UTF-8 in it is read as UTF-8
    let (mut db, url) = database("enc_sql_ascii", "SQL_ASCII");
    for (input, reason) in [
        (
            Input::Raw(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK\xe9"),
            format!("invalid byte 0xe9 at position 26: {DIGITS}"),
        ),
        (
            Input::Raw(b"\xff\xfe"),
            format!("invalid length: expected 26 characters, found 2 {OTHER_FORMS}"),
        ),
        (
            Input::Raw(b"00cc22a9-8f49-faa6-7978-d9d2e2bf2a8\xff"),
            "invalid byte 0xff at position 36: expected 0-9 or a-f in either case".into(),
        ),
        (
            Input::Text("00PGHAJ3Q9VAJ7IU6PQBHBUAKé"),
            format!("invalid digit 'é' at position 26: {DIGITS}"),
        ),
    ] {
        messages.push(check_bad(&mut db, &url, input, &reason));
    }
    check_good(&mut db);
    // the library's reasons, counted from 0
    assert_eq!(
        Scru128Id::try_from_ascii(b"00PGHAJ3Q9VAJ7IU6PQBHBUAK\xe9")
            .unwrap_err()
            .to_string(),
        format!("invalid byte 0xe9 at position 25: {DIGITS}")
    );

    // LATIN1: one byte per character, named as the character
    let (mut db, url) = database("enc_latin1", "LATIN1");
    for (input, reason) in [
        (
            "00PGHAJ3Q9VAJ7IU6PQBHBUAKé",
            format!("invalid digit 'é' at position 26: {DIGITS}"),
        ),
        // two LATIN1 characters whose bytes happen to be the UTF-8 of 'é': 26 characters
        (
            "Ã©PGHAJ3Q9VAJ7IU6PQBHBUAK4",
            format!("invalid digit 'Ã' at position 1: {DIGITS}"),
        ),
        (
            "00cc22a9ÿ8f49-faa6-7978-d9d2e2bf2a84",
            "invalid character 'ÿ' at position 9: expected '-' (UUID form 8-4-4-4-12)".into(),
        ),
        (
            "ü",
            format!("invalid length: expected 26 characters, found 1 {OTHER_FORMS}"),
        ),
    ] {
        messages.push(check_bad(&mut db, &url, Input::Text(input), &reason));
    }
    check_good(&mut db);
    // 'é' is one byte there
    assert_eq!(
        server_bytes(&mut db, Input::Text("é")),
        [0xe9],
        "not LATIN1"
    );

    // EUC_JP: several bytes per character
    let (mut db, url) = database("enc_euc_jp", "EUC_JP");
    messages.push(check_bad(
        &mut db,
        &url,
        Input::Text("00PGHAJ3Q9VAJ7IU6PQBHBUA日本"),
        &format!("invalid digit '日' at position 25: {DIGITS}"),
    ));

    check_good(&mut db);
    // the log has the errors as the clients got them, and nothing of Rust
    let Ok(logs) = std::env::var("SCRU128_PG_LOGS") else {
        panic!("SCRU128_PG_LOGS (set by scripts/pg-server) names the servers' logs");
    };
    let log = std::fs::read(logs.split_whitespace().next().unwrap()).unwrap();
    for message in &messages {
        let mut line = b"ERROR:  ".to_vec();
        line.extend_from_slice(message);
        assert!(
            log.windows(line.len()).any(|w| w == line),
            "not in the log: {}",
            String::from_utf8_lossy(&line)
        );
    }
    let text = String::from_utf8_lossy(&log).to_lowercase();
    for rust in ["backtrace", "panicked", "pgrx", "rust_begin_unwind", ".rs:"] {
        assert!(!text.contains(rust), "the server log mentions {rust:?}");
    }
}
