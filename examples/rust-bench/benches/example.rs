//! The example suite: a 1 KiB and a 4 KiB sum (4x the work, about 4x the time), a `Vec::with_capacity(1000)`
//! (a heap peak of at least 1000 bytes; on the host), a nine-deep recursion of 1 KiB frames (a stack mark of
//! at least 9 KiB) and a family, `sum_n`, the sum over 256 to 4096 bytes (rho fits its growth: O(n)).
//! `cargo bench` prints rho's report, a table (rho-bench's default feature `report`); `rho bench` (module.yml's
//! `cargo: example`) reads the stream, on the host or, with `--target mps2-an386`, on an emulated Cortex-M4
//! (no_std, semihosting).

#![cfg_attr(target_os = "none", no_std, no_main)]

use core::hint::black_box;

use rho_bench::Bench;

mod frames;
use frames::recurse;

#[cfg(not(target_os = "none"))]
#[global_allocator]
static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();

static DATA: [u8; 4096] = [1; 4096];

fn sum(data: &[u8]) -> u64 {
    data.iter().map(|&x| u64::from(x)).sum()
}

fn sum_1k(b: &mut Bench) {
    b.unit("byte", 1024);
    b.iter(|| sum(black_box(&DATA[..1024])));
}

fn sum_4k(b: &mut Bench) {
    b.unit("byte", 4096);
    b.iter(|| sum(black_box(&DATA[..])));
}

/// A family: the sum over `b.arg()` bytes, reported as `sum_n/256` ... `sum_n/4096`; rho fits its growth
/// (O(n): each member's cost over its argument).
fn sum_n(b: &mut Bench) {
    let n = b.arg();
    b.unit("byte", n);
    b.iter(|| sum(black_box(&DATA[..n as usize])));
}

#[cfg(not(target_os = "none"))]
fn vec_1000(b: &mut Bench) {
    b.iter(|| Vec::<u8>::with_capacity(black_box(1000)));
}

fn recurse_9(b: &mut Bench) {
    b.iter(|| recurse(black_box(9)));
}

#[cfg(not(target_os = "none"))]
rho_bench::main!(
    sum_1k,
    sum_4k,
    vec_1000,
    recurse_9,
    sum_n = range(256, 4096, 2)
);
// No allocator on the board: the heap benchmark is the host's.
#[cfg(target_os = "none")]
rho_bench::main!(sum_1k, sum_4k, recurse_9, sum_n = range(256, 4096, 2));
