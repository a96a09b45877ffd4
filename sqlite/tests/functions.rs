//! Every function and its errors (tests/data/functions.txt) through rusqlite and
//! through the `sqlite3` shell, on a database file.

mod common;

use common::{Scratch, cases, open, run_shell, shell};

fn message(err: rusqlite::Error) -> String {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message,
        other => other.to_string(),
    }
}

#[test]
fn every_case_through_rusqlite() {
    let dir = Scratch::new("functions-rusqlite");
    let conn = open(dir.path("cases.db"));
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let got = conn
            .query_row(&format!("SELECT quote({})", case.expr), [], |row| {
                row.get::<_, String>(0)
            })
            .map_err(message);
        if got != case.expected {
            failures.push(format!(
                "functions.txt:{}: {}\n  expected {:?}\n  got      {got:?}",
                case.line, case.expr, case.expected
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} cases passed through rusqlite", cases.len());
}

#[test]
fn every_case_through_the_shell() {
    let Some(shell) = shell() else { return };
    let dir = Scratch::new("functions-shell");
    let db = dir.path("cases.db");
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let out = run_shell(&shell, &db, &format!("SELECT quote({});\n", case.expr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ok = match &case.expected {
            Ok(value) => out.status.success() && stdout.trim_end_matches('\n') == value,
            // The shell adds its own words around the message ("Error: stepping, ...",
            // "Parse error: ..."), which vary between versions.
            Err(message) => !out.status.success() && stdout.is_empty() && stderr.contains(message),
        };
        if !ok {
            failures.push(format!(
                "functions.txt:{}: {}\n  expected {:?}\n  got      {} stdout {stdout:?} stderr {stderr:?}",
                case.line, case.expr, case.expected, out.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} cases passed through the sqlite3 shell", cases.len());
}
