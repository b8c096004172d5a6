//! Reading a compiler's command line: which arguments are sources, which only matter to the link, where the
//! output goes; or why the invocation is one the cache leaves to the compiler alone.

use std::path::{Path, PathBuf};

/// The suffixes of the sources the cache compiles, and each one's language.
const SOURCE_SUFFIXES: &[(&str, &str)] = &[
    (".c", "c"),
    (".cc", "c++"),
    (".cpp", "c++"),
    (".cxx", "c++"),
    (".C", "c++"),
];

/// Inputs the link takes that are not compiled: objects and archives.
const LINK_INPUT_SUFFIXES: &[&str] = &[".o", ".a", ".so", ".lo"];

/// Options whose value is the next argument (`-I dir`), kept for the compile.
const COMPILE_OPTIONS_WITH_VALUE: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-isysroot",
    "--sysroot",
    "-target",
    "--target",
    "-arch",
];

/// Options whose value is the next argument and that only the link reads.
const LINK_OPTIONS_WITH_VALUE: &[&str] = &["-L", "-l", "-Xlinker", "-T", "-u", "-z"];

/// Arguments the cache does not model (their output is not one object per source, they read or write other
/// files, or they change how the sources are read): with any of these the compiler runs as asked.
const PASS_THROUGH_EXACT: &[&str] = &[
    "-E",
    "-S",
    "-",
    "-v",
    "-###",
    "--coverage",
    "-ftest-coverage",
    "-fsyntax-only",
    "-P",
    "--analyze",
];

/// Prefixes of arguments with the same effect as [`PASS_THROUGH_EXACT`].
const PASS_THROUGH_PREFIXES: &[&str] = &[
    "-M",
    "-x",
    "-save-temps",
    "-fprofile-",
    "-fauto-profile",
    "-flto",
    "-fdump-",
    "-fplugin",
    "-Wp,",
    "-Xpreprocessor",
    "-Xclang",
    "-specs",
    "--param-file",
    "-frecord-gcc-switches",
    "-ftime-report",
    "-fstack-usage",
    "-fcallgraph-info",
    "-aux-info",
    "-print-",
    // Every -d option: -dM/-dD make the preprocessed text a macro list (the code would not be keyed), the
    // rest dump compiler internals to files; -dump* prints and exits.
    "-d",
    "--print",
    "--help",
    "--version",
    "-B",
    "-wrapper",
    "-gsplit-dwarf",
    "-Wa,-a",
    // Files written beside the object (a hit would not write them) or next to the temporary one.
    "-fopt-info",
    "-ftime-trace",
    "-fsave-optimization-record",
    "-save-stats",
    "-fdiagnostics-format=sarif",
    "-fdiagnostics-format=json-file",
    "-fdiagnostics-add-output",
    // Files read that are not in the preprocessed text: modules, sanitizer lists.
    "-fmodules",
    "-fmodule-file",
    "-fmodule-map-file",
    "-fprebuilt-module-path",
    "-fsanitize-ignorelist",
    "-fsanitize-blacklist",
    "-fsanitize-coverage-allowlist",
    "-fsanitize-coverage-ignorelist",
    "-fsanitize-coverage-whitelist",
    "-fsanitize-coverage-blacklist",
];

/// One source of an invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// As the command line names it.
    pub path: PathBuf,
    /// `c` or `c++`: by its suffix.
    pub language: &'static str,
    /// Its place in the command line.
    pub index: usize,
}

/// An invocation the cache can take apart: its sources, the arguments every compile of one of them gets, and
/// whether it links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The whole command line, in order (a link keeps it, with objects in place of the sources).
    pub args: Vec<String>,
    pub sources: Vec<Source>,
    /// Every argument that is not a source, `-c`, `-o FILE`, a link input or a link-only option, in order.
    pub compile_args: Vec<String>,
    /// `-c`: compile only.
    pub compile_only: bool,
    /// `-o FILE`.
    pub output: Option<PathBuf>,
}

/// What a command line is to the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Compiled source by source through the cache.
    Cached(Invocation),
    /// Run as it is, for the reason given; `sources` counts the arguments that look like sources.
    PassThrough { why: String, sources: usize },
}

/// The language of `path` when its suffix is one the cache compiles.
fn language_of(path: &str) -> Option<&'static str> {
    SOURCE_SUFFIXES
        .iter()
        .find(|(suffix, _)| path.len() > suffix.len() && path.ends_with(suffix))
        .map(|(_, language)| *language)
}

/// Whether `arg` is an option the cache leaves to the compiler. `-march=native` (and `-mtune=`, `-mcpu=`)
/// means this machine's processor, which its text does not say: the same key could name another CPU's code.
fn passes_through(arg: &str) -> bool {
    PASS_THROUGH_EXACT.contains(&arg)
        || arg.starts_with('@')
        || PASS_THROUGH_PREFIXES.iter().any(|p| arg.starts_with(p))
        || (arg.starts_with("-m") && arg.ends_with("=native"))
}

/// Whether `arg` (not the value of an option) only matters to the link: `-lm`, `-L/x`, `-Wl,...`.
fn is_link_only(arg: &str) -> bool {
    arg.starts_with("-l")
        || arg.starts_with("-L")
        || arg.starts_with("-Wl,")
        || arg.starts_with("-T")
}

/// Read `args` (the compiler's arguments, without its name).
pub fn parse(args: &[String]) -> Parsed {
    let looks_like_sources = args.iter().filter(|a| language_of(a).is_some()).count();
    let pass = |why: String| Parsed::PassThrough {
        why,
        sources: looks_like_sources,
    };
    let mut invocation = Invocation {
        args: args.to_vec(),
        sources: Vec::new(),
        compile_args: Vec::new(),
        compile_only: false,
        output: None,
    };
    let mut link_inputs = 0;
    let mut index = 0;
    while index < args.len() {
        let arg = args[index].as_str();
        let value = args.get(index + 1);
        if passes_through(arg) {
            return pass(format!("`{arg}`"));
        }
        if arg == "-o" {
            let Some(file) = value else {
                return pass("`-o` without a file".to_owned());
            };
            // The compiler's own answer (no object on stdout), not a file named `-`.
            if file == "-" {
                return pass("`-o -`".to_owned());
            }
            invocation.output = Some(PathBuf::from(file));
            index += 2;
            continue;
        }
        if arg == "-c" {
            invocation.compile_only = true;
        } else if LINK_OPTIONS_WITH_VALUE.contains(&arg) {
            index += 1;
        } else if COMPILE_OPTIONS_WITH_VALUE.contains(&arg) {
            let Some(value) = value else {
                return pass(format!("`{arg}` without a value"));
            };
            invocation.compile_args.push(arg.to_owned());
            invocation.compile_args.push(value.clone());
            index += 1;
        } else if let Some(file) = arg.strip_prefix("-o") {
            if file == "-" {
                return pass("`-o-`".to_owned());
            }
            invocation.output = Some(PathBuf::from(file));
        } else if arg.starts_with('-') {
            if !is_link_only(arg) {
                invocation.compile_args.push(arg.to_owned());
            }
        } else if let Some(language) = language_of(arg) {
            invocation.sources.push(Source {
                path: PathBuf::from(arg),
                language,
                index,
            });
        } else if LINK_INPUT_SUFFIXES.iter().any(|s| arg.ends_with(s)) || arg.contains(".so.") {
            link_inputs += 1;
        } else {
            return pass(format!("`{arg}` (not a source the cache compiles)"));
        }
        index += 1;
    }
    if invocation.sources.is_empty() {
        return pass("no source".to_owned());
    }
    if invocation.compile_only
        && (link_inputs > 0 || invocation.sources.len() > 1 && invocation.output.is_some())
    {
        return pass("`-c` with link inputs or with one `-o` for several sources".to_owned());
    }
    Parsed::Cached(invocation)
}

/// Where `-c` without `-o` writes the object of `source`: its file name with `.o`, in the current directory.
pub fn default_object(source: &Path) -> PathBuf {
    let stem = source.file_stem().unwrap_or(source.as_os_str());
    let mut name = stem.to_owned();
    name.push(".o");
    PathBuf::from(name)
}

/// Whether the compile emits debug information, which names the working directory.
pub fn has_debug_info(compile_args: &[String]) -> bool {
    compile_args
        .iter()
        .any(|a| a.starts_with("-g") && a != "-g0")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    fn cached(text: &str) -> Invocation {
        match parse(&words(text)) {
            Parsed::Cached(invocation) => invocation,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn a_one_shot_build_is_split_into_its_sources_and_link_arguments() {
        let inv = cached("-std=c99 -O2 -I inc -o out/prog a.c sub/b.cc -lm -L/x -Wl,--gc-sections");
        let paths: Vec<_> = inv
            .sources
            .iter()
            .map(|s| s.path.to_str().unwrap())
            .collect();
        assert_eq!(paths, ["a.c", "sub/b.cc"]);
        assert_eq!(inv.sources[1].language, "c++");
        assert_eq!(inv.compile_args, words("-std=c99 -O2 -I inc"));
        assert_eq!(inv.output, Some(PathBuf::from("out/prog")));
        assert!(!inv.compile_only);
    }

    #[test]
    fn a_compile_only_keeps_its_output() {
        let inv = cached("-c -Wall -DX=1 k.c -ok.o");
        assert!(inv.compile_only);
        assert_eq!(inv.output, Some(PathBuf::from("k.o")));
        assert_eq!(inv.compile_args, words("-Wall -DX=1"));
    }

    #[test]
    fn what_the_cache_does_not_model_passes_through() {
        for line in [
            "--version",
            "-o prog a.o b.o -lm",
            "-E a.c",
            "-MD -c a.c",
            "-c -MF a.d a.c",
            "-S a.c",
            "-x c -",
            "@args.rsp",
            "-save-temps -c a.c",
            "--coverage -c a.c",
            "-fprofile-generate -c a.c",
            "-flto -c a.c",
            "-c a.s",
            "-c a.m",
            "-c a.c b.c -o x.o",
            "-c a.c lib.a",
            "-Wp,-MD,a.d -c a.c",
            "-gsplit-dwarf -c a.c",
            "-Wa,-adhln=a.lst -c a.c",
            "-dM -c a.c",
            "-c a.c -o -",
            "-c a.c -o-",
            "-march=native -c a.c",
            "-mcpu=native -c a.c",
            "-fopt-info-vec-all=opt.txt -c a.c",
            "-ftime-trace -c a.c",
            "-fdiagnostics-format=sarif-file -c a.c",
            "-fsanitize=address -fsanitize-ignorelist=ig.txt -c a.c",
            "-fmodules -c a.cpp",
        ] {
            assert!(
                matches!(parse(&words(line)), Parsed::PassThrough { .. }),
                "{line} should pass through"
            );
        }
    }

    #[test]
    fn a_link_input_is_not_compiled_and_a_library_value_is_not_a_source() {
        let inv = cached("-o prog main.c helper.o -l m");
        assert_eq!(inv.sources.len(), 1);
        assert_eq!(inv.compile_args, Vec::<String>::new());
    }

    #[test]
    fn debug_info_and_default_objects() {
        assert!(has_debug_info(&words("-O2 -g3")));
        assert!(!has_debug_info(&words("-O2 -g0")));
        assert_eq!(default_object(Path::new("dir/k.cpp")), PathBuf::from("k.o"));
    }
}
