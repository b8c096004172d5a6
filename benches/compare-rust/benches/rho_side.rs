//! rho-bench's side of the comparison.

use std::hint::black_box;

use compare_rust::{bytes, crc32, sum, vec_1000, xorshift};
use rho_bench::Bench;

fn sum_1k(b: &mut Bench) {
    let data = bytes(1024);
    b.iter(|| sum(black_box(&data)));
}

fn sum_4k(b: &mut Bench) {
    let data = bytes(4096);
    b.iter(|| sum(black_box(&data)));
}

fn crc32_256(b: &mut Bench) {
    let data = bytes(256);
    b.iter(|| crc32(black_box(&data)));
}

fn alloc_1000(b: &mut Bench) {
    b.iter(vec_1000);
}

fn xorshift_step(b: &mut Bench) {
    let x = 0x9E37_79B9_7F4A_7C15u64;
    b.iter(|| xorshift(black_box(x)));
}

rho_bench::main!(sum_1k, sum_4k, crc32_256, alloc_1000, xorshift_step);
