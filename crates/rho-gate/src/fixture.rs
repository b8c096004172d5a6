//! Small hand-made gate comparisons for unit tests, here and in rho-report's gate table (feature `fixture`:
//! a dev-dependency's, never a build's).

use crate::compare::{Comparison, compare};
use crate::metrics::{Figure, RunMetrics};
use crate::settings::Budgets;

/// One run's metrics, each a plain value.
pub fn run(pairs: &[(&str, f64)]) -> RunMetrics {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Figure::Value(*v)))
        .collect()
}

/// Two runs a side: `matmul_ns` twice as slow in head, `sum_ns` twice as slow in one head run only, and
/// `new_ns` only in head; default budgets.
pub fn sample() -> Comparison {
    compare(
        &[
            run(&[("matmul_ns", 8.0), ("sum_ns", 100.0)]),
            run(&[("matmul_ns", 8.4), ("sum_ns", 100.0)]),
        ],
        &[
            run(&[("matmul_ns", 16.0), ("sum_ns", 200.0), ("new_ns", 1.0)]),
            run(&[("matmul_ns", 16.5), ("sum_ns", 101.0), ("new_ns", 1.0)]),
        ],
        &Budgets::default(),
    )
}
