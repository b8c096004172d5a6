//! The flame graph of one benchmark's measured loop, drawn by inferno (the drawer cargo-flamegraph uses) from
//! rho-profile's folded stacks: differential when base's functions are known (width: head's inclusive
//! instructions per iteration; red where head grew, blue where it shrank, as inferno-diff-folded's graphs),
//! head's alone otherwise. inferno writes a whole SVG document with its own style and script (hover, zoom,
//! search), so the page holds each graph in a frame of its own ([`framed`]): its styles and element ids
//! cannot reach the page or another graph.

use maud::{Markup, html};
use rho_profile::flame::{Frame, folded};

/// Why a flame graph could not be drawn (inferno refused the folded stacks).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the flame graph of {bench}: {source}")]
pub struct FlameError {
    bench: String,
    source: std::io::Error,
}

/// `tree` drawn by inferno as an SVG document titled `title`, counts in instructions per iteration.
pub fn svg(tree: &Frame, bench: &str, title: &str) -> Result<String, FlameError> {
    let lines = folded(tree);
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "instructions/iter".to_string();
    // Colours from the names, not from a random draw: the same run draws the same page.
    options.hash = true;
    options.deterministic = true;
    let mut out = Vec::new();
    let mut sorted: Vec<&str> = lines.iter().map(String::as_str).collect();
    // inferno merges stacks in order: the lines are sorted, as inferno's own collapse tools leave them.
    sorted.sort_unstable();
    inferno::flamegraph::from_lines(&mut options, sorted, &mut out).map_err(|source| {
        FlameError {
            bench: bench.to_string(),
            source,
        }
    })?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// An SVG document in a frame of its own on the page (`srcdoc`: an HTML document holding the drawing, scripts
/// allowed inside it and nothing else), as wide as the page and as tall as the drawing at that width; `class`
/// names the frame for the page's style.
pub fn framed(document: &str, class: &str, label: &str) -> Markup {
    let attribute = |name: &str| {
        document
            .split_once(&format!(" {name}=\""))
            .and_then(|(_, rest)| rest.split_once('"'))
            .and_then(|(number, _)| number.parse::<u32>().ok())
    };
    let (width, height) = (
        attribute("width").unwrap_or(1200),
        attribute("height").unwrap_or(400),
    );
    // srcdoc is read as HTML: the XML prolog goes, and the drawing scales to the frame's width.
    let drawing = document
        .find("<svg")
        .map_or(document, |start| &document[start..]);
    // The frame's own document is built as text: it wraps inferno's drawing, a whole SVG document that is
    // already markup (no template can hold it but as raw text), and it is escaped as a whole into the
    // `srcdoc` attribute by the template below.
    let inner = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{{margin:0;overflow:hidden}}\
         svg{{display:block;width:100%;height:auto}}</style></head><body>{drawing}</body></html>"
    );
    html! {
        iframe class=(class) title=(label) sandbox="allow-scripts"
            style=(format!("width:100%;aspect-ratio:{width}/{height};border:0")) srcdoc=(inner) {}
    }
}

/// A regressed benchmark's differential flame graph, drawn by inferno from rho-profile's call tree: head's
/// call tree of the measured loop, frames as wide as head's inclusive instructions, red where they grew
/// against base, blue where they shrank. Empty when head's list has no root to draw from.
pub fn flame_graph(
    bench: &str,
    base: Option<&rho_profile::Functions>,
    head: &rho_profile::Functions,
) -> Markup {
    let Some(tree) = rho_profile::flame::tree(base, head) else {
        return html! {};
    };
    let drawn = svg(&tree, bench, &format!("{bench}: differential flame graph"));
    html! {
        figure.flame-graph id=(format!("flame-{bench}")) {
            figcaption {
                (bench) ": where the instructions went, per iteration (width: head's inclusive count; red: \
                 more than base, blue: fewer; hover a frame for its figures and change, click to zoom)"
            }
            @match drawn {
                Ok(document) => (framed(&document, "flame", bench)),
                Err(error) => p.note { (error.to_string()) },
            }
        }
    }
}

/// The functions whose counts changed most (rho-profile's diff) as a table: base -> head, self and inclusive
/// per iteration, with the change, and whether a function is only on one side.
pub fn changed_functions_table(changes: &[rho_profile::diff::FunctionChange]) -> Markup {
    html! {
        table.changed-functions {
            tr { th { "function" } th { "self base → head" } th { "inclusive base → head" } th {} }
            @for change in changes {
                @let [own, inclusive] = crate::profile::cells(change, "→");
                tr {
                    td { code { (change.name) } }
                    td { (own) }
                    td { (inclusive) }
                    td { (change.presence().unwrap_or("")) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(name: &str, head: f64, base: Option<f64>, children: Vec<Frame>) -> Frame {
        Frame {
            name: name.to_string(),
            head,
            base,
            children,
        }
    }

    #[test]
    fn inferno_draws_the_differential_graph_with_each_frames_change() {
        // bench 115 (base 110) -> kernel 105 (base 100) -> helper 100 (only in head).
        let tree = frame(
            "bench",
            115.0,
            Some(110.0),
            vec![frame(
                "kernel",
                105.0,
                Some(100.0),
                vec![frame("helper", 100.0, None, vec![])],
            )],
        );
        let drawn = svg(&tree, "bench", "bench: differential flame graph").unwrap();
        assert!(drawn.contains("<svg") && drawn.contains("bench: differential flame graph"));
        // Width by head's figures, the change against base as a share of the whole.
        assert!(
            drawn.contains("<title>helper (100 instructions/iter, 86.96%; +86.96%)</title>"),
            "{drawn}"
        );
        // The kernel's own instructions fell from 100 to 5 (its inclusive 105 is mostly the helper's now).
        assert!(
            drawn.contains("<title>kernel (105 instructions/iter, 91.30%; -82.61%)</title>"),
            "{drawn}"
        );
        assert!(drawn.contains("<title>bench (115 instructions/iter, 100.00%; 0.00%)</title>"));
        let framed = framed(&drawn, "flame", "bench").into_string();
        assert!(framed.starts_with("<iframe class=\"flame\" title=\"bench\""));
        assert!(
            !framed.contains("<svg"),
            "the document is escaped into srcdoc"
        );
        assert!(framed.contains("aspect-ratio:1200/"));
        assert!(framed.contains("srcdoc=\"&lt;!DOCTYPE html&gt;") && !framed.contains("&lt;?xml"));
    }
}
