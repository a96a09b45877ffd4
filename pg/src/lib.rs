//! The `scru128` PostgreSQL extension: a native 16-byte `scru128` type, its operators,
//! operator classes and casts, and IDs minted in the database (`gen_scru128()`), on the
//! `scru128` crate's codec and generator.
//!
//! The SQL objects are declared by hand in `src/scru128.sql` (every name qualified with
//! the extension's schema); the functions here are the C entry points it names
//! (`<name>_wrapper`), so every `#[pg_extern]` has `sql = false`. See README.md.

mod datum;
mod errors;
mod generate;
mod io;
mod time;

pgrx::pg_module_magic!(name, version);

pgrx::extension_sql_file!("scru128.sql", name = "scru128_objects", bootstrap);
