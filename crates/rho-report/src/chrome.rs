//! What every HTML page of rho is wrapped in: the document, its head and the one style sheet, and the line at
//! its foot. The run, diff and gate page ([`crate::html`]) and the history page draw their bodies with maud
//! templates and hand them to [`document`]; nothing here knows what a page says.

use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The style every page shares: text, tables, the headline and summary table, and the charts' classes. A
/// chart's text is 11 px, notes too: the margins are made for that size (`crate::svg::FONT_PX`).
pub const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;\
color:#1a202c;background:#fff}\
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #cbd5e0}\
h3{font-size:15px;margin:0 0 4px;font-family:ui-monospace,Menlo,Consolas,monospace}\
.meta{color:#4a5568;margin:2px 0}.figures{color:#2d3748;margin:0 0 6px}\
.bench{border:1px solid #e2e8f0;border-radius:6px;padding:10px 12px;margin:10px 0;break-inside:avoid}\
.charts{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\
svg{font:11px system-ui,sans-serif;background:#fafbfc;border-radius:4px}\
svg text{fill:#2d3748}.bar{fill:#4a78c2}.base-bar{fill:#a0aec0}.base-hist{fill:none;stroke:#718096;stroke-width:1.5}\
.median{stroke:#b7791f;stroke-width:2}.p99{stroke:#c53030;stroke-width:2;stroke-dasharray:4 3}\
.limit{stroke:#c53030;stroke-width:1.5;stroke-dasharray:3 2}.axis{stroke:#718096;stroke-width:1}\
.ok{fill:#2f855a}.bad{fill:#c53030}.neutral{fill:#4a78c2}.head-dot{fill:#4a78c2}.base-dot{fill:#a0aec0}\
.verdict-bad{color:#c53030;font-weight:600}.verdict-ok{color:#2f855a}\
table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}\
.note{color:#718096;font-size:12px}svg .note{fill:#718096;font-size:11px}\
.headline{border:1px solid #cbd5e0;border-radius:6px;padding:8px 12px;margin:10px 0}\
.headline .verdict{font-size:17px;margin:2px 0 6px}.named{margin:3px 0}.named a,.summary a{color:#2b6cb0}\
.summary{font-size:13px;margin:8px 0}.summary th{border-bottom:1px solid #cbd5e0;vertical-align:bottom}\
.summary td{border-bottom:1px solid #edf2f7;font-variant-numeric:tabular-nums}\
.summary caption{text-align:left;font-weight:600}.summary .limit-set{display:block;font-weight:400;color:#4a5568}\
.fit{fill:none;stroke:#b7791f;stroke-width:2}.point{fill:#4a78c2}";

/// A whole page titled `title`: the shared [`STYLE`] then `extra_style` (a page's own classes), the title as
/// its heading, then `body`, then the line saying rho wrote it.
pub fn document(title: &str, extra_style: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                // A style sheet is raw text in HTML (no entity is decoded in it), so it cannot be escaped:
                // both are constants of rho, never user text.
                style { (PreEscaped(STYLE)) (PreEscaped(extra_style)) }
            }
            body {
                h1 { (title) }
                (body)
            }
        }
    }
}
