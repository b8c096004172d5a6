//! `--html FILE` rendered by a real browser: `rho bench --html` on the spec suite, `rho bench compare --html`
//! and `rho bench show --html` on saved runs, each page loaded in headless Chromium. The DOM Chromium built
//! after loading has one distribution chart per benchmark, and a screenshot of the page is not blank (it has
//! the bars' colour over a good share of it). Chromium is Debian's `chromium`: skipped with a note when it is
//! missing, a failure under `RHO_REQUIRE_CROSS=1` (`.ci/run` installs it).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rho_exec::{Runner, Termination};

const LIMIT: Duration = Duration::from_secs(300);

/// The histogram bars' fill (`.bar` in crates/rho-report/src/html.rs).
const BAR_RGB: [u8; 3] = [0x4a, 0x78, 0xc2];

fn chromium_present(test: &str) -> bool {
    common::tools_present(test, &[("chromium", "chromium")])
}

/// Chromium, headless, on `page`, with `args` (`--dump-dom`, `--screenshot=...`); its profile in `profile`.
/// Returns what it printed on stdout.
fn chromium(profile: &Path, page: &Path, args: &[&str]) -> String {
    let mut command = Command::new("chromium");
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .current_dir(profile)
        .env("HOME", profile);
    let (finished, stdout) = Runner::new(command)
        .timeout(Duration::from_secs(120))
        .stderr_limit(1 << 20)
        .run_collect()
        .unwrap();
    assert!(
        matches!(finished.termination, Termination::Exited(0)),
        "chromium {args:?}: {:?}\n{}",
        finished.termination,
        finished.stderr
    );
    stdout
}

/// The benchmark names of a `rho-bench-run/1` document.
fn names(json: &Path) -> Vec<String> {
    common::bench_names(&common::read_json(json))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Loads `page` in Chromium: its DOM after loading has one distribution chart per name in `benchmarks`
/// (each naming its benchmark) and `extra` charts of class `extra_class`; a screenshot shows the bars.
fn assert_renders(dir: &Path, page: &Path, benchmarks: &[String], extra: Option<(&str, usize)>) {
    let dom = chromium(dir, page, &["--dump-dom"]);
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
    if let Some((class, count)) = extra {
        assert_eq!(
            dom.matches(&format!("class=\"chart {class}\"")).count(),
            count,
            "{class} charts"
        );
    }

    let png = dir.join("screenshot.png");
    let _ = std::fs::remove_file(&png);
    chromium(dir, page, &[&format!("--screenshot={}", png.display())]);
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
    let bars = pixels
        .chunks(channels)
        .filter(|p| p[..3].iter().zip(BAR_RGB).all(|(&a, b)| a.abs_diff(b) <= 4))
        .count();
    eprintln!(
        "{}: {}x{}, {differing} of {total} pixels not the background, {bars} of the bars' colour",
        page.display(),
        info.width,
        info.height
    );
    assert!(differing * 20 > total, "the screenshot is almost blank");
    assert!(bars * 200 > total, "the screenshot shows no histogram bars");
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
    assert_renders(dir.path(), &page, &benchmarks, Some(("footprint", 6)));

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
    assert_renders(dir.path(), &shown, &benchmarks, None);

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
    assert_renders(dir.path(), &compared, &benchmarks, Some(("diff", 6)));
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
