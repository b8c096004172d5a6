//! Lock-step with the other side of a gate's round (docs/gate.md, "Lock-step rounds"; rho/bench.h,
//! "Lock-step", the same protocol): `RHO_BENCH_LOCKSTEP=W,R,US` gives the pipe this run says it is ready on
//! (W), the one it is told to go on (R) and its turn in microseconds. The run says ready and waits for its go
//! before it reads a clock ([`init`]), and then between samples once it has measured for a turn since its last
//! go ([`due`], [`wait`]). Waiting blocks in read(2), a voluntary switch the preemption check does not count. A
//! write or read that fails turns it off: the run goes on by itself.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

use crate::error::Error;
use crate::hosted::clock;

/// The pipe ends, -1 while lock-step is off. Atomics, not a field of the run: the loop's step reads them and
/// the run is single-threaded, so relaxed loads cost what a plain load does.
static READY: AtomicI32 = AtomicI32::new(-1);
static GO: AtomicI32 = AtomicI32::new(-1);
static TURN_NS: AtomicU64 = AtomicU64::new(0);
/// The time clock when this run's turn began.
static SINCE: AtomicU64 = AtomicU64::new(0);

/// Reads `RHO_BENCH_LOCKSTEP` (unset or empty: off) and waits for the first go. POSIX hosts only, as the C
/// harness: elsewhere the variable is not read.
pub fn init() -> Result<(), Error> {
    if !cfg!(unix) {
        return Ok(());
    }
    let Some(text) = std::env::var_os("RHO_BENCH_LOCKSTEP") else {
        return Ok(());
    };
    let text = text.to_string_lossy().into_owned();
    if text.is_empty() {
        return Ok(());
    }
    let malformed = || Error::Setting {
        variable: "RHO_BENCH_LOCKSTEP".to_string(),
        expected: "W,R,US (two fds and a turn in microseconds, 1 to 999999999)".to_string(),
        got: text.clone(),
    };
    let parts: Vec<&str> = text.split(',').collect();
    let [ready, go, micros] = parts.as_slice() else {
        return Err(malformed());
    };
    let digits = |s: &str, most: usize| {
        (!s.is_empty() && s.len() <= most && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let (Some(ready), Some(go), Some(micros)) =
        (digits(ready, 6), digits(go, 6), digits(micros, 9))
    else {
        return Err(malformed());
    };
    if micros == 0 {
        return Err(malformed());
    }
    READY.store(ready as i32, Ordering::Relaxed);
    GO.store(go as i32, Ordering::Relaxed);
    TURN_NS.store(micros * 1000, Ordering::Relaxed);
    wait();
    Ok(())
}

/// Whether this run's turn is over at `time_now` (the time clock's reading at a sample's end).
#[inline]
pub fn due(time_now: u64) -> bool {
    GO.load(Ordering::Relaxed) >= 0
        && time_now.wrapping_sub(SINCE.load(Ordering::Relaxed)) >= TURN_NS.load(Ordering::Relaxed)
}

/// Says ready and waits for the go; off for good when either fails.
#[inline(never)]
pub fn wait() {
    #[cfg(unix)]
    take_turn(READY.load(Ordering::Relaxed), GO.load(Ordering::Relaxed));
    #[cfg(not(unix))]
    GO.store(-1, Ordering::Relaxed);
    SINCE.store(clock::time_now(), Ordering::Relaxed);
}

#[cfg(unix)]
fn take_turn(ready: i32, go: i32) {
    let mut byte = [b'r'];
    let mut done = loop {
        // SAFETY: write(2) of one byte from a live buffer; a descriptor that is not open fails with EBADF.
        let n = unsafe { libc::write(ready, byte.as_ptr().cast(), 1) };
        if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break n;
        }
    };
    if done == 1 {
        done = loop {
            // SAFETY: read(2) of one byte into a live buffer of that length.
            let n = unsafe { libc::read(go, byte.as_mut_ptr().cast(), 1) };
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break n;
            }
        };
    }
    if done != 1 {
        GO.store(-1, Ordering::Relaxed);
    }
}
