//! Real code through the real binary: a suite linked against a library Debian ships (mbedtls, with
//! `--ldflags`), the link error that says which flag is missing, C++ suites (alone and mixed with C) on the host
//! and on the emulated Cortex-M4, the math library and `--ldflags` on the board.
//!
//! Without libmbedtls-dev, or the cross tools for the board tests, each test prints a note and passes, unless
//! `RHO_REQUIRE_CROSS` is set (`.ci/run` sets it and installs them): in CI these tests really run.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(600);
const MBED_SUITE: &str = "examples/mbedtls/bench/mbed_bench.c";

/// Whether mbedtls's headers are installed (libmbedtls-dev); when not, a note, or a failure under
/// `RHO_REQUIRE_CROSS`.
fn mbedtls_present(test: &str) -> bool {
    let probe = Command::new("sh")
        .arg("-c")
        .arg("printf '#include <mbedtls/sha256.h>\\n' | cc -fsyntax-only -x c -")
        .output()
        .is_ok_and(|o| o.status.success());
    probe || skipped_unless_required(test, "mbedtls", "libmbedtls-dev")
}

#[test]
fn an_mbedtls_suite_links_with_ldflags_and_hashing_1k_costs_several_times_64_bytes() {
    if !mbedtls_present("an_mbedtls_suite_links_with_ldflags") {
        return;
    }
    let (_, document) = rho_json(
        &[
            "bench",
            "--ldflags",
            "-lmbedcrypto",
            MBED_SUITE,
            "--iterations",
            "2000",
        ],
        LIMIT,
    );
    assert_eq!(
        bench_names(&document),
        ["bench_sha256_64", "bench_sha256_1k", "bench_aes128_block"]
    );
    let ldflags = document["suite"]["ldflags"].as_array().unwrap();
    assert_eq!(ldflags, &["-lmbedcrypto", "-lm"], "{ldflags:?}");
    // 17 compressions of a 64-byte block against 2: about 8.5 times. The bound is wide on purpose (a
    // wall-clock ratio on a shared machine); what it rules out is a library that was not really called.
    let ratio =
        median_cycles(&document, "bench_sha256_1k") / median_cycles(&document, "bench_sha256_64");
    assert!((4.0..=20.0).contains(&ratio), "1 KiB / 64 B = {ratio}");
}

#[test]
fn a_missing_library_is_named_in_the_link_error() {
    if !mbedtls_present("a_missing_library_is_named_in_the_link_error") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(tmp.path(), &["bench", MBED_SUITE], LIMIT);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("undefined reference to `mbedtls_");
    outcome.assert_stderr_has("hint: ");
    outcome.assert_stderr_has("pass --ldflags \"-lmbedcrypto\"");

    // The mistake the flag is for: a library in --cflags comes before the sources, and the linker drops it.
    let outcome = rho_in(
        tmp.path(),
        &["bench", "--cflags", "-lmbedcrypto", MBED_SUITE],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("`-lmbedcrypto` is in the compiler flags");
    assert_nothing_left(tmp.path());
}

/// A suite of a C++ file calling a C file (through `extern "C"`), and the C file written in C only (a C++
/// compiler would refuse its implicit `void *` conversion).
fn write_mixed_suite(dir: &Path) -> (String, String) {
    let c_file = write_c(
        dir,
        "checksum.c",
        "#include <stdlib.h>\n\
         unsigned checksum(const unsigned char *data, unsigned len);\n\
         unsigned checksum(const unsigned char *data, unsigned len)\n\
         {\n\
             unsigned char *copy = malloc(len); /* C only: no cast from void * */\n\
             unsigned sum = 0, i;\n\
             if (!copy) return 0;\n\
             for (i = 0; i < len; i++) { copy[i] = data[i]; sum = sum * 31u + copy[i]; }\n\
             free(copy);\n\
             return sum;\n\
         }\n",
    );
    let cxx_file = write_c(
        dir,
        "main.cc",
        "#include <rho/bench.h>\n\
         #include <array>\n\
         extern \"C\" unsigned checksum(const unsigned char *data, unsigned len);\n\
         static void bench_checksum_64(rho_bench_t *state)\n\
         {\n\
             static std::array<unsigned char, 64> data{};\n\
             RHO_BENCH_LOOP(state) {\n\
                 RHO_BENCH_KEEP(checksum(data.data(), static_cast<unsigned>(data.size())));\n\
             }\n\
         }\n\
         int main(int argc, char **argv)\n\
         {\n\
             rho_bench_suite_t suite = {};\n\
             RHO_BENCH_ADD(&suite, bench_checksum_64);\n\
             return rho_bench_main(&suite, argc, argv);\n\
         }\n",
    );
    (cxx_file.display().to_string(), c_file.display().to_string())
}

#[test]
fn a_cxx_suite_runs_on_the_host_built_and_linked_as_cxx() {
    let (_, document) = rho_json(
        &["bench", "examples/sort_bench.cpp", "--iterations", "200"],
        LIMIT,
    );
    assert_eq!(bench_names(&document), ["bench_sort_1000", "bench_sqrt"]);
    let expected = std::env::var("CXX")
        .ok()
        .filter(|cxx| !cxx.trim().is_empty())
        .unwrap_or_else(|| "c++".to_string());
    assert_eq!(document["suite"]["compiler"][0], expected.as_str());
    assert!(median_cycles(&document, "bench_sort_1000") > 0.0);

    // Mixed with C: each file compiled by its own compiler.
    let dir = tempfile::tempdir().unwrap();
    let (cxx_file, c_file) = write_mixed_suite(dir.path());
    let (_, document) = rho_json(&["bench", &cxx_file, &c_file, "--iterations", "200"], LIMIT);
    assert_eq!(bench_names(&document), ["bench_checksum_64"]);
}

/// `rho bench --target mps2-an386 ARGS...` to its JSON document, with few iterations (the emulator is slow and
/// exact under -icount).
fn on_board(args: &[&str]) -> serde_json::Value {
    let mut all = vec![
        "bench",
        "--target",
        "mps2-an386",
        "--iterations",
        "20",
        "--warmup",
        "2",
    ];
    all.extend_from_slice(args);
    rho_json(&all, LIMIT).1
}

#[test]
fn a_cxx_suite_runs_on_the_emulated_cortex_m4() {
    if !tools_present("a_cxx_suite_runs_on_the_emulated_cortex_m4", CROSS_TOOLS) {
        return;
    }
    let document = on_board(&["examples/sort_bench.cpp"]);
    assert_eq!(document["target"]["name"], "mps2-an386");
    assert_eq!(bench_names(&document), ["bench_sort_1000", "bench_sqrt"]);
    assert_eq!(document["suite"]["compiler"][0], "arm-none-eabi-g++");
    let ldflags = document["suite"]["ldflags"].as_array().unwrap();
    assert!(ldflags.iter().any(|f| f == "-lstdc++"), "{ldflags:?}");
    // Under -icount the same sort of the same input takes the same cycles every iteration, give or take a
    // tick of the counter.
    let sort = bench(&document, "bench_sort_1000");
    let spread = f64_at(sort, "/cycles/raw/max") - f64_at(sort, "/cycles/raw/min");
    assert!(spread <= 2.0, "{sort}");

    let dir = tempfile::tempdir().unwrap();
    let (cxx_file, c_file) = write_mixed_suite(dir.path());
    let document = on_board(&[&cxx_file, &c_file]);
    assert_eq!(bench_names(&document), ["bench_checksum_64"]);
}

#[test]
fn the_board_links_the_math_library_and_takes_ldflags_after_the_sources() {
    if !tools_present("the_board_links_the_math_library", CROSS_TOOLS) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A library of the user's own, built for the board: found only through --ldflags "-L DIR -lNAME".
    let lib_source = write_c(
        dir.path(),
        "scale.c",
        "float scale_of(float x);\nfloat scale_of(float x) { return x * 3.0f; }\n",
    );
    let object = dir.path().join("scale.o");
    let compiled = Command::new("arm-none-eabi-gcc")
        .args([
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
            "-Os",
            "-c",
        ])
        .arg(&lib_source)
        .arg("-o")
        .arg(&object)
        .status()
        .unwrap();
    assert!(compiled.success());
    let archived = Command::new("arm-none-eabi-ar")
        .arg("rcs")
        .arg(dir.path().join("libscale.a"))
        .arg(&object)
        .status()
        .unwrap();
    assert!(archived.success());
    let suite = write_c(
        dir.path(),
        "math.c",
        "#include <rho/bench.h>\n\
         #include <math.h>\n\
         float scale_of(float x);\n\
         static void bench_sqrtf_scaled(rho_bench_t *state)\n\
         {\n\
             volatile float x = 2.0f;\n\
             RHO_BENCH_LOOP(state) {\n\
                 RHO_BENCH_KEEP(scale_of(sqrtf(x)));\n\
             }\n\
         }\n\
         int main(int argc, char **argv)\n\
         {\n\
             rho_bench_suite_t suite = {0};\n\
             RHO_BENCH_ADD(&suite, bench_sqrtf_scaled);\n\
             return rho_bench_main(&suite, argc, argv);\n\
         }\n",
    );
    let suite = suite.display().to_string();
    let ldflags = format!("-L{} -lscale", dir.path().display());
    let document = on_board(&["--ldflags", &ldflags, &suite]);
    assert_eq!(bench_names(&document), ["bench_sqrtf_scaled"]);
    let recorded = document["suite"]["ldflags"].as_array().unwrap();
    assert!(recorded.iter().any(|f| f == "-lscale"), "{recorded:?}");
    assert!(recorded.iter().any(|f| f == "-lm"), "{recorded:?}");

    // Without it, the link fails and says which flag is missing.
    let tmp = tempfile::tempdir().unwrap();
    let outcome = rho_in(
        tmp.path(),
        &["bench", "--target", "mps2-an386", &suite],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("undefined reference to `scale_of'");
    outcome.assert_stderr_has("hint: nothing the suite links defines `scale_of`");
}

/// Whether `program --version` runs (with its Debian package for the note); see [`tools_present`].
fn tool(program: &'static str, package: &'static str) -> [(&'static str, &'static str); 1] {
    [(program, package)]
}

/// The example's files copied into a fresh project (its CMake build directory and Make output then go there,
/// not into the repository).
fn mbedtls_example() -> Project {
    let project = Project::new();
    for file in [
        "module.yml",
        "CMakeLists.txt",
        "Makefile",
        "bench/mbed_bench.c",
    ] {
        let text = std::fs::read_to_string(repo_file(&format!("examples/mbedtls/{file}"))).unwrap();
        project.write(file, &text);
    }
    project
}

/// The instructions per iteration of benchmark `name` in suite `suite` of a `rho-bench-project/1` document.
fn instructions(document: &serde_json::Value, suite: &str, name: &str) -> f64 {
    let suites = document["suites"].as_array().unwrap();
    let suite = suites
        .iter()
        .find(|s| s["suite"] == suite)
        .unwrap_or_else(|| panic!("no suite {suite} in {document}"));
    f64_at(bench(suite, name), "/instructions/per_iteration")
}

#[test]
fn the_mbedtls_suite_built_by_rho_by_cmake_and_by_make_gives_the_same_figures() {
    let test = "the_mbedtls_suite_built_by_rho_by_cmake_and_by_make";
    if !mbedtls_present(test)
        || !tools_present(test, &tool("cmake", "cmake"))
        || !tools_present(test, &tool("valgrind", "valgrind"))
    {
        return;
    }
    let project = mbedtls_example();
    // Counted exactly under Callgrind: the suite rho builds from its `sources:` with `ldflags:`, the CMake
    // target and the command suite (Make builds it and runs it; Callgrind follows Make into the suite) run
    // the same instructions, to the last one.
    let (_, document) =
        project.rho_json(&["bench", "--measure", "instructions", "--iterations", "100"]);
    for name in ["bench_sha256_64", "bench_sha256_1k", "bench_aes128_block"] {
        let by_rho = instructions(&document, "bench/mbed_bench.c", name);
        assert_eq!(
            by_rho,
            instructions(&document, "cmake target mbed_bench", name),
            "{name}"
        );
        assert_eq!(
            by_rho,
            instructions(&document, "make -s run", name),
            "{name}"
        );
    }
    // 17 compressions of a block against 2, and the fixed cost of each hash: between 5 and 12 times.
    let ratio = instructions(&document, "bench/mbed_bench.c", "bench_sha256_1k")
        / instructions(&document, "bench/mbed_bench.c", "bench_sha256_64");
    assert!((5.0..=12.0).contains(&ratio), "1 KiB / 64 B = {ratio}");
    assert!(project.path().join("build/cmake/mbed_bench").is_file());
    assert!(
        project
            .path()
            .join("build/cmake/rho-cmake/RhoBench.cmake")
            .is_file()
    );

    // Timed, all three suites run and print the same benchmarks.
    let (_, document) = project.rho_json(&["bench", "--iterations", "300"]);
    let suites = document["suites"].as_array().unwrap();
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s["suite"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bench/mbed_bench.c",
            "cmake target mbed_bench",
            "make -s run"
        ]
    );
    for suite in suites {
        assert_eq!(
            bench_names(suite),
            ["bench_sha256_64", "bench_sha256_1k", "bench_aes128_block"],
            "{}",
            suite["suite"]
        );
    }
}

/// A zlib suite whose build needs every key of a mapping suite: its include directory (a header), its defines,
/// pkg-config's flags and libraries for zlib, and the target's `cflags` replacing `bench.cflags`.
const ZLIB_SUITE: &str = r#"
#include <rho/bench.h>
#include <stdint.h>
#include <zlib.h>
#include "chunk.h"

#if LEVEL != 6
#error "the host target's cflags did not replace bench.cflags"
#endif
#ifndef WITH_CHECK
#error "the define without a value is missing"
#endif

static unsigned char input[CHUNK];
static unsigned char output[CHUNK * 2];

static void bench_crc32(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", CHUNK);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(0L, input, CHUNK));
    }
}

static void bench_compress2(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", CHUNK);
    RHO_BENCH_LOOP(state) {
        uLongf size = sizeof output;
        RHO_BENCH_KEEP(compress2(output, &size, input, CHUNK, LEVEL));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_crc32);
    RHO_BENCH_ADD(&suite, bench_compress2);
    return rho_bench_main(&suite, argc, argv);
}
"#;

#[test]
fn a_mapping_suite_is_built_with_its_includes_defines_packages_and_the_targets_flags() {
    let test = "a_mapping_suite_is_built_with_its_includes_defines_packages";
    if !tools_present(test, &tool("pkg-config", "pkg-config")) {
        return;
    }
    let has_zlib = Command::new("pkg-config")
        .args(["--exists", "zlib"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_zlib && !skipped_unless_required(test, "zlib", "zlib1g-dev") {
        return;
    }
    let project = Project::new();
    project.write("bench/zlib_bench.c", ZLIB_SUITE);
    project.write("inc/chunk.h", "#define CHUNK_FROM_HEADER 1\n");
    project.write(
        "module.yml",
        "bench:\n  default_iterations: 200\n  cflags: -DLEVEL=1\n  suites:\n    - sources: [bench/zlib_bench.c]\n      \
         include: [inc]\n      defines: { CHUNK: 512, WITH_CHECK: }\n      pkg_config: [zlib]\n  targets:\n    - name: \
         host\n      cflags: -DLEVEL=6\n",
    );
    let (_, document) = project.rho_json(&["bench"]);
    assert_eq!(
        bench_names(&document["suites"][0]),
        ["bench_crc32", "bench_compress2"]
    );

    // A package pkg-config does not know: the suite fails, naming the package and pkg-config's words.
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - sources: [bench/zlib_bench.c]\n      pkg_config: [rho-no-such-package]\n",
    );
    let outcome = project.rho(&["bench"]);
    outcome.assert_exit(2);
    outcome.assert_stderr_has("pkg_config: `pkg-config --cflags rho-no-such-package`");
    outcome.assert_stderr_has("rho-no-such-package");
}

/// A board's default painted region: its stack (`STACK_SIZE ?=` in c/ports/boards/BOARD.mk) less the 8 kB the
/// linker script keeps above and below the region; at least 4096 bytes on every built-in board.
fn default_region(board: &str) -> u64 {
    let data = std::fs::read_to_string(repo_file(&format!("c/ports/boards/{board}.mk"))).unwrap();
    let stack: u64 = data
        .lines()
        .find_map(|line| line.strip_prefix("STACK_SIZE ?= "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("STACK_SIZE in {board}.mk"));
    let region = stack - 8192;
    assert!(region >= 4096, "{board}: {region}");
    region
}

#[test]
fn a_cmake_suite_runs_on_the_emulated_cortex_m4_with_the_toolchain_file() {
    let test = "a_cmake_suite_runs_on_the_emulated_cortex_m4";
    if !tools_present(test, CROSS_TOOLS) || !tools_present(test, &tool("cmake", "cmake")) {
        return;
    }
    let project = Project::new();
    let sort = std::fs::read_to_string(repo_file("examples/sort_bench.cpp")).unwrap();
    project.write("bench/sort_bench.cpp", &sort);
    project.write(
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.16)\nproject(sorting C CXX)\ninclude(RhoBench)\n\
         rho_add_benchmark(sort_bench SOURCES bench/sort_bench.cpp)\n",
    );
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - cmake: { build_dir: build/bench, target: sort_bench }\n  targets: [mps2-an386, host]\n",
    );
    let (_, document) = project.rho_json(&["bench", "--iterations", "20", "--warmup", "2"]);
    let suite = &document["suites"][0];
    assert_eq!(suite["target"]["name"], "mps2-an386");
    assert_eq!(bench_names(suite), ["bench_sort_1000", "bench_sqrt"]);
    // The settings were compiled in (a board has no environment), and the painted region is the board's
    // default, as the ports' Makefile has it.
    assert_eq!(u64_at(suite, "/config/iterations"), 20);
    assert_eq!(
        u64_at(suite, "/config/stack_bytes"),
        default_region("mps2-an386")
    );
    // The board has a build directory of its own, beside the host's.
    assert!(
        project
            .path()
            .join("build/bench-mps2-an386/sort_bench.elf")
            .is_file()
    );

    let outcome = project.rho(&["bench", "--target", "host", "--iterations", "50"]);
    outcome.assert_exit(0);
    outcome.assert_stdout_has("target host");
    assert!(project.path().join("build/bench/sort_bench").is_file());
}

#[test]
fn a_cmake_suite_runs_on_every_other_emulated_board_with_the_board_toolchain_file() {
    // The boards other than mps2-an386 (above): rho-board.toolchain.cmake and RhoBench.cmake read each board's
    // data from c/ports/boards/BOARD.mk, as c/ports/Makefile does.
    let test = "a_cmake_suite_runs_on_every_other_emulated_board";
    let riscv = [
        (
            "riscv64-unknown-elf-gcc",
            "gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf",
        ),
        ("qemu-system-riscv32", "qemu-system-misc"),
    ];
    if !tools_present(test, CROSS_TOOLS)
        || !tools_present(test, &riscv)
        || !tools_present(test, &tool("cmake", "cmake"))
    {
        return;
    }
    let boards = [
        "microbit",
        "mps2-an385",
        "mps2-an500",
        "mps2-an505",
        "riscv32-virt",
    ];
    let project = Project::new();
    let crypto = std::fs::read_to_string(repo_file("examples/crypto_bench.c")).unwrap();
    project.write("bench/crypto_bench.c", &crypto);
    project.write(
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.16)\nproject(crypto C)\ninclude(RhoBench)\n\
         rho_add_benchmark(crypto_bench SOURCES bench/crypto_bench.c)\n",
    );
    project.write(
        "module.yml",
        &format!(
            "bench:\n  suites:\n    - cmake: {{ build_dir: build/bench, target: crypto_bench }}\n  targets: [{}]\n",
            boards.join(", ")
        ),
    );
    for board in boards {
        let (_, document) = project.rho_json(&[
            "bench",
            "--target",
            board,
            "--iterations",
            "5",
            "--warmup",
            "1",
        ]);
        let suite = &document["suites"][0];
        assert_eq!(suite["target"]["name"], board);
        assert_eq!(bench_names(suite).len(), 6, "{board}: {suite}");
        // The settings were compiled in (a board has no environment).
        assert_eq!(u64_at(suite, "/config/iterations"), 5, "{board}");
        assert_eq!(
            u64_at(suite, "/config/stack_bytes"),
            default_region(board),
            "{board}"
        );
        // Each board has a build directory of its own, made with its own toolchain.
        assert!(
            project
                .path()
                .join(format!("build/bench-{board}/crypto_bench.elf"))
                .is_file(),
            "{board}"
        );
    }
}

#[test]
fn the_cmake_module_is_written_where_asked_with_the_header_and_the_ports() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("cmake");
    let outcome = rho_in(
        dir.path(),
        &["bench", "--cmake-module", target.to_str().unwrap()],
        LIMIT,
    );
    outcome.assert_exit(0);
    assert_eq!(
        outcome.stdout.trim(),
        target.join("RhoBench.cmake").display().to_string()
    );
    let module = std::fs::read_to_string(target.join("RhoBench.cmake")).unwrap();
    assert_eq!(
        module,
        std::fs::read_to_string(repo_file("cmake/RhoBench.cmake")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(target.join("include/rho/bench.h")).unwrap(),
        std::fs::read_to_string(repo_file("c/include/rho/bench.h")).unwrap()
    );
    assert!(target.join("ports/boards/mps2-an386.ld").is_file());
    assert!(target.join("mps2-an386.toolchain.cmake").is_file());
    assert!(target.join("rho-board.toolchain.cmake").is_file());
    assert!(target.join("RhoBoard.cmake").is_file());
}
