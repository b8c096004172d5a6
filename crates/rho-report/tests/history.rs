//! The history's views (text, Markdown, page) drawn from rho-history's analysis of made-up records: the
//! functions behind an instructions step up in each, the page's order (verdict, change points, summary, then
//! the charts), its y-axis note and label room, and the p25-p75 band where records carry quartiles.

#[path = "../../rho-history/tests/common/mod.rs"]
mod common;

use common::{commits, listing_of, record, stepped_with_functions};
use rho_baseline::format::Figure;
use rho_history::analysis::{Analysis, Commit, Detection, Filter, analyse};
use rho_history::check::{Judgement, judge_newest};
use rho_history::{Listing, Measure, Record};
use rho_report::history::page::{History, render};

fn instructions_only() -> Filter {
    Filter {
        metric: Some("instructions".to_string()),
        ..Filter::default()
    }
}

/// The page of `analysis`, judged by a limit of 10% for every metric.
fn page_of(analysis: &Analysis, commits: &[Commit], listing: &Listing) -> String {
    let limit = |_: &str, _| 10.0;
    let judgement: Judgement =
        judge_newest(analysis, commits, listing, Detection::default(), limit);
    render(&History {
        title: "t",
        analysis,
        commits,
        listing,
        judgement: &judgement,
        limit: &limit,
    })
}

/// Why it got slower (issue 26): under an instructions change point that went up, the history's text names
/// the functions whose counts changed between the commit before it and the first commit after, when both
/// records carry the benchmark's functions; a helper that appeared is only in head.
#[test]
fn a_step_up_in_instructions_names_the_functions_that_changed() {
    let (commits, records) = stepped_with_functions();
    let analysis = analyse(
        &records,
        &commits,
        &instructions_only(),
        Detection::default(),
    );
    let listing = listing_of(&records);
    let text = rho_report::history::text::render_text(&analysis, &commits, &listing, "rho-history");
    let after_change: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("  change at "))
        .collect();
    assert!(after_change.len() >= 4, "{text}");
    assert!(
        after_change[1].contains("function (instructions/iter)"),
        "{text}"
    );
    assert!(
        after_change[2].trim_start().starts_with("helper")
            && after_change[2].contains("- -> 50000 (+50000)")
            && after_change[2].ends_with("only in head"),
        "{text}"
    );
    assert!(
        after_change[3].contains("100000 -> 150000 (+50000)"),
        "{text}"
    );
}

/// The same functions in the history's Markdown (a collapsed block) and its page (a table and the
/// differential flame graph); a series with no step up has none anywhere.
#[test]
fn a_step_ups_functions_are_in_the_markdown_and_the_page() {
    let (commits, records) = stepped_with_functions();
    let analysis = analyse(
        &records,
        &commits,
        &instructions_only(),
        Detection::default(),
    );
    let listing = listing_of(&records);

    let markdown = rho_report::history::markdown::render(&analysis, &commits, &listing);
    let block = markdown
        .split("<details>")
        .nth(1)
        .unwrap_or_else(|| panic!("no collapsed block: {markdown}"));
    assert!(
        block.starts_with(&format!(
            "<summary>bench_a instructions at {}: the functions that changed most</summary>",
            &commits[20].id[..10]
        )),
        "{markdown}"
    );
    assert!(
        block.contains("| `helper` | - → 50000 (+50000) | - → 50000 (+50000) | only in head |")
            && block.contains("| `bench_a` | 100000 → 100000 (0) | 100000 → 150000 (+50000) |  |"),
        "{markdown}"
    );
    assert_eq!(markdown.matches("<details>").count(), 1, "{markdown}");

    let page = page_of(&analysis, &commits, &listing);
    assert_eq!(
        page.matches("<div class=\"functions-behind\"").count(),
        1,
        "{page}"
    );
    // The helper's row: nothing in base, 50000 in head (the arrow between them, as the table writes it).
    let helper_row = page
        .split("<td><code>helper</code></td>")
        .nth(1)
        .and_then(|rest| rest.split_once("</tr>"))
        .map(|(row, _)| row)
        .unwrap_or_else(|| panic!("no helper row in {page}"));
    assert!(
        helper_row.starts_with("<td>- ")
            && helper_row.contains(" 50000 (+50000)</td>")
            && helper_row.contains("only in head</td>"),
        "{helper_row}"
    );
    assert_eq!(
        page.matches("<figure class=\"flame-graph\"").count(),
        1,
        "{page}"
    );
    // inferno's drawing, in the frame's srcdoc (its markup escaped there): the helper, only in head, grew.
    assert_eq!(page.matches("<iframe class=\"flame\"").count(), 1, "{page}");
    let helper = page
        .split("&lt;title&gt;helper (50,000 instructions/iter, ")
        .nth(1)
        .and_then(|rest| rest.split_once("&lt;/title&gt;"))
        .map(|(figures, _)| figures);
    assert!(
        helper.is_some_and(|figures| figures.contains("%; +")),
        "{page}"
    );

    // Flat records carry functions too, but with no step up nothing is named.
    let flat: Vec<Record> = records[..20].to_vec();
    let flat_analysis = analyse(
        &flat,
        &commits[..20],
        &instructions_only(),
        Detection::default(),
    );
    let flat_listing = listing_of(&flat);
    let markdown =
        rho_report::history::markdown::render(&flat_analysis, &commits[..20], &flat_listing);
    assert!(!markdown.contains("<details>"), "{markdown}");
    let page = page_of(&flat_analysis, &commits[..20], &flat_listing);
    assert!(!page.contains("functions-behind"), "{page}");
    assert!(page.contains("<p class=\"verdict pass\">"), "{page}");
}

/// The page answers first: the verdict, then the change points (each linking to its chart), then one row per
/// series naming every benchmark with its limit, and only then the first chart. The stepped chart's y axis
/// (about 100000 to 150000) says where it starts; a chart of zeros starts at zero and says nothing.
#[test]
fn the_page_opens_with_its_verdict_change_points_and_summary_before_any_chart() {
    let line = commits(30);
    let records: Vec<Record> = line
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let step = if i >= 29 { 150_000.0 } else { 100_000.0 };
            // Every heap peak is 0: charts whose axis starts at zero.
            record(
                &c.id,
                "ci",
                Measure::Instructions,
                &[("bench_step", step), ("bench_flat", 5_000.0)],
            )
        })
        .collect();
    let analysis = analyse(&records, &line, &Filter::default(), Detection::default());
    let page = page_of(&analysis, &line, &listing_of(&records));

    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in {page}"))
    };
    let first_chart = at("<svg");
    assert!(
        at("class=\"verdict fail\"") < at("id=\"change-points\""),
        "{page}"
    );
    assert!(at("id=\"change-points\"") < at("id=\"summary\""), "{page}");
    assert!(at("id=\"summary\"") < first_chart, "{page}");
    let summary = &page[at("id=\"summary\"")..first_chart];
    for bench in ["bench_step", "bench_flat"] {
        assert!(summary.contains(&format!(">{bench}</a>")), "{summary}");
    }
    assert!(summary.contains(">10%</td>"), "{summary}");
    // The one change point: bench_step's instructions at commit 29, +50%, up, linking to its chart.
    let changes = &page[at("id=\"change-points\"")..at("id=\"summary\"")];
    assert!(changes.contains("\u{25b2} +50.0%"), "{changes}");
    assert!(changes.contains(&line[29].id[..10]), "{changes}");
    let href = changes
        .split("href=\"#")
        .nth(1)
        .and_then(|rest| rest.split_once('"'))
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no link in {changes}"));
    let chart = &page[at(&format!("id=\"{href}\""))..];
    assert!(
        chart.starts_with(&format!(
            "id=\"{href}\" data-bench=\"bench_step\" data-metric=\"instructions\""
        )),
        "{chart}"
    );

    // The y-axis note: under bench_step's instructions chart, none under a chart of zeros.
    let section = |bench: &str, metric: &str| {
        let start = at(&format!("data-bench=\"{bench}\" data-metric=\"{metric}\""));
        let rest = &page[start..];
        rest[..rest.find("</section>").unwrap_or(rest.len())].to_string()
    };
    let stepped = section("bench_step", "instructions");
    assert!(stepped.contains("class=\"axis-note\""), "{stepped}");
    assert!(stepped.contains("axis from "), "{stepped}");
    let zeros = section("bench_step", "heap_peak_bytes");
    assert!(!zeros.contains("axis-note"), "{zeros}");

    // The left margin holds the longest y label: the axis sits right of the label's measured width.
    let axis_x: f64 = stepped
        .split("<line class=\"axis\" x1=\"")
        .nth(1)
        .and_then(|rest| rest.split_once('"'))
        .and_then(|(x, _)| x.parse().ok())
        .unwrap_or_else(|| panic!("no axis in {stepped}"));
    assert!(axis_x >= "154000".len() as f64 * 7.0 + 6.0, "{stepped}");
}

/// The regressed come first, then the largest changes: a +5% step at the newest commit (beyond a 1% limit)
/// is listed before a +50% step that returned ten commits later, in the change points and in the summary.
#[test]
fn the_regressed_come_first_then_the_largest_changes() {
    let line = commits(30);
    let records: Vec<Record> = line
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let small = if i == 29 { 105_000.0 } else { 100_000.0 };
            let big = if (10..20).contains(&i) {
                150_000.0
            } else {
                100_000.0
            };
            record(
                &c.id,
                "ci",
                Measure::Instructions,
                &[("bench_big", big), ("bench_small", small)],
            )
        })
        .collect();
    let analysis = analyse(&records, &line, &instructions_only(), Detection::default());
    let listing = listing_of(&records);
    let limit = |_: &str, _| 1.0;
    let judgement = judge_newest(&analysis, &line, &listing, Detection::default(), limit);
    assert_eq!(judgement.failures.len(), 1);
    let page = render(&History {
        title: "t",
        analysis: &analysis,
        commits: &line,
        listing: &listing,
        judgement: &judgement,
        limit: &limit,
    });
    let section = |id: &str| {
        let rest = &page[page.find(&format!("id=\"{id}\"")).unwrap_or(0)..];
        rest[..rest.find("</section>").unwrap_or(rest.len())].to_string()
    };
    let benches = |html: &str| -> Vec<String> {
        html.split("\">bench_")
            .skip(1)
            .filter_map(|rest| rest.split_once('<'))
            .map(|(name, _)| format!("bench_{name}"))
            .collect()
    };
    let changes = section("change-points");
    assert_eq!(
        benches(&changes),
        ["bench_small", "bench_big", "bench_big"],
        "{changes}"
    );
    assert!(changes.contains("\u{25b2} +5.0%"), "{changes}");
    let big_rows: Vec<&str> = changes
        .split("<tr>")
        .filter(|r| r.contains("bench_big"))
        .collect();
    assert!(
        big_rows[0].contains("+50.0%") && big_rows[1].contains("\u{25bc} -33.3%"),
        "{changes}"
    );
    assert_eq!(benches(&section("summary")), ["bench_small", "bench_big"]);
    assert!(page.contains("<p class=\"verdict fail\">"), "{page}");
}

#[test]
fn a_band_is_drawn_where_records_have_quartiles_and_nowhere_else() {
    let line = commits(3);
    let mut banded = record(&line[1].id, "m", Measure::Time, &[("b", 100.0)]);
    banded.quartiles.insert(
        "b".to_string(),
        rho_history::Quartiles {
            cycles: None,
            time_ns: Some([Figure(90.0), Figure(130.0)]),
        },
    );
    let plain = record(&line[0].id, "m", Measure::Time, &[("b", 100.0)]);
    let newest = record(&line[2].id, "m", Measure::Time, &[("b", 100.0)]);
    let records = [plain, banded, newest];
    let analysis = analyse(&records, &line, &Filter::default(), Detection::default());
    let page = page_of(&analysis, &line, &listing_of(&records));
    assert_eq!(page.matches("<polygon class=\"band\"").count(), 1, "{page}");
}
