//! The gate's caches through the real binary, with real compiles: a small wire suite in a temporary git
//! repository, built one file at a time (`cc -c` each, then a link) so that ccache caches each compile, and
//! gated with `--measure instructions` so that every figure is exact: any difference between a gate with the
//! caches and one with `--no-cache` is the caches'.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The suite: one benchmark whose loop runs `N` times, `N` from the `cfg.h` the include path finds, or with
/// `ASM_N` defined the value an assembler `.include` of `n.inc` gives.
const BENCH_C: &str = "#include <rho/bench.h>\n\
#ifdef ASM_N\n__asm__(\".include \\\"n.inc\\\"\");\nextern const unsigned asm_n;\n#define N asm_n\n#endif\n\
#include \"cfg.h\"\n\n\
static volatile unsigned sink;\n\n\
static void bench_loop(rho_bench_t *state)\n{\n    RHO_BENCH_LOOP(state) {\n        unsigned i;\n        \
for (i = 0; i < N; i++) {\n            sink += i;\n        }\n    }\n}\n\n\
int main(int argc, char **argv)\n{\n    rho_bench_suite_t suite = {0};\n\n    \
RHO_BENCH_ADD(&suite, bench_loop);\n    return rho_bench_main(&suite, argc, argv);\n}\n";

const IMPL_C: &str = "#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n";

/// `N` as the suite sees it: from `extra.h` when an include path has one, else 100.
const CFG_H: &str = "#if __has_include(\"extra.h\")\n#include \"extra.h\"\n#endif\n#ifndef N\n#define N 100\n#endif\n";

/// The module: each file compiled on its own (what ccache caches), with `$FLAGS` and `$CC_BENCH` as the
/// user's shell gives them; with `$EDIT_WAIT` set the build says it compiled (`$OUTSIDE/compiled`) and waits
/// for `$OUTSIDE/edited` (a test edits a file meanwhile).
fn module_yml() -> String {
    "bench:\n  default_iterations: 5\n  warmup_runs: 0\n  targets:\n    - name: host\n      build: >-\n        \
     cc -std=c99 -O2 -I\"$RHO_BENCH_INCLUDE\" -Iinc -c impl.c -o \"$RHO_BENCH_OUT/impl.o\" &&\n        \
     ${CC_BENCH:-cc} -std=c99 -O2 -I\"$RHO_BENCH_INCLUDE\" -Iinc $FLAGS -c bench.c -o \"$RHO_BENCH_OUT/bench.o\" &&\n        \
     cc -o \"$RHO_BENCH_OUT/bench\" \"$RHO_BENCH_OUT/bench.o\" \"$RHO_BENCH_OUT/impl.o\" &&\n        \
     if [ -n \"$EDIT_WAIT\" ]; then touch \"$OUTSIDE/compiled\"; while [ ! -e \"$OUTSIDE/edited\" ]; do sleep 0.05; done; fi\n      \
     run: '\"$RHO_BENCH_OUT/bench\"'\n"
        .to_owned()
}

/// A repository holding the suite, committed as `main`, with `inc/cfg.h` defining `N` as `n`.
struct Repo {
    tmp: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repo { tmp };
        std::fs::create_dir_all(repo.dir().join("inc")).unwrap();
        std::fs::create_dir_all(repo.outside()).unwrap();
        repo.write("bench.c", BENCH_C);
        repo.write("impl.c", IMPL_C);
        repo.write("module.yml", &module_yml());
        repo.write("inc/cfg.h", CFG_H);
        // A link in the repository to a header outside it (`-include link.h`).
        std::os::unix::fs::symlink(repo.outside().join("forced.h"), repo.dir().join("link.h"))
            .unwrap();
        common::git(&repo.dir(), &["init", "-q", "-b", "main"]);
        common::git(&repo.dir(), &["add", "."]);
        common::git(&repo.dir(), &["commit", "-q", "-m", "suite"]);
        repo
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("repo")
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir().join(name), text).unwrap();
    }

    /// A directory outside the repository (headers, a compiler wrapper).
    fn outside(&self) -> PathBuf {
        self.tmp.path().join("outside")
    }

    fn write_outside(&self, name: &str, text: &str) -> PathBuf {
        let path = self.outside().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `rho bench gate --base main --head . --measure instructions EXTRA` in the repository with `env`
    /// added; it must reach a verdict.
    fn gate(&self, extra: &[&str], env: &[(&str, &str)]) -> common::Outcome {
        let args = [
            &[
                "bench",
                "gate",
                "--base",
                "main",
                "--head",
                ".",
                "--measure",
                "instructions",
                "--json",
                "-",
            ][..],
            extra,
        ]
        .concat();
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .args(&args)
            .current_dir(self.dir())
            .env("FLAGS", "")
            .env("OUTSIDE", self.outside())
            .envs(env.iter().copied());
        let outcome = common::run_rho(command, &args, Duration::from_secs(300));
        assert!(
            matches!(outcome.status, Some(0 | 1)),
            "{}",
            outcome.describe()
        );
        outcome
    }

    /// ccache's own counters of the repository's cache (`ccache --print-stats` with rho's directory).
    fn ccache_counter(&self, name: &str) -> u64 {
        let out = Command::new("ccache")
            .arg("--print-stats")
            .env("CCACHE_DIR", self.dir().join(".git/rho-cache/ccache"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|line| {
                let (counter, value) = line.split_once('\t')?;
                (counter == name).then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0)
    }
}

/// Both sides' instruction count of `bench_loop` and the verdict, from the gate's JSON line.
fn figures(outcome: &common::Outcome) -> (f64, f64, String) {
    let doc: serde_json::Value = serde_json::from_str(outcome.stdout.trim()).unwrap();
    let metric = &doc["metrics"]["bench_loop.instructions"];
    (
        metric["base"].as_f64().unwrap(),
        metric["head"].as_f64().unwrap(),
        doc["verdict"].as_str().unwrap().to_owned(),
    )
}

fn ccache_installed(test: &str) -> bool {
    common::tools_present(test, &[("ccache", "ccache"), ("valgrind", "valgrind")])
}

/// The second gate with a new head: base whole from the build cache, head's unchanged file from ccache
/// (`ccache --print-stats` on rho's directory counts the hit), the same figures as `--no-cache`.
#[test]
fn a_second_gate_takes_heads_unchanged_file_from_ccache() {
    if !ccache_installed("a_second_gate_takes_heads_unchanged_file_from_ccache") {
        return;
    }
    let repo = Repo::new();
    let first = repo.gate(&[], &[]);
    first.assert_stderr_has("head: ");
    let hits_before =
        repo.ccache_counter("direct_cache_hit") + repo.ccache_counter("preprocessed_cache_hit");
    repo.write("inc/cfg.h", &CFG_H.replace("100", "300"));
    let second = repo.gate(&[], &[]);
    second.assert_stderr_has("base: built from the cache");
    second.assert_stderr_has("head: 1 of 2 compiles from the cache (ccache)");
    let hits_after =
        repo.ccache_counter("direct_cache_hit") + repo.ccache_counter("preprocessed_cache_hit");
    assert!(
        hits_after > hits_before,
        "ccache -s shows the hit: {hits_before} -> {hits_after}"
    );
    let uncached = repo.gate(&["--no-cache"], &[]);
    assert!(
        !uncached.stderr.contains("compiles from the cache"),
        "{}",
        uncached.describe()
    );
    assert_eq!(figures(&second), figures(&uncached));
    let (base, head, verdict) = figures(&second);
    assert!(head > base * 2.0, "N 100 -> 300: {base} -> {head}");
    assert_eq!(verdict, "regressed");
}

/// Without ccache on `PATH` the gate compiles directly and says so once.
#[test]
fn without_ccache_the_gate_compiles_directly_and_says_so_once() {
    if !ccache_installed("without_ccache_the_gate_compiles_directly_and_says_so_once") {
        return;
    }
    let repo = Repo::new();
    // Every program on PATH but ccache, through links in a directory of the test's own.
    let bin = repo.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap();
    for dir in std::env::split_paths(&path) {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for item in read.flatten() {
            let name = item.file_name();
            let link = bin.join(&name);
            if name != "ccache" && !link.exists() {
                std::os::unix::fs::symlink(item.path(), link).unwrap();
            }
        }
    }
    let outcome = repo.gate(&[], &[("PATH", bin.to_str().unwrap())]);
    let said = outcome
        .stderr
        .matches("no compile cache (ccache not installed)")
        .count();
    assert_eq!(said, 1, "{}", outcome.describe());
    assert!(!outcome.stderr.contains("compiles from the cache"));
    assert!(!Path::new(&repo.dir().join(".git/rho-cache/ccache")).exists());
}

/// A gate with the caches (which fills them), then `change`, then a gate with the caches and one with
/// `--no-cache`: the same figures and verdict, and figures other than the first gate's (the change is one a
/// stale cache would hide). The second cached gate's progress.
fn same_as_without_caches(
    repo: &Repo,
    before: &[(&str, &str)],
    change: impl FnOnce(),
    after: &[(&str, &str)],
) -> String {
    let first = repo.gate(&[], before);
    change();
    let cached = repo.gate(&[], after);
    let uncached = repo.gate(&["--no-cache"], after);
    let (base, head, verdict) = figures(&cached);
    assert_eq!(
        (base, head, verdict.clone()),
        figures(&uncached),
        "cached: {}\nwithout caches: {}",
        cached.describe(),
        uncached.describe()
    );
    assert_eq!(
        (base, verdict.as_str()),
        (head, "ok"),
        "the same code both sides"
    );
    assert_ne!(
        figures(&first).0,
        base,
        "the change shows in the figures: {}",
        cached.describe()
    );
    cached.stderr
}

#[test]
fn a_header_outside_the_repository_on_the_include_path() {
    if !ccache_installed("a_header_outside_the_repository_on_the_include_path") {
        return;
    }
    let repo = Repo::new();
    repo.write_outside("extra.h", "#define N 200\n");
    let flags = format!("-I{}", repo.outside().display());
    let env = [("FLAGS", flags.as_str())];
    same_as_without_caches(
        &repo,
        &env,
        || {
            repo.write_outside("extra.h", "#define N 400\n");
        },
        &env,
    );
}

#[test]
fn a_variable_on_the_build_line() {
    if !ccache_installed("a_variable_on_the_build_line") {
        return;
    }
    let repo = Repo::new();
    same_as_without_caches(
        &repo,
        &[("FLAGS", "-DN=200")],
        || {},
        &[("FLAGS", "-DN=400")],
    );
}

#[test]
fn a_forced_include_through_a_link_to_outside() {
    if !ccache_installed("a_forced_include_through_a_link_to_outside") {
        return;
    }
    let repo = Repo::new();
    repo.write_outside("forced.h", "#define N 250\n");
    let env = [("FLAGS", "-include link.h")];
    same_as_without_caches(
        &repo,
        &env,
        || {
            repo.write_outside("forced.h", "#define N 350\n");
        },
        &env,
    );
}

#[test]
fn an_edited_compiler_wrapper_script() {
    if !ccache_installed("an_edited_compiler_wrapper_script") {
        return;
    }
    let repo = Repo::new();
    let wrapper = repo.write_outside("mycc", "#!/bin/sh\nexec cc -DN=111 \"$@\"\n");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let wrapper_text = wrapper.to_str().unwrap().to_owned();
    let env = [("CC_BENCH", wrapper_text.as_str())];
    same_as_without_caches(
        &repo,
        &env,
        || {
            std::fs::write(&wrapper, "#!/bin/sh\nexec cc -DN=333 \"$@\"\n").unwrap();
        },
        &env,
    );
}

/// The header's new bytes have the old size, and its modification time is put back.
#[test]
fn a_same_size_edit_with_the_time_put_back() {
    if !ccache_installed("a_same_size_edit_with_the_time_put_back") {
        return;
    }
    let repo = Repo::new();
    let header = repo.write_outside("extra.h", "#define N 200\n");
    let flags = format!("-I{}", repo.outside().display());
    let env = [("FLAGS", flags.as_str())];
    same_as_without_caches(
        &repo,
        &env,
        || {
            let modified = std::fs::metadata(&header).unwrap().modified().unwrap();
            std::fs::write(&header, "#define N 400\n").unwrap();
            let file = std::fs::File::options().write(true).open(&header).unwrap();
            file.set_modified(modified).unwrap();
        },
        &env,
    );
}

/// The header is edited after the compile read it and before the build ends: the build is used for that gate
/// but not stored, so the next gate builds with the new header.
#[test]
fn an_edit_while_the_build_runs() {
    if !ccache_installed("an_edit_while_the_build_runs") {
        return;
    }
    let repo = Repo::new();
    let header = repo.write_outside("extra.h", "#define N 200\n");
    let flags = format!("-I{}", repo.outside().display());
    let outside = repo.outside();
    // Edits the header once the build says it compiled, then lets the build end.
    let editor = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(240);
        while !outside.join("compiled").exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::write(&header, "#define N 400\n").unwrap();
        std::fs::write(outside.join("edited"), "").unwrap();
    });
    let during = [("FLAGS", flags.as_str()), ("EDIT_WAIT", "1")];
    let first = repo.gate(&[], &during);
    editor.join().unwrap();
    first.assert_stderr_has("changed while the build ran (used for this gate only");
    let env = [("FLAGS", flags.as_str())];
    let cached = repo.gate(&[], &env);
    let uncached = repo.gate(&["--no-cache"], &env);
    assert_eq!(
        figures(&cached),
        figures(&uncached),
        "{}",
        cached.describe()
    );
    assert_ne!(figures(&first).0, figures(&cached).0);
}

/// `--verify-cache` builds each side again without the caches: the same files pass (here with both sides
/// from the build cache), and a build whose output the caches cannot reproduce (a time stamp written into
/// its build directory) fails with exit 2 naming that file.
#[test]
fn verify_cache_passes_the_same_files_and_names_the_first_that_differs() {
    if !ccache_installed("verify_cache_passes_the_same_files_and_names_the_first_that_differs") {
        return;
    }
    let repo = Repo::new();
    repo.gate(&[], &[]);
    let verified = repo.gate(&["--verify-cache"], &[]);
    verified.assert_stderr_has("base: built from the cache");
    verified.assert_stderr_has(
        "head: --verify-cache: the build without the caches made the same files",
    );
    assert_eq!(verified.status, Some(0), "{}", verified.describe());

    let wrapper = repo.write_outside(
        "stamping-cc",
        "#!/bin/sh\ndate +%s%N > \"$RHO_BENCH_OUT/stamp\"\nexec cc \"$@\"\n",
    );
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let args = [
        "bench",
        "gate",
        "--base",
        "main",
        "--head",
        ".",
        "--measure",
        "instructions",
        "--verify-cache",
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .args(args)
        .current_dir(repo.dir())
        .env("FLAGS", "")
        .env("CC_BENCH", &wrapper);
    let failed = common::run_rho(command, &args, Duration::from_secs(300));
    assert_eq!(failed.status, Some(2), "{}", failed.describe());
    failed.assert_stderr_has(
        "base: --verify-cache: stamp differs between the build with the caches and the build without them",
    );
}

/// An assembler `.include` (in a top-level `__asm__`) reads a file outside the repository: ccache does not see
/// it (its hit would be the old object), so the build's trace turns ccache off for the repository and the build
/// cache's record keys the file.
#[test]
fn an_assembler_include() {
    if !ccache_installed("an_assembler_include") {
        return;
    }
    let repo = Repo::new();
    let n_inc = |n: u32| {
        format!(".pushsection .rodata\n.globl asm_n\n.balign 4\nasm_n: .long {n}\n.popsection\n")
    };
    repo.write_outside("n.inc", &n_inc(200));
    let flags = format!("-DASM_N -I{}", repo.outside().display());
    let env = [("FLAGS", flags.as_str())];
    let progress = same_as_without_caches(
        &repo,
        &env,
        || {
            repo.write_outside("n.inc", &n_inc(400));
        },
        &env,
    );
    assert!(
        progress.contains("no compile cache: an assembler read"),
        "{progress}"
    );
}

/// A compile racing an edit: ccache hashes the preprocessor's output, then the compiler reads the header again,
/// after an edit (a compiler on `PATH` that, asked to compile bench.c with `-c` but not to preprocess it with
/// `-E`, waits for the test to edit the header). Such an
/// object is stored under the old bytes' key (checked by hand with ccache 4.7.5): the build sees the header
/// changed while it ran, is not stored, and ccache's objects are cleared, so the next gate, with the header
/// as it was, gives `--no-cache`'s figures.
#[test]
fn a_compile_racing_an_edit() {
    if !ccache_installed("a_compile_racing_an_edit") {
        return;
    }
    let repo = Repo::new();
    let header = repo.write_outside("extra.h", "#define N 200\n");
    let bin = repo.outside().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let racing = bin.join("cc");
    std::fs::write(
        &racing,
        "#!/bin/sh\ncase \" $* \" in *\" -E \"*) exec /usr/bin/cc \"$@\";; esac\n\
         case \" $* \" in *bench.c*) ;; *) exec /usr/bin/cc \"$@\";; esac\n\
         case \" $* \" in *\" -c \"*) ;; *) exec /usr/bin/cc \"$@\";; esac\n\
         if [ -e \"$OUTSIDE/race\" ]; then touch \"$OUTSIDE/compiling\";\n\
         while [ ! -e \"$OUTSIDE/edited\" ]; do sleep 0.05; done; fi\nexec /usr/bin/cc \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&racing, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let flags = format!("-I{}", repo.outside().display());
    let env = [("FLAGS", flags.as_str()), ("PATH", path.as_str())];
    std::fs::write(repo.outside().join("race"), "").unwrap();
    let outside = repo.outside();
    let edited_header = header.clone();
    let editor = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !outside.join("compiling").exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::write(&edited_header, "#define N 400\n").unwrap();
        std::fs::write(outside.join("edited"), "").unwrap();
    });
    let raced = repo.gate(&[], &env);
    editor.join().unwrap();
    raced.assert_stderr_has("changed while the build ran");
    std::fs::remove_file(repo.outside().join("race")).unwrap();
    std::fs::write(&header, "#define N 200\n").unwrap();
    let cached = repo.gate(&[], &env);
    let uncached = repo.gate(&["--no-cache"], &env);
    assert_eq!(
        figures(&cached),
        figures(&uncached),
        "{}",
        cached.describe()
    );
}
