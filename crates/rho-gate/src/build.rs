//! Building both sides before the runs: base and head at once when two builds may run (`--jobs`), and a side
//! that is a git revision from the repository's build cache when an entry matches (crate::cache).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use rho_exec::Runner;

use crate::cache::{BuildCache, CACHE_BOUND_BYTES, CacheKey, CachedFile, files_under};
use crate::error::GateError;
use crate::progress::Progress;
use crate::recipe::Recipe;
use crate::shell::{Scratch, Shell};
use crate::side::{PreparedSide, SideSpec, git};

/// A side as its build sees it: where it is and how it is built.
pub(crate) struct BuildSide<'a> {
    pub prepared: &'a PreparedSide,
    pub recipe: &'a Recipe,
}

/// How long a compiler's `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// The process environment variables a build command commonly reads: part of a cache key.
const BUILD_VARIABLES: &[&str] = &[
    "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "PATH",
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
    if jobs < 2 {
        for side in sides {
            build_side(side, context, &mut |p| progress(&p))?;
        }
        return Ok(());
    }
    let (sender, receiver) = mpsc::channel::<Progress>();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = sides
            .iter()
            .map(|side| {
                let sender = sender.clone();
                scope.spawn(move || {
                    build_side(side, context, &mut |p| {
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
    results.into_iter().collect()
}

/// Build one side: from the cache when it is a revision with a matching entry, else by its build commands
/// (then stored in the cache when it is a revision).
fn build_side(
    side: &BuildSide,
    context: &BuildContext,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), GateError> {
    let name = side.prepared.name;
    let cached = match (&side.prepared.spec, side.prepared.worktree(), context.cache) {
        (SideSpec::Revision { commit, .. }, Some(worktree), true) => {
            cache_of(side, commit, worktree.path(), context)
        }
        _ => None,
    };
    if let Some((cache, key, top)) = &cached {
        let roots = area_roots(side, context.scratch, top)?;
        let root = |area: &str| {
            roots
                .iter()
                .find(|(a, _)| a == area)
                .map(|(_, p)| p.clone())
        };
        match cache.restore(key, &root) {
            Ok(true) => {
                progress(Progress::Cached {
                    side: name,
                    note: "built from the cache (.git/rho-cache)".to_owned(),
                });
                return Ok(());
            }
            Ok(false) => {}
            Err(note) => progress(Progress::Cached { side: name, note }),
        }
    }
    for (index, job) in side.recipe.jobs.iter().enumerate() {
        let Some(build) = &job.build else {
            continue;
        };
        progress(Progress::Building {
            side: name,
            command: build.clone(),
        });
        let shell = Shell {
            side: name,
            command: build,
            dir: &side.prepared.module_root,
            env: context.environment,
            job_env: &job.env,
            include: &context.scratch.include,
            out: &context.scratch.out(name, index)?,
            timeout: context.timeout,
        };
        let (elapsed, _stdout) = shell.run("build")?;
        progress(Progress::Built {
            side: name,
            elapsed,
        });
    }
    if let Some((cache, key, top)) = cached
        && let Err(note) = store(side, context.scratch, &cache, &key, &top)
    {
        progress(Progress::Cached { side: name, note });
    }
    Ok(())
}

/// The cache, key and checkout top of a revision side; `None` when the key cannot be made (no tree id).
fn cache_of(
    side: &BuildSide,
    commit: &str,
    top: &Path,
    context: &BuildContext,
) -> Option<(BuildCache, CacheKey, PathBuf)> {
    let common = git(
        context.cwd,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .ok()?;
    let tree = git(context.cwd, &["rev-parse", &format!("{commit}^{{tree}}")]).ok()?;
    let root = side.prepared.module_root.to_string_lossy().into_owned();
    let prefix = side
        .prepared
        .module_root
        .strip_prefix(top)
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let mut lines = vec![
        format!("tree {}", tree.trim()),
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
    ];
    for variable in BUILD_VARIABLES {
        lines.push(format!(
            "variable {variable}={}",
            std::env::var(variable).unwrap_or_default()
        ));
    }
    for (k, v) in context.environment {
        lines.push(format!("env {k}={v}"));
    }
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
    Some((
        BuildCache::new(Path::new(common.trim()), CACHE_BOUND_BYTES),
        CacheKey::new(&lines),
        top.to_owned(),
    ))
}

/// Whether `word` names a C or C++ compiler (`cc`, `gcc`, `clang++`, `arm-none-eabi-gcc`, a path to one).
fn is_compiler(word: &str) -> bool {
    let name = Path::new(word)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    ["cc", "c++", "gcc", "g++", "clang", "clang++"].contains(&name)
        || ["-gcc", "-g++", "-clang", "-clang++", "-cc"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// The first line of `program --version` (`gcc (Debian 12.2.0-14) 12.2.0`), or why there is none.
fn version_of(program: &str) -> String {
    let mut command = Command::new(program);
    command.arg("--version");
    match Runner::new(command).timeout(VERSION_TIMEOUT).run_collect() {
        Ok((finished, stdout)) if finished.termination.success() => {
            stdout.lines().next().unwrap_or("").trim().to_owned()
        }
        _ => "no --version".to_owned(),
    }
}

/// Each area of a side's cache entry and where it lies: `out<N>` job N's build directory, `tree` the checkout.
fn area_roots(
    side: &BuildSide,
    scratch: &Scratch,
    top: &Path,
) -> Result<Vec<(String, PathBuf)>, GateError> {
    let mut roots = vec![("tree".to_owned(), top.to_owned())];
    for index in 0..side.recipe.jobs.len() {
        roots.push((
            format!("out{index}"),
            scratch.out(side.prepared.name, index)?,
        ));
    }
    Ok(roots)
}

/// Store what a revision side's build made: every job's build directory, and the files the build wrote
/// into the checkout (git sees them as untracked, ignored or modified). A build that deleted or renamed a
/// tracked file is not stored (the note says so).
fn store(
    side: &BuildSide,
    scratch: &Scratch,
    cache: &BuildCache,
    key: &CacheKey,
    top: &Path,
) -> Result<(), String> {
    let roots = area_roots(side, scratch, top).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for (area, root) in roots.iter().filter(|(area, _)| area != "tree") {
        files.extend(files_under(root).into_iter().map(|path| CachedFile {
            area: area.clone(),
            path,
        }));
    }
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
    let root = |area: &str| {
        roots
            .iter()
            .find(|(a, _)| a == area)
            .map(|(_, p)| p.clone())
    };
    cache.store(key, &files, &root)
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
