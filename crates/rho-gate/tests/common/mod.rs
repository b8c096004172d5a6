//! Helpers shared by rho-gate's integration tests and benches: git with a fixed identity, a copy of the
//! project's kata, a gate request, and the gate run on module.yml recipes with its progress kept.

// Each test binary (and bench) uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use rho_gate::config::{
    bench_env_from_config, load_local_config, recipe_from_module, settings_from_config,
};
use rho_gate::{
    BenchEnv, GateError, GateOutcome, GateRequest, GateSettings, Progress, SideName, run_gate,
};

/// `git -C dir ARGS` as a fixed author; its stdout. Panics, naming the command, when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "rho test")
        .env("GIT_AUTHOR_EMAIL", "test@rho.invalid")
        .env("GIT_COMMITTER_NAME", "rho test")
        .env("GIT_COMMITTER_EMAIL", "test@rho.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The project's kata (tests/kata).
pub fn kata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/kata")
}

/// `from`'s files and folders copied under `to`.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// A module.yml in `dir` (created) whose one target, `planted`, builds nothing and runs `run` (a shell
/// command line, written as a YAML single-quoted string).
pub fn planted_module_yml(dir: &Path, run: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("module.yml"),
        format!(
            "bench:\n  targets:\n    - name: planted\n      build: 'true'\n      run: '{}'\n",
            run.replace('\'', "''")
        ),
    )
    .unwrap();
}

/// Gate `head` against `base` from `cwd` with `settings`, the default environment and no harness header (a
/// test that builds C with the harness sets `bench_header`).
pub fn request(cwd: &Path, base: &str, head: &str, settings: GateSettings) -> GateRequest {
    GateRequest {
        base: base.to_owned(),
        head: head.to_owned(),
        cwd: cwd.to_owned(),
        settings,
        env: BenchEnv::default(),
        bench_header: "/* not used */\n".to_owned(),
        compiler_cache: None,
    }
}

/// The kata copied under `dir` as `base` and as `head` with `slowdown` (a file of tests/kata/slowdowns) as its
/// kernels.c, and the gate of head's wire suite against base's from head's `wire/`: the module's settings and
/// environment, adaptive with 2 to 4 runs a side, 120 s a command, built against `bench_header`.
pub fn kata_wire_gate(dir: &Path, slowdown: &str, bench_header: &str) -> GateRequest {
    copy_tree(&kata_dir(), &dir.join("base")).unwrap();
    copy_tree(&kata_dir(), &dir.join("head")).unwrap();
    std::fs::copy(
        kata_dir().join("slowdowns").join(slowdown),
        dir.join("head/kernels.c"),
    )
    .unwrap();
    let cwd = dir.join("head/wire");
    let config = load_local_config(&cwd).unwrap().unwrap();
    let mut settings = settings_from_config(&config).unwrap();
    settings.set_runs(2).unwrap();
    settings.set_max_runs(4).unwrap();
    settings
        .set_timeout(std::time::Duration::from_secs(120))
        .unwrap();
    let base = dir.join("base/wire").display().to_string();
    GateRequest {
        env: bench_env_from_config(&config),
        bench_header: bench_header.to_owned(),
        ..request(&cwd, &base, ".", settings)
    }
}

/// The gate run with each side's module.yml recipe, its progress left unsaid (a timing measures the gate alone).
pub fn gate_quiet(request: &GateRequest) -> Result<GateOutcome, GateError> {
    run_gate(
        request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |_| {},
    )
}

/// The gate run with each side's module.yml recipe; its outcome and its progress lines (also on stderr).
pub fn gate_logged(request: &GateRequest) -> (Result<GateOutcome, GateError>, Vec<String>) {
    let mut log = Vec::new();
    let result = run_gate(
        request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| log.push(p.to_string()),
    );
    eprintln!("{}", log.join("\n"));
    (result, log)
}

/// The gate run with each side's module.yml recipe, each progress line with the seconds since the start (where
/// a gate's wall time goes); the last line is the verdict's time.
pub fn gate_timeline(
    request: &GateRequest,
) -> (Result<GateOutcome, GateError>, Vec<(f64, String)>) {
    let start = std::time::Instant::now();
    let mut log = Vec::new();
    let result = run_gate(
        request,
        &|side: SideName, root: &Path| recipe_from_module(side, root, None),
        &mut |p: &Progress| log.push((start.elapsed().as_secs_f64(), p.to_string())),
    );
    log.push((start.elapsed().as_secs_f64(), "verdict".to_owned()));
    (result, log)
}
