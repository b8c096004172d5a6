//! Another harness's suite (module.yml's `gbench:`, `criterion:`, `hyperfine:`, `gotest:`,
//! `pytest-benchmark:`): rho runs the harness's own tool in the module root, has it write its report into
//! the suite's scratch directory, reads the report with rho-import and hands back the run a wire stream
//! would have given, so folding, budgets, baselines and the gate take it unchanged (docs/config.md,
//! "Other harnesses' suites").

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rho_config::{ForeignSuite, ForeignTool};
use rho_exec::{Runner, Termination};

use crate::error::{Result, SuiteError};
use crate::filter::NameFilter;

/// Google Benchmark repetitions rho asks for when the command does not say: each is one sample.
pub const GBENCH_REPETITIONS: u32 = 5;
/// `go test -count` rho asks for: each result line is one sample.
pub const GOTEST_COUNT: u32 = 5;

/// The report's format.
pub fn format(tool: ForeignTool) -> rho_import::Format {
    match tool {
        ForeignTool::Gbench => rho_import::Format::Gbench,
        ForeignTool::Criterion => rho_import::Format::Criterion,
        ForeignTool::Hyperfine => rho_import::Format::Hyperfine,
        ForeignTool::Gotest => rho_import::Format::Gotest,
        ForeignTool::PytestBenchmark => rho_import::Format::PytestBenchmark,
    }
}

fn quote(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| format!("'{text}'"), |q| q.into_owned())
}

/// The file (or directory, for criterion) a tool's report is written to, in its scratch directory.
fn report_name(tool: ForeignTool) -> &'static str {
    match tool {
        ForeignTool::Criterion => "criterion",
        ForeignTool::Gotest => "gotest.txt",
        _ => "report.json",
    }
}

/// How `--filter` reaches a tool: its own filter as close as its syntax allows ([`crate::filter`]), and for
/// Google Benchmark with a regex its syntax reads otherwise, the exact names it listed.
#[derive(Debug, Clone, Copy)]
struct ToolFilter<'a> {
    filter: &'a NameFilter,
    /// Google Benchmark's `--benchmark_filter`, when not the regex itself: `^(NAME|...)$` of the names its
    /// listing gave that the regex matches.
    gbench_exact: Option<&'a str>,
}

/// The shell command that runs `suite` with its report going to `out` (a shell word: a quoted path or
/// `"$d/report.json"`), `--filter` passed on as the tool's own filter where it has one.
fn command_line(suite: &ForeignSuite, out: &str, filter: Option<ToolFilter<'_>>) -> String {
    let argument = &suite.argument;
    match suite.tool {
        ForeignTool::Gbench => {
            let mut line = format!("{argument} --benchmark_out={out} --benchmark_out_format=json");
            if !argument.contains("--benchmark_repetitions") {
                line.push_str(&format!(" --benchmark_repetitions={GBENCH_REPETITIONS}"));
            }
            let gbench_filter = filter.and_then(|f| f.gbench_exact.or(f.filter.posix_extended()));
            if let Some(regex) = gbench_filter {
                line.push_str(&format!(" --benchmark_filter={}", quote(regex)));
            }
            line
        }
        // CRITERION_HOME: criterion's whole output goes to the scratch directory, not target/criterion, so a
        // report of an earlier run is never read as this one's.
        ForeignTool::Criterion => {
            // criterion's filter is a regex of the same crate: passed as it is, one argument.
            let filter = filter
                .map(|f| format!(" {}", quote(f.filter.text())))
                .unwrap_or_default();
            format!(
                "CRITERION_HOME={out} cargo bench --bench {} --{filter}",
                quote(argument)
            )
        }
        ForeignTool::Hyperfine => {
            let selected =
                hyperfine_selected(argument, filter.map(|f| f.filter)).unwrap_or_default();
            format!("hyperfine --export-json {out} {selected}")
        }
        ForeignTool::Gotest => {
            let pattern = quote(filter.map_or(".", |f| f.filter.go_pattern()));
            format!(
                "go test -run '^$' -bench {pattern} -benchmem -count {GOTEST_COUNT} {argument} > {out}"
            )
        }
        ForeignTool::PytestBenchmark => {
            let filter = filter
                .and_then(|f| f.filter.pytest_keywords())
                .map(|keywords| format!(" -k {}", quote(&keywords)))
                .unwrap_or_default();
            format!("{argument} --benchmark-json={out}{filter}")
        }
    }
}

/// hyperfine's options that take values, and how many words they take (`-P VAR MIN MAX`, `-L VAR LIST`).
const HYPERFINE_VALUED: &[(&[&str], usize)] = &[
    (
        &[
            "-w",
            "--warmup",
            "-m",
            "--min-runs",
            "-M",
            "--max-runs",
            "-r",
            "--runs",
            "-s",
            "--setup",
            "-p",
            "--prepare",
            "-c",
            "--cleanup",
            "-C",
            "--conclude",
            "-D",
            "--parameter-step-size",
            "-S",
            "--shell",
            "--style",
            "--sort",
            "-u",
            "--time-unit",
            "--export-asciidoc",
            "--export-csv",
            "--export-json",
            "--export-markdown",
            "--export-orgmode",
            "--output",
            "--input",
            "--reference",
        ],
        1,
    ),
    (&["-n", "--command-name"], 1),
    (&["-P", "--parameter-scan"], 3),
    (&["-L", "--parameter-list"], 2),
];

/// A hyperfine suite's arguments with only the commands `filter` picks: each command is named by its
/// `-n`/`--command-name` (the one at its place, as hyperfine pairs them) or else its text, and a command
/// not picked is left out with its name. Arguments that do not split as shell words, or that scan a
/// parameter (`-P`, `-L`: names known only once hyperfine expands them), are run whole, and the report is
/// filtered instead ([`picked_only`]). `None` when the filter picks no command: there is nothing to run.
fn hyperfine_selected(argument: &str, filter: Option<&NameFilter>) -> Option<String> {
    let (Some(filter), Some(words)) = (filter, shlex::split(argument)) else {
        return Some(argument.to_owned());
    };
    let mut options: Vec<Vec<String>> = Vec::new();
    let mut names = Vec::new();
    let mut commands = Vec::new();
    let mut rest = words.into_iter();
    while let Some(word) = rest.next() {
        if let Some(name) = word.strip_prefix("--command-name=") {
            names.push(name.to_owned());
            continue;
        }
        let Some((flags, count)) = HYPERFINE_VALUED
            .iter()
            .find(|(flags, _)| flags.contains(&word.as_str()))
        else {
            match word.starts_with('-') {
                true => options.push(vec![word]),
                false => commands.push(word),
            }
            continue;
        };
        let values: Vec<String> = rest.by_ref().take(*count).collect();
        if *count > 1 {
            return Some(argument.to_owned());
        }
        match flags.contains(&"-n") {
            true => names.extend(values),
            false => options.push([vec![word], values].concat()),
        }
    }
    let mut kept: Vec<String> = options.concat().iter().map(|w| quote(w)).collect();
    let mut any = false;
    for (index, command) in commands.iter().enumerate() {
        let name = names.get(index).unwrap_or(command);
        if !filter.matches(name) {
            continue;
        }
        if let Some(name) = names.get(index) {
            kept.extend(["-n".to_owned(), quote(name)]);
        }
        kept.push(quote(command));
        any = true;
    }
    any.then(|| kept.join(" "))
}

/// `benchmarks` with only those `filter` matches, every one without a filter: what every tool's report is
/// cut to (a tool picks by its own rules: Go's pattern per level, pytest's `-k` words, a hyperfine suite
/// that scans a parameter runs whole).
fn picked_only(
    mut benchmarks: Vec<rho_import::Sampled>,
    filter: Option<&NameFilter>,
) -> Vec<rho_import::Sampled> {
    if let Some(filter) = filter {
        benchmarks.retain(|b| filter.matches(&b.name));
    }
    benchmarks
}

/// Google Benchmark's `--benchmark_filter` for a regex it does not read as rho does: the benchmarks its
/// binary lists (`--benchmark_list_tests=true`) that `filter` matches, as `^(NAME|...)$` with each name
/// escaped; `None` when it matches none of them (nothing to run).
fn gbench_exact(
    suite: &ForeignSuite,
    root: &Path,
    env: &[(String, String)],
    filter: &NameFilter,
    (timeout, what): (Duration, &str),
) -> Result<Option<String>> {
    let line = format!("{} --benchmark_list_tests=true", suite.argument);
    let mut command = Command::new("sh");
    command.arg("-c").arg(&line).current_dir(root);
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout)
        .run_collect()
        .map_err(|source| SuiteError::Exec {
            doing: format!("cannot list the benchmarks of {what}: `{line}`"),
            source,
        })?;
    if finished.termination != Termination::Exited(0) {
        return Err(SuiteError::Run(format!(
            "{what}: listing its benchmarks for --filter {}: `{line}` {}:\n{}",
            filter.text(),
            finished.termination,
            finished.stderr.trim_end()
        )));
    }
    let names: Vec<String> = stdout
        .lines()
        .filter(|name| !name.is_empty() && filter.matches(name))
        .map(crate::filter::posix_escape)
        .collect();
    Ok((!names.is_empty()).then(|| format!("^({})$", names.join("|"))))
}

/// What one side of the gate runs for `suite`: the tool, its report in a temporary directory removed on
/// exit and everything it prints sent to stderr, then `RHO bench import FORMAT REPORT --wire -` (`rho` being
/// the running binary) printing the run as a wire stream, which the gate reads as any suite's.
///
/// A criterion suite builds in the side's own `target` directory whatever `CARGO_TARGET_DIR` says, as a
/// `cargo:` suite does in the gate: the two sides are the same package at the same place in their trees, and
/// one shared directory would hand one side's build to the other (cargo's fingerprints name the sources
/// relative to the package).
pub fn gate_command(suite: &ForeignSuite, rho: &str) -> String {
    let report = format!("\"$d/{}\"", report_name(suite.tool));
    let own_target = match suite.tool {
        ForeignTool::Criterion => "CARGO_TARGET_DIR=target ",
        _ => "",
    };
    format!(
        "d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && {{ {own_target}{}; }} >&2 && {rho} bench import {} {report} --wire -",
        command_line(suite, &report, None),
        format(suite.tool).name()
    )
}

/// A suite's runs, and what each one's report held (the samples, iteration counts and extra figures a wire
/// stream cannot carry; `rho_import::complete` lays them on the folded summary).
#[derive(Debug)]
pub struct ForeignRuns {
    pub runs: Vec<rho_wire::Run>,
    pub reports: Vec<Vec<rho_import::Sampled>>,
}

/// Runs `suite` `repetitions` times in `root`, each report in the suite's scratch directory (`RHO_BENCH_OUT`
/// in `env`; the module root without one).
pub fn runs(
    suite: &ForeignSuite,
    root: &Path,
    (env, filter): (&[(String, String)], Option<&NameFilter>),
    timeout: Duration,
    what: &str,
    repetitions: u32,
) -> Result<ForeignRuns> {
    let scratch = env
        .iter()
        .find(|(key, _)| key == "RHO_BENCH_OUT")
        .map_or_else(
            || root.to_path_buf(),
            |(_, value)| std::path::PathBuf::from(value),
        );
    let mut done = ForeignRuns {
        runs: Vec::new(),
        reports: Vec::new(),
    };
    // Google Benchmark lists once, for every repetition.
    let gbench_exact = match filter {
        Some(filter) if suite.tool == ForeignTool::Gbench && filter.posix_extended().is_none() => {
            match gbench_exact(suite, root, env, filter, (timeout, what))? {
                Some(exact) => Some(exact),
                None => return Ok(done),
            }
        }
        _ => None,
    };
    let tool_filter = filter.map(|filter| ToolFilter {
        filter,
        gbench_exact: gbench_exact.as_deref(),
    });
    for _ in 0..repetitions {
        let report = run(suite, root, &scratch, (env, tool_filter), timeout, what)?;
        done.runs
            .push(rho_import::run_with(format(suite.tool), &report));
        done.reports.push(report);
    }
    Ok(done)
}

/// Runs `suite` once in `root` (its report written in `scratch`) and reads its report: its benchmarks, or an
/// error naming the suite when the tool fails, times out, or reports a failed benchmark.
fn run(
    suite: &ForeignSuite,
    root: &Path,
    scratch: &Path,
    (env, filter): (&[(String, String)], Option<ToolFilter<'_>>),
    timeout: Duration,
    what: &str,
) -> Result<Vec<rho_import::Sampled>> {
    if suite.tool == ForeignTool::Hyperfine
        && hyperfine_selected(&suite.argument, filter.map(|f| f.filter)).is_none()
    {
        // The filter picks none of its commands: the suite runs no benchmark, as a harness's would.
        return Ok(Vec::new());
    }
    let report = scratch.join(report_name(suite.tool));
    // A report of an earlier repetition is never read as this one's.
    let _ = std::fs::remove_dir_all(&report);
    let _ = std::fs::remove_file(&report);
    let line = command_line(suite, &quote(&report.display().to_string()), filter);
    let mut command = Command::new("sh");
    command.arg("-c").arg(&line).current_dir(root);
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let (finished, stdout) = Runner::new(command)
        .timeout(timeout)
        .stderr_limit(1 << 20)
        .run_collect()
        .map_err(|source| SuiteError::Exec {
            doing: format!("cannot run {what}: `{line}`"),
            source,
        })?;
    if finished.termination != Termination::Exited(0) {
        let output = format!("{stdout}{}", finished.stderr);
        let tail: Vec<&str> = output.trim_end().lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(SuiteError::Run(format!(
            "{what}: `{line}` {}:\n{}",
            finished.termination,
            tail.join("\n")
        )));
    }
    // Google Benchmark whose filter matched nothing says so, exits 0 and leaves its report empty.
    if suite.tool == ForeignTool::Gbench
        && filter.is_some()
        && std::fs::metadata(&report).is_ok_and(|m| m.len() == 0)
    {
        return Ok(Vec::new());
    }
    let format = format(suite.tool);
    let read = rho_import::read(format, &report)
        .map_err(|error| SuiteError::Run(format!("{what}: {error}")))?;
    if !read.failed.is_empty() {
        let names: Vec<String> = read
            .failed
            .iter()
            .map(|f| format!("{} ({})", f.name, f.message))
            .collect();
        return Err(SuiteError::Run(format!(
            "{what}: {} reported failed benchmarks: {}",
            format.name(),
            names.join(", ")
        )));
    }
    Ok(picked_only(read.benchmarks, filter.map(|f| f.filter)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(tool: ForeignTool, argument: &str) -> ForeignSuite {
        ForeignSuite {
            tool,
            argument: argument.into(),
            at: rho_config::SourcePos { line: 1, column: 1 },
        }
    }

    fn filter(text: &str) -> NameFilter {
        NameFilter::new(text).unwrap()
    }

    fn given(filter: &NameFilter) -> Option<ToolFilter<'_>> {
        Some(ToolFilter {
            filter,
            gbench_exact: None,
        })
    }

    #[test]
    fn each_tool_is_asked_for_its_report_and_given_the_filter() {
        let out = "/s/r.json";
        let bm_a = filter("BM_a");
        let gbench = command_line(&suite(ForeignTool::Gbench, "./b"), out, given(&bm_a));
        assert_eq!(
            gbench,
            "./b --benchmark_out=/s/r.json --benchmark_out_format=json --benchmark_repetitions=5 \
             --benchmark_filter=BM_a"
        );
        let own = command_line(
            &suite(ForeignTool::Gbench, "./b --benchmark_repetitions=9"),
            out,
            None,
        );
        assert!(!own.contains("--benchmark_repetitions=5"), "{own}");
        let criterion = command_line(&suite(ForeignTool::Criterion, "sums"), "/s/c", None);
        assert_eq!(criterion, "CRITERION_HOME=/s/c cargo bench --bench sums --");
        let go = command_line(&suite(ForeignTool::Gotest, "./..."), "/s/g.txt", None);
        assert_eq!(
            go,
            "go test -run '^$' -bench . -benchmem -count 5 ./... > /s/g.txt"
        );
        let sleep = filter("sleep");
        let hyperfine = command_line(
            &suite(ForeignTool::Hyperfine, "'sleep 0.1'"),
            out,
            given(&sleep),
        );
        assert_eq!(hyperfine, "hyperfine --export-json /s/r.json 'sleep 0.1'");
        let fib = filter("fib");
        let pytest = command_line(
            &suite(ForeignTool::PytestBenchmark, "pytest b/"),
            out,
            given(&fib),
        );
        assert_eq!(pytest, "pytest b/ --benchmark-json=/s/r.json -k fib");
        // A regex with alternatives: each tool's own form of it (the words as the shell gives them).
        let alternatives = filter(r"^BM_a\.x$|sum/1024");
        let words = |line: String| shlex::split(&line).unwrap();
        let gbench = words(command_line(
            &suite(ForeignTool::Gbench, "./b"),
            out,
            given(&alternatives),
        ));
        assert_eq!(
            gbench.last().unwrap(),
            "--benchmark_filter=^BM_a\\.x$|sum/1024"
        );
        let criterion = words(command_line(
            &suite(ForeignTool::Criterion, "sums"),
            "/s/c",
            given(&alternatives),
        ));
        assert_eq!(criterion[5..], ["--", "^BM_a\\.x$|sum/1024"]);
        // Go matches each level of a name alone: a regex with a `/` runs them all, cut afterwards.
        let go = words(command_line(
            &suite(ForeignTool::Gotest, "./..."),
            "/s/g.txt",
            given(&alternatives),
        ));
        assert_eq!(go[4..6], ["-bench", "."]);
        let tops = filter("^BenchmarkSum$|Product");
        let go = words(command_line(
            &suite(ForeignTool::Gotest, "./..."),
            "/s/g.txt",
            given(&tops),
        ));
        assert_eq!(go[4..6], ["-bench", "^BenchmarkSum$|Product"]);
        let pytest = words(command_line(
            &suite(ForeignTool::PytestBenchmark, "pytest"),
            out,
            given(&filter("^test_fib$|test_sum")),
        ));
        assert_eq!(pytest[2..], ["-k", "test_fib or test_sum"]);
        // A regex pytest's -k cannot say runs every test, and the report is cut.
        let all = words(command_line(
            &suite(ForeignTool::PytestBenchmark, "pytest"),
            out,
            given(&filter("fib\\[1")),
        ));
        assert_eq!(all.len(), 2, "{all:?}");
        // A regex Google Benchmark reads otherwise: the exact names its listing gave.
        let class = filter("BM_format/[%]");
        let exact = ToolFilter {
            filter: &class,
            gbench_exact: Some("^(BM_format/%@|BM_format/%%)$"),
        };
        let gbench = words(command_line(
            &suite(ForeignTool::Gbench, "./b"),
            out,
            Some(exact),
        ));
        assert_eq!(
            gbench.last().unwrap(),
            "--benchmark_filter=^(BM_format/%@|BM_format/%%)$"
        );
        assert_eq!(
            crate::filter::posix_escape("BM_log/(a+b)"),
            "BM_log/\\(a\\+b\\)"
        );
        let gate = gate_command(&suite(ForeignTool::Gotest, "./..."), "/bin/rho");
        assert_eq!(
            gate,
            "d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && { go test -run '^$' -bench . -benchmem -count 5 \
             ./... > \"$d/gotest.txt\"; } >&2 && /bin/rho bench import gotest \"$d/gotest.txt\" --wire -"
        );
        let criterion = gate_command(&suite(ForeignTool::Criterion, "sums"), "rho");
        assert!(
            criterion
                .contains("{ CARGO_TARGET_DIR=target CRITERION_HOME=\"$d/criterion\" cargo bench"),
            "{criterion}"
        );
    }

    #[test]
    fn a_hyperfine_suite_runs_only_the_commands_the_filter_picks() {
        let both = "--warmup 1 --runs 5 'sleep 0.01' 'sh work.sh'";
        assert_eq!(
            hyperfine_selected(both, Some(&filter("work"))).as_deref(),
            Some("--warmup 1 --runs 5 'sh work.sh'")
        );
        // A regex over the commands' names: `^sleep 0\.01$` is that command alone.
        assert_eq!(
            hyperfine_selected(both, Some(&filter(r"nothing|^sleep 0\.01$"))).as_deref(),
            Some("--warmup 1 --runs 5 'sleep 0.01'")
        );
        assert_eq!(hyperfine_selected(both, Some(&filter("gzip"))), None);
        assert_eq!(hyperfine_selected(both, None).as_deref(), Some(both));
        // A command named with -n is picked by its name, and keeps it.
        let named = "-n fast 'sleep 0.01' -n slow 'sleep 0.1'";
        assert_eq!(
            hyperfine_selected(named, Some(&filter("^slow$"))).as_deref(),
            Some("-n slow 'sleep 0.1'")
        );
        // A parameter scan's names are known only once hyperfine expands them: run whole, the report
        // filtered.
        let scan = "-P n 1 3 'sleep 0.0{n}'";
        assert_eq!(
            hyperfine_selected(scan, Some(&filter("2"))).as_deref(),
            Some(scan)
        );
        let sampled = |name: &str| rho_import::Sampled {
            name: name.into(),
            ..rho_import::Sampled::default()
        };
        let kept = picked_only(
            vec![sampled("sleep 0.01"), sampled("sleep 0.02")],
            Some(&filter(r"0\.02$")),
        );
        assert_eq!(kept, [sampled("sleep 0.02")]);
    }
}
