//! A small mutation fuzzer shared by the `fuzz` tests of rho-wire, rho-config and rho-baseline (each includes
//! this file with `#[path]`): it turns valid seed inputs into broken ones (flipped bits, bytes inserted,
//! removed, repeated or swapped in from elsewhere, lines duplicated or cut, hostile tokens spliced in) and
//! hands each to a check that must neither panic nor fail its own assertions.
//!
//! The budget is fixed per test and raised with `RHO_FUZZ_ITERATIONS` (README: "Fuzzing"); every input is
//! a pure function of its iteration number, so a failure names the iteration that reproduces it
//! (`RHO_FUZZ_FROM=N RHO_FUZZ_ITERATIONS=1`).

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Tokens worth splicing into any of rho's text formats: record and key shapes, numbers at the edges of their
/// types, YAML and JSON structure, control and non-UTF-8 bytes.
const TOKENS: &[&[u8]] = &[
    b"@rho-bench 1\n",
    b"@bench ",
    b"@end ",
    b"@done ",
    b"@clock ",
    b"@stack ",
    b"@heap ",
    b":",
    b"\n:",
    b" iterations=",
    b"=",
    b"18446744073709551615",
    b"18446744073709551616",
    b"-1",
    b"0",
    b"1e308",
    b"NaN",
    b"inf",
    b"-0",
    b"0.5",
    b"9999999999999999999999",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"- ",
    b"  ",
    b"\t",
    b"\r",
    b"\r\n",
    b"\x00",
    b"\x1b[2J",
    b"\xff\xfe",
    b"\xc3",
    b"~",
    b"null",
    b"&a",
    b"*a",
    b"!!binary",
    b"---\n",
    b"...\n",
    b"? ",
    b"|\n",
    b">\n",
    b"#",
    b"\\u0000",
    b"\\",
    b"'",
    b"%",
];

/// A deterministic generator (xorshift64*), seeded per iteration.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One mutation of `bytes`, in place; `seeds` are the other inputs, to splice from.
pub fn mutate(bytes: &mut Vec<u8>, seeds: &[Vec<u8>], rng: &mut Rng) {
    let len = bytes.len();
    match rng.below(10) {
        0 if len > 0 => {
            let at = rng.below(len);
            bytes[at] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let at = rng.below(len);
            bytes[at] = rng.next() as u8;
        }
        2 if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below(16.min(len - at));
            bytes.drain(at..at + n);
        }
        3 => {
            let at = rng.below(len + 1);
            let token = TOKENS[rng.below(TOKENS.len())];
            bytes.splice(at..at, token.iter().copied());
        }
        4 if len > 0 => {
            // Repeat a chunk (a line duplicated, a number made longer).
            let at = rng.below(len);
            let n = 1 + rng.below(64.min(len - at));
            let chunk = bytes[at..at + n].to_vec();
            let to = rng.below(len + 1);
            bytes.splice(to..to, chunk);
        }
        5 => {
            // Cut the input short.
            let at = rng.below(len + 1);
            bytes.truncate(at);
        }
        6 if !seeds.is_empty() => {
            // Splice in a piece of another seed.
            let other = &seeds[rng.below(seeds.len())];
            if !other.is_empty() {
                let from = rng.below(other.len());
                let n = 1 + rng.below(128.min(other.len() - from));
                let to = rng.below(len + 1);
                bytes.splice(to..to, other[from..from + n].iter().copied());
            }
        }
        7 => {
            // Swap two lines.
            let lines: Vec<usize> = bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i)
                .collect();
            if lines.len() >= 3 {
                let a = rng.below(lines.len() - 1);
                let b = rng.below(lines.len() - 1);
                let (a, b) = (a.min(b), a.max(b));
                if a < b {
                    let first = bytes[lines[a] + 1..=lines[a + 1]].to_vec();
                    let second = bytes[lines[b] + 1..=lines[b + 1]].to_vec();
                    let mut out = bytes[..=lines[a]].to_vec();
                    out.extend_from_slice(&second);
                    out.extend_from_slice(&bytes[lines[a + 1] + 1..=lines[b]]);
                    out.extend_from_slice(&first);
                    out.extend_from_slice(&bytes[lines[b + 1] + 1..]);
                    *bytes = out;
                }
            }
        }
        8 if len > 0 => {
            // A digit run replaced by an extreme number.
            let at = rng.below(len);
            if bytes[at].is_ascii_digit() {
                let mut end = at;
                while end < len && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                let token: &[u8] = [
                    &b"18446744073709551615"[..],
                    b"99999999999999999999999",
                    b"0",
                ][rng.below(3)];
                bytes.splice(at..end, token.iter().copied());
            }
        }
        _ => {
            let at = rng.below(len + 1);
            bytes.insert(at, rng.next() as u8);
        }
    }
}

/// How many inputs a fuzz test tries: `RHO_FUZZ_ITERATIONS`, else `default`.
pub fn iterations(default: u64) -> u64 {
    std::env::var("RHO_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Run `check` on `iterations(default)` inputs made from `seeds` (each one seed with 1 to 8 mutations), and
/// on every seed as it is. A panic or a failed assertion in `check` fails the test, naming the iteration and
/// showing the input.
pub fn fuzz(name: &str, seeds: &[Vec<u8>], default: u64, check: impl Fn(&[u8])) {
    for seed in seeds {
        check(seed);
    }
    let from: u64 = std::env::var("RHO_FUZZ_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let count = iterations(default);
    for iteration in from..from.saturating_add(count) {
        let mut rng = Rng::new(iteration);
        let mut input = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(8) {
            mutate(&mut input, seeds, &mut rng);
        }
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            panic!(
                "{name}: iteration {iteration} failed (reproduce with RHO_FUZZ_FROM={iteration} \
                 RHO_FUZZ_ITERATIONS=1); the input:\n{}",
                String::from_utf8_lossy(&input).escape_debug()
            );
        }
    }
}
