//! `rho mem` through the real binary: the sections of a host image and of an arm-none-eabi image exactly as
//! GNU `size -A` (and `arm-none-eabi-size -A`) lists them, the Berkeley totals as `size` prints them, the
//! symbols, a call graph from GCC's `.su`/`.ci` files (a chain's bound, recursion, an indirect call) and a
//! linker map, and bad inputs refused with their names.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::*;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(300);

/// `rho mem ARGS`: it must exit 0.
fn rho_mem(tmp: &Path, args: &[&str]) -> Outcome {
    let mut all = vec!["mem"];
    all.extend_from_slice(args);
    let outcome = rho_in(tmp, &all, LIMIT);
    outcome.assert_exit(0);
    outcome
}

fn mem_json(tmp: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let outcome = rho_mem(tmp, &all);
    serde_json::from_str(&outcome.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", outcome.describe()))
}

fn run(program: &str, args: &[&str], dir: &Path) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `size -A FILE`'s rows (name, size, address) and its Total.
fn size_sysv(size: &str, image: &Path) -> (Vec<(String, u64, u64)>, u64) {
    let text = run(size, &["-A", image.to_str().unwrap()], Path::new("."));
    let mut rows = Vec::new();
    let mut total = None;
    for line in text.lines().skip(2) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Total", n] => total = Some(n.parse().unwrap()),
            [name, size, address] => rows.push((
                name.to_string(),
                size.parse().unwrap(),
                address.parse().unwrap(),
            )),
            [] => {}
            other => panic!("unexpected `{size} -A` line {other:?}"),
        }
    }
    (rows, total.expect("a Total line"))
}

/// `size FILE`'s Berkeley text, data, bss.
fn size_berkeley(size: &str, image: &Path) -> (u64, u64, u64) {
    let text = run(size, &[image.to_str().unwrap()], Path::new("."));
    let words: Vec<u64> = text
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    (words[0], words[1], words[2])
}

/// The document's sections as `size -A` rows, and they must equal `size`'s, section by section.
fn assert_matches_size(size: &str, image: &Path, document: &Value) {
    let (rows, total) = size_sysv(size, image);
    let ours: Vec<(String, u64, u64)> = document["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["size"].as_u64().unwrap(),
                s["address"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(rows.len() > 5, "{rows:?}");
    assert_eq!(ours, rows, "rho mem's sections against `{size} -A`");
    assert_eq!(document["sections_total"].as_u64(), Some(total));
    let (text, data, bss) = size_berkeley(size, image);
    assert_eq!(u64_at(document, "/totals/text"), text, "text");
    assert_eq!(u64_at(document, "/totals/data"), data, "data");
    assert_eq!(u64_at(document, "/totals/bss"), bss, "bss");
    assert_eq!(u64_at(document, "/totals/total"), text + data + bss);
}

/// A four-deep chain of 1 KiB frames, a recursion and a call through a pointer, in two units.
const CHAIN_C: &str = r#"
#include <string.h>
void level2(volatile unsigned char *out);
__attribute__((noinline)) static void level4(volatile unsigned char *out)
{
    volatile unsigned char frame[1024];
    for (unsigned i = 0; i < sizeof frame; i++) frame[i] = (unsigned char)i;
    out[0] = frame[out[1]];
}
__attribute__((noinline)) void level3(volatile unsigned char *out)
{
    volatile unsigned char frame[1024];
    frame[0] = out[1];
    level4(frame);
    out[0] = frame[5];
}
__attribute__((noinline)) void level1(volatile unsigned char *out)
{
    volatile unsigned char frame[1024];
    frame[0] = out[1];
    level2(frame);
    out[0] = frame[7];
}
__attribute__((noinline)) unsigned recurse(volatile unsigned *n)
{
    volatile unsigned frame[8];
    frame[0] = *n;
    if (frame[0] == 0) return 0;
    *n = frame[0] - 1;
    return recurse(n) + frame[0];
}
unsigned (*volatile pointer)(volatile unsigned *) = recurse;
__attribute__((noinline)) unsigned through_pointer(volatile unsigned *n) { return pointer(n) + 1; }
int main(void)
{
    volatile unsigned char out[2] = {0, 3};
    volatile unsigned n = 3;
    level1(out);
    return (int)(out[0] + through_pointer(&n) + recurse(&n));
}
"#;

const LEVEL2_C: &str = r#"
void level3(volatile unsigned char *out);
__attribute__((noinline)) void level2(volatile unsigned char *out)
{
    volatile unsigned char frame[1024];
    frame[0] = out[1];
    level3(frame);
    out[0] = frame[3];
}
"#;

/// Build the chain with `compiler` (host gcc, or arm-none-eabi-gcc with `extra`), its `.su`/`.ci` files and
/// map in `dir`; returns the image.
fn build_chain(compiler: &str, extra: &[&str], dir: &Path) -> PathBuf {
    write_c(dir, "chain.c", CHAIN_C);
    write_c(dir, "level2.c", LEVEL2_C);
    let mut args = vec![
        "-O2",
        "-fstack-usage",
        "-fcallgraph-info=su",
        "-Wl,-Map=chain.map",
    ];
    args.extend_from_slice(extra);
    args.extend(["chain.c", "level2.c", "-o", "chain.elf"]);
    run(compiler, &args, dir);
    dir.join("chain.elf")
}

fn function<'a>(document: &'a Value, name: &str) -> &'a Value {
    document["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no function {name} in {:#}", document["functions"]))
}

/// The chain's bound from level1: the four frames (each at least 1 KiB) and the red zone, nothing else.
fn assert_chain_bound(document: &Value) {
    let red_zone = u64_at(document, "/stack_usage/red_zone_bytes");
    let frames: u64 = ["level1", "level2", "level3", "level4"]
        .iter()
        .map(|name| u64_at(function(document, name), "/frame_bytes"))
        .sum();
    let level1 = function(document, "level1");
    assert_eq!(u64_at(level1, "/stack/call_path_bytes"), frames + red_zone);
    // The bound is the call path and the interrupt allowance, which the document says once for every function.
    let interrupts = u64_at(document, "/stack_usage/interrupts/bytes");
    assert_eq!(u64_at(level1, "/stack/interrupt_bytes"), interrupts);
    assert_eq!(
        u64_at(level1, "/stack/bound"),
        frames + red_zone + interrupts
    );
    // Each frame holds its 1 KiB array (x86-64's leaf level4 keeps 128 bytes of it in the red zone).
    assert!(frames + red_zone >= 4 * 1024, "{frames} + {red_zone}");
    assert_eq!(
        level1["stack"]["path"],
        serde_json::json!(["level1", "level2", "level3", "level4"])
    );
    let reason = function(document, "recurse")["stack"]["unbounded"]
        .as_str()
        .unwrap();
    assert_eq!(reason, "recursion: recurse -> recurse");
    let reason = function(document, "through_pointer")["stack"]["unbounded"]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("indirect call in through_pointer"),
        "{reason}"
    );
    // main reaches all of them: its reachable code is at least the sum of theirs.
    let main = function(document, "main");
    assert!(main["stack"]["bound"].is_null());
    let sum: u64 = [
        "level1",
        "level2",
        "level3",
        "level4",
        "recurse",
        "through_pointer",
        "main",
    ]
    .iter()
    .map(|name| u64_at(function(document, name), "/code_bytes"))
    .sum();
    assert_eq!(u64_at(main, "/reachable/code_bytes"), sum);
    assert_eq!(main["reachable"]["complete"], false);
}

#[test]
fn a_host_image_matches_size_section_by_section_with_its_call_graph_and_map() {
    let tmp = tempfile::tempdir().unwrap();
    let image = build_chain("gcc", &[], tmp.path());
    let document = mem_json(
        tmp.path(),
        &[
            image.to_str().unwrap(),
            "--stack-usage",
            tmp.path().to_str().unwrap(),
            "--map",
            tmp.path().join("chain.map").to_str().unwrap(),
        ],
    );
    assert_eq!(document["schema"], "rho-mem/2");
    assert_eq!(document["format"]["machine"], "x86-64");
    assert_eq!(document["format"]["class"], "elf64");
    assert_matches_size("size", &image, &document);
    assert_chain_bound(&document);
    // The symbols: level4 is a local function of chain.c, with the size nm gives it.
    let nm = run(
        "nm",
        &["-S", "--defined-only", image.to_str().unwrap()],
        tmp.path(),
    );
    let level4_size = nm
        .lines()
        .find(|l| l.ends_with(" level4"))
        .and_then(|l| u64::from_str_radix(l.split_whitespace().nth(1).unwrap(), 16).ok())
        .unwrap();
    let level4 = document["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "level4")
        .unwrap();
    assert_eq!(level4["size"].as_u64(), Some(level4_size));
    assert_eq!(level4["kind"], "function");
    assert_eq!(level4["binding"], "local");
    assert_eq!(level4["file"], "chain.c");
    // The map: the two objects of the chain put their code into .text.
    let inputs = document["map"]["inputs"].as_array().unwrap();
    let text_from_objects: u64 = inputs
        .iter()
        .filter(|i| i["file"].as_str().unwrap().ends_with(".o") && i["text"].as_u64().unwrap() > 0)
        .map(|i| i["text"].as_u64().unwrap())
        .sum();
    assert!(text_from_objects > 0, "{inputs:?}");

    // The text report says the same.
    let text = rho_mem(
        tmp.path(),
        &[
            image.to_str().unwrap(),
            "--stack-usage",
            tmp.path().to_str().unwrap(),
        ],
    );
    text.assert_stdout_has("x86-64");
    let bound = u64_at(function(&document, "level1"), "/stack/bound").to_string();
    let row = |name: &str| {
        text.stdout
            .lines()
            .find(|l| {
                l.contains(&format!("  {name}")) && (l.contains("unbounded") || l.contains(&bound))
            })
            .unwrap_or_else(|| panic!("no function row for {name}:\n{}", text.stdout))
            .to_string()
    };
    assert!(
        row("level1").ends_with(&format!("{bound}  level1")),
        "{}",
        row("level1")
    );
    assert!(
        row("recurse").ends_with("unbounded  recurse"),
        "{}",
        row("recurse")
    );
    // Why, under the table, and no line past 100 columns.
    text.assert_stdout_has("recurse: unbounded: recursion: recurse -> recurse");
    let over: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.chars().count() > 100)
        .collect();
    assert!(over.is_empty(), "{over:#?}");
}

#[test]
fn an_arm_image_matches_arm_none_eabi_size_section_by_section() {
    if !cross_tools_present("an_arm_image_matches_arm_none_eabi_size_section_by_section") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The port's own build of a suite: the image `rho bench --target mps2-an386` runs.
    let out = tmp.path().join("board");
    run(
        "make",
        &[
            "-s",
            "-f",
            repo_file("c/ports/Makefile").to_str().unwrap(),
            &format!("SUITE={}", repo_file("examples/crypto_bench.c").display()),
            &format!("RHO_BENCH_OUT={}", out.display()),
        ],
        tmp.path(),
    );
    let image = out.join("bench.elf");
    let document = mem_json(
        tmp.path(),
        &[
            image.to_str().unwrap(),
            "--map",
            out.join("bench.map").to_str().unwrap(),
        ],
    );
    assert_eq!(document["format"]["machine"], "arm");
    assert_eq!(document["format"]["class"], "elf32");
    assert_matches_size("arm-none-eabi-size", &image, &document);
    // newlib's archive members are named as the map names them.
    let inputs = document["map"]["inputs"].as_array().unwrap();
    assert!(
        inputs
            .iter()
            .any(|i| i["file"].as_str().unwrap().contains(".a(")),
        "{inputs:?}"
    );

    // The chain built for the Cortex-M4: no red zone, the same four frames.
    let chain_dir = tmp.path().join("chain");
    std::fs::create_dir(&chain_dir).unwrap();
    let image = build_chain(
        "arm-none-eabi-gcc",
        &["-mcpu=cortex-m4", "-mthumb", "--specs=nosys.specs"],
        &chain_dir,
    );
    let document = mem_json(
        tmp.path(),
        &[
            image.to_str().unwrap(),
            "--stack-usage",
            chain_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(u64_at(&document, "/stack_usage/red_zone_bytes"), 0);
    // A Cortex-M4 built for soft float: the basic exception frame, 8 words and 4 bytes of alignment.
    assert_eq!(document["stack_usage"]["interrupts"]["model"], "cortex-m");
    assert_eq!(
        u64_at(&document, "/stack_usage/interrupts/exception_frame_bytes"),
        36
    );
    assert_matches_size("arm-none-eabi-size", &image, &document);
    assert_chain_bound(&document);
}

#[test]
fn bad_inputs_are_refused_with_their_names() {
    let tmp = tempfile::tempdir().unwrap();
    let not_elf = write_c(tmp.path(), "not.elf", "hello\n");
    let outcome = rho_in(tmp.path(), &["mem", not_elf.to_str().unwrap()], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("not.elf: expected an ELF image");
    let missing = tmp.path().join("missing.elf");
    let outcome = rho_in(tmp.path(), &["mem", missing.to_str().unwrap()], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("cannot read");
    outcome.assert_stderr_has("missing.elf");
    // A real image with a broken .su file: the file and line are named.
    let image = build_chain("gcc", &[], tmp.path());
    let su = write_c(
        tmp.path(),
        "broken.su",
        "chain.c:3:43:level4\t920\tstatic\nchain.c:level4 lots\n",
    );
    let outcome = rho_in(
        tmp.path(),
        &[
            "mem",
            image.to_str().unwrap(),
            "--stack-usage",
            su.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("broken.su:2: expected FILE:LINE:COLUMN:NAME");
}

/// `rho ARGS` run to completion; its exit status, stderr and peak resident set (`ru_maxrss` of this one child,
/// from `wait4`, in KiB).
fn rho_peak_rss(tmp: &Path, args: &[&str]) -> (i32, String, i64) {
    let mut command = rho_command(tmp, args);
    command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    #[allow(
        clippy::zombie_processes,
        reason = "reaped by wait4 below, which also gives its rusage"
    )]
    let mut child = command.spawn().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 writes it and reaps the child (std's handle is not
    // waited on again).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; `status` and `usage` are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status),
        "rho {args:?} did not exit: {status}"
    );
    (libc::WEXITSTATUS(status), stderr, usage.ru_maxrss)
}

/// A 3 GiB image (a real ELF at its start, the rest a hole: no disk, no time) is read in bounded memory: rho
/// mem reads the headers and tables it needs, never the whole file (it read all of it, 3 GB resident, before).
#[test]
fn a_3_gib_sparse_image_costs_rho_mem_no_more_than_its_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let image = build_chain("gcc", &[], tmp.path());
    let huge = tmp.path().join("huge.elf");
    std::fs::copy(&image, &huge).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&huge).unwrap();
    file.set_len(3 << 30).unwrap();
    drop(file);
    let small = mem_json(tmp.path(), &[image.to_str().unwrap()]);
    let (status, stderr, _) = rho_peak_rss(tmp.path(), &["mem", "--json", image.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    let (status, stderr, peak_kib) =
        rho_peak_rss(tmp.path(), &["mem", "--json", huge.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    assert!(
        peak_kib < 64 * 1024,
        "rho mem --json on a 3 GiB file: peak RSS {peak_kib} KiB"
    );
    // The same sections and symbols as the image it was copied from.
    let big = mem_json(tmp.path(), &[huge.to_str().unwrap()]);
    assert_eq!(big["sections"], small["sections"]);
    assert_eq!(big["totals"], small["totals"]);
}

/// A broken identification is named precisely, and a machine rho mem cannot analyse is refused (exit 2), not
/// reported as all-zero totals.
#[test]
fn a_bad_class_byte_and_an_unknown_machine_are_refused_precisely() {
    let tmp = tempfile::tempdir().unwrap();
    let image = build_chain("gcc", &[], tmp.path());
    let bytes = std::fs::read(&image).unwrap();
    let patched = |name: &str, at: usize, with: &[u8]| {
        let mut copy = bytes.clone();
        copy[at..at + with.len()].copy_from_slice(with);
        let path = tmp.path().join(name);
        std::fs::write(&path, copy).unwrap();
        rho_in(tmp.path(), &["mem", path.to_str().unwrap()], LIMIT)
    };
    let outcome = patched("class.elf", 4, &[9]);
    outcome.assert_exit(2);
    outcome.assert_stderr_has(
        "class.elf: an ELF image with a bad class byte (e_ident[EI_CLASS], offset 4): 0x09",
    );
    assert!(
        !outcome.stderr.contains("does not start with"),
        "{}",
        outcome.describe()
    );
    // e_machine, 2 bytes at offset 18, in the image's (little-endian) byte order.
    let outcome = patched("machine.elf", 18, &0x1234u16.to_le_bytes());
    outcome.assert_exit(2);
    outcome.assert_stderr_has(
        "machine.elf: an ELF image for machine 4660 (e_machine), which rho mem cannot analyse",
    );
}
