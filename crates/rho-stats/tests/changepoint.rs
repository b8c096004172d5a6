//! Change points on generated histories: exact steps found exactly, a planted 2x step in seeded 5% noise
//! found where it is, flat noise finding nothing beyond 10%.

use rho_stats::{ChangeSettings, change_points};

mod series;

use series::stepped_instructions;

#[test]
fn exact_steps_of_3_40_and_minus_10_percent_are_found_exactly_there() {
    let found = change_points(&stepped_instructions(), &ChangeSettings::new(true));
    let at: Vec<usize> = found.iter().map(|c| c.index).collect();
    assert_eq!(at, [60, 120, 170]);
    let percents: Vec<f64> = found
        .iter()
        .map(|c| (c.change_percent.unwrap() * 10.0).round() / 10.0)
        .collect();
    assert_eq!(percents, [3.0, 40.0, -10.0]);
    assert!(found.iter().all(|c| c.pvalue == 0.0));
    // A flat exact benchmark beside it has none.
    assert!(change_points(&[4_321.0; 200], &ChangeSettings::new(true)).is_empty());
}

#[test]
fn a_2x_step_in_5_percent_noise_is_found_at_30() {
    for seed in 1..=20 {
        let series = series::noisy(seed, true);
        let found = change_points(&series, &ChangeSettings::new(false));
        let big: Vec<_> = found
            .iter()
            .filter(|c| c.change_percent.is_some_and(|p| p.abs() > 10.0))
            .collect();
        assert_eq!(big.len(), 1, "seed {seed}: {found:?}");
        assert!(big[0].index.abs_diff(30) <= 1, "seed {seed}: {found:?}");
        assert!(big[0].pvalue <= 0.001, "seed {seed}: {found:?}");
        let change = big[0].change_percent.unwrap();
        assert!((80.0..120.0).contains(&change), "seed {seed}: {change}");
    }
}

#[test]
fn flat_5_percent_noise_has_no_change_beyond_10_percent() {
    let mut any = 0;
    for seed in 100..150 {
        let series = series::noisy(seed, false);
        let found = change_points(&series, &ChangeSettings::new(false));
        any += found.len();
        assert!(
            found
                .iter()
                .all(|c| c.change_percent.is_some_and(|p| p.abs() <= 10.0)),
            "seed {seed}: {found:?}"
        );
    }
    // Reported so a change to the test's rule shows in its output: how many small ones were kept at all.
    println!("change points within 10% over 50 flat series: {any}");
}

#[test]
fn the_stepped_series_in_half_percent_noise_finds_the_large_steps_as_time_would() {
    let found = change_points(&series::stepped_noisy(), &ChangeSettings::new(false));
    let at: Vec<usize> = found.iter().map(|c| c.index).collect();
    assert_eq!(at, [60, 120, 170], "{found:?}");
}
