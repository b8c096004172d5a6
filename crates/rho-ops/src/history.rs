//! `rho bench history`: every CI run's figures kept on a branch of the project's repository (crate
//! rho-history), read back as series per benchmark and metric with their change points, and a gate on the
//! newest one (`history check`) for post-merge CI where there is no base to build.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rho_config::ModuleConfig;
use rho_history::analysis::{self, Analysis, Commit, Detection, Filter};
use rho_history::import::machine_name;
use rho_history::report::short;
use rho_history::{Origin, Store};

use crate::Error;
use crate::output::{JsonTarget, Terminal};

/// What `history` was asked to do.
#[derive(Debug, Clone)]
pub enum Action {
    /// The series, their change points, the unreadable records at the end.
    Show(ViewOptions),
    /// Exit 1 when the newest figure of a benchmark starts a regression beyond its limit.
    Check(ViewOptions),
    Add(AddOptions),
    Sync(SyncOptions),
    Import(ImportOptions),
}

/// `history add RUN.json...`.
#[derive(Debug, Clone)]
pub struct AddOptions {
    pub runs: Vec<PathBuf>,
    /// The commit the runs measured.
    pub commit: String,
    pub allow_dirty: bool,
    pub machine: Option<String>,
    pub history_branch: Option<String>,
}

/// `history sync [REMOTE]`.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    pub remote: String,
    pub history_branch: Option<String>,
}

/// `history import`.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The baseline file (default module.yml's `bench.baseline`, else bench/baseline.json).
    pub baseline: Option<PathBuf>,
    pub machine: Option<String>,
    pub history_branch: Option<String>,
}

/// Which series, along which commits, and where they are written.
#[derive(Debug, Clone)]
pub struct ViewOptions {
    pub filter: Filter,
    /// Only commits from this one (on the line, itself included) or this date on.
    pub since: Option<String>,
    /// The branch whose first-parent line orders the commits.
    pub branch: String,
    pub history_branch: Option<String>,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// `rho bench history ...`: the exit status.
pub fn run(action: &Action, terminal: &dyn Terminal) -> crate::Result<u8> {
    let config = crate::output::nearest_config()?;
    let config = config.as_ref();
    match action {
        Action::Show(view) => show(view, config, terminal),
        Action::Check(view) => check(view, config, terminal),
        Action::Add(add_options) => add(add_options, config, terminal),
        Action::Sync(sync_options) => sync(sync_options, config, terminal),
        Action::Import(import_options) => import(import_options, config, terminal),
    }
}

/// Lines on stdout (escaped).
fn say_out(terminal: &dyn Terminal, lines: &str) {
    crate::output::show(&mut terminal.plain(false), lines);
}

/// The history store of the current directory's repository.
fn store(branch: Option<&str>, config: Option<&ModuleConfig>) -> crate::Result<Store> {
    let branch = branch
        .map(str::to_string)
        .or_else(|| config.and_then(|c| c.history.branch.clone()))
        .unwrap_or_else(|| rho_history::DEFAULT_BRANCH.to_string());
    let dir = crate::output::current_dir()?;
    let store = Store::open(&dir, &branch)?;
    if store.toplevel().is_err() {
        return Err(Error::Refused(format!(
            "{} is not in a git repository: the history is kept on a branch of the project's repository",
            dir.display()
        )));
    }
    Ok(store)
}

fn detection(config: Option<&ModuleConfig>) -> Detection {
    let mut detection = Detection::default();
    if let Some(history) = config.map(|c| &c.history) {
        detection.window = history.window.unwrap_or(detection.window);
        detection.max_pvalue = history.max_pvalue.unwrap_or(detection.max_pvalue);
    }
    detection
}

/// `history add`.
fn add(
    options: &AddOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let store = store(options.history_branch.as_deref(), config)?;
    let dirty = store.work_tree_dirty()?;
    if dirty && !options.allow_dirty {
        return Err(Error::Refused(format!(
            "the work tree has changes to tracked files: the run may not be of {} (commit them, or pass \
             --allow-dirty and the record says it was dirty)",
            options.commit
        )));
    }
    let commit = store.commit_info(&options.commit)?;
    let origin = Origin {
        commit: commit.id.clone(),
        commit_time: commit.time.clone(),
        subject: commit.subject.clone(),
        dirty,
        machine: machine_name(options.machine.as_deref()),
        rho_version: crate::VERSION.to_string(),
    };
    let mut records = Vec::new();
    for path in &options.runs {
        records.extend(records_of_run(path, &origin)?);
    }
    let (tip, paths) = store.add(&records)?;
    say_out(
        terminal,
        &format!(
            "history: added {} record(s) of {} ({}) on {} to branch {} (now {})\n",
            paths.len(),
            short(&commit.id),
            commit.subject,
            origin.machine,
            store.branch(),
            short(&tip)
        ),
    );
    Ok(0)
}

/// A saved run's records (rho_history::record::records_of_suites), of any saved run
/// (rho_baseline::saved::parse_any).
fn records_of_run(path: &Path, origin: &Origin) -> crate::Result<Vec<rho_history::Record>> {
    let suites = saved_suites(path)?;
    let parts: Vec<(&str, &rho_stats::RunSummary)> = suites
        .iter()
        .map(|suite| (suite.what.as_str(), &suite.summary))
        .collect();
    rho_history::record::records_of_suites(&parts, origin, crate::VERSION).map_err(|source| {
        Error::Records {
            path: path.to_path_buf(),
            source,
        }
    })
}

fn saved_suites(path: &Path) -> crate::Result<Vec<crate::saved::SavedSuite>> {
    let text = crate::saved::read_text(path)?;
    Ok(rho_baseline::saved::parse_any(
        &text,
        &path.display().to_string(),
    )?)
}

/// What `history` and `history check` read: the records, the commits, the analysis.
struct Loaded {
    store: Store,
    listing: rho_history::Listing,
    commits: Vec<Commit>,
    analysis: Analysis,
    detection: Detection,
}

fn load(view: &ViewOptions, config: Option<&ModuleConfig>) -> crate::Result<Loaded> {
    let store = store(view.history_branch.as_deref(), config)?;
    let listing = store.read()?;
    let commits = store.first_parent_line(&view.branch, view.since.as_deref())?;
    let detection = detection(config);
    let analysis = analysis::analyse(
        listing.records.iter().map(|(_, r)| r),
        &commits,
        &view.filter,
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
fn show(
    view: &ViewOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let json = crate::output::prepare_json(view.json.as_deref())?;
    for (flag, path) in [("--markdown", &view.markdown), ("--html", &view.html)] {
        if let Some(path) = path {
            crate::output::check_destination(flag, path)?;
        }
    }
    let loaded = load(view, config)?;
    let text = rho_history::report::render_text(
        &loaded.analysis,
        &loaded.commits,
        &loaded.listing,
        loaded.store.branch(),
    );
    let to_stderr = json.as_ref().is_some_and(JsonTarget::is_stdout);
    // A closed pipe (`rho bench history | head`) is not worth failing over.
    let _ = terminal.plain(to_stderr).write_all(text.as_bytes());
    if let Some(json) = &json {
        json.write(&rho_history::document::Document::of(
            &loaded.analysis,
            &loaded.commits,
            &loaded.listing,
            loaded.store.branch(),
            &view.branch,
            crate::VERSION,
        ))?;
    }
    if let Some(path) = &view.markdown {
        let markdown =
            rho_history::document::markdown(&loaded.analysis, &loaded.commits, &loaded.listing);
        crate::output::write_text(path, "the Markdown history", &markdown)?;
    }
    if let Some(path) = &view.html {
        let title = format!("rho bench history ({})", view.branch);
        let page = rho_history::page::render(&title, &loaded.analysis, &loaded.commits);
        crate::output::write_text(path, "the HTML history", &page)?;
    }
    Ok(0)
}

/// `history check`.
fn check(
    view: &ViewOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let loaded = load(view, config)?;
    if !loaded.listing.problems.is_empty() {
        for problem in &loaded.listing.problems {
            crate::say(&format!(
                "rho: error: {}: {}",
                problem.path, problem.message
            ));
        }
        return Err(Error::Refused(format!(
            "{} unreadable record(s) on branch {}: the history cannot be judged",
            loaded.listing.problems.len(),
            loaded.store.branch()
        )));
    }
    if loaded.analysis.series.is_empty() {
        return Err(Error::Refused(format!(
            "no history to judge: branch {} has no figures for the commits of {}{}",
            loaded.store.branch(),
            view.branch,
            if loaded.listing.tip.is_none() {
                " (there is no such branch)"
            } else {
                ""
            }
        )));
    }
    let limits = crate::baseline::Limits::of(config);
    let lines = rho_history::report::newest_regressions(
        &loaded.analysis,
        &loaded.commits,
        loaded.detection,
        |bench, metric| limits.for_metric(bench, metric),
    );
    let mut text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let regressions = lines.len();
    if regressions > 0 {
        text.push_str(&format!(
            "history check: {regressions} regression(s) at the newest commit: fails\n"
        ));
        say_out(terminal, &text);
        return Ok(1);
    }
    text.push_str(&format!(
        "history check: no regression starts at the newest figure of {} series\n",
        loaded.analysis.series.len()
    ));
    say_out(terminal, &text);
    Ok(0)
}

/// `history sync`.
fn sync(
    options: &SyncOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let store = store(options.history_branch.as_deref(), config)?;
    let synced = store.sync(&options.remote)?;
    say_out(
        terminal,
        &format!(
            "history: branch {} is at {} here and on {} ({} attempt(s))\n",
            store.branch(),
            short(&synced.tip),
            options.remote,
            synced.attempts
        ),
    );
    Ok(0)
}

/// `history import`: a record per target and measure of every commit that changed the baseline file, those
/// already on the branch (same commit, machine, target, measure and recording time) left out.
fn import(
    options: &ImportOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let store = store(options.history_branch.as_deref(), config)?;
    let toplevel = store.toplevel()?;
    let baseline = match (&options.baseline, config) {
        (Some(path), _) => crate::output::current_dir()?.join(path),
        (None, Some(config)) => config.root.join(&config.baseline),
        (None, None) => crate::output::current_dir()?.join(rho_config::DEFAULT_BASELINE),
    };
    let relative = rho_history::import::path_in_repository(&toplevel, &baseline)?;
    let machine = machine_name(options.machine.as_deref());
    let imported = rho_history::import::import_baseline(
        &store,
        &toplevel,
        &relative,
        &machine,
        crate::VERSION,
    )?;
    for id in &imported.unreadable {
        crate::say(&format!(
            "rho: note: {relative} at {id} is not a readable baseline: left out"
        ));
    }
    let line = match imported.added {
        None => format!(
            "history: nothing to import from {relative} ({} commit(s) changed it, every record already on branch {})\n",
            imported.commits,
            store.branch()
        ),
        Some((tip, added)) => format!(
            "history: imported {added} record(s) from {} commit(s) of {relative} to branch {} (now {})\n",
            imported.commits,
            store.branch(),
            short(&tip)
        ),
    };
    say_out(terminal, &line);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_stats::RunSummary;

    const STREAM: &str = include_str!("../../rho-report/testdata/two_benchmarks.wire");

    #[test]
    fn a_run_of_several_targets_is_read_target_by_target() {
        let summary = RunSummary::of(&rho_wire::parse_str(STREAM).unwrap()).unwrap();
        let suite = crate::output::SuiteInfo {
            sources: vec![PathBuf::from("a.c")],
            compiler: vec!["cc".into()],
            cflags: Vec::new(),
            ldflags: Vec::new(),
            iterations: None,
            warmup: None,
            scale: None,
            timeout_seconds: 300.0,
        };
        let run = serde_json::to_value(crate::output::RunDocument::new(suite, &summary)).unwrap();
        let mut other = run.clone();
        other["target"]["name"] = "board".into();
        let document = serde_json::json!({
            "schema": "rho-bench-targets/1",
            "rho_version": "0.1.0",
            "runs": [run, other],
            "comparison": {},
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("targets.json");
        std::fs::write(&path, document.to_string()).unwrap();
        let suites = saved_suites(&path).unwrap();
        let targets: Vec<&str> = suites
            .iter()
            .map(|s| s.summary.target.name.as_str())
            .collect();
        assert_eq!(targets, [summary.target.name.as_str(), "board"]);
        let origin = Origin {
            commit: "a".repeat(40),
            commit_time: "2026-12-04T10:00:00Z".to_string(),
            subject: "s".to_string(),
            dirty: false,
            machine: "m".to_string(),
            rho_version: "0.1.0".to_string(),
        };
        let records = records_of_run(&path, &origin).unwrap();
        let record_targets: Vec<&str> = records.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(record_targets, [summary.target.name.as_str(), "board"]);
        // A target's document that is not a run is refused naming the file and the target's place.
        let broken = serde_json::json!({"schema": "rho-bench-targets/1", "runs": [{"suite": 1}]});
        std::fs::write(&path, broken.to_string()).unwrap();
        let error = saved_suites(&path).unwrap_err().to_string();
        assert!(error.contains("targets.json (target 1)"), "{error}");
    }
}
