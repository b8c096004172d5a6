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
    if probe {
        return true;
    }
    if std::env::var_os("RHO_REQUIRE_CROSS").is_some() {
        panic!("{test}: mbedtls is not installed, and RHO_REQUIRE_CROSS says this test must run");
    }
    println!("note: {test} skipped: mbedtls is not installed (.ci/run installs libmbedtls-dev)");
    false
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
