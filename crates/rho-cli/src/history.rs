//! `rho bench history`: its flags; the work is rho_ops::history's (every CI run's figures kept on a branch of
//! the project's repository, read back as series with their change points, and `history check`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use rho_ops::history::{AckOptions, Action, AddOptions, ImportOptions, SyncOptions, ViewOptions};

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
    /// Exit 1 when the newest commit is the first to show a regression beyond a benchmark's limit
    /// (`fail_on_regression_percent`, or the instructions one), naming the commit that started it; on later
    /// commits, while the series stays at its new level, a warning naming it (exit 0) until `history ack`;
    /// 2 when it cannot decide (no history, a corrupt record).
    Check(ViewArgs),
    /// Accept the regression started by COMMIT (of every benchmark, or of `--bench NAME`): `history check`
    /// stops warning about it. Recorded on the history branch as a note.
    Ack(AckArgs),
    /// Benchmark OLD goes on as NEW: their records are one series, under NEW. Recorded on the history branch
    /// as a note.
    Rename(RenameArgs),
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

/// `history ack COMMIT`.
#[derive(Debug, Args)]
pub struct AckArgs {
    /// The commit that started the regression (any name git resolves).
    #[arg(value_name = "COMMIT")]
    pub commit: String,

    /// Only this benchmark's regression (its whole name); default every benchmark's.
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,

    /// The history branch (default module.yml's `bench.history.branch`, else `rho-history`).
    #[arg(long = "branch", visible_alias = "history-branch", value_name = "NAME")]
    pub history_branch: Option<String>,
}

/// `history rename OLD NEW`.
#[derive(Debug, Args)]
pub struct RenameArgs {
    /// The benchmark's old name (whole).
    #[arg(value_name = "OLD")]
    pub from: String,

    /// Its new name (whole).
    #[arg(value_name = "NEW")]
    pub to: String,

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
    let action = match &args.action {
        None => Action::Show(args.view.options()),
        Some(HistoryAction::Check(view)) => Action::Check(view.options()),
        Some(HistoryAction::Add(add)) => Action::Add(AddOptions {
            runs: add.runs.clone(),
            commit: add.commit.clone(),
            allow_dirty: add.allow_dirty,
            machine: add.machine.clone(),
            history_branch: add.history_branch.clone(),
        }),
        Some(HistoryAction::Ack(ack)) => Action::Ack(AckOptions {
            commit: ack.commit.clone(),
            bench: ack.bench.clone(),
            history_branch: ack.history_branch.clone(),
        }),
        Some(HistoryAction::Rename(rename)) => Action::Rename {
            from: rename.from.clone(),
            to: rename.to.clone(),
            history_branch: rename.history_branch.clone(),
        },
        Some(HistoryAction::Sync(sync)) => Action::Sync(SyncOptions {
            remote: sync.remote.clone(),
            history_branch: sync.history_branch.clone(),
        }),
        Some(HistoryAction::Import(import)) => Action::Import(ImportOptions {
            baseline: import.baseline.clone(),
            machine: import.machine.clone(),
            history_branch: import.history_branch.clone(),
        }),
    };
    let output = crate::term::OutputArgs::default();
    Ok(ExitCode::from(rho_ops::history::run(&action, &output)?))
}

impl ViewArgs {
    fn options(&self) -> ViewOptions {
        ViewOptions {
            filter: rho_history::analysis::Filter {
                bench: self.bench.clone(),
                metric: self.metric.clone(),
                target: self.target.clone(),
                machine: self.machine.clone(),
                // The branch's notes say them: rho_ops reads them with the records.
                renames: rho_history::note::Renames::default(),
            },
            since: self.since.clone(),
            branch: self.branch.clone(),
            history_branch: self.history.history_branch.clone(),
            json: self.json.clone(),
            markdown: self.markdown.clone(),
            html: self.html.clone(),
        }
    }
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

    /// With --history: first import the committed baseline's git log (as `history import`: a record per
    /// commit that changed it, none twice). Done anyway when the history branch does not exist yet.
    #[arg(long, requires = "history")]
    pub backfill: bool,
}

/// Runs `run` (given the `--json` path it is to write) and, with `--history`, adds what it saved
/// (rho_ops::history::Pending: checked before the run, added after it; the run's exit code stands).
pub fn around_run(
    args: &RunHistoryArgs,
    json: Option<&std::path::Path>,
    run: impl FnOnce(Option<&std::path::Path>) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    if !args.history {
        return run(json);
    }
    let pending = rho_ops::history::Pending::prepare(
        &rho_ops::history::RunHistoryOptions {
            allow_dirty: args.allow_dirty,
            machine: args.machine.clone(),
            history_branch: args.history_branch.clone(),
            backfill: args.backfill,
        },
        json,
    )?;
    let code = run(Some(pending.saved()))?;
    pending.finish(code == ExitCode::SUCCESS || code == ExitCode::from(1))?;
    Ok(code)
}
