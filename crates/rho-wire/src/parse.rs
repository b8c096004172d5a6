//! The streaming parser: lines in, events and a [`Run`] out.
//!
//! [`StreamParser`] is fed one line at a time (bytes, no UTF-8 needed) and reports what each line completed, so
//! a caller can print progress while a board streams. [`parse_run`] drives it over any `BufRead` and stops at
//! `@done` (a serial line never reaches end of input on its own).

use std::collections::HashMap;
use std::io::{self, BufRead};

use crate::error::{ErrorKind, WireError, quote};
use crate::name::{MAX_NAME_BYTES, NAME_ESCAPE_VERSION};
use crate::types::{
    BATCH_VERSION, Benchmark, COUNTER_VERSION, CPU_CLOCK_VERSION, Clock, ClockRole, Count, Counter,
    FAMILY_VERSION, FamilyMember, GUARD_VERSION, HEAP_OFF_VERSION, Header, HeapFigures,
    RERUN_VERSION, Run, RunConfig, StackMark, Target, WIRE_VERSION, YARDSTICK_VERSION, Yardstick,
};

/// The longest line the parser reads. A longer noise line is skipped (only its first bytes are kept); a longer
/// record or sample is an error.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The name of the harness's calibration block.
pub const CALIBRATION_NAME: &str = ".overhead";

/// The most clocks a stream can declare (one per role).
const MAX_CLOCKS: usize = 3;

/// The most repetitions a `@yardstick` may announce: a harness runs a handful, and a hostile stream must not
/// announce more than a parser should hold.
const MAX_YARDSTICK_REPETITIONS: u64 = 1000;

/// Preallocate at most this many samples per column from what `@config` announces: the figure comes from the
/// stream, and a hostile one must not make the parser reserve memory it will never fill.
const MAX_PREALLOCATED_SAMPLES: u64 = 1 << 20;

/// What a line completed. Most lines (samples, most records) complete nothing and give no event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event<'a> {
    /// A noise line, skipped and counted (without its line ending).
    Noise(&'a [u8]),
    /// `@config` ended the header: target, clocks and settings are known.
    HeaderComplete(&'a Header),
    /// `@bench NAME`: a benchmark (or the `.overhead` calibration) started.
    BenchStarted { name: &'a str },
    /// The `.overhead` calibration block ended.
    CalibrationFinished(&'a Benchmark),
    /// A benchmark of the suite ended.
    BenchFinished(&'a Benchmark),
    /// `@done`: the stream is complete; [`StreamParser::finish`] gives the run.
    Done,
}

/// Where the parser is in the stream; each phase says what it expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `@rho-bench`: everything but a known record or a sample is noise.
    Preamble,
    /// After `@rho-bench`: expects `@target`.
    Target,
    /// After `@target`: expects `@clock`, then `@clock` or `@config`.
    Clocks,
    /// After `@config` or a benchmark's `@end`: expects `@bench` or `@done`.
    Suite,
    /// After `@yardstick`: expects its repetitions' sample lines.
    Yardstick,
    /// Inside a benchmark, before `@stack`/`@heap`: expects samples.
    Samples,
    /// Inside a benchmark after `@stack` or `@heap`: expects the other, then `@end`.
    Trailer,
    /// After `@done`: every further line is ignored.
    Done,
}

/// The benchmark being read.
#[derive(Debug)]
struct OpenBench {
    name: String,
    family: Option<FamilyMember>,
    line: u64,
    samples: Vec<Vec<u64>>,
    stack: Option<StackMark>,
    stack_line: u64,
    /// `Some` once `@heap` was read: its figures, `None` for `@heap off`.
    heap: Option<Option<HeapFigures>>,
    heap_line: u64,
    counts: Vec<Count>,
}

/// A push parser of the wire format. Feed it lines with [`feed_line`](StreamParser::feed_line), then call
/// [`finish`](StreamParser::finish). It never panics; after it returns an error its state is unspecified and
/// the stream should be abandoned.
#[derive(Debug)]
pub struct StreamParser {
    line: u64,
    phase: Phase,
    noise_lines: u64,
    version_line: u64,
    target: Option<Target>,
    target_line: u64,
    clocks: Vec<Clock>,
    clock_lines: Vec<u64>,
    /// The `@rho-bench` version read.
    version: u32,
    counter: Option<Counter>,
    counter_line: u64,
    /// The last `@count` dump number, so dumps go up through the stream.
    last_dump: u64,
    header: Option<Header>,
    config_line: u64,
    /// Samples per column `@config` announces for a benchmark, for preallocation.
    expected_samples: usize,
    calibration: Option<Benchmark>,
    calibration_line: u64,
    benchmarks: Vec<Benchmark>,
    bench_lines: HashMap<String, u64>,
    open: Option<OpenBench>,
    dropped: u64,
    /// `@yardstick` and its line, once read; its samples fill while the phase is [`Phase::Yardstick`].
    yardstick: Option<Yardstick>,
    yardstick_line: u64,
    /// The repetitions its `@yardstick` announced.
    yardstick_repetitions: u64,
}

impl Default for StreamParser {
    fn default() -> Self {
        StreamParser::new()
    }
}

impl StreamParser {
    pub fn new() -> StreamParser {
        StreamParser {
            line: 0,
            phase: Phase::Preamble,
            noise_lines: 0,
            version_line: 0,
            target: None,
            target_line: 0,
            clocks: Vec::new(),
            clock_lines: Vec::new(),
            version: 0,
            counter: None,
            counter_line: 0,
            last_dump: 0,
            header: None,
            config_line: 0,
            expected_samples: 0,
            calibration: None,
            calibration_line: 0,
            benchmarks: Vec::new(),
            bench_lines: HashMap::new(),
            open: None,
            dropped: 0,
            yardstick: None,
            yardstick_line: 0,
            yardstick_repetitions: 0,
        }
    }

    /// How many lines have been fed.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The header, once `@config` has been read.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The benchmarks of the suite finished so far, in order.
    pub fn benchmarks(&self) -> &[Benchmark] {
        &self.benchmarks
    }

    /// The name and sample count of the benchmark being read, if one is open.
    pub fn in_progress(&self) -> Option<(&str, usize)> {
        self.open.as_ref().map(|open| {
            let count = open.samples.first().map_or(0, Vec::len);
            (open.name.as_str(), count)
        })
    }

    /// Whether `@done` has been read.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Where the stream had got to, as a phrase that follows how its suite ended ("crashed (SIGSEGV) while
    /// running bench_b ..."): empty once `@done` is read. The one wording for `rho bench` and the gate.
    pub fn whereabouts(&self) -> String {
        if self.is_done() {
            return String::new();
        }
        if let Some((name, samples)) = self.in_progress() {
            // The count is what reached rho, not where the suite got to: a harness writes its samples in
            // blocks (up to RHO_BENCH_SAMPLE_BUFFER of them on a host), so a crash loses the block being filled.
            return format!(
                " while running {name} ({samples} of its samples received; the harness writes them in \
                 blocks, so it may have run further)"
            );
        }
        match self.benchmarks().last() {
            Some(last) => format!(" after {}", last.name),
            None => " before its first benchmark".to_string(),
        }
    }

    /// Feed the next line: its bytes with or without the trailing `\n` (a `\r` before it is ignored too).
    /// Returns what the line completed, if anything.
    pub fn feed_line<'a>(&'a mut self, line: &'a [u8]) -> Result<Option<Event<'a>>, WireError> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let overlong = line.len() > MAX_LINE_BYTES;
        self.feed(line, overlong)
    }

    /// [`feed_line`](StreamParser::feed_line) for a line the reader already cut at [`MAX_LINE_BYTES`]
    /// (`overlong`: the line was longer than what is passed).
    fn feed<'a>(
        &'a mut self,
        line: &'a [u8],
        overlong: bool,
    ) -> Result<Option<Event<'a>>, WireError> {
        self.line = self.line.saturating_add(1);
        if self.phase == Phase::Done {
            return Ok(None);
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match line.first() {
            Some(b':') | Some(b'@') if overlong => Err(WireError::new(
                self.line,
                ErrorKind::LineTooLong,
                format!("a line of at most {MAX_LINE_BYTES} bytes"),
                format!("{} bytes or more", MAX_LINE_BYTES + 1),
            )),
            Some(b':') => {
                self.sample(line)?;
                Ok(None)
            }
            Some(b'@') => self.record(line),
            _ => {
                self.noise_lines = self.noise_lines.saturating_add(1);
                Ok(Some(Event::Noise(line)))
            }
        }
    }

    /// The fast path for the bulk of a stream: consume as many complete, plainly written sample lines
    /// (`:A B\n`, single spaces, at most 19 digits a field) from the start of `buf` as the open benchmark takes,
    /// and return how many bytes that was. Stops (returning what it consumed so far) at anything else, which the
    /// caller then feeds through [`feed_line`](StreamParser::feed_line) for the full rules and errors. Only
    /// accepts what `feed_line` would accept, with the same values.
    pub fn feed_samples(&mut self, buf: &[u8]) -> usize {
        if self.phase != Phase::Samples {
            return 0;
        }
        let Some(open) = self.open.as_mut() else {
            return 0;
        };
        let (used, lines) = match open.samples.as_mut_slice() {
            [a] => plain_samples(buf, [a]),
            [a, b] => plain_samples(buf, [a, b]),
            _ => (0, 0),
        };
        self.line = self.line.saturating_add(lines);
        used
    }

    /// The run, once `@done` has been read; otherwise the stream was truncated.
    pub fn finish(self) -> Result<Run, WireError> {
        if self.phase != Phase::Done {
            return Err(WireError::new(
                self.line.saturating_add(1),
                ErrorKind::Truncated,
                self.expected_here(),
                "end of input",
            ));
        }
        let Some(header) = self.header else {
            // Unreachable in practice: `@done` is only accepted after the header.
            return Err(WireError::new(
                self.line,
                ErrorKind::Truncated,
                "@config",
                "no header",
            ));
        };
        Ok(Run {
            version: header.version,
            target: header.target,
            clocks: header.clocks,
            counter: header.counter,
            calibration: self.calibration,
            config: header.config,
            yardstick: self.yardstick,
            benchmarks: self.benchmarks,
            dropped: self.dropped,
            noise_lines: self.noise_lines,
        })
    }

    /// What the stream needs next, for error messages.
    fn expected_here(&self) -> String {
        match self.phase {
            Phase::Preamble => "@rho-bench".to_string(),
            Phase::Target => "@target".to_string(),
            Phase::Clocks if self.clocks.is_empty() && self.counter.is_none() => {
                "@clock".to_string()
            }
            Phase::Clocks => "@clock or @config".to_string(),
            Phase::Suite => "@bench or @done".to_string(),
            Phase::Samples => self.expected_sample(),
            Phase::Yardstick => format!(
                "the {} sample line(s) of @yardstick on line {}",
                self.yardstick_repetitions, self.yardstick_line
            ),
            Phase::Trailer => match &self.open {
                Some(open) if open.stack.is_none() => "@stack".to_string(),
                Some(open) if open.heap.is_none() => "@heap".to_string(),
                Some(open) => format!("@end {}", open.name),
                None => "@end".to_string(),
            },
            Phase::Done => "nothing".to_string(),
        }
    }

    fn expected_sample(&self) -> String {
        let n = self.clocks_len();
        if n == 0 {
            return "@count or @stack (a counted run has no sample lines)".to_string();
        }
        let fields = if n == 1 { "field" } else { "fields" };
        format!("a sample of {n} {fields} (one per @clock) or @stack")
    }

    fn clocks_len(&self) -> usize {
        self.header.as_ref().map_or(0, |h| h.clocks.len())
    }

    fn unexpected(&self, kind: ErrorKind, found: &[u8]) -> WireError {
        WireError::new(self.line, kind, self.expected_here(), quote(found))
    }

    // ---- samples: the hot path ----

    fn sample(&mut self, line: &[u8]) -> Result<(), WireError> {
        if self.phase == Phase::Yardstick {
            return self.yardstick_sample(line);
        }
        if self.phase != Phase::Samples {
            let kind = if self.phase == Phase::Preamble {
                ErrorKind::MissingHeader
            } else {
                ErrorKind::OutOfOrder
            };
            return Err(self.unexpected(kind, line));
        }
        let Some(open) = self.open.as_mut() else {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        };
        let mut values = [0u64; MAX_CLOCKS];
        let columns = open.samples.len().min(MAX_CLOCKS);
        match parse_sample(&line[1..], &mut values[..columns]) {
            Ok(()) => {
                for (column, value) in open.samples.iter_mut().zip(values) {
                    column.push(value);
                }
                Ok(())
            }
            Err(SampleError::Overflow(field)) => Err(WireError::new(
                self.line,
                ErrorKind::BadNumber,
                self.expected_sample(),
                format!("{} (field {field} does not fit in 64 bits)", quote(line)),
            )),
            Err(SampleError::Shape) => Err(self.unexpected(ErrorKind::Syntax, line)),
        }
    }

    // ---- records ----

    fn record<'a>(&'a mut self, line: &'a [u8]) -> Result<Option<Event<'a>>, WireError> {
        let body = &line[1..];
        let keyword_end = body.iter().position(|&b| b == b' ').unwrap_or(body.len());
        let keyword = &body[..keyword_end];
        let rest = &body[keyword_end..];
        let known = matches!(
            keyword,
            b"rho-bench"
                | b"target"
                | b"clock"
                | b"config"
                | b"bench"
                | b"stack"
                | b"heap"
                | b"end"
                | b"done"
                | b"counter"
                | b"count"
                | b"yardstick"
        );
        if self.phase == Phase::Preamble && keyword != b"rho-bench" {
            if known {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::MissingHeader,
                    "@rho-bench before any record",
                    quote(line),
                ));
            }
            // Before the stream starts, an unknown `@...` line is a board's chatter like any other.
            self.noise_lines = self.noise_lines.saturating_add(1);
            return Ok(Some(Event::Noise(line)));
        }
        let fields = Fields::split(self.line, line, rest)?;
        match keyword {
            b"rho-bench" => self.version(line, &fields).map(|()| None),
            b"target" => self.target(line, &fields).map(|()| None),
            b"clock" => self.clock(line, &fields).map(|()| None),
            b"counter" if self.version >= COUNTER_VERSION => {
                self.counter(line, &fields).map(|()| None)
            }
            b"count" if self.version >= COUNTER_VERSION => self.count(line, &fields).map(|()| None),
            b"yardstick" if self.version >= YARDSTICK_VERSION => {
                self.yardstick(line, &fields).map(|()| None)
            }
            b"config" => {
                self.config(line, &fields)?;
                Ok(self.header.as_ref().map(Event::HeaderComplete))
            }
            b"bench" => {
                self.bench(line, &fields)?;
                Ok(self.open.as_ref().map(|o| Event::BenchStarted {
                    name: o.name.as_str(),
                }))
            }
            b"stack" => self.stack(line, &fields).map(|()| None),
            b"heap" => self.heap(line, &fields).map(|()| None),
            b"end" => self.end(line, &fields),
            b"done" => {
                self.done(line, &fields)?;
                Ok(Some(Event::Done))
            }
            _ => Err(WireError::new(
                self.line,
                ErrorKind::UnknownRecord,
                format!(
                    "{} (a record keyword of wire format version {})",
                    self.expected_here(),
                    self.version
                ),
                quote(line),
            )),
        }
    }

    fn duplicate(&self, line: &[u8], what: &str, first: u64) -> WireError {
        WireError::new(
            self.line,
            ErrorKind::Duplicate,
            format!(
                "{} (only one {what}, already on line {first})",
                self.expected_here()
            ),
            quote(line),
        )
    }

    fn version(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.phase != Phase::Preamble {
            return Err(self.duplicate(line, "@rho-bench", self.version_line));
        }
        let [version] = fields.positional(self.line, line, ["a version number"])?;
        let version = parse_u64(version).ok_or_else(|| {
            WireError::new(
                self.line,
                ErrorKind::BadNumber,
                "a version number",
                quote(line),
            )
        })?;
        let Some(version) = u32::try_from(version)
            .ok()
            .filter(|v| (1..=WIRE_VERSION).contains(v))
        else {
            return Err(WireError::new(
                self.line,
                ErrorKind::UnsupportedVersion,
                format!("wire format version 1 to {WIRE_VERSION} (the versions this rho reads)"),
                quote(line),
            ));
        };
        self.version = version;
        self.version_line = self.line;
        self.phase = Phase::Target;
        Ok(())
    }

    fn target(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.phase != Phase::Target {
            if self.target.is_some() {
                return Err(self.duplicate(line, "@target", self.target_line));
            }
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [name] = fields.positional(self.line, line, ["a target name"])?;
        let name = fields.name(self.line, line, name, "a target name")?;
        let arch = fields.required_name(self.line, line, "arch")?;
        let optimized = fields.required_bool(self.line, line, "optimized")?;
        let compiler = match fields.get("compiler") {
            Some(value) if !value.is_empty() => Some(String::from_utf8_lossy(value).into_owned()),
            Some(_) => {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Syntax,
                    "a non-empty compiler=",
                    quote(line),
                ));
            }
            None => None,
        };
        self.target = Some(Target {
            name,
            arch,
            optimized,
            compiler,
        });
        self.target_line = self.line;
        self.phase = Phase::Clocks;
        Ok(())
    }

    fn clock(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if !matches!(self.phase, Phase::Clocks | Phase::Suite) {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [role, name] = fields.positional(
            self.line,
            line,
            ["a clock role (cycles, time or cpu)", "a clock name"],
        )?;
        let role = match role {
            b"cycles" => ClockRole::Cycles,
            b"time" => ClockRole::Time,
            b"cpu" if self.version >= CPU_CLOCK_VERSION => ClockRole::Cpu,
            _ => {
                let expected = if self.version >= CPU_CLOCK_VERSION {
                    "a clock role, cycles, time or cpu".to_owned()
                } else {
                    format!(
                        "a clock role, cycles or time (cpu is version {CPU_CLOCK_VERSION}; this stream is version {})",
                        self.version
                    )
                };
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Syntax,
                    expected,
                    quote(line),
                ));
            }
        };
        let declared = self.header.as_ref().map_or(&self.clocks, |h| &h.clocks);
        if let Some(index) = declared.iter().position(|c| c.role == role) {
            let first = self.clock_lines.get(index).copied().unwrap_or(0);
            let what = format!("@clock {}", role.word());
            return Err(self.duplicate(line, &what, first));
        }
        if self.phase != Phase::Clocks {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let name = fields.name(self.line, line, name, "a clock name")?;
        let unit = fields.required_name(self.line, line, "unit")?;
        let hz = fields.required_u64(self.line, line, "hz")?;
        let resolution = fields.required_u64(self.line, line, "resolution")?;
        self.clocks.push(Clock {
            role,
            name,
            unit,
            hz: (hz != 0).then_some(hz),
            resolution,
        });
        self.clock_lines.push(self.line);
        Ok(())
    }

    /// `@counter METRIC NAME` (version 2): the run counts; at most one, in the header, after any `@clock`.
    fn counter(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.counter.is_some() || self.header.as_ref().is_some_and(|h| h.counter.is_some()) {
            return Err(self.duplicate(line, "@counter", self.counter_line));
        }
        if self.phase != Phase::Clocks {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [metric, name] = fields.positional(
            self.line,
            line,
            ["what is counted (instructions)", "the counter's name"],
        )?;
        if metric != b"instructions" {
            return Err(WireError::new(
                self.line,
                ErrorKind::Syntax,
                "@counter instructions NAME (instructions is the one metric counted)",
                quote(line),
            ));
        }
        let name = fields.name(self.line, line, name, "the counter's name")?;
        self.counter = Some(Counter {
            metric: "instructions".to_string(),
            name,
        });
        self.counter_line = self.line;
        Ok(())
    }

    /// `@count DUMP iterations=N` (version 2): inside a block of a counted run, before `@stack`/`@heap`.
    fn count(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        let counted = self.header.as_ref().is_some_and(|h| h.counter.is_some());
        if self.phase != Phase::Samples || !counted {
            if self.phase == Phase::Samples {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::OutOfOrder,
                    format!(
                        "{} (@count only in a run with a @counter)",
                        self.expected_sample()
                    ),
                    quote(line),
                ));
            }
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [dump] = fields.positional(self.line, line, ["a dump number"])?;
        let dump = parse_u64(dump)
            .filter(|&d| d > self.last_dump)
            .ok_or_else(|| {
                WireError::new(
                    self.line,
                    ErrorKind::Inconsistent,
                    format!(
                        "a dump number above the last one ({}): dumps are numbered in the order written",
                        self.last_dump
                    ),
                    quote(line),
                )
            })?;
        let iterations = fields.required_u64(self.line, line, "iterations")?;
        if iterations == 0 {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                "iterations= at least 1 (a counted loop ran)",
                quote(line),
            ));
        }
        let limit = if self
            .open
            .as_ref()
            .is_some_and(|o| o.name == CALIBRATION_NAME)
        {
            2
        } else {
            1
        };
        let Some(open) = self.open.as_mut() else {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        };
        if open.counts.len() >= limit {
            return Err(WireError::new(
                self.line,
                ErrorKind::Duplicate,
                format!(
                    "@stack (a block has one @count, {CALIBRATION_NAME} two; {} started on line {})",
                    open.name, open.line
                ),
                quote(line),
            ));
        }
        open.counts.push(Count {
            dump,
            iterations,
            totals: Default::default(),
        });
        self.last_dump = dump;
        Ok(())
    }

    fn config(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.phase != Phase::Clocks || (self.clocks.is_empty() && self.counter.is_none()) {
            if self.header.is_some() {
                return Err(self.duplicate(line, "@config", self.config_line));
            }
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        if !self.clocks.is_empty() && self.clocks.iter().all(|c| c.role == ClockRole::Cpu) {
            // The CPU time is judged beside a wall clock, never alone: the harness sizes its batches and
            // caps its time on the cycle or time clock.
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                "a `@clock cycles` or `@clock time` beside `@clock cpu`",
                quote(line),
            ));
        }
        fields.positional(self.line, line, [])?;
        let iterations = fields.required_u64(self.line, line, "iterations")?;
        let warmup = fields.required_u64(self.line, line, "warmup")?;
        let time_cap_ms = fields.required_u64(self.line, line, "time_cap_ms")?;
        let stack_bytes = fields.required_u64(self.line, line, "stack_bytes")?;
        // Version 4 says what catches a stack overrun; in an earlier stream the field is unknown, so ignored.
        let stack_guard = if self.version >= GUARD_VERSION {
            fields.optional_name(self.line, line, "stack_guard")?
        } else {
            None
        };
        let Some(target) = self.target.take() else {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        };
        let expected = iterations
            .saturating_add(warmup)
            .min(MAX_PREALLOCATED_SAMPLES);
        self.expected_samples = usize::try_from(expected).unwrap_or(0);
        self.header = Some(Header {
            version: self.version,
            target,
            clocks: std::mem::take(&mut self.clocks),
            counter: self.counter.take(),
            config: RunConfig {
                iterations,
                warmup,
                time_cap_ms: (time_cap_ms != 0).then_some(time_cap_ms),
                stack_bytes: (stack_bytes != 0).then_some(stack_bytes),
                stack_guard,
            },
        });
        self.config_line = self.line;
        self.phase = Phase::Suite;
        Ok(())
    }

    /// `@yardstick NAME iterations=N repetitions=R` (version 9): once, after `@config` and before the first
    /// `@bench`, in a timed run; its `R` sample lines follow.
    fn yardstick(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.yardstick.is_some() {
            return Err(self.duplicate(line, "@yardstick", self.yardstick_line));
        }
        if self.phase != Phase::Suite || self.calibration.is_some() || !self.benchmarks.is_empty() {
            return Err(WireError::new(
                self.line,
                ErrorKind::OutOfOrder,
                "@yardstick only between @config and the first @bench",
                quote(line),
            ));
        }
        let clocks = self.header.as_ref().map_or(0, |h| h.clocks.len());
        if clocks == 0 {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                "no @yardstick in a counted run (it has no clock to time it with)",
                quote(line),
            ));
        }
        let [name] = fields.positional(self.line, line, ["the reference loop's name"])?;
        if !is_name(name) {
            return Err(WireError::new(
                self.line,
                ErrorKind::Syntax,
                "@yardstick NAME (1 to 63 of [A-Za-z0-9_.:+-])",
                quote(line),
            ));
        }
        let iterations = fields.required_u64(self.line, line, "iterations")?;
        let repetitions = fields.required_u64(self.line, line, "repetitions")?;
        if iterations == 0 || repetitions == 0 || repetitions > MAX_YARDSTICK_REPETITIONS {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                format!(
                    "@yardstick iterations= at least 1 and repetitions= 1 to {MAX_YARDSTICK_REPETITIONS}"
                ),
                quote(line),
            ));
        }
        self.yardstick = Some(Yardstick {
            name: String::from_utf8_lossy(name).into_owned(),
            iterations,
            samples: vec![Vec::new(); clocks],
        });
        self.yardstick_line = self.line;
        self.yardstick_repetitions = repetitions;
        self.phase = Phase::Yardstick;
        Ok(())
    }

    fn yardstick_sample(&mut self, line: &[u8]) -> Result<(), WireError> {
        let Some(yardstick) = self.yardstick.as_mut() else {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        };
        let mut values = [0u64; MAX_CLOCKS];
        let columns = yardstick.samples.len().min(MAX_CLOCKS);
        match parse_sample(&line[1..], &mut values[..columns]) {
            Ok(()) => {
                for (column, value) in yardstick.samples.iter_mut().zip(values) {
                    column.push(value);
                }
            }
            Err(_) => {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Syntax,
                    format!("a sample of @yardstick: {columns} unsigned number(s), one per @clock"),
                    quote(line),
                ));
            }
        }
        let read = yardstick.samples.first().map_or(0, Vec::len) as u64;
        if read == self.yardstick_repetitions {
            self.phase = Phase::Suite;
        }
        Ok(())
    }

    fn bench(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.phase != Phase::Suite {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [name] = fields.positional(self.line, line, ["a benchmark name"])?;
        let family = if self.version >= FAMILY_VERSION {
            self.family_member(line, fields, name)?
        } else {
            None
        };
        let name = match &family {
            Some(member) => member.member_name(),
            None if self.version >= NAME_ESCAPE_VERSION => self.escaped_name(line, name)?,
            None => fields.name(self.line, line, name, "a benchmark name")?,
        };
        if name.starts_with('.') {
            if name != CALIBRATION_NAME {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Syntax,
                    format!(
                        "a benchmark name (names starting with '.' are the harness's own; only {CALIBRATION_NAME} exists)"
                    ),
                    quote(line),
                ));
            }
            if self.calibration.is_some() {
                return Err(self.duplicate(line, "@bench .overhead", self.calibration_line));
            }
        } else if let Some(&first) = self.bench_lines.get(&name) {
            return Err(WireError::new(
                self.line,
                ErrorKind::Duplicate,
                format!("a benchmark that has not run yet ({name} started on line {first})"),
                quote(line),
            ));
        }
        let columns = self.clocks_len();
        let samples = (0..columns)
            .map(|_| Vec::with_capacity(self.expected_samples))
            .collect();
        self.open = Some(OpenBench {
            name,
            family,
            line: self.line,
            samples,
            stack: None,
            stack_line: 0,
            heap: None,
            heap_line: 0,
            counts: Vec::new(),
        });
        self.phase = Phase::Samples;
        Ok(())
    }

    /// A version 8 benchmark name: `%XX`-escaped UTF-8 without control characters (crate::name).
    fn escaped_name(&self, line: &[u8], escaped: &[u8]) -> Result<String, WireError> {
        crate::name::unescape(escaped).map_err(|why| {
            WireError::new(
                self.line,
                ErrorKind::Syntax,
                format!(
                    "a benchmark name (UTF-8 of 1 to {MAX_NAME_BYTES} bytes without control characters, space, % and = written %XX; found {why})"
                ),
                quote(line),
            )
        })
    }

    /// `family=F arg=A` on `@bench F/A`: both or neither, and the name is exactly `F/A`.
    fn family_member(
        &self,
        line: &[u8],
        fields: &Fields,
        name: &[u8],
    ) -> Result<Option<FamilyMember>, WireError> {
        if fields.get("family").is_none() && fields.get("arg").is_none() {
            return Ok(None);
        }
        let family = fields.required_name(self.line, line, "family")?;
        let arg = fields.required_u64(self.line, line, "arg")?;
        let member = FamilyMember { name: family, arg };
        if name != member.member_name().as_bytes() {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                format!(
                    "the name of a family member, {} (family=/arg=)",
                    member.member_name()
                ),
                quote(line),
            ));
        }
        Ok(Some(member))
    }

    fn stack(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if !matches!(self.phase, Phase::Samples | Phase::Trailer) {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        if let Some(open) = &self.open
            && open.stack.is_some()
        {
            return Err(self.duplicate(line, "@stack per benchmark", open.stack_line));
        }
        let what = "a stack depth in bytes, overrun or off";
        let [value] = fields.positional(self.line, line, [what])?;
        let mark = match value {
            b"overrun" => StackMark::Overrun,
            b"off" => StackMark::Off,
            digits => StackMark::Bytes(parse_u64(digits).ok_or_else(|| {
                WireError::new(self.line, ErrorKind::BadNumber, what, quote(line))
            })?),
        };
        // The mark lies inside the painted region: a deeper one, or one with no region, is not a figure this
        // harness could have measured.
        let region = self
            .header
            .as_ref()
            .and_then(|h| h.config.stack_bytes)
            .unwrap_or(0);
        match mark {
            StackMark::Bytes(bytes) if bytes > region => {
                let expected = if region == 0 {
                    "@stack off (@config stack_bytes=0: the stack is not measured)".to_string()
                } else {
                    format!("a stack depth of at most @config stack_bytes={region}, overrun or off")
                };
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Inconsistent,
                    expected,
                    quote(line),
                ));
            }
            StackMark::Overrun if region == 0 => {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Inconsistent,
                    "@stack off (@config stack_bytes=0: the stack is not measured)",
                    quote(line),
                ));
            }
            _ => {}
        }
        let line_no = self.line;
        if let Some(open) = self.open.as_mut() {
            open.stack = Some(mark);
            open.stack_line = line_no;
        }
        self.phase = Phase::Trailer;
        Ok(())
    }

    fn heap(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if !matches!(self.phase, Phase::Samples | Phase::Trailer) {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        if let Some(open) = &self.open
            && open.heap.is_some()
        {
            return Err(self.duplicate(line, "@heap per benchmark", open.heap_line));
        }
        if !fields.positional.is_empty() {
            // Version 6: `@heap off`, the heap not measured, and no figures. Earlier versions have no such line.
            let expected = if self.version >= HEAP_OFF_VERSION {
                "off (the heap not measured) or peak= live= allocs= frees= free_errors=".to_string()
            } else {
                format!(
                    "peak= live= allocs= frees= free_errors= (`@heap off` is wire format version \
                     {HEAP_OFF_VERSION}; this stream is version {})",
                    self.version
                )
            };
            if self.version < HEAP_OFF_VERSION || fields.positional[..] != [b"off"] {
                return Err(WireError::new(
                    self.line,
                    ErrorKind::Syntax,
                    expected,
                    quote(line),
                ));
            }
            return self.close_heap(None);
        }
        fields.positional(self.line, line, [])?;
        let figures = HeapFigures {
            peak: fields.required_u64(self.line, line, "peak")?,
            live: fields.required_u64(self.line, line, "live")?,
            allocs: fields.required_u64(self.line, line, "allocs")?,
            frees: fields.required_u64(self.line, line, "frees")?,
            free_errors: fields.required_u64(self.line, line, "free_errors")?,
        };
        if let Some(expected) = figures.inconsistency(self.version) {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                expected,
                quote(line),
            ));
        }
        self.close_heap(Some(figures))
    }

    /// Records the block's `@heap`: its figures, or `None` when not measured.
    fn close_heap(&mut self, figures: Option<HeapFigures>) -> Result<(), WireError> {
        let line_no = self.line;
        if let Some(open) = self.open.as_mut() {
            open.heap = Some(figures);
            open.heap_line = line_no;
        }
        self.phase = Phase::Trailer;
        Ok(())
    }

    /// `@end`'s `batch=` (version 4 on; absent, 1): at least 1, and `iterations` a whole number of batches.
    fn end_batch(&self, line: &[u8], fields: &Fields, iterations: u64) -> Result<u64, WireError> {
        // A version 1 stream has no batches: a `batch=` there is an unknown field, ignored as version 1 says.
        let batch = if self.version >= BATCH_VERSION {
            fields.optional_u64(self.line, line, "batch")?.unwrap_or(1)
        } else {
            1
        };
        if batch == 0 {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                "batch= at least 1 (iterations in one measured sample)",
                quote(line),
            ));
        }
        if iterations % batch != 0 {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                format!(
                    "iterations= a multiple of batch={batch} (whole samples of {batch} iterations)"
                ),
                quote(line),
            ));
        }
        Ok(batch)
    }

    fn end<'a>(
        &'a mut self,
        line: &'a [u8],
        fields: &Fields,
    ) -> Result<Option<Event<'a>>, WireError> {
        let ready = self.phase == Phase::Trailer
            && self
                .open
                .as_ref()
                .is_some_and(|o| o.stack.is_some() && o.heap.is_some());
        if !ready {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        let [name] = fields.positional(self.line, line, ["a benchmark name"])?;
        let iterations = fields.required_u64(self.line, line, "iterations")?;
        let warmup = fields.required_u64(self.line, line, "warmup")?;
        let capped = fields.required_bool(self.line, line, "capped")?;
        let unit = fields.required_name(self.line, line, "unit")?;
        let per_iteration = fields.required_u64(self.line, line, "per_iteration")?;
        let wrapped = fields
            .optional_u64(self.line, line, "wrapped")?
            .unwrap_or(0);
        let batch = self.end_batch(line, fields, iterations)?;
        // Version 5: the benchmark was stopped by a stack overrun (earlier, the field is unknown, so ignored).
        let overran = self.version >= GUARD_VERSION
            && fields
                .optional_bool(self.line, line, "overran")?
                .unwrap_or(false);
        // Version 7: what the process's other threads used during the measured loop (earlier, unknown).
        let (other_cpu_ns, preempted) = if self.version >= CPU_CLOCK_VERSION {
            (
                fields.optional_u64(self.line, line, "other_cpu_ns")?,
                fields
                    .optional_u64(self.line, line, "preempted")?
                    .unwrap_or(0),
            )
        } else {
            (None, 0)
        };
        // Version 9: interrupted samples measured again (earlier, an unknown field, ignored).
        let rerun = if self.version >= RERUN_VERSION {
            fields.optional_u64(self.line, line, "rerun")?.unwrap_or(0)
        } else {
            0
        };
        if per_iteration == 0 {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                "per_iteration= at least 1 (ops in one iteration)",
                quote(line),
            ));
        }
        let Some(open) = self.open.take() else {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        };
        let same = match self.version >= NAME_ESCAPE_VERSION {
            true => crate::name::unescape(name).is_ok_and(|n| n == open.name),
            false => name == open.name.as_bytes(),
        };
        if !same {
            let err = WireError::new(
                self.line,
                ErrorKind::NameMismatch,
                format!(
                    "@end {} (the benchmark started on line {})",
                    open.name, open.line
                ),
                quote(line),
            );
            return Err(err);
        }
        let count = open.samples.first().map_or(0, Vec::len) as u64;
        let measured = iterations / batch;
        if self.clocks_len() == 0 {
            self.check_counts(line, &open, iterations)?;
        } else if measured.checked_add(warmup) != Some(count) {
            let what = if batch == 1 {
                format!("warmup + iterations = {warmup} + {iterations}")
            } else {
                format!("warmup + iterations / batch = {warmup} + {iterations} / {batch}")
            };
            return Err(WireError::new(
                self.line,
                ErrorKind::CountMismatch,
                format!(
                    "{what} samples since @bench {} on line {}",
                    open.name, open.line
                ),
                format!("{count} samples"),
            ));
        }
        if overran && open.stack != Some(StackMark::Overrun) {
            return Err(WireError::new(
                self.line,
                ErrorKind::Inconsistent,
                format!(
                    "overran=1 only after @stack overrun (the benchmark started on line {})",
                    open.line
                ),
                quote(line),
            ));
        }
        if wrapped > count {
            return Err(WireError::new(
                self.line,
                ErrorKind::CountMismatch,
                format!(
                    "wrapped= at most the {count} samples since @bench {} on line {}",
                    open.name, open.line
                ),
                quote(line),
            ));
        }
        let benchmark = Benchmark {
            name: open.name,
            unit,
            per_iteration,
            samples: open.samples,
            warmup,
            iterations,
            capped,
            stack: open.stack.unwrap_or(StackMark::Off),
            heap: open.heap.flatten(),
            wrapped,
            counts: open.counts,
            family: open.family,
            batch,
            overran,
            other_cpu_ns,
            preempted,
            rerun,
        };
        self.phase = Phase::Suite;
        if benchmark.name == CALIBRATION_NAME {
            self.calibration_line = open.line;
            let calibration = self.calibration.insert(benchmark);
            Ok(Some(Event::CalibrationFinished(calibration)))
        } else {
            self.bench_lines.insert(benchmark.name.clone(), open.line);
            self.benchmarks.push(benchmark);
            Ok(self.benchmarks.last().map(Event::BenchFinished))
        }
    }

    /// A counted block (a run with no clock) has no samples: its `@count`s stand for them. One per loop that
    /// ran (none when `@end iterations=0`), two for `.overhead` (its loop of `iterations=`, then twice that).
    fn check_counts(
        &self,
        line: &[u8],
        open: &OpenBench,
        iterations: u64,
    ) -> Result<(), WireError> {
        let calibration = open.name == CALIBRATION_NAME;
        let expected: Vec<u64> = match (iterations, calibration) {
            (0, _) => Vec::new(),
            (n, false) => vec![n],
            (n, true) => vec![n, n.saturating_mul(2)],
        };
        let found: Vec<u64> = open.counts.iter().map(|c| c.iterations).collect();
        if found != expected {
            let wanted = match expected.as_slice() {
                [] => "no @count (no measured iteration)".to_string(),
                [n] => format!("one @count with iterations={n}"),
                [n, m] => format!("two @count lines, iterations={n} then iterations={m}"),
                _ => String::new(),
            };
            return Err(WireError::new(
                self.line,
                ErrorKind::CountMismatch,
                format!(
                    "{wanted} in {} since line {} (its @end says iterations={iterations})",
                    open.name, open.line
                ),
                format!("{} ({} @count)", quote(line), found.len()),
            ));
        }
        Ok(())
    }

    fn done(&mut self, line: &[u8], fields: &Fields) -> Result<(), WireError> {
        if self.phase != Phase::Suite {
            return Err(self.unexpected(ErrorKind::OutOfOrder, line));
        }
        fields.positional(self.line, line, [])?;
        let benchmarks = fields.required_u64(self.line, line, "benchmarks")?;
        let dropped = fields.required_u64(self.line, line, "dropped")?;
        let ran = self.benchmarks.len() as u64;
        if benchmarks != ran {
            return Err(WireError::new(
                self.line,
                ErrorKind::CountMismatch,
                format!(
                    "@done benchmarks={ran} (the benchmarks of the suite in this stream, not counting {CALIBRATION_NAME})"
                ),
                quote(line),
            ));
        }
        self.dropped = dropped;
        self.phase = Phase::Done;
        Ok(())
    }
}

// ---- field parsing ----

enum SampleError {
    /// The wrong number of fields, or a field that is not digits.
    Shape,
    /// Field number (1-based) does not fit in a u64.
    Overflow(usize),
}

/// Plain sample lines from the start of `buf` into `columns`: `:` then `N` runs of 1 to 18 digits separated by
/// one space, then `\n` (or `\r\n`). Returns the bytes and lines consumed; stops before the first line that is
/// anything else or is not complete in `buf`. 18 digits always fit in a u64, so no overflow check is needed.
#[inline(always)]
fn plain_samples<const N: usize>(buf: &[u8], mut columns: [&mut Vec<u64>; N]) -> (usize, u64) {
    let mut at = 0;
    let mut lines = 0;
    'lines: while buf.get(at) == Some(&b':') {
        let mut i = at + 1;
        let mut values = [0u64; N];
        for (k, value) in values.iter_mut().enumerate() {
            if k > 0 {
                if buf.get(i) != Some(&b' ') {
                    break 'lines;
                }
                i += 1;
            }
            let start = i;
            let mut v: u64 = 0;
            while let Some(&byte) = buf.get(i) {
                let digit = byte.wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                v = v * 10 + u64::from(digit);
                i += 1;
                if i - start > 18 {
                    break 'lines;
                }
            }
            if i == start {
                break 'lines;
            }
            *value = v;
        }
        match buf.get(i) {
            Some(b'\n') => i += 1,
            Some(b'\r') if buf.get(i + 1) == Some(&b'\n') => i += 2,
            _ => break,
        }
        for (column, value) in columns.iter_mut().zip(values) {
            column.push(value);
        }
        at = i;
        lines += 1;
    }
    (at, lines)
}

/// Parse the fields of a sample line (after the `:`) into `values`: exactly `values.len()` unsigned decimal
/// integers separated by spaces. A hand-written loop over bytes: this runs once per sample.
#[inline]
fn parse_sample(bytes: &[u8], values: &mut [u64]) -> Result<(), SampleError> {
    let mut i = 0;
    let len = bytes.len();
    for (field, value) in values.iter_mut().enumerate() {
        while i < len && bytes[i] == b' ' {
            i += 1;
        }
        let start = i;
        let mut v: u64 = 0;
        // Up to 19 digits cannot overflow a u64; only a longer number needs checked arithmetic.
        let fast_end = len.min(start + 19);
        while i < fast_end {
            let digit = bytes[i].wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            v = v * 10 + u64::from(digit);
            i += 1;
        }
        if i == fast_end {
            while i < len {
                let digit = bytes[i].wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(digit)))
                    .ok_or(SampleError::Overflow(field + 1))?;
                i += 1;
            }
        }
        if i == start || (i < len && bytes[i] != b' ') {
            return Err(SampleError::Shape);
        }
        *value = v;
    }
    while i < len && bytes[i] == b' ' {
        i += 1;
    }
    if i != len {
        return Err(SampleError::Shape);
    }
    Ok(())
}

/// An unsigned decimal integer that fits in 64 bits: digits only, at least one.
pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() {
        return None;
    }
    let mut value: u64 = 0;
    for &b in bytes {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// Names (target, clock, benchmark, unit) are 1 to 63 bytes of `[A-Za-z0-9_.:+-]`.
pub fn is_name(bytes: &[u8]) -> bool {
    (1..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'+' | b'-'))
}

/// A validated name as a `String` (ASCII by construction).
fn name_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The fields of one record after its keyword: positional ones in order, `key=value` ones by key.
struct Fields<'a> {
    positional: Vec<&'a [u8]>,
    keyed: Vec<(&'a [u8], &'a [u8])>,
}

impl<'a> Fields<'a> {
    fn split(line_no: u64, line: &[u8], rest: &'a [u8]) -> Result<Fields<'a>, WireError> {
        let mut positional = Vec::new();
        let mut keyed: Vec<(&[u8], &[u8])> = Vec::new();
        for token in rest.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
            Self::printable(line_no, line, token, positional.len())?;
            match token.iter().position(|&b| b == b'=') {
                Some(eq) => {
                    let (key, value) = (&token[..eq], &token[eq + 1..]);
                    if key.is_empty() {
                        return Err(WireError::new(
                            line_no,
                            ErrorKind::Syntax,
                            "key=value fields with a key",
                            quote(line),
                        ));
                    }
                    if keyed.iter().any(|(k, _)| *k == key) {
                        return Err(WireError::new(
                            line_no,
                            ErrorKind::Duplicate,
                            format!(
                                "each field once, but {}= appears twice",
                                String::from_utf8_lossy(key)
                            ),
                            quote(line),
                        ));
                    }
                    keyed.push((key, value));
                }
                None => positional.push(token),
            }
        }
        Ok(Fields { positional, keyed })
    }

    /// Every writer (write.rs, bench.h, rho-bench) puts only printable ASCII in a record's fields, so a control
    /// byte (an escape sequence meant for a terminal) or a byte that is not ASCII is refused, naming the field:
    /// `compiler=` is the one free-text field, and what no writer produces is never shown or stored.
    fn printable(
        line_no: u64,
        line: &[u8],
        token: &[u8],
        positionals_before: usize,
    ) -> Result<(), WireError> {
        if token.iter().all(u8::is_ascii_graphic) {
            return Ok(());
        }
        let field = match token.iter().position(|&b| b == b'=') {
            Some(eq) if eq > 0 && token[..eq].iter().all(u8::is_ascii_graphic) => {
                format!("{}=", String::from_utf8_lossy(&token[..eq]))
            }
            Some(eq) if eq > 0 => format!("the key {}", quote(&token[..eq])),
            _ => format!("field {}", positionals_before + 1),
        };
        Err(WireError::new(
            line_no,
            ErrorKind::Syntax,
            format!(
                "printable ASCII in {field} (no writer puts a control byte or non-ASCII byte there)"
            ),
            quote(line),
        ))
    }

    /// Exactly `N` positional fields, each described by `what` for the error.
    fn positional<const N: usize>(
        &self,
        line_no: u64,
        line: &[u8],
        what: [&str; N],
    ) -> Result<[&'a [u8]; N], WireError> {
        if self.positional.len() != N {
            let expected = if N == 0 {
                "only key=value fields".to_string()
            } else {
                what.join(" then ")
            };
            return Err(WireError::new(
                line_no,
                ErrorKind::Syntax,
                expected,
                quote(line),
            ));
        }
        let mut out = [&[][..]; N];
        out.copy_from_slice(&self.positional);
        Ok(out)
    }

    fn get(&self, key: &str) -> Option<&'a [u8]> {
        self.keyed
            .iter()
            .find(|(k, _)| *k == key.as_bytes())
            .map(|(_, v)| *v)
    }

    fn required(
        &self,
        line_no: u64,
        line: &[u8],
        key: &str,
        what: &str,
    ) -> Result<&'a [u8], WireError> {
        self.get(key).ok_or_else(|| {
            WireError::new(
                line_no,
                ErrorKind::Syntax,
                format!("{key}= ({what})"),
                quote(line),
            )
        })
    }

    fn required_u64(&self, line_no: u64, line: &[u8], key: &str) -> Result<u64, WireError> {
        let value = self.required(line_no, line, key, "an unsigned integer")?;
        parse_u64(value).ok_or_else(|| {
            WireError::new(
                line_no,
                ErrorKind::BadNumber,
                format!("{key}= an unsigned integer that fits in 64 bits"),
                quote(line),
            )
        })
    }

    /// A `key=` the format allows to be absent: `None` when it is, else what `required` reads (its error when
    /// the value is not what the key takes).
    fn optional<T>(
        &self,
        key: &str,
        required: impl FnOnce() -> Result<T, WireError>,
    ) -> Result<Option<T>, WireError> {
        self.get(key).map(|_| required()).transpose()
    }

    /// An optional `key=` unsigned integer.
    fn optional_u64(&self, line_no: u64, line: &[u8], key: &str) -> Result<Option<u64>, WireError> {
        self.optional(key, || self.required_u64(line_no, line, key))
    }

    /// An optional `key=0|1`.
    fn optional_bool(
        &self,
        line_no: u64,
        line: &[u8],
        key: &str,
    ) -> Result<Option<bool>, WireError> {
        self.optional(key, || self.required_bool(line_no, line, key))
    }

    /// An optional `key=NAME`.
    fn optional_name(
        &self,
        line_no: u64,
        line: &[u8],
        key: &str,
    ) -> Result<Option<String>, WireError> {
        self.optional(key, || self.required_name(line_no, line, key))
    }

    fn required_bool(&self, line_no: u64, line: &[u8], key: &str) -> Result<bool, WireError> {
        match self.required(line_no, line, key, "0 or 1")? {
            b"0" => Ok(false),
            b"1" => Ok(true),
            _ => Err(WireError::new(
                line_no,
                ErrorKind::Syntax,
                format!("{key}=0 or {key}=1"),
                quote(line),
            )),
        }
    }

    fn required_name(&self, line_no: u64, line: &[u8], key: &str) -> Result<String, WireError> {
        let what = "1 to 63 bytes of A-Z a-z 0-9 _ . : + -";
        let value = self.required(line_no, line, key, what)?;
        self.name(line_no, line, value, &format!("{key}= {what}"))
    }

    fn name(
        &self,
        line_no: u64,
        line: &[u8],
        value: &[u8],
        what: &str,
    ) -> Result<String, WireError> {
        if is_name(value) {
            Ok(name_string(value))
        } else {
            Err(WireError::new(
                line_no,
                ErrorKind::Syntax,
                format!("{what} (1 to 63 bytes of A-Z a-z 0-9 _ . : + -)"),
                quote(line),
            ))
        }
    }
}

// ---- driving a reader ----

/// Reads lines from a `BufRead` without copying them when they lie inside its buffer, keeping at most
/// [`MAX_LINE_BYTES`] + 1 bytes of a longer line.
struct LineReader<R> {
    reader: R,
    /// Bytes of the last line (and its `\n`) still to consume from the reader's buffer.
    pending: usize,
    spill: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            pending: 0,
            spill: Vec::new(),
        }
    }

    fn fill(reader: &mut R) -> io::Result<&[u8]> {
        loop {
            match reader.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        reader.fill_buf()
    }

    /// The unread part of the reader's buffer (filling it if empty); empty at end of input.
    fn buffer(&mut self) -> io::Result<&[u8]> {
        self.reader.consume(self.pending);
        self.pending = 0;
        Self::fill(&mut self.reader)
    }

    /// Mark `n` bytes of [`buffer`](LineReader::buffer) as read.
    fn consume(&mut self, n: usize) {
        self.reader.consume(n);
    }

    /// The next line without its `\n`, and whether it was cut at [`MAX_LINE_BYTES`]; `None` at end of input.
    fn next_line(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        self.reader.consume(self.pending);
        self.pending = 0;
        let newline = {
            let buf = Self::fill(&mut self.reader)?;
            if buf.is_empty() {
                return Ok(None);
            }
            buf.iter().position(|&b| b == b'\n')
        };
        if let Some(pos) = newline {
            self.pending = pos + 1;
            let buf = self.reader.fill_buf()?;
            let shown = pos.min(MAX_LINE_BYTES + 1);
            return Ok(Some((&buf[..shown], pos > MAX_LINE_BYTES)));
        }
        // The line runs past the buffer: gather it, keeping only what could be a valid line plus one byte.
        self.spill.clear();
        let mut overlong = false;
        loop {
            let buf = Self::fill(&mut self.reader)?;
            if buf.is_empty() {
                break;
            }
            let (chunk, used, finished) = match buf.iter().position(|&b| b == b'\n') {
                Some(pos) => (&buf[..pos], pos + 1, true),
                None => (buf, buf.len(), false),
            };
            let room = (MAX_LINE_BYTES + 1).saturating_sub(self.spill.len());
            if chunk.len() > room {
                overlong = true;
            }
            self.spill
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.reader.consume(used);
            if finished {
                break;
            }
        }
        Ok(Some((
            &self.spill,
            overlong || self.spill.len() > MAX_LINE_BYTES,
        )))
    }
}

/// Parse a whole stream, calling `on_event` for each event as it happens (for progress while a board streams).
/// Stops reading at `@done`.
pub fn parse_run_with<R: BufRead>(
    reader: R,
    mut on_event: impl FnMut(&Event<'_>),
) -> Result<Run, WireError> {
    let mut parser = StreamParser::new();
    let mut lines = LineReader::new(reader);
    loop {
        if parser.phase == Phase::Samples {
            let line = parser.line().saturating_add(1);
            let buf = lines
                .buffer()
                .map_err(|error| WireError::Io { line, error })?;
            let used = parser.feed_samples(buf);
            lines.consume(used);
        }
        let next = lines.next_line().map_err(|error| WireError::Io {
            line: parser.line().saturating_add(1),
            error,
        })?;
        let Some((line, overlong)) = next else {
            break;
        };
        if let Some(event) = parser.feed(line, overlong)? {
            on_event(&event);
            if matches!(event, Event::Done) {
                break;
            }
        }
    }
    parser.finish()
}

/// Parse a whole stream from any `BufRead`, stopping at `@done`.
pub fn parse_run<R: BufRead>(reader: R) -> Result<Run, WireError> {
    parse_run_with(reader, |_| {})
}

/// Parse a whole stream held in memory.
pub fn parse_bytes(bytes: &[u8]) -> Result<Run, WireError> {
    parse_run(bytes)
}

/// Parse a whole stream held in a string.
pub fn parse_str(text: &str) -> Result<Run, WireError> {
    parse_run(text.as_bytes())
}
