//! Metrics from a rho wire stream.

use crate::metrics::{MetricsError, RunMetrics};

pub(crate) fn metrics_from_wire(_stdout: &str) -> Result<RunMetrics, MetricsError> {
    // Replaced as soon as rho-wire's parser and rho-stats' summary land.
    Err(MetricsError::Wire("not yet supported".into()))
}
