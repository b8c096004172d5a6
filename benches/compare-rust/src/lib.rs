//! The functions both sides measure: the same code, called the same way (`black_box` on the input, the
//! result kept by the harness).

use std::hint::black_box;

/// Sum of the bytes (the 1 KiB and 4 KiB sums).
pub fn sum(data: &[u8]) -> u64 {
    data.iter().map(|&x| u64::from(x)).sum()
}

/// CRC-32 (IEEE, bitwise): a body of a few thousand cycles for 256 bytes.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// A 1000-byte allocation, freed.
pub fn vec_1000() -> Vec<u8> {
    Vec::with_capacity(black_box(1000))
}

/// xorshift64: a body of a few cycles.
pub fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// The inputs: `n` bytes of a fixed pattern.
pub fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 + 7) as u8).collect()
}
