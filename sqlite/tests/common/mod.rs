//! What the host tests share: where the extension is, connections that load it (rusqlite
//! on the system SQLite), the `sqlite3` shell, scratch directories and skips.
#![allow(dead_code)] // each test binary uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use rusqlite::{Connection, LoadExtensionGuard};

/// The extension to load: `SCRU128_SQLITE_EXT`, else the cdylib cargo built beside this
/// test binary (`target/<profile>/deps/libscru128_sqlite.so`: the `rlib` crate type
/// makes cargo build the library, and so the cdylib, before the integration tests).
pub fn extension() -> PathBuf {
    if let Some(path) = std::env::var_os("SCRU128_SQLITE_EXT") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let name = if cfg!(target_os = "macos") {
        "libscru128_sqlite.dylib"
    } else {
        "libscru128_sqlite.so"
    };
    let path = deps.join(name);
    assert!(
        path.exists(),
        "{} not found: build it (scripts/build-sqlite) and set SCRU128_SQLITE_EXT",
        path.display()
    );
    path
}

/// Loads the extension into `conn`.
pub fn load(conn: &Connection) -> rusqlite::Result<()> {
    load_from(conn, &extension())
}

/// Loads the extension at `path` into `conn`.
pub fn load_from(conn: &Connection, path: &Path) -> rusqlite::Result<()> {
    // SAFETY: the file is this repository's extension, built for this machine.
    unsafe {
        let _guard = LoadExtensionGuard::new(conn)?;
        conn.load_extension(path, None::<&str>)
    }
}

/// A connection to `path` (`:memory:` for none) with the extension loaded.
pub fn open(path: impl AsRef<Path>) -> Connection {
    let conn = Connection::open(path).expect("open the database");
    load(&conn).expect("load the extension");
    conn
}

/// A fresh, empty directory under cargo's scratch space for tests, removed by `drop`.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "sqlite-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Self(dir)
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Whether `scripts/test` asked for every test to run (a skip is then a failure).
pub fn require_all() -> bool {
    std::env::var_os("SCRU128_TEST_REQUIRE_ALL").is_some_and(|v| v != "0")
}

/// Skips a test with a line that says how to run it; fails instead under
/// `SCRU128_TEST_REQUIRE_ALL`.
pub fn skip(why: &str) {
    assert!(
        !require_all(),
        "not skipped under SCRU128_TEST_REQUIRE_ALL: {why}"
    );
    eprintln!("skipped: {why}");
}

/// The `sqlite3` shell (`SCRU128_SQLITE3`, else `sqlite3` on the PATH), if it runs.
pub fn shell() -> Option<PathBuf> {
    let shell = std::env::var_os("SCRU128_SQLITE3").map_or_else(|| "sqlite3".into(), PathBuf::from);
    let runs = Command::new(&shell)
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if runs {
        Some(shell)
    } else {
        skip(&format!(
            "no sqlite3 shell ({}); install Debian's sqlite3 package or set SCRU128_SQLITE3",
            shell.display()
        ));
        None
    }
}

/// Runs `script` in the shell on `db` after `.load`ing the extension; `-bail` stops at
/// the first error.
pub fn run_shell(shell: &Path, db: &Path, script: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(shell)
        .arg("-batch")
        .arg("-bail")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the sqlite3 shell");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, ".load '{}'", extension().display()).unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().expect("run the sqlite3 shell")
}

/// As [`run_shell`], and the standard output, which must come with success.
pub fn shell_ok(shell: &Path, db: &Path, script: &str) -> String {
    let out = run_shell(shell, db, script);
    assert!(
        out.status.success(),
        "sqlite3 failed ({}): {}\nscript:\n{script}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `WITH RECURSIVE` rows 1..=n as `n(x)`, for `INSERT ... SELECT` without
/// generate_series (not in every SQLite).
pub fn series(n: u64) -> String {
    format!("WITH RECURSIVE n(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM n WHERE x < {n})")
}

/// One case of `tests/data/functions.txt`.
pub struct Case {
    pub line: usize,
    pub expr: String,
    pub expected: Result<String, String>,
}

/// The cases of `tests/data/functions.txt`.
pub fn cases() -> Vec<Case> {
    let text = include_str!("../data/functions.txt");
    let cases: Vec<Case> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(i, line)| {
            let (expr, expected) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("functions.txt:{}: no tab", i + 1));
            let expected = if let Some(value) = expected.strip_prefix("= ") {
                Ok(value.to_owned())
            } else if let Some(message) = expected.strip_prefix("! ") {
                Err(message.to_owned())
            } else {
                panic!("functions.txt:{}: expected `= ` or `! `", i + 1)
            };
            Case {
                line: i + 1,
                expr: expr.to_owned(),
                expected,
            }
        })
        .collect();
    assert!(cases.len() > 100, "{} cases", cases.len());
    cases
}
