//! The CI recipes run in a project that is not rho: the composite action (action.yml at the repository root)
//! as docs/ci/github-gate.yml and the sharded docs/ci/github-workflow.yml use it, and the GitLab template's
//! install and gate job (docs/ci/gitlab-gate.yml). Each recipe is read with serde-saphyr and its steps'
//! commands run with bash, as the runner runs them, in a temporary git repository holding a tiny C suite and
//! its module.yml, with a planted 3x slowdown counted in instructions (exact on a busy machine).
//!
//! What stands in for the CI service: the expressions (`${{ ... }}`) a step uses are substituted from the
//! values a pull request's run would have, and an expression the test does not know fails it (so a recipe
//! that grows one is noticed); GitHub's own actions (checkout, cache, artifacts) are not run: the cache is a
//! miss, and one directory is every job's workspace. Programs on the PATH are shims, logged: `cargo`, whose
//! `install` checks the recipe's arguments (`--locked`, `--root`, and `--path` to this checkout's
//! crates/rho-cli or `--git` with the package `rho-cli`) and puts the `rho` this test run built into `--root`'s
//! bin (building rho again in release would take minutes on a loaded machine and test cargo, not the recipe);
//! `gh`, which posts nothing, and with `GH_SHIM_REFUSE` set fails as a fork's read-only token makes
//! `gh pr comment` fail; `sudo` and `apt-get`, whose Valgrind install is skipped (the tests run where
//! Valgrind is).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The suite of the project: `bench_sum` sums WORK times 256 words an iteration, `bench_steady` 256 once.
const SUITE: &str = r#"#include <rho/bench.h>

#define WORK 1

static unsigned words[256];

static unsigned sum(unsigned rounds)
{
    unsigned total = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < 256; i++) {
            total += words[i] ^ r;
        }
    }
    return total;
}

static void bench_sum(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(sum(WORK));
    }
}

static void bench_steady(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(sum(1));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    for (unsigned i = 0; i < 256; i++) {
        words[i] = i * 2654435761u;
    }
    RHO_BENCH_ADD(&suite, bench_sum);
    RHO_BENCH_ADD(&suite, bench_steady);
    return rho_bench_main(&suite, argc, argv);
}
"#;

const MODULE_YML: &str = r#"bench:
  targets:
    - name: host
      build: >-
        printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' > "$RHO_BENCH_OUT/impl.c" &&
        cc -std=c99 -O2 -I"$RHO_BENCH_INCLUDE" -o "$RHO_BENCH_OUT/bench" bench.c "$RHO_BENCH_OUT/impl.c"
      run: '"$RHO_BENCH_OUT/bench"'
"#;

const CARGO_SHIM: &str = r#"#!/bin/sh
# cargo standing in for the recipes' install: checks the arguments, installs the rho this test run built.
echo "cargo $*" >> "$SHIM_LOG"
[ "$1" = install ] || { echo "cargo shim: only install is a recipe's" >&2; exit 2; }
shift
locked= root= path= git= package=
while [ $# -gt 0 ]; do
  case "$1" in
    --locked) locked=1 ;;
    --root) root=$2; shift ;;
    --path) path=$2; shift ;;
    --git) git=$2; shift ;;
    --tag | --branch | --rev) shift ;;
    -*) echo "cargo shim: unexpected option $1" >&2; exit 2 ;;
    *) package=$1 ;;
  esac
  shift
done
[ -n "$locked" ] || { echo "cargo shim: install without --locked" >&2; exit 2; }
[ -n "$root" ] || { echo "cargo shim: install without --root" >&2; exit 2; }
if [ -n "$path" ]; then
  grep -q '^name = "rho-cli"$' "$path/Cargo.toml" || { echo "cargo shim: no rho-cli at $path" >&2; exit 2; }
elif [ -z "$git" ] || [ "$package" != rho-cli ]; then
  echo "cargo shim: neither --path nor --git URL rho-cli" >&2; exit 2
fi
mkdir -p "$root/bin" && cp "$RHO_BUILT" "$root/bin/rho"
"#;

const GH_SHIM: &str = r#"#!/bin/sh
# gh standing in for the comment: logged; refused as a read-only token is when GH_SHIM_REFUSE is set.
echo "gh $* token=$GH_TOKEN" >> "$SHIM_LOG"
if [ -n "$GH_SHIM_REFUSE" ]; then
  echo "GraphQL: Resource not accessible by integration (addComment)" >&2
  exit 1
fi
"#;

/// apt-get and sudo standing in for the recipes' Valgrind install (the tests run only where Valgrind is): logged.
const APT_GET_SHIM: &str = r#"#!/bin/sh
echo "apt-get $*" >> "$SHIM_LOG"
"#;

const SUDO_SHIM: &str = r#"#!/bin/sh
echo "sudo $*" >> "$SHIM_LOG"
"#;

fn checkout() -> PathBuf {
    common::repo()
}

fn yaml(relative: &str) -> Value {
    let text = std::fs::read_to_string(checkout().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{relative} is not YAML: {e}"))
}

/// A YAML scalar as the runner hands it to a step (`true` is the string `true`).
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The project: a git repository with the suite committed (base), then its `bench_sum` made to do its work
/// 3 times (head). Returns the base commit.
fn project(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    common::git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("bench.c"), SUITE).unwrap();
    std::fs::write(dir.join("module.yml"), MODULE_YML).unwrap();
    common::git(dir, &["add", "."]);
    common::git(dir, &["commit", "-q", "-m", "base"]);
    let base = common::git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    std::fs::write(
        dir.join("bench.c"),
        SUITE.replace("#define WORK 1", "#define WORK 3"),
    )
    .unwrap();
    common::git(
        dir,
        &[
            "commit",
            "-q",
            "-am",
            "head: bench_sum does its work 3 times",
        ],
    );
    base
}

/// The project of the sharded recipes: the same suite as a module.yml suite (`rho bench check` runs it), its
/// baseline counted in instructions and committed with it (base), then `bench_sum` made 3 times the work
/// (head). Returns the base commit.
fn sharded_project(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    common::git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("bench.c"), SUITE).unwrap();
    std::fs::write(dir.join("module.yml"), "bench:\n  suites:\n    - bench.c\n").unwrap();
    let args = ["bench", "--measure", "instructions", "--write-baseline"];
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(args).current_dir(dir);
    common::run_rho(command, &args, std::time::Duration::from_secs(600)).assert_exit(0);
    common::git(dir, &["add", "."]);
    common::git(dir, &["commit", "-q", "-m", "base and its baseline"]);
    let base = common::git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    std::fs::write(
        dir.join("bench.c"),
        SUITE.replace("#define WORK 1", "#define WORK 3"),
    )
    .unwrap();
    common::git(
        dir,
        &[
            "commit",
            "-q",
            "-am",
            "head: bench_sum does its work 3 times",
        ],
    );
    base
}

/// The runner around the steps: the shims, the summary, the PATH the steps add to.
struct Runner {
    tmp: PathBuf,
    shims: PathBuf,
    log: PathBuf,
    summary: PathBuf,
    path: Vec<PathBuf>,
    env: BTreeMap<String, String>,
}

/// A step run: its name and exit status.
struct Ran {
    name: String,
    status: i32,
    output: String,
}

impl Runner {
    fn new(tmp: &Path) -> Runner {
        let shims = tmp.join("shims");
        std::fs::create_dir_all(&shims).unwrap();
        write_script(&shims.join("cargo"), CARGO_SHIM);
        write_script(&shims.join("gh"), GH_SHIM);
        write_script(&shims.join("apt-get"), APT_GET_SHIM);
        write_script(&shims.join("sudo"), SUDO_SHIM);
        let temp = tmp.join("runner-temp");
        std::fs::create_dir_all(&temp).unwrap();
        let summary = tmp.join("step-summary.md");
        std::fs::write(&summary, "").unwrap();
        let log = tmp.join("shims.log");
        let env = BTreeMap::from(
            [
                ("SHIM_LOG", log.to_str().unwrap()),
                ("RHO_BUILT", env!("CARGO_BIN_EXE_rho")),
                ("RUNNER_TEMP", temp.to_str().unwrap()),
                ("RUNNER_OS", "Linux"),
                ("RUNNER_ARCH", "X64"),
                ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
                ("GITHUB_ACTION_PATH", checkout().to_str().unwrap()),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        Runner {
            tmp: tmp.to_path_buf(),
            shims,
            log,
            summary,
            path: Vec::new(),
            env,
        }
    }

    /// Runs `script` as a `shell: bash` step (`bash --noprofile --norc -eo pipefail FILE`) in `cwd`, with
    /// the step's `env`; returns its status and the outputs it wrote to `$GITHUB_OUTPUT`.
    fn bash(
        &mut self,
        name: &str,
        script: &str,
        cwd: &Path,
        env: &BTreeMap<String, String>,
    ) -> (Ran, BTreeMap<String, String>) {
        let file = self.tmp.join("step.sh");
        std::fs::write(&file, script).unwrap();
        let output_file = self.tmp.join("step-output");
        std::fs::write(&output_file, "").unwrap();
        let path_file = self.tmp.join("step-path");
        std::fs::write(&path_file, "").unwrap();
        // Added directories come first, last added first, as on the runner; then the shims.
        let mut path: Vec<PathBuf> = self.path.iter().rev().cloned().collect();
        path.push(self.shims.clone());
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let output = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(cwd)
            .envs(&self.env)
            .envs(env)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_PATH", &path_file)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env_remove("CARGO")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        eprintln!("step {name}: {}\n{text}", output.status);
        let outputs = std::fs::read_to_string(&output_file)
            .unwrap()
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for line in std::fs::read_to_string(&path_file).unwrap().lines() {
            self.path.push(PathBuf::from(line));
        }
        let ran = Ran {
            name: name.to_string(),
            status: output.status.code().unwrap_or(-1),
            output: text,
        };
        (ran, outputs)
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(&self.summary).unwrap()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// The values of the expressions a pull request's job has: the event's (`vars`), the action's inputs (`with`,
/// else their defaults) and the outputs of the steps run so far.
struct Context {
    with: BTreeMap<String, String>,
    defaults: BTreeMap<String, String>,
    vars: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
}

/// The event's values: a pull request (number 7) from a fork of `someone/project` onto `base`.
fn pull_request(base: &str) -> BTreeMap<String, String> {
    BTreeMap::from(
        [
            ("github.action_ref", "v0-test"),
            ("github.token", "the-job-token"),
            ("github.repository", "someone/project"),
            ("github.event.pull_request.number", "7"),
            ("github.event.pull_request.base.sha", base),
            (
                "github.event.pull_request.head.repo.full_name",
                "a-fork/project",
            ),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    )
}

impl Context {
    fn new(vars: &BTreeMap<String, String>) -> Context {
        Context {
            with: BTreeMap::new(),
            defaults: BTreeMap::new(),
            vars: vars.clone(),
            steps: BTreeMap::new(),
        }
    }

    fn value(&self, expression: &str) -> String {
        let expression = expression.trim();
        if let Some((left, right)) = expression.split_once(" == ") {
            return (self.value(left) == self.value(right)).to_string();
        }
        if let Some(input) = expression.strip_prefix("inputs.") {
            let given = self.with.get(input).or_else(|| self.defaults.get(input));
            let given = given.unwrap_or_else(|| panic!("action.yml has no input {input}"));
            return self.substitute(given);
        }
        if let Some(rest) = expression.strip_prefix("steps.") {
            let (step, output) = rest
                .split_once(".outputs.")
                .unwrap_or_else(|| panic!("unknown expression {expression}"));
            // A step not run (the cache's, GitHub's own) has no outputs: the cache is a miss.
            return self
                .steps
                .get(step)
                .and_then(|outputs| outputs.get(output))
                .cloned()
                .unwrap_or_default();
        }
        self.vars
            .get(expression)
            .cloned()
            .unwrap_or_else(|| panic!("the test does not know the expression `{expression}`"))
    }

    /// `text` with each `${{ expression }}` replaced by its value.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find("}}")
                .unwrap_or_else(|| panic!("unclosed expression in {text}"));
            out.push_str(&self.value(&rest[start + 3..start + end]));
            rest = &rest[start + end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// An `if:` of the forms the recipes use: `A == 'x'`, `A != 'x'` and `!cancelled()` (nothing is), joined
    /// by `&&`, bare or in `${{ }}`.
    fn holds(&self, condition: &str) -> bool {
        let condition = condition.trim();
        let condition = condition
            .strip_prefix("${{")
            .and_then(|c| c.strip_suffix("}}"))
            .unwrap_or(condition);
        condition.split("&&").all(|term| {
            if term.trim() == "!cancelled()" {
                return true;
            }
            let (left, equal, right) = if let Some((l, r)) = term.split_once("==") {
                (l, true, r)
            } else if let Some((l, r)) = term.split_once("!=") {
                (l, false, r)
            } else {
                panic!("the test does not know the condition `{condition}`")
            };
            let literal = right.trim().trim_matches('\'');
            (self.value(left) == literal) == equal
        })
    }

    /// A step's `env:`, its values substituted.
    fn env(&self, step: &Value) -> BTreeMap<String, String> {
        step["env"]
            .as_object()
            .map(|env| {
                env.iter()
                    .map(|(k, v)| (k.clone(), self.substitute(&scalar(v))))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The action's steps run as the runner would, with `with` the inputs the workflow gives it, until one fails
/// (the job's default: later steps are skipped). Returns the steps run and the action's outputs.
fn run_action(
    runner: &mut Runner,
    project: &Path,
    with: BTreeMap<String, String>,
    vars: &BTreeMap<String, String>,
) -> (Vec<Ran>, BTreeMap<String, String>) {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite", "{action}");
    let mut context = Context::new(vars);
    context.with = with;
    context.defaults = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, input)| (name.clone(), scalar(&input["default"])))
        .collect();
    let mut ran = Vec::new();
    for step in action["runs"]["steps"].as_array().unwrap() {
        let name = context.substitute(&scalar(&step["name"]));
        if let Some(uses) = step["uses"].as_str() {
            assert!(uses.starts_with("actions/cache@"), "a step uses {uses}");
            continue;
        }
        if let Some(condition) = step["if"].as_str() {
            if !context.holds(condition) {
                eprintln!("step {name}: skipped ({condition})");
                continue;
            }
        }
        assert_eq!(step["shell"], "bash", "step {name} of action.yml");
        let env = context.env(step);
        let script = context.substitute(step["run"].as_str().unwrap());
        let (step_ran, outputs) = runner.bash(&name, &script, project, &env);
        if let Some(id) = step["id"].as_str() {
            context.steps.insert(id.to_string(), outputs);
        }
        let failed = step_ran.status != 0;
        ran.push(step_ran);
        if failed {
            break;
        }
    }
    let outputs = action["outputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, output)| (name.clone(), context.substitute(&scalar(&output["value"]))))
        .collect();
    (ran, outputs)
}

/// A job of a workflow run as the runner would: the steps that use `OWNER/rho@REF` through [`run_action`],
/// `run:` steps with bash, and GitHub's own actions (checkout, artifacts) not at all (the project's directory
/// is every job's workspace), until a step fails. Returns the steps run, the action's steps among them.
fn run_job(
    runner: &mut Runner,
    project: &Path,
    workflow: &Value,
    job: &str,
    vars: &BTreeMap<String, String>,
) -> Vec<Ran> {
    let mut context = Context::new(vars);
    let mut ran = Vec::new();
    for step in workflow["jobs"][job]["steps"].as_array().unwrap() {
        let name = context.substitute(&scalar(&step["name"]));
        if let Some(condition) = step["if"].as_str() {
            if !context.holds(condition) {
                eprintln!("step {name}: skipped ({condition})");
                continue;
            }
        }
        let (status, outputs) = match (step["uses"].as_str(), step["run"].as_str()) {
            (Some(uses), _) if uses.starts_with("OWNER/rho@") => {
                let with = step["with"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), context.substitute(&scalar(v))))
                    .collect();
                let (action_ran, outputs) = run_action(runner, project, with, vars);
                let status = action_ran.last().map_or(0, |r| r.status);
                ran.extend(action_ran);
                (status, outputs)
            }
            (Some(uses), _) => {
                let known = [
                    "actions/checkout@",
                    "actions/upload-artifact@",
                    "actions/download-artifact@",
                ];
                assert!(
                    known.iter().any(|k| uses.starts_with(k)),
                    "{job} uses {uses}"
                );
                continue;
            }
            (None, Some(script)) => {
                let env = context.env(step);
                let (step_ran, outputs) =
                    runner.bash(&name, &context.substitute(script), project, &env);
                let status = step_ran.status;
                ran.push(step_ran);
                (status, outputs)
            }
            (None, None) => panic!("step {name} of {job} neither uses nor runs"),
        };
        if let Some(id) = step["id"].as_str() {
            context.steps.insert(id.to_string(), outputs);
        }
        if status != 0 {
            break;
        }
    }
    ran
}

/// The inputs docs/ci/github-gate.yml gives the action.
fn gate_recipe_inputs() -> BTreeMap<String, String> {
    let workflow = yaml("docs/ci/github-gate.yml");
    let steps = workflow["jobs"]["gate"]["steps"].as_array().unwrap();
    let step = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("OWNER/rho@"))
        })
        .unwrap_or_else(|| panic!("no step uses OWNER/rho@REF in {workflow}"));
    step["with"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), scalar(v)))
        .collect()
}

fn status_of<'a>(ran: &'a [Ran], prefix: &str) -> &'a Ran {
    ran.iter()
        .find(|r| r.name.starts_with(prefix))
        .unwrap_or_else(|| {
            panic!(
                "no step {prefix} ran: {:?}",
                ran.iter().map(|r| &r.name).collect::<Vec<_>>()
            )
        })
}

#[test]
fn the_action_installs_rho_and_gates_a_project_and_a_forks_comment_degrades_to_the_summary() {
    if !common::tools_present(
        "the_action_installs_rho_and_gates_a_project_and_a_forks_comment_degrades_to_the_summary",
        &[("valgrind", "valgrind")],
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("project");
    let base = project(&dir);
    let with = gate_recipe_inputs();
    assert_eq!(with["command"], "gate", "{with:?}");
    assert_eq!(with["comment"], "true", "{with:?}");

    // A fork's pull request: head against base, bench_sum 3x; the comment is refused.
    let mut runner = Runner::new(tmp.path());
    runner.env.insert("GH_SHIM_REFUSE".into(), "1".into());
    let gate_recipe = yaml("docs/ci/github-gate.yml");
    let ran = run_job(
        &mut runner,
        &dir,
        &gate_recipe,
        "gate",
        &pull_request(&base),
    );
    let summary = runner.summary();
    let log = runner.log();
    let context = format!("summary:\n{summary}\nshims:\n{log}");
    // Installed from the action's checkout, into the root the cache keeps.
    assert!(
        log.contains(&format!(
            "cargo install --locked --path {}/crates/rho-cli --root ",
            checkout().display()
        )),
        "{context}"
    );
    assert_eq!(status_of(&ran, "Install rho").status, 0, "{context}");
    // The gate ran and failed on bench_sum alone; the step that ran it passed, and wrote the summary.
    let gate = status_of(&ran, "rho bench gate");
    assert_eq!(gate.status, 0, "{context}");
    assert!(
        gate.output.contains("bench_sum.instructions"),
        "{}",
        gate.output
    );
    assert!(summary.contains("### rho bench gate: failed"), "{context}");
    let regressed: Vec<&str> = summary
        .lines()
        .filter(|line| line.contains("REGRESSED") || line.contains("regressed"))
        .collect();
    assert!(
        regressed.iter().any(|l| l.contains("bench_sum")),
        "{context}"
    );
    assert!(
        !regressed.iter().any(|l| l.contains("bench_steady")),
        "{context}"
    );
    // The comment was tried with the job's token, refused, and the step passed with a note in the summary.
    assert!(log.contains("gh pr comment 7 --body-file"), "{context}");
    assert!(log.contains("token=the-job-token"), "{context}");
    assert_eq!(
        status_of(&ran, "Comment on the pull request").status,
        0,
        "{context}"
    );
    assert!(
        summary.contains("the comment could not be posted on pull request #7"),
        "{context}"
    );
    // The job fails on the verdict, at the last step, exit 1.
    let last = ran.last().unwrap();
    assert_eq!(
        (last.name.as_str(), last.status),
        ("Fail on the verdict", 1),
        "{context}"
    );

    // The same recipe against itself (base = head): passes, the comment posted, no note.
    let mut runner = Runner::new(&tmp.path().join("again"));
    let head = common::git(&dir, &["rev-parse", "HEAD"]).trim().to_string();
    let ran = run_job(
        &mut runner,
        &dir,
        &gate_recipe,
        "gate",
        &pull_request(&head),
    );
    let summary = runner.summary();
    assert!(ran.iter().all(|r| r.status == 0), "{summary}");
    assert!(summary.contains("### rho bench gate: passed"), "{summary}");
    assert!(!summary.contains("could not be posted"), "{summary}");
    assert!(
        !ran.iter().any(|r| r.name == "Fail on the verdict"),
        "{summary}"
    );
    assert!(runner.log().contains("gh pr comment 7"), "{}", runner.log());
}

/// `$NAME` and `${NAME}` in a GitLab variable's value, from `env` (GitLab expands them before the job).
fn expand(value: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = value.to_string();
    for (name, replacement) in env {
        out = out
            .replace(&format!("${{{name}}}"), replacement)
            .replace(&format!("${name}"), replacement);
    }
    out
}

fn lines(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list of commands: {value}"))
        .iter()
        .map(scalar)
        .collect()
}

#[test]
fn the_gitlab_gate_installs_rho_with_cargo_install_git_and_gates_a_project() {
    if !common::tools_present(
        "the_gitlab_gate_installs_rho_with_cargo_install_git_and_gates_a_project",
        &[("valgrind", "valgrind")],
    ) {
        return;
    }
    let recipe = yaml("docs/ci/gitlab-gate.yml");
    // One install for both GitLab recipes.
    let sharded = yaml("docs/ci/gitlab-ci.yml");
    assert_eq!(
        recipe[".rho"]["before_script"], sharded[".rho"]["before_script"],
        "gitlab-gate.yml and gitlab-ci.yml install rho differently"
    );
    assert_eq!(recipe["gate"]["extends"], ".rho", "{recipe}");

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("project");
    let base = project(&dir);
    let mut runner = Runner::new(tmp.path());
    let mut env = BTreeMap::from(
        [
            ("CI_PROJECT_DIR", dir.to_str().unwrap()),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", base.as_str()),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    for (name, value) in recipe["variables"].as_object().unwrap() {
        let value = expand(&scalar(value), &env);
        env.insert(name.clone(), value);
    }
    let before = lines(&recipe[".rho"]["before_script"]).join("\n");
    let script = lines(&recipe["gate"]["script"]).join("\n");

    let (job, _) = runner.bash("gate", &format!("{before}\n{script}\n"), &dir, &env);
    let log = runner.log();
    let context = format!("{}\nshims:\n{log}", job.output);
    // Installed from the repository and commit the variables name, into the root the cache keeps.
    let install = format!(
        "cargo install --locked --git https://github.com/OWNER/rho --rev COMMIT --root {}/.rho rho-cli",
        dir.display()
    );
    assert!(log.contains(&install), "{context}");
    // The gate failed the job on bench_sum alone.
    assert_eq!(job.status, 1, "{context}");
    let verdict = common::read_json(&dir.join("gate.json"));
    let regressed: Vec<&String> = verdict["metrics"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, metric)| metric["regressed"] == true)
        .map(|(name, _)| name)
        .collect();
    assert_eq!(regressed, ["bench_sum.instructions"], "{verdict}");

    // The next pipeline finds rho in the cached root and does not build it again.
    let (again, _) = runner.bash(
        "install again",
        &format!("{before}\nrho --version\n"),
        &dir,
        &env,
    );
    assert_eq!(again.status, 0, "{}", again.output);
    assert_eq!(
        runner.log().matches("cargo install").count(),
        1,
        "{}",
        runner.log()
    );
}

#[test]
fn every_recipe_gives_the_action_only_inputs_it_has() {
    let action = yaml("action.yml");
    let inputs = action["inputs"].as_object().unwrap();
    for recipe in ["docs/ci/github-gate.yml", "docs/ci/github-workflow.yml"] {
        let workflow = yaml(recipe);
        let mut uses = 0;
        for (job, body) in workflow["jobs"].as_object().unwrap() {
            for step in body["steps"].as_array().unwrap() {
                if !step["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("OWNER/rho@"))
                {
                    continue;
                }
                uses += 1;
                for name in step["with"].as_object().unwrap().keys() {
                    assert!(
                        inputs.contains_key(name),
                        "{recipe}: job {job} gives the action `{name}`, which action.yml does not take"
                    );
                }
            }
        }
        assert!(uses > 0, "{recipe} does not use OWNER/rho@REF");
    }
}

#[test]
fn the_sharded_recipe_runs_four_shares_and_their_merge_through_the_action() {
    if !common::tools_present(
        "the_sharded_recipe_runs_four_shares_and_their_merge_through_the_action",
        &[("valgrind", "valgrind")],
    ) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("project");
    let base = sharded_project(&dir);
    let recipe = yaml("docs/ci/github-workflow.yml");
    let shards = recipe["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(shards.len(), 4, "{recipe}");
    // Each share a job of its own (a machine of its own: its runner), writing its document in the workspace
    // the artifacts carry to the merge (here one directory).
    for shard in &shards {
        let shard = scalar(shard);
        let mut vars = pull_request(&base);
        vars.insert("matrix.shard".into(), shard.clone());
        let mut runner = Runner::new(&tmp.path().join(format!("shard-{shard}")));
        let ran = run_job(&mut runner, &dir, &recipe, "shard", &vars);
        let summary = runner.summary();
        assert!(
            ran.iter().all(|r| r.status == 0),
            "share {shard}:\n{summary}"
        );
        // A share's own verdict is let through (fail-on-verdict: false); the merge judges the run.
        assert!(summary.contains("### rho bench check: "), "{summary}");
        assert!(
            dir.join(format!("shard-{shard}.json")).is_file(),
            "share {shard}: no document"
        );
    }

    // The merge, on a fork's pull request: no comment from the job (github-comment.yml posts it), the
    // Markdown in the summary and kept for the comment, then the job fails on the regression.
    let mut runner = Runner::new(&tmp.path().join("merge"));
    let ran = run_job(&mut runner, &dir, &recipe, "merge", &pull_request(&base));
    let summary = runner.summary();
    let log = runner.log();
    let context = format!("summary:\n{summary}\nshims:\n{log}");
    assert!(summary.contains("### rho bench merge: failed"), "{context}");
    let regressed: Vec<&str> = summary
        .lines()
        .filter(|line| line.contains("**regressed**"))
        .collect();
    assert!(
        regressed
            .iter()
            .any(|l| l.contains("`bench_sum` | instructions")),
        "{context}"
    );
    assert!(
        !regressed.iter().any(|l| l.contains("bench_steady")),
        "{context}"
    );
    assert!(
        !log.contains("gh "),
        "the merge job commented on a fork's pull request:\n{context}"
    );
    let comment = std::fs::read_to_string(dir.join("comment.md")).unwrap();
    assert!(summary.contains(comment.trim()), "{context}");
    assert_eq!(
        std::fs::read_to_string(dir.join("pr-number"))
            .unwrap()
            .trim(),
        "7"
    );
    assert!(dir.join("run.json").is_file(), "{context}");
    let last = ran.last().unwrap();
    assert_eq!(
        (last.name.as_str(), last.status),
        ("Fail on a regression or a broken budget", 1),
        "{context}"
    );
}
