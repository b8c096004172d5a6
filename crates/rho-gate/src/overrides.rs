//! The command line's settings over module.yml's (or rho's defaults): `--runs`, `--budget`, `--timeout`,
//! `--scale`; and where the gate's settings came from, for its report.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::GateError;
use crate::run::BenchEnv;
use crate::settings::{GateSettings, parse_budget_override};

/// The settings given on the command line, each `None` (or empty) when not given.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub runs: Option<u32>,
    /// `--budget METRIC=FRACTION`, as given.
    pub budgets: Vec<String>,
    /// `--timeout`, in seconds.
    pub timeout: Option<f64>,
    pub scale: Option<f64>,
}

impl Overrides {
    /// Sets what was given over `settings` and `env`; a value out of its range is refused naming its flag.
    pub fn apply(&self, settings: &mut GateSettings, env: &mut BenchEnv) -> Result<(), GateError> {
        if let Some(runs) = self.runs {
            settings.set_runs(runs)?;
        }
        for text in &self.budgets {
            let (metric, fraction) = parse_budget_override(text)?;
            settings.budgets_mut().set(&metric, fraction)?;
        }
        if let Some(seconds) = self.timeout {
            if !rho_config::is_timeout_seconds(seconds) {
                return Err(GateError::BadTimeout(seconds));
            }
            settings.set_timeout(Duration::from_secs_f64(seconds))?;
        }
        if let Some(scale) = self.scale {
            if !rho_config::is_scale(scale) {
                return Err(GateError::BadScale(scale));
            }
            env.scale = Some(scale);
        }
        Ok(())
    }

    /// Where the settings came from: `file` (the module.yml read, if any) and these flags over it.
    pub fn source(&self, file: Option<PathBuf>) -> SettingsSource {
        let mut overrides = Vec::new();
        if let Some(runs) = self.runs {
            overrides.push(format!("--runs {runs}"));
        }
        for text in &self.budgets {
            overrides.push(format!("--budget {text}"));
        }
        if let Some(seconds) = self.timeout {
            overrides.push(format!("--timeout {seconds}"));
        }
        SettingsSource { file, overrides }
    }
}

/// `--max-runs` over module.yml's `max_runs`, after [`Overrides::apply`] has set `--runs`: the ceiling of the
/// adaptive runs, refused below the runs every benchmark gets; listed among the flags in `source`.
pub fn apply_max_runs(
    max_runs: Option<u32>,
    settings: &mut GateSettings,
    source: &mut SettingsSource,
) -> Result<(), GateError> {
    if let Some(max_runs) = max_runs {
        settings.set_max_runs(max_runs)?;
        settings.check_max_runs()?;
        source.overrides.push(format!("--max-runs {max_runs}"));
    }
    settings.check_max_runs()
}

/// Where the gate's settings came from: the module.yml (or none, rho's defaults) and the flags over it.
#[derive(Debug)]
pub struct SettingsSource {
    /// The module.yml of the directory the gate ran in, if it has one.
    pub file: Option<PathBuf>,
    /// The flags that overrode it, as given.
    pub overrides: Vec<String>,
}

impl SettingsSource {
    /// `from module.yml, overridden by --runs 5`, or rho's defaults when there was no module.yml.
    pub fn describe(&self) -> String {
        let mut text = match &self.file {
            Some(file) => format!("from {}", file.display()),
            None => "rho's defaults (no module.yml in this directory)".to_owned(),
        };
        if !self.overrides.is_empty() {
            text.push_str(&format!(", overridden by {}", self.overrides.join(" ")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_out_of_range_is_refused_naming_it_and_the_source_lists_the_flags_given() {
        let mut settings = GateSettings::default();
        let mut env = BenchEnv::default();
        let timeout = Overrides {
            timeout: Some(0.0),
            ..Overrides::default()
        };
        let error = timeout.apply(&mut settings, &mut env).unwrap_err();
        assert!(error.to_string().starts_with("--timeout 0:"), "{error}");
        let scale = Overrides {
            scale: Some(1e12),
            ..Overrides::default()
        };
        let error = scale.apply(&mut settings, &mut env).unwrap_err();
        assert!(
            error.to_string().starts_with("--scale 1000000000000:"),
            "{error}"
        );
        assert_eq!(env.scale, None);

        let given = Overrides {
            runs: Some(5),
            budgets: vec!["default=0.25".to_string()],
            timeout: Some(60.0),
            scale: Some(0.5),
        };
        given.apply(&mut settings, &mut env).unwrap();
        assert_eq!(settings.runs(), 5);
        assert_eq!(env.scale, Some(0.5));
        assert_eq!(
            given.source(Some(PathBuf::from("module.yml"))).describe(),
            "from module.yml, overridden by --runs 5 --budget default=0.25 --timeout 60"
        );
        assert_eq!(
            Overrides::default().source(None).describe(),
            "rho's defaults (no module.yml in this directory)"
        );
    }

    #[test]
    fn max_runs_below_runs_is_refused_and_the_flag_is_listed() {
        let mut settings = GateSettings::default();
        settings.set_runs(5).unwrap();
        let mut source = Overrides::default().source(None);
        let error = apply_max_runs(Some(4), &mut settings, &mut source).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("--max-runs 4 is below the 5 runs"),
            "{error}"
        );
        apply_max_runs(Some(12), &mut settings, &mut source).unwrap();
        assert_eq!(settings.max_runs(), 12);
        assert!(
            source.describe().ends_with("overridden by --max-runs 12"),
            "{}",
            source.describe()
        );
    }
}
