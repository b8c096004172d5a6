//! The machine's yardstick (docs/wire-format.md, "Yardstick"): a fixed reference loop, the same in every
//! build, timed on every clock a few times once per run and printed as `@yardstick` (wire version 9). A
//! baseline keeps its figures and a later comparison measures it again, so a machine that moved as a whole is
//! told apart from the code. Only ratios between two runs built the same way mean anything: the loop's
//! absolute figure depends on the compiler and its flags (and differs from the C harness's).

use core::fmt::{self, Write};

/// Which reference loop: a comparison uses two yardsticks only when they name the same one.
pub(crate) const NAME: &str = "rho1";
/// Repetitions timed, after one untimed pass.
pub(crate) const REPETITIONS: usize = 9;

/// The ring the loop walks, 1 kB: slot `i` holds `i + 97 (mod 256)`, one cycle through all 256 (97 is odd).
static RING: [u32; 256] = ring();

const fn ring() -> [u32; 256] {
    let mut ring = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        ring[i] = ((i + 97) % 256) as u32;
        i += 1;
    }
    ring
}

/// Makes `x` and `at` opaque to the optimiser each iteration (no vectorising, no closed form), at no cost
/// in the loop: an empty asm where the target has one, `black_box` elsewhere.
#[inline(always)]
// The registers are named only inside the asm's comment, so how they are spelt does not matter.
#[allow(asm_sub_register)]
fn opaque(x: &mut u32, at: &mut u32) {
    #[cfg(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv32",
        target_arch = "riscv64"
    ))]
    // SAFETY: an asm block of only a comment; it reads and writes only the two registers it is given.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} */",
            inout(reg) * x,
            inout(reg) * at,
            options(nomem, nostack, preserves_flags)
        );
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv32",
        target_arch = "riscv64"
    )))]
    {
        *x = core::hint::black_box(*x);
        *at = core::hint::black_box(*at);
    }
}

/// The reference loop: a dependent multiply-and-shift chain and a dependent walk of the ring (each load's
/// address is the last load's value), bound by latency, never by throughput.
#[inline(never)]
pub(crate) fn reference_loop(iterations: u32, seed: u32) -> u32 {
    // The ring through black_box: the compiler must load it, not fold its known contents into arithmetic.
    let ring = core::hint::black_box(&RING);
    let (mut x, mut at) = (seed, 0u32);
    for _ in 0..iterations {
        x = x.wrapping_mul(2_654_435_761).wrapping_add(x >> 13);
        x ^= x << 7;
        at = ring[(at & 255) as usize];
        x = x.wrapping_add(at);
        opaque(&mut x, &mut at);
    }
    x.wrapping_add(at)
}

/// Times the loop and prints `@yardstick NAME iterations=N repetitions=R` and one sample line per
/// repetition, in `@clock` order: `read` gives the clocks' readings (cycles, time, cpu; `start` says which
/// end, so the reads nest as a sample's do), `elapsed` the difference of two readings per clock, and `has`
/// which clocks the stream declared.
pub(crate) fn measure(
    out: &mut impl Write,
    iterations: u32,
    has: [bool; 3],
    read: impl Fn(bool) -> [u64; 3],
    elapsed: impl Fn([u64; 3], [u64; 3]) -> [u64; 3],
) -> fmt::Result {
    let mut seed = core::hint::black_box(reference_loop(iterations, 1));
    writeln!(
        out,
        "@yardstick {NAME} iterations={iterations} repetitions={REPETITIONS}"
    )?;
    for _ in 0..REPETITIONS {
        let start = read(true);
        seed = core::hint::black_box(reference_loop(iterations, seed));
        let stop = read(false);
        let figures = elapsed(start, stop);
        let mut first = true;
        for (figure, _) in figures.iter().zip(has).filter(|(_, has)| *has) {
            out.write_char(if first { ':' } else { ' ' })?;
            write!(out, "{figure}")?;
            first = false;
        }
        out.write_char('\n')?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_is_the_same_computation_every_run() {
        assert_eq!(reference_loop(1000, 1), reference_loop(1000, 1));
        assert_ne!(reference_loop(1000, 1), reference_loop(1001, 1));
    }

    #[test]
    fn it_prints_a_record_and_one_sample_per_repetition_of_the_declared_clocks() {
        let mut out = String::new();
        measure(
            &mut out,
            10,
            [true, true, false],
            |start| if start { [1, 2, 3] } else { [11, 22, 33] },
            |a, b| [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
        )
        .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "@yardstick rho1 iterations=10 repetitions=9");
        assert_eq!(lines.len(), 1 + REPETITIONS);
        assert!(lines[1..].iter().all(|l| *l == ":10 20"));
    }
}
