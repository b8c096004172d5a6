//! The gate's settings: how many runs per side, the timeout, and the budget of each metric.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::GateError;

/// Alternating runs per side when nothing says otherwise (module.yml's default).
pub const DEFAULT_RUNS: u32 = rho_config::DEFAULT_GATE_RUNS;
/// The fewest runs per side: a side's best of one run is just a run (rho-config's rule).
pub const MIN_RUNS: u32 = rho_config::MIN_GATE_RUNS;
/// The most rounds a benchmark whose verdict is still open gets when nothing sets `max_runs`: adaptive runs
/// are the default. 20 rounds bring a paired interval to about +-0.5 of the rounds' standard deviation
/// (t = 2.09 over sqrt(20)), enough to tell a 5% change from a 3% budget at the noise the paired rounds
/// show on a loaded 2-core machine (docs/gate.md, "Measured").
pub const DEFAULT_MAX_RUNS: u32 = 20;
/// `RHO_BENCH_ROUND_MS`, handed to every timed run of a gate: the time a program that times itself (a last-line
/// JSON command) may spend measuring each of its metrics in one round. A gate judges on the rounds' paired
/// ratios, so several short rounds, base and head a moment apart, decide sooner than a few long ones; a program
/// that ignores it runs as long as ever (docs/gate.md, "Short rounds"). 10 ms: five 2 ms repetitions of each of
/// the kata's kernels (tests/kata/bench_json.c), an eighth of its 40. 20 ms gave the same verdicts in 1.2 to 1.5
/// times the time; 10 ms gave false alarms only while one slow run could settle a regression, which a figure
/// without samples no longer can (two rounds beyond the whole-run allowance: docs/gate.md, "Adaptive runs").
pub const ROUND_MS: u64 = 10;
/// Seconds each build and each run may take when nothing says otherwise (module.yml's default).
pub const DEFAULT_TIMEOUT_SECONDS: u64 = rho_config::DEFAULT_GATE_TIMEOUT.as_secs();
/// The budget of a metric nothing else names: 30% slower is allowed.
pub const DEFAULT_BUDGET: f64 = rho_config::DEFAULT_GATE_BUDGET;

/// The budget of an instruction count nothing names: 1% ([`rho_judge::INSTRUCTIONS_MAX_REGRESSION`], `--diff`'s
/// default for instructions too).
pub const INSTRUCTIONS_BUDGET: f64 = rho_judge::INSTRUCTIONS_MAX_REGRESSION;

/// The largest allowed regression of each metric, as a fraction in (0, 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Budgets {
    default: f64,
    per_metric: BTreeMap<String, f64>,
    /// The budget of an instruction count nothing names (module.yml's
    /// `fail_on_instructions_regression_percent`); `None`: the default, at most [`INSTRUCTIONS_BUDGET`].
    instructions: Option<f64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            default: DEFAULT_BUDGET,
            per_metric: BTreeMap::new(),
            instructions: None,
        }
    }
}

impl Budgets {
    /// Budgets with `default` for every metric not named in `per_metric`. Every fraction must lie in (0, 1).
    pub fn new(default: f64, per_metric: BTreeMap<String, f64>) -> Result<Self, GateError> {
        check_fraction("default", default)?;
        for (metric, fraction) in &per_metric {
            check_fraction(metric, *fraction)?;
        }
        Ok(Budgets {
            default,
            per_metric,
            instructions: None,
        })
    }

    /// Sets the budget of instruction counts nothing names (a fraction in (0, 1)).
    pub fn set_instructions(&mut self, fraction: f64) -> Result<(), GateError> {
        check_fraction("instructions", fraction)?;
        self.instructions = Some(fraction);
        Ok(())
    }

    /// The budget of `metric`: its own if one is set, else rho-judge's one rule for its kind
    /// ([`rho_judge::metric_limit`], which `--diff` and `history check` judge by too): an instruction count
    /// (`<bench>.instructions`), which does not move with the machine's load, the instructions budget when
    /// one is set, else the default at most [`INSTRUCTIONS_BUDGET`]; the image's static figures
    /// (`<bench>.code`, `<bench>.static_stack`) 0, exact; every other metric the default.
    pub fn for_metric(&self, metric: &str) -> f64 {
        if let Some(&fraction) = self.per_metric.get(metric) {
            return fraction;
        }
        let instructions = self
            .instructions
            .unwrap_or(self.default.min(INSTRUCTIONS_BUDGET));
        match rho_metric(metric) {
            Some(kind) => rho_judge::metric_limit(kind, self.default, instructions),
            None => self.default,
        }
    }

    /// The budget of metrics that have none of their own.
    pub fn default_budget(&self) -> f64 {
        self.default
    }

    /// Set the budget of `metric` (`default` sets the default), replacing what was there.
    pub fn set(&mut self, metric: &str, fraction: f64) -> Result<(), GateError> {
        check_fraction(metric, fraction)?;
        if metric == "default" {
            self.default = fraction;
        } else {
            self.per_metric.insert(metric.to_owned(), fraction);
        }
        Ok(())
    }

    /// The metrics with a budget of their own.
    pub fn named(&self) -> impl Iterator<Item = (&str, f64)> {
        self.per_metric.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

/// The rho metric a gate metric (`<bench>.<leaf>`) is, by its leaf (`code`, `instructions`: the gate names of
/// [`Metric::ALL`](rho_stats::Metric::ALL)); `None` for another harness's figures.
fn rho_metric(metric: &str) -> Option<rho_stats::Metric> {
    let (_, leaf) = metric.rsplit_once('.')?;
    rho_stats::Metric::ALL
        .iter()
        .copied()
        .find(|kind| kind.gate_name() == leaf)
}

/// A fraction in (0, 1): 0 would fail on noise alone, 1 or more lets a doubling through.
/// rho-config's rule, the same for module.yml and for the flags.
fn check_fraction(metric: &str, fraction: f64) -> Result<(), GateError> {
    if rho_config::is_gate_budget(fraction) {
        Ok(())
    } else {
        Err(GateError::BadBudget {
            metric: metric.to_owned(),
            value: fraction,
        })
    }
}

/// Parse a `--budget` argument, `METRIC=FRACTION` (`default=FRACTION` for the default).
pub fn parse_budget_override(text: &str) -> Result<(String, f64), GateError> {
    let bad = || GateError::BadBudgetSyntax(text.to_owned());
    let (metric, fraction) = text.split_once('=').ok_or_else(bad)?;
    let metric = metric.trim();
    if metric.is_empty() {
        return Err(bad());
    }
    let fraction: f64 = fraction.trim().parse().map_err(|_| bad())?;
    check_fraction(metric, fraction)?;
    Ok((metric.to_owned(), fraction))
}

/// Everything the gate needs to know besides the two sides.
#[derive(Debug, Clone, PartialEq)]
pub struct GateSettings {
    runs: u32,
    /// The ceiling of the adaptive runs; `None`: [`DEFAULT_MAX_RUNS`] (never below `runs`). Set equal to
    /// `runs`, every benchmark runs `runs` times (the fixed gate).
    max_runs: Option<u32>,
    /// How many builds run at once (base and head in parallel at 2 or more); `None`: the number of cores.
    build_jobs: Option<usize>,
    /// Whether a side that is a git revision is built from `.git/rho-cache/` when an entry matches.
    cache: bool,
    /// Whether each side is also built without the caches and its outputs compared (`--verify-cache`).
    verify_cache: bool,
    /// Whether adaptive runs lower head's time cap from base's run (crate::head_cap).
    lower_head_cap: bool,
    /// Whether both sides' runs of a round go at once, taking turns on one CPU (crate::lockstep).
    lock_step: bool,
    timeout: Duration,
    budgets: Budgets,
    /// `--shard K/N`: judge only the benchmarks of share K (crate::shard); `None`: all of them.
    shard: Option<crate::shard::GateShard>,
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            runs: DEFAULT_RUNS,
            max_runs: None,
            build_jobs: None,
            cache: true,
            verify_cache: false,
            lower_head_cap: true,
            lock_step: false,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECONDS),
            budgets: Budgets::default(),
            shard: None,
        }
    }
}

impl GateSettings {
    /// Settings with `runs` per side (at least [`MIN_RUNS`]), `timeout` per build and run (more than zero).
    pub fn new(runs: u32, timeout: Duration, budgets: Budgets) -> Result<Self, GateError> {
        check_runs(runs)?;
        if timeout.is_zero() {
            return Err(GateError::ZeroTimeout);
        }
        Ok(GateSettings {
            runs,
            max_runs: None,
            build_jobs: None,
            cache: true,
            verify_cache: false,
            lower_head_cap: true,
            lock_step: false,
            timeout,
            budgets,
            shard: None,
        })
    }

    /// Set the ceiling of the adaptive runs (module.yml's `max_runs`, `--max-runs`): a benchmark whose verdict
    /// more runs could still change gets up to this many per side. At least [`MIN_RUNS`]; checked against
    /// `runs` by [`GateSettings::check_max_runs`] once both are final.
    pub fn set_max_runs(&mut self, max_runs: u32) -> Result<(), GateError> {
        // Below MIN_RUNS is below any `runs`: said as the ceiling it is, not as `runs`.
        if max_runs < MIN_RUNS {
            return Err(GateError::MaxRunsBelowRuns {
                max_runs,
                runs: self.runs.max(MIN_RUNS),
            });
        }
        self.max_runs = Some(max_runs);
        Ok(())
    }

    /// The ceiling set below `runs` is refused (a ceiling under the floor means nothing).
    pub fn check_max_runs(&self) -> Result<(), GateError> {
        match self.max_runs {
            Some(max_runs) if max_runs < self.runs => Err(GateError::MaxRunsBelowRuns {
                max_runs,
                runs: self.runs,
            }),
            _ => Ok(()),
        }
    }

    /// Set how many builds run at once (`-j/--jobs`): 1 builds base, then head; 2 or more both at once.
    pub fn set_build_jobs(&mut self, jobs: usize) -> Result<(), GateError> {
        if jobs == 0 {
            return Err(GateError::ZeroJobs);
        }
        self.build_jobs = Some(jobs);
        Ok(())
    }

    /// How many builds run at once: as set, else the number of cores (1 when it cannot be read).
    pub fn build_jobs(&self) -> usize {
        self.build_jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }

    /// Use (true, the default) or bypass (`--no-cache`) the build cache of git-revision sides.
    pub fn set_cache(&mut self, cache: bool) {
        self.cache = cache;
    }

    pub fn cache(&self) -> bool {
        self.cache
    }

    /// Also build each side without the caches and fail naming the first output that differs
    /// (`--verify-cache`; crate::build).
    pub fn set_verify_cache(&mut self, verify: bool) {
        self.verify_cache = verify;
    }

    pub fn verify_cache(&self) -> bool {
        self.verify_cache
    }

    /// Lower head's time cap from base's run in adaptive runs (true, the default; crate::head_cap), or keep
    /// the module's for both sides (false: what the gate did before, for a side-by-side measurement).
    pub fn set_lower_head_cap(&mut self, lower: bool) {
        self.lower_head_cap = lower;
    }

    pub fn lower_head_cap(&self) -> bool {
        self.lower_head_cap
    }

    /// Run both sides of a round at once, taking turns on one CPU (`--lock-step`; crate::lockstep), or one
    /// after the other (false, the default: lock-step measured no better by default, and holding a run to one
    /// CPU would hide a body that stopped running in parallel; docs/gate.md, "Lock-step rounds").
    pub fn set_lock_step(&mut self, lock_step: bool) {
        self.lock_step = lock_step;
    }

    pub fn lock_step(&self) -> bool {
        self.lock_step
    }

    pub fn set_shard(&mut self, shard: Option<crate::shard::GateShard>) {
        self.shard = shard;
    }

    pub fn shard(&self) -> Option<crate::shard::GateShard> {
        self.shard
    }

    /// The most runs per side a benchmark gets: `max_runs` when set, else [`DEFAULT_MAX_RUNS`]; never below
    /// `runs`.
    pub fn max_runs(&self) -> u32 {
        self.max_runs.unwrap_or(DEFAULT_MAX_RUNS).max(self.runs)
    }

    /// Replace the number of runs per side (`--runs`).
    pub fn set_runs(&mut self, runs: u32) -> Result<(), GateError> {
        check_runs(runs)?;
        self.runs = runs;
        Ok(())
    }

    /// Replace the timeout per build and per run.
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<(), GateError> {
        if timeout.is_zero() {
            return Err(GateError::ZeroTimeout);
        }
        self.timeout = timeout;
        Ok(())
    }

    pub fn runs(&self) -> u32 {
        self.runs
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn budgets(&self) -> &Budgets {
        &self.budgets
    }

    pub fn budgets_mut(&mut self) -> &mut Budgets {
        &mut self.budgets
    }
}

fn check_runs(runs: u32) -> Result<(), GateError> {
    if runs < MIN_RUNS {
        Err(GateError::TooFewRuns(runs))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_without_a_budget_gets_the_default() {
        let mut named = BTreeMap::new();
        named.insert("count_below_ns".to_owned(), 0.5);
        let budgets = Budgets::new(0.3, named).unwrap();
        assert_eq!(budgets.for_metric("count_below_ns"), 0.5);
        assert_eq!(budgets.for_metric("matmul_ns"), 0.3);
    }

    #[test]
    fn an_instruction_count_gets_the_instructions_budget_when_one_is_set() {
        let mut budgets = Budgets::new(0.3, BTreeMap::new()).unwrap();
        assert_eq!(budgets.for_metric("sum.instructions"), INSTRUCTIONS_BUDGET);
        budgets.set_instructions(0.005).unwrap();
        assert_eq!(budgets.for_metric("sum.instructions"), 0.005);
        assert_eq!(budgets.for_metric("sum.ns"), 0.3);
        budgets.set("sum.instructions", 0.02).unwrap();
        assert_eq!(budgets.for_metric("sum.instructions"), 0.02);
        assert!(budgets.set_instructions(1.0).is_err());
    }

    #[test]
    fn fractions_outside_zero_one_are_refused() {
        for bad in [0.0, 1.0, 1.5, -0.1, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                Budgets::new(bad, BTreeMap::new()),
                Err(GateError::BadBudget { .. })
            ));
            assert!(Budgets::default().set("x", bad).is_err());
        }
    }

    #[test]
    fn budget_overrides_parse() {
        assert_eq!(
            parse_budget_override("sum_ns=0.25").unwrap(),
            ("sum_ns".to_owned(), 0.25)
        );
        assert_eq!(
            parse_budget_override("bench_crc.ns = 0.4").unwrap(),
            ("bench_crc.ns".to_owned(), 0.4)
        );
        assert!(matches!(
            parse_budget_override("sum_ns"),
            Err(GateError::BadBudgetSyntax(_))
        ));
        assert!(matches!(
            parse_budget_override("=0.3"),
            Err(GateError::BadBudgetSyntax(_))
        ));
        assert!(matches!(
            parse_budget_override("sum_ns=lots"),
            Err(GateError::BadBudgetSyntax(_))
        ));
        assert!(matches!(
            parse_budget_override("sum_ns=1.2"),
            Err(GateError::BadBudget { .. })
        ));
    }

    #[test]
    fn default_in_an_override_sets_the_default() {
        let mut budgets = Budgets::default();
        let (metric, fraction) = parse_budget_override("default=0.2").unwrap();
        budgets.set(&metric, fraction).unwrap();
        assert_eq!(budgets.for_metric("anything"), 0.2);
    }

    #[test]
    fn runs_below_two_are_refused() {
        let mut settings = GateSettings::default();
        assert_eq!(settings.runs(), DEFAULT_RUNS);
        assert!(matches!(
            settings.set_runs(1),
            Err(GateError::TooFewRuns(1))
        ));
        assert!(settings.set_runs(2).is_ok());
        assert!(GateSettings::new(0, Duration::from_secs(1), Budgets::default()).is_err());
        assert!(GateSettings::new(2, Duration::ZERO, Budgets::default()).is_err());
    }

    #[test]
    fn max_runs_is_a_ceiling_at_least_runs() {
        let mut settings = GateSettings::default();
        assert_eq!(
            settings.max_runs(),
            DEFAULT_MAX_RUNS,
            "unset: adaptive, up to the default ceiling"
        );
        settings.set_runs(DEFAULT_MAX_RUNS + 5).unwrap();
        assert_eq!(
            settings.max_runs(),
            DEFAULT_MAX_RUNS + 5,
            "never below runs"
        );
        settings.set_runs(3).unwrap();
        settings.set_max_runs(8).unwrap();
        assert_eq!(settings.max_runs(), 8);
        let refused = settings.set_max_runs(1).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("--max-runs 1 is below the 3 runs every benchmark gets"),
            "{refused}"
        );
        settings.set_runs(9).unwrap();
        assert!(matches!(
            settings.check_max_runs(),
            Err(GateError::MaxRunsBelowRuns {
                max_runs: 8,
                runs: 9
            })
        ));
    }
}
