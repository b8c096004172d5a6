//! The directory put first on a build's PATH: an entry per compiler name the original PATH has, each a
//! symbolic link to the program that runs the cache (rho), which sees the name it was called by as argv[0].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::CacheError;

/// The compiler names always looked for; cross compilers (`arm-none-eabi-gcc`) are found by their suffix.
const COMPILER_NAMES: &[&str] = &["cc", "gcc", "c++", "g++", "clang", "clang++"];

/// The suffixes of a cross compiler's name.
const CROSS_SUFFIXES: &[&str] = &["-gcc", "-g++", "-clang", "-clang++", "-cc", "-c++"];

/// Whether `name` (a file name) is one the cache masquerades as.
pub fn is_compiler_name(name: &str) -> bool {
    COMPILER_NAMES.contains(&name)
        || CROSS_SUFFIXES
            .iter()
            .any(|suffix| name.len() > suffix.len() && name.ends_with(suffix))
}

/// The executable file `name` on `path` (a PATH value), skipping the program `not` (the cache itself: a
/// compiler entry must never lead back to it).
pub fn find_on_path(name: &str, path: &OsStr, not: Option<&Path>) -> Option<PathBuf> {
    let not = not.and_then(|p| p.canonicalize().ok());
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            is_executable(candidate) && (not.is_none() || candidate.canonicalize().ok() != not)
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Fill `dir` with an entry per compiler name found on `path`, each a symbolic link to `program`; the names,
/// sorted.
pub fn masquerade(program: &Path, dir: &Path, path: &OsStr) -> Result<Vec<String>, CacheError> {
    std::fs::create_dir_all(dir).map_err(|e| CacheError::io(dir, e))?;
    let mut names: Vec<String> = COMPILER_NAMES.iter().map(|n| (*n).to_owned()).collect();
    for folder in std::env::split_paths(path) {
        let Ok(read) = std::fs::read_dir(&folder) else {
            continue;
        };
        names.extend(
            read.flatten()
                .filter_map(|item| item.file_name().to_str().map(str::to_owned))
                .filter(|name| is_compiler_name(name)),
        );
    }
    names.sort();
    names.dedup();
    names.retain(|name| find_on_path(name, path, Some(program)).is_some());
    for name in &names {
        let entry = dir.join(name);
        std::os::unix::fs::symlink(program, &entry).map_err(|e| CacheError::io(&entry, e))?;
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_names() {
        for name in [
            "cc",
            "g++",
            "clang++",
            "arm-none-eabi-gcc",
            "riscv64-unknown-elf-gcc",
        ] {
            assert!(is_compiler_name(name), "{name}");
        }
        for name in ["rho", "ld", "-gcc", "gcc-ar", "ccache", "distcc", "make"] {
            assert!(!is_compiler_name(name), "{name}");
        }
    }

    #[test]
    fn only_names_on_the_path_are_masqueraded_and_the_program_is_never_the_compiler() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let program = tmp.path().join("rho");
        for file in [
            bin.join("gcc"),
            bin.join("arm-none-eabi-gcc"),
            program.clone(),
        ] {
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let shims = tmp.path().join("shims");
        let names = masquerade(&program, &shims, bin.as_os_str()).unwrap();
        assert_eq!(names, ["arm-none-eabi-gcc", "gcc"]);
        // With the shims first, `gcc` is still found past them.
        let path = std::env::join_paths([&shims, &bin]).unwrap();
        assert_eq!(
            find_on_path("gcc", &path, Some(&program)),
            Some(bin.join("gcc"))
        );
    }
}
