//! Where things are on the history branch. A record is a file of its own, named so that two runners never
//! write the same path (its machine, target, measure, the time to the second and 64 random bits), which is
//! what lets two histories merge as a union of files.

use crate::record::Record;

/// The file at the branch's root that says it is a rho history; a branch without it is never written.
pub const MARKER: &str = "rho-history.json";
/// The marker's content.
pub const MARKER_TEXT: &str = "{\"schema\": \"rho-bench-history-branch/1\"}\n";
/// The directory the records are in, one directory per commit under it.
pub const RECORDS_DIR: &str = "records";
/// The directory of the notes (acknowledgements), one file each.
pub const NOTES_DIR: &str = "notes";
/// The default branch name.
pub const DEFAULT_BRANCH: &str = "rho-history";

/// `records/<commit>/<machine>-<target>-<measure>-<YYYYmmddTHHMMSSZ>-<16 hex>.json`. `stamp` is the time
/// added (seconds since the epoch); `random` 64 bits no other writer shares.
pub fn record_path(record: &Record, stamp: u64, random: u64) -> String {
    let time = rho_baseline::record::rfc3339_utc(stamp).replace([':', '-'], "");
    format!(
        "{RECORDS_DIR}/{}/{}-{}-{}-{time}-{random:016x}.json",
        record.commit,
        file_word(&record.machine),
        file_word(&record.target),
        record.measure.name(),
    )
}

/// `notes/<kind>-<YYYYmmddTHHMMSSZ>-<16 hex>.json`.
pub fn note_path(kind: &str, stamp: u64, random: u64) -> String {
    let time = rho_baseline::record::rfc3339_utc(stamp).replace([':', '-'], "");
    format!("{NOTES_DIR}/{}-{time}-{random:016x}.json", file_word(kind))
}

/// `text` with every character but ASCII letters, digits, `.` and `_` replaced by `_` (a file name word
/// that cannot hold a `/` or a `-` separator; the record itself keeps the real name).
fn file_word(text: &str) -> String {
    let word: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if word.is_empty() || word.starts_with('.') {
        format!("_{word}")
    } else {
        word
    }
}

/// 64 bits from the system's random source, falling back to the time and process id when it cannot be read.
pub fn random_u64() -> u64 {
    use std::io::Read as _;
    let mut bytes = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok()
    {
        return u64::from_le_bytes(bytes);
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_words_cannot_escape_their_directory() {
        assert_eq!(file_word("ci-runner/1"), "ci_runner_1");
        assert_eq!(file_word(".."), "_..");
        assert_eq!(file_word(""), "_");
        assert_eq!(file_word("mps2-an386"), "mps2_an386");
    }
}
