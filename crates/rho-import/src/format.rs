//! The names of the formats this crate reads.

use crate::error::ImportError;

/// A report's formats, by the names `rho bench import` and module.yml's suite kinds use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Gbench,
    Criterion,
    Hyperfine,
    Gotest,
    PytestBenchmark,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Gbench,
        Format::Criterion,
        Format::Hyperfine,
        Format::Gotest,
        Format::PytestBenchmark,
    ];

    /// The format's name: `gbench`, `criterion`, `hyperfine`, `gotest`, `pytest-benchmark`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gbench => "gbench",
            Format::Criterion => "criterion",
            Format::Hyperfine => "hyperfine",
            Format::Gotest => "gotest",
            Format::PytestBenchmark => "pytest-benchmark",
        }
    }

    /// The report's field a benchmark's time comes from, as an error names it.
    pub fn time_field(self) -> &'static str {
        match self {
            Format::Gbench => "real_time",
            Format::Criterion => "times",
            Format::Hyperfine => "times",
            Format::Gotest => "ns/op",
            Format::PytestBenchmark => "stats.data",
        }
    }

    /// The format called `name`, or an error listing the ones there are.
    pub fn from_name(name: &str) -> Result<Format, ImportError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| ImportError::UnknownFormat {
                name: name.to_owned(),
                known: Format::ALL.map(Format::name).join(", "),
            })
    }
}
