//! The differential flame graph of one benchmark: head's call tree of the measured loop, each frame as wide as
//! head's inclusive instructions, coloured by the change against base (red more, blue fewer), drawn as inline
//! SVG with the figures in each frame's `<title>`.
//!
//! Callgrind keeps one level of callers, not whole stacks: a function reached from several callers has its
//! callees shared out in proportion to the instructions each caller's calls took (as gprof does).

use crate::diff::{signed, whole};
use crate::net::{FunctionFigures, Functions};

/// Deeper than this, a tree is cut (a call chain this long in a measured loop is recursion).
const MAX_DEPTH: usize = 40;
const WIDTH: f64 = 1000.0;
const ROW: f64 = 18.0;

/// One frame: a function on one path from the loop's root, its instructions per iteration on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub name: String,
    pub head: f64,
    /// `None`: the path is not in base.
    pub base: Option<f64>,
    pub children: Vec<Frame>,
}

/// Head's tree from the loop's root, with base's figures on the same paths; `None` without functions.
pub fn tree(base: Option<&Functions>, head: &Functions) -> Option<Frame> {
    let root = root(head)?;
    let base_root = base.and_then(|b| b.get(&root.name));
    Some(expand(
        base,
        head,
        root,
        root.inclusive_per_iteration,
        base_root.map(|f| f.inclusive_per_iteration),
        &mut vec![root.name.clone()],
    ))
}

fn root(functions: &Functions) -> Option<&FunctionFigures> {
    functions
        .listed
        .iter()
        .filter(|f| {
            !functions
                .listed
                .iter()
                .any(|caller| caller.calls.iter().any(|c| c.callee == f.name))
        })
        .max_by(|a, b| {
            a.inclusive_per_iteration
                .total_cmp(&b.inclusive_per_iteration)
        })
}

fn expand(
    base: Option<&Functions>,
    head: &Functions,
    function: &FunctionFigures,
    head_value: f64,
    base_value: Option<f64>,
    path: &mut Vec<String>,
) -> Frame {
    let mut frame = Frame {
        name: function.name.clone(),
        head: head_value,
        base: base_value,
        children: Vec::new(),
    };
    if path.len() >= MAX_DEPTH {
        return frame;
    }
    let share = |part: f64, whole_figure: f64| {
        if whole_figure > 0.0 {
            part / whole_figure
        } else {
            0.0
        }
    };
    let head_share = share(head_value, function.inclusive_per_iteration);
    let base_function = base.and_then(|b| b.get(&function.name));
    for call in &function.calls {
        let Some(callee) = head.get(&call.callee) else {
            continue;
        };
        if path.contains(&callee.name) {
            continue;
        }
        let base_call = base_function.zip(base_value).and_then(|(f, value)| {
            let call = f.calls.iter().find(|c| c.callee == call.callee)?;
            Some(call.inclusive_per_iteration * share(value, f.inclusive_per_iteration))
        });
        path.push(callee.name.clone());
        frame.children.push(expand(
            base,
            head,
            callee,
            call.inclusive_per_iteration * head_share,
            base_call,
            path,
        ));
        path.pop();
    }
    frame
        .children
        .sort_by(|a, b| b.head.total_cmp(&a.head).then_with(|| a.name.cmp(&b.name)));
    frame
}

fn depth(frame: &Frame) -> usize {
    1 + frame.children.iter().map(depth).max().unwrap_or(0)
}

/// The graph as an `<svg>` element (no script, nothing fetched), titled `title`.
pub fn svg(frame: &Frame, title: &str) -> String {
    let height = depth(frame) as f64 * ROW + 2.0;
    let mut out = format!(
        "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" style=\"max-width:100%;height:auto\" role=\"img\" aria-label=\"{}\">\n",
        escape(title)
    );
    let scale = if frame.head > 0.0 {
        WIDTH / frame.head
    } else {
        0.0
    };
    draw(frame, 0.0, 0, scale, &mut out);
    out.push_str("</svg>\n");
    out
}

fn draw(frame: &Frame, x: f64, level: usize, scale: f64, out: &mut String) {
    let width = frame.head * scale;
    if width < 0.5 {
        return;
    }
    let y = level as f64 * ROW;
    let change = match frame.base {
        Some(base) => format!(
            "base {} -> head {} ({}{})",
            whole(base),
            whole(frame.head),
            signed(frame.head - base),
            if base > 0.0 {
                format!(", {:+.1}%", (frame.head - base) / base * 100.0)
            } else {
                String::new()
            }
        ),
        None => format!("head {} (only in head)", whole(frame.head)),
    };
    out.push_str(&format!(
        "<g class=\"frame\"><title>{}: {} instructions/iter</title>\
         <rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"{}\" stroke=\"#fff\"/>",
        escape(&frame.name),
        escape(&change),
        ROW - 1.0,
        colour(frame)
    ));
    let fits = (width / 7.0) as usize;
    if fits >= 4 {
        let label: String = if frame.name.chars().count() > fits {
            let cut: String = frame.name.chars().take(fits.saturating_sub(2)).collect();
            format!("{cut}..")
        } else {
            frame.name.clone()
        };
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" font-family=\"monospace\">{}</text>",
            x + 3.0,
            y + ROW - 5.0,
            escape(&label)
        ));
    }
    out.push_str("</g>\n");
    let mut child_x = x;
    for child in &frame.children {
        draw(child, child_x, level + 1, scale, out);
        child_x += child.head * scale;
    }
}

/// Red for more instructions than base, blue for fewer, the deeper the larger the change (full at +-50%);
/// grey for no change.
fn colour(frame: &Frame) -> String {
    let ratio = match frame.base {
        Some(base) if base > 0.0 => (frame.head - base) / base,
        Some(_) | None => 1.0,
    };
    if (frame.head - frame.base.unwrap_or(0.0)).abs() < 0.5 {
        return "rgb(220,220,220)".to_string();
    }
    let depth = (ratio.abs() * 2.0).clamp(0.15, 1.0);
    let fade = (230.0 - 190.0 * depth) as u8;
    if ratio > 0.0 {
        format!("rgb(230,{fade},{fade})")
    } else {
        format!("rgb({fade},{fade},230)")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
