//! Figures no run can produce are refused, never compared (issue 30): each impossible document the
//! fault-injection pass found exits 2 naming the file, the benchmark and the field, through the real binary.
//! The documents are a real run's, edited: a committed baseline with a negative cycle median, saved runs with
//! a negative median, with min > median > max, and with a key twice.

mod common;

use common::{Outcome, Project, canned_script};

/// A project whose one suite prints a canned stream (`bench_canned`, 100 cycles an iteration), in a git
/// repository.
fn project() -> Project {
    let project = Project::new();
    project.write("canned.sh", &canned_script(&[100]));
    project.write(
        "module.yml",
        "bench:\n  suites:\n    - command: sh canned.sh\n",
    );
    project
}

fn assert_refused(outcome: &Outcome, needles: &[&str]) {
    outcome.assert_exit(2);
    for needle in needles {
        outcome.assert_stderr_has(needle);
    }
}

/// A saved run (`rho bench --json`), as a JSON value to edit.
fn saved_run(project: &Project) -> serde_json::Value {
    let (_, document) = project.rho_json(&["bench"]);
    document
}

fn write_json(project: &Project, name: &str, value: &serde_json::Value) -> String {
    let path = project.write(name, &serde_json::to_string_pretty(value).unwrap());
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_saved_run_with_a_negative_median_is_refused_by_show_and_compare() {
    let project = project();
    let good = saved_run(&project);
    let good_path = write_json(&project, "good.json", &good);
    let mut bad = good.clone();
    bad["suites"][0]["benchmarks"][0]["cycles"]["per_iteration"]["median"] = (-5.0).into();
    let bad_path = write_json(&project, "negative.json", &bad);

    let needles = [
        "negative.json: benchmark \"bench_canned\": cycles.per_iteration.median is -5",
        "at least 0",
    ];
    assert_refused(&project.rho(&["bench", "show", &bad_path]), &needles);
    // As base or as head: never "improved".
    assert_refused(
        &project.rho(&["bench", "compare", &bad_path, &good_path]),
        &needles,
    );
    assert_refused(
        &project.rho(&["bench", "compare", &good_path, &bad_path]),
        &needles,
    );
    project
        .rho(&["bench", "compare", &good_path, &good_path])
        .assert_exit(0);
}

#[test]
fn a_saved_run_with_min_above_median_above_max_is_refused() {
    let project = project();
    let mut bad = saved_run(&project);
    let net = &mut bad["suites"][0]["benchmarks"][0]["cycles"]["net"];
    net["min"] = 300.into();
    net["median"] = 200.into();
    net["max"] = 100.into();
    let bad_path = write_json(&project, "disordered.json", &bad);
    assert_refused(
        &project.rho(&["bench", "show", &bad_path]),
        &[
            "disordered.json: benchmark \"bench_canned\": cycles.net.min is 300, above p25 100",
            "min <= p25 <= median <= p75 <= p95 <= p99 <= max",
        ],
    );
}

#[test]
fn a_saved_run_with_a_key_twice_is_refused_at_its_line() {
    let project = project();
    let good = serde_json::to_string_pretty(&saved_run(&project)).unwrap();
    // The first "median" of the document given again before it, smaller: serde_json would keep the last.
    let at = good.find("\"median\": ").unwrap();
    let bad = format!("{}\"median\": 1, {}", &good[..at], &good[at..]);
    let line = bad[..at].lines().count();
    let bad_path = project.write("twice.json", &bad);
    assert_refused(
        &project.rho(&["bench", "show", bad_path.to_str().unwrap()]),
        &[
            &format!("twice.json:{line}:"),
            // The first summary the document holds (`net`, keys in name order).
            "key \"median\" appears twice in suites[0].benchmarks[0].cycles.net",
        ],
    );
}

#[test]
fn a_committed_baseline_with_a_negative_cycle_median_is_refused_not_compared() {
    let project = project();
    common::git(project.path(), &["init", "-q"]);
    project.rho(&["bench", "--write-baseline"]).assert_exit(0);
    let text = project.read("bench/baseline.json");
    let bad = text.replacen("\"median\": 100", "\"median\": -5", 1);
    assert_ne!(bad, text, "the baseline holds the median: {text}");
    project.write("bench/baseline.json", &bad);
    common::git(project.path(), &["add", "-A"]);
    common::git(project.path(), &["commit", "-qm", "baseline"]);
    assert_refused(
        &project.rho(&["bench", "--diff", "HEAD"]),
        &[
            "bench/baseline.json",
            "target \"canned\", benchmark \"bench_canned\": cycles.median is -5",
        ],
    );
}

/// A module of tests/c/nops.c with a target of its own on the mps2-an386 port that counts with rho's plugin
/// (`counter: qemu-plugin`): its `run:` is QEMU as the built-in board runs it, and then, on the counted run, the
/// plugin's totals edited by the awk program `$PLANT` (a fake plugin output, planted where the plugin writes).
fn planted_board_project() -> Project {
    let project = Project::new();
    std::fs::copy(
        common::repo_file("tests/c/nops.c"),
        project.path().join("nops.c"),
    )
    .unwrap();
    project.write(
        "plant.sh",
        "qemu-system-arm -M mps2-an386 -display none -serial none -monitor none -icount shift=5 \
         -chardev stdio,id=console -semihosting-config enable=on,target=native,chardev=console \
         ${RHO_QEMU_PLUGIN:+-plugin \"$RHO_QEMU_PLUGIN\"} -kernel \"$RHO_BENCH_OUT/bench.elf\"\n\
         status=$?\n\
         if [ -n \"$RHO_QEMU_COUNTS\" ]; then\n\
         \x20 awk \"$PLANT\" \"$RHO_QEMU_COUNTS\" > \"$RHO_QEMU_COUNTS.new\" && mv \"$RHO_QEMU_COUNTS.new\" \"$RHO_QEMU_COUNTS\"\n\
         fi\n\
         exit $status\n",
    );
    let makefile = common::repo_file("c/ports/Makefile");
    project.write(
        "module.yml",
        &format!(
            "bench:
  suites:
    - nops.c
  targets:
    - name: planted-mps2-an386
      build: make -s -f '{}' BOARD=mps2-an386 SUITE=\"$RHO_BENCH_SOURCES\" RHO_BENCH_INCLUDE=\"$RHO_BENCH_INCLUDE\" RHO_BENCH_OUT=\"$RHO_BENCH_OUT\"
      run: sh plant.sh
      counter: qemu-plugin
",
            makefile.display()
        ),
    );
    project
}

/// Impossible counts from a board's plugin are refused, exit 2, naming the benchmark and the board (the stream's
/// `@target`), and no figure is reported: a zero for a body of 1,000 nops, a count below the empty loop's, and
/// bodies other than the loop's iterations. The plugin's totals, one line `K TOTAL BODIES FILLED` a measured
/// loop: K 1 and 2 are `.overhead`'s, 3 to 6 bench_nop_1, _1000, _3000 and _none's.
#[test]
fn a_boards_zero_and_sub_empty_loop_counts_are_refused_naming_the_board() {
    if !common::tools_present(
        "a_boards_zero_and_sub_empty_loop_counts_are_refused_naming_the_board",
        common::CROSS_TOOLS,
    ) {
        return;
    }
    let project = planted_board_project();
    let args = [
        "bench",
        "--target",
        "planted-mps2-an386",
        "--iterations",
        "20",
        "--json",
        "planted.json",
    ];
    for (plant, needles) in [
        // Nothing planted: the figures as counted.
        ("{print}", &[][..]),
        (
            "$1 == 4 {$2 = 0} {print}",
            &[
                "benchmark bench_nop_1000 on mps2-an386: impossible instruction count (@count 4",
                "0 instructions for 20 bodies with code in them",
            ][..],
        ),
        (
            "$1 <= 2 {$2 = $3 * 2000} {print}",
            &[
                "benchmark bench_nop_1 on mps2-an386: impossible instruction count",
                "below the empty loop's",
            ][..],
        ),
        (
            "$1 == 5 {$3 = $3 - 1} {print}",
            &[
                "benchmark bench_nop_3000 on mps2-an386: impossible instruction count (@count 5",
                "the plugin summed 19 bodies where the loop ran 20 iterations",
            ][..],
        ),
    ] {
        let _ = std::fs::remove_file(project.path().join("planted.json"));
        let outcome = project.rho_in(project.path(), &args, &[("PLANT", plant)]);
        if needles.is_empty() {
            outcome.assert_exit(0);
            let document = common::read_json(&project.path().join("planted.json"));
            let nops = common::bench(&document["suites"][0], "bench_nop_1000");
            assert_eq!(nops["instructions"]["per_iteration"], 1000.0, "{nops}");
            continue;
        }
        assert_refused(&outcome, needles);
        // Never a figure: no document holds a count for the suite.
        let written =
            std::fs::read_to_string(project.path().join("planted.json")).unwrap_or_default();
        assert!(!written.contains("\"loop_total\""), "{plant}: {written}");
    }
}
