//! `rho bench history`: every CI run's figures kept on a branch of the project's repository (crate
//! rho-history), read back as series per benchmark and metric with their change points, and a gate on the
//! newest one (`history check`) for post-merge CI where there is no base to build.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rho_config::ModuleConfig;
use rho_history::analysis::short;
use rho_history::analysis::{self, Analysis, Commit, Detection, Filter};
use rho_history::import::machine_name;
use rho_history::{Origin, Store};

use crate::Error;
use crate::output::{JsonTarget, Terminal};

/// What `history` was asked to do.
#[derive(Debug, Clone)]
pub enum Action {
    /// The series, their change points, the unreadable records at the end.
    Show(ViewOptions),
    /// Exit 1 when the newest commit is the first to show a regression beyond a benchmark's limit, naming
    /// the commit that started it; a warning on later commits until it is acknowledged.
    Check(ViewOptions),
    Add(AddOptions),
    /// A note on the history branch that accepts a regression: `history check` stops warning about it.
    Ack(AckOptions),
    /// A note on the history branch that joins benchmark `from`'s series to `to`'s.
    Rename {
        from: String,
        to: String,
        history_branch: Option<String>,
    },
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

/// `history ack COMMIT [--bench NAME]`.
#[derive(Debug, Clone)]
pub struct AckOptions {
    /// The commit that started the regression, as the user named it.
    pub commit: String,
    /// Only this benchmark's regression; `None` every benchmark's.
    pub bench: Option<String>,
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
        Action::Ack(ack_options) => ack(ack_options, config, terminal),
        Action::Rename {
            from,
            to,
            history_branch,
        } => rename(from, to, history_branch.as_deref(), config, terminal),
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
    let origin = rho_history::add::origin(
        &store,
        &rho_history::add::AddOptions {
            commit: &options.commit,
            allow_dirty: options.allow_dirty,
            machine: options.machine.as_deref(),
            rho_version: crate::VERSION,
        },
    )?;
    let runs: Vec<&Path> = options.runs.iter().map(PathBuf::as_path).collect();
    let added = rho_history::add::add_saved_runs(&store, &runs, &origin)?;
    let line = rho_report::history::text::added_line(&added, &origin, store.branch());
    say_out(terminal, &format!("{line}\n"));
    Ok(0)
}

/// `--history` on `rho bench` and `rho bench check`: add the run just made, as `history add` adds a run
/// saved by `--json`.
#[derive(Debug, Clone, Default)]
pub struct RunHistoryOptions {
    pub allow_dirty: bool,
    pub machine: Option<String>,
    pub history_branch: Option<String>,
    /// Import the committed baseline's git log first (`history import`), whether the branch is new or not.
    pub backfill: bool,
}

/// A run to be added once it is made: the branch and the commit, checked before the run, and the file the
/// run saves itself to (`--json FILE`, else one of rho's own, removed with this).
pub struct Pending {
    store: Store,
    origin: Origin,
    saved: PathBuf,
    /// The committed baseline to import before the run is added: with `--backfill`, or when the history
    /// branch does not exist yet (the first run CI adds) and the baseline file does.
    backfill: Option<PathBuf>,
    machine: Option<String>,
    _scratch: rho_suite::ScratchDir,
}

impl Pending {
    /// Checks what can be checked before the run: a git repository, the commit (HEAD), a clean work tree
    /// (unless `allow_dirty`); `json` is `--json`'s argument (`-` is refused: nothing to read back).
    pub fn prepare(options: &RunHistoryOptions, json: Option<&Path>) -> crate::Result<Pending> {
        if json.is_some_and(|path| path.as_os_str() == "-") {
            return Err(Error::Refused(
                "--history reads the run back from --json's file: give --json a file, or leave it out"
                    .to_string(),
            ));
        }
        let config = crate::output::nearest_config()?;
        let store = store(options.history_branch.as_deref(), config.as_ref())?;
        let origin = rho_history::add::origin(
            &store,
            &rho_history::add::AddOptions {
                commit: "HEAD",
                allow_dirty: options.allow_dirty,
                machine: options.machine.as_deref(),
                rho_version: crate::VERSION,
            },
        )?;
        let baseline = baseline_of(config.as_ref())?;
        // A branch that is not a history is the add's to refuse, after the run (as without a backfill).
        let new_branch = matches!(store.tip(), Ok(None));
        let backfill = (options.backfill || (new_branch && baseline.is_file())).then_some(baseline);
        let scratch = rho_suite::ScratchDir::new("rho-history-run-").map_err(Error::TempDir)?;
        let saved = json.map_or_else(|| scratch.path().join("run.json"), Path::to_path_buf);
        Ok(Pending {
            store,
            origin,
            saved,
            backfill,
            machine: options.machine.clone(),
            _scratch: scratch,
        })
    }

    /// Where the run is to save itself (its `--json`).
    pub fn saved(&self) -> &Path {
        &self.saved
    }

    /// After the run: adds what it saved when it `decided` (exit 0 or 1) and was not cut short by Ctrl-C,
    /// and says so on stderr; a run that could not decide adds nothing, and a note says so.
    pub fn finish(self, decided: bool) -> crate::Result<()> {
        if rho_exec::interrupt::interrupted() {
            return Ok(());
        }
        if !decided {
            crate::say("rho: note: the run could not decide: nothing was added to the history");
            return Ok(());
        }
        if let Some(baseline) = &self.backfill {
            crate::say(&import_baseline(
                &self.store,
                baseline,
                self.machine.as_deref(),
            )?);
        }
        let added = rho_history::add::add_saved_runs(&self.store, &[&self.saved], &self.origin)?;
        crate::say(&rho_report::history::text::added_line(
            &added,
            &self.origin,
            self.store.branch(),
        ));
        Ok(())
    }
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
    let filter = Filter {
        renames: rho_history::note::Renames::of(listing.notes.iter().map(|(_, note)| note)),
        ..view.filter.clone()
    };
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
    let text = rho_report::history::text::render_text(
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
        let markdown = rho_report::history::markdown::render(
            &loaded.analysis,
            &loaded.commits,
            &loaded.listing,
        );
        crate::output::write_text(path, "the Markdown history", &markdown)?;
    }
    if let Some(path) = &view.html {
        let title = format!("rho bench history ({})", view.branch);
        // The page opens with `history check`'s verdict, by the same limits.
        let limits = crate::baseline::Limits::of(config);
        let limit = |bench: &str, metric| limits.for_metric(bench, metric);
        let judgement = rho_history::check::judge_newest(
            &loaded.analysis,
            &loaded.commits,
            &loaded.listing,
            loaded.detection,
            limit,
        );
        let page = rho_report::history::page::render(&rho_report::history::page::History {
            title: &title,
            analysis: &loaded.analysis,
            commits: &loaded.commits,
            listing: &loaded.listing,
            judgement: &judgement,
            limit: &limit,
        });
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
    let judgement = rho_history::check::judge_newest(
        &loaded.analysis,
        &loaded.commits,
        &loaded.listing,
        loaded.detection,
        |bench, metric| limits.for_metric(bench, metric),
    );
    let text = rho_report::history::text::check_lines(
        &judgement,
        &loaded.commits,
        loaded.analysis.series.len(),
    );
    say_out(terminal, &text);
    Ok(if judgement.failures.is_empty() { 0 } else { 1 })
}

/// `history ack`: the commit resolved on this repository, the note added to the branch.
fn ack(
    options: &AckOptions,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    let store = store(options.history_branch.as_deref(), config)?;
    let commit = store.commit_info(&options.commit)?.id;
    let note = rho_history::Note::now(rho_history::NoteKind::Ack {
        commit: commit.clone(),
        bench: options.bench.clone(),
    });
    let (_, path) = store.note(&note)?;
    say_out(
        terminal,
        &format!(
            "history ack: the regression started by {} ({}) accepted as {path} on branch {}\n",
            short(&commit),
            options.bench.as_deref().unwrap_or("every benchmark"),
            store.branch()
        ),
    );
    Ok(0)
}

/// `history rename OLD NEW`: the note added to the branch.
fn rename(
    from: &str,
    to: &str,
    history_branch: Option<&str>,
    config: Option<&ModuleConfig>,
    terminal: &dyn Terminal,
) -> crate::Result<u8> {
    if from.is_empty() || to.is_empty() || from == to {
        return Err(Error::Refused(format!(
            "history rename \"{from}\" \"{to}\": expected the old name and a different new one"
        )));
    }
    let store = store(history_branch, config)?;
    let note = rho_history::Note::now(rho_history::NoteKind::Rename {
        from: from.to_string(),
        to: to.to_string(),
    });
    let (_, path) = store.note(&note)?;
    say_out(
        terminal,
        &format!(
            "history rename: {from}'s records join {to}'s series, as {path} on branch {}\n",
            store.branch()
        ),
    );
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
    let baseline = match (&options.baseline, config) {
        (Some(path), _) => crate::output::current_dir()?.join(path),
        (None, _) => baseline_of(config)?,
    };
    let line = import_baseline(&store, &baseline, options.machine.as_deref())?;
    say_out(terminal, &format!("{line}\n"));
    Ok(0)
}

/// The committed baseline's path: module.yml's `bench.baseline`, else bench/baseline.json here.
fn baseline_of(config: Option<&ModuleConfig>) -> crate::Result<PathBuf> {
    Ok(match config {
        Some(config) => config.root.join(&config.baseline),
        None => crate::output::current_dir()?.join(rho_config::DEFAULT_BASELINE),
    })
}

/// A record per target and measure of every commit that changed `baseline` and is not on the branch yet, as
/// machine `machine`; what was done, in a line.
fn import_baseline(store: &Store, baseline: &Path, machine: Option<&str>) -> crate::Result<String> {
    let toplevel = store.toplevel()?;
    let relative = rho_history::import::path_in_repository(&toplevel, baseline)?;
    let machine = machine_name(machine);
    let imported = rho_history::import::import_baseline(
        store,
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
    Ok(match imported.added {
        None => format!(
            "history: nothing to import from {relative} ({} commit(s) changed it, every record already on branch {})",
            imported.commits,
            store.branch()
        ),
        Some((tip, added)) => format!(
            "history: imported {added} record(s) from {} commit(s) of {relative} to branch {} (now {})",
            imported.commits,
            store.branch(),
            short(&tip)
        ),
    })
}
