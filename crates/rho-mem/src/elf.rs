//! Reading an ELF image with the `object` crate: its sections as GNU `size -A` lists them, the Berkeley totals
//! `size` prints, and its sized symbols.

use std::path::Path;

use object::elf;
use object::read::elf::{ElfFile, FileHeader, SectionHeader as _};
use object::{
    Endianness, Object as _, ObjectSection as _, ObjectSymbol as _, ReadCache, ReadRef, SymbolKind,
};
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
    /// An Arm image's build attributes and vector table: what an exception pushes and which handlers can run
    /// on the benchmark's stack (None for another machine).
    pub arm: Option<ArmCore>,
}

/// What an Arm image's `.ARM.attributes` and vector table say about exceptions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArmCore {
    /// `Tag_CPU_arch_profile` is `M` (a Cortex-M: the hardware pushes a frame on exception entry); false
    /// when the attributes name another profile or are missing.
    pub m_profile: bool,
    /// Whether the code may use floating-point registers (`Tag_FP_arch` non-zero, as -mfloat-abi=hard or
    /// softfp with an -mfpu gives): then an exception may push the FPU's lazy context. None without
    /// attributes.
    pub fp: Option<bool>,
    /// The vector table (section `.vectors` or `.isr_vector`): per entry from 1 (entry 0 is the initial
    /// stack pointer) that holds a function's address, the names of the functions there (a weak alias and
    /// its target share an address), in name order.
    pub vectors: Vec<(u32, Vec<String>)>,
}

/// The machines rho mem analyses (`e_machine`): what `machine_name` names and the stack analysis knows.
const KNOWN_MACHINES: &str = "x86-64, x86, aarch64, arm, riscv32 or riscv64";

impl Image {
    /// Read the ELF image at `path` as it is needed (its headers, section table, symbol and string tables),
    /// never the whole file: memory does not grow with the file's size (a 3 GB image costs what its tables
    /// cost).
    pub fn open(path: &Path) -> Result<Image, MemError> {
        let file = std::fs::File::open(path).map_err(|e| MemError::io(path, &e))?;
        let cache = ReadCache::new(file);
        Image::parse(path, &cache)
    }

    /// Read an ELF image (32 or 64 bits, either byte order) from `data`; `path` names it in errors.
    pub fn parse<'data, R: ReadRef<'data>>(path: &Path, data: R) -> Result<Image, MemError> {
        let error = |message: String| MemError::Elf {
            path: path.to_path_buf(),
            message,
        };
        let ident = check_ident(data).map_err(error)?;
        if ident.class == elf::ELFCLASS32 {
            check_header::<elf::FileHeader32<Endianness>, R>(data, "ELF32").map_err(error)?;
            let file = ElfFile::<elf::FileHeader32<Endianness>, R>::parse(data)
                .map_err(|e| error(format!("a broken ELF32 image: {e}")))?;
            read(&file, "elf32").map_err(error)
        } else {
            check_header::<elf::FileHeader64<Endianness>, R>(data, "ELF64").map_err(error)?;
            let file = ElfFile::<elf::FileHeader64<Endianness>, R>::parse(data)
                .map_err(|e| error(format!("a broken ELF64 image: {e}")))?;
            read(&file, "elf64").map_err(error)
        }
    }

    /// The sum of every listed section, `size -A`'s `Total`.
    pub fn sections_total(&self) -> u64 {
        self.sections.iter().map(|s| s.size).sum()
    }
}

/// The ELF identification (`e_ident`) of an image whose first bytes are well formed.
struct Ident {
    class: u8,
}

/// What is wrong with the first 16 bytes of `data` (`e_ident`), precisely: not ELF at all, too short for its
/// identification, or an ELF whose class, byte order or version byte no ELF has.
fn check_ident<'data, R: ReadRef<'data>>(data: R) -> Result<Ident, String> {
    let head = data.read_bytes_at(0, 4).unwrap_or(&[]);
    if head != elf::ELFMAG {
        return Err("expected an ELF image (it does not start with \\x7fELF)".to_string());
    }
    let Ok(ident) = data.read_bytes_at(0, 16) else {
        return Err(
            "a truncated ELF image: it ends inside its 16-byte identification (e_ident)"
                .to_string(),
        );
    };
    let class = ident[4];
    if class != elf::ELFCLASS32 && class != elf::ELFCLASS64 {
        return Err(format!(
            "an ELF image with a bad class byte (e_ident[EI_CLASS], offset 4): {class:#04x}, expected \
             1 (ELF32) or 2 (ELF64)"
        ));
    }
    let order = ident[5];
    if order != elf::ELFDATA2LSB && order != elf::ELFDATA2MSB {
        return Err(format!(
            "an ELF image with a bad byte-order byte (e_ident[EI_DATA], offset 5): {order:#04x}, \
             expected 1 (little-endian) or 2 (big-endian)"
        ));
    }
    let version = ident[6];
    if version != elf::EV_CURRENT {
        return Err(format!(
            "an ELF image with a bad version byte (e_ident[EI_VERSION], offset 6): {version:#04x}, \
             expected 1"
        ));
    }
    Ok(Ident { class })
}

/// What is wrong with the ELF header of an image whose identification is good, said with its fields: a file
/// that ends inside the header, an `e_type` that is not an object, an executable or a shared object, a
/// program or section header table that runs past the end of the file.
fn check_header<'data, H: FileHeader<Endian = Endianness>, R: ReadRef<'data>>(
    data: R,
    class: &str,
) -> Result<(), String> {
    let size = std::mem::size_of::<H>();
    let len = data.len().unwrap_or(0);
    let header = H::parse(data).map_err(|_| {
        format!("a truncated {class} image: the file ({len} bytes) ends inside its {size}-byte ELF header")
    })?;
    let endian = header
        .endian()
        .map_err(|e| format!("a broken {class} image: {e}"))?;
    let kind = header.e_type(endian);
    if !matches!(kind, elf::ET_REL | elf::ET_EXEC | elf::ET_DYN) {
        return Err(format!(
            "an {class} image of type {kind:#x} (e_type), expected 1 (a relocatable object), 2 (an \
             executable) or 3 (a shared object or position-independent executable)"
        ));
    }
    let tables = [
        (
            "program header table",
            ("e_phoff", "e_phentsize"),
            header.e_phoff(endian).into(),
            header.e_phnum(endian),
            (
                header.e_phentsize(endian),
                std::mem::size_of::<H::ProgramHeader>(),
            ),
        ),
        (
            "section header table",
            ("e_shoff", "e_shentsize"),
            header.e_shoff(endian).into(),
            header.e_shnum(endian),
            (
                header.e_shentsize(endian),
                std::mem::size_of::<H::SectionHeader>(),
            ),
        ),
    ];
    for (what, (field, entry_field), offset, count, (entry, expected)) in tables {
        let offset: u64 = offset;
        if offset == 0 || count == 0 {
            continue;
        }
        if usize::from(entry) != expected {
            return Err(format!(
                "a broken {class} image: its {what} has entries of {entry} bytes ({entry_field}), \
                 expected {expected}"
            ));
        }
        let end = offset.saturating_add(u64::from(count) * u64::from(entry));
        if end > len {
            return Err(format!(
                "a broken {class} image: its {what} ({count} entries of {entry} bytes at {field} {offset}) \
                 ends at byte {end}, past the end of the file ({len} bytes): the file is cut short or \
                 {field} is wrong"
            ));
        }
    }
    Ok(())
}

fn read<'data, H: FileHeader<Endian = Endianness>, R: ReadRef<'data>>(
    file: &ElfFile<'data, H, R>,
    class: &str,
) -> Result<Image, String> {
    let endian = file.endian();
    let e_machine = file.elf_header().e_machine(endian);
    let machine = machine_name(file.architecture()).ok_or_else(|| {
        format!(
            "an ELF image for machine {e_machine} (e_machine), which rho mem cannot analyse \
             (it reads {KNOWN_MACHINES})"
        )
    })?;
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
    let arm = (file.architecture() == object::Architecture::Arm).then(|| arm_core(file, &symbols));

    Ok(Image {
        format: Format {
            class: class.to_string(),
            endian: if file.is_little_endian() {
                "little"
            } else {
                "big"
            }
            .to_string(),
            machine,
        },
        sections,
        totals,
        symbols,
        arm,
    })
}

/// The largest vector table read: 16 system entries and 496 external interrupts (ARMv7-M's most).
const VECTOR_TABLE_MAX_BYTES: u64 = 512 * 4;
/// The largest `.ARM.attributes` read (a toolchain's is a few dozen bytes).
const ATTRIBUTES_MAX_BYTES: u64 = 4096;

/// An Arm image's build attributes and vector table; a section too large or unreadable is read as absent.
fn arm_core<'data, H: FileHeader<Endian = Endianness>, R: ReadRef<'data>>(
    file: &ElfFile<'data, H, R>,
    symbols: &[Symbol],
) -> ArmCore {
    let mut core = ArmCore::default();
    let data_of = |name: &str, max: u64| -> Option<&'data [u8]> {
        let section = file.section_by_name(name)?;
        if section.size() > max {
            return None;
        }
        section.data().ok()
    };
    if let Some(attributes) = data_of(".ARM.attributes", ATTRIBUTES_MAX_BYTES) {
        let tags = crate::attributes::aeabi_attributes(attributes);
        core.m_profile = tags.get(&TAG_CPU_ARCH_PROFILE) == Some(&u64::from(b'M'));
        core.fp = Some(tags.get(&TAG_FP_ARCH).is_some_and(|v| *v != 0));
    }
    let table = data_of(".vectors", VECTOR_TABLE_MAX_BYTES)
        .or_else(|| data_of(".isr_vector", VECTOR_TABLE_MAX_BYTES))
        .or_else(|| vector_table_by_symbol(file, symbols));
    if let Some(table) = table {
        let little = file.is_little_endian();
        for (index, word) in table.chunks_exact(4).enumerate().skip(1) {
            let bytes = [word[0], word[1], word[2], word[3]];
            let value = if little {
                u32::from_le_bytes(bytes)
            } else {
                u32::from_be_bytes(bytes)
            };
            let address = u64::from(value & !1);
            if value == 0 {
                continue;
            }
            let mut names: Vec<String> = symbols
                .iter()
                .filter(|s| s.kind == SymbolType::Function && s.address == address)
                .map(|s| s.name.clone())
                .collect();
            names.sort();
            names.dedup();
            if let (false, Ok(index)) = (names.is_empty(), u32::try_from(index)) {
                core.vectors.push((index, names));
            }
        }
    }
    core
}

/// The names a vector table goes by when a linker script places it inside `.text` (rho's ports: `vectors`;
/// CMSIS: `__isr_vector`, `__Vectors`; ST's: `g_pfnVectors`).
const VECTOR_TABLE_SYMBOLS: [&str; 4] = ["vectors", "__isr_vector", "__Vectors", "g_pfnVectors"];

/// The vector table's bytes, found by its symbol (an object no larger than [`VECTOR_TABLE_MAX_BYTES`]).
fn vector_table_by_symbol<'data, H: FileHeader<Endian = Endianness>, R: ReadRef<'data>>(
    file: &ElfFile<'data, H, R>,
    symbols: &[Symbol],
) -> Option<&'data [u8]> {
    let symbol = VECTOR_TABLE_SYMBOLS.iter().find_map(|name| {
        symbols.iter().find(|s| {
            s.name == *name && s.kind == SymbolType::Object && s.size <= VECTOR_TABLE_MAX_BYTES
        })
    })?;
    let section = file.section_by_name(symbol.section.as_deref()?)?;
    section.data_range(symbol.address, symbol.size).ok()?
}

/// `Tag_CPU_arch_profile` (`A`, `R`, `M`, or `S`) and `Tag_FP_arch` of the Arm EABI's attributes.
const TAG_CPU_ARCH_PROFILE: u64 = 7;
const TAG_FP_ARCH: u64 = 10;

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

/// The name of a machine rho mem analyses (one of [`KNOWN_MACHINES`]); `None` for any other.
fn machine_name(architecture: object::Architecture) -> Option<String> {
    use object::Architecture as A;
    let name = match architecture {
        A::X86_64 | A::X86_64_X32 => "x86-64",
        A::I386 => "x86",
        A::Aarch64 | A::Aarch64_Ilp32 => "aarch64",
        A::Arm => "arm",
        A::Riscv32 => "riscv32",
        A::Riscv64 => "riscv64",
        _ => return None,
    };
    Some(name.to_string())
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
        let error = Image::parse(Path::new("x.bin"), &b"hello"[..]).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.bin: expected an ELF image")
        );
    }

    /// A 64-byte little-endian ELF64 header with no sections and no segments, for `machine`.
    fn header64(machine: u16) -> Vec<u8> {
        let mut bytes = vec![0u8; 64];
        bytes[..4].copy_from_slice(&elf::ELFMAG);
        bytes[4] = elf::ELFCLASS64;
        bytes[5] = elf::ELFDATA2LSB;
        bytes[6] = elf::EV_CURRENT;
        bytes[16..18].copy_from_slice(&elf::ET_EXEC.to_le_bytes());
        bytes[18..20].copy_from_slice(&machine.to_le_bytes());
        bytes[20..24].copy_from_slice(&1u32.to_le_bytes());
        bytes[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
        bytes
    }

    fn message(bytes: &[u8]) -> String {
        Image::parse(Path::new("img.elf"), bytes)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_broken_elf_identification_is_named_precisely() {
        let good = header64(elf::EM_X86_64);
        let image = Image::parse(Path::new("img.elf"), &good[..]).unwrap();
        assert_eq!(image.format.machine, "x86-64");

        let mut bad_class = good.clone();
        bad_class[4] = 7;
        assert_eq!(
            message(&bad_class),
            "img.elf: an ELF image with a bad class byte (e_ident[EI_CLASS], offset 4): 0x07, expected 1 \
             (ELF32) or 2 (ELF64)"
        );
        let mut bad_order = good.clone();
        bad_order[5] = 0;
        assert!(
            message(&bad_order).contains("bad byte-order byte (e_ident[EI_DATA], offset 5): 0x00"),
            "{}",
            message(&bad_order)
        );
        let mut bad_version = good.clone();
        bad_version[6] = 2;
        assert!(
            message(&bad_version)
                .contains("bad version byte (e_ident[EI_VERSION], offset 6): 0x02")
        );
        assert!(message(&good[..10]).contains("ends inside its 16-byte identification"));
        assert_eq!(
            message(&good[..40]),
            "img.elf: a truncated ELF64 image: the file (40 bytes) ends inside its 64-byte ELF header"
        );
        let mut bad_type = good.clone();
        bad_type[16] = 0x99;
        assert!(
            message(&bad_type).contains("of type 0x99 (e_type)"),
            "{}",
            message(&bad_type)
        );
        let mut bad_entry = good.clone();
        bad_entry[40..48].copy_from_slice(&64u64.to_le_bytes());
        bad_entry[58..60].copy_from_slice(&7u16.to_le_bytes());
        bad_entry[60..62].copy_from_slice(&1u16.to_le_bytes());
        assert!(
            message(&bad_entry).ends_with(
                "section header table has entries of 7 bytes (e_shentsize), expected 64"
            ),
            "{}",
            message(&bad_entry)
        );
        // A section header table of 3 entries of 64 bytes at offset 64, in a file of 64 bytes.
        let mut cut = good.clone();
        cut[40..48].copy_from_slice(&64u64.to_le_bytes());
        cut[58..60].copy_from_slice(&64u16.to_le_bytes());
        cut[60..62].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(
            message(&cut),
            "img.elf: a broken ELF64 image: its section header table (3 entries of 64 bytes at e_shoff 64) \
             ends at byte 256, past the end of the file (64 bytes): the file is cut short or e_shoff is wrong"
        );
    }

    #[test]
    fn a_machine_rho_mem_cannot_analyse_is_refused() {
        let error = message(&header64(0x1234));
        assert_eq!(
            error,
            "img.elf: an ELF image for machine 4660 (e_machine), which rho mem cannot analyse (it reads \
             x86-64, x86, aarch64, arm, riscv32 or riscv64)"
        );
        // A machine `object` knows but rho mem does not analyse (MIPS) is refused the same way.
        assert!(message(&header64(elf::EM_MIPS)).contains("machine 8 (e_machine)"));
    }
}
