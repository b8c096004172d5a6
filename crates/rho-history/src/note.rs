//! Notes on the history branch: what people said about the series, kept beside the records as files of their
//! own (so two runners' notes merge as a union, like records). An acknowledgement says a regression was seen
//! and accepted: `history check` stops warning about it. A rename says a benchmark goes on under a new name:
//! its records before and after are one series.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The schema of a note file.
pub const NOTE_SCHEMA: &str = "rho-bench-history-note/1";

/// One note file's content (a later note's fields beside these are read past).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// Always [`NOTE_SCHEMA`].
    pub schema: String,
    /// When it was written, UTC, RFC 3339.
    pub time: String,
    #[serde(flatten)]
    pub what: NoteKind,
}

/// What a note says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoteKind {
    /// The regression started by `commit` is accepted: of benchmark `bench`, or of every benchmark.
    Ack {
        /// 40 lowercase hex digits.
        commit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bench: Option<String>,
    },
    /// Benchmark `from` is called `to` from now on: the records of both are one series, under `to`.
    Rename { from: String, to: String },
}

impl Note {
    /// A note of `what`, written now.
    pub fn now(what: NoteKind) -> Note {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Note {
            schema: NOTE_SCHEMA.to_string(),
            time: rho_baseline::record::rfc3339_utc(seconds),
            what,
        }
    }

    /// The note's text: pretty JSON and a final newline.
    pub fn to_json(&self) -> Result<String, Error> {
        let mut text = serde_json::to_string_pretty(self).map_err(|error| Error::Record {
            path: "note".to_string(),
            message: error.to_string(),
        })?;
        text.push('\n');
        Ok(text)
    }

    /// Reads and checks a note file's text; `path` names it in every error.
    pub fn parse(text: &str, path: &str) -> Result<Note, Error> {
        let fail = |message: String| Error::Record {
            path: path.to_string(),
            message,
        };
        let note: Note = serde_json::from_str(text).map_err(|error| fail(error.to_string()))?;
        if note.schema != NOTE_SCHEMA {
            return Err(fail(format!(
                "schema \"{}\": expected \"{NOTE_SCHEMA}\"",
                note.schema
            )));
        }
        match &note.what {
            NoteKind::Ack { commit, .. } if !crate::record::is_commit_id(commit) => Err(fail(
                format!("commit \"{commit}\": expected 40 lowercase hex digits"),
            )),
            NoteKind::Ack { bench: Some(b), .. } if b.is_empty() => Err(fail(
                "an empty \"bench\": name one or leave it out".to_string(),
            )),
            NoteKind::Ack { .. } => Ok(note),
            NoteKind::Rename { from, to } if from.is_empty() || to.is_empty() || from == to => {
                Err(fail(format!(
                    "a rename of \"{from}\" to \"{to}\": expected two different, non-empty names"
                )))
            }
            NoteKind::Rename { .. } => Ok(note),
        }
    }

    /// Whether this note acknowledges the regression of `bench` started by `commit`.
    pub fn acknowledges(&self, commit: &str, bench: &str) -> bool {
        match &self.what {
            NoteKind::Ack {
                commit: c,
                bench: b,
            } => c == commit && b.as_deref().is_none_or(|b| b == bench),
            NoteKind::Rename { .. } => false,
        }
    }
}

/// The renames the notes make: each old name to the name it goes on under now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renames(std::collections::BTreeMap<String, String>);

impl Renames {
    /// The renames of `notes`, in the order they were written (a later rename of the same name wins).
    pub fn of<'a>(notes: impl IntoIterator<Item = &'a Note>) -> Renames {
        let mut renames: Vec<(&str, &str, &str)> = notes
            .into_iter()
            .filter_map(|note| match &note.what {
                NoteKind::Rename { from, to } => {
                    Some((note.time.as_str(), from.as_str(), to.as_str()))
                }
                NoteKind::Ack { .. } => None,
            })
            .collect();
        renames.sort_unstable();
        Renames(
            renames
                .into_iter()
                .map(|(_, from, to)| (from.to_string(), to.to_string()))
                .collect(),
        )
    }

    /// The name `name`'s series goes under: followed through every rename (A to B, then B to C: C); a
    /// circle of renames stops at the last name before it comes round.
    pub fn current<'a>(&'a self, name: &'a str) -> &'a str {
        let mut now = name;
        for _ in 0..self.0.len() {
            match self.0.get(now) {
                Some(next) if next != name => now = next,
                _ => break,
            }
        }
        now
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ack_round_trips_and_names_its_commit_and_bench() {
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let note = Note::now(NoteKind::Ack {
            commit: commit.to_string(),
            bench: Some("bench_a".to_string()),
        });
        let text = note.to_json().unwrap();
        assert!(text.contains("\"kind\": \"ack\""), "{text}");
        let back = Note::parse(&text, "notes/x.json").unwrap();
        assert_eq!(back, note);
        assert!(back.acknowledges(commit, "bench_a"));
        assert!(!back.acknowledges(commit, "bench_b"));
        let every = Note::now(NoteKind::Ack {
            commit: commit.to_string(),
            bench: None,
        });
        assert!(every.acknowledges(commit, "bench_b"));
        let renamed = |from: &str, to: &str, time: &str| Note {
            schema: NOTE_SCHEMA.to_string(),
            time: time.to_string(),
            what: NoteKind::Rename {
                from: from.to_string(),
                to: to.to_string(),
            },
        };
        let renames = Renames::of(&[
            renamed("b", "c", "2026-01-02T00:00:00Z"),
            renamed("a", "b", "2026-01-01T00:00:00Z"),
            renamed("x", "y", "2026-01-01T00:00:00Z"),
            renamed("y", "x", "2026-01-03T00:00:00Z"),
        ]);
        assert_eq!(renames.current("a"), "c");
        assert_eq!(renames.current("b"), "c");
        assert_eq!(renames.current("q"), "q");
        // A circle stops before it comes round.
        assert_eq!(renames.current("x"), "y");
        let same = renamed("a", "a", "2026-01-01T00:00:00Z").to_json().unwrap();
        assert!(Note::parse(&same, "notes/r.json").is_err());
        let bad = text.replace(commit, "HEAD");
        let error = Note::parse(&bad, "notes/x.json").unwrap_err().to_string();
        assert!(
            error.contains("notes/x.json") && error.contains("40 lowercase hex"),
            "{error}"
        );
    }
}
