//! The regression limits a comparison judges with, as module.yml sets them.

use rho_config::ModuleConfig;

/// The regression limits a comparison judges with (`--diff`, `rho bench compare`): module.yml's
/// `fail_on_regression_percent` and `fail_on_instructions_regression_percent` (per benchmark, then global) when
/// there is a module.yml, else rho's defaults.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    config: Option<&'a ModuleConfig>,
    global: f64,
    instructions_global: f64,
}

impl<'a> Limits<'a> {
    pub fn of(config: Option<&'a ModuleConfig>) -> Limits<'a> {
        Limits {
            config,
            global: config
                .and_then(|c| c.budgets.fail_on_regression_percent)
                .unwrap_or(crate::DEFAULT_LIMIT_PERCENT),
            instructions_global: config
                .and_then(|c| c.budgets.fail_on_instructions_regression_percent)
                .unwrap_or(crate::DEFAULT_INSTRUCTIONS_LIMIT_PERCENT),
        }
    }

    /// The global limit, in percent (shown in reports).
    pub fn global(&self) -> f64 {
        self.global
    }

    /// The limit of `metric` of benchmark `name`, in percent.
    pub fn for_metric(&self, name: &str, metric: rho_stats::Metric) -> f64 {
        let budgets = self.config.map(|c| c.budgets_for(name));
        crate::metric_limit(
            metric,
            budgets
                .and_then(|b| b.fail_on_regression_percent)
                .unwrap_or(self.global),
            budgets
                .and_then(|b| b.fail_on_instructions_regression_percent)
                .unwrap_or(self.instructions_global),
        )
    }
}
