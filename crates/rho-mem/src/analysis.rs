//! Per function: the code it can reach (itself and every function reachable in the call graph) and the static
//! stack bound (the deepest path's sum of frames), or why there is none.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::callgraph::{CallGraph, FrameKind, Node};
use crate::elf::{Image, Symbol, SymbolType};
use crate::interrupts::{InterruptAllowance, allowance};

/// The bytes below the stack pointer a function may use without moving it (the System V x86-64 ABI's red
/// zone, 128 bytes; none on aarch64, Arm or RISC-V). Any function on a path may use it, so a bound adds it
/// once, below the deepest frame.
pub fn red_zone_bytes(machine: &str) -> u64 {
    if machine == "x86-64" { 128 } else { 0 }
}

/// One function's footprint, as the document carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionFootprint {
    pub name: String,
    /// The translation unit that defines it (None: defined outside the units given, e.g. the C library).
    pub unit: Option<String>,
    pub location: Option<String>,
    /// Its own code bytes in the image (its symbol's size, with its `.cold` part); None when the image has no
    /// such symbol (inlined everywhere, or in a shared library).
    pub code_bytes: Option<u64>,
    /// Its own frame, None when no `.su`/`.ci` gave one.
    pub frame_bytes: Option<u64>,
    pub frame_kind: Option<FrameKind>,
    /// The functions it calls directly (by name).
    pub calls: Vec<String>,
    /// Whether it calls through a pointer.
    pub indirect_calls: bool,
    pub reachable: Reachable,
    pub stack: StackBound,
}

/// The function and everything it can reach through direct calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reachable {
    /// The sum of the code bytes of every reachable function found in the image, each once.
    pub code_bytes: u64,
    /// How many functions are reachable, itself included.
    pub functions: usize,
    /// Their names, itself first, then the others in name order.
    pub names: Vec<String>,
    /// Reachable functions the image has no code for (a shared library's, or inlined everywhere).
    pub not_in_image: Vec<String>,
    /// False when an indirect call is reachable: its callees are not counted.
    pub complete: bool,
}

/// The static stack bound: the deepest call path's sum of frames (plus the red zone) and the interrupt
/// allowance, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackBound {
    /// The bound in bytes, `call_path_bytes + interrupt_bytes`; None when unbounded.
    pub bound: Option<u64>,
    /// The benchmark's own part: the deepest call path's frames and the red zone; None when unbounded.
    pub call_path_bytes: Option<u64>,
    /// The interrupt allowance (the exception frame and the deepest handler, the document's
    /// `stack_usage.interrupts`), the same under every function.
    pub interrupt_bytes: u64,
    /// Why there is no bound: recursion, an indirect call, a dynamic frame or a function without a call graph.
    pub unbounded: Option<String>,
    /// The deepest path, from the function down (when bounded).
    pub path: Vec<String>,
    /// The red zone included in the bound.
    pub red_zone_bytes: u64,
    /// Reachable functions with no frame information (compiled without -fstack-usage, e.g. the C library):
    /// their frames are not in the bound.
    pub not_counted: Vec<String>,
}

#[derive(Debug, Clone)]
enum Depth {
    Bounded { bytes: u64, path: Vec<String> },
    Unbounded(String),
}

/// The key of the function `name` the call graph defines (a global one's key is its name).
fn defined_key<'g>(graph: &'g CallGraph, name: &str) -> Option<&'g str> {
    if let Some((key, node)) = graph.nodes.get_key_value(name)
        && node.unit.is_some()
    {
        return Some(key.as_str());
    }
    graph
        .nodes
        .iter()
        .find(|(_, n)| n.name == name && n.unit.is_some())
        .map(|(k, _)| k.as_str())
}

/// The footprint of every function the call graph defines, in name order, and the interrupt allowance every
/// bound includes.
pub fn analyse(image: &Image, graph: &CallGraph) -> (Vec<FunctionFootprint>, InterruptAllowance) {
    let resolved = resolve_aliases(image, graph);
    let graph = &resolved;
    let red_zone = red_zone_bytes(&image.format.machine);
    let code: BTreeMap<&str, Option<u64>> = graph
        .nodes
        .iter()
        .map(|(key, node)| (key.as_str(), code_bytes(image, node)))
        .collect();
    let mut memo: BTreeMap<String, Depth> = BTreeMap::new();
    let interrupts = allowance(
        image,
        |name| defined_key(graph, name).is_some(),
        |name| {
            let key = defined_key(graph, name)?;
            Some(match depth(graph, key, &mut memo, &mut Vec::new()) {
                Depth::Bounded { bytes, .. } => Ok(bytes),
                Depth::Unbounded(reason) => Err(reason),
            })
        },
    );
    let mut out = Vec::new();
    for (key, node) in &graph.nodes {
        if node.unit.is_none() {
            continue; // only called: not a function of the units given
        }
        let reachable = reachable_from(graph, key);
        let mut complete = true;
        let mut code_total = 0;
        let mut not_in_image = Vec::new();
        let mut not_counted = Vec::new();
        for k in &reachable {
            let n = &graph.nodes[k.as_str()];
            complete &= !n.indirect_calls;
            match code[k.as_str()] {
                Some(bytes) => code_total += bytes,
                None => not_in_image.push(n.name.clone()),
            }
            if n.frame.is_none() {
                not_counted.push(n.name.clone());
            }
        }
        let mut on_path = Vec::new();
        let stack = match depth(graph, key, &mut memo, &mut on_path) {
            Depth::Bounded { bytes, path } => StackBound {
                bound: interrupts.bytes.map(|extra| bytes + red_zone + extra),
                call_path_bytes: Some(bytes + red_zone),
                interrupt_bytes: interrupts.bytes.unwrap_or(0),
                unbounded: interrupts.unbounded.clone(),
                path,
                red_zone_bytes: red_zone,
                not_counted,
            },
            Depth::Unbounded(reason) => StackBound {
                bound: None,
                call_path_bytes: None,
                interrupt_bytes: interrupts.bytes.unwrap_or(0),
                unbounded: Some(reason),
                path: Vec::new(),
                red_zone_bytes: red_zone,
                not_counted,
            },
        };
        out.push(FunctionFootprint {
            name: node.name.clone(),
            unit: node.unit.clone(),
            location: node.location.clone(),
            code_bytes: code[key.as_str()],
            frame_bytes: node.frame,
            frame_kind: node.frame_kind,
            calls: node
                .calls
                .iter()
                .map(|c| graph.nodes[c.as_str()].name.clone())
                .collect(),
            indirect_calls: node.indirect_calls,
            reachable: Reachable {
                code_bytes: code_total,
                functions: reachable.len(),
                names: {
                    let mut names: Vec<String> = reachable
                        .iter()
                        .filter(|k| k.as_str() != key)
                        .map(|k| graph.nodes[k.as_str()].name.clone())
                        .collect();
                    names.sort();
                    names.insert(0, node.name.clone());
                    names
                },
                not_in_image,
                complete,
            },
            stack,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.unit.cmp(&b.unit)));
    (out, interrupts)
}

/// The graph with every call to an alias (`int f(void) __attribute__((alias("g")))`: GCC's graph has `f` only
/// as a callee, with no frame) made a call to the function it aliases, found in the image as the function the
/// graph defines at the same address: its frames count. (The ports' `rho_port_console_write` is an alias of
/// `rho_port_semihost_write`, whose 32-byte frame on RISC-V a bound missed.)
fn resolve_aliases(image: &Image, graph: &CallGraph) -> CallGraph {
    let address_of = |name: &str| {
        image
            .symbols
            .iter()
            .find(|s| s.kind == SymbolType::Function && s.name == name)
            .map(|s| s.address)
    };
    let mut target: BTreeMap<String, String> = BTreeMap::new();
    for (key, node) in &graph.nodes {
        if node.unit.is_some() || node.frame.is_some() {
            continue;
        }
        let Some(address) = address_of(&node.name) else {
            continue;
        };
        let aliased = image
            .symbols
            .iter()
            .filter(|s| {
                s.kind == SymbolType::Function && s.address == address && s.name != node.name
            })
            .find_map(|s| defined_key(graph, &s.name));
        if let Some(aliased) = aliased {
            target.insert(key.clone(), aliased.to_string());
        }
    }
    let mut resolved = graph.clone();
    if target.is_empty() {
        return resolved;
    }
    for node in resolved.nodes.values_mut() {
        let mut calls = Vec::with_capacity(node.calls.len());
        for call in &node.calls {
            let call = target.get(call).unwrap_or(call);
            if !calls.contains(call) {
                calls.push(call.clone());
            }
        }
        node.calls = calls;
    }
    resolved
}

fn reachable_from(graph: &CallGraph, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(key) = todo.pop() {
        if seen.insert(key.clone()) {
            if let Some(node) = graph.nodes.get(&key) {
                todo.extend(node.calls.iter().filter(|c| !seen.contains(*c)).cloned());
            }
        }
    }
    seen
}

/// The deepest path from `key`, memoised; `on_path` holds the keys being explored (a key met again there is
/// recursion).
fn depth(
    graph: &CallGraph,
    key: &str,
    memo: &mut BTreeMap<String, Depth>,
    on_path: &mut Vec<String>,
) -> Depth {
    if let Some(done) = memo.get(key) {
        return done.clone();
    }
    let node = &graph.nodes[key];
    if let Some(start) = on_path.iter().position(|k| k == key) {
        let mut cycle: Vec<&str> = on_path[start..]
            .iter()
            .map(|k| graph.nodes[k.as_str()].name.as_str())
            .collect();
        cycle.push(&node.name);
        // Not memoised: the cycle's members are memoised as unbounded on the way back.
        return Depth::Unbounded(format!("recursion: {}", cycle.join(" -> ")));
    }
    let result = match own_limit(node) {
        Some(reason) => Depth::Unbounded(reason),
        None => {
            on_path.push(key.to_string());
            let mut deepest: (u64, Vec<String>) = (0, Vec::new());
            let mut unbounded = None;
            for callee in &node.calls {
                match depth(graph, callee, memo, on_path) {
                    Depth::Bounded { bytes, path } => {
                        if deepest.1.is_empty() || bytes > deepest.0 {
                            deepest = (bytes, path);
                        }
                    }
                    Depth::Unbounded(reason) => {
                        unbounded = Some(reason);
                        break;
                    }
                }
            }
            on_path.pop();
            match unbounded {
                Some(reason) => Depth::Unbounded(reason),
                None => {
                    let mut path = vec![node.name.clone()];
                    path.extend(deepest.1);
                    Depth::Bounded {
                        bytes: node.frame.unwrap_or(0) + deepest.0,
                        path,
                    }
                }
            }
        }
    };
    memo.insert(key.to_string(), result.clone());
    result
}

/// Why a function alone has no bound, if it has none.
fn own_limit(node: &Node) -> Option<String> {
    if node.indirect_calls {
        return Some(format!(
            "indirect call in {} (through a pointer: its callee is not known statically)",
            node.name
        ));
    }
    if node.frame_kind == Some(FrameKind::Dynamic) {
        return Some(format!(
            "{}'s frame is dynamic (alloca or a variable-length array the compiler cannot bound)",
            node.name
        ));
    }
    if node.frame.is_some() && !node.has_call_graph {
        return Some(format!(
            "no call graph for {} (a .su file without its .ci: GCC 10 or later writes it with \
             -fcallgraph-info=su)",
            node.name
        ));
    }
    None
}

/// A function's own code bytes: its symbol (a static one preferably from its own unit's file), with the
/// `.cold` part GCC splits off.
fn code_bytes(image: &Image, node: &Node) -> Option<u64> {
    let unit_file = node
        .unit
        .as_deref()
        .map(|u| u.rsplit(['/', '\\']).next().unwrap_or(u));
    let find = |name: &str| -> Option<&Symbol> {
        let candidates = image
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolType::Function && s.name == name);
        let mut first = None;
        for symbol in candidates {
            if symbol.binding != "local" || symbol.file.as_deref() == unit_file {
                return Some(symbol);
            }
            first.get_or_insert(symbol);
        }
        first
    };
    let main = find(&node.name)?.size;
    let cold = find(&format!("{}.cold", node.name)).map_or(0, |s| s.size);
    Some(main + cold)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::elf::{Format, Totals};

    fn function(name: &str, address: u64) -> Symbol {
        Symbol {
            name: name.to_string(),
            address,
            size: 16,
            kind: SymbolType::Function,
            binding: "global".to_string(),
            section: Some(".text".to_string()),
            file: None,
        }
    }

    /// `write` calls `console_write`, an alias of `semihost_write` (the same address): the alias's frame is
    /// the aliased function's, and the bound counts it.
    #[test]
    fn a_call_to_an_alias_counts_the_function_it_aliases() {
        let mut graph = CallGraph::default();
        graph
            .add_ci(
                Path::new("a.ci"),
                "graph: { title: \"a.c\"\n\
                 node: { title: \"write\" label: \"write\\na.c:1:5\\n8 bytes (static)\" }\n\
                 node: { title: \"console_write\" label: \"console_write\\na.h:2:5\" shape : ellipse }\n\
                 edge: { sourcename: \"write\" targetname: \"console_write\" label: \"a.c:1:20\" }\n\
                 node: { title: \"semihost_write\" label: \"semihost_write\\na.c:3:5\\n32 bytes (static)\" }\n}\n",
            )
            .unwrap();
        let image = Image {
            format: Format {
                class: "elf32".to_string(),
                endian: "little".to_string(),
                machine: "riscv32".to_string(),
            },
            sections: Vec::new(),
            totals: Totals::default(),
            symbols: vec![
                function("write", 0x100),
                function("console_write", 0x200),
                function("semihost_write", 0x200),
            ],
            arm: None,
        };
        let (functions, interrupts) = analyse(&image, &graph);
        assert_eq!(interrupts.bytes, Some(0));
        let write = functions.iter().find(|f| f.name == "write").unwrap();
        assert_eq!(write.stack.bound, Some(40));
        assert_eq!(write.stack.path, ["write", "semihost_write"]);
        assert!(write.stack.not_counted.is_empty(), "{:?}", write.stack);
    }
}
