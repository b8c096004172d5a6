//! The metrics of one run, read from its stdout. Two sources are recognised, without being told which:
//!
//! - a rho wire stream (a line starting with `@rho-bench`): per benchmark `<bench>.cycles` and `<bench>.ns`
//!   (the run's per-iteration net median), `<bench>.stack` (bytes) and `<bench>.heap_peak` (bytes);
//! - otherwise the last non-empty stdout line, one JSON object of metric name to number, so a benchmark in any language can be gated.
//!
//! Every metric is a cost, lower is better, except another harness's rates after a wire stream
//! ([`rho_stats::EXTRA_LINE`]: `rho bench import --wire -` in the gate), which say they are higher is better.

pub use crate::run_metrics::{Figure, MetricsError, RESOLUTION_STEPS, RunMetrics};

/// Where a run's metrics came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricSource {
    /// A rho wire stream.
    Wire,
    /// The last stdout line, one JSON object.
    JsonLine,
}

impl std::fmt::Display for MetricSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MetricSource::Wire => "rho wire stream",
            MetricSource::JsonLine => "last-line JSON",
        })
    }
}

/// Whether `stdout` carries a rho wire stream: a line that starts with `@rho-bench`.
pub fn is_wire_stream(stdout: &str) -> bool {
    stdout.lines().any(|line| line.starts_with("@rho-bench"))
}

/// Read one run's metrics from its whole stdout, detecting the source.
pub fn metrics_from_stdout(stdout: &str) -> Result<(MetricSource, RunMetrics), MetricsError> {
    let mut reader = StdoutMetrics::new();
    for line in stdout.lines() {
        reader.line(line.as_bytes());
    }
    reader.finish()
}

/// One run's stdout read line by line as it arrives, keeping only what its metrics need: a wire stream's
/// parser (which holds the stream's samples, and nothing of the other lines) and the last non-empty line (at
/// most the runner's line limit). A suite printing hundreds of megabytes of other text costs no memory.
#[derive(Debug, Default)]
pub struct StdoutMetrics {
    /// Fed every line until it fails or the stream is done; the first error is kept.
    parser: Option<rho_wire::StreamParser>,
    wire_error: Option<rho_wire::WireError>,
    /// A line starting with `@rho-bench` was seen.
    wire: bool,
    last_line: Vec<u8>,
    /// After a wire stream: its `@rho-extra` lines (rho_stats::EXTRA_LINE), one a benchmark.
    extra_lines: Vec<String>,
}

impl StdoutMetrics {
    pub fn new() -> StdoutMetrics {
        StdoutMetrics {
            parser: Some(rho_wire::StreamParser::new()),
            ..StdoutMetrics::default()
        }
    }

    /// The next stdout line (without its `\n`).
    pub fn line(&mut self, line: &[u8]) {
        if line.starts_with(b"@rho-bench") {
            self.wire = true;
        }
        if let Some(parser) = self.parser.as_mut()
            && !parser.is_done()
            && let Err(error) = parser.feed_line(line)
        {
            self.wire_error = Some(error);
            self.parser = None;
        }
        if let Some(json) = line.strip_prefix(rho_stats::EXTRA_LINE.as_bytes()) {
            self.extra_lines
                .push(String::from_utf8_lossy(json).into_owned());
        }
        if !line.trim_ascii().is_empty() {
            self.last_line.clear();
            self.last_line.extend_from_slice(line);
        }
    }

    /// Where its wire stream had got to ([`rho_wire::StreamParser::whereabouts`]), for a run that crashed or
    /// timed out; empty when it printed no stream or a malformed one.
    pub fn whereabouts(&self) -> String {
        match &self.parser {
            Some(parser) if self.wire => parser.whereabouts(),
            _ => String::new(),
        }
    }

    /// The run's metrics: from the wire stream when there was one, else from the last non-empty line.
    pub fn finish(mut self) -> Result<(MetricSource, RunMetrics), MetricsError> {
        if self.wire {
            let extra_lines = std::mem::take(&mut self.extra_lines);
            let run = self.wire_run()?;
            let mut metrics = crate::wire_metrics::metrics_from_run(&run)?;
            for json in &extra_lines {
                add_extra_metrics(json, &mut metrics)?;
            }
            Ok((MetricSource::Wire, metrics))
        } else {
            metrics_from_json_line(&String::from_utf8_lossy(&self.last_line))
                .map(|m| (MetricSource::JsonLine, m))
        }
    }

    /// The wire stream's run: the parser's first error, or the finished stream.
    fn wire_run(self) -> Result<rho_wire::Run, MetricsError> {
        match (self.wire_error, self.parser) {
            (Some(error), _) => Err(MetricsError::Wire(error.to_string())),
            (None, Some(parser)) => parser
                .finish()
                .map_err(|e| MetricsError::Wire(e.to_string())),
            (None, None) => Err(MetricsError::NoBenchmarks),
        }
    }
}

/// The figures of a [`rho_stats::EXTRA_LINE`] after the stream (`rho bench import --wire -` for another
/// harness's suite: its counters and rates) added to `metrics` under their names, each with its direction,
/// exact (no floor). A figure that does not read (not a number of at least 0, or no direction) cannot be
/// decided on, and says why; a line that is no JSON object is an error, never figures silently lost.
fn add_extra_metrics(json: &str, metrics: &mut RunMetrics) -> Result<(), MetricsError> {
    let figures: std::collections::BTreeMap<String, serde_json::Value> = serde_json::from_str(json)
        .map_err(|error| {
            MetricsError::Wire(format!(
                "its {}line after @done is not a JSON object of figures ({error})",
                rho_stats::EXTRA_LINE
            ))
        })?;
    for (name, value) in figures {
        match serde_json::from_value::<rho_stats::ExtraValue>(value.clone()) {
            Ok(extra) if extra.value.is_finite() && extra.value >= 0.0 => {
                metrics.insert(name.clone(), Figure::Value(extra.value));
                metrics.set_better(&name, extra.better);
            }
            _ => {
                let why = format!("{value} is not a figure of at least 0 with its direction");
                metrics.insert(name, Figure::Unusable(why));
            }
        }
    }
    Ok(())
}

/// Who counts a gate's instructions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counter {
    /// Every run is run under this `valgrind` (Callgrind, following the run command's child processes) with
    /// `RHO_BENCH_MEASURE=instructions`, and its dumps are read into the wire stream's counts.
    Callgrind(std::path::PathBuf),
    /// A built-in board: the builds and runs get `RHO_BENCH_MEASURE=instructions` (the port compiles the
    /// counting loop in), the recipe's run command loads rho's QEMU plugin, which writes its totals to
    /// `$RHO_BENCH_OUT/counts`, and they are read into the stream's counts.
    QemuPlugin,
}

/// Where a counted job's Callgrind dumps go, in its directory.
pub const CALLGRIND_DUMPS: &str = "callgrind-dumps";

impl StdoutMetrics {
    /// A counted run's metrics (`--measure instructions`): its wire stream, with its counts' totals attached
    /// from where `counter` left them (`out`: the job's directory, where Callgrind's dumps or the QEMU
    /// plugin's totals are); instructions, stack and heap per benchmark, all exact.
    pub fn finish_counted(
        self,
        counter: &Counter,
        out: &std::path::Path,
    ) -> Result<(MetricSource, RunMetrics), MetricsError> {
        let wire = |e: String| MetricsError::Wire(e);
        if !self.wire {
            return Err(MetricsError::Empty);
        }
        let mut run = self.wire_run()?;
        match counter {
            Counter::Callgrind(_) => {
                if run.counter.is_none() {
                    return Err(wire(
                        "the stream counted nothing: its harness was built without Valgrind's headers \
                         (<valgrind/callgrind.h>; Debian/Ubuntu: apt-get install valgrind)"
                            .to_owned(),
                    ));
                }
                let dumps = out.join(CALLGRIND_DUMPS);
                let pid = rho_wire::callgrind::dumping_process(&dumps)
                    .map_err(|e| wire(e.to_string()))?;
                let counted = rho_stats::CountedRun::read_dumps(run, &dumps, Some(pid), true)
                    .map_err(|e| wire(e.to_string()))?;
                return crate::wire_metrics::metrics_from_counted(&counted)
                    .map(|m| (MetricSource::Wire, m));
            }
            Counter::QemuPlugin => {
                if run.counter.is_none() {
                    return Err(wire(
                        "the stream counted nothing: the board's image was not built with the harness's \
                         counting loop (RHO_BENCH_MEASURE=instructions, which the built-in ports compile in)"
                            .to_owned(),
                    ));
                }
                let totals = out.join(rho_wire::qemu_counts::TOTALS_FILE);
                rho_wire::qemu_counts::attach_totals(&mut run, &totals)
                    .map_err(|e| wire(e.to_string()))?;
            }
        }
        crate::wire_metrics::metrics_from_run(&run).map(|m| (MetricSource::Wire, m))
    }
}

/// The longest excerpt of a bad line quoted in an error.
const QUOTE_LIMIT: usize = 200;

/// Read the last non-empty line of `stdout` as one JSON object of metric name to number.
pub fn metrics_from_json_line(stdout: &str) -> Result<RunMetrics, MetricsError> {
    let line = stdout
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .ok_or(MetricsError::Empty)?;
    let not_json = |reason: String| MetricsError::NotJson {
        line: quote(line),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|error| not_json(error.to_string()))?;
    let serde_json::Value::Object(object) = value else {
        return Err(not_json("it is JSON but not an object".to_owned()));
    };
    // `{"a_ns": 1, "a_ns": 1000}` would read as 1000: a figure a run did not print could hide a regression.
    if let Some(duplicate) = rho_baseline::json_keys::first_duplicate_key(line) {
        return Err(not_json(format!(
            "column {}: {duplicate}",
            duplicate.column
        )));
    }
    if object.is_empty() {
        return Err(MetricsError::NoMetricsInJson);
    }
    Ok(object
        .into_iter()
        .map(|(name, value)| {
            let figure = match value.as_f64() {
                Some(number) => figure_of(number),
                None => Figure::Unusable(format!("not a number: {}", quote(&value.to_string()))),
            };
            // A name is shown in the report: a suite cannot drive the terminal through it.
            (rho_text::escape_line(&name).into_owned(), figure)
        })
        .collect())
}

/// A number as a figure: a cost must be finite and not negative for a ratio of two of them to mean anything.
pub(crate) fn figure_of(number: f64) -> Figure {
    if number.is_finite() && number >= 0.0 {
        Figure::Value(number)
    } else {
        Figure::Unusable(format!(
            "{number} is not a cost (lower is better, at least 0)"
        ))
    }
}

/// `text` for a message: control characters escaped, cut at [`QUOTE_LIMIT`] bytes.
fn quote(text: &str) -> String {
    let text = rho_text::escape_line(text);
    if text.len() <= QUOTE_LIMIT {
        return text.into_owned();
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rho bench import --wire -`'s stream with its extra figures on the line after `@done`: the stream's
    /// metrics, and each figure with its direction; one that does not read is undecided, not dropped.
    #[test]
    fn the_extra_figures_after_a_stream_are_metrics_with_their_direction() {
        let stream = "@rho-bench 6\n@target host arch=x86_64 optimized=1\n\
                      @clock time gbench unit=ns hz=1000000000 resolution=1\n\
                      @config iterations=3000 warmup=0 time_cap_ms=0 stack_bytes=0\n\
                      @bench BM_x\n:1000\n:1100\n:1200\n@stack off\n@heap off\n\
                      @end BM_x iterations=3000 warmup=0 capped=0 unit=iter per_iteration=1 batch=1000\n\
                      @done benchmarks=1 dropped=0\n";
        let extra = "@rho-extra {\"BM_x.items_per_second\": {\"value\": 5e8, \"better\": \"higher\"}, \
                     \"BM_x.elements\": {\"value\": 64, \"better\": \"lower\"}, \"BM_x.odd\": 3}\n";
        let (source, metrics) = metrics_from_stdout(&format!("{stream}{extra}")).unwrap();
        assert_eq!(source, MetricSource::Wire);
        assert_eq!(metrics["BM_x.ns"], Figure::Value(1.1));
        assert_eq!(metrics["BM_x.items_per_second"], Figure::Value(5e8));
        assert_eq!(
            metrics.better("BM_x.items_per_second"),
            rho_stats::Better::Higher
        );
        assert_eq!(metrics.better("BM_x.elements"), rho_stats::Better::Lower);
        assert!(matches!(metrics["BM_x.odd"], Figure::Unusable(_)));
        // Without the line, the stream's metrics alone.
        let (_, alone) = metrics_from_stdout(stream).unwrap();
        assert!(alone.get("BM_x.items_per_second").is_none());
        // One line a benchmark, each read; a torn one is an error, not figures silently lost.
        let two = "@rho-extra {\"BM_x.a\": {\"value\": 1, \"better\": \"lower\"}}\n\
                   @rho-extra {\"BM_x.b\": {\"value\": 2, \"better\": \"higher\"}}\n";
        let (_, both) = metrics_from_stdout(&format!("{stream}{two}")).unwrap();
        assert_eq!(
            (&both["BM_x.a"], &both["BM_x.b"]),
            (&Figure::Value(1.0), &Figure::Value(2.0))
        );
        let torn = metrics_from_stdout(&format!("{stream}@rho-extra {{\"BM_x.a\": {{\"val\n"));
        assert!(matches!(torn, Err(MetricsError::Wire(_))), "{torn:?}");
    }

    #[test]
    fn the_last_line_is_the_json_object() {
        let stdout = "matmul: 1.2 ms\nsum: 3 us\n{\"matmul_ns\": 1200000, \"sum_ns\": 3000.5}\n\n";
        let (source, metrics) = metrics_from_stdout(stdout).unwrap();
        assert_eq!(source, MetricSource::JsonLine);
        assert_eq!(metrics["matmul_ns"], Figure::Value(1_200_000.0));
        assert_eq!(metrics["sum_ns"], Figure::Value(3000.5));
        assert_eq!(metrics.len(), 2);
    }

    #[test]
    fn a_non_numeric_value_is_unusable_not_an_error() {
        let metrics =
            metrics_from_json_line("{\"a\": \"fast\", \"b\": -1, \"c\": null, \"d\": 2}").unwrap();
        assert!(matches!(metrics["a"], Figure::Unusable(_)));
        assert!(matches!(metrics["b"], Figure::Unusable(_)));
        assert!(matches!(metrics["c"], Figure::Unusable(_)));
        assert_eq!(metrics["d"], Figure::Value(2.0));
    }

    #[test]
    fn no_json_last_line_is_an_error() {
        assert!(matches!(
            metrics_from_stdout("{\"a\": 1}\ndone\n"),
            Err(MetricsError::NotJson { .. })
        ));
        assert!(matches!(
            metrics_from_stdout("[1, 2]\n"),
            Err(MetricsError::NotJson { .. })
        ));
        assert!(matches!(metrics_from_stdout(""), Err(MetricsError::Empty)));
        assert!(matches!(
            metrics_from_stdout("\n  \n"),
            Err(MetricsError::Empty)
        ));
        assert!(matches!(
            metrics_from_stdout("{}\n"),
            Err(MetricsError::NoMetricsInJson)
        ));
    }

    #[test]
    fn a_key_twice_is_refused_never_read_as_its_last_value() {
        let error = metrics_from_stdout("{\"a_ns\": 1, \"a_ns\": 1000}\n").unwrap_err();
        assert!(matches!(error, MetricsError::NotJson { .. }), "{error}");
        let text = error.to_string();
        assert!(text.contains("key \"a_ns\" appears twice"), "{text}");
        // The same name in two objects is no repeat (and a nested object is no number: unusable).
        let metrics = metrics_from_json_line("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}").unwrap();
        assert!(matches!(metrics["a"], Figure::Unusable(_)));
    }

    #[test]
    fn a_long_bad_line_is_quoted_short() {
        let line = "x".repeat(1000);
        let error = metrics_from_stdout(&line).unwrap_err().to_string();
        assert!(error.len() < 600, "{error}");
        assert!(error.contains("..."));
    }

    #[test]
    fn a_wire_stream_is_recognised_by_its_first_record() {
        assert!(is_wire_stream("boot banner\n@rho-bench 1\n@target host\n"));
        assert!(!is_wire_stream("{\"@rho-bench\": 1}\n"));
    }
}
