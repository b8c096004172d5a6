//! The metrics of one run: each metric's figure by name, with the smallest change of each that is measured,
//! and why a run's stdout gave none. What every reader of a run's metrics (the stdout readers, the wire
//! stream's and the growth fits' metrics, the comparison) shares; it reads nothing itself.

use std::collections::BTreeMap;

/// One metric's figure from one run.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// A usable figure: finite and not negative.
    Value(f64),
    /// The run reported the metric but gave no usable number (a stack overrun, a string, a negative value);
    /// the gate cannot decide on this metric. The text says why.
    Unusable(String),
}

/// Every metric of one run, by name, and for the metrics read off a clock the smallest difference that is a
/// measured change (see [`RESOLUTION_STEPS`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMetrics {
    figures: BTreeMap<String, Figure>,
    floors: BTreeMap<String, f64>,
    /// For the metrics read off a clock, how far apart the run's own samples were (rho-stats' `iqr_ratio`): the
    /// spread adaptive runs go by while a side has a single run (crate::adaptive).
    within_run: BTreeMap<String, f64>,
    /// A counted run's functions per benchmark (rho-profile), by benchmark name.
    functions: BTreeMap<String, rho_profile::Functions>,
    /// Metrics this run did not measure on purpose: their verdict was settled before it (adaptive runs), so
    /// their absence from it is no missing figure.
    left_out: std::collections::BTreeSet<String>,
    /// Metrics higher is better for (another harness's rates, `items_per_second`): each side's best run is
    /// its highest, and a fall is the regression. Every other metric is a cost.
    higher_is_better: std::collections::BTreeSet<String>,
    /// What the run's wire streams said of their time caps (crate::head_cap).
    time_cap: crate::time_cap_reading::TimeCapReading,
}

/// How many steps of its clock a net figure may move and still be no measurable change: rho-judge's one
/// constant, shared with the baseline comparison.
pub use rho_judge::RESOLUTION_STEPS;

impl RunMetrics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, name: &str) -> Option<&Figure> {
        self.figures.get(name)
    }

    /// Set `name`'s figure, returning the one it replaces.
    pub fn insert(&mut self, name: String, figure: Figure) -> Option<Figure> {
        self.figures.insert(name, figure)
    }

    /// The metric names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.figures.keys()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Figure)> {
        self.figures.iter()
    }

    pub fn len(&self) -> usize {
        self.figures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.figures.is_empty()
    }

    /// The smallest difference of `name` that is a measured change (0: any difference is).
    pub fn floor(&self, name: &str) -> f64 {
        self.floors.get(name).copied().unwrap_or(0.0)
    }

    /// How far apart this run's own samples of `name` were, relative to their median (`None`: the run gave no
    /// samples of it, e.g. a last-line JSON figure).
    pub fn within_run(&self, name: &str) -> Option<f64> {
        self.within_run.get(name).copied()
    }

    /// Set `name`'s within-run spread (see [`RunMetrics::within_run`]).
    pub fn set_within_run(&mut self, name: &str, spread: f64) {
        self.within_run.insert(name.to_owned(), spread);
    }

    /// Benchmark `bench`'s functions, when the run was counted and kept them.
    pub fn functions(&self, bench: &str) -> Option<&rho_profile::Functions> {
        self.functions.get(bench)
    }

    /// Keep `functions` as benchmark `bench`'s.
    pub fn set_functions(&mut self, bench: &str, functions: rho_profile::Functions) {
        self.functions.insert(bench.to_owned(), functions);
    }

    /// Every benchmark's functions, taken out.
    pub fn take_functions(&mut self) -> BTreeMap<String, rho_profile::Functions> {
        std::mem::take(&mut self.functions)
    }

    /// Which way `name` is better: higher for a metric marked so ([`RunMetrics::set_better`]), else lower.
    pub fn better(&self, name: &str) -> rho_stats::Better {
        match self.higher_is_better.contains(name) {
            true => rho_stats::Better::Higher,
            false => rho_stats::Better::Lower,
        }
    }

    /// Mark which way `name` is better (see [`RunMetrics::better`]).
    pub fn set_better(&mut self, name: &str, better: rho_stats::Better) {
        match better {
            rho_stats::Better::Higher => self.higher_is_better.insert(name.to_owned()),
            rho_stats::Better::Lower => self.higher_is_better.remove(name),
        };
    }

    /// Set the floor of `name` (see [`RunMetrics::floor`]).
    pub fn set_floor(&mut self, name: &str, floor: f64) {
        self.floors.insert(name.to_owned(), floor);
    }

    /// What the run's wire streams said of their time caps, and which benchmarks a cap stopped.
    pub fn time_cap(&self) -> &crate::time_cap_reading::TimeCapReading {
        &self.time_cap
    }

    /// What the run's wire streams said of their time caps, to change (see [`RunMetrics::time_cap`]).
    pub fn time_cap_mut(&mut self) -> &mut crate::time_cap_reading::TimeCapReading {
        &mut self.time_cap
    }

    /// Set what the run's wire streams said of their time caps (see [`RunMetrics::time_cap`]).
    pub fn set_time_cap(&mut self, reading: crate::time_cap_reading::TimeCapReading) {
        self.time_cap = reading;
    }

    /// Record that this run left `name` out on purpose (its verdict was settled), dropping any figure of it
    /// the run measured anyway: a run holds exactly the metrics it was meant to measure.
    pub fn leave_out(&mut self, name: &str) {
        self.figures.remove(name);
        self.floors.remove(name);
        self.within_run.remove(name);
        self.left_out.insert(name.to_owned());
    }

    /// Whether this run left `name` out on purpose (see [`RunMetrics::leave_out`]).
    pub fn left_out(&self, name: &str) -> bool {
        self.left_out.contains(name)
    }
}

impl FromIterator<(String, Figure)> for RunMetrics {
    fn from_iter<I: IntoIterator<Item = (String, Figure)>>(iter: I) -> Self {
        RunMetrics {
            figures: iter.into_iter().collect(),
            ..RunMetrics::default()
        }
    }
}

impl IntoIterator for RunMetrics {
    type Item = (String, Figure);
    type IntoIter = std::collections::btree_map::IntoIter<String, Figure>;

    fn into_iter(self) -> Self::IntoIter {
        self.figures.into_iter()
    }
}

impl std::ops::Index<&str> for RunMetrics {
    type Output = Figure;

    /// The figure of `name`; panics when there is none, like a map's index (tests use it).
    fn index(&self, name: &str) -> &Figure {
        &self.figures[name]
    }
}

/// Why a run's stdout gave no metrics.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error(
        "stdout holds no metrics: it is not a rho wire stream (no `@rho-bench` line) and it is empty"
    )]
    Empty,
    #[error(
        "stdout is not a rho wire stream (no `@rho-bench` line) and its last line is not a JSON object of \
         metric name to number ({reason}): `{line}`"
    )]
    NotJson { line: String, reason: String },
    #[error("the last stdout line is a JSON object with no metrics in it")]
    NoMetricsInJson,
    #[error("the rho wire stream does not parse: {0}")]
    Wire(String),
    #[error("the rho wire stream holds no benchmarks")]
    NoBenchmarks,
}
