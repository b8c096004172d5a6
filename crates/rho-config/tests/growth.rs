//! `max_growth`: a benchmark family's growth budget, written as the fit's term, with positioned refusals.

use std::path::Path;

use rho_config::{ConfigError, ModuleConfig};
use rho_stats::Complexity;

fn growth_of(value: &str) -> Result<Option<Complexity>, ConfigError> {
    let text = format!(
        "bench:\n  benchmarks:\n    pairwise:\n      budgets:\n        max_growth: {value}\n"
    );
    ModuleConfig::from_str(&text, Path::new("module.yml"))
        .map(|config| config.budgets_for("pairwise").max_growth)
}

#[test]
fn every_term_is_read_as_written() {
    let cases = [
        ("1", Complexity::Constant),
        ("log n", Complexity::Log),
        ("n", Complexity::Linear),
        ("N", Complexity::Linear),
        ("n # a comment", Complexity::Linear),
        ("\"n\"", Complexity::Linear),
        ("n log n", Complexity::LinearLog),
        ("nlogn", Complexity::LinearLog),
        ("n^2", Complexity::Quadratic),
        ("\"O(n^2)\"", Complexity::Quadratic),
        ("n^3", Complexity::Cubic),
    ];
    for (written, expected) in cases {
        assert_eq!(growth_of(written).unwrap(), Some(expected), "{written}");
    }
}

#[test]
fn a_global_max_growth_applies_to_every_family_and_a_familys_own_replaces_it() {
    let config = ModuleConfig::from_str(
        "bench:\n  budgets:\n    max_growth: n log n\n  benchmarks:\n    pairwise:\n      budgets:\n        max_growth: n^2\n",
        Path::new("module.yml"),
    )
    .unwrap();
    assert_eq!(
        config.budgets_for("sum").max_growth,
        Some(Complexity::LinearLog)
    );
    assert_eq!(
        config.budgets_for("pairwise").max_growth,
        Some(Complexity::Quadratic)
    );
}

#[test]
fn anything_else_is_refused_where_it_was_written() {
    // `no` and `false` are YAML booleans like a bare `n`, but not what a growth is spelt as.
    for (written, found) in [
        ("linear", "the text 'linear'"),
        ("n^4", "the text 'n^4'"),
        ("2", "`2`"),
        ("false", "`false`"),
        ("no", "`false`"),
    ] {
        let error = growth_of(written).unwrap_err();
        assert_eq!(
            error.pos().map(|p| (p.line, p.column)),
            Some((5, 21)),
            "{error}"
        );
        assert_eq!(
            error.message(),
            Some(
                format!(
                    "expected a growth for bench.benchmarks.pairwise.budgets.max_growth (1, log n, n, n log n, n^2 or n^3), found {found}"
                )
                .as_str()
            ),
            "{written}"
        );
    }
}
