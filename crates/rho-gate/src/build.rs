//! Building both sides before the runs: base and head at once when two builds may run (`--jobs`), and a side
//! that is a git revision, or a directory in a git repository, from the repository's build cache when an entry
//! of its tree id or content and its environment matches and what its build read still holds (crate::cache,
//! crate::content, crate::inputs); compiles through ccache (crate::ccache); with `--verify-cache` each side
//! built again without the caches and compared.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use rho_exec::Runner;

use crate::cache::{BuildCache, CACHE_BOUND_BYTES, CacheKey, CachedFile, files_under};
use crate::ccache::CompileCache;
use crate::error::{GateError, SideName};
use crate::progress::Progress;
use crate::recipe::Recipe;
use crate::shell::{Launch, Scratch, Shell};
use crate::side::{PreparedSide, SideSpec, git};

/// A side as its build sees it: where it is and how it is built.
pub(crate) struct BuildSide<'a> {
    pub prepared: &'a PreparedSide,
    pub recipe: &'a Recipe,
}

/// How long a compiler's `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// Variables of a terminal session that no compiler or build tool reads and that change from one shell to the
/// next: left out of the build cache's key unless a build command names them (every other variable of the
/// build's environment is in the key).
const SESSION_VARIABLES: &[&str] = &[
    "_",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "TERM",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "DISPLAY",
    "WINDOWID",
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "SSH_AUTH_SOCK",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "XDG_SESSION_ID",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
    "LS_COLORS",
    "HISTFILE",
    "PS1",
    "PROMPT_COMMAND",
    "MAIL",
];

/// What every side's build shares.
pub(crate) struct BuildContext<'a> {
    pub environment: &'a [(String, String)],
    pub scratch: &'a Scratch,
    pub timeout: Duration,
    /// The harness header both sides build against, and whether instructions are counted: both in the key.
    pub bench_header: &'a str,
    pub counting: bool,
    /// Where `rho` runs (the repository of revision sides).
    pub cwd: &'a Path,
    pub cache: bool,
    /// `--verify-cache`: each side built again without the caches, its build directories compared.
    pub verify: bool,
    /// Whether the compilers run through ccache (crate::ccache).
    pub compilers: &'a CompileCache,
}

/// Build each side's jobs once, in the side's module root (a job rho built already has no build): with
/// `jobs` of 2 or more base and head at once, else base then head. A side with nothing to build or run is an
/// error; when both builds fail, base's failure is the one reported (as when they ran in turn).
pub(crate) fn build_sides(
    sides: &[BuildSide; 2],
    context: &BuildContext,
    jobs: usize,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), GateError> {
    for side in sides {
        if side.recipe.jobs.is_empty() {
            return Err(GateError::Recipe {
                side: side.prepared.name,
                message: format!(
                    "target `{}` of {} has nothing to build or run",
                    side.recipe.target,
                    side.recipe.file.display()
                ),
            });
        }
    }
    if let CompileCache::Unavailable(note) = context.compilers {
        progress(&Progress::Note(note.clone()));
    }
    // Whether the builds can be traced (crate::inputs): without it no build is stored.
    let tracing = match context.cache {
        true => crate::inputs::tracing_available(&context.scratch.file("probe.trace")),
        false => Err("the cache is off".to_owned()),
    };
    let tracing = &tracing;
    if jobs < 2 {
        let mut built = Vec::new();
        for side in sides {
            built.push(build_side(side, context, tracing, &mut |p| progress(&p))?);
        }
        store_all(sides, built, context, &mut |p| progress(&p));
        return verify_sides(sides, context, &mut |p| progress(&p));
    }
    let (sender, receiver) = mpsc::channel::<Progress>();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = sides
            .iter()
            .map(|side| {
                let sender = sender.clone();
                scope.spawn(move || {
                    build_side(side, context, tracing, &mut |p| {
                        // The receiver lives until both builds end.
                        let _ = sender.send(p);
                    })
                })
            })
            .collect();
        drop(sender);
        // Progress is shown on this thread as it comes, whichever side sends it.
        for step in receiver {
            progress(&step);
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<Vec<_>>()
    });
    let built = results.into_iter().collect::<Result<Vec<_>, GateError>>()?;
    store_all(sides, built, context, &mut |p| progress(&p));
    verify_sides(sides, context, &mut |p| progress(&p))
}

/// What a side's build leaves to store once both sides are built: its slot, the record of what it read (or
/// why there is none), and whether it compiled through ccache.
struct Built {
    slot: CacheSlot,
    record: Result<String, String>,
    through_ccache: bool,
}

/// Store each side's build, once both are built: a build that compiled through ccache is not stored when
/// either side's build turned ccache off meanwhile (an assembler read a file ccache does not see: a ccache hit
/// of that compile hid the read from the trace, so the record may lack it).
fn store_all(
    sides: &[BuildSide; 2],
    built: Vec<Option<Built>>,
    context: &BuildContext,
    progress: &mut dyn FnMut(Progress),
) {
    for (side, built) in sides.iter().zip(built) {
        let Some(built) = built else { continue };
        let stored = built.record.and_then(|inputs| {
            match crate::ccache::turned_off(&side.prepared.module_root) {
                Some(why) if built.through_ccache => Err(format!("not cached: {why}")),
                _ => store(side, context, &built.slot, &inputs),
            }
        });
        if let Err(note) = stored {
            progress(Progress::Cached {
                side: side.prepared.name,
                note,
            });
        }
    }
}

/// `--verify-cache`: build each side's jobs again without the caches (no build cache, no ccache, no trace),
/// each into a build directory of its own, and compare every file of it with the one the gate's build left:
/// the first that differs (bytes, or present on one side only) is an error naming it. Files a build writes
/// into its checkout or directory are not compared.
fn verify_sides(
    sides: &[BuildSide; 2],
    context: &BuildContext,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), GateError> {
    if !context.verify {
        return Ok(());
    }
    for side in sides {
        let name = side.prepared.name;
        for (index, job) in side.recipe.jobs.iter().enumerate() {
            let Some(build) = &job.build else {
                continue;
            };
            let out = context.scratch.file(&format!("verify-{name}-{index}"));
            std::fs::create_dir_all(&out)
                .map_err(|e| GateError::io(format!("cannot create {}", out.display()), e))?;
            progress(Progress::Cached {
                side: name,
                note: format!("--verify-cache: building job {index} again without the caches"),
            });
            let shell = Shell {
                side: name,
                command: build,
                dir: &side.prepared.module_root,
                env: context.environment,
                job_env: &job.env,
                include: &context.scratch.include,
                out: &out,
                timeout: context.timeout,
            };
            shell.run("build (--verify-cache)")?;
            let cached = context.scratch.out(name, index)?;
            compare_outputs(name, &cached, &out)?;
        }
        progress(Progress::Cached {
            side: name,
            note: "--verify-cache: the build without the caches made the same files".to_owned(),
        });
    }
    Ok(())
}

/// The first file under `cached` or `uncached` (in name order) that is not in both with the same bytes.
fn compare_outputs(side: SideName, cached: &Path, uncached: &Path) -> Result<(), GateError> {
    let with = files_under(cached);
    let without = files_under(uncached);
    let mut names: Vec<&PathBuf> = with.iter().chain(&without).collect();
    names.sort();
    names.dedup();
    for name in names {
        let differs = |detail: String| GateError::CacheDiffers {
            side,
            file: name.clone(),
            detail,
        };
        let (a, b) = (
            std::fs::read(cached.join(name)),
            std::fs::read(uncached.join(name)),
        );
        match (a, b) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(a), Ok(b)) => {
                let at = a
                    .iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                return Err(differs(format!(
                    "{} and {} bytes, the first difference at byte {at}",
                    a.len(),
                    b.len()
                )));
            }
            (Ok(_), Err(_)) => return Err(differs("only the cached build made it".to_owned())),
            (Err(_), Ok(_)) => {
                return Err(differs(
                    "only the build without the caches made it".to_owned(),
                ));
            }
            (Err(e), Err(_)) => return Err(differs(format!("cannot read it: {e}"))),
        }
    }
    Ok(())
}

/// Where a side's build is looked up in and stored to the cache.
struct CacheSlot {
    cache: BuildCache,
    key: CacheKey,
    /// The top of the checkout or repository the side is in.
    top: PathBuf,
    /// For a directory side, its content before the build (crate::content): stored only when the build left
    /// it so, and never restored into (the user's directory is read-only to rho).
    directory: Option<Vec<String>>,
}

/// The cache slot of a side: a revision by its tree id, a directory in a git repository by its content;
/// `None` when the cache is off or the side has no key (a note says why when git could not tell).
fn cache_slot(
    side: &BuildSide,
    context: &BuildContext,
    progress: &mut dyn FnMut(Progress),
) -> Option<CacheSlot> {
    // A side with no build command (rho built it before the gate) has nothing to cache.
    if !context.cache || side.recipe.jobs.iter().all(|job| job.build.is_none()) {
        return None;
    }
    let name = side.prepared.name;
    match (&side.prepared.spec, side.prepared.worktree()) {
        (SideSpec::Revision { commit, .. }, Some(worktree)) => {
            let tree = git(context.cwd, &["rev-parse", &format!("{commit}^{{tree}}")]).ok()?;
            let lines = vec![format!("tree {}", tree.trim())];
            cache_of(side, lines, worktree.path(), context, None)
        }
        (SideSpec::Directory(dir), None) => {
            let index = context.scratch.file(&format!("index-{name}"));
            match crate::content::content_of(dir, &index) {
                Ok(Some(content)) => {
                    let before = Some(content.lines.clone());
                    cache_of(side, content.lines, &content.top, context, before)
                }
                Ok(None) => None,
                Err(why) => {
                    let note = format!("not cached: {why}");
                    progress(Progress::Cached { side: name, note });
                    None
                }
            }
        }
        _ => None,
    }
}

/// Build one side: from the cache when it has a slot (a revision, or a directory in a git repository) with a
/// matching entry, else by its build commands (then stored in the cache).
fn build_side(
    side: &BuildSide,
    context: &BuildContext,
    tracing: &Result<crate::inputs::Tracer, String>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Built>, GateError> {
    let name = side.prepared.name;
    let cached = cache_slot(side, context, progress);
    if let Some(slot) = &cached {
        let roots = area_roots(side, context.scratch, slot)?;
        let root = |area: &str| {
            roots
                .iter()
                .find(|(a, _)| a == area)
                .map(|(_, p)| p.clone())
        };
        let inputs_hold = |record: &str| {
            let mut ids = crate::file_ids::FileIds::in_dir(slot.cache.dir());
            let held = crate::inputs::check_record(record, &slot.top, &mut ids);
            ids.save();
            held
        };
        match slot.cache.restore(&slot.key, &root, &inputs_hold) {
            Ok(true) => {
                progress(Progress::Cached {
                    side: name,
                    note: "built from the cache (.git/rho-cache)".to_owned(),
                });
                return Ok(None);
            }
            Ok(false) => {}
            Err(note) => progress(Progress::Cached { side: name, note }),
        }
    }
    // Through ccache, when it is on and the side is in a git repository.
    let compiling = match context.compilers {
        CompileCache::On(shims) => match crate::ccache::turned_off(&side.prepared.module_root) {
            Some(why) => {
                let note = format!("no compile cache: {why}");
                progress(Progress::Cached { side: name, note });
                None
            }
            None => shims.environment(name, &side.prepared.module_root, context.scratch),
        },
        _ => None,
    };
    let mut environment = context.environment.to_vec();
    let mut launch = Launch::default();
    if let Some(compiling) = &compiling {
        environment.extend(compiling.set.iter().cloned());
        launch.unset.clone_from(&compiling.unset);
    }
    // A build that may be stored runs under the tracer, which records what it reads (crate::inputs).
    let traces: Option<(crate::inputs::Tracer, Vec<PathBuf>)> = match (&cached, tracing) {
        (Some(_), Ok(tracer)) => Some((
            *tracer,
            (0..side.recipe.jobs.len())
                .map(|index| context.scratch.file(&format!("trace-{name}-{index}")))
                .collect(),
        )),
        (Some(_), Err(why)) => {
            let note = format!("not cached: the files the build reads cannot be known ({why})");
            progress(Progress::Cached { side: name, note });
            None
        }
        (None, _) => None,
    };
    let started = SystemTime::now();
    for (index, job) in side.recipe.jobs.iter().enumerate() {
        let Some(build) = &job.build else {
            continue;
        };
        if let Some((tracer, traces)) = &traces {
            launch.under = tracer.command(&traces[index]);
        }
        progress(Progress::Building {
            side: name,
            command: build.clone(),
        });
        let shell = Shell {
            side: name,
            command: build,
            dir: &side.prepared.module_root,
            env: &environment,
            job_env: &job.env,
            include: &context.scratch.include,
            out: &context.scratch.out(name, index)?,
            timeout: context.timeout,
        };
        let (elapsed, _stdout) = shell.run_launched("build", &launch)?;
        progress(Progress::Built {
            side: name,
            elapsed,
        });
    }
    if let Some((from_cache, compiled)) = compiling
        .as_ref()
        .and_then(|c| crate::ccache::counted(&c.stats_log))
    {
        progress(Progress::Compiled {
            side: name,
            from_cache,
            compiled,
        });
    }
    let built = match (cached, &traces) {
        (Some(slot), Some((_, traces))) => Some(Built {
            record: recorded_inputs(traces, context, &slot, started),
            slot,
            through_ccache: compiling.is_some(),
        }),
        _ => None,
    };
    Ok(built)
}

/// The record of what a side's build read (crate::inputs), from its jobs' traces: rho's own directories
/// (the gate's scratch, ccache's) are not inputs. A file outside the side's tree that changed while the build
/// ran is an error: the build may have read it in either version (in the tree, the content read before and
/// after the build says so, crate::content).
fn recorded_inputs(
    traces: &[PathBuf],
    context: &BuildContext,
    slot: &CacheSlot,
    started: SystemTime,
) -> Result<String, String> {
    let scratch = context.scratch.file("");
    let ccache = slot.cache.dir().join(crate::cache::CCACHE_DIR);
    let ignore = |path: &Path| {
        path.starts_with(&scratch)
            || path.starts_with(&ccache)
            || ["/proc", "/sys", "/dev"]
                .iter()
                .any(|p| path.starts_with(p))
    };
    let mut inputs = crate::inputs::Inputs::default();
    for trace in traces {
        let text = std::fs::read_to_string(trace)
            .map_err(|e| format!("not cached: cannot read {}: {e}", trace.display()))?;
        let read = crate::inputs::read_trace(&text, &ignore)
            .map_err(|why| format!("not cached: {why}"))?;
        inputs.files.extend(read.files);
        inputs.absent.extend(read.absent);
        inputs.assembler_reads.extend(read.assembler_reads);
    }
    // ccache does not see what an assembler directive reads: its objects cannot be trusted here from now on.
    if let Some(read) = inputs.assembler_reads.first() {
        crate::ccache::turn_off(&ccache, read);
    }
    // A revision's checkout is rho's own: only a directory side's files can be edited while it builds.
    let watched: Vec<PathBuf> = inputs
        .files
        .iter()
        .filter(|p| slot.directory.is_some() || !p.starts_with(&slot.top))
        .cloned()
        .collect();
    if let Some(path) = crate::inputs::changed_since(&watched, started) {
        // A compile that read the new bytes may have been stored by ccache under the old bytes' key.
        crate::ccache::clear(&ccache);
        return Err(format!(
            "not cached: {} changed while the build ran (used for this gate only; ccache's objects cleared)",
            path.display()
        ));
    }
    let mut ids = crate::file_ids::FileIds::in_dir(slot.cache.dir());
    let record = crate::inputs::record(&inputs, &slot.top, &mut ids);
    ids.save();
    record.map_err(|why| format!("not cached: {why}"))
}

/// The cache slot of a side whose content `content` (key lines) names, in the checkout or repository `top`;
/// `None` when git cannot say where the repository's cache is.
fn cache_of(
    side: &BuildSide,
    content: Vec<String>,
    top: &Path,
    context: &BuildContext,
    directory: Option<Vec<String>>,
) -> Option<CacheSlot> {
    let common = crate::side::git_common_dir(top).ok()?;
    let root = side.prepared.module_root.to_string_lossy().into_owned();
    let prefix = side
        .prepared
        .module_root
        .strip_prefix(top)
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let mut lines = content;
    lines.extend([
        format!("prefix {prefix}"),
        format!("target {}", side.recipe.target),
        format!(
            "measure {}",
            if context.counting {
                "instructions"
            } else {
                "time"
            }
        ),
        format!(
            "header {}",
            crate::cache::checksum(context.bench_header.as_bytes())
        ),
    ]);
    lines.extend(environment_lines(side, context));
    let mut compilers = vec!["cc".to_owned()];
    // `$CC` is asked whatever its name: the user named it as a compiler.
    if let Ok(cc) = std::env::var("CC")
        && !cc.is_empty()
    {
        lines.push(format!("compiler $CC {cc}: {}", version_of(&cc)));
    }
    for (index, job) in side.recipe.jobs.iter().enumerate() {
        // The worktree's path differs from gate to gate: the key holds it as `{root}`.
        let relative = |text: &str| text.replace(&root, "{root}");
        lines.push(format!(
            "job {index} build {:?}",
            job.build.as_deref().map(relative)
        ));
        for (k, v) in &job.env {
            lines.push(format!("job {index} env {k}={}", relative(v)));
        }
        if let Some(first) = job
            .build
            .as_deref()
            .and_then(|b| b.split_whitespace().next())
        {
            compilers.push(first.to_owned());
        }
    }
    compilers.dedup();
    for compiler in compilers {
        // Only a compiler's name is asked for its version: any other first word (`make`, `./build.sh`) is a
        // program rho has no business running with `--version`; its name is in the key with the command.
        if is_compiler(&compiler) {
            lines.push(format!("compiler {compiler}: {}", version_of(&compiler)));
        }
    }
    Some(CacheSlot {
        cache: BuildCache::new(&common, CACHE_BOUND_BYTES),
        key: CacheKey::new(&lines),
        top: top.to_owned(),
        directory,
    })
}

/// The environment a side's build sees, as key lines: every variable of rho's own environment (what the
/// build command and every program it runs may read: `CC`, `CFLAGS`, `CPATH`, `C_INCLUDE_PATH`,
/// `SOURCE_DATE_EPOCH`, a variable a script expands...) but a terminal session's ([`SESSION_VARIABLES`], unless
/// a build command names one), then the variables rho hands the builds. The gate's temporary directory is
/// written `{scratch}` (it is new in every gate).
fn environment_lines(side: &BuildSide, context: &BuildContext) -> Vec<String> {
    let scratch = context.scratch.file("");
    let scratch = scratch.to_string_lossy();
    let scratch = scratch.trim_end_matches('/');
    let named = |name: &str| {
        side.recipe.jobs.iter().any(|job| {
            job.build.as_deref().is_some_and(|b| {
                b.contains(&format!("${name}")) || b.contains(&format!("${{{name}"))
            })
        })
    };
    let mut lines: Vec<String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
        .filter(|(k, _)| !SESSION_VARIABLES.contains(&k.as_str()) || named(k))
        .map(|(k, v)| format!("variable {k}={}", v.to_string_lossy()))
        .collect();
    lines.sort();
    for (k, v) in context.environment {
        lines.push(format!("env {k}={v}"));
    }
    lines
        .into_iter()
        .map(|line| line.replace(scratch, "{scratch}"))
        .collect()
}

/// Whether `word` names a C or C++ compiler (`cc`, `gcc`, `clang++`, `arm-none-eabi-gcc`, a path to one).
fn is_compiler(word: &str) -> bool {
    let name = Path::new(word)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    // The names the compile cache masquerades as: one list of what a compiler is called.
    crate::ccache::is_compiler_name(name)
}

/// The first line of `program --version` (`gcc (Debian 12.2.0-14) 12.2.0`), or why there is none.
///
/// Asked once a process: both sides' keys name the same compilers, found on the same `PATH`.
fn version_of(program: &str) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static ASKED: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let asked = ASKED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(version) = asked.lock().ok().and_then(|a| a.get(program).cloned()) {
        return version;
    }
    let mut command = Command::new(program);
    command.arg("--version");
    let version = match Runner::new(command).timeout(VERSION_TIMEOUT).run_collect() {
        Ok((finished, stdout)) if finished.termination.success() => {
            stdout.lines().next().unwrap_or("").trim().to_owned()
        }
        _ => "no --version".to_owned(),
    };
    if let Ok(mut asked) = asked.lock() {
        asked.insert(program.to_owned(), version.clone());
    }
    version
}

/// Each area of a side's cache entry and where it lies: `out<N>` job N's build directory, `tree` the checkout
/// (a revision's only: nothing is ever written into a directory side).
fn area_roots(
    side: &BuildSide,
    scratch: &Scratch,
    slot: &CacheSlot,
) -> Result<Vec<(String, PathBuf)>, GateError> {
    let mut roots = Vec::new();
    if slot.directory.is_none() {
        roots.push(("tree".to_owned(), slot.top.clone()));
    }
    for index in 0..side.recipe.jobs.len() {
        roots.push((
            format!("out{index}"),
            scratch.out(side.prepared.name, index)?,
        ));
    }
    Ok(roots)
}

/// Store what a side's build made: every job's build directory, and for a revision the files the build wrote
/// into the checkout (git sees them as untracked, ignored or modified). A revision whose build deleted or
/// renamed a tracked file, or a directory whose build changed anything in its repository, is not stored (the
/// note says so).
fn store(
    side: &BuildSide,
    context: &BuildContext,
    slot: &CacheSlot,
    inputs: &str,
) -> Result<(), String> {
    let roots = area_roots(side, context.scratch, slot).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for (area, root) in roots.iter().filter(|(area, _)| area != "tree") {
        files.extend(files_under(root).into_iter().map(|path| CachedFile {
            area: area.clone(),
            path,
        }));
    }
    let root = |area: &str| {
        roots
            .iter()
            .find(|(a, _)| a == area)
            .map(|(_, p)| p.clone())
    };
    if let Some(before) = &slot.directory {
        let index = context
            .scratch
            .file(&format!("index-{}", side.prepared.name));
        let after = crate::content::content_of(&slot.top, &index)
            .map_err(|why| format!("not cached: {why}"))?;
        if after.as_ref().map(|c| &c.lines) != Some(before) {
            return Err(
                "not cached: the build changed files in the directory's repository (only a build \
                 that writes to RHO_BENCH_OUT alone is cached)"
                    .to_owned(),
            );
        }
        return slot.cache.store(&slot.key, &files, &root, inputs);
    }
    let top = &slot.top;
    let status = git(
        top,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--ignored=matching",
            "--untracked-files=all",
        ],
    )
    .map_err(|e| format!("not cached: {e}"))?;
    // The runner hands the output back as lines: the last record ends in a newline of its own.
    for record in status.split('\0').filter(|r| !r.trim().is_empty()) {
        let (code, path) = record.split_at(record.len().min(3));
        match code.trim() {
            // A directory git lists whole (an ignored `build/`): its files.
            "??" | "!!" if path.ends_with('/') => {
                files.extend(
                    files_under(&top.join(path))
                        .into_iter()
                        .map(|file| CachedFile {
                            area: "tree".to_owned(),
                            path: Path::new(path).join(file),
                        }),
                );
            }
            "??" | "!!" | "M" | "MM" | "AM" => files.push(CachedFile {
                area: "tree".to_owned(),
                path: PathBuf::from(path),
            }),
            other => {
                return Err(format!(
                    "not cached: the build changed {path} in the checkout in a way the cache does not \
                     restore ({other})"
                ));
            }
        }
    }
    slot.cache.store(&slot.key, &files, &root, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_compiler_is_asked_its_version() {
        for compiler in [
            "cc",
            "/usr/bin/gcc",
            "clang++",
            "arm-none-eabi-gcc",
            "riscv64-unknown-elf-gcc",
        ] {
            assert!(is_compiler(compiler), "{compiler}");
        }
        for other in [
            "make",
            "./build.sh",
            "sh",
            "cmake",
            "\"$RHO_BENCH_OUT/bench\"",
        ] {
            assert!(!is_compiler(other), "{other}");
        }
    }
}
