//! What one run's wire streams said of their time caps and what the caps did to it: read from each stream
//! with the run's figures (crate::wire_metrics, kept in crate::run_metrics) and read in turn by head's time
//! cap (crate::head_cap), which derives head's cap from base's first run.

use std::collections::BTreeMap;

use rho_wire::ClockRole;

/// What one run's wire streams said of their time caps, and what the caps did to it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeCapReading {
    /// Per job that ran, the cap (ms) its harness ran with when it can be lowered through
    /// `RHO_BENCH_TIME_CAP_MS`: the stream has a time clock (a hosted harness, which reads the variable when it
    /// starts) and states a cap (`@config time_cap_ms=`, not 0). `None` for a job whose cap cannot be lowered
    /// that way: a stream without a time clock (a board's cap is compiled in, in cycles), one stating no cap
    /// (`time_cap_ms=0`, another harness's imported report) or a last-line JSON job.
    pub stream_caps: Vec<Option<u64>>,
    /// The longest any benchmark of the run spent, in ns: its measured samples' or its warm-ups' time (the
    /// harness caps each by the same figure), added up on the stream's time clock as the harness adds it up.
    pub longest_ns: u64,
    /// The benchmarks the time cap stopped early (`@end capped=1`), with the iterations they did.
    pub capped: BTreeMap<String, u64>,
}

impl TimeCapReading {
    /// The reading of one wire stream.
    pub fn of_stream(run: &rho_wire::Run) -> Self {
        let time = run.clock_index(ClockRole::Time);
        let cap = run.config.time_cap_ms.filter(|ms| *ms > 0);
        let mut reading = TimeCapReading {
            stream_caps: vec![time.and(cap)],
            ..TimeCapReading::default()
        };
        for bench in &run.benchmarks {
            if bench.capped {
                reading.capped.insert(bench.name.clone(), bench.iterations);
            }
            let Some((clock, column)) = time.and_then(|c| Some((c, bench.samples.get(c)?))) else {
                continue;
            };
            // A time clock counts nanoseconds unless it says otherwise.
            let hz = run.clocks[clock].hz.unwrap_or(1_000_000_000);
            let measured = bench.measured(clock);
            let warmups = &column[..column.len() - measured.len()];
            for part in [measured, warmups] {
                let counts = part.iter().fold(0u64, |sum, s| sum.saturating_add(*s));
                let ns = rho_stats::counts_to_ns(counts, hz).unwrap_or(0);
                reading.longest_ns = reading.longest_ns.max(ns);
            }
        }
        reading
    }

    /// Add one job's reading to a run's. A job that gave no stream (a JSON line) is a job whose cap cannot
    /// be lowered.
    pub fn merge(&mut self, job: TimeCapReading) {
        if job.stream_caps.is_empty() {
            self.stream_caps.push(None);
        }
        self.stream_caps.extend(job.stream_caps);
        self.longest_ns = self.longest_ns.max(job.longest_ns);
        self.capped.extend(job.capped);
    }
}
