//! Turning a run's summary into a baseline section: which statistic is kept, and how it is rounded.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use rho_stats::{ClockFigures, RunSummary};
use rho_wire::{ClockRole, StackMark};

use crate::error::Error;
use crate::format::{
    BenchmarkBaseline, ClockInfo, Clocks, Context, Figure, Figures, Rounding, Stack,
    SuiteYardstick, TargetBaseline, TargetSections, TimeSource,
};

/// What the caller knows about a recording that the run itself does not carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// The recording tool's version, `env!("CARGO_PKG_VERSION")` of the binary (written as `rho VERSION`).
    pub tool_version: String,
    /// The compiler flags `rho` built the suite with, or the target's build command; `None` when unknown.
    pub flags: Option<String>,
    /// When, UTC, RFC 3339; [`utc_now_rfc3339`] for now.
    pub recorded_at: String,
}

impl Recording {
    /// A recording made now by tool version `tool_version`.
    pub fn now(tool_version: &str, flags: Option<String>) -> Recording {
        Recording {
            tool_version: tool_version.to_string(),
            flags,
            recorded_at: utc_now_rfc3339(),
        }
    }
}

/// The baseline section for `summary`: per benchmark the net median (and p95, p99) of each clock, rounded to
/// what the clock resolves, and the exact stack and heap peak.
pub fn section_from_summary(summary: &RunSummary, recording: &Recording) -> TargetBaseline {
    let Clocking {
        cycles_clock,
        time_clock,
        time_source,
        cycles_rounding,
        time_rounding,
    } = clocking(summary);
    let batch_of = |bench: &rho_stats::BenchSummary| {
        bench
            .cycles
            .as_ref()
            .or(bench.time.as_ref())
            .map_or(bench.batch, |f| f.batch)
    };

    let benchmarks = summary
        .benchmarks
        .iter()
        .map(|bench| BenchmarkBaseline {
            name: bench.name.clone(),
            suite: None,
            unit: bench.unit.clone(),
            per_iteration: bench.per_iteration,
            iterations: bench.iterations,
            batch: batch_of(bench),
            cycles: figures(bench.cycles.as_ref(), cycles_rounding),
            time_ns: figures(bench.time.as_ref(), time_rounding),
            cpu_ns: figures(bench.cpu.as_ref(), time_rounding),
            stack_bytes: stack_of(bench.stack),
            heap_peak_bytes: bench.heap.map(|h| h.peak),
            instructions: bench
                .instructions
                .as_ref()
                .map(rho_stats::InstructionFigures::net),
            code_bytes: bench.footprint.as_ref().and_then(|f| f.code_bytes),
            static_stack_bytes: bench.footprint.as_ref().and_then(|f| f.static_stack_bytes),
            functions: bench
                .instructions
                .as_ref()
                .and_then(|i| i.functions.clone()),
            extra: crate::format::ExtraFigure::of_run(&bench.extra),
            sampled_functions: bench.sampled_functions.clone(),
        })
        .collect();

    TargetBaseline {
        context: Context {
            target: summary.target.name.clone(),
            arch: summary.target.arch.clone(),
            optimized: summary.target.optimized,
            compiler: summary.target.compiler.clone(),
            flags: recording.flags.clone(),
            tool: format!("rho {}", recording.tool_version),
            recorded_at: recording.recorded_at.clone(),
            iterations: summary.config.iterations,
            warmup: summary.config.warmup,
            repetitions: summary.repetitions,
            clocks: Clocks {
                cycles: cycles_clock,
                time: time_clock,
            },
            time_source,
            instructions: summary
                .benchmarks
                .iter()
                .find_map(|b| b.instructions.as_ref().map(|i| i.source.clone())),
            yardsticks: summary
                .yardstick
                .iter()
                .map(|y| suite_yardstick(y, time_source))
                .collect(),
        },
        benchmarks,
    }
}

/// A run's clocks as a baseline records them, and how each clock's figures are rounded.
struct Clocking {
    cycles_clock: Option<ClockInfo>,
    time_clock: Option<ClockInfo>,
    time_source: TimeSource,
    cycles_rounding: Option<Rounding>,
    time_rounding: Option<Rounding>,
}

fn clocking(summary: &RunSummary) -> Clocking {
    let cycles_clock = summary
        .clocks
        .iter()
        .find(|c| c.role == ClockRole::Cycles)
        .map(clock_info);
    let time_clock = summary
        .clocks
        .iter()
        .find(|c| c.role == ClockRole::Time)
        .map(clock_info);
    // The same rule rho-stats uses to decide whether it derives time: no time clock, a cycle clock of known
    // frequency.
    let derive_hz = match (&time_clock, &cycles_clock) {
        (None, Some(cycles)) => cycles.hz.filter(|&hz| hz != 0),
        _ => None,
    };
    let time_source = if time_clock.is_some() {
        TimeSource::TimeClock
    } else if derive_hz.is_some() {
        TimeSource::DerivedFromCycles
    } else {
        TimeSource::None
    };
    let cycles_rounding = cycles_clock.as_ref().map(Rounding::for_clock);
    let time_rounding = match (&time_clock, &cycles_clock, derive_hz) {
        (Some(time), _, _) => Some(Rounding::for_clock(time)),
        (None, Some(cycles), Some(hz)) => Some(Rounding::for_derived_ns(cycles, hz)),
        _ => None,
    };
    Clocking {
        cycles_clock,
        time_clock,
        time_source,
        cycles_rounding,
        time_rounding,
    }
}

/// One benchmark's p25 and p75 per iteration, net, per clock, rounded as its median is in the section (the
/// history's band; a baseline keeps the median and the tails only).
#[derive(Debug, Clone, PartialEq)]
pub struct BenchQuartiles {
    pub name: String,
    pub cycles: Option<[Figure; 2]>,
    pub time_ns: Option<[Figure; 2]>,
}

/// Every benchmark's quartiles in `summary`, rounded as [`section_from_summary`] rounds its figures.
pub fn quartiles_from_summary(summary: &RunSummary) -> Vec<BenchQuartiles> {
    let clocking = clocking(summary);
    let band = |clock: Option<&ClockFigures>, rounding: Option<Rounding>| {
        let (each, rounding) = per_iteration_rounded(clock, rounding)?;
        Some([
            Figure(rounding.apply(each.p25)),
            Figure(rounding.apply(each.p75)),
        ])
    };
    summary
        .benchmarks
        .iter()
        .map(|bench| BenchQuartiles {
            name: bench.name.clone(),
            cycles: band(bench.cycles.as_ref(), clocking.cycles_rounding),
            time_ns: band(bench.time.as_ref(), clocking.time_rounding),
        })
        .collect()
}

/// One section for a project of several suites, each run separately for the same target: their benchmarks in
/// suite order, one after the other. Refuses suites that ran on different targets or clocks (their figures
/// would not share a context) and a benchmark name used by two suites (a baseline is keyed by name).
pub fn section_from_summaries(
    summaries: &[(&str, &RunSummary)],
    recording: &Recording,
) -> Result<TargetBaseline, Error> {
    let mut section: Option<TargetBaseline> = None;
    let mut first_what = "";
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for (what, summary) in summaries {
        let mut part = section_from_summary(summary, recording);
        for bench in &mut part.benchmarks {
            bench.suite = Some(what.to_string());
        }
        for yardstick in &mut part.context.yardsticks {
            yardstick.suite = Some(what.to_string());
        }
        for bench in &part.benchmarks {
            if let Some(other) = owner.insert(bench.name.clone(), what.to_string()) {
                return Err(Error::Merge {
                    message: format!(
                        "benchmark \"{}\" is in two suites ({other} and {what}); a baseline keys benchmarks by \
                         name, so rename one",
                        bench.name
                    ),
                });
            }
        }
        match &mut section {
            None => {
                first_what = what;
                section = Some(part);
            }
            Some(whole) => {
                if let Err(refusal) =
                    crate::comparable::check_comparable(&whole.context, &part.context)
                {
                    return Err(Error::Merge {
                        message: format!(
                            "suites {first_what} and {what} cannot share a baseline section: {refusal}"
                        ),
                    });
                }
                whole.benchmarks.extend(part.benchmarks);
                // One entry a suite: a suite run in several parts (the shares of a sharded run) keeps the
                // first part's.
                for yardstick in part.context.yardsticks {
                    if !whole
                        .context
                        .yardsticks
                        .iter()
                        .any(|y| y.suite == yardstick.suite)
                    {
                        whole.context.yardsticks.push(yardstick);
                    }
                }
            }
        }
    }
    section.ok_or_else(|| Error::Merge {
        message: "no suite ran: there is nothing to record".to_string(),
    })
}

/// [`section_from_summaries`] split into a section per measure ([`TargetSections::split`]): a run of
/// `--measure time,instructions` records the timed run's figures in the time section and the counted run's
/// (its instructions, and the stack and heap it saw under the counter) in the instructions section.
pub fn sections_from_summaries(
    summaries: &[(&str, &RunSummary)],
    recording: &Recording,
) -> Result<TargetSections, Error> {
    let mixed = section_from_summaries(summaries, recording)?;
    let counted: BTreeMap<&str, (Stack, Option<u64>)> = summaries
        .iter()
        .flat_map(|(_, summary)| &summary.benchmarks)
        .filter_map(|bench| {
            let memory = bench.instructions.as_ref()?.counted_memory?;
            Some((
                bench.name.as_str(),
                (stack_of(memory.stack), memory.heap_peak),
            ))
        })
        .collect();
    Ok(TargetSections::split(mixed, &|bench| {
        counted.get(bench.name.as_str()).copied()
    }))
}

/// A run's yardstick as a baseline keeps it: 4 significant digits (its own noise is a few percent), and its
/// nanoseconds those of the figures beside it (none when the section's time is derived from the cycles: a
/// derived figure would only repeat the cycles).
fn suite_yardstick(
    figures: &rho_stats::YardstickFigures,
    time_source: TimeSource,
) -> SuiteYardstick {
    let rounded = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0).map(significant);
    SuiteYardstick {
        suite: None,
        name: figures.name.clone(),
        iterations: figures.iterations,
        cycles: rounded(figures.cycles),
        time_ns: rounded(figures.time_ns).filter(|_| time_source == TimeSource::TimeClock),
        cpu_ns: rounded(figures.cpu_ns),
    }
}

/// `value` to 4 significant digits.
fn significant(value: f64) -> f64 {
    let magnitude = value.abs().log10().floor() as i32;
    let scale = 10f64.powi(3 - magnitude);
    (value * scale).round() / scale
}

fn stack_of(mark: StackMark) -> Stack {
    match mark {
        StackMark::Bytes(bytes) => Stack::Bytes(bytes),
        StackMark::Overrun => Stack::Overrun,
        StackMark::Off => Stack::Off,
    }
}

fn clock_info(clock: &rho_stats::ClockInfo) -> ClockInfo {
    ClockInfo {
        name: clock.name.clone(),
        unit: clock.unit.clone(),
        hz: clock.hz,
        resolution: clock.resolution,
    }
}

/// The net figures of one clock, rounded. Net, because the calibrated cost of measuring is not the code's
/// and would dilute every change by the same constant.
/// The net figures per iteration, rounded to what the clock resolves per iteration: its step, or a `batch`th
/// of it for a batched benchmark.
fn figures(clock: Option<&ClockFigures>, rounding: Option<Rounding>) -> Option<Figures> {
    let (each, rounding) = per_iteration_rounded(clock, rounding)?;
    Some(Figures::rounded(each.median, each.p95, each.p99, rounding))
}

/// A clock's figures per iteration and the rounding they take: the clock's, per iteration of a batch.
fn per_iteration_rounded(
    clock: Option<&ClockFigures>,
    rounding: Option<Rounding>,
) -> Option<(&rho_stats::PerIteration, Rounding)> {
    let (clock, rounding) = (clock?, rounding?);
    let rounding = rounding.for_batch(clock.clock.resolution.max(1) as f64, clock.batch);
    Some((&clock.per_iteration, rounding))
}

/// The current time, UTC, RFC 3339 to the second (`2026-12-02T13:20:15Z`).
pub fn utc_now_rfc3339() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339_utc(seconds)
}

/// `seconds` since the Unix epoch as RFC 3339 UTC. The civil date comes from Howard Hinnant's
/// days-to-civil algorithm (proleptic Gregorian calendar), which is exact for every date a u64 of seconds
/// can name in practice.
pub fn rfc3339_utc(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    let (hour, minute, second) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);

    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Figure, Rounding};

    /// A stream with a calibration block and two benchmarks; `clocks` are the `@clock` lines and each sample
    /// line has one field per clock.
    fn stream(
        target: &str,
        clocks: &str,
        overhead: &str,
        first: &[&str],
        second: &[&str],
    ) -> String {
        let mut text = format!(
            "@rho-bench 1\n@target {target} arch=x86_64 optimized=1 compiler=gcc-12.2.0\n{clocks}\
             @config iterations=4 warmup=1 time_cap_ms=5000 stack_bytes=65536\n@bench .overhead\n"
        );
        for _ in 0..5 {
            text.push_str(&format!(":{overhead}\n"));
        }
        text.push_str("@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n");
        text.push_str("@end .overhead iterations=4 warmup=1 capped=0 unit=iter per_iteration=1\n");
        for (name, samples, stack, heap) in [
            (
                "bench_a",
                first,
                "@stack 312",
                "peak=64 live=0 allocs=1 frees=1",
            ),
            (
                "bench_b",
                second,
                "@stack overrun",
                "peak=0 live=0 allocs=0 frees=0",
            ),
        ] {
            text.push_str(&format!("@bench {name}\n"));
            for sample in samples {
                text.push_str(&format!(":{sample}\n"));
            }
            text.push_str(&format!("{stack}\n@heap {heap} free_errors=0\n"));
            text.push_str(&format!(
                "@end {name} iterations=4 warmup=1 capped=0 unit=byte per_iteration=64\n"
            ));
        }
        text.push_str("@done benchmarks=2 dropped=0\n");
        text
    }

    const TWO_CLOCKS: &str = "@clock cycles tsc unit=cycle hz=2596000000 resolution=52\n\
                              @clock time clock_gettime unit=ns hz=1000000000 resolution=20\n";

    fn summary(text: &str) -> RunSummary {
        RunSummary::of(&rho_wire::parse_str(text).unwrap()).unwrap()
    }

    fn recording() -> Recording {
        Recording {
            tool_version: "0.1.0".to_string(),
            flags: Some("-O2".to_string()),
            recorded_at: "2026-12-02T13:20:15Z".to_string(),
        }
    }

    #[test]
    fn a_section_keeps_net_medians_rounded_to_the_clock_and_exact_stack_and_heap() {
        // Warm-up first (discarded), then four measured samples; overhead 78 cycles, 90 ns.
        let text = stream(
            "host",
            TWO_CLOCKS,
            "78 90",
            &["9000 9000", "1664 700", "1690 712", "1742 731", "1768 741"],
            &["100 100", "130 110", "130 110", "156 120", "200 150"],
        );
        let run = summary(&text);
        let section = section_from_summary(&run, &recording());
        assert_eq!(section.context.target, "host");
        assert_eq!(section.context.tool, "rho 0.1.0");
        assert_eq!(section.context.time_source, TimeSource::TimeClock);
        assert_eq!(
            section.context.clocks.cycles.as_ref().unwrap().resolution,
            52
        );

        let a = &section.benchmarks[0];
        let net = &run.benchmarks[0].cycles.as_ref().unwrap().net;
        // rho-stats' net median, rounded to the tsc's 52-cycle steps.
        assert_eq!(
            a.cycles.unwrap().median,
            Figure(Rounding::Step(52).apply(net.median as f64))
        );
        assert_eq!(a.cycles.unwrap().median.0 % 52.0, 0.0);
        let net_ns = &run.benchmarks[0].time.as_ref().unwrap().net;
        assert_eq!(
            a.time_ns.unwrap().median,
            Figure(Rounding::Step(20).apply(net_ns.median as f64))
        );
        assert_eq!(
            a.time_ns.unwrap().p99,
            Figure(Rounding::Step(20).apply(net_ns.p99 as f64))
        );
        assert_eq!(
            (a.stack_bytes, a.heap_peak_bytes, a.iterations),
            (Stack::Bytes(312), Some(64), 4)
        );
        assert_eq!(section.benchmarks[1].stack_bytes, Stack::Overrun);
    }

    /// A heap the harness did not measure (`@heap off`, version 6) is recorded as no figure (`null`), never 0.
    #[test]
    fn a_heap_not_measured_records_no_heap_figure() {
        let text = stream(
            "host",
            TWO_CLOCKS,
            "78 90",
            &["9000 9000", "1664 700", "1690 712", "1742 731", "1768 741"],
            &["100 100", "130 110", "130 110", "156 120", "200 150"],
        )
        .replace("@rho-bench 1", "@rho-bench 6")
        .replace(
            "@heap peak=64 live=0 allocs=1 frees=1 free_errors=0",
            "@heap off",
        );
        let section = section_from_summary(&summary(&text), &recording());
        assert_eq!(section.benchmarks[0].heap_peak_bytes, None);
        assert_eq!(section.benchmarks[1].heap_peak_bytes, Some(0));
        let json = serde_json::to_string(&section.benchmarks[0]).unwrap();
        assert!(json.contains("\"heap_peak_bytes\":null"), "{json}");
        let back: crate::format::BenchmarkBaseline = serde_json::from_str(&json).unwrap();
        assert_eq!(back, section.benchmarks[0]);
    }

    #[test]
    fn a_board_without_a_time_clock_records_derived_nanoseconds() {
        let text = stream(
            "mps2-an386",
            "@clock cycles systick unit=cycle hz=25000000 resolution=1\n",
            "12",
            &["500", "112", "112", "113", "112"],
            &["40", "30", "30", "31", "30"],
        );
        let section = section_from_summary(&summary(&text), &recording());
        assert_eq!(section.context.time_source, TimeSource::DerivedFromCycles);
        assert!(section.context.clocks.time.is_none());
        // 100 net cycles at 25 MHz: 4000 ns.
        assert_eq!(section.benchmarks[0].cycles.unwrap().median, Figure(100.0));
        assert_eq!(
            section.benchmarks[0].time_ns.unwrap().median,
            Figure(4000.0)
        );
    }

    #[test]
    fn suites_merge_into_one_section_and_duplicates_are_refused() {
        let first = summary(&stream(
            "host",
            TWO_CLOCKS,
            "78 90",
            &["1 1"; 5],
            &["1 1"; 5],
        ));
        let renamed = stream("host", TWO_CLOCKS, "78 90", &["1 1"; 5], &["1 1"; 5])
            .replace("bench_a", "bench_c")
            .replace("bench_b", "bench_d");
        let second = summary(&renamed);
        let section =
            section_from_summaries(&[("a.c", &first), ("b.c", &second)], &recording()).unwrap();
        let names: Vec<&str> = section.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["bench_a", "bench_b", "bench_c", "bench_d"]);
        let suites: Vec<Option<&str>> = section
            .benchmarks
            .iter()
            .map(|b| b.suite.as_deref())
            .collect();
        assert_eq!(suites, [Some("a.c"), Some("a.c"), Some("b.c"), Some("b.c")]);

        let err = section_from_summaries(&[("a.c", &first), ("again.c", &first)], &recording())
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("\"bench_a\" is in two suites (a.c and again.c)"),
            "{err}"
        );

        let board = summary(&renamed.replace("@target host", "@target board"));
        let err =
            section_from_summaries(&[("a.c", &first), ("b.c", &board)], &recording()).unwrap_err();
        assert!(
            err.to_string().contains("cannot share a baseline section"),
            "{err}"
        );
    }

    #[test]
    fn dates_match_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        // `date -u -d @951782400`: the leap day of a year divisible by 400.
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339_utc(4_102_444_800), "2100-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_798_982_415), "2027-01-03T13:20:15Z");
    }
}
