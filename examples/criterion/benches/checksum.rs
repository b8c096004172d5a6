//! A small criterion suite for rho's `criterion:` suite kind (module.yml here) and `rho bench import
//! criterion`: one group with a parameter. Each body takes a few milliseconds, so a planted 2x slowdown is
//! far outside the noise of a loaded machine.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, black_box, criterion_group, criterion_main};

/// How many passes the checksum makes per parameter unit (rho's tests double it to plant a 2x slowdown).
const ROUNDS_PER_UNIT: u32 = 1;

/// A Fletcher-style checksum over `data`, `rounds` times.
fn checksum(data: &[u8], rounds: u32) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for _ in 0..rounds {
        for &byte in data {
            a = (a + u32::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
    }
    (b << 16) | a
}

fn bench_checksum(c: &mut Criterion) {
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut group = c.benchmark_group("checksum");
    // An odd number of samples: the median is one sample's, criterion's and rho's alike.
    group.sample_size(11);
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    for units in [64u32, 128] {
        group.bench_with_input(BenchmarkId::from_parameter(units), &units, |b, &u| {
            b.iter(|| checksum(black_box(&data), u * ROUNDS_PER_UNIT))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_checksum);
criterion_main!(benches);
