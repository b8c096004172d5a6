/*
 * rho/bench.h - the rho benchmark harness. Single header, C99, no allocation.
 *
 * It measures and prints; it never sorts or summarises. The output is the rho wire format
 * (docs/wire-format.md): the host tool `rho bench` parses it and computes every statistic.
 *
 * ---- Using it ------------------------------------------------------------------------------
 *
 *     #include <rho/bench.h>
 *
 *     static void bench_crc_64(rho_bench_t *state)
 *     {
 *         RHO_BENCH_UNIT(state, "byte", 64);          // one iteration is 64 bytes of work
 *         RHO_BENCH_LOOP(state) {
 *             RHO_BENCH_KEEP(crc32(buffer, 64));      // keep the result alive
 *         }
 *     }
 *
 *     int main(int argc, char **argv)
 *     {
 *         rho_bench_suite_t suite = {0};
 *         RHO_BENCH_ADD(&suite, bench_crc_64);        // runs, and is reported, in this order
 *         return rho_bench_main(&suite, argc, argv);
 *     }
 *
 * The header is stb-style: everything it declares is usable in any file, and the rest of the
 * harness is compiled in exactly ONE translation unit of the program, the one that defines
 * RHO_BENCH_IMPLEMENTATION before its FIRST #include (the implementation needs POSIX feature
 * macros, which only work before any system header is read):
 *
 *     #define RHO_BENCH_IMPLEMENTATION
 *     #include <rho/bench.h>
 *
 * `rho bench` compiles such a file next to yours, so files given to `rho bench` must NOT define
 * it. Configuration macros (below) must be the same in every file of a program: pass them on
 * the command line (-D...), not in one file.
 *
 * ---- Public API ----------------------------------------------------------------------------
 *
 *   rho_bench_t               a benchmark's state; a benchmark is `void fn(rho_bench_t *state)`.
 *                             Its fields are the harness's: do not touch them.
 *   rho_bench_suite_t         the list of benchmarks. `rho_bench_suite_t s = {0};` is empty
 *                             (in C++, `= {}`).
 *   RHO_BENCH_ADD(&suite, fn) appends fn, named "fn". When the suite is full
 *                             (RHO_BENCH_MAX_BENCHMARKS) it says so and drops fn; it never
 *                             overwrites. Drops are counted in `@done dropped=`.
 *   RHO_BENCH_ADD_ARG(&suite, fn, arg)
 *                             appends fn with an argument (any uint64_t), reported as "fn/arg"
 *                             (e.g. bench_sum/1024), in the order added. The members of one
 *                             family (every entry of fn) are what `rho` fits growth over. On
 *                             bare metal the argument must be below 2^32 (the harness's numbers
 *                             are 32-bit there): a larger one is not added, rho_bench_main says
 *                             so and returns 2.
 *   RHO_BENCH_ADD_RANGE(&suite, fn, lo, hi, multiplier)
 *                             RHO_BENCH_ADD_ARG for lo, lo*multiplier, lo*multiplier^2, ...
 *                             while below hi, then hi itself (like Google Benchmark's Range, but
 *                             multiples of lo): (256, 16384, 4) adds 256, 1024, 4096, 16384. lo 0
 *                             is followed by 1. lo > hi or a multiplier below 2 adds nothing and
 *                             makes rho_bench_main return 2.
 *   RHO_BENCH_ARG(state)      the argument of the running benchmark, a uint64_t (0 for one
 *                             added with RHO_BENCH_ADD).
 *   RHO_BENCH_LOOP(state) { body }
 *                             the measured loop: warm-ups then measured samples, each one timed
 *                             around the body only. One per benchmark. A sample is one iteration,
 *                             or a batch of K back-to-back iterations when one is too short for
 *                             the clock (see "Batches" below).
 *   RHO_BENCH_LOOP_SETUP(state, i, capacity) { setup } RHO_BENCH_TIMED { body }
 *                             the same loop with an untimed setup before each body (criterion's
 *                             iter_batched): for a sample of K iterations it runs the setup K
 *                             times (i = 0 .. K-1, clocks not running), then times the K bodies
 *                             (i = 0 .. K-1 again). `i` is a size_t the macro declares; K is at
 *                             most `capacity`, the number of inputs the benchmark has room for
 *                             (at least 1), so `inputs[capacity]` indexed by i is enough. No
 *                             `break` or `continue` in either block. Counting instructions
 *                             (see "Counting") reads no clock: there the setup is counted with
 *                             the body.
 *   RHO_BENCH_SET_BATCH(state, K)
 *                             before the loop: every measured sample is K iterations (1: one
 *                             iteration a sample, never batched; 0: sized by the harness, the
 *                             default). RHO_BENCH_BATCH_<name> in the environment overrides it.
 *   RHO_BENCH_KEEP(value)     evaluates a scalar, pointer or array once and makes the optimiser
 *                             believe it is used, and that memory may have changed (so work on
 *                             a buffer is redone every iteration). An array is kept as its
 *                             address (KEEP(buffer) keeps the buffer). To make a local input
 *                             opaque, KEEP it (or its address) inside the loop.
 *   RHO_BENCH_UNIT(state, "byte", 64)
 *                             one iteration does 64 units of "byte" (default: 1 "iter"). A unit
 *                             that is not a wire name, or 0 units, is a misuse: the benchmark is
 *                             not reported and rho_bench_main returns 2.
 *   RHO_BENCH_HEAP_ALLOC(state, ptr, bytes)
 *   RHO_BENCH_HEAP_FREE(state, ptr, bytes)
 *                             tell the harness about an allocation/free you made (it wraps
 *                             your allocator's calls, it does not replace the allocator). A
 *                             NULL ptr is not counted. A free of more bytes than are live is a
 *                             misuse: it is counted in `free_errors` and live is left alone.
 *   int rho_bench_main(rho_bench_suite_t *suite, int argc, char **argv)
 *                             runs the calibration block `.overhead`, then the suite, printing
 *                             the stream; returns 0, or 2 on a bad setting or output error.
 *
 * Every macro argument is evaluated exactly once.
 *
 * ---- Configuration -------------------------------------------------------------------------
 *
 * Hosted (Linux, macOS, ...): read from the environment at start-up. A bad value is an error
 * (message on stderr, rho_bench_main returns 2, nothing is measured).
 *   RHO_BENCH_ITERATIONS        measured iterations per benchmark (default 20000, at least 1)
 *   RHO_BENCH_ITERATIONS_<name> the same for one benchmark, e.g. RHO_BENCH_ITERATIONS_bench_crc_64
 *                               (for a family, its function's name: every member)
 *                               (scaled by RHO_BENCH_SCALE too)
 *   RHO_BENCH_WARMUP            warm-up iterations per benchmark (default 100)
 *   RHO_BENCH_SCALE             multiplies iterations and warm-ups (e.g. 0.01 for a quick run);
 *                               never below 1 iteration, nor below 1 warm-up when warm-ups > 0
 *   RHO_BENCH_TIME_CAP_MS       stop a benchmark after this much measured time (default 5000,
 *                               0 = none); reported as `capped=1` with the iterations done (at
 *                               least 1). Warm-ups do not count toward it, but have a cap of the
 *                               same length of their own: once their time reaches it, the rest of
 *                               them are skipped (`@end warmup=` says how many ran). So a slow
 *                               body runs for at most about twice the cap plus one iteration.
 *   RHO_BENCH_STACK_BYTES       the painted stack region, at most the compiled size (0 = off;
 *                               when stack measurement is compiled out, accepted and reported off)
 *   RHO_BENCH_BATCH             iterations per measured sample for every benchmark (0 = sized by
 *                               the harness, the default; 1 = never batched); a benchmark's
 *                               RHO_BENCH_SET_BATCH(state, K) overrides it
 *   RHO_BENCH_BATCH_<name>      the same for one benchmark, overriding its RHO_BENCH_SET_BATCH(...)
 *   RHO_BENCH_FILTER            which benchmarks run: comma-separated terms, each 1 to 85 of
 *                               [A-Za-z0-9_.:+/-]; a benchmark runs when its name contains one of
 *                               them (a case-sensitive substring: `crc` runs bench_crc_64 and
 *                               bench_crc_256, `crc_64,steady` runs bench_crc_64 and bench_steady;
 *                               a family member is matched as "name/arg", and a term may hold '/').
 *                               A term starting with `^` matches at the name's start only, one
 *                               ending with `$` at its end only: `^bench_crc$` runs that benchmark
 *                               and not bench_crc_64 (rho's `--filter REGEX` lists the suite and
 *                               passes the names it picks so). Unset or empty: all run. The others are neither run nor printed
 *                               (`.overhead` always runs), `@done benchmarks=` counts those that
 *                               ran, and a filter that matches none is not an error (benchmarks=0).
 *   RHO_BENCH_LIST              `1`: list, do not run: print `@list NAME` for each benchmark the
 *                               filter selects, in run order, then `@done`, and return 0 before
 *                               any clock is read or any benchmark (`.overhead` too) runs
 *                               (docs/wire-format.md, "Listing"). Unset, empty or `0`: run.
 *   RHO_BENCH_MEASURE           `time` (default) or `instructions`: under Valgrind's Callgrind
 *                               (`rho bench --measure instructions`), count each benchmark's measured
 *                               loop instead of timing it (see "Counting" in the implementation, and
 *                               docs/wire-format.md). Needs <valgrind/callgrind.h> at build time (found
 *                               with __has_include; without it instructions are not measured, and the
 *                               harness says what to install); RHO_BENCH_NO_VALGRIND leaves it out.
 *   RHO_BENCH_PERF_CONTROL      `W,R,NAME` (set by `rho bench --measure time --profile NAME`, POSIX
 *                               hosts only): the run is under `perf record -D -1 --control fd:..`,
 *                               W is perf's control pipe and R its acknowledgements; benchmark
 *                               NAME's measured loop turns sampling on at its first measured
 *                               iteration and off at its end (see "Sampling").
 *   RHO_BENCH_LOCKSTEP          `W,R,US` (set by `rho bench gate --lock-step`, POSIX hosts): this run and
 *                               the other side's take turns, US microseconds of measuring a turn;
 *                               W is the pipe the harness says it is ready on, R the one it is
 *                               told to go on (see "Lock-step").
 * Bare metal: the same names as compile-time defines (-DRHO_BENCH_ITERATIONS=500, ...), with
 * RHO_BENCH_MEASURE_INSTRUCTIONS (defined: count, under QEMU with rho's counting plugin; the
 * board's Makefile defines it for RHO_BENCH_MEASURE=instructions), RHO_BENCH_SCALE a floating
 * constant, RHO_BENCH_FILTER unquoted (-DRHO_BENCH_FILTER=crc,steady; no filter code without it; a `$`
 * anchor must get through the shell and make, which read it: rho passes a board terms without anchors
 * and keeps the names its filter matches); no per-benchmark override (RHO_BENCH_SET_BATCH(state, K) in the code
 * is the per-benchmark choice there). The time cap counts cycles and needs RHO_BENCH_CPU_HZ.
 *
 * Compile-time (both):
 *   RHO_BENCH_MAX_BENCHMARKS    suite capacity (default 64)
 *   RHO_BENCH_STACK_BYTES       hosted: size of the static stack region benchmarks run on
 *                               (default 65536; 0 compiles stack measurement out). Bare metal:
 *                               bytes painted below the stack pointer (default 2048); they must
 *                               exist in the board's RAM.
 *   RHO_BENCH_STACK_SLACK_BYTES hosted: the guard below the region (default 16384, rounded up to
 *                               whole pages): made inaccessible, so an overrun faults (see Stack).
 *   RHO_BENCH_STACK_GUARD_BYTES Cortex-M3/M4/M7: the MPU guard below the region (default 1024, a
 *                               power of two from 32); it must exist in RAM below the region.
 *   RHO_BENCH_NO_STACK_GUARD    no guard (no guard page, no MPU region, no fault handling): the
 *                               16-byte band alone, best effort (`stack_guard=none`).
 *   RHO_BENCH_SAMPLE_BUFFER     samples buffered between flushes (hosted 4096, bare metal 8)
 *   RHO_BENCH_OVERHEAD_ITERATIONS  measured iterations of `.overhead` (default 1000, whatever
 *                               RHO_BENCH_ITERATIONS says; its warm-ups are RHO_BENCH_WARMUP's)
 *   RHO_BENCH_BATCH_MAX         the largest batch the harness chooses by itself (default 1024)
 *   RHO_BENCH_YARDSTICK_ITERATIONS  iterations of the yardstick loop in each of its repetitions
 *                               (hosted 262144, about 1 ms; bare metal 4096); see "Yardstick"
 *   RHO_BENCH_YARDSTICK_REPETITIONS  repetitions of the yardstick loop (default 9)
 *   RHO_BENCH_CPU_HZ            bare metal: the core clock in Hz (0 = unknown)
 *   RHO_BENCH_TARGET            the target's name, unquoted (default cortex-m on bare metal,
 *                               host hosted; a cross build names its target, e.g. aarch64-linux)
 *   RHO_BENCH_BARE_METAL        1/0 to force the bare-metal/hosted path (default: bare metal
 *                               on an M-profile Arm core)
 *   RHO_BENCH_NO_UCONTEXT       hosted POSIX without getcontext/makecontext (e.g. musl): stack
 *                               measurement is off
 *   RHO_BENCH_SYSTICK_EXTERNAL  bare metal: the firmware owns SysTick and its handler (see Clocks)
 *
 * ---- Clocks --------------------------------------------------------------------------------
 *
 * Each iteration reads, in order: cpu start, time start, cycles start, BODY, cycles stop, time
 * stop, cpu stop (the clocks a target has). The cycle window is innermost; recording the sample and deciding whether to go on happen between
 * iterations, outside both windows, and so does writing out the sample buffer.
 *   x86-64:   cycles `tsc` (lfence;rdtsc;lfence at both ends), unit cycle, hz calibrated
 *             against CLOCK_MONOTONIC over ~20 ms. The TSC counts at a constant reference rate,
 *             not the core's current clock.
 *   aarch64:  cycles `cntvct` (isb;mrs cntvct_el0), unit tick, hz from cntfrq_el0.
 *   other hosted architectures: no cycle clock.
 *   hosted:   time `clock_gettime` (CLOCK_MONOTONIC), unit ns.
 *   Linux, macOS, FreeBSD: cpu `clock_thread_cputime` (CLOCK_THREAD_CPUTIME_ID), unit ns: the
 *             benchmark thread's CPU time, which does not advance while a neighbour has the core.
 *             It is read outside both windows (a call each end, around the time clock's reads),
 *             and `.overhead` calibrates it like the others. RHO_BENCH_NO_CPU_CLOCK leaves it out.
 *             A board has none, and prints none.
 *   Cortex-M: cycles `dwt` (DWT->CYCCNT, enabled through DEMCR.TRCENA, plus the lock-access key
 *             on a Cortex-M7). If the counter does not advance (QEMU reads 0, an ARMv6-M part has
 *             none) it falls back to `systick`, the 24-bit SysTick down-counter, which the
 *             harness takes: reload 0xFFFFFF on the core clock, its exception enabled, and the
 *             exception's handler `rho_bench_systick_handler` (defined here) counting the wraps,
 *             so a body of any length below 2^32 cycles is measured whole. The port's vector
 *             table must point SysTick (entry 15) at rho_bench_systick_handler, SysTick must be
 *             idle, and interrupts enabled (PRIMASK clear) outside the bodies; otherwise the
 *             harness says so (`rho: ...`) and rho_bench_main returns 2. A body that masks
 *             interrupts for a whole period or more loses wraps (one pended exception stands for
 *             all of them): such a body is measured short.
 *             RHO_BENCH_SYSTICK_EXTERNAL (define it when the firmware runs SysTick and owns its
 *             handler): the harness leaves SysTick as it is (an idle one is started with reload
 *             0xFFFFFF and no exception) and reads it with its reload value (on its external
 *             reference clock: unit=tick hz=0). It cannot count wraps, so it detects them
 *             (SysTick's COUNTFLAG): one wrap in an iteration is computed right if the body is
 *             shorter than a period, but the harness cannot know that, so every iteration that
 *             spanned a wrap is counted in `@end ... wrapped=N`, and the host reports the
 *             benchmark's cycle figures as not measured when N > 0. Keep bodies well below the
 *             period.
 *             The read is a call (rho_bench__cycles_now), part of the overhead `.overhead`
 *             measures; 32-bit counts, so a single body of 2^32 cycles or more (DWT or SysTick)
 *             is reported modulo 2^32.
 *             RHO_BENCH_PORT_CLOCK=NAME: a core with neither counter (the nRF51's Cortex-M0 has no
 *             DWT and no SysTick): the port supplies `int rho_bench_port_clock_start(void)` (0 when
 *             the counter runs) and `uint32_t rho_bench_port_clock_read(void)` (counting up at
 *             RHO_BENCH_CPU_HZ, wrapping at 2^32, e.g. a 32-bit timer captured); the stream names
 *             the clock NAME (`@clock cycles NAME unit=cycle`).
 *   RISC-V (bare metal, machine mode): cycles `mcycle` (its low 32 bits), unit cycle, hz
 *             RHO_BENCH_CPU_HZ.
 *             No time clock on bare metal; the host derives time from hz. Bare metal needs GNU C
 *             (gcc or clang) for its inline assembly.
 * Every `resolution=` is the smallest non-zero step seen between successive reads (the CPU clock's
 * is its declared step, clock_getres: its reads cost more than a step).
 *
 * ---- Preemption ----------------------------------------------------------------------------
 *
 * Linux: at each sample's end, with the CPU clock's stop, the harness reads the thread's count of
 * involuntary context switches (getrusage RUSAGE_THREAD, ru_nivcsw; one system call, outside every
 * window). A measured sample during which the count moved was interrupted: the scheduler gave the
 * core to another thread for a while, and the sample's wall-clock figures hold that while (its
 * CPU time does not). Such a sample is measured again (not committed: the next iteration takes its
 * place) when its CPU time is at most twice the least of the samples kept so far, so the
 * interruption made it long, not its body, and the benchmark has re-runs left: one per
 * RHO_BENCH_PREEMPTED_RERUNS (default 4; 0: none) measured samples asked for, so a machine that
 * interrupts every sample still finishes. Otherwise it is kept: a run again is not the same
 * iteration, and a body's rare heavy iteration (the likeliest to be interrupted, being the
 * longest; its CPU time says it is heavy) must stay in the mean and the tail (docs/wire-format.md,
 * "Preempted samples"). `@end ... preempted=K rerun=R` counts the kept and the re-run ones.
 * Warm-ups are not checked.
 * RHO_BENCH_NO_PREEMPTION_CHECK leaves it out.
 *
 * ---- Batches -------------------------------------------------------------------------------
 *
 * A body near the clock's step cannot be timed one iteration at a time: the reads around it cost
 * more than it does, and the sample is rounded to the step. So the harness sizes the samples.
 * The warm-ups are single iterations, and the harness keeps the least raw one (overhead
 * included) on the cycle clock (the time clock without one). `.overhead` is never batched; the
 * unit U is the larger of that clock's resolution and the least raw `.overhead` sample (the
 * cost of the reads). A body whose least warm-up is 16 U or more keeps one iteration a sample,
 * so its p95, p99 and max stay those of single iterations. A shorter one is timed in batches
 * of K iterations, K the smallest power of two that makes K * (least warm-up) at least 128 U
 * (at most RHO_BENCH_BATCH_MAX, and at most a 32nd of the iterations asked for, so a short
 * run keeps 32 samples). On an x86-64 VM (TSC step 49, an empty read 73 cycles) 16 U is about
 * 1200 cycles and 128 U about 9300, and the kernels of benches/compare read within 7% of Google
 * Benchmark's CPU time, single above 16 U and batched below (docs/statistics.md). Iterations
 * still count iterations: a sample of K is K of them, the measured samples are
 * ceil(iterations / K), so batching adds no run time. `@end ... batch=K` says K; the host divides
 * each sample, net of the overhead taken off once, by K. Zero warm-ups leave nothing to size
 * from: then a sample is one iteration unless K is forced.
 *
 *
 * The region is painted with 0xAA and the benchmark runs on it. Once its warm-ups are over, just
 * before the first measured iteration, the region below the harness's frame is painted again
 * (the benchmark's own frames above it are live and stay counted), and the heap peak and counts
 * restart: a one-time cost in the warm-ups (the dynamic linker resolving a symbol on its first
 * call, a table built on first use) is not the benchmark's figure. At the end the region is
 * scanned from its low end for the first byte no longer painted: used = top - that byte. The
 * lowest 16 bytes are never painted again: one of them written (at any time, set-up included)
 * means the region overran: `@stack overrun`, never a number (the largest figure is
 * RHO_BENCH_STACK_BYTES - 16).
 * A frame's unwritten bytes (padding, a buffer written in a few places) can jump over those 16
 * bytes, so where something can fault, a guard below the region catches what the paint cannot:
 *   hosted (ucontext): each benchmark runs on a static region right above guard pages
 *     (RHO_BENCH_STACK_SLACK_BYTES, mprotect PROT_NONE). A fault there (SIGSEGV or SIGBUS, taken
 *     on a static alternate signal stack) while a benchmark runs goes back to the harness;
 *     every other fault goes to the handler the program had (or the default action). The
 *     handlers and the protection are in place during rho_bench_main only.
 *   Cortex-M3/M4/M7 (ARMv7-M) with an MPU: a no-access MPU region (the highest-numbered, saved
 *     and restored) of RHO_BENCH_STACK_GUARD_BYTES right below the region. The port's vector
 *     table must point HardFault (entry 3; MemManage too, which the harness leaves disabled) at
 *     rho_bench_fault_handler (defined here), and define
 *     `void rho_bench_port_fault_handler(void)`, the port's own fault report, to which every
 *     fault that is not the guard's goes, the core's frame as it was (a weak default prints
 *     "rho: fault" and stops). The harness checks the vector, as it checks SysTick's, and goes
 *     without a guard otherwise.
 *   Cortex-M33 (ARMv8-M Main): the stack-limit register MSPLIM at the region's low end (saved and
 *     restored), `stack_guard=msplim`: a push or stack-pointer move below it faults (UsageFault
 *     STKOF, escalated to HardFault) instead of happening; the same vector and port handler.
 *   elsewhere (ARMv6-M has neither an MPU the harness uses nor a stack limit; RISC-V machine
 *     mode), or with RHO_BENCH_NO_STACK_GUARD: the 16 bytes alone, best effort.
 * A benchmark stopped by the guard is closed with the samples of the iterations that ended,
 * `@stack overrun` and `@end ... overran=1`; the suite goes on. What it left half done is not
 * undone (a lock it held inside a library stays held). On a board, an overrun while the harness
 * writes out its sample buffer is left to the port (the line being written would be cut in two).
 * Hosted, a deeper overrun than the guard (one frame larger than it, skipping it whole) is not
 * caught: size the region for the suite. Bare metal, the region is the RHO_BENCH_STACK_BYTES
 * below the stack pointer at the call. The figure includes the harness's own frames below the
 * benchmark (recording a sample; on bare metal also writing out the sample buffer, and with the
 * MPU guard the registers it keeps to come back to after a fault); the `.overhead` block's
 * figure shows that part.
 *
 * On bare metal, writing out the sample buffer runs below the benchmark too, so a benchmark
 * shallower than that reports the harness's own depth, the same as `.overhead`'s.
 *
 * ---- Output --------------------------------------------------------------------------------
 *
 * Hosted: the stream on stdout, handed on (fflush) at each benchmark's start and end, outside
 * the windows, so a host reading the pipe sees progress and knows which benchmark crashed;
 * diagnostics on stderr. Bare metal: everything through the port's hook (below); a diagnostic
 * is a `rho: ...` noise line, after which the stream stops without `@done`. Neither uses printf.
 *
 * ---- Bare metal ----------------------------------------------------------------------------
 *
 * The port supplies `void rho_bench_port_write(const char *bytes, unsigned long len)` (a UART,
 * semihosting, RTT, ...). No printf, no 64-bit division, 32-bit counters.
 */
#ifndef RHO_BENCH_H
#define RHO_BENCH_H

/* The implementation needs clock_gettime and ucontext, which a strict -std=c99 hides unless a
 * feature macro is defined before the first system header. */
#if defined(RHO_BENCH_IMPLEMENTATION) && (defined(__unix__) || defined(__APPLE__))
#if !defined(_XOPEN_SOURCE) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && \
    !defined(_DEFAULT_SOURCE)
#define _XOPEN_SOURCE 600
#endif
#if defined(__APPLE__) && !defined(_DARWIN_C_SOURCE)
#define _DARWIN_C_SOURCE 1
#endif
#endif

#include <stddef.h>
#include <stdint.h>

/* ==== Target detection ===================================================================== */

#ifndef RHO_BENCH_BARE_METAL
#if (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M') || defined(__ARM_ARCH_6M__) ||   \
    defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_BASE__) || \
    defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__) ||                       \
    (defined(__riscv) && !defined(__linux__) && !defined(__unix__) && !defined(__APPLE__))
#define RHO_BENCH_BARE_METAL 1
#else
#define RHO_BENCH_BARE_METAL 0
#endif
#endif

/* The counting loop (see "Counting"): hosted, chosen at run time (RHO_BENCH_MEASURE); on a board
 * compiled in by RHO_BENCH_MEASURE_INSTRUCTIONS, and then the only loop that runs. */
#if !RHO_BENCH_BARE_METAL || defined(RHO_BENCH_MEASURE_INSTRUCTIONS)
#define RHO_BENCH__COUNTS 1
#else
#define RHO_BENCH__COUNTS 0
#endif

#if RHO_BENCH_BARE_METAL
#define RHO_BENCH__HAS_CYCLES 1
#define RHO_BENCH__HAS_TIME 0
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define RHO_BENCH__HAS_CYCLES 1
#define RHO_BENCH__HAS_TIME 1
#else
#define RHO_BENCH__HAS_CYCLES 0
#define RHO_BENCH__HAS_TIME 1
#endif

/* Bare metal, the cycle counter is the core's own (DWT or SysTick on a Cortex-M), or one counting
 * up by itself: the port's (RHO_BENCH_PORT_CLOCK) or RISC-V's mcycle. */
#if RHO_BENCH_BARE_METAL && (defined(RHO_BENCH_PORT_CLOCK) || defined(__riscv))
#define RHO_BENCH__UP_COUNTER 1
#if defined(RHO_BENCH_SYSTICK_EXTERNAL)
#error "RHO_BENCH_SYSTICK_EXTERNAL is for a Cortex-M counting with SysTick, not with RHO_BENCH_PORT_CLOCK or mcycle"
#endif
#else
#define RHO_BENCH__UP_COUNTER 0
#endif

#if !RHO_BENCH_BARE_METAL && (defined(__unix__) || defined(__APPLE__))
#define RHO_BENCH__POSIX 1
#else
#define RHO_BENCH__POSIX 0
#endif

/* The thread's CPU time beside the wall clock (see "Clocks"): where CLOCK_THREAD_CPUTIME_ID is known
 * to exist. A board has no such clock and prints none. */
#if RHO_BENCH__POSIX && (defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)) && \
    !defined(RHO_BENCH_NO_CPU_CLOCK)
#define RHO_BENCH__HAS_CPU 1
#else
#define RHO_BENCH__HAS_CPU 0
#endif

/* Preempted samples (see "Preemption"): Linux counts a thread's involuntary context switches. */
#if RHO_BENCH__HAS_CPU && defined(__linux__) && !defined(RHO_BENCH_NO_PREEMPTION_CHECK)
#define RHO_BENCH__PREEMPTION 1
#else
#define RHO_BENCH__PREEMPTION 0
#endif

/* ==== Configuration defaults =============================================================== */

#ifndef RHO_BENCH_MAX_BENCHMARKS
#define RHO_BENCH_MAX_BENCHMARKS 64
#endif
#ifndef RHO_BENCH_ITERATIONS
#define RHO_BENCH_ITERATIONS 20000
#endif
#ifndef RHO_BENCH_WARMUP
#define RHO_BENCH_WARMUP 100
#endif
#ifndef RHO_BENCH_TIME_CAP_MS
#define RHO_BENCH_TIME_CAP_MS 5000
#endif
#ifndef RHO_BENCH_OVERHEAD_ITERATIONS
#define RHO_BENCH_OVERHEAD_ITERATIONS 1000
#endif
#ifndef RHO_BENCH_BATCH_MAX
#define RHO_BENCH_BATCH_MAX 1024
#endif
#ifndef RHO_BENCH_BATCH
#define RHO_BENCH_BATCH 0
#endif
#if RHO_BENCH_BARE_METAL
#ifndef RHO_BENCH_STACK_BYTES
#define RHO_BENCH_STACK_BYTES 2048
#endif
#ifndef RHO_BENCH_SAMPLE_BUFFER
#define RHO_BENCH_SAMPLE_BUFFER 8
#endif
#ifndef RHO_BENCH_CPU_HZ
#define RHO_BENCH_CPU_HZ 0
#endif
#else
#ifndef RHO_BENCH_STACK_BYTES
#define RHO_BENCH_STACK_BYTES 65536
#endif
#ifndef RHO_BENCH_SAMPLE_BUFFER
#define RHO_BENCH_SAMPLE_BUFFER 4096
#endif
#endif
#ifndef RHO_BENCH_STACK_SLACK_BYTES
#define RHO_BENCH_STACK_SLACK_BYTES 16384
#endif
#ifndef RHO_BENCH_YARDSTICK_ITERATIONS
#if RHO_BENCH_BARE_METAL
#define RHO_BENCH_YARDSTICK_ITERATIONS 4096
#else
#define RHO_BENCH_YARDSTICK_ITERATIONS 262144
#endif
#endif
#ifndef RHO_BENCH_YARDSTICK_REPETITIONS
#define RHO_BENCH_YARDSTICK_REPETITIONS 9
#endif
#if RHO_BENCH_YARDSTICK_ITERATIONS < 1 || RHO_BENCH_YARDSTICK_REPETITIONS < 1
#error "RHO_BENCH_YARDSTICK_ITERATIONS and RHO_BENCH_YARDSTICK_REPETITIONS must be at least 1"
#endif

#if RHO_BENCH_MAX_BENCHMARKS < 1
#error "RHO_BENCH_MAX_BENCHMARKS must be at least 1"
#endif
#if RHO_BENCH_SAMPLE_BUFFER < 1
#error "RHO_BENCH_SAMPLE_BUFFER must be at least 1"
#endif
#if RHO_BENCH_ITERATIONS < 1
#error "RHO_BENCH_ITERATIONS must be at least 1"
#endif
#if RHO_BENCH_BATCH_MAX < 1 || RHO_BENCH_BATCH < 0
#error "RHO_BENCH_BATCH_MAX must be at least 1, RHO_BENCH_BATCH at least 0"
#endif
#if RHO_BENCH_WARMUP < 0 || RHO_BENCH_TIME_CAP_MS < 0 || RHO_BENCH_STACK_BYTES < 0
#error "RHO_BENCH_WARMUP, RHO_BENCH_TIME_CAP_MS and RHO_BENCH_STACK_BYTES cannot be negative"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The hot path is forced inline: at -Os a compiler otherwise keeps one out-of-line copy of a
 * static inline function used in several places, and its call and return would sit inside the
 * measured window in the user's file but not in `.overhead`'s. */
#if defined(__GNUC__)
#define RHO_BENCH__NOINLINE __attribute__((noinline))
#define RHO_BENCH__ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define RHO_BENCH__NOINLINE
#define RHO_BENCH__ALWAYS_INLINE inline
#endif

/* ==== Types ================================================================================ */

/* A clock reading and every printed count: 32 bits on bare metal (the counters are 32-bit and
 * 64-bit division costs code), 64 bits hosted. */
#if RHO_BENCH_BARE_METAL
typedef uint32_t rho_bench__uint;
#else
typedef uint64_t rho_bench__uint;
#endif

/* A benchmark's state. Every field is the harness's. */
typedef struct rho_bench_state {
    rho_bench__uint cycles_start; /* start readings of the iteration in progress */
    rho_bench__uint time_start;
    rho_bench__uint cpu_start;
    /* The measured loop's CPU time: the process's, and this thread's, at its start; at its end,
     * other_cpu is what the process's other threads used during it (see "Clocks"). */
    rho_bench__uint process_cpu_start;
    rho_bench__uint thread_cpu_start;
    rho_bench__uint other_cpu;
    long switches;             /* involuntary context switches when the sample started */
    rho_bench__uint preempted; /* measured samples the scheduler interrupted, kept (see "Preemption") */
    rho_bench__uint rerun;     /* measured samples the scheduler interrupted, measured again */
    rho_bench__uint cpu_least; /* the least CPU time of a kept measured sample (0: none yet) */
    rho_bench__uint heap_live; /* RHO_BENCH_HEAP_ALLOC / RHO_BENCH_HEAP_FREE */
    rho_bench__uint heap_peak;
    rho_bench__uint heap_allocs;
    rho_bench__uint heap_frees;
    rho_bench__uint heap_free_errors;
    /* heap_allocs and heap_frees when the sample started: a sample measured again (see "Preemption")
     * takes its allocations and frees out of the counts, which cover the kept samples' iterations */
    rho_bench__uint heap_allocs_at_sample;
    rho_bench__uint heap_frees_at_sample;
#if RHO_BENCH__PREEMPTION
    /* heap_live and heap_peak when the sample started, and the bytes samples measured again left held:
     * a sample measured again leaves the peak as it found it, and the reported live and every later peak
     * leave its bytes out (a body that keeps what it allocates would otherwise read a re-run's bytes as
     * the kept iterations') */
    rho_bench__uint heap_live_at_sample;
    rho_bench__uint heap_peak_at_sample;
    rho_bench__uint heap_discount;
#endif
    const char *unit; /* RHO_BENCH_UNIT */
    rho_bench__uint per_iteration;
    const char *name;
    rho_bench__uint warmup_target; /* loop control, see rho_bench__step */
    rho_bench__uint warmup_done;
    rho_bench__uint measured_target;
    rho_bench__uint measured_done;
    rho_bench__uint cap_limit; /* in the unit of the clock that counts the cap; 0 = none */
    rho_bench__uint cap_used;
    int in_iteration; /* the start clocks of an iteration were read */
    int loops;        /* RHO_BENCH_LOOPs entered */
    int capped;
    rho_bench__uint wrapped; /* RHO_BENCH_SYSTICK_EXTERNAL: iterations SysTick wrapped during */
    int misuse; /* why the benchmark cannot be reported (RHO_BENCH__MISUSE_...), 0 if it can */
    /* Counting (instructions under Callgrind, see "Counting"): the loop reads no clock. */
    int counting;               /* this loop counts instead of timing */
    int count_measuring;        /* the measured iterations have started (collection is on) */
    rho_bench__uint count_left; /* iterations left before the next turn (rho_bench__count_turn) */
    uint64_t arg; /* RHO_BENCH_ARG: the argument it was added with (RHO_BENCH_ADD_ARG), else 0 */
    /* Batches (see "Batches"). */
    rho_bench__uint batch;        /* iterations a measured sample; 0 until sized */
    rho_bench__uint batch_forced; /* chosen by the environment or the code: 0 = size it */
    int batch_priority;           /* who chose batch_forced: 0 none, 1 RHO_BENCH_BATCH, 2 the
                                     code's RHO_BENCH_SET_BATCH(...), 3 RHO_BENCH_BATCH_<name> */
    rho_bench__uint batch_limit;  /* RHO_BENCH_LOOP_SETUP's capacity; 0 = none */
    rho_bench__uint single_min;   /* the least raw single-iteration sample of the sizing clock */
    rho_bench__uint next_batch;   /* iterations in the sample about to start */
} rho_bench_t;

/* Where RHO_BENCH_LOOP and RHO_BENCH_LOOP_SETUP are: a local of the loop, so the count of a
 * batch lives in a register, not in the state the body may make the compiler reload. */
typedef struct rho_bench__cursor {
    rho_bench_t *state;
    rho_bench__uint left; /* RHO_BENCH_LOOP: iterations of this sample still to run */
    size_t index;         /* RHO_BENCH_LOOP_SETUP: the input set up or timed */
    size_t count;         /* RHO_BENCH_LOOP_SETUP: inputs in this sample */
    int setup;            /* RHO_BENCH_LOOP_SETUP: 1 while setting up */
} rho_bench__cursor;

typedef void (*rho_bench_fn)(rho_bench_t *state);

/* The list of benchmarks, in the order added. `= {0}` is a valid empty suite. The entries array
 * is last, so the harness reads the same prefix whatever capacity a file was compiled with. */
typedef struct rho_bench_suite {
    unsigned count;
    unsigned dropped;
    unsigned refused; /* RHO_BENCH_ADD_RANGE / _ADD_ARG refused (see rho_bench__add_range) */
    struct {
        const char *name;
        rho_bench_fn fn;
        rho_bench__uint arg;   /* RHO_BENCH_ADD_ARG's argument (32 bits on bare metal) */
        unsigned char has_arg; /* 1: a member of family `name`, reported as name/arg */
    } entries[RHO_BENCH_MAX_BENCHMARKS];
} rho_bench_suite_t;

/* ==== The harness's functions (defined in the implementation) ============================== */

int rho_bench_main(rho_bench_suite_t *suite, int argc, char **argv);

/* Records the sample of the iteration that just ended (if one did), decides whether another
 * iteration runs (returns 1) or the loop is over (returns 0). Not inline on purpose: it runs
 * between the stop and start reads, and its body must not be scheduled into the windows. */
int rho_bench__step(rho_bench_t *state, rho_bench__uint cycles_stop, rho_bench__uint time_stop);
rho_bench_t *rho_bench__loop_begin(rho_bench_t *state);
rho_bench_t *rho_bench__setup_begin(rho_bench_t *state, size_t capacity);
#if RHO_BENCH__COUNTS
/* The counting loop's step (see "Counting"): the same few instructions every iteration. */
int rho_bench__count_next(rho_bench_t *state);
#endif
void rho_bench__report_drop(const char *name, unsigned capacity);
void rho_bench__report_refused(const char *name, const char *why);

#if RHO_BENCH_BARE_METAL
/* Supplied by the board port: write len bytes of the stream to the host. */
void rho_bench_port_write(const char *bytes, unsigned long len);
/* The chosen cycle counter, read (DWT->CYCCNT, or SysTick made to count up with its wraps). Not
 * inline: one short call in every benchmark's loop instead of the wrap-safe read inlined. */
uint32_t rho_bench__cycles_now(void);
#if defined(RHO_BENCH_PORT_HEAP_RESET)
/* Supplied by the board port with RHO_BENCH_PORT_HEAP_RESET (the built-in boards' counted build,
 * c/ports/common/heap.c): called as each benchmark begins, it puts the allocator back in the state
 * it had when the first one began, so that a benchmark's count does not depend on what ran before
 * it (--filter, --shard and the whole suite give the same count). */
void rho_bench_port_heap_reset(void);
#endif
#if defined(RHO_BENCH_PORT_CLOCK)
/* Supplied by the board port with RHO_BENCH_PORT_CLOCK (see "Clocks"): start the counter (0 when it
 * runs), and read it, counting up at RHO_BENCH_CPU_HZ and wrapping at 2^32. */
int rho_bench_port_clock_start(void);
uint32_t rho_bench_port_clock_read(void);
#endif
#if !RHO_BENCH__UP_COUNTER && !defined(RHO_BENCH_SYSTICK_EXTERNAL)
/* The SysTick exception handler the port's vector table must point at (see "Clocks"). */
void rho_bench_systick_handler(void);
#endif
#endif
#if RHO_BENCH__HAS_TIME
/* CLOCK_MONOTONIC in ns (or the best the platform offers). Not inline: the user's file need not
 * see the POSIX declarations. */
rho_bench__uint rho_bench__time_now(void);
#endif
#if RHO_BENCH__HAS_CPU
/* CLOCK_THREAD_CPUTIME_ID in ns. Not inline, as the time clock's. */
rho_bench__uint rho_bench__cpu_now(void);
#endif

/* ==== Clock reads: the hot path ============================================================ */

#if RHO_BENCH_BARE_METAL

static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_start(void)
{
    rho_bench__uint value = rho_bench__cycles_now();
    __asm__ __volatile__("" : : : "memory");
    return value;
}
static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_stop(void)
{
    __asm__ __volatile__("" : : : "memory");
    return rho_bench__cycles_now();
}

#elif RHO_BENCH__HAS_CYCLES && defined(__x86_64__)

/* lfence before rdtsc: earlier instructions have finished; after: the body has not started. */
static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_start(void)
{
    uint32_t low, high;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(low), "=d"(high) : : "memory");
    return ((rho_bench__uint)high << 32) | low;
}
/* The same fences at the stop: the body has finished before rdtsc, and nothing after it starts
 * early. (rdtscp;lfence measures the same here, but some virtual machines hide rdtscp.) */
static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_stop(void)
{
    uint32_t low, high;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(low), "=d"(high) : : "memory");
    return ((rho_bench__uint)high << 32) | low;
}

#elif RHO_BENCH__HAS_CYCLES && defined(__aarch64__)

static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_start(void)
{
    rho_bench__uint value;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(value) : : "memory");
    return value;
}
static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__cycles_stop(void)
{
    rho_bench__uint value;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(value) : : "memory");
    return value;
}

#endif

/* The clock reads around a sample: stop (cycles innermost) and start (time outermost). */
#if RHO_BENCH__HAS_CYCLES
#define RHO_BENCH__CYCLES_STOP() rho_bench__cycles_stop()
#define RHO_BENCH__CYCLES_START(state) ((state)->cycles_start = rho_bench__cycles_start())
#else
#define RHO_BENCH__CYCLES_STOP() ((rho_bench__uint)0)
#define RHO_BENCH__CYCLES_START(state) ((void)0)
#endif
#if RHO_BENCH__HAS_TIME
#define RHO_BENCH__TIME_STOP() rho_bench__time_now()
#define RHO_BENCH__TIME_START(state) ((state)->time_start = rho_bench__time_now())
#else
#define RHO_BENCH__TIME_STOP() ((rho_bench__uint)0)
#define RHO_BENCH__TIME_START(state) ((void)0)
#endif
/* The CPU window encloses the other two: its reads (a system call on Linux) stay out of them. Its
 * stop is read first thing in rho_bench__step. */
#if RHO_BENCH__HAS_CPU
#define RHO_BENCH__CPU_START(state) ((state)->cpu_start = rho_bench__cpu_now())
#else
#define RHO_BENCH__CPU_START(state) ((void)0)
#endif

/* A board's counted build (RHO_BENCH_MEASURE_INSTRUCTIONS) marks with no-op instructions (Thumb
 * moves of a high register to itself; RISC-V `addi x0, x0, N`, a HINT) where each iteration's body
 * begins and ends, and where a benchmark's measured loop begins and ends, and records each marker's
 * ADDRESS and kind in the section `.rho_marks` (two 32-bit words an entry; kinds 1 body begins, 2
 * body ends, 3 loop begins, 4 loop ends). rho's QEMU plugin (c/qemu/rho_count_plugin.c) reads that
 * section from the image and knows a marker by its address, never by its encoding: a body may hold
 * the very same instructions (RV32C `c.li a3, 18` is Thumb's `mov r9, r9`) and they are counted as
 * any other. The plugin counts the instructions executed between a body's two markers, the markers
 * not included, sums them over the measured loop and writes the sum at its end: the body's own
 * count, whatever branches the compiler laid around it (a loop's edges differ with the body's size
 * and the core: a branch across 3000 nops is relaxed to two instructions on RISC-V and the
 * Cortex-M0). The section is kept by its flag ("R", SHF_GNU_RETAIN, GNU as 2.36 or later:
 * --gc-sections leaves it, and what it names, in the counted image) and not loaded (no "a").
 * Elsewhere the markers are nothing. */
#define RHO_BENCH__MARK_AT(insn, kind)                                                          \
    __asm__ __volatile__("1: " insn "\n\t.pushsection .rho_marks,\"R\",%%progbits\n\t.balign 4\n\t" \
                         ".4byte 1b, " #kind "\n\t.popsection" ::: "memory")
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_MEASURE_INSTRUCTIONS) && defined(__riscv)
#define RHO_BENCH__BODY_BEGINS() RHO_BENCH__MARK_AT(".insn i 0x13, 0, x0, x0, 0x521", 1)
#define RHO_BENCH__BODY_ENDS() RHO_BENCH__MARK_AT(".insn i 0x13, 0, x0, x0, 0x522", 2)
#define RHO_BENCH__LOOP_BEGINS() RHO_BENCH__MARK_AT(".insn i 0x13, 0, x0, x0, 0x523", 3)
#define RHO_BENCH__LOOP_ENDS() RHO_BENCH__MARK_AT(".insn i 0x13, 0, x0, x0, 0x524", 4)
#elif RHO_BENCH_BARE_METAL && defined(RHO_BENCH_MEASURE_INSTRUCTIONS)
#define RHO_BENCH__BODY_BEGINS() RHO_BENCH__MARK_AT("mov r11, r11", 1)
#define RHO_BENCH__BODY_ENDS() RHO_BENCH__MARK_AT("mov r10, r10", 2)
#define RHO_BENCH__LOOP_BEGINS() RHO_BENCH__MARK_AT("mov r9, r9", 3)
#define RHO_BENCH__LOOP_ENDS() RHO_BENCH__MARK_AT("mov r12, r12", 4)
#else
#define RHO_BENCH__BODY_BEGINS() ((void)0)
#define RHO_BENCH__BODY_ENDS() ((void)0)
#endif

/* The for statement's third clause, run after every body: the end marker (an expression). */
static RHO_BENCH__ALWAYS_INLINE void rho_bench__body_ends(void)
{
    RHO_BENCH__BODY_ENDS();
}

/* Ends the sample in progress: stop clocks, record and decide (not inline). 1 when another
 * sample runs. */
static RHO_BENCH__ALWAYS_INLINE int rho_bench__sample_over(rho_bench_t *state)
{
    rho_bench__uint cycles_stop = RHO_BENCH__CYCLES_STOP();
    rho_bench__uint time_stop = RHO_BENCH__TIME_STOP();
    return rho_bench__step(state, cycles_stop, time_stop);
}

/* One step of RHO_BENCH_LOOP: inside a batch, count down; at its end, stop clocks, record and
 * decide, then the start clocks (time outermost). */
static RHO_BENCH__ALWAYS_INLINE int rho_bench__next(rho_bench__cursor *cursor)
{
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_MEASURE_INSTRUCTIONS)
    /* A board's counted build counts and nothing else: no batch, no clock. */
    if (rho_bench__count_next(cursor->state)) {
        RHO_BENCH__BODY_BEGINS();
        return 1;
    }
    return 0;
#else
    if (cursor->left != 0) {
        cursor->left--;
        return 1;
    }
#if RHO_BENCH__COUNTS
    /* Counting: no clock is read (a clock read's own instructions vary); a timed loop pays one
     * predictable branch here, which `.overhead` pays too. */
    if (cursor->state->counting) {
        return rho_bench__count_next(cursor->state);
    }
#endif
    if (!rho_bench__sample_over(cursor->state)) {
        return 0;
    }
    cursor->left = cursor->state->next_batch - 1;
    RHO_BENCH__CPU_START(cursor->state);
    RHO_BENCH__TIME_START(cursor->state);
    RHO_BENCH__CYCLES_START(cursor->state);
    return 1;
#endif
}

/* One step of RHO_BENCH_LOOP_SETUP: the K setups with the clocks stopped, then the K bodies
 * between the start and stop reads. */
static RHO_BENCH__ALWAYS_INLINE int rho_bench__next_setup(rho_bench__cursor *cursor)
{
    if (++cursor->index < cursor->count) {
        return 1;
    }
    cursor->index = 0;
    if (cursor->setup) {
        cursor->setup = 0;
        RHO_BENCH__CPU_START(cursor->state);
        RHO_BENCH__TIME_START(cursor->state);
        RHO_BENCH__CYCLES_START(cursor->state);
        RHO_BENCH__BODY_BEGINS(); /* counted: the timed part after the setup's */
        return 1;
    }
#if RHO_BENCH__COUNTS
    /* Counting: one input a turn, and Callgrind counts the setup with the body (see "Counting"). */
    if (cursor->state->counting) {
        cursor->setup = 1;
        cursor->count = 1;
        if (rho_bench__count_next(cursor->state)) {
            RHO_BENCH__BODY_BEGINS(); /* a board counts the setup with the body, as Callgrind */
            return 1;
        }
        return 0;
    }
#endif
    if (!rho_bench__sample_over(cursor->state)) {
        return 0;
    }
    cursor->setup = 1;
    cursor->count = (size_t)cursor->state->next_batch;
    return 1;
}

/* ==== Public macros ======================================================================== */

#define RHO_BENCH_LOOP(state)                                                              \
    for (rho_bench__cursor rho_bench__loop_cursor = {rho_bench__loop_begin(state), 0, 0, 0, 0}; \
         rho_bench__next(&rho_bench__loop_cursor); rho_bench__body_ends())

/* The setup block runs while `rho_bench__loop_cursor.setup` is 1; RHO_BENCH_TIMED is its else. */
#define RHO_BENCH_LOOP_SETUP(state, input, capacity)                                        \
    for (rho_bench__cursor rho_bench__loop_cursor = {                                      \
             rho_bench__setup_begin((state), (size_t)(capacity)), 0, 0, 0, 0};              \
         rho_bench__next_setup(&rho_bench__loop_cursor); rho_bench__body_ends())            \
        for (size_t input = rho_bench__loop_cursor.index, rho_bench__once = 1; rho_bench__once; \
             rho_bench__once = 0)                                                           \
            if (rho_bench__loop_cursor.setup)
#define RHO_BENCH_TIMED else

#define RHO_BENCH_SET_BATCH(state, iterations) \
    rho_bench__set_batch((state), (rho_bench__uint)(iterations))

#define RHO_BENCH_ADD(suite, fn) rho_bench__add((suite), #fn, (fn), 0, 0)

/* A family: fn run once per argument, each reported as "fn/arg" (docs/wire-format.md). */
#define RHO_BENCH_ADD_ARG(suite, fn, arg) rho_bench__add((suite), #fn, (fn), (arg), 1)
#define RHO_BENCH_ADD_RANGE(suite, fn, lo, hi, multiplier) \
    rho_bench__add_range((suite), #fn, (fn), (lo), (hi), (multiplier))
#define RHO_BENCH_ARG(state) ((uint64_t)(state)->arg)

#define RHO_BENCH_UNIT(state, unit, per_iteration) \
    rho_bench__set_unit((state), (unit), (per_iteration))

#define RHO_BENCH_HEAP_ALLOC(state, ptr, bytes) \
    rho_bench__heap_alloc((state), (ptr) != 0, (bytes))

#define RHO_BENCH_HEAP_FREE(state, ptr, bytes) rho_bench__heap_free((state), (ptr) != 0, (bytes))

#if defined(__GNUC__)
/* The copy gives the asm one operand of the value's own type, evaluated once. The constraint
 * lets the compiler pass it where it already is: a general register, memory, or (x86 with SSE,
 * Arm with an FPU) a floating-point register, so a float costs no move into the window. ("X"
 * would let the compiler skip computing it.) "memory" makes the compiler assume any memory
 * reachable from an escaped pointer changed, so work on a buffer is not hoisted out of the loop. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#define RHO_BENCH__KEEP_WHERE "rxm"
#elif defined(__arm__) && defined(__ARM_FP)
#define RHO_BENCH__KEEP_WHERE "rwm"
#else
#define RHO_BENCH__KEEP_WHERE "r,m"
#endif
/* The copy's type is the value's after decay: an array becomes a pointer to its first element
 * (`__typeof__(1 ? (v) : (v))` in C, `auto` in C++; neither evaluates `value` a second time), so
 * RHO_BENCH_KEEP(buffer) keeps the buffer's address, and through "memory" its contents. */
#ifdef __cplusplus
#define RHO_BENCH__KEPT(value) auto rho_bench__kept = (value)
#else
#define RHO_BENCH__KEPT(value) __typeof__(1 ? (value) : (value)) rho_bench__kept = (value)
#endif
#define RHO_BENCH_KEEP(value)                                                            \
    do {                                                                                 \
        RHO_BENCH__KEPT(value);                                                          \
        __asm__ __volatile__("" : : RHO_BENCH__KEEP_WHERE(rho_bench__kept) : "memory"); \
    } while (0)
#else
/* No portable way to say "used" without GNU asm: the value is evaluated once, nothing more. */
#define RHO_BENCH_KEEP(value) ((void)(value))
#endif

static inline void rho_bench__add(rho_bench_suite_t *suite, const char *name, rho_bench_fn fn,
                                  uint64_t arg, int has_arg)
{
    if (arg != (rho_bench__uint)arg) {
        suite->refused++; /* bare metal: the harness's numbers are 32-bit */
        rho_bench__report_refused(name, "RHO_BENCH_ADD_ARG: above 2^32-1 on bare metal");
    } else if (suite->count < RHO_BENCH_MAX_BENCHMARKS) {
        suite->entries[suite->count].name = name;
        suite->entries[suite->count].fn = fn;
        suite->entries[suite->count].arg = (rho_bench__uint)arg;
        suite->entries[suite->count].has_arg = (unsigned char)has_arg;
        suite->count++;
    } else {
        suite->dropped++;
        rho_bench__report_drop(name, RHO_BENCH_MAX_BENCHMARKS);
    }
}

/* lo, lo*m, lo*m^2, ... while below hi, then hi (lo 0 is followed by 1). A range that cannot be
 * walked (lo > hi, a multiplier below 2) adds nothing and is a misuse: rho_bench_main says so and
 * returns 2. */
static inline void rho_bench__add_range(rho_bench_suite_t *suite, const char *name, rho_bench_fn fn,
                                        uint64_t lo, uint64_t hi, uint64_t multiplier)
{
    uint64_t arg = lo;
    if (lo > hi || multiplier < 2) {
        suite->refused++;
        rho_bench__report_refused(name, "RHO_BENCH_ADD_RANGE: expected lo <= hi and a multiplier >= 2");
        return;
    }
    while (arg < hi) {
        rho_bench__add(suite, name, fn, arg, 1);
        arg = arg == 0 ? 1 : arg > hi / multiplier ? hi : arg * multiplier;
    }
    rho_bench__add(suite, name, fn, hi, 1);
}

static RHO_BENCH__ALWAYS_INLINE void rho_bench__set_unit(rho_bench_t *state, const char *unit,
                                       rho_bench__uint per_iteration)
{
    state->unit = unit;
    state->per_iteration = per_iteration;
}

static RHO_BENCH__ALWAYS_INLINE void rho_bench__set_batch(rho_bench_t *state,
                                                         rho_bench__uint iterations)
{
    if (state->batch_priority < 2) { /* RHO_BENCH_BATCH_<name> outranks the code */
        state->batch_forced = iterations;
        state->batch_priority = 2;
    }
}

/* The bytes the kept samples' iterations hold: heap_live less what samples measured again left held. */
static RHO_BENCH__ALWAYS_INLINE rho_bench__uint rho_bench__heap_held(const rho_bench_t *state)
{
#if RHO_BENCH__PREEMPTION
    return state->heap_live > state->heap_discount ? state->heap_live - state->heap_discount : 0u;
#else
    return state->heap_live;
#endif
}

static RHO_BENCH__ALWAYS_INLINE void rho_bench__heap_alloc(rho_bench_t *state, int counted, size_t bytes)
{
    if (counted) {
        rho_bench__uint held;
        state->heap_live += (rho_bench__uint)bytes;
        held = rho_bench__heap_held(state);
        if (held > state->heap_peak) {
            state->heap_peak = held;
        }
        state->heap_allocs++;
    }
}

static RHO_BENCH__ALWAYS_INLINE void rho_bench__heap_free(rho_bench_t *state, int counted, size_t bytes)
{
    if (counted) {
        if ((rho_bench__uint)bytes > state->heap_live) {
            state->heap_free_errors++; /* freeing more than is live: report, do not wrap */
        } else {
            state->heap_live -= (rho_bench__uint)bytes;
            state->heap_frees++;
        }
    }
}

#ifdef __cplusplus
}
#endif

#endif /* RHO_BENCH_H */

/* ========================================================================================== */
/* ==== Implementation: compiled where RHO_BENCH_IMPLEMENTATION is defined ================== */
/* ========================================================================================== */

#if defined(RHO_BENCH_IMPLEMENTATION) && !defined(RHO_BENCH__IMPLEMENTED)
#define RHO_BENCH__IMPLEMENTED

#include <stdarg.h>

/* An all-zero initialiser: `{0}` in C; in C++ `{}`, since `{0}` there draws -Wmissing-field-initializers. */
#ifdef __cplusplus
#define RHO_BENCH__ZERO_INIT {}
#else
#define RHO_BENCH__ZERO_INIT {0}
#endif

#if !RHO_BENCH_BARE_METAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#if RHO_BENCH__POSIX
#include <time.h>
#if RHO_BENCH_STACK_BYTES > 0 && !defined(RHO_BENCH_NO_UCONTEXT)
#include <ucontext.h>
#define RHO_BENCH__UCONTEXT 1
#if !defined(RHO_BENCH_NO_STACK_GUARD)
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#define RHO_BENCH__PAGE_GUARD 1
#endif
#endif
#else
#include <time.h>
#endif
#endif
#ifndef RHO_BENCH__UCONTEXT
#define RHO_BENCH__UCONTEXT 0
#endif
#ifndef RHO_BENCH__PAGE_GUARD
#define RHO_BENCH__PAGE_GUARD 0
#endif
/* The core catches an overrun below the painted region: on a Cortex-M3/M4/M7 (ARMv7-M) an MPU
 * region; on a Cortex-M33 (ARMv8-M Main) the stack-limit register MSPLIM (RHO_BENCH__SPLIM). Both
 * take the same way back from the fault (RHO_BENCH__MPU_GUARD covers both). */
#if RHO_BENCH_BARE_METAL && RHO_BENCH_STACK_BYTES > 0 && !defined(RHO_BENCH_NO_STACK_GUARD) && \
    (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) ||   \
     defined(__ARM_ARCH_8_1M_MAIN__))
#define RHO_BENCH__MPU_GUARD 1
#else
#define RHO_BENCH__MPU_GUARD 0
#endif
#if RHO_BENCH__MPU_GUARD && (defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__))
#define RHO_BENCH__SPLIM 1
#else
#define RHO_BENCH__SPLIM 0
#endif
/* A guard can stop a benchmark in the middle of an iteration. */
#define RHO_BENCH__GUARDED (RHO_BENCH__PAGE_GUARD || RHO_BENCH__MPU_GUARD)

/* Counting instructions needs Valgrind's client requests (<valgrind/callgrind.h>, in Debian's
 * `valgrind` package). Without them the header still builds, and instructions are not measured. */
#if !RHO_BENCH_BARE_METAL && !defined(RHO_BENCH_NO_VALGRIND) && defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define RHO_BENCH__CALLGRIND 1
#endif
#endif
#ifndef RHO_BENCH__CALLGRIND
#define RHO_BENCH__CALLGRIND 0
#endif

/* Variadic, so that a define holding commas (-DRHO_BENCH_FILTER=crc,steady) is one string. */
#define RHO_BENCH__STR2(...) #__VA_ARGS__
#define RHO_BENCH__STR(...) RHO_BENCH__STR2(__VA_ARGS__)
#define RHO_BENCH__NAME_MAX 63
#define RHO_BENCH__NCLOCKS (RHO_BENCH__HAS_CYCLES + RHO_BENCH__HAS_TIME + RHO_BENCH__HAS_CPU)

/* ---- What went wrong, when something did -------------------------------------------------- */

enum {
    RHO_BENCH__MISUSE_NONE = 0,
    RHO_BENCH__MISUSE_TWO_LOOPS
};

/* ---- Static state (no allocation anywhere) ----------------------------------------------- */

/* The samples not yet written out: [cycles][time][cpu] per sample, in @clock order. */
static rho_bench__uint rho_bench__samples[RHO_BENCH_SAMPLE_BUFFER][RHO_BENCH__NCLOCKS];
static unsigned rho_bench__sample_count;
#if RHO_BENCH__GUARDED
/* Samples of the current block already written out (a benchmark stopped by a fault is closed
 * with the samples it has, see rho_bench__run_one). */
static rho_bench__uint rho_bench__block_samples;
/* The benchmark was stopped by a fault on the guard: its iteration in progress never ended. */
static int rho_bench__stopped;
#else
#define rho_bench__stopped 0
#endif

#if RHO_BENCH__UP_COUNTER
#elif RHO_BENCH_BARE_METAL
static uint32_t rho_bench__systick_period; /* 0: the counter is DWT->CYCCNT */
#if defined(RHO_BENCH_SYSTICK_EXTERNAL)
static int rho_bench__systick_wrapped; /* a read saw COUNTFLAG: the counter wrapped */
#else
static volatile uint32_t rho_bench__systick_wraps; /* SysTick exceptions: wraps of the counter */
#endif
#else
static int rho_bench__output_failed;
#endif

/* ---- Output ------------------------------------------------------------------------------ */

/* Where a line goes: the stream, or a diagnostic for a person. Hosted, stdout and stderr. On bare
 * metal there is one channel: a diagnostic is a noise line in the stream (the host skips it, and
 * then reports the stream as truncated, because after a diagnostic the harness stops). */
#define RHO_BENCH__STREAM 0
#define RHO_BENCH__DIAGNOSTIC 1

#if RHO_BENCH_BARE_METAL
/* One channel, so the channel is dropped at compile time: an argument less in every call is code
 * size on a board. */
#define RHO_BENCH__EMIT(channel, bytes, len) rho_bench_port_write((bytes), (unsigned long)(len))
#else
#define RHO_BENCH__EMIT(channel, bytes, len) rho_bench__emit((channel), (bytes), (len))
static void rho_bench__emit(int channel, const char *bytes, size_t len)
{
    if (channel == RHO_BENCH__DIAGNOSTIC) {
        (void)fwrite(bytes, 1, len, stderr);
    } else if (fwrite(bytes, 1, len, stdout) != len) {
        rho_bench__output_failed = 1;
    }
}
#endif

/* Hosted: hand the stream to the host at each benchmark's start and end. stdio would otherwise
 * hold back up to a buffer of it, so a host reading the pipe could not tell which benchmark
 * crashed or hung, nor show progress. Called outside every measured window. */
static void rho_bench__emit_flush(void)
{
#if !RHO_BENCH_BARE_METAL
    if (fflush(stdout) != 0) {
        rho_bench__output_failed = 1;
    }
#endif
}

#if RHO_BENCH_BARE_METAL
#define RHO_BENCH__WRITER_BYTES 48
#else
#define RHO_BENCH__WRITER_BYTES 256
#endif

/* A small buffer that writes itself out when full, so a long line needs no long buffer. */
typedef struct {
    char bytes[RHO_BENCH__WRITER_BYTES];
    unsigned len;
#if !RHO_BENCH_BARE_METAL
    int channel;
#endif
} rho_bench__writer;

static void rho_bench__w_flush(rho_bench__writer *w)
{
    if (w->len > 0) {
        RHO_BENCH__EMIT(w->channel, w->bytes, w->len);
        w->len = 0;
    }
}

static void rho_bench__w_char(rho_bench__writer *w, char c)
{
    if (w->len == sizeof w->bytes) {
        rho_bench__w_flush(w);
    }
    w->bytes[w->len++] = c;
}

/* Writes value in decimal at out (room for 20 characters); returns how many it wrote. Counts the
 * digits first, then writes them from the last: no scratch buffer to reverse. */
static unsigned rho_bench__decimal(char *out, rho_bench__uint value)
{
    unsigned n = 0, i;
    rho_bench__uint rest = value;
    do {
        n++;
        rest /= 10u;
    } while (rest != 0);
    for (i = n; i-- > 0; value /= 10u) {
        out[i] = (char)('0' + (int)(value % 10u));
    }
    return n;
}

static int rho_bench__name_char(char c)
{
    return (unsigned)((c | 0x20) - 'a') < 26u || (unsigned)(c - '0') < 10u || c == '_' ||
           c == '.' || c == ':' || c == '+' || c == '-';
}

/* 1 to 63 bytes of [A-Za-z0-9_.:+-] (the wire format's names). */
static int rho_bench__valid_name(const char *name)
{
    unsigned n = 0;
    if (name == 0) {
        return 0;
    }
    while (name[n] != '\0') {
        if (!rho_bench__name_char(name[n]) || n >= RHO_BENCH__NAME_MAX) {
            return 0;
        }
        n++;
    }
    return n > 0;
}

/* One whole write: the format's text, with `%u` replaced by the next argument, which must be a
 * rho_bench__uint (use RHO_BENCH__U), `%s` by a string, and `%n` by a string written as a name
 * (runs of other characters become one '-', none at either end, at most 59 bytes). Not printf:
 * no printf on a board, and records are few enough to cost a call each. */
#define RHO_BENCH__U(value) ((rho_bench__uint)(value))

#if RHO_BENCH_BARE_METAL
#define RHO_BENCH__PRINT(channel, ...) rho_bench__print(__VA_ARGS__)
static void rho_bench__print(const char *format, ...)
#else
#define RHO_BENCH__PRINT(channel, ...) rho_bench__print((channel), __VA_ARGS__)
static void rho_bench__print(int channel, const char *format, ...)
#endif
{
    rho_bench__writer w;
    va_list args;
    w.len = 0;
#if !RHO_BENCH_BARE_METAL
    w.channel = channel;
#endif
    va_start(args, format);
    for (; *format != '\0'; format++) {
        if (*format != '%') {
            rho_bench__w_char(&w, *format);
            continue;
        }
        format++;
        {
            /* A number is written as its digits' text: one copying loop for every conversion. */
            char digits[21];
            const char *text = digits;
            int dash = 0;
            unsigned written = 0;
            if (*format == 'u') {
                digits[rho_bench__decimal(digits, va_arg(args, rho_bench__uint))] = '\0';
            } else {
                text = va_arg(args, const char *);
            }
            for (; *text != '\0'; text++) {
                if (*format != 'n') {
                    rho_bench__w_char(&w, *text);
                } else if (!rho_bench__name_char(*text)) {
                    dash = written > 0;
                } else if (written + (unsigned)dash < RHO_BENCH__NAME_MAX - 4) {
                    if (dash) {
                        rho_bench__w_char(&w, '-');
                        written++;
                    }
                    rho_bench__w_char(&w, *text);
                    written++;
                    dash = 0;
                }
            }
        }
    }
    va_end(args);
    rho_bench__w_flush(&w);
}

void rho_bench__report_drop(const char *name, unsigned capacity)
{
    RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC, "rho: suite full (%u): dropping %s\n",
                     RHO_BENCH__U(capacity), name);
}

void rho_bench__report_refused(const char *name, const char *why)
{
    RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC, "rho: %s: %s\n", name, why);
}

/* ---- Families: "name/arg" ---------------------------------------------------------------- */

/* A family member's printed name, "name/arg" (at most 63 + 1 + 20 bytes), written at out;
 * returns where the argument's digits start in it. On bare metal the argument has been checked to
 * fit the harness's 32-bit numbers (rho_bench__add refuses a larger one). */
#define RHO_BENCH__FULL_NAME_MAX (RHO_BENCH__NAME_MAX + 22)

static char *rho_bench__member_name(char *out, const char *name, rho_bench__uint arg)
{
    unsigned n = 0;
    while (*name != '\0' && n < RHO_BENCH__NAME_MAX) {
        out[n++] = *name++;
    }
    out[n++] = '/';
    out[n + rho_bench__decimal(out + n, arg)] = '\0';
    return out + n;
}

/* "rho: <who><what> "<value>" is not a name (1 to 63 of [A-Za-z0-9_.:+-])" */
static void rho_bench__bad_name(const char *who, const char *what, const char *value)
{
    RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                     "rho: %s%s \"%s\" is not a name (1 to 63 of [A-Za-z0-9_.:+-])\n", who, what,
                     value != 0 ? value : "(null)");
}

/* ---- Clocks ------------------------------------------------------------------------------ */

#if RHO_BENCH__HAS_TIME
#if RHO_BENCH__POSIX
RHO_BENCH__NOINLINE rho_bench__uint rho_bench__time_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (rho_bench__uint)now.tv_sec * 1000000000u + (rho_bench__uint)now.tv_nsec;
}
#define RHO_BENCH__TIME_NAME "clock_gettime"
#else
/* Not POSIX: C's clock() (processor time), converted to ns. Coarse, and says so through its
 * measured resolution. */
RHO_BENCH__NOINLINE rho_bench__uint rho_bench__time_now(void)
{
    return (rho_bench__uint)((double)clock() * (1e9 / (double)CLOCKS_PER_SEC));
}
#define RHO_BENCH__TIME_NAME "clock"
#endif
#endif

#if RHO_BENCH__HAS_CPU
RHO_BENCH__NOINLINE rho_bench__uint rho_bench__cpu_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (rho_bench__uint)now.tv_sec * 1000000000u + (rho_bench__uint)now.tv_nsec;
}

static rho_bench__uint rho_bench__process_cpu_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (rho_bench__uint)now.tv_sec * 1000000000u + (rho_bench__uint)now.tv_nsec;
}

/* The measured loop starts: the thread's and the process's CPU time. The thread's is read first here
 * and last at the end, so the process's interval lies within the thread's: on one thread the
 * difference is 0 whatever an interrupt between two reads adds (read the other way round, one landing
 * between the start reads made a single-threaded 126 us benchmark look as if other threads had run). */
static void rho_bench__other_cpu_starts(rho_bench_t *state)
{
    state->thread_cpu_start = rho_bench__cpu_now();
    state->process_cpu_start = rho_bench__process_cpu_now();
}

/* The measured loop ended: the CPU time the process used beyond this thread's, during it. A body
 * that hands work to other threads shows it here, and its thread's CPU time is then not the
 * benchmark's (the host judges wall time instead). */
static void rho_bench__other_cpu_ends(rho_bench_t *state)
{
    rho_bench__uint process = rho_bench__process_cpu_now() - state->process_cpu_start;
    rho_bench__uint thread = rho_bench__cpu_now() - state->thread_cpu_start;
    state->other_cpu = process > thread ? process - thread : 0u;
}

/* The declared resolution: successive reads of the thread's CPU clock cost more than its step (a
 * system call, about 500 ns on a VM), so a step cannot be seen between them; the clock counts in
 * the scheduler's nanoseconds. */
static rho_bench__uint rho_bench__cpu_resolution(void)
{
    struct timespec step;
    if (clock_getres(CLOCK_THREAD_CPUTIME_ID, &step) != 0) {
        return 0;
    }
    return (rho_bench__uint)step.tv_sec * 1000000000u + (rho_bench__uint)step.tv_nsec;
}
#define RHO_BENCH__OTHER_CPU_STARTS(state) rho_bench__other_cpu_starts(state)
#if RHO_BENCH__PREEMPTION
#include <sys/resource.h>
#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1 /* Linux's, hidden by glibc without _GNU_SOURCE */
#endif
/* The calling thread's involuntary context switches so far (-1 when they cannot be read). The
 * record is static: 144 bytes on the stack would be in every benchmark's stack figure. */
static long rho_bench__switches_now(void)
{
    static struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) {
        return -1;
    }
    return usage.ru_nivcsw;
}
#ifndef RHO_BENCH_PREEMPTED_RERUNS
#define RHO_BENCH_PREEMPTED_RERUNS 4 /* re-runs a benchmark may take: 1 per this many samples */
#endif
/* Whether an interrupted measured sample whose CPU time is `cpu` is measured again (see
 * "Preemption"): its CPU time at most twice the least kept sample's, so the interruption made it
 * long, not its body (a rare heavy iteration is kept), and re-runs left: at most one per
 * RHO_BENCH_PREEMPTED_RERUNS measured samples asked for (0: none), so a machine that interrupts
 * every sample still finishes. */
static int rho_bench__rerun_preempted(const rho_bench_t *state, rho_bench__uint cpu)
{
#if RHO_BENCH_PREEMPTED_RERUNS > 0
    const rho_bench__uint samples = state->measured_target / state->next_batch;
    const rho_bench__uint limit =
        samples / RHO_BENCH_PREEMPTED_RERUNS + (samples % RHO_BENCH_PREEMPTED_RERUNS != 0);
    if (state->rerun >= limit) {
        return 0;
    }
    return state->cpu_least == 0 || cpu / 2u <= state->cpu_least;
#else
    (void)state;
    (void)cpu;
    return 0;
#endif
}
#endif
#define RHO_BENCH__OTHER_CPU_ENDS(state) rho_bench__other_cpu_ends(state)
#else
#define RHO_BENCH__OTHER_CPU_STARTS(state) ((void)0)
#define RHO_BENCH__OTHER_CPU_ENDS(state) ((void)0)
#endif

#if RHO_BENCH_BARE_METAL

#define RHO_BENCH__REG(address) (*(volatile uint32_t *)(address))
#define RHO_BENCH__CPUID RHO_BENCH__REG(0xE000ED00u)
#define RHO_BENCH__DEMCR RHO_BENCH__REG(0xE000EDFCu)
#define RHO_BENCH__DWT_CTRL RHO_BENCH__REG(0xE0001000u)
#define RHO_BENCH__DWT_CYCCNT_ADDRESS 0xE0001004u
#define RHO_BENCH__DWT_LAR RHO_BENCH__REG(0xE0001FB0u)
#define RHO_BENCH__SYST_CSR RHO_BENCH__REG(0xE000E010u)
#define RHO_BENCH__SYST_RVR RHO_BENCH__REG(0xE000E014u)
#define RHO_BENCH__SYST_CVR RHO_BENCH__REG(0xE000E018u)
#define RHO_BENCH__ICSR RHO_BENCH__REG(0xE000ED04u)
#define RHO_BENCH__VTOR RHO_BENCH__REG(0xE000ED08u)

#if RHO_BENCH__UP_COUNTER
/* A counter that counts up by itself at RHO_BENCH_CPU_HZ: the port's, or RISC-V's mcycle (machine
 * mode; its low 32 bits, read without the Zicsr extension having to be in -march). */
RHO_BENCH__NOINLINE uint32_t rho_bench__cycles_now(void)
{
#if defined(RHO_BENCH_PORT_CLOCK)
    return rho_bench_port_clock_read();
#else
    uint32_t value;
    __asm__ __volatile__(".option push\n\t"
                         ".option arch, +zicsr\n\t"
                         "csrr %0, mcycle\n\t"
                         ".option pop"
                         : "=r"(value)
                         :
                         : "memory");
    return value;
#endif
}

static uint32_t rho_bench__cycles_between(uint32_t start, uint32_t stop)
{
    return stop - start; /* unsigned arithmetic handles one 2^32 wrap */
}

static RHO_BENCH__NOINLINE rho_bench__uint rho_bench__cycles_resolution(void)
{
    uint32_t smallest = 0, previous = rho_bench__cycles_now();
    unsigned i;
    for (i = 0; i < 1000u; i++) {
        uint32_t now = rho_bench__cycles_now();
        uint32_t step = now - previous;
        if (step != 0 && (smallest == 0 || step < smallest)) {
            smallest = step;
        }
        previous = now;
    }
    return smallest;
}

/* Starts the counter; returns 0, or 2 (rho_bench_main's status) when it cannot measure. */
static int rho_bench__clock_init(void)
{
#if defined(RHO_BENCH_PORT_CLOCK)
    if (rho_bench_port_clock_start() != 0 || rho_bench__cycles_resolution() == 0) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                         "rho: the port's clock (RHO_BENCH_PORT_CLOCK) does not run\n");
        return 2;
    }
#endif
    return 0;
}

#else /* the Cortex-M's own counters: DWT, else SysTick */

#if !defined(RHO_BENCH_SYSTICK_EXTERNAL)
/* SysTick's exception: the counter went through 0 and reloaded. The port's vector table points
 * here (entry 15); the harness enables the exception only when it owns SysTick. */
void rho_bench_systick_handler(void)
{
    rho_bench__systick_wraps = rho_bench__systick_wraps + 1u;
}
#endif

/* The cycle counter, counting up. DWT->CYCCNT as it is. A SysTick the harness owns (reload
 * 0xFFFFFF, its exception counting wraps) is read as wraps * 2^24 + (0xFFFFFF - value), less a
 * constant: exact for any body below 2^32 cycles. The read is race-free: the wrap count is read
 * before and after the value, and a wrap the core has pended but not yet taken (ICSR.PENDSTSET)
 * means the value may already have reloaded while the count has not moved: read again. That
 * needs the exception enabled (PRIMASK clear) outside the benchmark's body, as it is on the port.
 * RHO_BENCH_SYSTICK_EXTERNAL: the firmware's SysTick, read as its own down-counter; a read that
 * sees COUNTFLAG (the counter passed 0 since the last read of SYST_CSR) marks the iteration as
 * wrapped, since the number of wraps is not known. */
RHO_BENCH__NOINLINE uint32_t rho_bench__cycles_now(void)
{
    uint32_t value;
#if !defined(RHO_BENCH_SYSTICK_EXTERNAL)
    uint32_t wraps;
#endif
    if (rho_bench__systick_period == 0) {
        return RHO_BENCH__REG(RHO_BENCH__DWT_CYCCNT_ADDRESS);
    }
#if defined(RHO_BENCH_SYSTICK_EXTERNAL)
    value = RHO_BENCH__SYST_CVR;
    if (RHO_BENCH__SYST_CSR & (1u << 16)) {
        rho_bench__systick_wrapped = 1;
    }
    return value;
#else
    do {
        wraps = rho_bench__systick_wraps;
        value = RHO_BENCH__SYST_CVR;
    } while ((RHO_BENCH__ICSR & (1u << 26)) != 0 || wraps != rho_bench__systick_wraps);
    return (wraps << 24) - value;
#endif
}

/* Elapsed counts between two readings of the chosen counter. */
static uint32_t rho_bench__cycles_between(uint32_t start, uint32_t stop)
{
#if defined(RHO_BENCH_SYSTICK_EXTERNAL)
    if (rho_bench__systick_period != 0) {
        /* The firmware's SysTick counts down from its reload value to 0, then reloads: one wrap
         * is handled here; more are flagged by COUNTFLAG (see rho_bench__cycles_now). */
        return start >= stop ? start - stop : start + rho_bench__systick_period - stop;
    }
#endif
    return stop - start; /* counting up; unsigned arithmetic handles one 2^32 wrap */
}

/* The smallest non-zero step between successive reads of the chosen counter; 0 if it never moved
 * in 1000 reads. Not inlined: the clock's set-up asks it whether DWT->CYCCNT advances at all. */
static RHO_BENCH__NOINLINE rho_bench__uint rho_bench__cycles_resolution(void)
{
    uint32_t smallest = 0, previous = rho_bench__cycles_now();
    unsigned i;
    for (i = 0; i < 1000u; i++) {
        uint32_t now = rho_bench__cycles_now();
        uint32_t step = rho_bench__cycles_between(previous, now);
        if (step != 0 && (smallest == 0 || step < smallest)) {
            smallest = step;
        }
        previous = now;
    }
    return smallest;
}

/* Chooses the counter; returns 0, or 2 (rho_bench_main's status) when it cannot measure. */
static int rho_bench__clock_init(void)
{
#if !defined(__ARM_ARCH_6M__) && !defined(__ARM_ARCH_8M_BASE__)
    /* DWT->CYCCNT: trace enable in DEMCR; a Cortex-M7 (part number 0xC27) also locks its DWT
     * registers behind the CoreSight lock-access key. */
    RHO_BENCH__DEMCR |= 1u << 24;
    if (((RHO_BENCH__CPUID >> 4) & 0xFFFu) == 0xC27u) {
        RHO_BENCH__DWT_LAR = 0xC5ACCE55u;
    }
    if ((RHO_BENCH__DWT_CTRL & (1u << 25)) == 0) { /* NOCYCCNT clear: there is a counter */
        RHO_BENCH__DWT_CTRL |= 1u;
        if (rho_bench__cycles_resolution() != 0) { /* QEMU's reads 0 and never moves */
            return 0;
        }
    }
#endif
#if defined(RHO_BENCH_SYSTICK_EXTERNAL)
    /* The firmware's SysTick is read as it runs, with its own period; an idle one is started
     * with reload 0xFFFFFF on the core clock and no exception. */
    if ((RHO_BENCH__SYST_CSR & 1u) == 0) {
        RHO_BENCH__SYST_RVR = 0xFFFFFFu;
        RHO_BENCH__SYST_CVR = 0;              /* any write clears it */
        RHO_BENCH__SYST_CSR = (1u << 2) | 1u; /* core clock, enabled, no exception */
    }
    rho_bench__systick_period = (RHO_BENCH__SYST_RVR & 0xFFFFFFu) + 1u;
#else
    /* The harness takes SysTick and counts its wraps, which needs it idle and its exception
     * vector (entry 15 of the table VTOR points at) to be rho_bench_systick_handler. */
    if ((RHO_BENCH__SYST_CSR & 1u) != 0 ||
        ((volatile uint32_t *)RHO_BENCH__VTOR)[15] != (uint32_t)rho_bench_systick_handler) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                         "rho: no DWT; SysTick busy or not vectored to rho_bench_systick_handler "
                         "(see RHO_BENCH_SYSTICK_EXTERNAL)\n");
        return 2;
    }
    RHO_BENCH__SYST_RVR = 0xFFFFFFu;
    RHO_BENCH__SYST_CVR = 0;                         /* any write clears it */
    rho_bench__systick_period = 1;                   /* not DWT */
    RHO_BENCH__SYST_CSR = (1u << 2) | (1u << 1) | 1u; /* core clock, exception on wrap, enabled */
#endif
    return 0;
}
#endif /* RHO_BENCH__UP_COUNTER */

#else /* hosted */

#if RHO_BENCH__HAS_CYCLES
static rho_bench__uint rho_bench__cycles_between(rho_bench__uint start, rho_bench__uint stop)
{
    return stop - start;
}

static rho_bench__uint rho_bench__cycles_resolution(void)
{
    rho_bench__uint smallest = 0, previous = rho_bench__cycles_start();
    unsigned i;
    for (i = 0; i < 10000u; i++) {
        rho_bench__uint now = rho_bench__cycles_start();
        rho_bench__uint step = now - previous;
        if (step != 0 && (smallest == 0 || step < smallest)) {
            smallest = step;
        }
        previous = now;
    }
    return smallest;
}

static rho_bench__uint rho_bench__cycles_hz;

#if defined(__aarch64__)
static void rho_bench__clock_init(void)
{
    rho_bench__uint hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    rho_bench__cycles_hz = hz;
}
#else
/* The TSC's rate, against CLOCK_MONOTONIC over about 20 ms. */
static void rho_bench__clock_init(void)
{
    rho_bench__uint t0 = rho_bench__time_now(), c0 = rho_bench__cycles_start(), t1, c1;
    do {
        t1 = rho_bench__time_now();
    } while (t1 - t0 < 20000000u);
    c1 = rho_bench__cycles_stop();
    t1 = rho_bench__time_now();
    rho_bench__cycles_hz =
        (rho_bench__uint)((double)(c1 - c0) * 1e9 / (double)(t1 - t0) + 0.5);
}
#endif
#else
static void rho_bench__clock_init(void)
{
}
#endif /* RHO_BENCH__HAS_CYCLES */

/* The smallest non-zero step between successive reads of a hosted clock (time, cpu). */
static rho_bench__uint rho_bench__resolution_of(rho_bench__uint (*read)(void))
{
    rho_bench__uint smallest = 0, previous = read();
    unsigned long i;
    /* A coarse clock may need many reads to be seen to move at all. */
    for (i = 0; i < 10000ul || (smallest == 0 && i < 100000000ul); i++) {
        rho_bench__uint now = read();
        rho_bench__uint step = now - previous;
        if (step != 0 && (smallest == 0 || step < smallest)) {
            smallest = step;
        }
        previous = now;
    }
    return smallest;
}

#endif /* hosted */

/* ---- Settings ---------------------------------------------------------------------------- */

typedef struct {
    rho_bench__uint iterations; /* after scaling */
    rho_bench__uint warmup;
    rho_bench__uint time_cap_ms;
    rho_bench__uint stack_bytes;
#if !RHO_BENCH_BARE_METAL
    double scale;
    rho_bench__uint batch; /* RHO_BENCH_BATCH: 0 = sized by the harness */
#endif
} rho_bench__settings;

#if RHO_BENCH_BARE_METAL

#ifndef RHO_BENCH_SCALE
#define RHO_BENCH_SCALE 1.0
#endif

/* All compile-time constants: the compiler folds every use, no RAM, no floating point in the
 * image (a floating constant scaled and cast in a static initialiser is folded by the compiler). */
#define RHO_BENCH__SCALED(count) ((uint32_t)((double)(count) * (RHO_BENCH_SCALE) + 0.5))
static const rho_bench__settings rho_bench__config = {
    RHO_BENCH__SCALED(RHO_BENCH_ITERATIONS) == 0 ? 1u : RHO_BENCH__SCALED(RHO_BENCH_ITERATIONS),
    RHO_BENCH__SCALED(RHO_BENCH_WARMUP) == 0 && RHO_BENCH_WARMUP > 0
        ? 1u
        : RHO_BENCH__SCALED(RHO_BENCH_WARMUP),
    RHO_BENCH_TIME_CAP_MS, RHO_BENCH_STACK_BYTES};

static int rho_bench__read_settings(void)
{
    return 0;
}

#else /* hosted: the environment */

static rho_bench__settings rho_bench__config;

static int rho_bench__bad_setting(const char *variable, const char *expected, const char *got)
{
    fprintf(stderr, "rho: %s: expected %s, got \"%s\"\n", variable, expected, got);
    return -1;
}

/* A whole number: decimal digits only, fitting a rho_bench__uint. */
static int rho_bench__parse_uint(const char *text, rho_bench__uint *value)
{
    rho_bench__uint result = 0;
    const char *p = text;
    if (*p == '\0') {
        return -1;
    }
    for (; *p != '\0'; p++) {
        unsigned digit;
        if (*p < '0' || *p > '9') {
            return -1;
        }
        digit = (unsigned)(*p - '0');
        if (result > ((rho_bench__uint)-1 - digit) / 10u) {
            return -1;
        }
        result = result * 10u + digit;
    }
    *value = result;
    return 0;
}

/* Unset keeps `*value`; set must be a whole number in [minimum, maximum]. */
static int rho_bench__env_uint(const char *variable, rho_bench__uint minimum,
                               rho_bench__uint maximum, rho_bench__uint *value)
{
    const char *text = getenv(variable);
    rho_bench__uint parsed;
    if (text == 0) {
        return 0;
    }
    if (rho_bench__parse_uint(text, &parsed) != 0) {
        return rho_bench__bad_setting(variable, "a whole number", text);
    }
    if (parsed < minimum) {
        return rho_bench__bad_setting(variable, "a whole number of at least 1", text);
    }
    if (parsed > maximum) {
        char expected[64];
        sprintf(expected, "a whole number of at most %llu", (unsigned long long)maximum);
        return rho_bench__bad_setting(variable, expected, text);
    }
    *value = parsed;
    return 0;
}

/* A positive decimal such as 0.5, 2 or 10.25 (no exponent, no sign; not locale-dependent). */
static int rho_bench__env_scale(double *scale)
{
    const char *text = getenv("RHO_BENCH_SCALE");
    const char *p;
    double value = 0.0, place = 1.0;
    int digits = 0, point = 0;
    if (text == 0) {
        return 0;
    }
    for (p = text; *p != '\0'; p++) {
        if (*p >= '0' && *p <= '9') {
            if (point) {
                place /= 10.0;
                value += (*p - '0') * place;
            } else {
                value = value * 10.0 + (*p - '0');
            }
            digits++;
        } else if (*p == '.' && !point) {
            point = 1;
        } else {
            digits = 0;
            break;
        }
    }
    if (digits == 0 || !(value > 0.0) || value > 1e9) {
        return rho_bench__bad_setting("RHO_BENCH_SCALE", "a positive number such as 0.5", text);
    }
    *scale = value;
    return 0;
}

static rho_bench__uint rho_bench__scaled(rho_bench__uint count, int at_least_one)
{
    double product = (double)count * rho_bench__config.scale + 0.5;
    rho_bench__uint value = product >= 1.8e19 ? (rho_bench__uint)-1 : (rho_bench__uint)product;
    return value == 0 && at_least_one ? 1u : value;
}

static int rho_bench__read_settings(void)
{
    rho_bench__uint iterations = RHO_BENCH_ITERATIONS, warmup = RHO_BENCH_WARMUP;
    rho_bench__uint cap = RHO_BENCH_TIME_CAP_MS, stack = RHO_BENCH_STACK_BYTES;
    rho_bench__config.scale = 1.0;
    rho_bench__config.batch = RHO_BENCH_BATCH;
    if (rho_bench__env_uint("RHO_BENCH_ITERATIONS", 1, (rho_bench__uint)-1, &iterations) != 0 ||
        rho_bench__env_uint("RHO_BENCH_WARMUP", 0, (rho_bench__uint)-1, &warmup) != 0 ||
        rho_bench__env_scale(&rho_bench__config.scale) != 0 ||
        rho_bench__env_uint("RHO_BENCH_TIME_CAP_MS", 0, (rho_bench__uint)-1, &cap) != 0 ||
        rho_bench__env_uint("RHO_BENCH_BATCH", 0, (rho_bench__uint)-1, &rho_bench__config.batch) !=
            0 ||
        rho_bench__env_uint("RHO_BENCH_STACK_BYTES", 0,
                            RHO_BENCH__UCONTEXT ? RHO_BENCH_STACK_BYTES : (rho_bench__uint)-1,
                            &stack) != 0) {
        return -1;
    }
    rho_bench__config.iterations = rho_bench__scaled(iterations, 1);
    rho_bench__config.warmup = rho_bench__scaled(warmup, warmup > 0);
    rho_bench__config.time_cap_ms = cap;
    rho_bench__config.stack_bytes = RHO_BENCH__UCONTEXT ? stack : 0; /* compiled out: off */
    return 0;
}

/* PREFIX<name> from the environment: unset keeps *value and *found; set must be a whole number of
 * at least `minimum` (then *found = 1). -1 on a bad value. */
static int rho_bench__named_setting(const char *prefix, const char *name, rho_bench__uint minimum,
                                    rho_bench__uint *value, int *found)
{
    static char variable[sizeof "RHO_BENCH_ITERATIONS_" + RHO_BENCH__NAME_MAX];
    size_t length = strlen(prefix), n = strlen(name);
    if (n > RHO_BENCH__NAME_MAX) {
        n = RHO_BENCH__NAME_MAX;
    }
    memcpy(variable, prefix, length);
    memcpy(variable + length, name, n);
    variable[length + n] = '\0';
    if (getenv(variable) == 0) {
        return 0;
    }
    if (rho_bench__env_uint(variable, minimum, (rho_bench__uint)-1, value) != 0) {
        return -1;
    }
    *found = 1;
    return 0;
}

/* RHO_BENCH_ITERATIONS_<name>, scaled like RHO_BENCH_ITERATIONS; -1 on a bad value. */
static int rho_bench__iterations_for(const char *name, rho_bench__uint *iterations)
{
    rho_bench__uint parsed = 0;
    int found = 0;
    *iterations = rho_bench__config.iterations;
    if (rho_bench__named_setting("RHO_BENCH_ITERATIONS_", name, 1, &parsed, &found) != 0) {
        return -1;
    }
    if (found) {
        *iterations = rho_bench__scaled(parsed, 1);
    }
    return 0;
}

/* The batch forced for `name` and who forced it (see rho_bench_t's batch_priority): its
 * RHO_BENCH_BATCH_<name> (3), else RHO_BENCH_BATCH when set to non-zero (1); -1 on a bad value. */
static int rho_bench__batch_for(const char *name, rho_bench__uint *batch, int *priority)
{
    int found = 0;
    *batch = rho_bench__config.batch;
    *priority = rho_bench__config.batch != 0 ? 1 : 0;
    if (rho_bench__named_setting("RHO_BENCH_BATCH_", name, 0, batch, &found) != 0) {
        return -1;
    }
    if (found) {
        *priority = 3;
    }
    return 0;
}

#endif /* settings */

/* ---- The loop ---------------------------------------------------------------------------- */

/* Writes out the buffered samples as `:A B` lines, each formatted straight into the writer once
 * there is room for a whole line, so the writer is written out only from here: on bare metal
 * this runs inside the painted stack, and a write from a deeper call (in the middle of a number)
 * would make the harness's own share of the stack figure depend on the figures printed. */
#define RHO_BENCH__LINE_MAX (RHO_BENCH__NCLOCKS * 21 + 1) /* ':' or ' ', 20 digits each, '\n' */

static void rho_bench__write_samples(void)
{
    rho_bench__writer w;
    unsigned i, k;
    w.len = 0;
#if !RHO_BENCH_BARE_METAL
    w.channel = RHO_BENCH__STREAM;
#endif
    for (i = 0; i < rho_bench__sample_count; i++) {
        if (sizeof w.bytes - w.len < RHO_BENCH__LINE_MAX) {
            rho_bench__w_flush(&w);
        }
        for (k = 0; k < RHO_BENCH__NCLOCKS; k++) {
            w.bytes[w.len++] = k == 0 ? ':' : ' ';
            w.len += rho_bench__decimal(w.bytes + w.len, rho_bench__samples[i][k]);
        }
        w.bytes[w.len++] = '\n';
    }
    rho_bench__w_flush(&w);
#if RHO_BENCH__GUARDED
    rho_bench__block_samples += rho_bench__sample_count;
#endif
    rho_bench__sample_count = 0;
}

#if RHO_BENCH__MPU_GUARD
/* 0: no guard armed; else where the fault handler runs (see rho_bench__call_guarded). */
uint32_t rho_bench__fault_sp;
#endif

#if RHO_BENCH__UCONTEXT
static ucontext_t rho_bench__harness_context;
static ucontext_t rho_bench__bench_context;
static int rho_bench__on_bench_stack;
static int rho_bench__flush_wanted;
#endif

/* The buffer is full. On the harness's own stack region, go back to the harness's stack to
 * write it out, so the stdio frames are not counted in the benchmark's stack figure. */
static void rho_bench__buffer_full(void)
{
#if RHO_BENCH__UCONTEXT
    if (rho_bench__on_bench_stack) {
        rho_bench__flush_wanted = 1;
        swapcontext(&rho_bench__bench_context, &rho_bench__harness_context);
        return;
    }
#endif
#if RHO_BENCH__MPU_GUARD
    {
        /* An overrun while writing would cut a line of the stream in two: disarmed, it is a fault
         * like any other (the port reports it, and the stream stops). */
        uint32_t armed = rho_bench__fault_sp;
        rho_bench__fault_sp = 0;
        rho_bench__write_samples();
        rho_bench__fault_sp = armed;
    }
#else
    rho_bench__write_samples();
#endif
}

/* The warm-ups are over (or there were none): the stack and heap figures start here. */
static RHO_BENCH__ALWAYS_INLINE void rho_bench__measuring_starts(rho_bench_t *state);

/* ---- Sampling: perf record's control pipe ------------------------------------------------- */

/* `rho bench --measure time --profile NAME` (and `--functions N`) runs the suite once more, apart
 * from the timed runs, under `perf record -D -1 --control fd:C,A`: perf starts with its events
 * off, and RHO_BENCH_PERF_CONTROL="W,R,NAME" gives the harness the pipe perf reads commands from
 * (W) and the one it acknowledges them on (R). Benchmark NAME's loop writes "enable" when its
 * first measured iteration is next and "disable" when the loop ends, each time waiting for
 * perf's "ack\n\0", so the samples are those of its measured loop only: not the warm-ups, not
 * `.overhead`, not the harness's reporting. A write or read that fails turns the hook off (the
 * run goes on, timed as ever). POSIX hosts only; elsewhere the hook is nothing. */
#if RHO_BENCH__POSIX
#include <poll.h>
#include <unistd.h>
static int rho_bench__perf_write = -1, rho_bench__perf_read = -1;
static const char *rho_bench__perf_bench; /* NAME; 0: no sampling asked */
static int rho_bench__perf_on;           /* sampling is on (between enable and disable) */

/* One non-negative decimal fd at *text, up to `end`; -1 when it is not one. */
static int rho_bench__perf_fd(const char **text, char end)
{
    int fd = 0, digits = 0;
    for (; **text >= '0' && **text <= '9' && digits < 6; (*text)++, digits++) {
        fd = fd * 10 + (**text - '0');
    }
    if (digits == 0 || **text != end) {
        return -1;
    }
    (*text)++;
    return fd;
}

/* Reads RHO_BENCH_PERF_CONTROL; 0, or 2 (rho_bench_main's status) when it is malformed. */
static int rho_bench__perf_init(void)
{
    const char *text = getenv("RHO_BENCH_PERF_CONTROL");
    if (text == 0 || *text == '\0') {
        return 0;
    }
    rho_bench__perf_write = rho_bench__perf_fd(&text, ',');
    rho_bench__perf_read = rho_bench__perf_write < 0 ? -1 : rho_bench__perf_fd(&text, ',');
    if (rho_bench__perf_read < 0 || *text == '\0') {
        fprintf(stderr, "rho: RHO_BENCH_PERF_CONTROL must be W,R,NAME (two fds and a benchmark)\n");
        return 2;
    }
    rho_bench__perf_bench = text;
    return 0;
}

/* Sends perf `command` ("enable\n" or "disable\n") and waits for its acknowledgement, at most 10 s
 * a piece: this process holds a copy of the pipe's write end too, so a perf that died would never
 * close it, and the run goes on unsampled rather than hang until rho's timeout. */
static void rho_bench__perf_send(const char *command)
{
    size_t len = strlen(command);
    char ack[8];
    struct pollfd ready;
    if (write(rho_bench__perf_write, command, len) != (ssize_t)len) {
        rho_bench__perf_bench = 0;
        return;
    }
    ready.fd = rho_bench__perf_read;
    ready.events = POLLIN;
    /* "ack\n" and its terminating NUL, perhaps in pieces */
    for (;;) {
        int polled;
        ssize_t got;
        ready.revents = 0;
        polled = poll(&ready, 1, 10000);
        if (polled < 0 && errno == EINTR) {
            continue;
        }
        if (polled != 1) {
            break; /* silent for 10 s, or poll failed */
        }
        got = read(rho_bench__perf_read, ack, sizeof ack);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break; /* perf is gone */
        }
        if (memchr(ack, '\0', (size_t)got) != 0) {
            return;
        }
    }
    rho_bench__perf_bench = 0; /* sampling stops here; the run goes on */
}

/* The measured loop of `state` starts (on) or ends (off): sampling follows when it is the one. */
static void rho_bench__perf_turn(const rho_bench_t *state, int on)
{
    if (rho_bench__perf_bench == 0 || on == rho_bench__perf_on ||
        strcmp(state->name, rho_bench__perf_bench) != 0) {
        return;
    }
    rho_bench__perf_on = on;
    rho_bench__perf_send(on ? "enable\n" : "disable\n");
}
#else
#define rho_bench__perf_init() 0
#define rho_bench__perf_turn(state, on) ((void)(state), (void)(on))
#endif

/* ---- Lock-step: two runs taking turns ----------------------------------------------------- */

/* `rho bench gate --lock-step` runs base's suite and head's at once, one measuring at a time
 * (docs/gate.md, "Lock-step rounds"): a slow phase of the machine, which lasts milliseconds to
 * seconds, then falls on both sides alike instead of on whichever ran in it. RHO_BENCH_LOCKSTEP
 * ="W,R,US" gives the pipe the harness says it is ready on (W), the one it is told to go on (R) and
 * its turn, US microseconds. It says ready and waits for its go before it measures anything, and then
 * between samples (never inside one) once it has measured for a turn since its last go. Waiting
 * blocks in read(2): a voluntary switch, which the preemption check does not count. A read that
 * fails turns it off: the run goes on by itself. (A write to a gate that is gone raises SIGPIPE,
 * which ends the run: nothing is left to read its figures.) POSIX hosts only; elsewhere nothing. */
#if RHO_BENCH__POSIX && RHO_BENCH__HAS_TIME
#define RHO_BENCH__LOCKSTEP 1
static int rho_bench__lockstep_ready = -1, rho_bench__lockstep_go = -1;
static rho_bench__uint rho_bench__lockstep_turn_ns, rho_bench__lockstep_since;

/* Says ready, waits for the go; off for good when either fails. */
static void rho_bench__lockstep_wait(void)
{
    char byte = 'r';
    ssize_t done;
    do {
        done = write(rho_bench__lockstep_ready, &byte, 1);
    } while (done < 0 && errno == EINTR);
    if (done == 1) {
        do {
            done = read(rho_bench__lockstep_go, &byte, 1);
        } while (done < 0 && errno == EINTR);
    }
    if (done != 1) {
        rho_bench__lockstep_go = -1;
    }
    rho_bench__lockstep_since = rho_bench__time_now();
}

/* Reads RHO_BENCH_LOCKSTEP and waits for the first go; 0, or 2 (rho_bench_main's status) when it is
 * malformed. */
static int rho_bench__lockstep_init(void)
{
    const char *text = getenv("RHO_BENCH_LOCKSTEP");
    int ready, go;
    rho_bench__uint micros = 0;
    int digits = 0;
    if (text == 0 || *text == '\0') {
        return 0;
    }
    ready = rho_bench__perf_fd(&text, ',');
    go = ready < 0 ? -1 : rho_bench__perf_fd(&text, ',');
    for (; go >= 0 && *text >= '0' && *text <= '9' && digits < 9; text++, digits++) {
        micros = micros * 10u + (rho_bench__uint)(*text - '0');
    }
    if (go < 0 || digits == 0 || *text != '\0' || micros == 0) {
        fprintf(stderr, "rho: RHO_BENCH_LOCKSTEP must be W,R,US (two fds and a turn in "
                        "microseconds, 1 to 999999999)\n");
        return 2;
    }
    rho_bench__lockstep_ready = ready;
    rho_bench__lockstep_go = go;
    rho_bench__lockstep_turn_ns = micros * 1000u;
    rho_bench__lockstep_wait();
    return 0;
}

/* Between samples: the turn is over when this run has had the machine for a turn since its go. */
#define RHO_BENCH__LOCKSTEP_DUE(time_stop)                                                    \
    (rho_bench__lockstep_go >= 0 &&                                                           \
     (time_stop) - rho_bench__lockstep_since >= rho_bench__lockstep_turn_ns)
#else
#define RHO_BENCH__LOCKSTEP 0
#define rho_bench__lockstep_init() 0
#endif

RHO_BENCH__NOINLINE rho_bench_t *rho_bench__loop_begin(rho_bench_t *state)
{
    state->loops++;
    if (state->loops > 1 && state->misuse == RHO_BENCH__MISUSE_NONE) {
        state->misuse = RHO_BENCH__MISUSE_TWO_LOOPS;
    }
    state->in_iteration = 0;
#if RHO_BENCH__COUNTS
    if (state->counting) {
        /* the warm-ups, then rho_bench__count_turn starts the measured iterations */
        state->count_left = state->misuse == RHO_BENCH__MISUSE_NONE ? state->warmup_target : 0;
        state->count_measuring = 0;
    }
#endif
    return state;
}

RHO_BENCH__NOINLINE rho_bench_t *rho_bench__setup_begin(rho_bench_t *state, size_t capacity)
{
    /* an input less than one is no input: the setup and the body still run once a sample */
    state->batch_limit = capacity < 1 ? 1u
                         : capacity > (rho_bench__uint)-1 ? (rho_bench__uint)-1
                                                          : (rho_bench__uint)capacity;
    return rho_bench__loop_begin(state);
}

/* The unit of the sizing (see "Batches"): the larger of the sizing clock's resolution and the
 * least raw sample of `.overhead`, set once `.overhead` has run (0 before: nothing is batched). */
static rho_bench__uint rho_bench__batch_unit;
/* The sizing clock's resolution, measured once; `@clock` prints it (0: never seen to move). */
static rho_bench__uint rho_bench__sizing_step;
#define RHO_BENCH__BATCH_BELOW 16u /* bodies under 16 units are batched ... */
#define RHO_BENCH__BATCH_AIM 128u  /* ... into samples of at least 128 units */

/* K for the measured samples, once the warm-ups are over. */
static void rho_bench__size_batch(rho_bench_t *state)
{
    rho_bench__uint k = state->batch_forced, least = state->single_min;
    if (k == 0) {
        rho_bench__uint most = state->measured_target / 32u;
        k = 1;
        if (most > RHO_BENCH_BATCH_MAX) {
            most = RHO_BENCH_BATCH_MAX;
        }
        if (state->warmup_done > 0 && rho_bench__batch_unit != 0 &&
            least / RHO_BENCH__BATCH_BELOW < rho_bench__batch_unit) {
            /* least * k >= AIM * unit, without overflow: k doubles at most log2(most) times */
            while (k * 2u <= most && least * k < RHO_BENCH__BATCH_AIM * rho_bench__batch_unit) {
                k *= 2u;
            }
        }
    }
    if (state->batch_limit != 0 && k > state->batch_limit) {
        k = state->batch_limit;
    }
    state->batch = k;
}

/* noinline also under -flto: link-time inlining would put this into the user's loop, next to
 * the clock reads. */
RHO_BENCH__NOINLINE int rho_bench__step(rho_bench_t *state, rho_bench__uint cycles_stop,
                                        rho_bench__uint time_stop)
{
#if RHO_BENCH__HAS_CPU
    rho_bench__uint cpu_stop = rho_bench__cpu_now(); /* first: the CPU window's end */
#endif
#if RHO_BENCH__PREEMPTION
    long switches = rho_bench__switches_now();
#endif
    if (state->misuse != RHO_BENCH__MISUSE_NONE) {
        state->in_iteration = 0;
        rho_bench__perf_turn(state, 0);
        return 0;
    }
    if (state->in_iteration) {
        rho_bench__uint *sample = rho_bench__samples[rho_bench__sample_count];
        rho_bench__uint spent;
        int keep = 1; /* the sample is committed (0: measured again, see "Preemption") */
#if RHO_BENCH__HAS_CYCLES
        rho_bench__uint cycles = rho_bench__cycles_between(state->cycles_start, cycles_stop);
        *sample++ = cycles;
#else
        (void)cycles_stop;
#endif
#if RHO_BENCH__HAS_TIME
        *sample++ = time_stop - state->time_start;
        spent = time_stop - state->time_start; /* the cap counts in ns */
#else
        (void)time_stop;
        spent = cycles; /* the cap counts in cycles */
#endif
#if RHO_BENCH__HAS_CPU
        *sample = cpu_stop - state->cpu_start;
#else
        (void)sample;
#endif
#if RHO_BENCH__PREEMPTION
        /* A measured sample the scheduler interrupted: measured again when its CPU time is a
         * typical sample's (the interruption, not the body, made it long) and the benchmark has
         * re-runs left; otherwise kept and counted (see "Preemption"). */
        if (switches != state->switches && state->warmup_done >= state->warmup_target) {
            if (rho_bench__rerun_preempted(state, *sample)) {
                state->rerun++;
                keep = 0; /* not committed: the next sample is written over it */
                state->heap_allocs = state->heap_allocs_at_sample;
                state->heap_frees = state->heap_frees_at_sample;
                state->heap_peak = state->heap_peak_at_sample;
                if (state->heap_live > state->heap_live_at_sample) {
                    state->heap_discount += state->heap_live - state->heap_live_at_sample;
                }
            } else {
                state->preempted++;
            }
        }
        if (keep && state->warmup_done >= state->warmup_target &&
            (state->cpu_least == 0 || *sample < state->cpu_least)) {
            state->cpu_least = *sample == 0 ? 1u : *sample;
        }
#endif
        if (keep) {
            if (state->warmup_done < state->warmup_target) {
                state->warmup_done++;
            } else {
                state->measured_done += state->next_batch;
            }
            if (state->next_batch == 1) {
#if RHO_BENCH__HAS_CYCLES
                rho_bench__uint single = cycles; /* batches are sized on the cycle clock ... */
#else
                rho_bench__uint single = spent; /* ... or the time clock without one */
#endif
                if (single < state->single_min) {
                    state->single_min = single;
                }
            }
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_SYSTICK_EXTERNAL)
            state->wrapped += (rho_bench__uint)rho_bench__systick_wrapped;
#endif
            if (++rho_bench__sample_count == RHO_BENCH_SAMPLE_BUFFER) {
                rho_bench__buffer_full();
            }
        }
        /* The cap is on measured time: a sample measured again is not counted, so the kept
         * samples' time adds up to the cap when it stops them (re-runs are bounded above). */
        if (keep) {
            state->cap_used += spent;
            if (state->cap_limit != 0 &&
                (state->cap_used >= state->cap_limit || state->cap_used < spent /* wrapped */)) {
                if (state->warmup_done < state->warmup_target) {
                    state->warmup_target = state->warmup_done; /* skip the other warm-ups */
                } else if (state->measured_done > 0 &&
                           state->measured_done < state->measured_target) {
                    state->measured_target = state->measured_done;
                    state->capped = 1;
                }
            }
        }
    }
    if (state->warmup_done < state->warmup_target ||
        state->measured_done < state->measured_target) {
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_SYSTICK_EXTERNAL)
        /* The next iteration starts with no wrap seen: clear both flags (reading SYST_CSR
         * clears COUNTFLAG). */
        (void)RHO_BENCH__SYST_CSR;
        rho_bench__systick_wrapped = 0;
#endif
        if (state->batch == 0 && state->warmup_done == state->warmup_target) {
            /* Once, the warm-ups over (or none; batch is 0 until here): the first measured
             * iteration is next. Its samples are sized; the warm-ups had a cap of their own, and
             * the measured iterations get the whole cap, counted from here (the cap is on
             * measured time); the stack and heap figures start. */
            rho_bench__size_batch(state);
            state->next_batch = state->batch;
            state->cap_used = 0;
            rho_bench__measuring_starts(state);
            rho_bench__perf_turn(state, 1);
            RHO_BENCH__OTHER_CPU_STARTS(state);
        }
#if RHO_BENCH__LOCKSTEP
        if (RHO_BENCH__LOCKSTEP_DUE(time_stop)) {
            rho_bench__lockstep_wait(); /* the other side's turn */
#if RHO_BENCH__PREEMPTION
            switches = rho_bench__switches_now(); /* the wait is not the next sample's */
#endif
        }
#endif
#if RHO_BENCH__PREEMPTION
        state->switches = switches;
        state->heap_allocs_at_sample = state->heap_allocs;
        state->heap_frees_at_sample = state->heap_frees;
        state->heap_live_at_sample = state->heap_live;
        state->heap_peak_at_sample = state->heap_peak;
#endif
        state->in_iteration = 1;
        return 1;
    }
    if (state->in_iteration && state->batch != 0) {
        RHO_BENCH__OTHER_CPU_ENDS(state);
    }
    state->in_iteration = 0;
    rho_bench__perf_turn(state, 0);
    return 0;
}

/* ---- Counting: instructions under Callgrind ---------------------------------------------- */

#if !RHO_BENCH__COUNTS
#define rho_bench__counting 0 /* a board's timed build: it times */
#endif

/* Under Valgrind's Callgrind, with RHO_BENCH_MEASURE=instructions (what `rho bench --measure
 * instructions` runs), the loop reads no clock: the warm-ups run uncounted, then Callgrind
 * collects the whole measured loop, N iterations at once, and dumps its totals under the
 * benchmark's name. A collection toggle takes effect at a code-block boundary, so toggling
 * around each iteration would be inexact; around a whole loop the edges cost the same fixed
 * amount in every loop, and `.overhead` runs the empty loop twice, N and 2N iterations, from
 * which the host takes off both the fixed part and the per-iteration part: a body of exactly
 * 1000 instructions reads 1000 net. The stream says which dump holds which loop (`@count`);
 * the host reads the dump files. */
#if RHO_BENCH__COUNTS
#if RHO_BENCH_BARE_METAL
/* On a board under QEMU, rho's counting plugin stands in for Callgrind: the loop's markers
 * (RHO_BENCH__LOOP_BEGINS and _ENDS, where Callgrind's collection is turned on and dumped) start
 * a sum and write it, numbered as the dumps are; the bodies' markers say what is summed. */
static const int rho_bench__counting = 1; /* compiled in: RHO_BENCH_MEASURE_INSTRUCTIONS */
#else
static int rho_bench__counting; /* this run counts (RHO_BENCH_MEASURE=instructions) */
#endif
static rho_bench__uint rho_bench__dumps; /* Callgrind dumps (the plugin's lines) written so far */

/* The slow path of rho_bench__count_next: the measured loop starts (collection on), or ends
 * (collection off, the totals dumped under the benchmark's name). */
static RHO_BENCH__NOINLINE int rho_bench__count_turn(rho_bench_t *state)
{
    if (state->misuse != RHO_BENCH__MISUSE_NONE) {
        return 0;
    }
    if (!state->count_measuring) {
        state->warmup_done = state->warmup_target;
        state->count_measuring = 1;
        state->count_left = state->measured_target - 1; /* this call starts the first */
        rho_bench__measuring_starts(state);
#if RHO_BENCH__CALLGRIND
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
#elif RHO_BENCH_BARE_METAL
        RHO_BENCH__LOOP_BEGINS();
#endif
        return 1;
    }
#if RHO_BENCH__CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(state->name);
#elif RHO_BENCH_BARE_METAL
    RHO_BENCH__LOOP_ENDS();
#endif
    rho_bench__dumps++;
    state->count_measuring = 0;
    state->measured_done = state->measured_target;
    return 0;
}

RHO_BENCH__NOINLINE int rho_bench__count_next(rho_bench_t *state)
{
    if (state->count_left != 0) {
        state->count_left--;
        return 1;
    }
    return rho_bench__count_turn(state);
}
#endif

#if !RHO_BENCH_BARE_METAL
/* RHO_BENCH_MEASURE: unset or `time` times; `instructions` counts, which needs the Valgrind
 * headers at build time and Callgrind at run time. Returns 0, or 2 (rho_bench_main's status). */
static int rho_bench__read_measure(void)
{
    const char *measure = getenv("RHO_BENCH_MEASURE");
    if (measure == 0 || strcmp(measure, "time") == 0) {
        return 0;
    }
    if (strcmp(measure, "instructions") != 0) {
        rho_bench__bad_setting("RHO_BENCH_MEASURE", "time or instructions", measure);
        return 2;
    }
#if RHO_BENCH__CALLGRIND
    if (RUNNING_ON_VALGRIND) {
        rho_bench__counting = 1;
        return 0;
    }
    fprintf(stderr, "rho: RHO_BENCH_MEASURE=instructions: not running under Valgrind; run the "
                    "suite under `valgrind --tool=callgrind` (`rho bench --measure instructions` "
                    "does)\n");
    return 2;
#else
    fprintf(stderr, "rho: instructions not measured: the harness was built without Valgrind's "
                    "headers (<valgrind/callgrind.h>); install them (Debian/Ubuntu: apt-get "
                    "install valgrind; Fedora: valgrind-devel) and build again. Timing instead.\n");
    return 0;
#endif
}
#endif

/* ---- Stack ------------------------------------------------------------------------------- */

#define RHO_BENCH__PAINT 0xAAu
#define RHO_BENCH__OVERRUN ((size_t)-1)
#define RHO_BENCH__STACK_OFF ((size_t)-2)

/* Always inlined: on bare metal the region starts at the caller's stack pointer, so painting
 * and scanning must not push a frame of their own into it. Volatile: no memset call either. */
static RHO_BENCH__ALWAYS_INLINE void rho_bench__paint(unsigned char *low, size_t bytes)
{
    volatile unsigned char *p = low;
    size_t i;
    for (i = 0; i < bytes; i++) {
        p[i] = RHO_BENCH__PAINT;
    }
}

/* The lowest bytes of the region that must all still be painted for a figure to be reported.
 * One byte is not enough: a frame's alignment padding and unwritten slots are never written,
 * so a recursion that ran past the region can leave its lowest bytes painted (seen on the
 * Cortex-M4 port: 4 bytes), which would read as a depth of bytes - 4 instead of an overrun.
 * Where a guard (a page, an MPU region) sits below the region, a frame that jumps over these
 * bytes faults on the guard instead. */
#define RHO_BENCH__GUARD_BYTES 16u

/* The painted bytes are [low, top); the region proper starts at limit - RHO_BENCH__GUARD_BYTES
 * (on a board with an MPU guard, low is a little lower: the bytes between the guard and the
 * region are painted too, and a write there is an overrun). Bytes used from top, or
 * RHO_BENCH__OVERRUN when a byte below limit was written (the boundary is lost). */
static RHO_BENCH__ALWAYS_INLINE size_t rho_bench__scan(const unsigned char *low,
                                                       const unsigned char *limit,
                                                       const unsigned char *top)
{
    const volatile unsigned char *p = low;
    while (p < top && *p == RHO_BENCH__PAINT) {
        p++;
    }
    return p < limit ? RHO_BENCH__OVERRUN : (size_t)(top - p);
}

/* While a benchmark runs on a painted region, the end of its lowest RHO_BENCH__GUARD_BYTES (0: no
 * region): a byte below it written means an overrun. */
static unsigned char *rho_bench__region_limit;

/* The stack pointer, read where this is inlined. */
#if defined(__GNUC__) && defined(__x86_64__)
#define RHO_BENCH__READ_SP(sp) __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp))
#elif defined(__GNUC__) && defined(__i386__)
#define RHO_BENCH__READ_SP(sp) __asm__ __volatile__("mov %%esp, %0" : "=r"(sp))
#elif defined(__GNUC__) && (defined(__aarch64__) || defined(__arm__))
#define RHO_BENCH__READ_SP(sp) __asm__ __volatile__("mov %0, sp" : "=r"(sp))
#elif defined(__GNUC__) && defined(__riscv)
#define RHO_BENCH__READ_SP(sp) __asm__ __volatile__("mv %0, sp" : "=r"(sp))
#endif

/* The first measured iteration is next (called once per benchmark from rho_bench__step, inlined
 * there, between iterations). The warm-ups' stack and heap are not the benchmark's figures: a
 * one-time cost (the dynamic linker resolving a symbol on its first call, a table built on first
 * use) would otherwise be reported as every iteration's. So the heap peak restarts from what is
 * held now, the allocation counts from 0, and the region below this frame is painted again (the
 * frames above it, the benchmark's own and its callers', are live and stay counted). Not its
 * lowest bytes: one of them written already (an overrun in the set-up or the warm-ups) stays
 * written, and the benchmark reads overrun whenever it happened. */
static RHO_BENCH__ALWAYS_INLINE void rho_bench__measuring_starts(rho_bench_t *state)
{
    unsigned char *limit = rho_bench__region_limit;
    state->heap_peak = state->heap_live;
    state->heap_allocs = 0;
    state->heap_frees = 0;
#if RHO_BENCH__PREEMPTION
    state->heap_discount = 0;
#endif
    if (limit != 0) {
        uintptr_t sp;
#if defined(RHO_BENCH__READ_SP)
        RHO_BENCH__READ_SP(sp);
#else
        /* No way to read the stack pointer: stop well above it (this frame's locals are not
         * below this one by more than that). */
        volatile unsigned char here = 0;
        sp = (uintptr_t)&here - 256u;
#endif
        if (sp > (uintptr_t)limit) {
            rho_bench__paint(limit, (size_t)(sp - (uintptr_t)limit));
        }
    }
}

#if RHO_BENCH__UCONTEXT

/* The region benchmarks run on: the slack below it (made a guard, see below), then up to
 * RHO_BENCH_STACK_BYTES painted. Room for aligning the guard to a page of up to
 * RHO_BENCH__PAGE_MAX bytes; memory never touched costs nothing (it is .bss). */
#define RHO_BENCH__PAGE_MAX 65536u
#define RHO_BENCH__AREA_BYTES \
    (RHO_BENCH__PAGE_MAX + RHO_BENCH_STACK_SLACK_BYTES + RHO_BENCH_STACK_BYTES + 64)
static union {
    unsigned char bytes[RHO_BENCH__AREA_BYTES];
    long double align_long_double;
    void *align_pointer;
    uint64_t align_u64;
} rho_bench__stack_area;
static unsigned char *rho_bench__stack_base; /* the lowest byte a region may start at */

static rho_bench_t *rho_bench__running_state;
static rho_bench_fn rho_bench__running_fn;

static void rho_bench__entry(void)
{
    rho_bench__running_fn(rho_bench__running_state);
    rho_bench__on_bench_stack = 0;
    /* returning resumes rho_bench__harness_context (uc_link) */
}

#if RHO_BENCH__PAGE_GUARD
/* The guard: whole pages right below the region, made inaccessible (mprotect PROT_NONE), so the
 * first access below the region faults whatever bytes a frame skipped. The fault (SIGSEGV, or
 * SIGBUS on some systems) is taken on a static alternate signal stack; one inside the guard
 * while a benchmark runs goes back to the harness (siglongjmp), which reports the benchmark as
 * overrun and goes on with the next. Any other fault is left to what the program had before. */
static unsigned char *rho_bench__guard_low; /* [low, high): the guard pages; 0 when none */
static unsigned char *rho_bench__guard_high;
static sigjmp_buf rho_bench__fault_jump;
static volatile sig_atomic_t rho_bench__guard_armed;
static struct sigaction rho_bench__old_segv;
static struct sigaction rho_bench__old_bus;
static stack_t rho_bench__old_alt_stack;
static union {
    char bytes[65536];
    long double align_long_double;
    void *align_pointer;
} rho_bench__alt_stack;

static void rho_bench__on_fault(int signal_number, siginfo_t *info, void *context)
{
    uintptr_t address = (uintptr_t)info->si_addr;
    (void)context;
    if (rho_bench__guard_armed && info->si_code > 0 &&
        address >= (uintptr_t)rho_bench__guard_low && address < (uintptr_t)rho_bench__guard_high) {
        rho_bench__guard_armed = 0;
        siglongjmp(rho_bench__fault_jump, 1);
    }
    /* Not the guard: what the program had before (its handler, or the default action). A fault
     * happens again when the instruction is retried; a signal sent by kill() is sent again. */
    (void)sigaction(signal_number, signal_number == SIGSEGV ? &rho_bench__old_segv
                                                            : &rho_bench__old_bus, 0);
    if (info->si_code <= 0) {
        (void)raise(signal_number);
    }
}

/* Sets up the guard below the region; 0 without one (the slack below the region then only
 * catches a modest overrun, which the lowest 16 bytes may not show). */
static int rho_bench__guard_init(void)
{
    unsigned char *area = rho_bench__stack_area.bytes;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t size, low;
    stack_t alt;
    struct sigaction action;
    if (page <= 0 || (unsigned long)page > RHO_BENCH__PAGE_MAX ||
        ((unsigned long)page & ((unsigned long)page - 1u)) != 0) {
        return 0;
    }
    size = ((uintptr_t)RHO_BENCH_STACK_SLACK_BYTES + (uintptr_t)page - 1u) & ~((uintptr_t)page - 1u);
    if (size == 0) {
        size = (uintptr_t)page;
    }
    low = ((uintptr_t)area + (uintptr_t)page - 1u) & ~((uintptr_t)page - 1u);
    if (low + size + RHO_BENCH_STACK_BYTES > (uintptr_t)area + RHO_BENCH__AREA_BYTES) {
        return 0;
    }
    alt.ss_sp = rho_bench__alt_stack.bytes;
    alt.ss_size = sizeof rho_bench__alt_stack.bytes;
    alt.ss_flags = 0;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = rho_bench__on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaltstack(&alt, &rho_bench__old_alt_stack) != 0) {
        return 0;
    }
    if (sigaction(SIGSEGV, &action, &rho_bench__old_segv) != 0) {
        (void)sigaltstack(&rho_bench__old_alt_stack, 0);
        return 0;
    }
    if (sigaction(SIGBUS, &action, &rho_bench__old_bus) != 0) {
        (void)sigaction(SIGSEGV, &rho_bench__old_segv, 0);
        (void)sigaltstack(&rho_bench__old_alt_stack, 0);
        return 0;
    }
    if (mprotect(area + (low - (uintptr_t)area), (size_t)size, PROT_NONE) != 0) {
        (void)sigaction(SIGBUS, &rho_bench__old_bus, 0);
        (void)sigaction(SIGSEGV, &rho_bench__old_segv, 0);
        (void)sigaltstack(&rho_bench__old_alt_stack, 0);
        return 0;
    }
    rho_bench__guard_low = area + (low - (uintptr_t)area);
    rho_bench__guard_high = rho_bench__guard_low + size;
    rho_bench__stack_base = rho_bench__guard_high;
    return 1;
}

/* Undoes rho_bench__guard_init: the program gets its memory and signal handling back. */
static void rho_bench__guard_release(void)
{
    if (rho_bench__guard_low == 0) {
        return;
    }
    (void)mprotect(rho_bench__guard_low, (size_t)(rho_bench__guard_high - rho_bench__guard_low),
                   PROT_READ | PROT_WRITE);
    (void)sigaction(SIGBUS, &rho_bench__old_bus, 0);
    (void)sigaction(SIGSEGV, &rho_bench__old_segv, 0);
    (void)sigaltstack(&rho_bench__old_alt_stack, 0);
    rho_bench__guard_low = 0;
    rho_bench__guard_high = 0;
}
#endif /* RHO_BENCH__PAGE_GUARD */

/* Where regions start: right above the guard when there is one, else above the slack. Returns
 * the name of what catches an overrun, for `@config stack_guard=`. */
static const char *rho_bench__stack_init(void)
{
    unsigned char *area = rho_bench__stack_area.bytes;
    uintptr_t base = ((uintptr_t)area + RHO_BENCH_STACK_SLACK_BYTES + 63u) & ~(uintptr_t)63u;
#if RHO_BENCH__PAGE_GUARD
    if (rho_bench__config.stack_bytes > 0 && rho_bench__guard_init()) {
        return "page";
    }
#endif
    rho_bench__stack_base = area + (base - (uintptr_t)area);
    return rho_bench__config.stack_bytes > 0 ? "none" : "off";
}

static void rho_bench__stack_release(void)
{
#if RHO_BENCH__PAGE_GUARD
    rho_bench__guard_release();
#endif
}

/* The benchmark's context: rho_bench__entry on [low, low + bytes). Its own function (getcontext
 * returns twice, like setjmp): nothing of the caller's is live across it. */
static RHO_BENCH__NOINLINE int rho_bench__make_context(unsigned char *low, size_t bytes)
{
    if (getcontext(&rho_bench__bench_context) != 0) {
        return -1;
    }
    rho_bench__bench_context.uc_stack.ss_sp = low;
    rho_bench__bench_context.uc_stack.ss_size = bytes;
    rho_bench__bench_context.uc_link = &rho_bench__harness_context;
    makecontext(&rho_bench__bench_context, rho_bench__entry, 0);
    return 0;
}

/* Runs the benchmark's context until it returns, writing out the samples whenever it comes back
 * with the buffer full. Returns 0; 1 when a fault on the guard stopped it; -1 when swapcontext
 * failed. Its own function: nothing of the caller's is live across sigsetjmp. */
static RHO_BENCH__NOINLINE int rho_bench__switch_to_bench(void)
{
#if RHO_BENCH__PAGE_GUARD
    if (sigsetjmp(rho_bench__fault_jump, 1) != 0) {
        return 1;
    }
    rho_bench__guard_armed = rho_bench__guard_low != 0;
#endif
    if (swapcontext(&rho_bench__harness_context, &rho_bench__bench_context) != 0) {
#if RHO_BENCH__PAGE_GUARD
        rho_bench__guard_armed = 0;
#endif
        return -1;
    }
    /* Back here either because the sample buffer is full or because the benchmark returned. */
    while (rho_bench__flush_wanted) {
        rho_bench__flush_wanted = 0;
        rho_bench__write_samples();
        swapcontext(&rho_bench__harness_context, &rho_bench__bench_context);
    }
#if RHO_BENCH__PAGE_GUARD
    rho_bench__guard_armed = 0;
#endif
    return 0;
}

/* Runs fn on the painted region; returns the bytes used, RHO_BENCH__OVERRUN or _STACK_OFF. */
static size_t rho_bench__run_measured(rho_bench_fn fn, rho_bench_t *state, int *failed)
{
    unsigned char *low = rho_bench__stack_base;
    size_t bytes = (size_t)rho_bench__config.stack_bytes;
    unsigned char *top = low + bytes;
    size_t figure;
    int switched;
    *failed = 0;
#if RHO_BENCH__PAGE_GUARD
    rho_bench__stopped = 0;
#endif
    if (bytes == 0) {
        fn(state);
        return RHO_BENCH__STACK_OFF;
    }
    rho_bench__paint(low, bytes);
    rho_bench__region_limit = low + RHO_BENCH__GUARD_BYTES;
    if (rho_bench__make_context(low, bytes) != 0) {
        fprintf(stderr, "rho: getcontext failed: %s\n", strerror(errno));
        *failed = 1;
        return RHO_BENCH__STACK_OFF;
    }
    rho_bench__running_state = state;
    rho_bench__running_fn = fn;
    rho_bench__on_bench_stack = 1;
    rho_bench__flush_wanted = 0;
    switched = rho_bench__switch_to_bench();
    if (switched < 0) {
        fprintf(stderr, "rho: swapcontext failed: %s\n", strerror(errno));
        *failed = 1;
        return RHO_BENCH__STACK_OFF;
    }
    rho_bench__on_bench_stack = 0;
    figure = rho_bench__scan(low, rho_bench__region_limit, top);
    rho_bench__region_limit = 0;
#if RHO_BENCH__PAGE_GUARD
    if (switched > 0) {
        /* The benchmark touched the guard: its stack is abandoned, the harness's is intact. */
        rho_bench__stopped = 1;
        return RHO_BENCH__OVERRUN;
    }
#endif
    return figure;
}

#elif RHO_BENCH_BARE_METAL && RHO_BENCH_STACK_BYTES > 0

#if RHO_BENCH__MPU_GUARD
/* ARMv7-M: an MPU region with no access right below the painted region, so the first access
 * below the region faults, whatever bytes a frame skipped. The port points its HardFault vector
 * at rho_bench_fault_handler (the harness checks it, as it checks SysTick's, and goes without a
 * guard otherwise). The harness leaves MemManage disabled: an MPU fault escalates to HardFault,
 * which runs with the MPU off (HFNMIENA clear), so it has a stack even when the fault came from
 * stacking into the guard. A guard fault while a benchmark runs returns into thread mode inside
 * rho_bench__call_guarded, which returns 1: the benchmark is reported as overrun and the suite
 * goes on. Any other fault goes to the port's rho_bench_port_fault_handler untouched. */
#ifndef RHO_BENCH_STACK_GUARD_BYTES
#define RHO_BENCH_STACK_GUARD_BYTES 1024
#endif
#if RHO_BENCH_STACK_GUARD_BYTES < 32 || RHO_BENCH_STACK_GUARD_BYTES > 65536 || \
    (RHO_BENCH_STACK_GUARD_BYTES & (RHO_BENCH_STACK_GUARD_BYTES - 1)) != 0
#error "RHO_BENCH_STACK_GUARD_BYTES must be a power of two from 32 to 65536"
#endif
#define RHO_BENCH__MPU_TYPE RHO_BENCH__REG(0xE000ED90u)
#define RHO_BENCH__MPU_CTRL RHO_BENCH__REG(0xE000ED94u)
#define RHO_BENCH__MPU_RNR RHO_BENCH__REG(0xE000ED98u)
#define RHO_BENCH__MPU_RBAR RHO_BENCH__REG(0xE000ED9Cu)
#define RHO_BENCH__MPU_RASR RHO_BENCH__REG(0xE000EDA0u)
#define RHO_BENCH__SHCSR RHO_BENCH__REG(0xE000ED24u)
#define RHO_BENCH__CFSR RHO_BENCH__REG(0xE000ED28u)
#define RHO_BENCH__HFSR RHO_BENCH__REG(0xE000ED2Cu)
#define RHO_BENCH__FPCCR RHO_BENCH__REG(0xE000EF34u)
#if defined(__ARM_FP)
#define RHO_BENCH__SAVE_FP "vpush {d8-d15}\n\t"
#define RHO_BENCH__RESTORE_FP "vpop {d8-d15}\n\t"
#else
#define RHO_BENCH__SAVE_FP ""
#define RHO_BENCH__RESTORE_FP ""
#endif

void rho_bench_fault_handler(void) __attribute__((naked));
void rho_bench_port_fault_handler(void);
int rho_bench__call_guarded(rho_bench_fn fn, rho_bench_t *state) __attribute__((naked, noinline));
void rho_bench__guard_resume(void);
void rho_bench__guard_fault(void) __attribute__((noreturn, used));

static uint32_t rho_bench__mpu_region; /* the region number the guard takes, plus 1; 0: no guard */
#if !RHO_BENCH__SPLIM
static uint32_t rho_bench__saved_ctrl, rho_bench__saved_rbar, rho_bench__saved_rasr;
uint32_t rho_bench__guard_low; /* [low, low + RHO_BENCH_STACK_GUARD_BYTES) */
#endif

/* The fault entry. Naked: nothing may touch the stack before it is known to be usable. The
 * harness's fault: a guard armed, and MMFSR saying either MSTKERR (stacking into the guard) or
 * DACCVIOL with a valid address inside the guard. Then it moves to the stack armed for it and
 * goes on in C; anything else goes to the port with the core's frame as it was. */
#if RHO_BENCH__SPLIM
/* ARMv8-M Main: the guard is MSPLIM at the painted region's low end. A push or a stack-pointer move
 * below it does not happen: it is a UsageFault (UFSR.STKOF, CFSR bit 20), escalated to HardFault
 * (UsageFault left disabled); the exception's own frame stops at the limit. The limit is cleared
 * first (HardFault checks it too), so both the harness's way back and the port's report have a
 * stack. */
void rho_bench_fault_handler(void)
{
    __asm__ __volatile__("ldr r0, =rho_bench__fault_sp\n\t"
                         "ldr r0, [r0]\n\t"
                         "cbz r0, 2f\n\t"
                         "movs r1, #0\n\t"
                         "msr msplim, r1\n\t"
                         "ldr r1, =0xE000ED28\n\t" /* CFSR */
                         "ldr r2, [r1]\n\t"
                         "tst r2, #0x100000\n\t" /* STKOF */
                         "beq 2f\n\t"
                         "msr msp, r0\n\t"
                         "b rho_bench__guard_fault\n"
                         "2:\n\t"
                         "b rho_bench_port_fault_handler\n\t"
                         ".ltorg\n\t");
}
#else
void rho_bench_fault_handler(void)
{
    __asm__ __volatile__("ldr r0, =rho_bench__fault_sp\n\t"
                         "ldr r0, [r0]\n\t"
                         "cbz r0, 2f\n\t"
                         "ldr r1, =0xE000ED28\n\t" /* CFSR; MMFSR is its low byte */
                         "ldrb r2, [r1]\n\t"
                         "tst r2, #0x10\n\t" /* MSTKERR */
                         "bne 1f\n\t"
                         "and r2, r2, #0x82\n\t" /* DACCVIOL and MMARVALID */
                         "cmp r2, #0x82\n\t"
                         "bne 2f\n\t"
                         "ldr r2, [r1, #12]\n\t" /* MMFAR */
                         "ldr r3, =rho_bench__guard_low\n\t"
                         "ldr r3, [r3]\n\t"
                         "subs r2, r2, r3\n\t"
                         "cmp r2, #" RHO_BENCH__STR(RHO_BENCH_STACK_GUARD_BYTES) "\n\t"
                         "bhs 2f\n"
                         "1:\n\t"
                         "msr msp, r0\n\t"
                         "b rho_bench__guard_fault\n"
                         "2:\n\t"
                         "b rho_bench_port_fault_handler\n\t"
                         ".ltorg\n\t");
}
#endif

/* A port that vectors HardFault to the harness defines this (its own fault report); this one
 * only says so and stops. */
__attribute__((weak)) void rho_bench_port_fault_handler(void)
{
    static const char line[] = "rho: fault\n";
    rho_bench_port_write(line, sizeof line - 1u);
    for (;;) {
    }
}

/* fn(state) with the callee-saved registers kept on this frame and rho_bench__fault_sp armed 32
 * bytes below them (the fault handler's stack grows down from there, and the frame it returns
 * through is the 32 bytes above). Returns 0 when fn returned; 1 when a guard fault came back
 * through rho_bench__guard_resume, with the stack pointer right back at the saved registers. */
int rho_bench__call_guarded(rho_bench_fn fn, rho_bench_t *state)
{
    (void)fn;
    (void)state;
    __asm__ __volatile__("push {r3-r11, lr}\n\t" RHO_BENCH__SAVE_FP
                         "sub r2, sp, #32\n\t"
                         "ldr r3, =rho_bench__fault_sp\n\t"
                         "str r2, [r3]\n\t"
                         "mov r3, r0\n\t"
                         "mov r0, r1\n\t"
                         "blx r3\n\t"
                         "movs r0, #0\n"
                         "1:\n\t"
                         "ldr r3, =rho_bench__fault_sp\n\t"
                         "movs r1, #0\n\t"
                         "str r1, [r3]\n\t" RHO_BENCH__RESTORE_FP
                         "pop {r3-r11, pc}\n\t"
                         ".global rho_bench__guard_resume\n\t"
                         ".thumb_func\n"
                         "rho_bench__guard_resume:\n\t"
                         "cpsie i\n\t"
                         "movs r0, #1\n\t"
                         "b 1b\n\t"
                         ".ltorg\n\t");
}

/* In HardFault, on the stack armed for it: the fault status cleared, then an exception return
 * into thread mode at rho_bench__guard_resume through a frame made for it (xPSR: Thumb), which
 * leaves the stack pointer at rho_bench__call_guarded's saved registers. */
void rho_bench__guard_fault(void)
{
    uint32_t *frame = (uint32_t *)rho_bench__fault_sp;
#if RHO_BENCH__SPLIM
    RHO_BENCH__CFSR = 1u << 20; /* STKOF; write one to clear */
    RHO_BENCH__HFSR = RHO_BENCH__HFSR;
    RHO_BENCH__SHCSR &= ~(1u << 12); /* USGFAULTPENDED */
#else
    RHO_BENCH__CFSR = RHO_BENCH__CFSR & 0xFFu; /* write one to clear */
    RHO_BENCH__HFSR = RHO_BENCH__HFSR;
    RHO_BENCH__SHCSR &= ~(1u << 13); /* MEMFAULTPENDED */
#endif
#if defined(__ARM_FP)
    RHO_BENCH__FPCCR &= ~1u; /* LSPACT: no lazy floating-point state to save for that frame */
#endif
    frame[6] = (uint32_t)rho_bench__guard_resume & ~1u;
    frame[7] = 1u << 24;
    __asm__ __volatile__("msr msp, %0\n\t"
                         "bx %1\n\t"
                         :
                         : "r"(frame), "r"(0xFFFFFFF9u)
                         : "memory");
    for (;;) {
    }
}

#if RHO_BENCH__SPLIM
static uint32_t rho_bench__saved_msplim;

/* Whether the guard can be used: HardFault vectored to the harness (the core has MSPLIM). */
static const char *rho_bench__stack_init(void)
{
    if (((volatile uint32_t *)RHO_BENCH__VTOR)[3] != (uint32_t)rho_bench_fault_handler) {
        return "none";
    }
    rho_bench__mpu_region = 1; /* armed from now on */
    return "msplim";
}

/* MSPLIM at low, the painted region's low end (8-byte aligned), what it held kept. */
static void rho_bench__guard_arm(uint32_t low)
{
    __asm__ __volatile__("mrs %0, msplim" : "=r"(rho_bench__saved_msplim));
    __asm__ __volatile__("msr msplim, %0\n\tisb" : : "r"(low & ~7u) : "memory");
}

static void rho_bench__guard_disarm(void)
{
    __asm__ __volatile__("msr msplim, %0\n\tisb" : : "r"(rho_bench__saved_msplim) : "memory");
}
#else
/* Whether the guard can be used: an MPU with regions, and HardFault vectored to the harness. */
static const char *rho_bench__stack_init(void)
{
    uint32_t regions = (RHO_BENCH__MPU_TYPE >> 8) & 0xFFu;
    if (regions == 0 ||
        ((volatile uint32_t *)RHO_BENCH__VTOR)[3] != (uint32_t)rho_bench_fault_handler) {
        return "none";
    }
    rho_bench__mpu_region = regions; /* the highest number wins where regions overlap */
    return "mpu";
}

/* The guard region on [low, low + RHO_BENCH_STACK_GUARD_BYTES), what the region held kept. */
static void rho_bench__guard_arm(uint32_t low)
{
    RHO_BENCH__MPU_RNR = rho_bench__mpu_region - 1u;
    rho_bench__saved_rbar = RHO_BENCH__MPU_RBAR;
    rho_bench__saved_rasr = RHO_BENCH__MPU_RASR;
    rho_bench__saved_ctrl = RHO_BENCH__MPU_CTRL;
    rho_bench__guard_low = low;
    RHO_BENCH__MPU_RASR = 0;
    RHO_BENCH__MPU_RBAR = low;
    /* XN, AP = no access, SIZE = log2(bytes) - 1, enabled */
    RHO_BENCH__MPU_RASR =
        (1u << 28) | ((uint32_t)(__builtin_ctz(RHO_BENCH_STACK_GUARD_BYTES) - 1) << 1) | 1u;
    RHO_BENCH__MPU_CTRL = rho_bench__saved_ctrl | (1u << 2) | 1u; /* PRIVDEFENA, ENABLE */
    __asm__ __volatile__("dsb\n\tisb" ::: "memory");
}

static void rho_bench__guard_disarm(void)
{
    RHO_BENCH__MPU_RNR = rho_bench__mpu_region - 1u;
    RHO_BENCH__MPU_RASR = 0;
    RHO_BENCH__MPU_RBAR = rho_bench__saved_rbar;
    RHO_BENCH__MPU_RASR = rho_bench__saved_rasr;
    RHO_BENCH__MPU_CTRL = rho_bench__saved_ctrl;
    __asm__ __volatile__("dsb\n\tisb" ::: "memory");
}
#endif /* RHO_BENCH__SPLIM */
#else
static const char *rho_bench__stack_init(void)
{
    return "none";
}
#endif /* RHO_BENCH__MPU_GUARD */

static void rho_bench__stack_release(void)
{
}

/* The region is the RHO_BENCH_STACK_BYTES below this function's stack pointer: the benchmark's
 * frames start right there. Not inlined, so that pointer is this frame's, fixed. With an MPU
 * guard, the guard is the RHO_BENCH_STACK_GUARD_BYTES below the region's low end rounded down to
 * their size (the MPU's alignment), and the few bytes between are painted too: one of them
 * written is an overrun as well. */
static RHO_BENCH__NOINLINE size_t rho_bench__run_measured(rho_bench_fn fn, rho_bench_t *state,
                                                          int *failed)
{
    unsigned char *sp;
    unsigned char *low;
    size_t figure;
    RHO_BENCH__READ_SP(sp);
    *failed = 0;
    low = sp - RHO_BENCH_STACK_BYTES;
    rho_bench__region_limit = low + RHO_BENCH__GUARD_BYTES;
#if RHO_BENCH__MPU_GUARD
    rho_bench__stopped = 0;
    if (rho_bench__mpu_region != 0) {
#if RHO_BENCH__SPLIM
        low = (unsigned char *)((uint32_t)low & ~7u);
        rho_bench__guard_arm((uint32_t)low);
#else
        low = (unsigned char *)((uint32_t)low & ~((uint32_t)RHO_BENCH_STACK_GUARD_BYTES - 1u));
        rho_bench__guard_arm((uint32_t)low - RHO_BENCH_STACK_GUARD_BYTES);
#endif
    }
#endif
    rho_bench__paint(low, (size_t)(sp - low));
#if RHO_BENCH__MPU_GUARD
    if (rho_bench__mpu_region != 0) {
        rho_bench__stopped = rho_bench__call_guarded(fn, state);
        rho_bench__guard_disarm();
    } else
#endif
    {
        fn(state);
    }
    figure = rho_bench__stopped ? RHO_BENCH__OVERRUN
                                : rho_bench__scan(low, rho_bench__region_limit, sp);
    rho_bench__region_limit = 0;
    return figure;
}

#else

static const char *rho_bench__stack_init(void)
{
    return "off";
}

static void rho_bench__stack_release(void)
{
}

static size_t rho_bench__run_measured(rho_bench_fn fn, rho_bench_t *state, int *failed)
{
    *failed = 0;
    fn(state);
    return RHO_BENCH__STACK_OFF;
}

#endif

/* ---- The filter -------------------------------------------------------------------------- */

/* RHO_BENCH_FILTER: comma-separated terms; a benchmark runs when its name contains one of them, at
 * its start for a term that begins with `^`, at its end for one that ends with `$` (both: the whole
 * name). Hosted, from the environment; bare metal, a compile-time define (no code without it). */
#if !RHO_BENCH_BARE_METAL || defined(RHO_BENCH_FILTER)
#define RHO_BENCH__FILTERING 1
#if RHO_BENCH_BARE_METAL
static const char rho_bench__filter[] = RHO_BENCH__STR(RHO_BENCH_FILTER);
#else
static const char *rho_bench__filter; /* NULL or "": every benchmark runs */
#endif

/* The length of the filter term at `term`, up to its ',' or end, and its anchors: `*start` when it
 * begins with '^', `*end` when it ends with '$'; the name characters are term[*start .. len - *end]. */
static size_t rho_bench__term(const char *term, int *start, int *end)
{
    size_t len = 0;
    while (term[len] != ',' && term[len] != '\0') {
        len++;
    }
    *start = len > 0 && term[0] == '^';
    *end = len > (size_t)*start && term[len - 1] == '$';
    return len;
}

/* Whether the filter is terms of 1 to RHO_BENCH__FULL_NAME_MAX name characters (or '/', to pick a
 * family member's "name/arg"), each maybe anchored, separated by single commas (or empty). */
static int rho_bench__valid_filter(const char *filter)
{
    if (filter == 0 || *filter == '\0') {
        return 1;
    }
    for (;;) {
        int start, end;
        size_t len = rho_bench__term(filter, &start, &end), k;
        size_t n = len - (size_t)start - (size_t)end;
        if (n == 0 || n > RHO_BENCH__FULL_NAME_MAX) {
            return 0;
        }
        for (k = (size_t)start; k < len - (size_t)end; k++) {
            if (!rho_bench__name_char(filter[k]) && filter[k] != '/') {
                return 0;
            }
        }
        if (filter[len] == '\0') {
            return 1;
        }
        filter += len + 1;
    }
}

/* Whether `name` holds `text` (n characters) at `at`. */
static int rho_bench__holds_at(const char *name, size_t at, const char *text, size_t n)
{
    size_t k = 0;
    while (k < n && name[at + k] == text[k]) {
        k++;
    }
    return k == n;
}

/* Whether `name` matches one of the filter's terms (every name does when there is no filter). */
static int rho_bench__selected(const char *name)
{
    const char *term = rho_bench__filter;
    size_t name_len = 0;
    if (term == 0 || *term == '\0') {
        return 1;
    }
    while (name[name_len] != '\0') { /* no <string.h> on bare metal */
        name_len++;
    }
    for (;;) {
        int start, end;
        size_t len = rho_bench__term(term, &start, &end);
        const char *text = term + start;
        size_t n = len - (size_t)start - (size_t)end, at;
        if (n <= name_len) {
            /* anchored: the one place it may be; else every place, first to last */
            size_t first = end && !start ? name_len - n : 0;
            size_t last = start ? 0 : name_len - n;
            for (at = first; at <= last; at++) {
                if (rho_bench__holds_at(name, at, text, n) && (!end || at + n == name_len)) {
                    return 1;
                }
            }
        }
        if (term[len] == '\0') {
            return 0;
        }
        term += len + 1;
    }
}
#else
#define RHO_BENCH__FILTERING 0
#endif

/* ---- Running the suite ------------------------------------------------------------------- */

static void rho_bench__overhead(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

/* `wrapped=` on `@end`: only a firmware's SysTick can wrap uncounted. */
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_SYSTICK_EXTERNAL)
#define RHO_BENCH__WRAPPED_FIELD " wrapped=%u"
#define RHO_BENCH__WRAPPED_ARG , state.wrapped
#else
#define RHO_BENCH__WRAPPED_FIELD ""
#define RHO_BENCH__WRAPPED_ARG
#endif

#if RHO_BENCH__COUNTS
/* Counting: the `@count` line of the loop just run; for `.overhead`, the empty loop again with
 * twice the iterations and its `@count` line (the host fits the fixed and per-iteration costs). */
static int rho_bench__count_lines(rho_bench_fn fn, rho_bench_t *state, int *failed)
{
    rho_bench__uint first = state->measured_done;
    if (!state->counting || state->misuse != RHO_BENCH__MISUSE_NONE || first == 0) {
        return 0;
    }
    RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@count %u iterations=%u\n", rho_bench__dumps, first);
    if (fn != rho_bench__overhead) {
        return 0;
    }
    state->loops = 0;
    state->measured_target = 2 * first;
    state->measured_done = 0;
    (void)rho_bench__run_measured(fn, state, failed);
    if (*failed || state->measured_done != 2 * first) {
        return 2;
    }
    RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@count %u iterations=%u\n", rho_bench__dumps,
                     state->measured_done);
    state->measured_done = first; /* `@end iterations=` is the first loop's */
    return 0;
}
#endif

/* `overran=1` on `@end`: only a guard can stop a benchmark. */
#if RHO_BENCH__GUARDED
#define RHO_BENCH__OVERRAN_FIELD "%s"
#define RHO_BENCH__OVERRAN_ARG , rho_bench__stopped ? " overran=1" : ""
#else
#define RHO_BENCH__OVERRAN_FIELD ""
#define RHO_BENCH__OVERRAN_ARG
#endif
#if RHO_BENCH__HAS_CPU
#define RHO_BENCH__OTHER_CPU_FIELD " other_cpu_ns=%u"
#define RHO_BENCH__OTHER_CPU_ARG , state.other_cpu
#else
#define RHO_BENCH__OTHER_CPU_FIELD ""
#define RHO_BENCH__OTHER_CPU_ARG
#endif
#if RHO_BENCH__PREEMPTION
#define RHO_BENCH__PREEMPTED_FIELD " preempted=%u rerun=%u"
#define RHO_BENCH__PREEMPTED_ARG , state.preempted, state.rerun
#else
#define RHO_BENCH__PREEMPTED_FIELD ""
#define RHO_BENCH__PREEMPTED_ARG
#endif

/* Runs one benchmark and prints its block. Returns 0, or 2 (rho_bench_main's status) when the
 * stream cannot go on. */
static int rho_bench__run_one(const char *name, rho_bench_fn fn, rho_bench__uint iterations,
                              const char *family, const char *arg_digits, rho_bench__uint arg,
                              rho_bench__uint batch, int batch_priority)
{
    rho_bench_t state = RHO_BENCH__ZERO_INIT;
    size_t stack;
    int failed;

    state.name = name;
    state.arg = arg;
    state.batch_forced = batch;
    state.batch_priority = batch_priority;
    state.single_min = (rho_bench__uint)-1;
    state.next_batch = 1; /* the warm-ups are single iterations; then rho_bench__step sets it */
    state.unit = "iter";
    state.per_iteration = 1;
    state.measured_target = iterations;
    state.warmup_target = rho_bench__config.warmup;
#if RHO_BENCH__HAS_TIME
    /* ns; a cap beyond what fits is no cap at all in practice */
    state.cap_limit = rho_bench__config.time_cap_ms > (rho_bench__uint)-1 / 1000000u
                          ? (rho_bench__uint)-1
                          : rho_bench__config.time_cap_ms * 1000000u;
#else
    /* cycles, folded at compile time: hz/1000 cycles a millisecond, saturating. */
    state.cap_limit =
        (unsigned long long)RHO_BENCH_CPU_HZ / 1000u * RHO_BENCH_TIME_CAP_MS > 0xFFFFFFFFull
            ? 0xFFFFFFFFu
            : (uint32_t)((unsigned long long)RHO_BENCH_CPU_HZ / 1000u * RHO_BENCH_TIME_CAP_MS);
#endif

#if RHO_BENCH__COUNTS
    if (rho_bench__counting) {
        state.counting = 1;
        state.cap_limit = 0; /* a count does not depend on time: no cap */
    }
#endif

    if (family != 0) {
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@bench %s family=%s arg=%s\n", name, family,
                         arg_digits);
    } else {
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@bench %s\n", name);
    }
    rho_bench__emit_flush();
#if defined(RHO_BENCH_PORT_HEAP_RESET)
    rho_bench_port_heap_reset(); /* the allocator as the first benchmark found it */
#endif
    /* The sample buffer is empty here: every block's samples were written out at its end. */
#if RHO_BENCH__GUARDED
    rho_bench__block_samples = 0;
#endif
    stack = rho_bench__run_measured(fn, &state, &failed);
    if (failed) {
        return 2;
    }
#if RHO_BENCH__GUARDED
    if (rho_bench__stopped && state.counting) {
        state.measured_done = 0; /* no count: the dump it would have read was never made */
    } else if (rho_bench__stopped) {
        /* Stopped by a fault on the stack guard, in an iteration (or before the loop): the
         * block closes with the samples it has. An iteration counted in the state but not yet
         * in the buffer (the fault came in between) is not counted. */
        rho_bench__uint batch = state.batch != 0 ? state.batch : 1u; /* iterations a sample */
        if (state.warmup_done + state.measured_done / batch >
            rho_bench__block_samples + rho_bench__sample_count) {
            if (state.measured_done >= batch) {
                state.measured_done -= batch;
            } else {
                state.warmup_done--;
            }
        }
    }
#endif
    rho_bench__write_samples();
#if RHO_BENCH__COUNTS
    if (rho_bench__count_lines(fn, &state, &failed) != 0) {
        return 2;
    }
#endif
    if (rho_bench__batch_unit == 0 && state.single_min != (rho_bench__uint)-1) {
        /* `.overhead`, the first block: the cost of the reads sets the unit batches are sized in */
        rho_bench__uint step = rho_bench__sizing_step != 0 ? rho_bench__sizing_step : 1u;
        rho_bench__batch_unit = state.single_min > step ? state.single_min : step;
    }

    if (state.misuse == RHO_BENCH__MISUSE_TWO_LOOPS) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                         "rho: %s: RHO_BENCH_LOOP entered more than once; one loop a benchmark\n",
                         name);
        return 2;
    }
    if (!rho_bench__valid_name(state.unit)) {
        rho_bench__bad_name(name, ": RHO_BENCH_UNIT", state.unit);
        return 2;
    }
    if (state.per_iteration == 0) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                         "rho: %s: RHO_BENCH_UNIT: 0 units an iteration; at least 1\n", name);
        return 2;
    }

    if (stack == RHO_BENCH__STACK_OFF || stack == RHO_BENCH__OVERRUN) {
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@stack %s\n",
                         stack == RHO_BENCH__STACK_OFF ? "off" : "overrun");
    } else {
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@stack %u\n", RHO_BENCH__U(stack));
    }
    RHO_BENCH__PRINT(RHO_BENCH__STREAM,
                     "@heap peak=%u live=%u allocs=%u frees=%u free_errors=%u\n"
                     "@end %s iterations=%u warmup=%u capped=%u unit=%s "
                     "per_iteration=%u batch=%u" RHO_BENCH__WRAPPED_FIELD RHO_BENCH__OVERRAN_FIELD
                     RHO_BENCH__OTHER_CPU_FIELD RHO_BENCH__PREEMPTED_FIELD "\n",
                     state.heap_peak, rho_bench__heap_held(&state), state.heap_allocs, state.heap_frees,
                     state.heap_free_errors, name, state.measured_done, state.warmup_done,
                     RHO_BENCH__U(state.capped), state.unit,
                     state.per_iteration, RHO_BENCH__U(state.batch != 0 ? state.batch : 1u) RHO_BENCH__WRAPPED_ARG RHO_BENCH__OVERRAN_ARG
                     RHO_BENCH__OTHER_CPU_ARG RHO_BENCH__PREEMPTED_ARG);
    rho_bench__emit_flush();
    return 0;
}

#if defined(__x86_64__)
#define RHO_BENCH__ARCH "x86_64"
#elif defined(__aarch64__)
#define RHO_BENCH__ARCH "aarch64"
#elif defined(__i386__)
#define RHO_BENCH__ARCH "i386"
#elif defined(__ARM_ARCH_6M__)
#define RHO_BENCH__ARCH "armv6-m"
#elif defined(__ARM_ARCH_7M__)
#define RHO_BENCH__ARCH "armv7-m"
#elif defined(__ARM_ARCH_7EM__)
#define RHO_BENCH__ARCH "armv7e-m"
#elif defined(__ARM_ARCH_8M_BASE__)
#define RHO_BENCH__ARCH "armv8-m.base"
#elif defined(__ARM_ARCH_8M_MAIN__)
#define RHO_BENCH__ARCH "armv8-m.main"
#elif defined(__ARM_ARCH_8_1M_MAIN__)
#define RHO_BENCH__ARCH "armv8.1-m.main"
#elif defined(__arm__)
#define RHO_BENCH__ARCH "arm"
#elif defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 64
#define RHO_BENCH__ARCH "riscv64"
#elif defined(__riscv)
#define RHO_BENCH__ARCH "riscv32"
#elif defined(__powerpc64__)
#define RHO_BENCH__ARCH "ppc64"
#elif defined(__s390x__)
#define RHO_BENCH__ARCH "s390x"
#else
#define RHO_BENCH__ARCH "unknown"
#endif

#if defined(RHO_BENCH_TARGET)
#define RHO_BENCH__TARGET RHO_BENCH__STR(RHO_BENCH_TARGET)
#elif RHO_BENCH_BARE_METAL
#define RHO_BENCH__TARGET "cortex-m"
#else
#define RHO_BENCH__TARGET "host"
#endif

#if defined(__OPTIMIZE__)
#define RHO_BENCH__OPTIMIZED "1"
#else
#define RHO_BENCH__OPTIMIZED "0"
#endif

/* The header records, in one write. Everything known at compile time is one literal (it is code
 * size on a board); the compiler's version is sanitised into a name at run time. */
#if defined(__clang__)
#define RHO_BENCH__COMPILER " compiler=clang-%n"
#define RHO_BENCH__COMPILER_VERSION \
    RHO_BENCH__STR(__clang_major__) "." RHO_BENCH__STR(__clang_minor__) "." RHO_BENCH__STR(__clang_patchlevel__)
#elif defined(__GNUC__) && defined(__VERSION__)
#define RHO_BENCH__COMPILER " compiler=gcc-%n"
#define RHO_BENCH__COMPILER_VERSION __VERSION__
#else
#define RHO_BENCH__COMPILER "%s"
#define RHO_BENCH__COMPILER_VERSION ""
#endif

/* The `@clock` lines and their arguments (each argument list ends with a comma). The resolution of
 * the clock batches are sized on (the cycle clock, else the time clock) is the one measured for the
 * sizing, rho_bench__sizing_step: read once, and the stream shows the figure the harness used. */
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_SYSTICK_EXTERNAL)
/* A SysTick the firmware runs from its external reference clock (CLKSOURCE clear) counts at a
 * rate only the board knows: ticks, hz unknown. */
#define RHO_BENCH__CYCLES_ARGS                                                      \
    rho_bench__systick_period == 0 ? "dwt unit=cycle"                               \
    : ticks                        ? "systick unit=tick"                            \
                                   : "systick unit=cycle",                          \
        RHO_BENCH__U(ticks ? 0 : RHO_BENCH_CPU_HZ), rho_bench__sizing_step,
#elif RHO_BENCH__UP_COUNTER && defined(RHO_BENCH_PORT_CLOCK)
#define RHO_BENCH__CYCLES_ARGS \
    RHO_BENCH__STR(RHO_BENCH_PORT_CLOCK), RHO_BENCH__U(RHO_BENCH_CPU_HZ), rho_bench__sizing_step,
#elif RHO_BENCH__UP_COUNTER
#define RHO_BENCH__CYCLES_ARGS "mcycle", RHO_BENCH__U(RHO_BENCH_CPU_HZ), rho_bench__sizing_step,
#elif RHO_BENCH_BARE_METAL
/* The harness's own SysTick runs on the core clock. */
#define RHO_BENCH__CYCLES_ARGS                                                         \
    rho_bench__systick_period == 0 ? "dwt" : "systick", RHO_BENCH__U(RHO_BENCH_CPU_HZ), \
        rho_bench__sizing_step,
#elif defined(__aarch64__)
#define RHO_BENCH__CYCLES_ARGS "cntvct unit=tick", rho_bench__cycles_hz, rho_bench__sizing_step,
#elif RHO_BENCH__HAS_CYCLES
#define RHO_BENCH__CYCLES_ARGS "tsc unit=cycle", rho_bench__cycles_hz, rho_bench__sizing_step,
#endif
#if RHO_BENCH_BARE_METAL && !defined(RHO_BENCH_SYSTICK_EXTERNAL)
#define RHO_BENCH__CYCLES_LINE "@clock cycles %s unit=cycle hz=%u resolution=%u\n"
#elif RHO_BENCH__HAS_CYCLES
#define RHO_BENCH__CYCLES_LINE "@clock cycles %s hz=%u resolution=%u\n"
#else
#define RHO_BENCH__CYCLES_LINE ""
#define RHO_BENCH__CYCLES_ARGS
#endif
#if RHO_BENCH__HAS_TIME
#define RHO_BENCH__TIME_LINE \
    "@clock time " RHO_BENCH__TIME_NAME " unit=ns hz=1000000000 resolution=%u\n"
#if RHO_BENCH__HAS_CYCLES
#define RHO_BENCH__TIME_ARGS rho_bench__resolution_of(rho_bench__time_now),
#else
#define RHO_BENCH__TIME_ARGS rho_bench__sizing_step,
#endif
#else
#define RHO_BENCH__TIME_LINE ""
#define RHO_BENCH__TIME_ARGS
#endif
#if RHO_BENCH__HAS_CPU
#define RHO_BENCH__CPU_LINE \
    "@clock cpu clock_thread_cputime unit=ns hz=1000000000 resolution=%u\n"
#define RHO_BENCH__CPU_ARGS rho_bench__cpu_resolution(),
#else
#define RHO_BENCH__CPU_LINE ""
#define RHO_BENCH__CPU_ARGS
#endif

/* The stream's format version (docs/wire-format.md, "Versions"). */
#define RHO_BENCH__WIRE_VERSION "9"
#define RHO_BENCH__TARGET_LINE                                                                   \
    "@rho-bench " RHO_BENCH__WIRE_VERSION "\n@target " RHO_BENCH__TARGET " arch=" RHO_BENCH__ARCH \
    " optimized=" RHO_BENCH__OPTIMIZED RHO_BENCH__COMPILER "\n"

/* `@config stack_guard=`: what catches an overrun, known at run time where a guard may be set up
 * (hosted; a Cortex-M with an MPU), else a literal: no code for it on a board without one. */
#if RHO_BENCH_BARE_METAL && !RHO_BENCH__MPU_GUARD
#define RHO_BENCH__GUARD_FIELD RHO_BENCH__GUARD_NAME
#define RHO_BENCH__GUARD_ARG
#if RHO_BENCH_STACK_BYTES > 0
#define RHO_BENCH__GUARD_NAME "none"
#else
#define RHO_BENCH__GUARD_NAME "off"
#endif
#else
#define RHO_BENCH__GUARD_FIELD "%s"
#define RHO_BENCH__GUARD_ARG , stack_guard
#endif

/* `@counter instructions NAME`: who counts, Callgrind on a host, QEMU's plugin on a board. */
#if RHO_BENCH_BARE_METAL
#define RHO_BENCH__COUNTER "qemu"
#else
#define RHO_BENCH__COUNTER "callgrind"
#endif

static void rho_bench__write_header(const char *stack_guard)
{
    (void)stack_guard; /* a literal in the format on a board without a guard */
#if RHO_BENCH__COUNTS
    if (rho_bench__counting) {
        /* No clock: Callgrind counts, and its dumps hold the figures (see "Counting"). */
        RHO_BENCH__PRINT(RHO_BENCH__STREAM,
                         RHO_BENCH__TARGET_LINE "@counter instructions " RHO_BENCH__COUNTER "\n"
                         "@config iterations=%u warmup=%u time_cap_ms=0 stack_bytes=%u "
                         "stack_guard=" RHO_BENCH__GUARD_FIELD "\n",
                         RHO_BENCH__COMPILER_VERSION, rho_bench__config.iterations,
                         rho_bench__config.warmup,
                         rho_bench__config.stack_bytes RHO_BENCH__GUARD_ARG);
        return;
    }
#endif
#if RHO_BENCH_BARE_METAL && defined(RHO_BENCH_SYSTICK_EXTERNAL)
    int ticks = rho_bench__systick_period != 0 && (RHO_BENCH__SYST_CSR & (1u << 2)) == 0;
#endif
    RHO_BENCH__PRINT(RHO_BENCH__STREAM,
                     RHO_BENCH__TARGET_LINE RHO_BENCH__CYCLES_LINE RHO_BENCH__TIME_LINE
                         RHO_BENCH__CPU_LINE
                     "@config iterations=%u warmup=%u time_cap_ms=%u stack_bytes=%u "
                     "stack_guard=" RHO_BENCH__GUARD_FIELD "\n",
                     RHO_BENCH__COMPILER_VERSION, RHO_BENCH__CYCLES_ARGS RHO_BENCH__TIME_ARGS
                         RHO_BENCH__CPU_ARGS
                     rho_bench__config.iterations, rho_bench__config.warmup,
                     rho_bench__config.time_cap_ms,
                     rho_bench__config.stack_bytes RHO_BENCH__GUARD_ARG);
}

/* ---- Yardstick ---------------------------------------------------------------------------
 *
 * A fixed reference loop, the same in every build of every suite (docs/wire-format.md,
 * "Yardstick"): a baseline keeps its figures, and a later comparison measures it again, so a
 * machine that got slower or faster as a whole (another runner, another clock speed, a neighbour
 * on the physical core) is told apart from the code. Its body is a dependent chain: a multiply
 * and shifts on one register, and a walk of a 64-byte ring of indices (each load's address is the
 * last load's value), so it is bound by latency, which a busy sibling affects least, never by
 * throughput. The empty asm makes both chains opaque each iteration: no compiler flag can
 * vectorise, unroll into a closed form or drop it. Its absolute figure still depends on the
 * compiler and its flags; only the ratio between two runs built the same way is used. Run once
 * per run, after `@config` and before `.overhead`: one untimed pass (the ring into the cache),
 * then RHO_BENCH_YARDSTICK_REPETITIONS timed ones, each read on every clock like a sample. Not
 * in a counted run (no clock), nor with RHO_BENCH_SYSTICK_EXTERNAL (a wrap of SysTick would go
 * unseen). */
#if !(RHO_BENCH_BARE_METAL && defined(RHO_BENCH_MEASURE_INSTRUCTIONS)) && \
    !defined(RHO_BENCH_SYSTICK_EXTERNAL)
#define RHO_BENCH__YARDSTICK 1
/* The ring: slot i holds i + 37 (mod 64), one cycle through all 64 (37 is odd). Read-only data: no
 * RAM, no code to fill it. */
#define RHO_BENCH__Y1(i) (unsigned char)(((i) + 37u) & 63u)
#define RHO_BENCH__Y8(i)                                                                         \
    RHO_BENCH__Y1(i), RHO_BENCH__Y1((i) + 1u), RHO_BENCH__Y1((i) + 2u), RHO_BENCH__Y1((i) + 3u), \
        RHO_BENCH__Y1((i) + 4u), RHO_BENCH__Y1((i) + 5u), RHO_BENCH__Y1((i) + 6u),               \
        RHO_BENCH__Y1((i) + 7u)
static const unsigned char rho_bench__yardstick_ring[64] = {
    RHO_BENCH__Y8(0u),  RHO_BENCH__Y8(8u),  RHO_BENCH__Y8(16u), RHO_BENCH__Y8(24u),
    RHO_BENCH__Y8(32u), RHO_BENCH__Y8(40u), RHO_BENCH__Y8(48u), RHO_BENCH__Y8(56u)};

static RHO_BENCH__NOINLINE uint32_t rho_bench__yardstick_loop(uint32_t iterations, uint32_t x)
{
    uint32_t at = 0, i;
    const unsigned char *ring = rho_bench__yardstick_ring;
    /* the ring's address made opaque: its known contents cannot be folded into arithmetic */
    __asm__ __volatile__("" : "+r"(ring));
    for (i = 0; i < iterations; i++) {
        x = x * 2654435761u + (x >> 13);
        x ^= x << 7;
        at = ring[at & 63u];
        x += at;
        __asm__ __volatile__("" : "+r"(x), "+r"(at));
    }
    return x + at;
}

static void rho_bench__yardstick(void)
{
    /* The loop's result feeds the next repetition and, at the end, an asm that uses it: nothing is
     * dropped, and nothing is stored. */
    uint32_t seed = rho_bench__yardstick_loop(RHO_BENCH_YARDSTICK_ITERATIONS, 1u), r;
    RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@yardstick rho1 iterations=%u repetitions=%u\n",
                     RHO_BENCH__U(RHO_BENCH_YARDSTICK_ITERATIONS),
                     RHO_BENCH__U(RHO_BENCH_YARDSTICK_REPETITIONS));
    for (r = 0; r < RHO_BENCH_YARDSTICK_REPETITIONS; r++) {
        unsigned k = 0;
#if RHO_BENCH__HAS_CPU
        rho_bench__uint cpu_start = rho_bench__cpu_now(), cpu_stop;
#endif
#if RHO_BENCH__HAS_TIME
        rho_bench__uint time_start = rho_bench__time_now(), time_stop;
#endif
#if RHO_BENCH__HAS_CYCLES
        rho_bench__uint cycles_start = rho_bench__cycles_start(), cycles_stop;
#endif
        seed = rho_bench__yardstick_loop(RHO_BENCH_YARDSTICK_ITERATIONS, seed);
#if RHO_BENCH__HAS_CYCLES
        cycles_stop = rho_bench__cycles_stop();
#endif
#if RHO_BENCH__HAS_TIME
        time_stop = rho_bench__time_now();
#endif
#if RHO_BENCH__HAS_CPU
        cpu_stop = rho_bench__cpu_now();
#endif
        /* one sample line, in @clock order (cycles, time, cpu), written as the samples are */
#if RHO_BENCH__HAS_CYCLES
        rho_bench__samples[0][k++] = cycles_stop - cycles_start;
#endif
#if RHO_BENCH__HAS_TIME
        rho_bench__samples[0][k++] = time_stop - time_start;
#endif
#if RHO_BENCH__HAS_CPU
        rho_bench__samples[0][k++] = cpu_stop - cpu_start;
#endif
        (void)k;
        rho_bench__sample_count = 1;
        rho_bench__write_samples();
    }
    __asm__ __volatile__("" : : "r"(seed));
}
#endif

#if !RHO_BENCH_BARE_METAL
/* RHO_BENCH_LIST: 1 when the run only lists (`1`), 0 when it runs (unset, empty or `0`), -1 (said
 * on stderr) for anything else. */
static int rho_bench__list_wanted(void)
{
    const char *text = getenv("RHO_BENCH_LIST");
    if (text == 0 || text[0] == '\0' || strcmp(text, "0") == 0) {
        return 0;
    }
    if (strcmp(text, "1") == 0) {
        return 1;
    }
    return rho_bench__bad_setting("RHO_BENCH_LIST", "1 (list the benchmarks) or 0", text);
}

/* The listing (RHO_BENCH_LIST=1, docs/wire-format.md "Listing"): `@list NAME` for each benchmark the
 * filter selects, in run order (a family member as NAME/ARG), then `@done`. Nothing is measured, no
 * clock is read and `.overhead` does not run: a host learns a suite's names for the price of its
 * start-up (a sharded run plans its share from them). */
static int rho_bench__list(const rho_bench_suite_t *suite)
{
    unsigned i, listed = 0;
    for (i = 0; i < suite->count; i++) {
        char full_name[RHO_BENCH__FULL_NAME_MAX + 1];
        const char *name = suite->entries[i].name;
        if (suite->entries[i].has_arg) {
            (void)rho_bench__member_name(full_name, name, suite->entries[i].arg);
            name = full_name;
        }
        if (!rho_bench__selected(name)) {
            continue;
        }
        listed++;
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@list %s\n", name);
    }
    RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@done benchmarks=%u dropped=%u\n", RHO_BENCH__U(listed),
                     RHO_BENCH__U(suite->dropped));
    if (fflush(stdout) != 0 || rho_bench__output_failed || ferror(stdout)) {
        fprintf(stderr, "rho: writing the listing to stdout failed\n");
        return 2;
    }
    return 0;
}
#endif

int rho_bench_main(rho_bench_suite_t *suite, int argc, char **argv)
{
    unsigned i, ran = 0;
    int status = 0;
    (void)argc;
    (void)argv;

    if (suite == 0) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC, "rho: rho_bench_main: the suite is NULL\n");
        return 2;
    }
    if (suite->refused != 0) {
        return 2; /* each was reported when it was added */
    }
    if (rho_bench__read_settings() != 0 || rho_bench__perf_init() != 0) {
        return 2;
    }
#if RHO_BENCH__FILTERING
#if !RHO_BENCH_BARE_METAL
    rho_bench__filter = getenv("RHO_BENCH_FILTER");
#endif
    if (!rho_bench__valid_filter(rho_bench__filter)) {
        RHO_BENCH__PRINT(RHO_BENCH__DIAGNOSTIC,
                         "rho: RHO_BENCH_FILTER: expected names (1 to 85 of [A-Za-z0-9_.:+/-], "
                         "each maybe ^anchored$) separated by commas, got \"%s\"\n",
                         rho_bench__filter);
        return 2;
    }
#endif
    for (i = 0; i < suite->count; i++) {
        if (!rho_bench__valid_name(suite->entries[i].name)) {
            rho_bench__bad_name("", "benchmark name", suite->entries[i].name);
            return 2;
        }
#if !RHO_BENCH_BARE_METAL
        {
            rho_bench__uint iterations, batch;
            int priority;
            if (rho_bench__iterations_for(suite->entries[i].name, &iterations) != 0 ||
                rho_bench__batch_for(suite->entries[i].name, &batch, &priority) != 0) {
                return 2;
            }
        }
#endif
    }
#if defined(RHO_BENCH_TARGET)
    if (!rho_bench__valid_name(RHO_BENCH__TARGET)) {
        rho_bench__bad_name("", "RHO_BENCH_TARGET", RHO_BENCH__TARGET);
        return 2;
    }
#endif

#if !RHO_BENCH_BARE_METAL
    switch (rho_bench__list_wanted()) {
    case 1:
        return rho_bench__list(suite);
    case -1:
        return 2;
    default:
        break;
    }
#endif

#if RHO_BENCH_BARE_METAL
    /* Counting, no clock runs: SysTick's wrap exception would be counted in the loops. */
    if (!rho_bench__counting && rho_bench__clock_init() != 0) {
        return 2;
    }
#else
    if (rho_bench__read_measure() != 0) {
        return 2;
    }
    if (!rho_bench__counting) {
        rho_bench__clock_init();
    }
    /* Counting takes no turns: a count does not depend on what else runs. */
    if (!rho_bench__counting && rho_bench__lockstep_init() != 0) {
        return 2;
    }
#endif
#if RHO_BENCH__HAS_CYCLES
    rho_bench__sizing_step = rho_bench__cycles_resolution();
#else
    rho_bench__sizing_step = rho_bench__resolution_of(rho_bench__time_now);
#endif
    rho_bench__write_header(rho_bench__stack_init());
#if defined(RHO_BENCH__YARDSTICK)
    if (!rho_bench__counting) {
        rho_bench__yardstick();
    }
#endif

    status = rho_bench__run_one(".overhead", rho_bench__overhead, RHO_BENCH_OVERHEAD_ITERATIONS,
                                0, 0, 0, 1, 3);
    for (i = 0; i < suite->count && status == 0; i++) {
        rho_bench__uint iterations = rho_bench__config.iterations, batch = RHO_BENCH_BATCH;
        int priority = RHO_BENCH_BATCH != 0 ? 1 : 0;
        /* a family member is printed, filtered and reported as "name/arg" */
        char full_name[RHO_BENCH__FULL_NAME_MAX + 1];
        const char *name = suite->entries[i].name, *arg_digits = 0;
        if (suite->entries[i].has_arg) {
            arg_digits = rho_bench__member_name(full_name, name, suite->entries[i].arg);
            name = full_name;
        }
#if RHO_BENCH__FILTERING
        if (!rho_bench__selected(name)) {
            continue; /* filtered out: not run, not printed */
        }
        ran++;
#endif
#if !RHO_BENCH_BARE_METAL
        (void)rho_bench__iterations_for(suite->entries[i].name, &iterations);
        (void)rho_bench__batch_for(suite->entries[i].name, &batch, &priority);
#endif
        status = rho_bench__run_one(name, suite->entries[i].fn, iterations,
                                    suite->entries[i].has_arg ? suite->entries[i].name : 0,
                                    arg_digits, suite->entries[i].arg, batch, priority);
    }
#if !RHO_BENCH__FILTERING
    ran = suite->count;
#endif
    rho_bench__stack_release();
    if (status == 0) {
        /* benchmarks= counts the blocks printed, so the filtered-out ones are not in it */
        RHO_BENCH__PRINT(RHO_BENCH__STREAM, "@done benchmarks=%u dropped=%u\n", RHO_BENCH__U(ran),
                         RHO_BENCH__U(suite->dropped));
    }
#if !RHO_BENCH_BARE_METAL
    if (fflush(stdout) != 0 || rho_bench__output_failed || ferror(stdout)) {
        fprintf(stderr, "rho: writing the stream to stdout failed\n");
        status = 2;
    }
#endif
    return status;
}

#endif /* RHO_BENCH_IMPLEMENTATION */
