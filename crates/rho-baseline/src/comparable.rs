//! Whether two sections measure the same things in the same units ([`check_comparable`]): a property of their
//! contexts, which recording a run checks when suites merge into one section, and comparing checks before any
//! figure (rho-compare). Apart from [`Refusal`] (crate::refusal) so the crate's error can carry the refusal
//! without the file's types.

use crate::format::{ClockInfo, Context, TimeSource};
use crate::refusal::Refusal;

/// How far two frequencies of the same clock may differ and still count the same unit. A harness that
/// measures its counter's frequency at start-up reads a slightly different figure each run (2899912000,
/// 2899907000, ...); a real difference of clock (another machine, another core clock setting) is far more.
pub const HZ_TOLERANCE: f64 = 0.01;

/// Checks the two sides measure the same things in the same units; see [`Refusal`].
pub fn check_comparable(base: &Context, head: &Context) -> Result<(), Refusal> {
    if base.target != head.target {
        return Err(Refusal::Target {
            base: base.target.clone(),
            head: head.target.clone(),
        });
    }
    if base.arch != head.arch {
        return Err(Refusal::Arch {
            target: base.target.clone(),
            base: base.arch.clone(),
            head: head.arch.clone(),
        });
    }
    if base.optimized != head.optimized {
        return Err(Refusal::Optimized {
            target: base.target.clone(),
            base_optimized: base.optimized,
        });
    }
    if let (Some(b), Some(h)) = (&base.instructions, &head.instructions)
        && b != h
    {
        return Err(Refusal::InstructionCounter {
            base: b.clone(),
            head: h.clone(),
        });
    }
    // A run that only counted instructions has no clocks to compare (and no clocked figures to judge).
    if base.counted_only() || head.counted_only() {
        return Ok(());
    }
    check_cycle_clocks(base.clocks.cycles.as_ref(), head.clocks.cycles.as_ref())?;
    check_time_sources(base, head)
}

fn check_cycle_clocks(base: Option<&ClockInfo>, head: Option<&ClockInfo>) -> Result<(), Refusal> {
    match (base, head) {
        (None, None) => Ok(()),
        (Some(b), None) => Err(Refusal::CycleClock {
            base_name: b.name.clone(),
            head_name: "no".to_string(),
            detail: format!(
                "the baseline counts {} with {}, this run has no cycle clock",
                b.unit, b.name
            ),
        }),
        (None, Some(h)) => Err(Refusal::CycleClock {
            base_name: "no".to_string(),
            head_name: h.name.clone(),
            detail: format!(
                "the baseline has no cycle clock, this run counts {} with {}",
                h.unit, h.name
            ),
        }),
        (Some(b), Some(h)) => {
            if b.name != h.name || b.unit != h.unit {
                return Err(Refusal::CycleClock {
                    base_name: b.name.clone(),
                    head_name: h.name.clone(),
                    detail: format!(
                        "the baseline counts {} of {} ({}), this run counts {} of {} ({}); record a baseline \
                         with this clock",
                        b.unit,
                        b.name,
                        describe_hz(b.hz),
                        h.unit,
                        h.name,
                        describe_hz(h.hz)
                    ),
                });
            }
            if let (Some(bh), Some(hh)) = (b.hz, h.hz) {
                let (bh, hh) = (bh as f64, hh as f64);
                if (bh - hh).abs() > HZ_TOLERANCE * bh.max(hh) {
                    return Err(Refusal::CycleClock {
                        base_name: format!("{} at {}", b.name, describe_hz(b.hz)),
                        head_name: format!("{} at {}", h.name, describe_hz(h.hz)),
                        detail: format!(
                            "the same counter running at another frequency (more than {}% apart) is another \
                             machine or another clock setting; record a baseline on this one",
                            HZ_TOLERANCE * 100.0
                        ),
                    });
                }
            }
            Ok(())
        }
    }
}

/// The rule for nanoseconds: nanoseconds measured by a real-time clock are comparable with nanoseconds
/// measured by any real-time clock (a nanosecond is a nanosecond, whichever clock counted it); nanoseconds
/// derived from a cycle counter are comparable only with nanoseconds derived from the same counter (already
/// checked, frequency included), because they are that counter's cycles times an assumed frequency, not a
/// measurement of time. A measured and a derived figure are never compared: their difference would mix a
/// change in the code with the error in the assumed frequency.
fn check_time_sources(base: &Context, head: &Context) -> Result<(), Refusal> {
    if base.time_source == head.time_source {
        return Ok(());
    }
    let describe = |context: &Context| match context.time_source {
        TimeSource::TimeClock => match &context.clocks.time {
            Some(clock) => format!("nanoseconds measured by {}", clock.name),
            None => "nanoseconds measured by a time clock".to_string(),
        },
        TimeSource::DerivedFromCycles => match &context.clocks.cycles {
            Some(clock) => format!("nanoseconds derived from {} cycles", clock.name),
            None => "derived nanoseconds".to_string(),
        },
        TimeSource::None => "no nanoseconds".to_string(),
    };
    Err(Refusal::TimeSource {
        detail: format!(
            "the baseline has {} and this run has {}: a measured time and a time derived from a cycle count \
             (or none) are not compared; record a baseline with this harness",
            describe(base),
            describe(head)
        ),
    })
}

fn describe_hz(hz: Option<u64>) -> String {
    match hz {
        None => "frequency unknown".to_string(),
        Some(hz) if hz >= 1_000_000_000 => format!("{:.3} GHz", hz as f64 / 1e9),
        Some(hz) if hz >= 1_000_000 => format!("{:.3} MHz", hz as f64 / 1e6),
        Some(hz) => format!("{hz} Hz"),
    }
}
