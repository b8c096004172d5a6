//! module.yml as users write it: the spec's file, the issue's target shape, the example project, and every
//! refusal with its `file:line:col`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_config::{
    CMakeSuite, CargoSuite, ConfigError, ModuleConfig, SourcePos, Suite, SuiteBuild, TargetCounter,
    TargetSpec, find_module_root, unmatched_benchmarks, unmatched_message,
};

/// The module.yml of rho's specification, byte for byte.
const SPEC_MODULE_YML: &str = "\
bench:
  default_iterations: 20000
  warmup_runs: 100
  stack_watermark: true
  budgets:
    max_stack_bytes: 4096
    max_heap_bytes: 8192
    max_cycles_per_iteration: 5000
    fail_on_regression_percent: 5.0
  targets:
    - host
    - stm32h743zi
";

/// The spec's file with a board rho has no definition of in place of its (built-in) stm32h743zi.
fn unknown_board_module() -> String {
    SPEC_MODULE_YML.replace("stm32h743zi", "nrf52840dk")
}

fn load(text: &str) -> ModuleConfig {
    match ModuleConfig::from_str(text, Path::new("module.yml")) {
        Ok(config) => config,
        Err(e) => panic!("expected the config to load, got: {e}"),
    }
}

/// Loads `text`, expecting a positioned refusal; returns (line, column, message, full display).
fn refuse(text: &str) -> (u64, u64, String, String) {
    match ModuleConfig::from_str(text, Path::new("module.yml")) {
        Ok(config) => panic!("expected a refusal, loaded: {config:?}"),
        Err(e @ ConfigError::Invalid { .. }) => {
            let pos = e.pos().unwrap();
            (
                pos.line,
                pos.column,
                e.message().unwrap().to_owned(),
                e.to_string(),
            )
        }
        Err(other) => panic!("expected a positioned error, got: {other}"),
    }
}

#[test]
fn the_spec_module_yml_loads_as_written() {
    let config = load(SPEC_MODULE_YML);
    assert_eq!(config.default_iterations, Some(20000));
    assert_eq!(config.warmup_runs, Some(100));
    assert!(config.stack_watermark);
    assert_eq!(config.budgets.max_stack_bytes, Some(4096));
    assert_eq!(config.budgets.max_heap_bytes, Some(8192));
    assert_eq!(config.budgets.max_cycles_per_iteration, Some(5000.0));
    assert_eq!(config.budgets.fail_on_regression_percent, Some(5.0));
    let names: Vec<&str> = config.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["host", "stm32h743zi"]);
    // Defaults for everything the spec does not write.
    assert_eq!(config.repetitions, 1);
    assert_eq!(config.scale, 1.0);
    assert_eq!(config.time_cap_ms, None);
    assert_eq!(config.baseline, PathBuf::from("bench/baseline.json"));
    assert_eq!(
        config.baseline_path(),
        PathBuf::from("./bench/baseline.json")
    );
    assert!(config.suites.is_empty());
    assert_eq!(config.gate.runs, 3);
    assert_eq!(config.gate.timeout, Duration::from_secs(120));
    // No gate budget set: the gate falls back to `fail_on_regression_percent` (5.0 here).
    assert_eq!(config.gate.default_budget, None);
    assert_eq!(config.gate_budget_for("anything.cycles"), 0.05);
}

#[test]
fn the_default_target_is_the_first_listed_and_a_bare_board_name_fails_only_when_selected() {
    let config = load(SPEC_MODULE_YML);
    assert_eq!(
        config.target(None).unwrap(),
        TargetSpec::Builtin {
            name: "host".into(),
            timeout: None
        }
    );
    // The spec's board is built in (c/ports/stm32h743zi, run by probe-rs).
    assert_eq!(
        config.target(Some("stm32h743zi")).unwrap(),
        TargetSpec::Builtin {
            name: "stm32h743zi".into(),
            timeout: None
        }
    );
    let err = load(&unknown_board_module())
        .target(Some("nrf52840dk"))
        .unwrap_err();
    assert_eq!(
        err.pos(),
        Some(SourcePos {
            line: 12,
            column: 7
        })
    );
    let text = err.to_string();
    assert!(
        text.starts_with("module.yml:12:7: target 'nrf52840dk' has no built-in definition"),
        "{text}"
    );
    assert!(
        text.contains("`build:`") && text.contains("`run:`"),
        "{text}"
    );
}

#[test]
fn a_target_not_listed_is_built_in_or_unknown() {
    let config = load(SPEC_MODULE_YML);
    // A built-in may be picked with --target even when module.yml does not list it.
    assert_eq!(
        config.target(Some("mps2-an386")).unwrap().name(),
        "mps2-an386"
    );
    let err = config.target(Some("esp32")).unwrap_err();
    assert!(matches!(err, ConfigError::UnknownTarget { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "module.yml: unknown target 'esp32': bench.targets lists host, stm32h743zi; built in: {}",
            rho_config::BUILTIN_TARGETS.join(", ")
        )
    );
    // No targets listed: host.
    let bare = load("bench:\n  default_iterations: 10\n");
    assert_eq!(bare.target(None).unwrap().name(), "host");
}

#[test]
fn the_issue_target_shape_loads() {
    let config = load(
        "\
bench:
  targets:
    - host                      # a bare name: the built-in definition
    - name: stm32h743zi
      build: make -C firmware bench
      run: probe-rs run --chip STM32H743ZITx firmware/build/bench.elf
",
    );
    assert_eq!(config.target(None).unwrap().name(), "host");
    assert_eq!(
        config.target(Some("stm32h743zi")).unwrap(),
        TargetSpec::Commands {
            name: "stm32h743zi".into(),
            build: "make -C firmware bench".into(),
            run: "probe-rs run --chip STM32H743ZITx firmware/build/bench.elf".into(),
            timeout: None,
            counter: None,
            at: SourcePos { line: 4, column: 7 },
        }
    );
}

#[test]
fn a_target_of_its_own_may_count_with_the_qemu_plugin() {
    let config = load(
        "\
bench:
  targets:
    - name: lab-board
      build: make bench
      run: ./run_board.sh \"$RHO_BENCH_OUT/bench.elf\"
      counter: qemu-plugin
",
    );
    match config.target(Some("lab-board")).unwrap() {
        TargetSpec::Commands { counter, .. } => {
            assert_eq!(counter, Some(TargetCounter::QemuPlugin))
        }
        other => panic!("lab-board has its own commands, got {other:?}"),
    }
    let (line, column, message, _) = refuse(
        "bench:\n  targets:\n    - { name: lab, build: make, run: ./run, counter: valgrind }\n",
    );
    assert_eq!((line, column), (3, 54), "{message}");
    assert!(message.contains("unknown counter 'valgrind'"), "{message}");
    assert!(message.contains("`qemu-plugin`"), "{message}");
    let (line, _, message, _) =
        refuse("bench:\n  targets:\n    - { name: mps2-an386, counter: qemu-plugin }\n");
    assert_eq!(line, 3, "{message}");
    assert!(
        message.contains("bench.targets[0].counter is for a target with its own `build:`"),
        "{message}"
    );
}

#[test]
fn a_builtin_may_be_redefined_or_given_a_timeout() {
    let config = load(
        "\
bench:
  targets:
    - name: host
      build: cc -O2 -I \"$RHO_BENCH_INCLUDE\" -o \"$RHO_BENCH_OUT/b\" bench.c
      run: taskset -c 1 \"$RHO_BENCH_OUT/b\"
    - name: mps2-an386
      timeout_seconds: 30.5
",
    );
    match config.target(Some("host")).unwrap() {
        TargetSpec::Commands { run, .. } => assert_eq!(run, "taskset -c 1 \"$RHO_BENCH_OUT/b\""),
        other => panic!("host should be redefined, got {other:?}"),
    }
    assert_eq!(
        config.target(Some("mps2-an386")).unwrap(),
        TargetSpec::Builtin {
            name: "mps2-an386".into(),
            timeout: Some(Duration::from_secs_f64(30.5))
        }
    );
}

#[test]
fn the_example_project_loads_and_uses_every_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/project/module.yml");
    let config = ModuleConfig::load(&path).unwrap();
    assert_eq!(config.root, path.parent().unwrap());
    assert_eq!(config.repetitions, 3);
    assert_eq!(config.time_cap_ms, Some(5000));
    assert_eq!(config.suites.len(), 3);
    assert!(matches!(&config.suites[0], Suite::CFiles { files, .. } if files.len() == 1));
    assert!(matches!(&config.suites[1], Suite::CFiles { files, .. } if files.len() == 2));
    assert!(matches!(&config.suites[2], Suite::Command { .. }));
    assert_eq!(config.targets.len(), 3);
    assert!(matches!(
        config.target(Some("stm32h743zi")).unwrap(),
        TargetSpec::Commands { .. }
    ));
    // The board is the built-in with budgets of its own: its cycles are not the host's.
    assert!(matches!(
        config.target(Some("mps2-an386")).unwrap(),
        TargetSpec::Builtin { .. }
    ));
    assert_ne!(
        config.budgets_for_target("mps2-an386", "bench_crc_64"),
        config.budgets_for_target("host", "bench_crc_64")
    );
    // Three with budgets and iterations, three with a regression limit of their own.
    assert_eq!(config.benchmarks.len(), 6);
    assert_eq!(config.iterations_for("bench_crc_256"), Some(5000));
    assert_eq!(config.iterations_for("bench_crc_64"), Some(20000));
    assert_eq!(config.gate_budget_for("bench_crc_64.ns"), 0.50);
    assert_eq!(config.gate_budget_for("bench_crc_64.cycles"), 0.30);
    // Every budget key appears at one level or the other.
    let b = config.budgets;
    assert!(b.max_stack_bytes.is_some() && b.max_heap_bytes.is_some());
    assert!(b.max_cycles_per_iteration.is_some() && b.max_ns_per_iteration.is_some());
    assert!(b.fail_on_regression_percent.is_some());
    assert!(
        config
            .benchmarks
            .iter()
            .any(|x| x.budgets.max_ns_per_op.is_some())
    );
}

#[test]
fn budgets_merge_per_benchmark() {
    let config = load(
        "\
bench:
  budgets:
    max_stack_bytes: 4096
    max_heap_bytes: 8192
    max_cycles_per_iteration: 5000
    max_ns_per_op: 50
    fail_on_regression_percent: 5.0
  benchmarks:
    bench_crc_64:
      iterations: 500
      budgets:
        max_cycles_per_iteration: 3000
        max_ns_per_op: 40.0
        max_stack_bytes: 512
    bench_quiet:
      budgets:
        max_ns_per_op: 0
        max_cycles_per_iteration: 0
        max_heap_bytes: 0
",
    );
    let crc = config.budgets_for("bench_crc_64");
    assert_eq!(crc.max_cycles_per_iteration, Some(3000.0));
    assert_eq!(crc.max_ns_per_op, Some(40.0));
    assert_eq!(crc.max_stack_bytes, Some(512));
    // Not overridden: the global ones.
    assert_eq!(crc.max_heap_bytes, Some(8192));
    assert_eq!(crc.fail_on_regression_percent, Some(5.0));
    assert_eq!(config.iterations_for("bench_crc_64"), Some(500));

    // 0 for a time or cycle ceiling is "report only", and lifts the global one; 0 bytes is a real ceiling.
    let quiet = config.budgets_for("bench_quiet");
    assert_eq!(quiet.max_ns_per_op, None);
    assert_eq!(quiet.max_cycles_per_iteration, None);
    assert_eq!(quiet.max_heap_bytes, Some(0));
    assert_eq!(quiet.max_stack_bytes, Some(4096));

    // A benchmark with no entry gets the global budgets.
    let other = config.budgets_for("bench_other");
    assert_eq!(other.max_cycles_per_iteration, Some(5000.0));
    assert_eq!(other.max_ns_per_op, Some(50.0));
    assert_eq!(config.iterations_for("bench_other"), None);
}

#[test]
fn budgets_merge_global_then_target_then_benchmark_then_the_targets_benchmark() {
    let config = load(
        "\
bench:
  budgets:
    max_stack_bytes: 4096
    max_cycles_per_iteration: 5000
    max_ns_per_iteration: 900
  benchmarks:
    bench_crc_64:
      iterations: 500
      budgets:
        max_cycles_per_iteration: 3000
        max_stack_bytes: 512
  targets:
    - host
    - name: mps2-an386            # the built-in, with its own budgets
      budgets:
        max_cycles_per_iteration: 20000
        max_ns_per_iteration: 0   # report only on this target
        max_heap_bytes: 256
      benchmarks:
        bench_crc_64:
          budgets:
            max_cycles_per_iteration: 9000
        bench_crc_256:
          budgets:
            max_stack_bytes: 1024
    - name: board
      build: make
      run: ./flash
      budgets:
        max_stack_bytes: 2048
",
    );
    // The map with only a name and budgets is still the built-in definition.
    assert_eq!(
        config.target(Some("mps2-an386")).unwrap(),
        TargetSpec::Builtin {
            name: "mps2-an386".into(),
            timeout: None
        }
    );
    // On host (listed bare): global, then the benchmark's own.
    let host = config.budgets_for_target("host", "bench_crc_64");
    assert_eq!(host, config.budgets_for("bench_crc_64"));
    assert_eq!(host.max_cycles_per_iteration, Some(3000.0));
    assert_eq!(host.max_ns_per_iteration, Some(900.0));
    assert_eq!(host.max_heap_bytes, None);

    // On the board: the target's benchmark entry wins over everything.
    let crc = config.budgets_for_target("mps2-an386", "bench_crc_64");
    assert_eq!(crc.max_cycles_per_iteration, Some(9000.0));
    // The module's benchmark entry still beats the target's global budgets.
    assert_eq!(crc.max_stack_bytes, Some(512));
    // The target's global budgets beat the module's: a 0 lifts the ceiling on this target only.
    assert_eq!(crc.max_ns_per_iteration, None);
    assert_eq!(crc.max_heap_bytes, Some(256));

    // A benchmark with no entry anywhere gets the target's budgets over the global ones.
    let other = config.budgets_for_target("mps2-an386", "bench_other");
    assert_eq!(other.max_cycles_per_iteration, Some(20000.0));
    assert_eq!(other.max_stack_bytes, Some(4096));
    let crc256 = config.budgets_for_target("mps2-an386", "bench_crc_256");
    assert_eq!(crc256.max_stack_bytes, Some(1024));
    assert_eq!(crc256.max_cycles_per_iteration, Some(20000.0));

    // A target with commands may carry budgets too; an unlisted one has none of its own.
    assert_eq!(
        config
            .budgets_for_target("board", "bench_other")
            .max_stack_bytes,
        Some(2048)
    );
    assert_eq!(
        config.budgets_for_target("unlisted", "bench_crc_64"),
        config.budgets_for("bench_crc_64")
    );
}

#[test]
fn a_targets_budgets_are_checked_like_the_global_ones() {
    let (line, column, message, _) = refuse(
        "bench:\n  targets:\n    - name: mps2-an386\n      budgets:\n        max_cycles_per_iteration: -1\n",
    );
    assert_eq!((line, column), (5, 35));
    assert_eq!(
        message,
        "expected a number >= 0 for bench.targets[0].budgets.max_cycles_per_iteration, found `-1`"
    );
    let (line, column, message, _) = refuse(
        "bench:\n  targets:\n    - name: mps2-an386\n      benchmarks:\n        b:\n          iterations: 5\n",
    );
    assert_eq!((line, column), (6, 11));
    assert_eq!(
        message,
        "unknown key 'iterations' in bench.targets[0].benchmarks.b; it belongs in bench.benchmarks.<name>"
    );
    let (_, _, message, _) = refuse(
        "bench:\n  targets:\n    - name: mps2-an386\n      budget:\n        max_stack_bytes: 1\n",
    );
    assert_eq!(
        message,
        "unknown key 'budget' in bench.targets[0]; did you mean 'budgets'?"
    );
    let (_, _, message, _) = refuse(
        "bench:\n  stack_watermark: false\n  targets:\n    - name: host\n      budgets:\n        max_stack_bytes: 1\n",
    );
    assert!(
        message.starts_with("bench.targets[0].budgets.max_stack_bytes needs the stack measured"),
        "{message}"
    );
}

#[test]
fn budgets_naming_no_benchmark_that_ran_are_found_with_a_suggestion() {
    let config = load(
        "\
bench:
  budgets:
    max_stack_bytes: 4096
  benchmarks:
    bench_crc_46:
      budgets:
        max_ns_per_op: 100.0
    bench_crc_256:
      budgets:
        max_cycles_per_iteration: 40000
    bench_only_iterations:
      iterations: 10
    zzz_gone:
      budgets:
        max_heap_bytes: 0
  targets:
    - name: mps2-an386
      benchmarks:
        bench_malloc_fre:
          budgets:
            max_ns_per_iteration: 5000
",
    );
    let seen = ["bench_crc_64", "bench_crc_256", "bench_malloc_free"];
    let unmatched = unmatched_benchmarks(&config, &seen);
    assert_eq!(
        unmatched,
        [
            (
                "bench_crc_46".to_owned(),
                SourcePos { line: 5, column: 5 },
                Some("bench_crc_64".to_owned())
            ),
            (
                "zzz_gone".to_owned(),
                SourcePos {
                    line: 13,
                    column: 5
                },
                None
            ),
        ]
    );
    let (name, at, suggestion) = &unmatched[0];
    assert_eq!(
        unmatched_message(&config, name, *at, suggestion.as_deref()),
        "module.yml:5:5: benchmark 'bench_crc_46' has budgets but no suite ran it; did you mean 'bench_crc_64'?"
    );
    assert_eq!(
        unmatched_message(&config, "zzz_gone", unmatched[1].1, None),
        "module.yml:13:5: benchmark 'zzz_gone' has budgets but no suite ran it"
    );
    // On the target, its own entries are checked too.
    let on_board = config.unmatched_benchmarks_on(Some("mps2-an386"), &seen);
    assert_eq!(on_board.len(), 3);
    assert_eq!(
        on_board[2],
        (
            "bench_malloc_fre".to_owned(),
            SourcePos {
                line: 19,
                column: 9
            },
            Some("bench_malloc_free".to_owned())
        )
    );
    // Everything seen: nothing to say.
    let all = [
        "bench_crc_46",
        "bench_crc_256",
        "zzz_gone",
        "bench_malloc_fre",
    ];
    assert!(
        config
            .unmatched_benchmarks_on(Some("mps2-an386"), &all)
            .is_empty()
    );
}

#[test]
fn max_ns_per_iteration_is_accepted_at_both_levels() {
    let config = load(
        "bench:\n  budgets:\n    max_ns_per_iteration: 900\n  benchmarks:\n    b:\n      budgets:\n        max_ns_per_iteration: 120.5\n",
    );
    assert_eq!(config.budgets_for("b").max_ns_per_iteration, Some(120.5));
    assert_eq!(config.budgets_for("c").max_ns_per_iteration, Some(900.0));
}

#[test]
fn suites_are_files_lists_or_commands() {
    let config = load(
        "\
bench:
  suites:
    - examples/crypto_bench.c
    - [bench/a.c, src/a_impl.c]
    - { command: \"./run-bench --stream\" }
",
    );
    assert_eq!(
        config.require_suites().unwrap(),
        &[
            Suite::CFiles {
                files: vec![PathBuf::from("examples/crypto_bench.c")],
                build: SuiteBuild::default(),
                at: SourcePos { line: 3, column: 7 }
            },
            Suite::CFiles {
                files: vec![PathBuf::from("bench/a.c"), PathBuf::from("src/a_impl.c")],
                build: SuiteBuild::default(),
                at: SourcePos { line: 4, column: 7 }
            },
            Suite::Command {
                command: "./run-bench --stream".into(),
                image: None,
                at: SourcePos { line: 5, column: 7 }
            },
        ]
    );
}

#[test]
fn a_suite_may_be_a_mapping_with_flags_includes_defines_and_packages_or_a_cmake_target() {
    let config = load(
        "\
bench:
  cflags: -O3 -DFROM=bench
  ldflags: [-L/opt/lib]
  suites:
    - sources: [bench/mbed.c, src/sort.cpp, src/add.S, src/sub.s]
      cflags: \"-DNAME='a b' -march=native\"
      ldflags: -lmbedcrypto
      include: [vendor/include, src]
      defines: { FAST: 1, RATE: 2.5, LABEL: text, DEBUG: true, BARE: }
      pkg_config: [zlib]
    - sources: one.cc
    - cmake: { build_dir: build/bench, target: mbed_bench }
    - cmake: { build_dir: b, target: t, source_dir: sub }
  targets:
    - host
    - name: mps2-an386
      cflags: -DFROM=board
",
    );
    let suites = config.require_suites().unwrap();
    assert_eq!(
        suites[0],
        Suite::CFiles {
            files: vec![
                PathBuf::from("bench/mbed.c"),
                PathBuf::from("src/sort.cpp"),
                PathBuf::from("src/add.S"),
                PathBuf::from("src/sub.s"),
            ],
            build: SuiteBuild {
                cflags: vec!["-DNAME=a b".into(), "-march=native".into()],
                ldflags: vec!["-lmbedcrypto".into()],
                include: vec![PathBuf::from("vendor/include"), PathBuf::from("src")],
                defines: vec![
                    ("FAST".into(), Some("1".into())),
                    ("RATE".into(), Some("2.5".into())),
                    ("LABEL".into(), Some("text".into())),
                    ("DEBUG".into(), Some("1".into())),
                    ("BARE".into(), None),
                ],
                pkg_config: vec!["zlib".into()],
            },
            at: SourcePos { line: 5, column: 7 },
        }
    );
    assert!(matches!(&suites[1], Suite::CFiles { files, build, .. }
        if files == &[PathBuf::from("one.cc")] && build.is_empty()));
    assert_eq!(
        suites[2],
        Suite::CMake(CMakeSuite {
            build_dir: PathBuf::from("build/bench"),
            target: "mbed_bench".into(),
            source_dir: PathBuf::from("."),
            at: SourcePos {
                line: 12,
                column: 7
            },
        })
    );
    assert!(matches!(&suites[3], Suite::CMake(c) if c.source_dir == Path::new("sub")));
    assert_eq!(suites[2].describe(), "cmake target mbed_bench");

    let cargo = load(
        "bench:\n  suites:\n    - cargo: example\n    - { cargo: walk, package: tree-walk, features: [fast, simd] }\n",
    );
    let suites = cargo.require_suites().unwrap();
    assert_eq!(
        suites[0],
        Suite::Cargo(CargoSuite {
            bench: "example".into(),
            package: None,
            features: Vec::new(),
            at: SourcePos { line: 3, column: 7 },
        })
    );
    assert!(matches!(&suites[1], Suite::Cargo(c)
        if c.package.as_deref() == Some("tree-walk") && c.features == ["fast", "simd"]));
    assert_eq!(suites[0].describe(), "cargo bench example");
    assert_eq!(suites[1].describe(), "cargo bench walk -p tree-walk");

    // bench.cflags/ldflags are the defaults; a target's own replace them, key by key.
    let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        config.flags_for_target("host"),
        (words(&["-O3", "-DFROM=bench"]), words(&["-L/opt/lib"]))
    );
    assert_eq!(
        config.flags_for_target("mps2-an386"),
        (words(&["-DFROM=board"]), words(&["-L/opt/lib"]))
    );
}

#[test]
fn mapping_suites_and_flags_are_refused_at_their_place() {
    assert_each_refused_at(&[
        (
            "bench:\n  suites:\n    - { sources: [a.c], libs: -lz }\n",
            (3, 25),
            "unknown key 'libs' in bench.suites[0]; expected one of: sources, cflags, ldflags, include, \
             defines, pkg_config, command, image, cmake, cargo, package, features, gbench, criterion, \
             hyperfine, gotest, pytest-benchmark",
        ),
        (
            "bench:\n  suites:\n    - { cflags: -O3 }\n",
            (3, 7),
            "bench.suites[0] needs `sources:` (C files rho builds), `command:`, `cmake:`, `cargo:` or \
             another harness's `gbench:`, `criterion:`, `hyperfine:`, `gotest:`, `pytest-benchmark:`",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, command: x }\n",
            (3, 23),
            "bench.suites[0] has `sources:` and `command:`; a suite is one of `sources:`, `command:`, \
             `cmake:`, `cargo:`, `gbench:`, `criterion:`, `hyperfine:`, `gotest:` or `pytest-benchmark:`",
        ),
        (
            "bench:\n  suites:\n    - { command: make run, ldflags: -lz }\n",
            (3, 28),
            "`ldflags:` in bench.suites[0] applies to a `sources:` suite, which rho compiles; a `command:` \
             suite builds itself",
        ),
        (
            "bench:\n  suites:\n    - { cmake: { build_dir: b, target: t }, image: b/t }\n",
            (3, 45),
            "`image:` in bench.suites[0] applies to a `command:` suite (the image it builds); rho finds a \
             `cmake:` suite's image itself",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, cflags: \"-DX='1\" }\n",
            (3, 31),
            "unbalanced quotes in bench.suites[0].cflags: the flags are split as a shell would",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, ldflags: [-lz, 3] }\n",
            (3, 38),
            "expected a flag (text) for bench.suites[0].ldflags[1], found `3`",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, defines: { 9X: 1 } }\n",
            (3, 34),
            "'9X' in bench.suites[0].defines is not a macro name: expected a C identifier (A-Z a-z 0-9 _, \
             not starting with a digit)",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, defines: [X] }\n",
            (3, 32),
            "expected a mapping for bench.suites[0].defines, found a list",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, pkg_config: \"zlib libpng\" }\n",
            (3, 35),
            "'zlib libpng' in bench.suites[0].pkg_config is not a package name: write one package per list \
             item",
        ),
        (
            "bench:\n  suites:\n    - { sources: a.c, include: [\"\"] }\n",
            (3, 33),
            "expected a directory for bench.suites[0].include[0], found the text ''",
        ),
        (
            "bench:\n  suites:\n    - { sources: [a.h] }\n",
            (3, 19),
            "expected a C file path ending in `.c` (or a C++ one: `.cpp`, `.cc`, `.cxx`; or assembly: `.S`, \
             `.s`) for bench.suites[0].sources[0], found the text 'a.h'",
        ),
        (
            "bench:\n  suites:\n    - { cargo: \"my bench\" }\n",
            (3, 16),
            "'my bench' is not a bench target name (bench.suites[0].cargo): expected letters, digits, `_` and `-`",
        ),
        (
            "bench:\n  suites:\n    - { command: x, package: p }\n",
            (3, 21),
            "`package:` in bench.suites[0] applies to a `cargo:` suite only",
        ),
        (
            "bench:\n  suites:\n    - { cargo: b, cflags: -O3 }\n",
            (3, 19),
            "`cflags:` in bench.suites[0] applies to a `sources:` suite, which rho compiles; a `cargo:` suite \
             builds itself",
        ),
        (
            "bench:\n  suites:\n    - cmake: { build_dir: build }\n",
            (3, 14),
            "bench.suites[0].cmake needs `target:` (a CMake suite is `{ cmake: { build_dir: build, target: \
             NAME } }`)",
        ),
        (
            "bench:\n  suites:\n    - cmake: { build_dir: b, target: t, generator: Ninja }\n",
            (3, 41),
            "unknown key 'generator' in bench.suites[0].cmake; expected one of: build_dir, target, source_dir",
        ),
        (
            "bench:\n  suites:\n    - { cmake: { build_dir: b, target: t }, cflags: -O3 }\n",
            (3, 45),
            "`cflags:` in bench.suites[0] applies to a `sources:` suite, which rho compiles; a `cmake:` suite \
             builds itself (give flags and libraries to rho_add_benchmark in CMakeLists.txt)",
        ),
        (
            "bench:\n  cflags: { O: 3 }\n",
            (2, 11),
            "expected flags for bench.cflags: text split as a shell would (\"-O3 -DFAST=1\") or a list of \
             words, found a mapping",
        ),
        (
            "bench:\n  targets:\n    - { name: host, ldflags: \"-L'x\" }\n",
            (3, 30),
            "unbalanced quotes in bench.targets[0].ldflags: the flags are split as a shell would",
        ),
    ]);
}

#[test]
fn no_suites_is_an_error_only_when_suites_are_required() {
    let config = load(SPEC_MODULE_YML);
    let err = config.require_suites().unwrap_err();
    // Points at the `bench:` key, since there is no `suites:` to point at.
    assert_eq!(err.pos(), Some(SourcePos { line: 1, column: 1 }));
    assert!(err.to_string().contains("no suites to run"), "{err}");
}

#[test]
fn gate_settings() {
    let config = load(
        "\
bench:
  gate:
    runs: 5
    timeout_seconds: 60
    budget:
      default: 0.25
      count_below_ns: 0.50
",
    );
    assert_eq!(config.gate.runs, 5);
    assert_eq!(config.gate.timeout, Duration::from_secs(60));
    assert_eq!(config.gate_budget_for("count_below_ns"), 0.50);
    assert_eq!(config.gate_budget_for("matmul_ns"), 0.25);
}

#[test]
fn find_module_root_walks_up_to_the_nearest_module_yml() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("src/deep/er");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(dir.path().join("module.yml"), SPEC_MODULE_YML).unwrap();
    let root = find_module_root(&nested).unwrap();
    assert_eq!(root, dir.path());
    let config = ModuleConfig::discover(&nested).unwrap();
    assert_eq!(config.root, dir.path());
    assert_eq!(
        config.baseline_path(),
        dir.path().join("bench/baseline.json")
    );

    // A nearer module.yml wins.
    std::fs::write(
        dir.path().join("src/module.yml"),
        "bench:\n  repetitions: 2\n",
    )
    .unwrap();
    assert_eq!(find_module_root(&nested).unwrap(), dir.path().join("src"));
}

#[test]
fn no_module_yml_anywhere_up_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // The temporary directory's ancestors (e.g. /tmp, /) have no module.yml on a sane machine; if one does,
    // the walk finds it, which is also correct, so only assert the error's shape when it happens.
    match find_module_root(dir.path()) {
        Err(e @ ConfigError::NoModuleFile { .. }) => {
            assert!(e.to_string().starts_with("no module.yml in "), "{e}")
        }
        Err(other) => panic!("unexpected error: {other}"),
        Ok(found) => assert!(found.join("module.yml").is_file()),
    }
}

#[test]
fn an_unreadable_file_names_its_path() {
    let err = ModuleConfig::load(Path::new("/nonexistent/dir/module.yml")).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }));
    assert!(
        err.to_string()
            .starts_with("/nonexistent/dir/module.yml: cannot read: "),
        "{err}"
    );
}

// ---- refusals, each with its place ----

#[test]
fn unknown_key_gets_a_did_you_mean() {
    let (line, column, _, display) = refuse(
        "\
bench:
  default_iterations: 20000
  warmup_runs: 100
  stack_watermark: true
  budgets:
    max_heap_bytes: 8192
    max_stak_bytes: 4096
",
    );
    assert_eq!((line, column), (7, 5));
    assert_eq!(
        display,
        "module.yml:7:5: unknown key 'max_stak_bytes' in bench.budgets; did you mean 'max_stack_bytes'?"
    );
}

#[test]
fn unknown_keys_at_every_level() {
    let cases: &[(&str, (u64, u64), &str)] = &[
        (
            "bench:\n  defualt_iterations: 5\n",
            (2, 3),
            "unknown key 'defualt_iterations' in bench; did you mean 'default_iterations'?",
        ),
        (
            "bench:\n  benchmarks:\n    bench_crc_64:\n      budgets:\n        max_ns_per_opp: 40\n",
            (5, 9),
            "unknown key 'max_ns_per_opp' in bench.benchmarks.bench_crc_64.budgets; did you mean 'max_ns_per_op'?",
        ),
        (
            "bench:\n  benchmarks:\n    bench_crc_64:\n      iteration: 5\n",
            (4, 7),
            "unknown key 'iteration' in bench.benchmarks.bench_crc_64; did you mean 'iterations'?",
        ),
        (
            "bench:\n  gate:\n    run: 3\n",
            (3, 5),
            "unknown key 'run' in bench.gate; did you mean 'runs'?",
        ),
        (
            "bench:\n  targets:\n    - name: board\n      biuld: make\n      run: ./go\n",
            (4, 7),
            "unknown key 'biuld' in bench.targets[0]; did you mean 'build'?",
        ),
        (
            "bench:\n  suites:\n    - comand: ./x\n",
            (3, 7),
            "unknown key 'comand' in bench.suites[0]; did you mean 'command'?",
        ),
        (
            "bench:\n  max_stack_bytes: 4096\n",
            (2, 3),
            "unknown key 'max_stack_bytes' in bench; it belongs in bench.budgets or bench.benchmarks.<name>.budgets",
        ),
    ];
    assert_each_refused_at(cases);
}

#[test]
fn negative_or_non_numeric_budgets_are_refused() {
    let (line, column, message, display) =
        refuse("bench:\n  budgets:\n    max_heap_bytes: -8192\n");
    assert_eq!((line, column), (3, 21));
    assert_eq!(
        message,
        "expected a number >= 0 for bench.budgets.max_heap_bytes, found `-8192`"
    );
    assert!(display.starts_with("module.yml:3:21: expected a number >= 0"));

    let (line, column, message, _) =
        refuse("bench:\n  budgets:\n    max_cycles_per_iteration: lots\n");
    assert_eq!((line, column), (3, 31));
    assert_eq!(
        message,
        "expected a number >= 0 for bench.budgets.max_cycles_per_iteration, found the text 'lots'"
    );

    let (line, column, message, _) =
        refuse("bench:\n  benchmarks:\n    b:\n      budgets:\n        max_ns_per_op: -0.5\n");
    assert_eq!((line, column), (5, 24));
    assert_eq!(
        message,
        "expected a number >= 0 for bench.benchmarks.b.budgets.max_ns_per_op, found `-0.5`"
    );

    let (_, _, message, _) = refuse("bench:\n  budgets:\n    fail_on_regression_percent: -5\n");
    assert!(message.starts_with("expected a number >= 0"), "{message}");

    // A quoted number is text, as YAML says.
    let (_, _, message, _) = refuse("bench:\n  budgets:\n    max_stack_bytes: \"4096\"\n");
    assert!(message.ends_with("found the text '4096'"), "{message}");

    let (line, column, message, _) = refuse("bench:\n  budgets:\n    max_stack_bytes: 10.5\n");
    assert_eq!((line, column), (3, 22));
    assert!(
        message.starts_with("expected a whole number of bytes >= 0"),
        "{message}"
    );
}

#[test]
fn gate_fractions_must_be_inside_zero_and_one() {
    for value in ["0", "1", "1.5", "-0.1", "0.0", "nope"] {
        let text =
            format!("bench:\n  gate:\n    budget:\n      default: 0.3\n      x.ns: {value}\n");
        let (line, col, message, _) = refuse(&text);
        assert_eq!((line, col), (5, 13), "for {value}");
        assert!(
            message.starts_with("expected a fraction between 0 and 1, both excluded")
                && message.contains("bench.gate.budget.x.ns"),
            "{message}"
        );
    }
    let (line, column, message, _) = refuse("bench:\n  gate:\n    budget:\n      default: 1.0\n");
    assert_eq!((line, column), (4, 16));
    assert!(message.contains("bench.gate.budget.default"), "{message}");
}

#[test]
fn gate_runs_below_two_and_bad_timeouts_are_refused() {
    let (line, column, message, _) = refuse("bench:\n  gate:\n    runs: 1\n");
    assert_eq!((line, column), (3, 11));
    assert_eq!(
        message,
        "expected a whole number from 2 to 4294967295 for bench.gate.runs (alternating runs per side), found `1`"
    );
    let (line, column, message, _) = refuse("bench:\n  gate:\n    timeout_seconds: 0\n");
    assert_eq!((line, column), (3, 22));
    assert!(
        message.starts_with("expected a number of seconds from 0.001 to 10000000 (1 ms to about 115 days) for bench.gate.timeout_seconds"),
        "{message}"
    );
    // Absurd values fail here, at their place, not when a run times out at once or never can.
    for (text, found) in [("1e-300", "1e-300"), ("1e300", "1e300")] {
        let (line, column, message, _) =
            refuse(&format!("bench:\n  gate:\n    timeout_seconds: {text}\n"));
        assert_eq!((line, column), (3, 22));
        assert!(message.contains(found), "{message}");
        assert!(message.contains("from 0.001 to 10000000"), "{message}");
    }
}

/// `max_runs` is the ceiling of the adaptive runs: at least `runs` (whichever order they are written in),
/// refused at its place otherwise.
#[test]
fn gate_max_runs_is_read_and_below_runs_is_refused() {
    let config = load("bench:\n  gate:\n    max_runs: 9\n    runs: 4\n");
    assert_eq!((config.gate.runs, config.gate.max_runs), (4, Some(9)));
    assert_eq!(load("bench:\n  gate:\n    runs: 4\n").gate.max_runs, None);
    let (line, column, message, _) = refuse("bench:\n  gate:\n    runs: 5\n    max_runs: 4\n");
    assert_eq!((line, column), (4, 15));
    assert_eq!(
        message,
        "expected a whole number from 5 to 4294967295 for bench.gate.max_runs (the most alternating runs per \
         side, at least bench.gate.runs), found `4`"
    );
}

#[test]
fn repetitions_scale_and_iterations_are_range_checked() {
    let cases: &[(&str, (u64, u64), &str)] = &[
        (
            "bench:\n  repetitions: 0\n",
            (2, 16),
            "expected a whole number from 1 to 4294967295 for bench.repetitions, found `0`",
        ),
        (
            "bench:\n  scale: 0\n",
            (2, 10),
            "expected a number from 0.000000001 to 1000000000 (1e-9 to 1e9) for bench.scale, found `0`",
        ),
        (
            "bench:\n  scale: -1.5\n",
            (2, 10),
            "expected a number from 0.000000001 to 1000000000 (1e-9 to 1e9) for bench.scale, found `-1.5`",
        ),
        (
            "bench:\n  scale: 1e300\n",
            (2, 10),
            "expected a number from 0.000000001 to 1000000000 (1e-9 to 1e9) for bench.scale, found `1e300`",
        ),
        (
            "bench:\n  scale: 1e-300\n",
            (2, 10),
            "expected a number from 0.000000001 to 1000000000 (1e-9 to 1e9) for bench.scale, found `1e-300`",
        ),
        (
            "bench:\n  default_iterations: 0\n",
            (2, 23),
            "expected a whole number >= 1 for bench.default_iterations, found `0`",
        ),
        (
            "bench:\n  warmup_runs: many\n",
            (2, 16),
            "expected a whole number >= 0 for bench.warmup_runs, found the text 'many'",
        ),
        (
            "bench:\n  time_cap_ms: 2.5\n",
            (2, 16),
            "expected a whole number >= 0 for bench.time_cap_ms, found `2.5`",
        ),
        (
            "bench:\n  stack_watermark: yes please\n",
            (2, 20),
            "expected true or false for bench.stack_watermark, found the text 'yes please'",
        ),
        (
            "bench:\n  benchmarks:\n    b:\n      iterations: 0\n",
            (4, 19),
            "expected a whole number >= 1 for bench.benchmarks.b.iterations, found `0`",
        ),
    ];
    assert_each_refused_at(cases);
}

#[test]
fn target_entries_are_checked() {
    let (line, column, message, _) =
        refuse("bench:\n  targets:\n    - host\n    - build: make\n      run: ./go\n");
    assert_eq!((line, column), (4, 7));
    assert!(
        message.starts_with("bench.targets[1] needs a `name:`"),
        "{message}"
    );

    let (line, column, message, _) = refuse(
        "bench:\n  targets:\n    - host\n    - name: board\n      build: make\n      run: ./go\n    - name: host\n",
    );
    assert_eq!((line, column), (7, 7));
    assert_eq!(
        message,
        "duplicate target 'host' in bench.targets (first listed at line 3, column 7)"
    );

    let (line, column, message, _) =
        refuse("bench:\n  targets:\n    - name: board\n      build: make -C fw\n");
    assert_eq!((line, column), (3, 7));
    assert!(
        message.starts_with("target 'board' has `build:` but no `run:`"),
        "{message}"
    );

    let (line, column, message, _) = refuse("bench:\n  targets: []\n");
    assert_eq!((line, column), (2, 12));
    assert!(
        message.starts_with("expected at least one target"),
        "{message}"
    );

    let (line, column, message, _) =
        refuse("bench:\n  targets:\n    - name: my board\n      build: a\n      run: b\n");
    assert_eq!((line, column), (3, 13));
    assert!(
        message.starts_with("'my board' is not a target name"),
        "{message}"
    );

    let (_, _, message, _) = refuse("bench:\n  targets: host\n");
    assert!(
        message.starts_with("expected a list of targets"),
        "{message}"
    );

    let (line, column, message, _) =
        refuse("bench:\n  targets:\n    - name: b\n      build: make\n      run: ''\n");
    assert_eq!((line, column), (5, 12));
    assert!(
        message.starts_with("expected a shell command for bench.targets[0].run"),
        "{message}"
    );
}

#[test]
fn suite_entries_are_checked() {
    let (line, column, message, _) = refuse("bench:\n  suites: []\n");
    assert_eq!((line, column), (2, 11));
    assert!(
        message.starts_with("expected at least one suite in bench.suites"),
        "{message}"
    );

    // An empty value is placed just after its key's colon.
    let (line, column, _, _) = refuse("bench:\n  suites:\n");
    assert_eq!((line, column), (2, 9));

    let (line, column, message, _) = refuse("bench:\n  suites:\n    - bench/crypto.h\n");
    assert_eq!((line, column), (3, 7));
    assert!(
        message.starts_with("expected a C file path ending in `.c`"),
        "{message}"
    );

    let (line, column, message, _) = refuse("bench:\n  suites:\n    - [a.c, b.h]\n");
    assert_eq!((line, column), (3, 13));
    assert_eq!(
        message,
        "expected a C file path ending in `.c` (or a C++ one: `.cpp`, `.cc`, `.cxx`; or assembly: `.S`, `.s`) \
         for bench.suites[0][1], found the text 'b.h'"
    );

    let (line, column, message, _) = refuse("bench:\n  suites:\n    - { command: \"\" }\n");
    assert_eq!((line, column), (3, 18));
    assert!(
        message.starts_with("expected a shell command for bench.suites[0].command"),
        "{message}"
    );
}

#[test]
fn a_stack_budget_without_the_watermark_is_refused() {
    let (line, column, message, _) = refuse(
        "bench:\n  stack_watermark: false\n  benchmarks:\n    b:\n      budgets:\n        max_stack_bytes: 100\n",
    );
    assert_eq!((line, column), (6, 9));
    assert!(
        message.starts_with("bench.benchmarks.b.budgets.max_stack_bytes needs the stack measured"),
        "{message}"
    );
    // Without a stack budget, turning the watermark off is fine.
    assert!(
        !load("bench:\n  stack_watermark: false\n  budgets:\n    max_heap_bytes: 1\n")
            .stack_watermark
    );
}

#[test]
fn any_benchmark_name_as_written_takes_budgets() {
    let config = load(
        "bench:\n  benchmarks:\n    \"BM_format/%@\":\n      budgets:\n        max_ns_per_op: 50\n    \
         BM_log/with space:\n      budgets:\n        max_ns_per_op: 60\n    \"BM_日本語/漢字\":\n      \
         budgets:\n        max_ns_per_op: 70\n    'BM_log/\"quoted\"':\n      budgets:\n        \
         max_ns_per_op: 80\n",
    );
    let names: Vec<&str> = config.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "BM_format/%@",
            "BM_log/with space",
            "BM_日本語/漢字",
            "BM_log/\"quoted\""
        ]
    );
    let limits: Vec<Option<f64>> = config
        .benchmarks
        .iter()
        .map(|b| b.budgets.max_ns_per_op)
        .collect();
    assert_eq!(limits, [Some(50.0), Some(60.0), Some(70.0), Some(80.0)]);
}

#[test]
fn bad_benchmark_names_are_refused() {
    // A control character is no name: a terminal would run it.
    let (line, column, message, _) = refuse(
        "bench:\n  benchmarks:\n    \"crc\\t64\":\n      budgets:\n        max_ns_per_op: 5\n",
    );
    assert_eq!((line, column), (3, 5));
    assert!(
        message.starts_with(
            "'crc\\t64' in bench.benchmarks is not a benchmark name: the control character U+0009"
        ),
        "{message}"
    );
    // `iterations` reaches rho's harness as RHO_BENCH_ITERATIONS_<name>: a harness name only.
    let (line, column, message, _) =
        refuse("bench:\n  benchmarks:\n    \"crc 64\":\n      iterations: 5\n");
    assert_eq!((line, column), (4, 19));
    assert!(
        message.starts_with(
            "bench.benchmarks.crc 64.iterations: rho's harnesses take `iterations` per benchmark"
        ),
        "{message}"
    );
}

#[test]
fn missing_bench_key() {
    let (line, column, message, _) = refuse("other_tool:\n  x: 1\n");
    assert_eq!((line, column), (1, 1));
    assert!(
        message.starts_with("missing key 'bench' at the top level"),
        "{message}"
    );

    let (line, column, message, _) = refuse("mem:\n  x: 1\nbnech:\n  repetitions: 2\n");
    assert_eq!((line, column), (3, 1));
    assert_eq!(
        message,
        "missing key 'bench' at the top level; did you mean 'bench' instead of 'bnech'?"
    );

    let (line, column, message, _) = refuse("");
    assert_eq!((line, column), (1, 1));
    assert!(message.contains("found an empty file"), "{message}");

    let (_, _, message, _) = refuse("- bench\n");
    assert!(message.ends_with("found a list"), "{message}");
}

#[test]
fn other_components_top_level_keys_are_left_alone() {
    let config = load("mem:\n  anything: [1, 2]\nbench:\n  repetitions: 2\n");
    assert_eq!(config.repetitions, 2);
    // An empty `bench:` is all defaults.
    assert_eq!(load("bench:\n").repetitions, 1);
}

#[test]
fn yaml_syntax_errors_have_their_position() {
    let (line, column, message, display) = refuse("bench:\n  budgets: [1, 2\n  targets: 3\n");
    assert_eq!((line, column), (3, 10));
    assert!(message.starts_with("invalid YAML: "), "{message}");
    assert!(
        display.starts_with("module.yml:3:10: invalid YAML: "),
        "{display}"
    );
    // No trailing "at line ..": the place is in the prefix, once.
    assert!(!message.contains("line"), "{message}");

    let (line, column, message, _) = refuse("bench:\n  scale: 1\n  scale: 2\n");
    assert_eq!((line, column), (3, 3));
    assert!(
        message.starts_with("invalid YAML: duplicate mapping key"),
        "{message}"
    );

    let (line, _, message, _) = refuse("bench:\n  repetitions: 1\n   scale: 2\n");
    assert_eq!(line, 3);
    assert!(message.starts_with("invalid YAML: "), "{message}");
}

#[test]
fn an_alias_is_reported_where_it_is_used() {
    let (line, column, message, _) =
        refuse("x: &neg -1\nbench:\n  budgets:\n    max_heap_bytes: *neg\n");
    assert_eq!((line, column), (4, 21));
    assert!(message.starts_with("expected a number >= 0"), "{message}");
}

#[test]
fn messages_name_the_file_as_given() {
    let err =
        ModuleConfig::from_str("bench:\n  scale: 0\n", Path::new("fw/module.yml")).unwrap_err();
    assert!(err.to_string().starts_with("fw/module.yml:2:10: "), "{err}");
}

// ---- docs/config.md stays true ----

fn repo_file(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced blocks of `lang` in a Markdown text, in order.
fn fenced_blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim() == format!("```{lang}") => current = Some(String::new()),
            Some(block) if line.trim() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn the_docs_complete_example_is_the_example_project_and_every_yaml_block_loads() {
    let docs = repo_file("docs/config.md");
    let blocks = fenced_blocks(&docs, "yaml");
    assert!(
        blocks.len() >= 4,
        "expected the docs' YAML examples, found {}",
        blocks.len()
    );
    // The example project's file, less its two header comment lines, is the docs' complete example.
    let example = repo_file("examples/project/module.yml");
    let body: String = example
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        blocks[0], body,
        "docs/config.md's complete example has drifted from examples/project/module.yml"
    );
    assert_eq!(blocks[1], SPEC_MODULE_YML);
    for block in &blocks {
        load(block);
    }
}

#[test]
fn the_docs_error_examples_are_the_real_messages() {
    let docs = repo_file("docs/config.md");
    let shown = &fenced_blocks(&docs, "text")[0];
    let produced = [
        refuse(
            "bench:\n  default_iterations: 20000\n  warmup_runs: 100\n  stack_watermark: true\n  budgets:\n    \
             max_heap_bytes: 8192\n    max_stak_bytes: 4096\n",
        )
        .3,
        refuse("bench:\n  budgets:\n    max_heap_bytes: -8192\n").3,
        refuse("bench:\n  gate:\n    runs: 1\n").3,
        load(&unknown_board_module())
            .target(Some("nrf52840dk"))
            .unwrap_err()
            .to_string(),
    ];
    let shown: Vec<&str> = shown.lines().collect();
    assert_eq!(shown, produced);
}

/// Each case's text is refused at its (line, column) with exactly its message.
fn assert_each_refused_at(cases: &[(&str, (u64, u64), &str)]) {
    for (text, (line, column), message) in cases {
        let got = refuse(text);
        assert_eq!(
            (got.0, got.1, got.2.as_str()),
            (*line, *column, *message),
            "for {text:?}"
        );
    }
}

/// The gate's budget falls back to `fail_on_regression_percent` when `gate.budget.default` is not set (one
/// threshold for `--diff` and the gate), and instruction counts to `fail_on_instructions_regression_percent`;
/// a percentage no gate budget can be (100% or more) leaves the gate's own 30%.
#[test]
fn the_gate_budget_falls_back_to_the_regression_limit() {
    let limits = "bench:\n  budgets:\n    fail_on_regression_percent: 10.0\n    \
                  fail_on_instructions_regression_percent: 0.5\n";
    let config = load(limits);
    assert_eq!(config.gate.default_budget, None);
    assert!((config.gate_default_budget() - 0.10).abs() < 1e-12);
    assert!((config.gate_budget_for("bench_crc_64.ns") - 0.10).abs() < 1e-12);
    assert_eq!(config.gate_instructions_budget(), Some(0.005));

    let overridden = load(&format!(
        "{limits}  gate:\n    budget:\n      default: 0.25\n      bench_crc_64.ns: 0.5\n"
    ));
    assert_eq!(overridden.gate_default_budget(), 0.25);
    assert_eq!(overridden.gate_budget_for("bench_crc_64.ns"), 0.5);
    assert_eq!(overridden.gate_budget_for("bench_crc_64.cycles"), 0.25);

    let too_wide = load("bench:\n  budgets:\n    fail_on_regression_percent: 200.0\n");
    assert_eq!(too_wide.gate_default_budget(), 0.30);
    assert_eq!(too_wide.gate_instructions_budget(), None);
    assert_eq!(
        load("bench:\n  measure: time\n").gate_default_budget(),
        0.30
    );
}

#[test]
fn a_targets_stack_bytes_sets_its_painted_region_and_a_bad_one_is_refused_where_it_is() {
    let config = load(
        "bench:\n  targets:\n    - name: mps2-an386\n      stack_bytes: 32768\n    - host\n    - name: riscv32-virt\n",
    );
    assert_eq!(config.stack_bytes_for_target("mps2-an386"), Some(32768));
    assert_eq!(config.targets[0].stack_bytes, Some(32768));
    // Not set: the harness's default on that target.
    assert_eq!(config.stack_bytes_for_target("host"), None);
    assert_eq!(config.stack_bytes_for_target("riscv32-virt"), None);
    assert_eq!(config.stack_bytes_for_target("microbit"), None);

    let (line, column, message, display) =
        refuse("bench:\n  targets:\n    - name: mps2-an386\n      stack_bytes: 4k\n");
    assert_eq!((line, column), (4, 20));
    assert_eq!(
        message,
        "expected a whole number from 256 to 1073741824 for bench.targets[0].stack_bytes (bytes), found the text '4k'"
    );
    assert!(display.starts_with("module.yml:4:20: "), "{display}");
    let (line, column, message, _) =
        refuse("bench:\n  targets:\n    - name: host\n      stack_bytes: 100\n");
    assert_eq!((line, column), (4, 20));
    assert!(message.contains("from 256 to"), "{message}");
    let (line, _, message, _) = refuse(
        "bench:\n  stack_watermark: false\n  targets:\n    - name: host\n      stack_bytes: 8192\n",
    );
    assert_eq!(line, 5);
    assert!(
        message.starts_with("bench.targets[0].stack_bytes sizes the painted stack region, but bench.stack_watermark is false"),
        "{message}"
    );
    let (_, _, message, _) =
        refuse("bench:\n  targets:\n    - name: host\n      stack_byte: 8192\n");
    assert_eq!(
        message,
        "unknown key 'stack_byte' in bench.targets[0]; did you mean 'stack_bytes'?"
    );
}

/// `bench.baseline` must stay inside the module root: an absolute path or one whose `..` leads out of it is
/// refused at its line and column (it would write and read another project's file); a path that goes down and
/// back up inside the root is fine.
#[test]
fn a_baseline_path_outside_the_module_root_is_refused() {
    for outside in [
        "/tmp/baseline.json",
        "../baseline.json",
        "bench/../../b.json",
        ".",
        "bench/..",
    ] {
        let text = format!("bench:\n  suites: [a.c]\n  baseline: '{outside}'\n");
        let (line, column, message, shown) = refuse(&text);
        assert_eq!((line, column), (3, 13), "{outside}: {shown}");
        assert!(
            message.contains("inside the module root") && message.contains(outside),
            "{outside}: {shown}"
        );
    }
    for inside in ["b.json", "./bench/x.json", "bench/../other/b.json"] {
        let text = format!("bench:\n  suites: [a.c]\n  baseline: '{inside}'\n");
        assert_eq!(load(&text).baseline, Path::new(inside));
    }
}

#[test]
fn bench_history_sets_the_branch_and_the_detection() {
    let config =
        load("bench:\n  history:\n    branch: ci/history\n    window: 20\n    max_pvalue: 0.01\n");
    assert_eq!(config.history.branch.as_deref(), Some("ci/history"));
    assert_eq!(config.history.window, Some(20));
    assert_eq!(config.history.max_pvalue, Some(0.01));
    assert_eq!(
        load("bench:\n  default_iterations: 10\n").history,
        Default::default()
    );
}

#[test]
fn a_bad_bench_history_is_refused_at_its_line_and_column() {
    for (text, line, column, wanted) in [
        (
            "bench:\n  history:\n    branch: -x\n",
            3,
            13,
            "expected a branch name",
        ),
        (
            "bench:\n  history:\n    branch: a..b\n",
            3,
            13,
            "found 'a..b'",
        ),
        (
            "bench:\n  history:\n    window: 5\n",
            3,
            13,
            "bench.history.window",
        ),
        (
            "bench:\n  history:\n    max_pvalue: 1.5\n",
            3,
            17,
            "expected a p-value between 0 and 1",
        ),
        (
            "bench:\n  history:\n    max_pvalue: 0\n",
            3,
            17,
            "bench.history.max_pvalue",
        ),
        ("bench:\n  history:\n    windw: 20\n", 3, 5, "windw"),
    ] {
        let error = ModuleConfig::from_str(text, Path::new("module.yml")).unwrap_err();
        let shown = error.to_string();
        assert!(
            shown.starts_with(&format!("module.yml:{line}:{column}:")),
            "{text:?}: {shown}"
        );
        assert!(shown.contains(wanted), "{text:?}: {shown}");
    }
}

#[test]
fn other_harnesses_suites_load_and_a_bad_one_is_refused_where_it_is() {
    use rho_config::{ForeignSuite, ForeignTool};
    let config = load(
        "bench:\n  suites:\n    - gbench: sh bench.sh\n    - criterion: checksum\n    - hyperfine: [\"sleep 0.1\", \"it's\"]\n    - gotest: ./...\n    - pytest-benchmark: python3 -m pytest bench/\n",
    );
    let got: Vec<(ForeignTool, &str)> = config
        .suites
        .iter()
        .map(|s| match s {
            Suite::Foreign(ForeignSuite { tool, argument, .. }) => (*tool, argument.as_str()),
            other => panic!("not another harness's suite: {other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            (ForeignTool::Gbench, "sh bench.sh"),
            (ForeignTool::Criterion, "checksum"),
            // Each command of the list one quoted word for hyperfine.
            (ForeignTool::Hyperfine, "'sleep 0.1' 'it'\\''s'"),
            (ForeignTool::Gotest, "./..."),
            (ForeignTool::PytestBenchmark, "python3 -m pytest bench/"),
        ]
    );
    assert_eq!(config.suites[0].describe(), "gbench: sh bench.sh");

    let (line, column, message, _) = refuse("bench:\n  suites:\n    - gbench: \"\"\n");
    assert_eq!((line, column), (3, 15), "{message}");
    assert!(message.contains("bench.suites[0].gbench"), "{message}");
    let (line, _, message, _) =
        refuse("bench:\n  suites:\n    - gotest: ./...\n      command: make\n");
    // The second kind in rho's order (`command:` comes first) is named where it is written.
    assert_eq!(line, 3, "{message}");
    assert!(
        message.contains("has `command:` and `gotest:`"),
        "{message}"
    );
    let (_, _, message, _) = refuse("bench:\n  suites:\n    - gbench: ./b\n      cflags: -O3\n");
    assert!(
        message.contains("a `gbench:` suite builds itself"),
        "{message}"
    );
}
