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

/// A generated series with the change points planted in it.
pub struct Planted {
    pub kind: &'static str,
    pub seed: u64,
    pub series: Vec<f64>,
    /// The indices where a new level starts.
    pub planted: Vec<usize>,
}

/// The kinds of [`planted`] series, in order: each 60 figures around 1000, steps of 10%.
pub const PLANTED_KINDS: [&str; 9] = [
    "step up",
    "step down",
    "step then revert after 5-10",
    "two steps 5-8 apart",
    "flat, 2% gaussian",
    "flat, bimodal",
    "flat, heavy-tailed",
    "step up, bimodal",
    "step up, heavy-tailed",
];

/// How many seeds of each kind [`planted`] generates.
pub const PLANTED_SEEDS: u64 = 20;

/// The noise of one figure of `kind`, relative: 2% gaussian; bimodal, two modes 4% apart (each figure one or
/// the other at random) with 1% gaussian on each; heavy-tailed, Student's t on 3 degrees of freedom scaled
/// by 1% (a standard deviation of 1.7%, and a figure 10% out about once in 300).
fn noise(kind: &str, source: &mut Seeded) -> f64 {
    if kind.contains("bimodal") {
        let mode = if source.uniform() < 0.5 { 0.0 } else { 0.04 };
        mode + 0.01 * source.gaussian()
    } else if kind.contains("heavy-tailed") {
        let z = source.gaussian();
        let chi2: f64 = (0..3).map(|_| source.gaussian().powi(2)).sum();
        0.01 * z / (chi2 / 3.0).sqrt()
    } else {
        0.02 * source.gaussian()
    }
}

/// Every kind of [`PLANTED_KINDS`] at seeds 1 to [`PLANTED_SEEDS`]: where a step goes (between 15 and 39) and
/// how far apart two are drawn from the seed too.
pub fn planted() -> Vec<Planted> {
    let mut cases = Vec::new();
    for (number, kind) in PLANTED_KINDS.into_iter().enumerate() {
        for seed in 1..=PLANTED_SEEDS {
            let mut source = Seeded(1_000 * number as u64 + seed);
            let at = 15 + (source.next_u64() % 25) as usize;
            // (index, factor): from index on, the level is multiplied by factor.
            let steps: Vec<(usize, f64)> = match kind {
                "step down" => vec![(at, 0.9)],
                "step then revert after 5-10" => {
                    vec![
                        (at, 1.1),
                        (at + 5 + (source.next_u64() % 6) as usize, 1.0 / 1.1),
                    ]
                }
                "two steps 5-8 apart" => {
                    vec![(at, 1.1), (at + 5 + (source.next_u64() % 4) as usize, 1.1)]
                }
                k if k.starts_with("flat") => vec![],
                _ => vec![(at, 1.1)],
            };
            let series = (0..60)
                .map(|i| {
                    let level: f64 = steps
                        .iter()
                        .filter(|(from, _)| i >= *from)
                        .map(|(_, factor)| factor)
                        .product();
                    1_000.0 * level * (1.0 + noise(kind, &mut source))
                })
                .collect();
            cases.push(Planted {
                kind,
                seed,
                series,
                planted: steps.iter().map(|(from, _)| *from).collect(),
            });
        }
    }
    cases
}

/// How many of `planted` have a change point of `found` within one index (each found one matched once, the
/// nearest first), and how many of `found` matched none: (recalled, false alarms).
pub fn score(planted: &[usize], found: &[usize]) -> (usize, usize) {
    let mut used = vec![false; found.len()];
    let mut recalled = 0;
    for p in planted {
        let nearest = (0..found.len())
            .filter(|&k| !used[k] && found[k].abs_diff(*p) <= 1)
            .min_by_key(|&k| found[k].abs_diff(*p));
        if let Some(k) = nearest {
            used[k] = true;
            recalled += 1;
        }
    }
    (recalled, used.iter().filter(|u| !**u).count())
}

/// `len` figures around 1000 in 2% gaussian noise, 10% higher from every tenth of the way: 9 planted steps
/// (returned), the long series of the change-point benchmark.
pub fn long_stepped(len: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut noise = Seeded(seed);
    let tenth = len / 10;
    let series = (0..len)
        .map(|i| {
            1_000.0 * 1.1_f64.powi((i / tenth).min(9) as i32) * (1.0 + 0.02 * noise.gaussian())
        })
        .collect();
    (series, (1..10).map(|k| k * tenth).collect())
}
