//! Running a built suite: its stdout is read straight into the streaming wire parser while it runs, and
//! whatever goes wrong (a crash, a non-zero exit, a timeout, a malformed or truncated stream) becomes one error
//! naming what happened and where.

use std::io::BufRead;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::error::{Result, SuiteError};
use rho_exec::{LineControl, Runner, Termination};
use rho_wire::{Event, MAX_LINE_BYTES, Run, StreamParser};

/// What the harness reads from its environment on a hosted target.
#[derive(Debug, Clone, Default)]
pub struct HarnessSettings {
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
    /// `--filter`: a regex (crate::filter), passed as RHO_BENCH_FILTER terms when it is plain names.
    pub filter: Option<String>,
}

impl HarnessSettings {
    /// The environment variables that carry these settings.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if let Some(iterations) = self.iterations {
            env.push(("RHO_BENCH_ITERATIONS", iterations.to_string()));
        }
        if let Some(warmup) = self.warmup {
            env.push(("RHO_BENCH_WARMUP", warmup.to_string()));
        }
        if let Some(scale) = self.scale {
            env.push(("RHO_BENCH_SCALE", scale.to_string()));
        }
        if let Some(terms) = self.harness_filter() {
            env.push((crate::filter::FILTER_VARIABLE, terms));
        }
        env
    }

    /// The filter as `RHO_BENCH_FILTER` terms, when it is plain names (else the harness runs every
    /// benchmark, or the names a listing gives, and the report is cut to the regex's names).
    pub fn harness_filter(&self) -> Option<String> {
        crate::filter::harness_terms_of(self.filter.as_deref())
    }
}

/// A warning when `--filter` left nothing to run (the harness runs none and says so with `benchmarks=0`).
pub fn filter_warning(filter: Option<&str>, summary: &rho_stats::RunSummary) -> Option<String> {
    match filter {
        Some(filter) if summary.benchmarks.is_empty() => Some(format!(
            "--filter {filter} matched no benchmark of this suite"
        )),
        _ => None,
    }
}

/// How many noise lines are echoed to stderr as they arrive; the rest are only counted.
const NOISE_ECHO_LIMIT: u64 = 20;

/// Run the built suite `executable` with `settings` in its environment; see [`run_stream`].
pub fn run_suite(
    executable: &Path,
    what: &str,
    settings: &HarnessSettings,
    timeout: Duration,
) -> Result<Run> {
    let mut command = Command::new(executable);
    command.envs(settings.environment());
    run_stream(command, what, timeout)
}

/// Run `command` (any program that prints the wire stream: a built suite, a board's flash-and-run command),
/// parsing its stdout as the stream as it arrives, with `timeout` and its process group killed on any failure.
/// `what` names the suite in messages.
pub fn run_stream(command: Command, what: &str, timeout: Duration) -> Result<Run> {
    // On a terminal: the suite, the run and the benchmark running, until the run is over.
    let progress = crate::observe::RunGuard::start(what);
    // A `command:` suite or a board's run command goes through `sh -c`, whose 139 is a crash (SIGSEGV).
    let through_shell = command.get_program() == "sh";

    let mut parser = StreamParser::new();
    let mut failure = None;
    let finished = Runner::new(command)
        .timeout(timeout)
        .run_reader(|reader| {
            let mut progress = Progress { noise_echoed: 0 };
            match read_stream(reader, &mut parser, &mut progress) {
                Ok(()) => LineControl::Continue,
                Err(error) => {
                    failure = Some(error);
                    LineControl::Stop
                }
            }
        })
        .map_err(|error| {
            SuiteError::Run(format!("cannot run the benchmark suite {what}: {error}"))
        })?;
    drop(progress);

    let stderr_tail = || {
        let text = finished.stderr.trim_end();
        if text.is_empty() {
            String::new()
        } else {
            let mark = if finished.stderr_truncated {
                "[...]\n"
            } else {
                ""
            };
            format!("\nits stderr:\n{mark}{text}")
        }
    };

    // How the suite ended comes first: a crash often cuts its last line off, and the crash is the news.
    match finished.termination {
        Termination::Exited(0) | Termination::Stopped => {}
        Termination::TimedOut(after) => {
            return Err(SuiteError::Run(format!(
                "the benchmark suite {what} timed out after {}{}; its process group was killed \
                 (raise --timeout, or lower --iterations/--scale){}",
                format_seconds(after),
                parser.whereabouts(),
                stderr_tail()
            )));
        }
        termination @ (Termination::Exited(_) | Termination::Signaled(_)) => {
            let ended = if through_shell {
                termination.through_shell()
            } else {
                termination.to_string()
            };
            return Err(SuiteError::Run(format!(
                "the benchmark suite {what} {ended}{}{}",
                parser.whereabouts(),
                stderr_tail()
            )));
        }
    }
    match failure {
        Some(ReadFailure::Wire(error)) => {
            return Err(SuiteError::Run(format!(
                "the benchmark suite {what} printed a malformed wire stream, so it was stopped: output {error}{}",
                stderr_tail()
            )));
        }
        Some(ReadFailure::Io(error)) => {
            return Err(SuiteError::Run(format!(
                "cannot read the output of the benchmark suite {what}: {error}{}",
                stderr_tail()
            )));
        }
        None => {}
    }
    let run = parser.finish().map_err(|error| {
        SuiteError::Run(format!(
            "the benchmark suite {what} exited normally but its wire stream is incomplete: output {error}{}{}",
            never_started_hint(&error),
            stderr_tail()
        ))
    })?;
    // The harness's own messages on a successful run (a dropped benchmark, say) are the user's to see.
    let text = finished.stderr.trim_end();
    if !text.is_empty() {
        crate::observe::observer().line(text);
    }
    Ok(run)
}

/// What a stream that ended before its first line (`@rho-bench`) most likely means, and what to check.
fn never_started_hint(error: &rho_wire::WireError) -> &'static str {
    match error {
        rho_wire::WireError::Unexpected { expected, .. } if expected.starts_with("@rho-bench") => {
            "\nthe program exited without starting the stream: most likely its main never calls \
             rho_bench_main(&suite, argc, argv) (or returns before it), or it is not the suite's program, or it \
             printed nothing on stdout. Check that main ends with `return rho_bench_main(&suite, argc, argv);` \
             and that the command runs the suite you built"
        }
        _ => "",
    }
}

/// Why reading a suite's output stopped early.
#[derive(Debug)]
enum ReadFailure {
    Wire(rho_wire::WireError),
    Io(std::io::Error),
}

/// What the user sees while a suite runs: which benchmark is running (the observer, crate::observe)
/// and the first noise lines.
struct Progress {
    noise_echoed: u64,
}

impl Progress {
    fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::BenchStarted { name } if !name.starts_with('.') => {
                crate::observe::observer().benchmark_started(name);
            }
            Event::Noise(text) if self.noise_echoed < NOISE_ECHO_LIMIT => {
                self.noise_echoed += 1;
                crate::observe::observer().line(&format!(
                    "rho: suite output: {}",
                    rho_text::escape_line(&String::from_utf8_lossy(text))
                ));
            }
            _ => {}
        }
    }
}

/// Feed `reader` to `parser` up to `@done` (what follows it is left to the runner, which drains it): sample
/// lines straight out of the reader's buffer through the parser's fast path ([`StreamParser::feed_samples`]),
/// every other line through [`StreamParser::feed_line`]. A line longer than the parser accepts is cut at one
/// byte more than that, so that the parser sees it as overlong without rho holding all of it.
fn read_stream(
    reader: &mut dyn BufRead,
    parser: &mut StreamParser,
    progress: &mut Progress,
) -> Result<(), ReadFailure> {
    // A line that straddles two buffers (or is longer than one), gathered here.
    let mut spill: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf().map_err(ReadFailure::Io)?;
        if buf.is_empty() {
            if !spill.is_empty() {
                let event = parser.feed_line(&spill).map_err(ReadFailure::Wire)?;
                if let Some(event) = event {
                    progress.event(&event);
                }
            }
            return Ok(());
        }
        if spill.is_empty() {
            let used = parser.feed_samples(buf);
            if used > 0 {
                reader.consume(used);
                continue;
            }
            if let Some(newline) = buf.iter().position(|&b| b == b'\n') {
                let event = parser
                    .feed_line(&buf[..newline])
                    .map_err(ReadFailure::Wire)?;
                let done = matches!(event, Some(Event::Done));
                if let Some(event) = event {
                    progress.event(&event);
                }
                reader.consume(newline + 1);
                if done {
                    return Ok(());
                }
                continue;
            }
        }
        let (part, used, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(newline) => (&buf[..newline], newline + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(spill.len());
        spill.extend_from_slice(&part[..part.len().min(room)]);
        reader.consume(used);
        if complete {
            let event = parser.feed_line(&spill).map_err(ReadFailure::Wire)?;
            let done = matches!(event, Some(Event::Done));
            if let Some(event) = event {
                progress.event(&event);
            }
            spill.clear();
            if done {
                return Ok(());
            }
        }
    }
}

fn format_seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{seconds:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "board banner\n@rho-bench 1\n@target host arch=x86_64 optimized=1\n\
        @clock cycles tsc unit=cycle hz=1000 resolution=1\n\
        @clock time clock_gettime unit=ns hz=1000000000 resolution=1\n\
        @config iterations=4 warmup=1 time_cap_ms=0 stack_bytes=0\n@bench bench_a\n:9 3\n:5 2\n:6 2\r\n\
        :  7   2\n:8 3\n@stack off\n@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n\
        @end bench_a iterations=4 warmup=1 capped=0 unit=iter per_iteration=1\n@done benchmarks=1 dropped=0\n\
        after the end\n";

    fn read_all(text: &[u8], buffer: usize) -> (StreamParser, Result<(), ReadFailure>) {
        let mut reader = std::io::BufReader::with_capacity(buffer, text);
        let mut parser = StreamParser::new();
        let mut progress = Progress {
            noise_echoed: NOISE_ECHO_LIMIT,
        };
        let result = read_stream(&mut reader, &mut parser, &mut progress);
        (parser, result)
    }

    #[test]
    fn the_stream_read_through_any_buffer_size_is_the_stream_parsed_whole() {
        let expected = rho_wire::parse_str(STREAM).unwrap();
        // Buffers smaller than a line, a few lines, and the whole stream: lines straddle buffers everywhere.
        for buffer in [1, 2, 3, 7, 16, 64, 1 << 20] {
            let (parser, result) = read_all(STREAM.as_bytes(), buffer);
            result.unwrap();
            assert_eq!(parser.finish().unwrap(), expected, "buffer {buffer}");
        }
    }

    #[test]
    fn a_truncated_stream_is_read_to_its_end_and_left_unfinished() {
        let cut = STREAM.find("@stack").unwrap();
        let (parser, result) = read_all(&STREAM.as_bytes()[..cut - 1], 5);
        result.unwrap();
        assert_eq!(
            parser.whereabouts(),
            " while running bench_a (5 of its samples received; the harness writes them in blocks, so it \
             may have run further)"
        );
        assert!(parser.finish().is_err());
    }

    #[test]
    fn an_overlong_line_is_an_error_whatever_the_buffer() {
        let mut text = STREAM.as_bytes()[..STREAM.find(":9 3").unwrap()].to_vec();
        text.push(b':');
        text.extend(std::iter::repeat_n(b'1', MAX_LINE_BYTES + 10));
        text.extend_from_slice(b"\n");
        for buffer in [64, 1 << 20] {
            let (_, result) = read_all(&text, buffer);
            match result {
                Err(ReadFailure::Wire(error)) => {
                    assert_eq!(error.kind(), Some(rho_wire::ErrorKind::LineTooLong))
                }
                other => panic!("buffer {buffer}: {other:?}"),
            }
        }
    }

    #[test]
    fn settings_become_the_harness_environment() {
        let settings = HarnessSettings {
            iterations: Some(2000),
            warmup: None,
            scale: Some(0.5),
            filter: None,
        };
        assert_eq!(
            settings.environment(),
            [
                ("RHO_BENCH_ITERATIONS", "2000".to_string()),
                ("RHO_BENCH_SCALE", "0.5".to_string())
            ]
        );
    }
}
