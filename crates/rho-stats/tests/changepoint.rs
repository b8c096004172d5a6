//! Change points on generated histories: exact steps found exactly, a planted 2x step in seeded 5% noise
//! found where it is, flat noise finding nothing beyond 10%.

use rho_stats::{ChangeSettings, change_points};

/// SplitMix64: a fixed, seeded source, so every run of the test sees the same series.
struct Seeded(u64);

impl Seeded {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal figure (Box-Muller).
    fn gaussian(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// 200 commits of exact instruction counts: +3% at 60, +40% at 120, -10% at 170.
fn stepped_instructions() -> Vec<f64> {
    (0..200)
        .map(|i| {
            let mut figure = 100_000.0_f64;
            if i >= 60 {
                figure = (figure * 1.03).round();
            }
            if i >= 120 {
                figure = (figure * 1.40).round();
            }
            if i >= 170 {
                figure = (figure * 0.90).round();
            }
            figure
        })
        .collect()
}

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
        let mut noise = Seeded(seed);
        let series: Vec<f64> = (0..60)
            .map(|i| {
                let level = if i < 30 { 1_000.0 } else { 2_000.0 };
                level * (1.0 + 0.05 * noise.gaussian())
            })
            .collect();
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
        let mut noise = Seeded(seed);
        let series: Vec<f64> = (0..60)
            .map(|_| 1_000.0 * (1.0 + 0.05 * noise.gaussian()))
            .collect();
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
    let mut noise = Seeded(7);
    let series: Vec<f64> = stepped_instructions()
        .iter()
        .map(|figure| figure * (1.0 + 0.005 * noise.gaussian()))
        .collect();
    let found = change_points(&series, &ChangeSettings::new(false));
    let at: Vec<usize> = found.iter().map(|c| c.index).collect();
    assert_eq!(at, [60, 120, 170], "{found:?}");
}
