//! `--html FILE` rendered by a real browser: `rho bench --html` on the spec suite, `rho bench compare --html`
//! and `rho bench show --html` on saved runs, each page loaded in headless Chromium. The DOM Chromium built
//! after loading has one distribution chart per benchmark, and a screenshot of the page is not blank (it has
//! the bars' colour over a good share of it). Chromium is Debian's `chromium`: skipped with a note when it is
//! missing, a failure under `RHO_REQUIRE_CROSS=1` (`.ci/run` installs it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

/// The histogram bars' fill (`.bar` in crates/rho-report/src/html.rs).
const BAR_RGB: [u8; 3] = [0x4a, 0x78, 0xc2];

fn chromium_present(test: &str) -> bool {
    common::tools_present(test, &[("chromium", "chromium")])
}

/// The benchmark names of a `rho-bench-run/1` document.
fn names(json: &Path) -> Vec<String> {
    common::bench_names(&common::read_json(json))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Loads `page` in Chromium: its DOM after loading has one distribution chart per name in `benchmarks`
/// (each naming its benchmark) and `charts` more of each class given; a screenshot is not blank and shows the
/// charts' blue (the histogram bars, the gate's head runs), over at least `blue_per_mille` of it.
///
/// How much blue a page shows depends on the timings: a histogram's tallest bar always spans the chart's
/// height, but 40 bins make it a twelfth of the width, and a base from another run can squeeze the head's bars
/// further. So the floor is what the geometry guarantees whatever the samples (1 per mille: five visible
/// charts of 40 bins show about 3 per mille), or, where a base shares the scale, only that some blue shows.
fn assert_renders(
    dir: &Path,
    page: &Path,
    benchmarks: &[String],
    charts: &[(&str, usize)],
    blue_per_mille: usize,
) {
    let dom = common::chromium(dir, page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert_eq!(
        dom.matches("class=\"chart distribution\"").count(),
        benchmarks.len(),
        "one distribution chart per benchmark"
    );
    for name in benchmarks {
        assert!(
            dom.contains(&format!("data-benchmark=\"{name}\"")),
            "no chart for {name}"
        );
    }
    for (class, count) in charts {
        assert_eq!(
            dom.matches(&format!("class=\"chart {class}\"")).count(),
            *count,
            "{class} charts"
        );
    }

    let png = dir.join("screenshot.png");
    let _ = std::fs::remove_file(&png);
    common::chromium(
        dir,
        page,
        "1200,1600",
        &[&format!("--screenshot={}", png.display())],
    );
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels = &pixels[..info.buffer_size()];
    let total = pixels.len() / channels;
    let first = &pixels[..3];
    let differing = pixels.chunks(channels).filter(|p| &p[..3] != first).count();
    let blue = pixels
        .chunks(channels)
        .filter(|p| p[..3].iter().zip(BAR_RGB).all(|(&a, b)| a.abs_diff(b) <= 4))
        .count();
    eprintln!(
        "{}: {}x{}, {differing} of {total} pixels not the background, {blue} of the charts' blue",
        page.display(),
        info.width,
        info.height
    );
    assert!(differing * 20 > total, "the screenshot is almost blank");
    assert!(
        blue > 0 && blue * 1000 >= total * blue_per_mille,
        "the screenshot shows too little of the charts"
    );
}

#[test]
fn the_spec_suite_s_page_renders_a_chart_per_benchmark() {
    if !chromium_present("the_spec_suite_s_page_renders_a_chart_per_benchmark") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("r.html");
    let json = dir.path().join("run.json");
    let suite = common::repo_file("examples/crypto_bench.c");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            "--iterations",
            "2000",
            "--html",
            page.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            suite.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    let benchmarks = names(&json);
    assert_eq!(benchmarks.len(), 6, "{benchmarks:?}");
    assert_renders(dir.path(), &page, &benchmarks, &[("footprint", 6)], 1);

    // The saved run re-rendered: the same charts.
    let shown = dir.path().join("shown.html");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            "show",
            json.to_str().unwrap(),
            "--html",
            shown.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    assert_renders(dir.path(), &shown, &benchmarks, &[], 1);

    // Compared with itself: base against head for every benchmark.
    let compared = dir.path().join("compared.html");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            "compare",
            json.to_str().unwrap(),
            json.to_str().unwrap(),
            "--html",
            compared.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    assert_renders(dir.path(), &compared, &benchmarks, &[("diff", 6)], 1);
}

/// A project checked against its budgets and its committed baseline: one benchmark's stack budget is broken
/// (8 bytes), and the page shows it over, with every benchmark's base against head.
#[test]
fn check_draws_its_budgets_and_the_baseline_comparison() {
    if !chromium_present("check_draws_its_budgets_and_the_baseline_comparison") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("bench")).unwrap();
    std::fs::copy(
        common::repo_file("examples/crypto_bench.c"),
        root.join("bench/suite.c"),
    )
    .unwrap();
    std::fs::write(
        root.join("module.yml"),
        "bench:\n  default_iterations: 1000\n  suites:\n    - bench/suite.c\n  benchmarks:\n    \
         bench_crc_64:\n      budgets:\n        max_stack_bytes: 8\n",
    )
    .unwrap();
    common::git(root, &["init", "-q", "-b", "main"]);
    let rho = |args: &[&str]| common::rho_at(root, args, LIMIT);
    rho(&["bench", "--write-baseline", "--repetitions", "1"]).assert_exit(0);
    common::git(root, &["add", "module.yml", "bench"]);
    common::git(root, &["commit", "-q", "-m", "suite and baseline"]);

    let page = root.join("check.html");
    let outcome = rho(&[
        "bench",
        "check",
        "--diff",
        "HEAD",
        "--repetitions",
        "1",
        "--html",
        page.to_str().unwrap(),
    ]);
    // The broken stack budget fails the check whatever the timings did.
    outcome.assert_exit(1);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(", budget 8 B: OVER"), "{html}");
    let benchmarks: Vec<String> = [
        "bench_empty",
        "bench_crc_64",
        "bench_crc_256",
        "bench_malloc_free",
        "bench_steady",
        "bench_outlier",
    ]
    .map(String::from)
    .to_vec();
    assert_renders(
        root,
        &page,
        &benchmarks,
        &[("footprint", 6), ("diff", 6)],
        0,
    );
}

/// `rho bench gate --html` of the kata's wire suite under `dir`: base as it is, head with `slowdown`
/// (tests/kata/slowdowns/SLOWDOWN.c) as its kernels.c, with `settings`; the page's path and the outcome.
fn kata_gate_page(dir: &Path, slowdown: &str, settings: &[&str]) -> (PathBuf, common::Outcome) {
    kata_gate_page_with(dir, slowdown, settings, "")
}

/// [`kata_gate_page`] with `budgets` (module.yml lines under `bench:`) added to both sides' module.yml.
fn kata_gate_page_with(
    dir: &Path,
    slowdown: &str,
    settings: &[&str],
    budgets: &str,
) -> (PathBuf, common::Outcome) {
    let kata = common::repo_file("tests/kata");
    let (base, head) = (dir.join("base"), dir.join("head"));
    common::copy_tree(&kata, &base);
    common::copy_tree(&kata, &head);
    std::fs::copy(
        kata.join(format!("slowdowns/{slowdown}.c")),
        head.join("kernels.c"),
    )
    .unwrap();
    if !budgets.is_empty() {
        for side in [&base, &head] {
            let module = side.join("wire/module.yml");
            let text = std::fs::read_to_string(&module).unwrap();
            assert!(text.contains("\nbench:\n"), "{text}");
            std::fs::write(
                &module,
                text.replace("\nbench:\n", &format!("\nbench:\n{budgets}")),
            )
            .unwrap();
        }
    }
    let page = dir.join("gate.html");
    let gate = ["bench", "gate", "--json", "-", "--base", "../../base/wire"];
    let args = [&gate[..], settings, &["--html", page.to_str().unwrap()]].concat();
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.args(&args).current_dir(head.join("wire"));
    let outcome = common::run_rho(command, &args, Duration::from_secs(600));
    (page, outcome)
}

/// The rows of the summary table in a page's DOM, in order: each row's `data-summary`.
fn summary_rows(dom: &str) -> Vec<String> {
    dom.split("<tr data-summary=\"")
        .skip(1)
        .filter_map(|row| row.split('"').next())
        .map(String::from)
        .collect()
}

/// What every page that answers first shows in its rendered DOM: the verdict, then one summary table
/// naming each of `benchmarks` (and no other), all before the first chart, `first` as its first row, and
/// each `(metric, limit)` heading its column with the limit as set.
fn assert_answers_first(dom: &str, benchmarks: &[&str], first: &str, limits: &[(&str, &str)]) {
    let chart = dom.find("<svg").expect("a chart");
    let verdict = dom.find("<p class=\"verdict").expect("a verdict");
    let table = dom
        .find("<table class=\"summary\">")
        .expect("a summary table");
    assert!(
        verdict < table && table < chart,
        "verdict, table, then charts:\n{dom}"
    );
    let rows = summary_rows(&dom[..chart]);
    let mut sorted_rows = rows.clone();
    sorted_rows.sort();
    let mut expected: Vec<String> = benchmarks.iter().map(|b| b.to_string()).collect();
    expected.sort();
    assert_eq!(
        sorted_rows, expected,
        "every benchmark once, before the first chart"
    );
    assert_eq!(rows[0], first, "the regressed one first: {rows:?}");
    for (metric, limit) in limits {
        let heading = format!("<th>{metric}<span class=\"limit-set\">limit {limit}</span></th>");
        assert!(
            dom[..chart].contains(&heading),
            "{heading} in:\n{}",
            &dom[table..chart]
        );
    }
}

/// A counted gate's page in Chromium answers first: its verdict and one table of the four kata benchmarks
/// before the first chart, the one the slowdown regressed (bench_count_below, fourth in the suite) first,
/// and the instructions' column headed by the limit module.yml sets (0.5%), the stack's and heap's by the
/// gate's default (30%), never an absolute budget.
#[test]
fn the_gate_page_answers_first_with_each_metric_s_limit_as_set() {
    if !chromium_present("the_gate_page_answers_first_with_each_metric_s_limit_as_set") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (page, outcome) = kata_gate_page_with(
        tmp.path(),
        "s10_count_below_defensive_copy",
        &["--measure", "instructions"],
        "  budgets:\n    fail_on_instructions_regression_percent: 0.5\n",
    );
    assert_eq!(outcome.status, Some(1), "{}", outcome.describe());
    let dom = common::chromium(tmp.path(), &page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert!(
        dom.contains("<p class=\"verdict verdict-bad\">FAILED: 1 benchmark regressed</p>"),
        "{dom}"
    );
    assert_answers_first(
        &dom,
        &[
            "bench_matmul",
            "bench_sum",
            "bench_rmsnorm",
            "bench_count_below",
        ],
        "bench_count_below",
        &[("instructions", "+0.5%"), ("stack", "+30%")],
    );
    assert!(!dom.contains("budget: "), "no absolute budget:\n{dom}");
    assert!(
        dom.contains("<title>limit: base's best +0.5%</title>"),
        "{dom}"
    );
}

/// A gate of two runs a side: every run of each side is a dot, per benchmark and metric. Timed, so nothing
/// is asserted of the verdict (head does a linear search for a binary one), only of what is drawn.
#[test]
fn the_gate_draws_every_run_of_each_side() {
    if !chromium_present("the_gate_draws_every_run_of_each_side") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (page, outcome) = kata_gate_page(
        tmp.path(),
        "s09_count_below_linear_search",
        // The fixed gate (max_runs = runs): every metric has its two runs a side to draw.
        &["--runs", "2", "--max-runs", "2", "--scale", "0.1"],
    );
    eprintln!("{}", outcome.describe());
    assert!(
        matches!(outcome.status, Some(0 | 1)),
        "{}",
        outcome.describe()
    );
    let document = outcome.document();
    let metrics = document["metrics"].as_object().unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    // Two dots a side for every metric both sides measured.
    assert_eq!(
        html.matches("class=\"base-dot\"").count(),
        2 * metrics.len()
    );
    assert_eq!(
        html.matches("class=\"head-dot\"").count(),
        2 * metrics.len()
    );
    let groups: std::collections::BTreeSet<&str> = metrics
        .keys()
        .map(|name| name.rsplit_once('.').map_or(name.as_str(), |(b, _)| b))
        .collect();
    assert_eq!(groups.len(), 4, "{groups:?}");
    assert_renders(tmp.path(), &page, &[], &[("gate-runs", groups.len())], 0);
}

#[test]
fn an_unwritable_html_path_stops_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("missing").join("r.html");
    let suite = common::repo_file("examples/crypto_bench.c");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            "--html",
            page.to_str().unwrap(),
            suite.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(2);
    outcome.assert_stderr_has("--html");
    outcome.assert_stderr_has("does not exist");
    assert_eq!(outcome.stdout, "", "nothing ran");
}

/// The suite of [`the_diff_page_opens_with_a_headline_naming_what_failed_and_a_summary_table`]: `WORK` plants a
/// slowdown in `bench_planted`; one iteration in 20 of `bench_tailed` does 30 times the work, so its p99 is 30
/// times its median.
const HEADLINE_SUITE: &str = r#"
#include <rho/bench.h>

#define WORK 1

static unsigned spin(unsigned n)
{
    unsigned i, acc = 0;
    for (i = 0; i < n; i++) {
        acc = acc * 31u + i;
    }
    return acc;
}

static void bench_steady(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(spin(2000u));
    }
}

static void bench_planted(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(spin(2000u * WORK));
    }
}

static void bench_tailed(rho_bench_t *state)
{
    unsigned k = 0;
    RHO_BENCH_LOOP(state) {
        k++;
        RHO_BENCH_KEEP(spin(k % 20u == 0 ? 60000u : 2000u));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_steady);
    RHO_BENCH_ADD(&suite, bench_planted);
    RHO_BENCH_ADD(&suite, bench_tailed);
    return rho_bench_main(&suite, argc, argv);
}
"#;

/// `rho bench --diff HEAD --html` after a planted 10x slowdown, with a stack budget of 8 bytes broken: the page
/// opens with the verdict, names the regressed and the over-budget benchmark, each a link to its section, and
/// has a summary table of every benchmark; the long-tailed benchmark's histogram is on a log axis and says so.
/// Loaded in Chromium, the headline and the table are in its DOM and the screenshot is not blank.
#[test]
fn the_diff_page_opens_with_a_headline_naming_what_failed_and_a_summary_table() {
    if !chromium_present("the_diff_page_opens_with_a_headline_naming_what_failed") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("bench")).unwrap();
    std::fs::write(root.join("bench/suite.c"), HEADLINE_SUITE).unwrap();
    std::fs::write(
        root.join("module.yml"),
        "bench:\n  default_iterations: 400\n  suites:\n    - bench/suite.c\n  benchmarks:\n    \
         bench_steady:\n      budgets:\n        max_stack_bytes: 8\n    bench_tailed:\n      batch: 1\n",
    )
    .unwrap();
    common::git(root, &["init", "-q", "-b", "main"]);
    let rho = |args: &[&str]| common::rho_at(root, args, LIMIT);
    rho(&["bench", "--write-baseline", "--repetitions", "1"]).assert_exit(0);
    common::git(root, &["add", "module.yml", "bench"]);
    common::git(root, &["commit", "-q", "-m", "suite and baseline"]);
    // The planted slowdown: ten times the work.
    std::fs::write(
        root.join("bench/suite.c"),
        HEADLINE_SUITE.replace("#define WORK 1", "#define WORK 10"),
    )
    .unwrap();

    let page = root.join("diff.html");
    let outcome = rho(&[
        "bench",
        "--diff",
        "HEAD",
        "--repetitions",
        "1",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert!(
        matches!(outcome.status, Some(0 | 1)),
        "{}",
        outcome.describe()
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html
        .find("<section class=\"headline\"")
        .expect("a headline");
    assert!(start < html.find("<section class=\"suite\"").unwrap());
    let headline = &html[start..start + html[start..].find("</section>").unwrap()];
    assert!(
        headline.contains("<p class=\"verdict verdict-bad\">FAILED: "),
        "{headline}"
    );
    let regressed = headline
        .split("</p>")
        .find(|line| line.contains("<strong>Regressed:</strong>"))
        .unwrap_or_else(|| panic!("no regressed list: {headline}"));
    assert!(
        regressed.contains("<a href=\"#s0-bench_planted\">bench_planted</a> (")
            // Its time judged: the CPU time where the CPU clock resolves its samples, else the wall clock.
            && (regressed.contains("cpu_ns +") || regressed.contains("time_ns +")),
        "{regressed}"
    );
    assert!(
        headline.contains(
            "<strong>Over budget:</strong> <a href=\"#s0-bench_steady\">bench_steady</a> (stack B "
        ),
        "{headline}"
    );
    for name in ["bench_steady", "bench_planted", "bench_tailed"] {
        assert!(
            headline.contains(&format!(
                "<tr data-summary=\"{name}\"><td><a href=\"#s0-{name}\">{name}</a></td>"
            )),
            "{headline}"
        );
        assert!(html.contains(&format!("<article class=\"bench\" id=\"s0-{name}\">")));
    }
    let tailed = &html[html.find("data-benchmark=\"bench_tailed\"").unwrap()..];
    let tailed = &tailed[..tailed.find("</svg>").unwrap()];
    assert!(tailed.contains("; log axis: its tail reaches "), "{tailed}");

    let dom = common::chromium(root, &page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("class=\"headline\""), "{dom}");
    assert_eq!(summary_rows(&dom)[0], "bench_planted", "{dom}");
    assert_eq!(dom.matches("<tr data-summary=").count(), 3, "{dom}");
    let benchmarks = ["bench_steady", "bench_planted", "bench_tailed"].map(String::from);
    assert_renders(root, &page, &benchmarks, &[("diff", 3)], 0);
}

/// `rho bench --diff HEAD --measure instructions --html` after a planted 8x slowdown of `bench_planted` (the
/// second of three), with module.yml's limits 2% for instructions and 15% for the rest: in Chromium, the page
/// answers first (the verdict, then one table of the three benchmarks before the first chart, bench_planted
/// first), each metric's column headed by its own limit as set, and the line saying what the run was compared
/// with gives instructions 2%, never the other metrics' 15% (a diff page once said "limit +10%" where the
/// instructions' limit was 1%).
#[test]
fn the_diff_page_answers_first_with_each_metric_s_limit_as_set() {
    if !chromium_present("the_diff_page_answers_first_with_each_metric_s_limit_as_set") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("bench")).unwrap();
    std::fs::write(root.join("bench/suite.c"), HEADLINE_SUITE).unwrap();
    std::fs::write(
        root.join("module.yml"),
        "bench:\n  measure: instructions\n  suites:\n    - bench/suite.c\n  budgets:\n    \
         fail_on_regression_percent: 15\n    fail_on_instructions_regression_percent: 2\n",
    )
    .unwrap();
    common::git(root, &["init", "-q", "-b", "main"]);
    let rho = |args: &[&str]| common::rho_at(root, args, LIMIT);
    rho(&["bench", "--write-baseline"]).assert_exit(0);
    common::git(root, &["add", "module.yml", "bench"]);
    common::git(root, &["commit", "-q", "-m", "suite and baseline"]);
    std::fs::write(
        root.join("bench/suite.c"),
        HEADLINE_SUITE.replace("#define WORK 1", "#define WORK 8"),
    )
    .unwrap();
    let page = root.join("diff.html");
    let outcome = rho(&["bench", "--diff", "HEAD", "--html", page.to_str().unwrap()]);
    outcome.assert_exit(1);
    let dom = common::chromium(root, &page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert!(
        dom.contains("<p class=\"verdict verdict-bad\">FAILED: 1 benchmark regressed"),
        "{dom}"
    );
    assert_answers_first(
        &dom,
        &["bench_steady", "bench_planted", "bench_tailed"],
        "bench_planted",
        &[("instructions", "+2%"), ("stack B", "+15%")],
    );
    let against = &dom[dom
        .find("<p class=\"meta against")
        .expect("the against line")..];
    let against = &against[..against.find("</p>").unwrap()];
    assert!(against.contains("instructions +2%"), "{against}");
    assert!(
        !against.contains("instructions +15%") && !against.contains("(limit"),
        "{against}"
    );
    assert!(
        dom.contains(": regressed (limit +2%)"),
        "the diff chart's instructions row: {dom}"
    );
}

/// Why it got slower (issue 26): a counted gate's page draws, for the one regressed benchmark, a differential
/// flame graph (inferno's, in a frame of its own), and Chromium loads the page: the benchmark's root frame and
/// the call the slowdown added (s10 copies the input with memcpy), which head has and base had not, red (a
/// positive change) in its `<title>`.
#[test]
fn a_counted_gate_draws_a_flame_graph_per_regressed_benchmark() {
    if !chromium_present("a_counted_gate_draws_a_flame_graph_per_regressed_benchmark") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (page, outcome) = kata_gate_page(
        tmp.path(),
        "s10_count_below_defensive_copy",
        &["--measure", "instructions"],
    );
    assert_eq!(outcome.status, Some(1), "{}", outcome.describe());
    let dom = common::chromium(tmp.path(), &page, "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert_eq!(dom.matches("<iframe class=\"flame\"").count(), 1, "{dom}");
    assert!(dom.contains("id=\"flame-bench_count_below\""));
    let titles = flame_titles(&dom);
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("bench_count_below (")
                && t.contains(" instructions/iter, 100.00%")),
        "the root frame is the benchmark's: {titles:?}"
    );
    assert!(
        titles
            .iter()
            .any(|t| t.contains("memcpy") && t.contains("%; +")),
        "memcpy grew: {titles:?}"
    );
}

/// The `<title>`s of the flame graphs' frames in a page's DOM: each graph is an SVG document in an iframe's
/// `srcdoc`, its markup escaped there.
fn flame_titles(dom: &str) -> Vec<String> {
    let unescaped = dom
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    unescaped
        .split("<title>")
        .skip(1)
        .filter_map(|rest| {
            rest.split_once("</title>")
                .map(|(title, _)| title.to_string())
        })
        .collect()
}

/// Why it got slower (issue 26), through `rho bench compare`: the only change is crc32 no longer inlined
/// (`noinline`), judged at an instructions limit of 0.01% (module.yml beside the runs). The text, the Markdown
/// (a collapsed block) and the JSON name crc32 as only in head under each CRC benchmark; the page draws one
/// flame graph per benchmark whose instructions regressed, and Chromium loads it.
#[test]
fn compare_names_an_uninlined_helper_only_in_head_and_draws_its_flame_graph() {
    if !chromium_present("compare_names_an_uninlined_helper_only_in_head_and_draws_its_flame_graph")
    {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let suite = std::fs::read_to_string(common::repo_file("examples/crypto_bench.c")).unwrap();
    let uninlined = suite.replace(
        "static uint32_t crc32(",
        "static __attribute__((noinline)) uint32_t crc32(",
    );
    assert_ne!(suite, uninlined);
    std::fs::write(dir.join("base.c"), &suite).unwrap();
    std::fs::write(dir.join("head.c"), &uninlined).unwrap();
    std::fs::write(
        dir.join("module.yml"),
        "bench:\n  suites:\n    - base.c\n  budgets:\n    fail_on_instructions_regression_percent: 0.01\n",
    )
    .unwrap();
    for side in ["base", "head"] {
        let (source, json) = (format!("{side}.c"), format!("{side}.json"));
        let args = [
            "bench",
            &source,
            "--measure",
            "instructions",
            "--json",
            &json,
        ];
        common::rho_at(dir, &args, LIMIT).assert_exit(0);
    }
    let args = [
        "bench",
        "compare",
        "base.json",
        "head.json",
        "--html",
        "page.html",
        "--markdown",
        "c.md",
        "--json",
        "c.json",
    ];
    let outcome = common::rho_at(dir, &args, LIMIT);
    outcome.assert_exit(1);
    let crcs = ["bench_crc_64", "bench_crc_256"];
    for bench in crcs {
        let heading = format!("{bench}: the functions that changed most");
        let block: Vec<&str> = outcome
            .stdout
            .lines()
            .skip_while(|l| *l != heading)
            .take(3)
            .collect();
        assert!(
            block.len() == 3
                && block[2].trim_start().starts_with("crc32")
                && block[2].ends_with("only in head"),
            "{}",
            outcome.describe()
        );
    }
    let markdown = std::fs::read_to_string(dir.join("c.md")).unwrap();
    assert!(
        markdown
            .contains("<details><summary>bench_crc_64: the functions that changed most</summary>")
            && markdown.contains("| `crc32` | - → "),
        "{markdown}"
    );
    let document = common::read_json(&dir.join("c.json"));
    let benchmarks = document["comparison"]["benchmarks"].as_array().unwrap();
    let crc = benchmarks
        .iter()
        .find(|b| b["name"] == "bench_crc_64")
        .unwrap();
    let first = &crc["functions"][0];
    assert_eq!(first["name"], "crc32", "{crc}");
    assert!(
        first["base"].is_null() && first["head"]["self"].as_f64().unwrap() > 1000.0,
        "{crc}"
    );
    let dom = common::chromium(dir, &dir.join("page.html"), "1200,1600", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert_eq!(
        dom.matches("<iframe class=\"flame\"").count(),
        crcs.len(),
        "{dom}"
    );
    for bench in crcs {
        assert!(dom.contains(&format!("id=\"flame-{bench}\"")), "{dom}");
    }
    // crc32, a call of its own only in head, is a frame that grew.
    let titles = flame_titles(&dom);
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("crc32 (") && t.contains("%; +")),
        "{titles:?}"
    );
}
