//! The history's views (`rho bench history`), drawn from what rho-history returns (the series, their change
//! points, the functions behind a step up, `history check`'s judgement): the text the terminal prints
//! ([`text`]), the Markdown ([`markdown`]) and the self-contained page with its trend charts ([`page`]).
//! Every figure, change and commit is worded here, by the helpers below, so the three say the same.

pub mod markdown;
pub mod page;
pub mod text;

use rho_history::analysis::{self, Series};

pub use rho_history::analysis::short;

pub(crate) use crate::numbers::format_series_figure;

/// The change from `before` to `after` in percent (`+12.5%`); `new` from zero.
fn percent(before: f64, after: f64) -> String {
    if before == 0.0 {
        return if after == 0.0 {
            "+0.0%".to_string()
        } else {
            "new".to_string()
        };
    }
    format!("{:+.1}%", (after - before) / before * 100.0)
}

/// A change already in percent (`+12.5%`), `-` when there is none (from zero).
fn percent_text(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |p| format!("{p:+.1}%"))
}

/// How sure a change point is: `exact` for an exact metric (every step is one), else its p-value.
fn significance(series: &Series, pvalue: f64) -> String {
    if analysis::is_exact(series.metric) {
        "exact".to_string()
    } else {
        format!("p = {pvalue:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_worded_in_percent_and_from_zero_as_new() {
        assert_eq!(percent(100.0, 112.5), "+12.5%");
        assert_eq!(percent(100.0, 90.0), "-10.0%");
        assert_eq!(percent(0.0, 0.0), "+0.0%");
        assert_eq!(percent(0.0, 3.0), "new");
        assert_eq!(short("0123456789abcdef"), "0123456789");
        assert_eq!(short("abc"), "abc");
        assert_eq!(format_series_figure(1000.0), "1000");
        assert_eq!(format_series_figure(12.34567), "12.346");
        assert_eq!(percent_text(Some(-2.26)), "-2.3%");
        assert_eq!(percent_text(None), "-");
    }
}
