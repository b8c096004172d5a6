//! How every report writes a number, in one place: a run's figures (per iteration, batched, rates, clocks and
//! caps), a comparison's and a gate's changes, and a profile's instructions per iteration. Each format is
//! named for the figure it writes; their roundings differ because the figures do (an order statistic of
//! whole samples, a gate's best run, a change near its budget), never because two modules wrote one apart.

use rho_stats::Summary;

/// An instruction figure: whole when it is, else one decimal.
pub fn format_count(value: f64) -> String {
    if (value - value.round()).abs() < 0.05 {
        format!("{:.0}", value.round())
    } else {
        format!("{value:.1}")
    }
}

pub fn format_hz(hz: u64) -> String {
    let hz_f = hz as f64;
    if hz >= 1_000_000_000 {
        format!("{:.3} GHz", hz_f / 1e9)
    } else if hz >= 1_000_000 {
        format!("{:.3} MHz", hz_f / 1e6)
    } else if hz >= 1_000 {
        format!("{:.3} kHz", hz_f / 1e3)
    } else {
        format!("{hz} Hz")
    }
}

pub fn format_ms(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// A per-iteration order statistic `value` whose sample, when not batched, is `exact`: above 2^53 an f64 no
/// longer holds every integer, and u64::MAX would print one too high (18446744073709551616), so a figure
/// that is the sample's own is printed from the sample.
pub fn exact_figure(value: f64, exact: u64, batch: u64) -> String {
    // 2^53: below it every integer is exact in an f64.
    const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;
    if batch <= 1 && value >= EXACT_IN_F64 && value == exact as f64 {
        exact.to_string()
    } else {
        format_figure(value, batch)
    }
}

/// A per-iteration order statistic: an observed sample, so a whole number when not batched; batched, a
/// sample divided by its batch, shown with the places that matter (`1.53`, `24.4`, `1560`).
pub fn format_figure(value: f64, batch: u64) -> String {
    if batch <= 1 || value >= 1000.0 {
        format!("{value:.0}")
    } else if value >= 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// The robust spread, `(p75 - p25) / median` (rho_stats::Summary::iqr_ratio); `-` when it has no value.
pub fn format_iqr_ratio(summary: &Summary) -> String {
    match summary.iqr_ratio() {
        Some(ratio) => format!("{:.1}%", ratio * 100.0),
        None => "-".to_string(),
    }
}

pub fn format_mean(mean: f64) -> String {
    if mean >= 1000.0 {
        format!("{mean:.0}")
    } else {
        format!("{mean:.1}")
    }
}

pub fn format_spread(summary: &Summary) -> String {
    if summary.spread.capped {
        ">100%".to_string()
    } else {
        format!("{:.1}%", summary.spread.percent())
    }
}

/// A rate with an SI prefix: `95.3 M`, `512 k`, `7.00`.
pub fn format_rate(rate: f64) -> String {
    let (value, prefix) = if rate >= 1e9 {
        (rate / 1e9, " G")
    } else if rate >= 1e6 {
        (rate / 1e6, " M")
    } else if rate >= 1e3 {
        (rate / 1e3, " k")
    } else {
        (rate, " ")
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$}{prefix}").trim_end().to_string()
}

/// A coefficient with about four significant figures, plain (no exponent) for everyday sizes.
pub fn format_coefficient(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 {
        "0".to_string()
    } else if !(1e-4..1e7).contains(&magnitude) {
        format!("{value:.3e}")
    } else if magnitude >= 1000.0 {
        format!("{value:.0}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).clamp(0, 7) as usize;
        format!("{value:.decimals$}")
    }
}

/// A limit in percent as a comparison's summary says it: up to two decimals, no trailing zeros (`10`, `2.5`).
pub fn format_limit_percent(value: f64) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

/// A change in percent as a comparison prints it: `+4.2%`, `-12.0%`; one that rounds to 0.0 without a sign,
/// never as "-0.0%".
pub fn format_percent_change(change: f64) -> String {
    if change.abs() < 0.05 {
        "0.0%".to_string()
    } else {
        format!("{change:+.1}%")
    }
}

/// A figure of the gate's table (each side's best run): whole numbers as they are, others with four
/// significant digits or so.
pub fn format_gate_figure(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{value:.0}");
    }
    let magnitude = value.abs();
    let decimals = if magnitude >= 1000.0 {
        1
    } else if magnitude >= 1.0 {
        3
    } else {
        6
    };
    format!("{value:.decimals$}")
}

/// A fraction as a signed percentage: `+25.0%`.
pub fn format_fraction_change(change: f64) -> String {
    if change.is_infinite() {
        return "+inf%".to_owned();
    }
    format!("{:+.1}%", change * 100.0)
}

/// The most decimals [`format_change_near`] shows.
const MAX_CHANGE_DECIMALS: usize = 4;

/// A change as a signed percentage beside its budget: one decimal, or as many more (up to
/// `MAX_CHANGE_DECIMALS`) as it takes to tell the change from the budget when one decimal would show them
/// equal, so a verdict never contradicts the figures beside it (100 -> 130.01 with a budget of 30% is
/// `+30.01%`, not `+30.0%` marked REGRESSED). A change that is the budget to every decimal shown is shown
/// with one.
pub fn format_change_near(change: f64, budget: f64) -> String {
    if !change.is_finite() {
        return format_fraction_change(change);
    }
    for decimals in 1..=MAX_CHANGE_DECIMALS {
        let shown = format!("{:.decimals$}", change * 100.0);
        if shown != format!("{:.decimals$}", budget * 100.0) {
            return format!("{:+.decimals$}%", change * 100.0);
        }
    }
    format_fraction_change(change)
}

/// A fraction as a percentage: `30.0%`.
pub fn format_fraction(fraction: f64) -> String {
    if fraction.is_infinite() {
        return "inf%".to_owned();
    }
    format!("{:.1}%", fraction * 100.0)
}

/// A point of a history series (its figure at one commit): an integer when it is one, else three decimals at
/// most, trailing zeros dropped.
pub fn format_series_figure(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A figure per iteration as the reports print it: whole instructions.
pub fn format_whole(figure: f64) -> String {
    format!("{:.0}", figure.round())
}

/// A change with its sign: `+120`, `-3`.
pub fn format_signed(figure: f64) -> String {
    let rounded = figure.round();
    if rounded > 0.0 {
        format!("+{rounded:.0}")
    } else {
        format!("{rounded:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_format_readably() {
        assert_eq!(format_gate_figure(1234.0), "1234");
        assert_eq!(format_gate_figure(1234.567), "1234.6");
        assert_eq!(format_gate_figure(12.3456), "12.346");
        assert_eq!(format_fraction_change(0.25125), "+25.1%");
        // Near the bound, as many decimals as tell the change from the budget.
        assert_eq!(format_change_near(130.01 / 100.0 - 1.0, 0.30), "+30.01%");
        assert_eq!(format_change_near(0.29996, 0.30), "+29.996%");
        assert_eq!(format_change_near(130.0 / 100.0 - 1.0, 0.30), "+30.0%");
        assert_eq!(format_change_near(0.25125, 0.30), "+25.1%");
        assert_eq!(format_change_near(f64::INFINITY, 0.30), "+inf%");
        assert_eq!(format_fraction_change(-0.1), "-10.0%");
    }

    #[test]
    fn a_percent_change_has_one_decimal_and_no_negative_zero() {
        assert_eq!(format_percent_change(4.24), "+4.2%");
        assert_eq!(format_percent_change(-0.04), "0.0%");
        assert_eq!(format_percent_change(-12.0), "-12.0%");
        assert_eq!(format_whole(104.6), "105");
        assert_eq!(format_signed(-2.6), "-3");
        assert_eq!(format_signed(120.2), "+120");
    }

    #[test]
    fn coefficients_keep_about_four_figures() {
        assert_eq!(format_coefficient(0.0), "0");
        assert_eq!(format_coefficient(1.4657), "1.466");
        assert_eq!(format_coefficient(0.80392), "0.8039");
        assert_eq!(format_coefficient(144.0), "144.0");
        assert_eq!(format_coefficient(23456.7), "23457");
        assert_eq!(format_coefficient(0.00001234), "1.234e-5");
    }
}
