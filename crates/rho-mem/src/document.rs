//! The `rho mem --json` document (schema `rho-mem/2`, docs/mem-json.md) and its text form.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::MemError;
use crate::analysis::{FunctionFootprint, analyse, red_zone_bytes};
use crate::callgraph::CallGraph;
use crate::elf::{Format, Image, Section, Symbol, Totals};
use crate::interrupts::InterruptAllowance;
use crate::map::{InputFootprint, footprint_by_file, parse_map};

/// The schema name and version every document carries; a reader refuses a name it does not know.
pub const SCHEMA: &str = "rho-mem/2";

/// Everything `rho mem` reports about one image.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    pub schema: String,
    /// The image, as named on the command line.
    pub file: String,
    pub format: Format,
    /// Every section `size -A` lists, in file order.
    pub sections: Vec<Section>,
    /// `size -A`'s `Total`: the sum of the sections listed.
    pub sections_total: u64,
    /// `size`'s Berkeley totals.
    pub totals: Totals,
    /// Every defined symbol with a size, largest first.
    pub symbols: Vec<Symbol>,
    /// Present when `.su`/`.ci` files were given.
    pub stack_usage: Option<StackUsage>,
    /// Per function of the units given: code, frame, reachable code and the static stack bound.
    pub functions: Vec<FunctionFootprint>,
    /// Present when a linker map was given.
    pub map: Option<MapFootprint>,
}

/// Where the call graph came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StackUsage {
    /// The `.su` and `.ci` files read.
    pub sources: Vec<String>,
    /// The red zone every bound includes (128 on x86-64, else 0).
    pub red_zone_bytes: u64,
    /// The interrupt allowance every bound includes (the exception frame and the deepest handler).
    pub interrupts: InterruptAllowance,
}

/// The linker map's view: bytes per input file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MapFootprint {
    pub file: String,
    pub inputs: Vec<InputFootprint>,
}

/// What to read besides the image.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub image: PathBuf,
    /// `.su`/`.ci` files, or directories holding them.
    pub stack_usage: Vec<PathBuf>,
    pub map: Option<PathBuf>,
}

/// The columns the tables of functions and map inputs, and the notes, fit (rho's report width when piped).
const NOTE_WIDTH: usize = 100;

impl Document {
    /// Read the image and its companions into a document.
    pub fn build(inputs: &Inputs) -> Result<Document, MemError> {
        let image = Image::open(&inputs.image)?;
        let mut graph = CallGraph::default();
        for path in &inputs.stack_usage {
            if path.is_dir() {
                graph.read_dir(path)?;
            } else {
                graph.read_file(path)?;
            }
        }
        let (functions, interrupts) = analyse(&image, &graph);
        let stack_usage = (!inputs.stack_usage.is_empty()).then(|| StackUsage {
            sources: graph
                .sources
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            red_zone_bytes: red_zone_bytes(&image.format.machine),
            interrupts,
        });
        let map = match &inputs.map {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| MemError::io(path, &e))?;
                let placements = parse_map(path, &text)?;
                Some(MapFootprint {
                    file: path.display().to_string(),
                    inputs: footprint_by_file(&image, &placements),
                })
            }
            None => None,
        };
        Ok(Document {
            schema: SCHEMA.to_string(),
            file: inputs.image.display().to_string(),
            sections_total: image.sections_total(),
            format: image.format,
            sections: image.sections,
            totals: image.totals,
            symbols: image.symbols,
            stack_usage,
            functions,
            map,
        })
    }

    /// The text report: sections as `size -A`, the Berkeley totals, the `top` largest symbols, the functions
    /// (why one is unbounded under their table, wrapped at 100 columns) and the map's largest inputs.
    pub fn render(&self, top: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}  {} {}-endian {}",
            self.file, self.format.class, self.format.endian, self.format.machine
        );
        let _ = writeln!(
            out,
            "text {}  data {}  bss {}  total {}  (as `size` counts: text is code and read-only data)\n",
            self.totals.text, self.totals.data, self.totals.bss, self.totals.total
        );
        let width = self
            .sections
            .iter()
            .map(|s| s.name.len())
            .max()
            .unwrap_or(0)
            .max(7);
        let _ = writeln!(
            out,
            "{:<width$}  {:>10}  {:>18}  kind",
            "section", "size", "address"
        );
        for s in &self.sections {
            let kind = serde_json::to_value(s.kind).ok();
            let kind = kind.as_ref().and_then(|v| v.as_str()).unwrap_or("");
            let _ = writeln!(
                out,
                "{:<width$}  {:>10}  {:>#18x}  {kind}",
                s.name, s.size, s.address
            );
        }
        let _ = writeln!(out, "{:<width$}  {:>10}", "Total", self.sections_total);

        if top > 0 && !self.symbols.is_empty() {
            let shown = self.symbols.len().min(top);
            let _ = writeln!(
                out,
                "\nlargest symbols ({shown} of {}; --json lists them all)",
                self.symbols.len()
            );
            let _ = writeln!(out, "{:>10}  {:<8}  name", "size", "kind");
            for s in self.symbols.iter().take(top) {
                let kind = serde_json::to_value(s.kind).ok();
                let kind = kind.as_ref().and_then(|v| v.as_str()).unwrap_or("");
                let _ = writeln!(out, "{:>10}  {kind:<8}  {}", s.size, s.name);
            }
        }

        if let Some(stack) = &self.stack_usage {
            let _ = writeln!(
                out,
                "\nfunctions ({} from {} stack-usage files; bounds include a {}-byte red zone)",
                self.functions.len(),
                stack.sources.len(),
                stack.red_zone_bytes
            );
            let wrap = textwrap::Options::new(NOTE_WIDTH)
                .subsequent_indent("    ")
                .break_words(false);
            for line in textwrap::wrap(&interrupt_line(&stack.interrupts), &wrap) {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(
                out,
                "{:>8}  {:>8}  {:>15}  {:>12}  name",
                "code B", "frame B", "reachable code", "stack bound"
            );
            for f in &self.functions {
                let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
                let bound = match (&f.stack.bound, &f.stack.unbounded) {
                    (Some(b), _) => b.to_string(),
                    _ => "unbounded".to_string(),
                };
                let figures = format!(
                    "{:>8}  {:>8}  {:>15}  {:>12}",
                    opt(f.code_bytes),
                    opt(f.frame_bytes),
                    f.reachable.code_bytes,
                    bound,
                );
                // A name too long for the row goes on a line of its own, above its figures.
                if figures.len() + 2 + f.name.chars().count() > NOTE_WIDTH {
                    let _ = writeln!(out, "{}\n{figures}", f.name);
                } else {
                    let _ = writeln!(out, "{figures}  {}", f.name);
                }
            }
            // Why a function is unbounded, under the table: the reasons are long, and in the rows they made
            // every unbounded row run past any terminal.
            let options = textwrap::Options::new(NOTE_WIDTH)
                .subsequent_indent("    ")
                .break_words(false);
            for f in &self.functions {
                if let Some(reason) = &f.stack.unbounded {
                    for line in
                        textwrap::wrap(&format!("{}: unbounded: {reason}", f.name), &options)
                    {
                        let _ = writeln!(out, "{line}");
                    }
                }
            }
        }

        if let Some(map) = &self.map {
            let shown = map.inputs.len().min(top.max(1));
            let _ = writeln!(
                out,
                "\ninputs by loaded bytes, from {} ({shown} of {})",
                map.file,
                map.inputs.len()
            );
            let _ = writeln!(
                out,
                "{:>8}  {:>8}  {:>8}  {:>8}  file",
                "text", "rodata", "data", "bss"
            );
            for input in map.inputs.iter().take(shown) {
                let figures = format!(
                    "{:>8}  {:>8}  {:>8}  {:>8}",
                    input.text, input.rodata, input.data, input.bss
                );
                // A path too long for the row goes on a line of its own, above its figures.
                if figures.len() + 2 + input.file.chars().count() > NOTE_WIDTH {
                    let _ = writeln!(out, "{}\n{figures}", input.file);
                } else {
                    let _ = writeln!(out, "{figures}  {}", input.file);
                }
            }
        }
        out
    }
}

/// The interrupt allowance in one line: what every bound includes for exceptions, and why.
fn interrupt_line(interrupts: &InterruptAllowance) -> String {
    match (interrupts.bytes, &interrupts.unbounded) {
        (Some(0), _) => format!("interrupt allowance: 0 bytes ({})", interrupts.note),
        (Some(bytes), _) => format!(
            "interrupt allowance: {bytes} bytes in every bound: a {}-byte exception frame{} and {} bytes of \
             the deepest handler{}",
            interrupts.exception_frame_bytes,
            if interrupts.fpu_context {
                " (FPU context)"
            } else {
                ""
            },
            interrupts.handler_bytes,
            interrupts
                .deepest_handler
                .as_deref()
                .map_or(String::new(), |name| format!(", {name}")),
        ),
        (None, reason) => format!(
            "interrupt allowance: none, so no bound: {}",
            reason.as_deref().unwrap_or("")
        ),
    }
}
