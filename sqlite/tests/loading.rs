//! Loading the extension: twice into one connection and into several, closed and loaded
//! again (the image stays, and so does the generator's state), a second copy of the
//! file, both names of the build, the `sqlite3` shell's `.load` and `.open`, a clock
//! outside the SCRU128 range (an SQL error, not a crash) and a clock stepped back.
//!
//! Its own `main` (no test harness): the checks of `/proc/self/maps` need a process in
//! which no other test thread holds the extension.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scratch, extension, load, load_from, open, series, shell, shell_ok};
use rusqlite::Connection;
use scru128::Scru128Id;

fn new_id(conn: &Connection) -> Scru128Id {
    let text: String = conn
        .query_row("SELECT scru128()", [], |row| row.get(0))
        .unwrap();
    text.parse().unwrap()
}

fn new_ids(conn: &Connection, n: u64) -> Vec<Scru128Id> {
    let mut stmt = conn
        .prepare(&format!("{} SELECT scru128_blob() FROM n", series(n)))
        .unwrap();
    stmt.query_map([], |row| row.get::<_, [u8; 16]>(0))
        .unwrap()
        .map(|bytes| Scru128Id::from_bytes(bytes.unwrap()))
        .collect()
}

/// Whether the file at `path` is mapped into this process.
fn mapped(path: &Path) -> bool {
    let path = std::fs::canonicalize(path).unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .any(|line| line.ends_with(path.to_str().unwrap()))
}

fn twice_in_one_connection_and_in_two() {
    let a = open(":memory:");
    load(&a).unwrap();
    let b = open(":memory:");
    let mut last = new_id(&a);
    for i in 0..10_000 {
        let id = new_id(if i % 2 == 0 { &b } else { &a });
        assert!(
            id > last,
            "{id} after {last}: the connections share one generator"
        );
        last = id;
    }
    println!("loading: twice into one connection and into a second: one generator, increasing");
}

/// Run first, before this thread makes any ID: while a thread that made IDs lives, its
/// thread-local state (which has a destructor) keeps the image loaded, which would hide
/// an unload. So each round makes IDs in a thread of its own, and the connection is
/// closed here after that thread ended.
fn closed_and_loaded_again() {
    let ext = extension();
    let mut all = Vec::new();
    for _ in 0..200 {
        let (ids, conn) = std::thread::spawn(|| {
            let conn = open(":memory:");
            (new_ids(&conn, 10), conn)
        })
        .join()
        .unwrap();
        drop(conn);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        all.extend(ids);
        // SQLite dlclose()s the extension with the last connection that loaded it; the
        // image is marked nodelete, so it stays, and the generator's state with it.
        if cfg!(target_os = "linux") {
            assert!(mapped(&ext), "{} was unloaded", ext.display());
        }
    }
    let count = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), count);
    println!("loading: 200 times loaded, used and closed in a new thread: never unloaded");
}

fn a_second_copy_of_the_file(dir: &Scratch) {
    let copy = dir.path("copy-of-scru128.so");
    std::fs::copy(extension(), &copy).unwrap();
    let original = open(":memory:");
    let other = Connection::open_in_memory().unwrap();
    load_from(&other, &copy).unwrap();
    // Two images, two generators: each one's IDs are valid and increase; none repeats.
    let mut ids = new_ids(&original, 20_000);
    let copies = new_ids(&other, 20_000);
    assert!(copies.windows(2).all(|w| w[0] < w[1]));
    ids.extend(copies);
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count);
    println!("loading: a copy of the file is a second image that works on its own");
}

/// The two names scripts/build-sqlite leaves in sqlite/target/release (`scru128.so`
/// for `.load .../scru128`, and cargo's `libscru128_sqlite.so`) are one file: a process
/// that loads both has one image and one generator, so its IDs keep increasing.
fn both_names_of_the_build() {
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release");
    let (short, cargos) = (
        release.join("scru128.so"),
        release.join("libscru128_sqlite.so"),
    );
    if !short.exists() || !cargos.exists() || !cfg!(target_os = "linux") {
        common::skip(&format!(
            "no {} beside {}: run scripts/build-sqlite first",
            short.display(),
            cargos.display()
        ));
        return;
    }
    let a = Connection::open_in_memory().unwrap();
    load_from(&a, &short).unwrap();
    let b = Connection::open_in_memory().unwrap();
    load_from(&b, &cargos).unwrap();
    let mut last = new_id(&a);
    for i in 0..10_000 {
        let id = new_id(if i % 2 == 0 { &b } else { &a });
        assert!(id > last, "{id} after {last}: two generators");
        last = id;
    }
    assert_eq!(
        std::fs::canonicalize(&short).unwrap(),
        std::fs::canonicalize(&cargos).unwrap(),
        "{} is a second file, not a link to {}",
        short.display(),
        cargos.display()
    );
    println!("loading: both names of the build are one image: one generator, increasing");
}

fn through_the_shell(dir: &Scratch) {
    let Some(shell) = shell() else { return };
    let first = dir.path("first.db");
    let second = dir.path("second.db");
    let ext = extension();
    // `.load` twice, then `.open` (which closes the connection, and dlclose()s the
    // extension) and `.load` again: the IDs keep increasing across all of it.
    let out = shell_ok(
        &shell,
        &first,
        &[
            format!(".load '{}'", ext.display()),
            "SELECT scru128();".to_owned(),
            "SELECT scru128();".to_owned(),
            format!(".open '{}'", second.display()),
            format!(".load '{}'", ext.display()),
            "SELECT scru128();".to_owned(),
            format!(".open '{}'", first.display()),
            format!(".load '{}'", ext.display()),
            "SELECT scru128_text(scru128_blob());\n".to_owned(),
        ]
        .join("\n"),
    );
    let ids: Vec<Scru128Id> = out.lines().map(|line| line.parse().unwrap()).collect();
    assert_eq!(ids.len(), 4);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{out}");
    println!("loading: the sqlite3 shell, .load twice and after .open: increasing");
}

fn libfaketime() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SCRU128_FAKETIME") {
        return Some(PathBuf::from(path)).filter(|p| p.exists());
    }
    std::fs::read_dir("/usr/lib")
        .ok()?
        .filter_map(Result::ok)
        .map(|arch| arch.path().join("faketime/libfaketime.so.1"))
        .find(|p| p.exists())
}

fn a_clock_outside_the_range() {
    let Some(shell) = shell() else { return };
    let Some(faketime) = libfaketime() else {
        common::skip(
            "no libfaketime: install Debian's libfaketime or set SCRU128_FAKETIME to \
             libfaketime.so.1",
        );
        return;
    };
    let run = |sql: &str| {
        Command::new(&shell)
            .args(["-batch", ":memory:"])
            .arg(format!(".load '{}'", extension().display()))
            .arg(sql)
            .env("LD_PRELOAD", &faketime)
            .env("FAKETIME", "@2019-06-01 00:00:00")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .output()
            .unwrap()
    };
    for (sql, name) in [
        ("SELECT scru128()", "scru128"),
        ("SELECT scru128_blob()", "scru128_blob"),
    ] {
        let out = run(sql);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // An SQL error (exit status 1), not a crash (a signal has no exit code).
        assert_eq!(
            out.status.code(),
            Some(1),
            "{sql}: {}: {stderr}",
            out.status
        );
        assert!(
            stderr.contains(&format!(
                "{name}: clock reads unix time 155934720" // the fake clock runs on
            )) && stderr.contains(" ms, outside the range SCRU128 can generate"),
            "{sql}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    // The functions that read IDs need no clock.
    let out = run("SELECT scru128_datetime('00PGHAJ3Q9VAJ7IU6PQBHBUAK4')");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"2021-09-26 05:26:19.124\n");
    println!("loading: a clock in 2019 is an SQL error naming it, not a crash");
}

/// The system clock stepped back under the shell (libfaketime, its offset file rewritten
/// by `.system` between statements): 5 s back is absorbed (the IDs keep increasing),
/// 60 s back is beyond the 10 s allowance and resets the generator (the IDs go down,
/// to the new time), as the README says.
fn a_clock_stepped_back(dir: &Scratch) {
    let Some(shell) = shell() else { return };
    let Some(faketime) = libfaketime() else {
        common::skip(
            "no libfaketime: install Debian's libfaketime or set SCRU128_FAKETIME to \
             libfaketime.so.1",
        );
        return;
    };
    let offset = dir.path("faketimerc");
    std::fs::write(&offset, "+0\n").unwrap();
    let step = |seconds: &str| format!(".system echo {seconds} > '{}'", offset.display());
    let make = |label: &str| format!("{} SELECT '{label}', scru128() FROM n;", series(100));
    let script = [
        format!(".load '{}'", extension().display()),
        make("before"),
        step("-5"),
        make("5 s back"),
        step("-60"),
        make("60 s back"),
        String::new(),
    ]
    .join("\n");
    let mut child = Command::new(&shell)
        .args(["-batch", "-bail", ":memory:"])
        .env("LD_PRELOAD", &faketime)
        .env("FAKETIME_TIMESTAMP_FILE", &offset)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env_remove("FAKETIME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let part = |label: &str| -> Vec<Scru128Id> {
        stdout
            .lines()
            .filter_map(|line| line.strip_prefix(&format!("{label}|")))
            .map(|id| id.parse().unwrap())
            .collect()
    };
    let (before, back5, back60) = (part("before"), part("5 s back"), part("60 s back"));
    assert_eq!((before.len(), back5.len(), back60.len()), (100, 100, 100));
    let mut absorbed = before.clone();
    absorbed.extend(&back5);
    assert!(
        absorbed.windows(2).all(|w| w[0] < w[1]),
        "5 s back: {stdout}"
    );
    assert!(back60.windows(2).all(|w| w[0] < w[1]));
    let last = *back5.last().unwrap();
    let first = back60[0];
    assert!(first < last, "60 s back: {first} after {last}");
    // To the clock's new time: about 60 s below.
    let behind = last.unix_ts_ms() - first.unix_ts_ms();
    assert!((55_000..=65_000).contains(&behind), "{behind} ms");
    println!(
        "loading: the clock 5 s back: IDs increase; 60 s back: the generator resets, \
         {behind} ms below"
    );
}

fn main() {
    let dir = Scratch::new("loading");
    closed_and_loaded_again();
    twice_in_one_connection_and_in_two();
    a_second_copy_of_the_file(&dir);
    both_names_of_the_build();
    through_the_shell(&dir);
    a_clock_outside_the_range();
    a_clock_stepped_back(&dir);
    println!("test result: ok. 7 passed");
}
