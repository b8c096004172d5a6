//! Reading an ELF image with the `object` crate: its sections as GNU `size -A` lists them, the Berkeley totals
//! `size` prints, and its sized symbols.

use std::path::Path;

use object::elf;
use object::read::elf::{ElfFile, FileHeader, SectionHeader as _};
use object::{Endianness, Object as _, ObjectSection as _, ObjectSymbol as _, SymbolKind};
use serde::{Deserialize, Serialize};

use crate::MemError;

/// What a section holds, as the report groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionKind {
    /// Loaded and executable: instructions.
    Text,
    /// Loaded, neither writable nor executable: constants, tables, string literals, unwind tables.
    Rodata,
    /// Loaded, writable, with contents in the file: initialised variables (RAM, with a copy in flash).
    Data,
    /// Loaded, writable, no contents in the file: zero-initialised variables (RAM only).
    Bss,
    /// Not loaded: debug information, comments, attributes.
    Other,
}

/// One section, as `size -A` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    pub size: u64,
    pub address: u64,
    pub kind: SectionKind,
}

/// The Berkeley totals `size` prints: `text` is every loaded read-only or executable section, `data` every
/// loaded writable section with contents, `bss` every loaded section without contents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub text: u64,
    pub data: u64,
    pub bss: u64,
    /// text + data + bss (`size`'s `dec`).
    pub total: u64,
}

/// What a symbol names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolType {
    Function,
    Object,
    Tls,
    Other,
}

/// A symbol with a size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    pub address: u64,
    pub size: u64,
    pub kind: SymbolType,
    /// `global`, `weak` or `local`.
    pub binding: String,
    /// The section it is defined in.
    pub section: Option<String>,
    /// For a local symbol: the source file named by the `STT_FILE` symbol before it, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// The image's kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Format {
    /// `elf32` or `elf64`.
    pub class: String,
    /// `little` or `big`.
    pub endian: String,
    /// `x86-64`, `aarch64`, `arm`, `riscv32`, `riscv64`, `x86`, or another name `object` gives.
    pub machine: String,
}

/// Everything read from an ELF image.
#[derive(Debug, Clone)]
pub struct Image {
    pub format: Format,
    pub sections: Vec<Section>,
    pub totals: Totals,
    pub symbols: Vec<Symbol>,
}

impl Image {
    /// Read an ELF image (32 or 64 bits, either byte order) from its bytes; `path` names it in errors.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Image, MemError> {
        let error = |message: String| MemError::Elf {
            path: path.to_path_buf(),
            message,
        };
        match object::FileKind::parse(data) {
            Ok(object::FileKind::Elf32) => {
                let file = ElfFile::<elf::FileHeader32<Endianness>>::parse(data)
                    .map_err(|e| error(format!("not a valid ELF32 image: {e}")))?;
                read(&file, "elf32")
            }
            Ok(object::FileKind::Elf64) => {
                let file = ElfFile::<elf::FileHeader64<Endianness>>::parse(data)
                    .map_err(|e| error(format!("not a valid ELF64 image: {e}")))?;
                read(&file, "elf64")
            }
            Ok(other) => Err(error(format!(
                "expected an ELF image, found {other:?} (rho mem reads ELF32 and ELF64)"
            ))),
            Err(_) => Err(error(
                "expected an ELF image (it does not start with \\x7fELF)".to_string(),
            )),
        }
    }

    /// The sum of every listed section, `size -A`'s `Total`.
    pub fn sections_total(&self) -> u64 {
        self.sections.iter().map(|s| s.size).sum()
    }
}

fn read<H: FileHeader<Endian = Endianness>>(
    file: &ElfFile<'_, H>,
    class: &str,
) -> Result<Image, MemError> {
    let endian = file.endian();
    let mut sections = Vec::new();
    let mut totals = Totals::default();
    for section in file.sections() {
        let header = section.elf_section_header();
        let sh_type = header.sh_type(endian);
        let flags: u64 = header.sh_flags(endian).into();
        if !listed_by_size(sh_type, flags) || section.index().0 == 0 {
            continue;
        }
        let size: u64 = header.sh_size(endian).into();
        let kind = kind_of(sh_type, flags);
        match kind {
            SectionKind::Text | SectionKind::Rodata => totals.text += size,
            SectionKind::Data => totals.data += size,
            SectionKind::Bss => totals.bss += size,
            SectionKind::Other => {}
        }
        sections.push(Section {
            name: section.name().unwrap_or("").to_string(),
            size,
            address: header.sh_addr(endian).into(),
            kind,
        });
    }
    totals.total = totals.text + totals.data + totals.bss;

    let mut symbols = Vec::new();
    let mut current_file: Option<String> = None;
    for symbol in file.symbols() {
        let name = symbol.name().unwrap_or("");
        if symbol.kind() == SymbolKind::File {
            current_file = (!name.is_empty()).then(|| name.to_string());
            continue;
        }
        // Arm's mapping symbols ($a, $t, $d) mark code and data inside a function, they are not symbols.
        if symbol.size() == 0 || name.is_empty() || name.starts_with('$') || symbol.is_undefined() {
            continue;
        }
        let kind = match symbol.kind() {
            SymbolKind::Text => SymbolType::Function,
            SymbolKind::Data => SymbolType::Object,
            SymbolKind::Tls => SymbolType::Tls,
            _ => SymbolType::Other,
        };
        let binding = if symbol.is_weak() {
            "weak"
        } else if symbol.is_global() {
            "global"
        } else {
            "local"
        };
        let section = symbol
            .section_index()
            .and_then(|index| file.section_by_index(index).ok())
            .and_then(|section| section.name().ok().map(str::to_string));
        // Thumb functions have bit 0 set in their value; the address is where the code starts.
        let mut address = symbol.address();
        if kind == SymbolType::Function && file.architecture() == object::Architecture::Arm {
            address &= !1;
        }
        symbols.push(Symbol {
            name: name.to_string(),
            address,
            size: symbol.size(),
            kind,
            binding: binding.to_string(),
            section,
            file: if binding == "local" {
                current_file.clone()
            } else {
                None
            },
        });
    }
    symbols.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.name.cmp(&b.name)));

    Ok(Image {
        format: Format {
            class: class.to_string(),
            endian: if file.is_little_endian() {
                "little"
            } else {
                "big"
            }
            .to_string(),
            machine: machine_name(file.architecture()),
        },
        sections,
        totals,
        symbols,
    })
}

/// Whether GNU `size -A` lists a section: BFD makes no section of the symbol and string tables or of the
/// relocations that belong to another section; everything else is listed, loaded or not.
fn listed_by_size(sh_type: u32, flags: u64) -> bool {
    let alloc = flags & u64::from(elf::SHF_ALLOC) != 0;
    match sh_type {
        elf::SHT_NULL | elf::SHT_SYMTAB | elf::SHT_SYMTAB_SHNDX => false,
        elf::SHT_STRTAB | elf::SHT_REL | elf::SHT_RELA => alloc,
        _ => true,
    }
}

/// The report's kind of a section, from its type and flags the way `size` counts them (Berkeley: loaded and
/// read-only or executable is text, loaded and writable with contents is data, loaded without contents is bss).
fn kind_of(sh_type: u32, flags: u64) -> SectionKind {
    let alloc = flags & u64::from(elf::SHF_ALLOC) != 0;
    let write = flags & u64::from(elf::SHF_WRITE) != 0;
    let exec = flags & u64::from(elf::SHF_EXECINSTR) != 0;
    if !alloc {
        SectionKind::Other
    } else if exec {
        SectionKind::Text
    } else if !write {
        SectionKind::Rodata
    } else if sh_type == elf::SHT_NOBITS {
        SectionKind::Bss
    } else {
        SectionKind::Data
    }
}

fn machine_name(architecture: object::Architecture) -> String {
    use object::Architecture as A;
    match architecture {
        A::X86_64 | A::X86_64_X32 => "x86-64".to_string(),
        A::I386 => "x86".to_string(),
        A::Aarch64 | A::Aarch64_Ilp32 => "aarch64".to_string(),
        A::Arm => "arm".to_string(),
        A::Riscv32 => "riscv32".to_string(),
        A::Riscv64 => "riscv64".to_string(),
        other => format!("{other:?}").to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_leaves_out_symbol_string_and_relocation_tables() {
        assert!(!listed_by_size(elf::SHT_SYMTAB, 0));
        assert!(!listed_by_size(elf::SHT_STRTAB, 0));
        assert!(listed_by_size(elf::SHT_STRTAB, u64::from(elf::SHF_ALLOC)));
        assert!(!listed_by_size(elf::SHT_RELA, 0));
        assert!(listed_by_size(elf::SHT_RELA, u64::from(elf::SHF_ALLOC)));
        assert!(listed_by_size(elf::SHT_PROGBITS, 0));
    }

    #[test]
    fn kinds_follow_berkeley_counting() {
        let a = u64::from(elf::SHF_ALLOC);
        let w = u64::from(elf::SHF_WRITE);
        let x = u64::from(elf::SHF_EXECINSTR);
        assert_eq!(kind_of(elf::SHT_PROGBITS, a | x), SectionKind::Text);
        assert_eq!(kind_of(elf::SHT_PROGBITS, a), SectionKind::Rodata);
        assert_eq!(kind_of(elf::SHT_PROGBITS, a | w), SectionKind::Data);
        assert_eq!(kind_of(elf::SHT_NOBITS, a | w), SectionKind::Bss);
        assert_eq!(kind_of(elf::SHT_PROGBITS, 0), SectionKind::Other);
    }

    #[test]
    fn a_file_that_is_not_elf_is_refused_with_its_name() {
        let error = Image::parse(Path::new("x.bin"), b"hello").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.bin: expected an ELF image")
        );
    }
}
