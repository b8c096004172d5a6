//! Head's time cap in adaptive runs: once base has run, head's runs get a time cap of
//! [`HEAD_CAP_FACTOR`] times the longest any benchmark of base's run took (never below
//! [`HEAD_CAP_FLOOR_MS`], never above the cap base ran with), so that a head the first pair settles anyway
//! (hundreds of times slower) does not spend the module's whole cap measuring samples the verdict does not
//! need. Base's cap is never lowered. docs/gate.md ("Head's time cap") gives the reasoning for both figures.

use std::collections::BTreeMap;

/// What a run's streams said of their caps: read with the run's figures (crate::run_metrics), which this
/// module's derivation then reads in turn, so it lives in a module of its own.
pub use crate::time_cap_reading::TimeCapReading;

/// Head's cap is this many times the longest measured time of any benchmark in base's run. A benchmark of an
/// unchanged head takes up to 1.77x base's (a whole run slow, docs/gate.md "Noise"), so 4x leaves it more than
/// twice that; and every head slower than base by at most `2 x (1 + budget)` (the whole-run allowance, at any
/// budget below 1: the close calls that need every sample) takes less than 4x and runs all its samples.
pub const HEAD_CAP_FACTOR: u64 = 4;

/// The least head's cap is lowered to, in milliseconds: below it one descheduling of a loaded machine (tens
/// of milliseconds on 2 cores with 5 to 8 runnable jobs) could be as long as the whole of a short base, and
/// the cap would cut an unchanged head on the machine's account rather than its code's.
pub const HEAD_CAP_FLOOR_MS: u64 = 100;

/// Head's lowered time cap and what it was derived from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct HeadTimeCap {
    /// The cap head's runs get (`RHO_BENCH_TIME_CAP_MS`), in ms.
    pub cap_ms: u64,
    /// [`HEAD_CAP_FACTOR`].
    pub factor: u64,
    /// The longest any benchmark of base's first run spent, in ms.
    pub base_longest_ms: f64,
    /// The cap base ran with (the module's, or the harness's default), in ms: the lowered cap is below it.
    pub module_cap_ms: u64,
    /// Whether the floor ([`HEAD_CAP_FLOOR_MS`]) set the cap, `factor` times base's longest being below it.
    pub floored: bool,
}

impl HeadTimeCap {
    /// The cap head's runs get after base's first run (`base`, every benchmark of it), or `None` when it is
    /// not lowered: some job's cap cannot be lowered through the environment (see
    /// [`TimeCapReading::stream_caps`]), or `factor` times base's longest (at least the floor) is no lower
    /// than the cap base ran with.
    pub fn derive(base: &TimeCapReading) -> Option<HeadTimeCap> {
        let caps: Option<Vec<u64>> = base.stream_caps.iter().copied().collect();
        let module_cap_ms = caps?.into_iter().min()?;
        let derived_ns = base.longest_ns.saturating_mul(HEAD_CAP_FACTOR);
        let derived_ms = derived_ns.div_ceil(1_000_000);
        let cap_ms = derived_ms.max(HEAD_CAP_FLOOR_MS);
        (cap_ms < module_cap_ms).then(|| HeadTimeCap {
            cap_ms,
            factor: HEAD_CAP_FACTOR,
            base_longest_ms: base.longest_ns as f64 / 1e6,
            module_cap_ms,
            floored: derived_ms < HEAD_CAP_FLOOR_MS,
        })
    }
}

impl std::fmt::Display for HeadTimeCap {
    /// `time cap 160 ms (4x base's longest benchmark, 40 ms; base's cap 1000 ms)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let floor = if self.floored { "the floor; " } else { "" };
        write!(
            f,
            "time cap {} ms ({floor}{}x base's longest benchmark, {:.1} ms; base's cap {} ms)",
            self.cap_ms, self.factor, self.base_longest_ms, self.module_cap_ms
        )
    }
}

/// The benchmarks a time cap stopped early in any of `runs` (one side's), with the fewest iterations any of
/// those runs did.
pub fn capped_benchmarks(runs: &[crate::RunMetrics]) -> BTreeMap<String, u64> {
    let mut fewest: BTreeMap<String, u64> = BTreeMap::new();
    for (bench, iterations) in runs.iter().flat_map(|r| &r.time_cap().capped) {
        let entry = fewest.entry(bench.clone()).or_insert(*iterations);
        *entry = (*entry).min(*iterations);
    }
    fewest
}

/// The note naming the benchmarks a time cap stopped early, per side, with the fewest iterations any of
/// their runs did: `stopped by the time cap (...): head bench_count_below (412 iterations)`; `None` when
/// none was.
pub fn capped_note(
    base_runs: &[crate::RunMetrics],
    head_runs: &[crate::RunMetrics],
) -> Option<String> {
    let mut parts = Vec::new();
    for (side, runs) in [("base", base_runs), ("head", head_runs)] {
        let names: Vec<String> = capped_benchmarks(runs)
            .iter()
            .map(|(bench, n)| format!("{bench} ({n} iterations)"))
            .collect();
        if !names.is_empty() {
            parts.push(format!("{side} {}", names.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "stopped by the time cap (figures from the iterations done): {}\n",
            parts.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(caps: &[Option<u64>], longest_ms: u64) -> TimeCapReading {
        TimeCapReading {
            stream_caps: caps.to_vec(),
            longest_ns: longest_ms * 1_000_000,
            capped: BTreeMap::new(),
        }
    }

    #[test]
    fn the_cap_is_four_times_base_never_below_the_floor_nor_at_or_above_the_module_cap() {
        let cap = HeadTimeCap::derive(&reading(&[Some(1000)], 40)).unwrap();
        assert_eq!(
            (cap.cap_ms, cap.floored, cap.module_cap_ms),
            (160, false, 1000)
        );
        assert_eq!(
            cap.to_string(),
            "time cap 160 ms (4x base's longest benchmark, 40.0 ms; base's cap 1000 ms)"
        );
        let floored = HeadTimeCap::derive(&reading(&[Some(1000)], 3)).unwrap();
        assert_eq!((floored.cap_ms, floored.floored), (HEAD_CAP_FLOOR_MS, true));
        // 4 x 300 ms is above the module's 1000: not lowered. At the module's cap: not lowered either.
        assert_eq!(HeadTimeCap::derive(&reading(&[Some(1000)], 300)), None);
        assert_eq!(HeadTimeCap::derive(&reading(&[Some(1000)], 250)), None);
        // A floor at or above the module's cap: not lowered.
        assert_eq!(HeadTimeCap::derive(&reading(&[Some(80)], 1)), None);
        // Two suites: below the lower of their caps.
        let two = HeadTimeCap::derive(&reading(&[Some(5000), Some(200)], 45)).unwrap();
        assert_eq!(two.module_cap_ms, 200);
        assert_eq!(
            HeadTimeCap::derive(&reading(&[Some(5000), Some(200)], 60)),
            None
        );
    }

    /// A stream's reading: the longest benchmark's time on the time clock (measured samples or warm-ups,
    /// whichever is longer), the cap it states, the benchmarks the cap stopped.
    #[test]
    fn a_stream_gives_its_cap_its_longest_benchmark_and_what_was_capped() {
        let stream = |config: &str, clocks: &str| {
            format!(
                "@rho-bench 1\n@target host arch=x86_64 optimized=1\n{clocks}\
                 @config iterations=3 warmup=1 {config} stack_bytes=0\n\
                 @bench slow\n:10 5000\n:10 1000\n:10 1500\n@stack off\n\
                 @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
                 @end slow iterations=2 warmup=1 capped=1 unit=iter per_iteration=1\n\
                 @bench fast\n:10 10\n:10 2000\n:10 2000\n:10 2000\n@stack off\n\
                 @heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
                 @end fast iterations=3 warmup=1 capped=0 unit=iter per_iteration=1\n\
                 @done benchmarks=2 dropped=0\n"
            )
        };
        let both = "@clock cycles tsc unit=cycle hz=3000000000 resolution=1\n\
                    @clock time clock_gettime unit=ns hz=1000000000 resolution=1\n";
        let (_, metrics) = crate::metrics_from_stdout(&stream("time_cap_ms=1000", both)).unwrap();
        let reading = metrics.time_cap();
        // slow's warm-up (5000 ns) is longer than its measured samples (2500), fast's measured 6000 longest.
        assert_eq!(reading.longest_ns, 6000);
        assert_eq!(reading.stream_caps, [Some(1000)]);
        assert_eq!(reading.capped, BTreeMap::from([("slow".to_owned(), 2)]));
        // No cap stated, or no time clock (a board's cap is compiled in): the cap cannot be lowered.
        let (_, metrics) = crate::metrics_from_stdout(&stream("time_cap_ms=0", both)).unwrap();
        assert_eq!(metrics.time_cap().stream_caps, [None]);
        let cycles = "@clock cycles tsc unit=cycle hz=3000000000 resolution=1\n";
        let one_clock = stream("time_cap_ms=1000", cycles).replace(":10 ", ":");
        let (_, metrics) = crate::metrics_from_stdout(&one_clock).unwrap();
        assert_eq!(metrics.time_cap().stream_caps, [None]);
    }

    #[test]
    fn a_job_whose_cap_the_environment_cannot_lower_lowers_nothing() {
        assert_eq!(HeadTimeCap::derive(&reading(&[Some(1000), None], 1)), None);
        assert_eq!(HeadTimeCap::derive(&reading(&[], 1)), None);
        let mut run = reading(&[Some(1000)], 1);
        run.merge(TimeCapReading::default());
        assert_eq!(run.stream_caps, [Some(1000), None]);
    }
}
