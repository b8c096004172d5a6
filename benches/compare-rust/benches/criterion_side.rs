//! criterion's side of the comparison: the same functions, the same names, measured twice: with criterion's
//! default wall-clock measurement (`NAME`), and with the thread's CPU time (`cpu_NAME`, a criterion
//! `Measurement` of CLOCK_THREAD_CPUTIME_ID), which time spent descheduled on a loaded machine does not inflate.

use std::hint::black_box;
use std::time::Duration;

use compare_rust::{bytes, crc32, sum, vec_1000, xorshift};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, criterion_group, criterion_main};

/// The calling thread's CPU time.
struct CpuTime;

fn thread_cpu_now() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_now()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

fn functions<M: Measurement + 'static>(c: &mut Criterion<M>, prefix: &str) {
    let k1 = bytes(1024);
    let k4 = bytes(4096);
    let k256 = bytes(256);
    c.bench_function(&format!("{prefix}sum_1k"), |b| {
        b.iter(|| sum(black_box(&k1)))
    });
    c.bench_function(&format!("{prefix}sum_4k"), |b| {
        b.iter(|| sum(black_box(&k4)))
    });
    c.bench_function(&format!("{prefix}crc32_256"), |b| {
        b.iter(|| crc32(black_box(&k256)))
    });
    c.bench_function(&format!("{prefix}alloc_1000"), |b| b.iter(vec_1000));
    let x = 0x9E37_79B9_7F4A_7C15u64;
    c.bench_function(&format!("{prefix}xorshift_step"), |b| {
        b.iter(|| xorshift(black_box(x)))
    });
}

fn wall(c: &mut Criterion) {
    functions(c, "");
}

fn cpu(c: &mut Criterion<CpuTime>) {
    functions(c, "cpu_");
}

criterion_group!(wall_group, wall);
criterion_group! {
    name = cpu_group;
    config = Criterion::default().with_measurement(CpuTime);
    targets = cpu
}
criterion_main!(wall_group, cpu_group);
