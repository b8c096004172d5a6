//! Reports for rho: what a person reads, one module per view. One summarised run (the header saying where the
//! figures came from, the per-benchmark table, the footprint and family tables), the judgements made on it
//! (the budgets' verdicts and `rho bench check`'s summary in [`verdicts`]), a benchmark's functions and those
//! that changed ([`profile`]), and, with the feature `html`, a comparison with a baseline (`diff`), a gate
//! (`gate`) and the self-contained HTML page with charts (`html`).
//!
//! It sits at the end of rho's one-way data flow (harness -> wire stream -> parser -> statistics -> judgement
//! -> reports): it computes no statistic of its own, only lays out what `rho-stats`, `rho-judge`,
//! `rho-compare`, `rho-gate`, `rho-history` and `rho-profile` produced: as text, as Markdown ([`markdown`], which
//! also holds the one Markdown escaping) and as HTML, every number written by [`numbers`] and every colour by
//! [`paint`]. Pages are maud templates, checked at compile time and escaping every text they are given;
//! [`chrome`] is what every page is wrapped in, and the flame graphs are inferno's ([`flame`]). Both the `rho`
//! command and harnesses that print their own report (rho-bench's feature `report`) use it.
//!
//! With the feature `documents` it also holds the JSON documents of a module.yml run ([`documents`]); with
//! `history`, the history's text, Markdown and page (`history`), drawn from what rho-history returns (its
//! series, change points and judgement).
//!
//! It must not know how a run was made, and it judges nothing: it lays out (docs/architecture.md).
//!
//! Why it is the largest crate (8.7k lines, 1.9k of them tests): it is the one place that draws, so every
//! view a person reads is here, one module each (run, verdicts, diff, gate, profile, growth, history, the
//! pages); the views share its layout, numbers, escaping, colour and chart pieces, which is the reason they are
//! not crates of their own. Its features keep a harness's build small: without `html`, `documents` and
//! `history` it is the run's text table only.

#[cfg(feature = "html")]
pub mod chrome;
#[cfg(feature = "html")]
pub mod diff;
#[cfg(feature = "documents")]
pub mod documents;
#[cfg(feature = "html")]
pub mod flame;
mod layout;
#[cfg(feature = "html")]
mod page;
mod paint;
mod run;
#[cfg(feature = "html")]
mod svg;

#[cfg(feature = "html")]
pub mod gate;
pub mod growth;
#[cfg(feature = "html")]
mod headline;
#[cfg(feature = "history")]
pub mod history;
#[cfg(feature = "html")]
pub mod html;
#[cfg(feature = "html")]
mod labels;

pub use paint::paint;
pub mod markdown;
pub mod numbers;
pub mod profile;
pub mod targets;
pub mod verdicts;

pub use layout::{DEFAULT_WIDTH, Layout, MIN_WIDTH, aligned_table, aligned_table_within, wrap};
pub use run::{marks_above_bound, render, render_with, warnings};
