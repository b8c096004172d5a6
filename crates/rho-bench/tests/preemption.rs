//! Preempted samples (`@end preempted=`, version 7; `rerun=`, version 9): on Linux the harness reads the thread's
//! involuntary context switches around each sample and measures an interrupted one again, within a bound, as the
//! C harness does. Planted, not hoped for: this test's thread (whose benchmark threads inherit its CPU) and a busy
//! loop are pinned to one core, so the scheduler has to take turns between them while the body spins for 2 ms of
//! its own CPU time a sample. What is asserted is the bookkeeping, which holds whatever the scheduler did.

#![cfg(target_os = "linux")]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};

// The heap is counted, so a re-run's allocations can be seen to be left out.
#[global_allocator]
static ALLOC: rho_bench::CountingAlloc = rho_bench::CountingAlloc::system();

const ITERATIONS: u64 = 30;
/// c/include/rho/bench.h's `RHO_BENCH_PREEMPTED_RERUNS`: one re-run per this many samples asked for.
const RERUN_PER: u64 = 4;

fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write; the thread CPU-time clock exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// 2 ms of this thread's CPU time an iteration: the same CPU time in every sample, however long it lasts.
fn spin_2ms(b: &mut Bench) {
    b.iter(|| {
        let start = thread_cpu_ns();
        while thread_cpu_ns() - start < 2_000_000 {}
    });
}

/// A busy loop pinned to core 0, killed (by its own id) when dropped.
struct Neighbour(Child);

impl Drop for Neighbour {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pin_this_thread_to_cpu0() -> bool {
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET and sched_setaffinity only touch it and this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// [`spin_2ms`], keeping 16 bytes an iteration (never freed): a re-run's bytes stay held.
fn spin_2ms_keeping_16(b: &mut Bench) {
    b.iter(|| {
        std::mem::forget(Box::new([0u8; 16]));
        let start = thread_cpu_ns();
        while thread_cpu_ns() - start < 2_000_000 {}
    });
}

#[test]
fn interrupted_samples_are_measured_again_within_the_bound_counted_and_their_heap_left_out() {
    let Ok(child) = Command::new("taskset")
        .args(["-c", "0", "sh", "-c", "while :; do :; done"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: taskset (util-linux) is not installed");
        return;
    };
    let neighbour = Neighbour(child);
    assert!(pin_this_thread_to_cpu0(), "sched_setaffinity failed");
    // Let the neighbour start spinning before the benchmark does.
    std::thread::sleep(Duration::from_millis(50));
    let settings = Settings {
        iterations: ITERATIONS,
        warmup: 1,
        ..Settings::default()
    };
    // One run, one test: the heap's counts are the process's, so no other benchmark may run beside these.
    let mut sink = Sink::Memory(Vec::new(), false);
    rho_bench::run(
        &[
            Entry::new("spin_2ms", spin_2ms),
            Entry::new("spin_2ms_keeping_16", spin_2ms_keeping_16),
        ],
        &settings,
        BuildInfo { optimized: true },
        &mut sink,
    )
    .unwrap();
    drop(neighbour);
    let Sink::Memory(bytes, _) = sink else {
        unreachable!()
    };
    let text = String::from_utf8(bytes).unwrap();
    let run = rho_wire::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let bound = ITERATIONS.div_ceil(RERUN_PER);
    for spin in &run.benchmarks {
        // Every sample asked for is there: a re-run replaces its sample, it is not one more.
        assert_eq!(spin.iterations, ITERATIONS, "{text}");
        for column in &spin.samples {
            assert_eq!(column.len() as u64, spin.warmup + ITERATIONS, "{text}");
        }
        assert!(
            spin.rerun <= bound,
            "{} re-runs over {bound}\n{text}",
            spin.rerun
        );
        // Each 2 ms of CPU time lasts 4 ms or more beside the loop, across the scheduler's turns: some samples
        // were interrupted. Every sample has the same CPU time, so an interrupted one is kept only once the
        // re-runs are used up.
        assert!(spin.rerun + spin.preempted >= 1, "{text}");
        if spin.preempted > 0 {
            assert_eq!(spin.rerun, bound, "{text}");
        }
    }
    // The test's one running thread: no other thread's CPU time beside the measured loops. The process's
    // clock is read within the thread's (after it at the start, before it at the end), so that is exactly 0
    // whatever interrupts land between two reads; read the other way round, one between the start reads
    // showed as other threads' time and the host dropped a short benchmark's CPU time under load.
    if run.clock_index(rho_wire::ClockRole::Cpu).is_some() {
        for spin in &run.benchmarks {
            assert_eq!(spin.other_cpu_ns, Some(0), "{text}");
        }
    }
    // Every kept iteration kept its 16 bytes; a re-measured sample's are held too, but are not the figures'.
    let kept = &run.benchmarks[1];
    let heap = kept.heap.expect("heap figures");
    let n = kept.iterations;
    assert!(kept.rerun >= 1, "{text}");
    assert_eq!((heap.allocs, heap.frees), (n, 0), "{text}");
    assert_eq!((heap.live, heap.peak), (16 * n, 16 * n), "{text}");
}
