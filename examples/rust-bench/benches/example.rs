//! The example suite: a 1 KiB and a 4 KiB sum (4x the work, about 4x the time), a `Vec::with_capacity(1000)`
//! (a heap peak of at least 1000 bytes) and a nine-deep recursion of 1 KiB frames (a stack mark of at least
//! 9 KiB). `cargo bench` prints rho's report; `rho bench` (module.yml's `cargo: example`) reads the stream.

use std::hint::black_box;

use rho_bench::Bench;

#[global_allocator]
static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();

fn sum(data: &[u8]) -> u64 {
    data.iter().map(|&x| u64::from(x)).sum()
}

fn sum_1k(b: &mut Bench) {
    let data = vec![1u8; 1024];
    b.unit("byte", 1024);
    b.iter(|| sum(black_box(&data)));
}

fn sum_4k(b: &mut Bench) {
    let data = vec![1u8; 4096];
    b.unit("byte", 4096);
    b.iter(|| sum(black_box(&data)));
}

fn vec_1000(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(black_box(1000)));
}

/// One frame of at least 1 KiB per level.
#[inline(never)]
fn recurse(depth: u32) -> u64 {
    let mut frame = [0u8; 1024];
    black_box(&mut frame);
    if depth <= 1 {
        return u64::from(frame[0]);
    }
    recurse(depth - 1) + u64::from(black_box(&frame)[1023])
}

fn recurse_9(b: &mut Bench) {
    b.iter(|| recurse(black_box(9)));
}

rho_bench::main!(sum_1k, sum_4k, vec_1000, recurse_9);
