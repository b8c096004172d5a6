//! Records into series: per target, machine, measure, benchmark and metric, the figure at each commit of a
//! branch in first-parent order (oldest first), with its change points (rho-stats' [`change_points`]), the
//! newest figure against the one before and against the series' median, and the regression the newest figure
//! is in, named by the commit that started it ([`open_regression`]).

use std::collections::BTreeMap;

use rho_compare::compare::{Value, value_of};
use rho_stats::{
    ChangePoint, ChangeSettings, MIN_SEGMENT, Metric, change_points, median_of, newcomer_pvalue,
};

use crate::record::{Measure, Record};

/// A commit of the branch the series follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub id: String,
    pub subject: String,
}

/// A commit's id cut to ten characters (the whole id when shorter): how every output names a commit.
pub fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// Which records and metrics to look at (`None` is all), and the names benchmarks go on under.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Benchmarks whose name (after `renames`) contains this.
    pub bench: Option<String>,
    /// The renames of the history's notes: a benchmark's records under an old name join its series.
    pub renames: crate::note::Renames,
    /// A metric name (`instructions`, `time_ns`, ...).
    pub metric: Option<String>,
    pub target: Option<String>,
    pub machine: Option<String>,
}

/// The settings of detection for noisy metrics (exact ones report every step).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    pub window: usize,
    pub max_pvalue: f64,
}

impl Default for Detection {
    fn default() -> Self {
        Detection {
            window: rho_stats::DEFAULT_CHANGE_WINDOW,
            max_pvalue: rho_stats::DEFAULT_MAX_PVALUE,
        }
    }
}

impl Detection {
    fn settings(self, metric: Metric) -> ChangeSettings {
        ChangeSettings {
            window: self.window,
            max_pvalue: self.max_pvalue,
            exact: is_exact(metric),
        }
    }
}

/// Whether `metric` is exact (counted or read from the image, or a painted mark): every step is a change. A
/// clock's reading (cycles, time, and the thread's CPU time, which scheduling and caches still move) is not:
/// rho-stats' one rule, [`Metric::is_clocked`].
pub fn is_exact(metric: Metric) -> bool {
    !metric.is_clocked()
}

/// What one series is of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeriesKey {
    pub bench: String,
    pub metric: &'static str,
    pub target: String,
    pub measure: Measure,
    pub machine: String,
}

/// One commit's figure: the median of its records' (a rerun of a commit is a second record).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The commit's position on the branch (0 the oldest).
    pub commit_index: usize,
    pub value: f64,
    /// How many records gave a figure here.
    pub records: usize,
    /// The p25 to p75 band (the median of the records' p25s and of their p75s), when its records carry
    /// quartiles (a clock's, in a `rho-bench-history-record/2`).
    pub band: Option<(f64, f64)>,
}

/// One record's figure at a commit, its band if the record has one, and its suite's machine yardstick for
/// the metric's clock if it has one (a time record of wire version 9 or later).
type Sample = (f64, Option<(f64, f64)>, Option<f64>);

/// A change point: the figure stepped at `point` (the first point of the new segment).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub point: usize,
    pub commit_index: usize,
    pub before: f64,
    pub after: f64,
    pub change_percent: Option<f64>,
    pub pvalue: f64,
}

/// One benchmark's metric over the commits.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub key: SeriesKey,
    pub metric: Metric,
    pub points: Vec<Point>,
    pub changes: Vec<Change>,
    /// The median of every point's figure.
    pub median: f64,
}

impl Series {
    /// The newest figure.
    pub fn newest(&self) -> Option<&Point> {
        self.points.last()
    }

    /// The figure before the newest.
    pub fn previous(&self) -> Option<&Point> {
        self.points.len().checked_sub(2).map(|i| &self.points[i])
    }

    /// The change points as rho-stats gave them (indices into `points`).
    fn changes_as_found(&self) -> Vec<ChangePoint> {
        self.changes
            .iter()
            .map(|c| ChangePoint {
                index: c.point,
                before: c.before,
                after: c.after,
                change_percent: c.change_percent,
                pvalue: c.pvalue,
            })
            .collect()
    }
}

/// The series of `records` along `commits` (oldest first), filtered; records of commits not on the branch
/// are left out and counted.
#[derive(Debug, Default)]
pub struct Analysis {
    pub series: Vec<Series>,
    /// Records whose commit is not among `commits`.
    pub off_branch: usize,
}

/// Builds and analyses the series.
pub fn analyse<'a>(
    records: impl IntoIterator<Item = &'a Record>,
    commits: &[Commit],
    filter: &Filter,
    detection: Detection,
) -> Analysis {
    let position: BTreeMap<&str, usize> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut figures: BTreeMap<SeriesKey, (Metric, BTreeMap<usize, Vec<Sample>>)> = BTreeMap::new();
    let mut off_branch = 0;
    for record in records {
        let Some(&at) = position.get(record.commit.as_str()) else {
            off_branch += 1;
            continue;
        };
        if !wanted(&filter.target, &record.target) || !wanted(&filter.machine, &record.machine) {
            continue;
        }
        for bench in &record.section.benchmarks {
            let name = filter.renames.current(&bench.name);
            if filter
                .bench
                .as_ref()
                .is_some_and(|b| !name.contains(b.as_str()))
            {
                continue;
            }
            for metric in Metric::ALL {
                if filter.metric.as_ref().is_some_and(|m| m != metric.name()) {
                    continue;
                }
                let Value::Figure(value) = value_of(bench, metric) else {
                    continue;
                };
                let key = SeriesKey {
                    bench: name.to_string(),
                    metric: metric.name(),
                    target: record.target.clone(),
                    measure: record.measure,
                    machine: record.machine.clone(),
                };
                figures
                    .entry(key)
                    .or_insert_with(|| (metric, BTreeMap::new()))
                    .1
                    .entry(at)
                    .or_default()
                    .push((
                        value,
                        record.quartiles.get(&bench.name).and_then(|q| q.of(metric)),
                        rho_compare::compare::yardstick_for(
                            &record.section.context,
                            bench.suite.as_ref(),
                            metric,
                        ),
                    ));
            }
        }
    }
    // Each series on its own: split across the cores (change points of long clocked series are most of it).
    let work: Vec<_> = figures.into_iter().collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = work.len().div_ceil(threads).max(16);
    let mut parts: Vec<Vec<_>> = Vec::new();
    let mut rest = work;
    while rest.len() > chunk {
        let tail = rest.split_off(chunk);
        parts.push(rest);
        rest = tail;
    }
    parts.push(rest);
    let series = std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| {
                scope.spawn(move || {
                    part.into_iter()
                        .map(|(key, (metric, by_commit))| {
                            series_of(key, metric, by_commit, detection)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(series) => series,
                // series_of does not panic; were it to, the panic is the caller's to see.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    Analysis { series, off_branch }
}

fn wanted(filter: &Option<String>, value: &str) -> bool {
    filter.as_ref().is_none_or(|f| f == value)
}

fn series_of(
    key: SeriesKey,
    metric: Metric,
    by_commit: BTreeMap<usize, Vec<Sample>>,
    detection: Detection,
) -> Series {
    // The machine's yardstick: the series' reference is the median of its records' yardsticks, and a
    // record whose yardstick is beyond the loop's own noise from it ran on a machine that moved, so its
    // time figures are taken relative to it (docs/history.md), by rho-baseline's one rule.
    let yardsticks: Vec<f64> = by_commit
        .values()
        .flatten()
        .filter_map(|(_, _, yardstick)| *yardstick)
        .collect();
    let reference = (!yardsticks.is_empty()).then(|| median_of(&yardsticks));
    let relative = |(value, band, yardstick): &Sample| -> (f64, Option<(f64, f64)>) {
        match rho_stats::machine_ratio(reference, *yardstick) {
            Some(ratio) => (value / ratio, band.map(|(a, b)| (a / ratio, b / ratio))),
            None => (*value, *band),
        }
    };
    let points: Vec<Point> = by_commit
        .into_iter()
        .map(|(commit_index, samples)| {
            let samples: Vec<(f64, Option<(f64, f64)>)> = samples.iter().map(relative).collect();
            let values: Vec<f64> = samples.iter().map(|(value, _)| *value).collect();
            let bands: Vec<(f64, f64)> = samples.iter().filter_map(|(_, band)| *band).collect();
            let band = (!bands.is_empty()).then(|| {
                let p25s: Vec<f64> = bands.iter().map(|b| b.0).collect();
                let p75s: Vec<f64> = bands.iter().map(|b| b.1).collect();
                (median_of(&p25s), median_of(&p75s))
            });
            Point {
                commit_index,
                value: median_of(&values),
                records: values.len(),
                band,
            }
        })
        .collect();
    let values: Vec<f64> = points.iter().map(|p| p.value).collect();
    let changes = change_points(&values, &detection.settings(metric))
        .into_iter()
        .map(|c| Change {
            point: c.index,
            commit_index: points[c.index].commit_index,
            before: c.before,
            after: c.after,
            change_percent: c.change_percent,
            pvalue: c.pvalue,
        })
        .collect();
    Series {
        key,
        metric,
        median: median_of(&values),
        points,
        changes,
    }
}

/// A regression a series is in at its newest figure: the change that started it and whether the newest
/// figure is the first that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenRegression {
    /// The change: `commit_index` is the commit that made it.
    pub change: Change,
    /// Whether the series one commit shorter was not in it yet: the newest commit is the first where the
    /// change is detectable (`history check` fails), not a later one (`history check` warns).
    pub first: bool,
}

/// The regression beyond `limit_percent` that `series` is in at its newest figure, named by the commit that
/// started it, if any (lower is better for every metric, so a regression is a rise):
///
/// - for a clock, among the newest figures too few to place a split by (at most [`MIN_SEGMENT`]), the
///   earliest from which every figure is beyond the limit and unlikely in the segment before
///   ([`newcomer_pvalue`] at most `max_pvalue`): a step too recent for a change point, named where it began;
/// - else the last change point, when it rose beyond the limit and the newest figure is still nearer its new
///   level than its old one (the series has not returned).
///
/// It is the first sight of the regression unless the series without its newest figure was already in the
/// same one (its start within one commit: a split found later may place a step a commit from where the
/// newest figures first showed it).
pub fn open_regression(
    series: &Series,
    limit_percent: f64,
    detection: Detection,
) -> Option<OpenRegression> {
    let values: Vec<f64> = series.points.iter().map(|p| p.value).collect();
    let settings = detection.settings(series.metric);
    let now = regression_in(&values, &series.changes_as_found(), settings, limit_percent)?;
    let shorter = &values[..values.len() - 1];
    let before = regression_in(
        shorter,
        &change_points(shorter, &settings),
        settings,
        limit_percent,
    );
    let first = before.is_none_or(|b| b.index.abs_diff(now.index) > 1);
    Some(OpenRegression {
        change: Change {
            point: now.index,
            commit_index: series.points[now.index].commit_index,
            before: now.before,
            after: now.after,
            change_percent: now.change_percent,
            pvalue: now.pvalue,
        },
        first,
    })
}

/// [`open_regression`]'s rule on `values` with their change points `changes`.
fn regression_in(
    values: &[f64],
    changes: &[ChangePoint],
    settings: ChangeSettings,
    limit_percent: f64,
) -> Option<ChangePoint> {
    let newest = *values.last()?;
    let beyond = |c: &ChangePoint| c.change_percent.is_some_and(|p| p > limit_percent);
    // A clock's split among the newest figures is placed by segments of at least MIN_SEGMENT a side, so a
    // step one or two commits old would be put too early: those newest figures are judged one by one first.
    if !settings.exact {
        if let Some(recent) = recent_step(values, changes, settings, limit_percent) {
            return Some(recent);
        }
    }
    let last = changes.last()?;
    (beyond(last) && newest > (last.before + last.after) / 2.0).then_some(*last)
}

/// The newest figures of a clock (at most [`MIN_SEGMENT`]), from the earliest of them from which every
/// figure is beyond the limit and unlikely in the segment before: the step, if any.
fn recent_step(
    values: &[f64],
    changes: &[ChangePoint],
    settings: ChangeSettings,
    limit_percent: f64,
) -> Option<ChangePoint> {
    let n = values.len();
    let start = changes
        .iter()
        .rev()
        .map(|c| c.index)
        .find(|&index| n - index > MIN_SEGMENT)
        .unwrap_or(0);
    let earliest = n.saturating_sub(MIN_SEGMENT).max(start + MIN_SEGMENT);
    (earliest..n).find_map(|at| {
        let earlier = &values[start..at];
        let before = median_of(earlier);
        let recent = &values[at..];
        let pvalue = recent
            .iter()
            .map(|&x| newcomer_pvalue(earlier, x))
            .fold(0.0, f64::max);
        let all_beyond = before > 0.0
            && recent
                .iter()
                .all(|&x| (x - before) / before * 100.0 > limit_percent);
        let after = median_of(recent);
        (all_beyond && pvalue <= settings.max_pvalue).then_some(ChangePoint {
            index: at,
            before,
            after,
            change_percent: Some((after - before) / before * 100.0),
            pvalue,
        })
    })
}
