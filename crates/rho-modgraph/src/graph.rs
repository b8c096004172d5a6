//! The module graph of one crate root (src/lib.rs, src/main.rs or a src/bin file): one node per source file,
//! an edge from a file to each other file whose module it names in a path (`use crate::run::Metric`,
//! `super::*`, `wire::Stack` after `use crate::wire`). A name a module imports and another module reaches
//! through it (`crate::platform::clock` after `use hosted as platform` in lib.rs) leads to the module it was
//! imported from, as the compiler resolves it: re-exporting does not make the re-exporting module a
//! dependency. Inline modules belong to their file.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::ModGraphError;
use crate::lex::tokens;
use crate::scan::{FileScan, PathRef, scan};

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// Where an edge was seen: the first path in the importing file that leads to the imported one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub line: usize,
    pub path: String,
}

#[derive(Debug)]
struct SourceFile {
    /// Relative to the crate directory, e.g. `src/run.rs`.
    file: PathBuf,
    module: ModPath,
    scan: FileScan,
}

/// One crate root's files and the edges between them.
#[derive(Debug)]
pub struct ModuleGraph {
    files: Vec<SourceFile>,
    /// Every module (file or inline) and the file it lives in.
    modules: HashMap<ModPath, usize>,
    /// Module -> name it imports -> the paths (as written, in that module) it imports under that name.
    imports: HashMap<ModPath, HashMap<String, Vec<PathRef>>>,
    edges: BTreeMap<(usize, usize), Evidence>,
}

/// Files that import each other round a circle: `steps` walks one such circle, each step with its evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// Every file in the strongly connected set, sorted.
    pub files: Vec<String>,
    /// (from, to, evidence) round one shortest circle through the first file.
    pub steps: Vec<(String, String, Evidence)>,
}

impl ModuleGraph {
    /// Reads the crate root `root` (a path relative to `crate_dir`) and every module file it declares.
    pub fn load(crate_dir: &Path, root: &Path) -> Result<Self, ModGraphError> {
        let mut graph = ModuleGraph {
            files: Vec::new(),
            modules: HashMap::new(),
            imports: HashMap::new(),
            edges: BTreeMap::new(),
        };
        let mut queue = VecDeque::from([(root.to_path_buf(), ModPath::new())]);
        while let Some((file, module)) = queue.pop_front() {
            let text = fs::read_to_string(crate_dir.join(&file)).map_err(|source| {
                ModGraphError::Read {
                    file: crate_dir.join(&file),
                    source,
                }
            })?;
            let scan = scan(&tokens(&text));
            for decl in &scan.mod_decls {
                let child =
                    child_file(crate_dir, &file, &decl.scope, &decl.name).ok_or_else(|| {
                        ModGraphError::MissingModule {
                            file: crate_dir.join(&file),
                            line: decl.line,
                            name: decl.name.clone(),
                        }
                    })?;
                queue.push_back((
                    child,
                    [module.clone(), decl.scope.clone(), vec![decl.name.clone()]].concat(),
                ));
            }
            graph.files.push(SourceFile { file, module, scan });
        }
        graph.index();
        graph.link();
        Ok(graph)
    }

    fn index(&mut self) {
        for (k, source) in self.files.iter().enumerate() {
            self.modules.insert(source.module.clone(), k);
            for inline in &source.scan.inline_modules {
                self.modules
                    .insert([source.module.clone(), inline.clone()].concat(), k);
            }
            for import in &source.scan.imports {
                let module = [source.module.clone(), import.target.scope.clone()].concat();
                self.imports
                    .entry(module)
                    .or_default()
                    .entry(import.name.clone())
                    .or_default()
                    .push(import.target.clone());
            }
        }
    }

    fn link(&mut self) {
        let mut edges = BTreeMap::new();
        for (from, source) in self.files.iter().enumerate() {
            for path in &source.scan.paths {
                for to in self.resolve(&source.module, path) {
                    if to != from {
                        edges.entry((from, to)).or_insert_with(|| Evidence {
                            line: path.line,
                            path: path.segments.join("::"),
                        });
                    }
                }
            }
        }
        self.edges = edges;
    }

    /// The paths a name imported into `module` stands for: one, or one per `#[cfg]` alternative (`use hosted
    /// as platform` and `use bare as platform`).
    fn imported(&self, module: &[String], name: &str) -> &[PathRef] {
        self.imports
            .get(module)
            .and_then(|names| names.get(name))
            .map_or(&[], Vec::as_slice)
    }

    /// The absolute module paths `path` (written in a file of module `file_module`) may start from: none when
    /// it names another crate or a type (`std::io`, `Metric::Time`). `depth` bounds the imports followed (`use
    /// anyhow::anyhow` imports a name through itself).
    fn absolute(&self, file_module: &[String], path: &PathRef, depth: usize) -> Vec<ModPath> {
        let mut here: ModPath = [file_module, &path.scope].concat();
        let mut segments = path.segments.iter().peekable();
        match segments.peek().map(|s| s.as_str()) {
            Some("crate") => {
                here.clear();
                segments.next();
            }
            Some("self") => {
                segments.next();
            }
            Some("super") => {
                while segments.peek().is_some_and(|s| *s == "super") {
                    here.pop();
                    segments.next();
                }
            }
            Some(first) => {
                let child = [here.clone(), vec![first.to_owned()]].concat();
                if !self.modules.contains_key(&child) {
                    if depth >= 8 {
                        return Vec::new();
                    }
                    // Not a child module: a name this module imports, or another crate's.
                    segments.next();
                    let rest: ModPath = segments.cloned().collect();
                    return self
                        .imported(&here, first)
                        .iter()
                        .flat_map(|import| self.absolute(file_module, import, depth + 1))
                        .map(|start| [start, rest.clone()].concat())
                        .collect();
                }
            }
            None => return Vec::new(),
        }
        vec![[here, segments.cloned().collect()].concat()]
    }

    /// The files of the modules `path` leads to, following imported names (at most 8 deep).
    fn resolve(&self, file_module: &[String], path: &PathRef) -> Vec<usize> {
        let mut files: Vec<usize> = self
            .absolute(file_module, path, 0)
            .iter()
            .flat_map(|absolute| self.resolve_absolute(absolute, 0))
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    fn resolve_absolute(&self, absolute: &[String], depth: usize) -> Vec<usize> {
        let Some(known) = (0..=absolute.len())
            .rev()
            .find(|&k| self.modules.contains_key(&absolute[..k]))
        else {
            return Vec::new();
        };
        let module = &absolute[..known];
        let own = self.modules[module];
        let Some(name) = absolute.get(known).filter(|_| depth < 8) else {
            return vec![own];
        };
        let imports = self.imported(module, name);
        if imports.is_empty() {
            return vec![own];
        }
        // A name imported from another crate may also be the module's own item in another namespace
        // (`use thiserror::Error` beside `pub enum Error`): then the module itself is what is named.
        let file_module = &self.files[own].module;
        let rest = &absolute[known + 1..];
        let mut files = Vec::new();
        for import in imports {
            for start in self.absolute(file_module, import, depth + 1) {
                files.extend(self.resolve_absolute(&[start, rest.to_vec()].concat(), depth + 1));
            }
        }
        if files.is_empty() {
            files.push(own);
        }
        files
    }

    /// How many files the crate root has.
    /// The crate's files, relative to its directory, in the order they were read.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|source| source.file.as_path())
    }

    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The files that import each other round a circle, each set with one circle through it.
    pub fn circles(&self) -> Vec<Circle> {
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); self.files.len()];
        for &(from, to) in self.edges.keys() {
            next[from].push(to);
        }
        crate::cycles::strongly_connected(&next)
            .into_iter()
            .filter(|set| set.len() > 1)
            .map(|set| self.circle(&next, &set))
            .collect()
    }

    /// Sibling modules that import each other round a circle through any of their files: a module stands
    /// for its whole subtree (`bench.rs -> hosted/valgrind.rs` and `hosted/run.rs -> bench.rs` make `bench`
    /// and `hosted` import each other though no two files do). Only circles with a module of several files
    /// are listed: one of single files is [`Self::circles`]' already.
    pub fn module_circles(&self) -> Vec<Circle> {
        let mut parents: Vec<&[String]> = self
            .files
            .iter()
            .filter_map(|source| source.module.split_last().map(|(_, parent)| parent))
            .collect();
        parents.sort();
        parents.dedup();
        parents
            .into_iter()
            .flat_map(|parent| self.sibling_circles(parent))
            .collect()
    }

    /// The circles among the child modules (each with its subtree) of `parent`.
    fn sibling_circles(&self, parent: &[String]) -> Vec<Circle> {
        // Each child module of `parent` that is a file, and every file under it.
        let children: Vec<usize> = (0..self.files.len())
            .filter(|&k| self.files[k].module.split_last().map(|(_, p)| p) == Some(parent))
            .collect();
        let child_of = |file: usize| {
            let module = &self.files[file].module;
            children.iter().position(|&c| {
                let child = &self.files[c].module;
                module.len() >= child.len() && module[..child.len()] == child[..]
            })
        };
        let mut subtree = vec![0usize; children.len()];
        for file in 0..self.files.len() {
            if let Some(child) = child_of(file) {
                subtree[child] += 1;
            }
        }
        let mut first_edge: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
        for &(from, to) in self.edges.keys() {
            if let (Some(a), Some(b)) = (child_of(from), child_of(to))
                && a != b
            {
                first_edge.entry((a, b)).or_insert((from, to));
            }
        }
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); children.len()];
        for &(a, b) in first_edge.keys() {
            next[a].push(b);
        }
        let name = |k: usize| self.files[k].file.display().to_string();
        crate::cycles::strongly_connected(&next)
            .into_iter()
            .filter(|set| set.len() > 1 && set.iter().any(|&c| subtree[c] > 1))
            .map(|set| {
                let mut files: Vec<String> = set
                    .iter()
                    .map(|&c| match subtree[c] {
                        1 => name(children[c]),
                        n => format!("{} (and the {} files below it)", name(children[c]), n - 1),
                    })
                    .collect();
                files.sort();
                let start = set.iter().copied().min().unwrap_or(set[0]);
                let walk = crate::cycles::shortest_cycle(&next, &set, start);
                let steps = walk
                    .windows(2)
                    .map(|pair| {
                        let (from, to) = first_edge[&(pair[0], pair[1])];
                        (name(from), name(to), self.edges[&(from, to)].clone())
                    })
                    .collect();
                Circle { files, steps }
            })
            .collect()
    }

    fn circle(&self, next: &[Vec<usize>], set: &[usize]) -> Circle {
        let name = |k: usize| self.files[k].file.display().to_string();
        let mut files: Vec<String> = set.iter().map(|&k| name(k)).collect();
        files.sort();
        let start = set
            .iter()
            .copied()
            .min_by_key(|&k| name(k))
            .unwrap_or(set[0]);
        let walk = crate::cycles::shortest_cycle(next, set, start);
        let steps = walk
            .windows(2)
            .map(|pair| {
                (
                    name(pair[0]),
                    name(pair[1]),
                    self.edges[&(pair[0], pair[1])].clone(),
                )
            })
            .collect();
        Circle { files, steps }
    }
}

/// The file of module `name` declared in `file` (inside its inline modules `scope`): `dir/name.rs` or
/// `dir/name/mod.rs`, where dir is the file's own directory for lib.rs, main.rs and mod.rs, else a directory
/// named after the file.
fn child_file(crate_dir: &Path, file: &Path, scope: &[String], name: &str) -> Option<PathBuf> {
    let parent = file.parent().unwrap_or(Path::new(""));
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let mut dir = if matches!(stem, "lib" | "main" | "mod") {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    };
    for inline in scope {
        dir.push(inline);
    }
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|candidate| crate_dir.join(candidate).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate in a temporary directory from (file, text) pairs.
    fn crate_of(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn circles_of(files: &[(&str, &str)]) -> Vec<Circle> {
        let dir = crate_of(files);
        ModuleGraph::load(dir.path(), Path::new("src/lib.rs"))
            .unwrap()
            .circles()
    }

    #[test]
    fn a_planted_circle_is_named_with_its_lines() {
        let found = circles_of(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;"),
            ("src/a.rs", "use crate::b::B;\npub struct A;"),
            ("src/b.rs", "pub struct B;\nfn f() { super::a::A; }"),
            ("src/c.rs", "use crate::a::A;"),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].files, ["src/a.rs", "src/b.rs"]);
        let steps: Vec<String> = found[0]
            .steps
            .iter()
            .map(|(f, t, e)| format!("{f} -> {t} at {} {}", e.line, e.path))
            .collect();
        assert_eq!(
            steps,
            [
                "src/a.rs -> src/b.rs at 1 crate::b::B",
                "src/b.rs -> src/a.rs at 2 super::a::A"
            ]
        );
    }

    #[test]
    fn a_name_reached_through_a_re_export_leads_to_where_it_is_defined() {
        // lib.rs re-exports from `hosted` under another name; `bench` reaches it through lib.rs: no circle
        // with lib.rs, which only declares and re-exports.
        let found = circles_of(&[
            (
                "src/lib.rs",
                "mod bench;\nmod hosted;\nuse hosted as platform;\npub use bench::Bench;",
            ),
            (
                "src/bench.rs",
                "use crate::platform::clock;\npub struct Bench;",
            ),
            ("src/hosted/mod.rs", "pub mod clock;"),
            (
                "src/hosted/clock.rs",
                "use thiserror::Error;\n#[derive(Error)] pub enum Error {}",
            ),
        ]);
        assert!(found.is_empty(), "{found:?}");
        // An item the root defines itself makes the root a dependency: with the re-export, a circle.
        let found = circles_of(&[
            (
                "src/lib.rs",
                "mod bench;\npub use bench::Bench;\npub struct BuildInfo;",
            ),
            ("src/bench.rs", "use crate::BuildInfo;\npub struct Bench;"),
        ]);
        assert_eq!(found[0].files, ["src/bench.rs", "src/lib.rs"]);
    }

    #[test]
    fn every_cfg_alternative_of_an_imported_name_is_followed() {
        // `platform` is `hosted` in one build and `bare` in another: the circle through `hosted` counts though
        // `bare` is imported last.
        let found = circles_of(&[
            (
                "src/lib.rs",
                "mod bench;\nmod hosted;\nmod bare;\n#[cfg(a)]\nuse hosted as platform;\n#[cfg(b)]\nuse bare as platform;",
            ),
            (
                "src/bench.rs",
                "use crate::platform::Samples;\npub struct Bench;",
            ),
            (
                "src/hosted.rs",
                "use crate::bench::Bench;\npub struct Samples;",
            ),
            ("src/bare.rs", "pub struct Samples;"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].files, ["src/bench.rs", "src/hosted.rs"]);
    }

    #[test]
    fn an_item_named_like_an_imported_derive_is_the_modules_own() {
        let found = circles_of(&[
            ("src/lib.rs", "mod error;\nmod format;"),
            (
                "src/error.rs",
                "use thiserror::Error;\npub enum Error { A(crate::format::F) }",
            ),
            ("src/format.rs", "use crate::error::Error;\npub struct F;"),
        ]);
        assert_eq!(found.len(), 1, "error.rs and format.rs import each other");
    }

    #[test]
    fn sibling_modules_import_each_other_through_files_below_them() {
        // No two files import each other, but `bench` uses `hosted::valgrind` and `hosted::run` uses `bench`.
        let dir = crate_of(&[
            ("src/lib.rs", "mod bench;\nmod hosted;\nmod wire;"),
            (
                "src/bench.rs",
                "use crate::hosted::valgrind;\nuse crate::wire;\npub struct Bench;",
            ),
            ("src/hosted/mod.rs", "pub mod run;\npub mod valgrind;"),
            ("src/hosted/valgrind.rs", "pub fn on() {}"),
            (
                "src/hosted/run.rs",
                "use super::valgrind;\nuse crate::bench::Bench;",
            ),
            ("src/wire.rs", "pub fn line() {}"),
        ]);
        let graph = ModuleGraph::load(dir.path(), Path::new("src/lib.rs")).unwrap();
        assert!(graph.circles().is_empty(), "{:?}", graph.circles());
        let found = graph.module_circles();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].files,
            [
                "src/bench.rs",
                "src/hosted/mod.rs (and the 2 files below it)"
            ]
        );
        let steps: Vec<String> = found[0]
            .steps
            .iter()
            .map(|(f, t, e)| format!("{f} -> {t} at {} {}", e.line, e.path))
            .collect();
        assert_eq!(
            steps,
            [
                "src/bench.rs -> src/hosted/valgrind.rs at 1 crate::hosted::valgrind",
                "src/hosted/run.rs -> src/bench.rs at 2 crate::bench::Bench"
            ]
        );
        // The runner moved above both: no circle.
        let dir = crate_of(&[
            ("src/lib.rs", "mod bench;\nmod hosted;\nmod runner;"),
            ("src/bench.rs", "use crate::hosted::valgrind;"),
            ("src/hosted/mod.rs", "pub mod valgrind;"),
            ("src/hosted/valgrind.rs", "pub fn on() {}"),
            (
                "src/runner.rs",
                "use crate::hosted::valgrind;\nuse crate::bench;",
            ),
        ]);
        let graph = ModuleGraph::load(dir.path(), Path::new("src/lib.rs")).unwrap();
        assert!(graph.module_circles().is_empty());
    }

    #[test]
    fn a_missing_module_file_is_named_with_its_line() {
        let dir = crate_of(&[("src/lib.rs", "//! doc\nmod gone;\n")]);
        let error = ModuleGraph::load(dir.path(), Path::new("src/lib.rs"))
            .unwrap_err()
            .to_string();
        assert!(error.ends_with("src/lib.rs:2: `mod gone;` has no file (looked for gone.rs and gone/mod.rs beside it)"), "{error}");
    }
}
