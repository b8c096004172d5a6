//! Prints the generated series of tests/changepoint.rs with the change points rho finds in each, one JSON
//! object a line (`name`, `exact`, `series`, `rho`: the indices; `planted` for the series with known change
//! points), for benches/history/otava_compare.py to give
//! the very same figures to Apache Otava.
//!
//! `cargo run -p rho-stats --example change_point_series`

#[path = "../tests/series/mod.rs"]
mod series;

use rho_stats::{ChangeSettings, change_points};

fn line(name: &str, exact: bool, figures: &[f64], planted: Option<&[usize]>) {
    let found: Vec<usize> = change_points(figures, &ChangeSettings::new(exact))
        .iter()
        .map(|c| c.index)
        .collect();
    let mut object =
        serde_json::json!({"name": name, "exact": exact, "series": figures, "rho": found});
    if let Some(planted) = planted {
        object["planted"] = serde_json::json!(planted);
    }
    println!("{object}");
}

fn main() {
    line(
        "stepped 200 (exact)",
        true,
        &series::stepped_instructions(),
        None,
    );
    line(
        "stepped 200 (0.5% noise)",
        false,
        &series::stepped_noisy(),
        None,
    );
    for seed in 1..=20 {
        line(
            &format!("2x at 30, 5% noise, seed {seed}"),
            false,
            &series::noisy(seed, true),
            None,
        );
    }
    for seed in 100..150 {
        line(
            &format!("flat, 5% noise, seed {seed}"),
            false,
            &series::noisy(seed, false),
            None,
        );
    }
    for case in series::planted() {
        let name = format!("{}, seed {}", case.kind, case.seed);
        line(&name, false, &case.series, Some(&case.planted));
    }
    let (long, planted) = series::long_stepped(50_000, 99);
    line(
        "50,000 figures, 9 steps, seed 99",
        false,
        &long,
        Some(&planted),
    );
}
