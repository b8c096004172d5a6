//! GCC's stack-usage files: `.su` (`-fstack-usage`: each function's frame) and `.ci` (`-fcallgraph-info=su`,
//! GCC 10 and later: the call graph in VCG, each node labelled with its frame), merged into one graph over
//! every translation unit given.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::MemError;

/// The placeholder node GCC's `.ci` gives every call through a pointer.
pub const INDIRECT_CALL: &str = "__indirect_call";

/// How GCC qualifies a frame size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrameKind {
    /// Fixed at compile time: the figure is the frame.
    Static,
    /// Grows at run time (alloca, a variable-length array) by an amount the compiler cannot bound.
    Dynamic,
    /// Grows at run time but the compiler bounded it: the figure is the bound.
    DynamicBounded,
}

impl FrameKind {
    fn parse(text: &str) -> Option<FrameKind> {
        match text {
            "static" => Some(FrameKind::Static),
            "dynamic" => Some(FrameKind::Dynamic),
            "dynamic,bounded" => Some(FrameKind::DynamicBounded),
            _ => None,
        }
    }
}

/// A function of the call graph, defined in a unit given or only called from one.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// The symbol name (a static function's title carries its unit, `unit:name`; this is the name alone).
    pub name: String,
    /// The translation unit that defines it (the `.ci` graph's title, or the `.su` file's source), when known.
    pub unit: Option<String>,
    /// `file:line:column` of its definition.
    pub location: Option<String>,
    /// Its frame in bytes, when GCC wrote one (functions defined elsewhere, e.g. the C library, have none).
    pub frame: Option<u64>,
    pub frame_kind: Option<FrameKind>,
    /// The graph keys (titles) of the functions it calls directly, in order, once each.
    pub calls: Vec<String>,
    /// Whether it calls through a pointer.
    pub indirect_calls: bool,
    /// Whether a `.ci` listed its calls (a function known only from a `.su` file has frames but no calls).
    pub has_call_graph: bool,
}

/// Every function of every unit read, keyed by the `.ci` title (the name for an external function,
/// `unit:name` for a static one).
#[derive(Debug, Clone, Default)]
pub struct CallGraph {
    pub nodes: BTreeMap<String, Node>,
    /// The files read, in order.
    pub sources: Vec<PathBuf>,
}

impl CallGraph {
    /// Read a `.ci` or `.su` file (by its extension) into the graph.
    pub fn read_file(&mut self, path: &Path) -> Result<(), MemError> {
        let text = std::fs::read_to_string(path).map_err(|e| MemError::io(path, &e))?;
        match path.extension().and_then(|e| e.to_str()) {
            Some("ci") => self.add_ci(path, &text)?,
            Some("su") => self.add_su(path, &text)?,
            _ => {
                return Err(MemError::Elf {
                    path: path.to_path_buf(),
                    message: "expected a GCC .su or .ci file (by its extension)".to_string(),
                });
            }
        }
        self.sources.push(path.to_path_buf());
        Ok(())
    }

    /// Read every `.su` and `.ci` file of a directory (not its subdirectories), in name order.
    pub fn read_dir(&mut self, dir: &Path) -> Result<usize, MemError> {
        let entries = std::fs::read_dir(dir).map_err(|e| MemError::io(dir, &e))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("su" | "ci")))
            .collect();
        files.sort();
        // The `.ci` files first: they carry the graph, and a `.su` then only fills frames they lack.
        files.sort_by_key(|p| p.extension().and_then(|e| e.to_str()) != Some("ci"));
        for file in &files {
            self.read_file(file)?;
        }
        Ok(files.len())
    }

    /// A `.su` file: `FILE:LINE:COLUMN:NAME<TAB>BYTES<TAB>QUALIFIER` per line.
    pub fn add_su(&mut self, path: &Path, text: &str) -> Result<(), MemError> {
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.trim().is_empty() {
                continue;
            }
            let expected = || {
                MemError::line(
                    path,
                    number,
                    format!(
                        "expected FILE:LINE:COLUMN:NAME, a tab, the frame's bytes, a tab and static, dynamic or \
                         dynamic,bounded; found {line:?}"
                    ),
                )
            };
            let mut fields = line.split('\t');
            let (Some(place), Some(bytes), Some(kind), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(expected());
            };
            let (Some((unit, location, name)), Ok(bytes), Some(kind)) = (
                split_location(place),
                bytes.parse::<u64>(),
                FrameKind::parse(kind),
            ) else {
                return Err(expected());
            };
            // The `.su` name of a clone drops the number (`work.constprop` for `work.constprop.0`): match
            // an existing node by unit and label name, else add a node under the name.
            let existing = self
                .nodes
                .values_mut()
                .find(|node| node.unit.as_deref() == Some(unit) && label_name(&node.name) == name);
            match existing {
                Some(node) => {
                    if node.frame.is_none() {
                        node.frame = Some(bytes);
                        node.frame_kind = Some(kind);
                    }
                }
                None => {
                    let key = name.to_string();
                    let node = self.nodes.entry(key).or_default();
                    if node.frame.is_none() {
                        node.name = name.to_string();
                        node.unit = Some(unit.to_string());
                        node.location = Some(location);
                        node.frame = Some(bytes);
                        node.frame_kind = Some(kind);
                    }
                }
            }
        }
        Ok(())
    }

    /// A `.ci` file: VCG, one `graph:` per unit, one `node:` or `edge:` per line.
    pub fn add_ci(&mut self, path: &Path, text: &str) -> Result<(), MemError> {
        let mut unit: Option<String> = None;
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let trimmed = line.trim();
            let fields =
                vcg_fields(trimmed).map_err(|message| MemError::line(path, number, message))?;
            let get = |key: &str| {
                fields
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.as_str())
            };
            if trimmed.starts_with("graph:") {
                unit = get("title").map(str::to_string);
            } else if trimmed.starts_with("node:") {
                let (Some(title), Some(label)) = (get("title"), get("label")) else {
                    return Err(MemError::line(
                        path,
                        number,
                        format!("expected a node with a title and a label; found {trimmed:?}"),
                    ));
                };
                if title == INDIRECT_CALL {
                    continue;
                }
                let mut parts = label.split('\n');
                let name_in_label = parts.next().unwrap_or(title);
                let location = parts.next().map(str::to_string);
                let frame = parts.next().map(|text| parse_frame(text).ok_or(text));
                let name = match &unit {
                    Some(u) => title.strip_prefix(&format!("{u}:")).unwrap_or(title),
                    None => title,
                };
                let node = self.nodes.entry(title.to_string()).or_default();
                if node.name.is_empty() {
                    node.name = if name.is_empty() { name_in_label } else { name }.to_string();
                }
                // A function only declared here (called, defined elsewhere) is drawn as an ellipse; any other
                // node is this unit's definition, its calls are the edges that follow.
                if !trimmed.contains("shape : ellipse") {
                    node.unit = unit.clone();
                    node.location = location;
                    node.has_call_graph = true;
                }
                match frame {
                    Some(Ok((bytes, kind))) => {
                        node.frame = Some(bytes);
                        node.frame_kind = Some(kind);
                    }
                    Some(Err(text)) => {
                        return Err(MemError::line(
                            path,
                            number,
                            format!(
                                "expected the frame as `N bytes (static)`, `(dynamic)` or `(dynamic,bounded)`; \
                                 found {text:?}"
                            ),
                        ));
                    }
                    None => {}
                }
            } else if trimmed.starts_with("edge:") {
                let (Some(source), Some(target)) = (get("sourcename"), get("targetname")) else {
                    return Err(MemError::line(
                        path,
                        number,
                        format!(
                            "expected an edge with a sourcename and a targetname; found {trimmed:?}"
                        ),
                    ));
                };
                let node = self.nodes.entry(source.to_string()).or_default();
                if target == INDIRECT_CALL {
                    node.indirect_calls = true;
                } else if !node.calls.iter().any(|c| c == target) {
                    node.calls.push(target.to_string());
                }
                if !self.nodes.contains_key(target) && target != INDIRECT_CALL {
                    self.nodes.insert(
                        target.to_string(),
                        Node {
                            name: target.to_string(),
                            ..Node::default()
                        },
                    );
                }
            } else if trimmed == "}" || trimmed.is_empty() {
            } else {
                return Err(MemError::line(
                    path,
                    number,
                    format!(
                        "expected a VCG `graph:`, `node:` or `edge:` line or `}}`; found {trimmed:?}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A clone's label name: `work.constprop.0` is labelled `work.constprop`.
fn label_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, number))
            if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => name,
    }
}

/// `FILE:LINE:COLUMN:NAME` → (FILE, "FILE:LINE:COLUMN", NAME); the file may itself hold colons.
fn split_location(place: &str) -> Option<(&str, String, &str)> {
    let bytes: Vec<usize> = place.match_indices(':').map(|(i, _)| i).collect();
    for window in bytes.windows(3) {
        let (a, b, c) = (window[0], window[1], window[2]);
        let line = &place[a + 1..b];
        let column = &place[b + 1..c];
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|x| x.is_ascii_digit());
        if numeric(line) && numeric(column) && c + 1 < place.len() {
            return Some((&place[..a], place[..c].to_string(), &place[c + 1..]));
        }
    }
    None
}

/// `1040 bytes (static)` → (1040, Static).
fn parse_frame(text: &str) -> Option<(u64, FrameKind)> {
    let (bytes, rest) = text.split_once(" bytes (")?;
    let kind = rest.strip_suffix(')')?;
    Some((bytes.parse().ok()?, FrameKind::parse(kind)?))
}

/// The `key: "value"` pairs of a VCG line, with `\n`, `\"` and `\\` unescaped; other tokens are skipped.
fn vcg_fields(line: &str) -> Result<Vec<(String, String)>, String> {
    let mut fields = Vec::new();
    let mut rest = line;
    while let Some(quote) = rest.find('"') {
        let before = rest[..quote].trim_end();
        let Some(before) = before.strip_suffix(':') else {
            return Err(format!(
                "expected `key: \"value\"` before a quoted string; found {line:?}"
            ));
        };
        let key = before
            .rsplit(|c: char| c.is_whitespace() || c == '{')
            .next()
            .unwrap_or("")
            .to_string();
        let mut value = String::new();
        let mut chars = rest[quote + 1..].char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    end = Some(quote + 1 + i + 1);
                    break;
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, other)) => value.push(other),
                    None => {}
                },
                other => value.push(other),
            }
        }
        let Some(end) = end else {
            return Err(format!("unterminated string in {line:?}"));
        };
        fields.push((key, value));
        rest = &rest[end..];
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI: &str = r#"graph: { title: "chain.c"
node: { title: "chain.c:level4" label: "level4\nchain.c:3:43\n920 bytes (static)" }
node: { title: "level3" label: "level3\nchain.c:4:36\n1040 bytes (static)" }
edge: { sourcename: "level3" targetname: "chain.c:level4" label: "chain.c:4:110" }
node: { title: "indirect" label: "indirect\nchain.c:6:10\n8 bytes (static)" }
node: { title: "__indirect_call" label: "Indirect Call Placeholder" shape : ellipse }
edge: { sourcename: "indirect" targetname: "__indirect_call" label: "chain.c:6:53" }
node: { title: "g" label: "g\ntail.c:1:12" shape : ellipse }
edge: { sourcename: "level3" targetname: "g" label: "tail.c:3:23" }
node: { title: "grow" label: "grow\nchain.c:9:6\n48 bytes (dynamic)" }
}
"#;

    #[test]
    fn a_ci_file_gives_frames_calls_and_indirect_calls() {
        let mut graph = CallGraph::default();
        graph.add_ci(Path::new("chain.ci"), CI).unwrap();
        let level4 = &graph.nodes["chain.c:level4"];
        assert_eq!(level4.name, "level4");
        assert_eq!(level4.unit.as_deref(), Some("chain.c"));
        assert_eq!(level4.frame, Some(920));
        let level3 = &graph.nodes["level3"];
        assert_eq!(level3.calls, ["chain.c:level4", "g"]);
        assert!(graph.nodes["indirect"].indirect_calls);
        assert_eq!(graph.nodes["g"].frame, None);
        assert_eq!(graph.nodes["grow"].frame_kind, Some(FrameKind::Dynamic));
        assert!(!graph.nodes.contains_key(INDIRECT_CALL));
    }

    #[test]
    fn a_su_file_fills_frames_and_matches_clones() {
        let mut graph = CallGraph::default();
        graph
            .add_ci(
                Path::new("c.ci"),
                "graph: { title: \"c.c\"\nnode: { title: \"c.c:work.constprop.0\" label: \"work.constprop\\nc.c:1:38\" }\n}\n",
            )
            .unwrap();
        graph
            .add_su(
                Path::new("c.su"),
                "c.c:1:38:work.constprop\t288\tstatic\nc.c:2:5:use1\t8\tdynamic,bounded\n",
            )
            .unwrap();
        assert_eq!(graph.nodes["c.c:work.constprop.0"].frame, Some(288));
        assert_eq!(graph.nodes["use1"].frame, Some(8));
        assert_eq!(
            graph.nodes["use1"].frame_kind,
            Some(FrameKind::DynamicBounded)
        );
        assert!(!graph.nodes["use1"].has_call_graph);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let mut graph = CallGraph::default();
        let error = graph
            .add_su(
                Path::new("x.su"),
                "x.c:1:2:f\t8\tstatic\nx.c:1:f\tlots\tstatic\n",
            )
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.su:2: expected FILE:LINE:COLUMN:NAME"),
            "{error}"
        );
        let error = graph
            .add_ci(Path::new("x.ci"), "graph: { title: \"x.c\"\nnode: { title: \"f\" label: \"f\\nx.c:1:1\\nmany bytes\" }\n")
            .unwrap_err();
        assert!(
            error.to_string().starts_with("x.ci:2: expected the frame"),
            "{error}"
        );
        let error = graph
            .add_ci(Path::new("x.ci"), "graph: { title: \"x.c\nzzz\n")
            .unwrap_err();
        assert!(
            error.to_string().starts_with("x.ci:1: unterminated"),
            "{error}"
        );
    }

    #[test]
    fn locations_may_hold_colons() {
        assert_eq!(
            split_location("C:/src/a.c:12:6:f"),
            Some(("C:/src/a.c", "C:/src/a.c:12:6".to_string(), "f"))
        );
        assert_eq!(split_location("nothing"), None);
    }
}
