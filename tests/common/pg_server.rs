//! The PostgreSQL server of the database tests: the one `SCRU128_PG_URL` names (as
//! `scripts/test` sets it), or else a throwaway server that this test process starts
//! from the installed PostgreSQL programs and that goes away with the process, so that
//! `cargo test --workspace --all-features` needs nothing running.
//!
//! The throwaway server: a fresh data directory in a temporary folder, `initdb` with
//! trust authentication for the user `scru128`, a database `scru128`, listening on
//! 127.0.0.1 only on a free port, no disk flushes. As root it runs as the user
//! `postgres` (or `nobody`), since PostgreSQL refuses root. A small shell supervisor
//! holds it: it stops the server and removes the folder when its standard input ends,
//! which happens when this process exits, however it exits.
//!
//! Where no PostgreSQL is installed, the tests that need it are skipped with a line
//! saying how to run them (or fail under `SCRU128_TEST_REQUIRE_ALL`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// How to run the tests that need PostgreSQL where it is not installed.
const HOW: &str = "install PostgreSQL (Debian: apt-get install postgresql) or set \
                   SCRU128_PG_URL to a server's URL, or run scripts/test";

/// The URL of the tests' PostgreSQL server, starting a throwaway one at the first call
/// when `SCRU128_PG_URL` is not set; `None` (after a skip line) where PostgreSQL is
/// not installed.
///
/// # Panics
///
/// If an installed PostgreSQL fails to start (with its log), and where PostgreSQL is
/// missing under `SCRU128_TEST_REQUIRE_ALL`.
pub fn url() -> Option<String> {
    if let Ok(url) = std::env::var("SCRU128_PG_URL") {
        return Some(url);
    }
    static STARTED: OnceLock<Option<String>> = OnceLock::new();
    let url = STARTED.get_or_init(|| {
        let bindir = find_bindir()?;
        Some(start(&bindir).unwrap_or_else(|err| panic!("starting a throwaway PostgreSQL: {err}")))
    });
    if url.is_none() {
        super::skip(&format!("PostgreSQL is not installed: {HOW}"));
    }
    url.clone()
}

/// Where `initdb` and `pg_ctl` are: `SCRU128_PG_BINDIR`, `pg_config --bindir`, or the
/// newest `/usr/lib/postgresql/*/bin`.
fn find_bindir() -> Option<PathBuf> {
    let has_server = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(dir) = std::env::var_os("SCRU128_PG_BINDIR").map(PathBuf::from) {
        return has_server(&dir).then_some(dir);
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_server(&dir) {
            return Some(dir);
        }
    }
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| has_server(dir))
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, dir)| dir)
}

/// A free TCP port on 127.0.0.1 (free when asked; the server takes it right after).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn start(bindir: &Path) -> Result<String, String> {
    // SAFETY: `geteuid` only reads the process's user.
    let root = unsafe { libc::geteuid() } == 0;
    let owner = if !root {
        None
    } else if Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        Some("postgres")
    } else {
        Some("nobody")
    };
    let dir = std::env::temp_dir().join(format!("scru128-test-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Some(owner) = owner {
        let status = Command::new("chown").arg(owner).arg(&dir).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("cannot give {} to the user {owner}", dir.display()));
        }
    }
    let port = free_port().map_err(|e| format!("no free port: {e}"))?;
    let run = match owner {
        Some(owner) => format!("runuser -u {owner} --"),
        None => String::new(),
    };
    // The supervisor: set up, say "ready", then wait for the end of its standard input
    // (this process's exit) and clean up.
    let script = format!(
        r#"
        set -u
        bin={bin}; dir={dir}; port={port}
        if ! {run} "$bin/initdb" -D "$dir/data" -U scru128 -A trust -E UTF8 --locale=C \
             --no-sync >"$dir/initdb.log" 2>&1; then
          echo "failed: initdb: $(tail -n 5 "$dir/initdb.log")"; rm -rf "$dir"; exit 1
        fi
        if ! {run} "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
             "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir \
              -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
             start >/dev/null 2>&1; then
          echo "failed: the server did not start: $(tail -n 5 "$dir/server.log")"; rm -rf "$dir"; exit 1
        fi
        if ! "$bin/createdb" -h 127.0.0.1 -p "$port" -U scru128 scru128 >/dev/null 2>&1; then
          echo "failed: createdb"
        else
          echo ready
        fi
        cat >/dev/null
        {run} "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
        rm -rf "$dir"
        "#,
        bin = shell_quote(bindir),
        dir = shell_quote(&dir),
    );
    let mut supervisor = Command::new("sh")
        .args(["-c", &script])
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    let mut line = String::new();
    BufReader::new(supervisor.stdout.take().expect("piped"))
        .read_line(&mut line)
        .map_err(|e| format!("reading the supervisor: {e}"))?;
    if line.trim() != "ready" {
        return Err(format!(
            "{} (PostgreSQL in {})",
            line.trim(),
            bindir.display()
        ));
    }
    // The supervisor's standard input stays open for the life of this process: leaked
    // on purpose, it is closed by the kernel when the process ends.
    let stdin = supervisor.stdin.take().expect("piped");
    std::mem::forget(stdin);
    std::mem::forget(supervisor);
    let _ = writeln!(
        std::io::stderr(),
        "started a throwaway PostgreSQL ({}) on 127.0.0.1:{port} for these tests",
        bindir.display()
    );
    Ok(format!("postgres://scru128@127.0.0.1:{port}/scru128"))
}

/// `path` in single quotes for `sh`.
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
