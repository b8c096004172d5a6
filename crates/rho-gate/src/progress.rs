//! What the gate tells the user while it works.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::SideName;
use crate::metrics::MetricSource;

/// Something worth telling the user while the gate works (it takes a while).
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A side is ready: what it is and where its module root is.
    Prepared {
        side: SideName,
        describe: String,
        module_root: PathBuf,
    },
    Building {
        side: SideName,
        command: String,
    },
    Built {
        side: SideName,
        elapsed: Duration,
    },
    Ran {
        side: SideName,
        run: u32,
        of: u32,
        elapsed: Duration,
        source: MetricSource,
    },
    /// A revision side's build came from the build cache, or the cache could not be used or written (the note
    /// says which).
    Cached {
        side: SideName,
        note: String,
    },
    /// Something about the whole gate's builds, said once (`no compile cache (ccache not installed)`).
    Note(String),
    /// How many of the compiles of a side's build came from the compile cache (ccache, crate::ccache).
    Compiled {
        side: SideName,
        from_cache: usize,
        compiled: usize,
    },
    /// After `after` runs per side, the benchmarks more runs could still change the verdict of: they run
    /// again, the others are settled (adaptive runs).
    StillOpen {
        after: u32,
        open: Vec<String>,
    },
    /// Head's runs get a time cap lowered from base's first run (adaptive runs, crate::head_cap).
    HeadTimeCap(crate::head_cap::HeadTimeCap),
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Prepared {
                side,
                describe,
                module_root,
            } => write!(
                f,
                "{side}: {describe} (module root {})",
                module_root.display()
            ),
            Progress::Building { side, command } => write!(f, "{side}: building: {command}"),
            Progress::Built { side, elapsed } => {
                write!(f, "{side}: built in {:.1} s", elapsed.as_secs_f64())
            }
            Progress::Ran {
                side,
                run,
                of,
                elapsed,
                source,
            } => write!(
                f,
                "{side}: run {run}/{of} in {:.2} s ({source})",
                elapsed.as_secs_f64()
            ),
            Progress::Cached { side, note } => write!(f, "{side}: {note}"),
            Progress::Note(note) => f.write_str(note),
            Progress::Compiled {
                side,
                from_cache,
                compiled,
            } => write!(
                f,
                "{side}: {from_cache} of {compiled} compiles from the cache (ccache)"
            ),
            Progress::StillOpen { after, open } => write!(
                f,
                "after {after} runs per side, {} still open: {}",
                open.len(),
                open.join(", ")
            ),
            Progress::HeadTimeCap(cap) => write!(f, "head: {cap}"),
        }
    }
}
