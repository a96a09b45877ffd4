//! `scru128 generate`: new IDs, one per line, streamed.
//!
//! IDs are made in fixed-size batches with the library's batch path
//! ([`Scru128Generator::try_fill`]), or with [`Scru128Generator::try_generate_at`]
//! for `--at`, and written as one block per batch, so memory stays flat for any
//! count. Small counts run on one thread with batches of [`BATCH`]. From
//! [`THREAD_FROM`] IDs on, generating and formatting run on two threads: the
//! generator thread fills batches of [`THREAD_BATCH`] while the main thread formats
//! and writes the previous ones, [`IN_FLIGHT`] batches at most. The IDs and their
//! order are the same as on one thread (one generator makes them all); the batches
//! are large so that handing them over stays cheap even when the two threads share
//! one core.

use std::io::Write;
use std::sync::mpsc::sync_channel;
use std::thread;

use scru128::{GenerateError, Scru128Generator, Scru128Id};

use crate::args::{Format, GenerateArgs};
use crate::forms::{MAX_FORM_LEN, write_lines};
use crate::output::{self, Failure, Status, write_failed};

/// IDs generated per batch on one thread.
const BATCH: usize = 1024;
/// IDs per batch handed between the two threads: large, so that handing over is
/// rare even when both threads have to share one busy core.
const THREAD_BATCH: usize = 8192;
/// Batches in flight between the two threads.
const IN_FLIGHT: usize = 4;
/// Counts up to this many IDs are generated on the main thread alone.
const THREAD_FROM: u64 = 4 * THREAD_BATCH as u64;

/// Runs `generate`.
///
/// # Errors
///
/// A write error other than a broken pipe, or the generator running out of
/// timestamps (the clock is outside the SCRU128 range, or `--at` is at the last
/// millisecond and the counter overflows).
pub fn run(args: &GenerateArgs) -> Result<Status, Failure> {
    let mut out = output::stdout();
    let result = if args.count >= THREAD_FROM {
        threaded(args.count, args.format, args.at, &mut out)
    } else {
        single(args.count, args.format, Filler::new(args.at), &mut out)
    };
    let result = result.and_then(|()| out.flush().map_err(write_failed));
    output::end(Status::Success, result)
}

/// A source of batches of new IDs.
enum Filler {
    /// From the system clock, with [`Scru128Generator::try_fill`].
    Now(Scru128Generator),
    /// As if the clock read the given Unix milliseconds throughout.
    At(Scru128Generator, u64),
}

impl Filler {
    /// A fresh generator for the clock, or for `at` (Unix ms). With `at`, the rollback
    /// allowance is unlimited so that the IDs keep increasing however far counter
    /// overflows carry the timestamp past `at`.
    fn new(at: Option<u64>) -> Self {
        let mut generator = Scru128Generator::new();
        match at {
            None => Self::Now(generator),
            Some(unix_ms) => {
                generator.set_rollback_allowance(u64::MAX);
                Self::At(generator, unix_ms)
            }
        }
    }

    /// Fills `ids`; on an error, returns how many IDs at the start are valid.
    fn fill(&mut self, ids: &mut [Scru128Id]) -> Result<(), (usize, GenerateError)> {
        match self {
            // The clock is read once per batch, so a failure comes before any ID.
            Self::Now(generator) => generator.try_fill(ids).map_err(|err| (0, err)),
            Self::At(generator, unix_ms) => {
                for (i, slot) in ids.iter_mut().enumerate() {
                    *slot = generator
                        .try_generate_at(*unix_ms)
                        .map_err(|err| (i, err))?;
                }
                Ok(())
            }
        }
    }
}

/// Writes `ids` in `format`, one per line, as one block.
#[inline]
fn write_batch(
    ids: &[Scru128Id],
    format: Format,
    block: &mut Vec<u8>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    block.clear();
    write_lines(ids, format, block);
    out.write_all(block).map_err(write_failed)
}

/// The size of the next batch of at most `size` when `left` IDs are still to come.
fn batch_len(left: u64, size: usize) -> usize {
    usize::try_from(left).map_or(size, |l| l.min(size))
}

/// Generates and writes on the current thread.
fn single(
    count: u64,
    format: Format,
    mut filler: Filler,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut ids = [Scru128Id::MIN; BATCH];
    let mut block = Vec::with_capacity(BATCH * (MAX_FORM_LEN + 1));
    let mut left = count;
    while left > 0 {
        let n = batch_len(left, BATCH);
        if let Err((valid, err)) = filler.fill(&mut ids[..n]) {
            // Write the IDs made before the failure, then report it.
            write_batch(&ids[..valid], format, &mut block, out)?;
            return Err(Failure::Generate(err));
        }
        write_batch(&ids[..n], format, &mut block, out)?;
        left -= n as u64;
    }
    Ok(())
}

/// A filled batch: the IDs, how many are valid, and the error that cut it short.
type Filled = (Box<[Scru128Id]>, usize, Option<GenerateError>);

/// Generates on a second thread while this one formats and writes. Falls back to
/// [`single`] if no thread can be started.
fn threaded(
    count: u64,
    format: Format,
    at: Option<u64>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let (full_tx, full_rx) = sync_channel::<Filled>(IN_FLIGHT);
    let (free_tx, free_rx) = sync_channel::<Box<[Scru128Id]>>(IN_FLIGHT);
    for _ in 0..IN_FLIGHT {
        // The channel has room for all of them; nobody has hung up yet.
        let _ = free_tx.send(vec![Scru128Id::MIN; THREAD_BATCH].into_boxed_slice());
    }
    let producer = move || {
        let mut filler = Filler::new(at);
        let mut left = count;
        while left > 0 {
            // Either channel failing means the writer stopped: end quietly.
            let Ok(mut ids) = free_rx.recv() else { return };
            let n = batch_len(left, THREAD_BATCH);
            let (valid, err) = match filler.fill(&mut ids[..n]) {
                Ok(()) => (n, None),
                Err((valid, err)) => (valid, Some(err)),
            };
            let stop = err.is_some();
            if full_tx.send((ids, valid, err)).is_err() || stop {
                return;
            }
            left -= n as u64;
        }
    };
    if let Err(_no_thread) = thread::Builder::new()
        .name("generate".into())
        .spawn(producer)
    {
        return single(count, format, Filler::new(at), out);
    }
    let mut block = Vec::with_capacity(THREAD_BATCH * (MAX_FORM_LEN + 1));
    // Ends when the producer is done and has dropped its sender.
    while let Ok((ids, valid, err)) = full_rx.recv() {
        write_batch(&ids[..valid], format, &mut block, out)?;
        if let Some(err) = err {
            return Err(Failure::Generate(err));
        }
        let _ = free_tx.send(ids);
    }
    Ok(())
}
