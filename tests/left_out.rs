//! Says, in one line, what this `cargo test` did not test and how to test it: the
//! integrations whose features are off, and the front ends that have workspaces of
//! their own (they need PostgreSQL's headers, Python or SQLite's shell).

fn main() {
    let off: Vec<&str> = [
        ("postgres", cfg!(feature = "postgres")),
        ("sqlx-postgres", cfg!(feature = "sqlx-postgres")),
        ("sqlx-sqlite", cfg!(feature = "sqlx-sqlite")),
        ("rusqlite", cfg!(feature = "rusqlite")),
        ("diesel-postgres", cfg!(feature = "diesel-postgres")),
        ("diesel-sqlite", cfg!(feature = "diesel-sqlite")),
        ("uuid", cfg!(feature = "uuid")),
        ("rand_core", cfg!(feature = "rand_core")),
        ("arbitrary", cfg!(feature = "arbitrary")),
    ]
    .into_iter()
    .filter_map(|(name, on)| (!on).then_some(name))
    .collect();
    let features = if off.is_empty() {
        String::new()
    } else {
        format!(
            "the tests of features {} (`cargo test --workspace --all-features`), ",
            off.join(", ")
        )
    };
    println!(
        "left out: {features}the PostgreSQL extension (`scripts/test-pg`, and on several \
         servers `scripts/many-servers`), the SQLite extension (`scripts/test-sqlite`) and \
         the Python package (`scripts/test-python`); `scripts/test` runs them all"
    );
}
