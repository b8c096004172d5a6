//! `rho bench init`: a commented module.yml and a first suite under bench/ that builds and runs, in the
//! current directory (a git repository or not), then the next three commands. It never overwrites a file:
//! when either file is already there, nothing is written.

use std::path::Path;
use std::process::ExitCode;

/// Write module.yml and the first suite into `dir` (rho_config::starter), then say what was written and what
/// to run next.
pub fn init(dir: &Path, out: &mut dyn std::io::Write) -> anyhow::Result<ExitCode> {
    rho_config::starter::write_starter(dir)?;
    let text = format!(
        "wrote {} (commented; every key is in docs/config.md) and {} (a first suite)\n\
         next:\n\
         \x20 rho bench                    # build, run and report the suites module.yml names\n\
         \x20 rho bench check              # the same, exit 1 when a budget is broken\n\
         \x20 rho bench --write-baseline   # record a baseline; later `rho bench --diff HEAD` compares with it\n",
        rho_config::MODULE_FILE,
        rho_config::starter::SUITE_PATH,
    );
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The subcommands of `rho bench`, for "did you mean".
pub const SUBCOMMANDS: [&str; 5] = ["check", "gate", "init", "show", "compare"];

/// `rho bench chek`: a lone word that is not a file and is close to a subcommand is a typo of it, not a
/// suite. `None` when the arguments are anything else (the build then says what is wrong with them).
pub fn did_you_mean(files: &[std::path::PathBuf]) -> Option<String> {
    let [only] = files else { return None };
    if only.exists() {
        return None;
    }
    let word = only.to_str()?;
    let subcommand = rho_config::closest_word(word, &SUBCOMMANDS)?;
    Some(format!(
        "`{word}` is not a file, nor a subcommand of rho bench; did you mean `rho bench {subcommand}`?"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_typo_of_a_subcommand_is_named() {
        let typo = |word: &str| did_you_mean(&[PathBuf::from(word)]);
        assert!(typo("chek").unwrap().contains("`rho bench check`"));
        assert!(typo("gaet").unwrap().contains("`rho bench gate`"));
        assert!(typo("int").unwrap().contains("`rho bench init`"));
        assert_eq!(typo("suite.c"), None);
        assert_eq!(typo("qwerty"), None);
        assert_eq!(
            did_you_mean(&[PathBuf::from("chek"), PathBuf::from("b.c")]),
            None
        );
    }

    #[test]
    fn init_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bench")).unwrap();
        std::fs::write(dir.path().join(rho_config::starter::SUITE_PATH), "mine").unwrap();
        let error = init(dir.path(), &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert!(!dir.path().join("module.yml").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(rho_config::starter::SUITE_PATH)).unwrap(),
            "mine"
        );
    }
}
