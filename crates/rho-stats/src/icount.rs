//! Instructions from QEMU `-icount` ticks: a run's cycle figures turned into instruction figures. Its own
//! module because it reads the run's summary and writes instruction figures, and neither of those modules
//! needs the other.

use crate::count::{InstructionFigures, QEMU_ICOUNT};
use crate::run::RunSummary;

impl RunSummary {
    /// A run under QEMU `-icount shift=S` whose cycle clock is a tick counter at `hz` (SysTick on the
    /// emulated board): virtual time advances `2^S` ns per instruction, so a tick is `1e9 / hz / 2^S`
    /// instructions, and each benchmark's instructions per iteration are its mean ticks less the calibrated
    /// mean ticks of an empty iteration, times that (means, not medians: a tick is more than one
    /// instruction, and the mean over many iterations resolves below it), per iteration of a batched sample.
    /// Labelled `qemu-icount`. Does
    /// nothing without cycle figures of known frequency.
    pub fn add_icount_instructions(&mut self, shift: u32) {
        let Some(overhead) = self
            .overhead
            .iter()
            .find(|o| !o.derived && o.clock.role == rho_wire::ClockRole::Cycles)
        else {
            return;
        };
        let Some(hz) = overhead.clock.hz.filter(|&hz| hz != 0) else {
            return;
        };
        let per_tick = 1e9 / hz as f64 / f64::from(1u32 << shift.min(31));
        let empty = overhead.summary.mean;
        for bench in &mut self.benchmarks {
            let Some(cycles) = &bench.cycles else {
                continue;
            };
            bench.instructions = Some(InstructionFigures {
                source: QEMU_ICOUNT.to_string(),
                // The overhead is taken once a sample; a sample may be a batch of iterations.
                per_iteration: (cycles.raw.mean - empty) / cycles.batch.max(1) as f64 * per_tick,
                iterations: bench.iterations,
                loop_total: None,
                overhead_per_iteration: empty * per_tick,
                overhead_per_loop: 0.0,
                samples: None,
                cache: None,
                counted_memory: None,
                functions: None,
            });
        }
    }
}
