//! `rho mem`: the subcommand's arguments and what it does with them.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::{Document, Inputs};

/// `rho mem FILE.elf [--json] [--stack-usage PATH]... [--map FILE]`.
#[derive(Debug, Clone, Args)]
pub struct MemArgs {
    /// The image: an ELF executable or object (32 or 64 bits; x86-64, aarch64, Arm, RISC-V).
    #[arg(value_name = "FILE.elf")]
    pub image: PathBuf,

    /// Print the document (schema `rho-mem/2`, see docs/mem-json.md) on stdout instead of the text report.
    #[arg(long)]
    pub json: bool,

    /// GCC's stack-usage files: a `.su` (-fstack-usage) or `.ci` (-fcallgraph-info=su) file, or a directory
    /// whose `.su` and `.ci` files are all read. Repeat for more.
    #[arg(long = "stack-usage", value_name = "PATH")]
    pub stack_usage: Vec<PathBuf>,

    /// A GNU ld map file (-Wl,-Map=FILE): bytes per input object and archive member.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,

    /// How many of the largest symbols (and map inputs) the text report lists; --json lists them all.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
}

/// Run `rho mem`: the document on stdout, as JSON or text.
pub fn run(args: &MemArgs) -> anyhow::Result<()> {
    let document = Document::build(&Inputs {
        image: args.image.clone(),
        stack_usage: args.stack_usage.clone(),
        map: args.map.clone(),
    })?;
    let text = if args.json {
        let mut text = serde_json::to_string_pretty(&document)?;
        text.push('\n');
        text
    } else {
        document.render(args.top)
    };
    // Symbol, section and file names come from the image and the map: escaped on their way to the terminal.
    let mut out = rho_text::Escaped(std::io::stdout().lock());
    // A closed stdout (`rho mem x.elf | head`) is not worth an error.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}
