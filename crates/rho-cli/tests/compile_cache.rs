//! The compile cache (rho-ccache) through the real binary, with real compiles by `cc`: `cc` is a link to rho,
//! as a gate's build sees it, and what the cache does is read from its log (`hit FILE`, `miss FILE`,
//! `direct WHY`) and compared with what `cc` itself does. The last test gates the kata's wire suite twice in a
//! temporary git repository: the second gate's head, with a new kernels.c, compiles only that file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A directory of sources and the cache's own: `shims/cc` (rho), the units, the log.
struct Sandbox {
    tmp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("shims")).unwrap();
        std::fs::create_dir_all(tmp.path().join("src")).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_rho"), tmp.path().join("shims/cc")).unwrap();
        Sandbox { tmp }
    }

    fn src(&self) -> PathBuf {
        self.tmp.path().join("src")
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.src().join(name), text).unwrap();
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.src().join(name)).unwrap()
    }

    /// `cc ARGS` in `src/` through the cache.
    fn cached_cc(&self, args: &[&str]) -> Output {
        self.cached_as("cc", args)
    }

    /// `NAME ARGS` in `src/` through the cache, `shims/NAME` being a link to rho.
    fn cached_as(&self, name: &str, args: &[&str]) -> Output {
        let path = std::env::var("PATH").unwrap();
        Command::new(self.tmp.path().join("shims").join(name))
            .args(args)
            .current_dir(self.src())
            .env(
                "PATH",
                format!("{}:{path}", self.tmp.path().join("shims").display()),
            )
            .env("RHO_CCACHE_PATH", &path)
            .env("RHO_CCACHE_DIR", self.tmp.path().join("units"))
            .env("RHO_CCACHE_LOG", self.tmp.path().join("log"))
            .output()
            .unwrap()
    }

    /// `cc ARGS` in `src/`, the real one.
    fn direct_cc(&self, args: &[&str]) -> Output {
        Command::new("cc")
            .args(args)
            .current_dir(self.src())
            .output()
            .unwrap()
    }

    /// The log's lines since the last call (each `hit FILE`, `miss FILE` or `direct WHY`).
    fn log(&self) -> Vec<String> {
        let path = self.tmp.path().join("log");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        text.lines().map(str::to_owned).collect()
    }
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "{:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

const KERNEL: &str = "#include \"k.h\"\nint twice(int x) { return SCALE * x; }\n";

#[test]
fn the_same_file_twice_is_a_hit_with_the_object_cc_makes() {
    let sandbox = Sandbox::new();
    sandbox.write("k.h", "#define SCALE 2\n");
    sandbox.write("k.c", KERNEL);
    succeeded(&sandbox.cached_cc(&["-O2", "-c", "k.c", "-o", "first.o"]));
    assert_eq!(sandbox.log(), ["miss k.c"]);
    succeeded(&sandbox.cached_cc(&["-O2", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["hit k.c"]);
    succeeded(&sandbox.direct_cc(&["-O2", "-c", "k.c", "-o", "direct.o"]));
    assert_eq!(sandbox.read("k.o"), sandbox.read("direct.o"));
    assert_eq!(sandbox.read("first.o"), sandbox.read("direct.o"));
}

#[test]
fn a_changed_header_or_define_misses() {
    let sandbox = Sandbox::new();
    sandbox.write("k.h", "#define SCALE 2\n");
    sandbox.write("k.c", KERNEL);
    succeeded(&sandbox.cached_cc(&["-O2", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["miss k.c"]);
    sandbox.write("k.h", "#define SCALE 3\n");
    succeeded(&sandbox.cached_cc(&["-O2", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["miss k.c"], "a changed header");
    succeeded(&sandbox.cached_cc(&["-O2", "-DEXTRA=1", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["miss k.c"], "a new -D");
    succeeded(&sandbox.cached_cc(&["-O2", "-DEXTRA=2", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["miss k.c"], "a changed -D");
    succeeded(&sandbox.cached_cc(&["-O2", "-DEXTRA=2", "-c", "k.c"]));
    assert_eq!(sandbox.log(), ["hit k.c"]);
}

#[test]
fn a_one_shot_build_is_split_linked_and_recompiles_only_the_changed_file() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "a.c",
        "#include <math.h>\n#include <stdio.h>\nint b(void);\n\
         int main(void) { printf(\"%d %.0f\\n\", b(), sqrt(49.0)); return 0; }\n",
    );
    sandbox.write("b.c", "int b(void) { return 6; }\n");
    let build = ["-O2", "-o", "prog", "a.c", "b.c", "-lm"];
    succeeded(&sandbox.cached_cc(&build));
    assert_eq!(sandbox.log(), ["miss a.c", "miss b.c"]);
    let run = || Command::new(sandbox.src().join("prog")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run().stdout), "6 7\n");
    sandbox.write("b.c", "int b(void) { return 8; }\n");
    succeeded(&sandbox.cached_cc(&build));
    assert_eq!(sandbox.log(), ["hit a.c", "miss b.c"]);
    assert_eq!(String::from_utf8_lossy(&run().stdout), "8 7\n");
}

#[test]
fn a_compile_error_is_the_compilers_and_nothing_is_stored() {
    let sandbox = Sandbox::new();
    sandbox.write("bad.c", "int f(void) { return return 1; }\n");
    let cached = sandbox.cached_cc(&["-O2", "-c", "bad.c"]);
    let direct = sandbox.direct_cc(&["-O2", "-c", "bad.c"]);
    assert_eq!(cached.status.code(), direct.status.code());
    assert_ne!(cached.status.code(), Some(0));
    assert_eq!(cached.stderr, direct.stderr);
    assert!(String::from_utf8_lossy(&cached.stderr).contains("error"));
    assert_eq!(sandbox.log(), Vec::<String>::new(), "neither hit nor miss");
    let units = std::fs::read_dir(sandbox.tmp.path().join("units")).unwrap();
    assert_eq!(units.count(), 0, "nothing stored");
}

#[test]
fn a_warning_is_replayed_on_a_hit_and_werror_still_fails() {
    let sandbox = Sandbox::new();
    sandbox.write("w.c", "int f(void) { int unused; return 1; }\n");
    let args = ["-Wall", "-c", "w.c"];
    let direct = sandbox.direct_cc(&args);
    assert!(String::from_utf8_lossy(&direct.stderr).contains("unused"));
    let first = sandbox.cached_cc(&args);
    let second = sandbox.cached_cc(&args);
    assert_eq!(sandbox.log(), ["miss w.c", "hit w.c"]);
    assert_eq!(first.stderr, direct.stderr);
    assert_eq!(second.stderr, direct.stderr);
    let werror = ["-Wall", "-Werror", "-c", "w.c"];
    for _ in 0..2 {
        let cached = sandbox.cached_cc(&werror);
        assert_eq!(
            cached.status.code(),
            sandbox.direct_cc(&werror).status.code()
        );
        assert_ne!(cached.status.code(), Some(0));
    }
}

#[test]
fn what_the_cache_does_not_model_reaches_cc_unchanged() {
    let sandbox = Sandbox::new();
    sandbox.write("k.h", "#define SCALE 2\n");
    sandbox.write("k.c", KERNEL);
    succeeded(&sandbox.direct_cc(&["-c", "k.c"]));
    for args in [
        &["--version"][..],
        &["-dumpmachine"],
        &["-shared", "-o", "libk.so", "k.o"],
        &["-E", "k.c"],
        &["-c", "k.c", "--no-such-flag"],
        &["-S", "k.c", "-o", "-"],
    ] {
        let cached = sandbox.cached_cc(args);
        let direct = sandbox.direct_cc(args);
        assert_eq!(cached.status.code(), direct.status.code(), "{args:?}");
        assert_eq!(cached.stdout, direct.stdout, "{args:?}");
        assert_eq!(cached.stderr, direct.stderr, "{args:?}");
    }
    assert!(
        sandbox.log().iter().all(|line| line.starts_with("direct ")),
        "nothing was compiled through the cache"
    );
}

/// What the key must see that the preprocessed text does not: a comment's change (columns in the debug
/// information, the line a warning quotes), the name the driver was called by, a file `.incbin` reads, and
/// the code under `-dM` (whose preprocessed text is a macro list). Each is a miss or goes to `cc` directly,
/// and the object is the one `cc` makes.
#[test]
fn a_hit_needs_the_sources_bytes_the_drivers_name_and_every_file_read() {
    let sandbox = Sandbox::new();
    sandbox.write("g.c", "int g(void) { return 1; }\n");
    succeeded(&sandbox.cached_cc(&["-g", "-O2", "-c", "g.c"]));
    sandbox.write("g.c", "int g(void) { /* why */ return 1; }\n");
    succeeded(&sandbox.cached_cc(&["-g", "-O2", "-c", "g.c"]));
    assert_eq!(sandbox.log(), ["miss g.c", "miss g.c"], "a comment changed");
    succeeded(&sandbox.direct_cc(&["-g", "-O2", "-c", "g.c", "-o", "direct.o"]));
    assert_eq!(sandbox.read("g.o"), sandbox.read("direct.o"));

    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_rho"),
        sandbox.tmp.path().join("shims/gcc"),
    )
    .unwrap();
    succeeded(&sandbox.cached_as("gcc", &["-g", "-O2", "-c", "g.c"]));
    assert_eq!(sandbox.log(), ["miss g.c"], "another driver name");

    sandbox.write("data.bin", "AAAA");
    sandbox.write(
        "blob.c",
        "__asm__(\".section .rodata\\n.global blob\\nblob: .incbin \\\"data.bin\\\"\\n\");\n",
    );
    succeeded(&sandbox.cached_cc(&["-c", "blob.c"]));
    sandbox.write("data.bin", "BBBBBBBB");
    succeeded(&sandbox.cached_cc(&["-c", "blob.c"]));
    let log = sandbox.log();
    assert!(
        log.iter()
            .all(|l| l.starts_with("direct ") && l.contains(".incbin")),
        "{log:?}"
    );
    succeeded(&sandbox.direct_cc(&["-c", "blob.c", "-o", "blob_direct.o"]));
    assert_eq!(sandbox.read("blob.o"), sandbox.read("blob_direct.o"));

    for args in [
        &["-dM", "-c", "g.c"][..],
        &["-march=native", "-c", "g.c"],
        &["-c", "g.c", "-o", "-"],
    ] {
        let cached = sandbox.cached_cc(args);
        let direct = sandbox.direct_cc(args);
        assert_eq!(cached.status.code(), direct.status.code(), "{args:?}");
    }
    let log = sandbox.log();
    assert!(log.iter().all(|l| l.starts_with("direct ")), "{log:?}");
}

/// The kata's wire suite in a fresh git repository, gated from `wire/` against `main`: once as committed,
/// then with a new kernels.c in the working directory (head): base comes whole from the build cache and head
/// compiles kernels.c alone; `--no-cache` compiles everything.
#[test]
fn a_second_gate_with_a_new_kernel_compiles_only_that_file() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("kata");
    common::copy_tree(&common::repo_file("tests/kata"), &repo);
    common::git(&repo, &["init", "-q", "-b", "main"]);
    common::git(&repo, &["add", "."]);
    common::git(&repo, &["commit", "-q", "-m", "kata"]);
    let gate = |extra: &[&str]| {
        let args = [
            &[
                "bench", "gate", "--base", "main", "--head", ".", "--runs", "2",
            ][..],
            &["--iterations", "5", "--warmup", "0"],
            extra,
        ]
        .concat();
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command.args(&args).current_dir(repo.join("wire"));
        let outcome = common::run_rho(command, &args, Duration::from_secs(300));
        assert!(
            matches!(outcome.status, Some(0 | 1)),
            "{}",
            outcome.describe()
        );
        outcome
    };
    let first = gate(&[]);
    first.assert_stderr_has("head: ");
    let slowdown = repo.join("slowdowns/s04_sum_one_accumulator.c");
    std::fs::copy(&slowdown, repo.join("kernels.c")).unwrap();
    let second = gate(&[]);
    second.assert_stderr_has("base: built from the cache");
    second.assert_stderr_has("head: 2 of 3 compiled files from the cache");
    let uncached = gate(&["--no-cache"]);
    assert!(
        !uncached.stderr.contains("compiled files from the cache"),
        "{}",
        uncached.describe()
    );
    let units = Path::new(&repo).join(".git/rho-cache/units");
    assert!(std::fs::read_dir(units).unwrap().count() >= 4);
}
