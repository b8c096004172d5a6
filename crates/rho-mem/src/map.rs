//! A GNU ld map file (`-Wl,-Map=FILE`): which input file put how many bytes into which output section, so the
//! footprint can be told per object file and archive member.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::MemError;
use crate::elf::{Image, SectionKind};

/// One input file's bytes in the image, by the kind of the output section they went to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFootprint {
    /// The file as the map names it (`libc.a(lib_a-memcpy.o)` for an archive member).
    pub file: String,
    pub text: u64,
    pub rodata: u64,
    pub data: u64,
    pub bss: u64,
    /// Into sections that are not loaded (debug information and the like).
    pub other: u64,
}

impl InputFootprint {
    /// Its loaded bytes: text + rodata + data + bss.
    pub fn loaded(&self) -> u64 {
        self.text + self.rodata + self.data + self.bss
    }
}

/// One input section as placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub output_section: String,
    pub input_section: String,
    pub address: u64,
    pub size: u64,
    pub file: String,
}

/// Read the "Linker script and memory map" part of a GNU ld map file; every input section of non-zero size
/// with a file. Lines it does not recognise (assignments, patterns, `*fill*`, symbols) are skipped; a number
/// that is not hexadecimal where one is expected is an error naming the line.
pub fn parse_map(path: &Path, text: &str) -> Result<Vec<Placement>, MemError> {
    let mut placements = Vec::new();
    let lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, l)| !l.starts_with("Linker script and memory map"));
    let mut output = String::new();
    let mut pending: Option<String> = None; // an input section whose numbers are on the next line
    let hex = |number: usize, word: &str| {
        word.strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                MemError::line(
                    path,
                    number,
                    format!("expected a hexadecimal number (0x...), found {word:?}"),
                )
            })
    };
    for (index, line) in lines {
        let number = index + 1;
        if line.is_empty() {
            pending = None;
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(name) = pending.take() {
            // `  0xADDRESS  0xSIZE  FILE` after a long input section name.
            if words.len() >= 3 && words[0].starts_with("0x") {
                placements.push(Placement {
                    output_section: output.clone(),
                    input_section: name,
                    address: hex(number, words[0])?,
                    size: hex(number, words[1])?,
                    file: words[2..].join(" "),
                });
            }
            continue;
        }
        let first = line.chars().next().unwrap_or(' ');
        if first != ' ' {
            // An output section (`.text  0x...  0x...`, or the name alone), or LOAD, OUTPUT(...) and the like.
            let directive = ["LOAD", "START", "END", "OUTPUT", "TARGET(", "Linker"]
                .iter()
                .any(|w| words[0].starts_with(w));
            if words[0].starts_with('.') || !directive {
                output = words[0].to_string();
            }
            continue;
        }
        // An input section is indented by one space: ` .text  0x...  0x...  FILE`.
        if line.starts_with("  ") || words[0].starts_with('*') || output.is_empty() {
            continue;
        }
        match words.len() {
            1 => pending = Some(words[0].to_string()),
            n if n >= 4 && words[1].starts_with("0x") && words[2].starts_with("0x") => {
                placements.push(Placement {
                    output_section: output.clone(),
                    input_section: words[0].to_string(),
                    address: hex(number, words[1])?,
                    size: hex(number, words[2])?,
                    file: words[3..].join(" "),
                });
            }
            _ => {}
        }
    }
    placements.retain(|p| p.size > 0);
    Ok(placements)
}

/// Each input file's bytes, the output sections' kinds taken from the image (a section the image does not
/// have, e.g. one discarded later, counts as other), largest loaded footprint first.
pub fn footprint_by_file(image: &Image, placements: &[Placement]) -> Vec<InputFootprint> {
    let kinds: BTreeMap<&str, SectionKind> = image
        .sections
        .iter()
        .map(|s| (s.name.as_str(), s.kind))
        .collect();
    let mut by_file: BTreeMap<&str, InputFootprint> = BTreeMap::new();
    for placement in placements {
        let entry = by_file
            .entry(placement.file.as_str())
            .or_insert_with(|| InputFootprint {
                file: placement.file.clone(),
                ..InputFootprint::default()
            });
        let slot = match kinds.get(placement.output_section.as_str()) {
            Some(SectionKind::Text) => &mut entry.text,
            Some(SectionKind::Rodata) => &mut entry.rodata,
            Some(SectionKind::Data) => &mut entry.data,
            Some(SectionKind::Bss) => &mut entry.bss,
            Some(SectionKind::Other) | None => &mut entry.other,
        };
        *slot += placement.size;
    }
    let mut files: Vec<InputFootprint> = by_file.into_values().collect();
    files.sort_by(|a, b| {
        b.loaded()
            .cmp(&a.loaded())
            .then_with(|| a.file.cmp(&b.file))
    });
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"Discarded input sections

 .note.GNU-stack
                0x0000000000000000        0x0 a.o

Linker script and memory map

LOAD a.o

.text           0x0000000000001040      0x1a5
 *(.text .text.*)
 .text          0x0000000000001040       0x22 /usr/lib/crt1.o
                0x0000000000001040                _start
 .text.a_rather_long_function_name
                0x0000000000001062       0x30 libm.a(s_sin.o)
 *fill*         0x0000000000001092        0xe 

.bss            0x0000000000004010        0x8
 .bss           0x0000000000004010        0x8 /tmp/x y.o
"#;

    #[test]
    fn input_sections_are_read_with_their_files() {
        let placements = parse_map(Path::new("a.map"), MAP).unwrap();
        assert_eq!(placements.len(), 3, "{placements:?}");
        assert_eq!(
            placements[1].input_section,
            ".text.a_rather_long_function_name"
        );
        assert_eq!(placements[1].size, 0x30);
        assert_eq!(placements[1].file, "libm.a(s_sin.o)");
        assert_eq!(placements[2].output_section, ".bss");
        assert_eq!(placements[2].file, "/tmp/x y.o");
    }

    #[test]
    fn a_bad_number_names_the_line() {
        let text = "Linker script and memory map\n.text 0x10 0x10\n .text 0x10 0xZZ a.o\n";
        let error = parse_map(Path::new("a.map"), text).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.map:3: expected a hexadecimal number (0x...), found \"0xZZ\""
        );
    }
}
