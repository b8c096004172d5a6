//! The embedded header compiles clean as strict C99, and as C++11 and later under the same warnings, on the host
//! and (when the cross compilers are installed) for a Cortex-M4.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const STRICT: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// A file using every public name, as a suite would.
const USER_FILE: &str = r#"
#include <stdint.h>
#include <stdlib.h>
#include <rho/bench.h>

static void bench_everything(rho_bench_t *state)
{
    void *held = 0;
    float ratio = 1.5f;
    uint8_t buffer[64] = {0};
    const char text[] = "rho";
    RHO_BENCH_UNIT(state, "byte", 64);
    RHO_BENCH_LOOP(state) {
        held = malloc(16);
        RHO_BENCH_HEAP_ALLOC(state, held, 16);
        RHO_BENCH_KEEP(held);
        RHO_BENCH_KEEP(ratio * 2.0f);
        RHO_BENCH_KEEP(buffer); /* an array is kept as its address */
        RHO_BENCH_KEEP(text);
        RHO_BENCH_HEAP_FREE(state, held, 16);
        free(held);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_everything);
    return rho_bench_main(&suite, argc, argv);
}
"#;

const IMPLEMENTATION_FILE: &str = "#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n";

fn compile(
    compiler: &str,
    flags: &[&str],
    include: &Path,
    file: &Path,
    out: &Path,
) -> std::process::Output {
    Command::new(compiler)
        .args(flags)
        .arg(format!("-I{}", include.display()))
        .arg("-c")
        .arg(file)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {compiler}: {error}"))
}

/// The same file as C++, as a C++ suite writes it (`= {}` for the empty suite), with the implementation in it too:
/// both halves of the header must be clean C++.
fn cxx_user_file() -> String {
    // With a family too: RHO_BENCH_ARG and the two ways to add one.
    let family = "static void bench_family(rho_bench_t *state)\n{\n    uint64_t n = RHO_BENCH_ARG(state);\n    \
                  RHO_BENCH_LOOP(state) {\n        RHO_BENCH_KEEP(n * 2u);\n    }\n}\n\nint main(";
    let file = USER_FILE
        .replace("rho_bench_suite_t suite = {0};", "rho_bench_suite_t suite = {};")
        .replacen("int main(", family, 1)
        .replace(
            "    RHO_BENCH_ADD(&suite, bench_everything);\n",
            "    RHO_BENCH_ADD(&suite, bench_everything);\n    RHO_BENCH_ADD_ARG(&suite, bench_family, 8);\n    \
             RHO_BENCH_ADD_RANGE(&suite, bench_family, 16, 256, 4);\n",
        );
    assert!(file.contains("RHO_BENCH_ADD_RANGE"), "{file}");
    format!("#define RHO_BENCH_IMPLEMENTATION\n{file}")
}

fn assert_compiles_clean(compiler: &str, flags: &[&str]) {
    assert_files_compile_clean(
        compiler,
        flags,
        &[
            ("user.c", USER_FILE),
            ("implementation.c", IMPLEMENTATION_FILE),
        ],
    );
}

fn assert_cxx_compiles_clean(compiler: &str, flags: &[&str]) {
    assert_files_compile_clean(compiler, flags, &[("user.cpp", &cxx_user_file())]);
}

fn assert_files_compile_clean(compiler: &str, flags: &[&str], files: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let include = repo_file("c/include");
    for &(name, text) in files {
        let file = write_c(dir.path(), name, text);
        let object = dir.path().join(format!("{name}.o"));
        let output = compile(compiler, flags, &include, &file, &object);
        assert!(
            output.status.success() && output.stderr.is_empty(),
            "{compiler} {flags:?} {name}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn host_compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|cc| !cc.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string())
}

#[test]
fn the_header_is_clean_strict_c99_on_the_host() {
    let mut flags = STRICT.to_vec();
    flags.push("-O2");
    assert_compiles_clean(&host_compiler(), &flags);
}

/// The warnings of the C builds, for C++: `-std=` is each test's own.
const CXX_WARNINGS: &[&str] = &["-Wall", "-Wextra", "-Werror", "-pedantic"];
const CXX_STANDARDS: &[&str] = &["-std=c++11", "-std=c++14", "-std=c++17", "-std=c++20"];

#[test]
fn the_header_is_clean_cxx11_and_later_on_the_host() {
    let cxx = std::env::var("CXX")
        .ok()
        .filter(|cxx| !cxx.trim().is_empty())
        .unwrap_or_else(|| "c++".to_string());
    for standard in CXX_STANDARDS {
        let mut flags = CXX_WARNINGS.to_vec();
        flags.extend([*standard, "-O2"]);
        assert_cxx_compiles_clean(&cxx, &flags);
    }
}

#[test]
fn the_header_is_clean_cxx11_and_later_for_a_cortex_m4() {
    let cross = "arm-none-eabi-g++";
    let package = "libstdc++-arm-none-eabi-newlib";
    if !tools_present(
        "the_header_is_clean_cxx11_and_later_for_a_cortex_m4",
        &[(cross, package)],
    ) {
        return;
    }
    for standard in CXX_STANDARDS {
        let mut flags = CXX_WARNINGS.to_vec();
        flags.extend([
            *standard,
            "-Os",
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
        ]);
        assert_cxx_compiles_clean(cross, &flags);
    }
}

#[test]
fn the_header_is_clean_strict_c99_for_a_cortex_m4() {
    let cross = "arm-none-eabi-gcc";
    let package = "gcc-arm-none-eabi";
    if !tools_present(
        "the_header_is_clean_strict_c99_for_a_cortex_m4",
        &[(cross, package)],
    ) {
        return;
    }
    let mut flags = STRICT.to_vec();
    flags.extend(["-mcpu=cortex-m4", "-mthumb", "-Os", "-ffunction-sections"]);
    assert_compiles_clean(cross, &flags);
    // With the FPU, as the mps2-an386 port builds: RHO_BENCH_KEEP of a float takes its FP-register path.
    flags.extend(["-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]);
    assert_compiles_clean(cross, &flags);
}
