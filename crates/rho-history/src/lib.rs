//! rho's history: every CI run's figures kept on a branch of the project's own repository, and the change
//! points of each benchmark's series over commits.
//!
//! A record is one run of one target and measure at one commit: the baseline section rho-baseline builds from
//! the run (the same types, the same checks), plus the commit, its time and subject, the machine and whether
//! the work tree was dirty ([`record`]). Records are files of their own on the history branch
//! ([`layout`]), written and read with git's plumbing only ([`git`]): the branch moves by compare-and-swap,
//! so an interrupted write leaves it at its old commit or its new one, and two histories merge as a union of
//! files. [`analysis`] turns records into series in first-parent commit order and finds their change points
//! with rho-stats' one implementation, and [`check`] judges the newest commit against the limits. [`document`]
//! is the analysis as the JSON document's data; [`add`] turns saved runs into records of a commit, and
//! [`import`] fills the history from the commits that changed a baseline file.
//!
//! What this crate must not know: how a run is made, how anything is drawn (rho-report's `history` words and
//! draws the series, the change points and the judgement as text, Markdown and HTML), the module.yml format
//! (rho-config's: settings come in as values), and any statistic beyond calling rho-stats.
//! docs/history.md describes the schema, the layout and the detection.

pub mod add;
pub mod analysis;
pub mod check;
pub mod document;
pub mod error;
pub mod functions;
pub mod git;
pub mod import;
pub mod layout;
pub mod note;
pub mod record;
pub mod repo;

pub use error::Error;
pub use git::{Listing, Problem, Store, Synced};
pub use layout::DEFAULT_BRANCH;
pub use note::{NOTE_SCHEMA, Note, NoteKind};
pub use record::{
    Measure, Origin, Quartiles, RECORD_SCHEMA, RECORD_SCHEMA_V1, RECORD_SCHEMA_V2, Record,
};
