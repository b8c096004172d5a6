//! Judgement: whether a measured figure is acceptable. Every metric of rho's has one direction, lower is
//! better (another harness's rates, higher is better, are judged as their reciprocals:
//! [`judge_change_toward`]), and is judged on its own; this crate turns figures and budgets into verdicts.
//!
//! It must not know how a suite is built or run, nor how a verdict is shown: it reads figures (rho-stats) and
//! budgets (rho-config) and returns verdicts (docs/architecture.md).

pub mod budget;
pub mod growth;
pub mod regression;

pub use regression::{
    Change, INSTRUCTIONS_MAX_REGRESSION, RESOLUTION_STEPS, judge_change, judge_change_toward,
    metric_limit, regressed, relative_change, resolution_floor, zero_base_label,
};
