//! The ID's time and fields: `scru128_extract_timestamp` (also the cast to
//! `timestamptz`), the four fields, `scru128_from_fields`, and the bounds of a time
//! range (`scru128_min`, `scru128_max`).

use pgrx::PgSqlErrorCode;
use pgrx::prelude::*;
use scru128::{RangeError, Scru128Id};

use crate::datum::Scru128;
use crate::errors::raise;

/// Unix milliseconds at PostgreSQL's epoch, 2000-01-01T00:00:00Z.
const PG_EPOCH_UNIX_MS: i64 = 946_684_800_000;

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_extract_timestamp(id: Scru128) -> TimestampWithTimeZone {
    // At most 2^44 ms after 2020: far inside both i64 and timestamptz's range.
    let unix_ms = id.0.unix_ts_ms() as i64;
    let micros = (unix_ms - PG_EPOCH_UNIX_MS) * 1000;
    TimestampWithTimeZone::try_from(micros).unwrap_or_else(|err| {
        raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            err.to_string(),
        )
    })
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_timestamp(id: Scru128) -> i64 {
    id.0.timestamp() as i64
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_counter(id: Scru128) -> i32 {
    id.0.counter() as i32
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_per_sec_random(id: Scru128) -> i32 {
    id.0.per_sec_random() as i32
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_per_gen_random(id: Scru128) -> i64 {
    i64::from(id.0.per_gen_random())
}

/// A field value that is negative, or above what its type can hold, as the ERROR the
/// library's range check would give.
fn field<T: TryFrom<i64>>(name: &str, value: i64, max: u64) -> T {
    T::try_from(value).unwrap_or_else(|_| {
        raise(
            PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            if value < 0 {
                format!("{name} {value} is out of range (minimum 0)")
            } else {
                format!("{name} {value} is out of range (maximum {max})")
            },
        )
    })
}

#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_from_fields(
    timestamp: i64,
    counter: i32,
    per_sec_random: i32,
    per_gen_random: i64,
) -> Scru128 {
    let max = Scru128Id::MAX;
    let id = Scru128Id::try_from_fields(
        field("timestamp", timestamp, max.timestamp()),
        field("counter", counter.into(), max.counter().into()),
        field(
            "per_sec_random",
            per_sec_random.into(),
            max.per_sec_random().into(),
        ),
        field("per_gen_random", per_gen_random, u32::MAX.into()),
    );
    Scru128(id.unwrap_or_else(|err| {
        raise(
            PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            err.to_string(),
        )
    }))
}

/// The Unix millisecond of a finite `timestamptz` (rounded down), or an ERROR.
fn unix_ms(time: TimestampWithTimeZone) -> u64 {
    let micros = time.into_inner();
    let out_of_range = |detail: &str| -> ! {
        raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            format!("timestamp out of range for scru128: {detail}"),
        )
    };
    if !time.is_finite() {
        out_of_range(if micros > 0 { "infinity" } else { "-infinity" });
    }
    let ms = micros.div_euclid(1000) + PG_EPOCH_UNIX_MS;
    u64::try_from(ms).unwrap_or_else(|_| out_of_range("before the unix epoch"))
}

fn bound(result: Result<Scru128Id, RangeError>) -> Scru128 {
    match result {
        Ok(id) => Scru128(id),
        Err(err) => raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            format!("timestamp out of range for scru128: {err}"),
        ),
    }
}

/// The smallest ID of the millisecond of `time`.
#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_min(time: TimestampWithTimeZone) -> Scru128 {
    bound(Scru128Id::try_min_at_unix_ts_ms(unix_ms(time)))
}

/// The largest ID of the millisecond of `time`.
#[pg_extern(immutable, strict, parallel_safe, sql = false)]
fn scru128_max(time: TimestampWithTimeZone) -> Scru128 {
    bound(Scru128Id::try_max_at_unix_ts_ms(unix_ms(time)))
}
