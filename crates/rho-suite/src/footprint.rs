//! The static footprint of a built suite, asked for and not linked: after the build, `rho bench` runs the
//! footprint command (`rho mem --json IMAGE --stack-usage DIR` by default, module.yml's `bench.mem_command`
//! otherwise), reads the `rho-mem/1` document it prints (docs/mem-json.md) and attaches, per benchmark, the
//! reachable code bytes and the static stack bound, and the image's totals to the run. A command that fails
//! or prints something else is a warning: the run is reported without those figures, never failed.
//!
//! The build side: C suites are compiled with GCC's `-fstack-usage -fcallgraph-info=su` when the compiler
//! takes them ([`probe`]); a compiler that does not (clang, an older GCC) builds without them, and the
//! warning says what is missing. A `cmake:` suite's image is its CMake target's executable (`RhoBench.cmake`
//! adds the flags; [`crate::cmake`] gathers the files), a `command:` suite's the file module.yml's `image:`
//! names ([`ask_for_command`]; without one, a note).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use rho_exec::{Runner, Termination};
use rho_stats::{ImageTotals, RunSummary, StaticFootprint};
use serde::Deserialize;

/// The schema the document must name: `rho-mem/2`, or `rho-mem/1` from an older footprint command (its
/// `stack.bound` had no interrupt allowance; read as it is).
pub const MEM_SCHEMA: &str = "rho-mem/2";
const MEM_SCHEMA_OLD: &str = "rho-mem/1";

/// GCC's flags for each function's frame (`.su`) and the call graph with frames (`.ci`, GCC 10 and later).
pub const STACK_USAGE_FLAGS: [&str; 2] = ["-fstack-usage", "-fcallgraph-info=su"];

/// The harness's function that calls a benchmark on the painted stack of a hosted target (through
/// ucontext): its frame is under the benchmark's in the measured mark, so the bound counts it too.
const HARNESS_ENTRY: &str = "rho_bench__entry";

/// What a compiler takes of [`STACK_USAGE_FLAGS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The flags to add to the build.
    pub flags: Vec<String>,
    /// What is missing, for the warning; `None` when both flags are taken.
    pub missing: Option<String>,
}

/// Which of the stack-usage flags `compiler` (its words, e.g. `["cc"]` or `["ccache", "gcc"]`) takes,
/// found by compiling a one-line file with them; remembered per compiler for the life of the process.
pub fn probe(compiler: &[String]) -> Probe {
    static CACHE: Mutex<BTreeMap<Vec<String>, Probe>> = Mutex::new(BTreeMap::new());
    if let Some(known) = CACHE.lock().ok().and_then(|c| c.get(compiler).cloned()) {
        return known;
    }
    let name = compiler.join(" ");
    let compiles = |flags: &[&str], expect: &str| -> bool {
        // A scratch directory of rho's own: removed on drop and on Ctrl-C.
        let Ok(dir) = rho_exec::ScratchDir::new("rho-probe-") else {
            return false;
        };
        let source = dir.path().join("probe.c");
        if std::fs::write(&source, "int rho_probe(int x) { return x + 1; }\n").is_err() {
            return false;
        }
        let Some((program, leading)) = compiler.split_first() else {
            return false;
        };
        let mut command = Command::new(program);
        command
            .args(leading)
            .args(flags)
            .args(["-c", "probe.c", "-o", "probe.o"])
            .current_dir(dir.path())
            .env("TMPDIR", dir.path());
        let ran = Runner::new(command)
            .timeout(Duration::from_secs(120))
            .run_collect();
        matches!(ran, Ok((finished, _)) if finished.termination == Termination::Exited(0))
            && dir.path().join(expect).is_file()
    };
    let probe = if compiles(&STACK_USAGE_FLAGS, "probe.ci") {
        Probe {
            flags: STACK_USAGE_FLAGS.iter().map(|f| f.to_string()).collect(),
            missing: None,
        }
    } else if compiles(&STACK_USAGE_FLAGS[..1], "probe.su") {
        Probe {
            flags: vec![STACK_USAGE_FLAGS[0].to_string()],
            missing: Some(format!(
                "`{name}` does not take -fcallgraph-info=su (GCC 10 or later does): no call graph, so no \
                 reachable code bytes or static stack bounds"
            )),
        }
    } else {
        Probe {
            flags: Vec::new(),
            missing: Some(format!(
                "`{name}` takes neither -fstack-usage nor -fcallgraph-info=su (GCC 10 or later takes both): no \
                 reachable code bytes or static stack bounds"
            )),
        }
    };
    if let Ok(mut cache) = CACHE.lock() {
        cache.insert(compiler.to_vec(), probe.clone());
    }
    probe
}

/// A built image and where its compiler wrote the `.su`/`.ci` files.
#[derive(Debug, Clone)]
pub struct ImageFiles {
    pub image: PathBuf,
    pub stack_usage: Option<PathBuf>,
}

/// The footprint command: its words and the directory it runs in.
#[derive(Debug, Clone)]
pub struct MemCommand {
    pub words: Vec<String>,
    pub dir: PathBuf,
    /// As written, for messages.
    pub display: String,
}

impl MemCommand {
    /// module.yml's `bench.mem_command` (split as a shell would, run in the module root), else this very
    /// `rho`'s `mem --json`.
    pub fn resolve(configured: Option<&str>, root: &Path) -> crate::Result<MemCommand> {
        match configured {
            Some(text) => {
                let words = shlex::split(text)
                    .filter(|w| !w.is_empty())
                    .ok_or_else(|| {
                        crate::SuiteError::Unsupported(format!(
                            "bench.mem_command {text:?}: expected a command line (balanced quotes, not empty)"
                        ))
                    })?;
                Ok(MemCommand {
                    words,
                    dir: root.to_path_buf(),
                    display: text.to_string(),
                })
            }
            None => {
                let rho = std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "rho".to_string());
                Ok(MemCommand {
                    words: vec![rho, "mem".to_string(), "--json".to_string()],
                    dir: root.to_path_buf(),
                    display: "rho mem --json".to_string(),
                })
            }
        }
    }
}

/// The part of a `rho-mem/1` document `rho bench` reads (its own reading: `rho-mem` is not linked).
#[derive(Debug, Clone, Deserialize)]
pub struct MemDocument {
    #[serde(default)]
    pub format: Option<MemFormat>,
    pub totals: MemTotals,
    #[serde(default)]
    pub functions: Vec<MemFunction>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemFormat {
    #[serde(default)]
    pub machine: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemTotals {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemFunction {
    pub name: String,
    #[serde(default)]
    pub code_bytes: Option<u64>,
    #[serde(default)]
    pub frame_bytes: Option<u64>,
    pub reachable: MemReachable,
    pub stack: MemStack,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemReachable {
    pub code_bytes: u64,
    /// The reachable functions' names (optional in a document: without them nothing is taken off).
    #[serde(default)]
    pub names: Vec<String>,
}

/// The prefix of the harness's own functions: their code is the same under every benchmark, so a
/// benchmark's code bytes leave it out (its stack bound keeps their frames: the measured mark has them).
const HARNESS_PREFIX: &str = "rho_bench__";

/// The reachable code of `function` without the harness's own functions (those the document names with
/// their code).
fn code_without_harness(document: &MemDocument, function: &MemFunction) -> u64 {
    let harness: u64 = function
        .reachable
        .names
        .iter()
        .filter(|name| name.starts_with(HARNESS_PREFIX) && **name != function.name)
        .filter_map(|name| document.functions.iter().find(|f| &f.name == name))
        .filter_map(|f| f.code_bytes)
        .sum();
    function.reachable.code_bytes.saturating_sub(harness)
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemStack {
    #[serde(default)]
    pub bound: Option<u64>,
    #[serde(default)]
    pub unbounded: Option<String>,
}

/// Run the footprint command on `files` and read its document; `Err` is the warning to print (the command
/// could not run, failed, or printed no `rho-mem/1` document).
pub fn ask(
    command: &MemCommand,
    files: &ImageFiles,
    timeout: Duration,
) -> Result<MemDocument, String> {
    let Some((program, leading)) = command.words.split_first() else {
        return Err("the footprint command is empty".to_string());
    };
    let mut process = Command::new(program);
    process.args(leading).arg(&files.image);
    if let Some(dir) = &files.stack_usage {
        process.arg("--stack-usage").arg(dir);
        process.env("RHO_MEM_STACK_USAGE", dir);
    }
    process
        .current_dir(&command.dir)
        .env("RHO_MEM_IMAGE", &files.image);
    let shown = &command.display;
    let (finished, stdout) = Runner::new(process)
        .timeout(timeout)
        .run_collect()
        .map_err(|e| format!("cannot run the footprint command `{shown}`: {e}"))?;
    if finished.termination != Termination::Exited(0) {
        let tail = finished.stderr.trim_end();
        let tail = tail.lines().rev().take(5).collect::<Vec<_>>();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        let mut message = format!("the footprint command `{shown}` {}", finished.termination);
        if !tail.is_empty() {
            message.push_str(": ");
            message.push_str(&tail.join(" | "));
        }
        return Err(message);
    }
    parse(&stdout).map_err(|e| {
        format!("the footprint command `{shown}` printed no {MEM_SCHEMA} document: {e}")
    })
}

/// The footprint of a `command:` suite: the image module.yml's `image:` names, with the stack-usage files the
/// build left beside it (every `.su` and `.ci` in its directory). Without `image:` there is nothing to ask
/// about: a note says so and `None` is returned; an `image:` that is not there is the warning.
pub fn ask_for_command(
    command: &MemCommand,
    what: &str,
    image: Option<&Path>,
    timeout: Duration,
) -> Option<Result<MemDocument, String>> {
    let Some(image) = image else {
        crate::observe::note(&format!(
            "{what}: no code bytes or static stack bound: a command suite names the image it builds with \
             `image:` in module.yml (docs/config.md)"
        ));
        return None;
    };
    if !image.is_file() {
        return Some(Err(format!(
            "its image, {} (module.yml's `image:`), is not there after the run",
            image.display()
        )));
    }
    let files = ImageFiles {
        image: image.to_path_buf(),
        stack_usage: image.parent().map(Path::to_path_buf),
    };
    Some(ask(command, &files, timeout))
}

/// Read a document's text.
pub fn parse(text: &str) -> Result<MemDocument, String> {
    let value: serde_json::Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("not JSON ({e})"))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(MEM_SCHEMA | MEM_SCHEMA_OLD) => {}
        Some(other) => return Err(format!("schema {other:?}, expected {MEM_SCHEMA:?}")),
        None => return Err("no `schema` field".to_string()),
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// The bytes above the harness's entry frame that the hosted context switch leaves on the benchmark's stack:
/// on x86-64, glibc's makecontext puts the `uc_link` slot and alignment above the return address (which the
/// entry's frame already counts); elsewhere nothing.
fn context_start_bytes(machine: &str) -> u64 {
    if machine == "x86-64" { 16 } else { 0 }
}

/// The Cortex-M harness's guarded call (`rho_bench__call_guarded`, an assembly function with no frame
/// information) keeps r3-r11 and lr (40 bytes) and, on a core with an FPU, d8-d15 (64 bytes) on the painted
/// region above the benchmark. The FPU's 64 are counted whether or not the core has one: a bound may stand
/// above the mark, never below it.
const GUARDED_CALL: &str = "rho_bench__call_guarded";
const GUARDED_CALL_BYTES: u64 = 40 + 64;

/// The harness's frames under every benchmark on the measured stack: on a hosted target the entry
/// function's frame and what the context switch leaves above it; on bare metal the guarded call's saved
/// registers when the image has one (an MPU guard), else nothing.
fn harness_bytes(document: &MemDocument) -> u64 {
    let machine = document
        .format
        .as_ref()
        .map(|f| f.machine.as_str())
        .unwrap_or("");
    let entry = document
        .functions
        .iter()
        .find(|f| f.name == HARNESS_ENTRY)
        .and_then(|f| f.frame_bytes)
        .map_or(0, |frame| frame + context_start_bytes(machine));
    let guarded = if document.functions.iter().any(|f| f.name == GUARDED_CALL) {
        GUARDED_CALL_BYTES
    } else {
        0
    };
    entry + guarded
}

/// The static footprint of the benchmark function `name`: its reachable code, and its stack bound plus
/// `harness` bytes (the harness's frames under it), or why it has none. `None` when the document has no
/// function of that name.
fn benchmark_footprint(
    document: &MemDocument,
    name: &str,
    harness: u64,
) -> Option<StaticFootprint> {
    let function = document.functions.iter().find(|f| f.name == name)?;
    let (bound, unbounded) = match (function.stack.bound, &function.stack.unbounded) {
        (Some(bound), _) => (Some(bound + harness), None),
        (None, Some(reason)) => (None, Some(reason.clone())),
        (None, None) => (None, Some("no bound in the footprint document".to_string())),
    };
    Some(StaticFootprint {
        code_bytes: Some(code_without_harness(document, function)),
        static_stack_bytes: bound,
        unbounded,
    })
}

/// Attach the document's figures to the run: the image's totals, and per benchmark (a function of the same
/// name) its reachable code and its static stack bound plus the harness's frames under it.
pub fn attach(summary: &mut RunSummary, document: &MemDocument) {
    summary.image = Some(ImageTotals {
        text: document.totals.text,
        data: document.totals.data,
        bss: document.totals.bss,
    });
    let harness = harness_bytes(document);
    for bench in &mut summary.benchmarks {
        // A family's member (`bench_sort/32`) runs its family's function.
        let function = bench.name.split('/').next().unwrap_or(&bench.name);
        bench.footprint = benchmark_footprint(document, function, harness);
    }
}

/// The gate's static metrics of every function the document names, as `(function, metric, value)` with
/// the gate's metric names (`code`, `static_stack`); the gate keeps those of the benchmarks a run reports.
pub fn gate_metrics(document: &MemDocument) -> Vec<(String, String, u64)> {
    let harness = harness_bytes(document);
    let mut metrics = Vec::new();
    for function in &document.functions {
        let Some(footprint) = benchmark_footprint(document, &function.name, harness) else {
            continue;
        };
        let figures = [
            (rho_stats::Metric::CodeBytes, footprint.code_bytes),
            (
                rho_stats::Metric::StaticStackBytes,
                footprint.static_stack_bytes,
            ),
        ];
        for (metric, value) in figures {
            if let Some(value) = value {
                metrics.push((function.name.clone(), metric.gate_name().to_string(), value));
            }
        }
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_must_name_its_schema() {
        assert!(parse("{}").unwrap_err().contains("no `schema`"));
        assert!(
            parse(r#"{"schema":"rho-mem/9"}"#)
                .unwrap_err()
                .contains("rho-mem/9")
        );
        assert!(parse("nope").unwrap_err().starts_with("not JSON"));
        let document = parse(
            r#"{"schema":"rho-mem/1","totals":{"text":10,"data":2,"bss":3,"total":15},"functions":[
                {"name":"bench_a","frame_bytes":16,"reachable":{"code_bytes":99},"stack":{"bound":40}},
                {"name":"rho_bench__entry","frame_bytes":24,"reachable":{"code_bytes":1},"stack":{"bound":24}}],
                "format":{"machine":"x86-64"}}"#,
        )
        .unwrap();
        assert_eq!(document.functions[0].reachable.code_bytes, 99);
        assert_eq!(context_start_bytes("x86-64"), 16);
    }

    #[test]
    fn a_configured_command_is_split_like_a_shell() {
        let command = MemCommand::resolve(Some("./mem.sh 'a b'"), Path::new("/m")).unwrap();
        assert_eq!(command.words, ["./mem.sh", "a b"]);
        assert!(MemCommand::resolve(Some("'open"), Path::new("/m")).is_err());
        assert!(MemCommand::resolve(Some(""), Path::new("/m")).is_err());
        let default = MemCommand::resolve(None, Path::new("/m")).unwrap();
        assert_eq!(default.words[1..], ["mem", "--json"]);
    }
}
