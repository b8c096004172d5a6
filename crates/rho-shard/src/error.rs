//! What can go wrong planning a share or merging shares; each message names the file or the share.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `RHO_SHARD` holds something other than K/N.
    #[error("RHO_SHARD={message}")]
    Environment { message: String },
    #[error(
        "--shard {shard} with --write-baseline would record one share's benchmarks as the baseline; record it \
         from an unsharded run"
    )]
    WriteBaseline { shard: String },
    /// More shares than a suite of files has benchmarks: this one would hold none.
    #[error(
        "--shard {shard}: the suite has {benchmarks} benchmark(s), and this share would hold none of them; \
         split it into at most {benchmarks} shares"
    )]
    EmptyShare { shard: String, benchmarks: usize },
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file given to the merge is not a share's document.
    #[error("{file}: not a share: {why}")]
    NotAShare { file: String, why: String },
    /// Two shares of different runs.
    #[error("{file} is not a share of the same run as {first}: {what}")]
    Mismatch {
        file: String,
        first: String,
        what: String,
    },
    /// A share whose recorded verdicts or partition its own figures contradict.
    #[error("{file}: its figures contradict what it records: {why}")]
    Contradicts { file: String, why: String },
    #[error("share {share} given twice: {first} and {second}")]
    Twice {
        share: String,
        first: String,
        second: String,
    },
    #[error("share {} missing: no file given holds it ({} of {count} given)", missing.join(", "), count - missing.len() as u32)]
    Missing { missing: Vec<String>, count: u32 },
    /// The merge compares with the baseline at the ref the shares were given, as it was when they ran.
    #[error(
        "--diff {git_ref}: the shares compared with commit {then}, but here it is {now}; merge in a checkout \
         where {git_ref} has not moved"
    )]
    RefMoved {
        git_ref: String,
        then: String,
        now: String,
    },
    #[error("{}", .0.full_text())]
    Suite(#[from] rho_suite::SuiteError),
    #[error(transparent)]
    Baseline(#[from] rho_baseline::Error),
}

impl Error {
    /// `Ok` when the share `file` matches the first share `first`; else the mismatch `what` says, naming both.
    pub(crate) fn unless_same(what: Option<String>, file: &str, first: &str) -> Result<(), Error> {
        match what {
            Some(what) => Err(Error::Mismatch {
                file: file.to_owned(),
                first: first.to_owned(),
                what,
            }),
            None => Ok(()),
        }
    }
}
