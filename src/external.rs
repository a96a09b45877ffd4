//! Integrations with other crates, one module each, behind their cargo features.

#[cfg(feature = "serde")]
pub mod serde_support;

#[cfg(feature = "uuid")]
mod uuid_support;

#[cfg(feature = "rand_core")]
pub(crate) mod rand_core_support;

#[cfg(any(
    feature = "postgres",
    feature = "sqlx-postgres",
    feature = "sqlx-sqlite",
    feature = "rusqlite",
    feature = "diesel-postgres",
    feature = "diesel-sqlite"
))]
pub(crate) mod stored;

#[cfg(feature = "postgres")]
mod postgres_support;

#[cfg(feature = "sqlx-postgres")]
mod sqlx_postgres_support;

#[cfg(feature = "sqlx-sqlite")]
mod sqlx_sqlite_support;

#[cfg(feature = "rusqlite")]
mod rusqlite_support;

#[cfg(any(feature = "diesel-postgres", feature = "diesel-sqlite"))]
pub mod diesel_support;

#[cfg(feature = "arbitrary")]
mod arbitrary_support;
