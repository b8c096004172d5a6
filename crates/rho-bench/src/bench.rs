//! [`Bench`]: one benchmark's state and its measured loop, the C harness's `RHO_BENCH_LOOP` and
//! `rho_bench__step` (`c/include/rho/bench.h`): warm-ups, then measured samples, each timed around the
//! body only, batched when the body is too short for the clock, under a time cap; or, under Callgrind, one
//! counted loop.

use core::hint::black_box;

#[cfg(feature = "std")]
use crate::heap::Uncounted;
#[cfg(feature = "std")]
use crate::hosted::valgrind;
use crate::platform::{Samples, clock, lockstep};
use crate::stack;
use crate::{heap, wire};
#[cfg(feature = "std")]
use std::vec::Vec;

/// Bodies under this many sizing units are batched ...
const BATCH_BELOW: u64 = 16;
/// ... into samples of at least this many units (c/include/rho/bench.h, "Batches").
const BATCH_AIM: u64 = 128;
/// A benchmark may measure again one interrupted sample per this many measured samples asked for
/// (c/include/rho/bench.h, "Preemption", `RHO_BENCH_PREEMPTED_RERUNS`).
const PREEMPTED_RERUNS: u64 = 4;
/// Inputs `iter_batched` holds at once: its batches are at most this long.
#[cfg(feature = "std")]
pub const BATCHED_INPUTS: usize = 64;
/// A benchmark's state, handed to each benchmark function: say what one iteration is ([`Bench::unit`]), then
/// run the measured loop once ([`Bench::iter`] or [`Bench::iter_batched`]).
///
/// ```no_run
/// fn sum_1k(b: &mut rho_bench::Bench) {
///     let data = vec![1u8; 1024];
///     b.unit("byte", 1024);
///     b.iter(|| std::hint::black_box(&data).iter().map(|&x| u64::from(x)).sum::<u64>());
/// }
/// rho_bench::main!(sum_1k);
/// ```
pub struct Bench {
    /// The printed name: the function's, or `family/arg`.
    pub(crate) name: wire::Name,
    /// The function's name (a family's: `RHO_BENCH_ITERATIONS_<name>` and the like apply to every member).
    pub(crate) family: &'static str,
    pub(crate) arg: Option<u64>,
    /// `name` with a NUL, for Callgrind's dump.
    #[cfg(feature = "std")]
    pub(crate) name_nul: Vec<u8>,
    pub(crate) unit: &'static str,
    pub(crate) per_iteration: u64,
    pub(crate) misuse: Option<&'static str>,
    loops: u32,

    cycles_start: u64,
    time_start: u64,
    cpu_start: u64,
    /// The process's and the thread's CPU time when the measured loop started, and at its end what the
    /// process's other threads used during it (`@end other_cpu_ns=`).
    process_cpu_start: u64,
    thread_cpu_start: u64,
    other_cpu: Option<u64>,
    /// The thread's involuntary context switches when the sample started; measured samples the scheduler
    /// interrupted, kept and measured again; the least CPU time of a kept measured sample (0: none yet).
    switches: i64,
    /// The heap's counts and peak as the running sample started (`heap::counts`).
    heap_at_sample: heap::AtSample,
    preempted: u64,
    rerun: u64,
    cpu_least: u64,
    in_iteration: bool,
    pub(crate) warmup_target: u64,
    pub(crate) warmup_done: u64,
    pub(crate) measured_target: u64,
    pub(crate) measured_done: u64,
    pub(crate) cap_limit: u64,
    cap_used: u64,
    pub(crate) capped: bool,

    pub(crate) batch: u64,
    pub(crate) batch_forced: u64,
    pub(crate) batch_priority: u8,
    batch_limit: u64,
    pub(crate) single_min: u64,
    next_batch: u64,
    /// The unit batches are sized in (0 while `.overhead` runs: nothing batched).
    pub(crate) batch_unit: u64,

    /// Counting instructions under Callgrind instead of timing (hosted only).
    #[cfg(feature = "std")]
    pub(crate) counting: bool,
    #[cfg(feature = "std")]
    count_measuring: bool,
    #[cfg(feature = "std")]
    count_left: u64,
    #[cfg(feature = "std")]
    pub(crate) dumps: u64,
    /// The counted loops of this block: (dump number, iterations), at most two (`.overhead`'s).
    #[cfg(feature = "std")]
    pub(crate) counts: [(u64, u64); 2],
    #[cfg(feature = "std")]
    pub(crate) counts_len: usize,
    /// The scale for [`Bench::iterations`], and whether the environment fixed the iterations already.
    pub(crate) scale: f64,
    pub(crate) iterations_fixed: bool,

    /// The samples, `[cycles, time]` (only time without a cycle clock, only cycles without a time clock).
    pub(crate) samples: Samples,
    /// The lowest byte of the painted region above its 16-byte band (0: stack not measured).
    pub(crate) region_limit: usize,
    /// The heap counters of the measured iterations, read when they ended (zeros: no loop ran).
    pub(crate) heap_end: heap::Snapshot,
}

impl Bench {
    pub(crate) fn new(family: &'static str, arg: Option<u64>) -> Bench {
        let name = wire::Name::new(family, arg);
        Bench {
            name,
            family,
            arg,
            #[cfg(feature = "std")]
            name_nul: {
                let mut bytes = name.as_str().as_bytes().to_vec();
                bytes.push(0);
                bytes
            },
            unit: "iter",
            per_iteration: 1,
            misuse: None,
            loops: 0,
            cycles_start: 0,
            time_start: 0,
            cpu_start: 0,
            process_cpu_start: 0,
            thread_cpu_start: 0,
            other_cpu: None,
            switches: 0,
            heap_at_sample: heap::AtSample::default(),
            preempted: 0,
            rerun: 0,
            cpu_least: 0,
            in_iteration: false,
            warmup_target: 0,
            warmup_done: 0,
            measured_target: 0,
            measured_done: 0,
            cap_limit: 0,
            cap_used: 0,
            capped: false,
            batch: 0,
            batch_forced: 0,
            batch_priority: 0,
            batch_limit: 0,
            single_min: u64::MAX,
            next_batch: 1,
            batch_unit: 0,
            #[cfg(feature = "std")]
            counting: false,
            #[cfg(feature = "std")]
            count_measuring: false,
            #[cfg(feature = "std")]
            count_left: 0,
            #[cfg(feature = "std")]
            dumps: 0,
            #[cfg(feature = "std")]
            counts: [(0, 0); 2],
            #[cfg(feature = "std")]
            counts_len: 0,
            scale: 1.0,
            iterations_fixed: false,
            samples: Samples::new(),
            region_limit: 0,
            heap_end: heap::Snapshot::default(),
        }
    }

    /// The benchmark's name, as reported: a family member's is `name/ARG`.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    /// The argument of the running family member (`sum_n = [64, 256]` in [`main!`](crate::main!), an
    /// [`Args`](crate::Args) of its [`Entry`](crate::Entry)); 0 for a benchmark that is not a family's.
    pub fn arg(&self) -> u64 {
        self.arg.unwrap_or(0)
    }

    /// One iteration does `per_iteration` units of `unit` (default: 1 `iter`), as `RHO_BENCH_UNIT`: rho
    /// reports rates in it (`byte` gives bytes per second). `unit` must be a wire name (1 to 63 of
    /// `[A-Za-z0-9_.:+-]`) and `per_iteration` at least 1, else the run stops with an error.
    pub fn unit(&mut self, unit: &'static str, per_iteration: u64) {
        self.unit = unit;
        self.per_iteration = per_iteration;
    }

    /// This benchmark's measured iterations (scaled by `RHO_BENCH_SCALE` like the others), before its loop:
    /// for a body too slow for the default 20,000. `RHO_BENCH_ITERATIONS_<name>` (module.yml's per-benchmark
    /// `iterations`) overrides it.
    pub fn iterations(&mut self, iterations: u64) {
        if !self.iterations_fixed && self.loops == 0 {
            let scaled = (iterations as f64 * self.scale + 0.5).min(1.8e19) as u64;
            self.measured_target = scaled.max(1);
        }
    }

    /// Every measured sample is `iterations` back-to-back iterations (1: never batched; 0: sized by the
    /// harness, the default), before the loop, as `RHO_BENCH_SET_BATCH`. `RHO_BENCH_BATCH_<name>` overrides it.
    pub fn batch(&mut self, iterations: u64) {
        if self.batch_priority < 2 {
            self.batch_forced = iterations;
            self.batch_priority = 2;
        }
    }

    /// The measured loop: runs `routine` for the warm-ups, then the measured samples, each timed around the
    /// body alone (`RHO_BENCH_LOOP`). Its result is kept from the optimiser (`RHO_BENCH_KEEP`) and dropped
    /// inside the timing. One loop per benchmark.
    #[inline(always)]
    pub fn iter<R, F: FnMut() -> R>(&mut self, mut routine: F) {
        if !self.loop_begin() {
            return;
        }
        #[cfg(feature = "std")]
        if self.counting {
            while self.count_next() {
                black_box(routine());
            }
            return;
        }
        let (mut cycles_stop, mut time_stop) = (0, 0);
        while self.step(cycles_stop, time_stop) {
            let mut left = self.next_batch;
            if clock::HAS_CPU {
                self.cpu_start = clock::cpu_now();
            }
            self.time_start = clock::time_now();
            self.cycles_start = clock::cycles_start();
            loop {
                black_box(routine());
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            cycles_stop = clock::cycles_stop();
            time_stop = clock::time_now();
        }
    }

    /// The measured loop with an untimed `setup` before each `routine` (criterion's `iter_batched`,
    /// `RHO_BENCH_LOOP_SETUP`): for a sample of K iterations the harness runs `setup` K times with the clocks
    /// stopped, then times the K routines; their results are dropped after the clocks stop. K is at most
    /// [`BATCHED_INPUTS`]. Heap figures include what `setup` allocates. Counting instructions reads no clock:
    /// there the setup is counted with the routine.
    #[cfg(feature = "std")]
    #[inline(always)]
    pub fn iter_batched<I, R, S, F>(&mut self, mut setup: S, mut routine: F)
    where
        S: FnMut() -> I,
        F: FnMut(I) -> R,
    {
        self.batch_limit = BATCHED_INPUTS as u64;
        if !self.loop_begin() {
            return;
        }
        if self.counting {
            while self.count_next() {
                let input = setup();
                black_box(routine(input));
            }
            return;
        }
        let mut inputs: Uncounted<I> = Uncounted::with_capacity(BATCHED_INPUTS);
        let mut outputs: Uncounted<R> = Uncounted::with_capacity(BATCHED_INPUTS);
        let (mut cycles_stop, mut time_stop) = (0, 0);
        while self.step(cycles_stop, time_stop) {
            for _ in 0..self.next_batch {
                inputs.0.push(setup());
            }
            if clock::HAS_CPU {
                self.cpu_start = clock::cpu_now();
            }
            self.time_start = clock::time_now();
            self.cycles_start = clock::cycles_start();
            for input in inputs.0.drain(..) {
                outputs.0.push(black_box(routine(black_box(input))));
            }
            cycles_stop = clock::cycles_stop();
            time_stop = clock::time_now();
            outputs.0.clear();
        }
    }

    /// Runs the benchmark (`body`) with `region`, the stack region painted below the caller's frame, scanned
    /// after it; the stack figure. The heap is counted from the measured iterations' start to their end.
    #[inline(always)]
    pub(crate) fn measure(
        &mut self,
        region: Option<&stack::Region>,
        body: impl FnOnce(&mut Bench),
    ) -> wire::Stack {
        if let Some(region) = region {
            self.region_limit = region.limit();
        }
        self.heap_end = heap::Snapshot::default();
        body(self);
        // A loop left running (a misuse stopped it) ends here, before anything else allocates.
        self.loop_ends();
        region.map_or(wire::Stack::Off, |region| {
            region
                .scan()
                .map_or(wire::Stack::Overrun, wire::Stack::Bytes)
        })
    }

    /// What closes the block (`@stack`, `@heap`, `@end`) once the benchmark returned: the heap figures are
    /// the measured iterations' (see [`crate::CountingAlloc`]).
    pub(crate) fn block_end(&self, stack: wire::Stack) -> wire::BlockEnd<'_> {
        let heap = self.heap_end;
        wire::BlockEnd {
            name: self.name.as_str(),
            stack,
            heap_measured: heap::installed(),
            heap_peak: heap.peak as u64,
            heap_live: heap.live as u64,
            allocs: heap.allocs as u64,
            frees: heap.frees as u64,
            iterations: self.measured_done,
            warmup: self.warmup_done,
            capped: self.capped,
            unit: self.unit,
            per_iteration: self.per_iteration,
            batch: self.batch.max(1),
            other_cpu_ns: if clock::HAS_CPU {
                Some(self.other_cpu.unwrap_or(0))
            } else {
                None
            },
            preempted: (clock::HAS_PREEMPTION && clock::HAS_CPU)
                .then_some((self.preempted, self.rerun)),
        }
    }

    /// Counts the loops; false when the benchmark cannot be measured (a second loop).
    #[inline(never)]
    fn loop_begin(&mut self) -> bool {
        self.loops += 1;
        if self.loops > 1 && self.misuse.is_none() {
            self.misuse = Some(
                "the measured loop (iter, iter_batched) ran more than once; one loop a benchmark",
            );
        }
        self.in_iteration = false;
        #[cfg(feature = "std")]
        if self.counting {
            self.count_left = if self.misuse.is_none() {
                self.warmup_target
            } else {
                0
            };
            self.count_measuring = false;
        }
        self.misuse.is_none()
    }

    /// K for the measured samples, once the warm-ups are over.
    fn size_batch(&mut self) {
        let mut k = self.batch_forced;
        let least = self.single_min;
        if k == 0 {
            let most = (self.measured_target / 32).min(crate::platform::BATCH_MAX);
            k = 1;
            if self.warmup_done > 0 && self.batch_unit != 0 && least / BATCH_BELOW < self.batch_unit
            {
                while k * 2 <= most && least.saturating_mul(k) < BATCH_AIM * self.batch_unit {
                    k *= 2;
                }
            }
        }
        if self.batch_limit != 0 && k > self.batch_limit {
            k = self.batch_limit;
        }
        self.batch = k;
    }

    /// Records the sample of the iteration that just ended (if one did) and decides whether another runs
    /// (`rho_bench__step`). Not inlined: it runs between the stop and start reads, and must not be scheduled
    /// into the windows.
    #[inline(never)]
    fn step(&mut self, cycles_stop: u64, time_stop: u64) -> bool {
        // First: the CPU window's end.
        let cpu_stop = if clock::HAS_CPU { clock::cpu_now() } else { 0 };
        let checks_preemption = clock::HAS_PREEMPTION && clock::HAS_CPU;
        let switches = if checks_preemption {
            clock::switches_now()
        } else {
            0
        };
        if self.in_iteration {
            let cycles = clock::cycles_between(self.cycles_start, cycles_stop);
            // The cap counts in ns, or in cycles without a time clock.
            let spent = if clock::HAS_TIME {
                time_stop.wrapping_sub(self.time_start)
            } else {
                cycles
            };
            let cpu = cpu_stop.wrapping_sub(self.cpu_start);
            let measured = self.warmup_done >= self.warmup_target;
            let mut keep = true;
            if checks_preemption && measured && switches != self.switches {
                if self.rerun_preempted(cpu) {
                    self.rerun += 1;
                    keep = false;
                    heap::discard_sample(self.heap_at_sample);
                } else {
                    self.preempted += 1;
                }
            }
            if keep {
                if checks_preemption && measured && (self.cpu_least == 0 || cpu < self.cpu_least) {
                    self.cpu_least = cpu.max(1);
                }
                self.samples.push([cycles, spent, cpu]);
                if measured {
                    self.measured_done += self.next_batch;
                } else {
                    self.warmup_done += 1;
                }
                if self.next_batch == 1 {
                    let single = if clock::HAS_CYCLES { cycles } else { spent };
                    self.single_min = self.single_min.min(single);
                }
            }
            // The cap is on measured time: a sample measured again is not counted (bench.h).
            if keep {
                self.cap_used = self.cap_used.wrapping_add(spent);
                if self.cap_limit != 0 && (self.cap_used >= self.cap_limit || self.cap_used < spent)
                {
                    if self.warmup_done < self.warmup_target {
                        self.warmup_target = self.warmup_done;
                    } else if self.measured_done > 0 && self.measured_done < self.measured_target {
                        self.measured_target = self.measured_done;
                        self.capped = true;
                    }
                }
            }
        }
        if self.warmup_done < self.warmup_target || self.measured_done < self.measured_target {
            if self.batch == 0 && self.warmup_done == self.warmup_target {
                self.size_batch();
                self.next_batch = self.batch;
                self.cap_used = 0;
                self.measuring_starts();
                if clock::HAS_CPU {
                    // The thread's clock read first here and last at the end, so the process's interval lies
                    // within the thread's: on one thread the difference is 0, whatever an interrupt between
                    // two reads adds (read the other way round, one landing between the start reads made a
                    // single-threaded 126 us benchmark look as if other threads had run beside it).
                    self.thread_cpu_start = clock::cpu_now();
                    self.process_cpu_start = clock::process_cpu_now();
                }
            }
            // Between samples, never inside one: the other side of a gate's round takes its turn
            // (crate::hosted::lockstep), and the wait is not the next sample's interruption.
            let switches = if self.in_iteration && lockstep::due(time_stop) {
                lockstep::wait();
                if checks_preemption {
                    clock::switches_now()
                } else {
                    0
                }
            } else {
                switches
            };
            self.switches = switches;
            if checks_preemption {
                self.heap_at_sample = heap::counts();
            }
            self.in_iteration = true;
            return true;
        }
        if clock::HAS_CPU && self.in_iteration && self.batch != 0 {
            // A body that handed work to other threads: its thread's CPU time is not the benchmark's.
            let process = clock::process_cpu_now().wrapping_sub(self.process_cpu_start);
            let thread = clock::cpu_now().wrapping_sub(self.thread_cpu_start);
            self.other_cpu = Some(process.saturating_sub(thread));
        }
        self.in_iteration = false;
        self.loop_ends();
        false
    }

    /// Whether an interrupted measured sample whose CPU time is `cpu` is measured again (c/include/rho/bench.h,
    /// "Preemption"): its CPU time at most twice the least kept sample's, so the interruption made it long, not
    /// its body (a rare heavy iteration is kept), and re-runs left, one per [`PREEMPTED_RERUNS`] measured
    /// samples asked for, so a machine that interrupts every sample still finishes.
    fn rerun_preempted(&self, cpu: u64) -> bool {
        let samples = self.measured_target / self.next_batch.max(1);
        if self.rerun >= samples.div_ceil(PREEMPTED_RERUNS) {
            return false;
        }
        self.cpu_least == 0 || cpu / 2 <= self.cpu_least
    }

    /// The measured iterations are over: the heap counts stop (what the benchmark frees after its loop, a
    /// set-up's buffer, is not its figure).
    #[inline(always)]
    fn loop_ends(&mut self) {
        if let Some(heap) = heap::loop_ends() {
            self.heap_end = heap;
        }
    }

    /// The first measured iteration is next: the heap counts start, and the stack region below
    /// this frame is painted again (the frames above it are live and stay counted), except its lowest 16
    /// bytes, so an overrun in the warm-ups still reads as one.
    #[inline(always)]
    fn measuring_starts(&mut self) {
        heap::loop_starts();
        if self.region_limit != 0 {
            let sp = clock::stack_pointer() - stack::RED_ZONE;
            if sp > self.region_limit {
                stack::paint(self.region_limit, sp);
            }
        }
    }

    /// The counting loop's step (`rho_bench__count_next`): the same few instructions every iteration.
    #[cfg(feature = "std")]
    #[inline(never)]
    fn count_next(&mut self) -> bool {
        if self.count_left != 0 {
            self.count_left -= 1;
            return true;
        }
        self.count_turn()
    }

    /// The measured loop starts (collection on) or ends (collection off, totals dumped under the name).
    #[cfg(feature = "std")]
    #[inline(never)]
    fn count_turn(&mut self) -> bool {
        if self.misuse.is_some() {
            return false;
        }
        if !self.count_measuring {
            self.warmup_done = self.warmup_target;
            self.count_measuring = true;
            self.count_left = self.measured_target - 1;
            self.measuring_starts();
            valgrind::zero_stats();
            valgrind::toggle_collect();
            return true;
        }
        valgrind::toggle_collect();
        self.loop_ends();
        valgrind::dump_stats_at(&self.name_nul);
        self.dumps += 1;
        if self.counts_len < self.counts.len() {
            self.counts[self.counts_len] = (self.dumps, self.measured_target);
            self.counts_len += 1;
        }
        self.count_measuring = false;
        self.measured_done = self.measured_target;
        false
    }

    /// Ready for another counted loop of `.overhead` (twice the iterations).
    #[cfg(feature = "std")]
    pub(crate) fn again(&mut self, iterations: u64) {
        self.loops = 0;
        self.measured_target = iterations;
        self.measured_done = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark measuring `samples` samples of one iteration, whose least kept sample took `least` ns of CPU.
    fn measuring(samples: u64, least: u64) -> Bench {
        let mut bench = Bench::new("b", None);
        bench.measured_target = samples;
        bench.next_batch = 1;
        bench.cpu_least = least;
        bench
    }

    #[test]
    fn an_interrupted_sample_is_measured_again_while_its_cpu_time_is_typical_and_re_runs_are_left()
    {
        let mut bench = measuring(30, 100);
        // Up to twice the least CPU time: the interruption made it long; beyond that, its body did (kept).
        assert!(bench.rerun_preempted(201));
        assert!(!bench.rerun_preempted(202));
        // The first measured sample has nothing to compare with: measured again.
        assert!(measuring(30, 0).rerun_preempted(1_000_000));
        // 30 samples: at most 8 re-runs (one per 4, rounded up); then every interrupted sample is kept.
        bench.rerun = 7;
        assert!(bench.rerun_preempted(100));
        bench.rerun = 8;
        assert!(!bench.rerun_preempted(100));
        // Batches of 16 out of 20000 iterations: 1250 samples, 313 re-runs.
        let mut batched = measuring(20_000, 100);
        batched.next_batch = 16;
        batched.rerun = 312;
        assert!(batched.rerun_preempted(100));
        batched.rerun = 313;
        assert!(!batched.rerun_preempted(100));
    }
}
