//! Mutated record files: read, or refused with an error naming the file; never a panic; what is read holds
//! only what a record may (a full commit id, its target in its section, finite figures at least 0).

mod common;

use common::record;
use rho_history::{Measure, Record};

/// SplitMix64: the mutations are the same on every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SPLICES: [&str; 8] = [
    "-1",
    "1e400",
    "\"off\"",
    "null",
    "{}",
    "[]",
    "\"x\"",
    "18446744073709551616",
];

fn mutate(text: &str, rng: &mut Seeded) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(bytes.len());
        match rng.below(4) {
            0 => bytes[at] ^= 1 << rng.below(8),
            1 => bytes.truncate(at),
            2 => {
                let splice = SPLICES[rng.below(SPLICES.len())];
                let end = (at + rng.below(8)).min(bytes.len());
                bytes.splice(at..end, splice.bytes());
            }
            _ => {
                let end = (at + rng.below(40)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
        if bytes.is_empty() {
            break;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn fuzz_the_record_reader() {
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let seeds = [
        record(
            commit,
            "ci",
            Measure::Instructions,
            &[("bench_a", 1000.0), ("bench_b", 7.0)],
        ),
        record(
            commit,
            "ci",
            Measure::Time,
            &[("bench_a", 12.5), ("bench_b", 0.0)],
        ),
    ];
    let mut rng = Seeded(25);
    let (mut accepted, mut refused) = (0, 0);
    for n in 0..5_000 {
        let seed = seeds[n % 2].to_json().unwrap();
        let text = mutate(&seed, &mut rng);
        match Record::parse(&text, "records/x/r.json") {
            Ok(read) => {
                accepted += 1;
                // Checked here independently of the reader's own rules.
                assert_eq!(read.commit.len(), 40, "{text}");
                assert_eq!(read.section.context.target, read.target, "{text}");
                for bench in &read.section.benchmarks {
                    for figures in [bench.cycles, bench.time_ns].into_iter().flatten() {
                        for f in [figures.median, figures.p95, figures.p99] {
                            assert!(f.0.is_finite() && f.0 >= 0.0, "{text}");
                        }
                    }
                }
            }
            Err(error) => {
                refused += 1;
                assert!(error.to_string().starts_with("records/x/r.json"), "{error}");
            }
        }
    }
    println!("{accepted} mutated records read, {refused} refused");
    assert!(refused > 0 && accepted > 0);
}
