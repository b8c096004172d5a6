//! `rho bench history`: every CI run's figures kept on a branch of the project's repository (crate
//! rho-history), read back as series per benchmark and metric with their change points, and a gate on the
//! newest one (`history check`) for post-merge CI where there is no base to build.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};
use rho_history::Store;
use rho_history::add::AddOptions;
use rho_history::analysis::{self, Analysis, Commit, Detection, Filter};
use rho_history::import::machine_name;
use rho_history::report::short;

/// `rho bench history [ACTION]`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub action: Option<HistoryAction>,

    #[command(flatten)]
    pub view: ViewArgs,
}

/// What `history` does besides showing the series.
#[derive(Debug, Subcommand)]
pub enum HistoryAction {
    /// Add runs saved by `rho bench --json` (or `check --json`) to the history branch, a record per target
    /// and measure, for the commit measured (`--commit`, default HEAD).
    Add(AddArgs),
    /// Exit 1 when the newest figure of a benchmark starts a regression beyond its limit
    /// (`fail_on_regression_percent`, or the instructions one), naming it and the commit; 0 otherwise; 2
    /// when it cannot decide (no history, a corrupt record).
    Check(ViewArgs),
    /// Fetch REMOTE's history branch, merge it with this one (a union of record files) and push, retrying a
    /// rejected push with backoff.
    Sync(SyncArgs),
    /// Build records from the git log of the committed baseline file: each commit that changed it is one
    /// record per target and measure.
    Import(ImportArgs),
}

/// The history branch (every action).
#[derive(Debug, Clone, Args)]
pub struct BranchArgs {
    /// The history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long = "history-branch", value_name = "NAME")]
    pub history_branch: Option<String>,
}

/// `history add RUN.json...`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// Documents written by `rho bench --json` (`rho-bench-run/1`, `rho-bench-project/1`, or several targets'
    /// `rho-bench-targets/1` and `rho-bench-project-targets/1`).
    #[arg(value_name = "RUN.json", required = true)]
    pub runs: Vec<PathBuf>,

    /// The commit the runs measured.
    #[arg(long, value_name = "REF", default_value = "HEAD")]
    pub commit: String,

    /// Add even when tracked files differ from HEAD (the record says it was dirty).
    #[arg(long)]
    pub allow_dirty: bool,

    /// The machine label (default $RHO_MACHINE, else the host name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,

    /// The history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long = "branch", visible_alias = "history-branch", value_name = "NAME")]
    pub history_branch: Option<String>,
}

/// `history sync [REMOTE]`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote (default origin).
    #[arg(value_name = "REMOTE", default_value = "origin")]
    pub remote: String,

    /// The history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long = "branch", visible_alias = "history-branch", value_name = "NAME")]
    pub history_branch: Option<String>,
}

/// `history import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The baseline file (default module.yml's `bench.baseline`, else bench/baseline.json).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// The machine label of the imported records (default $RHO_MACHINE, else the host name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,

    /// The history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long = "branch", visible_alias = "history-branch", value_name = "NAME")]
    pub history_branch: Option<String>,
}

/// Which series, along which commits, and where they are written.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Only benchmarks whose name contains PATTERN.
    #[arg(long, value_name = "PATTERN")]
    pub bench: Option<String>,

    /// Only this metric (cycles, time_ns, instructions, stack_bytes, heap_peak_bytes, code_bytes,
    /// static_stack_bytes).
    #[arg(long, value_name = "NAME", value_parser = parse_metric)]
    pub metric: Option<String>,

    /// Only this target's records.
    #[arg(long, value_name = "T")]
    pub target: Option<String>,

    /// Only this machine's records.
    #[arg(long, value_name = "M")]
    pub machine: Option<String>,

    /// Only commits from this one (on the line, itself included) or this date on (as git reads --since).
    #[arg(long, value_name = "REF|DATE")]
    pub since: Option<String>,

    /// The branch whose first-parent line orders the commits (default the current one, HEAD).
    #[arg(long, value_name = "REF", default_value = "HEAD")]
    pub branch: String,

    #[command(flatten)]
    pub history: BranchArgs,

    /// Also write the series as JSON (schema `rho-bench-history/1`, docs/json-output.md); `-` is stdout.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Also write the series and change points as Markdown tables.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Also write one self-contained HTML page: a trend chart per benchmark and metric, change points marked.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

fn parse_metric(text: &str) -> Result<String, String> {
    if rho_stats::Metric::ALL.iter().any(|m| m.name() == text) {
        Ok(text.to_string())
    } else {
        let names: Vec<&str> = rho_stats::Metric::ALL.iter().map(|m| m.name()).collect();
        Err(format!("`{text}`: expected one of {}", names.join(", ")))
    }
}

/// `rho bench history ...`.
pub fn run(args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let config = crate::baseline::nearest_config()?;
    match &args.action {
        None => show(&args.view, config.as_ref()),
        Some(HistoryAction::Check(view)) => check(view, config.as_ref()),
        Some(HistoryAction::Add(add_args)) => add(add_args, config.as_ref()),
        Some(HistoryAction::Sync(sync_args)) => sync(sync_args, config.as_ref()),
        Some(HistoryAction::Import(import_args)) => import(import_args, config.as_ref()),
    }
}

/// The history store of the current directory's repository.
fn store(branch: Option<&str>, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<Store> {
    let branch = branch
        .map(str::to_string)
        .or_else(|| config.and_then(|c| c.history.branch.clone()))
        .unwrap_or_else(|| rho_history::DEFAULT_BRANCH.to_string());
    let dir = std::env::current_dir().context("cannot read the current directory")?;
    let store = Store::open(&dir, &branch)?;
    if store.toplevel().is_err() {
        bail!(
            "{} is not in a git repository: the history is kept on a branch of the project's repository",
            dir.display()
        );
    }
    Ok(store)
}

fn detection(config: Option<&rho_config::ModuleConfig>) -> Detection {
    let mut detection = Detection::default();
    if let Some(history) = config.map(|c| &c.history) {
        detection.window = history.window.unwrap_or(detection.window);
        detection.max_pvalue = history.max_pvalue.unwrap_or(detection.max_pvalue);
    }
    detection
}

/// `history add`.
fn add(args: &AddArgs, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<ExitCode> {
    let store = store(args.history_branch.as_deref(), config)?;
    let origin = rho_history::add::origin(
        &store,
        &AddOptions {
            commit: &args.commit,
            allow_dirty: args.allow_dirty,
            machine: args.machine.as_deref(),
            rho_version: env!("CARGO_PKG_VERSION"),
        },
    )?;
    let runs: Vec<&Path> = args.runs.iter().map(PathBuf::as_path).collect();
    let added = rho_history::add::add_saved_runs(&store, &runs, &origin)?;
    println!(
        "{}",
        rho_history::add::describe(&added, &origin, store.branch())
    );
    Ok(ExitCode::SUCCESS)
}

/// `--history` on `rho bench` and `rho bench check`: the run just made added to the history branch, as
/// `history add` adds a run saved by `--json` (docs/history.md).
#[derive(Debug, Clone, Default, Args)]
pub struct RunHistoryArgs {
    /// Add the run just made to the history branch as a record of HEAD per target and measure (as `--json
    /// FILE` then `history add FILE` would). Refused before anything runs when tracked files differ from HEAD.
    #[arg(long)]
    pub history: bool,

    /// With --history: add even when tracked files differ from HEAD (the record says it was dirty).
    #[arg(long, requires = "history")]
    pub allow_dirty: bool,

    /// With --history: the machine label (default $RHO_MACHINE, else the host name).
    #[arg(long, value_name = "NAME", requires = "history")]
    pub machine: Option<String>,

    /// With --history: the history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long, value_name = "NAME", requires = "history")]
    pub history_branch: Option<String>,
}

/// Runs `run` (given the `--json` path it is to write) and, with `--history`, adds what it saved. The commit
/// and the work tree are checked before the run; the add follows the run's own output. A run that could not
/// decide (exit 2) is not added; a failed add is an error (exit 2); otherwise the run's exit code stands.
pub fn around_run(
    args: &RunHistoryArgs,
    json: Option<&Path>,
    run: impl FnOnce(Option<&Path>) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    if !args.history {
        return run(json);
    }
    if json.is_some_and(|path| path.as_os_str() == "-") {
        bail!(
            "--history reads the run back from --json's file: give --json a file, or leave it out"
        );
    }
    let config = crate::baseline::nearest_config()?;
    let store = store(args.history_branch.as_deref(), config.as_ref())?;
    let origin = rho_history::add::origin(
        &store,
        &AddOptions {
            commit: "HEAD",
            allow_dirty: args.allow_dirty,
            machine: args.machine.as_deref(),
            rho_version: env!("CARGO_PKG_VERSION"),
        },
    )?;
    let scratch = rho_suite::ScratchDir::new("rho-history-run-")?;
    let saved = json.map_or_else(|| scratch.path().join("run.json"), Path::to_path_buf);
    let code = run(Some(&saved))?;
    // A run cut short by Ctrl-C is not a run of the commit: main exits 130 without adding it.
    if rho_exec::interrupt::interrupted() {
        return Ok(code);
    }
    if code != ExitCode::SUCCESS && code != ExitCode::from(1) {
        eprintln!("rho: note: the run could not decide: nothing was added to the history");
        return Ok(code);
    }
    let added = rho_history::add::add_saved_runs(&store, &[&saved], &origin)?;
    eprintln!(
        "{}",
        rho_history::add::describe(&added, &origin, store.branch())
    );
    Ok(code)
}

/// What `history` and `history check` read: the records, the commits, the analysis.
struct Loaded {
    store: Store,
    listing: rho_history::Listing,
    commits: Vec<Commit>,
    analysis: Analysis,
    detection: Detection,
}

fn load(view: &ViewArgs, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<Loaded> {
    let store = store(view.history.history_branch.as_deref(), config)?;
    let listing = store.read()?;
    let commits = store.first_parent_line(&view.branch, view.since.as_deref())?;
    let filter = Filter {
        bench: view.bench.clone(),
        metric: view.metric.clone(),
        target: view.target.clone(),
        machine: view.machine.clone(),
    };
    let detection = detection(config);
    let analysis = analysis::analyse(
        listing.records.iter().map(|(_, r)| r),
        &commits,
        &filter,
        detection,
    );
    Ok(Loaded {
        store,
        listing,
        commits,
        analysis,
        detection,
    })
}

/// `history`: the series, their change points, the unreadable records at the end.
fn show(view: &ViewArgs, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<ExitCode> {
    let json = crate::export::prepare_json(view.json.as_deref())?;
    for (flag, path) in [("--markdown", &view.markdown), ("--html", &view.html)] {
        if let Some(path) = path {
            crate::export::check_destination(flag, path)?;
        }
    }
    let loaded = load(view, config)?;
    let text = rho_history::report::render_text(
        &loaded.analysis,
        &loaded.commits,
        &loaded.listing,
        loaded.store.branch(),
    );
    let to_stderr = json
        .as_ref()
        .is_some_and(crate::export::JsonTarget::is_stdout);
    let written = if to_stderr {
        rho_text::Escaped(std::io::stderr().lock()).write_all(text.as_bytes())
    } else {
        rho_text::Escaped(std::io::stdout().lock()).write_all(text.as_bytes())
    };
    // A closed pipe (`rho bench history | head`) is not worth failing over.
    drop(written);
    if let Some(json) = &json {
        json.write(&rho_history::document::Document::of(
            &loaded.analysis,
            &loaded.commits,
            &loaded.listing,
            loaded.store.branch(),
            &view.branch,
            env!("CARGO_PKG_VERSION"),
        ))?;
    }
    if let Some(path) = &view.markdown {
        let markdown =
            rho_history::document::markdown(&loaded.analysis, &loaded.commits, &loaded.listing);
        crate::export::write_text(path, "the Markdown history", &markdown)?;
    }
    if let Some(path) = &view.html {
        let title = format!("rho bench history ({})", view.branch);
        let page = rho_history::page::render(&title, &loaded.analysis, &loaded.commits);
        crate::export::write_text(path, "the HTML history", &page)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `history check`.
fn check(view: &ViewArgs, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<ExitCode> {
    let loaded = load(view, config)?;
    if !loaded.listing.problems.is_empty() {
        for problem in &loaded.listing.problems {
            eprintln!("rho: error: {}: {}", problem.path, problem.message);
        }
        bail!(
            "{} unreadable record(s) on branch {}: the history cannot be judged",
            loaded.listing.problems.len(),
            loaded.store.branch()
        );
    }
    if loaded.analysis.series.is_empty() {
        bail!(
            "no history to judge: branch {} has no figures for the commits of {}{}",
            loaded.store.branch(),
            view.branch,
            if loaded.listing.tip.is_none() {
                " (there is no such branch)"
            } else {
                ""
            }
        );
    }
    let limits = crate::baseline::Limits::of(config);
    let lines = rho_history::report::newest_regressions(
        &loaded.analysis,
        &loaded.commits,
        loaded.detection,
        |bench, metric| limits.for_metric(bench, metric),
    );
    for line in &lines {
        println!("{line}");
    }
    let regressions = lines.len();
    if regressions > 0 {
        println!("history check: {regressions} regression(s) at the newest commit: fails");
        return Ok(ExitCode::from(1));
    }
    println!(
        "history check: no regression starts at the newest figure of {} series",
        loaded.analysis.series.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `history sync`.
fn sync(args: &SyncArgs, config: Option<&rho_config::ModuleConfig>) -> anyhow::Result<ExitCode> {
    let store = store(args.history_branch.as_deref(), config)?;
    let synced = store.sync(&args.remote)?;
    println!(
        "history: branch {} is at {} here and on {} ({} attempt(s))",
        store.branch(),
        short(&synced.tip),
        args.remote,
        synced.attempts
    );
    Ok(ExitCode::SUCCESS)
}

/// `history import`: a record per target and measure of every commit that changed the baseline file, those
/// already on the branch (same commit, machine, target, measure and recording time) left out.
fn import(
    args: &ImportArgs,
    config: Option<&rho_config::ModuleConfig>,
) -> anyhow::Result<ExitCode> {
    let store = store(args.history_branch.as_deref(), config)?;
    let toplevel = store.toplevel()?;
    let baseline = match (&args.baseline, config) {
        (Some(path), _) => std::env::current_dir()?.join(path),
        (None, Some(config)) => config.root.join(&config.baseline),
        (None, None) => std::env::current_dir()?.join(rho_config::DEFAULT_BASELINE),
    };
    let relative = rho_history::import::path_in_repository(&toplevel, &baseline)?;
    let machine = machine_name(args.machine.as_deref());
    let imported = rho_history::import::import_baseline(
        &store,
        &toplevel,
        &relative,
        &machine,
        env!("CARGO_PKG_VERSION"),
    )?;
    for id in &imported.unreadable {
        eprintln!("rho: note: {relative} at {id} is not a readable baseline: left out");
    }
    let Some((tip, added)) = imported.added else {
        println!(
            "history: nothing to import from {relative} ({} commit(s) changed it, every record already on branch {})",
            imported.commits,
            store.branch()
        );
        return Ok(ExitCode::SUCCESS);
    };
    println!(
        "history: imported {added} record(s) from {} commit(s) of {relative} to branch {} (now {})",
        imported.commits,
        store.branch(),
        short(&tip)
    );
    Ok(ExitCode::SUCCESS)
}
