//! Turning a run's summary into a baseline section: which statistic is kept, and how it is rounded.

use std::time::{SystemTime, UNIX_EPOCH};

use rho_stats::{ClockFigures, RunSummary};
use rho_wire::{ClockRole, StackMark};

use crate::format::{
    BenchmarkBaseline, ClockInfo, Clocks, Context, Figures, Rounding, Stack, TargetBaseline,
    TimeSource,
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

    let benchmarks = summary
        .benchmarks
        .iter()
        .map(|bench| BenchmarkBaseline {
            name: bench.name.clone(),
            unit: bench.unit.clone(),
            per_iteration: bench.per_iteration,
            iterations: bench.iterations,
            cycles: figures(bench.cycles.as_ref(), cycles_rounding),
            time_ns: figures(bench.time.as_ref(), time_rounding),
            stack_bytes: match bench.stack {
                StackMark::Bytes(bytes) => Stack::Bytes(bytes),
                StackMark::Overrun => Stack::Overrun,
                StackMark::Off => Stack::Off,
            },
            heap_peak_bytes: bench.heap.peak,
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
            clocks: Clocks {
                cycles: cycles_clock,
                time: time_clock,
            },
            time_source,
        },
        benchmarks,
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
fn figures(clock: Option<&ClockFigures>, rounding: Option<Rounding>) -> Option<Figures> {
    let (clock, rounding) = (clock?, rounding?);
    let net = &clock.net;
    Some(Figures::rounded(
        net.median as f64,
        net.p95 as f64,
        net.p99 as f64,
        rounding,
    ))
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
    use super::rfc3339_utc;

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
