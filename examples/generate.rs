//! Prints a few SCRU128 IDs from the process-wide generator and their fields.
//!
//! `cargo run --example generate -- 5`

use std::process::ExitCode;

fn main() -> ExitCode {
    let count = match std::env::args().nth(1).map(|arg| arg.parse::<usize>()) {
        None => 3,
        Some(Ok(n)) => n,
        Some(Err(err)) => {
            eprintln!("generate: COUNT must be a whole number: {err}");
            return ExitCode::from(2);
        }
    };
    println!(
        "{:<26}  {:<24}  {:>9}  {:>8}  {:>10}",
        "id", "unix_ts_ms", "counter", "per_sec", "per_gen"
    );
    for _ in 0..count {
        let id = scru128::scru128();
        println!(
            "{}  {:<24}  {:>9}  {:>8}  {:>10}",
            id.encode(),
            id.unix_ts_ms(),
            id.counter(),
            id.per_sec_random(),
            id.per_gen_random()
        );
    }
    ExitCode::SUCCESS
}
