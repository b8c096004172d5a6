//! Per-function figures of a benchmark, per iteration and net of the harness, as the benchmark's own figure is
//! (rho-stats: `.overhead` counts the empty loop `N0` and `2 N0` times; its share is a fixed part `a` plus `b`
//! per iteration).
//!
//! The same fit is made per function and per call: the harness's own functions (the loop's step, the toggles)
//! net to nothing and drop out, and the empty loop's root (the function the loop runs in) is fitted onto the
//! benchmark's root, whose inclusive figure is then the benchmark's net instructions per iteration.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::callgrind::{Profile, RawFunction};

/// How many functions a benchmark's list keeps when nothing says otherwise.
pub const DEFAULT_LIMIT: usize = 50;

/// A benchmark's functions: the top by inclusive instructions per iteration and what the rest add up to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Functions {
    /// Whether the figures are exact counts (`callgrind`) or sampled.
    pub source: String,
    pub listed: Vec<FunctionFigures>,
    /// The functions left out of `listed`: how many, and their own instructions per iteration together.
    pub other: Other,
    /// A sampled list (`--measure time`, [`crate::perf`]): how it was sampled; its figures are then
    /// nanoseconds per iteration, estimated from shares of the loop's samples. `None`: exact counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Sampling>,
}

/// How a sampled list was taken: present only on a list `perf record` sampled ([`crate::perf`]), it marks
/// the list as sampled, not counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// The event perf sampled: `cycles` where the PMU has a cycle counter, else `cpu-clock` (a timer).
    pub event: String,
    /// Samples taken in the measured loop.
    pub samples: u64,
    /// How call chains were taken (`dwarf`: unwound from a copy of the stack, no frame pointers needed).
    pub call_graph: String,
    /// The timed run's net median nanoseconds per iteration the shares are scaled by.
    pub ns_per_iteration: f64,
}

/// One function's instructions per iteration, net.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionFigures {
    pub name: String,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub self_per_iteration: f64,
    pub inclusive_per_iteration: f64,
    /// Its calls to other listed functions (the call graph the flame graph is drawn from).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallFigures>,
}

/// Calls from one function to another, per iteration, net.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallFigures {
    pub callee: String,
    pub calls_per_iteration: f64,
    pub inclusive_per_iteration: f64,
}

/// The functions a list left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Other {
    pub functions: usize,
    pub self_per_iteration: f64,
}

/// A straight line through two counts: `per_loop + per_iteration * N`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Line {
    per_loop: f64,
    per_iteration: f64,
}

impl Line {
    fn through(short: u64, n0: u64, long: u64, n1: u64) -> Line {
        let extra = n1.saturating_sub(n0).max(1) as f64;
        let per_iteration = (long as f64 - short as f64) / extra;
        Line {
            per_loop: short as f64 - per_iteration * n0 as f64,
            per_iteration,
        }
    }

    fn at(&self, n: u64) -> f64 {
        self.per_loop + self.per_iteration * n as f64
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct FunctionFit {
    own: Line,
    inclusive: Line,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct CallFit {
    count: Line,
    inclusive: Line,
}

/// The harness's share per function and per call, fitted from the empty loop's two profiles. The empty loop's
/// root is kept apart (`root`), to be taken off the benchmark's root.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overhead {
    functions: BTreeMap<String, FunctionFit>,
    calls: BTreeMap<(String, String), CallFit>,
    root: Option<String>,
}

/// The empty name a root's fit is kept under.
const ROOT: &str = "";

impl Overhead {
    /// From the empty loop's profiles of `n0` and `n1` iterations.
    pub fn fit(short: &Profile, n0: u64, long: &Profile, n1: u64) -> Overhead {
        let root = root(short);
        let key = |name: &str| {
            if Some(name) == root.as_deref() {
                ROOT.to_string()
            } else {
                name.to_string()
            }
        };
        let empty = RawFunction::default();
        let mut overhead = Overhead {
            root: root.clone(),
            ..Overhead::default()
        };
        let names: BTreeSet<&String> = short
            .functions
            .keys()
            .chain(long.functions.keys())
            .collect();
        for name in names {
            let s = short.functions.get(name).unwrap_or(&empty);
            let l = long.functions.get(name).unwrap_or(&empty);
            overhead.functions.insert(
                key(name),
                FunctionFit {
                    own: Line::through(s.self_cost, n0, l.self_cost, n1),
                    inclusive: Line::through(s.inclusive(), n0, l.inclusive(), n1),
                },
            );
            let callees: BTreeSet<&String> = s.calls.keys().chain(l.calls.keys()).collect();
            for callee in callees {
                let sc = s.calls.get(callee).copied().unwrap_or_default();
                let lc = l.calls.get(callee).copied().unwrap_or_default();
                overhead.calls.insert(
                    (key(name), callee.clone()),
                    CallFit {
                        count: Line::through(sc.count, n0, lc.count, n1),
                        inclusive: Line::through(sc.inclusive, n0, lc.inclusive, n1),
                    },
                );
            }
        }
        overhead
    }

    /// A benchmark's functions, per iteration over its `iterations`, net of the harness; those that net to
    /// nothing (under half an instruction, self and inclusive) are left out. Sorted by inclusive figure.
    pub fn net(&self, profile: &Profile, iterations: u64) -> Vec<FunctionFigures> {
        let n = iterations.max(1);
        let bench_root = root(profile);
        let key = |name: &str| {
            if Some(name) == bench_root.as_deref() {
                ROOT.to_string()
            } else {
                name.to_string()
            }
        };
        let per = |total: u64, line: Option<&Line>| {
            (total as f64 - line.map_or(0.0, |l| l.at(n))) / n as f64
        };
        let mut rows: Vec<FunctionFigures> = profile
            .functions
            .iter()
            .map(|(name, raw)| {
                let fit = self.functions.get(&key(name));
                let calls = raw
                    .calls
                    .iter()
                    .map(|(callee, call)| {
                        let fit = self.calls.get(&(key(name), callee.clone()));
                        CallFigures {
                            callee: callee.clone(),
                            calls_per_iteration: per(call.count, fit.map(|f| &f.count)),
                            inclusive_per_iteration: per(call.inclusive, fit.map(|f| &f.inclusive)),
                        }
                    })
                    .filter(|c| !negligible(c.inclusive_per_iteration))
                    .collect();
                FunctionFigures {
                    name: name.clone(),
                    file: raw.file.clone(),
                    line: raw.line,
                    self_per_iteration: per(raw.self_cost, fit.map(|f| &f.own)),
                    inclusive_per_iteration: per(raw.inclusive(), fit.map(|f| &f.inclusive)),
                    calls,
                }
            })
            .filter(|f| {
                !(negligible(f.self_per_iteration) && negligible(f.inclusive_per_iteration))
            })
            .collect();
        sort_by_inclusive(&mut rows);
        rows
    }
}

fn negligible(figure: f64) -> bool {
    figure.abs() < 0.5
}

/// Highest inclusive figure first; ties by name, so a list is the same every run.
fn sort_by_inclusive(rows: &mut [FunctionFigures]) {
    rows.sort_by(|a, b| {
        b.inclusive_per_iteration
            .total_cmp(&a.inclusive_per_iteration)
            .then_with(|| a.name.cmp(&b.name))
    });
}

/// The loop's root: of the functions no counted call reached, the one with the most inclusive instructions
/// (the function the measured loop runs in).
pub fn root(profile: &Profile) -> Option<String> {
    let called: BTreeSet<&String> = profile
        .functions
        .values()
        .flat_map(|f| f.calls.keys())
        .collect();
    profile
        .functions
        .iter()
        .filter(|(name, _)| !called.contains(name))
        .max_by_key(|(name, f)| (f.inclusive(), std::cmp::Reverse((*name).clone())))
        .map(|(name, _)| name.clone())
}

/// The first `limit` of `rows` (sorted by inclusive figure) and the rest summed as "other"; calls to functions
/// left out are dropped from the kept ones (the rest is in "other").
pub fn top(rows: Vec<FunctionFigures>, limit: usize, source: &str) -> Functions {
    let mut listed = rows;
    let rest = if listed.len() > limit {
        listed.split_off(limit)
    } else {
        Vec::new()
    };
    let kept: BTreeSet<String> = listed.iter().map(|f| f.name.clone()).collect();
    for function in &mut listed {
        function.calls.retain(|c| kept.contains(&c.callee));
    }
    Functions {
        source: source.to_string(),
        listed,
        other: Other {
            functions: rest.len(),
            // Folded from +0 (an empty `sum` of floats is -0).
            self_per_iteration: rest.iter().fold(0.0, |sum, f| sum + f.self_per_iteration),
        },
        sampling: None,
    }
}

impl Functions {
    /// A listed function by name.
    pub fn get(&self, name: &str) -> Option<&FunctionFigures> {
        self.listed.iter().find(|f| f.name == name)
    }
}
