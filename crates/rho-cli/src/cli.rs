//! The command line, as clap reads it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// rho: benchmarks for C code on a host or a board — cycles, time, stack and heap per iteration.
#[derive(Debug, Parser)]
#[command(name = "rho", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build benchmark suites (C and C++ against the bundled harness, Rust with rho-bench, or any command that
    /// prints the wire stream), run them and report per benchmark.
    Bench(Box<BenchArgs>),
    /// The static footprint of a built image: sections as `size -A` lists them, symbols with sizes and, with
    /// GCC's stack-usage files, each function's reachable code and static stack bound (crate rho-mem).
    Mem(rho_mem::cli::MemArgs),
}

/// `rho bench FILE.c...`, or `rho bench` (the suites of the nearest module.yml), or `rho bench check`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub action: Option<BenchAction>,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Write rho's CMake module into DIR (`RhoBench.cmake`, giving `rho_add_benchmark(NAME SOURCES ... LINK
    /// ...)`, with the header, the board ports and `mps2-an386.toolchain.cmake`), print its path and exit. A
    /// project then configures with `-DCMAKE_MODULE_PATH=DIR` and calls `include(RhoBench)`.
    #[arg(long, value_name = "DIR", conflicts_with = "files")]
    pub cmake_module: Option<PathBuf>,

    /// The suite's C and C++ files (one of them defines `main`, calling `rho_bench_main`); compiled together at
    /// -O2, C++ files (.cpp .cc .cxx) with $CXX and the suite then linked as C++.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,

    /// List the benchmarks the suite (FILE.c) or module.yml's suites would run, with --filter applied, one
    /// name a line, and exit: each suite is built and each benchmark run for a single iteration to learn its
    /// name (the harness registers them as it runs).
    #[arg(long, conflicts_with_all = ["json", "cmake_module", "history", "bmf", "github_benchmark"])]
    pub list: bool,

    #[command(flatten)]
    pub history: crate::history::RunHistoryArgs,

    /// Also write the run as a JSON document (schema `rho-bench-run/1`, see docs/json-output.md; without FILE.c,
    /// module.yml mode writes `rho-bench-project/1`: every suite with its budgets and verdicts). `-` writes it
    /// to stdout, and the human report goes to stderr.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// What `rho bench` does besides building, running and reporting.
#[derive(Debug, Subcommand)]
pub enum BenchAction {
    /// The same analysis with module.yml's budgets enforced: exit 0 when every budget holds, 1 when any is
    /// broken, 2 when it cannot decide (a build or run failure, a metric not measured, a bad config).
    Check(CheckArgs),
    /// Base against head, alternately on this machine: exit 0 when no metric regressed beyond its budget, 1
    /// when one did, 2 when it cannot decide (see docs/gate.md).
    Gate(crate::gate::GateArgs),
    /// Re-render a run saved by `--json` (`rho-bench-run/1` or `rho-bench-project/1`): the text report on
    /// stdout, or with `--markdown F` and/or `--html F` those files instead.
    Show(crate::saved::ShowArgs),
    /// Turn other harnesses' reports (FORMAT: gbench, criterion, hyperfine, gotest, pytest-benchmark; see
    /// docs/import.md) into a rho run document that `show`, `compare` and `history add` take: exit 2 when a
    /// report cannot be read or names a failed benchmark.
    Import(crate::saved::ImportArgs),
    /// Compare two runs saved by `--json`, per benchmark and metric, with `--diff`'s rules and limits (the
    /// nearest module.yml's, else the defaults): exit 0 when no metric regressed beyond its limit, 1 when one
    /// did, 2 when they cannot be compared.
    Compare(crate::saved::CompareArgs),
    /// The history of every CI run kept on a branch of this repository (`history add RUN.json`, `history sync`,
    /// `history check`, `history import`), and with no action the series per benchmark and metric with their
    /// change points (docs/history.md).
    History(crate::history::HistoryArgs),
    /// Merge the `--json` documents of `--shard K/N` runs (every share of one run, each once) into the run
    /// one machine would have made: the same report, document, comparison and exit status; the shares of a
    /// `rho bench gate --shard K/N` into the gate's document, verdict and exit status (docs/ci.md).
    Merge(MergeArgs),
    /// Start a project here (a git repository or not): write a commented module.yml and a first suite,
    /// bench/first_bench.c, that builds and runs, then print the next three commands. Never overwrites a
    /// file: when either exists, nothing is written.
    Init,
}

/// `rho bench check`: module.yml's suites, judged.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,

    /// Also write the runs, budgets and verdicts as a JSON document (schema `rho-bench-project/1`); `-` writes
    /// it to stdout, and the human report goes to stderr.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    #[command(flatten)]
    pub history: crate::history::RunHistoryArgs,
}

/// `rho bench merge SHARD.json...`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shares' documents (`rho bench --shard K/N --json FILE`, or `rho bench gate`'s), in any order.
    #[arg(value_name = "SHARD.json", required = true)]
    pub shares: Vec<PathBuf>,

    /// Write the merged run as JSON (`rho-bench-project/1`); `-` writes it to stdout, the report to stderr.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// With shares run with --diff: write the comparison as Markdown, for a pull-request comment.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write the merged report as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    #[command(flatten)]
    pub output: crate::term::OutputArgs,
}

/// module.yml mode: which target, how many runs.
#[derive(Debug, Clone, Args)]
pub struct ProjectArgs {
    /// The module.yml target to build and run for (default: the first listed, `host` when none is). With FILE.c
    /// arguments, a built-in target: `host`, a board under QEMU (`mps2-an385`, `mps2-an386`, `mps2-an500`, `mps2-an505`,
    /// `microbit`, `riscv32-virt`; c/ports/README.md), `aarch64-linux` (cross-built for 64-bit Arm Linux, run under qemu-aarch64),
    /// or `stm32h743zi` (a NUCLEO-H743ZI, run with probe-rs). Several, `--target a,b,c` (or `all`: with FILE.c
    /// every board under QEMU, in module.yml mode every target it lists): the suites on each in turn, then one
    /// table per benchmark side by side, relative to the first target, with the geometric means.
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,

    /// Best of N: run each suite N times and keep, per benchmark and metric, the best run's figures
    /// (default: module.yml's `repetitions`, else 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub repetitions: Option<u32>,

    #[command(flatten)]
    pub baseline: crate::baseline::BaselineArgs,

    /// Run share K of N (also `RHO_SHARD=K/N`): every job of a CI matrix lists the benchmarks, splits them
    /// into N shares by their cost in the committed baseline (by name without one) the same way, and runs
    /// its own; `--json` records the share for `rho bench merge` (docs/ci.md). With FILE.c too, on one target.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<rho_shard::Shard>,

    /// Also write the report as one self-contained HTML page (inline SVG and CSS, no script, nothing
    /// fetched): per benchmark a histogram of its samples with the median and p99 marked, its stack and heap
    /// against their budgets, and with `--diff` base against head.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    #[command(flatten)]
    pub dashboards: crate::term::DashboardArgs,
}

/// How a suite is built and run.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Measured iterations per benchmark (passed as RHO_BENCH_ITERATIONS; the harness's default is 20000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,

    /// Warm-up iterations per benchmark, discarded (RHO_BENCH_WARMUP; default 100).
    #[arg(long, value_name = "N")]
    pub warmup: Option<u64>,

    /// Multiply every iteration count (RHO_BENCH_SCALE), e.g. 0.1 for a quick look; never below 1 iteration.
    #[arg(long, value_name = "FACTOR", value_parser = parse_scale)]
    pub scale: Option<f64>,

    /// Give up on a run after this many seconds, killing its whole process group (a compile gets at least
    /// 10 minutes).
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = parse_seconds)]
    pub timeout: f64,

    /// Extra compiler flags, split as a shell would, e.g. --cflags "-DRHO_BENCH_STACK_BYTES=8192 -march=native".
    /// They come before the sources: include directories and defines (-I, -D), not libraries.
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cflags: Option<String>,

    /// Linker flags and libraries, split as a shell would, placed after the sources so the linker finds what
    /// they need, e.g. --ldflags "-L/opt/lib -lmbedcrypto" (on a board too; the math library is always linked).
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub ldflags: Option<String>,

    /// Run only the benchmarks whose names match this regular expression (Rust regex syntax), searched for
    /// in each name as written: `crc` runs bench_crc_64 and bench_crc_256, `^bench_crc_64$` that one alone,
    /// `crc_64|steady` two (a comma is a comma: join alternatives with |), `'BM_format/%@'` or `日本` any
    /// name. Translated for each harness (docs/config.md, "--filter"); a filter that matches no benchmark
    /// is exit 2.
    #[arg(long, value_name = "REGEX", value_parser = parse_filter)]
    pub filter: Option<String>,

    /// What to measure: `time` (cycles and ns, the default), `instructions` (counted exactly under Valgrind's
    /// Callgrind on a host: figures that do not move with the machine's load; 10 iterations unless told), or
    /// `time,instructions` (two runs, one report). Default: module.yml's `bench.measure`, else time.
    #[arg(long, value_name = "WHAT", value_parser = parse_measure)]
    pub measure: Option<rho_config::Measure>,

    /// With instructions: also simulate the caches (Callgrind --cache-sim=yes) and report L1 and LL misses and
    /// an estimated cycle count (docs/statistics.md gives its formula).
    #[arg(long)]
    pub cache_sim: bool,

    /// With instructions: the functions each benchmark keeps from its measured loop (own and inclusive
    /// instructions per iteration, file:line), the top N by inclusive count and the rest as "other", in --json
    /// and where a benchmark regressed; 0 keeps none. Default 50. Timed, given: every benchmark's measured
    /// loop (of a C-file suite on the host) sampled by perf record in a run of its own (sampled_functions in
    /// --json).
    #[arg(long, value_name = "N")]
    pub functions: Option<usize>,

    /// Print benchmark NAME's functions after the report (module.yml mode: after its suite's): counted with
    /// --measure instructions, else sampled by perf record, or a hint when perf cannot sample.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

fn parse_measure(text: &str) -> Result<rho_config::Measure, String> {
    rho_config::Measure::parse(text)
        .ok_or_else(|| format!("`{text}`: expected time, instructions or time,instructions"))
}

/// `--filter`: a regular expression, checked here so a mistake is a usage error naming what is wrong.
fn parse_filter(text: &str) -> Result<String, String> {
    rho_suite::filter::NameFilter::new(text)
        .map(|filter| filter.text().to_owned())
        .map_err(|error| error.to_string())
}

fn parse_scale(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if rho_config::is_scale(value) {
        Ok(value)
    } else {
        Err(format!(
            "`{text}`: the scale must be a number from 1e-9 to 1e9 (0.01 for a quick run)"
        ))
    }
}

impl RunArgs {
    /// The engine's run options.
    pub fn options(&self) -> rho_suite::RunOptions {
        rho_suite::RunOptions {
            iterations: self.iterations,
            warmup: self.warmup,
            scale: self.scale,
            timeout_seconds: self.timeout,
            cflags: self.cflags.clone(),
            ldflags: self.ldflags.clone(),
            filter: self.filter.clone(),
            measure: self.measure,
            cache_sim: self.cache_sim,
            functions: self.functions,
            profile: self.profile.clone(),
        }
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if rho_config::is_timeout_seconds(value) {
        Ok(value)
    } else {
        Err(format!(
            "`{text}`: the timeout must be a number of seconds from 0.001 to 10000000"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bench_reads_its_flags() {
        let cli = Cli::try_parse_from([
            "rho",
            "bench",
            "a.c",
            "b.c",
            "--iterations",
            "2000",
            "--scale",
            "0.5",
            "--cflags",
            "-DX=1 -O3",
            "--ldflags",
            "-lmbedcrypto",
            "--json",
            "out.json",
            "--timeout",
            "12",
        ])
        .unwrap();
        let Command::Bench(args) = cli.command else {
            panic!("not bench");
        };
        assert_eq!(args.files, [PathBuf::from("a.c"), PathBuf::from("b.c")]);
        assert_eq!(args.run.iterations, Some(2000));
        assert_eq!(args.run.scale, Some(0.5));
        assert_eq!(args.run.cflags.as_deref(), Some("-DX=1 -O3"));
        assert_eq!(args.run.ldflags.as_deref(), Some("-lmbedcrypto"));
        assert_eq!(args.run.timeout, 12.0);
        assert_eq!(args.json, Some(PathBuf::from("out.json")));
    }

    #[test]
    fn a_filter_is_a_regular_expression() {
        let filter = |text: &str| {
            let cli = Cli::try_parse_from(["rho", "bench", "a.c", "--filter", text])?;
            let Command::Bench(args) = cli.command else {
                panic!("not bench");
            };
            Ok::<_, clap::Error>(args.run.filter)
        };
        for good in [
            "crc",
            "^bench_crc_64$",
            "crc_64|steady",
            "BM_format/%@",
            "with space",
            "日本",
            "a,b",
        ] {
            assert_eq!(filter(good).unwrap().as_deref(), Some(good));
        }
        let error = filter("crc(").unwrap_err().to_string();
        assert!(
            error.contains("`crc(` is not a regular expression"),
            "{error}"
        );
        assert!(filter("").is_err());
    }

    #[test]
    fn bad_numbers_are_refused() {
        assert!(Cli::try_parse_from(["rho", "bench", "a.c", "--scale", "0"]).is_err());
        assert!(Cli::try_parse_from(["rho", "bench", "a.c", "--timeout", "-1"]).is_err());
        assert!(Cli::try_parse_from(["rho", "bench", "a.c", "--iterations", "0"]).is_err());
    }
}
