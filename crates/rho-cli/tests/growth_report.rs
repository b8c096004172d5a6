//! Growth in the reports, through the real binary on examples/growth_bench.c with `--measure instructions`
//! (Callgrind: exact counts, so the fits are the same on every run): the HTML page draws one chart per family
//! with its points, its fitted curve and the fit's name, loaded in headless Chromium; and a planted change that
//! makes the `sum` family O(n^2) fails `--diff` naming the family and both orders, although the largest size
//! costs what it did (and the smaller ones less).
//!
//! Chromium is Debian's `chromium`, Valgrind Debian's `valgrind`: the tests are skipped with a note without
//! them, and fail under `RHO_REQUIRE_CROSS=1`.

mod common;

use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(600);

/// The fitted curve's stroke (`.fit` in crates/rho-report/src/html.rs).
const FIT_RGB: [u8; 3] = [0xb7, 0x79, 0x1f];

/// The `aria-label` of the growth chart of `family` in `dom` (its title: the fit's name, coefficient, RMS).
fn chart_label<'a>(dom: &'a str, family: &str) -> &'a str {
    let start = dom
        .find(&format!("data-family=\"{family}\""))
        .unwrap_or_else(|| panic!("no growth chart for {family}"));
    let tag = &dom[start..];
    let tag = &tag[..tag.find('>').unwrap()];
    let label = &tag[tag.find("aria-label=\"").unwrap() + 12..];
    &label[..label.find('"').unwrap()]
}

#[test]
fn the_page_of_growth_bench_draws_one_chart_per_family_with_its_fit() {
    if !common::tools_present(
        "the_page_of_growth_bench_draws_one_chart_per_family_with_its_fit",
        &[("chromium", "chromium"), ("valgrind", "valgrind")],
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("growth.html");
    let outcome = common::rho_in(
        dir.path(),
        &[
            "bench",
            common::repo_file("examples/growth_bench.c")
                .to_str()
                .unwrap(),
            "--measure",
            "instructions",
            "--iterations",
            "5",
            "--html",
            page.to_str().unwrap(),
        ],
        LIMIT,
    );
    outcome.assert_exit(0);
    let dom = common::chromium(dir.path(), &page, "1200,1000", &["--dump-dom"]);
    assert!(dom.contains("</html>"), "no page loaded:\n{dom}");
    assert_eq!(
        dom.matches("class=\"growth-chart\"").count(),
        3,
        "one chart per family"
    );
    for (family, order) in [("sum", "O(n),"), ("pairwise", "O(n^2),"), ("dup", "O(n),")] {
        let label = chart_label(&dom, family);
        assert!(
            label.starts_with(&format!("{family}: instructions grow as {order} c = ")),
            "{label}"
        );
        assert!(label.contains("% (4 sizes)"), "{label}");
    }
    // Each chart has its four points and its curve.
    assert_eq!(dom.matches("class=\"point\"").count(), 12);
    assert_eq!(dom.matches("class=\"fit\"").count(), 3);

    let png = dir.path().join("growth.png");
    common::chromium(
        dir.path(),
        &page,
        "1200,1000",
        &[&format!("--screenshot={}", png.display())],
    );
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let channels = info.color_type.samples();
    let curve = pixels[..info.buffer_size()]
        .chunks(channels)
        .filter(|p| p[..3].iter().zip(FIT_RGB).all(|(&a, b)| a.abs_diff(b) <= 6))
        .count();
    eprintln!(
        "{}: {curve} pixels of the fitted curves' colour",
        png.display()
    );
    // Three curves across 440-pixel plots, 2 pixels wide: well over a thousand pixels.
    assert!(
        curve > 1000,
        "the fitted curves do not show: {curve} pixels"
    );
}

/// growth_bench.c's `sum`, made O(n^2): (n / 256) passes over n / 64 bytes, n^2 / 16384 additions, the same
/// 16384 at the largest size (n = 16384) and fewer at every smaller one.
fn plant_quadratic_sum(source: &str) -> String {
    let linear = "        for (i = 0; i < n; i++) {\n            total += bytes[i];\n        }\n";
    let quadratic = "        size_t pass;\n        for (pass = 0; pass < n / 256u; pass++) {\n            \
                     for (i = 0; i < n / 64u; i++) {\n                total += bytes[i];\n            }\n        }\n";
    assert_eq!(source.matches(linear).count(), 1, "sum's loop moved");
    source.replace(linear, quadratic)
}

/// The note under the summary that starts with `start`, its wrapped lines (indented) joined.
fn note(report: &str, start: &str) -> String {
    let mut lines = report.lines().skip_while(|l| !l.starts_with(start));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no line starting {start:?}:\n{report}"));
    let mut note = first.to_string();
    for more in lines.take_while(|l| l.starts_with(' ')) {
        note.push(' ');
        note.push_str(more.trim());
    }
    note
}

#[test]
fn a_family_made_o_n2_fails_diff_naming_it_and_both_orders() {
    if !common::tools_present(
        "a_family_made_o_n2_fails_diff_naming_it_and_both_orders",
        &[("valgrind", "valgrind")],
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("bench")).unwrap();
    let source = std::fs::read_to_string(common::repo_file("examples/growth_bench.c")).unwrap();
    std::fs::write(root.join("bench/suite.c"), &source).unwrap();
    std::fs::write(
        root.join("module.yml"),
        "bench:\n  default_iterations: 5\n  suites:\n    - bench/suite.c\n",
    )
    .unwrap();
    common::git(root, &["init", "-q", "-b", "main"]);
    let rho = |args: &[&str]| common::rho_at(root, args, LIMIT);
    rho(&["bench", "--measure", "instructions", "--write-baseline"]).assert_exit(0);
    common::git(root, &["add", "module.yml", "bench"]);
    common::git(root, &["commit", "-q", "-m", "suite and baseline"]);

    // Unchanged: no family's growth moved.
    let same = rho(&["bench", "--measure", "instructions", "--diff", "HEAD"]);
    same.assert_exit(0);
    same.assert_stdout_has("growth: sum (instructions): O(n) (coefficient");
    same.assert_stdout_has("growth: pairwise (instructions): O(n^2) (coefficient");

    std::fs::write(root.join("bench/suite.c"), plant_quadratic_sum(&source)).unwrap();
    let json = root.join("diff.json");
    let page = root.join("diff.html");
    let planted = rho(&[
        "bench",
        "--measure",
        "instructions",
        "--diff",
        "HEAD",
        "--json",
        json.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    planted.assert_exit(1);
    let line = note(&planted.stdout, "growth: sum ");
    eprintln!("{line}");
    assert!(
        line.starts_with("growth: sum (instructions): O(n) (coefficient ")
            && line.contains(" -> O(n^2) (coefficient ")
            && line.contains(": regressed (a faster-growing order"),
        "{line}"
    );
    planted.assert_stdout_has("1 family growth regressed");
    // The page's headline says it too.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("1 family growth regressed")
            && html.contains(
                "<strong>Growth regressed:</strong> sum (O(n) -&gt; O(n^2) in instructions)"
            ),
        "{}",
        &html[..html.find("</section>").unwrap_or(html.len())]
    );
    // The other families are as they were.
    planted.assert_stdout_has("growth: pairwise (instructions): O(n^2)");
    let document = common::read_json(&json);
    let families = document["comparison"]["families"]
        .as_array()
        .unwrap_or_else(|| panic!("no comparison.families in {document}"));
    let sum = families.iter().find(|f| f["family"] == "sum").unwrap();
    assert_eq!(sum["base"]["order"], "n");
    assert_eq!(sum["head"]["order"], "n^2");
    assert_eq!(sum["verdict"], "regressed");
    assert_eq!(sum["metric"], "instructions");
    // The largest member barely moved; the smaller ones fell: only the growth says what will happen at a
    // larger size.
    let rows = document["comparison"]["benchmarks"].as_array().unwrap();
    let change = |name: &str| {
        rows.iter()
            .find(|b| b["name"] == name)
            .and_then(|b| {
                b["metrics"]
                    .as_array()?
                    .iter()
                    .find(|m| m["metric"] == "instructions")
            })
            .and_then(|m| m["change_percent"].as_f64())
            .unwrap_or_else(|| panic!("no instructions change for {name}"))
    };
    eprintln!(
        "sum/256 {:+.1}%, sum/1024 {:+.1}%, sum/4096 {:+.1}%, sum/16384 {:+.1}%",
        change("sum/256"),
        change("sum/1024"),
        change("sum/4096"),
        change("sum/16384")
    );
    assert!(change("sum/256") < -50.0);
    // No member's cost regressed (its code and static stack did: a loop more): on the cost, only the
    // family's growth fails the comparison.
    for name in ["sum/256", "sum/1024", "sum/4096", "sum/16384"] {
        assert!(change(name) <= 1.0, "{name}: {:+.1}%", change(name));
    }
    assert_eq!(document["comparison"]["failed"], true);
}
