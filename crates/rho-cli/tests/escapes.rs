//! No control byte from outside reaches the terminal (issue 30): a stream's fields, its noise lines, a
//! module.yml `command:` string and every text field of a saved run go through the one sanitiser (rho-text) or
//! are refused by the parser. Asserted on the raw bytes rho writes on stdout and stderr.

mod common;

use std::path::Path;

use common::{Project, canned_script};

/// Retitle the terminal: ESC ] 0 ; PWNED BEL.
const RETITLE: &str = "\x1b]0;PWNED\x07";

/// `rho ARGS` in `dir`; its exit status and raw stdout and stderr.
fn rho_raw(project: &Project, args: &[&str]) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let mut command = common::rho_command(&project.path().join("tmp"), args);
    command.current_dir(project.path());
    let output = command.output().unwrap();
    (output.status.code(), output.stdout, output.stderr)
}

/// The first control byte in `bytes` other than a line feed or a tab (C0, DEL, and C1 whether UTF-8 encoded
/// or a lone byte), if any.
fn control_byte(bytes: &[u8]) -> Option<(usize, u8)> {
    let text = String::from_utf8_lossy(bytes);
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && c != '\n' && c != '\t')
    {
        return Some((at, c as u32 as u8));
    }
    // A lone C1 byte (not UTF-8) became U+FFFD above: look for it in the bytes themselves.
    bytes
        .iter()
        .position(|&b| (0x80..=0x9f).contains(&b) && std::str::from_utf8(bytes).is_err())
        .map(|at| (at, bytes[at]))
}

fn assert_clean(what: &str, status: Option<i32>, stdout: &[u8], stderr: &[u8]) {
    for (stream, bytes) in [("stdout", stdout), ("stderr", stderr)] {
        assert_eq!(
            control_byte(bytes),
            None,
            "{what}: a control byte on {stream} (exit {status:?}):\n{}",
            String::from_utf8_lossy(bytes).escape_debug()
        );
    }
}

/// The canned stream with `from` replaced by `to` in its script, run as a `command:` suite.
fn bench_with(project: &Project, from: &str, to: &str) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let script = canned_script(&[100]);
    assert_eq!(script.matches(from).count(), 1, "{from:?}");
    project.write("canned.sh", &script.replacen(from, to, 1));
    let _ = std::fs::remove_file(project.path().join("runs.log"));
    rho_raw(project, &["bench"])
}

#[test]
fn rho_bench_of_a_stream_with_esc_and_bel_in_every_text_field_writes_no_control_byte() {
    let project = Project::new();
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    // Every text field of the stream: refused by the parser, its error quoting the line escaped.
    let fields = [
        ("optimized=1", "optimized=1 compiler=gcc"),
        ("@target canned", "@target canned"),
        ("arch=none", "arch=none"),
        ("cycles fake", "cycles fake"),
        ("unit=cycle", "unit=cycle"),
        ("@bench bench_canned", "@bench bench_canned"),
        ("unit=iter", "unit=iter"),
    ];
    for (from, prefix) in fields {
        let (status, stdout, stderr) = bench_with(&project, from, &format!("{prefix}{RETITLE}"));
        assert_clean(from, status, &stdout, &stderr);
        assert_eq!(
            status,
            Some(2),
            "{from}: {}",
            String::from_utf8_lossy(&stderr)
        );
        let stderr = String::from_utf8_lossy(&stderr);
        assert!(stderr.contains("\\x1b]0;PWNED\\x07"), "{from}: {stderr}");
    }
    // The compiler field is named as what is wrong with it.
    let (_, _, stderr) = bench_with(
        &project,
        "optimized=1",
        &format!("optimized=1 compiler=gcc{RETITLE}"),
    );
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(stderr.contains("printable ASCII in compiler="), "{stderr}");
    // Noise lines (a board's chatter) and the suite's stderr are shown, escaped; the run succeeds.
    let (status, stdout, stderr) = bench_with(
        &project,
        "cat <<EOF",
        &format!("echo 'noise{RETITLE}\x1b[2J\u{9b}31m'; echo 'err{RETITLE}' >&2\ncat <<EOF"),
    );
    assert_clean("noise", status, &stdout, &stderr);
    assert_eq!(status, Some(0), "{}", String::from_utf8_lossy(&stderr));
}

#[test]
fn a_command_string_with_an_escape_is_echoed_escaped() {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    // A YAML double-quoted string: \e is ESC and \a is BEL in the command itself.
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: \"sh canned.sh # \\e]0;PWNED\\a\"\n",
    );
    let (status, stdout, stderr) = rho_raw(&project, &["bench"]);
    assert_clean("command", status, &stdout, &stderr);
    assert_eq!(status, Some(0), "{}", String::from_utf8_lossy(&stderr));
    let stdout = String::from_utf8_lossy(&stdout);
    assert!(
        stdout.contains("sh canned.sh # \\x1b]0;PWNED\\x07"),
        "{stdout}"
    );
    // A command that fails: its error quotes the command, escaped.
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: \"exit 3 # \\e]0;PWNED\\a\"\n",
    );
    let (status, stdout, stderr) = rho_raw(&project, &["bench"]);
    assert_clean("failing command", status, &stdout, &stderr);
    assert_eq!(status, Some(2));
}

/// Every string in `value`, as JSON pointers.
fn string_pointers(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(_) => out.push(at.to_string()),
        serde_json::Value::Array(items) => {
            for (k, item) in items.iter().enumerate() {
                string_pointers(item, &format!("{at}/{k}"), out);
            }
        }
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                string_pointers(item, &format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn rho_bench_show_of_a_saved_run_with_esc_and_bel_in_every_text_field_writes_no_control_byte() {
    let project = Project::new();
    let script = canned_script(&[100]).replacen("optimized=1", "optimized=1 compiler=gcc-12", 1);
    project.write("canned.sh", &script);
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    let (_, document) = project.rho_json(&["bench"]);
    let mut pointers = Vec::new();
    string_pointers(&document, "", &mut pointers);
    assert!(pointers.len() >= 5, "{document}");
    let mut shown = Vec::new();
    let mut compared = 0;
    for pointer in &pointers {
        let mut changed = document.clone();
        let Some(serde_json::Value::String(text)) = changed.pointer_mut(pointer) else {
            unreachable!("{pointer} is a string");
        };
        text.push_str(RETITLE);
        text.push('\u{9b}');
        let saved = project.write("saved.json", &changed.to_string());
        let (status, stdout, stderr) = rho_raw(&project, &["bench", "show", path(&saved)]);
        assert_clean(pointer, status, &stdout, &stderr);
        if status == Some(0) && String::from_utf8_lossy(&stdout).contains("PWNED") {
            shown.push(pointer.clone());
        }
        // The comparison's JSON on stdout: no control byte, and still the JSON it was (escapes JSON's way).
        let args = [
            "bench",
            "compare",
            path(&saved),
            path(&saved),
            "--json",
            "-",
        ];
        let (status, stdout, stderr) = rho_raw(&project, &args);
        assert_clean(pointer, status, &stdout, &stderr);
        if status == Some(0) {
            let document: Result<serde_json::Value, _> = serde_json::from_slice(&stdout);
            assert!(
                document.is_ok(),
                "{pointer}: {}",
                String::from_utf8_lossy(&stdout)
            );
            compared += 1;
        }
    }
    assert!(compared > 0, "no comparison's JSON was checked");
    // The fields a report shows were shown (escaped), not all refused.
    for field in [
        "/suites/0/suite",
        "/suites/0/target/compiler",
        "/suites/0/target/name",
        "/suites/0/benchmarks/0/name",
    ] {
        assert!(
            shown.iter().any(|p| p == field),
            "{field} not shown: {shown:?} of {pointers:?}"
        );
    }
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The gate: a run command holding ESC/BEL/C1 that fails, and a side whose metric names hold them; the table,
/// the error, the progress lines and the JSON line carry no control byte, and the JSON line is still JSON.
#[test]
fn the_gate_writes_no_control_byte_from_a_command_or_a_metric_name() {
    let project = Project::new();
    let side = |name: &str, run: &str| {
        let dir = project.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("module.yml"),
            format!(
                "bench:\n  targets:\n    - name: fake\n      build: 'true'\n      run: \"{run}\"\n"
            ),
        )
        .unwrap();
    };
    // YAML double-quoted: \e is ESC, \a BEL, \x9b a C1 CSI.
    side(
        "base",
        "printf '{\\\"a\\\\302\\\\233_ns\\\": 100}\\\\n' # \\e]0;PWNED\\a\\x9b",
    );
    side("head", "exit 1 # \\e]0;PWNED\\a\\x9b");
    for head in ["head", "base"] {
        let mut command = common::rho_command(
            &project.path().join("tmp"),
            &["bench", "gate", "--base", "../base", "--json", "-"],
        );
        command.current_dir(project.path().join(head));
        let output = command.output().unwrap();
        assert_clean(head, output.status.code(), &output.stdout, &output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let last = stdout.lines().last().unwrap_or_default();
        let document: serde_json::Value = serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("{head}: the last line is not JSON ({e}): {stdout}"));
        assert!(document["verdict"].is_string(), "{document}");
    }
}
