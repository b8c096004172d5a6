//! `rho bench gate --base REV|DIR --head REV|DIR`: its flags; the recipe is rho_ops::gate (base against head,
//! alternately, on this machine; the exit status is the verdict, see there).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// `rho bench gate`
#[derive(Debug, Clone, Args)]
pub struct GateArgs {
    /// The side to compare against: a directory (used in place), or a git revision of the repository here
    /// (checked out into a temporary worktree, removed afterwards).
    #[arg(long, value_name = "REV|DIR")]
    pub base: String,

    /// The side under test, as --base; `.` (the default) is this directory as it is, uncommitted changes
    /// included.
    #[arg(long, value_name = "REV|DIR", default_value = ".")]
    pub head: String,

    /// The bench.targets entry whose build: and run: commands each side uses (default: the first listed).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,

    /// The alternating runs per side a benchmark needs before one of its time metrics fails, at least 2
    /// (default: bench.gate.runs, else 3); a head twice beyond the budget, or one that 3 paired rounds and the
    /// minima both put over it, fails sooner (docs/gate.md, "Adaptive runs").
    #[arg(long, value_name = "N")]
    pub runs: Option<u32>,

    /// The most alternating runs per side for a benchmark whose verdict more runs could still change
    /// (adaptive runs, docs/gate.md); at least --runs (default: bench.gate.max_runs, else 20). Equal to
    /// --runs: every benchmark runs that often (the fixed gate).
    #[arg(long, value_name = "N")]
    pub max_runs: Option<u32>,

    /// How many builds run at once: 2 or more builds base and head in parallel (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Build both sides from scratch, neither using nor filling the build cache or the compile cache
    /// (.git/rho-cache; docs/gate.md).
    #[arg(long)]
    pub no_cache: bool,

    /// Also build each side without the caches (no build cache, no ccache) and fail (exit 2) naming the first
    /// file of its build directory that differs from the cached build's (docs/gate.md, "Verifying the caches").
    #[arg(long)]
    pub verify_cache: bool,

    /// Run the two sides of a round at once, taking turns every 2 ms on one CPU (rho's harnesses; docs/gate.md,
    /// "Lock-step rounds"), instead of one after the other. For single-threaded benchmarks only: on one CPU a
    /// body that stopped running in parallel reads the same.
    #[arg(long)]
    pub lock_step: bool,

    /// A metric's budget, a fraction in (0, 1): head may be at most this much worse than base. `default=F`
    /// sets the default. Repeatable; overrides bench.gate.budget.
    #[arg(long = "budget", value_name = "METRIC=FRACTION")]
    pub budgets: Vec<String>,

    /// Give up on a build or a run after this many seconds, killing its process group (default:
    /// bench.gate.timeout_seconds, else 120).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Measured iterations per benchmark, for both sides (RHO_BENCH_ITERATIONS).
    #[arg(long, value_name = "N")]
    pub iterations: Option<u64>,

    /// Warm-up iterations per benchmark, for both sides (RHO_BENCH_WARMUP).
    #[arg(long, value_name = "N")]
    pub warmup: Option<u64>,

    /// Multiply every iteration count, for both sides (RHO_BENCH_SCALE).
    #[arg(long, value_name = "FACTOR")]
    pub scale: Option<f64>,

    /// What to measure: `time` (the default) or `instructions` (each side run once under Valgrind's Callgrind:
    /// exact counts, `<bench>.instructions` metrics, budget 1% unless named). Default: module.yml's
    /// `bench.measure`.
    #[arg(long, value_name = "WHAT", value_parser = parse_gate_measure)]
    pub measure: Option<rho_config::Measure>,

    /// For `git bisect run`: when the gate cannot decide, exit 125 (skip this commit) if head's code is to
    /// blame (its build, run or metrics), else 128 (stop the bisect: a bad setting, a side named wrongly, a
    /// base that fails) instead of 2.
    #[arg(long)]
    pub bisect: bool,

    /// Also write the outcome as one self-contained HTML page: per benchmark and metric every run of each
    /// side, with the budget line head's best run must stay under.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Also write the verdict as one JSON object to FILE (atomically), or with `-` to stdout as one line,
    /// which is then all that goes to stdout (the table goes to stderr). Without it no JSON is printed.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<PathBuf>,

    /// Judge share K of N of the benchmarks (also `RHO_SHARD=K/N`), each benchmark's share from its name
    /// alone; `--json` records the share for `rho bench merge` (docs/ci.md).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<rho_shard::Shard>,

    #[command(flatten)]
    pub color: crate::term::ColorArgs,
}

fn parse_gate_measure(text: &str) -> Result<rho_config::Measure, String> {
    rho_config::Measure::parse(text)
        .ok_or_else(|| format!("`{text}`: expected time or instructions"))
}

/// Run the gate (rho_ops::gate::run); the exit status is the verdict. On a terminal a spinner shows the
/// latest step (base run 2 of 3, ...); piped, one line a step.
pub fn run(args: &GateArgs) -> anyhow::Result<ExitCode> {
    let options = rho_ops::gate::Options {
        base: args.base.clone(),
        head: args.head.clone(),
        target: args.target.clone(),
        runs: args.runs,
        max_runs: args.max_runs,
        jobs: args.jobs,
        no_cache: args.no_cache,
        verify_cache: args.verify_cache,
        lock_step: args.lock_step,
        budgets: args.budgets.clone(),
        timeout: args.timeout,
        iterations: args.iterations,
        warmup: args.warmup,
        scale: args.scale,
        measure: args.measure,
        bisect: args.bisect,
        html: args.html.clone(),
        json: args.json.clone(),
        shard: rho_shard::spec::resolve(args.shard, std::env::var("RHO_SHARD").ok().as_deref())?,
        // The builds' compilers run through ccache from PATH (the gate says once when there is none).
        compiler_cache: Some(PathBuf::from("ccache")),
    };
    let output = crate::term::OutputArgs {
        wide: false,
        color: args.color,
    };
    let progress = crate::term::progress::Gate::new();
    let code = rho_ops::gate::run(&options, &output, move |step: &str| progress.step(step))?;
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use crate::cli::{BenchAction, Cli, Command};

    fn parse(args: &[&str]) -> Result<super::GateArgs, clap::Error> {
        let cli = Cli::try_parse_from(["rho", "bench", "gate"].iter().chain(args))?;
        let Command::Bench(bench) = cli.command else {
            panic!("not bench");
        };
        match bench.action {
            Some(BenchAction::Gate(gate)) => Ok(gate),
            other => panic!("not a gate: {other:?}"),
        }
    }

    #[test]
    fn gate_reads_its_flags() {
        let args = parse(&[
            "--base",
            "origin/main",
            "--head",
            "HEAD",
            "--runs",
            "5",
            "--budget",
            "sum_ns=0.2",
            "--budget",
            "default=0.25",
            "--timeout",
            "30",
            "--target",
            "kata",
            "--bisect",
        ])
        .unwrap();
        assert_eq!(args.base, "origin/main");
        assert_eq!(args.head, "HEAD");
        assert_eq!(args.runs, Some(5));
        assert_eq!(args.budgets, ["sum_ns=0.2", "default=0.25"]);
        assert_eq!(args.timeout, Some(30.0));
        assert_eq!(args.target.as_deref(), Some("kata"));
        assert!(args.bisect);
    }

    #[test]
    fn gate_reads_its_adaptive_and_build_flags() {
        let args = parse(&[
            "--base",
            "main",
            "--max-runs",
            "10",
            "-j",
            "1",
            "--no-cache",
        ])
        .unwrap();
        assert_eq!(args.max_runs, Some(10));
        assert_eq!(args.jobs, Some(1));
        assert!(args.no_cache);
        let args = parse(&["--base", "main"]).unwrap();
        assert_eq!(
            (args.max_runs, args.jobs, args.no_cache),
            (None, None, false)
        );
    }

    #[test]
    fn head_defaults_to_this_directory_and_base_is_required() {
        assert_eq!(parse(&["--base", "main"]).unwrap().head, ".");
        assert!(parse(&[]).is_err());
    }
}
