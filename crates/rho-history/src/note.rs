//! Notes on the history branch: what people said about the series, kept beside the records as files of their
//! own (so two runners' notes merge as a union, like records). An acknowledgement says a regression was seen
//! and accepted: `history check` stops warning about it.

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
        }
    }

    /// Whether this note acknowledges the regression of `bench` started by `commit`.
    pub fn acknowledges(&self, commit: &str, bench: &str) -> bool {
        match &self.what {
            NoteKind::Ack {
                commit: c,
                bench: b,
            } => c == commit && b.as_deref().is_none_or(|b| b == bench),
        }
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
        let bad = text.replace(commit, "HEAD");
        let error = Note::parse(&bad, "notes/x.json").unwrap_err().to_string();
        assert!(
            error.contains("notes/x.json") && error.contains("40 lowercase hex"),
            "{error}"
        );
    }
}
