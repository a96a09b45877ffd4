//! The extension gives the same values as the library and as the CLI (`scru128`) for
//! the same IDs: the test vectors and IDs the extension made, in every form and field;
//! the range bounds for the same times; and the CLI's generator tester passes a stream
//! of the extension's IDs.
//!
//! The CLI is `SCRU128_CLI`, else `target/{debug,release}/scru128` of the repository
//! (`cargo build -p scru128-v1-cli` at the root).

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

use common::{Scratch, open, series, skip};
use rusqlite::Connection;
use scru128::{Scru128Id, TIMESTAMP_BIAS};

/// Held while a test makes IDs: the process-wide generator hands each thread blocks of
/// 256 counters, so while other threads generate in the same millisecond one thread's
/// counters jump from block to block, which `scru128 check` reports (it checks one
/// generator's stream).
static GENERATING: Mutex<()> = Mutex::new(());

/// The CLI binary, if there is one.
fn cli() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SCRU128_CLI") {
        return Some(PathBuf::from(path));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let found = ["target/debug/scru128", "target/release/scru128"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.exists());
    if found.is_none() {
        skip(
            "no scru128 CLI: run `cargo build -p scru128-v1-cli` at the repository root or set SCRU128_CLI",
        );
    }
    found
}

/// Runs the CLI with `args`, `input` on its standard input; its standard output lines.
fn run_cli(cli: &PathBuf, args: &[&str], input: &str) -> Vec<String> {
    let mut child = Command::new(cli)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the CLI");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "scru128 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The test vectors' IDs and IDs made by the extension (text and blob generators).
fn ids(conn: &Connection) -> Vec<String> {
    let vectors: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/test-vectors.json")).unwrap();
    let mut ids: Vec<String> = vectors
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(ids.len() > 10);
    let _alone = GENERATING.lock().unwrap_or_else(PoisonError::into_inner);
    let mut made = conn
        .prepare(&format!(
            "{} SELECT scru128() FROM n UNION ALL SELECT scru128_text(scru128_blob()) FROM n",
            series(5000)
        ))
        .unwrap();
    ids.extend(
        made.query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap),
    );
    ids
}

/// What the extension says about one ID.
#[derive(Debug)]
struct Seen {
    text: String,
    from_lower: String,
    from_uuid: String,
    from_hex: String,
    blob: Vec<u8>,
    uuid: String,
    timestamp_ms: i64,
    datetime: String,
    strftime: String,
}

fn seen(conn: &Connection, ids: &[String]) -> Vec<Seen> {
    conn.execute_batch("CREATE TEMP TABLE ids (t TEXT NOT NULL)")
        .unwrap();
    let mut insert = conn.prepare("INSERT INTO ids VALUES (?1)").unwrap();
    for id in ids {
        insert.execute([id]).unwrap();
    }
    let mut stmt = conn
        .prepare(
            "SELECT scru128_text(t), scru128_text(lower(t)), scru128_text(scru128_uuid(t)),
                    scru128_text(lower(hex(scru128_to_blob(t)))), scru128_to_blob(t),
                    scru128_uuid(t), scru128_timestamp_ms(t), scru128_datetime(t),
                    strftime('%Y-%m-%d %H:%M:%f', scru128_timestamp_ms(t) / 1000.0, 'unixepoch')
             FROM ids ORDER BY rowid",
        )
        .unwrap();
    stmt.query_map([], |row| {
        Ok(Seen {
            text: row.get(0)?,
            from_lower: row.get(1)?,
            from_uuid: row.get(2)?,
            from_hex: row.get(3)?,
            blob: row.get(4)?,
            uuid: row.get(5)?,
            timestamp_ms: row.get(6)?,
            datetime: row.get(7)?,
            strftime: row.get(8)?,
        })
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn the_same_values_as_the_library() {
    let dir = Scratch::new("reference-library");
    let conn = open(dir.path("ids.db"));
    let ids = ids(&conn);
    let seen = seen(&conn, &ids);
    assert_eq!(seen.len(), ids.len());
    for (text, seen) in ids.iter().zip(&seen) {
        let id: Scru128Id = text.parse().unwrap();
        let canonical = id.encode();
        assert_eq!(seen.text, canonical.as_str());
        assert_eq!(seen.from_lower, canonical.as_str());
        assert_eq!(seen.from_uuid, canonical.as_str());
        assert_eq!(seen.from_hex, canonical.as_str());
        assert_eq!(seen.blob, id.to_bytes());
        assert_eq!(seen.uuid, id.encode_uuid().as_str());
        assert_eq!(seen.timestamp_ms as u64, id.unix_ts_ms(), "{text}");
        assert_eq!(
            seen.datetime, seen.strftime,
            "{text}: SQLite's own strftime"
        );
    }
    // The bounds, for integer and text times.
    for ms in [
        TIMESTAMP_BIAS,
        TIMESTAMP_BIAS + 1,
        1_632_633_979_124,
        1_767_225_600_000,
        TIMESTAMP_BIAS + (1 << 44) - 1,
    ] {
        let (lo, hi): (String, String) = conn
            .query_row(
                "SELECT scru128_min(?1), scru128_max(?1)",
                [ms as i64],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            lo,
            Scru128Id::try_min_at_unix_ts_ms(ms)
                .unwrap()
                .encode()
                .as_str()
        );
        assert_eq!(
            hi,
            Scru128Id::try_max_at_unix_ts_ms(ms)
                .unwrap()
                .encode()
                .as_str()
        );
        // The datetime text of the millisecond gives the same bounds.
        let (lo_text, hi_text): (String, String) = conn
            .query_row(
                "SELECT scru128_min(scru128_datetime(?1)), scru128_max(scru128_datetime(?1))",
                [&lo],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!((lo_text, hi_text), (lo, hi));
    }
}

#[test]
fn the_same_values_as_the_cli() {
    let Some(cli) = cli() else { return };
    let dir = Scratch::new("reference-cli");
    let conn = open(dir.path("ids.db"));
    let ids = ids(&conn);
    let seen = seen(&conn, &ids);
    let input = ids.join("\n") + "\n";

    let uuids = run_cli(&cli, &["convert", "--format", "uuid"], &input);
    let hexes = run_cli(&cli, &["convert", "--format", "hex"], &input);
    let canonical = run_cli(&cli, &["convert", "--format", "canonical"], &input);
    let inspected = run_cli(&cli, &["inspect"], &input);
    assert_eq!(uuids.len(), ids.len());
    for (i, seen) in seen.iter().enumerate() {
        assert_eq!(seen.uuid, uuids[i]);
        let hex: String = seen.blob.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, hexes[i]);
        assert_eq!(seen.text, canonical[i]);
        let json: serde_json::Value = serde_json::from_str(&inspected[i]).unwrap();
        assert_eq!(json["canonical"], seen.text.as_str());
        let timestamp: u64 = json["timestamp"].as_str().unwrap().parse().unwrap();
        assert_eq!(seen.timestamp_ms as u64, timestamp + TIMESTAMP_BIAS);
        // 2021-09-26T05:26:19.124+00:00 against 2021-09-26 05:26:19.124
        let iso = json["timestampIso"].as_str().unwrap();
        assert_eq!(
            format!("{}+00:00", seen.datetime.replacen(' ', "T", 1)),
            iso
        );
    }
    // The CLI reads the extension's UUID form back to the same IDs.
    let back = run_cli(
        &cli,
        &["convert", "--format", "canonical"],
        &(uuids.join("\n") + "\n"),
    );
    assert_eq!(back, canonical);

    // The bounds of `scru128 bounds FROM TO` for the same times.
    for (from, to) in [
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00.999Z"),
        ("2021-09-26T05:26:19.124Z", "2024-02-29T23:59:59.999Z"),
        ("1577836800000", "1767225600000"),
    ] {
        let bounds = run_cli(&cli, &["bounds", from, to], "");
        let as_sql = |t: &str| -> rusqlite::types::Value {
            t.parse::<i64>()
                .map_or_else(|_| rusqlite::types::Value::Text(t.to_owned()), Into::into)
        };
        let (lo, hi): (String, String) = conn
            .query_row(
                "SELECT scru128_min(?1), scru128_max(?2)",
                [as_sql(from), as_sql(to)],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!(bounds, [lo, hi], "{from} {to}");
    }
}

#[test]
fn the_cli_generator_tester_passes_the_extension_stream() {
    let Some(cli) = cli() else { return };
    let conn = open(":memory:");
    let _alone = GENERATING.lock().unwrap_or_else(PoisonError::into_inner);
    let mut stmt = conn
        .prepare(&format!("{} SELECT scru128() FROM n", series(200_000)))
        .unwrap();
    let stream: Vec<String> = stmt
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let report = run_cli(&cli, &["check"], &(stream.join("\n") + "\n"));
    assert_eq!(
        report.last().map(String::as_str),
        Some("result: pass (200000 IDs, 0 violations)"),
        "{}",
        report.join("\n")
    );
}
