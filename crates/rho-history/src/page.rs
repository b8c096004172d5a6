//! `rho bench history --html`: one self-contained page (inline SVG and CSS, nothing fetched; the only script is
//! inferno's, inside each flame graph's sandboxed frame) with a
//! trend chart per benchmark and metric: the figure at each commit, one line per machine, each point's commit
//! (short hash and subject) and figure in its SVG `<title>` (the browser's hover text), the p25-p75 band
//! shaded where the records carry quartiles, each change point a dashed vertical line with its own `<title>`.
//! Under an instructions step up whose records on both sides carry the benchmark's functions: the functions
//! whose counts changed most and the differential flame graph (rho-report's, as the compare page draws them).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rho_report::html::escape;

use crate::analysis::{Analysis, Commit, Series, is_exact};
use crate::document::figure_text;
use crate::git::Listing;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;
/// One colour per machine, in turn.
const COLOURS: [&str; 6] = [
    "#4a78c2", "#d08a2c", "#3a9a5b", "#8c5bb5", "#c2504a", "#5a5a5a",
];

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.05em;margin:1.6em 0 .3em}\
svg{background:#fafafa;border:1px solid #ddd}\
.axis{stroke:#999;stroke-width:1}.label{font-size:11px;fill:#555}\
.change{stroke:#c2504a;stroke-width:2;stroke-dasharray:5 3}.band{fill-opacity:.18;stroke:none}\
.legend{font-size:12px;color:#555}table{border-collapse:collapse}\
td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}h3{font-size:.95em}";

/// The page of `analysis` along `commits`, with the functions behind each step up that `listing`'s records
/// carry.
pub fn render(title: &str, analysis: &Analysis, commits: &[Commit], listing: &Listing) -> String {
    let mut charts: BTreeMap<(&str, &str, &str, &str), Vec<&Series>> = BTreeMap::new();
    for series in &analysis.series {
        let key = &series.key;
        charts
            .entry((&key.bench, key.metric, &key.target, key.measure.name()))
            .or_default()
            .push(series);
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style>\
         </head><body>\n<h1>{}</h1>\n<p>{} chart(s) over {} commit(s), {} change point(s).</p>\n",
        escape(title),
        escape(title),
        charts.len(),
        commits.len(),
        analysis
            .series
            .iter()
            .map(|s| s.changes.len())
            .sum::<usize>()
    );
    for ((bench, metric, target, measure), lines) in &charts {
        let _ = writeln!(
            out,
            "<section class=\"history\" data-bench=\"{}\" data-metric=\"{metric}\"><h2>{} {metric} \
             <small>(target {}, {measure})</small></h2>",
            escape(bench),
            escape(bench),
            escape(target)
        );
        out.push_str(&chart(lines, commits));
        out.push_str("<p class=\"legend\">");
        for (n, series) in lines.iter().enumerate() {
            let _ = write!(
                out,
                "<span style=\"color:{}\">&#9632; {}</span> ",
                COLOURS[n % COLOURS.len()],
                escape(&series.key.machine)
            );
        }
        out.push_str(if lines.iter().any(|s| is_exact(s.metric)) {
            "(exact: every step is a change point)"
        } else {
            "(change points: E-Divisive means, t-test)"
        });
        out.push_str("</p>");
        for series in lines {
            functions_behind(&mut out, series, commits, listing);
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Under each step up of `series` whose records carry functions: the table of those that changed most and the
/// differential flame graph, the commit before the step against its first commit.
fn functions_behind(out: &mut String, series: &Series, commits: &[Commit], listing: &Listing) {
    for change in &series.changes {
        let Some(behind) = crate::functions::behind(series, change, commits, listing) else {
            continue;
        };
        let commit = &commits[change.commit_index];
        let _ = writeln!(
            out,
            "<div class=\"functions-behind\" data-commit=\"{}\"><h3>{} at {} ({}): the functions that changed \
             most, per iteration</h3>",
            escape(&commit.id),
            escape(&series.key.bench),
            short(&commit.id),
            escape(&series.key.machine)
        );
        out.push_str(&rho_report::html::changed_functions_table(&behind.changes).into_string());
        out.push_str(
            &rho_report::html::flame_graph(&series.key.bench, Some(behind.base), behind.head)
                .into_string(),
        );
        out.push_str("</div>\n");
    }
}

/// One chart: every machine's line over the commit axis, change points marked.
fn chart(lines: &[&Series], commits: &[Commit]) -> String {
    let values = lines.iter().flat_map(|s| {
        s.points.iter().flat_map(|p| {
            let (p25, p75) = p.band.unwrap_or((p.value, p.value));
            [p.value, p25, p75]
        })
    });
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let pad = if high > low {
        (high - low) * 0.08
    } else {
        high.abs().max(1.0) * 0.05
    };
    let (low, high) = (low - pad, high + pad);
    let span = commits.len().saturating_sub(1).max(1) as f64;
    let x = |index: usize| LEFT + (WIDTH - LEFT - RIGHT) * index as f64 / span;
    let y = |value: f64| TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low);
    let mut svg = format!(
        "<svg class=\"trend\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         xmlns=\"http://www.w3.org/2000/svg\">"
    );
    let _ = write!(
        svg,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{b}\"/>\
         <text class=\"label\" x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{}</text>\
         <text class=\"label\" x=\"{lx}\" y=\"{b}\" text-anchor=\"end\">{}</text>",
        figure_text(high - pad),
        figure_text(low + pad),
        b = HEIGHT - BOTTOM,
        r = WIDTH - RIGHT,
        lx = LEFT - 6.0,
        ty = TOP + 10.0,
    );
    for (end, anchor) in [(0, "start"), (commits.len().saturating_sub(1), "end")] {
        if let Some(commit) = commits.get(end) {
            let _ = write!(
                svg,
                "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
                x(end),
                HEIGHT - 8.0,
                short(&commit.id)
            );
        }
    }
    for (n, series) in lines.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        svg.push_str(&bands(series, colour, &x, &y));
    }
    for (n, series) in lines.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        let path: Vec<String> = series
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.commit_index), y(p.value)))
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            path.join(" ")
        );
        for point in &series.points {
            let commit = &commits[point.commit_index];
            let _ = write!(
                svg,
                "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{colour}\"><title>{} {}: {} \
                 ({})</title></circle>",
                x(point.commit_index),
                y(point.value),
                short(&commit.id),
                escape(&commit.subject),
                figure_text(point.value),
                escape(&series.key.machine)
            );
        }
        for change in &series.changes {
            let commit = &commits[change.commit_index];
            let cx = x(change.commit_index);
            let _ = write!(
                svg,
                "<line class=\"change\" x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{}\"><title>change at {} {}: \
                 {} -&gt; {} ({}) on {}</title></line>",
                HEIGHT - BOTTOM,
                short(&commit.id),
                escape(&commit.subject),
                figure_text(change.before),
                figure_text(change.after),
                change
                    .change_percent
                    .map_or("-".to_string(), |p| format!("{p:+.1}%")),
                escape(&series.key.machine)
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The p25-p75 band of `series` as one polygon per run of consecutive points that have a band (a point
/// without one, from a record that carried no quartiles, breaks it); a lone point's band is a narrow bar.
fn bands(
    series: &Series,
    colour: &str,
    x: &impl Fn(usize) -> f64,
    y: &impl Fn(f64) -> f64,
) -> String {
    let mut svg = String::new();
    for run in series
        .points
        .chunk_by(|a, b| a.band.is_some() == b.band.is_some())
    {
        let banded: Vec<(usize, (f64, f64))> = run
            .iter()
            .filter_map(|p| Some((p.commit_index, p.band?)))
            .collect();
        if banded.is_empty() {
            continue;
        }
        let half = if banded.len() == 1 { 2.0 } else { 0.0 };
        let upper = banded
            .iter()
            .map(|(i, (_, p75))| format!("{:.1},{:.1}", x(*i) - half, y(*p75)));
        let lower = banded
            .iter()
            .rev()
            .map(|(i, (p25, _))| format!("{:.1},{:.1}", x(*i) + half, y(*p25)));
        let points: Vec<String> = upper.chain(lower).collect();
        let _ = write!(
            svg,
            "<polygon class=\"band\" fill=\"{colour}\" points=\"{}\"><title>p25-p75 ({})</title></polygon>",
            points.join(" "),
            escape(&series.key.machine)
        );
    }
    svg
}

fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}
