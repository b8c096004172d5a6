//! A small criterion suite for rho's `criterion:` suite kind and `rho bench import criterion`: a group with a
//! parameter, and a function on its own. Each body takes well over a millisecond so that a planted 2x slowdown
//! is far outside the noise of a loaded machine.

use criterion::{BenchmarkId, Criterion, black_box, criterion_group, criterion_main};

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
    group.sample_size(10);
    for rounds in [64u32, 128] {
        group.bench_with_input(BenchmarkId::from_parameter(rounds), &rounds, |b, &r| {
            b.iter(|| checksum(black_box(&data), r))
        });
    }
    group.finish();
}

fn bench_fill(c: &mut Criterion) {
    let mut group = c.benchmark_group("fill");
    group.sample_size(10);
    group.bench_function("zeroes", |b| {
        b.iter(|| {
            let v = vec![0u8; black_box(8 << 20)];
            black_box(v.iter().map(|&x| u64::from(x)).sum::<u64>())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_checksum, bench_fill);
criterion_main!(benches);
