//! `rho bench init`: a commented module.yml and a first suite under bench/ that builds and runs, in the
//! current directory (a git repository or not), then the next three commands. It never overwrites a file:
//! when either file is already there, nothing is written.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};

/// Where the first suite goes, relative to the module root.
const SUITE_PATH: &str = "bench/first_bench.c";

const MODULE_YML: &str = "\
# rho's module config: `rho bench` (no file arguments) finds this file from here or any directory below,
# builds and runs the suites it names, and reports each figure against its budget; `rho bench check` does
# the same and exits 1 when a budget is broken. Every key is described in rho's docs/config.md.
bench:
  default_iterations: 20000     # measured iterations per benchmark
  warmup_runs: 100              # discarded iterations before measuring
  stack_watermark: true         # paint the stack and report how deep each benchmark went
  repetitions: 1                # run each suite N times and keep each figure's best run
  time_cap_ms: 5000             # stop measuring a benchmark after 5 s of it (0: no cap)
  measure: time                 # time (cycles, ns) or instructions (exact counts, under Valgrind)

  # Ceilings for every benchmark, judged on the net median; a benchmark's own budgets replace them.
  # Set them a little above what `rho bench` measures, so a real slowdown breaks them and noise does not.
  budgets:
    max_stack_bytes: 4096
    max_heap_bytes: 0           # the first suite allocates nothing
    max_cycles_per_iteration: 1000000
    fail_on_regression_percent: 50.0   # with --diff REF: a slowdown past this against the baseline fails

  # Per-benchmark settings and budgets, over the ones above:
  # benchmarks:
  #   bench_sum_1k:
  #     iterations: 5000
  #     budgets:
  #       max_ns_per_op: 10.0

  # The suites: one C file is one suite; a list of files is built together into one suite.
  suites:
    - bench/first_bench.c
    # - [bench/other_bench.c, src/code_under_test.c]

  # Where the suites run: `host` is this machine (the first listed is the default).
  targets:
    - host
";

const FIRST_SUITE: &str = r#"/*
 * A first rho suite: `rho bench` builds it with the harness (rho/bench.h, which rho supplies) and runs it.
 * Each benchmark is a function taking the harness's state; the body of RHO_BENCH_LOOP is what is timed.
 * Replace the sum below with the code you want to measure, and add a RHO_BENCH_ADD line for each benchmark.
 */
#include <rho/bench.h>

#include <stdint.h>

/* Not const: the compiler must assume RHO_BENCH_KEEP's memory clobber may have changed it. */
static uint32_t data[1024];

static uint32_t sum(const uint32_t *values, int count)
{
    uint32_t total = 0;
    int i;
    for (i = 0; i < count; i++) {
        total += values[i];
    }
    return total;
}

static void bench_sum_1k(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "item", 1024); /* one iteration sums 1024 items: rates are items per second */
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(sum(data, 1024)); /* keep the result, so the work is not optimised away */
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    int i;
    for (i = 0; i < 1024; i++) {
        data[i] = (uint32_t)i * 2654435761u;
    }
    RHO_BENCH_ADD(&suite, bench_sum_1k);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// Write module.yml and the first suite into `dir`, then say what was written and what to run next.
pub fn init(dir: &Path, out: &mut dyn std::io::Write) -> anyhow::Result<ExitCode> {
    let module = dir.join(rho_config::MODULE_FILE);
    let suite = dir.join(SUITE_PATH);
    // Both checked before either is written: a half-done init is worse than none.
    for path in [&module, &suite] {
        if path.exists() {
            bail!(
                "{} already exists: rho bench init never overwrites a file (nothing was written)",
                path.display()
            );
        }
    }
    if let Some(parent) = suite.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    write_new(&module, MODULE_YML)?;
    write_new(&suite, FIRST_SUITE)?;
    let text = format!(
        "wrote {} (commented; every key is in docs/config.md) and {SUITE_PATH} (a first suite)\n\
         next:\n\
         \x20 rho bench                    # build, run and report the suites module.yml names\n\
         \x20 rho bench check              # the same, exit 1 when a budget is broken\n\
         \x20 rho bench --write-baseline   # record a baseline; later `rho bench --diff HEAD` compares with it\n",
        rho_config::MODULE_FILE,
    );
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Create `path` with `text`, failing (never truncating) when it exists.
fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The subcommands of `rho bench`, for "did you mean".
pub const SUBCOMMANDS: [&str; 5] = ["check", "gate", "init", "show", "compare"];

/// `rho bench chek`: a lone word that is not a file and is close to a subcommand is a typo of it, not a
/// suite. `None` when the arguments are anything else (the build then says what is wrong with them).
pub fn did_you_mean(files: &[std::path::PathBuf]) -> Option<String> {
    let [only] = files else { return None };
    if only.exists() {
        return None;
    }
    let word = only.to_str()?;
    let subcommand = rho_config::closest_word(word, &SUBCOMMANDS)?;
    Some(format!(
        "`{word}` is not a file, nor a subcommand of rho bench; did you mean `rho bench {subcommand}`?"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_typo_of_a_subcommand_is_named() {
        let typo = |word: &str| did_you_mean(&[PathBuf::from(word)]);
        assert!(typo("chek").unwrap().contains("`rho bench check`"));
        assert!(typo("gaet").unwrap().contains("`rho bench gate`"));
        assert!(typo("int").unwrap().contains("`rho bench init`"));
        assert_eq!(typo("suite.c"), None);
        assert_eq!(typo("qwerty"), None);
        assert_eq!(
            did_you_mean(&[PathBuf::from("chek"), PathBuf::from("b.c")]),
            None
        );
    }

    #[test]
    fn init_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bench")).unwrap();
        std::fs::write(dir.path().join(SUITE_PATH), "mine").unwrap();
        let error = init(dir.path(), &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert!(!dir.path().join("module.yml").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(SUITE_PATH)).unwrap(),
            "mine"
        );
    }

    #[test]
    fn the_module_file_is_valid_config_naming_the_suite() {
        let config =
            rho_config::ModuleConfig::from_str(MODULE_YML, Path::new("module.yml")).unwrap();
        assert_eq!(
            config.budgets_for("bench_sum_1k").max_stack_bytes,
            Some(4096)
        );
        assert!(MODULE_YML.contains(SUITE_PATH));
    }
}
