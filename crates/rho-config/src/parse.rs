//! From YAML text to a validated [`ModuleConfig`]: every check, every message.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::{Localizer, Location, Spanned, UserMessageFormatter};

use crate::error::{ConfigError, SourcePos};
use crate::model::{
    BenchmarkConfig, Budgets, CMakeSuite, CargoSuite, DEFAULT_BASELINE, DefaultFlags, ForeignSuite,
    ForeignTool, GateConfig, HistoryConfig, MIN_GATE_RUNS, Measure, ModuleConfig, Suite,
    SuiteBuild, TargetCounter, TargetEntry, is_gate_budget,
};
use crate::node::{Node, pos_of};
use crate::suggest::closest;

type SNode = Spanned<Node>;

const BENCH_KEYS: &[&str] = &[
    "default_iterations",
    "batch",
    "warmup_runs",
    "stack_watermark",
    "repetitions",
    "scale",
    "time_cap_ms",
    "budgets",
    "benchmarks",
    "suites",
    "targets",
    "baseline",
    "gate",
    "history",
    "measure",
    "cflags",
    "ldflags",
    "mem_command",
];
const BUDGET_KEYS: &[&str] = &[
    "max_stack_bytes",
    "max_heap_bytes",
    "max_cycles_per_iteration",
    "max_ns_per_iteration",
    "max_cpu_ns_per_iteration",
    "max_ns_per_op",
    "max_code_bytes",
    "max_static_stack_bytes",
    "fail_on_regression_percent",
    "max_instructions_per_iteration",
    "fail_on_instructions_regression_percent",
    "max_growth",
];
const BENCHMARK_KEYS: &[&str] = &["iterations", "batch", "budgets"];
const TARGET_KEYS: &[&str] = &[
    "name",
    "build",
    "run",
    "timeout_seconds",
    "budgets",
    "benchmarks",
    "cflags",
    "ldflags",
    "stack_bytes",
    "counter",
];
/// The smallest and largest painted stack region a target may set (the Rust harness's largest too).
const STACK_BYTES_RANGE: (u64, u64) = (256, 1 << 30);
/// A target's own `benchmarks.NAME`: budgets only (iteration counts are the module's, whatever the target).
const TARGET_BENCHMARK_KEYS: &[&str] = &["budgets"];
const SUITE_KEYS: &[&str] = &[
    "sources",
    "cflags",
    "ldflags",
    "include",
    "defines",
    "pkg_config",
    "command",
    "image",
    "cmake",
    "cargo",
    "package",
    "features",
    "gbench",
    "criterion",
    "hyperfine",
    "gotest",
    "pytest-benchmark",
];
/// The keys of a `cargo:` suite beside it.
const CARGO_KEYS: &[&str] = &["package", "features"];
/// The keys of a suite that say how rho compiles its files: only with `sources:`.
const SUITE_BUILD_KEYS: &[&str] = &["cflags", "ldflags", "include", "defines", "pkg_config"];
const CMAKE_KEYS: &[&str] = &["build_dir", "target", "source_dir"];
const GATE_KEYS: &[&str] = &["runs", "max_runs", "timeout_seconds", "budget"];
const HISTORY_KEYS: &[&str] = &["branch", "window", "max_pvalue"];

/// Where a key that is unknown at one level does belong, so a misplaced key is not met with a bare "unknown".
fn home_of(key: &str) -> Option<&'static str> {
    if BUDGET_KEYS.contains(&key) {
        Some("bench.budgets or bench.benchmarks.<name>.budgets")
    } else if BENCH_KEYS.contains(&key) {
        Some("bench")
    } else if key == "iterations" {
        Some("bench.benchmarks.<name>")
    } else if ["name", "build", "run"].contains(&key) {
        Some("a bench.targets entry")
    } else if [
        "command",
        "image",
        "sources",
        "include",
        "defines",
        "pkg_config",
        "cmake",
        "cargo",
        "package",
        "features",
        "gbench",
        "criterion",
        "hyperfine",
        "gotest",
        "pytest-benchmark",
    ]
    .contains(&key)
    {
        Some("a bench.suites entry")
    } else if key == "runs" || key == "budget" {
        Some("bench.gate")
    } else if key == "max_pvalue" || key == "branch" {
        Some("bench.history")
    } else {
        None
    }
}

/// Names of targets, and of benchmarks of rho's own harnesses (`iterations`, `batch`): 1 to 63 of the
/// characters an environment variable's name and a board's define carry as they are.
fn is_wire_name(name: &str) -> bool {
    (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:+-".contains(&b))
}

/// Drops serde-saphyr's own " at line L, column C" suffix: our messages carry the place as `file:line:col:`.
struct NoLocationSuffix;

impl Localizer for NoLocationSuffix {
    fn attach_location<'a>(&self, base: Cow<'a, str>, _loc: Location) -> Cow<'a, str> {
        base
    }
}

struct Cx<'a> {
    file: &'a Path,
    /// The file's text, for a scalar whose YAML type lost what was written (`n` reads as false in YAML 1.1).
    text: &'a str,
}

impl Cx<'_> {
    /// The plain scalar as written at `node`'s position (up to a space, `#` or the line's end).
    fn written(&self, node: &SNode) -> Option<&str> {
        let pos = pos_of(node);
        let line = self
            .text
            .lines()
            .nth(usize::try_from(pos.line).ok()?.checked_sub(1)?)?;
        let rest = line.get(usize::try_from(pos.column).ok()?.checked_sub(1)?..)?;
        rest.split([' ', '\t', '#']).next()
    }

    fn err(&self, pos: SourcePos, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_path_buf(),
            pos,
            message: message.into(),
        }
    }

    fn err_at(&self, node: &SNode, message: impl Into<String>) -> ConfigError {
        self.err(pos_of(node), message)
    }
}

/// The entries of one mapping, keys checked against what is allowed there.
struct Fields<'n> {
    entries: Vec<(&'n str, &'n SNode, &'n SNode)>,
}

impl<'n> Fields<'n> {
    /// The key node and value node of `key`, if written.
    fn get(&self, key: &str) -> Option<(&'n SNode, &'n SNode)> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, k, v)| (*k, *v))
    }

    fn value(&self, key: &str) -> Option<&'n SNode> {
        self.get(key).map(|(_, v)| v)
    }
}

/// Reads `node` as a mapping whose keys are text. An empty value (`key:` with nothing) is an empty mapping.
/// With `allowed`, any other key is an error with a suggestion.
fn fields<'n>(
    cx: &Cx,
    node: &'n SNode,
    path: &str,
    allowed: Option<&[&str]>,
) -> Result<Fields<'n>, ConfigError> {
    let entries = match &node.value {
        Node::Null => {
            return Ok(Fields {
                entries: Vec::new(),
            });
        }
        Node::Map(entries) => entries,
        other => {
            return Err(cx.err_at(
                node,
                format!("expected a mapping for {path}, found {}", other.describe()),
            ));
        }
    };
    let mut out = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let Node::Str(name) = &key.value else {
            return Err(cx.err_at(
                key,
                format!(
                    "expected a key name (text) in {path}, found {}",
                    key.value.describe()
                ),
            ));
        };
        if let Some(allowed) = allowed {
            if !allowed.contains(&name.as_str()) {
                return Err(cx.err_at(key, unknown_key_message(name, path, allowed)));
            }
        }
        out.push((name.as_str(), key, value));
    }
    Ok(Fields { entries: out })
}

fn unknown_key_message(key: &str, path: &str, allowed: &[&str]) -> String {
    if let Some(suggestion) = closest(key, allowed) {
        return format!("unknown key '{key}' in {path}; did you mean '{suggestion}'?");
    }
    if let Some(home) = home_of(key) {
        return format!("unknown key '{key}' in {path}; it belongs in {home}");
    }
    format!(
        "unknown key '{key}' in {path}; expected one of: {}",
        allowed.join(", ")
    )
}

/// A whole number in `min..=max`. A float with no fractional part (`1e3`) is accepted.
fn whole(cx: &Cx, node: &SNode, what: &str, min: u64, max: u64) -> Result<u64, ConfigError> {
    let expected = if max == u64::MAX {
        format!("expected a whole number >= {min} for {what}")
    } else {
        format!("expected a whole number from {min} to {max} for {what}")
    };
    let value = match &node.value {
        Node::Int(i) => u64::try_from(*i).ok(),
        Node::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64 => Some(*f as u64),
        _ => None,
    };
    match value {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(cx.err_at(node, format!("{expected}, found {}", node.value.describe()))),
    }
}

/// What a real number must satisfy.
#[derive(Clone, Copy)]
enum Bound {
    /// `>= 0`: budgets and limits.
    NonNegative,
    /// Strictly between 0 and 1: gate budgets.
    Fraction,
    /// In [`crate::SCALE_RANGE`].
    Scale,
    /// In [`crate::TIMEOUT_RANGE_SECONDS`].
    Seconds,
}

fn number(cx: &Cx, node: &SNode, what: &str, bound: Bound) -> Result<f64, ConfigError> {
    let value = match &node.value {
        Node::Int(i) => Some(*i as f64),
        Node::Float(f) if f.is_finite() => Some(*f),
        _ => None,
    };
    let (ok, expected) = match bound {
        Bound::NonNegative => (value.is_some_and(|v| v >= 0.0), "expected a number >= 0"),
        Bound::Fraction => (
            value.is_some_and(is_gate_budget),
            "expected a fraction between 0 and 1, both excluded (0.30 allows 30% growth)",
        ),
        Bound::Scale => (
            value.is_some_and(crate::is_scale),
            "expected a number from 0.000000001 to 1000000000 (1e-9 to 1e9)",
        ),
        Bound::Seconds => (
            value.is_some_and(crate::is_timeout_seconds),
            "expected a number of seconds from 0.001 to 10000000 (1 ms to about 115 days)",
        ),
    };
    match value {
        Some(v) if ok => Ok(v),
        _ => Err(cx.err_at(
            node,
            format!("{expected} for {what}, found {}", node.value.describe()),
        )),
    }
}

/// A growth class as a budget spells it: `1`, `log n`, `n`, `n log n`, `n^2`, `n^3`.
fn growth(cx: &Cx, node: &SNode, what: &str) -> Result<rho_stats::Complexity, ConfigError> {
    let parsed = match &node.value {
        Node::Str(s) => rho_stats::Complexity::parse(s),
        Node::Int(1) => Some(rho_stats::Complexity::Constant),
        // YAML 1.1 reads a bare `n` as false: what was written decides.
        Node::Bool(false) if matches!(cx.written(node), Some("n" | "N")) => {
            Some(rho_stats::Complexity::Linear)
        }
        _ => None,
    };
    parsed.ok_or_else(|| {
        cx.err_at(
            node,
            format!(
                "expected a growth for {what} (1, log n, n, n log n, n^2 or n^3), found {}",
                node.value.describe()
            ),
        )
    })
}

fn boolean(cx: &Cx, node: &SNode, what: &str) -> Result<bool, ConfigError> {
    match node.value {
        Node::Bool(b) => Ok(b),
        ref other => Err(cx.err_at(
            node,
            format!(
                "expected true or false for {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// Non-empty text; `expected` says what kind (`a shell command`, `a path`).
fn text<'n>(cx: &Cx, node: &'n SNode, what: &str, expected: &str) -> Result<&'n str, ConfigError> {
    match &node.value {
        Node::Str(s) if !s.trim().is_empty() => Ok(s),
        other => Err(cx.err_at(
            node,
            format!("expected {expected} for {what}, found {}", other.describe()),
        )),
    }
}

/// `bench.baseline`: a file inside the module root. The baseline is the module's own, committed with it and
/// read at a git ref by `--diff`: a path that leads out of the root (absolute, or `..` past it) would write
/// and read a file of some other project, so it is refused. The check is on the path as written (a symlink
/// inside the root is followed as any path is).
fn baseline_path(cx: &Cx, node: &SNode) -> Result<PathBuf, ConfigError> {
    use std::path::Component;
    let written = text(cx, node, "bench.baseline", "a file path")?;
    let path = PathBuf::from(written);
    let mut depth: usize = 0;
    let mut inside = true;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => inside = false,
            },
            Component::RootDir | Component::Prefix(_) => inside = false,
        }
    }
    if !inside || depth == 0 {
        return Err(cx.err_at(
            node,
            format!(
                "expected a file inside the module root (a relative path that stays in it) for \
                 bench.baseline, found '{written}'"
            ),
        ));
    }
    Ok(path)
}

fn timeout(cx: &Cx, node: &SNode, what: &str) -> Result<Duration, ConfigError> {
    let seconds = number(cx, node, what, Bound::Seconds)?;
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses and validates `text`; `file` is used in messages and its directory is the module root.
pub(crate) fn parse(text: &str, file: &Path) -> Result<ModuleConfig, ConfigError> {
    let cx = Cx { file, text };
    let options = serde_saphyr::options! { with_snippet: false };
    let doc: SNode = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let formatter = UserMessageFormatter.with_localizer(&NoLocationSuffix);
        let message = format!("invalid YAML: {}", e.render_with_formatter(&formatter));
        match e.location() {
            Some(loc) if loc != Location::UNKNOWN => cx.err(
                SourcePos {
                    line: loc.line(),
                    column: loc.column(),
                },
                message,
            ),
            _ => ConfigError::Yaml {
                file: file.to_path_buf(),
                message,
            },
        }
    })?;

    let top = match &doc.value {
        Node::Map(_) => fields(&cx, &doc, "the top level", None)?,
        Node::Null => {
            return Err(cx.err_at(
                &doc,
                "expected a mapping with a `bench:` key at the top level, found an empty file",
            ));
        }
        other => {
            return Err(cx.err_at(
                &doc,
                format!(
                    "expected a mapping with a `bench:` key at the top level, found {}",
                    other.describe()
                ),
            ));
        }
    };
    // Other top-level keys belong to other rho components sharing module.yml; only a near miss of `bench`
    // is worth a word when `bench` itself is absent.
    let Some((bench_key, bench)) = top.get("bench") else {
        if let Some((name, key, _)) = top
            .entries
            .iter()
            .find(|(name, _, _)| closest(name, &["bench"]).is_some())
        {
            return Err(cx.err_at(
                key,
                format!("missing key 'bench' at the top level; did you mean 'bench' instead of '{name}'?"),
            ));
        }
        return Err(cx.err_at(
            &doc,
            "missing key 'bench' at the top level: rho reads its settings from a `bench:` mapping",
        ));
    };
    parse_bench(&cx, bench_key, bench, file)
}

fn parse_bench(
    cx: &Cx,
    bench_key: &SNode,
    bench: &SNode,
    file: &Path,
) -> Result<ModuleConfig, ConfigError> {
    let f = fields(cx, bench, "bench", Some(BENCH_KEYS))?;

    let stack_watermark = match f.value("stack_watermark") {
        Some(v) => boolean(cx, v, "bench.stack_watermark")?,
        None => true,
    };
    let default_iterations = f
        .value("default_iterations")
        .map(|v| whole(cx, v, "bench.default_iterations", 1, u64::MAX))
        .transpose()?;
    let batch = f
        .value("batch")
        .map(|v| whole(cx, v, "bench.batch", 0, u64::MAX))
        .transpose()?;
    let warmup_runs = f
        .value("warmup_runs")
        .map(|v| whole(cx, v, "bench.warmup_runs", 0, u64::MAX))
        .transpose()?;
    let repetitions = match f.value("repetitions") {
        Some(v) => whole(cx, v, "bench.repetitions", 1, u64::from(u32::MAX))? as u32,
        None => 1,
    };
    let scale = match f.value("scale") {
        Some(v) => number(cx, v, "bench.scale", Bound::Scale)?,
        None => 1.0,
    };
    let time_cap_ms = f
        .value("time_cap_ms")
        .map(|v| whole(cx, v, "bench.time_cap_ms", 0, u64::MAX))
        .transpose()?;
    let budgets = match f.value("budgets") {
        Some(v) => parse_budgets(cx, v, "bench.budgets", stack_watermark)?,
        None => Budgets::default(),
    };
    let benchmarks = match f.value("benchmarks") {
        Some(v) => parse_benchmarks(cx, v, stack_watermark)?,
        None => Vec::new(),
    };
    let (suites, suites_at) = match f.get("suites") {
        Some((key, v)) => (parse_suites(cx, v)?, pos_of(key)),
        None => (Vec::new(), pos_of(bench_key)),
    };
    let targets = match f.value("targets") {
        Some(v) => parse_targets(cx, v, stack_watermark)?,
        None => Vec::new(),
    };
    let baseline = match f.value("baseline") {
        Some(v) => baseline_path(cx, v)?,
        None => PathBuf::from(DEFAULT_BASELINE),
    };
    let gate = match f.value("gate") {
        Some(v) => parse_gate(cx, v)?,
        None => GateConfig::default(),
    };
    let history = match f.value("history") {
        Some(v) => parse_history(cx, v)?,
        None => HistoryConfig::default(),
    };
    let measure = match f.value("measure") {
        Some(v) => {
            let expected = "time, instructions or time,instructions";
            let word = text(cx, v, "bench.measure", expected)?;
            Measure::parse(word).ok_or_else(|| {
                cx.err_at(
                    v,
                    format!(
                        "expected {expected} for bench.measure, found {}",
                        v.value.describe()
                    ),
                )
            })?
        }
        None => Measure::default(),
    };
    let flags = default_flags(cx, &f, "bench")?;
    let mem_command = f
        .value("mem_command")
        .map(|v| text(cx, v, "bench.mem_command", "a command line"))
        .transpose()?
        .map(str::to_string);

    let root = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(ModuleConfig {
        file: file.to_path_buf(),
        root,
        default_iterations,
        batch,
        warmup_runs,
        stack_watermark,
        repetitions,
        scale,
        time_cap_ms,
        budgets,
        benchmarks,
        suites,
        suites_at,
        targets,
        baseline,
        gate,
        history,
        measure,
        flags,
        mem_command,
    })
}

/// `cflags:` and `ldflags:` of the mapping `f` at `path` (`bench`, or a target).
fn default_flags(cx: &Cx, f: &Fields, path: &str) -> Result<DefaultFlags, ConfigError> {
    let get = |key: &str| {
        f.value(key)
            .map(|v| flag_words(cx, v, &format!("{path}.{key}")))
            .transpose()
    };
    Ok(DefaultFlags {
        cflags: get("cflags")?,
        ldflags: get("ldflags")?,
    })
}

/// Compiler or linker flags: text split as a shell would (`"-O3 -DNAME='a b'"`), or a list of words taken as
/// they are.
fn flag_words(cx: &Cx, node: &SNode, what: &str) -> Result<Vec<String>, ConfigError> {
    match &node.value {
        Node::Null => Ok(Vec::new()),
        Node::Str(text) => shlex::split(text).ok_or_else(|| {
            cx.err_at(
                node,
                format!("unbalanced quotes in {what}: the flags are split as a shell would"),
            )
        }),
        Node::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match &item.value {
                Node::Str(word) if !word.is_empty() => Ok(word.clone()),
                other => Err(cx.err_at(
                    item,
                    format!(
                        "expected a flag (text) for {what}[{i}], found {}",
                        other.describe()
                    ),
                )),
            })
            .collect(),
        other => Err(cx.err_at(
            node,
            format!(
                "expected flags for {what}: text split as a shell would (\"-O3 -DFAST=1\") or a list of \
                 words, found {}",
                other.describe()
            ),
        )),
    }
}

/// Text or a list of texts, each non-empty (`expected` says what one is: `a directory`, `a package name`).
fn text_list(
    cx: &Cx,
    node: &SNode,
    what: &str,
    expected: &str,
) -> Result<Vec<String>, ConfigError> {
    match &node.value {
        Node::Str(_) => Ok(vec![text(cx, node, what, expected)?.to_owned()]),
        Node::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| text(cx, item, &format!("{what}[{i}]"), expected).map(str::to_owned))
            .collect(),
        other => Err(cx.err_at(
            node,
            format!(
                "expected {expected} or a list of them for {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// Whether `name` can be a C macro's name.
fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A mapping suite's `cflags`, `ldflags`, `include`, `defines` and `pkg_config`.
fn suite_build(cx: &Cx, f: &Fields, what: &str) -> Result<SuiteBuild, ConfigError> {
    let mut build = SuiteBuild::default();
    if let Some(v) = f.value("cflags") {
        build.cflags = flag_words(cx, v, &format!("{what}.cflags"))?;
    }
    if let Some(v) = f.value("ldflags") {
        build.ldflags = flag_words(cx, v, &format!("{what}.ldflags"))?;
    }
    if let Some(v) = f.value("include") {
        build.include = text_list(cx, v, &format!("{what}.include"), "a directory")?
            .into_iter()
            .map(PathBuf::from)
            .collect();
    }
    if let Some(v) = f.value("defines") {
        let path = format!("{what}.defines");
        for (name, key, value) in fields(cx, v, &path, None)?.entries {
            if !is_c_identifier(name) {
                return Err(cx.err_at(
                    key,
                    format!(
                        "'{name}' in {path} is not a macro name: expected a C identifier \
                         (A-Z a-z 0-9 _, not starting with a digit)"
                    ),
                ));
            }
            let value = match &value.value {
                Node::Null => None,
                Node::Str(text) => Some(text.clone()),
                Node::Int(i) => Some(i.to_string()),
                Node::Float(x) => Some(x.to_string()),
                Node::Bool(b) => Some(if *b { "1" } else { "0" }.to_owned()),
                other => {
                    return Err(cx.err_at(
                        value,
                        format!(
                            "expected a value (text or a number; nothing for a bare -D{name}) for \
                             {path}.{name}, found {}",
                            other.describe()
                        ),
                    ));
                }
            };
            build.defines.push((name.to_owned(), value));
        }
    }
    if let Some(v) = f.value("pkg_config") {
        let what = format!("{what}.pkg_config");
        build.pkg_config = text_list(cx, v, &what, "a pkg-config package name")?;
        if let Some(bad) = build
            .pkg_config
            .iter()
            .find(|p| p.contains(char::is_whitespace))
        {
            return Err(cx.err_at(
                v,
                format!("'{bad}' in {what} is not a package name: write one package per list item"),
            ));
        }
    }
    Ok(build)
}

fn parse_budgets(
    cx: &Cx,
    node: &SNode,
    path: &str,
    stack_watermark: bool,
) -> Result<Budgets, ConfigError> {
    let f = fields(cx, node, path, Some(BUDGET_KEYS))?;
    let bytes = |key: &str| -> Result<Option<u64>, ConfigError> {
        let Some(v) = f.value(key) else {
            return Ok(None);
        };
        let what = format!("{path}.{key}");
        let n = number(cx, v, &what, Bound::NonNegative)?;
        if n.fract() != 0.0 || n > u64::MAX as f64 {
            return Err(cx.err_at(
                v,
                format!(
                    "expected a whole number of bytes >= 0 for {what}, found {}",
                    v.value.describe()
                ),
            ));
        }
        Ok(Some(n as u64))
    };
    let real = |key: &str| -> Result<Option<f64>, ConfigError> {
        f.value(key)
            .map(|v| number(cx, v, &format!("{path}.{key}"), Bound::NonNegative))
            .transpose()
    };
    let budgets = Budgets {
        max_stack_bytes: bytes("max_stack_bytes")?,
        max_heap_bytes: bytes("max_heap_bytes")?,
        max_cycles_per_iteration: real("max_cycles_per_iteration")?,
        max_ns_per_iteration: real("max_ns_per_iteration")?,
        max_cpu_ns_per_iteration: real("max_cpu_ns_per_iteration")?,
        max_ns_per_op: real("max_ns_per_op")?,
        max_code_bytes: bytes("max_code_bytes")?,
        max_static_stack_bytes: bytes("max_static_stack_bytes")?,
        fail_on_regression_percent: real("fail_on_regression_percent")?,
        max_instructions_per_iteration: real("max_instructions_per_iteration")?,
        fail_on_instructions_regression_percent: real("fail_on_instructions_regression_percent")?,
        max_growth: f
            .value("max_growth")
            .map(|v| growth(cx, v, &format!("{path}.max_growth")))
            .transpose()?,
    };
    if let (false, Some((key, _))) = (stack_watermark, f.get("max_stack_bytes")) {
        return Err(cx.err_at(
            key,
            format!(
                "{path}.max_stack_bytes needs the stack measured, but bench.stack_watermark is false: \
                 every check would fail as \"not measured\"; remove the budget or set stack_watermark: true"
            ),
        ));
    }
    Ok(budgets)
}

fn parse_benchmarks(
    cx: &Cx,
    node: &SNode,
    stack_watermark: bool,
) -> Result<Vec<BenchmarkConfig>, ConfigError> {
    parse_benchmarks_at(
        cx,
        node,
        "bench.benchmarks",
        BENCHMARK_KEYS,
        stack_watermark,
    )
}

/// A mapping of benchmark name to settings at `base` (`bench.benchmarks`, or a target's `benchmarks`), each
/// entry's keys among `allowed`.
fn parse_benchmarks_at(
    cx: &Cx,
    node: &SNode,
    base: &str,
    allowed: &[&str],
    stack_watermark: bool,
) -> Result<Vec<BenchmarkConfig>, ConfigError> {
    let all = fields(cx, node, base, None)?;
    let mut out = Vec::with_capacity(all.entries.len());
    for (name, key, value) in all.entries {
        // Any name a harness reports, as written (`BM_format/%@`, a unicode name): budgets apply to it.
        if let Err(why) = rho_wire::name::check(name) {
            return Err(cx.err_at(
                key,
                format!(
                    "'{}' in {base} is not a benchmark name: {why} (expected the name the benchmark \
                     reports, 1 to {} bytes of UTF-8 without control characters)",
                    name.escape_debug(),
                    rho_wire::name::MAX_NAME_BYTES
                ),
            ));
        }
        let path = format!("{base}.{name}");
        let f = fields(cx, value, &path, Some(allowed))?;
        let iterations = f
            .value("iterations")
            .map(|v| whole(cx, v, &format!("{path}.iterations"), 1, u64::MAX))
            .transpose()?;
        let batch = f
            .value("batch")
            .map(|v| whole(cx, v, &format!("{path}.batch"), 0, u64::MAX))
            .transpose()?;
        // rho's harnesses read these from RHO_BENCH_ITERATIONS_<name> and RHO_BENCH_BATCH_<name>, and their
        // names are harness names; another harness's benchmark takes budgets only.
        if (iterations.is_some() || batch.is_some()) && !is_wire_name(name) {
            let key = if iterations.is_some() {
                "iterations"
            } else {
                "batch"
            };
            return Err(cx.err_at(
                f.value(key).unwrap_or(value),
                format!(
                    "{path}.{key}: rho's harnesses take `{key}` per benchmark by a name of 1 to 63 \
                     characters of A-Z a-z 0-9 _ . : + - (read as RHO_BENCH_{}_<name>), and '{}' is \
                     not one; budgets apply to any name",
                    key.to_uppercase(),
                    name.escape_debug()
                ),
            ));
        }
        let budgets = match f.value("budgets") {
            Some(v) => parse_budgets(cx, v, &format!("{path}.budgets"), stack_watermark)?,
            None => Budgets::default(),
        };
        out.push(BenchmarkConfig {
            name: name.to_owned(),
            iterations,
            batch,
            budgets,
            at: pos_of(key),
        });
    }
    Ok(out)
}

const SUITE_EXPECTED: &str = "expected a C or C++ file path, a list of them, `{ sources: [...], cflags, \
     ldflags, include, defines, pkg_config }`, `{ command: \"...\" }`, `{ cmake: { build_dir, target } }` or `{ cargo: BENCH_NAME }`";

/// The endings of the files a suite is compiled from: C, C++ (compiled with the C++ compiler) and assembly
/// (`.S`, run through the preprocessor, and `.s`; the C compiler's driver assembles both).
const SOURCE_ENDINGS: &[&str] = &[".c", ".cpp", ".cc", ".cxx", ".S", ".s"];

fn c_file(cx: &Cx, node: &SNode, what: &str) -> Result<PathBuf, ConfigError> {
    match &node.value {
        Node::Str(s)
            if SOURCE_ENDINGS
                .iter()
                .any(|end| s.len() > end.len() && s.ends_with(end)) =>
        {
            Ok(PathBuf::from(s))
        }
        other => Err(cx.err_at(
            node,
            format!(
                "expected a C file path ending in `.c` (or a C++ one: `.cpp`, `.cc`, `.cxx`; or assembly: \
                 `.S`, `.s`) for {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// A list of C/C++ files (or one), at least one.
fn c_files(cx: &Cx, node: &SNode, what: &str) -> Result<Vec<PathBuf>, ConfigError> {
    match &node.value {
        Node::Str(_) => Ok(vec![c_file(cx, node, what)?]),
        Node::Seq(files) if !files.is_empty() => files
            .iter()
            .enumerate()
            .map(|(j, f)| c_file(cx, f, &format!("{what}[{j}]")))
            .collect(),
        Node::Seq(_) => Err(cx.err_at(
            node,
            format!("expected at least one C file in the list {what}"),
        )),
        other => Err(cx.err_at(
            node,
            format!(
                "expected a C file path or a list of them for {what}, found {}",
                other.describe()
            ),
        )),
    }
}

/// `{ cmake: { build_dir, target, source_dir } }`.
/// A suite's `image:`: the image a `command:` suite builds (for its static footprint), a path relative to the
/// module root; refused on any other kind, whose image rho finds itself.
fn suite_image(
    cx: &Cx,
    f: &Fields<'_>,
    what: &str,
    kind: &str,
) -> Result<Option<PathBuf>, ConfigError> {
    let Some((key, value)) = f.get("image") else {
        return Ok(None);
    };
    if kind != "command" {
        return Err(cx.err_at(
            key,
            format!(
                "`image:` in {what} applies to a `command:` suite (the image it builds); rho finds a \
                 `{kind}:` suite's image itself"
            ),
        ));
    }
    let path = text(cx, value, &format!("{what}.image"), "a file path")?;
    Ok(Some(PathBuf::from(path)))
}

fn cmake_suite(
    cx: &Cx,
    node: &SNode,
    what: &str,
    at: SourcePos,
) -> Result<CMakeSuite, ConfigError> {
    let f = fields(cx, node, what, Some(CMAKE_KEYS))?;
    let need = |key: &str, expected: &str| -> Result<String, ConfigError> {
        match f.value(key) {
            Some(v) => Ok(text(cx, v, &format!("{what}.{key}"), expected)?.to_owned()),
            None => Err(cx.err_at(
                node,
                format!(
                    "{what} needs `{key}:` (a CMake suite is `{{ cmake: {{ build_dir: build, target: NAME }} }}`)"
                ),
            )),
        }
    };
    let build_dir = PathBuf::from(need("build_dir", "a directory")?);
    let target = need("target", "a CMake target name")?;
    let source_dir = match f.value("source_dir") {
        Some(v) => PathBuf::from(text(cx, v, &format!("{what}.source_dir"), "a directory")?),
        None => PathBuf::from("."),
    };
    Ok(CMakeSuite {
        build_dir,
        target,
        source_dir,
        at,
    })
}

/// `{ cargo: BENCH_NAME, package: PACKAGE, features: [...] }`.
fn cargo_suite(cx: &Cx, f: &Fields, what: &str, at: SourcePos) -> Result<CargoSuite, ConfigError> {
    let name = |key: &str, expected: &str| -> Result<Option<String>, ConfigError> {
        let Some(node) = f.value(key) else {
            return Ok(None);
        };
        let value = text(cx, node, &format!("{what}.{key}"), expected)?;
        if !is_cargo_name(value) {
            return Err(cx.err_at(
                node,
                format!(
                    "'{value}' is not {expected} ({what}.{key}): expected letters, digits, `_` and `-`"
                ),
            ));
        }
        Ok(Some(value.to_owned()))
    };
    let bench = name("cargo", "a bench target name")?.unwrap_or_default();
    let package = name("package", "a package name")?;
    let features = match f.value("features") {
        Some(node) => text_list(cx, node, &format!("{what}.features"), "a feature name")?,
        None => Vec::new(),
    };
    Ok(CargoSuite {
        bench,
        package,
        features,
        at,
    })
}

/// `{ gbench: COMMAND }` and its kin (`key` is one of [`ForeignTool`]'s keys): a non-empty string, or for
/// `hyperfine:` a list of commands (each passed to hyperfine quoted).
fn foreign_suite(
    cx: &Cx,
    f: &Fields,
    key: &str,
    what: &str,
    at: SourcePos,
) -> Result<ForeignSuite, ConfigError> {
    let tool = ForeignTool::ALL
        .into_iter()
        .find(|t| t.key() == key)
        .unwrap_or(ForeignTool::Gbench);
    let place = format!("{what}.{key}");
    let Some(node) = f.value(key) else {
        return Err(cx.err(at, format!("expected {} for {place}", tool.expects())));
    };
    let argument = match (&node.value, tool) {
        (Node::Seq(items), ForeignTool::Hyperfine) if !items.is_empty() => {
            let mut quoted = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let command = text(cx, item, &format!("{place}[{index}]"), "a shell command")?;
                quoted.push(format!("'{}'", command.replace('\'', "'\\''")));
            }
            quoted.join(" ")
        }
        _ => text(cx, node, &place, tool.expects())?.to_owned(),
    };
    Ok(ForeignSuite { tool, argument, at })
}

/// A cargo target or package name: `[A-Za-z0-9_-]+`.
fn is_cargo_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn parse_suites(cx: &Cx, node: &SNode) -> Result<Vec<Suite>, ConfigError> {
    let items = match &node.value {
        Node::Seq(items) if !items.is_empty() => items,
        Node::Seq(_) | Node::Null => {
            return Err(cx.err_at(
                node,
                format!(
                    "expected at least one suite in bench.suites ({}); leave the key out to name \
                     files on the command line instead",
                    SUITE_EXPECTED.trim_start_matches("expected ")
                ),
            ));
        }
        other => {
            return Err(cx.err_at(
                node,
                format!(
                    "expected a list for bench.suites, found {}",
                    other.describe()
                ),
            ));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let what = format!("bench.suites[{i}]");
        let at = pos_of(item);
        let suite = match &item.value {
            Node::Str(_) | Node::Seq(_) => Suite::CFiles {
                files: c_files(cx, item, &what)?,
                build: SuiteBuild::default(),
                at,
            },
            Node::Map(_) => {
                let f = fields(cx, item, &what, Some(SUITE_KEYS))?;
                let kinds: Vec<(&str, &SNode)> = [
                    "sources",
                    "command",
                    "cmake",
                    "cargo",
                    "gbench",
                    "criterion",
                    "hyperfine",
                    "gotest",
                    "pytest-benchmark",
                ]
                .into_iter()
                .filter_map(|k| f.get(k).map(|(key, _)| (k, key)))
                .collect();
                match kinds.as_slice() {
                    [] => {
                        return Err(cx.err_at(
                            item,
                            format!(
                                "{what} needs `sources:` (C files rho builds), `command:`, `cmake:`, `cargo:` or \
                                 another harness's `gbench:`, `criterion:`, `hyperfine:`, `gotest:`, `pytest-benchmark:`"
                            ),
                        ));
                    }
                    [_, (second, key), ..] => {
                        return Err(cx.err_at(
                            key,
                            format!(
                                "{what} has `{}:` and `{second}:`; a suite is one of `sources:`, `command:`, \
                                 `cmake:`, `cargo:`, `gbench:`, `criterion:`, `hyperfine:`, `gotest:` or \
                                 `pytest-benchmark:`",
                                kinds[0].0
                            ),
                        ));
                    }
                    [(kind, _)] => {
                        if *kind != "cargo"
                            && let Some((key, _)) = CARGO_KEYS.iter().find_map(|k| f.get(k))
                        {
                            let name = match &key.value {
                                Node::Str(name) => name.as_str(),
                                _ => "",
                            };
                            return Err(cx.err_at(
                                key,
                                format!("`{name}:` in {what} applies to a `cargo:` suite only"),
                            ));
                        }
                        if *kind != "sources"
                            && let Some((key, _)) = SUITE_BUILD_KEYS.iter().find_map(|k| f.get(k))
                        {
                            let name = match &key.value {
                                Node::Str(name) => name.as_str(),
                                _ => "",
                            };
                            return Err(cx.err_at(
                                key,
                                format!(
                                    "`{name}:` in {what} applies to a `sources:` suite, which rho compiles; \
                                     a `{kind}:` suite builds itself{}",
                                    if *kind == "cmake" {
                                        " (give flags and libraries to rho_add_benchmark in CMakeLists.txt)"
                                    } else {
                                        ""
                                    }
                                ),
                            ));
                        }
                        suite_image(cx, &f, &what, kind)?;
                        match *kind {
                            "sources" => Suite::CFiles {
                                files: c_files(
                                    cx,
                                    f.value("sources").unwrap_or(item),
                                    &format!("{what}.sources"),
                                )?,
                                build: suite_build(cx, &f, &what)?,
                                at,
                            },
                            "command" => Suite::Command {
                                command: text(
                                    cx,
                                    f.value("command").unwrap_or(item),
                                    &format!("{what}.command"),
                                    "a shell command",
                                )?
                                .to_owned(),
                                image: suite_image(cx, &f, &what, kind)?,
                                at,
                            },
                            "cargo" => Suite::Cargo(cargo_suite(cx, &f, &what, at)?),
                            "cmake" => Suite::CMake(cmake_suite(
                                cx,
                                f.value("cmake").unwrap_or(item),
                                &format!("{what}.cmake"),
                                at,
                            )?),
                            tool => Suite::Foreign(foreign_suite(cx, &f, tool, &what, at)?),
                        }
                    }
                }
            }
            other => {
                return Err(cx.err_at(
                    item,
                    format!("{SUITE_EXPECTED} for {what}, found {}", other.describe()),
                ));
            }
        };
        out.push(suite);
    }
    Ok(out)
}

fn target_name(cx: &Cx, node: &SNode, what: &str) -> Result<String, ConfigError> {
    let name = text(cx, node, what, "a target name")?;
    if !is_wire_name(name) {
        return Err(cx.err_at(
            node,
            format!(
                "'{name}' is not a target name ({what}): expected 1 to 63 characters of \
                 A-Z a-z 0-9 _ . : + -"
            ),
        ));
    }
    Ok(name.to_owned())
}

fn parse_targets(
    cx: &Cx,
    node: &SNode,
    stack_watermark: bool,
) -> Result<Vec<TargetEntry>, ConfigError> {
    let items = match &node.value {
        Node::Seq(items) if !items.is_empty() => items,
        Node::Seq(_) | Node::Null => {
            return Err(cx.err_at(
                node,
                "expected at least one target in bench.targets (leave the key out to use host)",
            ));
        }
        other => {
            return Err(cx.err_at(
                node,
                format!(
                    "expected a list of targets (names or `{{ name, build, run }}` maps) for \
                     bench.targets, found {}",
                    other.describe()
                ),
            ));
        }
    };
    let mut out: Vec<TargetEntry> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let what = format!("bench.targets[{i}]");
        let at = pos_of(item);
        let entry = match &item.value {
            Node::Str(_) => TargetEntry {
                name: target_name(cx, item, &what)?,
                build: None,
                run: None,
                timeout: None,
                budgets: Budgets::default(),
                benchmarks: Vec::new(),
                flags: DefaultFlags::default(),
                stack_bytes: None,
                counter: None,
                at,
            },
            Node::Map(_) => {
                let f = fields(cx, item, &what, Some(TARGET_KEYS))?;
                let Some(name) = f.value("name") else {
                    return Err(cx.err_at(
                        item,
                        format!(
                            "{what} needs a `name:` (a target map is `{{ name, build, run, \
                             timeout_seconds }}`)"
                        ),
                    ));
                };
                let name = target_name(cx, name, &format!("{what}.name"))?;
                let command = |key: &str| {
                    f.value(key)
                        .map(|v| {
                            text(cx, v, &format!("{what}.{key}"), "a shell command")
                                .map(str::to_owned)
                        })
                        .transpose()
                };
                let build = command("build")?;
                let run = command("run")?;
                let missing = match (&build, &run) {
                    (Some(_), None) => Some(("build", "run")),
                    (None, Some(_)) => Some(("run", "build")),
                    _ => None,
                };
                if let Some((given, absent)) = missing {
                    return Err(cx.err_at(
                        item,
                        format!(
                            "target '{name}' has `{given}:` but no `{absent}:`; a target is \
                             defined by both (a built-in one is replaced as a whole)"
                        ),
                    ));
                }
                let timeout = f
                    .value("timeout_seconds")
                    .map(|v| timeout(cx, v, &format!("{what}.timeout_seconds")))
                    .transpose()?;
                let budgets = match f.value("budgets") {
                    Some(v) => parse_budgets(cx, v, &format!("{what}.budgets"), stack_watermark)?,
                    None => Budgets::default(),
                };
                let benchmarks = match f.value("benchmarks") {
                    Some(v) => parse_benchmarks_at(
                        cx,
                        v,
                        &format!("{what}.benchmarks"),
                        TARGET_BENCHMARK_KEYS,
                        stack_watermark,
                    )?,
                    None => Vec::new(),
                };
                let stack_bytes = f
                    .value("stack_bytes")
                    .map(|v| target_stack_bytes(cx, v, &what, stack_watermark))
                    .transpose()?;
                let counter = f
                    .value("counter")
                    .map(|v| target_counter(cx, v, &what, build.is_some()))
                    .transpose()?;
                TargetEntry {
                    name,
                    build,
                    run,
                    timeout,
                    budgets,
                    benchmarks,
                    flags: default_flags(cx, &f, &what)?,
                    stack_bytes,
                    counter,
                    at,
                }
            }
            other => {
                return Err(cx.err_at(
                    item,
                    format!(
                        "expected a target name or a `{{ name, build, run }}` map for {what}, \
                         found {}",
                        other.describe()
                    ),
                ));
            }
        };
        if let Some(first) = out.iter().find(|t| t.name == entry.name) {
            return Err(cx.err(
                entry.at,
                format!(
                    "duplicate target '{}' in bench.targets (first listed at line {}, column {})",
                    entry.name, first.at.line, first.at.column
                ),
            ));
        }
        out.push(entry);
    }
    Ok(out)
}

/// A target's `counter:`: `qemu-plugin`, on a target with its own `build:`/`run:` (`commands`); a built-in
/// board counts with the plugin already, and the host with Valgrind.
fn target_counter(
    cx: &Cx,
    node: &SNode,
    what: &str,
    commands: bool,
) -> Result<TargetCounter, ConfigError> {
    let word = text(cx, node, &format!("{what}.counter"), "`qemu-plugin`")?;
    if word != TargetCounter::QemuPlugin.key() {
        return Err(cx.err_at(
            node,
            format!(
                "unknown counter '{word}' for {what}.counter; expected `qemu-plugin` (the run loads rho's \
                 QEMU counting plugin)"
            ),
        ));
    }
    if !commands {
        return Err(cx.err_at(
            node,
            format!(
                "{what}.counter is for a target with its own `build:` and `run:` commands; a built-in \
                 board already counts with rho's QEMU plugin"
            ),
        ));
    }
    Ok(TargetCounter::QemuPlugin)
}

/// A target's `stack_bytes:`: the painted region, a whole number of bytes in [`STACK_BYTES_RANGE`]; refused
/// when the stack is not measured at all.
fn target_stack_bytes(
    cx: &Cx,
    node: &SNode,
    what: &str,
    stack_watermark: bool,
) -> Result<u64, ConfigError> {
    let (min, max) = STACK_BYTES_RANGE;
    let bytes = whole(cx, node, &format!("{what}.stack_bytes (bytes)"), min, max)?;
    if !stack_watermark {
        return Err(cx.err_at(
            node,
            format!(
                "{what}.stack_bytes sizes the painted stack region, but bench.stack_watermark is false: \
                 nothing is painted; remove it or set stack_watermark: true"
            ),
        ));
    }
    Ok(bytes)
}

fn parse_gate(cx: &Cx, node: &SNode) -> Result<GateConfig, ConfigError> {
    let f = fields(cx, node, "bench.gate", Some(GATE_KEYS))?;
    let mut gate = GateConfig::default();
    if let Some(v) = f.value("runs") {
        gate.runs = whole(
            cx,
            v,
            "bench.gate.runs (alternating runs per side)",
            u64::from(MIN_GATE_RUNS),
            u64::from(u32::MAX),
        )? as u32;
    }
    if let Some(v) = f.value("max_runs") {
        // At least `runs` (given or its default): a ceiling below the floor would mean nothing.
        gate.max_runs = Some(whole(
            cx,
            v,
            "bench.gate.max_runs (the most alternating runs per side, at least bench.gate.runs)",
            u64::from(gate.runs),
            u64::from(u32::MAX),
        )? as u32);
    }
    if let Some(v) = f.value("timeout_seconds") {
        gate.timeout = timeout(cx, v, "bench.gate.timeout_seconds")?;
    }
    if let Some(v) = f.value("budget") {
        let budget = fields(cx, v, "bench.gate.budget", None)?;
        let mut per_metric = BTreeMap::new();
        let mut default = None;
        for (metric, _, value) in budget.entries {
            let fraction = number(
                cx,
                value,
                &format!("bench.gate.budget.{metric}"),
                Bound::Fraction,
            )?;
            if metric == "default" {
                default = Some(fraction);
            } else {
                per_metric.insert(metric.to_owned(), fraction);
            }
        }
        gate.default_budget = default;
        gate.budgets = per_metric;
    }
    Ok(gate)
}

/// `bench.history`: a branch name git would take, a window of at least 3 figures, a p-value in (0, 1).
fn parse_history(cx: &Cx, node: &SNode) -> Result<HistoryConfig, ConfigError> {
    let f = fields(cx, node, "bench.history", Some(HISTORY_KEYS))?;
    let mut history = HistoryConfig::default();
    if let Some(v) = f.value("branch") {
        let name = text(cx, v, "bench.history.branch", "a branch name")?;
        if !is_branch_name(name) {
            return Err(cx.err_at(
                v,
                format!(
                    "expected a branch name (letters, digits, `-`, `_`, `.` and `/`, not starting with `-` \
                     or `.`, no `..`) for bench.history.branch, found '{name}'"
                ),
            ));
        }
        history.branch = Some(name.to_string());
    }
    if let Some(v) = f.value("window") {
        history.window = Some(whole(cx, v, "bench.history.window", 6, 100_000)? as usize);
    }
    if let Some(v) = f.value("max_pvalue") {
        let p = number(cx, v, "bench.history.max_pvalue", Bound::NonNegative)?;
        if !(p > 0.0 && p < 1.0) {
            return Err(cx.err_at(
                v,
                format!(
                    "expected a p-value between 0 and 1, both excluded (0.001 keeps a change point when a \
                     step this large by chance is 1 in 1000) for bench.history.max_pvalue, found {}",
                    v.value.describe()
                ),
            ));
        }
        history.max_pvalue = Some(p);
    }
    Ok(history)
}

/// A conservative subset of what git takes as a branch name: enough for a history branch, nothing a shell or
/// git would read as something else.
fn is_branch_name(name: &str) -> bool {
    (1..=200).contains(&name.len())
        && !name.starts_with(['-', '.', '/'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.contains("//")
        && !name.ends_with(".lock")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names() {
        assert!(is_wire_name("bench_crc_64"));
        assert!(is_wire_name("mps2-an386"));
        assert!(!is_wire_name(""));
        assert!(!is_wire_name("has space"));
        assert!(!is_wire_name(&"x".repeat(64)));
    }

    #[test]
    fn misplaced_keys_name_their_home() {
        let message = unknown_key_message("runs", "bench", BENCH_KEYS);
        assert_eq!(
            message,
            "unknown key 'runs' in bench; it belongs in bench.gate"
        );
        let message = unknown_key_message("zzz_unrelated", "bench.gate", GATE_KEYS);
        assert_eq!(
            message,
            "unknown key 'zzz_unrelated' in bench.gate; expected one of: runs, max_runs, timeout_seconds, budget"
        );
    }
}
