//! The generated series the change-point tests and `examples/change_point_series.rs` share.

#![allow(dead_code)]

/// SplitMix64: a fixed, seeded source, so every run of the test sees the same series.
pub struct Seeded(u64);

impl Seeded {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal figure (Box-Muller).
    pub fn gaussian(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// 200 commits of exact instruction counts: +3% at 60, +40% at 120, -10% at 170.
pub fn stepped_instructions() -> Vec<f64> {
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

/// 60 figures around 1000 in 5% gaussian noise, doubled from index 30 (`step` false: never).
pub fn noisy(seed: u64, step: bool) -> Vec<f64> {
    let mut noise = Seeded(seed);
    (0..60)
        .map(|i| {
            let level = if step && i >= 30 { 2_000.0 } else { 1_000.0 };
            level * (1.0 + 0.05 * noise.gaussian())
        })
        .collect()
}

/// [`stepped_instructions`] in 0.5% gaussian noise (seed 7): the same steps as a clock would see them.
pub fn stepped_noisy() -> Vec<f64> {
    let mut noise = Seeded(7);
    stepped_instructions()
        .iter()
        .map(|figure| figure * (1.0 + 0.005 * noise.gaussian()))
        .collect()
}
