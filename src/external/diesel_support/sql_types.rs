// The SQL type of the native `scru128` of `pg/`. A module of its own, which
// imports nothing of the crate: the ID type's diesel derive names it (src/id.rs),
// and the rest of the diesel support imports the ID type.

use diesel::query_builder::QueryId;
use diesel::sql_types::SqlType;

/// The native 16-byte `scru128` type of this repository's PostgreSQL extension
/// (`pg/`), for `table!` columns: `id -> scru128::diesel::sql_types::Scru128`.
///
/// Its OID differs per database, so diesel looks it up by name the first time a
/// connection uses it (through the `search_path`, like a type named in SQL: when
/// the extension is installed in a schema of its own, that schema must be on the
/// path). A [`Scru128Id`](crate::Scru128Id) binds to it and reads from it as its 16
/// bytes, the type's binary form; `Option<Scru128Id>` for `Nullable<Scru128>`.
///
/// ```no_run
/// use diesel::prelude::*;
/// use scru128::Scru128Id;
///
/// diesel::table! {
///     use diesel::sql_types::Text;
///     use scru128::diesel::sql_types::Scru128;
///
///     item (id) {
///         id -> Scru128,
///         name -> Text,
///     }
/// }
///
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let mut conn = PgConnection::establish(&std::env::var("SCRU128_PG_URL")?)?;
/// diesel::sql_query("CREATE EXTENSION IF NOT EXISTS scru128").execute(&mut conn)?;
/// diesel::sql_query("CREATE TEMP TABLE item (id scru128 PRIMARY KEY, name text NOT NULL)")
///     .execute(&mut conn)?;
/// let id = scru128::scru128();
/// diesel::insert_into(item::table)
///     .values((item::id.eq(id), item::name.eq("first")))
///     .execute(&mut conn)?;
/// let found: Scru128Id = item::table.select(item::id).filter(item::id.eq(id)).first(&mut conn)?;
/// assert_eq!(found, id);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, QueryId, SqlType)]
#[diesel(postgres_type(name = "scru128"))]
pub struct Scru128;
