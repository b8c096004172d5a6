//! Prints the generated series of tests/changepoint.rs with the change points rho finds in each, one JSON
//! object a line (`name`, `exact`, `series`, `rho`: the indices), for benches/history/otava_compare.py to give
//! the very same figures to Apache Otava.
//!
//! `cargo run -p rho-stats --example change_point_series`

#[path = "../tests/series/mod.rs"]
mod series;

use rho_stats::{ChangeSettings, change_points};

fn line(name: &str, exact: bool, figures: &[f64]) {
    let found: Vec<usize> = change_points(figures, &ChangeSettings::new(exact))
        .iter()
        .map(|c| c.index)
        .collect();
    let object = serde_json::json!({"name": name, "exact": exact, "series": figures, "rho": found});
    println!("{object}");
}

fn main() {
    line("stepped 200 (exact)", true, &series::stepped_instructions());
    line("stepped 200 (0.5% noise)", false, &series::stepped_noisy());
    for seed in 1..=20 {
        line(
            &format!("2x at 30, 5% noise, seed {seed}"),
            false,
            &series::noisy(seed, true),
        );
    }
    for seed in 100..150 {
        line(
            &format!("flat, 5% noise, seed {seed}"),
            false,
            &series::noisy(seed, false),
        );
    }
}
