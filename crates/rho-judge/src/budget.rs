//! Budgets: a run's figures held against module.yml's ceilings, one verdict per benchmark and metric.
//!
//! Every metric is judged on its own and lower is better; nothing is averaged. The figures judged are the NET
//! medians (the calibrated cost of an empty measured iteration taken off), per measured iteration or per op:
//!
//! | metric | figure | budget key |
//! | --- | --- | --- |
//! | [`BudgetMetric::Cycles`] | net median cycles (or ticks) per iteration | `max_cycles_per_iteration` |
//! | [`BudgetMetric::NsPerIteration`] | net median ns per iteration | `max_ns_per_iteration` |
//! | [`BudgetMetric::CpuNsPerIteration`] | median CPU-time ns per iteration (another harness's) | `max_cpu_ns_per_iteration` |
//! | [`BudgetMetric::NsPerOp`] | net median ns per iteration / `per_iteration` | `max_ns_per_op` |
//! | [`BudgetMetric::StackBytes`] | stack high-water mark | `max_stack_bytes` |
//! | [`BudgetMetric::HeapPeakBytes`] | heap peak | `max_heap_bytes` |
//! | [`BudgetMetric::Instructions`] | net instructions per iteration (exact) | `max_instructions_per_iteration` |
//! | [`BudgetMetric::CodeBytes`] | reachable code bytes (static, from the footprint command) | `max_code_bytes` |
//! | [`BudgetMetric::StaticStackBytes`] | static stack bound (from the footprint command) | `max_static_stack_bytes` |
//!
//! The bound is inclusive: a figure equal to its budget holds. Unmeasured is not zero: a stack that overran its
//! painted region fails its budget ("stack not measured (overrun)"), and a metric the run did not measure at all
//! (no such clock, stack measurement off) cannot be judged, which is its own outcome rather than a pass.
//!
//! The heap is judged on more than its peak. A benchmark with free errors (frees of more bytes than were live)
//! has heap figures that cannot be trusted, so a heap budget on it cannot be judged; a benchmark that ends
//! holding heap memory (a leak) fails its heap budget whatever its peak ("leaked N bytes").
//!
//! A figure below one step of its clock (`ClockFigures::below_resolution`: a 10 ns body on a 20 ns clock) is
//! the clock's granularity more than the code's cost, so a budget on it is reported (`over`), never enforced,
//! and says why.
//!
//! Budgets are enforced only when the figures can be trusted: at a scale of at least 1.0 and from a harness
//! built with optimisation. Otherwise each broken budget is reported (`over`) and nothing fails.

use std::fmt;

use rho_config::Budgets;
use rho_stats::{BenchSummary, ClockFigures, RunSummary};
use rho_wire::StackMark;

/// A figure a budget can hold. Every one has the same direction: lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BudgetMetric {
    /// Net median cycles (or ticks) per measured iteration.
    Cycles,
    /// Net median nanoseconds per measured iteration.
    NsPerIteration,
    /// Median CPU-time nanoseconds per iteration (Google Benchmark's `cpu_time`).
    CpuNsPerIteration,
    /// Net median nanoseconds per iteration divided by the ops one iteration does.
    NsPerOp,
    /// Stack high-water mark in bytes.
    StackBytes,
    /// Heap peak in bytes.
    HeapPeakBytes,
    /// Net instructions per measured iteration, counted exactly.
    Instructions,
    /// Code bytes of the benchmark function and everything it can reach (static).
    CodeBytes,
    /// The static stack bound in bytes; an unbounded stack breaks it.
    StaticStackBytes,
}

impl BudgetMetric {
    /// In report order.
    pub const ALL: [BudgetMetric; 9] = [
        BudgetMetric::Cycles,
        BudgetMetric::NsPerIteration,
        BudgetMetric::NsPerOp,
        BudgetMetric::StackBytes,
        BudgetMetric::HeapPeakBytes,
        BudgetMetric::Instructions,
        BudgetMetric::CodeBytes,
        BudgetMetric::StaticStackBytes,
        // Last: a harness's second clock, which only another harness's suites have.
        BudgetMetric::CpuNsPerIteration,
    ];

    /// A short label for reports: `cycles/iter`, `ns/iter`, `ns/op`, `stack B`, `heap peak B`.
    pub fn label(self) -> &'static str {
        match self {
            BudgetMetric::Cycles => "cycles/iter",
            BudgetMetric::NsPerIteration => "ns/iter",
            BudgetMetric::CpuNsPerIteration => "cpu ns/iter",
            BudgetMetric::NsPerOp => "ns/op",
            BudgetMetric::StackBytes => "stack B",
            BudgetMetric::HeapPeakBytes => "heap peak B",
            BudgetMetric::Instructions => "instr/iter",
            BudgetMetric::CodeBytes => "code B",
            BudgetMetric::StaticStackBytes => "stack bound B",
        }
    }

    /// The module.yml key that sets this metric's ceiling.
    pub fn budget_key(self) -> &'static str {
        match self {
            BudgetMetric::Cycles => "max_cycles_per_iteration",
            BudgetMetric::NsPerIteration => "max_ns_per_iteration",
            BudgetMetric::CpuNsPerIteration => "max_cpu_ns_per_iteration",
            BudgetMetric::NsPerOp => "max_ns_per_op",
            BudgetMetric::StackBytes => "max_stack_bytes",
            BudgetMetric::HeapPeakBytes => "max_heap_bytes",
            BudgetMetric::Instructions => "max_instructions_per_iteration",
            BudgetMetric::CodeBytes => "max_code_bytes",
            BudgetMetric::StaticStackBytes => "max_static_stack_bytes",
        }
    }

    /// The ceiling `budgets` sets for this metric. `budgets` must already have its report-only zeros removed
    /// (as `ModuleConfig::budgets_for` returns them): every `Some` is a ceiling.
    pub fn budget(self, budgets: &Budgets) -> Option<f64> {
        match self {
            BudgetMetric::Cycles => budgets.max_cycles_per_iteration,
            BudgetMetric::NsPerIteration => budgets.max_ns_per_iteration,
            BudgetMetric::CpuNsPerIteration => budgets.max_cpu_ns_per_iteration,
            BudgetMetric::NsPerOp => budgets.max_ns_per_op,
            BudgetMetric::StackBytes => budgets.max_stack_bytes.map(|b| b as f64),
            BudgetMetric::HeapPeakBytes => budgets.max_heap_bytes.map(|b| b as f64),
            BudgetMetric::Instructions => budgets.max_instructions_per_iteration,
            BudgetMetric::CodeBytes => budgets.max_code_bytes.map(|b| b as f64),
            BudgetMetric::StaticStackBytes => budgets.max_static_stack_bytes.map(|b| b as f64),
        }
    }

    /// This metric's figure for `bench`, or why there is none.
    pub fn figure(self, bench: &BenchSummary) -> Figure {
        match self {
            BudgetMetric::StackBytes if bench.overran => {
                Figure::Unmeasured(Unmeasured::StackOverrun)
            }
            _ if bench.overran => Figure::Unmeasured(Unmeasured::Stopped),
            BudgetMetric::Cycles => match &bench.cycles {
                Some(f) => Figure::Value(f.per_iteration.median),
                None => Figure::Unmeasured(Unmeasured::NoCycleClock),
            },
            BudgetMetric::NsPerIteration => match &bench.time {
                Some(f) => Figure::Value(f.per_iteration.median),
                None => Figure::Unmeasured(Unmeasured::NoTime),
            },
            BudgetMetric::CpuNsPerIteration => match &bench.cpu {
                Some(f) => Figure::Value(f.per_iteration.median),
                None => Figure::Unmeasured(Unmeasured::NoCpuTime(bench.cpu_left_out)),
            },
            BudgetMetric::NsPerOp => match (&bench.time, bench.ns_per_op) {
                (_, Some(ns)) => Figure::Value(ns),
                (None, None) => Figure::Unmeasured(Unmeasured::NoTime),
                (Some(_), None) => Figure::Unmeasured(Unmeasured::NoOps),
            },
            BudgetMetric::StackBytes => match bench.stack {
                StackMark::Bytes(bytes) => Figure::Value(bytes as f64),
                StackMark::Overrun => Figure::Unmeasured(Unmeasured::StackOverrun),
                StackMark::Off => Figure::Unmeasured(Unmeasured::StackOff),
            },
            BudgetMetric::HeapPeakBytes => match bench.heap {
                None => Figure::Unmeasured(Unmeasured::HeapOff),
                Some(heap) if heap.free_errors > 0 => Figure::Unmeasured(Unmeasured::HeapMisuse {
                    free_errors: heap.free_errors,
                }),
                Some(heap) => Figure::Value(heap.peak as f64),
            },
            BudgetMetric::Instructions => match bench.metric(rho_stats::Metric::Instructions) {
                Some(n) => Figure::Value(n),
                None => Figure::Unmeasured(Unmeasured::NoInstructions),
            },
            BudgetMetric::CodeBytes => match bench.footprint.as_ref().and_then(|f| f.code_bytes) {
                Some(bytes) => Figure::Value(bytes as f64),
                None => Figure::Unmeasured(Unmeasured::NoFootprint),
            },
            BudgetMetric::StaticStackBytes => match &bench.footprint {
                Some(f) => match f.static_stack_bytes {
                    Some(bytes) => Figure::Value(bytes as f64),
                    None => Figure::Unmeasured(Unmeasured::StackUnbounded),
                },
                None => Figure::Unmeasured(Unmeasured::NoFootprint),
            },
        }
    }

    /// What, besides the figure, decides this metric's verdict for `bench`: a leak for the heap, a figure below
    /// its clock's resolution for cycles and time.
    pub fn caveat(self, bench: &BenchSummary) -> Option<Caveat> {
        let below = |figures: Option<&ClockFigures>| {
            figures
                .filter(|f| f.below_resolution)
                .map(|f| Caveat::BelowResolution {
                    net_median: f.per_iteration.median,
                    resolution: f.resolution_per_iteration(),
                    unit: f.clock.unit.clone(),
                })
        };
        match self {
            BudgetMetric::Cycles => below(bench.cycles.as_ref()),
            BudgetMetric::NsPerIteration => below(bench.time.as_ref()),
            BudgetMetric::CpuNsPerIteration => below(bench.cpu.as_ref()),
            BudgetMetric::NsPerOp => below(bench.rate_figures()),
            BudgetMetric::StackBytes | BudgetMetric::CodeBytes | BudgetMetric::StaticStackBytes => {
                None
            }
            BudgetMetric::HeapPeakBytes => bench
                .heap
                .filter(|heap| heap.free_errors == 0 && heap.live != 0)
                .map(|heap| Caveat::Leaked { bytes: heap.live }),
            BudgetMetric::Instructions => None,
        }
    }

    /// Whether figures of this metric are whole numbers (bytes, counts) rather than fractions.
    fn whole(self) -> bool {
        !matches!(self, BudgetMetric::NsPerOp)
    }

    /// `value` as this metric prints it.
    pub fn format(self, value: f64) -> String {
        if (self.whole() && value.fract() == 0.0) || value >= 100.0 {
            format!("{value:.0}")
        } else {
            format!("{value:.2}")
        }
    }
}

impl fmt::Display for BudgetMetric {
    /// In words, for messages: `cycles per iteration`, `ns per op`, `stack bytes`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BudgetMetric::Cycles => "cycles per iteration",
            BudgetMetric::NsPerIteration => "ns per iteration",
            BudgetMetric::CpuNsPerIteration => "cpu ns per iteration",
            BudgetMetric::NsPerOp => "ns per op",
            BudgetMetric::StackBytes => "stack bytes",
            BudgetMetric::HeapPeakBytes => "heap peak bytes",
            BudgetMetric::Instructions => "instructions per iteration",
            BudgetMetric::CodeBytes => "code bytes",
            BudgetMetric::StaticStackBytes => "static stack bytes",
        })
    }
}

/// Why a metric has no figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmeasured {
    /// The painted stack region was used to its last byte: the stack went at least that deep, and how much
    /// deeper is unknown. With a budget this is a failure, never a pass.
    StackOverrun,
    /// The run did not measure the stack.
    StackOff,
    /// The run did not measure the heap (`@heap off`: a Rust harness without `CountingAlloc` as the global
    /// allocator). A heap budget then cannot be judged: never a pass.
    HeapOff,
    /// The stream had no cycle clock.
    NoCycleClock,
    /// The stream had no time clock and no cycle clock of known frequency to derive time from.
    NoTime,
    /// The benchmark does 0 ops per iteration, so it has no time per op.
    NoOps,
    /// The benchmark has no CPU time: the harness has no CPU clock (`None`: a board, an importer without
    /// one), or it left the figure out, and why.
    NoCpuTime(Option<rho_stats::CpuLeftOut>),
    /// The run counted no instructions (measured time only, or no counter on this target).
    NoInstructions,
    /// The benchmark freed more bytes than were live (`free_errors` times): its heap figures cannot be trusted.
    HeapMisuse { free_errors: u64 },
    /// The static stack has no bound (recursion, an indirect call; the footprint table says which). With a
    /// budget this is a failure: no ceiling holds an unbounded stack.
    StackUnbounded,
    /// No static footprint: the footprint command did not answer, or named no function of the benchmark's.
    NoFootprint,
    /// The harness stopped the benchmark when its stack overran into the guard: it never finished, so none of
    /// its figures was measured. With a budget this is a failure.
    Stopped,
}

impl Unmeasured {
    /// True when the figure is known to be beyond any budget the run could have measured (an overrun):
    /// a failure. Otherwise the budget cannot be judged at all.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Unmeasured::StackOverrun | Unmeasured::StackUnbounded | Unmeasured::Stopped
        )
    }
}

impl fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unmeasured::StackOverrun => "stack not measured (overrun)",
            Unmeasured::Stopped => "not measured (stopped: its stack overran the painted region)",
            Unmeasured::StackOff => "stack not measured (measurement off)",
            Unmeasured::HeapOff => "heap not measured (measurement off)",
            Unmeasured::NoCycleClock => "cycles not measured (the target has no cycle clock)",
            Unmeasured::NoTime => {
                "time not measured (no time clock, and no cycle clock of known frequency)"
            }
            Unmeasured::NoOps => "no time per op (the benchmark does 0 ops per iteration)",
            Unmeasured::NoCpuTime(None) => {
                "cpu time not measured (the harness has no CPU clock: rho's hosted harnesses and Google \
                 Benchmark have one)"
            }
            Unmeasured::NoCpuTime(Some(rho_stats::CpuLeftOut::ShortSamples)) => {
                return write!(
                    f,
                    "cpu time not measured (its samples are under {} reads of the CPU clock, which does \
                     not resolve them: docs/statistics.md)",
                    rho_stats::CPU_SAMPLE_MIN_READS
                );
            }
            Unmeasured::NoCpuTime(Some(rho_stats::CpuLeftOut::OtherThreads)) => {
                "cpu time not measured (other threads of the process worked during its loop)"
            }
            Unmeasured::NoInstructions => {
                "instructions not counted (run with --measure instructions, or bench.measure)"
            }
            Unmeasured::StackUnbounded => "static stack unbounded (recursion or an indirect call)",
            Unmeasured::NoFootprint => {
                "no static footprint (the footprint command did not answer for this benchmark)"
            }
            Unmeasured::HeapMisuse { free_errors } => {
                return write!(
                    f,
                    "heap figures cannot be trusted ({free_errors} free error{}: frees of more bytes \
                     than were live)",
                    if *free_errors == 1 { "" } else { "s" }
                );
            }
        })
    }
}

/// Something besides the figure that decides a verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Caveat {
    /// The benchmark ended holding `bytes` of heap memory. With a heap budget this is a failure whatever the
    /// peak: memory that is never given back is a cost the peak of one benchmark does not show.
    Leaked { bytes: u64 },
    /// The figure's net median is below one step of its clock: it reads the clock's granularity, so its budget
    /// is reported only. `net_median` and `resolution` are in the clock's `unit`.
    /// Per iteration: for a batched benchmark the step is the clock's divided by the batch.
    BelowResolution {
        net_median: f64,
        resolution: f64,
        unit: String,
    },
}

impl Caveat {
    /// True when the caveat breaks the budget on its own.
    pub fn is_failure(&self) -> bool {
        matches!(self, Caveat::Leaked { .. })
    }

    /// True when the budget is reported, not enforced, because of the caveat.
    pub fn is_report_only(&self) -> bool {
        matches!(self, Caveat::BelowResolution { .. })
    }
}

/// A figure as a person reads it: whole when it is, else three significant decimals at most (`0.406`, `12.5`).
fn short_figure(value: f64) -> String {
    if value.fract() == 0.0 || value.abs() >= 1000.0 {
        format!("{value:.0}")
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

impl fmt::Display for Caveat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Caveat::Leaked { bytes } => write!(f, "leaked {bytes} bytes"),
            Caveat::BelowResolution {
                net_median,
                resolution,
                unit,
            } => write!(
                f,
                "below the clock's resolution (net median {} {unit}, one step {} {unit}): reported only",
                short_figure(*net_median),
                short_figure(*resolution)
            ),
        }
    }
}

/// A metric's figure, or why there is none. Unmeasured is never zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure {
    Value(f64),
    Unmeasured(Unmeasured),
}

/// The verdict on one figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within its budget (the bound is inclusive).
    Ok,
    /// Over its budget, or unmeasured in a way that is a failure (an overrun), and budgets are enforced.
    Over,
    /// Over its budget, but budgets are reported only in this run.
    OverReported,
    /// A budget that cannot be judged because the figure was not measured, and budgets are enforced.
    Unmeasured,
    /// The same, reported only.
    UnmeasuredReported,
    /// No budget for this figure.
    NoBudget,
}

impl Verdict {
    /// `ok`, `OVER`, `over`, `UNMEASURED`, `unmeasured`, `-`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Over => "OVER",
            Verdict::OverReported => "over",
            Verdict::Unmeasured => "UNMEASURED",
            Verdict::UnmeasuredReported => "unmeasured",
            Verdict::NoBudget => "-",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Why budgets are reported but not enforced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReportOnlyReason {
    /// The run was scaled below 1.0: a short run is a noisy one.
    Scale(f64),
    /// The harness was built without optimisation: the figures describe a debug build.
    Unoptimized,
}

impl fmt::Display for ReportOnlyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportOnlyReason::Scale(scale) => write!(f, "scale {scale} < 1.0"),
            ReportOnlyReason::Unoptimized => f.write_str("harness built without optimisation"),
        }
    }
}

/// Whether budgets are enforced in a run, and if not, why.
#[derive(Debug, Clone, PartialEq)]
pub struct Enforcement {
    /// Empty when budgets are enforced.
    pub reasons: Vec<ReportOnlyReason>,
}

impl Enforcement {
    /// Enforced exactly when `scale >= 1.0` and the harness was `optimized`.
    pub fn decide(scale: f64, optimized: bool) -> Enforcement {
        let mut reasons = Vec::new();
        // A NaN scale is not trusted either.
        if scale.is_nan() || scale < 1.0 {
            reasons.push(ReportOnlyReason::Scale(scale));
        }
        if !optimized {
            reasons.push(ReportOnlyReason::Unoptimized);
        }
        Enforcement { reasons }
    }

    pub fn enforced(&self) -> bool {
        self.reasons.is_empty()
    }

    /// For the report's `budgets` header line: `enforced`, or `reported only: scale 0.5 < 1.0; harness built
    /// without optimisation`.
    pub fn describe(&self) -> String {
        if self.enforced() {
            "enforced".to_string()
        } else {
            let reasons: Vec<String> = self.reasons.iter().map(ToString::to_string).collect();
            format!("reported only: {}", reasons.join("; "))
        }
    }
}

/// One figure against its budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub metric: BudgetMetric,
    pub figure: Figure,
    /// The ceiling, `None` when the figure has none.
    pub budget: Option<f64>,
    /// What besides the figure decided the verdict (a leak), when anything did.
    pub caveat: Option<Caveat>,
    pub verdict: Verdict,
    /// Where the budget came from, when the verdict should say so: a module-wide budget judged on a board
    /// that has none of its own ([`Judgement::with_scopes`]).
    pub scope: Option<String>,
}

impl Check {
    /// The figure as printed: a number, or `not measured`.
    pub fn figure_text(&self) -> String {
        match self.figure {
            Figure::Value(value) => self.metric.format(value),
            Figure::Unmeasured(_) => "not measured".to_string(),
        }
    }

    /// The budget as printed, `-` without one.
    pub fn budget_text(&self) -> String {
        match self.budget {
            Some(budget) => self.metric.format(budget),
            None => "-".to_string(),
        }
    }
}

/// Every metric of one benchmark, in [`BudgetMetric::ALL`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchJudgement {
    pub name: String,
    pub checks: Vec<Check>,
}

/// A run judged against its budgets.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub enforcement: Enforcement,
    pub benchmarks: Vec<BenchJudgement>,
    /// The families with a `max_growth` budget (under the family's name, or for all), judged
    /// ([`crate::growth`]).
    pub growth: Vec<crate::growth::GrowthCheck>,
    /// The names of the families that ran (`RHO_BENCH_ADD_ARG`), in order: a budget written under one is
    /// not a typo.
    pub families: Vec<String>,
}

/// One budget that did not hold (or could not be judged), for `rho bench check`'s list.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub benchmark: String,
    pub metric: BudgetMetric,
    pub figure: Figure,
    pub budget: f64,
    /// What besides the figure decided it: a leak (then the leak is what failed), or a figure below its
    /// clock's resolution (then the failure is reported only).
    pub caveat: Option<Caveat>,
    /// Where the budget came from, when it is not the target's own ([`Check::scope`]).
    pub scope: Option<String>,
}

impl Failure {
    /// True when the figure could not be judged at all (rather than being over).
    pub fn undecided(&self) -> bool {
        matches!(self.figure, Figure::Unmeasured(why) if !why.is_failure())
    }

    /// True when the failure is reported but never enforced (a figure below its clock's resolution).
    pub fn reported_only(&self) -> bool {
        self.caveat.as_ref().is_some_and(Caveat::is_report_only)
    }

    /// The budget's key, and where the budget came from when that is not the target's own:
    /// `max_stack_bytes; module-wide budget, not set for target mps2-an386`.
    fn key(&self) -> String {
        match &self.scope {
            Some(scope) => format!("{}; {scope}", self.metric.budget_key()),
            None => self.metric.budget_key().to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let budget = self.metric.format(self.budget);
        if let Some(caveat) = self.caveat.as_ref().filter(|c| c.is_failure()) {
            return write!(
                f,
                "{}: {caveat}, so its budget of {budget} {} ({}) fails",
                self.benchmark,
                self.metric,
                self.key()
            );
        }
        match self.figure {
            Figure::Value(value) => {
                write!(
                    f,
                    "{}: {} {} over its budget of {budget} ({})",
                    self.benchmark,
                    self.metric,
                    self.metric.format(value),
                    self.key()
                )?;
                match &self.caveat {
                    Some(caveat) if caveat.is_report_only() => write!(f, ", {caveat}"),
                    _ => Ok(()),
                }
            }
            Figure::Unmeasured(why) => write!(
                f,
                "{}: {why}, so its budget of {budget} {} ({}) {}",
                self.benchmark,
                self.metric,
                self.key(),
                if why.is_failure() {
                    "fails"
                } else {
                    "cannot be judged"
                }
            ),
        }
    }
}

/// What `rho bench check` concludes.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every enforced budget holds (or budgets are reported only).
    Holds,
    /// At least one budget is broken, and every budget could be judged.
    Broken(Vec<Failure>),
    /// At least one budget could not be judged (its metric was not measured); the list also holds any broken
    /// ones.
    Undecided(Vec<Failure>),
}

impl Judgement {
    /// Judge every benchmark of `summary`. `budgets_for` gives a benchmark's ceilings with report-only zeros
    /// removed (`ModuleConfig::budgets_for`); `scale` is the scale the run was made at.
    pub fn of(
        summary: &RunSummary,
        budgets_for: impl Fn(&str) -> Budgets,
        scale: f64,
    ) -> Judgement {
        let enforcement = Enforcement::decide(scale, summary.target.optimized);
        let enforced = enforcement.enforced();
        let benchmarks = summary
            .benchmarks
            .iter()
            .map(|bench| {
                let budgets = budgets_for(&bench.name);
                let checks = BudgetMetric::ALL
                    .iter()
                    .map(|&metric| {
                        let figure = metric.figure(bench);
                        let budget = metric.budget(&budgets);
                        let caveat = metric.caveat(bench);
                        Check {
                            metric,
                            figure,
                            budget,
                            verdict: verdict(figure, budget, caveat.as_ref(), enforced),
                            caveat,
                            scope: None,
                        }
                    })
                    .collect();
                BenchJudgement {
                    name: bench.name.clone(),
                    checks,
                }
            })
            .collect();
        let growth = crate::growth::judge_growth(summary, |family| budgets_for(family).max_growth);
        let mut families: Vec<String> = Vec::new();
        for member in summary.benchmarks.iter().filter_map(|b| b.family.as_ref()) {
            if !families.contains(&member.name) {
                families.push(member.name.clone());
            }
        }
        Judgement {
            enforcement,
            benchmarks,
            growth,
            families,
        }
    }

    /// Each budgeted check with where its budget came from, as `scope(benchmark, metric)` says (`None`: the
    /// verdict needs no note). See [`module_wide_scope`].
    pub fn with_scopes(
        mut self,
        scope: impl Fn(&str, BudgetMetric) -> Option<String>,
    ) -> Judgement {
        for bench in &mut self.benchmarks {
            for check in bench.checks.iter_mut().filter(|c| c.budget.is_some()) {
                check.scope = scope(&bench.name, check.metric);
            }
        }
        self
    }

    /// Every budget that is over or could not be judged, whether or not enforced, in suite order.
    pub fn failures(&self) -> Vec<Failure> {
        let mut failures = Vec::new();
        for bench in &self.benchmarks {
            for check in &bench.checks {
                let Some(budget) = check.budget else { continue };
                let failed = check.caveat.as_ref().is_some_and(Caveat::is_failure)
                    || match check.figure {
                        Figure::Value(value) => exceeds(value, budget),
                        Figure::Unmeasured(_) => true,
                    };
                if failed {
                    failures.push(Failure {
                        benchmark: bench.name.clone(),
                        metric: check.metric,
                        figure: check.figure,
                        budget,
                        caveat: check.caveat.clone(),
                        scope: check.scope.clone(),
                    });
                }
            }
        }
        failures
    }

    /// The outcome `rho bench check` enforces: [`Outcome::Holds`] whenever budgets are reported only. A failure
    /// that is reported only on its own ([`Failure::reported_only`]) is left out.
    pub fn outcome(&self) -> Outcome {
        if !self.enforcement.enforced() {
            return Outcome::Holds;
        }
        let failures: Vec<Failure> = self
            .failures()
            .into_iter()
            .filter(|f| !f.reported_only())
            .collect();
        if failures.is_empty() {
            Outcome::Holds
        } else if failures.iter().any(Failure::undecided) {
            Outcome::Undecided(failures)
        } else {
            Outcome::Broken(failures)
        }
    }

    /// The metrics that have a budget in at least one benchmark (the columns a report needs), in order.
    pub fn budgeted_metrics(&self) -> Vec<BudgetMetric> {
        BudgetMetric::ALL
            .iter()
            .copied()
            .filter(|metric| {
                self.benchmarks
                    .iter()
                    .flat_map(|b| &b.checks)
                    .any(|c| c.metric == *metric && c.budget.is_some())
            })
            .collect()
    }
}

/// A suite's `summary` judged against module.yml's budgets for `budget_target` (a target's own budgets apply
/// to what ran on it), those `measure` can judge, at the `scale` it ran with.
pub fn judge_suite(
    config: &rho_config::ModuleConfig,
    budget_target: &str,
    summary: &RunSummary,
    measure: rho_config::Measure,
    scale: f64,
) -> Judgement {
    Judgement::of(
        summary,
        |name| measure.applicable(config.budgets_for_target(budget_target, name)),
        scale,
    )
    .with_scopes(module_wide_scope(config, budget_target))
}

/// The scope note for a run on `target`: a budget module.yml sets for every target (`bench.budgets`,
/// `bench.benchmarks.NAME.budgets`) that `target`'s own entry does not set (its `budgets:`, its
/// `benchmarks.NAME.budgets`) is named as such on any target but the host, "module-wide budget, not set for
/// target mps2-an386": a ceiling written with the host's figures in mind is rarely a board's, and a verdict that
/// does not say where its budget came from sends the reader looking in the wrong place.
pub fn module_wide_scope<'a>(
    config: &'a rho_config::ModuleConfig,
    target: &'a str,
) -> impl Fn(&str, BudgetMetric) -> Option<String> + 'a {
    move |bench_name, metric| {
        if target == "host" {
            return None;
        }
        let own = config.target_budgets_for(target, bench_name);
        metric
            .budget(&own)
            .is_none()
            .then(|| format!("module-wide budget, not set for target {target}"))
    }
}

/// Over the budget: `!(value <= budget)`, so a NaN is never a pass; the bound is inclusive.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn exceeds(value: f64, budget: f64) -> bool {
    !(value <= budget)
}

fn verdict(
    figure: Figure,
    budget: Option<f64>,
    caveat: Option<&Caveat>,
    enforced: bool,
) -> Verdict {
    let Some(budget) = budget else {
        return Verdict::NoBudget;
    };
    let over = |enforced| {
        if enforced {
            Verdict::Over
        } else {
            Verdict::OverReported
        }
    };
    if caveat.is_some_and(Caveat::is_failure) {
        return over(enforced);
    }
    // Below the clock's resolution the figure is the clock's granularity: reported, never enforced.
    let enforced = enforced && !caveat.is_some_and(Caveat::is_report_only);
    match figure {
        Figure::Value(value) if exceeds(value, budget) => over(enforced),
        Figure::Value(_) => Verdict::Ok,
        Figure::Unmeasured(why) if why.is_failure() => over(enforced),
        Figure::Unmeasured(_) if enforced => Verdict::Unmeasured,
        Figure::Unmeasured(_) => Verdict::UnmeasuredReported,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_stats::{ClockInfo, Summary};
    use rho_wire::{ClockRole, HeapFigures, RunConfig, Target};

    fn figures(role: ClockRole, raw_median: u64, overhead: u64) -> ClockFigures {
        let raw = Summary::of(&[raw_median]).unwrap();
        ClockFigures {
            clock: ClockInfo {
                role,
                name: "test".into(),
                unit: if role == ClockRole::Cycles {
                    "cycle"
                } else {
                    "ns"
                }
                .into(),
                hz: Some(1_000_000_000),
                resolution: 1,
            },
            derived: false,
            raw,
            net: raw.minus(overhead),
            batch: 1,
            per_iteration: raw.minus(overhead).per_iteration(1),
            overhead,
            below_resolution: false,
            distribution: None,
        }
    }

    fn bench(
        name: &str,
        cycles: u64,
        ns: u64,
        per_iteration: u64,
        stack: StackMark,
        heap: u64,
    ) -> BenchSummary {
        BenchSummary {
            name: name.into(),
            unit: "byte".into(),
            per_iteration,
            iterations: 1,
            batch: 1,
            warmup: 0,
            capped: false,
            preempted: 0,
            rerun: 0,
            cycles_wrapped: 0,
            family: None,
            overran: false,
            // 10 of overhead on each clock: the judged figure is the net one.
            cycles: Some(figures(ClockRole::Cycles, cycles + 10, 10)),
            time: Some(figures(ClockRole::Time, ns + 10, 10)),
            cpu: None,
            cpu_left_out: None,
            stack,
            heap: Some(HeapFigures {
                peak: heap,
                ..HeapFigures::default()
            }),
            leaked: false,
            ops_per_second: None,
            ns_per_op: (per_iteration > 0).then(|| ns as f64 / per_iteration as f64),
            instructions: None,
            footprint: None,
            sampled_functions: None,
            extra: Vec::new(),
            stats_only: false,
        }
    }

    fn run(optimized: bool, benchmarks: Vec<BenchSummary>) -> RunSummary {
        RunSummary {
            version: 1,
            target: Target {
                name: "host".into(),
                arch: "x86_64".into(),
                optimized,
                compiler: None,
            },
            config: RunConfig {
                iterations: 1,
                warmup: 0,
                time_cap_ms: None,
                stack_bytes: Some(65536),
                stack_guard: None,
            },
            clocks: Vec::new(),
            calibrated: true,
            overhead: Vec::new(),
            benchmarks,
            dropped: 0,
            noise_lines: 0,
            repetitions: 1,
            image: None,
            imported: None,
            yardstick: None,
        }
    }

    fn budgets(cycles: f64, ns: f64, ns_op: f64, stack: u64, heap: u64) -> Budgets {
        Budgets {
            max_cycles_per_iteration: Some(cycles),
            max_ns_per_iteration: Some(ns),
            max_cpu_ns_per_iteration: None,
            max_ns_per_op: Some(ns_op),
            max_stack_bytes: Some(stack),
            max_heap_bytes: Some(heap),
            max_code_bytes: None,
            max_static_stack_bytes: None,
            fail_on_regression_percent: None,
            max_instructions_per_iteration: None,
            fail_on_instructions_regression_percent: None,
            max_growth: None,
        }
    }

    /// The verdicts of the clocked, stack and heap metrics (the instructions one and the static ones have
    /// tests of their own).
    fn verdicts(judgement: &Judgement) -> Vec<Verdict> {
        judgement.benchmarks[0]
            .checks
            .iter()
            .filter(|c| {
                !matches!(
                    c.metric,
                    BudgetMetric::Instructions
                        | BudgetMetric::CodeBytes
                        | BudgetMetric::StaticStackBytes
                        | BudgetMetric::CpuNsPerIteration
                )
            })
            .map(|c| c.verdict)
            .collect()
    }

    /// `max_cpu_ns_per_iteration` holds another harness's CPU time (Google Benchmark's), inclusive, and
    /// cannot be judged on a run without one.
    #[test]
    fn a_cpu_time_budget_holds_the_cpu_clocks_median() {
        let budget = |limit: f64| {
            move |_: &str| Budgets {
                max_cpu_ns_per_iteration: Some(limit),
                ..Budgets::default()
            }
        };
        let check = |bench: &BenchSummary, limit: f64| {
            let judgement = Judgement::of(&run(true, vec![bench.clone()]), budget(limit), 1.0);
            judgement.benchmarks[0]
                .checks
                .iter()
                .find(|c| c.metric == BudgetMetric::CpuNsPerIteration)
                .cloned()
                .unwrap()
        };
        let verdict = |bench: &BenchSummary, limit: f64| check(bench, limit).verdict;
        let mut timed = bench("b", 100, 640, 64, StackMark::Bytes(300), 64);
        assert_eq!(verdict(&timed, 500.0), Verdict::Unmeasured);
        // Why there is none is said: no CPU clock, or one the harness's figures left out.
        let why = |bench: &BenchSummary| match check(bench, 500.0).figure {
            Figure::Unmeasured(why) => why.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(why(&timed).contains("has no CPU clock"), "{}", why(&timed));
        let mut short = timed.clone();
        short.cpu_left_out = Some(rho_stats::CpuLeftOut::ShortSamples);
        assert_eq!(verdict(&short, 500.0), Verdict::Unmeasured);
        assert!(
            why(&short).contains("under 10 reads of the CPU clock"),
            "{}",
            why(&short)
        );
        short.cpu_left_out = Some(rho_stats::CpuLeftOut::OtherThreads);
        assert!(why(&short).contains("other threads"), "{}", why(&short));
        // 400 ns of CPU time per iteration (the harness took no overhead off).
        timed.cpu = Some(figures(ClockRole::Time, 400, 0));
        assert_eq!(verdict(&timed, 400.0), Verdict::Ok);
        assert_eq!(verdict(&timed, 399.0), Verdict::Over);
    }

    #[test]
    fn instructions_are_judged_exactly_and_unmeasured_without_a_count() {
        let mut counted = bench("b", 100, 640, 64, StackMark::Bytes(300), 64);
        let budget = |limit: f64| {
            move |_: &str| Budgets {
                max_instructions_per_iteration: Some(limit),
                ..Budgets::default()
            }
        };
        let check = |judgement: &Judgement| {
            judgement.benchmarks[0]
                .checks
                .iter()
                .find(|c| c.metric == BudgetMetric::Instructions)
                .cloned()
                .unwrap()
        };
        let unmeasured = check(&Judgement::of(
            &run(true, vec![counted.clone()]),
            budget(10.0),
            1.0,
        ));
        assert_eq!(unmeasured.verdict, Verdict::Unmeasured);
        counted.instructions = Some(rho_stats::InstructionFigures {
            source: "callgrind".to_string(),
            per_iteration: 1000.2,
            iterations: 10,
            loop_total: Some(10_200),
            overhead_per_iteration: 14.0,
            overhead_per_loop: 20.0,
            samples: None,
            cache: None,
            counted_memory: None,
            functions: None,
        });
        let summary = run(true, vec![counted]);
        assert_eq!(
            check(&Judgement::of(&summary, budget(1000.0), 1.0)).verdict,
            Verdict::Ok
        );
        assert_eq!(
            check(&Judgement::of(&summary, budget(999.0), 1.0)).verdict,
            Verdict::Over
        );
    }

    #[test]
    fn each_metric_is_judged_on_its_own_against_the_net_median() {
        // cycles 100 (raw 110), ns 640 over 64 ops = 10 ns/op, stack 300, heap 64.
        let summary = run(
            true,
            vec![bench("b", 100, 640, 64, StackMark::Bytes(300), 64)],
        );
        // cycles exactly at budget (inclusive), ns over, ns/op under, stack over, heap at budget.
        let judgement = Judgement::of(&summary, |_| budgets(100.0, 639.0, 10.5, 299, 64), 1.0);
        assert_eq!(
            verdicts(&judgement),
            [
                Verdict::Ok,
                Verdict::Over,
                Verdict::Ok,
                Verdict::Over,
                Verdict::Ok
            ]
        );
        let failures = judgement.failures();
        assert_eq!(failures.len(), 2);
        assert_eq!(failures[0].metric, BudgetMetric::NsPerIteration);
        assert_eq!(failures[0].figure, Figure::Value(640.0));
        assert_eq!(failures[1].metric, BudgetMetric::StackBytes);
        assert!(matches!(judgement.outcome(), Outcome::Broken(f) if f.len() == 2));
        assert_eq!(
            failures[0].to_string(),
            "b: ns per iteration 640 over its budget of 639 (max_ns_per_iteration)"
        );
    }

    #[test]
    fn code_and_static_stack_budgets_judge_the_footprint_and_an_unbounded_stack_breaks_one() {
        let mut bounded = bench("bounded", 100, 640, 64, StackMark::Bytes(300), 64);
        bounded.footprint = Some(rho_stats::StaticFootprint {
            code_bytes: Some(2000),
            static_stack_bytes: Some(320),
            unbounded: None,
        });
        let mut recursive = bench("recursive", 100, 640, 64, StackMark::Bytes(300), 64);
        recursive.footprint = Some(rho_stats::StaticFootprint {
            code_bytes: Some(100),
            static_stack_bytes: None,
            unbounded: Some("recursion: f -> f".into()),
        });
        let unknown = bench("unknown", 100, 640, 64, StackMark::Bytes(300), 64);
        let summary = run(true, vec![bounded, recursive, unknown]);
        let limits = Budgets {
            max_code_bytes: Some(1999),
            max_static_stack_bytes: Some(320),
            ..Budgets::default()
        };
        let judgement = Judgement::of(&summary, |_| limits, 1.0);
        let verdict = |bench: usize, metric: BudgetMetric| {
            judgement.benchmarks[bench]
                .checks
                .iter()
                .find(|c| c.metric == metric)
                .unwrap()
                .verdict
        };
        // One byte over is over; a bound equal to its budget holds.
        assert_eq!(verdict(0, BudgetMetric::CodeBytes), Verdict::Over);
        assert_eq!(verdict(0, BudgetMetric::StaticStackBytes), Verdict::Ok);
        assert_eq!(verdict(1, BudgetMetric::CodeBytes), Verdict::Ok);
        assert_eq!(verdict(1, BudgetMetric::StaticStackBytes), Verdict::Over);
        assert_eq!(verdict(2, BudgetMetric::CodeBytes), Verdict::Unmeasured);
        let failures = judgement.failures();
        assert_eq!(
            failures[0].to_string(),
            "bounded: code bytes 2000 over its budget of 1999 (max_code_bytes)"
        );
        assert!(
            failures[1].to_string().contains("static stack unbounded"),
            "{}",
            failures[1]
        );
    }

    #[test]
    fn a_figure_without_a_budget_has_no_verdict() {
        let summary = run(
            true,
            vec![bench("b", 100, 640, 64, StackMark::Bytes(300), 64)],
        );
        let judgement = Judgement::of(&summary, |_| Budgets::default(), 1.0);
        assert!(verdicts(&judgement).iter().all(|v| *v == Verdict::NoBudget));
        assert_eq!(judgement.outcome(), Outcome::Holds);
        assert!(judgement.budgeted_metrics().is_empty());
    }

    #[test]
    fn budgets_are_looked_up_per_benchmark() {
        let summary = run(
            true,
            vec![
                bench("small", 100, 100, 1, StackMark::Bytes(10), 0),
                bench("large", 100, 100, 1, StackMark::Bytes(10), 0),
            ],
        );
        let judgement = Judgement::of(
            &summary,
            |name| Budgets {
                max_cycles_per_iteration: Some(if name == "small" { 50.0 } else { 500.0 }),
                ..Budgets::default()
            },
            1.0,
        );
        assert_eq!(judgement.benchmarks[0].checks[0].verdict, Verdict::Over);
        assert_eq!(judgement.benchmarks[1].checks[0].verdict, Verdict::Ok);
        assert_eq!(judgement.budgeted_metrics(), [BudgetMetric::Cycles]);
    }

    #[test]
    fn below_full_scale_or_unoptimized_a_broken_budget_is_reported_only() {
        let over = |_: &str| budgets(1.0, 1.0, 0.001, 1, 1);
        let fast = run(
            true,
            vec![bench("b", 100, 640, 64, StackMark::Bytes(300), 64)],
        );
        let scaled = Judgement::of(&fast, over, 0.5);
        assert!(
            verdicts(&scaled)
                .iter()
                .all(|v| *v == Verdict::OverReported)
        );
        assert_eq!(scaled.outcome(), Outcome::Holds);
        assert_eq!(scaled.failures().len(), 5, "still listed, for the report");
        assert_eq!(
            scaled.enforcement.describe(),
            "reported only: scale 0.5 < 1.0"
        );

        let debug = run(
            false,
            vec![bench("b", 100, 640, 64, StackMark::Bytes(300), 64)],
        );
        let unoptimized = Judgement::of(&debug, over, 2.0);
        assert_eq!(unoptimized.outcome(), Outcome::Holds);
        assert_eq!(
            unoptimized.enforcement.describe(),
            "reported only: harness built without optimisation"
        );
        let both = Judgement::of(&debug, over, 0.1);
        assert_eq!(both.enforcement.reasons.len(), 2);

        assert_eq!(
            Judgement::of(&fast, over, 1.0).enforcement.describe(),
            "enforced"
        );
        assert!(!Enforcement::decide(f64::NAN, true).enforced());
    }

    #[test]
    fn a_stack_overrun_fails_its_budget_and_is_never_zero() {
        let summary = run(
            true,
            vec![bench("deep", 100, 100, 1, StackMark::Overrun, 0)],
        );
        let judgement = Judgement::of(
            &summary,
            |_| Budgets {
                max_stack_bytes: Some(1_000_000),
                ..Budgets::default()
            },
            1.0,
        );
        let stack = &judgement.benchmarks[0].checks[3];
        assert_eq!(stack.metric, BudgetMetric::StackBytes);
        assert_eq!(stack.verdict, Verdict::Over);
        assert_eq!(stack.figure_text(), "not measured");
        let Outcome::Broken(failures) = judgement.outcome() else {
            panic!("an overrun is a failure: {:?}", judgement.outcome());
        };
        assert_eq!(
            failures[0].to_string(),
            "deep: stack not measured (overrun), so its budget of 1000000 stack bytes (max_stack_bytes) fails"
        );
    }

    #[test]
    fn every_budget_of_a_benchmark_stopped_by_an_overrun_fails() {
        let mut stopped = bench("deep", 100, 100, 1, StackMark::Overrun, 64);
        stopped.overran = true;
        stopped.cycles = None;
        stopped.time = None;
        stopped.ns_per_op = None;
        let summary = run(true, vec![stopped]);
        let judgement = Judgement::of(
            &summary,
            |_| Budgets {
                max_cycles_per_iteration: Some(1_000_000.0),
                max_stack_bytes: Some(1_000_000),
                max_heap_bytes: Some(1_000_000),
                ..Budgets::default()
            },
            1.0,
        );
        let Outcome::Broken(failures) = judgement.outcome() else {
            panic!(
                "a stopped benchmark is a failure: {:?}",
                judgement.outcome()
            );
        };
        let failures: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
        assert_eq!(failures.len(), 3, "{failures:?}");
        assert!(
            failures.iter().any(|f| f
                == "deep: stack not measured (overrun), so its budget of 1000000 stack bytes (max_stack_bytes) fails"),
            "{failures:?}"
        );
        assert!(
            failures.iter().any(|f| f.starts_with(
                "deep: not measured (stopped: its stack overran the painted region), so its budget of 1000000 \
                 heap peak bytes"
            )),
            "{failures:?}"
        );
    }

    #[test]
    fn a_missing_metric_cannot_be_judged() {
        let mut unmeasured = bench("b", 100, 100, 0, StackMark::Off, 0);
        unmeasured.cycles = None;
        let summary = run(true, vec![unmeasured]);
        let judgement = Judgement::of(&summary, |_| budgets(1e9, 1e9, 1e9, 1 << 20, 1 << 20), 1.0);
        assert_eq!(
            verdicts(&judgement),
            [
                Verdict::Unmeasured,
                Verdict::Ok,
                Verdict::Unmeasured,
                Verdict::Unmeasured,
                Verdict::Ok
            ]
        );
        let Outcome::Undecided(failures) = judgement.outcome() else {
            panic!("{:?}", judgement.outcome());
        };
        assert_eq!(failures.len(), 3);
        assert!(failures.iter().all(Failure::undecided));
        assert!(failures[1].to_string().contains("0 ops per iteration"));
        // Reported only, it is listed but decides nothing.
        let scaled = Judgement::of(&summary, |_| budgets(1e9, 1e9, 1e9, 1 << 20, 1 << 20), 0.5);
        assert_eq!(
            scaled.benchmarks[0].checks[0].verdict,
            Verdict::UnmeasuredReported
        );
        assert_eq!(scaled.outcome(), Outcome::Holds);
    }

    fn heap_budget(bytes: u64) -> impl Fn(&str) -> Budgets {
        move |_| Budgets {
            max_heap_bytes: Some(bytes),
            ..Budgets::default()
        }
    }

    #[test]
    fn heap_misuse_makes_a_heap_budget_undecidable() {
        let mut misused = bench("b", 100, 100, 1, StackMark::Bytes(10), 32);
        misused.heap = Some(HeapFigures {
            peak: 32,
            live: 8,
            free_errors: 2,
            ..HeapFigures::default()
        });
        let summary = run(true, vec![misused]);
        // Well within its budget by the figures, but the figures cannot be trusted.
        let judgement = Judgement::of(&summary, heap_budget(1024), 1.0);
        let heap = &judgement.benchmarks[0].checks[4];
        assert_eq!(heap.metric, BudgetMetric::HeapPeakBytes);
        assert_eq!(heap.verdict, Verdict::Unmeasured);
        assert_eq!(heap.figure_text(), "not measured");
        let Outcome::Undecided(failures) = judgement.outcome() else {
            panic!("{:?}", judgement.outcome());
        };
        assert!(failures[0].undecided());
        assert_eq!(
            failures[0].to_string(),
            "b: heap figures cannot be trusted (2 free errors: frees of more bytes than were live), so its \
             budget of 1024 heap peak bytes (max_heap_bytes) cannot be judged"
        );
        // Without a heap budget, nothing is judged.
        let unbudgeted = Judgement::of(&summary, |_| Budgets::default(), 1.0);
        assert_eq!(unbudgeted.outcome(), Outcome::Holds);
    }

    /// A heap the harness did not count (`@heap off`) is not a heap of 0 bytes: its budget is not measured, as a
    /// stack budget is with the stack off, so the run is undecided, never a pass.
    #[test]
    fn a_heap_budget_on_a_heap_not_measured_is_not_measured_not_ok() {
        let mut uncounted = bench("uncounted", 100, 100, 1, StackMark::Bytes(10), 0);
        uncounted.heap = None;
        let summary = run(true, vec![uncounted]);
        let judgement = Judgement::of(&summary, heap_budget(1024), 1.0);
        let heap = &judgement.benchmarks[0].checks[4];
        assert_eq!(heap.metric, BudgetMetric::HeapPeakBytes);
        assert_eq!(heap.figure, Figure::Unmeasured(Unmeasured::HeapOff));
        assert_eq!(heap.caveat, None);
        assert_eq!(heap.verdict, Verdict::Unmeasured);
        assert_eq!(heap.figure_text(), "not measured");
        let Outcome::Undecided(failures) = judgement.outcome() else {
            panic!("{:?}", judgement.outcome());
        };
        assert!(failures[0].undecided());
        assert_eq!(
            failures[0].to_string(),
            "uncounted: heap not measured (measurement off), so its budget of 1024 heap peak bytes \
             (max_heap_bytes) cannot be judged"
        );
        // The same as a stack budget with the stack off.
        let mut stackless = bench("stackless", 100, 100, 1, StackMark::Off, 0);
        stackless.heap = None;
        let both = Judgement::of(
            &run(true, vec![stackless]),
            |_| Budgets {
                max_stack_bytes: Some(1024),
                max_heap_bytes: Some(1024),
                ..Budgets::default()
            },
            1.0,
        );
        let checks = &both.benchmarks[0].checks;
        assert_eq!(checks[3].verdict, checks[4].verdict);
        // Without a heap budget, nothing is judged.
        let unbudgeted = Judgement::of(&summary, |_| Budgets::default(), 1.0);
        assert_eq!(unbudgeted.outcome(), Outcome::Holds);
    }

    #[test]
    fn a_leak_fails_a_heap_budget_whatever_the_peak() {
        let mut leaky = bench("leaky", 100, 100, 1, StackMark::Bytes(10), 64);
        leaky.heap = Some(HeapFigures {
            peak: 64,
            live: 16,
            ..HeapFigures::default()
        });
        leaky.leaked = true;
        let summary = run(true, vec![leaky]);
        let judgement = Judgement::of(&summary, heap_budget(64), 1.0);
        let heap = &judgement.benchmarks[0].checks[4];
        // The peak is still shown: it was measured.
        assert_eq!(heap.figure, Figure::Value(64.0));
        assert_eq!(heap.caveat, Some(Caveat::Leaked { bytes: 16 }));
        assert_eq!(heap.verdict, Verdict::Over);
        let Outcome::Broken(failures) = judgement.outcome() else {
            panic!("a leak breaks a heap budget: {:?}", judgement.outcome());
        };
        assert_eq!(failures.len(), 1);
        assert!(!failures[0].undecided());
        assert_eq!(
            failures[0].to_string(),
            "leaky: leaked 16 bytes, so its budget of 64 heap peak bytes (max_heap_bytes) fails"
        );
        // Reported only, the leak is listed and decides nothing.
        let scaled = Judgement::of(&summary, heap_budget(64), 0.5);
        assert_eq!(
            scaled.benchmarks[0].checks[4].verdict,
            Verdict::OverReported
        );
        assert_eq!(scaled.outcome(), Outcome::Holds);
        // Without a heap budget a leak is not a budget failure (the report warns of it on its own).
        let unbudgeted = Judgement::of(
            &summary,
            |_| Budgets {
                max_stack_bytes: Some(100),
                ..Budgets::default()
            },
            1.0,
        );
        assert_eq!(unbudgeted.outcome(), Outcome::Holds);
        // No leak, the same peak: the budget holds.
        let clean = run(
            true,
            vec![bench("clean", 100, 100, 1, StackMark::Bytes(10), 64)],
        );
        assert_eq!(
            Judgement::of(&clean, heap_budget(64), 1.0).outcome(),
            Outcome::Holds
        );
    }

    #[test]
    fn a_budget_on_a_figure_below_its_clocks_resolution_is_reported_only() {
        // 10 ns net on a 20 ns clock; cycles (resolution 1) see it.
        let mut tiny = bench("tiny", 20, 10, 1, StackMark::Bytes(10), 0);
        if let Some(time) = tiny.time.as_mut() {
            time.clock.resolution = 20;
            time.below_resolution = true;
        }
        // The rates then come from the cycles: 20 cycles at 1 GHz is 20 ns per op.
        tiny.recompute_rates();
        assert_eq!(tiny.ns_per_op, Some(20.0));
        let summary = run(true, vec![tiny]);
        let judgement = Judgement::of(&summary, |_| budgets(10.0, 5.0, 100.0, 100, 100), 1.0);
        let checks = &judgement.benchmarks[0].checks;
        // Cycles over their budget and seen by their clock: enforced.
        assert_eq!(checks[0].verdict, Verdict::Over);
        assert_eq!(checks[0].caveat, None);
        // ns per iteration over, but below resolution: reported only, with the reason.
        assert_eq!(checks[1].verdict, Verdict::OverReported);
        assert_eq!(
            checks[1].caveat,
            Some(Caveat::BelowResolution {
                net_median: 10.0,
                resolution: 20.0,
                unit: "ns".into()
            })
        );
        let Outcome::Broken(failures) = judgement.outcome() else {
            panic!("{:?}", judgement.outcome());
        };
        // Only the cycles decide; the time figure is listed among all failures, reported only.
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].metric, BudgetMetric::Cycles);
        let all = judgement.failures();
        let ns = all
            .iter()
            .find(|f| f.metric == BudgetMetric::NsPerIteration)
            .unwrap();
        assert!(ns.reported_only());
        assert_eq!(
            ns.to_string(),
            "tiny: ns per iteration 10 over its budget of 5 (max_ns_per_iteration), below the clock's \
             resolution (net median 10 ns, one step 20 ns): reported only"
        );
        // With only report-only failures, check holds.
        let lenient = Judgement::of(&summary, |_| budgets(100.0, 5.0, 100.0, 100, 100), 1.0);
        assert_eq!(lenient.outcome(), Outcome::Holds);
        assert_eq!(lenient.failures().len(), 1);
        // A time per op below resolution too (no cycle clock to fall back on) is reported only as well.
        let mut no_cycles = summary.benchmarks[0].clone();
        no_cycles.cycles = None;
        no_cycles.recompute_rates();
        let alone = run(true, vec![no_cycles]);
        let per_op = |_: &str| Budgets {
            max_ns_per_op: Some(5.0),
            ..Budgets::default()
        };
        let judged = Judgement::of(&alone, per_op, 1.0);
        assert_eq!(judged.benchmarks[0].checks[2].figure, Figure::Value(10.0));
        assert_eq!(
            judged.benchmarks[0].checks[2].verdict,
            Verdict::OverReported
        );
        assert_eq!(judged.outcome(), Outcome::Holds);
    }

    #[test]
    fn a_nan_figure_is_not_a_pass() {
        assert!(exceeds(f64::NAN, 1.0));
        assert!(!exceeds(1.0, 1.0));
    }

    #[test]
    fn figures_print_as_their_metric_reads() {
        assert_eq!(BudgetMetric::Cycles.format(1987.0), "1987");
        assert_eq!(BudgetMetric::NsPerOp.format(4.567), "4.57");
        assert_eq!(BudgetMetric::NsPerOp.format(250.4), "250");
        assert_eq!(BudgetMetric::NsPerIteration.format(12.5), "12.50");
    }
}
