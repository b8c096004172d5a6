//! Preempted samples (wire version 7, `@end preempted=`; version 9, `rerun=`): the C harness sees the measured
//! samples during which its thread was switched out involuntarily, measures them again within a bound, and
//! counts the ones measured again and the ones kept. Planted, not hoped for: the suite and a busy
//! loop are pinned to one core, so the scheduler has to take turns between them while the body spins for
//! 2 ms of its own CPU time a sample.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Outcome, read_json};

/// One benchmark whose body spins `SPIN_NS` of its thread's CPU time: longer than a sample can last beside a
/// busy loop on the same core without being switched out now and then.
const SUITE: &str = r#"#include <rho/bench.h>
#include <time.h>

#define SPIN_NS 2000000L

static long thread_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (long)now.tv_sec * 1000000000L + now.tv_nsec;
}

/* Stands for a 16-byte block an iteration allocates and keeps (reported, never freed). */
static char kept_block[16];

static void bench_spin(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        long start = thread_ns();
        RHO_BENCH_HEAP_ALLOC(state, kept_block, sizeof kept_block);
        while (thread_ns() - start < SPIN_NS) {
        }
    }
}

int main(int argc, char **argv)
{
    static rho_bench_suite_t suite;
    RHO_BENCH_ADD(&suite, bench_spin);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// A busy loop pinned to core 0, killed (by its own id) when dropped.
struct Neighbour(Child);

impl Neighbour {
    fn start() -> Neighbour {
        Neighbour(
            Command::new("taskset")
                .args(["-c", "0", "sh", "-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        )
    }
}

impl Drop for Neighbour {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const ITERATIONS: u64 = 30;

#[test]
fn samples_the_scheduler_interrupted_are_counted() {
    let test = "samples_the_scheduler_interrupted_are_counted";
    if !cfg!(target_os = "linux") || !common::tools_present(test, &[("taskset", "util-linux")]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let suite = common::write_c(tmp.path(), "spin.c", SUITE);
    let json = tmp.path().join("run.json");
    let iterations = ITERATIONS.to_string();
    let neighbour = Neighbour::start();
    let args = [
        "-c",
        "0",
        env!("CARGO_BIN_EXE_rho"),
        "bench",
        suite.to_str().unwrap(),
        "--iterations",
        &iterations,
        "--warmup",
        "1",
        "--json",
        json.to_str().unwrap(),
    ];
    let mut command = Command::new("taskset");
    command.args(args).env("TMPDIR", tmp.path());
    let run: Outcome = common::run_rho(command, &args, Duration::from_secs(300));
    drop(neighbour);
    run.assert_exit(0);
    let document = read_json(&json);
    let spin = common::bench(&document, "bench_spin");
    let preempted = common::u64_at(spin, "/preempted");
    let rerun = common::u64_at(spin, "/rerun");
    // Each sample of 2 ms of CPU time lasts 4 ms or more beside the loop, across the scheduler's turns: some
    // were switched out. An interrupted sample is measured again while the benchmark has re-runs left (one per
    // 4 samples asked for: 8 of 30), then kept and counted; every sample asked for is there.
    let bound = ITERATIONS.div_ceil(4);
    assert!(
        preempted + rerun >= 1 && rerun <= bound && preempted <= ITERATIONS,
        "{preempted} preempted, {rerun} re-run: {}",
        run.describe()
    );
    // Every sample spins the same CPU time, so an interrupted one is kept only once the re-runs are used up.
    if preempted > 0 {
        assert_eq!(rerun, bound, "{}", run.describe());
    }
    assert_eq!(common::u64_at(spin, "/iterations"), ITERATIONS);
    // Every iteration keeps 16 bytes. The measured iterations' allocations are counted; live and peak hold
    // the warm-up's 16 bytes too (the C harness's live= is the whole benchmark's). A sample measured again
    // still holds its bytes, but they are not the figures'.
    let heap = (
        common::u64_at(spin, "/heap/allocs"),
        common::u64_at(spin, "/heap/live"),
        common::u64_at(spin, "/heap/peak"),
    );
    let held = 16 * (ITERATIONS + 1);
    assert_eq!(heap, (ITERATIONS, held, held), "{}", run.describe());
    let mut said = format!(
        "preempted: {} measured sample(s) interrupted by the scheduler: ",
        preempted + rerun
    );
    if rerun > 0 {
        said.push_str(&format!("{rerun} measured again (bench_spin {rerun})"));
    }
    if preempted > 0 {
        said.push_str(&format!(
            "{}{preempted} kept (bench_spin {preempted})",
            if rerun > 0 { ", " } else { "" }
        ));
    }
    let report = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        report.contains(&said),
        "{said:?} not in: {}",
        run.describe()
    );
}
