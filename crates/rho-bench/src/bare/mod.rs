//! The Cortex-M platform without `std` (default features off, feature `cortex-m`), whose runner is
//! `crate::runner::bare`: cortex-m-rt's start-up, the settings compiled in, the cycle counter of the C harness's Cortex-M port (DWT, else SysTick
//! with its wraps counted), the stack painted below the stack pointer, and the stream through semihosting.
//!
//! The settings are the C harness's bare-metal defines, read from the build's environment (`option_env!`):
//! `RHO_BENCH_ITERATIONS`, `RHO_BENCH_WARMUP`, `RHO_BENCH_SCALE`, `RHO_BENCH_TIME_CAP_MS` (counted in cycles,
//! needs `RHO_BENCH_CPU_HZ`), `RHO_BENCH_STACK_BYTES` (default 16384), `RHO_BENCH_BATCH`, `RHO_BENCH_FILTER`,
//! `RHO_BENCH_TARGET` (the stream's target name, default `cortex-m`) and `RHO_BENCH_CPU_HZ` (default 0,
//! unknown). `rho bench --target mps2-an386` sets them when it builds a `cargo:` suite.

pub mod clock;

/// A board takes no turns: lock-step is a hosted gate's (`crate::hosted::lockstep`).
pub(crate) mod lockstep {
    #[inline(always)]
    pub(crate) fn due(_time_now: u64) -> bool {
        false
    }
    pub(crate) fn wait() {}
}

use crate::wire;

/// The largest batch the harness chooses by itself.
pub(crate) const BATCH_MAX: u64 = 1024;
/// Samples buffered between writes.
const SAMPLE_BUFFER: usize = 8;

/// The buffered samples of the running benchmark: its cycles only (no time clock), written out as `:N`
/// lines when the buffer is full (on the benchmark's stack, as the C harness does on a board) and at its end.
pub(crate) struct Samples {
    cycles: [u32; SAMPLE_BUFFER],
    len: usize,
}

impl Samples {
    pub(crate) const fn new() -> Samples {
        Samples {
            cycles: [0; SAMPLE_BUFFER],
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, sample: [u64; 3]) {
        self.cycles[self.len] = sample[0] as u32;
        self.len += 1;
        if self.len == SAMPLE_BUFFER {
            self.flush();
        }
    }

    #[inline(never)]
    pub(crate) fn flush(&mut self) {
        let mut out = Out::new();
        for cycles in &self.cycles[..self.len] {
            let _ = wire::sample(&mut out, &[u64::from(*cycles)]);
        }
        out.flush();
        self.len = 0;
    }
}

/// A line buffer written out through semihosting (SYS_WRITE to the host's stdout) when full or flushed.
pub(crate) struct Out {
    bytes: [u8; 96],
    len: usize,
}

impl Out {
    pub(crate) const fn new() -> Out {
        Out {
            bytes: [0; 96],
            len: 0,
        }
    }

    pub(crate) fn flush(&mut self) {
        if self.len > 0 {
            if let Ok(mut stdout) = cortex_m_semihosting::hio::hstdout() {
                let _ = stdout.write_all(&self.bytes[..self.len]);
            }
            self.len = 0;
        }
    }
}

impl core::fmt::Write for Out {
    fn write_str(&mut self, text: &str) -> core::fmt::Result {
        for &byte in text.as_bytes() {
            if self.len == self.bytes.len() {
                self.flush();
            }
            self.bytes[self.len] = byte;
            self.len += 1;
        }
        Ok(())
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        self.flush();
    }
}
