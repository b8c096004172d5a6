//! The differential flame graph's data for one benchmark: head's call tree of the measured loop with base's
//! figures on the same paths ([`tree`]), and its folded stacks ([`folded`]), which rho-report hands to
//! inferno to draw (each frame as wide as head's inclusive instructions, red where it grew, blue where it
//! shrank).
//!
//! Callgrind keeps one level of callers, not whole stacks: a function reached from several callers has its
//! callees shared out in proportion to the instructions each caller's calls took (as gprof does).

use crate::net::{FunctionFigures, Functions};

/// Deeper than this, a tree is cut (a call chain this long in a measured loop is recursion).
const MAX_DEPTH: usize = 40;

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

/// The tree as folded stacks, the input of a flame graph drawer (inferno, as cargo-flamegraph uses): one line
/// per path, `root;child;...` and the path's own figure (its frame less its children's), in whole instructions
/// per iteration (a drawer counts whole samples; the instructions metric is whole instructions too). With
/// base's figures the lines are differential, `STACK BASE HEAD` (inferno-diff-folded's form: red where head
/// grew, blue where it shrank), a path not in base counting 0 there.
pub fn folded(frame: &Frame) -> Vec<String> {
    let differential = has_base(frame);
    let mut lines = Vec::new();
    fold(frame, &mut Vec::new(), differential, &mut lines);
    lines
}

fn has_base(frame: &Frame) -> bool {
    frame.base.is_some() || frame.children.iter().any(has_base)
}

fn fold<'a>(frame: &'a Frame, path: &mut Vec<&'a str>, differential: bool, out: &mut Vec<String>) {
    path.push(&frame.name);
    let own = |whole: f64, parts: f64| (whole - parts).max(0.0).round() as u64;
    let head = own(frame.head, frame.children.iter().map(|c| c.head).sum());
    let base = own(
        frame.base.unwrap_or(0.0),
        frame.children.iter().filter_map(|c| c.base).sum(),
    );
    // A frame whose own share is nothing on both sides is drawn by its children alone.
    if head > 0 || (differential && base > 0) {
        let stack = path.join(";");
        out.push(if differential {
            format!("{stack} {base} {head}")
        } else {
            format!("{stack} {head}")
        });
    }
    for child in &frame.children {
        fold(child, path, differential, out);
    }
    path.pop();
}
